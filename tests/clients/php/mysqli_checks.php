<?php
// The mysqli checks (included by compat.php, which defines the helpers and data).
declare(strict_types=1);

mysqli_report(MYSQLI_REPORT_ERROR | MYSQLI_REPORT_STRICT);

/** A new connection; $native: MYSQLI_OPT_INT_AND_FLOAT_NATIVE (ints/floats as PHP numbers). */
function my_connect(array $who, bool $native = true, ?string $host = null, bool $socket = false, int $flags = 0): mysqli
{
    global $HOST, $PORT, $SOCKET, $DB;
    $m = mysqli_init();
    $m->options(MYSQLI_OPT_CONNECT_TIMEOUT, 10);
    $m->options(MYSQLI_OPT_READ_TIMEOUT, 30);
    if ($native) {
        $m->options(MYSQLI_OPT_INT_AND_FLOAT_NATIVE, 1);
    }
    if ($socket) {
        $m->real_connect($host ?? 'localhost', $who[0], $who[1], $DB, 0, $SOCKET, $flags);
    } else {
        $m->real_connect($host ?? $HOST, $who[0], $who[1], $DB, $PORT, null, $flags);
    }
    $m->set_charset('utf8mb4');
    return $m;
}

function q1(mysqli $m, string $sql)
{
    $r = $m->query($sql);
    $row = $r->fetch_row();
    $r->free();
    return $row[0];
}

/** Every row of a prepared SELECT (binary protocol), as assoc arrays via get_result(). */
function stmt_rows(mysqli $m, string $sql, string $types = '', array $params = []): array
{
    $st = $m->prepare($sql);
    if ($types !== '') {
        $st->bind_param($types, ...$params);
    }
    $st->execute();
    $r = $st->get_result();
    $rows = $r->fetch_all(MYSQLI_ASSOC);
    $st->close();
    return $rows;
}

/** Every row of a prepared SELECT read with bind_result()/fetch() (the unbuffered binary path). */
function stmt_bound_rows(mysqli $m, string $sql): array
{
    $st = $m->prepare($sql);
    $st->execute();
    $meta = $st->result_metadata();
    $names = array_map(fn($f) => $f->name, $meta->fetch_fields());
    $vals = array_fill(0, count($names), null);
    $refs = [];
    foreach ($vals as $i => &$v) {
        $refs[] = &$v;
    }
    unset($v);
    $st->bind_result(...$refs);
    $rows = [];
    while ($st->fetch()) {
        $row = [];
        foreach ($names as $i => $n) {
            $row[$n] = $refs[$i];
        }
        $rows[] = $row;
    }
    $st->close();
    return $rows;
}

function text_rows(mysqli $m, string $sql): array
{
    $r = $m->query($sql);
    $rows = $r->fetch_all(MYSQLI_ASSOC);
    $r->free();
    return $rows;
}

function expect_error(callable $fn, int $errno, string $sqlstate, string $what): mysqli_sql_exception
{
    try {
        $fn();
    } catch (mysqli_sql_exception $e) {
        eq($e->getCode(), $errno, "$what: error code (" . $e->getMessage() . ')');
        eq($e->getSqlState(), $sqlstate, "$what: SQLSTATE");
        return $e;
    }
    throw new CheckFailed("$what: no error raised");
}

$main = null;
emit(['client' => 'php-mysqli', 'version' => PHP_VERSION . ' (' . mysqli_get_client_info() . ')']);

check('connect_native', function () use ($NATIVE, $DB, &$main) {
    $m = my_connect($NATIVE);
    eq(q1($m, 'SELECT 1'), 1, 'SELECT 1');
    eq(q1($m, 'SELECT CURRENT_USER()'), $NATIVE[0] . '@%', 'CURRENT_USER()');
    eq(q1($m, 'SELECT DATABASE()'), $DB, 'DATABASE()');
    $main = $m;
    return "mysql_native_password over TCP, server {$m->server_info}, thread {$m->thread_id}";
});
if ($main === null) {
    // Nothing else can work; still report every column.
    foreach (['connect_sha2', 'connect_tls', 'types_integer', 'types_decimal', 'types_float', 'types_string', 'types_blob',
              'types_temporal', 'types_null', 'prepared', 'tx_rollback', 'tx_commit', 'duplicate_key',
              'last_insert_id', 'affected_rows', 'multi_results', 'pool_reuse'] as $f) {
        check($f, fn() => throw new CheckFailed('no connection (connect_native failed)'));
    }
    exit(0);
}
$m = $main;

