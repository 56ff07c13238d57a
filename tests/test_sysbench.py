"""sysbench 1.0.20 with tests/lua/connect_select1.lua (every event: connect,
SELECT 1, disconnect) for 3 s with 8 threads, over TCP and over the unix
socket, for a mysql_native_password and a caching_sha2_password user.  The
run must finish with zero errors, every event must have been a new server
connection, and no session may be left behind."""

import os
import re
import shutil
import subprocess

import pytest

from helpers import clients

LUA = os.path.join(os.path.dirname(__file__), "lua", "connect_select1.lua")
THREADS = 8
SECONDS = 3

pytestmark = pytest.mark.skipif(not shutil.which("sysbench"), reason="sysbench not installed")

USERS = {
    "mysql_native_password": ("sb_native", "sb-native-pw"),
    "caching_sha2_password": ("sb_sha2", "sb-sha2-pw"),
}


@pytest.fixture(scope="module")
def sb_users(server):
    conn = clients.root(server)
    clients.query(conn, "CREATE DATABASE IF NOT EXISTS sbtest")
    for plugin, (user, pw) in USERS.items():
        clients.query(conn, f"CREATE USER '{user}'@'%' IDENTIFIED WITH {plugin} BY '{pw}'")
        clients.query(conn, f"GRANT ALL ON sbtest.* TO '{user}'@'%'")
    conn.close()
    return USERS


def parse_sysbench(out: str) -> dict:
    def num(pattern):
        m = re.search(pattern, out, re.M)
        assert m, f"pattern {pattern!r} not found in sysbench output:\n{out}"
        return int(m.group(1))

    return {
        "read": num(r"^\s+read:\s+(\d+)"),
        "total_queries": num(r"^\s+total:\s+(\d+)"),
        "transactions": num(r"^\s+transactions:\s+(\d+)"),
        "ignored_errors": num(r"^\s+ignored errors:\s+(\d+)"),
        "reconnects": num(r"^\s+reconnects:\s+(\d+)"),
        "events": num(r"^\s+total number of events:\s+(\d+)"),
    }


def run_sysbench(server, user, pw, transport):
    args = [
        "sysbench", LUA,
        f"--threads={THREADS}", f"--time={SECONDS}", "--events=0", "--forced-shutdown=10",
        "--db-driver=mysql", "--db-ps-mode=disable",
        f"--mysql-user={user}", f"--mysql-password={pw}", "--mysql-db=sbtest",
    ]
    if transport == "tcp":
        args += ["--mysql-host=127.0.0.1", f"--mysql-port={server.port}"]
    else:
        args += ["--mysql-host=localhost", f"--mysql-socket={server.socket}"]
    args.append("run")
    return subprocess.run(args, capture_output=True, text=True, timeout=60, cwd="/tmp")


@pytest.mark.parametrize("transport", ["tcp", "socket"])
@pytest.mark.parametrize("plugin", list(USERS))
def test_sysbench_connect_select1(server, sb_users, root_conn, plugin, transport):
    user, pw = sb_users[plugin]
    conns_before = clients.status(root_conn, "Connections")
    threads_before = clients.status(root_conn, "Threads_connected")

    res = run_sysbench(server, user, pw, transport)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert "FATAL" not in out, out
    stats = parse_sysbench(res.stdout)
    assert stats["events"] > 0, out
    assert stats["ignored_errors"] == 0, out
    assert stats["reconnects"] == 0, out
    # One SELECT 1 per event.
    assert stats["read"] == stats["events"] == stats["total_queries"], stats

    # Every event was a separate login...
    conns_after = clients.status(root_conn, "Connections")
    assert conns_after - conns_before >= stats["events"], (conns_before, conns_after, stats)
    # ...and every one of them is gone again.
    assert clients.wait_until(
        lambda: clients.status(root_conn, "Threads_connected") <= threads_before, timeout=15
    ), "sessions left behind after sysbench"
    assert clients.scalar(root_conn, "SELECT 1") == 1
