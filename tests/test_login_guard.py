"""Defences against password guessing and handshake floods (issue #25,
guard.rs): after connection_control_failed_connections_threshold failed
logins of one user from one host, each further attempt's answer waits (a
right password too) and the wait holds no pool worker; a success ends the
series; unknown users and wrong passwords get the same answer;
max_connect_errors blocks a host whose connections break off before a
login (1129) until FLUSH HOSTS; Access_denied_errors and
Connection_control_delay_generated count it all."""

import socket
import threading
import time

import pymysql
import pytest

from helpers import clients, rawproto
from helpers.server import ROOT_PASSWORD


def attempt(server, user, password, **kw):
    """(error code or 0, seconds) of one login."""
    t0 = time.monotonic()
    try:
        clients.connect(server, user, password, ssl_disabled=True, **kw).close()
        code = 0
    except pymysql.err.OperationalError as e:
        code = e.args[0]
    return code, time.monotonic() - t0


def test_failed_logins_slow_the_next_attempts_and_a_success_ends_it(server_factory, uniq):
    srv = server_factory()
    user = uniq("guess")
    root = clients.root(srv, transport="socket")
    clients.query(root, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'right'")
    for _ in range(3):
        code, took = attempt(srv, user, "wrong")
        assert code == 1045 and took < 0.5
    code, took = attempt(srv, user, "wrong")
    assert code == 1045 and took >= 0.9, took
    # The right password waits as long: the wait does not tell which it was.
    code, took = attempt(srv, user, "right")
    assert code == 0 and took >= 0.9, took
    # That success ended the series.
    code, took = attempt(srv, user, "right")
    assert code == 0 and took < 0.5, took
    assert clients.status(root, "Connection_control_delay_generated") == 2
    assert clients.status(root, "Access_denied_errors") >= 4
    root.close()


def test_an_unknown_user_is_answered_as_a_wrong_password(server_factory):
    srv = server_factory("--connection-control-failed-connections-threshold=2")
    for _ in range(2):
        assert attempt(srv, "no_such_user", "x")[0] == 1045
    code, took = attempt(srv, "no_such_user", "x")
    assert code == 1045 and took >= 0.9, took


def test_waiting_logins_hold_no_worker_and_others_are_served(server_factory, uniq):
    srv = server_factory("--thread-pool-size=1", "--thread-pool-max-threads=4")
    user = uniq("flood")
    root = clients.root(srv, transport="socket")
    clients.query(root, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'right'")
    for _ in range(3):
        attempt(srv, user, "wrong")
    results = []
    threads = [threading.Thread(target=lambda: results.append(attempt(srv, user, "wrong"))) for _ in range(20)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    # 20 held logins, 4 threads at most: everyone else logs in and runs at once.
    t0 = time.monotonic()
    for _ in range(10):
        c = clients.root(srv)
        assert clients.scalar(c, "SELECT 1") == 1
        c.close()
    assert time.monotonic() - t0 < 2.0
    for t in threads:
        t.join(60)
    assert len(results) == 20 and all(code == 1045 for code, _ in results)
    assert all(took >= 0.9 for _, took in results)
    root.close()


def test_threshold_zero_turns_it_off(server_factory, uniq):
    srv = server_factory()
    root = clients.root(srv, transport="socket")
    clients.query(root, "SET GLOBAL connection_control_failed_connections_threshold = 0")
    t0 = time.monotonic()
    for _ in range(50):
        assert attempt(srv, "nobody", "x")[0] == 1045
    assert time.monotonic() - t0 < 5
    assert clients.status(root, "Connection_control_delay_generated") == 0
    root.close()


def _outside_address():
    """A local address that is not loopback (the host cache ignores loopback), or None."""
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.connect(("192.0.2.1", 9))
        addr = s.getsockname()[0]
        s.close()
        return None if addr.startswith("127.") else addr
    except OSError:
        return None


def test_max_connect_errors_blocks_a_host_until_flush_hosts(server_factory):
    addr = _outside_address()
    if addr is None:
        pytest.skip("no non-loopback address to connect from")
    srv = server_factory("--bind-address=0.0.0.0", "--max-connect-errors=3")
    for _ in range(3):
        c = rawproto.RawConnection.tcp(srv.port, host=addr)
        c.read_greeting()
        c.send_raw(b"\x01\x00\x00\x01\xff")  # a handshake response that is no handshake response
        c.wait_closed(5)
        c.close()
    c = rawproto.RawConnection.tcp(srv.port, host=addr)
    with pytest.raises(rawproto.ServerError) as ei:
        c.read_greeting()
    assert ei.value.code == 1129 and addr in ei.value.message
    c.close()
    # Loopback is never blocked; FLUSH HOSTS unblocks.
    root = clients.root(srv)
    clients.query(root, "FLUSH HOSTS")
    c = rawproto.RawConnection.tcp(srv.port, host=addr)
    c.handshake("root", ROOT_PASSWORD)
    assert c.scalar("SELECT 1") == "1"
    c.close()
    root.close()


def test_handshakes_evicted_past_max_handshakes_count_against_their_host(server_factory):
    """A slow flood from one host past max_handshakes: each newcomer evicts the
    oldest login in progress, each eviction is a broken-off connection of
    that host, and after max_connect_errors of them the host is refused
    with 1129 at once, so its reconnects cost the server almost nothing."""
    addr = _outside_address()
    if addr is None:
        pytest.skip("no non-loopback address to connect from")
    srv = server_factory("--bind-address=0.0.0.0", "--max-connect-errors=5", "--max-handshakes=3", "--connect-timeout=120")
    held, refused = [], None
    try:
        for _ in range(12):
            c = rawproto.RawConnection.tcp(srv.port, host=addr)
            try:
                c.read_greeting()
            except rawproto.ServerError as e:
                refused = e
                c.close()
                break
            held.append(c)
        assert refused is not None and refused.code == 1129
        root = clients.root(srv)
        assert clients.status(root, "Handshakes_evicted") >= 5
        assert clients.status(root, "Handshakes_in_progress") <= 3
        root.close()
    finally:
        for c in held:
            c.close()


def test_held_logins_cannot_take_every_connection_slot(server_factory, uniq):
    # Held logins are not logged in: past max_connections a newcomer takes the
    # slot of the oldest connection still logging in, so a flood of held
    # attempts cannot lock other accounts out.
    srv = server_factory("--max-connections=4", "--connection-control-failed-connections-threshold=1")
    user = uniq("app")
    root = clients.root(srv, transport="socket")
    clients.query(root, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'app-pw'")
    root.close()
    attempt(srv, "intruder", "x")
    held = [threading.Thread(target=attempt, args=(srv, "intruder", "x")) for _ in range(8)]
    for t in held:
        t.start()
    time.sleep(0.5)
    t0 = time.monotonic()
    c = clients.connect(srv, user, "app-pw")  # not an administrator: no extra slot
    assert clients.scalar(c, "SELECT 1") == 1
    assert time.monotonic() - t0 < 1.0
    c.close()
    for t in held:
        t.join(60)
