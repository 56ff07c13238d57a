"""sql_mode under attack (issue #22): NO_BACKSLASH_ESCAPES and string
literals, hostile sql_mode values, hostile values into lenient writes.

NO_BACKSLASH_ESCAPES changes where a string ends: `'a\\'` is a whole string
under it. A client that escapes quotes with backslashes while the mode is
on can be broken out of (on MariaDB as here); a client that follows the
server's SERVER_STATUS_NO_BACKSLASH_ESCAPES flag (0x200 in every OK and EOF
packet while the mode is on; libmysqlclient's mysql_real_escape_string)
doubles quotes instead and cannot. What must hold: the flag is there exactly
while the mode is on; every byte value round-trips through a client that
escapes by it, in both modes; and every reader of the text (statement
splitting, `?` counting, the front's classifiers, the engine) ends a string
where MariaDB does, so no text is read as SQL that MariaDB would read as a
string. Expected values are MariaDB 10.11's, checked side by side.

Hostile values: sql_mode of a megabyte, of NUL bytes, of numbers past its
bits; exponents of a billion digits, megabyte strings and bytes that are not
UTF-8 into every kind of column under a lenient mode: MariaDB's error or
warning, no panic, and the server keeps serving.
"""

from __future__ import annotations

import pymysql
import pytest
from pymysql.constants import CLIENT

from helpers import clients, rawproto
from helpers import stmtproto as sp
from helpers.clients import query, scalar

NO_BACKSLASH_ESCAPES = 0x0200


@pytest.fixture
def db(sql_conn, uniq):
    name = uniq("sm")
    query(sql_conn, f"CREATE DATABASE {name}")
    yield name
    query(sql_conn, f"DROP DATABASE IF EXISTS {name}")


def raw(server, db):
    c = rawproto.RawConnection.tcp(server.port)
    c.handshake("root", clients.ROOT_PASSWORD, db=db, extra_caps=rawproto.CLIENT_MULTI_STATEMENTS)
    return c


def escape_by_flag(value: bytes, no_backslash_escapes: bool) -> bytes:
    """mysql_real_escape_string: quotes doubled when the server says
    NO_BACKSLASH_ESCAPES, backslash escapes otherwise."""
    if no_backslash_escapes:
        return value.replace(b"'", b"''")
    table = {0: b"\\0", 10: b"\\n", 13: b"\\r", 26: b"\\Z", 39: b"\\'", 34: b'\\"', 92: b"\\\\"}
    return b"".join(table.get(c, bytes([c])) for c in value)


def test_status_flag_follows_the_mode(sql_server, db):
    c = raw(sql_server, db)
    assert not c.query("SELECT 1").status & NO_BACKSLASH_ESCAPES
    ok = c.query("SET sql_mode = 'NO_BACKSLASH_ESCAPES'")
    assert ok.status & NO_BACKSLASH_ESCAPES
    assert c.query("SELECT 'a\\'").status & NO_BACKSLASH_ESCAPES
    assert c.query("SELECT 'a\\'").rows == [("a\\",)]
    assert c.query("DO 1").status & NO_BACKSLASH_ESCAPES
    assert not c.query("SET sql_mode = 'STRICT_TRANS_TABLES'").status & NO_BACKSLASH_ESCAPES
    # the multi-statement text that turns it on: its later results carry it
    results = c.query_all("SELECT 1; SET sql_mode = 'NO_BACKSLASH_ESCAPES'; SELECT 'x\\'")
    assert [bool(r.status & NO_BACKSLASH_ESCAPES) for r in results] == [False, True, True]
    assert results[2].rows == [("x\\",)]
    # COM_RESET_CONNECTION forgets the session's mode
    assert not c.reset_connection().status & NO_BACKSLASH_ESCAPES
    assert c.query("SELECT 'y\\''").rows == [("y'",)]
    c.close()


def test_every_byte_round_trips_through_a_client_that_follows_the_flag(sql_server, db):
    c = raw(sql_server, db)
    c.query("CREATE TABLE v (id INT PRIMARY KEY, b VARBINARY(600))")
    values = [bytes([b]) for b in range(256)] + [bytes(range(256)), b"\\'; DROP TABLE v; -- ", b"'\\''\\\\'", b"\\"]
    for mode in ("NO_BACKSLASH_ESCAPES", "STRICT_TRANS_TABLES"):
        status = c.query(f"SET sql_mode = '{mode}'").status
        nbe = bool(status & NO_BACKSLASH_ESCAPES)
        assert nbe == (mode == "NO_BACKSLASH_ESCAPES")
        c.query("DELETE FROM v")
        for i, v in enumerate(values):
            c.query(b"INSERT INTO v VALUES (%d, _binary'" % i + escape_by_flag(v, nbe) + b"')")
        rows = c.query("SELECT id, HEX(b) FROM v ORDER BY id").rows
        assert [bytes.fromhex(h) for _, h in rows] == values, mode
    c.close()


