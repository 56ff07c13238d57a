"""sysbench 1.0.20's OLTP scripts against the sqlite engine.

Every listed script is prepared, run (16 threads, 2 s) and cleaned up, with
--db-ps-mode=auto (every statement, BEGIN/COMMIT included, is a server-side
prepared statement with LONGLONG/VAR_STRING parameters sent once) and
--db-ps-mode=disable (text protocol).  A run must exit 0 with no FATAL error:
sysbench aborts on any error except 1213/1020/1205, which it retries
("ignored errors"); their count is printed in the test output and recorded as
a property.  After each run the tables must still be consistent (row counts
as the script implies, one row per id) and cleanup must leave no table.
"""

import os
import re
import shutil
import subprocess

import pytest

from helpers import clients

pytestmark = pytest.mark.skipif(not shutil.which("sysbench"), reason="sysbench not installed")

THREADS = 16
SECONDS = 2
TABLE_SIZE = 1000

SCRIPTS = [
    "oltp_point_select",
    "oltp_read_only",
    "oltp_read_write",
    "oltp_write_only",
    "oltp_insert",
    "oltp_update_index",
    "oltp_update_non_index",
    "oltp_delete",
    "select_random_points",
    "select_random_ranges",
    "bulk_insert",
]
# These two refuse --tables > 1.
SINGLE_TABLE = {"select_random_points", "select_random_ranges"}


@pytest.fixture(scope="module")
def sbdb(sql_server):
    conn = clients.root(sql_server)
    clients.query(conn, "CREATE DATABASE IF NOT EXISTS sbtest")
    conn.close()
    return "sbtest"


def sysbench(server, script, mode, command, tables, extra=()):
    args = [
        "sysbench", script,
        f"--threads={THREADS}", f"--tables={tables}", f"--table-size={TABLE_SIZE}",
        "--db-driver=mysql", f"--db-ps-mode={mode}",
        "--mysql-host=127.0.0.1", f"--mysql-port={server.port}",
        "--mysql-user=root", f"--mysql-password={clients.ROOT_PASSWORD}", "--mysql-db=sbtest",
        *extra, command,
    ]
    return subprocess.run(args, capture_output=True, text=True, timeout=120, cwd="/tmp")


def num(pattern, out):
    m = re.search(pattern, out, re.M)
    assert m, f"{pattern!r} not in sysbench output:\n{out}"
    return int(m.group(1))


@pytest.mark.parametrize("mode", ["auto", "disable"])
@pytest.mark.parametrize("script", SCRIPTS)
def test_sysbench_script(sql_server, sbdb, script, mode, record_property):
    tables = 1 if script in SINGLE_TABLE else 2
    sysbench(sql_server, script, mode, "cleanup", tables)
    prep = sysbench(sql_server, script, mode, "prepare", tables)
    assert prep.returncode == 0 and "FATAL" not in prep.stdout + prep.stderr, prep.stdout + prep.stderr

    run = sysbench(sql_server, script, mode, "run", tables, [f"--time={SECONDS}", "--events=0", "--forced-shutdown=10"])
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "FATAL" not in out, out
    events = num(r"^\s+total number of events:\s+(\d+)", run.stdout)
    ignored = num(r"^\s+ignored errors:\s+(\d+)", run.stdout)
    assert events > 0, out
    record_property("ignored_errors", ignored)
    record_property("events", events)
    print(f"\n{script} ps-mode={mode}: {events} events, {ignored} retried 1213/1205 errors")

    conn = clients.root(sql_server, database="sbtest")
    try:
        for t in range(1, tables + 1):
            total, distinct_ids = clients.query(conn, f"SELECT COUNT(*), COUNT(DISTINCT id) FROM sbtest{t}")[0]
            assert total == distinct_ids, (script, t, total, distinct_ids)
            if script in ("oltp_point_select", "oltp_read_only", "select_random_points", "select_random_ranges", "oltp_update_index", "oltp_update_non_index"):
                assert total == TABLE_SIZE, (script, t, total)
            if script in ("oltp_insert", "bulk_insert"):
                assert total >= TABLE_SIZE if script == "oltp_insert" else total > 0, (script, t, total)
    finally:
        conn.close()

    clean = sysbench(sql_server, script, mode, "cleanup", tables)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    conn = clients.root(sql_server, database="sbtest")
    try:
        assert clients.query(conn, "SHOW TABLES") == ()
    finally:
        conn.close()


def test_sysbench_read_write_read_committed(sql_server, sbdb):
    """oltp_read_write with the server's global isolation at READ COMMITTED:
    reads never hold a snapshot that a later write could find stale, so no
    transaction is rolled back with 1213 (a 1205 lock wait timeout would need a
    writer to hold the lock for 50 s), and the table stays consistent."""
    admin = clients.root(sql_server)
    clients.query(admin, "SET GLOBAL transaction_isolation = 'READ-COMMITTED'")
    try:
        sysbench(sql_server, "oltp_read_write", "auto", "cleanup", 1)
        prep = sysbench(sql_server, "oltp_read_write", "auto", "prepare", 1)
        assert prep.returncode == 0, prep.stdout + prep.stderr
        run = sysbench(sql_server, "oltp_read_write", "auto", "run", 1, [f"--time={SECONDS}", "--events=0", "--forced-shutdown=10"])
        out = run.stdout + run.stderr
        assert run.returncode == 0 and "FATAL" not in out, out
        assert num(r"^\s+total number of events:\s+(\d+)", run.stdout) > 0, out
        assert num(r"^\s+ignored errors:\s+(\d+)", run.stdout) == 0, out
        total, distinct_ids = clients.query(admin, "SELECT COUNT(*), COUNT(DISTINCT id) FROM sbtest.sbtest1")[0]
        assert total == distinct_ids == TABLE_SIZE, (total, distinct_ids)
        sysbench(sql_server, "oltp_read_write", "auto", "cleanup", 1)
    finally:
        clients.query(admin, "SET GLOBAL transaction_isolation = 'REPEATABLE-READ'")
        admin.close()
