"""Hostile date and time arguments: the date functions' readers
(turnstile_sqltext::time_read), INTERVAL texts, DATE_FORMAT's output and the
rewriter's temporal wraps (rewrite/temporal_numbers.rs) take any input and
answer a value, NULL or MariaDB's warning, never a crash or a hang, and the
server keeps serving.

MariaDB 10.11, checked side by side: the same statements answer NULL (with
1292 for a value that is no date, 1441 for an INTERVAL past year 9999,
and a value shown in a warning cut to 128 characters); none is an error.
One difference: a DATE_FORMAT result past max_allowed_packet is NULL with
1301 here, as Turnstile's other functions answer past that limit (MariaDB
builds it whatever its size).
The internal functions the rewriter writes (ts_tnum, ts_tcanon, ts_tcmp,
ts_time_add) are refused when a client calls them (1305), as any function
that does not exist.
"""

import pymysql
import pytest

from helpers.clients import query

LONG = 200_000


@pytest.fixture
def hdb(sql_conn, uniq):
    name = uniq("sect")
    query(sql_conn, f"CREATE DATABASE {name}")
    query(sql_conn, f"USE {name}")
    query(sql_conn, "CREATE TABLE t (t TIME, d DATE, dt DATETIME(6), s VARCHAR(10))")
    query(sql_conn, "INSERT INTO t VALUES ('10:00:00', '2001-01-01', '2001-01-01 00:00:00', 'x')")
    yield sql_conn
    query(sql_conn, f"DROP DATABASE IF EXISTS {name}")


HOSTILE = [
    f"REPEAT('9', {LONG})",
    f"REPEAT('1:', {LONG})",
    f"REPEAT('-', {LONG})",
    f"REPEAT(' ', {LONG})",
    f"CONCAT('2001-01-01 ', REPEAT('9', {LONG}))",
    f"CONCAT('1.', REPEAT('9', {LONG}))",
    "'99999999999999999999999999:99:99.9999999'",
    "'42949672955959'",
    "'18446744073709551616-01'",
    "'9999-12-31 23:59:59.999999'",
    "'0000-00-00'",
    "'-838:59:59.999999'",
    "'\\0\\0\\0'",
    "X'FFFE00'",
    "1e308",
    "-1e308",
    "-9223372036854775808",
    "18446744073709551615",
]

CALLS = [
    "YEAR({})",
    "DAYOFYEAR({})",
    "HOUR({})",
    "TIME_TO_SEC({})",
    "SEC_TO_TIME({})",
    "MAKETIME({0}, 0, {0})",
    "DATE_FORMAT({}, '%x-%v %W %j')",
    "TIME_FORMAT({}, '%H %r')",
    "DATE_ADD(dt, INTERVAL {} DAY_MICROSECOND)",
    "DATE_ADD(dt, INTERVAL {} YEAR_MONTH)",
    "DATE_ADD(dt, INTERVAL {} SECOND)",
    "t + INTERVAL {} HOUR_SECOND",
    "EXTRACT(DAY_MICROSECOND FROM {})",
    "TIMESTAMPDIFF(MONTH, {}, dt)",
    "SEC_TO_TIME({}) + 0",
    "CAST(MAKETIME({0}, 0, 0) AS SIGNED)",
]


@pytest.mark.parametrize("call", CALLS)
def test_hostile_arguments_answer(hdb, call):
    for arg in HOSTILE:
        rows = query(hdb, f"SELECT {call.format(arg)} FROM t")
        assert len(rows) == 1
    # Compared with each kind of column: a value, never an error.
    for arg in HOSTILE:
        for col in ("t", "d", "dt"):
            assert query(hdb, f"SELECT COUNT(*) FROM t WHERE {col} = {arg} OR {col} IN ({arg}, 1) OR {col} BETWEEN {arg} AND {arg}")[0][0] in (0, 1)
    assert query(hdb, "SELECT 1") == ((1,),)


def test_warnings_show_at_most_128_characters(hdb):
    cur = hdb.cursor()
    cur.execute(f"SELECT HOUR(REPEAT('9', {LONG})) FROM t")
    assert cur.fetchall() == ((None,),)
    cur.execute("SHOW WARNINGS")
    assert [(w[1], w[2]) for w in cur.fetchall()] == [(1292, "Incorrect time value: '" + "9" * 125 + "...'")]
    cur.execute(f"SELECT COUNT(*) FROM t WHERE d = REPEAT('9', {LONG})")
    assert cur.fetchall() == ((0,),)
    cur.execute("SHOW WARNINGS")
    assert [(w[1], w[2]) for w in cur.fetchall()] == [(1292, "Truncated incorrect datetime value: '" + "9" * 125 + "...'")]


def test_interval_overflow_is_null_with_1441(hdb):
    cur = hdb.cursor()
    cur.execute("SELECT DATE_ADD(dt, INTERVAL '9999999999999999999:1' MINUTE_SECOND), t + INTERVAL 99999999999 DAY FROM t")
    assert cur.fetchall() == ((None, None),)
    cur.execute("SHOW WARNINGS")
    assert [w[1] for w in cur.fetchall()] == [1441, 1441]


def test_date_format_past_the_result_limit_is_null(hdb):
    cur = hdb.cursor()
    # 7,000,000 day names of 9 bytes: past max_allowed_packet (64 MiB).
    cur.execute("SELECT DATE_FORMAT('2001-01-03', REPEAT('%W', 7500000)) IS NULL FROM t")
    assert cur.fetchall() == ((1,),)
    cur.execute("SHOW WARNINGS")
    assert [w[1] for w in cur.fetchall()] == [1301]
    assert query(hdb, "SELECT 1") == ((1,),)


@pytest.mark.parametrize("fn", ["ts_tnum('2001-01-01')", "ts_tcanon('1', 'date', 0)", "ts_tcmp('1', 'time', 1)", "ts_time_add('10:00:00', 1, 'DAY')"])
def test_internal_functions_are_refused(hdb, fn):
    with pytest.raises(pymysql.err.OperationalError) as e:
        query(hdb, f"SELECT {fn} FROM t")
    assert e.value.args[0] == 1305
