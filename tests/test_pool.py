"""Pool-of-threads scheduler: behaviour that only the pool has.

- 10,000 idle connections, spread over two client processes and two 127.0.0.x
  source addresses, held by a handful of threads; a new client is still served.
- A client that sends half a packet and stops holds no worker.
- Clients that ask for results far larger than the socket buffer and never
  read them do not hold workers: everyone else's queries still complete.
- Every worker busy in a CPU-bound statement (no wait hook): the stall detector
  adds a worker and a new connection is served.
- Every worker blocked in SLEEP with the thread cap reached: the admin port
  still answers, and KILL from it unblocks the pool.

The whole suite also runs under pool-of-threads (scripts/test.sh); these tests
force the pool themselves, so they are skipped in the thread-per-connection pass.
"""

import os
import shutil
import socket
import subprocess
import sys
import threading
import time

import pytest

from helpers import clients
from helpers.rawproto import RawConnection

POOL = ("--thread-handling", "pool-of-threads")

pytestmark = pytest.mark.skipif(
    os.environ.get("TURNSTILE_THREAD_HANDLING") == "one-thread-per-connection",
    reason="pool-only tests run in the pool-of-threads pass",
)

HERE = os.path.dirname(os.path.abspath(__file__))


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def threads_of(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return 0


def test_ten_thousand_idle_connections(server_factory, root_password):
    srv = server_factory(*POOL, "--max-connections", "12000", "--thread-pool-size", "2")
    before = rss_kib(srv.pid)
    procs = []
    try:
        for src in ("127.0.0.2", "127.0.0.3"):
            procs.append(
                subprocess.Popen(
                    [sys.executable, os.path.join(HERE, "helpers", "idle_horde.py"), str(srv.port), "5000", src, "root", root_password],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
        ready = 0
        for p in procs:
            line = p.stdout.readline().strip()
            assert line.startswith("READY "), line
            ready += int(line.split()[1])
        assert ready == 10000
        conn = clients.root(srv)
        try:
            assert clients.status(conn, "Threads_connected") >= 10001
            assert clients.scalar(conn, "SELECT 40 + 2") == 42
            pool_threads = clients.status(conn, "Threadpool_threads")
        finally:
            conn.close()
        # Idle connections take no thread each.
        assert threads_of(srv.pid) < 100
        assert pool_threads < 50
        per_conn = (rss_kib(srv.pid) - before) / 10000
        print(f"RSS per idle pool connection: {per_conn:.1f} KiB")
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        for p in procs:
            line = p.stdout.readline().strip()
            parts = line.split()
            assert parts[0] == "ALIVE" and parts[1] == parts[3], line
    finally:
        for p in procs:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()


def test_half_packet_holds_no_worker(server_factory, root_password):
    srv = server_factory(*POOL, "--thread-pool-size", "1", "--thread-pool-oversubscribe", "0", "--thread-pool-max-threads", "2")
    stalled = []
    try:
        for _ in range(5):
            c = RawConnection.tcp(srv.port)
            c.handshake("root", root_password)
            # A packet header announcing 100 bytes, then only 3 of them.
            c.send_raw(b"\x64\x00\x00\x00\x03SEL")
            stalled.append(c)
        conn = clients.root(srv, read_timeout=10)
        try:
            for i in range(20):
                assert clients.scalar(conn, f"SELECT {i}") == i
        finally:
            conn.close()
    finally:
        for c in stalled:
            c.close()


def test_slow_readers_do_not_block_others(server_factory, root_password):
    srv = server_factory(*POOL, "--thread-pool-size", "1", "--thread-pool-oversubscribe", "1", "--thread-pool-max-threads", "3")
    slow = []
    try:
        for _ in range(20):
            c = RawConnection.tcp(srv.port)
            c.handshake("root", root_password)
            # 4 MB: far more than the socket buffers hold, so the server's write
            # would block. The client reads nothing for now.
            c.command(0x03, b"SELECT REPEAT('x', 4000000)")
            slow.append(c)
        conn = clients.root(srv, read_timeout=10)
        try:
            for i in range(30):
                assert clients.scalar(conn, f"SELECT {i} + 1") == i + 1
            assert clients.status(conn, "Threadpool_threads") <= 3
        finally:
            conn.close()
        # The slow clients still get their complete results when they read.
        r = slow[0].read_result()
        assert len(r.rows) == 1 and len(r.rows[0][0]) == 4000000
    finally:
        for c in slow:
            c.close()


def test_stall_detection_adds_a_worker(server_factory):
    srv = server_factory(*POOL, "--thread-pool-size", "1", "--thread-pool-oversubscribe", "0", "--thread-pool-stall-limit", "100")
    busy = clients.root(srv, read_timeout=120)
    result = {}

    def spin():
        try:
            result["v"] = clients.scalar(busy, "SELECT BENCHMARK(2000000000, 1+1)")
        except Exception as e:  # killed below
            result["err"] = clients.error_code(e)

    t = threading.Thread(target=spin, daemon=True)
    t.start()
    try:
        watcher = clients.connect(srv, transport="admin")
        assert clients.wait_until(lambda: any(r[7] and "BENCHMARK" in r[7] for r in clients.query(watcher, "SHOW FULL PROCESSLIST")), 10)
        # The only worker is busy with no wait hook; the stall detector must add one.
        other = clients.root(srv, read_timeout=30)
        assert clients.scalar(other, "SELECT 7") == 7
        assert clients.status(watcher, "Threadpool_stalls") >= 1
        other.close()
        busy_id = busy.thread_id()
        clients.query(watcher, f"KILL QUERY {busy_id}")
        t.join(30)
        assert not t.is_alive()
        assert result.get("err") == 1317
        watcher.close()
    finally:
        busy.close()


def test_admin_port_when_pool_saturated(server_factory):
    srv = server_factory(*POOL, "--thread-pool-size", "1", "--thread-pool-max-threads", "2")
    sleepers = [clients.root(srv, read_timeout=120) for _ in range(2)]
    results = []

    def sleep(c):
        try:
            results.append(clients.scalar(c, "SELECT SLEEP(60)"))
        except Exception as e:
            results.append(e)

    threads = [threading.Thread(target=sleep, args=(c,), daemon=True) for c in sleepers]
    for t in threads:
        t.start()
    admin = clients.connect(srv, transport="admin")
    try:
        assert clients.wait_until(lambda: sum(1 for r in clients.query(admin, "SHOW PROCESSLIST") if r[7] and "SLEEP" in r[7]) == 2, 10)
        # Both workers (the cap) are asleep: a new client waits for a worker.
        late = {}

        def late_client():
            try:
                c = clients.root(srv, read_timeout=60, timeout=60)
                late["v"] = clients.scalar(c, "SELECT 99")
                c.close()
            except Exception as e:
                late["err"] = e

        lt = threading.Thread(target=late_client, daemon=True)
        lt.start()
        time.sleep(1.0)
        assert "v" not in late
        # The admin port answers, and KILL from it unblocks the pool.
        assert clients.status(admin, "Threadpool_threads") <= 2
        for c in sleepers:
            clients.query(admin, f"KILL QUERY {c.thread_id()}")
        lt.join(30)
        assert late.get("v") == 99, late
        for t in threads:
            t.join(10)
        assert results == [1, 1]
    finally:
        admin.close()
        for c in sleepers:
            c.close()


def worker_nice_values(pid: int) -> list:
    values = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                comm = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread exited meanwhile
        if comm == "ts-pool":
            values.append(int(fields[16]))  # field 19 of stat: nice
    return values


@pytest.mark.skipif(os.geteuid() != 0, reason="raising a thread's priority needs CAP_SYS_NICE")
def test_workers_run_at_thread_pool_nice(server_factory):
    """thread_pool_nice gives every pool worker that nice value (workers added
    later included), and the connection threads of the admin port keep the
    process's; 0 leaves workers alone."""
    srv = server_factory(*POOL, "--thread-pool-nice", "-7", "--thread-pool-size", "2")
    conns = [clients.root(srv) for _ in range(4)]
    try:
        for c in conns:
            assert clients.scalar(c, "SELECT 1") == 1
        nice = worker_nice_values(srv.pid)
        assert len(nice) >= 2 and set(nice) == {-7}, nice
    finally:
        for c in conns:
            c.close()
    plain = server_factory(*POOL, "--thread-pool-nice", "0")
    c = clients.root(plain)
    try:
        assert clients.scalar(c, "SELECT 1") == 1
        assert set(worker_nice_values(plain.pid)) == {0}
    finally:
        c.close()


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv (util-linux)")
def test_thread_pool_nice_without_privilege_is_logged(server_factory, tmp_path):
    """Where the process may not raise priority (here: started without
    CAP_SYS_NICE), workers keep the process's priority, the log says so once,
    and the pool serves as usual."""
    wrapper = tmp_path / "turnstile-no-sys-nice"
    srv = server_factory.new(*POOL, "--thread-pool-nice", "-20", "--thread-pool-size", "2")
    wrapper.write_text(f'#!/bin/sh\nexec setpriv --bounding-set -sys_nice -- "{srv.binary}" "$@"\n')
    wrapper.chmod(0o755)
    srv.binary = wrapper
    srv.start()
    conns = [clients.root(srv) for _ in range(3)]
    try:
        for c in conns:
            assert clients.scalar(c, "SELECT 1") == 1
        assert set(worker_nice_values(srv.pid)) == {0}
        log = srv.log_tail(500)
        assert log.count("thread_pool_nice needs CAP_SYS_NICE") == 1, log
    finally:
        for c in conns:
            c.close()
