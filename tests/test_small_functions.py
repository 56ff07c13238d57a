"""Small constructs MariaDB 10.11 accepts that Turnstile refused (1064/1305):
PASSWORD(), LENGTHB, NVL2, NAME_CONST, VALUE(col) outside ON DUPLICATE KEY
UPDATE, and repeated SELECT options (`SELECT ALL ALL`). Every expected answer
is what MariaDB 10.11 answered for the same statement (the differential
runner, tests/outside/mtr_diff.py, listed them from select, insert_update,
func_str, type_newdecimal and func_in).
"""

import pymysql
import pytest

from helpers.clients import query


def row(conn, sql):
    return tuple(None if v is None else (v.decode() if isinstance(v, bytes) else str(v)) for v in query(conn, sql)[0])


def error_code(conn, sql):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        query(conn, sql)
    return ei.value.args[0]


def test_password_hash(scratch_db):
    conn, _ = scratch_db
    # '*' + upper-case hex of SHA1(SHA1(str)); '' for '' and for NULL.
    assert row(conn, "SELECT PASSWORD('a'), PASSWORD(1), PASSWORD(''), PASSWORD(NULL) IS NULL") == (
        "*667F407DE7C6AD07358FA38DAED7828A72014B4E",
        "*E6CC90B878B948C35E92B003C792C46C58C4AF40",
        "",
        "0",
    )
    query(conn, "CREATE TABLE pw (name CHAR(10), pw CHAR(41))")
    query(conn, "INSERT INTO pw VALUES ('tom', PASSWORD('my_pw'))")
    assert row(conn, "SELECT pw FROM pw WHERE pw = PASSWORD('my_pw')") == ("*F305E8EC27734F687F2EB6EC03CF0F7AF27C18E1",)


def test_lengthb_nvl2_name_const(scratch_db):
    conn, _ = scratch_db
    assert row(conn, "SELECT LENGTHB('a'), LENGTHB(_utf8mb4 0xC39F), LENGTHB(123), LENGTHB(NULL)") == ("1", "2", "3", None)
    assert row(conn, "SELECT NVL2(NULL, 1, 2), NVL2(0, 'a', 2), NAME_CONST('a', 3), NAME_CONST('b', NULL)") == ("2", "a", "3", None)
    query(conn, "CREATE TABLE n (a INT)")
    query(conn, "INSERT INTO n VALUES (1), (NULL)")
    assert [r[0] for r in query(conn, "SELECT NVL2(a, 'y', 'n') FROM n ORDER BY a")] == ["n", "y"]
    assert [r[0] for r in query(conn, "SELECT a FROM n WHERE 1 IN (a, NAME_CONST('a', NULL))")] == [1]
    assert error_code(conn, "SELECT NVL2(1, 2)") == 1582


def test_value_outside_upsert(scratch_db):
    conn, _ = scratch_db
    query(conn, "CREATE TABLE v (a INT PRIMARY KEY, b INT)")
    query(conn, "INSERT INTO v VALUE (1, 2)")
    # Outside ON DUPLICATE KEY UPDATE, VALUE(col) is NULL (the column still resolved).
    assert row(conn, "SELECT *, VALUE(a), VALUE(v.b) + 1 FROM v") == ("1", "2", None, None)
    assert query(conn, "SELECT a FROM v WHERE VALUE(a) IS NOT NULL") == ()
    assert error_code(conn, "SELECT VALUE(nosuch) FROM v") == 1054
    # Inside it, VALUE(col) is VALUES(col).
    query(conn, "INSERT INTO v VALUES (1, 5) ON DUPLICATE KEY UPDATE b = VALUE(b)")
    assert row(conn, "SELECT b FROM v WHERE a = 1") == ("5",)


def test_repeated_select_options(scratch_db):
    conn, _ = scratch_db
    query(conn, "CREATE TABLE s (a INT)")
    query(conn, "INSERT INTO s VALUES (1), (1)")
    assert [r[0] for r in query(conn, "SELECT ALL ALL a FROM s")] == [1, 1]
    assert [r[0] for r in query(conn, "SELECT DISTINCT DISTINCT a FROM s")] == [1]
    assert error_code(conn, "SELECT ALL DISTINCT a FROM s") == 1221
    assert error_code(conn, "SELECT DISTINCT ALL a FROM s") == 1221
