<?php
// The PDO_mysql checks (included by compat.php, which defines the helpers and data).
declare(strict_types=1);

/** A new PDO; server-side prepared statements (ATTR_EMULATE_PREPARES=false) unless $emulate. */
function pdo_connect(array $who, bool $emulate = false, array $extra = [], bool $socket = false): PDO
{
    global $HOST, $PORT, $SOCKET, $DB;
    $dsn = $socket ? "mysql:unix_socket=$SOCKET;dbname=$DB;charset=utf8mb4" : "mysql:host=$HOST;port=$PORT;dbname=$DB;charset=utf8mb4";
    return new PDO($dsn, $who[0], $who[1], $extra + [
        PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION,
        PDO::ATTR_EMULATE_PREPARES => $emulate,
        PDO::ATTR_DEFAULT_FETCH_MODE => PDO::FETCH_ASSOC,
        PDO::ATTR_TIMEOUT => 10,
    ]);
}

function p1(PDO $p, string $sql, array $params = [])
{
    $st = $p->prepare($sql);
    $st->execute($params);
    $v = $st->fetchColumn();
    $st->closeCursor();
    return $v;
}

function p_rows(PDO $p, string $sql, array $params = []): array
{
    $st = $p->prepare($sql);
    $st->execute($params);
    $rows = $st->fetchAll(PDO::FETCH_ASSOC);
    $st->closeCursor();
    return $rows;
}

function expect_pdo_error(callable $fn, int $errno, string $sqlstate, string $what): PDOException
{
    try {
        $fn();
    } catch (PDOException $e) {
        eq($e->errorInfo[1] ?? null, $errno, "$what: errorInfo[1] (" . $e->getMessage() . ')');
        eq($e->errorInfo[0] ?? null, $sqlstate, "$what: errorInfo[0]");
        eq($e->getCode(), $sqlstate, "$what: getCode()");
        return $e;
    }
    throw new CheckFailed("$what: no PDOException raised");
}

/** Global status counter (server-wide), to see which protocol PDO used. */
function com_counter(PDO $p, string $name): int
{
    $st = $p->query("SHOW GLOBAL STATUS LIKE '$name'");
    $row = $st->fetch(PDO::FETCH_NUM);
    $st->closeCursor();
    if (!$row) {
        throw new CheckFailed("SHOW GLOBAL STATUS has no $name");
    }
    return (int)$row[1];
}

$probe = null;
try {
    $probe = pdo_connect($NATIVE);
} catch (Throwable $e) {
}
emit(['client' => 'php-pdo_mysql', 'version' => PHP_VERSION . ' (PDO_mysql, '
    . ($probe ? $probe->getAttribute(PDO::ATTR_CLIENT_VERSION) : 'mysqlnd ' . PHP_VERSION) . ')']);
$probe = null;

$main = null;
check('connect_native', function () use ($NATIVE, $DB, &$main) {
    $p = pdo_connect($NATIVE);
    eq(p1($p, 'SELECT 1'), 1, 'SELECT 1');
    eq(p1($p, 'SELECT CURRENT_USER()'), $NATIVE[0] . '@%', 'CURRENT_USER()');
    eq(p1($p, 'SELECT DATABASE()'), $DB, 'DATABASE()');
    $main = $p;
    return 'mysql_native_password over TCP, server ' . $p->getAttribute(PDO::ATTR_SERVER_VERSION)
        . ', ' . $p->getAttribute(PDO::ATTR_CONNECTION_STATUS);
});
if ($main === null) {
    foreach (['connect_sha2', 'connect_tls', 'types_integer', 'types_decimal', 'types_float', 'types_string', 'types_blob',
              'types_temporal', 'types_null', 'prepared', 'tx_rollback', 'tx_commit', 'duplicate_key',
              'last_insert_id', 'affected_rows', 'multi_results', 'pool_reuse'] as $f) {
        check($f, fn() => throw new CheckFailed('no connection (connect_native failed)'));
    }
    exit(0);
}
$p = $main;
// The same connection parameters with client-side (emulated) prepares: text protocol.
$pe = pdo_connect($NATIVE, true);

