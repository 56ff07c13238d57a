"""Types as MariaDB 10.11 sends them (issue #22, Types), over both protocols.

Each expectation is what MariaDB 10.11 answered for the same statement
(checked against a running 10.11 with the same byte-level client,
helpers/stmtproto.py: COM_QUERY text rows and COM_STMT_EXECUTE binary rows,
with the whole column definition):

* zero dates: `0000-00-00` is length 0 in the binary protocol (a client read
  4 zero bytes as year 0, month 0: `-0001-11-30`), and MySQL's lengths
  drop the parts that are zero (a DATETIME at midnight is 4 bytes);
* CAST to TIME/DATE/DATETIME converts (the time of day of a datetime, a
  number as HHMMSS, the target's fractional digits), typed by the target;
* TIME(), DATE(), TIMESTAMP() are typed TIME/DATE/DATETIME, not strings;
* PyMySQL and mysql-connector (prepared cursor) read the values back.
"""

from __future__ import annotations

import datetime

import mysql.connector
import pytest

from helpers import clients, stmtproto
from helpers.server import ROOT_PASSWORD

T_DATE, T_TIME, T_DATETIME, T_TIMESTAMP = 10, 11, 12, 7


@pytest.fixture
def db(sql_server, sql_conn, uniq):
    name = uniq("typ")
    clients.query(sql_conn, f"CREATE DATABASE {name}")
    yield name
    clients.query(sql_conn, f"DROP DATABASE IF EXISTS {name}")


def _byte_client(server, db):
    return stmtproto.connect(server.port, "root", ROOT_PASSWORD, db=db)


def _both(c, sql):
    """(text rows, binary rows, columns) of one SELECT."""
    text = c.query(sql)
    st = c.prepare(sql)
    binary = c.execute(st, [])
    c.close(st)
    assert [(x.type, x.length, x.decimals) for x in text.cols] == [(x.type, x.length, x.decimals) for x in binary.cols]
    return text.rows, binary.rows, text.cols


def _zero_dates_table(c):
    c.query("SET sql_mode=''")
    c.query("CREATE TABLE z (id INT PRIMARY KEY, d DATE, dt DATETIME, ts TIMESTAMP NULL, t TIME)")
    c.query(
        "INSERT INTO z VALUES (1,'0000-00-00','0000-00-00 00:00:00','0000-00-00 00:00:00','00:00:00'),"
        " (2,'2024-01-02','2024-01-02 00:00:00',NULL,'-01:02:03'), (3,'2024-01-02','2024-01-02 03:04:05',NULL,'00:00:01')"
    )


def test_zero_dates_in_the_binary_protocol_are_length_0(sql_server, db):
    c = _byte_client(sql_server, db)
    _zero_dates_table(c)
    text, binary, cols = _both(c, "SELECT d, dt, ts, t FROM z ORDER BY id")
    assert [x.type for x in cols] == [T_DATE, T_DATETIME, T_TIMESTAMP, T_TIME]
    assert text[0] == (b"0000-00-00", b"0000-00-00 00:00:00", b"0000-00-00 00:00:00", b"00:00:00")
    # MariaDB 10.11: b'' for each zero value (was 4, 7, 7 and 8 zero bytes).
    assert binary[0] == (b"", b"", b"", b"")
    # Midnight is a 4-byte DATETIME; a time of day 7 bytes, a TIME 8.
    assert binary[1] == (b"\xe8\x07\x01\x02", b"\xe8\x07\x01\x02", None, b"\x01\x00\x00\x00\x00\x01\x02\x03")
    assert binary[2] == (b"\xe8\x07\x01\x02", b"\xe8\x07\x01\x02\x03\x04\x05", None, b"\x00" * 7 + b"\x01")
    c.close_connection()


def test_zero_dates_through_mysql_connector_prepared(sql_server, db):
    c = _byte_client(sql_server, db)
    _zero_dates_table(c)
    c.close_connection()
    conn = mysql.connector.connect(host="127.0.0.1", port=sql_server.port, user="root", password=ROOT_PASSWORD, database=db, use_pure=True)
    try:
        cur = conn.cursor(prepared=True)
        # Before: ValueError "year 0 is out of range" inside the connector.
        cur.execute("SELECT d, dt, t FROM z WHERE id = ?", (1,))
        assert cur.fetchall() == [(None, None, datetime.timedelta(0))]
        cur.execute("SELECT dt FROM z WHERE id = ?", (2,))
        assert cur.fetchall() == [(datetime.datetime(2024, 1, 2),)]
    finally:
        conn.close()


