"""The diagnostics area: notes, warnings and errors a statement leaves for
SHOW WARNINGS, SHOW ERRORS, SHOW COUNT(*) WARNINGS, @@warning_count and
@@error_count, and the warning count of the OK packet. Every expectation was
taken from MariaDB 10.11 running the same statements:

- DROP TABLE IF EXISTS of missing tables is one note 1051 naming them all;
  CREATE TABLE IF NOT EXISTS of an existing one note 1050; CREATE DATABASE IF
  NOT EXISTS 1007 and DROP DATABASE IF EXISTS 1008 likewise;
- a failed statement leaves its error (level Error) in both lists;
- SET, SHOW and a SELECT without a table that raise nothing keep the
  previous statement's conditions; a statement that uses a table clears them.
"""

import pymysql
import pytest

from helpers import clients
from helpers.clients import query, scalar


@pytest.fixture
def db(sql_conn, uniq):
    name = uniq("w")
    query(sql_conn, f"CREATE DATABASE {name}")
    query(sql_conn, f"USE {name}")
    query(sql_conn, "CREATE TABLE s (a INT)")
    yield name
    query(sql_conn, f"DROP DATABASE IF EXISTS {name}")


def warnings(conn):
    return [tuple(r) for r in query(conn, "SHOW WARNINGS")]


def ok_warning_count(conn, sql):
    """The warning count of the statement's OK packet."""
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur._result.warning_count


def test_if_exists_notes(sql_conn, db):
    assert ok_warning_count(sql_conn, "DROP TABLE IF EXISTS nosuch1, nosuch2") == 1
    assert warnings(sql_conn) == [("Note", 1051, f"Unknown table '{db}.nosuch1,{db}.nosuch2'")]
    assert ok_warning_count(sql_conn, "CREATE TABLE IF NOT EXISTS s (a INT)") == 1
    assert warnings(sql_conn) == [("Note", 1050, "Table 's' already exists")]
    assert ok_warning_count(sql_conn, f"CREATE DATABASE IF NOT EXISTS {db}") == 1
    assert warnings(sql_conn) == [("Note", 1007, f"Can't create database '{db}'; database exists")]
    assert ok_warning_count(sql_conn, "DROP DATABASE IF EXISTS nosuch_db_w") == 1
    assert warnings(sql_conn) == [("Note", 1008, "Can't drop database 'nosuch_db_w'; database doesn't exist")]
    # A statement that raises nothing and uses a table clears them.
    assert ok_warning_count(sql_conn, "INSERT INTO s VALUES (1)") == 0
    assert warnings(sql_conn) == []
    assert scalar(sql_conn, "SELECT @@warning_count") == 0


def test_what_keeps_and_what_clears(sql_conn, db):
    query(sql_conn, "DROP TABLE IF EXISTS nosuch1")
    assert scalar(sql_conn, "SELECT @@warning_count") == 1
    query(sql_conn, "SELECT 1")
    query(sql_conn, "SET @x = 1")
    assert len(warnings(sql_conn)) == 1
    assert query(sql_conn, "SHOW COUNT(*) WARNINGS") == ((1,),)
    assert query(sql_conn, "SHOW COUNT(*) ERRORS") == ((0,),)
    query(sql_conn, "SELECT * FROM s")
    assert warnings(sql_conn) == []


def test_an_error_is_in_both_lists(sql_conn, db):
    with pytest.raises(pymysql.MySQLError) as e:
        query(sql_conn, "SELECT nosuchcol FROM s")
    assert e.value.args[0] == 1054
    (level, code, message), = warnings(sql_conn)
    assert (level, code) == ("Error", 1054) and "nosuchcol" in message
    assert [tuple(r)[:2] for r in query(sql_conn, "SHOW ERRORS")] == [("Error", 1054)]
    assert query(sql_conn, "SELECT @@error_count, @@warning_count") == ((1, 1),)
    query(sql_conn, "DROP TABLE IF EXISTS nosuch3, nosuch4")
    assert query(sql_conn, "SHOW ERRORS") == ()
    assert len(query(sql_conn, "SHOW WARNINGS LIMIT 1")) == 1
    assert query(sql_conn, "SHOW WARNINGS LIMIT 1, 1") == ()


def test_diagnostics_are_per_session_and_reset(sql_server, sql_conn, db):
    query(sql_conn, "DROP TABLE IF EXISTS nosuch1")
    other = clients.root(sql_server)
    try:
        assert query(other, "SHOW WARNINGS") == ()
    finally:
        other.close()
    sql_conn.ping()
    assert len(warnings(sql_conn)) == 1
    with pytest.raises(pymysql.MySQLError):
        query(sql_conn, "SHOW WARNINGS LIMIT x")


def test_cast_of_a_string_as_integer_warns_for_what_it_cuts(db, sql_conn):
    """CAST(string AS SIGNED/UNSIGNED) reads the leading digits (before,
    '12abc' was 0 from a column and '1e3' 1000) with MariaDB's Warning 1292,
    a Note 1292 for trailing blanks and Note 1105 for a complement; values
    and conditions checked on MariaDB 10.11. PyMySQL's test_warnings."""
    assert query(sql_conn, "SELECT CAST('abc' AS SIGNED)") == ((0,),)
    assert warnings(sql_conn) == [("Warning", 1292, "Truncated incorrect INTEGER value: 'abc'")]
    assert query(sql_conn, "SELECT CAST('12 ' AS SIGNED), CAST('-1' AS UNSIGNED), CAST('1e3' AS SIGNED)") == ((12, 18446744073709551615, 1),)
    assert warnings(sql_conn) == [
        ("Note", 1292, "Truncated incorrect INTEGER value: '12 '"),
        ("Note", 1105, "Cast to unsigned converted negative integer to it's positive complement"),
        ("Warning", 1292, "Truncated incorrect INTEGER value: '1e3'"),
    ]
    query(sql_conn, "CREATE TABLE c (s VARCHAR(10), d DECIMAL(5,2))")
    query(sql_conn, "INSERT INTO c VALUES ('12abc', 1.5), ('7', -2.5)")
    # A string column by its digits; a DECIMAL rounded, without a warning.
    assert query(sql_conn, "SELECT CAST(s AS SIGNED), CONVERT(c.s, UNSIGNED), CAST(d AS SIGNED) FROM c ORDER BY d") == ((7, 7, -3), (12, 12, 2))
    assert [w[:2] for w in warnings(sql_conn)] == [("Warning", 1292), ("Warning", 1292)]