check('connect_sha2', function () use ($SHA2) {
    $details = [];
    foreach ([false, true] as $socket) {
        $c = pdo_connect($SHA2, false, [], $socket);
        eq(p1($c, 'SELECT 1'), 1, 'SELECT 1');
        eq(p1($c, 'SELECT CURRENT_USER()'), $SHA2[0] . '@%', 'CURRENT_USER()');
        $details[] = $c->getAttribute(PDO::ATTR_CONNECTION_STATUS);
        $c = null;
    }
    return 'caching_sha2_password (fast path, no TLS): ' . implode('; ', $details);
});

check('connect_tls', function () use ($SHA2) {
    // Emulated prepares: SHOW STATUS goes out as COM_QUERY (the upstream engine answers Ssl_* itself only there).
    $tls = fn(string $ca) => pdo_connect($SHA2, true, [PDO::MYSQL_ATTR_SSL_CA => $ca, PDO::MYSQL_ATTR_SSL_VERIFY_SERVER_CERT => true]);
    $c = $tls(getenv('TS_CA'));
    eq(p1($c, 'SELECT 1'), 1, 'SELECT 1 over TLS');
    $cipher = $c->query("SHOW SESSION STATUS LIKE 'Ssl_cipher'")->fetch(PDO::FETCH_NUM)[1];
    if ($cipher === '') {
        throw new CheckFailed('Ssl_cipher is empty: the connection is not TLS');
    }
    $c = null;
    try {
        @$tls(getenv('TS_OTHER_CA'));
    } catch (Throwable $e) {
        return "MYSQL_ATTR_SSL_CA, MYSQL_ATTR_SSL_VERIFY_SERVER_CERT: $cipher; with another CA: " . substr($e->getMessage(), 0, 80);
    }
    throw new CheckFailed("a CA that signed nothing of the server's was accepted");
});

check('types_integer', function () use ($p, $pe) {
    $p->exec(INT_DDL);
    $cols = implode(',', INT_COLS);
    $ins = $p->prepare("INSERT INTO t_int (k,$cols) VALUES (?,?,?,?,?,?,?,?,?,?,?)");
    $rows = int_rows();
    foreach ($rows as $k => $vals) {
        foreach (array_merge([$k], $vals) as $i => $v) {
            $ins->bindValue($i + 1, $v, is_int($v) ? PDO::PARAM_INT : PDO::PARAM_STR);
        }
        $ins->execute();
    }
    // BIGINT UNSIGNED max: beyond PHP_INT_MAX, so PDO hands it over as its decimal string.
    $u64err = null;
    try {
        $p->prepare("INSERT INTO t_int (k, biu) VALUES ('u64max', ?)")->execute([U64_MAX]);
    } catch (PDOException $e) {
        $u64err = 'BIGINT UNSIGNED max ' . U64_MAX . ' not stored: ' . $e->getMessage();
    }
    $want = [];
    foreach ($rows as $k => $vals) {
        $want[$k] = array_combine(INT_COLS, $vals);
    }
    if ($u64err === null) {
        $want['u64max'] = array_combine(INT_COLS, array_merge(array_fill(0, 9, null), [U64_MAX]));
    }
    $sel = "SELECT k,$cols FROM t_int";
    foreach (['binary protocol (server-side prepare)' => $p, 'text protocol (emulated prepares)' => $pe] as $how => $c) {
        $got = $c->query($sel)->fetchAll();
        eq(count($got), count($want), "$how: row count");
        foreach ($got as $row) {
            $k = $row['k'];
            unset($row['k']);
            eq($row, $want[$k], "$how: row $k");
        }
    }
    $st = $p->query("$sel LIMIT 1");
    eq($st->getColumnMeta(10)['native_type'] ?? null, 'LONGLONG', 'native_type of BIGINT UNSIGNED');
    $st->closeCursor();
    eq(p1($p, 'SELECT COUNT(*) FROM t_int WHERE bi = ? AND ti = ?', [PHP_INT_MIN, -128]), 1, 'PHP_INT_MIN as a parameter');
    if ($u64err !== null) {
        throw new CheckFailed("$u64err (every other limit round-trips, binary and text protocol)");
    }
    return 'TINYINT..BIGINT signed/unsigned at their limits as PHP int over the binary protocol and over the text protocol'
        . ' (emulated prepares, PHP >= 8.1 types them natively); BIGINT UNSIGNED max as the string ' . U64_MAX;
});

