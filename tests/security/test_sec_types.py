"""Hostile values for the typed conversions of issue #22 (Types).

BIT columns, latin1/ascii columns, CAST to temporal types and SET NAMES now
read values byte by byte in new SQL functions (ts_bit, ts_cs,
ts_cast_temporal, TIME(), DATE()) and in the session's check of a non-UTF-8
client's text. Each gets bytes that are not UTF-8, every byte value, huge
numbers, NaN-like and over-long texts; the answer is a value or MySQL's
error, and the server keeps serving (a panic in a SQL function would end the
statement with ERR 1105, which no case here may give). MariaDB 10.11 gives
the same codes for the BIT and latin1 cases (1406 / 1264 / 1366); for a
latin1 client's non-ASCII text it converts where Turnstile refuses (1235,
docs/compatibility.md).
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


def _code(conn, sql, args=None):
    try:
        clients.query(conn, sql, args)
        return 0
    except pymysql.err.MySQLError as e:
        return e.args[0]


def test_bit_and_charset_columns_take_hostile_bytes(sql_server, sql_conn, uniq):
    db = uniq("sectyp")
    clients.query(sql_conn, f"CREATE DATABASE {db}")
    clients.query(sql_conn, f"CREATE TABLE {db}.t (b1 BIT(1), b64 BIT(64), l VARCHAR(300) CHARACTER SET latin1, a TEXT CHARACTER SET ascii)")
    every_byte = bytes(range(256))
    cases = [
        ("INSERT INTO {db}.t (b64) VALUES (%s)", (every_byte,), 1406),
        ("INSERT INTO {db}.t (b64) VALUES (%s)", (b"\xff" * 8,), 0),
        ("INSERT INTO {db}.t (b64) VALUES (%s)", (b"\x00" * 100 + b"\x01",), 0),  # leading zero bytes do not count
        ("INSERT INTO {db}.t (b64) VALUES (1e300)", None, 1406),
        ("INSERT INTO {db}.t (b64) VALUES (-1e300)", None, 1406),
        ("INSERT INTO {db}.t (b64) VALUES (99999999999999999999999999)", None, 1406),
        ("INSERT INTO {db}.t (b1) VALUES (%s)", ("\u00e9",), 1406),
        ("INSERT INTO {db}.t (l) VALUES (%s)", (every_byte,), 0),  # _binary bytes: not characters, kept
        ("INSERT INTO {db}.t (l) VALUES (%s)", ("\U0001f600" * 70,), 1366),
        ("INSERT INTO {db}.t (a) VALUES (%s)", ("x" * 100000 + "\u00e9",), 1366),
        ("INSERT INTO {db}.t (a) VALUES (%s)", ("\x00\x7f",), 0),
    ]
    for sql, args, want in cases:
        assert _code(sql_conn, sql.format(db=db), args) == want, (sql, args)
    assert clients.query(sql_conn, f"SELECT COUNT(*) FROM {db}.t") == ((4,),)
    assert clients.query(sql_conn, "SELECT 1") == ((1,),)


@pytest.mark.parametrize("value", ["''", "'-'", "':'", "'9' ", "'99999999999999999999:99'", "'-838:59:59.9999999'", "'1e308'", "1e308", "-1e308", "'\\0\\0'", "REPEAT('9', 100000)", "'2024-02-29 23:59:59.9999995'", "'0000-00-00 24:00:00'", "18446744073709551615", "-9223372036854775808"])
def test_temporal_casts_of_hostile_values_answer(sql_conn, value):
    for target, code in [("TIME", 11), ("TIME(6)", 11), ("DATE", 10), ("DATETIME(6)", 12)]:
        for tail in ["", " FROM (SELECT 1) x"]:
            # A value or NULL of the target's type, never an error (nor 1105 from a panic).
            with sql_conn.cursor() as cur:
                cur.execute(f"SELECT CAST({value} AS {target}), TIME({value}), DATE({value})" + tail)
                assert len(cur.fetchall()) == 1
                assert [d[1] for d in cur.description] == [code, 11, 10], (target, tail)


def test_sjis_client_cannot_smuggle_a_quote_through_a_multibyte_character(sql_server, sql_conn, uniq):
    # 0x95 0x5C is one sjis character whose second byte is a backslash: the
    # classic way to make an escaped quote live. Turnstile reads text as
    # UTF-8 and refuses a sjis client's non-ASCII bytes (1235).
    conn = clients.root(sql_server)
    try:
        clients.query(conn, "SET NAMES sjis")
        conn.query(b"SELECT '\x95\\' OR 1=1 -- '")
        pytest.fail("accepted")
    except pymysql.err.MySQLError as e:
        assert e.args[0] == 1235
    finally:
        conn.close()
    assert clients.query(sql_conn, "SELECT 1") == ((1,),)
