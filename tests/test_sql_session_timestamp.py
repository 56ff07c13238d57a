"""SET timestamp: the session's clock, as MariaDB 10.11 keeps it. NOW(),
CURDATE(), CURRENT_TIME, UTC_TIMESTAMP(), UNIX_TIMESTAMP() and DEFAULT
CURRENT_TIMESTAMP / ON UPDATE CURRENT_TIMESTAMP read it, with and without a
table; 0 and DEFAULT give the system clock back; other sessions never see it."""

from __future__ import annotations

import datetime

from helpers import clients

Y2K1 = 978307200  # 2001-01-01 00:00:00 UTC


def test_clock_functions_follow_the_session_timestamp(sql_conn, uniq):
    db = uniq("tsdb")
    clients.query(sql_conn, f"CREATE DATABASE {db}")
    clients.query(sql_conn, f"USE {db}")
    clients.query(sql_conn, "CREATE TABLE t (id INT, a TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, b DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3))")
    clients.query(sql_conn, "SET timestamp = UNIX_TIMESTAMP('2001-01-01 00:00:00')")
    first = datetime.datetime(2001, 1, 1)
    assert clients.query(sql_conn, "SELECT NOW(), UNIX_TIMESTAMP(), CURDATE(), UTC_TIMESTAMP()") == ((first, Y2K1, first.date(), first),)
    clients.query(sql_conn, "INSERT INTO t (id) VALUES (1)")
    assert clients.query(sql_conn, "SELECT a, b, NOW(), UNIX_TIMESTAMP() FROM t") == ((first, first, first, Y2K1),)
    clients.query(sql_conn, f"SET timestamp = {Y2K1 + 3600}")
    clients.query(sql_conn, "UPDATE t SET id = 2")
    assert clients.query(sql_conn, "SELECT a FROM t") == ((first + datetime.timedelta(hours=1),),)
    assert clients.query(sql_conn, "SELECT @@timestamp") == ((float(Y2K1 + 3600),),)
    clients.query(sql_conn, "SET timestamp = DEFAULT")
    assert clients.scalar(sql_conn, "SELECT NOW()").year >= 2024
    clients.query(sql_conn, f"SET timestamp = {Y2K1}")
    clients.query(sql_conn, "SET timestamp = 0")
    assert clients.scalar(sql_conn, "SELECT YEAR(NOW()) FROM t") >= 2024
    clients.query(sql_conn, f"DROP DATABASE {db}")


def test_other_sessions_keep_the_system_clock(sql_server):
    a, b = clients.root(sql_server), clients.root(sql_server)
    clients.query(a, f"SET timestamp = {Y2K1}")
    for _ in range(20):
        assert clients.scalar(a, "SELECT UNIX_TIMESTAMP()") == Y2K1
        assert clients.scalar(b, "SELECT UNIX_TIMESTAMP()") > Y2K1 + 10**8
    a.close()
    b.close()


def test_unix_timestamp_of_a_date_without_a_table(sql_conn):
    row = clients.query(sql_conn, "SELECT UNIX_TIMESTAMP('2001-01-01'), UNIX_TIMESTAMP('1960-01-01'), UNIX_TIMESTAMP('garbage')")
    # Before the epoch is outside TIMESTAMP's range: NULL (MariaDB 10.11.19).
    assert row == ((Y2K1, None, None),)
