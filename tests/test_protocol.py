"""Wire-protocol behaviour driven through the raw protocol helper and PyMySQL:
oversize packets (1153 / 08S01, then the connection is closed), garbage bytes
before/after the greeting (that connection is closed, others keep working),
an unknown command byte (1047 / 08S01), COM_PING, COM_STATISTICS,
COM_CHANGE_USER, COM_RESET_CONNECTION and multi-statements."""

import random
import threading

import pymysql
import pymysql.constants.CLIENT as CLIENT
import pytest

from helpers import clients, rawproto
from helpers.clients import LOST_CONNECTION_CODES
from helpers.server import ROOT_PASSWORD

MAX_PACKET = 65536


@pytest.fixture(scope="module")
def users(server):
    conn = clients.root(server)
    clients.query(conn, "CREATE DATABASE IF NOT EXISTS proto_db")
    clients.query(conn, "CREATE USER 'cu_native'@'%' IDENTIFIED WITH mysql_native_password BY 'native-pw'")
    clients.query(conn, "CREATE USER 'cu_sha2'@'%' IDENTIFIED WITH caching_sha2_password BY 'sha2-pw'")
    clients.query(conn, "GRANT ALL ON proto_db.* TO 'cu_native'@'%'")
    clients.query(conn, "GRANT ALL ON proto_db.* TO 'cu_sha2'@'%'")
    conn.close()
    return {"mysql_native_password": ("cu_native", "native-pw"), "caching_sha2_password": ("cu_sha2", "sha2-pw")}


# ----------------------------------------------------------------------------
# max_allowed_packet


@pytest.fixture
def small_packet_server(server_factory):
    return server_factory("--max-allowed-packet", str(MAX_PACKET))


def test_max_allowed_packet_variable(small_packet_server):
    conn = clients.root(small_packet_server)
    assert clients.scalar(conn, "SELECT @@max_allowed_packet") == MAX_PACKET
    assert clients.scalar(conn, "SELECT @@global.max_allowed_packet") == MAX_PACKET
    # A statement just below the limit is fine and round-trips.
    s = "x" * (MAX_PACKET - 1024)
    assert clients.scalar(conn, f"SELECT '{s}'") == s
    conn.close()


def test_oversize_packet_raw(small_packet_server):
    srv = small_packet_server
    c = rawproto.connect(srv, "root", ROOT_PASSWORD)
    payload = bytes([rawproto.COM_QUERY]) + b"SELECT '" + b"y" * (3 * MAX_PACKET) + b"'"
    # Send from a thread: the server may answer (and close) before it has
    # read the whole packet, and sendall must not block this thread.
    frame = len(payload).to_bytes(3, "little") + b"\x00" + payload
    c.seq = 1  # the server's reply carries sequence id 1
    sender = threading.Thread(target=_send_quietly, args=(c, frame), daemon=True)
    sender.start()
    with pytest.raises(rawproto.ServerError) as ei:
        c.read_result()
    err = ei.value
    assert (err.code, err.sqlstate) == (1153, "08S01")
    assert err.message == "Got a packet bigger than 'max_allowed_packet' bytes"
    closed, _ = c.wait_closed(10)
    assert closed, "server kept the connection open after 1153"
    sender.join(5)
    c.close()
    # The server is fine.
    conn = clients.root(srv)
    assert clients.scalar(conn, "SELECT 1") == 1
    conn.close()


def _send_quietly(c, data):
    try:
        c.send_raw(data)
    except OSError:
        pass


def test_oversize_packet_pymysql(small_packet_server):
    # Plain TCP: PyMySQL writes the whole packet before it reads, which works
    # only while the packet fits in loopback socket buffers; TLS records make
    # it larger, and the server's close can then meet the client mid-write
    # (SSLEOFError). test_oversize_packet_raw reads while a
    # thread writes.
    conn = clients.root(small_packet_server, ssl_disabled=True)
    big = "z" * (MAX_PACKET + 4096)  # fits in loopback socket buffers
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.query(conn, f"SELECT '{big}'")
    assert ei.value.args[0] == 1153, ei.value.args
    # The connection is closed afterwards.
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, "SELECT 1")
    assert ei.value.args[0] in LOST_CONNECTION_CODES + (0,), ei.value.args
    conn.close()


# ----------------------------------------------------------------------------
# garbage


