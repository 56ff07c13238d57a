"""EXPLAIN as an attacker uses it: a plan must tell nothing the statement itself would not.

EXPLAIN shows which tables a statement reads, their indexes and how many rows
they hold. An account holding ALL on its own database asks for the plans of
statements naming a victim database: the victim's tables in every position
(FROM, JOIN, subqueries, derived tables, CTEs, UNION, a view of its own over
nothing it may read), tables and databases that do not exist, every EXPLAIN
form (EXTENDED, PARTITIONS, FORMAT=JSON, DESCRIBE) and the binary protocol.
MariaDB 10.11 refuses each with 1142 naming the victim's table, never 1146
(checked against it; the privilege matrix's explain_* templates agree with
MariaDB on all 740 cases). EXPLAIN of a write needs the write's privileges
and writes nothing (rows, AUTO_INCREMENT counters). The nesting limits hold
as for the statement itself, and no word of SQLite's own plan (SCAN, SEARCH,
its index names, the translator's helper tables) reaches the client.
"""

from __future__ import annotations

import json

import pymysql
import pytest

from helpers import clients

# Words of SQLite's plans and of Turnstile's translation that must never be shown.
SQLITE_WORDS = ("SCAN", "SEARCH", "USING INDEX", "COVERING", "sqlite_", "ts_", "ts:", "rowid", "CO-ROUTINE", "MATERIALIZE", "subquery-", "B-TREE", "AUTOMATIC", "main.", "CONSTANT ROW", "LEFT-MOST", "MULTI-INDEX")


def _err(conn, sql, args=None) -> int:
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, sql, args)
    return ei.value.args[0]


def _err_message(conn, sql) -> str:
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, sql)
    return ei.value.args[1]


@pytest.fixture
def two_dbs(sql_server, uniq):
    """A victim database with an indexed secret table, and an account holding
    ALL on its own database only."""
    v, h, user = uniq("xvic"), uniq("xhome"), uniq("xatt")
    root = clients.root(sql_server)
    for sql in [
        f"CREATE DATABASE {v}",
        f"CREATE DATABASE {h}",
        f"CREATE TABLE {v}.secret (id INT PRIMARY KEY, s VARCHAR(20), KEY hidden_ix (s))",
        f"INSERT INTO {v}.secret VALUES (1, 'top'), (2, 'secret')",
        f"CREATE TABLE {h}.t (id INT PRIMARY KEY, s VARCHAR(20), KEY own_ix (s))",
        f"INSERT INTO {h}.t VALUES (1, 'a')",
        f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'",
        f"GRANT ALL ON {h}.* TO '{user}'@'%'",
    ]:
        clients.query(root, sql)
    att = clients.connect(sql_server, user, "pw", database=h)
    yield sql_server, root, att, v, h, user
    att.close()
    clients.query(root, f"DROP USER '{user}'@'%'")
    clients.query(root, f"DROP DATABASE {v}")
    clients.query(root, f"DROP DATABASE {h}")
    root.close()


READS = [
    "SELECT * FROM {v}.secret",
    "SELECT * FROM {v}.secret WHERE s = 'top'",
    "SELECT * FROM t JOIN {v}.secret x ON x.id = t.id",
    "SELECT * FROM t WHERE id IN (SELECT id FROM {v}.secret)",
    "SELECT * FROM t WHERE EXISTS (SELECT 1 FROM {v}.secret WHERE secret.id = t.id)",
    "SELECT (SELECT s FROM {v}.secret LIMIT 1)",
    "SELECT * FROM (SELECT * FROM {v}.secret) AS d",
    "WITH c AS (SELECT * FROM {v}.secret) SELECT * FROM c",
    "SELECT s FROM t UNION SELECT s FROM {v}.secret",
    "SELECT * FROM t NATURAL LEFT JOIN {v}.secret",
    "SELECT count(*) FROM `{v}`.`secret`",
    "SELECT * FROM {v} . secret",
    # What does not exist is refused the same way (MariaDB: 1142, never 1146).
    "SELECT * FROM {v}.nosuch",
    "SELECT nosuchcol FROM {v}.secret",
    "SELECT * FROM {v}_none.t",
]
PREFIXES = ["EXPLAIN", "EXPLAIN EXTENDED", "EXPLAIN PARTITIONS", "EXPLAIN FORMAT=JSON", "DESCRIBE", "DESC"]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_explain_of_another_database_is_refused(two_dbs, prefix):
    _, _, att, v, _, _ = two_dbs
    for read in READS:
        sql = f"{prefix} {read.format(v=v)}"
        message = _err_message(att, sql)
        assert message.startswith("SELECT command denied"), (sql, message)
        assert "hidden_ix" not in message and "top" not in message, (sql, message)