def test_a_backslash_escaping_client_breaks_out_only_where_mariadb_does(sql_server, db):
    """Under NO_BACKSLASH_ESCAPES, `'x\\'` is the string `x\\`; what follows
    is SQL, as in MariaDB. Without multi-statements the rest is a syntax
    error there and here; with them MariaDB runs it, and so does Turnstile.
    Every reader agrees on where the string ends."""
    c = raw(sql_server, db)
    c.query("CREATE TABLE t (id INT, s VARCHAR(40))")
    c.query("INSERT INTO t VALUES (1, 'keep')")
    c.query("SET sql_mode = 'NO_BACKSLASH_ESCAPES'")
    hostile = b"x\\'; DELETE FROM t; -- "  # escaped for a server that reads backslashes
    plain = rawproto.RawConnection.tcp(sql_server.port)
    plain.handshake("root", clients.ROOT_PASSWORD, db=db)
    plain.query("SET sql_mode = 'NO_BACKSLASH_ESCAPES'")
    with pytest.raises(rawproto.ServerError) as e:
        plain.query(b"INSERT INTO t VALUES (2, '" + hostile + b"')")
    assert e.value.code == 1064
    assert plain.query("SELECT COUNT(*) FROM t").rows == [("1",)]
    # a table-reading SELECT whose FROM follows such a string is routed to the engine
    assert plain.query("SELECT 'a\\' AS x, s FROM t").rows == [("a\\", "keep")]
    plain.close()
    c.close()


def test_prepared_statements_count_placeholders_by_the_mode(sql_server, db):
    """COM_STMT_PREPARE counts `?` outside strings: after `'a\\'` under
    NO_BACKSLASH_ESCAPES one placeholder (MariaDB: 1); by default the same
    text is an unterminated string (MariaDB: 1064)."""
    c = sp.connect(sql_server.port, "root", clients.ROOT_PASSWORD, db=db)
    c.query("SET sql_mode = 'NO_BACKSLASH_ESCAPES'")
    stmt = c.prepare("SELECT 'a\\', ?")
    assert stmt.nparams == 1
    rows = c.execute(stmt, [(sp.MYSQL_TYPE_LONGLONG, 7)]) if hasattr(sp, "MYSQL_TYPE_LONGLONG") else c.execute(stmt, [(8, 7)])
    assert rows.rows == [(b"a\\", 7)]
    c.query("SET sql_mode = DEFAULT")
    with pytest.raises(rawproto.ServerError) as e:
        c.prepare("SELECT 'a\\', ?")
    assert e.value.code == 1064
    c.close_connection()


def test_hostile_sql_mode_values(sql_conn):
    bad = "Variable 'sql_mode' can't be set to the value of '{}'"
    long_ok = ",".join(["STRICT_TRANS_TABLES", "NO_BACKSLASH_ESCAPES"] * 40000)
    query(sql_conn, f"SET sql_mode = '{long_ok}'")
    assert scalar(sql_conn, "SELECT @@sql_mode") == "NO_BACKSLASH_ESCAPES,STRICT_TRANS_TABLES"
    query(sql_conn, "SET sql_mode = DEFAULT")
    junk = "x" * (1 << 20)
    with pytest.raises(pymysql.MySQLError) as e:
        query(sql_conn, f"SET sql_mode = '{junk}'")
    assert e.value.args[0] == 1231
    for value, message in [("'STRICT_TRANS_TABLES\\0'", bad.format("STRICT_TRANS_TABLES\0")), ("18446744073709551615", bad.format("18446744073709551615")),
                           ("-9223372036854775808", bad.format("-9223372036854775808")), ("'-0'", bad.format("-0"))]:
        with pytest.raises(pymysql.MySQLError) as e:
            query(sql_conn, f"SET sql_mode = {value}")
        assert e.value.args[0] == 1231, value
        assert e.value.args[1] == message, value
    assert scalar(sql_conn, "SELECT @@sql_mode") == "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"