HTTP_REQUEST = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: curl/8.0\r\nAccept: */*\r\n\r\n"
RANDOM_BYTES = random.Random(20240601).randbytes(512)
# A well-framed packet (length + sequence id 1) whose content is nonsense.
FRAMED_GARBAGE = (60).to_bytes(3, "little") + b"\x01" + random.Random(7).randbytes(60)


@pytest.fixture
def patient_server(server_factory):
    """connect_timeout 60 s: a close within 10 s is an active rejection,
    not the handshake timeout."""
    return server_factory("--connect-timeout", "60")


@pytest.mark.parametrize(
    "garbage,read_greeting,transport",
    [
        (HTTP_REQUEST, True, "tcp"),
        (HTTP_REQUEST, False, "tcp"),
        (HTTP_REQUEST, True, "socket"),
        (RANDOM_BYTES, True, "tcp"),
        (FRAMED_GARBAGE, True, "tcp"),
    ],
    ids=["http", "http-before-greeting", "http-socket", "random", "framed-garbage"],
)
def test_garbage_closes_only_that_connection(patient_server, garbage, read_greeting, transport):
    srv = patient_server
    bystander = clients.root(srv)
    aborted_before = clients.status(bystander, "Aborted_connects")
    raw = rawproto.RawConnection.tcp(srv.port) if transport == "tcp" else rawproto.RawConnection.unix(srv.socket)
    try:
        if read_greeting:
            raw.read_greeting()
        raw.send_raw(garbage)
        closed, packets = raw.wait_closed(10)
        assert closed, "server did not close a connection that sent garbage"
        for p in packets:
            # Anything sent back must be the greeting or an error packet.
            assert p[:1] in (b"\x0a", b"\xff"), p[:32]
    finally:
        raw.close()
    assert clients.scalar(bystander, "SELECT 1") == 1
    fresh = clients.root(srv)
    assert clients.scalar(fresh, "SELECT 2") == 2
    fresh.close()
    assert clients.wait_until(lambda: clients.status(bystander, "Aborted_connects") > aborted_before, timeout=5)
    bystander.close()


def test_unknown_command_byte(server):
    with rawproto.connect(server, "root", ROOT_PASSWORD) as c:
        c.command(0xEE)
        pkt = c.read_packet()
        assert pkt[:1] == b"\xff", pkt
        err = rawproto.parse_err(pkt)
        assert (err.code, err.sqlstate) == (1047, "08S01")


def test_many_pipelined_commands_are_all_answered(server):
    """A client may send many commands before reading any answer. The pool
    runs at most 32 packets of one connection before giving others a turn; the
    33rd was decoded and then dropped, and the client waited forever."""
    with rawproto.connect(server, "root", ROOT_PASSWORD) as c:
        n = 100
        c.send_raw(b"".join(b"\x01\x00\x00\x00\x0e" for _ in range(n)))
        for _ in range(n):
            c.seq = 1
            pkt = c.read_packet()
            assert pkt[:1] == b"\x00", pkt
        assert c.scalar("SELECT 1") == "1"


def test_ping_and_statistics(server):
    with rawproto.connect(server, "root", ROOT_PASSWORD) as c:
        ok = c.ping()
        assert ok.affected_rows == 0
        stats = c.statistics()
        assert stats.startswith("Uptime: "), stats
        assert "Threads: " in stats and "Questions: " in stats
        c.quit()
    conn = clients.root(server)
    conn.ping(reconnect=False)
    conn.close()


@pytest.mark.parametrize("reset", [True, False])
def test_close_after_quit(server_factory, reset):
    """After COM_QUIT the server closes a TCP connection with an RST
    (reset_after_quit, the default), so the client, which has already closed
    its end, keeps no TIME_WAIT socket; with the setting off it closes with a
    FIN, as MySQL does. Either way a client still reading sees the end."""
    srv = server_factory("--reset-after-quit", "true" if reset else "false")
    c = rawproto.connect(srv, "root", ROOT_PASSWORD)
    c.command(rawproto.COM_QUIT)
    c.sock.settimeout(10)
    try:
        if reset:
            with pytest.raises(ConnectionResetError):
                c.sock.recv(1)
        else:
            assert c.sock.recv(1) == b""
    finally:
        c.close()
    # Everyone else is served as before.
    conn = clients.root(srv)
    with conn.cursor() as cur:
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)
    conn.close()


# ----------------------------------------------------------------------------
# COM_CHANGE_USER / COM_RESET_CONNECTION


@pytest.mark.parametrize("transport", ["tcp", "socket"])
@pytest.mark.parametrize("plugin", ["mysql_native_password", "caching_sha2_password"])
def test_change_user(server, users, plugin, transport):
    user, pw = users[plugin]
    with rawproto.connect(server, "root", ROOT_PASSWORD, transport=transport) as c:
        conn_id = int(c.scalar("SELECT CONNECTION_ID()"))
        c.query("SET @before_change = 42")
        assert c.scalar("SELECT @before_change") == "42"
        ok = c.change_user(user, pw, plugin=plugin)
        assert isinstance(ok, rawproto.OkPacket)
        assert c.scalar("SELECT CURRENT_USER()") == f"{user}@%"
        assert c.scalar("SELECT USER()").startswith(f"{user}@")
        # Session state is reset, the connection (and its id) is kept.
        assert c.scalar("SELECT @before_change") is None
        assert int(c.scalar("SELECT CONNECTION_ID()")) == conn_id
        watcher = clients.root(server)
        try:
            row = [r for r in clients.query(watcher, "SHOW PROCESSLIST") if int(r[0]) == conn_id]
            assert row and row[0][1] == user, row
        finally:
            watcher.close()
        # Change again, with a default database this time, then back to root.
        c.change_user(user, pw, db="proto_db", plugin=plugin)
        assert c.scalar("SELECT DATABASE()") == "proto_db"
        c.change_user("root", ROOT_PASSWORD, plugin=plugin)
        assert c.scalar("SELECT CURRENT_USER()") == "root@%"
        assert c.scalar("SELECT DATABASE()") is None


def test_change_user_wrong_password(server, users):
    user, _ = users["mysql_native_password"]
    with rawproto.connect(server, "root", ROOT_PASSWORD) as c:
        with pytest.raises(rawproto.ServerError) as ei:
            c.change_user(user, "wrong")
        assert ei.value.code == 1045
        assert ei.value.sqlstate == "28000"
        assert f"Access denied for user '{user}'@" in ei.value.message


def test_change_user_unknown_database(server, users):
    user, pw = users["mysql_native_password"]
    with rawproto.connect(server, "root", ROOT_PASSWORD) as c:
        with pytest.raises(rawproto.ServerError) as ei:
            c.change_user(user, pw, db="no_such_db_cu")
        assert ei.value.code in (1049, 1044)


def test_reset_connection(server):
    with rawproto.connect(server, "root", ROOT_PASSWORD) as c:
        conn_id = int(c.scalar("SELECT CONNECTION_ID()"))
        c.query("SET @x = 5, @y = 'abc'")
        assert c.scalar("SELECT @x") == "5"
        ok = c.reset_connection()
        assert isinstance(ok, rawproto.OkPacket)
        rs = c.query("SELECT @x, @y")
        assert rs.rows == [(None, None)]
        assert c.scalar("SELECT CURRENT_USER()") == "root@%"
        assert int(c.scalar("SELECT CONNECTION_ID()")) == conn_id
        # Still fully usable.
        c.query("SET @x = 6")
        assert c.scalar("SELECT @x") == "6"


# ----------------------------------------------------------------------------
# multi-statements


def test_multi_statements_pymysql(server):
    conn = clients.root(server, client_flag=CLIENT.MULTI_STATEMENTS)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT 1; SELECT 2")
            assert cur.fetchall() == ((1,),)
            assert cur.nextset()
            assert cur.fetchall() == ((2,),)
            assert not cur.nextset()

            cur.execute("SET @m = 7; SELECT @m + 1 AS v; SELECT 'a', 'b'")
            assert cur.description is None  # the SET's OK packet
            assert cur.nextset()
            assert [d[0] for d in cur.description] == ["v"]
            assert cur.fetchall() == ((8,),)
            assert cur.nextset()
            assert cur.fetchall() == (("a", "b"),)
            assert not cur.nextset()
        # The connection is in a clean state afterwards.
        assert clients.scalar(conn, "SELECT 3") == 3
    finally:
        conn.close()


def test_multi_statements_raw(server):
    with rawproto.connect(server, "root", ROOT_PASSWORD, extra_caps=rawproto.CLIENT_MULTI_STATEMENTS) as c:
        results = c.query_all("SELECT 1; SELECT 2; SET @q = 1")
        assert len(results) == 3
        assert rawproto.rows(results[0]) == [("1",)]
        assert rawproto.rows(results[1]) == [("2",)]
        assert isinstance(results[2], rawproto.OkPacket)
        assert results[0].status & rawproto.SERVER_MORE_RESULTS_EXISTS
        assert not results[2].status & rawproto.SERVER_MORE_RESULTS_EXISTS


@pytest.mark.mysql_compat
def test_multi_statements_rejected_without_flag(server):
    """MySQL answers a syntax error (1064) when CLIENT_MULTI_STATEMENTS is off."""
    conn = clients.root(server)
    try:
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(conn, "SELECT 1; SELECT 2")
        assert ei.value.args[0] == 1064
        assert clients.scalar(conn, "SELECT 4") == 4
    finally:
        conn.close()
