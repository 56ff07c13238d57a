"""Hostile arguments to the string functions made to answer as MariaDB's
(tests/test_sql_func_mtr.py): LPAD/RPAD/REPEAT/SPACE asked for results far
past max_allowed_packet (NULL with Warning 1301, never built first),
FROM_BASE64 of large and broken text, integer literals far beyond BIGINT
where an integer is read (Warning 1916), SOUNDEX of bytes that are not
UTF-8, CHAR of extreme integers, AES of large data and broken ciphertext, and the rewriter's own `ts_int_arg` named
by a client (1305). Each answers a value or MySQL's error, never a panic or
a lost connection. MariaDB 10.11's answers to the same, checked side by
side, are in each case's comment.
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients

HUGE = "9" * 60

# (expression, what Turnstile answers: a value as text, None, or an error code; its warning codes)
CASES = [
    # MariaDB: NULL with 1301 (its limit is the session's max_allowed_packet).
    ("RPAD('a', 9223372036854775807, 'b')", None, [1301]),
    ("LPAD('a', 40000000, 'é')", None, [1301]),
    ("REPEAT('ab', 9223372036854775807)", None, [1301]),
    ("SPACE(9223372036854775807)", None, [1301]),
    # MariaDB: the same values, no warning.
    ("LENGTH(RPAD(0xFF, 1000, 0xC3))", "1000", []),
    ("LPAD(REPEAT('x', 1000000), 3, 'y')", "xxx", []),
    ("LENGTH(FROM_BASE64(REPEAT('QUJD', 1000000)))", "3000000", []),
    # MariaDB: NULL with 1958 at the same positions.
    ("FROM_BASE64(CONCAT(REPEAT('QUJD', 1000000), '='))", None, [1958]),
    ("HEX(FROM_BASE64(0xFF))", None, [1958]),
    # MariaDB: clipped, with 1916 twice (LEFT reads it twice), and once for LOCATE.
    (f"LEFT('a', -{HUGE})", "", [1916, 1916]),
    (f"LOCATE('a', 'a', {HUGE})", "0", [1916]),
    # MariaDB: the same values.
    ("SOUNDEX(0xFFC3A9)", "", []),
    ("LENGTH(SOUNDEX(REPEAT('ab', 1000000)))", "4", []),
    ("HEX(CHAR(9223372036854775807, -9223372036854775808, 18446744073709551615))", "FFFFFFFF00FFFFFFFF", []),
    # AES over 10 MB, a 100 KB key of non-UTF-8 bytes, ciphertext cut short (MariaDB: the same).
    ("LENGTH(AES_ENCRYPT(REPEAT('a', 10000000), REPEAT(0xFF, 100000)))", "10000016", []),
    ("AES_DECRYPT(AES_ENCRYPT(REPEAT('ab', 100000), 0xC3), 0xC3) = REPEAT('ab', 100000)", "1", []),
    ("AES_DECRYPT(CONCAT(AES_ENCRYPT('abc', 'k'), 'x'), 'k')", None, []),
    ("AES_DECRYPT(REPEAT(0x00, 32), 'k')", None, []),
    # MariaDB: 1305, the function does not exist.
    ("ts_int_arg('1', 100000)", 1305, []),
]


@pytest.fixture(scope="module")
def conn(sql_server):
    c = clients.root(sql_server)
    clients.query(c, "CREATE DATABASE sfmtr")
    clients.query(c, "USE sfmtr")
    yield c
    c.close()


@pytest.mark.parametrize("expr,expected,warnings", CASES, ids=[c[0][:60] for c in CASES])
def test_hostile_argument(conn, expr, expected, warnings):
    try:
        rows = clients.query(conn, f"SELECT {expr}")
    except pymysql.MySQLError as e:
        assert e.args[0] == expected
        return
    v = rows[0][0]
    got = None if v is None else v.decode("latin1") if isinstance(v, bytes) else str(v)
    assert got == expected
    codes = [int(w[1]) for w in clients.query(conn, "SHOW WARNINGS")] if conn._result.warning_count else []
    assert codes == warnings
    assert clients.scalar(conn, "SELECT 1") == 1


def test_sounds_like_with_odd_operands(conn):
    """SOUNDS LIKE needs an operand on each side: 1064 otherwise (MariaDB: 1064)."""
    for sql in ["SELECT 'a' SOUNDS LIKE", "SELECT ('a' SOUNDS LIKE) FROM DUAL"]:
        with pytest.raises(pymysql.MySQLError) as e:
            clients.query(conn, sql)
        assert e.value.args[0] == 1064
    assert clients.scalar(conn, "SELECT 1") == 1