check('types_decimal', function () use ($p, $pe) {
    $p->exec(DEC_DDL);
    $ins = $p->prepare('INSERT INTO t_dec (id,' . implode(',', DEC_COLS) . ') VALUES (?,?,?,?,?)');
    foreach (dec_rows() as $id => [$in, $out]) {
        $ins->execute(array_merge([$id], $in));
    }
    $sel = 'SELECT id,' . implode(',', DEC_COLS) . ' FROM t_dec ORDER BY id';
    foreach (['binary' => $p, 'text' => $pe] as $how => $c) {
        $rows = $c->query($sel)->fetchAll();
        eq(count($rows), 3, "$how: rows");
        foreach ($rows as $row) {
            eq(array_values(array_slice($row, 1)), dec_rows()[$row['id']][1], "$how protocol: row {$row['id']}");
        }
    }
    $st = $p->query($sel);
    $meta = $st->getColumnMeta(1);
    $st->closeCursor();
    eq([$meta['native_type'] ?? null, $meta['precision'] ?? null], ['NEWDECIMAL', 2], 'native_type/precision of DECIMAL(10,2)');
    eq(p1($p, 'SELECT SUM(d102) FROM t_dec'), '12345685.85', 'SUM(d102)');
    return 'DECIMAL(10,2), (18,0), (15,5), (19,4) as exact strings with the declared scale (PDO\'s form), binary and text protocol';
});

check('types_float', function () use ($p, $pe) {
    $p->exec(FLT_DDL);
    $ins = $p->prepare('INSERT INTO t_float VALUES (?,?,?)');
    foreach (flt_rows() as $id => [$f, $d]) {
        // PDO binds everything but ints, bools, NULL and LOBs as strings; PHP's (string) of a float keeps only
        // `precision` (14) digits, so pass the shortest round-trip form.
        $ins->execute([$id, var_export($f, true), var_export($d, true)]);
    }
    $sel = 'SELECT id, f, d FROM t_float ORDER BY id';
    foreach (['binary' => $p, 'text' => $pe] as $how => $c) {
        $rows = $c->query($sel)->fetchAll();
        eq(count($rows), 4, "$how: rows");
        foreach ($rows as $row) {
            eq([$row['f'], $row['d']], flt_rows()[$row['id']], "$how protocol: row {$row['id']}");
        }
    }
    eq(p1($p, 'SELECT COUNT(*) FROM t_float WHERE d = ?', ['3.141592653589793']), 1, 'DOUBLE parameter compared server-side');
    return 'FLOAT and DOUBLE as PHP float (1.5, 0.1, 1e300, -2.5e-300 ...), binary and text protocol';
});

check('types_string', function () use ($p, $pe) {
    $p->exec(STR_DDL);
    $ins = $p->prepare('INSERT INTO t_str VALUES (?,?,?)');
    foreach (str_rows() as $id => [$v, $t]) {
        if ($id === 2) {
            $p->exec("INSERT INTO t_str VALUES ($id, " . $p->quote($v) . ', ' . $p->quote($t) . ')');
            continue;
        }
        $ins->execute([$id, $v, $t]);
    }
    $sel = 'SELECT id, v, t, CHAR_LENGTH(v) AS cv, LENGTH(t) AS lt FROM t_str ORDER BY id';
    foreach (['binary' => $p, 'text' => $pe] as $how => $c) {
        $rows = $c->query($sel)->fetchAll();
        eq(count($rows), 4, "$how: rows");
        foreach ($rows as $row) {
            [$v, $t] = str_rows()[$row['id']];
            eq([$row['v'], $row['t']], [$v, $t], "$how protocol: row {$row['id']}");
            eq($row['cv'], preg_match_all('/./su', $v), "$how: CHAR_LENGTH(v) of row {$row['id']}");
            eq($row['lt'], strlen($t), "$how: LENGTH(t) of row {$row['id']}");
        }
    }
    eq(p1($p, 'SELECT id FROM t_str WHERE v = ?', ["grin \u{1F600} 4-byte"]), 2, 'lookup by a 4-byte UTF-8 string');
    return 'VARCHAR and TEXT with UTF-8 incl. U+1F600 (prepared and quote()d inserts; binary and text reads; CHAR_LENGTH/LENGTH agree)';
});

