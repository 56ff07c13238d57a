"""Runaway statements end: max_execution_time, recursion depth, a vanished client.

A recursive CTE that never ends is the simplest runaway statement any account
can send. MySQL stops a SELECT at `max_execution_time` (session or global
variable, or the `/*+ MAX_EXECUTION_TIME(n) */` hint) with 3024, stops a
recursive CTE at `cte_max_recursion_depth` iterations with 3636, and a
statement whose client disconnected is cancelled instead of running on for
nobody.
"""

from __future__ import annotations

import socket
import time

import pymysql
import pytest

from helpers import clients, rawproto

# UNION DISTINCT: not stopped by cte_max_recursion_depth here (see cte.rs), so
# it runs until something else ends it.
FOREVER = "WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r WHERE n < 100000000000) SELECT COUNT(*) FROM r"


def _err(conn, sql):
    t = time.monotonic()
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, sql)
    return ei.value.args[0], time.monotonic() - t


def test_max_execution_time_session_variable(sql_conn):
    clients.query(sql_conn, "SET SESSION max_execution_time = 300")
    try:
        code, secs = _err(sql_conn, FOREVER)
        assert code == 3024 and secs < 10, (code, secs)
        assert clients.scalar(sql_conn, "SELECT @@max_execution_time") == 300
        # Only SELECT statements are limited (MySQL's rule); a quick one is fine.
        assert clients.scalar(sql_conn, "SELECT 1") == 1
    finally:
        clients.query(sql_conn, "SET SESSION max_execution_time = DEFAULT")


def test_max_execution_time_hint(sql_conn):
    hinted = "SELECT /*+ MAX_EXECUTION_TIME(200) */ COUNT(*) FROM (" + FOREVER.replace(" SELECT COUNT(*) FROM r", " SELECT n FROM r") + ") AS x"
    assert FOREVER.endswith(" SELECT COUNT(*) FROM r")
    code, secs = _err(sql_conn, hinted)
    assert code == 3024 and secs < 10, (code, secs)
    # SLEEP() cut short by the limit returns 1, as in MySQL.
    t = time.monotonic()
    assert clients.scalar(sql_conn, "SELECT /*+ MAX_EXECUTION_TIME(200) */ SLEEP(5)") == 1
    assert time.monotonic() - t < 4


def test_max_execution_time_global_reaches_new_sessions(sql_server):
    root = clients.root(sql_server)
    clients.query(root, "SET GLOBAL max_execution_time = 250")
    try:
        other = clients.root(sql_server)
        code, _ = _err(other, FOREVER)
        assert code == 3024
        other.close()
    finally:
        clients.query(root, "SET GLOBAL max_execution_time = 0")
        root.close()


@pytest.mark.parametrize("value,shown", [(-5, 0), (2**40, 4294967295), (0, 0)])
def test_max_execution_time_range(sql_conn, value, shown):
    clients.query(sql_conn, f"SET SESSION max_execution_time = {value}")
    assert clients.scalar(sql_conn, "SELECT @@session.max_execution_time") == shown
    clients.query(sql_conn, "SET SESSION max_execution_time = DEFAULT")


def test_statement_of_a_vanished_client_is_cancelled(sql_server):
    """The client sends a never-ending query and closes its socket; the
    statement must stop (it no longer shows in the process list)."""
    raw = rawproto.connect(sql_server, "root", clients.ROOT_PASSWORD)
    raw.command(0x03, FOREVER.encode())
    root = clients.root(sql_server)

    def running():
        return [r for r in clients.query(root, "SHOW FULL PROCESSLIST") if r[7] and "RECURSIVE" in r[7]]

    assert clients.wait_until(lambda: len(running()) == 1, timeout=10)
    raw.sock.shutdown(socket.SHUT_RDWR)
    raw.close()
    assert clients.wait_until(lambda: not running(), timeout=10), running()
    assert clients.scalar(root, "SELECT 1") == 1
    root.close()


def _cte(limit_n: int) -> str:
    return f"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < {limit_n}) SELECT COUNT(*) FROM r"