def test_hostile_values_into_lenient_writes(sql_server, db):
    conn = clients.root(sql_server, database=db)
    query(conn, "CREATE TABLE h (i INT, d DECIMAL(65,30), f DOUBLE, dt DATE, tm TIME, y YEAR, b BIT(5), c CHAR(3), t TINYTEXT, vb VARBINARY(4), m SET('a','b'))")
    query(conn, "SET sql_mode = ''")
    W = lambda code, col, level="Warning": (level, code, {1264: f"Out of range value for column '{col}' at row 1", 1265: f"Data truncated for column '{col}' at row 1"}[code])
    cases = [
        ("i", "'1e999999999999999999'", [W(1264, "i")]),
        ("i", "'-1e-999999999999999999'", [W(1265, "i")]),
        ("d", "'1e999999999999999999'", [W(1264, "d")]),
        ("d", "'-1e-999999999999999999'", [W(1265, "d", "Note")]),
        ("f", "'1e999999999999999999'", [W(1264, "f")]),
        ("dt", "'1e999999999999999999'", [W(1265, "dt")]),
        ("y", "'1e999999999999999999'", [W(1264, "y")]),
        ("c", "_binary X'FFFEFD41'", [W(1265, "c")]),
        ("c", "REPEAT('é', 100000)", [W(1265, "c")]),
        ("t", "REPEAT('x', 300)", [W(1265, "t")]),
        ("vb", "0x0001020304", [W(1265, "vb")]),
        ("d", "REPEAT('9', 70)", [W(1264, "d")]),
        ("i", "REPEAT('9', 100000)", [W(1264, "i")]),
        ("tm", "REPEAT('9', 100000)", None),
        ("m", "REPEAT('a,', 100000)", None),
    ]
    for col, value, expected in cases:
        query(conn, f"INSERT INTO h ({col}) VALUES ({value})")
        got = [tuple(r) for r in query(conn, "SHOW WARNINGS")]
        if expected is not None:
            assert got == expected, (col, value)
    assert scalar(conn, "SELECT COUNT(*) FROM h") == len(cases)
    assert query(conn, "SELECT i FROM h WHERE i IS NOT NULL") == ((2147483647,), (0,), (2147483647,))
    assert query(conn, "SELECT HEX(c) FROM h WHERE c IS NOT NULL") == (("FFFEFD",), ("C3A9C3A9C3A9",))
    assert query(conn, "SELECT LENGTH(t), HEX(vb) FROM h WHERE t IS NOT NULL OR vb IS NOT NULL") == ((255, None), (None, "00010203"))
    assert query(conn, "SELECT y, dt FROM h WHERE y IS NOT NULL OR dt IS NOT NULL") == ((None, "0000-00-00"), (0, None))
    # the server serves the next statement, and another session
    other = clients.root(sql_server)
    assert scalar(other, "SELECT 1") == 1
    other.close()
    conn.close()


def test_insert_ignore_needs_insert_only(sql_server, sql_conn, db, uniq):
    """INSERT IGNORE skips a duplicate and a row without its parent with an
    account that holds INSERT alone, as MariaDB's does: the skipping (an
    upsert that never updates, a test of the parent) asks for nothing more.
    Reading the parent in the statement itself still needs SELECT."""
    user = uniq("ins")
    query(sql_conn, f"CREATE TABLE {db}.p (id INT PRIMARY KEY)")
    query(sql_conn, f"CREATE TABLE {db}.t (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES {db}.p (id))")
    query(sql_conn, f"INSERT INTO {db}.p VALUES (1)")
    query(sql_conn, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    query(sql_conn, f"GRANT INSERT ON {db}.* TO '{user}'@'%'")
    try:
        conn = clients.connect(sql_server, user=user, password="pw", database=db)
        with conn.cursor() as cur:
            cur.execute("INSERT IGNORE INTO t VALUES (1, 1), (1, 1), (2, 9)")
            assert cur._result.warning_count == 2
        assert [r[1] for r in query(conn, "SHOW WARNINGS")] == [1062, 1452]
        with pytest.raises(pymysql.MySQLError) as e:
            query(conn, "INSERT IGNORE INTO t SELECT id + 10, id FROM p")
        assert e.value.args[0] == 1142
        with pytest.raises(pymysql.MySQLError) as e:
            query(conn, "INSERT INTO t VALUES (1, 1) ON DUPLICATE KEY UPDATE pid = 1")
        assert e.value.args[0] == 1142
        conn.close()
    finally:
        query(sql_conn, f"DROP USER '{user}'@'%'")
    assert query(sql_conn, f"SELECT id, pid FROM {db}.t") == ((1, 1),)
