"""Stored functions called in expressions as an attack surface. A function
a privileged definer wrote with SQL SECURITY DEFINER reads its database for
a caller granted only EXECUTE (and the caller still cannot read the table
itself: 1142); with SQL SECURITY INVOKER it runs with the caller's
privileges (1142); without EXECUTE the call is 1370 wherever it sits (select
list, WHERE, row arguments, INSERT VALUES, SET); the caller's own DEFINER
function cannot read another database (1142); a function may not write the
table of the statement calling it (1442) nor end its transaction (1422);
recursion, direct or through other functions, is 1424; deep nesting of
calls (in arguments or through bodies) is an error (1436), never a crash,
and the server keeps serving. Expected answers were checked on MariaDB
10.11, except the nesting limit (Turnstile's stored_function_max_nesting;
MariaDB answers 1436 "Thread stack overrun" for a chain of 70 functions, and
its server crashed on `f(f(...f(1)...))` 200 deep, which is not sent to it
again).
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def two_dbs(two_dbs_factory, sql_server):
    d = two_dbs_factory(
        "sf",
        victim=[
            "CREATE FUNCTION f_def() RETURNS VARCHAR(20) SQL SECURITY DEFINER RETURN (SELECT s FROM secret WHERE id = 1)",
            "CREATE FUNCTION f_inv() RETURNS VARCHAR(20) SQL SECURITY INVOKER RETURN (SELECT s FROM secret WHERE id = 1)",
            "CREATE FUNCTION f_pure(a INT) RETURNS INT SQL SECURITY DEFINER RETURN a * 2",
        ],
        home=["CREATE TABLE t (x INT)", "INSERT INTO t VALUES (1), (2)"],
    )
    return d


def err(conn, sql) -> int:
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, sql)
    return ei.value.args[0]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT {v}.f_def()",
        "SELECT x FROM t WHERE {v}.f_pure(1) = 2",
        "SELECT {v}.f_pure(x) FROM t",
        "INSERT INTO t VALUES ({v}.f_pure(1))",
        "SET @leak = {v}.f_def()",
    ],
)
def test_without_execute_every_call_is_1370(two_dbs, sql):
    clients.query(two_dbs.att, "SET @leak = 'none'")
    assert err(two_dbs.att, sql.format(v=two_dbs.victim)) == 1370
    assert clients.query(two_dbs.att, "SELECT @leak") == (("none",),)
    assert clients.query(two_dbs.att, "SELECT COUNT(*) FROM t") == ((2,),)


def test_definer_function_reads_for_a_caller_with_only_execute(two_dbs):
    v = two_dbs.victim
    clients.query(two_dbs.root, f"GRANT EXECUTE ON {v}.* TO '{two_dbs.user}'@'%'")
    assert clients.query(two_dbs.att, f"SELECT {v}.f_def()") == (("top",),)
    assert clients.query(two_dbs.att, f"SELECT {v}.f_pure(x) FROM t ORDER BY x") == ((2,), (4,))
    # The caller's own privileges are back after the call.
    assert err(two_dbs.att, f"SELECT s FROM {v}.secret") == 1142
    assert err(two_dbs.att, f"SELECT {v}.f_inv()") == 1142
    assert clients.query(two_dbs.att, "SELECT DATABASE()") == ((two_dbs.home,),)


def test_callers_own_definer_function_reads_no_other_database(two_dbs):
    att, v = two_dbs.att, two_dbs.victim
    clients.query(att, f"CREATE FUNCTION f_mine() RETURNS VARCHAR(20) SQL SECURITY DEFINER RETURN (SELECT s FROM {v}.secret WHERE id = 1)")
    assert err(att, "SELECT f_mine()") == 1142
    assert err(att, "SELECT x FROM t WHERE f_mine() IS NOT NULL") == 1142


def test_function_cannot_write_the_calling_statements_table_or_commit(two_dbs):
    att = two_dbs.att
    clients.query(att, f"CREATE FUNCTION f_w() RETURNS INT BEGIN INSERT INTO {two_dbs.home}.t VALUES (9); RETURN 1; END")
    clients.query(att, "CREATE PROCEDURE p_c() COMMIT")
    clients.query(att, "CREATE FUNCTION f_c() RETURNS INT BEGIN CALL p_c(); RETURN 1; END")
    assert err(att, "INSERT INTO t VALUES (f_w())") == 1442
    clients.query(att, "BEGIN")
    clients.query(att, "INSERT INTO t VALUES (5)")
    assert err(att, "SELECT f_c()") == 1422
    clients.query(att, "ROLLBACK")
    assert clients.query(att, "SELECT COUNT(*) FROM t") == ((2,),)


def test_recursion_direct_and_through_other_functions_is_1424(two_dbs):
    att = two_dbs.att
    clients.query(att, "CREATE FUNCTION f_r(n INT) RETURNS INT RETURN IF(n > 0, f_r(n - 1), 0)")
    clients.query(att, "CREATE FUNCTION f_m(n INT) RETURNS INT RETURN g_m(n)")
    clients.query(att, "CREATE FUNCTION g_m(n INT) RETURNS INT RETURN f_m(n)")
    assert err(att, "SELECT f_r(3)") == 1424
    assert err(att, "SELECT f_r(x) FROM t") == 1424
    assert err(att, "SELECT f_m(1)") == 1424
    assert err(att, "SELECT f_m(x) FROM t") == 1424


@pytest.mark.parametrize("depth", [100, 3000])
def test_deep_nesting_is_an_error_not_a_crash(two_dbs, depth):
    att = two_dbs.att
    clients.query(att, "CREATE FUNCTION f1(x INT) RETURNS INT RETURN x + 1")
    assert err(att, "SELECT " + "f1(" * depth + "1" + ")" * depth) == 1436
    assert err(att, "SELECT " + "f1(" * depth + "x" + ")" * depth + " FROM t") == 1436
    assert clients.scalar(att, "SELECT f1(f1(1))") == 3


def test_chain_of_functions_past_the_limit_is_1436(two_dbs):
    att = two_dbs.att
    n = 100
    clients.query(att, f"CREATE FUNCTION c{n}() RETURNS INT RETURN 1")
    for i in range(n - 1, 0, -1):
        clients.query(att, f"CREATE FUNCTION c{i}() RETURNS INT RETURN c{i + 1}() + 1")
    assert clients.scalar(att, "SELECT c60()") == 41
    assert err(att, "SELECT c1()") == 1436
    assert clients.scalar(att, "SELECT 1") == 1


def test_stored_function_max_nesting_at_and_past_its_edges(two_dbs):
    root, att = two_dbs.root, two_dbs.att
    clients.query(att, "CREATE FUNCTION f1(x INT) RETURNS INT RETURN x + 1")
    try:
        clients.query(root, "SET GLOBAL stored_function_max_nesting = 2")
        assert clients.scalar(att, "SELECT f1(f1(1))") == 3
        assert err(att, "SELECT f1(f1(f1(1)))") == 1436
        clients.query(root, "SET GLOBAL stored_function_max_nesting = 1000")
        # Past what the thread's stack holds: the stack check answers, still 1436.
        assert err(att, "SELECT " + "f1(" * 5000 + "1" + ")" * 5000) == 1436
        # Out of range: clamped to the edge with a warning, as MariaDB does for its limits.
        clients.query(root, "SET GLOBAL stored_function_max_nesting = 1001")
        assert clients.scalar(root, "SELECT @@global.stored_function_max_nesting") == 1000
        clients.query(root, "SET GLOBAL stored_function_max_nesting = 0")
        assert clients.scalar(root, "SELECT @@global.stored_function_max_nesting") == 1
        assert err(att, "SELECT f1(f1(1))") == 1436
        assert clients.scalar(att, "SELECT f1(1)") == 2
    finally:
        clients.query(root, "SET GLOBAL stored_function_max_nesting = 64")
    assert clients.scalar(root, "SELECT @@global.stored_function_max_nesting") == 64
    assert clients.scalar(att, "SELECT f1(f1(f1(1)))") == 4
