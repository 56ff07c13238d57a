"""Date, time and year values written and read as MariaDB 10.11 does (each
expected value below was checked on MariaDB 10.11 with its default
sql_mode), seen as the text protocol sends them:

- a zero month or day inside a DATE or DATETIME is a value (`1000-00-00`,
  `0001-00-00 00:00:00`); a TIMESTAMP refuses one; under TRADITIONAL
  (NO_ZERO_IN_DATE, NO_ZERO_DATE) a strict write refuses both with 1292;
- a zero two-digit date stays the year 0 (`00-00-00`);
- a TIME column takes a datetime's time (year and month zero: its days as
  hours), digits as HHMMSS, `D  h:m:s` with days;
- a TIME made a DATE or DATETIME (CAST, UNIX_TIMESTAMP, a write into such a
  column, strict or not) is that time on the current day;
- a DATETIME column reads MariaDB's other spellings: digits of any length
  (`00101000000`), a `T` after the day, any punctuation between parts;
- a row given to a date function is ERR 4079 (MariaDB's type check);
- UNIX_TIMESTAMP of a day that is none or outside TIMESTAMP's range is NULL;
- a YEAR compared with a literal compares with the year it names;
- a YEAR shows four digits (`0000`), a YEAR(2) two, an INT(5) ZEROFILL five.
"""

import pymysql
import pytest

from helpers.clients import connect, query


@pytest.fixture
def raw(sql_server, uniq):
    """A connection whose values come back as the text the server sent."""
    conn = connect(sql_server, conv={})
    name = uniq("tv")
    query(conn, f"CREATE DATABASE {name}")
    query(conn, f"USE {name}")
    yield conn
    query(conn, f"DROP DATABASE IF EXISTS {name}")
    conn.close()


def rows(conn, sql):
    return [tuple(None if v is None else (v.decode() if isinstance(v, bytes) else v) for v in r) for r in query(conn, sql)]


def test_zero_month_or_day(raw):
    query(raw, "CREATE TABLE t (d DATE, dt DATETIME, ts TIMESTAMP NULL)")
    query(raw, "INSERT INTO t (d, dt) VALUES ('1000-00-00', '0001-00-00 00:00:00'), ('0000-00-01', '00-00-00'), ('2012-00-00', '00-00-00 01:00:00')")
    assert rows(raw, "SELECT d, dt FROM t") == [
        ("1000-00-00", "0001-00-00 00:00:00"),
        ("0000-00-01", "0000-00-00 00:00:00"),
        ("2012-00-00", "2000-00-00 01:00:00"),
    ]
    assert rows(raw, "SELECT d FROM t WHERE d = '1000-00-00'") == [("1000-00-00",)]
    with pytest.raises(pymysql.err.OperationalError) as e:
        query(raw, "INSERT INTO t (ts) VALUES ('2012-00-00 00:00:00')")
    assert e.value.args[0] == 1292
    query(raw, "SET sql_mode = 'TRADITIONAL'")
    try:
        for v in ("'1000-00-00'", "'0000-00-00'", "0"):
            with pytest.raises(pymysql.err.OperationalError) as e:
                query(raw, f"INSERT INTO t (d) VALUES ({v})")
            assert e.value.args[0] == 1292
        query(raw, "INSERT INTO t (d) VALUES ('1000-01-01')")
    finally:
        query(raw, "SET sql_mode = DEFAULT")
    # The same statement under the default mode again (not the TRADITIONAL translation).
    query(raw, "INSERT INTO t (d) VALUES ('1000-00-00')")


def test_time_column_forms(raw):
    query(raw, "CREATE TABLE t (t TIME(2))")
    query(raw, "INSERT INTO t VALUES ('0000-00-01 10:20:30'), ('1999-02-03 20:33:34'), ('1234'), ('10.22'), ('-10  1:22:33.45'), (123456.78)")
    assert rows(raw, "SELECT t FROM t") == [
        ("34:20:30.00",),
        ("20:33:34.00",),
        ("00:12:34.00",),
        ("00:00:10.22",),
        ("-241:22:33.45",),
        ("12:34:56.78",),
    ]


def test_time_made_a_date(raw):
    query(raw, "SET timestamp = UNIX_TIMESTAMP('2013-08-19 12:00:00')")
    try:
        assert rows(raw, "SELECT CAST(TIME'10:20:30' AS DATETIME), CAST(TIME('800:20:30') AS DATE), CAST(TIME('-800:20:30') AS DATETIME), UNIX_TIMESTAMP(TIME'10:20:30')") == [
            ("2013-08-19 10:20:30", "2013-09-21", "2013-07-16 15:39:30", "1376907630")
        ]
        query(raw, "CREATE TABLE t (a TIME)")
        query(raw, "INSERT INTO t VALUES ('33 08:20:30')")
        assert rows(raw, "SELECT CAST(a AS DATETIME) FROM t") == [("2013-09-21 08:20:30",)]
    finally:
        query(raw, "SET timestamp = DEFAULT")


