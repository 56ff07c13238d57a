"""Hostile bytes never reach a panic (issue #20, item 8).

`INSERT INTO t VALUES ('\\xff', 'a')` with an AUTO_INCREMENT key panicked in
the SQLite engine's `ts_ai` (rusqlite's Value::from of text that is not
UTF-8): the client got ERR 1105 "unwinding panic" and the log a backtrace of
about 6 KB, every time. Now such a value is ERR 1366, as in MariaDB, and
every SQL function the engine registers (names read from its source) called
with bytes that are not UTF-8, a cut UTF-8 sequence, extreme numbers and
missing arguments answers a value or a MySQL error: never ERR 1105, never a
line in the log. (The panic hook that keeps any other panic to one line a
minute per place is unit-tested in crates/server/src/panics.rs.)
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pymysql
import pytest

from helpers import clients, rawproto
from helpers import stmtproto as sp

REPO = Path(__file__).resolve().parents[2]
FUNCTION_SOURCES = [
    "crates/sqlite/src/functions.rs",
    "crates/sqlite/src/functions/ext.rs",
    "crates/sqlite/src/functions/bytes.rs",
    "crates/sqlite/src/functions/dates.rs",
    "crates/sqlite/src/functions/json_doc.rs",
    "crates/sqlite/src/functions/json_path.rs",
    "crates/sqlite/src/functions/warned.rs",
    "crates/sqlite/src/functions/format.rs",
    "crates/sqlite/src/functions/json_pretty.rs",
]


def log_size(server) -> int:
    return os.path.getsize(server.log_path)


def log_text(server) -> str:
    with open(server.log_path, "rb") as f:
        return f.read().decode("utf-8", "replace")


@pytest.fixture
def db(sql_server, uniq):
    name = uniq("sp")
    conn = clients.root(sql_server)
    clients.query(conn, f"CREATE DATABASE {name}")
    conn.close()
    return name


def raw_err(conn, sql: bytes):
    """The error code of `sql` sent as raw bytes, or None if it succeeded."""
    try:
        conn.query(sql)
        return None
    except pymysql.err.MySQLError as e:
        return e.args[0]


def test_bytes_that_are_not_utf8_into_integer_columns_are_1366(sql_server, db):
    conn = clients.root(sql_server, database=db)
    try:
        clients.query(conn, "CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10))")
        clients.query(conn, "CREATE TABLE pk (id INT PRIMARY KEY, v VARCHAR(10))")
        clients.query(conn, "CREATE TABLE n (id INT PRIMARY KEY, i INT, b BIGINT UNSIGNED, d DATE)")
        before = log_size(sql_server)
        for _ in range(50):
            assert raw_err(conn, b"INSERT INTO ai VALUES ('\xff', 'a')") == 1366
            assert raw_err(conn, b"INSERT INTO ai (id, v) VALUES ('\xc3', 'a') ON DUPLICATE KEY UPDATE v = '\xfe'") == 1366
            assert raw_err(conn, b"INSERT INTO pk VALUES ('\xff\xfe', 'a')") == 1366
            assert raw_err(conn, b"INSERT INTO n (id, i) VALUES (1, '\xff')") == 1366
            assert raw_err(conn, b"INSERT INTO n (id, b) VALUES (1, _binary'\x80')") == 1366
            assert raw_err(conn, b"INSERT INTO n (id, d) VALUES (1, '\xff')") == 1292
            assert raw_err(conn, b"UPDATE ai SET id = '\xff'") is None  # no rows: nothing to refuse
        # the same through the binary protocol
        c = sp.connect(sql_server.port, "root", clients.ROOT_PASSWORD, db)
        try:
            st = c.prepare("INSERT INTO ai VALUES (?, 'a')")
            with pytest.raises(rawproto.ServerError) as e:
                c.execute(st, [(sp.T_STRING, b"\xff")])
            assert e.value.code == 1366 and "'id'" in e.value.message
        finally:
            c.close_connection()
        msg = None
        try:
            conn.query(b"INSERT INTO ai VALUES ('\xff', 'a')")
        except pymysql.err.MySQLError as e:
            msg = e.args[1]
        assert msg == "Incorrect integer value for column 'id' at row 1"
        assert clients.query(conn, "SELECT COUNT(*) FROM ai") == ((0,),)
        # nothing about it in the log (it held a ~6 KB backtrace per statement)
        assert log_size(sql_server) - before < 1024, log_text(sql_server)[-3000:]
        assert "panic" not in log_text(sql_server)
    finally:
        conn.close()


def registered_functions():
    """(name, argument count; -1 variadic) of every function the engine registers."""
    found = set()
    for src in FUNCTION_SOURCES:
        text = (REPO / src).read_text()
        for m in re.finditer(r'(?:reg|reg_bytes|reg_warned)\((?:db, )?(?:\w+, )?"(\w+)", (-?\d+)', text):
            found.add((m.group(1), int(m.group(2))))
        for m in re.finditer(r'create_scalar_function\("(\w+)", (-?\d+)', text):
            found.add((m.group(1), int(m.group(2))))
        # functions registered in a loop: for (name, ..) in [("floor", ..), ..] { ... name, 1, ...
        for m in re.finditer(r'for \(name, [^)]*\) in \[(.*?)\] \{', text, re.S):
            for n in re.findall(r'\("(\w+)"', m.group(1)):
                found.add((n, -1))
    return sorted(found)


HOSTILE = [b"'\xff'", b"'\xc3'", b"_binary'\xfe\x00'", b"''", b"NULL", b"-1", b"9223372036854775807", b"-9223372036854775808", b"1e308", b"'%M%b%W'", b"'$.a'", b"'9999999999-99-99'"]


def test_sql_functions_never_panic_on_hostile_bytes(sql_server, db):
    funcs = registered_functions()
    assert len(funcs) > 140, len(funcs)
    c = sp.connect(sql_server.port, "root", clients.ROOT_PASSWORD, db)
    before = log_size(sql_server)
    internal = []
    calls = 0
    try:
        c.query("CREATE TABLE one (k INT)")
        c.query("INSERT INTO one VALUES (1)")
        for name, n in funcs:
            counts = range(0, 4) if n < 0 else [n]
            for k in counts:
                for h in HOSTILE:
                    sql = b"SELECT " + name.encode() + b"(" + b", ".join([h] * k) + b") FROM one"
                    calls += 1
                    try:
                        c.query(sql)
                    except rawproto.ServerError as e:
                        if e.code == 1105:
                            internal.append((sql, e.message))
    finally:
        c.close_connection()
    assert calls > 2000
    assert not internal, internal[:10]
    assert clients.query(clients.root(sql_server), "SELECT 1") == ((1,),)
    assert "panic" not in log_text(sql_server)
    assert log_size(sql_server) - before < 1024


@pytest.mark.parametrize("sql", [
    "SELECT BINARY + INTERVAL 1 DAY",
    "SELECT SQL_NO_CACHE + INTERVAL 1 DAY",
    "SELECT DISTINCT + INTERVAL 1 DAY",
])
def test_interval_arithmetic_on_a_missing_operand_is_a_syntax_error(sql_server, sql):
    """The word before `+` writes nothing in the rewrite; the interval rewrite
    then cut the text at a position past its end and panicked (ERR 1105, the
    transaction rolled back). MariaDB: 1064, as here now."""
    before = log_size(sql_server)
    conn = clients.root(sql_server)
    with pytest.raises(pymysql.err.ProgrammingError) as e:
        clients.query(conn, sql)
    assert e.value.args[0] == 1064, e.value.args
    assert clients.query(conn, "SELECT '2020-01-01' + INTERVAL 1 DAY") == (("2020-01-02",),)
    conn.close()
    assert "panic" not in log_text(sql_server)[before:]
