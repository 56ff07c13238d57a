"""Multi-table UPDATE and DELETE on the sqlite engine (MariaDB 10.11's forms,
affected rows, info string and errors; every expectation below was checked
against MariaDB 10.11). The old binary refused each form with 1235.
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def db(sql_server, uniq):
    name = uniq("mt")
    conn = clients.root(sql_server)
    clients.query(conn, f"CREATE DATABASE {name}")
    clients.query(conn, f"USE {name}")
    for sql in [
        "CREATE TABLE t1 (id INT PRIMARY KEY, a INT, b INT)",
        "CREATE TABLE t2 (id INT PRIMARY KEY, a INT, c INT)",
        "INSERT INTO t1 VALUES (1,10,100),(2,20,200),(3,30,300)",
        "INSERT INTO t2 VALUES (1,11,1),(2,22,2),(4,44,4)",
    ]:
        clients.query(conn, sql)
    yield conn, name
    clients.query(conn, f"DROP DATABASE {name}")
    conn.close()


def run(conn, sql, args=None):
    """(affected rows, info string) of one statement."""
    with conn.cursor() as cur:
        n = cur.execute(sql, args)
    raw = conn._result.message or b""
    # A length-encoded string, the length byte kept by PyMySQL (as test_affected_rows.py reads it).
    assert not raw or raw[0] == len(raw) - 1, raw
    return n, raw[1:].decode()


def code_of(conn, sql):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, sql)
    return ei.value.args[0], ei.value.args[1]


def test_values_come_from_the_rows_before_the_statement(db):
    conn, _ = db
    # A swap: each side reads the other's old value (MariaDB: t1.a 11/22, t2.a 10/20).
    assert run(conn, "UPDATE t1, t2 SET t1.a = t2.a, t2.a = t1.a WHERE t1.id = t2.id") == (4, "Rows matched: 4  Changed: 4  Warnings: 0")
    assert clients.query(conn, "SELECT id, a FROM t1 ORDER BY id") == ((1, 11), (2, 22), (3, 30))
    assert clients.query(conn, "SELECT id, a FROM t2 ORDER BY id") == ((1, 10), (2, 20), (4, 44))


def test_each_row_is_updated_once_and_counted_once(db):
    conn, _ = db
    # Each t1 row joins three t2 rows: b + 1 once, matched 3 (MariaDB the same).
    assert run(conn, "UPDATE t1, t2 SET t1.b = t1.b + 1") == (3, "Rows matched: 3  Changed: 3  Warnings: 0")
    assert clients.query(conn, "SELECT b FROM t1 ORDER BY id") == ((101,), (201,), (301,))
    # Unqualified columns find their table; two targets: 1 + 3 rows.
    assert run(conn, "UPDATE t1, t2 SET b = 5, c = 9 WHERE t1.id = 1") == (4, "Rows matched: 4  Changed: 4  Warnings: 0")
    # Matched but unchanged rows are not counted as changed.
    assert run(conn, "UPDATE t1 JOIN t2 ON t1.id = t2.id SET t1.b = 5, t2.c = 9") == (1, "Rows matched: 4  Changed: 1  Warnings: 0")


def test_join_forms_aliases_and_sources(db):
    conn, _ = db
    assert run(conn, "UPDATE t1 AS x INNER JOIN t2 y ON x.id = y.id SET x.a = y.c")[0] == 2
    assert clients.query(conn, "SELECT a FROM t1 ORDER BY id") == ((1,), (2,), (30,))
    assert run(conn, "UPDATE t1 x STRAIGHT_JOIN t2 y ON x.id = y.id SET y.a = 0")[0] == 2
    # A LEFT JOIN's missing side is no row to update.
    assert run(conn, "UPDATE t1 LEFT JOIN t2 ON t1.id = t2.id SET t1.b = 7, t2.c = 8") == (5, "Rows matched: 5  Changed: 5  Warnings: 0")
    # Derived tables, views and subqueries are read-only sources.
    clients.query(conn, "CREATE VIEW v AS SELECT id, a FROM t2")
    assert run(conn, "UPDATE t1, (SELECT MAX(c) AS m FROM t2) d SET t1.b = d.m WHERE t1.id = 3")[0] == 1
    assert run(conn, "UPDATE t1 JOIN v ON v.id = t1.id SET t1.a = v.a + (SELECT COUNT(*) FROM t2) WHERE t1.id IN (SELECT id FROM t2)")[0] == 2
    assert clients.query(conn, "SELECT a, b FROM t1 ORDER BY id") == ((3, 7), (3, 7), (30, 8))
    # ORDER BY and LIMIT are accepted on a multi-table UPDATE (MariaDB 10.11): LIMIT 1 matches one row.
    assert run(conn, "UPDATE t1, t2 SET t1.a = 1 ORDER BY t1.id LIMIT 1") == (1, "Rows matched: 1  Changed: 1  Warnings: 0")


def test_delete_forms(db):
    conn, name = db
    assert run(conn, "DELETE a FROM t1 AS a LEFT JOIN t2 b ON a.id = b.id WHERE b.id IS NULL")[0] == 1
    assert run(conn, "DELETE FROM t1, t2 USING t1 JOIN t2 ON t1.id = t2.id WHERE t1.id = 1")[0] == 2
    assert run(conn, f"DELETE {name}.t1 FROM t1, t2 WHERE 0")[0] == 0
    # Affected rows: every row deleted, across targets, each once.
    assert run(conn, "DELETE t1.*, t2.* FROM t1, t2")[0] == 3
    assert clients.query(conn, "SELECT (SELECT COUNT(*) FROM t1), (SELECT COUNT(*) FROM t2)") == ((0, 0),)


@pytest.mark.parametrize(
    "sql,code,message",
    [
        ("DELETE t3 FROM t1, t2", 1109, "Unknown table 't3' in MULTI DELETE"),
        ("DELETE t1 FROM t1 AS x, t2", 1109, "Unknown table 't1' in MULTI DELETE"),
        ("DELETE t1 FROM t1, t2 WHERE t1.id IN (SELECT id FROM t1)", 1093, "Table 't1' is specified twice, both as a target for 'DELETE' and as a separate source for data"),
        ("UPDATE t1, t2 SET id = 9", 1052, "Column 'id' in SET is ambiguous"),
        ("UPDATE t1, t2 SET zz = 9", 1054, "Unknown column 'zz' in 'SET'"),
        ("UPDATE t1, (SELECT 1 AS q) d SET d.q = 2", 1288, "The target table d of the UPDATE is not updatable"),
        ("DELETE d FROM t1, (SELECT 1 AS q) d", 1288, "The target table d of the DELETE is not updatable"),
        ("DELETE t1 FROM t1, t2 ORDER BY t1.id", 1064, None),
        ("DELETE t1 FROM t1, t2 LIMIT 1", 1064, None),
    ],
)
def test_errors(db, sql, code, message):
    conn, _ = db
    got = code_of(conn, sql)
    assert got[0] == code
    if message:
        assert got[1] == message
    assert clients.query(conn, "SELECT COUNT(*) FROM t1") == ((3,),)


def test_all_or_nothing(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE t3 (id INT PRIMARY KEY, u INT UNIQUE, nn INT NOT NULL)")
    clients.query(conn, "INSERT INTO t3 VALUES (1,1,1),(2,2,2),(3,3,3)")
    # t1 is written first; t3's NULL fails the statement, which leaves t1 as it was.
    assert code_of(conn, "UPDATE t1 JOIN t3 ON t1.id = t3.id SET t1.b = 78, t3.nn = NULL")[0] == 1048
    assert code_of(conn, "UPDATE t1 JOIN t3 ON t1.id = t3.id SET t1.b = 77, t3.u = 3")[0] == 1062
    assert clients.query(conn, "SELECT b FROM t1 ORDER BY id") == ((100,), (200,), (300,))
    # Inside a transaction too: the statement goes, the transaction stays.
    clients.query(conn, "BEGIN")
    clients.query(conn, "UPDATE t1 SET a = 0 WHERE id = 3")
    assert code_of(conn, "UPDATE t1 JOIN t3 ON t1.id = t3.id SET t1.b = 78, t3.nn = NULL")[0] == 1048
    clients.query(conn, "COMMIT")
    assert clients.query(conn, "SELECT a, b FROM t1 ORDER BY id") == ((10, 100), (20, 200), (0, 300))
    # IGNORE: the duplicate is skipped, the rest applies.
    n, _ = run(conn, "UPDATE IGNORE t1 JOIN t3 ON t1.id = t3.id SET t3.u = 3, t1.b = 77 WHERE t1.id = 1")
    assert n >= 1
    assert clients.query(conn, "SELECT b FROM t1 WHERE id = 1") == ((77,),)
    assert clients.query(conn, "SELECT u FROM t3 WHERE id = 1") == ((1,),)


def test_prepared_with_parameters(db):
    conn, _ = db
    clients.query(conn, "PREPARE s FROM 'UPDATE t1 JOIN t2 ON t1.id = t2.id AND t2.c > ? SET t1.a = ?, t2.c = t2.c + ? WHERE t1.b < ?'")
    clients.query(conn, "SET @lo = 1, @v = 99, @inc = 5, @b = 1000")
    assert run(conn, "EXECUTE s USING @lo, @v, @inc, @b")[0] == 2
    assert clients.query(conn, "SELECT a FROM t1 ORDER BY id") == ((10,), (99,), (30,))
    assert clients.query(conn, "SELECT c FROM t2 ORDER BY id") == ((1,), (7,), (4,))


def test_rows_kept_are_bounded(server_factory, uniq):
    srv = server_factory("--sqlite-multi-write-bytes", "1000", engine="sqlite")
    conn = clients.root(srv)
    name = uniq("mtl")
    clients.query(conn, f"CREATE DATABASE {name}")
    clients.query(conn, f"USE {name}")
    clients.query(conn, "CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(100))")
    clients.query(conn, "CREATE TABLE b (id INT PRIMARY KEY)")
    clients.query(conn, "INSERT INTO b VALUES (1)")
    clients.query(conn, "INSERT INTO a VALUES " + ",".join(f"({i}, 'x')" for i in range(1, 101)))
    # A few rows fit; a hundred rows of 100 bytes do not: ERR 1114, nothing written.
    assert run(conn, "UPDATE a, b SET a.v = 'y' WHERE a.id <= 3")[0] == 3
    assert code_of(conn, "UPDATE a, b SET a.v = REPEAT('z', 100)")[0] == 1114
    assert clients.query(conn, "SELECT COUNT(*) FROM a WHERE v LIKE 'z%'") == ((0,),)
    conn.close()