check('connect_sha2', function () use ($SHA2) {
    $details = [];
    foreach ([false, true] as $socket) {
        $c = my_connect($SHA2, true, null, $socket);
        eq(q1($c, 'SELECT 1'), 1, 'SELECT 1');
        eq(q1($c, 'SELECT CURRENT_USER()'), $SHA2[0] . '@%', 'CURRENT_USER()');
        $details[] = $c->host_info;
        $c->close();
    }
    return 'caching_sha2_password (fast path, no TLS): ' . implode('; ', $details);
});

check('connect_tls', function () use ($SHA2, $HOST, $PORT, $DB) {
    // mysqlnd verifies the chain and the host name with MYSQLI_OPT_SSL_VERIFY_SERVER_CERT.
    $tls = function (string $ca) use ($SHA2, $HOST, $PORT, $DB): mysqli {
        $m = mysqli_init();
        $m->options(MYSQLI_OPT_CONNECT_TIMEOUT, 10);
        $m->options(MYSQLI_OPT_INT_AND_FLOAT_NATIVE, 1);
        $m->options(MYSQLI_OPT_SSL_VERIFY_SERVER_CERT, true);
        $m->ssl_set(null, null, $ca, null, null);
        $m->real_connect($HOST, $SHA2[0], $SHA2[1], $DB, $PORT, null, MYSQLI_CLIENT_SSL);
        return $m;
    };
    $c = $tls(getenv('TS_CA'));
    eq(q1($c, 'SELECT 1'), 1, 'SELECT 1 over TLS');
    $cipher = $c->query("SHOW SESSION STATUS LIKE 'Ssl_cipher'")->fetch_row()[1];
    if ($cipher === '') {
        throw new CheckFailed('Ssl_cipher is empty: the connection is not TLS');
    }
    $c->close();
    try {
        @$tls(getenv('TS_OTHER_CA'))->close();
    } catch (Throwable $e) {
        return "ssl_set ca, MYSQLI_OPT_SSL_VERIFY_SERVER_CERT, MYSQLI_CLIENT_SSL: $cipher; with another CA: " . substr($e->getMessage(), 0, 80);
    }
    throw new CheckFailed("a CA that signed nothing of the server's was accepted");
});

check('types_integer', function () use ($m, $NATIVE) {
    $m->query(INT_DDL);
    $cols = implode(',', INT_COLS);
    $rows = int_rows();
    foreach ($rows as $k => $vals) {
        $m->query("INSERT INTO t_int (k,$cols) VALUES ('$k'," . implode(',', $vals) . ')');
    }
    // BIGINT UNSIGNED max: PHP has no integer type for it; mysqlnd hands it over as its decimal string.
    $u64err = null;
    try {
        $st = $m->prepare("INSERT INTO t_int (k, biu) VALUES ('u64max', ?)");
        $u = U64_MAX;
        $st->bind_param('s', $u);
        $st->execute();
        $st->close();
    } catch (mysqli_sql_exception $e) {
        $u64err = 'BIGINT UNSIGNED max ' . U64_MAX . ' not stored: [' . $e->getCode() . '] ' . $e->getMessage();
    }
    $want = [];
    foreach ($rows as $k => $vals) {
        $want[$k] = array_combine(INT_COLS, $vals);
    }
    if ($u64err === null) {
        $want['u64max'] = array_combine(INT_COLS, array_merge(array_fill(0, 9, null), [U64_MAX]));
    }
    $sel = "SELECT k,$cols FROM t_int";
    $check = function (array $got, string $how, bool $strings) use ($want) {
        eq(count($got), count($want), "$how: row count");
        foreach ($got as $row) {
            $k = $row['k'];
            unset($row['k']);
            $exp = $want[$k];
            if ($strings) {
                $exp = array_map(fn($v) => $v === null ? null : (string)$v, $exp);
            }
            eq($row, $exp, "$how: row $k");
        }
    };
    // 1. text protocol with MYSQLI_OPT_INT_AND_FLOAT_NATIVE: PHP ints.
    $check(text_rows($m, $sel), 'text protocol, INT_AND_FLOAT_NATIVE', false);
    // 2. text protocol, mysqli's default: every value as its decimal string.
    $plain = my_connect($NATIVE, false);
    $check(text_rows($plain, $sel), 'text protocol, default (strings)', true);
    // 3. binary protocol: ints whatever the option (get_result and bind_result).
    $check(stmt_rows($plain, $sel), 'binary protocol, get_result', false);
    $check(stmt_bound_rows($plain, $sel), 'binary protocol, bind_result', false);
    // Field metadata: the MySQL type and the UNSIGNED flag of each column.
    $types = [MYSQLI_TYPE_TINY, MYSQLI_TYPE_SHORT, MYSQLI_TYPE_INT24, MYSQLI_TYPE_LONG, MYSQLI_TYPE_LONGLONG];
    $r = $plain->query("$sel LIMIT 1");
    foreach (array_slice($r->fetch_fields(), 1) as $i => $f) {
        eq($f->type, $types[intdiv($i, 2)], "type of {$f->name}");
        eq(($f->flags & MYSQLI_UNSIGNED_FLAG) !== 0, $i % 2 === 1, "UNSIGNED flag of {$f->name}");
    }
    $r->free();
    // A parameter bound as PHP int at the limits, compared server-side.
    $st = $plain->prepare('SELECT COUNT(*) FROM t_int WHERE bi = ? AND biu = ?');
    $a = PHP_INT_MIN;
    $b = 0;
    $st->bind_param('ii', $a, $b);
    $st->execute();
    $st->bind_result($n);
    $st->fetch();
    $st->close();
    eq($n, 1, 'rows with bi = PHP_INT_MIN bound as an int parameter');
    $plain->close();
    if ($u64err !== null) {
        throw new CheckFailed("$u64err (every other limit round-trips, text and binary protocol)");
    }
    return 'TINYINT..BIGINT signed/unsigned at their limits as PHP int (text protocol with MYSQLI_OPT_INT_AND_FLOAT_NATIVE,'
        . ' binary protocol via get_result and bind_result), as decimal strings by default; BIGINT UNSIGNED max as the string '
        . U64_MAX . ' (beyond PHP_INT_MAX); field types and UNSIGNED flags';
});

