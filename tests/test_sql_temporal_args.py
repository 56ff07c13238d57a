"""Date and time functions read their arguments, move by INTERVALs, act as
numbers and compare as MariaDB 10.11 does (each expected value below was
checked on MariaDB 10.11, with the warnings it gives).

- arguments: two-digit years, digits without delimiters, any punctuation,
  trailing garbage cut with 1292, a zero date refused (NULL and 1292) by the
  functions that need a real day, a TIME past 838:59:59 clipped with 1292;
- compound INTERVAL units ('1:1' MINUTE_SECOND), SQL_TSI_ units, the
  DATE_FORMAT week specifiers, EXTRACT's compound units;
- a TIME moved by an INTERVAL stays a TIME;
- a date or time in arithmetic or a numeric CAST is its number;
- a temporal column compared with a literal compares as a temporal (the
  literal in the WHERE clause becomes a parameter of the normalized
  statement, and is converted all the same).
"""

import datetime

import pytest

from helpers.clients import query


@pytest.fixture
def tdb(sql_conn, uniq):
    name = uniq("tmp")
    query(sql_conn, f"CREATE DATABASE {name}")
    query(sql_conn, f"USE {name}")
    query(sql_conn, "CREATE TABLE tt (t TIME, d DATE, dt DATETIME(3))")
    query(sql_conn, "INSERT INTO tt VALUES ('10:20:31', '2001-01-01', '2001-01-01 10:20:31.000'), ('100:55:50', '2001-01-02', '2001-01-02 00:00:00')")
    yield sql_conn
    query(sql_conn, f"DROP DATABASE IF EXISTS {name}")


def one(conn, sql):
    """The row and the (code, message) warnings of a statement that reads a table."""
    rows = query(conn, sql)
    warnings = [(w[1], w[2]) for w in query(conn, "SHOW WARNINGS")]
    return rows[0] if rows else None, warnings


def td(h=0, m=0, s=0, us=0, neg=False):
    v = datetime.timedelta(hours=h, minutes=m, seconds=s, microseconds=us)
    return -v if neg else v


ARGS = [
    ("YEAR('98-02-03')", 1998, []),
    ("QUARTER(980303)", 1, []),
    ("SECOND(230322)", 22, []),
    ("MONTH('98.12.31')", 12, []),
    ("YEAR('1997-03-03 garbage')", 1997, [(1292, "Truncated incorrect date value: '1997-03-03 garbage'")]),
    ("DAYOFYEAR('0000-00-00')", None, [(1292, "Incorrect datetime value: '0000-00-00'")]),
    ("TO_DAYS('2024-00-01')", None, [(1292, "Incorrect datetime value: '2024-00-01'")]),
    ("QUARTER('0000-00-00')", 0, []),
    ("MONTHNAME('2024-00-05')", None, []),
    ("HOUR('900:00:00')", 838, [(1292, "Truncated incorrect time value: '900:00:00'")]),
    ("TIME_TO_SEC('916:40:00')", 3020399, [(1292, "Truncated incorrect time value: '916:40:00'")]),
    ("SEC_TO_TIME(3300000)", td(838, 59, 59), [(1292, "Truncated incorrect seconds value: '3300000'")]),
    ("MAKETIME(916,0,0)", td(838, 59, 59), [(1292, "Truncated incorrect time value: '916:00:00'")]),
]

