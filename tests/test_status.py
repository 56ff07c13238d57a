"""Introspection: SHOW [GLOBAL|SESSION] STATUS counters exist and move
(Connections, Questions, Threads_connected, Max_used_connections,
Aborted_connects, Aborted_clients, Threads_*), SHOW VARIABLES [LIKE], and
SHOW [FULL] PROCESSLIST (columns, one row per session, Command/Info/db)."""

import socket

import pymysql
import pytest

from helpers import clients, rawproto
from helpers.server import ROOT_PASSWORD

COUNTERS = [
    "Connections",
    "Threads_connected",
    "Threads_created",
    "Threads_cached",
    "Threads_running",
    "Aborted_connects",
    "Aborted_clients",
    "Max_used_connections",
    "Questions",
    "Uptime",
]
# MariaDB 10.11 adds Progress (stage progress, 0.000 for us).
PROCESSLIST_COLUMNS = ["Id", "User", "Host", "db", "Command", "Time", "State", "Info", "Progress"]


@pytest.mark.parametrize("scope", ["", "GLOBAL ", "SESSION "])
def test_show_status_has_counters(root_conn, scope):
    with root_conn.cursor() as cur:
        cur.execute(f"SHOW {scope}STATUS")
        assert [d[0] for d in cur.description] == ["Variable_name", "Value"]
        values = dict(cur.fetchall())
    for name in COUNTERS:
        assert name in values, f"SHOW {scope}STATUS lacks {name}"
        assert int(values[name]) >= 0, (name, values[name])
    assert int(values["Threads_connected"]) >= 1
    assert int(values["Threads_running"]) >= 1  # this statement
    assert int(values["Max_used_connections"]) >= int(values["Threads_connected"])


def test_show_status_like_filters(root_conn):
    rows = clients.query(root_conn, "SHOW GLOBAL STATUS LIKE 'Threads%'")
    names = {r[0] for r in rows}
    assert {"Threads_connected", "Threads_created", "Threads_cached", "Threads_running"} <= names
    assert all(n.lower().startswith("threads") for n in names), names
    assert clients.query(root_conn, "SHOW STATUS LIKE 'No_such_counter'") == ()


def test_connections_counter_increases(server, root_conn):
    before = clients.status(root_conn, "Connections")
    for transport in ("tcp", "socket"):
        clients.root(server, transport=transport).close()
    after = clients.status(root_conn, "Connections")
    assert after >= before + 2, (before, after)


def test_questions_counter_increases(root_conn):
    before = clients.status(root_conn, "Questions")
    for _ in range(5):
        clients.query(root_conn, "SELECT 1")
    after = clients.status(root_conn, "Questions")
    # 5 SELECTs plus the SHOW STATUS itself.
    assert after >= before + 6, (before, after)


def test_threads_connected_follows_sessions(server, root_conn):
    base = clients.status(root_conn, "Threads_connected")
    extra = [clients.root(server) for _ in range(3)]
    try:
        assert clients.status(root_conn, "Threads_connected") >= base + 3
        assert clients.status(root_conn, "Max_used_connections") >= base + 3
    finally:
        for c in extra:
            c.close()
    assert clients.wait_until(lambda: clients.status(root_conn, "Threads_connected") <= base, timeout=10)


def test_aborted_connects_counts_failed_logins(server, root_conn):
    before = clients.status(root_conn, "Aborted_connects")
    with pytest.raises(pymysql.err.OperationalError):
        clients.connect(server, "root", "definitely-wrong")
    assert clients.wait_until(lambda: clients.status(root_conn, "Aborted_connects") >= before + 1, timeout=5)


@pytest.mark.mysql_compat
def test_aborted_clients_counts_dropped_sessions(server, root_conn):
    before = clients.status(root_conn, "Aborted_clients")
    c = rawproto.connect(server, "root", ROOT_PASSWORD)
    assert c.scalar("SELECT 1") == "1"
    c.sock.shutdown(socket.SHUT_RDWR)  # vanish without COM_QUIT
    c.close()
    assert clients.wait_until(lambda: clients.status(root_conn, "Aborted_clients") >= before + 1, timeout=10)


def test_uptime(root_conn):
    assert clients.status(root_conn, "Uptime") >= 0


def _connect_close_one_by_one(srv, watcher, n):
    base = clients.status(watcher, "Threads_connected")
    for _ in range(n):
        clients.root(srv).close()
        assert clients.wait_until(lambda: clients.status(watcher, "Threads_connected") <= base, timeout=10)


