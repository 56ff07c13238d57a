"""Cursors under attack: COM_STMT_FETCH on statement ids that never existed,
were closed or belong to another connection; fetches of 2^32-1 rows; results
far beyond `max_cursor_bytes`; as many open cursors as a session may prepare
statements; cursors interleaved with queries and with each other. Each must
get MariaDB 10.11's error (1243 for an unknown statement, 1421 for one without
an open cursor; 1114 past the memory bound, where MariaDB's temporary table
would spill to disk) and leave the session, and everyone else, served. The
rows a session's cursors hold stay within `max_cursor_bytes` all together."""

from __future__ import annotations

import struct

import pytest

from helpers import clients, rawproto, stmtproto
from helpers.server import ROOT_PASSWORD, TurnstileServer

DB = "seccur"
LIMIT = 4096


@pytest.fixture(scope="module")
def srv(turnstile_bin):
    srv = TurnstileServer(extra_args=["--max-cursor-bytes", str(LIMIT), "--max-prepared-stmt-count", "200"], engine="sqlite").start()
    conn = clients.root(srv)
    clients.query(conn, f"CREATE DATABASE {DB}")
    clients.query(conn, f"CREATE TABLE {DB}.t (a INT PRIMARY KEY, b TEXT)")
    clients.query(conn, f"INSERT INTO {DB}.t VALUES " + ",".join(f"({i}, REPEAT('x', {i % 50}))" for i in range(1, 2001)))
    conn.close()
    yield srv
    srv.stop()
    srv.cleanup()


def connect(srv):
    c = rawproto.RawConnection.tcp(srv.port)
    c.handshake("root", ROOT_PASSWORD, db=DB)
    return stmtproto.ByteClient(c)


def fetch_err(b, stmt_id, n=1):
    with pytest.raises(rawproto.ServerError) as e:
        b.fetch(stmt_id, n, [])
    return e.value.code, e.value.sqlstate


def alive(b):
    assert b.query("SELECT 7").rows == [(b"7",)]


@pytest.mark.parametrize("stmt_id", [0, 1, 2, 0x7FFFFFFF, 0xFFFFFFFF])
def test_fetch_of_a_statement_that_never_existed(srv, stmt_id):
    b = connect(srv)
    assert fetch_err(b, stmt_id, 0xFFFFFFFF) == (1243, "HY000")
    alive(b)
    b.close_connection()


def test_fetch_after_close_reset_and_the_last_row(srv):
    b = connect(srv)
    st = b.prepare("SELECT a FROM t WHERE a <= 3 ORDER BY a")
    assert fetch_err(b, st.id) == (1421, "HY000")  # prepared, never executed
    cur = b.execute_cursor(st)
    assert len(b.fetch(st.id, 10, cur.cols).rows) == 3
    assert fetch_err(b, st.id) == (1421, "HY000")  # read to its end
    b.execute_cursor(st)
    b.reset(st)
    assert fetch_err(b, st.id) == (1421, "HY000")
    b.execute_cursor(st)
    b.close(st)
    assert fetch_err(b, st.id) == (1243, "HY000")
    alive(b)
    b.close_connection()


def test_fetch_of_another_connections_statement(srv):
    owner, other = connect(srv), connect(srv)
    st = owner.prepare("SELECT a FROM t WHERE a <= 3 ORDER BY a")
    cur = owner.execute_cursor(st)
    # Statement ids are per connection: the other one has none.
    assert fetch_err(other, st.id) == (1243, "HY000")
    assert owner.fetch(st.id, 10, cur.cols).rows == [(1,), (2,), (3,)]
    owner.close_connection()
    other.close_connection()


def test_fetch_of_two_to_the_32_rows(srv):
    b = connect(srv)
    st = b.prepare("SELECT a FROM t WHERE a <= 300 ORDER BY a")
    cur = b.execute_cursor(st)
    f = b.fetch(st.id, 0xFFFFFFFF, cur.cols)
    assert len(f.rows) == 300 and f.status & stmtproto.SERVER_STATUS_LAST_ROW_SENT
    alive(b)
    b.close_connection()


