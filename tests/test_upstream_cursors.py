"""Cursors through the upstream engine: COM_STMT_EXECUTE with a cursor type
and COM_STMT_FETCH, relayed to MariaDB 10.11 and answered byte for byte as
MariaDB answers the same calls made to it directly (the packets of each
exchange are compared), for clients with and without DEPRECATE_EOF. The
backend connection that holds a cursor stays the session's until the
cursor is exhausted, reset or closed (tests/test_upstream_pinning.py);
MariaDB Connector/C reads cursors through it with several prefetch sizes
and interleaves two cursors with queries. Before, both commands were ERR
1235 through the upstream engine."""

from __future__ import annotations

import re
import struct
import time

import pytest

from helpers import clients, cursor_client, rawproto, stmtproto, upstream
from helpers.server import ROOT_PASSWORD

DB = "cur_up"


@pytest.fixture(scope="module")
def up(upstream_backend, turnstile_bin):
    srv = upstream.start_turnstile(upstream_backend, "--upstream-max-connections", "4")
    a = upstream_backend.admin()
    for sql in [
        f"CREATE DATABASE IF NOT EXISTS {DB}",
        f"CREATE OR REPLACE TABLE {DB}.c (a INT PRIMARY KEY, b VARCHAR(10))",
        f"INSERT INTO {DB}.c VALUES (1,'x'),(2,'y'),(3,'z')",
        f"CREATE OR REPLACE TABLE {DB}.bin (a INT PRIMARY KEY, v VARBINARY(300))",
        f"INSERT INTO {DB}.bin VALUES (1, 0x{bytes(range(256)).hex()}), (2, ''), (3, NULL)",
    ]:
        clients.query(a, sql)
    a.close()
    yield srv
    srv.stop()
    srv.cleanup()


def exchange(port: int, deprecate_eof: bool, sql: bytes, steps) -> list:
    """Prepare `sql`, then run `steps` (("exec", flags) | ("fetch", n) |
    ("reset",) | ("query", sql)); every packet of every answer, as bytes.
    Statement ids are Turnstile's own and MariaDB's: both 1 on a fresh
    connection, so messages that name them compare equal."""
    c = rawproto.RawConnection.tcp(port)
    c.handshake("root", ROOT_PASSWORD, db=DB, extra_caps=rawproto.CLIENT_DEPRECATE_EOF if deprecate_eof else 0)
    c.command(stmtproto.COM_STMT_PREPARE, sql)
    first = c.read_packet()
    stmt_id, ncols, nparams = struct.unpack_from("<IHH", first, 1)
    for _ in range(nparams + ncols + (0 if deprecate_eof else (nparams > 0) + (ncols > 0))):
        c.read_packet()
    seen = []
    for step in steps:
        if step[0] == "exec":
            c.command(stmtproto.COM_STMT_EXECUTE, struct.pack("<IBI", stmt_id, step[1], 1))
            seen.append(read_answer(c, deprecate_eof))
        elif step[0] == "fetch":
            c.command(stmtproto.COM_STMT_FETCH, struct.pack("<II", stmt_id, step[1]))
            seen.append(read_until_end(c))
        elif step[0] == "reset":
            c.command(stmtproto.COM_STMT_RESET, struct.pack("<I", stmt_id))
            seen.append([c.read_packet()])
        elif step[0] == "query":
            c.command(rawproto.COM_QUERY, step[1])
            seen.append(read_answer(c, deprecate_eof))
    c.close()
    return seen


def read_until_end(c) -> list:
    got = []
    while True:
        p = c.read_packet()
        got.append(p)
        if p[:1] == b"\xff" or (p[:1] == b"\xfe" and len(p) < 9):
            return got


def read_answer(c, deprecate_eof: bool) -> list:
    """An execute's answer: OK/ERR, or column count, definitions, the end of
    the definitions (an EOF, or under DEPRECATE_EOF nothing), rows, end. A
    cursor's answer ends after the definitions (status CURSOR_EXISTS)."""
    head = c.read_packet()
    if head[:1] in (b"\x00", b"\xff"):
        return [head]
    n = rawproto.Reader(head).lenenc_int()
    got = [head] + [c.read_packet() for _ in range(n)]
    if not deprecate_eof:
        eof = c.read_packet()
        got.append(eof)
        if struct.unpack_from("<H", eof, 3)[0] & stmtproto.SERVER_STATUS_CURSOR_EXISTS:
            return got
    return got + read_until_end(c)


