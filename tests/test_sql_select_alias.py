"""A select-list alias named inside a subquery of the same select list, as
MariaDB 10.11 reads it (crates/sqlite/src/rewrite/select_alias.rs, retried by
exec/compile.rs after SQLite's "no such column"); every expectation below was
checked against MariaDB 10.11.

- An earlier item's alias is that item's value: `SELECT 1 AS a, (SELECT a + a)`
  (was 1054). Its own or a later item's is 1247 (was 1054).
- Straight in the select list, or from a subquery of the WHERE: still 1054.
"""

from __future__ import annotations

from helpers import clients


def q(conn, sql):
    return clients.query(conn, sql)


def names(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return [d[0] for d in cur.description], cur.fetchall()


def test_earlier_item_is_its_value(scratch_db):
    conn, _ = scratch_db
    assert names(conn, "SELECT 1 as a,(SELECT a+a) b,(SELECT b)") == (["a", "b", "(SELECT b)"], ((1, 2, 2),))
    assert q(conn, "SELECT * FROM (SELECT 1 as a,(SELECT a)) a") == ((1, 1),)
    q(conn, "CREATE TABLE t1 (a INT)")
    q(conn, "INSERT INTO t1 VALUES (1), (2)")
    assert q(conn, "select 1 as xx, 1 = ALL (select 1 from t1 where 1 = xx)") == ((1, 1),)


def test_forward_reference_is_1247(scratch_db):
    conn, _ = scratch_db
    code, msg = clients.error(conn, "SELECT (SELECT a) as a")
    assert (code, msg) == (1247, "Reference 'a' not supported (forward reference in item list)")
    q(conn, "CREATE TABLE t1 (a INT)")
    assert clients.error(conn, "select 1 = ALL (select 1 from t1 where 1 = xx ), 1 as xx")[0] == 1247


def test_still_unknown(scratch_db):
    conn, _ = scratch_db
    q(conn, "CREATE TABLE t1 (a INT, b INT)")
    assert clients.error(conn, "SELECT 1 AS x, x + 1")[0] == 1054
    assert clients.error(conn, "SELECT a AS out_a FROM t1 WHERE b > (SELECT MIN(b) FROM t1 WHERE a = out_x)")[0] == 1054