def test_result_far_beyond_the_bound(srv):
    b = connect(srv)
    st = b.prepare("SELECT a, b FROM t ORDER BY a")
    for _ in range(20):
        with pytest.raises(rawproto.ServerError) as e:
            b.execute_cursor(st)
        assert (e.value.code, e.value.sqlstate) == (1114, "HY000")
    # A cursor that fits still opens: nothing of the refused ones is kept.
    small = b.prepare("SELECT a FROM t WHERE a <= 10 ORDER BY a")
    cur = b.execute_cursor(small)
    assert len(b.fetch(small.id, 100, cur.cols).rows) == 10
    alive(b)
    b.close_connection()


def test_many_open_cursors_share_the_bound(srv):
    # 10 rows of one INT are 100 bytes: 40 such cursors fill 4096 bytes, the
    # 41st does not fit; closing one statement makes room again.
    b = connect(srv)
    stmts, refused = [], 0
    for _ in range(150):
        st = b.prepare("SELECT a FROM t WHERE a <= 10 ORDER BY a")
        try:
            stmts.append((st, b.execute_cursor(st)))
        except rawproto.ServerError as e:
            assert e.code == 1114
            refused += 1
    assert len(stmts) == LIMIT // 100 and refused == 150 - LIMIT // 100
    st, cur = stmts.pop()
    b.close(st)
    extra = b.prepare("SELECT a FROM t WHERE a <= 10 ORDER BY a")
    stmts.append((extra, b.execute_cursor(extra)))
    # Every open cursor still reads its own rows, in turns with queries.
    for st, cur in stmts:
        assert b.fetch(st.id, 3, cur.cols).rows == [(1,), (2,), (3,)]
        alive(b)
    for st, cur in stmts:
        assert len(b.fetch(st.id, 100, cur.cols).rows) == 7
    b.close_connection()


def test_interleaved_cursors_and_queries_stay_in_step(srv):
    b = connect(srv)
    a = b.prepare("SELECT a FROM t WHERE a <= 20 ORDER BY a")
    d = b.prepare("SELECT a FROM t WHERE a <= 20 ORDER BY a DESC")
    ca, cd = b.execute_cursor(a), b.execute_cursor(d)
    up, down = [], []
    for _ in range(25):
        up += b.fetch(a.id, 1, ca.cols).rows if len(up) < 20 else []
        assert b.query("SELECT COUNT(*) FROM t").rows == [(b"2000",)]
        down += b.fetch(d.id, 1, cd.cols).rows if len(down) < 20 else []
    assert [r[0] for r in up] == list(range(1, 21))
    assert [r[0] for r in down] == list(range(20, 0, -1))
    b.close_connection()


def test_reset_connection_frees_every_cursor(srv):
    b = connect(srv)
    for _ in range(LIMIT // 100):
        st = b.prepare("SELECT a FROM t WHERE a <= 10 ORDER BY a")
        b.execute_cursor(st)
    b.c.reset_connection()
    st = b.prepare("SELECT a FROM t WHERE a <= 10 ORDER BY a")
    cur = b.execute_cursor(st)
    assert len(b.fetch(st.id, 100, cur.cols).rows) == 10
    b.close_connection()


def test_fetch_while_another_session_writes(srv):
    b, w = connect(srv), clients.root(srv, database=DB)
    st = b.prepare("SELECT a FROM t WHERE a <= 5 ORDER BY a")
    cur = b.execute_cursor(st)
    clients.query(w, "UPDATE t SET a = a + 10000 WHERE a <= 5")
    # Materialised at the execute: the cursor reads what was there then.
    assert b.fetch(st.id, 10, cur.cols).rows == [(1,), (2,), (3,), (4,), (5,)]
    clients.query(w, "UPDATE t SET a = a - 10000 WHERE a > 10000")
    w.close()
    b.close_connection()


def test_raw_fetch_packet_carries_no_more_than_asked(srv):
    b = connect(srv)
    st = b.prepare("SELECT a FROM t WHERE a <= 5 ORDER BY a")
    cur = b.execute_cursor(st)
    b.c.command(stmtproto.COM_STMT_FETCH, struct.pack("<II", st.id, 2))
    packets = [b.c.read_packet() for _ in range(3)]
    assert packets[2][:1] == b"\xfe" and len(packets[2]) == 5
    assert b.fetch(st.id, 10, cur.cols).rows == [(3,), (4,), (5,)]
    b.close_connection()