@pytest.mark.mysql_compat
def test_thread_cache_reuses_threads(server_factory):
    srv = server_factory("--thread-cache-size", "4", "--thread-handling", "one-thread-per-connection")
    watcher = clients.root(srv)
    try:
        assert clients.scalar(watcher, "SELECT @@thread_cache_size") == 4
        created = clients.status(watcher, "Threads_created")
        _connect_close_one_by_one(srv, watcher, 6)
        # Sequential sessions: at most one new thread, then it is reused.
        assert clients.status(watcher, "Threads_created") - created <= 1
        assert 1 <= clients.status(watcher, "Threads_cached") <= 4
        assert clients.status(watcher, "Connections") >= 7
    finally:
        watcher.close()


@pytest.mark.mysql_compat
def test_thread_cache_disabled(server_factory):
    srv = server_factory("--thread-cache-size", "0", "--thread-handling", "one-thread-per-connection")
    watcher = clients.root(srv)
    try:
        assert clients.scalar(watcher, "SELECT @@thread_cache_size") == 0
        created = clients.status(watcher, "Threads_created")
        _connect_close_one_by_one(srv, watcher, 4)
        assert clients.status(watcher, "Threads_created") - created == 4
        assert clients.status(watcher, "Threads_cached") == 0
    finally:
        watcher.close()


def test_show_variables(server, root_conn):
    rows = clients.query(root_conn, "SHOW VARIABLES LIKE 'max_connections'")
    assert rows == (("max_connections", "100"),)
    rows = dict(clients.query(root_conn, "SHOW VARIABLES LIKE '%timeout'"))
    for name in ("connect_timeout", "wait_timeout", "interactive_timeout", "net_read_timeout"):
        assert name in rows and int(rows[name]) > 0, (name, rows)
    with root_conn.cursor() as cur:
        cur.execute("SHOW VARIABLES")
        assert [d[0] for d in cur.description] == ["Variable_name", "Value"]
        everything = dict(cur.fetchall())
    assert everything["socket"] == server.socket
    assert everything["version"] == clients.scalar(root_conn, "SELECT @@version")
    assert "max_allowed_packet" in everything and "autocommit" in everything
    assert clients.query(root_conn, "SHOW SESSION VARIABLES LIKE 'autocommit'") == (("autocommit", "ON"),)
    clients.query(root_conn, "SET autocommit = 0")
    assert clients.query(root_conn, "SHOW SESSION VARIABLES LIKE 'autocommit'") == (("autocommit", "OFF"),)


@pytest.mark.parametrize("full", ["", "FULL "])
def test_processlist(server, root_conn, full):
    clients.query(root_conn, "CREATE DATABASE IF NOT EXISTS plist_db")
    idle = clients.root(server, database="plist_db")
    over_socket = clients.root(server, transport="socket")
    try:
        with root_conn.cursor() as cur:
            cur.execute(f"SHOW {full}PROCESSLIST")
            assert [d[0] for d in cur.description] == PROCESSLIST_COLUMNS
            rows = {int(r[0]): r for r in cur.fetchall()}
        me = rows[root_conn.thread_id()]
        assert me[1] == "root"
        assert me[4] == "Query"
        assert me[7] == f"SHOW {full}PROCESSLIST"
        other = rows[idle.thread_id()]
        assert other[1] == "root"
        assert other[3] == "plist_db"
        assert other[4] == "Sleep"
        assert other[7] is None
        assert other[2].startswith(("127.0.0.1", "localhost")), other[2]
        sock_row = rows[over_socket.thread_id()]
        assert sock_row[2] == "localhost", sock_row
        assert int(other[5]) >= 0
    finally:
        idle.close()
        over_socket.close()


@pytest.mark.mysql_compat
def test_idle_cached_threads_retire(server_factory):
    """Cached threads beyond one waiter per listener retire after thread_idle_timeout."""
    srv = server_factory("--thread-cache-size", "8", "--thread-idle-timeout", "1", "--connect-timeout", "2",
                         "--thread-handling", "one-thread-per-connection")
    watcher = clients.root(srv)
    try:
        burst = [clients.root(srv) for _ in range(5)]
        for c in burst:
            c.close()
        assert clients.wait_until(lambda: clients.status(watcher, "Threads_cached") >= 3, timeout=10)
        # Idle waiters wake at least every connect_timeout (the listener's SO_RCVTIMEO).
        assert clients.wait_until(lambda: clients.status(watcher, "Threads_cached") == 0, timeout=15)
        # And the server still accepts.
        clients.root(srv).close()
    finally:
        watcher.close()
