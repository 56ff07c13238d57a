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
    # MariaDB: NULL (JSON_OVERLAPS: 0) with warning 4040 (depth limit 32); Turnstile the same.
    (f"JSON_OVERLAPS({DEEP}, '1')", "0"),
    (f"JSON_MERGE({DEEP}, '1')", None),
    (f"JSON_ARRAY_APPEND({DEEP}, '$', 1)", None),
    (f"JSON_COMPACT({DEEP})", None),
    (f"JSON_SEARCH({DEEP}, 'all', '%')", None),
    (f"JSON_LENGTH({DEEP})", None),
    (f"JSON_KEYS({DEEP})", None),
    (f"JSON_CONTAINS('[1]', {DEEP})", None),
    # A LIKE pattern past SQLite's 50,000 bytes: 1235, as LIKE in a query (MariaDB: "$[0]"; deep: NULL).
    ("JSON_SEARCH('[\"a\"]', 'one', REPEAT('%', 50001))", 1235),
    ("JSON_SEARCH(CONCAT('[\"', REPEAT('a', 1000000), '\"]'), 'one', REPEAT('%a', 20))", '"$[0]"'),
    (f"JSON_VALUE({DEEP}, '$')", None),
    (f"JSON_EXISTS({DEEP}, '$')", None),
    # Paths: MariaDB NULL with warning 4042 (4043 past 31 steps); Turnstile the same.
    ("JSON_ARRAY_APPEND('[1]', '$[', 1)", None),
    ("JSON_ARRAY_INSERT('[1]', CONCAT('$', REPEAT('[0]', 100000)), 1)", None),
    ("JSON_SEARCH('[1]', 'all', '1', NULL, CONCAT('$', REPEAT('**[0]', 100000)))", None),
    ("JSON_SEARCH('[[[[1]]]]', 'all', '1', NULL, CONCAT('$', REPEAT('**', 15), '[0]'))", '"$[0][0][0][0]"'),
    ("JSON_SEARCH('[[[[1]]]]', 'all', '1', NULL, CONCAT('$', REPEAT('**[0]', 4)))", '"$[0][0][0][0]"'),
    ("JSON_LENGTH('[1]', '$[*]')", None),
    ("JSON_KEYS('{\"a\": {}}', '$.a[last-9223372036854775807]')", None),
    # Every byte value as a document and as a path: NULL with a warning, never an error.
    ("JSON_LENGTH(0x00010203FF80C3)", None),
    ("JSON_LENGTH('[1]', 0x24FF)", None),
    # COERCIBILITY, COLLATION and CHARSET of anything (the front derives them from the text; 100,000 levels are left to the value).
    (f"COERCIBILITY({DEEP})", "4"),
    (f"COERCIBILITY({'CONCAT(' * 100}'a'{')' * 100})", "2"),
    (f"COLLATION({'LOWER(' * 100}_latin2'a'{')' * 100})", "utf8mb4_general_ci"),
    (f"CHARSET({'LOWER(' * 30}_latin2'a'{')' * 30})", "latin2"),
    ("COERCIBILITY(0xFF80)", "4"),
    ("COLLATION(CONCAT(_latin1'a', _latin2'b'))", "utf8mb4_general_ci"),
    ("JSON_VALUE('[1]', CONCAT('$', REPEAT('.a', 100000)))", None),
    # Bytes that are not UTF-8 (MariaDB: the same values).
    ("HEX(CRC32C(0xFF80))", "D0746829"),
    ("JSON_VALUE(0xFF, '$')", None),
    ("EXPORT_SET(3, 0xFF, 0x80, 0xC3, 2) = 0xFFC3FF", "1"),
    ("HEX(CHR(18446744073709551615))", "FFFFFFFF"),
    ("CRC32C(-1, 'a')", "1817374622"),
    ("HEX(CHR(-9223372036854775808))", "00"),
    # JSON_DETAILED/PRETTY/LOOSE/NORMALIZE/EQUALS: NULL with warning 4040 past 32 levels, 4038 for bytes
    # that are no JSON; any indent; numbers' digits kept (MariaDB: the same).
    (f"JSON_DETAILED({DEEP})", None),
    (f"JSON_LOOSE({DEEP})", None),
    (f"JSON_NORMALIZE({DEEP})", None),
    (f"JSON_EQUALS({DEEP}, '1')", None),
    ("JSON_DETAILED(0x00FF)", None),
    ("HEX(JSON_NORMALIZE(0x5B22FF225D))", "5B22FF225D"),
    ("JSON_DETAILED('[1,[2]]', -9223372036854775808)", "[\n1,\n[2]\n]"),
    ("LENGTH(JSON_DETAILED('[1,[2]]', 9223372036854775807)) > 0", "1"),
    ("JSON_DETAILED('[1]', NULL)", None),
    ("JSON_NORMALIZE(CONCAT('[', REPEAT('1e999999999999999999999,', 1000), '0]')) IS NULL", "0"),
    ("JSON_NORMALIZE('-0.000e-5')", "0.0E0"),
    ("JSON_EQUALS(NULL, NULL)", None),
    ("LENGTH(JSON_LOOSE(CONCAT('[', REPEAT('1,', 1000000), '1]')))", str(3 * 1000000 + 3)),
    # FORMAT: every digit of a long number, 38 decimals at most, any locale argument (MariaDB: the same).
    ("LENGTH(FORMAT(REPEAT('9', 100000), 2))", "133336"),
    ("FORMAT(1, 9223372036854775807, 'de_DE')", "1," + "0" * 38),
    ("FORMAT(1234.5, -9223372036854775808, 'en_IN')", "1,235"),
    ("FORMAT(-1e308, 0) IS NULL", "0"),
    ("FORMAT(1234.5, 1, 0xFF80)", "1,234.5"),
    ("FORMAT(NULL, 2, 'de_DE')", None),
    ("FORMAT(1, NULL, 'de_DE')", None),
    ("HEX(FORMAT(1234567, 0, 'bg_BG'))", "310032333400353637"),
    # QUOTE escapes NUL, quote, backslash and ^Z and keeps other bytes (MariaDB: the same).
    ("HEX(QUOTE(0x00275C1AFF))", "275C305C275C5C5C5AFF27"),
    ("LENGTH(QUOTE(REPEAT(0x27, 1000000)))", "2000002"),
    ("QUOTE(NULL)", "NULL"),
    # BENCHMARK of a NULL or negative count is NULL; LOAD_FILE reads nothing.
    ("BENCHMARK(-9223372036854775808, 1)", None),
    ("BENCHMARK(NULL, 1)", None),
    ("LOAD_FILE('/etc/passwd')", None),
    ("LOAD_FILE(REPEAT(0xFF, 100000))", None),
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
