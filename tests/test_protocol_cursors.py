"""Cursors: COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY and COM_STMT_FETCH,
answered as MariaDB 10.11 answers them (every packet below was compared with
MariaDB's for the same calls): the execute sends the columns and an EOF with
SERVER_STATUS_CURSOR_EXISTS and no rows; a fetch sends up to the rows asked
for and an EOF with CURSOR_EXISTS, or, once a fetch asked past the last row,
SERVER_STATUS_LAST_ROW_SENT, and the cursor is closed (ERR 1421 after). A
statement without a result set answers OK; the other cursor types open none.
The rows are materialised at the execute, bounded per session by
`max_cursor_bytes` (ERR 1114 past it). Also driven by MariaDB Connector/C
(tests/helpers/cursor_client.c: STMT_ATTR_CURSOR_TYPE, STMT_ATTR_PREFETCH_ROWS).
MariaDB's COM_STMT_BULK_EXECUTE is not offered (and refused with 1047).
Before, COM_STMT_FETCH was ERR 1235 and a cursor execute streamed the whole
result, leaving the client out of step."""

import struct

import pytest

from helpers import clients, cursor_client, rawproto, stmtproto
from helpers.server import ROOT_PASSWORD, TurnstileServer
from helpers.stmtproto import SERVER_STATUS_CURSOR_EXISTS as EXISTS
from helpers.stmtproto import SERVER_STATUS_LAST_ROW_SENT as LAST

DB = "cur_db"


@pytest.fixture(scope="module")
def srv(turnstile_bin):
    srv = TurnstileServer(extra_args=["--max-cursor-bytes", "1000"], engine="sqlite").start()
    conn = clients.root(srv)
    clients.query(conn, f"CREATE DATABASE {DB}")
    clients.query(conn, f"CREATE TABLE {DB}.c (a INT PRIMARY KEY, b VARCHAR(10))")
    clients.query(conn, f"INSERT INTO {DB}.c VALUES (1,'x'),(2,'y'),(3,'z')")
    clients.query(conn, f"CREATE TABLE {DB}.n (a INT PRIMARY KEY)")
    clients.query(conn, f"INSERT INTO {DB}.n VALUES " + ",".join(f"({i})" for i in range(1, 301)))
    conn.close()
    yield srv
    srv.stop()
    srv.cleanup()


def connect(srv, deprecate_eof=False):
    c = rawproto.RawConnection.tcp(srv.port)
    c.handshake("root", ROOT_PASSWORD, db=DB, extra_caps=rawproto.CLIENT_DEPRECATE_EOF if deprecate_eof else 0)
    return stmtproto.ByteClient(c)


def test_fetch_in_steps_then_last_row_sent(srv):
    b = connect(srv)
    st = b.prepare("SELECT a, b FROM c ORDER BY a")
    cur = b.execute_cursor(st)
    assert isinstance(cur, stmtproto.Cursor)
    assert [c.name for c in cur.cols] == [b"a", b"b"]
    assert cur.status & EXISTS and not cur.status & LAST
    f = b.fetch(st.id, 2, cur.cols)
    assert f.rows == [(1, b"x"), (2, b"y")]
    assert f.status & EXISTS and not f.status & LAST
    f = b.fetch(st.id, 2, cur.cols)
    assert f.rows == [(3, b"z")]
    assert f.status & LAST and not f.status & EXISTS
    with pytest.raises(rawproto.ServerError) as e:
        b.fetch(st.id, 1, cur.cols)
    assert (e.value.code, e.value.sqlstate, e.value.message) == (1421, "HY000", f"The statement ({st.id}) has no open cursor")
    b.close_connection()


def test_end_is_known_only_when_a_fetch_asks_past_it(srv):
    b = connect(srv)
    st = b.prepare("SELECT a FROM c ORDER BY a")
    cur = b.execute_cursor(st)
    f = b.fetch(st.id, 0, cur.cols)
    assert (f.rows, f.status & (EXISTS | LAST)) == ([], EXISTS)
    f = b.fetch(st.id, 3, cur.cols)
    assert (f.rows, f.status & (EXISTS | LAST)) == ([(1,), (2,), (3,)], EXISTS)
    f = b.fetch(st.id, 1, cur.cols)
    assert (f.rows, f.status & (EXISTS | LAST)) == ([], LAST)
    b.close_connection()