def test_explain_through_the_binary_protocol_is_refused(two_dbs):
    """COM_STMT_PREPARE of an EXPLAIN is refused at prepare, as the statement is."""
    srv, _, _, v, h, user = two_dbs
    import mysql.connector

    conn = mysql.connector.connect(host="127.0.0.1", port=srv.port, user=user, password="pw", database=h)
    try:
        cur = conn.cursor(prepared=True)
        with pytest.raises(mysql.connector.Error) as ei:
            cur.execute(f"EXPLAIN SELECT * FROM {v}.secret WHERE id = %s", (1,))
        assert ei.value.errno == 1142
        cur = conn.cursor(prepared=True)
        cur.execute("EXPLAIN SELECT * FROM t WHERE id = %s", (1,))
        rows = cur.fetchall()
        assert len(rows) == 1 and rows[0][2] == "t"
    finally:
        conn.close()


def test_sql_prepare_of_explain_is_refused(two_dbs):
    """SQL PREPARE keeps the text (Turnstile checks nothing at PREPARE for any
    statement; MariaDB: 1142 there): EXECUTE is refused as the statement is."""
    _, _, att, v, _, _ = two_dbs
    clients.query(att, f"PREPARE bad FROM 'EXPLAIN SELECT * FROM {v}.secret'")
    assert _err(att, "EXECUTE bad") == 1142
    clients.query(att, "PREPARE st FROM 'EXPLAIN SELECT * FROM t WHERE id = ?'")
    clients.query(att, "SET @x = 1")
    rows = clients.query(att, "EXECUTE st USING @x")
    assert rows and rows[0][2] == "t"


def test_explain_of_writes_needs_the_writes_privileges(two_dbs, uniq):
    """An account holding SELECT alone may not EXPLAIN an UPDATE, DELETE,
    INSERT or REPLACE (MariaDB 10.11: 1142 naming the write)."""
    srv, root, _, v, _, _ = two_dbs
    reader = uniq("xread")
    clients.query(root, f"CREATE USER '{reader}'@'%' IDENTIFIED BY 'pw'")
    clients.query(root, f"GRANT SELECT ON {v}.* TO '{reader}'@'%'")
    try:
        conn = clients.connect(srv, reader, "pw", database=v)
        for sql, verb in [
            ("EXPLAIN UPDATE secret SET s = 'x' WHERE id = 1", "UPDATE"),
            ("EXPLAIN DELETE FROM secret WHERE id = 1", "DELETE"),
            ("EXPLAIN INSERT INTO secret VALUES (3, 'x')", "INSERT"),
            ("EXPLAIN REPLACE INTO secret VALUES (1, 'x')", "INSERT"),
            ("DESCRIBE UPDATE secret SET s = 'x'", "UPDATE"),
        ]:
            message = _err_message(conn, sql)
            assert message.startswith(f"{verb} command denied"), (sql, message)
        # What it may do, it may explain.
        assert clients.query(conn, "EXPLAIN SELECT * FROM secret WHERE id = 1")
        conn.close()
    finally:
        clients.query(root, f"DROP USER '{reader}'@'%'")


