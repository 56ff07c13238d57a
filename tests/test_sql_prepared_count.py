"""max_prepared_stmt_count and Prepared_stmt_count as MariaDB 10.11 has them
(crates/sql/src/prepared_slots.rs), and the outer aggregates MariaDB computes
in another query than the one they are written in
(crates/sqlite/src/rewrite/outer_aggregates.rs); every expectation below was
checked against MariaDB 10.11.

- The limit holds the prepared statements of all sessions together, SQL
  PREPARE and COM_STMT_PREPARE alike: ERR 1461 past it. SET GLOBAL changes it
  (it was a start-up setting, 1238), a number past its range is clamped with
  warning 1292. A PREPARE under a name in use drops the old statement first,
  also when the new one is refused. A closed session gives its places back.
- An aggregate of an outer query's columns in a subquery's WHERE is the outer
  query's; of the outer query's columns where that query may not aggregate,
  the subquery's own (was 1111 both).
"""

from __future__ import annotations

import pytest

from helpers import clients, stmtproto
from helpers.server import ROOT_PASSWORD


def q(conn, sql):
    return clients.query(conn, sql)


def held(conn) -> int:
    return clients.status(conn, "Prepared_stmt_count")


def warnings(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        cur.execute("SHOW WARNINGS")
        return [(r[1], r[2]) for r in cur.fetchall()]


def test_limit_counts_every_session(server_factory):
    srv = server_factory()
    a = clients.root(srv)
    b = clients.root(srv)
    assert q(a, "SELECT @@max_prepared_stmt_count") == ((16382,),)
    assert held(a) == 0
    assert warnings(a, "SET GLOBAL max_prepared_stmt_count = -1") == [(1292, "Truncated incorrect max_prepared_stmt_count value: '-1'")]
    assert q(a, "SELECT @@max_prepared_stmt_count") == ((0,),)
    code, msg = clients.error(a, "PREPARE s FROM 'SELECT 1'")
    assert (code, msg) == (1461, "Can't create more than max_prepared_stmt_count statements (current value: 0)")
    q(a, "SET GLOBAL max_prepared_stmt_count = 2")
    q(a, "PREPARE s FROM 'SELECT 1'")
    q(a, "PREPARE s FROM 'SELECT 2'")  # the same name: still one
    assert held(b) == 1
    # The binary protocol's statements count too.
    bc = stmtproto.connect(srv.port, "root", ROOT_PASSWORD)
    st = bc.prepare("SELECT 3")
    assert held(b) == 2
    assert clients.error(b, "PREPARE t FROM 'SELECT 4'")[0] == 1461
    bc.close(st)
    # COM_STMT_CLOSE has no reply: its place is free once the server has read it.
    assert clients.wait_until(lambda: held(b) == 1)
    q(b, "PREPARE t FROM 'SELECT 4'")
    assert held(a) == 2
    # Under the limit, the old statement of the name goes, the new is refused.
    q(a, "SET GLOBAL max_prepared_stmt_count = 0")
    assert clients.error(a, "PREPARE s FROM 'SELECT 5'")[0] == 1461
    assert clients.error(a, "EXECUTE s")[0] == 1243
    assert held(a) == 1
    # A closed session gives its places back.
    b.close()
    assert clients.wait_until(lambda: held(a) == 0)
    bc.close_connection()
    q(a, "SET GLOBAL max_prepared_stmt_count = DEFAULT")
    assert q(a, "SELECT @@max_prepared_stmt_count") == ((16382,),)
    a.close()


def test_session_variable_clamped_with_a_warning(scratch_db):
    conn, _ = scratch_db
    assert warnings(conn, "SET SESSION max_sort_length = 1") == [(1292, "Truncated incorrect max_sort_length value: '1'")]
    assert q(conn, "SELECT @@max_sort_length") == ((64,),)
    q(conn, "SET SESSION tmp_memory_table_size = 0")
    assert q(conn, "SELECT @@tmp_memory_table_size") == ((0,),)
    q(conn, "SET SESSION max_sort_length = DEFAULT")


@pytest.fixture
def agg_db(scratch_db):
    conn, name = scratch_db
    q(conn, "CREATE TABLE t1 (a INT, b INT)")
    q(conn, "INSERT INTO t1 VALUES (1, 10), (1, 20), (2, 30)")
    q(conn, "CREATE TABLE t2 (c INT, m INT)")
    q(conn, "INSERT INTO t2 VALUES (1, 1), (2, 2), (30, 3)")
    return conn


def test_outer_aggregate_in_a_subquerys_where(agg_db):
    conn = agg_db
    rows = q(conn, "SELECT a FROM t1 GROUP BY a HAVING a IN (SELECT c FROM t2 WHERE MAX(b) > 20) ORDER BY a")
    assert rows == ((2,),)
    rows = q(conn, "SELECT a, (SELECT m FROM t2 WHERE c = MAX(t1.b)) FROM t1 GROUP BY a ORDER BY a")
    assert rows == ((1, None), (2, 3))
    # Its own columns in its own WHERE: still 1111.
    assert clients.error(conn, "SELECT a FROM t1 WHERE a IN (SELECT c FROM t2 WHERE MAX(m) > 1)")[0] == 1111


def test_outer_aggregate_where_the_outer_query_may_not(agg_db):
    conn = agg_db
    assert q(conn, "SELECT a FROM t1 WHERE (SELECT COUNT(b) FROM DUAL) > 0 GROUP BY a ORDER BY a") == ((1,), (2,))
    assert q(conn, "SELECT a FROM t1 t0 WHERE (SELECT COUNT(t0.b) FROM t2 t WHERE t.c > 1) = 2 ORDER BY a, b") == ((1,), (1,), (2,))
    q(conn, "UPDATE t1 SET a = a + 1 WHERE b = (SELECT MAX(b))")
    assert q(conn, "SELECT a FROM t1 ORDER BY b") == ((2,), (2,), (3,))
    q(conn, "SET SESSION sql_mode = 'ANSI'")
    try:
        assert clients.error(conn, "SELECT a FROM t1 WHERE (SELECT COUNT(b) FROM DUAL) > 0 GROUP BY a")[0] == 1111
    finally:
        q(conn, "SET SESSION sql_mode = DEFAULT")


def test_binary_prepare_refused_at_the_limit(server_factory):
    srv = server_factory()
    a = clients.root(srv)
    q(a, "SET GLOBAL max_prepared_stmt_count = 1")
    bc = stmtproto.connect(srv.port, "root", ROOT_PASSWORD)
    st = bc.prepare("SELECT 1")
    with pytest.raises(Exception) as ei:
        bc.prepare("SELECT 2")
    assert "1461" in repr(ei.value) or "max_prepared_stmt_count" in str(ei.value)
    bc.close(st)
    bc.close_connection()
    assert clients.wait_until(lambda: held(a) == 0)
    a.close()



def test_prepare_refuses_what_cannot_run(server_factory):
    """SQL PREPARE compiles a statement over tables (as COM_STMT_PREPARE): a
    syntax error or an unknown function is PREPARE's error, as in MariaDB
    10.11, and holds no place under the limit; a stored function's call is
    no error."""
    srv = server_factory(engine="sqlite")
    a = clients.root(srv)
    q(a, "CREATE DATABASE IF NOT EXISTS pc")
    q(a, "USE pc")
    q(a, "CREATE TABLE t1 (a INT)")
    before = held(a)
    assert clients.error(a, "PREPARE s2 FROM 'SELECT not_a_function (a) FROM t1'")[0] == 1305
    assert clients.error(a, "PREPARE s3 FROM 'SELECT FROM t1 WHERE ?=1'")[0] == 1064
    assert clients.error(a, "EXECUTE s2")[0] == 1243
    assert held(a) == before
    q(a, "CREATE FUNCTION f1() RETURNS INT RETURN 7")
    q(a, "PREPARE s4 FROM 'SELECT f1() FROM t1'")
    q(a, "INSERT INTO t1 VALUES (1)")
    assert q(a, "EXECUTE s4") == ((7,),)
    q(a, "DEALLOCATE PREPARE s4")
    assert held(a) == before