SCENARIOS = {
    "fetch in steps past the end": (b"SELECT a, b FROM c ORDER BY a", [("exec", 1), ("fetch", 2), ("fetch", 2), ("fetch", 1), ("query", b"SELECT 1")]),
    "fetch zero, then all": (b"SELECT a FROM c ORDER BY a", [("exec", 1), ("fetch", 0), ("fetch", 3), ("fetch", 1)]),
    "an empty result": (b"SELECT a FROM c WHERE a > 100", [("exec", 1), ("fetch", 5), ("fetch", 5)]),
    "every byte value": (b"SELECT v FROM bin ORDER BY a", [("exec", 1), ("fetch", 1), ("fetch", 5)]),
    "reset, re-execute, re-execute": (b"SELECT a FROM c ORDER BY a", [("exec", 1), ("fetch", 1), ("reset",), ("fetch", 1), ("exec", 1), ("fetch", 1), ("exec", 1), ("fetch", 9)]),
    "no result set answers OK": (b"UPDATE c SET b = b WHERE a = 1", [("exec", 1), ("fetch", 1)]),
    "other cursor types open none": (b"SELECT a FROM c ORDER BY a", [("exec", 2), ("exec", 4), ("exec", 0)]),
    "a query between fetches": (b"SELECT a FROM c ORDER BY a", [("exec", 1), ("fetch", 1), ("query", b"SELECT b FROM c WHERE a = 2"), ("fetch", 5)]),
}


def comparable(answers: list) -> list:
    """Two known differences, both the same with and without cursors:
    statement ids in messages (MariaDB's are server-wide, Turnstile's the
    session's own: 1 here), and the index-use flags (0x10, 0x20) of the EOF
    Turnstile writes after column definitions when rows follow (its backend
    connections use DEPRECATE_EOF, so that EOF is Turnstile's; the closing
    one is MariaDB's own status)."""
    out = []
    for answer in answers:
        packets = []
        for i, p in enumerate(answer):
            if p[:3] == b"\xff\x8d\x05":  # ERR 1421
                p = re.sub(rb"\(\d+\)", b"(N)", p)
            elif p[:1] == b"\xfe" and len(p) == 5 and i < len(answer) - 1:
                p = p[:3] + struct.pack("<H", struct.unpack_from("<H", p, 3)[0] & ~0x30)
            packets.append(p)
        out.append(packets)
    return out


@pytest.mark.parametrize("deprecate_eof", [False, True], ids=["eof", "deprecate_eof"])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_cursor_exchanges_match_mariadb_byte_for_byte(up, upstream_backend, name, deprecate_eof):
    sql, steps = SCENARIOS[name]
    through = exchange(up.port, deprecate_eof, sql, steps)
    direct = exchange(upstream_backend.port, deprecate_eof, sql, steps)
    assert comparable(through) == comparable(direct)
    for answer in through:
        for p in answer:
            if p[:3] == b"\xff\x8d\x05":
                assert b"The statement (1) has no open cursor" in p, p


def test_a_cursor_read_in_part_leaves_nothing_for_the_next_session(up):
    # A client that leaves a cursor half read: its connection is reset
    # before another session gets it, and the pool is whole again.
    for _ in range(6):
        b = stmtproto.connect(up.port, "root", ROOT_PASSWORD, db=DB)
        st = b.prepare("SELECT a FROM c ORDER BY a")
        cur = b.execute_cursor(st)
        assert b.fetch(st.id, 1, cur.cols).rows == [(1,)]
        b.close_connection()
    c = clients.root(up)
    assert clients.wait_until(lambda: upstream.status(c, "Upstream_pinned_cursor") == "0")
    assert clients.query(c, f"SELECT COUNT(*) FROM {DB}.c") == ((3,),)
    c.close()


# ---------------------------------------------------------------------------
# MariaDB Connector/C


@pytest.fixture(scope="module")
def c_client(tmp_path_factory):
    return cursor_client.build(tmp_path_factory)


