"""A string that is no clean number read by arithmetic (`'a' + 0`, `-''`,
`x DIV '2x'`) raises MariaDB's Warning 1292 "Truncated incorrect DOUBLE
value" (DECIMAL for DIV; a Note when only blanks follow), once per row,
whether the front evaluates the statement or the engine does. Expected
values read from MariaDB 10.11.
"""

from __future__ import annotations

import pytest

from helpers import clients


@pytest.fixture
def db(sql_server, uniq):
    name = uniq("strnum")
    root = clients.root(sql_server)
    clients.query(root, f"CREATE DATABASE {name}")
    clients.query(root, f"USE {name}")
    clients.query(root, "CREATE TABLE t (a INT)")
    clients.query(root, "INSERT INTO t VALUES (1),(2),(3)")
    yield root
    clients.query(root, f"DROP DATABASE {name}")
    root.close()


def _warnings(conn, sql):
    rows = clients.query(conn, sql)
    return rows, clients.query(conn, "SHOW WARNINGS")


def test_without_table(db):
    rows, w = _warnings(db, "SELECT 'a' + 0, -'', '12abc' * 1, '1 ' + 0, '1.5' + 1, 'x' DIV 2")
    assert [float(v) for v in rows[0]] == [0, 0, 12, 1, 2.5, 0]
    assert w == (
        ("Warning", 1292, "Truncated incorrect DOUBLE value: 'a'"),
        ("Warning", 1292, "Truncated incorrect DOUBLE value: ''"),
        ("Warning", 1292, "Truncated incorrect DOUBLE value: '12abc'"),
        ("Note", 1292, "Truncated incorrect DOUBLE value: '1 '"),
        ("Warning", 1292, "Truncated incorrect DECIMAL value: 'x'"),
    )


def test_engine_fallback_warns_once(db):
    # SHA1 is not the front's: the engine evaluates it all again.
    _, w = _warnings(db, "SELECT -'x' + LENGTH(SHA1(1))")
    assert w == (("Warning", 1292, "Truncated incorrect DOUBLE value: 'x'"),)


def test_once_per_row(db):
    rows, w = _warnings(db, "SELECT a - 'b' FROM t ORDER BY a")
    assert [int(r[0]) for r in rows] == [1, 2, 3]
    assert w == (("Warning", 1292, "Truncated incorrect DOUBLE value: 'b'"),) * 3


def test_clean_numbers_and_comparisons_raise_nothing(db):
    _, w = _warnings(db, "SELECT a + '1', a = 'x', '2001-01-01' + INTERVAL 1 DAY FROM t WHERE a = 1")
    assert w == ()
