"""Graceful shutdown: SIGTERM with idle clients attached (TCP, socket and
admin port) makes the server exit with status 0; the clients see their
connections closed; a statement in flight (SELECT SLEEP(2), skipped if
SLEEP() is unsupported) still completes; nothing listens afterwards."""

import signal
import socket
import threading

import pymysql
import pytest

from helpers import clients, rawproto
from helpers.clients import LOST_CONNECTION_CODES
from helpers.server import ROOT_PASSWORD

EXIT_DEADLINE = 15


def test_sigterm_with_idle_clients(server_factory):
    srv = server_factory()
    py = [clients.root(srv, transport=t) for t in ("tcp", "socket", "admin")]
    raws = [rawproto.connect(srv, "root", ROOT_PASSWORD, transport=t) for t in ("tcp", "socket")]
    for c in py:
        assert clients.scalar(c, "SELECT 1") == 1
    srv.send_signal(signal.SIGTERM)
    rc = srv.wait(EXIT_DEADLINE)
    assert rc is not None, f"server still running {EXIT_DEADLINE}s after SIGTERM"
    assert rc == 0, f"exit status {rc}"
    for r in raws:
        closed, packets = r.wait_closed(5)
        assert closed
        for p in packets:
            assert p[:1] == b"\xff", p[:32]  # e.g. 1053 Server shutdown in progress
        r.close()
    for c in py:
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(c, "SELECT 1")
        assert ei.value.args[0] in LOST_CONNECTION_CODES + (1053,), ei.value.args
        c.close()
    # Nothing listens any more.
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", srv.port), timeout=2).close()


def test_sigterm_without_clients(server_factory):
    srv = server_factory()
    srv.send_signal(signal.SIGTERM)
    assert srv.wait(EXIT_DEADLINE) == 0


def test_statement_in_flight_finishes(server_factory):
    srv = server_factory()
    worker = clients.root(srv, read_timeout=30)
    watcher = clients.root(srv)
    try:
        clients.query(worker, "SELECT SLEEP(0)")
    except pymysql.err.MySQLError:
        pytest.skip("SELECT SLEEP() not supported by the server")
    wid = worker.thread_id()
    outcome = {}

    def run():
        try:
            outcome["rows"] = clients.query(worker, "SELECT SLEEP(2)")
        except pymysql.err.MySQLError as e:
            outcome["error"] = e.args

    t = threading.Thread(target=run, daemon=True)
    t.start()

    def in_flight():
        return any(
            int(r[0]) == wid and r[4] == "Query" for r in clients.query(watcher, "SHOW FULL PROCESSLIST")
        )

    assert clients.wait_until(in_flight, timeout=10), "SLEEP(2) never showed up in the processlist"
    srv.send_signal(signal.SIGTERM)
    t.join(EXIT_DEADLINE)
    assert not t.is_alive()
    assert outcome.get("rows") == ((0,),), f"statement in flight did not complete normally: {outcome}"
    rc = srv.wait(EXIT_DEADLINE)
    assert rc == 0, f"exit status {rc}"
    worker.close()
    watcher.close()