check('types_decimal', function () use ($m) {
    $m->query(DEC_DDL);
    $st = $m->prepare('INSERT INTO t_dec (id,' . implode(',', DEC_COLS) . ') VALUES (?,?,?,?,?)');
    foreach (dec_rows() as $id => [$in, $out]) {
        if ($id === 3) { // one row as text literals
            $m->query("INSERT INTO t_dec VALUES ($id," . implode(',', $in) . ')');
            continue;
        }
        $st->bind_param('issss', $id, ...$in);
        $st->execute();
    }
    $st->close();
    $sel = 'SELECT id,' . implode(',', DEC_COLS) . ' FROM t_dec ORDER BY id';
    foreach (['text' => text_rows($m, $sel), 'binary' => stmt_rows($m, $sel)] as $how => $rows) {
        eq(count($rows), 3, "$how: rows");
        foreach ($rows as $row) {
            eq(array_values(array_slice($row, 1)), dec_rows()[$row['id']][1], "$how protocol: row {$row['id']}");
        }
    }
    $r = $m->query($sel);
    $f = $r->fetch_field_direct(1);
    eq($f->type, MYSQLI_TYPE_NEWDECIMAL, 'field type of DECIMAL(10,2)');
    eq($f->decimals, 2, 'decimals of DECIMAL(10,2)');
    $r->free();
    eq(q1($m, 'SELECT SUM(d102) FROM t_dec'), '12345685.85', 'SUM(d102)');
    return 'DECIMAL(10,2), (18,0), (15,5), (19,4) as exact strings with the declared scale (mysqlnd\'s form), text and binary protocol';
});

check('types_float', function () use ($m, $NATIVE) {
    $m->query(FLT_DDL);
    $st = $m->prepare('INSERT INTO t_float VALUES (?,?,?)');
    foreach (flt_rows() as $id => [$f, $d]) {
        $st->bind_param('idd', $id, $f, $d);
        $st->execute();
    }
    $st->close();
    $sel = 'SELECT id, f, d FROM t_float ORDER BY id';
    foreach (['text (INT_AND_FLOAT_NATIVE)' => text_rows($m, $sel), 'binary' => stmt_rows($m, $sel)] as $how => $rows) {
        eq(count($rows), 4, "$how: rows");
        foreach ($rows as $row) {
            eq([$row['f'], $row['d']], flt_rows()[$row['id']], "$how protocol: row {$row['id']}");
        }
    }
    $r = $m->query($sel);
    eq($r->fetch_field_direct(1)->type, MYSQLI_TYPE_FLOAT, 'field type of FLOAT');
    eq($r->fetch_field_direct(2)->type, MYSQLI_TYPE_DOUBLE, 'field type of DOUBLE');
    $r->free();
    eq(q1($m, 'SELECT COUNT(*) FROM t_float WHERE d = 3.141592653589793'), 1, 'DOUBLE compared server-side');
    return 'FLOAT and DOUBLE as PHP float (1.5, 0.1, 1e300, -2.5e-300 ...), text and binary protocol';
});

