"""Stored functions called in expressions (issue #23): SELECT f() with and
without a table, in WHERE, ORDER BY, INSERT VALUES, UPDATE SET, SET @x, DO,
CREATE TABLE ... SELECT, prepared statements, procedures and triggers; a
function reading tables, calling functions, run in its own database; calls
with arguments from the rows (`f(t.x)`); and the errors MariaDB gives at
CREATE FUNCTION and at the call (1318, 1321, 1415, 1422, 1314, 1336, 1424,
1442, 1305). Expected answers are MariaDB 10.11's, checked on it.
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def db(scratch_db):
    conn, name = scratch_db
    for sql in [
        "CREATE TABLE t1 (a INT)",
        "INSERT INTO t1 VALUES (1), (2), (3)",
        "CREATE FUNCTION f_add(x INT, y INT) RETURNS INT RETURN x + y",
        "CREATE FUNCTION f_cnt() RETURNS INT RETURN (SELECT COUNT(*) FROM t1)",
    ]:
        clients.query(conn, sql)
    return conn, name


def err(conn, sql) -> int:
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, sql)
    return ei.value.args[0]


def test_select_without_a_table_keeps_the_call_as_column_name(db):
    conn, _ = db
    cur = conn.cursor()
    cur.execute("SELECT f_add(1, 2), f_cnt() + 1 AS n")
    assert cur.fetchall() == ((3, 4),)
    assert [d[0] for d in cur.description] == ["f_add(1, 2)", "n"]


def test_function_reading_a_table_in_where_and_select_list(db):
    conn, _ = db
    assert clients.query(conn, "SELECT a FROM t1 WHERE a = f_cnt()") == ((3,),)
    assert clients.query(conn, "SELECT a, f_cnt() FROM t1 ORDER BY a") == ((1, 3), (2, 3), (3, 3))


def test_arguments_from_the_rows(db):
    conn, _ = db
    assert clients.query(conn, "SELECT a, f_add(a, 10) FROM t1 ORDER BY f_add(a, 10) DESC") == ((3, 13), (2, 12), (1, 11))
    assert clients.query(conn, "SELECT f_add(f_add(t.a, 1), 1) FROM t1 AS t ORDER BY 1") == ((3,), (4,), (5,))


def test_insert_update_set_do_and_create_table_select(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE t2 (x INT)")
    clients.query(conn, "INSERT INTO t2 VALUES (f_add(1, 1)), (f_cnt())")
    clients.query(conn, "UPDATE t2 SET x = f_add(x, 100) WHERE x = f_cnt()")
    assert clients.query(conn, "SELECT x FROM t2 ORDER BY x") == ((2,), (103,))
    clients.query(conn, "SET @v = f_add(2, 3)")
    assert clients.query(conn, "SELECT @v") == ((5,),)
    clients.query(conn, "DO f_cnt()")
    clients.query(conn, "CREATE TABLE t3 AS SELECT f_add(1, 2) AS y")
    assert clients.query(conn, "SELECT y FROM t3") == ((3,),)


def test_qualified_call_from_another_database_runs_in_its_own(db, uniq):
    conn, name = db
    other = uniq("dbo")
    clients.query(conn, f"CREATE DATABASE {other}")
    try:
        clients.query(conn, f"USE {other}")
        # t1 in the function's body is the function's database's.
        assert clients.query(conn, f"SELECT {name}.f_cnt(), {name}.f_add(1, 1)") == ((3, 2),)
        assert clients.query(conn, "SELECT DATABASE()") == ((other,),)
    finally:
        clients.query(conn, f"USE {name}")
        clients.query(conn, f"DROP DATABASE {other}")


def test_prepared_statement_with_parameters(db):
    conn, _ = db
    clients.query(conn, "PREPARE s FROM 'SELECT f_add(?, ?), f_cnt()'")
    clients.query(conn, "SET @a = 5")
    cur = conn.cursor()
    cur.execute("EXECUTE s USING @a, @a")
    assert cur.fetchall() == ((10, 3),)
    assert cur.description[0][0] == "f_add(?, ?)"


def test_functions_in_procedures_triggers_and_functions(db):
    conn, _ = db
    clients.query(conn, "CREATE FUNCTION f_nest(n INT) RETURNS INT RETURN f_add(f_add(n, 1), f_cnt())")
    assert clients.query(conn, "SELECT f_nest(1)") == ((5,),)
    clients.query(conn, "CREATE PROCEDURE p() BEGIN DECLARE v INT DEFAULT 4; SET v = f_add(v, v); SELECT v, f_nest(v) AS w; END")
    assert clients.query(conn, "CALL p()") == ((8, 12),)
    clients.query(conn, "CREATE TABLE log (x INT)")
    clients.query(conn, "CREATE TRIGGER tr AFTER INSERT ON t1 FOR EACH ROW INSERT INTO log VALUES (f_add(NEW.a, f_cnt()))")
    clients.query(conn, "INSERT INTO t1 VALUES (10)")
    assert clients.query(conn, "SELECT x FROM log") == ((14,),)


def test_function_writing_another_table_once_per_call(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE w (x INT)")
    clients.query(conn, "CREATE FUNCTION f_w(v INT) RETURNS INT BEGIN INSERT INTO w VALUES (v); RETURN v; END")
    assert clients.query(conn, "SELECT f_w(7), f_w(8)") == ((7, 8),)
    assert clients.query(conn, "SELECT x FROM w ORDER BY x") == ((7,), (8,))


def test_call_errors(db):
    conn, _ = db
    clients.query(conn, "CREATE FUNCTION f_rec(n INT) RETURNS INT BEGIN IF n > 0 THEN RETURN f_rec(n - 1); END IF; RETURN 0; END")
    clients.query(conn, "CREATE FUNCTION f_noret() RETURNS INT BEGIN IF 0 THEN RETURN 1; END IF; END")
    clients.query(conn, "CREATE FUNCTION f_ins() RETURNS INT BEGIN INSERT INTO t1 VALUES (9); RETURN 1; END")
    clients.query(conn, "CREATE PROCEDURE p_commit() COMMIT")
    clients.query(conn, "CREATE PROCEDURE p_sel() SELECT 1")
    clients.query(conn, "CREATE FUNCTION f_callc() RETURNS INT BEGIN CALL p_commit(); RETURN 1; END")
    clients.query(conn, "CREATE FUNCTION f_calls() RETURNS INT BEGIN CALL p_sel(); RETURN 1; END")
    assert err(conn, "SELECT f_add(1)") == 1318
    assert err(conn, "SELECT f_add(1, 2, 3)") == 1318
    assert err(conn, "SELECT f_rec(3)") == 1424
    assert err(conn, "SELECT f_noret()") == 1321
    assert err(conn, "INSERT INTO t1 VALUES (f_ins())") == 1442
    assert err(conn, "SELECT f_callc()") == 1422
    assert err(conn, "SELECT f_calls()") == 1415
    assert err(conn, "SELECT no_such_function(1)") == 1305
    assert clients.query(conn, "SELECT COUNT(*) FROM t1") == ((3,),)


@pytest.mark.parametrize(
    "body,code",
    [
        ("BEGIN COMMIT; RETURN 1; END", 1422),
        ("BEGIN LOCK TABLES t1 READ; RETURN 1; END", 1314),
        ("BEGIN RESET QUERY CACHE; RETURN 1; END", 1336),
        ("BEGIN FLUSH TABLES; RETURN 1; END", 1336),
        ("BEGIN SELECT 1; RETURN 1; END", 1415),
    ],
)
def test_create_refuses_what_a_function_may_not_do(db, body, code):
    conn, _ = db
    assert err(conn, f"CREATE FUNCTION f_bad() RETURNS INT {body}") == code


def test_execute_using_a_stored_function_is_1970(db):
    conn, _ = db
    clients.query(conn, "PREPARE s FROM 'SELECT ?'")
    assert err(conn, "EXECUTE s USING f_cnt()") == 1970
    assert err(conn, "EXECUTE IMMEDIATE 'SELECT ?' USING f_cnt()") == 1970


def test_qualified_call_in_set(db):
    conn, name = db
    clients.query(conn, f"SET @q = {name}.f_add(1, 2)")
    assert clients.query(conn, "SELECT @q") == ((3,),)


def test_parameters_around_calls_keep_their_order(db):
    conn, _ = db
    clients.query(conn, "PREPARE s FROM 'SELECT ? - 1, f_add(?, 1) + ?, f_add(?, 2), ? * 2'")
    clients.query(conn, "SET @p1 = 10, @p2 = 20, @p3 = 30, @p4 = 40, @p5 = 50")
    cur = conn.cursor()
    cur.execute("EXECUTE s USING @p1, @p2, @p3, @p4, @p5")
    assert cur.fetchall() == ((9, 51, 42, 100),)
    assert [d[0] for d in cur.description] == ["? - 1", "f_add(?, 1) + ?", "f_add(?, 2)", "? * 2"]
