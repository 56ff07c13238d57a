"""KILL [CONNECTION] id closes another session (its next query fails with a
lost-connection error, it disappears from SHOW PROCESSLIST); KILL QUERY id
interrupts a running statement but keeps the session.  Tests that need a
long-running statement use SLEEP() and are skipped if it is unsupported."""

import threading
import time

import pymysql
import pytest

from helpers import clients
from helpers.clients import LOST_CONNECTION_CODES


def _ids_in_processlist(conn):
    return {int(r[0]) for r in clients.query(conn, "SHOW PROCESSLIST")}


@pytest.mark.parametrize("stmt", ["KILL {id}", "KILL CONNECTION {id}"])
def test_kill_other_session(server, root_conn, stmt):
    victim = clients.root(server)
    try:
        vid = clients.scalar(victim, "SELECT CONNECTION_ID()")
        assert vid == victim.thread_id()
        assert vid in _ids_in_processlist(root_conn)
        connected = clients.status(root_conn, "Threads_connected")
        clients.query(root_conn, stmt.format(id=vid))
        assert clients.wait_until(lambda: vid not in _ids_in_processlist(root_conn), timeout=10)
        with pytest.raises(pymysql.err.OperationalError) as ei:
            clients.query(victim, "SELECT 1")
        assert ei.value.args[0] in LOST_CONNECTION_CODES, ei.value.args
        assert clients.wait_until(lambda: clients.status(root_conn, "Threads_connected") < connected, timeout=10)
        # The killer is unaffected.
        assert clients.scalar(root_conn, "SELECT 1") == 1
    finally:
        victim.close()


def test_kill_session_of_other_user_over_socket(server, root_conn):
    clients.query(root_conn, "CREATE USER IF NOT EXISTS 'kill_me'@'%' IDENTIFIED BY 'kill-pw'")
    victim = clients.connect(server, "kill_me", "kill-pw", transport="socket")
    try:
        vid = victim.thread_id()
        rows = [r for r in clients.query(root_conn, "SHOW PROCESSLIST") if int(r[0]) == vid]
        assert rows and rows[0][1] == "kill_me"
        clients.query(root_conn, f"KILL {vid}")
        assert clients.wait_socket_closed(victim, 10)
        with pytest.raises(pymysql.err.OperationalError) as ei:
            clients.query(victim, "SELECT 1")
        assert ei.value.args[0] in LOST_CONNECTION_CODES, ei.value.args
    finally:
        victim.close()


def test_kill_query_on_idle_session_keeps_it(server, root_conn):
    victim = clients.root(server)
    try:
        vid = victim.thread_id()
        clients.query(root_conn, f"KILL QUERY {vid}")
        assert clients.scalar(victim, "SELECT 1") == 1
        assert clients.scalar(victim, "SELECT CONNECTION_ID()") == vid
        assert vid in _ids_in_processlist(root_conn)
    finally:
        victim.close()


def _sleep_supported(conn):
    try:
        clients.query(conn, "SELECT SLEEP(0)")
        return True
    except pymysql.err.MySQLError:
        return False


def test_kill_query_interrupts_running_statement(server, root_conn):
    if not _sleep_supported(root_conn):
        pytest.skip("SELECT SLEEP() not supported by the server")
    victim = clients.root(server, read_timeout=60)
    vid = victim.thread_id()
    outcome = {}

    def run():
        t0 = time.monotonic()
        try:
            outcome["rows"] = clients.query(victim, "SELECT SLEEP(30)")
        except pymysql.err.MySQLError as e:
            outcome["error"] = e.args
        outcome["elapsed"] = time.monotonic() - t0

    t = threading.Thread(target=run, daemon=True)
    t.start()
    try:
        def running():
            for r in clients.query(root_conn, "SHOW FULL PROCESSLIST"):
                if int(r[0]) == vid and r[4] == "Query" and r[7] and "SLEEP" in r[7].upper():
                    return True
            return False

        assert clients.wait_until(running, timeout=10), "SLEEP(30) never showed up in the processlist"
        clients.query(root_conn, f"KILL QUERY {vid}")
        t.join(25)
        assert not t.is_alive(), "KILL QUERY did not interrupt SLEEP(30)"
        # MySQL: an interrupted SLEEP returns 1; other statements fail with 1317.
        if "error" in outcome:
            assert outcome["error"][0] == 1317, outcome
        else:
            assert outcome["rows"] == ((1,),), outcome
        # The session survives.
        assert clients.scalar(victim, "SELECT CONNECTION_ID()") == vid
    finally:
        t.join(30)
        victim.close()


@pytest.mark.mysql_compat
def test_kill_unknown_thread(root_conn):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(root_conn, "KILL 987654321")
    assert ei.value.args == (1094, "Unknown thread id: 987654321")


@pytest.mark.mysql_compat
def test_kill_permissions_for_plain_user(server, root_conn, uniq):
    """MySQL: without admin rights a user may kill only its own sessions
    (1095 otherwise)."""
    user = uniq("kp")
    clients.query(root_conn, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'kp-pw'")
    a = clients.connect(server, user, "kp-pw")
    b = clients.connect(server, user, "kp-pw")
    try:
        rid = root_conn.thread_id()
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(a, f"KILL {rid}")
        assert ei.value.args == (1095, f"You are not owner of thread {rid}")
        assert clients.scalar(root_conn, "SELECT 1") == 1
        # Killing another session of the same user is allowed.
        clients.query(a, f"KILL {b.thread_id()}")
        assert clients.wait_socket_closed(b, 10)
        with pytest.raises(pymysql.err.OperationalError) as ei:
            clients.query(b, "SELECT 1")
        assert ei.value.args[0] in LOST_CONNECTION_CODES
    finally:
        a.close()
        b.close()