check('types_string', function () use ($m) {
    $m->query(STR_DDL);
    $st = $m->prepare('INSERT INTO t_str VALUES (?,?,?)');
    foreach (str_rows() as $id => [$v, $t]) {
        if ($id === 2) {
            $m->query("INSERT INTO t_str VALUES ($id, '" . $m->real_escape_string($v) . "', '" . $m->real_escape_string($t) . "')");
            continue;
        }
        $st->bind_param('iss', $id, $v, $t);
        $st->execute();
    }
    $st->close();
    $sel = 'SELECT id, v, t, CHAR_LENGTH(v) AS cv, LENGTH(t) AS lt FROM t_str ORDER BY id';
    foreach (['text' => text_rows($m, $sel), 'binary' => stmt_rows($m, $sel)] as $how => $rows) {
        eq(count($rows), 4, "$how: rows");
        foreach ($rows as $row) {
            [$v, $t] = str_rows()[$row['id']];
            eq([$row['v'], $row['t']], [$v, $t], "$how protocol: row {$row['id']}");
            eq($row['cv'], preg_match_all('/./su', $v), "$how: CHAR_LENGTH(v) of row {$row['id']}");
            eq($row['lt'], strlen($t), "$how: LENGTH(t) of row {$row['id']}");
        }
    }
    $st = $m->prepare('SELECT id FROM t_str WHERE v = ?');
    $needle = "grin \u{1F600} 4-byte";
    $st->bind_param('s', $needle);
    $st->execute();
    $st->bind_result($id);
    ok($st->fetch() === true, 'lookup by a 4-byte UTF-8 string found nothing');
    eq($id, 2, 'lookup by a 4-byte UTF-8 string');
    $st->close();
    return 'VARCHAR and TEXT with UTF-8 incl. U+1F600 (prepared and escaped text inserts; text and binary reads; CHAR_LENGTH/LENGTH agree)';
});

check('types_blob', function () use ($m) {
    $m->query(BLOB_DDL);
    // Row 1 through send_long_data (COM_STMT_SEND_LONG_DATA), rows 2 and 4 as plain string parameters,
    // row 3 as real_escape_string()d text (raw bytes in the query, as PHP code does it).
    $st = $m->prepare('INSERT INTO t_blob VALUES (?,?,?)');
    [$b1, $v1] = blob_rows()[1];
    $id = 1;
    $null = null;
    $st->bind_param('ibb', $id, $null, $null);
    foreach (str_split($b1, 100) as $chunk) {
        $st->send_long_data(1, $chunk);
    }
    $st->send_long_data(2, $v1);
    $st->execute();
    $st->close();
    $st = $m->prepare('INSERT INTO t_blob VALUES (?,?,?)');
    foreach ([2, 4] as $id) {
        [$b2, $v2] = blob_rows()[$id];
        $st->bind_param('iss', $id, $b2, $v2);
        $st->execute();
    }
    $st->close();
    [$b3, $v3] = blob_rows()[3];
    $m->query("INSERT INTO t_blob VALUES (3, '" . $m->real_escape_string($b3) . "', '" . $m->real_escape_string($v3) . "')");
    $sel = 'SELECT id, b, vb, LENGTH(b) AS lb FROM t_blob ORDER BY id';
    foreach (['text' => text_rows($m, $sel), 'binary' => stmt_rows($m, $sel), 'binary bind_result' => stmt_bound_rows($m, $sel)] as $how => $rows) {
        eq(count($rows), 4, "$how: rows");
        foreach ($rows as $row) {
            [$b, $v] = blob_rows()[$row['id']];
            eq($row['b'], $b, "$how protocol: BLOB of row {$row['id']}");
            eq($row['vb'], $v, "$how protocol: VARBINARY of row {$row['id']}");
            eq($row['lb'], strlen($b), "$how: LENGTH(b) of row {$row['id']}");
        }
    }
    $r = $m->query($sel);
    $f = $r->fetch_field_direct(1);
    eq($f->charsetnr, 63, 'BLOB charset (63 = binary)');
    eq(($f->flags & MYSQLI_BINARY_FLAG) !== 0, true, 'BLOB has BINARY_FLAG');
    $r->free();
    return 'BLOB and VARBINARY with all 256 byte values (and 64 KiB), via send_long_data, string parameters and real_escape_string()d text; text and binary reads byte-exact';
});

