"""Date and time functions answered as MariaDB 10.11 answers them (each
expected value and warning below was checked on MariaDB 10.11 with its
default sql_mode), through the real server:

- ADDTIME/SUBTIME read numbers as hhmmss or dates, clip a time to
  838:59:59 with "Truncated incorrect time value: '<the sum>'", and refuse
  a datetime as the interval ("Incorrect INTERVAL DAY TO SECOND value");
- TIMEDIFF clips the same way;
- a TIME beside a DATE in COALESCE/IF/CASE is that time on the current day;
- TIME_TO_SEC keeps the fraction of its argument;
- FROM_UNIXTIME past TIMESTAMP's range warns;
- a YEAR(2) column is created with MariaDB's deprecation Note.
"""

import datetime

import pytest

from helpers.clients import connect, query


@pytest.fixture
def raw(sql_server, uniq):
    """A connection whose values come back as the text the server sent."""
    conn = connect(sql_server, conv={})
    name = uniq("tf")
    query(conn, f"CREATE DATABASE {name}")
    query(conn, f"USE {name}")
    yield conn
    query(conn, f"DROP DATABASE IF EXISTS {name}")
    conn.close()


def one(conn, sql):
    return [None if v is None else (v.decode() if isinstance(v, bytes) else v) for v in query(conn, sql)[0]]


def warnings(conn):
    return [(w[0].decode() if isinstance(w[0], bytes) else w[0], int(w[1]), w[2].decode() if isinstance(w[2], bytes) else w[2]) for w in query(conn, "SHOW WARNINGS")]


def test_addtime_numbers_strings_and_clipping(raw):
    assert one(raw, "SELECT ADDTIME(100000, 10000), ADDTIME(100000.55, 1), ADDTIME(20010101, 1.10), ADDTIME('10:00:00.5', '01:00:00')") == [
        "11:00:00",
        "10:00:01.55",
        "2001-01-01 00:00:01.10",
        "11:00:00.500000",
    ]
    assert one(raw, "SELECT SUBTIME('-916:40:00', '416:40:00')") == ["-838:59:59.999999"]
    assert warnings(raw) == [
        ("Warning", 1292, "Truncated incorrect time value: '-916:40:00'"),
        ("Warning", 1292, "Truncated incorrect time value: '-1255:39:59.999999'"),
    ]
    assert one(raw, "SELECT ADDTIME('10:00:00', '2001-01-01 00:00:00')") == [None]
    assert warnings(raw) == [("Warning", 1292, "Incorrect INTERVAL DAY TO SECOND value: '2001-01-01 00:00:00'")]
    assert one(raw, "SELECT ADDTIME(TIME'00:00:00', '839:59:59'), TIMEDIFF('2014-01-01 00:00:00', 20140101010000)") == ["838:59:59", "-01:00:00"]


def test_time_beside_date_is_today(raw):
    today = datetime.date.today().isoformat()
    got = one(raw, "SELECT COALESCE(TIME'10:20:30', DATE'2001-01-01'), CASE WHEN 0 THEN DATE'2001-01-01' ELSE TIME'10:20:30' END")
    # The server's day may turn between the two reads; its date is today's or yesterday's.
    assert all(v.endswith(" 10:20:30") for v in got)
    assert got[0][:10] in (today, (datetime.date.today() - datetime.timedelta(days=1)).isoformat())


def test_time_to_sec_and_from_unixtime(raw):
    assert one(raw, "SELECT TIME_TO_SEC('15:12:22.123456'), TIME(230322.33)") == ["54742.123456", "23:03:22.33"]
    assert one(raw, "SELECT FROM_UNIXTIME(2147483648)") == [None]
    assert warnings(raw) == [("Warning", 1292, "Truncated incorrect unixtime value: '2147483648'")]


def test_year2_column_note(raw):
    query(raw, "CREATE TABLE t (a YEAR(2), b YEAR)")
    assert warnings(raw) == [("Note", 1287, "'YEAR(2)' is deprecated and will be removed in a future release. Please use YEAR(4) instead")]