check('types_blob', function () use ($p, $pe) {
    $p->exec(BLOB_DDL);
    $ins = $p->prepare('INSERT INTO t_blob VALUES (?,?,?)');
    foreach (blob_rows() as $id => [$b, $v]) {
        if ($id === 3) {
            $p->exec("INSERT INTO t_blob VALUES ($id, " . $p->quote($b) . ', ' . $p->quote($v) . ')');
            continue;
        }
        $ins->bindValue(1, $id, PDO::PARAM_INT);
        if ($id === 1) { // a stream bound as a LOB
            $fh = fopen('php://memory', 'w+b');
            fwrite($fh, $b);
            rewind($fh);
            $ins->bindValue(2, $fh, PDO::PARAM_LOB);
        } else {
            $ins->bindValue(2, $b, PDO::PARAM_LOB);
        }
        $ins->bindValue(3, $v, PDO::PARAM_LOB);
        $ins->execute();
    }
    // PDO's default, emulated prepares: the bytes are interpolated into the query text.
    $pe->prepare('INSERT INTO t_blob VALUES (?,?,?)')->execute([5, all_bytes(), "\xff\x00\xfe"]);
    eq($p->query('SELECT b, vb FROM t_blob WHERE id = 5')->fetchAll(), [['b' => all_bytes(), 'vb' => "\xff\x00\xfe"]],
        'row inserted through an emulated prepare');
    $sel = 'SELECT id, b, vb, LENGTH(b) AS lb FROM t_blob WHERE id < 5 ORDER BY id';
    foreach (['binary' => $p, 'text' => $pe] as $how => $c) {
        $rows = $c->query($sel)->fetchAll();
        eq(count($rows), 4, "$how: rows");
        foreach ($rows as $row) {
            [$b, $v] = blob_rows()[$row['id']];
            eq($row['b'], $b, "$how protocol: BLOB of row {$row['id']}");
            eq($row['vb'], $v, "$how protocol: VARBINARY of row {$row['id']}");
            eq($row['lb'], strlen($b), "$how: LENGTH(b) of row {$row['id']}");
        }
    }
    // bindColumn as PARAM_LOB
    $st = $p->prepare('SELECT b FROM t_blob WHERE id = ?');
    $st->execute([1]);
    $st->bindColumn(1, $lob, PDO::PARAM_LOB);
    $st->fetch(PDO::FETCH_BOUND);
    $st->closeCursor();
    eq(is_resource($lob) ? stream_get_contents($lob) : $lob, blob_rows()[1][0], 'bindColumn(PARAM_LOB)');
    return 'BLOB and VARBINARY with all 256 byte values (and 64 KiB), bound as PARAM_LOB (stream and string), quote()d and through an emulated prepare (raw bytes in the query text); binary and text reads byte-exact';
});

check('types_temporal', function () use ($p, $pe) {
    $p->exec(TEMP_DDL);
    $ins = $p->prepare('INSERT INTO t_temporal VALUES (?,?,?,?,?,?)');
    foreach (temp_rows() as $id => $vals) {
        $ins->execute(array_merge([$id], $vals));
    }
    $sel = 'SELECT id, d, dt, ts, tm, dt6 FROM t_temporal ORDER BY id';
    foreach (['binary' => $p, 'text' => $pe] as $how => $c) {
        $rows = $c->query($sel)->fetchAll();
        eq(count($rows), 3, "$how: rows");
        foreach ($rows as $row) {
            $want = temp_rows()[$row['id']];
            $got = array_values(array_slice($row, 1));
            eq($got, $want, "$how protocol: row {$row['id']}");
            eq(temporal_decode($got), temporal_decode($want), "$how: decoded row {$row['id']}");
        }
    }
    $st = $p->query($sel);
    $types = [];
    for ($i = 1; $i <= 5; $i++) {
        $types[] = $st->getColumnMeta($i)['native_type'] ?? null;
    }
    $st->closeCursor();
    eq($types, ['DATE', 'DATETIME', 'TIMESTAMP', 'TIME', 'DATETIME'], 'native types');
    $when = new DateTimeImmutable('2024-02-29 13:45:59', new DateTimeZone('UTC'));
    eq(p_rows($p, 'SELECT id, DATE_ADD(dt, INTERVAL 1 DAY) AS nd FROM t_temporal WHERE dt = ?', [$when->format('Y-m-d H:i:s')]),
        [['id' => 1, 'nd' => '2024-03-01 13:45:59']], 'DATE_ADD on a row found by a DATETIME parameter');
    return 'DATE, DATETIME, TIMESTAMP, TIME (incl. -838:59:59) and DATETIME(6) as PDO\'s strings, binary and text protocol, parsed into DateTimeImmutable';
});