check('types_temporal', function () use ($m) {
    $m->query(TEMP_DDL);
    $st = $m->prepare('INSERT INTO t_temporal VALUES (?,?,?,?,?,?)');
    foreach (temp_rows() as $id => $vals) {
        $st->bind_param('isssss', $id, ...$vals);
        $st->execute();
    }
    $st->close();
    $sel = 'SELECT id, d, dt, ts, tm, dt6 FROM t_temporal ORDER BY id';
    foreach (['text' => text_rows($m, $sel), 'binary' => stmt_rows($m, $sel)] as $how => $rows) {
        eq(count($rows), 3, "$how: rows");
        foreach ($rows as $row) {
            $want = temp_rows()[$row['id']];
            $got = array_values(array_slice($row, 1));
            eq($got, $want, "$how protocol: row {$row['id']}");
            eq(temporal_decode($got), temporal_decode($want), "$how: decoded row {$row['id']}");
        }
    }
    $r = $m->query($sel);
    $types = array_map(fn($f) => $f->type, array_slice($r->fetch_fields(), 1));
    $r->free();
    eq($types, [MYSQLI_TYPE_DATE, MYSQLI_TYPE_DATETIME, MYSQLI_TYPE_TIMESTAMP, MYSQLI_TYPE_TIME, MYSQLI_TYPE_DATETIME], 'field types');
    // A DateTime-formatted parameter and server-side date arithmetic.
    $when = (new DateTimeImmutable('2024-02-29 13:45:59', new DateTimeZone('UTC')))->format('Y-m-d H:i:s');
    $rows = stmt_rows($m, 'SELECT id, DATE_ADD(dt, INTERVAL 1 DAY) AS nd FROM t_temporal WHERE dt = ?', 's', [$when]);
    eq($rows, [['id' => 1, 'nd' => '2024-03-01 13:45:59']], 'DATE_ADD on a row found by a DATETIME parameter');
    return 'DATE, DATETIME, TIMESTAMP, TIME (incl. -838:59:59) and DATETIME(6) as mysqlnd\'s strings, text and binary protocol, parsed into DateTimeImmutable';
});

check('types_null', function () use ($m) {
    $m->query(NULL_DDL);
    $m->query('INSERT INTO t_null (id) VALUES (1)');
    $cols = implode(',', NULL_COLS);
    $marks = implode(',', array_fill(0, count(NULL_COLS), '?'));
    $st = $m->prepare("INSERT INTO t_null (id,$cols) VALUES (2,$marks)");
    $nulls = array_fill(0, count(NULL_COLS), null);
    $st->bind_param(str_repeat('s', count(NULL_COLS)), ...$nulls);
    $st->execute();
    $st->close();
    $m->query("INSERT INTO t_null (id,$cols) VALUES (3," . implode(',', array_fill(0, count(NULL_COLS), 'NULL')) . ')');
    $sel = "SELECT id,$cols FROM t_null ORDER BY id";
    $want = array_fill_keys(NULL_COLS, null);
    foreach (['text' => text_rows($m, $sel), 'binary' => stmt_rows($m, $sel)] as $how => $rows) {
        eq(count($rows), 3, "$how: rows");
        foreach ($rows as $row) {
            $id = $row['id'];
            unset($row['id']);
            eq($row, $want, "$how protocol: row $id");
        }
    }
    eq(q1($m, 'SELECT COUNT(*) FROM t_null WHERE bl IS NULL AND tm IS NULL AND js IS NULL'), 3, 'IS NULL server-side');
    return count(NULL_COLS) . ' column types NULL (default, NULL parameters, NULL literals) come back as PHP null, text and binary protocol';
});

check('prepared', function () use ($m) {
    $m->query('CREATE TABLE t_prep (id INT PRIMARY KEY, name VARCHAR(20), score DOUBLE, n BIGINT)');
    $ins = $m->prepare('INSERT INTO t_prep (id, name, score, n) VALUES (?, ?, ?, ?)');
    eq($ins->param_count, 4, 'param_count reported by COM_STMT_PREPARE');
    $data = [[1, 'one', 1.5, -7], [2, 'two', 2.25, PHP_INT_MAX], [3, "thr\u{1F600}e", -0.5, 0], [4, 'four', 4.0, null]];
    foreach ($data as $row) {
        $ins->bind_param('isdi', ...$row);
        $ins->execute();
        eq($ins->affected_rows, 1, "affected rows of execute($row[0])");
    }
    $ins->close();
    $sel = $m->prepare('SELECT name, score, n FROM t_prep WHERE id = ?');
    eq($sel->param_count, 1, 'param_count of the SELECT');
    eq($sel->field_count, 3, 'field_count of the SELECT');
    foreach ([3, 1, 4, 2, 99] as $id) {
        $sel->bind_param('i', $id);
        $sel->execute();
        $sel->store_result();
        $sel->bind_result($name, $score, $n);
        $got = $sel->fetch() ? [$id, $name, $score, $n] : null;
        $sel->free_result();
        $want = null;
        foreach ($data as $row) {
            if ($row[0] === $id) {
                $want = $row;
            }
        }
        eq($got, $want, "execute with id=$id");
    }
    $sel->reset();
    $sel->close();
    // A statement the server answers itself (no table): columns described at execute time.
    $rows = stmt_rows($m, 'SELECT ? + 1 AS a, CONCAT(?, \'!\') AS b', 'is', [41, 'hi']);
    eq($rows, [['a' => 42, 'b' => 'hi!']], 'SELECT ? + 1, CONCAT(?, \'!\')');
    // A prepare error surfaces from the server at prepare time.
    expect_error(fn() => $m->prepare('SELECT * FROM t_no_such_table WHERE id = ?'), 1146, '42S02', 'prepare on a missing table');
    return 'mysqli_stmt (COM_STMT_PREPARE/EXECUTE): INSERT executed 4x, SELECT 5x with different parameters (incl. NULL and no row), store_result, reset; server-answered SELECT ?; prepare error 1146';
});