INTERVALS = [
    ("DATE_ADD('1997-12-31 23:59:59', INTERVAL '1:1' MINUTE_SECOND)", "1998-01-01 00:01:00", []),
    ("DATE_ADD('1997-12-31 23:59:59', INTERVAL '-100 1' YEAR_MONTH)", "1897-11-30 23:59:59", []),
    ("DATE_ADD('1000-01-01 00:00:00', INTERVAL '1.02' DAY_MICROSECOND)", "1000-01-01 00:00:01.020000", []),
    ("DATE_ADD('9999-12-31', INTERVAL 1 DAY)", None, [(1441, "Datetime function: datetime field overflow")]),
    ("TIMESTAMPDIFF(SQL_TSI_WEEK, '2001-02-01', '2001-05-01')", 12, []),
    ("EXTRACT(DAY_MINUTE FROM '02 10:11:12')", 21011, []),
    ("DATE_FORMAT('1998-12-31','%x-%v')", "1998-53", []),
    ("DATE_FORMAT('1999-01-01','%X-%V %U %u')", "1998-52 00 00", []),
    ("DATE_FORMAT('0000-00-11','%W')", None, []),
    ("TIME_FORMAT(010203,'%H|%k|%r')", "01|1|01:02:03 AM", []),
    ("TIME('26:03:04') + INTERVAL 2 DAY", td(74, 3, 4), []),
    ("TIME('-1 02:03:04') - INTERVAL 9 MICROSECOND", td(26, 3, 4, 9, neg=True), []),
    ("TIME('838:00:00') + INTERVAL 1 HOUR", None, [(1441, "Datetime function: time field overflow")]),
    ("DATE_SUB(TIME('10:00:00'), INTERVAL '1:1' MINUTE_SECOND)", td(9, 58, 59), []),
]

NUMBERS = [
    ("SEC_TO_TIME(9001)+0", 23001),
    ("LAST_DAY('1997-12-1')+0", 19971231),
    ("CAST(DATE('2001-01-01') AS SIGNED)", 20010101),
    ("MAKETIME(10,20,30)*1", 102030),
]


@pytest.mark.parametrize("expr,value,warnings", ARGS + INTERVALS, ids=[c[0] for c in ARGS + INTERVALS])
def test_arguments_and_intervals_as_mariadb(tdb, expr, value, warnings):
    row, got = one(tdb, f"SELECT {expr} FROM tt LIMIT 1")
    assert row == (value,)
    assert got == warnings


@pytest.mark.parametrize("expr,value", NUMBERS, ids=[c[0] for c in NUMBERS])
def test_temporal_values_as_numbers(tdb, expr, value):
    assert one(tdb, f"SELECT {expr} FROM tt LIMIT 1") == ((value,), [])


def test_temporal_columns_as_numbers(tdb):
    rows = query(tdb, "SELECT t+0, d+0, dt+0 FROM tt ORDER BY d")
    assert [tuple(float(x) for x in r) for r in rows] == [(102031.0, 20010101.0, 20010101102031.0), (1005550.0, 20010102.0, 20010102000000.0)]


def test_columns_compare_with_literals_as_temporals(tdb):
    assert query(tdb, "SELECT t FROM tt WHERE t = '10:20:31.000'") == ((td(10, 20, 31),),)
    assert query(tdb, "SELECT d FROM tt WHERE d IN ('01-01-01', '2001-01-03')") == ((datetime.date(2001, 1, 1),),)
    assert query(tdb, "SELECT d FROM tt WHERE d BETWEEN '2000-12-31' AND '01-01-01'") == ((datetime.date(2001, 1, 1),),)
    assert query(tdb, "SELECT dt FROM tt WHERE dt = '2001-01-01 10:20:31'") == ((datetime.datetime(2001, 1, 1, 10, 20, 31),),)
    # TIMEs compare as values, not as text ('100:55:50' > '24:00:00').
    assert query(tdb, "SELECT t FROM tt WHERE t > TIME('24:00:00')") == ((td(100, 55, 50),),)
    # A DATE and a DATETIME compare as datetimes.
    assert query(tdb, "SELECT d FROM tt WHERE d = dt") == ((datetime.date(2001, 1, 2),),)
    row, warnings = one(tdb, "SELECT t FROM tt WHERE t = 'garbage'")
    assert (row, warnings) == (None, [(1292, "Truncated incorrect time value: 'garbage'")])


def test_typed_literals_keep_their_names_and_precision(tdb):
    cur = tdb.cursor()
    cur.execute("SELECT TIME'10:20:31.123', DATE '2001-01-01' + 0 FROM tt LIMIT 1")
    assert [d[0] for d in cur.description] == ["TIME'10:20:31.123'", "DATE '2001-01-01' + 0"]
    assert cur.fetchall() == ((td(10, 20, 31, 123000), 20010101),)
