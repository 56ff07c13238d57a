"""User variables assigned inside engine statements (`SELECT @n := @n + 1
FROM t`, rewrite/user_vars.rs and functions/user_vars.rs): the client cannot
reach the machinery, names cannot break out of the text they are written
into, values of every byte round-trip, nesting is bounded, one session's
variables never reach another, and a failing statement keeps what it
assigned before the error (as MariaDB 10.11 does).
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def db(sql_server, uniq):
    name = uniq("suv")
    root = clients.root(sql_server)
    clients.query(root, f"CREATE DATABASE {name}")
    clients.query(root, f"USE {name}")
    clients.query(root, "CREATE TABLE t (a INT PRIMARY KEY, s VARBINARY(10))")
    clients.query(root, "INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'z')")
    yield root, name
    clients.query(root, f"DROP DATABASE {name}")
    root.close()


@pytest.mark.parametrize("sql", ["SELECT ts_uv_get('n') FROM t", "SELECT ts_uv_set('n', 1) FROM t", "SELECT TS_UV_GET(X'6E') FROM t"])
def test_the_functions_are_not_callable(db, sql):
    conn, _ = db
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.query(conn, sql)
    assert ei.value.args[0] == 1305


@pytest.mark.parametrize("name", ["`a'b`", "`x') FROM t; DROP TABLE t; -- `", "`\\\\`", "`名前`", "'q\"uote'"])
def test_names_stay_names(db, name):
    conn, _ = db
    clients.query(conn, f"SET @{name} = 5")
    assert clients.query(conn, f"SELECT @{name} := @{name} + a FROM t ORDER BY a") == ((6,), (8,), (11,))
    assert clients.query(conn, f"SELECT @{name}") == ((11,),)
    assert clients.query(conn, "SELECT COUNT(*) FROM t") == ((3,),)


def test_every_byte_round_trips(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE b (v VARBINARY(300))")
    clients.query(conn, "INSERT INTO b VALUES (%s)", (bytes(range(256)),))
    clients.query(conn, "SELECT @v := v FROM b")
    assert clients.query(conn, "SELECT @v = (SELECT v FROM b), LENGTH(@v)") == ((1, 256),)


def test_nesting_is_bounded(db):
    conn, _ = db
    for n in (10, 31, 33, 1000, 10_000):
        sql = "SELECT " + "@a := " * n + "a FROM t WHERE a = 1"
        try:
            rows = clients.query(conn, sql)
            assert rows == ((1,),)
        except pymysql.err.MySQLError as e:
            assert e.args[0] in (1064, 1235, 1436), (n, e.args)
    assert clients.query(conn, "SELECT 1") == ((1,),)


def test_sessions_do_not_share_values(db, sql_server):
    conn, name = db
    other = clients.root(sql_server)
    try:
        clients.query(other, f"USE {name}")
        clients.query(conn, "SET @n = 100")
        clients.query(other, "SET @n = 0")
        clients.query(conn, "SELECT @n := @n + 1 FROM t")
        clients.query(other, "SELECT @n := @n + 1 FROM t")
        assert clients.query(conn, "SELECT @n") == ((103,),)
        assert clients.query(other, "SELECT @n") == ((3,),)
    finally:
        other.close()


def test_a_failing_statement_keeps_what_it_assigned(db):
    # MariaDB 10.11: the third row fails (duplicate key) after its assignment; @c is 3 after.
    conn, _ = db
    clients.query(conn, "SET @c = 0")
    with pytest.raises(pymysql.err.IntegrityError):
        clients.query(conn, "INSERT INTO t (a) SELECT IF((@c := @c + 1) < 3, a + 10, 1) FROM t ORDER BY a")
    assert clients.query(conn, "SELECT @c") == ((3,),)
    # The statement was rolled back as a whole.
    assert clients.query(conn, "SELECT COUNT(*) FROM t") == ((3,),)


def test_a_statement_may_set_only_so_many(db):
    conn, _ = db
    items = ", ".join(f"@v{i} := a" for i in range(2000))
    assert len(clients.query(conn, f"SELECT {items} FROM t WHERE a = 1")[0]) == 2000
    assert clients.query(conn, "SELECT @v1999") == ((1,),)