check('tx_rollback', function () use ($m) {
    $m->query('CREATE TABLE t_tx (id INT PRIMARY KEY, v VARCHAR(10))');
    $m->begin_transaction();
    $m->query("INSERT INTO t_tx VALUES (1,'a'),(2,'b')");
    eq(q1($m, 'SELECT COUNT(*) FROM t_tx'), 2, 'rows inside the transaction');
    $m->rollback();
    eq(q1($m, 'SELECT COUNT(*) FROM t_tx'), 0, 'rows after rollback');
    // autocommit off: the same through mysqli::autocommit(false).
    $m->autocommit(false);
    $m->query("INSERT INTO t_tx VALUES (3,'c')");
    $m->rollback();
    $m->autocommit(true);
    eq(q1($m, 'SELECT COUNT(*) FROM t_tx'), 0, 'rows after autocommit(false) + rollback');
    return 'begin_transaction + INSERT + rollback and autocommit(false) + rollback leave no rows';
});

check('tx_commit', function () use ($m, $SHA2) {
    $other = my_connect($SHA2);
    $m->begin_transaction();
    $m->query("INSERT INTO t_tx VALUES (10,'x'),(11,'y')");
    eq(q1($other, 'SELECT COUNT(*) FROM t_tx'), 0, 'rows seen by another connection before commit');
    $m->commit();
    eq(q1($other, 'SELECT COUNT(*) FROM t_tx WHERE id IN (10,11)'), 2, 'rows seen by another connection after commit');
    $other->close();
    return 'committed rows visible from another connection (and invisible before the commit)';
});

check('duplicate_key', function () use ($m) {
    $m->query('CREATE TABLE t_dup (id INT PRIMARY KEY, email VARCHAR(50), UNIQUE KEY uk_email (email))');
    $m->query("INSERT INTO t_dup VALUES (1, 'a@example.com')");
    $e = expect_error(fn() => $m->query("INSERT INTO t_dup VALUES (1, 'b@example.com')"), 1062, '23000', 'duplicate PRIMARY KEY');
    ok(str_contains($e->getMessage(), "Duplicate entry '1'"), 'message: ' . $e->getMessage());
    eq($m->errno, 1062, 'mysqli::$errno');
    eq($m->sqlstate, '23000', 'mysqli::$sqlstate');
    $st = $m->prepare('INSERT INTO t_dup VALUES (?, ?)');
    $id = 2;
    $mail = 'a@example.com';
    $st->bind_param('is', $id, $mail);
    $e2 = expect_error(fn() => $st->execute(), 1062, '23000', 'duplicate UNIQUE key via a prepared statement');
    eq($st->errno, 1062, 'mysqli_stmt::$errno');
    $st->close();
    eq(q1($m, 'SELECT COUNT(*) FROM t_dup'), 1, 'rows after the failed inserts');
    return 'mysqli_sql_exception code 1062 SQLSTATE 23000 (' . $e->getMessage() . ' / ' . $e2->getMessage() . ')';
});

check('last_insert_id', function () use ($m) {
    $m->query('CREATE TABLE t_ai (id BIGINT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10))');
    $m->query("INSERT INTO t_ai (v) VALUES ('a')");
    eq($m->insert_id, 1, 'insert_id after the first insert');
    $m->query("INSERT INTO t_ai (v) VALUES ('b')");
    eq($m->insert_id, 2, 'insert_id after the second insert');
    $m->query("INSERT INTO t_ai (v) VALUES ('c'),('d'),('e')");
    eq($m->insert_id, 3, 'insert_id after a 3-row insert (its first id)');
    eq(q1($m, 'SELECT LAST_INSERT_ID()'), 3, 'SELECT LAST_INSERT_ID()');
    $st = $m->prepare('INSERT INTO t_ai (v) VALUES (?)');
    $v = 'f';
    $st->bind_param('s', $v);
    $st->execute();
    eq($st->insert_id, 6, 'mysqli_stmt::$insert_id');
    $st->close();
    $m->query("INSERT INTO t_ai (id, v) VALUES (100, 'explicit')");
    eq($m->insert_id, 100, 'insert_id after an explicit id');
    $m->query("UPDATE t_ai SET v = 'z' WHERE id = 1");
    eq($m->insert_id, 0, 'insert_id after an UPDATE');
    return 'mysqli::$insert_id 1, 2, first id 3 of a 3-row insert, mysqli_stmt::$insert_id 6, explicit 100, 0 after UPDATE';
});