check('types_null', function () use ($p, $pe) {
    $p->exec(NULL_DDL);
    $p->exec('INSERT INTO t_null (id) VALUES (1)');
    $cols = implode(',', NULL_COLS);
    $marks = implode(',', array_fill(0, count(NULL_COLS), '?'));
    $ins = $p->prepare("INSERT INTO t_null (id,$cols) VALUES (2,$marks)");
    foreach (NULL_COLS as $i => $c) {
        $ins->bindValue($i + 1, null, PDO::PARAM_NULL);
    }
    $ins->execute();
    $p->prepare("INSERT INTO t_null (id,$cols) VALUES (3,$marks)")->execute(array_fill(0, count(NULL_COLS), null));
    $sel = "SELECT id,$cols FROM t_null ORDER BY id";
    $want = array_fill_keys(NULL_COLS, null);
    foreach (['binary' => $p, 'text' => $pe] as $how => $c) {
        $rows = $c->query($sel)->fetchAll();
        eq(count($rows), 3, "$how: rows");
        foreach ($rows as $row) {
            $id = $row['id'];
            unset($row['id']);
            eq($row, $want, "$how protocol: row $id");
        }
    }
    return count(NULL_COLS) . ' column types NULL (default, PARAM_NULL, null in execute()) come back as PHP null, binary and text protocol';
});

check('prepared', function () use ($p) {
    $p->exec('CREATE TABLE t_prep (id INT PRIMARY KEY, name VARCHAR(20), score DOUBLE, n BIGINT)');
    $before = com_counter($p, 'Com_stmt_prepare');
    $ins = $p->prepare('INSERT INTO t_prep (id, name, score, n) VALUES (:id, :name, :score, :n)');
    $data = [[1, 'one', 1.5, -7], [2, 'two', 2.25, PHP_INT_MAX], [3, "thr\u{1F600}e", -0.5, 0], [4, 'four', 4.0, null]];
    foreach ($data as [$id, $name, $score, $n]) {
        $ins->bindValue(':id', $id, PDO::PARAM_INT);
        $ins->bindValue(':name', $name);
        $ins->bindValue(':score', $score);
        $ins->bindValue(':n', $n, $n === null ? PDO::PARAM_NULL : PDO::PARAM_INT);
        $ins->execute();
        eq($ins->rowCount(), 1, "rowCount of execute($id)");
    }
    $sel = $p->prepare('SELECT id, name, score, n FROM t_prep WHERE id = ?');
    foreach ([3, 1, 4, 2, 99] as $id) {
        $sel->execute([$id]);
        eq($sel->columnCount(), 4, 'columnCount() after execute');
        $got = $sel->fetchAll(PDO::FETCH_NUM);
        $want = array_values(array_filter($data, fn($r) => $r[0] === $id));
        eq($got, $want, "execute with id=$id");
    }
    $after = com_counter($p, 'Com_stmt_prepare');
    ok($after - $before >= 3, "Com_stmt_prepare grew by " . ($after - $before) . ' (want >= 3: the statements were prepared by the server)');
    $st = $p->prepare('SELECT ? + 1 AS a, CONCAT(?, \'!\') AS b, ? + 1 AS c');
    $st->bindValue(1, 41, PDO::PARAM_INT);
    $st->bindValue(2, 'hi');
    $st->bindValue(3, '41'); // a string in numeric context is a DOUBLE in MySQL
    $st->execute();
    eq($st->fetchAll(), [['a' => 42, 'b' => 'hi!', 'c' => 42.0]], 'server-answered SELECT ? + 1 (int and string parameter)');
    expect_pdo_error(fn() => $p->prepare('SELECT * FROM t_no_such_table WHERE id = ?'), 1146, '42S02', 'prepare on a missing table');
    return 'ATTR_EMULATE_PREPARES=false: named and positional placeholders, INSERT 4x and SELECT 5x with different parameters (incl. NULL, no row); Com_stmt_prepare grew '
        . ($after - $before) . '; server-answered SELECT ?; prepare error 1146 at prepare()';
});