@pytest.mark.parametrize("deprecate_eof", [False, True])
def test_deprecate_eof_still_ends_the_columns_with_the_cursor_status(srv, deprecate_eof):
    c = rawproto.RawConnection.tcp(srv.port)
    c.handshake("root", ROOT_PASSWORD, db=DB, extra_caps=rawproto.CLIENT_DEPRECATE_EOF if deprecate_eof else 0)
    c.command(stmtproto.COM_STMT_PREPARE, b"SELECT a FROM c WHERE a > 100")
    stmt_id, ncols = struct.unpack_from("<IH", c.read_packet(), 1)
    for _ in range(ncols + (0 if deprecate_eof else 1)):
        c.read_packet()
    c.command(stmtproto.COM_STMT_EXECUTE, struct.pack("<IBI", stmt_id, 1, 1))
    assert c.read_packet() == b"\x01"
    c.read_packet()
    end = c.read_packet()
    # Classic EOF (fe, warnings, status) or, under DEPRECATE_EOF, an OK with the fe header, as MariaDB.
    assert end == (bytes.fromhex("fe000042000000") if deprecate_eof else bytes.fromhex("fe00004200"))
    c.command(stmtproto.COM_STMT_FETCH, struct.pack("<II", stmt_id, 5))
    assert c.read_packet() == (bytes.fromhex("fe000082000000") if deprecate_eof else bytes.fromhex("fe00008200"))
    c.close()


def test_statement_without_result_set_answers_ok(srv):
    b = connect(srv)
    st = b.prepare("UPDATE c SET b = b WHERE a = 1")
    r = b.execute_cursor(st)
    assert isinstance(r, rawproto.OkPacket)
    with pytest.raises(rawproto.ServerError) as e:
        b.fetch(st.id, 1, [])
    assert e.value.code == 1421
    b.close_connection()


@pytest.mark.parametrize("flags", [2, 4, 8])
def test_other_cursor_types_open_none(srv, flags):
    b = connect(srv)
    st = b.prepare("SELECT a FROM c ORDER BY a")
    r = b.execute_cursor(st, flags=flags)
    assert isinstance(r, stmtproto.Rows) and r.rows == [(1,), (2,), (3,)]
    b.close_connection()


@pytest.mark.parametrize("sql,expected", [("SELECT 1", [(1,)]), ("SELECT @@max_cursor_bytes", [(1000,)]), ("SELECT a FROM c WHERE a = ?", [(2,)])])
def test_constant_session_and_parameter_statements(srv, sql, expected):
    b = connect(srv)
    st = b.prepare(sql)
    params = [(stmtproto.T_LONGLONG, 2)] if st.nparams else []
    cur = b.execute_cursor(st, params)
    assert isinstance(cur, stmtproto.Cursor)
    f = b.fetch(st.id, 10, cur.cols)
    assert f.rows == expected and f.status & LAST
    b.close_connection()


def test_queries_between_fetches_and_a_snapshot_at_execute(srv):
    b = connect(srv)
    st = b.prepare("SELECT a FROM n WHERE a <= 5 ORDER BY a")
    cur = b.execute_cursor(st)
    assert b.fetch(st.id, 2, cur.cols).rows == [(1,), (2,)]
    assert b.query("DELETE FROM n WHERE a = 3").affected_rows == 1
    assert b.query("SELECT COUNT(*) FROM n WHERE a <= 5").rows == [(b"4",)]
    # The cursor's rows were materialised at its execute.
    assert b.fetch(st.id, 5, cur.cols).rows == [(3,), (4,), (5,)]
    b.query("INSERT INTO n VALUES (3)")
    b.close_connection()


def test_reset_close_and_reexecute(srv):
    b = connect(srv)
    st = b.prepare("SELECT a FROM c ORDER BY a")
    cur = b.execute_cursor(st)
    assert b.fetch(st.id, 1, cur.cols).rows == [(1,)]
    b.reset(st)
    with pytest.raises(rawproto.ServerError) as e:
        b.fetch(st.id, 1, cur.cols)
    assert e.value.code == 1421
    cur = b.execute_cursor(st)
    assert b.fetch(st.id, 1, cur.cols).rows == [(1,)]
    # A new execute starts over.
    cur = b.execute_cursor(st)
    assert b.fetch(st.id, 1, cur.cols).rows == [(1,)]
    b.close(st)
    with pytest.raises(rawproto.ServerError) as e:
        b.fetch(st.id, 1, cur.cols)
    assert (e.value.code, e.value.message) == (1243, f"Unknown prepared statement handler ({st.id}) given to mysqld_stmt_fetch")
    b.close_connection()