def test_explain_of_a_write_writes_nothing(two_dbs):
    _, root, _, v, _, _ = two_dbs
    clients.query(root, f"CREATE TABLE {v}.ai (id INT AUTO_INCREMENT PRIMARY KEY, n INT)")
    clients.query(root, f"INSERT INTO {v}.ai (n) VALUES (1), (2)")
    before = clients.query(root, f"SELECT * FROM {v}.secret ORDER BY id")
    for sql in [
        f"EXPLAIN DELETE FROM {v}.secret",
        f"EXPLAIN DELETE FROM {v}.secret WHERE id = 1",
        f"EXPLAIN UPDATE {v}.secret SET s = 'gone'",
        f"EXPLAIN UPDATE {v}.secret SET s = 'gone' ORDER BY s LIMIT 1",
        f"EXPLAIN INSERT INTO {v}.secret VALUES (9, 'new')",
        f"EXPLAIN INSERT INTO {v}.secret SELECT id + 10, s FROM {v}.secret",
        f"EXPLAIN REPLACE INTO {v}.secret VALUES (1, 'replaced')",
        f"EXPLAIN INSERT INTO {v}.secret VALUES (1, 'x') ON DUPLICATE KEY UPDATE s = 'upserted'",
        f"EXPLAIN INSERT INTO {v}.ai (n) VALUES (3), (4), (5)",
        f"EXPLAIN FORMAT=JSON DELETE FROM {v}.secret",
        f"EXPLAIN EXTENDED UPDATE {v}.secret SET s = 'gone'",
    ]:
        assert clients.query(root, sql), sql
    assert clients.query(root, f"SELECT * FROM {v}.secret ORDER BY id") == before
    # No AUTO_INCREMENT value was taken by the explained INSERT.
    clients.query(root, f"INSERT INTO {v}.ai (n) VALUES (3)")
    assert clients.scalar(root, "SELECT LAST_INSERT_ID()") == 3
    # Inside a transaction too, and the transaction's own writes stay its own.
    root.begin()
    clients.query(root, f"EXPLAIN DELETE FROM {v}.secret")
    root.rollback()
    assert clients.query(root, f"SELECT * FROM {v}.secret ORDER BY id") == before


def test_a_view_is_no_way_around(two_dbs):
    """The attacker's own view cannot name the victim (1235 for everyone);
    the victim's view is refused as its table is."""
    _, root, att, v, h, _ = two_dbs
    clients.query(root, f"USE {v}")
    clients.query(root, "CREATE VIEW sv AS SELECT id, s FROM secret")
    clients.query(root, f"USE {h}")
    assert _err(att, f"CREATE VIEW peek AS SELECT * FROM {v}.secret") in (1142, 1235)
    assert _err(att, f"EXPLAIN SELECT * FROM {v}.sv") == 1142
    assert _err(att, f"EXPLAIN SELECT * FROM t WHERE id IN (SELECT id FROM {v}.sv)") == 1142
    # Its own view over its own table is explained like the table.
    clients.query(att, "CREATE VIEW own AS SELECT id, s FROM t WHERE id > 0")
    rows = clients.query(att, "EXPLAIN SELECT * FROM own")
    assert [r[2] for r in rows] == ["t"], rows


def test_nesting_limits_hold_as_for_the_statement(sql_server, uniq):
    """The explained statement is translated as running it would be: past
    64 nested SELECTs 1473, past 64 WITH elements 4003, deep expressions 1436
    or MariaDB's errors, and the server keeps serving."""
    root = clients.root(sql_server)
    db = uniq("xdeep")
    clients.query(root, f"CREATE DATABASE {db}")
    clients.query(root, f"USE {db}")
    clients.query(root, "CREATE TABLE t (a INT)")
    nest = lambda n: "SELECT * FROM " + "(SELECT * FROM " * n + "(SELECT 1 AS x) d" + ") d" * n
    chain = lambda n: "WITH " + ", ".join("c0 AS (SELECT 1 AS x)" if i == 0 else f"c{i} AS (SELECT x FROM c{i - 1})" for i in range(n)) + f" SELECT x FROM c{n - 1}"
    try:
        for prefix in ("EXPLAIN", "EXPLAIN FORMAT=JSON"):
            assert clients.query(root, f"{prefix} {nest(62)}")
            assert _err(root, f"{prefix} {nest(63)}") == 1473
            assert _err(root, f"{prefix} {nest(5000)}") == 1473
            assert clients.query(root, f"{prefix} {chain(64)}")
            assert _err(root, f"{prefix} {chain(65)}") == 4003
            assert _err(root, f"{prefix} SELECT " + "(SELECT " * 100 + "a FROM t" + ")" * 100) == 1473
            assert _err(root, f"{prefix} SELECT " + "ABS(" * 100_000 + "a" + ")" * 100_000 + " FROM t") in (1436, 1064)
            assert clients.scalar(root, "SELECT 1") == 1
    finally:
        clients.query(root, f"DROP DATABASE {db}")
        root.close()


