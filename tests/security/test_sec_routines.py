"""Stored routines as an attack surface (issue #23 item 5). An account that
may create routines in its own database cannot reach another database
through one: naming another DEFINER needs SUPER (1227), and its own
routines run with its own privileges (1142). A body nested 10,000 deep is
refused with an error (MariaDB: 1064 "memory exhausted"; here 1436 from
routine_max_nesting) and the server keeps serving; a procedure that calls
itself stops at max_sp_recursion_depth (1456); a body past
routine_max_body_bytes is refused; parameters are bound values, never SQL;
a variable named like a column is the variable (MariaDB's rule). Each
expected answer was checked on MariaDB 10.11 (except the two limits that
are Turnstile's own settings).
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def attacker(sql_server, uniq):
    home, other, user = uniq("sphome"), uniq("spother"), uniq("spatt")
    root = clients.root(sql_server)
    for sql in [
        f"CREATE DATABASE {home}",
        f"CREATE DATABASE {other}",
        f"CREATE TABLE {other}.s (a INT)",
        f"INSERT INTO {other}.s VALUES (42)",
        f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'",
        f"GRANT ALL ON {home}.* TO '{user}'@'%'",
    ]:
        clients.query(root, sql)
    att = clients.connect(sql_server, user, "pw", database=home)
    yield root, att, home, other
    att.close()
    clients.query(root, f"DROP USER '{user}'@'%'")
    clients.query(root, f"DROP DATABASE {home}")
    clients.query(root, f"DROP DATABASE {other}")
    root.close()


def err(conn, sql, args=None) -> int:
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(conn, sql, args)
    return e.value.args[0]


def test_no_other_definer_and_no_other_database(attacker):
    _, att, home, other = attacker
    assert err(att, f"CREATE DEFINER=`root`@`%` PROCEDURE p1() SELECT * FROM {other}.s") == 1227
    assert err(att, f"CREATE DEFINER=root@localhost PROCEDURE p1() DELETE FROM {other}.s") == 1227
    clients.query(att, f"CREATE PROCEDURE p2() SELECT * FROM {other}.s")
    assert err(att, "CALL p2()") == 1142
    clients.query(att, f"CREATE PROCEDURE p3() SQL SECURITY INVOKER UPDATE {other}.s SET a = 0")
    assert err(att, "CALL p3()") == 1142
    # Not even whether a routine exists there.
    assert err(att, f"CALL {other}.nope()") == 1370
    assert err(att, f"CREATE PROCEDURE {other}.p() SELECT 1") == 1044


def test_definer_routine_runs_with_the_definers_privileges(attacker):
    root, att, home, other = attacker
    clients.query(root, f"CREATE PROCEDURE {home}.peek() SELECT a FROM {other}.s")
    clients.query(root, f"CREATE PROCEDURE {home}.peek_inv() SQL SECURITY INVOKER SELECT a FROM {other}.s")
    assert clients.query(att, "CALL peek()") == ((42,),)
    assert err(att, "CALL peek_inv()") == 1142


def test_nesting_10000_deep_is_an_error(attacker, sql_server):
    _, att, _, _ = attacker
    body = "BEGIN " * 10000 + "SELECT 1;" + "END;" * 9999 + "END"
    assert err(att, "CREATE PROCEDURE deep() " + body) == 1436
    body = "BEGIN " * 200 + "SELECT 1;" + "END;" * 199 + "END"
    clients.query(att, "CREATE PROCEDURE deep2() " + body)
    assert clients.query(att, "CALL deep2()") == ((1,),)
    loops = "WHILE 1 DO " * 10000 + "SELECT 1;" + "END WHILE;" * 10000
    assert err(att, "CREATE PROCEDURE deep3() BEGIN " + loops + " END") == 1436
    assert clients.scalar(clients.root(sql_server), "SELECT 1") == 1


def test_recursion_and_body_size(attacker):
    _, att, _, _ = attacker
    clients.query(att, "CREATE PROCEDURE r() BEGIN CALL r(); END")
    assert err(att, "CALL r()") == 1456
    # At the largest depth the thread's stack may end first (1436): an error either way.
    clients.query(att, "SET max_sp_recursion_depth = 255")
    assert err(att, "CALL r()") in (1436, 1456)
    assert clients.scalar(att, "SELECT 1") == 1
    huge = "CREATE PROCEDURE big() BEGIN " + "SET @x = 1;" * 200000 + " END"
    assert err(att, huge) == 1105


def test_parameters_are_values(attacker):
    root, att, home, other = attacker
    clients.query(att, "CREATE TABLE t (a INT, s VARCHAR(100))")
    clients.query(att, "CREATE PROCEDURE inj(s VARCHAR(100)) BEGIN INSERT INTO t (a, s) VALUES (1, s); SELECT s; END")
    evil = f"x'); DROP TABLE t; SELECT * FROM {other}.s; --"
    assert clients.query(att, "CALL inj(%s)", (evil,)) == ((evil,),)
    assert clients.query(att, "SELECT s FROM t") == ((evil,),)
    # A variable named like a column is the variable.
    clients.query(att, "CREATE PROCEDURE col(a INT) BEGIN SELECT a FROM t; END")
    assert clients.query(att, "CALL col(7)") == ((7,),)
    assert clients.query(root, f"SELECT a FROM {other}.s") == ((42,),)
