"""EXECUTE IMMEDIATE (MariaDB 10.2+) and PREPARE ... FROM <expression>: the
statement text from a string, a user variable, or any expression; USING
values as expressions; results and errors as MariaDB 10.11 gives them."""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


def test_text_forms(sql_conn, uniq):
    db = uniq("eidb")
    clients.query(sql_conn, f"CREATE DATABASE {db}")
    clients.query(sql_conn, f"USE {db}")
    clients.query(sql_conn, "CREATE TABLE t (a INT, b VARCHAR(10))")
    assert clients.query(sql_conn, "EXECUTE IMMEDIATE 'SELECT ?, ?' USING 1, 'a'") == ((1, "a"),)
    assert clients.query(sql_conn, "EXECUTE IMMEDIATE CONCAT('SELECT ', 5)") == ((5,),)
    clients.query(sql_conn, "SET @s = 'INSERT INTO t VALUES (?, ?)', @x = 7")
    clients.query(sql_conn, "EXECUTE IMMEDIATE @s USING @x, 'seven'")
    clients.query(sql_conn, "EXECUTE IMMEDIATE @s USING DEFAULT, NULL")
    assert clients.query(sql_conn, "SELECT a, b FROM t ORDER BY a") == ((None, None), (7, "seven"))
    assert clients.query(sql_conn, "EXECUTE IMMEDIATE (SELECT 'SELECT COUNT(*) FROM t')") == ((2,),)
    clients.query(sql_conn, "PREPARE p FROM CONCAT('SELECT b FROM t WHERE a = ', '?')")
    assert clients.query(sql_conn, "EXECUTE p USING 7") == (("seven",),)
    clients.query(sql_conn, f"DROP DATABASE {db}")


def test_prepare_rejects_second_statement_as_mariadb(sql_conn):
    with pytest.raises(pymysql.err.ProgrammingError) as ei:
        clients.query(sql_conn, "PREPARE p FROM 'SELECT 1; SELECT 2'")
    assert ei.value.args[0] == 1064 and "near 'SELECT 2'" in ei.value.args[1]


def test_result_carries_the_warning_count_of_the_statement_it_ran(sql_conn):
    """The EOF of a result from EXECUTE / EXECUTE IMMEDIATE counts the
    warnings of the statement it ran (MariaDB: 1 for the Note 1003 of
    EXPLAIN EXTENDED, 1 for a division by zero)."""
    with sql_conn.cursor() as cur:
        cur.execute("EXECUTE IMMEDIATE 'EXPLAIN EXTENDED SELECT 1 FROM DUAL LIMIT ?' USING 10")
        assert cur._result.warning_count == 1
        cur.execute("PREPARE ei_div FROM 'SELECT 1/0'")
        cur.execute("EXECUTE ei_div")
        assert cur.fetchall() == ((None,),) and cur._result.warning_count == 1
        cur.execute("EXECUTE IMMEDIATE 'SELECT 1'")
        assert cur._result.warning_count == 0


def test_limit_values_of_any_type_are_rounded_to_integers(sql_conn, uniq):
    db = uniq("eilim")
    clients.query(sql_conn, f"CREATE DATABASE {db}")
    clients.query(sql_conn, f"USE {db}")
    clients.query(sql_conn, "CREATE TABLE t (a INT)")
    clients.query(sql_conn, "INSERT INTO t VALUES (1), (2), (3), (4), (5)")
    assert clients.query(sql_conn, "EXECUTE IMMEDIATE 'SELECT 1 FROM DUAL LIMIT ?' USING 10.1") == ((1,),)
    assert clients.query(sql_conn, "EXECUTE IMMEDIATE 'SELECT a FROM t ORDER BY a LIMIT ?, ?' USING '1', 1.6") == ((2,), (3,))
    assert clients.query(sql_conn, "EXECUTE IMMEDIATE 'SELECT a FROM t ORDER BY a LIMIT ? OFFSET ?' USING 1e0, 3") == ((4,),)
    clients.query(sql_conn, f"DROP DATABASE {db}")