check('tx_rollback', function () use ($p) {
    $p->exec('CREATE TABLE t_tx (id INT PRIMARY KEY, v VARCHAR(10))');
    ok($p->beginTransaction(), 'beginTransaction');
    eq($p->inTransaction(), true, 'inTransaction() after beginTransaction');
    $p->exec("INSERT INTO t_tx VALUES (1,'a'),(2,'b')");
    eq(p1($p, 'SELECT COUNT(*) FROM t_tx'), 2, 'rows inside the transaction');
    ok($p->rollBack(), 'rollBack');
    eq($p->inTransaction(), false, 'inTransaction() after rollBack');
    eq(p1($p, 'SELECT COUNT(*) FROM t_tx'), 0, 'rows after rollback');
    // A transaction begun in SQL: PDO learns of it from the server's IN_TRANS status flag.
    $p->exec('START TRANSACTION');
    $p->exec("INSERT INTO t_tx VALUES (3,'c')");
    eq($p->inTransaction(), true, 'inTransaction() after START TRANSACTION in SQL (SERVER_STATUS_IN_TRANS)');
    $p->exec('ROLLBACK');
    eq($p->inTransaction(), false, 'inTransaction() after ROLLBACK in SQL');
    eq(p1($p, 'SELECT COUNT(*) FROM t_tx'), 0, 'rows after SQL ROLLBACK');
    return 'beginTransaction + INSERT + rollBack, and START TRANSACTION/ROLLBACK in SQL (inTransaction() follows the server status flag), leave no rows';
});

check('tx_commit', function () use ($p, $SHA2) {
    $other = pdo_connect($SHA2);
    $p->beginTransaction();
    $p->exec("INSERT INTO t_tx VALUES (10,'x'),(11,'y')");
    eq(p1($other, 'SELECT COUNT(*) FROM t_tx'), 0, 'rows seen by another connection before commit');
    ok($p->commit(), 'commit');
    eq(p1($other, 'SELECT COUNT(*) FROM t_tx WHERE id IN (10,11)'), 2, 'rows seen by another connection after commit');
    return 'committed rows visible from another connection (and invisible before the commit)';
});

check('duplicate_key', function () use ($p, $pe) {
    $p->exec('CREATE TABLE t_dup (id INT PRIMARY KEY, email VARCHAR(50), UNIQUE KEY uk_email (email))');
    $p->exec("INSERT INTO t_dup VALUES (1, 'a@example.com')");
    $e = expect_pdo_error(fn() => $p->exec("INSERT INTO t_dup VALUES (1, 'b@example.com')"), 1062, '23000', 'duplicate PRIMARY KEY via exec');
    ok(str_contains($e->getMessage(), "Duplicate entry '1'"), 'message: ' . $e->getMessage());
    $ins = $p->prepare('INSERT INTO t_dup VALUES (?, ?)');
    $e2 = expect_pdo_error(fn() => $ins->execute([2, 'a@example.com']), 1062, '23000', 'duplicate UNIQUE key via a server-side prepared statement');
    eq($ins->errorInfo()[1], 1062, 'PDOStatement::errorInfo()[1]');
    expect_pdo_error(fn() => $pe->prepare('INSERT INTO t_dup VALUES (?, ?)')->execute([1, 'c@example.com']), 1062, '23000', 'duplicate key via an emulated prepare');
    eq(p1($p, 'SELECT COUNT(*) FROM t_dup'), 1, 'rows after the failed inserts');
    return 'PDOException SQLSTATE 23000 with errorInfo[1] = 1062 (exec, server-side and emulated prepares): ' . $e2->getMessage();
});

