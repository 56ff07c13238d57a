"""Hostile arguments to the MariaDB functions added for MariaDB's test files
(functions/mariadb.rs): huge counts and lengths, JSON nested far past any
limit, bytes that are not UTF-8, extreme integers. Each answers a value or
MySQL's error, never a panic, a SQLite message or a lost connection, and
the server goes on serving. MariaDB 10.11's answers to the same, checked
side by side, are in each case's comment.
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients

DEEP = "CONCAT(REPEAT('[', 100000), REPEAT(']', 100000))"

# (expression, what Turnstile answers: a value as text, None, or an error code)
CASES = [
    # MariaDB: NULL with warning 1301 (max_allowed_packet).
    ("EXPORT_SET(1, REPEAT('a', 20000000), 'b', ',', 64)", None),
    ("EXPORT_SET(-1, 'x', 'y', REPEAT(',', 1000), 9223372036854775807) IS NULL", "0"),
    # MariaDB: NULL (and NULL) with warnings.
    ("RANDOM_BYTES(1e18)", None),
    ("RANDOM_BYTES(-9223372036854775808)", None),
    ("LENGTH(RANDOM_BYTES(18446744073709551615))", None),
    # MariaDB: NULL or 0 with warning 4040 (depth limit 32); Turnstile: 3141 past serde_json's 128 levels.
    (f"JSON_OVERLAPS({DEEP}, '1')", 3141),
    (f"JSON_MERGE({DEEP}, '1')", 3141),
    (f"JSON_ARRAY_APPEND({DEEP}, '$', 1)", 3141),
    (f"JSON_COMPACT({DEEP})", 3141),
    (f"JSON_SEARCH({DEEP}, 'all', '%')", 3141),
    # A LIKE pattern past SQLite's 50,000 bytes: 1235, as LIKE in a query (MariaDB: "$[0]"; deep: NULL).
    ("JSON_SEARCH('[\"a\"]', 'one', REPEAT('%', 50001))", 1235),
    ("JSON_SEARCH(CONCAT('[\"', REPEAT('a', 1000000), '\"]'), 'one', REPEAT('%a', 20))", '"$[0]"'),
    (f"JSON_VALUE({DEEP}, '$')", None),
    (f"JSON_EXISTS({DEEP}, '$')", None),
    # Paths: MariaDB NULL with warning 4042; Turnstile 3143 where a document is edited.
    ("JSON_ARRAY_APPEND('[1]', '$[', 1)", 3143),
    # MariaDB: NULL (a path deeper than 32); Turnstile: the document unchanged, as for any path to nowhere.
    ("JSON_ARRAY_INSERT('[1]', CONCAT('$', REPEAT('[0]', 100000)), 1)", "[1]"),
    ("JSON_VALUE('[1]', CONCAT('$', REPEAT('.a', 100000)))", None),
    # Bytes that are not UTF-8 (MariaDB: the same values).
    ("HEX(CRC32C(0xFF80))", "D0746829"),
    ("JSON_VALUE(0xFF, '$')", None),
    ("EXPORT_SET(3, 0xFF, 0x80, 0xC3, 2) = 0xFFC3FF", "1"),
    ("HEX(CHR(18446744073709551615))", "FFFFFFFF"),
    ("CRC32C(-1, 'a')", "1817374622"),
    ("HEX(CHR(-9223372036854775808))", "00"),
    # ENCODE/DECODE over 10 MB with a 100 KB key of non-UTF-8 bytes (MariaDB: the same).
    ("LENGTH(ENCODE(REPEAT('a', 10000000), REPEAT(0xFF, 100000)))", "10000000"),
    ("DECODE(ENCODE(REPEAT('ab', 100000), 0xC3), 0xC3) = REPEAT('ab', 100000)", "1"),
]


@pytest.fixture(scope="module")
def conn(sql_server):
    c = clients.root(sql_server)
    clients.query(c, "SET SESSION max_allowed_packet = 16777216")
    yield c
    c.close()


def answer(conn, expr):
    try:
        rows = clients.query(conn, f"SELECT {expr}")
    except pymysql.MySQLError as e:
        return e.args[0]
    v = rows[0][0]
    return None if v is None else (v.decode("latin1") if isinstance(v, bytes) else str(v))


@pytest.mark.parametrize("expr,expected", CASES, ids=[c[0][:50] for c in CASES])
def test_hostile_argument_answers(conn, expr, expected):
    assert answer(conn, expr) == expected
    # The session goes on.
    assert clients.query(conn, "SELECT 1") == ((1,),)
