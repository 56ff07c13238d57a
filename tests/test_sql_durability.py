"""Durability of the sqlite engine: every COMMIT the server acknowledged
survives `kill -9` of the server.

Writers (autocommit inserts and explicit multi-row transactions) record each
id only after the server acknowledged it; the server is SIGKILLed in the
middle of the load, restarted on the same data directory, and every
acknowledged row must be there. The database file must then pass SQLite's
own integrity check, and the server must accept writes again. Run once with
the default durability (fsync of the write-ahead log at commit) and once with
--sqlite-durability=periodic, whose loss window only concerns an OS crash, not
a killed process.
"""

import os
import signal
import sqlite3
import threading
import time

import pymysql
import pytest

from helpers import clients

WRITERS = 4
LOAD_SECONDS = 1.5


def write_load(server, db, acked, stop, errors, connected):
    def writer(n):
        try:
            conn = clients.root(server, database=db)
        except pymysql.MySQLError as e:
            errors.append(e)
            return
        finally:
            connected.release()
        i = 0
        try:
            while not stop.is_set():
                base = n * 10_000_000 + i * 10
                if i % 5 == 4:
                    with conn.cursor() as cur:
                        cur.execute("BEGIN")
                        for k in range(3):
                            cur.execute("INSERT INTO acked (id, writer, payload) VALUES (%s, %s, %s)", (base + k, n, "txn"))
                        cur.execute("COMMIT")
                    acked.extend(base + k for k in range(3))
                else:
                    with conn.cursor() as cur:
                        cur.execute("INSERT INTO acked (id, writer, payload) VALUES (%s, %s, %s)", (base, n, "auto"))
                    acked.append(base)
                i += 1
        except (pymysql.MySQLError, OSError):
            pass  # the server was killed under us
        finally:
            try:
                conn.close()
            except Exception:
                pass

    threads = [threading.Thread(target=writer, args=(n,), daemon=True) for n in range(WRITERS)]
    for t in threads:
        t.start()
    return threads


@pytest.mark.parametrize("mode", ["full", "periodic"])
def test_acknowledged_commits_survive_kill_9(server_factory, mode):
    srv = server_factory("--sqlite-durability", mode, engine="sqlite")
    conn = clients.root(srv)
    clients.query(conn, "CREATE DATABASE dur")
    clients.query(conn, "CREATE TABLE dur.acked (id BIGINT PRIMARY KEY, writer INT NOT NULL, payload VARCHAR(10) NOT NULL, KEY (writer))")
    conn.close()

    acked, errors, stop = [], [], threading.Event()
    connected = threading.Semaphore(0)
    threads = write_load(srv, "dur", acked, stop, errors, connected)
    for _ in range(WRITERS):
        assert connected.acquire(timeout=30), "writers did not connect"
    assert not errors, errors
    deadline = time.monotonic() + 30
    while len(acked) < 100 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(LOAD_SECONDS)  # kill in the middle of the load
    os.kill(srv.pid, signal.SIGKILL)
    srv.wait(10)
    stop.set()
    for t in threads:
        t.join(10)
    assert not errors, errors
    assert len(acked) > 50, f"too little load before the kill: {len(acked)} rows"
    datadir = srv.datadir

    srv2 = server_factory("--sqlite-durability", mode, engine="sqlite", datadir=datadir)
    conn = clients.root(srv2, database="dur")
    try:
        present = {r[0] for r in clients.query(conn, "SELECT id FROM acked")}
        missing = sorted(set(acked) - present)
        assert not missing, f"{len(missing)} acknowledged rows lost after kill -9, e.g. {missing[:5]}"
        # every transaction is whole: each id family of a transaction has all 3 rows
        txn_rows = clients.query(conn, "SELECT id DIV 10, COUNT(*) FROM acked WHERE payload = 'txn' GROUP BY id DIV 10 HAVING COUNT(*) <> 3")
        assert txn_rows == (), txn_rows
        clients.query(conn, "INSERT INTO acked (id, writer, payload) VALUES (-1, -1, 'after')")
        assert clients.scalar(conn, "SELECT COUNT(*) FROM acked WHERE id = -1") == 1
    finally:
        conn.close()
    srv2.stop()
    db = sqlite3.connect(os.path.join(datadir, "databases", "dur", "data.sqlite"))
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()


def _wal_frames(path):
    """Frames in a SQLite write-ahead log file (32-byte header, then 24 + page size each)."""
    size = os.path.getsize(path) if os.path.exists(path) else 0
    return 0 if size <= 32 else (size - 32) // (24 + 4096)


def test_idle_checkpoint_and_shutdown_empty_the_log(server_factory):
    """Once commits stop for --sqlite-idle-checkpoint-ms, the log is copied into
    the database file (reads then skip the log); a graceful shutdown leaves an
    empty (or no) log; the rows are all there after the restart."""
    srv = server_factory("--sqlite-idle-checkpoint-ms", "100", engine="sqlite")
    conn = clients.root(srv)
    clients.query(conn, "CREATE DATABASE ckpt")
    clients.query(conn, "CREATE TABLE ckpt.t (id INT PRIMARY KEY, v VARCHAR(200))")
    for i in range(0, 2000, 100):
        clients.query(conn, "INSERT INTO ckpt.t VALUES " + ",".join(f"({j}, REPEAT('x', 200))" for j in range(i, i + 100)))
    db_file = os.path.join(srv.datadir, "databases", "ckpt", "data.sqlite")
    wal = db_file + "-wal"
    assert _wal_frames(wal) > 50, "the load did not go through the write-ahead log"
    # Every page is in the log, so the database file is still small ...
    assert os.path.getsize(db_file) < 100 * 4096
    deadline = time.monotonic() + 10
    while os.path.getsize(db_file) < 100 * 4096 and time.monotonic() < deadline:
        time.sleep(0.05)
    # ... until the idle checkpoint copies the log into it.
    assert os.path.getsize(db_file) >= 100 * 4096, "no checkpoint after the writes stopped"
    assert clients.scalar(conn, "SELECT COUNT(*) FROM ckpt.t") == 2000
    clients.query(conn, "INSERT INTO ckpt.t VALUES (-1, 'last')")
    conn.close()
    assert srv.stop() == 0
    assert not os.path.exists(wal) or os.path.getsize(wal) == 0, "graceful shutdown left frames in the log"
    srv2 = server_factory(engine="sqlite", datadir=srv.datadir)
    conn = clients.root(srv2, database="ckpt")
    try:
        assert clients.scalar(conn, "SELECT COUNT(*) FROM t") == 2001
    finally:
        conn.close()