check('last_insert_id', function () use ($p) {
    $p->exec('CREATE TABLE t_ai (id BIGINT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10))');
    $p->exec("INSERT INTO t_ai (v) VALUES ('a')");
    eq($p->lastInsertId(), '1', 'lastInsertId() after the first insert');
    $p->prepare('INSERT INTO t_ai (v) VALUES (?)')->execute(['b']);
    eq($p->lastInsertId(), '2', 'lastInsertId() after a prepared insert');
    $p->exec("INSERT INTO t_ai (v) VALUES ('c'),('d'),('e')");
    eq($p->lastInsertId(), '3', 'lastInsertId() after a 3-row insert (its first id)');
    eq(p1($p, 'SELECT LAST_INSERT_ID()'), 3, 'SELECT LAST_INSERT_ID()');
    $p->exec("INSERT INTO t_ai (id, v) VALUES (100, 'explicit')");
    eq($p->lastInsertId(), '100', 'lastInsertId() after an explicit id');
    $p->exec("INSERT INTO t_ai (v) VALUES ('f')");
    eq($p->lastInsertId(), '101', 'lastInsertId() after the explicit id');
    return "lastInsertId() '1', '2' (prepared), first id '3' of a 3-row insert, explicit '100', then '101'";
});

check('affected_rows', function () use ($p, $NATIVE) {
    $p->exec('CREATE TABLE t_aff (id INT PRIMARY KEY, v INT)');
    eq($p->exec('INSERT INTO t_aff VALUES (1,0),(2,0),(3,0),(4,0),(5,0)'), 5, 'exec() of a 5-row INSERT');
    eq($p->exec('UPDATE t_aff SET v = 1 WHERE id <= 3'), 3, 'exec() of UPDATE of 3 rows');
    $st = $p->prepare('UPDATE t_aff SET v = ? WHERE id > ?');
    $st->execute([9, 100]);
    eq($st->rowCount(), 0, 'rowCount() after UPDATE matching nothing');
    $st = $p->prepare('DELETE FROM t_aff WHERE id > ?');
    $st->execute([3]);
    eq($st->rowCount(), 2, 'rowCount() after DELETE of 2 rows');
    // MySQL counts changed rows unless the client sets CLIENT_FOUND_ROWS (PDO::MYSQL_ATTR_FOUND_ROWS, off by default).
    eq($p->exec('UPDATE t_aff SET v = 1 WHERE id <= 3'), 0, 'UPDATE matching 3 rows that already hold the value (no FOUND_ROWS)');
    $f = pdo_connect($NATIVE, false, [PDO::MYSQL_ATTR_FOUND_ROWS => true]);
    eq($f->exec('UPDATE t_aff SET v = 1 WHERE id <= 3'), 3, 'the same UPDATE with MYSQL_ATTR_FOUND_ROWS (matched rows)');
    return 'exec()/rowCount() 5/3/0/2 after INSERT/UPDATE/UPDATE/DELETE; changed vs matched rows with and without MYSQL_ATTR_FOUND_ROWS';
});

check('multi_results', function () use ($p, $pe) {
    $p->exec('CREATE TABLE t_multi (id INT PRIMARY KEY, v VARCHAR(5))');
    // Several statements in one query need the text protocol: emulated prepares (MySQL cannot prepare them).
    $st = $pe->query("SELECT 1 AS a; INSERT INTO t_multi VALUES (1,'x'),(2,'y'); SELECT id, v FROM t_multi ORDER BY id; SELECT COUNT(*) AS n FROM t_multi");
    $sets = [];
    do {
        $sets[] = $st->columnCount() > 0 ? $st->fetchAll() : ['rowCount' => $st->rowCount()];
    } while ($st->nextRowset());
    eq($sets, [[['a' => 1]], ['rowCount' => 2], [['id' => 1, 'v' => 'x'], ['id' => 2, 'v' => 'y']], [['n' => 2]]], 'result sets');
    // An error in a later statement surfaces from nextRowset().
    $st = $pe->query('SELECT 1 AS a; SELECT * FROM t_no_such_table; SELECT 3');
    eq($st->fetchAll(), [['a' => 1]], 'first result before the error');
    expect_pdo_error(fn() => $st->nextRowset(), 1146, '42S02', 'the failing second statement');
    $st = null;
    eq(p1($pe, 'SELECT 5'), 5, 'connection usable after the batch');
    return 'query() with 4 statements (3 result sets + 1 row count) read with nextRowset() (emulated prepares: a multi-statement cannot be prepared server-side); error mid-batch 1146';
});

