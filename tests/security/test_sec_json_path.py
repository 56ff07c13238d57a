"""Hostile documents and paths for the JSON functions that read MariaDB's
paths (functions/json_path.rs: JSON_EXTRACT, JSON_VALUE, JSON_QUERY,
JSON_EXISTS, JSON_CONTAINS_PATH): nesting far past the 32 levels MariaDB
reads, paths of thousands of steps, `**` repeated, positions past any
integer, bytes that are not UTF-8, and a wildcard over a large document.
Each answers a value or NULL with MariaDB's warning, never a panic, a deep
recursion or a lost connection. MariaDB 10.11's answers to the same,
checked side by side, are in each case's comment.
"""

from __future__ import annotations

import pytest

from helpers import clients

DEEP = "CONCAT(REPEAT('[', 100000), REPEAT(']', 100000))"

# (expression, what Turnstile answers as text or None, its warning codes)
CASES = [
    # MariaDB: NULL with 4040 (depth 32).
    (f"JSON_EXTRACT({DEEP}, '$')", None, [4040]),
    (f"JSON_CONTAINS_PATH({DEEP}, 'one', '$')", None, [4040]),
    # MariaDB: NULL, and nothing said (JSON_VALUE and JSON_EXISTS read no further than they need).
    (f"JSON_VALUE({DEEP}, '$[0]')", None, []),
    # MariaDB: 1 (it finds `$` before it reads past the limit); Turnstile reads the whole document first.
    (f"JSON_EXISTS({DEEP}, '$')", None, []),
    # MariaDB: NULL with 4043 (path depth 32; JSON_EXISTS says nothing).
    ("JSON_EXTRACT('[1]', CONCAT('$', REPEAT('**[0]', 10000)))", None, [4043]),
    ("JSON_QUERY('{\"k\":1}', CONCAT('$', REPEAT('.k', 100000)))", None, [4043]),
    ("JSON_EXISTS('[1]', CONCAT('$', REPEAT('[0]', 100000)))", None, []),
    # MariaDB: the same length (every value of a 200,001-element array, each written once per `**` level).
    ("LENGTH(JSON_EXTRACT(CONCAT(REPEAT('[', 30), REPEAT('1,', 200000), '1', REPEAT(']', 30)), '$**[*]'))", "18000960", []),
    ("JSON_EXISTS(CONCAT(REPEAT('[', 31), REPEAT('1,', 100000), '1', REPEAT(']', 31)), CONCAT('$', REPEAT('**[0]', 15)))", "1", []),
    # MariaDB: NULL (no such position), nothing said.
    ("JSON_EXTRACT('[1]', '$[99999999999999999999999]')", None, []),
    ("JSON_EXTRACT('[1,2]', '$[last-99999999999999999999999 to last]')", None, []),
    # Bytes that are not UTF-8: MariaDB the same.
    ("JSON_VALUE(CONCAT('[\"', 0xFFC3, '\"]'), '$[0]') = CONCAT(0xFFC3)", "1", []),
    ("JSON_EXTRACT(0xFF, '$')", None, [4038]),
    ("JSON_EXTRACT('\"\\\\', '$')", None, [4037]),
]


@pytest.fixture(scope="module")
def conn(sql_server):
    c = clients.root(sql_server)
    yield c
    c.close()


@pytest.mark.parametrize("expr,expected,warnings", CASES, ids=[c[0][:60] for c in CASES])
def test_hostile_json(conn, expr, expected, warnings):
    v = clients.query(conn, f"SELECT {expr}")[0][0]
    got = None if v is None else v.decode("latin1") if isinstance(v, bytes) else str(v)
    assert got == expected
    codes = [int(w[1]) for w in clients.query(conn, "SHOW WARNINGS")] if conn._result.warning_count else []
    assert codes == warnings
    assert clients.scalar(conn, "SELECT 1") == 1