def test_memory_bound_at_and_past_the_edge(srv):
    # A row of one INT is 10 bytes here (header, null bitmap, 4 bytes, and
    # the 4-byte length the cursor keeps): 100 rows fill max_cursor_bytes=1000.
    b = connect(srv)
    at = b.prepare("SELECT a FROM n WHERE a <= 100 ORDER BY a")
    cur = b.execute_cursor(at)
    assert isinstance(cur, stmtproto.Cursor)
    past = b.prepare("SELECT a FROM n WHERE a <= 1 ORDER BY a")
    with pytest.raises(rawproto.ServerError) as e:
        b.execute_cursor(past)
    assert (e.value.code, e.value.sqlstate) == (1114, "HY000")
    # Reading the first cursor to its end frees its rows.
    assert len(b.fetch(at.id, 1000, cur.cols).rows) == 100
    cur2 = b.execute_cursor(past)
    assert b.fetch(past.id, 5, cur2.cols).rows == [(1,)]
    big = b.prepare("SELECT a FROM n WHERE a <= 101 ORDER BY a")
    with pytest.raises(rawproto.ServerError) as e:
        b.execute_cursor(big)
    assert e.value.code == 1114
    # The same statement without a cursor streams as before, and the session goes on.
    assert len(b.execute(big).rows) == 101
    assert b.query("SELECT 1").rows == [(b"1",)]
    b.close_connection()


# ---------------------------------------------------------------------------
# MariaDB Connector/C


@pytest.fixture(scope="module")
def c_client(tmp_path_factory):
    return cursor_client.build(tmp_path_factory)


def run_c(exe, srv, *args):
    return cursor_client.run(exe, srv.port, DB, *args)


@pytest.mark.parametrize("prefetch", ["1", "2", "3", "100"])
def test_connector_c_reads_a_cursor(c_client, srv, prefetch):
    out = run_c(c_client, srv, "cursor", prefetch, "SELECT a, b FROM c ORDER BY a")
    assert out == ["1\tx", "2\ty", "3\tz", "rows 3"]


def test_connector_c_interleaves_two_cursors_and_queries(c_client, srv):
    out = run_c(c_client, srv, "interleave", "SELECT a FROM c ORDER BY a", "SELECT b FROM c ORDER BY a DESC")
    assert out == ["1:1", "q:between", "2:z", "1:2", "q:between", "2:y", "1:3", "q:between", "2:x", "q:between", "done"]


# ---------------------------------------------------------------------------
# MariaDB's COM_STMT_BULK_EXECUTE is not offered


def test_bulk_execute_is_not_offered(srv):
    # MariaDB clients read extended capabilities (MARIADB_CLIENT_STMT_BULK_OPERATIONS
    # among them) only from a server that clears CLIENT_MYSQL (bit 0, CLIENT_LONG_PASSWORD)
    # and puts them in the last 4 of the greeting's 10 reserved bytes. Turnstile sets
    # the bit and leaves the bytes zero, so no driver sends COM_STMT_BULK_EXECUTE;
    # one that does anyway gets ERR 1047 and the session goes on.
    c = rawproto.RawConnection.tcp(srv.port)
    g = c.read_greeting()
    assert g.capabilities & rawproto.CLIENT_LONG_PASSWORD
    reserved_at = 1 + len(g.server_version.encode()) + 1 + 4 + 8 + 1 + 2 + 1 + 2 + 2 + 1
    assert g.raw[reserved_at : reserved_at + 10] == bytes(10)
    c.handshake("root", ROOT_PASSWORD, db=DB)
    b = stmtproto.ByteClient(c)
    st = b.prepare("INSERT INTO c VALUES (?, ?)")
    c.command(0xFA, struct.pack("<IH", st.id, 0))
    with pytest.raises(rawproto.ServerError) as e:
        b._head()
    assert (e.value.code, e.value.sqlstate) == (1047, "08S01")
    assert b.query("SELECT COUNT(*) FROM c").rows == [(b"3",)]
    c.close()