check('pool_reuse', function () use ($NATIVE, $p) {
    // PDO's pool is ATTR_PERSISTENT: a persistent handle is kept after its PDO object goes away and the next
    // new PDO with the same DSN and user takes it again. PDO_mysql checks it with COM_PING only (no
    // COM_RESET_CONNECTION / COM_CHANGE_USER: session state survives, as with MySQL); what PDO resets is an
    // open transaction, which it rolls back when the object is freed if the server's IN_TRANS flag says so.
    $p->exec('CREATE TABLE t_pool (id INT PRIMARY KEY)');
    $opts = [PDO::ATTR_PERSISTENT => true];
    $a = pdo_connect($NATIVE, false, $opts);
    $cid = p1($a, 'SELECT CONNECTION_ID()');
    $a->exec('SET @pool_var = 42');
    $a->exec('START TRANSACTION');
    $a->exec('INSERT INTO t_pool VALUES (1)');
    eq($a->inTransaction(), true, 'inTransaction() from the IN_TRANS flag');
    $a = null; // back to the pool: PDO rolls back the open transaction
    eq(p1($p, 'SELECT COUNT(*) FROM t_pool'), 0, 'rows of the open transaction after the handle went back (rolled back)');
    $b = pdo_connect($NATIVE, false, $opts);
    eq(p1($b, 'SELECT CONNECTION_ID()'), $cid, 'CONNECTION_ID() of the reused persistent handle (same server connection)');
    eq(p1($b, 'SELECT 1'), 1, 'SELECT 1 on the reused handle');
    eq($b->inTransaction(), false, 'inTransaction() after reuse');
    eq(p1($b, 'SELECT @pool_var'), 42, 'user variable after reuse (PDO does not reset the session)');
    $b->exec('INSERT INTO t_pool VALUES (2)');
    eq(p1($p, 'SELECT COUNT(*) FROM t_pool'), 1, 'autocommit works on the reused handle');
    $b = null;
    $c = pdo_connect($NATIVE, false, $opts);
    eq(p1($c, 'SELECT CONNECTION_ID()'), $cid, 'CONNECTION_ID() on the third take');
    $c = null;
    return "persistent handle taken again 2x: same connection $cid (COM_PING on reuse), open transaction rolled back via the IN_TRANS flag,"
        . ' user variable kept (PDO_mysql sends no COM_RESET_CONNECTION/COM_CHANGE_USER)';
});

check('x_connect_per_request', function () use ($NATIVE, $SHA2) {
    $n = 200;
    $ids = [];
    $t0 = microtime(true);
    for ($i = 0; $i < $n; $i++) {
        $who = $i % 2 ? $SHA2 : $NATIVE;
        $c = pdo_connect($who, false, [], $i % 4 === 3);
        $st = $c->prepare('SELECT CONNECTION_ID() AS cid, ? AS i, CURRENT_USER() AS u');
        $st->execute([$i]);
        $row = $st->fetch();
        eq([(int)$row['i'], $row['u']], [$i, $who[0] . '@%'], "request $i");
        $ids[$row['cid']] = true;
        $st = null;
        $c = null;
    }
    $dt = microtime(true) - $t0;
    eq(count($ids), $n, 'distinct connection ids');
    return sprintf('%d x (new PDO, prepared SELECT, close), alternating both auth plugins, every 4th over the Unix socket: %.0f ms, %.2f ms per request',
        $n, $dt * 1000, $dt * 1000 / $n);
});

check('x_socket', function () use ($NATIVE, $SOCKET) {
    $c = pdo_connect($NATIVE, false, [], true);
    eq(p1($c, 'SELECT 7'), 7, 'SELECT over the socket');
    $status = $c->getAttribute(PDO::ATTR_CONNECTION_STATUS);
    ok(str_contains($status, 'UNIX socket'), 'connection status: ' . $status);
    return "PDO over the Unix socket $SOCKET ($status)";
});