def test_cast_to_temporal_types_converts(sql_server, db):
    c = _byte_client(sql_server, db)
    c.query("CREATE TABLE t (id INT PRIMARY KEY, d DATE, dt DATETIME, t TIME)")
    c.query("INSERT INTO t VALUES (2, '2024-01-02', '2024-01-02 03:04:05', '-01:02:03')")
    text, binary, cols = _both(c, "SELECT CAST(dt AS TIME), CAST(dt AS DATE), CAST(d AS DATETIME), CAST(t AS TIME), CAST(dt AS TIME(3)), CAST(dt AS DATETIME(6)), CAST(d AS TIME) FROM t")
    assert [(x.type, x.length, x.decimals) for x in cols] == [(T_TIME, 10, 0), (T_DATE, 10, 0), (T_DATETIME, 19, 0), (T_TIME, 10, 0), (T_TIME, 14, 3), (T_DATETIME, 26, 6), (T_TIME, 10, 0)]
    # Before: the whole datetime as a VARCHAR ('2024-01-02 03:04:05' for each).
    assert text == [(b"03:04:05", b"2024-01-02", b"2024-01-02 00:00:00", b"-01:02:03", b"03:04:05.000", b"2024-01-02 03:04:05.000000", b"00:00:00")]
    assert binary == [(b"\x00\x00\x00\x00\x00\x03\x04\x05", b"\xe8\x07\x01\x02", b"\xe8\x07\x01\x02", b"\x01\x00\x00\x00\x00\x01\x02\x03", b"\x00\x00\x00\x00\x00\x03\x04\x05", b"\xe8\x07\x01\x02\x03\x04\x05", b"")]
    c.close_connection()


@pytest.mark.parametrize("from_table", [False, True], ids=["no_table", "with_table"])
def test_cast_of_strings_and_numbers_as_mariadb(sql_server, db, from_table):
    c = _byte_client(sql_server, db)
    c.query("CREATE TABLE one (x INT)")
    c.query("INSERT INTO one VALUES (1)")
    tail = " FROM one" if from_table else ""
    cases = [
        ("CAST('2024-01-02 03:04:05' AS TIME)", T_TIME, b"03:04:05"),
        ("CAST('123' AS TIME)", T_TIME, b"00:01:23"),
        ("CAST(-123 AS TIME)", T_TIME, b"-00:01:23"),
        ("CAST('900:00:00' AS TIME)", T_TIME, b"838:59:59"),
        ("CAST('1 02:03:04' AS TIME)", T_TIME, b"26:03:04"),
        ("CAST('abc' AS TIME)", T_TIME, None),
        ("CAST('2024-01-02 03:04:05.123456' AS TIME(2))", T_TIME, b"03:04:05.12"),
        ("CAST('20240102' AS DATE)", T_DATE, b"2024-01-02"),
        ("CAST(20240102030405 AS DATETIME)", T_DATETIME, b"2024-01-02 03:04:05"),
        ("CAST('2024-02-30' AS DATE)", T_DATE, None),
        ("CAST('2024-01-02 03:04:05.5' AS DATE)", T_DATE, b"2024-01-02"),
    ]
    text, _, cols = _both(c, "SELECT " + ", ".join(e for e, _, _ in cases) + tail)
    assert [x.type for x in cols] == [t for _, t, _ in cases]
    assert text == [tuple(v for _, _, v in cases)]
    c.close_connection()


def test_time_date_functions_are_typed_temporal(sql_server, db):
    c = _byte_client(sql_server, db)
    c.query("CREATE TABLE t (id INT PRIMARY KEY, dt DATETIME(3))")
    c.query("INSERT INTO t VALUES (1, '2024-01-02 03:04:05.125')")
    text, binary, cols = _both(c, "SELECT TIME('12:30'), DATE('2024-01-02 03:04:05'), TIMESTAMP('2024-01-02'), TIME('12:30:45.5'), TIME(dt), DATE('20240102'), TIME('25:00:00') FROM t")
    # MariaDB 10.11: type, length, decimals of each (before: VARCHAR 253 for all).
    assert [(x.type, x.length, x.decimals, x.charset) for x in cols] == [
        (T_TIME, 10, 0, 63),
        (T_DATE, 10, 0, 63),
        (T_DATETIME, 19, 0, 63),
        (T_TIME, 12, 1, 63),
        (T_TIME, 14, 3, 63),
        (T_DATE, 10, 0, 63),
        (T_TIME, 10, 0, 63),
    ]
    assert text == [(b"12:30:00", b"2024-01-02", b"2024-01-02 00:00:00", b"12:30:45.5", b"03:04:05.125", b"2024-01-02", b"25:00:00")]
    assert binary[0][0] == b"\x00\x00\x00\x00\x00\x0c\x1e\x00"
    assert binary[0][6] == b"\x00\x01\x00\x00\x00\x01\x00\x00"
    c.close_connection()


def test_time_function_reads_back_in_pymysql(sql_server, sql_conn):
    # PyMySQL converts by column type: a TIME is a timedelta, not a str.
    assert clients.query(sql_conn, "SELECT TIME('12:30'), DATE('2024-01-02 03:04:05') FROM (SELECT 1) x") == ((datetime.timedelta(hours=12, minutes=30), datetime.date(2024, 1, 2)),)