def _all_text(rows) -> str:
    return "\n".join("" if v is None else str(v) for r in rows for v in r)


def test_sqlite_plan_text_is_never_shown(sql_server, uniq):
    """Every value is MariaDB's word, a MySQL index name, a number or a name
    the client's text uses; SQLite's index names (`t_ix`, `sqlite_autoindex_*`)
    and the translator's helpers (`ts_src`, `ts:r`, `rowid IN`) never show."""
    root = clients.root(sql_server)
    db = uniq("xplan")
    clients.query(root, f"CREATE DATABASE {db}")
    clients.query(root, f"USE {db}")
    for sql in [
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10), KEY ix (a), UNIQUE KEY ub (b))",
        "CREATE TABLE k (code VARCHAR(8) PRIMARY KEY, n INT)",
        "INSERT INTO t VALUES (1, 1, 'x'), (2, 2, 'y')",
        "INSERT INTO k VALUES ('a', 1)",
        "CREATE VIEW v AS SELECT a, b FROM t WHERE id > 0",
    ]:
        clients.query(root, sql)
    statements = [
        "SELECT * FROM t WHERE a = 1",
        "SELECT a FROM t WHERE a > 0 ORDER BY a",
        "SELECT * FROM t WHERE b = 'x'",
        "SELECT * FROM t WHERE id = 1 OR a = 2",
        "SELECT * FROM k WHERE code = 'a'",
        "SELECT * FROM t JOIN k ON k.code = t.b",
        "SELECT * FROM t WHERE a IN (SELECT n FROM k)",
        "SELECT (SELECT max(n) FROM k WHERE k.n = t.a) FROM t",
        "SELECT * FROM (SELECT a, count(*) AS c FROM t GROUP BY a) d",
        "SELECT a FROM t UNION SELECT n FROM k ORDER BY 1",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r",
        "SELECT * FROM v",
        "SELECT DISTINCT b FROM t",
        "SELECT * FROM t t1, t t2 WHERE t2.a = t1.id",
        "INSERT INTO t SELECT id + 10, a, b FROM t",
        "INSERT INTO t VALUES (5, 5, 'z') ON DUPLICATE KEY UPDATE a = 6",
        "UPDATE t SET a = a + 1 ORDER BY b LIMIT 1",
        "DELETE FROM k WHERE code > 'a' LIMIT 2",
        "SELECT 1",
    ]
    try:
        for stmt in statements:
            for prefix in ("EXPLAIN", "EXPLAIN EXTENDED", "EXPLAIN FORMAT=JSON"):
                rows = clients.query(root, f"{prefix} {stmt}")
                text = _all_text(rows)
                for word in SQLITE_WORDS:
                    assert word not in text, (prefix, stmt, word, text)
                if prefix == "EXPLAIN FORMAT=JSON":
                    assert "query_block" in json.loads(text)
                else:
                    keys = {k for r in rows for k in str(r[5]).split(",")}
                    assert keys <= {"None", "ix", "ub", "PRIMARY", "key0"}, (stmt, keys)
                    tables = {r[2] for r in rows}
                    assert tables <= {None, "t", "k", "d", "t1", "t2", "<derived2>", "<derived3>", "<union1,2>", "<union2,3>"}, (stmt, tables)
    finally:
        clients.query(root, f"DROP DATABASE {db}")
        root.close()