def run_c(exe, port, *args):
    return cursor_client.run(exe, port, DB, *args)


@pytest.mark.parametrize("prefetch", ["1", "2", "3", "100"])
def test_connector_c_reads_a_cursor_through_it(c_client, up, prefetch):
    out = run_c(c_client, up.port, "cursor", prefetch, "SELECT a, b FROM c ORDER BY a")
    assert out == ["1\tx", "2\ty", "3\tz", "rows 3"]


def test_connector_c_interleaves_two_cursors_and_queries_through_it(c_client, up, upstream_backend):
    args = ("interleave", "SELECT a FROM c ORDER BY a", "SELECT b FROM c ORDER BY a DESC")
    assert run_c(c_client, up.port, *args) == run_c(c_client, upstream_backend.port, *args)


FETCHES = {
    "unknown id": lambda sid: struct.pack("<II", sid + 1000, 1),
    "all rows of no cursor": lambda sid: struct.pack("<II", sid, 0xFFFFFFFF),
    "short": lambda sid: struct.pack("<I", sid),
    "empty": lambda sid: b"",
}


@pytest.mark.parametrize("name", list(FETCHES))
def test_fetches_of_no_cursor_are_answered_as_mariadb_answers_them(up, upstream_backend, name):
    payload = b""

    def ask(port):
        nonlocal payload
        c = rawproto.RawConnection.tcp(port)
        c.handshake("root", ROOT_PASSWORD, db=DB)
        c.command(stmtproto.COM_STMT_PREPARE, b"SELECT a FROM c")
        stmt_id = struct.unpack_from("<I", c.read_packet(), 1)[0]
        c.read_packet()  # the column
        c.read_packet()  # its EOF
        payload = FETCHES[name](stmt_id)
        c.command(stmtproto.COM_STMT_FETCH, payload)
        try:
            answer = c.read_packet()
        except (rawproto.ProtocolError, ConnectionError, OSError):
            answer = None  # the server closed the connection
        c.close()
        return answer

    through, direct = ask(up.port), ask(upstream_backend.port)
    assert through[:1] == direct[:1] == b"\xff"
    if len(payload) < 8:
        # Malformed: Turnstile's packet reader answers 1835 (as MySQL 8
        # does); MariaDB reads an id out of what is there (1243).
        assert struct.unpack_from("<H", through, 1)[0] == 1835
    else:
        assert through[:3] == direct[:3]
    # The server goes on serving others.
    c = clients.root(up)
    assert clients.query(c, "SELECT 1") == ((1,),)
    c.close()


def test_a_cursor_whose_connection_dies_is_gone_and_the_session_goes_on(up, upstream_backend):
    # The backend connection holding the cursor is killed: the fetch gets
    # 2013, the cursor and its pin are gone (a later fetch: 1421), and the
    # session's next statements work on another connection.
    b = stmtproto.connect(up.port, "root", ROOT_PASSWORD, db=DB)
    st = b.prepare("SELECT a FROM c ORDER BY a")
    cur = b.execute_cursor(st)
    assert b.fetch(st.id, 1, cur.cols).rows == [(1,)]
    a = upstream_backend.admin()
    for (pid,) in clients.query(a, f"SELECT id FROM information_schema.PROCESSLIST WHERE user = 'root' AND db = '{DB}' AND id <> CONNECTION_ID()"):
        clients.query(a, f"KILL {pid}")
    a.close()
    time.sleep(0.2)
    with pytest.raises(rawproto.ServerError) as e:
        b.fetch(st.id, 1, cur.cols)
    assert e.value.code == 2013
    with pytest.raises(rawproto.ServerError) as e:
        b.fetch(st.id, 1, cur.cols)
    assert e.value.code == 1421
    assert b.execute(st).rows == [(1,), (2,), (3,)]
    # Read after statements that ran since: nothing pins the session now.
    assert b.query("SHOW STATUS LIKE 'Upstream_pinned_cursor'").rows == [(b"Upstream_pinned_cursor", b"0")]
    assert b.query("SHOW STATUS LIKE 'Upstream_pinned_cursor'").rows == [(b"Upstream_pinned_cursor", b"0")]
    b.close_connection()