check('affected_rows', function () use ($m, $NATIVE) {
    $m->query('CREATE TABLE t_aff (id INT PRIMARY KEY, v INT)');
    $m->query('INSERT INTO t_aff VALUES (1,0),(2,0),(3,0),(4,0),(5,0)');
    eq($m->affected_rows, 5, 'after a 5-row INSERT');
    $m->query('UPDATE t_aff SET v = 1 WHERE id <= 3');
    eq($m->affected_rows, 3, 'after UPDATE of 3 rows');
    $m->query('UPDATE t_aff SET v = 9 WHERE id > 100');
    eq($m->affected_rows, 0, 'after UPDATE matching nothing');
    $m->query('DELETE FROM t_aff WHERE id > 3');
    eq($m->affected_rows, 2, 'after DELETE of 2 rows');
    $st = $m->prepare('UPDATE t_aff SET v = v + 1 WHERE id < ?');
    $lim = 3;
    $st->bind_param('i', $lim);
    $st->execute();
    eq($st->affected_rows, 2, 'mysqli_stmt::$affected_rows after UPDATE');
    $st->close();
    // MySQL counts changed rows unless the client sets CLIENT_FOUND_ROWS, which mysqli does not by default:
    // rows already holding the value are matched but not changed.
    $m->query('UPDATE t_aff SET v = 2 WHERE id <= 3'); // ids 1,2 hold 2 already, 3 holds 1
    eq($m->affected_rows, 1, 'UPDATE matching 3 rows of which 1 changes (no CLIENT_FOUND_ROWS)');
    $f = my_connect($NATIVE, true, null, false, MYSQLI_CLIENT_FOUND_ROWS);
    $f->query('UPDATE t_aff SET v = 2 WHERE id <= 3');
    eq($f->affected_rows, 3, 'the same UPDATE with MYSQLI_CLIENT_FOUND_ROWS (matched rows)');
    $f->close();
    return 'affected_rows 5/3/0/2 after INSERT/UPDATE/UPDATE/DELETE, mysqli_stmt 2; changed vs matched rows with and without CLIENT_FOUND_ROWS';
});

check('multi_results', function () use ($m) {
    $m->query("CREATE TABLE t_multi (id INT PRIMARY KEY, b VARCHAR(5))");
    $m->query("INSERT INTO t_multi VALUES (2, 'x'), (3, 'y')");
    $m->multi_query("SELECT 1 AS a; SELECT b, id AS c FROM t_multi ORDER BY id; INSERT INTO t_multi VALUES (4, 'z'), (5, 'w'); SELECT COUNT(*) AS n FROM t_multi");
    $sets = [];
    do {
        $r = $m->store_result();
        if ($r instanceof mysqli_result) {
            $sets[] = $r->fetch_all(MYSQLI_ASSOC);
            $r->free();
        } else {
            $sets[] = ['affected' => $m->affected_rows];
        }
    } while ($m->more_results() && $m->next_result());
    eq($sets, [[['a' => 1]], [['b' => 'x', 'c' => 2], ['b' => 'y', 'c' => 3]], ['affected' => 2], [['n' => 4]]], 'result sets');
    // An error in the middle statement ends the batch at that statement.
    $m->multi_query('SELECT 1; SELECT * FROM t_no_such_table; SELECT 3');
    $r = $m->store_result();
    eq($r->fetch_row(), [1], 'first result before the error');
    $r->free();
    expect_error(fn() => $m->next_result(), 1146, '42S02', 'the failing second statement');
    eq($m->more_results(), false, 'more_results after the error');
    eq(q1($m, 'SELECT 5'), 5, 'connection usable after the batch');
    return 'multi_query with 4 statements (3 result sets + 1 OK) read with store_result/next_result; an error mid-batch stops it with 1146';
});