def test_time_written_into_a_date_column(raw):
    query(raw, "SET timestamp = UNIX_TIMESTAMP('2013-08-19 12:00:00')")
    try:
        query(raw, "CREATE TABLE t (a DATETIME, b DATE)")
        query(raw, "INSERT INTO t VALUES (TIME'10:20:30', TIME('800:20:30'))")
        query(raw, "SET sql_mode = ''")
        query(raw, "INSERT INTO t VALUES (TIME('48:20:30'), SEC_TO_TIME(3600))")
        assert rows(raw, "SELECT a, b FROM t") == [("2013-08-19 10:20:30", "2013-09-21"), ("2013-08-21 00:20:30", "2013-08-19")]
    finally:
        query(raw, "SET timestamp = DEFAULT, sql_mode = DEFAULT")


def test_other_datetime_spellings(raw):
    query(raw, "CREATE TABLE t (a DATETIME)")
    query(raw, "INSERT INTO t VALUES ('00101000000'), ('20030102T131415'), ('2003/01/02 13.14.15')")
    assert rows(raw, "SELECT a FROM t") == [("2000-10-10 00:00:00",), ("2003-01-02 13:14:15",), ("2003-01-02 13:14:15",)]


def test_row_argument_of_a_date_function(raw):
    for sql, op in [("SELECT YEAR(ROW(1,1))", "year"), ("SELECT MAKEDATE(1, ROW(1,1))", "makedate"), ("SELECT DAY((1,1))", "dayofmonth")]:
        with pytest.raises(pymysql.err.MySQLError) as ei:
            query(raw, sql)
        assert ei.value.args[0] == 4079, sql
        assert ei.value.args[1] == f"Illegal parameter data type row for operation '{op}'"


def test_unix_timestamp_range(raw):
    assert rows(raw, "SELECT UNIX_TIMESTAMP('2024-00-01'), UNIX_TIMESTAMP('1969-12-31 23:59:59'), UNIX_TIMESTAMP('1970-01-01 00:00:00'), UNIX_TIMESTAMP('2038-01-19 03:14:07'), UNIX_TIMESTAMP('2038-01-19 03:14:08')") == [
        (None, None, "0", "2147483647", None)
    ]
    query(raw, "CREATE TABLE t (a DATE)")
    query(raw, "INSERT INTO t VALUES ('2024-00-01'), ('2039-01-01'), ('2001-01-01')")
    assert rows(raw, "SELECT UNIX_TIMESTAMP(a) FROM t") == [(None,), (None,), ("978307200",)]


def test_year_compared_and_shown(raw):
    query(raw, "CREATE TABLE t (y YEAR, y2 YEAR(2), z INT(5) ZEROFILL)")
    query(raw, "INSERT INTO t VALUES (0, 70, 42), (1999, 2001, 7), (2000, 1999, 123456)")
    assert rows(raw, "SELECT y, y2, z FROM t") == [("0000", "70", "00042"), ("1999", "01", "00007"), ("2000", "99", "123456")]
    assert rows(raw, "SELECT y FROM t WHERE y = 99") == [("1999",)]
    assert rows(raw, "SELECT y FROM t WHERE y = '0'") == [("2000",)]
    assert rows(raw, "SELECT y FROM t WHERE y = 0") == [("0000",)]
    assert rows(raw, "SELECT y FROM t WHERE y = 1998.9") == [("1999",)]
    assert rows(raw, "SELECT y FROM t WHERE y IN (99, 1) ORDER BY y") == [("1999",)]
    assert rows(raw, "SELECT y2 FROM t WHERE y2 BETWEEN 70 AND 1999 ORDER BY y2") == [("70",), ("99",)]
    # A computed YEAR is not padded.
    assert rows(raw, "SELECT MIN(y) FROM t") == [("0",)]
    assert rows(raw, "SHOW CREATE TABLE t")[0][1].count("year(2)") == 1


def test_session_time_zone(raw):
    query(raw, "SET timestamp = 1000000000")
    query(raw, "SET time_zone = '+03:00'")
    try:
        assert rows(raw, "SELECT NOW(), CURDATE(), CURTIME(), UTC_TIMESTAMP(), FROM_UNIXTIME(0), UNIX_TIMESTAMP('1970-01-01 03:00:01'), UNIX_TIMESTAMP(), FROM_UNIXTIME(-1)") == [
            ("2001-09-09 04:46:40", "2001-09-09", "04:46:40", "2001-09-09 01:46:40", "1970-01-01 03:00:00", "1", "1000000000", None)
        ]
        query(raw, "CREATE TABLE t (a TIMESTAMP NULL DEFAULT CURRENT_TIMESTAMP, b INT)")
        query(raw, "INSERT INTO t (b) VALUES (1)")
        assert rows(raw, "SELECT a FROM t") == [("2001-09-09 04:46:40",)]
        # TIMESTAMP's range is UTC's: 1969-12-31 19:00:01 at -6:00 is in it.
        query(raw, "SET time_zone = '-6:00'")
        query(raw, "INSERT INTO t (a) VALUES (19691231190001)")
        with pytest.raises(pymysql.err.OperationalError) as e:
            query(raw, "INSERT INTO t (a) VALUES ('2038-01-18 21:14:08')")
        assert e.value.args[0] == 1292
    finally:
        query(raw, "SET time_zone = DEFAULT")
        query(raw, "SET timestamp = DEFAULT")
