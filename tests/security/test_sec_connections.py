"""Attacks on the connection layer (issue #20, items 4, 7 and 9), each tested
at its limit and far beyond it, under whichever scheduler the suite runs
(TURNSTILE_THREAD_HANDLING; the admin port always has per-thread threads).

* Unauthenticated sockets must not lock administrators out: silent connects
  past max_connections / admin_max_connections give their slots to newer
  connections (the oldest gets ERR 1040), the extra administrator slot is
  taken at login, and connect_timeout bounds the whole handshake, not each read.
* COM_STMT_SEND_LONG_DATA past max_allowed_packet fails the execute with
  MariaDB's 1105, and the server stops buffering.
* Packets out of order get 1156 / 08S01; error messages are cut to 511 bytes
  (MYSQL_ERRMSG_SIZE); max_connections follows the open-file limit, and a
  server out of descriptors answers 1040 instead of leaving clients hanging,
  logging the failure at most once per 5 s.
"""

import os
import resource
import socket
import struct
import time

import pymysql
import pytest

from helpers import clients, rawproto
from helpers.server import ROOT_PASSWORD

# Generous bounds on how long we wait for the server; none is asserted as a speed.
WAIT = 15.0


# ---------------------------------------------------------------- helpers --
def _tcp(port):
    return socket.create_connection(("127.0.0.1", port), timeout=WAIT)