check('pool_reuse', function () use ($NATIVE, $SHA2, $HOST, $m) {
    // Persistent connections ("p:" host) are mysqli's pool: close() returns the link, the next connect
    // with the same parameters takes it again and mysqlnd resets it with COM_CHANGE_USER.
    $m->query('CREATE TABLE t_pool (id INT PRIMARY KEY)');
    $p1 = my_connect($NATIVE, true, "p:$HOST");
    $tid = $p1->thread_id;
    eq(q1($p1, 'SELECT CONNECTION_ID()'), $tid, 'CONNECTION_ID() of the persistent link');
    $p1->query('SET @pool_var = 42');
    $p1->query("SET SESSION sql_mode = 'ANSI_QUOTES'");
    $p1->query('CREATE TEMPORARY TABLE t_pool_tmp (x INT)');
    $p1->query('START TRANSACTION');
    $p1->query('INSERT INTO t_pool VALUES (1)');
    $p1->close();
    $p2 = my_connect($NATIVE, true, "p:$HOST");
    eq($p2->thread_id, $tid, 'thread_id of the reused persistent link (same server connection)');
    eq(q1($p2, 'SELECT CONNECTION_ID()'), $tid, 'CONNECTION_ID() after reuse');
    eq(q1($p2, 'SELECT @pool_var'), null, 'user variable after reuse');
    eq(q1($p2, 'SELECT @@SESSION.sql_mode') !== 'ANSI_QUOTES', true, 'session sql_mode after reuse');
    expect_error(fn() => $p2->query('SELECT * FROM t_pool_tmp'), 1146, '42S02', 'temporary table after reuse');
    eq(q1($m, 'SELECT COUNT(*) FROM t_pool'), 0, 'rows of the open transaction after reuse (rolled back)');
    eq(q1($p2, 'SELECT CURRENT_USER()'), $NATIVE[0] . '@%', 'CURRENT_USER() after reuse');
    $p2->close();
    // The same with the caching_sha2_password account: COM_CHANGE_USER answered with that plugin's scramble.
    $s1 = my_connect($SHA2, true, "p:$HOST");
    $sid = $s1->thread_id;
    $s1->query('SET @pool_var = 7');
    $s1->close();
    $s2 = my_connect($SHA2, true, "p:$HOST");
    eq([$s2->thread_id, q1($s2, 'SELECT @pool_var'), q1($s2, 'SELECT CURRENT_USER()')], [$sid, null, $SHA2[0] . '@%'],
        'caching_sha2_password persistent link after reuse: [thread_id, user variable, CURRENT_USER()]');
    $s2->close();
    // mysqli::change_user() itself (COM_CHANGE_USER), to the other account and plugin and back.
    $c = my_connect($NATIVE);
    $cid = $c->thread_id;
    $c->query('SET @cu = 1');
    ok($c->change_user($SHA2[0], $SHA2[1], null), 'change_user to the caching_sha2_password account');
    eq(q1($c, 'SELECT CURRENT_USER()'), $SHA2[0] . '@%', 'CURRENT_USER() after change_user');
    eq(q1($c, 'SELECT DATABASE()'), null, 'DATABASE() after change_user without a database');
    eq(q1($c, 'SELECT @cu'), null, 'user variable after change_user');
    eq($c->thread_id, $cid, 'same connection after change_user');
    global $DB;
    ok($c->change_user($NATIVE[0], $NATIVE[1], $DB), 'change_user back to the mysql_native_password account');
    eq(q1($c, 'SELECT DATABASE()'), $DB, 'DATABASE() after change_user with a database');
    expect_error(fn() => $c->change_user($NATIVE[0], 'wrong password', $DB), 1045, '28000', 'change_user with a wrong password');
    $c->close();
    return "persistent link (p:) taken again: same connection $tid, reset by COM_CHANGE_USER (user variable, sql_mode, temporary table and open transaction gone), also for the caching_sha2_password account;"
        . ' mysqli::change_user across both auth plugins, with and without a database, wrong password 1045';
});

check('x_connect_per_request', function () use ($NATIVE, $SHA2) {
    // The PHP request model: every request connects, runs one query and disconnects.
    $n = 200;
    $ids = [];
    $t0 = microtime(true);
    for ($i = 0; $i < $n; $i++) {
        $who = $i % 2 ? $SHA2 : $NATIVE;
        $c = my_connect($who, true, null, $i % 4 === 3);
        $r = $c->query("SELECT CONNECTION_ID() AS cid, $i AS i, CURRENT_USER() AS u");
        $row = $r->fetch_assoc();
        $r->free();
        eq([$row['i'], $row['u']], [$i, $who[0] . '@%'], "request $i");
        $ids[$row['cid']] = true;
        $c->close();
    }
    $dt = microtime(true) - $t0;
    eq(count($ids), $n, 'distinct connection ids');
    return sprintf('%d x (connect, SELECT, close), alternating both auth plugins, every 4th over the Unix socket: %.0f ms, %.2f ms per request',
        $n, $dt * 1000, $dt * 1000 / $n);
});

check('x_socket', function () use ($NATIVE, $SOCKET) {
    $c = my_connect($NATIVE, true, 'localhost', true);
    eq(q1($c, 'SELECT 7'), 7, 'SELECT over the socket');
    ok(str_contains($c->host_info, 'UNIX socket'), 'host_info: ' . $c->host_info);
    $c->close();
    return "mysqli over the Unix socket $SOCKET";
});

$m->close();
