"""Server-side timeouts: connect_timeout (a client that connects and never
answers the greeting is dropped), wait_timeout (an idle authenticated session
is closed), interactive_timeout (CLIENT_INTERACTIVE sessions get it as their
wait_timeout), --net-read-timeout, and a command packet that stops half-way.

The tests wait for the server to close the socket (bounded by generous
deadlines) rather than asserting how fast it does so."""

import time

import pymysql
import pymysql.constants.CLIENT as CLIENT
import pytest

from helpers import clients, rawproto
from helpers.clients import LOST_CONNECTION_CODES
from helpers.server import ROOT_PASSWORD

DEADLINE = 15  # seconds we are willing to wait for a 2 s timeout to fire


@pytest.mark.parametrize("read_greeting", [True, False], ids=["greeting-read", "greeting-unread"])
def test_connect_timeout_drops_silent_client(server_factory, read_greeting):
    srv = server_factory("--connect-timeout", "2", "--wait-timeout", "3600")
    c = rawproto.RawConnection.tcp(srv.port)
    try:
        if read_greeting:
            g = c.read_greeting()
            assert g.protocol_version == 10
        t0 = time.monotonic()
        closed, packets = c.wait_closed(DEADLINE)
        elapsed = time.monotonic() - t0
        assert closed, f"silent client still connected after {DEADLINE}s with connect_timeout=2"
        assert elapsed >= 1.0, f"closed after {elapsed:.2f}s, before connect_timeout could expire"
        for p in packets:
            assert p[:1] in (b"\x0a", b"\xff"), p[:32]
    finally:
        c.close()
    conn = clients.root(srv)
    assert clients.scalar(conn, "SELECT @@connect_timeout") == 2
    assert clients.status(conn, "Aborted_connects") >= 1
    conn.close()


def test_connect_timeout_does_not_apply_after_login(server_factory):
    srv = server_factory("--connect-timeout", "2", "--wait-timeout", "3600")
    conn = clients.root(srv)
    raw = rawproto.connect(srv, "root", ROOT_PASSWORD)
    try:
        closed, _ = raw.wait_closed(4)  # twice connect_timeout, idle
        assert not closed, "an authenticated idle session was dropped by connect_timeout"
        assert raw.scalar("SELECT 1") == "1"
        assert clients.scalar(conn, "SELECT 1") == 1
    finally:
        raw.close()
        conn.close()


def test_wait_timeout_closes_idle_session(server_factory):
    srv = server_factory("--wait-timeout", "2")
    conn = clients.root(srv)
    try:
        assert clients.scalar(conn, "SELECT @@session.wait_timeout") == 2
        assert clients.scalar(conn, "SELECT @@global.wait_timeout") == 2
        assert clients.wait_socket_closed(conn, DEADLINE), "idle session not closed by wait_timeout=2"
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(conn, "SELECT 1")
        # Lost connection; MySQL 8.0.24+ may first deliver ER_CLIENT_INTERACTION_TIMEOUT (4031).
        assert ei.value.args[0] in LOST_CONNECTION_CODES + (4031,), ei.value.args
    finally:
        conn.close()
    fresh = clients.root(srv)
    assert clients.scalar(fresh, "SELECT 1") == 1
    fresh.close()


def test_wait_timeout_raw_socket_sees_close(server_factory):
    srv = server_factory("--wait-timeout", "2")
    with rawproto.connect(srv, "root", ROOT_PASSWORD, transport="socket") as c:
        assert c.scalar("SELECT 1") == "1"
        closed, packets = c.wait_closed(DEADLINE)
        assert closed
        for p in packets:
            assert p[:1] == b"\xff", p[:32]


def test_session_wait_timeout_overrides_global(server_factory):
    srv = server_factory("--wait-timeout", "3600")
    conn = clients.root(srv)
    other = clients.root(srv)
    try:
        clients.query(conn, "SET SESSION wait_timeout = 2")
        assert clients.wait_socket_closed(conn, DEADLINE), "SET SESSION wait_timeout=2 not honoured"
        # The other session (global default) is unaffected.
        assert clients.scalar(other, "SELECT @@session.wait_timeout") == 3600
        assert clients.scalar(other, "SELECT 1") == 1
    finally:
        conn.close()
        other.close()


def test_interactive_session_uses_interactive_timeout(server_factory):
    srv = server_factory("--wait-timeout", "2", "--interactive-timeout", "1000")
    inter = clients.root(srv, client_flag=CLIENT.INTERACTIVE)
    try:
        assert clients.scalar(inter, "SELECT @@global.interactive_timeout") == 1000
        closed = clients.wait_socket_closed(inter, 4)
        assert not closed, "interactive session dropped after wait_timeout instead of interactive_timeout"
        assert clients.scalar(inter, "SELECT 1") == 1
    finally:
        inter.close()


@pytest.mark.mysql_compat
def test_interactive_session_wait_timeout_variable(server_factory):
    """MySQL initialises an interactive session's wait_timeout from the
    global interactive_timeout, so @@session.wait_timeout shows it."""
    srv = server_factory("--wait-timeout", "2", "--interactive-timeout", "1000")
    inter = clients.root(srv, client_flag=CLIENT.INTERACTIVE)
    plain = clients.root(srv)
    try:
        assert clients.scalar(inter, "SELECT @@session.wait_timeout") == 1000
        assert clients.scalar(inter, "SELECT @@global.wait_timeout") == 2
        assert clients.scalar(plain, "SELECT @@session.wait_timeout") == 2
    finally:
        inter.close()
        plain.close()


@pytest.mark.mysql_compat
def test_interactive_session_honours_set_session_wait_timeout(server_factory):
    """Once initialised, wait_timeout is what governs an interactive session
    too: SET SESSION wait_timeout = 2 makes it time out."""
    srv = server_factory("--wait-timeout", "3600", "--interactive-timeout", "3600")
    inter = clients.root(srv, client_flag=CLIENT.INTERACTIVE)
    try:
        clients.query(inter, "SET SESSION wait_timeout = 2")
        assert clients.wait_socket_closed(inter, DEADLINE), "interactive session ignored SET SESSION wait_timeout"
    finally:
        inter.close()


def test_net_read_timeout_variable(server_factory):
    srv = server_factory("--net-read-timeout", "7")
    conn = clients.root(srv)
    try:
        assert clients.scalar(conn, "SELECT @@net_read_timeout") == 7
        assert clients.scalar(conn, "SELECT @@global.net_read_timeout") == 7
        assert clients.query(conn, "SHOW VARIABLES LIKE 'net_read_timeout'") == (("net_read_timeout", "7"),)
    finally:
        conn.close()


def test_partial_command_packet_times_out(server_factory):
    """A command packet that stops half-way must not pin the session forever
    (MySQL applies wait_timeout to the whole command read; a server applying
    net_read_timeout to the remainder passes too)."""
    srv = server_factory("--net-read-timeout", "2", "--wait-timeout", "2")
    with rawproto.connect(srv, "root", ROOT_PASSWORD) as c:
        assert int(c.scalar("SELECT @@net_read_timeout")) == 2
        # Header announces 100 bytes of COM_QUERY, only 10 arrive.
        c.send_raw((100).to_bytes(3, "little") + b"\x00" + b"\x03SELECT 1 ")
        closed, _ = c.wait_closed(DEADLINE)
        assert closed, "server waited forever for the rest of a packet"
    conn = clients.root(srv)
    assert clients.scalar(conn, "SELECT 1") == 1
    conn.close()