def _unix(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(WAIT)
    s.connect(path)
    return s


def _greeted(sock):
    """`sock`, once the server has sent it something (peeked, left unread): its
    session has started and taken or been refused a slot. A test that goes on
    before then races the server's start of that connection (under
    thread-per-connection, a late start evicts the newest pending login)."""
    sock.recv(1, socket.MSG_PEEK)
    return sock


def _packets_until_close(sock, timeout=WAIT):
    """Payloads the server sends until it closes (or `timeout`); (closed, payloads)."""
    raw = rawproto.RawConnection(sock, False, timeout)
    return raw.wait_closed(timeout)


def _first_packet(sock, timeout=WAIT):
    """The first payload the server sends, or None if it sends nothing in time."""
    sock.settimeout(timeout)
    data = b""
    try:
        while len(data) < 4 or len(data) < 4 + int.from_bytes(data[:3], "little"):
            chunk = sock.recv(65536)
            if not chunk:
                return None
            data += chunk
    except (socket.timeout, ConnectionResetError):
        return None
    return data[4 : 4 + int.from_bytes(data[:3], "little")]


def _err(payload):
    e = rawproto.parse_err(payload)
    return e.code, e.sqlstate, e.message


def _root_everywhere(srv):
    """root logs in on TCP, on the Unix socket and on the admin port."""
    for transport, port in (("tcp", srv.port), ("socket", None), ("tcp", srv.admin_port)):
        c = rawproto.connect(srv, "root", ROOT_PASSWORD, transport=transport, port=port)
        assert c.scalar("SELECT 1") == "1"
        c.close()


def _close_all(socks):
    for s in socks:
        try:
            s.close()
        except OSError:
            pass


# ------------------------------------------------ 4. logins and lockouts --
@pytest.mark.parametrize("client_silent,admin_silent", [(151, 16), (300, 40)], ids=["at-limit", "issue-20"])
def test_silent_connects_do_not_lock_root_out(server_factory, client_silent, admin_silent):
    """The attack of issue #20: silent connects to the client port and the
    admin port (connect_timeout long enough not to help). At the limit
    (max_connections 151 + admin_max_connections 16) and past it, root still
    logs in on TCP, the socket and the admin port; a connection that lost its
    slot was greeted and then told 1040."""
    srv = server_factory("--connect-timeout", "120")
    held = []
    try:
        held += [_greeted(_tcp(srv.port)) for _ in range(client_silent)]
        held += [_greeted(_tcp(srv.admin_port)) for _ in range(admin_silent)]
        # The newest silent connections are greeted (they hold the slots now).
        assert _first_packet(held[client_silent - 1])[:1] == b"\x0a"
        assert _first_packet(held[-1])[:1] == b"\x0a"
        _root_everywhere(srv)
        # Connections gave up their slots (the oldest by connection id, which
        # follows accept order only roughly under thread-per-connection): on
        # each port at least one was greeted, then told 1040 and closed.
        for socks in (held[:client_silent], held[client_silent:]):
            evicted = _evicted(socks)
            assert evicted, "no silent connection gave up its slot"
            for packets in evicted:
                assert packets[0][:1] == b"\x0a"
                assert _err(packets[1]) == (1040, "08004", "Too many connections")
        conn = clients.root(srv)
        assert clients.status(conn, "Connection_errors_max_connections") >= 2
        conn.close()
    finally:
        _close_all(held)


def _evicted(socks, timeout=WAIT):
    """The payloads of every socket in `socks` that the server closed, waiting
    until at least one is closed (or `timeout`)."""
    import select

    data = {s: b"" for s in socks}
    closed = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        readable, _, _ = select.select([s for s in socks if s not in closed], [], [], 0.5)
        for s in readable:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if chunk:
                data[s] += chunk
            else:
                closed.add(s)
        if closed and not readable:
            break
    out = []
    for s in closed:
        raw, packets = data[s], []
        while len(raw) >= 4 and len(raw) >= 4 + int.from_bytes(raw[:3], "little"):
            n = int.from_bytes(raw[:3], "little")
            packets.append(raw[4 : 4 + n])
            raw = raw[4 + n :]
        out.append(packets)
    return out


def test_unauthenticated_connection_never_holds_admin_slot(server_factory):
    """max_connections logged-in users, then silent connects beyond the extra
    administrator slot: root still gets that slot; a normal user does not."""
    srv = server_factory("--max-connections", "3", "--connect-timeout", "120")
    setup = clients.root(srv)
    clients.query(setup, "CREATE USER 'sc_plain'@'%' IDENTIFIED BY 'sc-pw'")
    setup.close()
    held, silent = [], []
    try:
        assert clients.wait_until(lambda: _fill(srv, held, 3), timeout=WAIT)
        silent = [_greeted(_tcp(srv.port)) for _ in range(5)]
        silent.append(_greeted(_unix(srv.socket)))
        with pytest.raises(rawproto.ServerError) as ei:
            rawproto.connect(srv, "sc_plain", "sc-pw")
        assert (ei.value.code, ei.value.sqlstate) == (1040, "08004")
        root = rawproto.connect(srv, "root", ROOT_PASSWORD)
        assert root.scalar("SELECT CURRENT_USER()") == "root@%"
        # The extra slot is taken now: nobody else, even root.
        with pytest.raises(rawproto.ServerError) as ei:
            rawproto.connect(srv, "root", ROOT_PASSWORD, transport="socket")
        assert ei.value.code == 1040
        root.close()
    finally:
        _close_all(silent)
        for c in held:
            c.close()


def _fill(srv, held, n):
    try:
        while len(held) < n:
            held.append(clients.connect(srv, "sc_plain", "sc-pw"))
        return True
    except pymysql.err.OperationalError as e:
        if e.args[0] != 1040:
            raise
        return False


def _handshake_response(greeting, user=b"root", password=ROOT_PASSWORD):
    auth = rawproto.native_password_scramble(password, greeting.nonce)
    caps = rawproto.DEFAULT_CAPS & ~rawproto.CLIENT_PLUGIN_AUTH
    payload = struct.pack("<IIB", caps, 1 << 24, 45) + b"\0" * 23 + user + b"\0" + bytes([len(auth)]) + auth
    return len(payload).to_bytes(3, "little") + b"\x01" + payload


@pytest.mark.parametrize("transport", ["tcp", "socket", "admin"])
def test_handshake_dribble_dropped_at_connect_timeout(server_factory, transport):
    """A handshake response sent one byte every 0.5 s (each read well inside
    connect_timeout 2 s and net_read_timeout 3600 s) would take ~30 s; the
    server drops it once connect_timeout has passed since accept."""
    srv = server_factory("--connect-timeout", "2", "--net-read-timeout", "3600")
    if transport == "socket":
        c = rawproto.RawConnection.unix(srv.socket, timeout=WAIT)
    else:
        c = rawproto.RawConnection.tcp(srv.admin_port if transport == "admin" else srv.port, timeout=WAIT)
    try:
        packet = _handshake_response(c.read_greeting())
        dropped = False
        for b in packet[:-1]:
            try:
                c.sock.sendall(bytes([b]))
            except OSError:
                dropped = True
                break
            closed, _ = c.wait_closed(0.5)
            if closed:
                dropped = True
                break
        assert dropped, "a handshake dribbled one byte per 0.5 s outlived connect_timeout=2"
    finally:
        c.close()
    conn = clients.root(srv)
    assert clients.status(conn, "Aborted_connects") >= 1
    conn.close()


# ------------------------------------------------ 7. long data --
COM_STMT_PREPARE, COM_STMT_EXECUTE, COM_STMT_SEND_LONG_DATA, COM_STMT_RESET = 0x16, 0x17, 0x18, 0x1A
MYSQL_TYPE_BLOB = 0xFC


def _prepare(c, sql):
    c.command(COM_STMT_PREPARE, sql.encode())
    p = c.read_packet()
    if p[:1] == b"\xff":
        raise rawproto.parse_err(p)
    stmt, ncols, nparams = struct.unpack_from("<IHH", p, 1)
    for n in (nparams, ncols):
        for _ in range(n):
            c.read_packet()
        if n:
            c.read_packet()  # EOF
    return stmt, nparams


def _long_data(c, stmt, param, data):
    c.command(COM_STMT_SEND_LONG_DATA, struct.pack("<IH", stmt, param) + data)


def _execute(c, stmt, nparams):
    """Execute with every parameter a BLOB sent as long data; the first row's
    values as text, or raises ServerError."""
    arg = struct.pack("<IBI", stmt, 0, 1) + b"\0" * ((nparams + 7) // 8) + b"\x01"
    arg += struct.pack("<H", MYSQL_TYPE_BLOB) * nparams
    c.command(COM_STMT_EXECUTE, arg)
    p = c.read_packet()
    if p[:1] == b"\xff":
        raise rawproto.parse_err(p)
    ncols = rawproto.Reader(p).lenenc_int()
    for _ in range(ncols):
        c.read_packet()
    c.read_packet()  # EOF
    rows = []
    while True:
        p = c.read_packet()
        if p[:1] == b"\xfe" and len(p) < 9:
            return rows
        rows.append(p)


def _binary_ints(row, n):
    """LENGTH(?) columns of a binary row: INTs (MariaDB types LENGTH INT) after the header and null bitmap."""
    off = 1 + (n + 7 + 2) // 8
    return list(struct.unpack_from("<" + "i" * n, row, off))


LONG_DATA_ERR = (
    1105,
    "HY000",
    "Parameter of prepared statement which is set through mysql_send_long_data() is longer than 'max_allowed_packet' bytes",
)
MAX_PACKET = 1 << 20


@pytest.fixture
def long_data_server(server_factory):
    return server_factory("--max-allowed-packet", str(MAX_PACKET), engine="sqlite")


def _rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_long_data_at_the_limit_executes(long_data_server):
    c = rawproto.connect(long_data_server, "root", ROOT_PASSWORD)
    stmt, n = _prepare(c, "SELECT LENGTH(?)")
    for _ in range(4):
        _long_data(c, stmt, 0, b"x" * (MAX_PACKET // 4))
    assert _binary_ints(_execute(c, stmt, n)[0], 1) == [MAX_PACKET]
    c.close()


@pytest.mark.parametrize("total", [MAX_PACKET + 1, 96 * MAX_PACKET], ids=["one-byte-over", "96x"])
def test_long_data_past_max_allowed_packet_fails_execute(long_data_server, total):
    """One byte past max_allowed_packet, and 96 times it (the issue sent 96 MiB
    against 64 MiB): the execute fails with MariaDB's error instead of running
    on truncated data; the session goes on; the next execute starts afresh."""
    srv = long_data_server
    c = rawproto.connect(srv, "root", ROOT_PASSWORD)
    stmt, n = _prepare(c, "SELECT LENGTH(?)")
    chunk = b"y" * (MAX_PACKET // 2)
    rss_before = _rss_kib(srv.pid)
    sent = 0
    while sent < total:
        part = chunk[: min(len(chunk), total - sent)]
        _long_data(c, stmt, 0, part)
        sent += len(part)
    assert c.ping().status is not None  # every chunk has been read by now
    grown_kib = _rss_kib(srv.pid) - rss_before
    with pytest.raises(rawproto.ServerError) as ei:
        _execute(c, stmt, n)
    assert (ei.value.code, ei.value.sqlstate, ei.value.message) == LONG_DATA_ERR
    # Buffering stopped at the limit: nowhere near what was sent is held. The growth is a fixed step
    # of the allocator, the same for 1 MiB and 96 MiB sent (10 MiB measured, 16 MiB once 32 system
    # variables were added to the settings table: a layout effect, not buffering), so the bound is
    # a third of the 96 MiB, which buffering everything would pass.
    assert grown_kib < 32 * 1024, f"server grew by {grown_kib} KiB while {sent >> 20} MiB of long data arrived"
    # The statement and the session still work.
    _long_data(c, stmt, 0, b"z" * 10)
    assert _binary_ints(_execute(c, stmt, n)[0], 1) == [10]
    assert c.scalar("SELECT 1") == "1"
    c.close()


def test_long_data_bound_is_per_statement(long_data_server):
    """Two parameters of 600 KiB each pass max_allowed_packet (1 MiB) together."""
    c = rawproto.connect(long_data_server, "root", ROOT_PASSWORD)
    stmt, n = _prepare(c, "SELECT LENGTH(?), LENGTH(?)")
    _long_data(c, stmt, 0, b"a" * (600 << 10))
    _long_data(c, stmt, 1, b"b" * (600 << 10))
    with pytest.raises(rawproto.ServerError) as ei:
        _execute(c, stmt, n)
    assert (ei.value.code, ei.value.sqlstate, ei.value.message) == LONG_DATA_ERR
    # COM_STMT_RESET clears the state too.
    _long_data(c, stmt, 0, b"a" * (MAX_PACKET // 2))
    _long_data(c, stmt, 1, b"b" * (MAX_PACKET // 2 + 1))
    c.command(COM_STMT_RESET, struct.pack("<I", stmt))
    assert rawproto.parse_ok(c.read_packet())
    _long_data(c, stmt, 0, b"a" * 3)
    _long_data(c, stmt, 1, b"b" * 4)
    assert _binary_ints(_execute(c, stmt, n)[0], 2) == [3, 4]
    c.close()


# ------------------------------------------------ 9. protocol edges --
OUT_OF_ORDER = (1156, "08S01", "Got packets out of order")


def _raw_reply(c, timeout=WAIT):
    """(sequence id, payload) of the server's next packet, and whether it then closed."""
    c.sock.settimeout(timeout)
    data = b""
    while len(data) < 4 or len(data) < 4 + int.from_bytes(data[:3], "little"):
        chunk = c.sock.recv(65536)
        assert chunk, "closed without a reply"
        data += chunk
    n = int.from_bytes(data[:3], "little")
    c._buf = data[4 + n :]
    closed, _ = c.wait_closed(timeout)
    return data[3], data[4 : 4 + n], closed


@pytest.mark.parametrize("seq", [1, 5, 255])
def test_command_out_of_order_gets_1156(server, seq):
    c = rawproto.connect(server, "root", ROOT_PASSWORD)
    c.send_raw(b"\x09\x00\x00" + bytes([seq]) + b"\x03SELECT 1")
    reply_seq, payload, closed = _raw_reply(c)
    assert (reply_seq, _err(payload), closed) == (0, OUT_OF_ORDER, True)


@pytest.mark.parametrize("seq", [0, 2, 200])
def test_handshake_out_of_order_gets_1156(server, seq):
    c = rawproto.RawConnection.tcp(server.port)
    packet = _handshake_response(c.read_greeting())
    c.send_raw(packet[:3] + bytes([seq]) + packet[4:])
    reply_seq, payload, closed = _raw_reply(c)
    assert (reply_seq, _err(payload), closed) == (1, OUT_OF_ORDER, True)


def test_continuation_packet_out_of_order_gets_1156(server):
    """A 16 MiB payload's second physical packet with the wrong id."""
    c = rawproto.connect(server, "root", ROOT_PASSWORD)
    first = b"\x03SELECT '" + b"q" * (0xFFFFFF - 9)
    c.send_raw(b"\xff\xff\xff\x00" + first + b"\x02\x00\x00\x07';")
    reply_seq, payload, closed = _raw_reply(c)
    assert (reply_seq, _err(payload), closed) == (0, OUT_OF_ORDER, True)


def test_in_order_packets_still_work(server):
    """The check does not get in the way: pipelined commands, each from 0."""
    c = rawproto.connect(server, "root", ROOT_PASSWORD)
    c.send_raw(b"\x09\x00\x00\x00\x03SELECT 1" * 3)
    for _ in range(3):
        c.seq = 1
        assert c.read_result().rows == [("1",)]
    c.close()


@pytest.fixture(scope="module")
def sql_db(sql_server):
    conn = clients.root(sql_server)
    clients.query(conn, "CREATE DATABASE IF NOT EXISTS sc_msgs")
    conn.close()
    return sql_server


@pytest.mark.parametrize("length", [400, 480, 481, 482, 4 << 20], ids=["short", "510", "511", "512", "4MiB"])
def test_error_messages_cut_at_511_bytes(sql_db, length):
    """Messages echoing a name: `Table 'sc_msgs.<name>' doesn't exist` is
    30 bytes plus the name; cut to 511 bytes as MySQL's MYSQL_ERRMSG_SIZE."""
    name = "t" * length
    full = f"Table 'sc_msgs.{name}' doesn't exist"
    c = rawproto.connect(sql_db, "root", ROOT_PASSWORD, db="sc_msgs")
    with pytest.raises(rawproto.ServerError) as ei:
        c.query(f"SELECT * FROM {name}")
    assert (ei.value.code, ei.value.sqlstate) == (1146, "42S02")
    assert ei.value.message == full[:511]
    assert c.scalar("SELECT 1") == "1"
    c.close()


def test_error_messages_cut_for_init_db_and_change_user(sql_db):
    c = rawproto.connect(sql_db, "root", ROOT_PASSWORD)
    with pytest.raises(rawproto.ServerError) as ei:
        c.init_db("d" * (4 << 20))
    assert len(ei.value.message.encode()) == 511
    assert ei.value.message.startswith("Unknown database 'ddd")
    # A cut never splits a UTF-8 character (é is two bytes).
    with pytest.raises(rawproto.ServerError) as ei:
        c.init_db("é" * 300)
    assert len(ei.value.message.encode()) == 510
    with pytest.raises(rawproto.ServerError) as ei:
        c.change_user("u" * (4 << 20), "pw")
    assert ei.value.code == 1045
    assert len(ei.value.message.encode()) == 511
    assert ei.value.message.startswith("Access denied for user 'uuu")
    c.close()


def _nofile(n):
    def set_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))

    return set_limit


def test_max_connections_follows_open_file_limit(server_factory):
    """ulimit -n 256: 256 - 64 reserved - 16 admin-port - 131 threads waiting
    in accept (thread_cache_size 128 + one per listener) = 45 connections,
    said once in the log and applied; 300 clients connecting at once each get
    a greeting or 1040, none hangs."""
    srv = server_factory("--connect-timeout", "120", preexec_fn=_nofile(256))
    lowered = [l for l in srv.log_tail(200).splitlines() if "max_connections lowered" in l]
    assert len(lowered) == 1 and "to 45" in lowered[0], lowered
    conn = clients.root(srv)
    assert clients.scalar(conn, "SELECT @@global.max_connections") == 45
    conn.close()
    socks = [_tcp(srv.port) for _ in range(300)]
    try:
        firsts = [_first_packet(s) for s in socks]
        assert all(p is not None for p in firsts), f"{sum(p is None for p in firsts)} of 300 clients got nothing"
        assert all(p[:1] in (b"\x0a", b"\xff") for p in firsts)
        _root_everywhere(srv)
    finally:
        _close_all(socks)


def test_out_of_descriptors_answers_1040_and_logs_little(server_factory):
    """The admin port allows more connections than descriptors remain
    (admin_max_connections 300 under ulimit -n 128): once accept fails with
    EMFILE, every further client still gets an answer (1040 from the reserve
    descriptor) instead of hanging, and "accept failed" is logged at most once
    per 5 s. The server recovers when the connections go (a small thread
    cache: each thread waiting in accept holds a descriptor)."""
    srv = server_factory("--connect-timeout", "120", "--admin-max-connections", "300", "--thread-cache-size", "4", preexec_fn=_nofile(128))
    socks = []
    try:
        t0 = time.monotonic()
        answers = []
        for i in range(160):
            s = _tcp(srv.admin_port if i < 140 else srv.port)
            socks.append(s)
            answers.append(_first_packet(s))
        assert all(p is not None for p in answers), f"{sum(p is None for p in answers)} clients got no answer"
        refused = [p for p in answers if p[:1] == b"\xff"]
        assert refused, "the descriptors never ran out"
        # In place of the greeting: no SQLSTATE, as MariaDB sends it (the
        # client's protocol is not known yet; drivers show "Error 1040: ...").
        assert all(_err(p) == (1040, None, "Too many connections") for p in refused)
        time.sleep(1)
        elapsed = time.monotonic() - t0
        lines = [l for l in srv.log_tail(2000).splitlines() if "accept failed" in l]
        assert 1 <= len(lines) <= 1 + elapsed / 5, f"{len(lines)} 'accept failed' lines in {elapsed:.1f}s"
    finally:
        _close_all(socks)
    assert clients.wait_until(lambda: _try_root(srv), timeout=WAIT)


def _try_root(srv):
    try:
        _root_everywhere(srv)
        return True
    except (rawproto.ServerError, rawproto.ConnectionClosed, OSError):
        return False