def test_cte_max_recursion_depth_default_edge(sql_conn):
    """MySQL's edge: with the default 1000, 1,000 rows (999 recursions) work and one more fails."""
    assert clients.scalar(sql_conn, _cte(1000)) == 1000
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.query(sql_conn, _cte(1001))
    assert ei.value.args[0] == 3636
    assert "aborted after 1001 iterations" in ei.value.args[1]
    # Unbounded recursion ends the same way, promptly.
    code, secs = _err(sql_conn, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r")
    assert code == 3636 and secs < 10


def test_cte_max_recursion_depth_setting(sql_conn):
    clients.query(sql_conn, "SET SESSION cte_max_recursion_depth = 5000")
    try:
        assert clients.scalar(sql_conn, _cte(4000)) == 4000
        clients.query(sql_conn, "SET SESSION cte_max_recursion_depth = 10")
        with pytest.raises(pymysql.err.OperationalError) as ei:
            clients.query(sql_conn, _cte(11))
        assert ei.value.args[0] == 3636
        assert clients.scalar(sql_conn, _cte(10)) == 10
    finally:
        clients.query(sql_conn, "SET SESSION cte_max_recursion_depth = DEFAULT")
    assert clients.scalar(sql_conn, "SELECT @@cte_max_recursion_depth") == 1000


def test_limited_cte_keeps_its_columns(sql_conn):
    """The depth rides in a hidden column that no result shows."""
    with sql_conn.cursor() as cur:
        cur.execute("WITH RECURSIVE t AS (SELECT 1 AS a, 'x' b UNION ALL SELECT a + 1, CONCAT(b, 'y') FROM t AS p WHERE a < 3) SELECT * FROM t")
        assert [d[0] for d in cur.description] == ["a", "b"]
        assert cur.fetchall() == ((1, "x"), (2, "xy"), (3, "xyy"))
    # UNION DISTINCT stops on a cycle by itself and is left as it is.
    assert clients.query(sql_conn, "WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n % 3 + 1 FROM r) SELECT COUNT(*) FROM r") == ((3,),)


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def test_results_past_max_allowed_packet_are_not_built(server_factory):
    """Functions that multiply their input (REPLACE, CONCAT, HEX, ...) stop at
    max_allowed_packet before they build the result: one statement made 1 GB
    and a few of them drove the host out of memory."""
    srv = server_factory("--max-allowed-packet", str(16 << 20), engine="sqlite")
    conn = clients.root(srv)
    clients.query(conn, "CREATE DATABASE mem")
    clients.query(conn, "USE mem")
    clients.query(conn, "CREATE TABLE t (a INT)")
    clients.query(conn, "INSERT INTO t VALUES (1)")
    before = _rss_kib(srv.pid)
    big = "REPEAT('a', 1000000)"
    for expr in (f"REPLACE({big}, 'a', REPEAT('b', 1000))", f"CONCAT({big}, {big}, " + ", ".join([big] * 30) + ")", f"HEX(REPEAT({big}, 10))",
                 f"TO_BASE64(REPEAT({big}, 15))", f"REGEXP_REPLACE({big}, 'a', REPEAT('b', 1000))", f"MAKE_SET(3, REPEAT({big}, 10), REPEAT({big}, 10))"):
        for sql in (f"SELECT LENGTH({expr})", f"SELECT LENGTH({expr}) FROM t"):
            try:
                value = clients.scalar(conn, sql)
                assert value is None or value <= 16 << 20, (sql[:60], value)
            except pymysql.err.OperationalError as e:
                assert e.args[0] == 1301, (sql[:60], e.args)
    # Well under what one of them made before (about 1 GB).
    assert _rss_kib(srv.pid) - before < 400 * 1024
    conn.close()


def test_tableless_select_stops_on_time_limit_and_kill(sql_server):
    """A SELECT without a table is evaluated by the front, not SQLite: it
    stops at max_execution_time and on KILL QUERY too."""
    heavy = "SELECT " + ", ".join(["LENGTH(REPLACE(REPEAT('a', 100000), 'a', REPEAT('b', 100)))"] * 2000)
    conn = clients.root(sql_server)
    clients.query(conn, "SET SESSION max_execution_time = 200")
    code, secs = _err(conn, heavy)
    assert code == 3024 and secs < 10, (code, secs)
    clients.query(conn, "SET SESSION max_execution_time = DEFAULT")
    import threading

    vid = conn.thread_id()
    out = {}

    def run():
        try:
            clients.query(conn, heavy)
        except pymysql.err.MySQLError as e:
            out["err"] = e.args[0]

    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.3)
    killer = clients.root(sql_server)
    clients.query(killer, f"KILL QUERY {vid}")
    t.join(20)
    assert out.get("err") == 1317, out
    killer.close()
    conn.close()


def test_max_statement_time_ends_any_statement(sql_conn):
    """MariaDB's max_statement_time (seconds) ends writes too: an INSERT ...
    SELECT from a never-ending recursion held the database's write lock."""
    clients.query(sql_conn, "CREATE DATABASE IF NOT EXISTS runaway")
    clients.query(sql_conn, "USE runaway")
    clients.query(sql_conn, "CREATE TABLE IF NOT EXISTS sink (n BIGINT)")
    forever_insert = "INSERT INTO sink " + FOREVER.replace("SELECT COUNT(*) FROM r", "SELECT n FROM r WHERE n < 0")
    clients.query(sql_conn, "SET SESSION max_statement_time = 0.3")
    try:
        code, secs = _err(sql_conn, forever_insert)
        assert code == 1969 and secs < 10, (code, secs)
        # SELECTs too, as in MariaDB (max_execution_time is MySQL's, SELECT only).
        code, _ = _err(sql_conn, FOREVER)
        assert code == 1969
        assert clients.scalar(sql_conn, "SELECT @@max_statement_time") == 0.3
    finally:
        clients.query(sql_conn, "SET SESSION max_statement_time = DEFAULT")
    # The nearer limit wins and is the one named.
    clients.query(sql_conn, "SET SESSION max_statement_time = 10, max_execution_time = 200")
    try:
        code, _ = _err(sql_conn, FOREVER)
        assert code == 3024
    finally:
        clients.query(sql_conn, "SET SESSION max_statement_time = DEFAULT, max_execution_time = DEFAULT")
    assert clients.scalar(sql_conn, "SELECT COUNT(*) FROM sink") == 0
