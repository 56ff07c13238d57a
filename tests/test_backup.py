"""Online backups of the embedded engine (issue #26 item 6): `turnstile
backup --to DIR` (crates/turnstile/src/backup.rs) sends BACKUP DATA TO
'/abs/dir' (crates/sql/src/front/backup.rs, crates/server/src/backup.rs,
crates/sqlite/src/backup.rs) and the server writes a copy of its data
directory that a server starts on.

What is checked, on the sqlite engine:
- a backup taken while threads keep committing rows into two databases
  holds every row committed before the backup was asked for, and a
  transaction writing both databases is in the copy whole or not at all
  (the same counters in both); the copy's SQLite files pass
  `PRAGMA integrity_check`; a server started on the copy serves them, its
  accounts included, and takes writes;
- the refusals: a non-administrator (1227, 42000), a target that exists and
  is not empty (1086), a relative path (1210), a second backup while one
  runs (3634), another engine (1235), inside a transaction the backup
  waits for (it is committed first), KILL of a waiting backup (nothing left
  behind), and the subcommand's exit status and message when the server
  cannot be reached;
- mariadb-dump --single-transaction of a Turnstile database restores into a
  real MariaDB 10.11, and MariaDB's dump of it back into Turnstile, the rows
  equal at the end (types, an index, NULLs, binary data).
"""

from __future__ import annotations

import glob
import os
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import time

import pymysql
import pytest

from helpers import clients, mariadb
from helpers.server import ROOT_PASSWORD, TurnstileServer, binary_path


def run_backup(srv, to, *extra, user="root", password=ROOT_PASSWORD, env=None, cwd=None):
    """`turnstile backup --to DIR` against `srv` over TCP (trusting the
    server's RSA key for a full caching_sha2_password login, as the mysql
    client's --get-server-public-key); the CompletedProcess."""
    args = [str(binary_path()), "backup", "--to", str(to), "-h", "127.0.0.1", "-P", str(srv.port), "-u", user, "--get-server-public-key", *extra]
    if password is not None:
        args += ["-p", password]
    return subprocess.run(args, capture_output=True, text=True, timeout=120, env=env, cwd=cwd)


def integrity_ok(copy_dir):
    """PRAGMA integrity_check of every database file of a copy (on a scratch
    copy of it, so SQLite's -wal and -shm files stay out of the backup)."""
    scratch = tempfile.mkdtemp(prefix="ts-bkchk-", dir="/tmp")
    try:
        files = sorted(glob.glob(os.path.join(copy_dir, "databases", "*", "data.sqlite")))
        assert files, "no database files in the copy"
        for f in files:
            dst = os.path.join(scratch, os.path.basename(os.path.dirname(f)) + ".sqlite")
            shutil.copyfile(f, dst)
            conn = sqlite3.connect(dst)
            try:
                # The engine's collation, for indexes on text columns.
                conn.create_collation("ts_ci", lambda a, b: (a.lower() > b.lower()) - (a.lower() < b.lower()))
                assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)], f
            finally:
                conn.close()
        return len(files)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def start_on(server_factory, datadir):
    """A server (sqlite engine) on `datadir`: the restore."""
    return server_factory(engine="sqlite", datadir=datadir)


@pytest.fixture
def backup_dir():
    base = tempfile.mkdtemp(prefix="ts-bk-", dir="/tmp")
    yield base
    shutil.rmtree(base, ignore_errors=True)


class Writers:
    """Threads that keep committing until stopped, each keeping the ids whose
    COMMIT (or autocommit INSERT) returned:
    - `a`: autocommit INSERTs into bk_a.t;
    - `b`: two INSERTs per explicit transaction into bk_b.t;
    - `pair`: one transaction inserting the same counter into bk_a.pair and
      bk_b.pair (retried on 1213, which it gets when bk_b's writer lock is
      busy while it holds bk_a's)."""

    def __init__(self, srv):
        self.srv = srv
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.done = {"a": [], "b": [], "pair": []}
        self.errors = []
        self.threads = [threading.Thread(target=self._run, args=(k,), daemon=True) for k in self.done]

    def _run(self, kind):
        try:
            conn = clients.root(self.srv)
            n = 0
            while not self.stop.is_set():
                n += 1
                if kind == "a":
                    clients.query(conn, "INSERT INTO bk_a.t VALUES (%s, %s, %s)", (n, n * 7, f"row {n}"))
                    ids = [n]
                elif kind == "b":
                    conn.begin()
                    clients.query(conn, "INSERT INTO bk_b.t VALUES (%s, %s, %s)", (2 * n, n, b"\x00\xff" * (n % 50)))
                    clients.query(conn, "INSERT INTO bk_b.t VALUES (%s, %s, NULL)", (2 * n + 1, n))
                    conn.commit()
                    ids = [2 * n, 2 * n + 1]
                else:
                    try:
                        conn.begin()
                        clients.query(conn, "INSERT INTO bk_a.pair VALUES (%s)", (n,))
                        clients.query(conn, "INSERT INTO bk_b.pair VALUES (%s)", (n,))
                        conn.commit()
                    except pymysql.err.OperationalError as e:
                        # bk_b's writer lock busy while bk_a's is held: 1213,
                        # the transaction rolled back; retried as clients do.
                        if e.args[0] != 1213:
                            raise
                        conn.rollback()
                        continue
                    ids = [n]
                with self.lock:
                    self.done[kind].extend(ids)
            conn.close()
        except Exception as e:  # reported by the test
            self.errors.append((kind, repr(e)))

    def start(self):
        for t in self.threads:
            t.start()

    def committed(self):
        with self.lock:
            return {k: set(v) for k, v in self.done.items()}

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(30)


def make_schema(conn):
    for sql in [
        "CREATE DATABASE bk_a",
        "CREATE DATABASE bk_b",
        "CREATE TABLE bk_a.t (id INT PRIMARY KEY, n BIGINT, s VARCHAR(100), KEY (n))",
        "CREATE TABLE bk_b.t (id INT PRIMARY KEY, g INT NOT NULL, b VARBINARY(200), KEY (g))",
        "CREATE TABLE bk_a.pair (n INT PRIMARY KEY)",
        "CREATE TABLE bk_b.pair (n INT PRIMARY KEY)",
        "CREATE TABLE bk_a.big (id INT PRIMARY KEY AUTO_INCREMENT, s TEXT, KEY (s(20)))",
    ]:
        clients.query(conn, sql)
    # Enough pages that the copy takes a while beside the writers.
    clients.query(conn, "INSERT INTO bk_a.big (s) VALUES " + ",".join(["(REPEAT('x', 2000))"] * 500))
    for _ in range(4):
        clients.query(conn, "INSERT INTO bk_a.big (s) SELECT CONCAT(s, id) FROM bk_a.big LIMIT 500")


def test_backup_under_write_load_restores_every_committed_row(server_factory, backup_dir):
    srv = server_factory(engine="sqlite")
    root = clients.root(srv)
    make_schema(root)
    clients.query(root, "CREATE USER 'bk_reader'@'%' IDENTIFIED BY 'Reader-pw-1'")
    clients.query(root, "GRANT SELECT ON bk_a.* TO 'bk_reader'@'%'")
    big_rows = clients.scalar(root, "SELECT COUNT(*) FROM bk_a.big")
    writers = Writers(srv)
    writers.start()
    try:
        assert clients.wait_until(lambda: all(len(v) >= 50 for v in writers.committed().values()), timeout=30), writers.errors
        before = writers.committed()
        target = os.path.join(backup_dir, "copy")
        r = run_backup(srv, target)
        after = writers.committed()
        time.sleep(0.3)
    finally:
        writers.finish()
    assert not writers.errors, writers.errors
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"backup written to {target}: 2 database(s), "), r.stdout
    # The writers committed while the backup ran (the copy of ~16 MB takes
    # tens of milliseconds; only the snapshots' start holds them) and after it.
    assert sum(len(after[k]) - len(before[k]) for k in before) > 0
    assert len(writers.committed()["a"]) > len(after["a"])
    assert integrity_ok(target) == 2
    # Only what a data directory holds; no partial copy beside it.
    assert sorted(os.listdir(backup_dir)) == ["copy"]
    assert "turnstile.lock" not in os.listdir(target)
    assert oct(os.stat(target).st_mode & 0o777) == "0o700"

    restored = start_on(server_factory, target)
    rc = clients.root(restored)
    got_a = {row[0] for row in clients.query(rc, "SELECT id FROM bk_a.t")}
    got_b = {row[0] for row in clients.query(rc, "SELECT id FROM bk_b.t")}
    assert before["a"] <= got_a, sorted(before["a"] - got_a)[:10]
    assert before["b"] <= got_b, sorted(before["b"] - got_b)[:10]
    # Whole transactions only: ids of `b` come in pairs.
    assert all((i ^ 1) in got_b for i in got_b)
    # Nothing committed after the backup finished.
    assert got_a <= after["a"] | {max(after["a"]) + 1}
    # Consistent across databases: every pair transaction in both or neither.
    pa = {row[0] for row in clients.query(rc, "SELECT n FROM bk_a.pair")}
    pb = {row[0] for row in clients.query(rc, "SELECT n FROM bk_b.pair")}
    assert pa == pb and before["pair"] <= pa
    assert clients.scalar(rc, "SELECT COUNT(*) FROM bk_a.big") == big_rows
    assert clients.query(rc, "CHECK TABLE bk_a.t, bk_b.t")[0][3] == "OK"
    # Values, NULLs and bytes as written.
    row = clients.query(rc, "SELECT n, s FROM bk_a.t WHERE id = 5")[0]
    assert row == (35, "row 5")
    assert clients.query(rc, "SELECT b FROM bk_b.t WHERE id IN (10, 11) ORDER BY id") == ((b"\x00\xff" * 5,), (None,))
    # The accounts came along; the restored server takes writes.
    reader = clients.connect(restored, "bk_reader", "Reader-pw-1")
    assert clients.scalar(reader, "SELECT COUNT(*) FROM bk_a.pair") == len(pa)
    reader.close()
    clients.query(rc, "INSERT INTO bk_a.t VALUES (-1, 0, 'after restore')")
    assert clients.scalar(rc, "SELECT s FROM bk_a.t WHERE id = -1") == "after restore"


def test_backup_refusals(server_factory, backup_dir):
    srv = server_factory(engine="sqlite")
    root = clients.root(srv)
    clients.query(root, "CREATE DATABASE bk_r")
    clients.query(root, "CREATE USER 'bk_plain'@'%' IDENTIFIED BY 'Plain-pw-1'")
    clients.query(root, "GRANT ALL ON bk_r.* TO 'bk_plain'@'%'")
    target = os.path.join(backup_dir, "t1")
    # Not an administrator: 1227 (42000), through the subcommand as well.
    plain = clients.connect(srv, "bk_plain", "Plain-pw-1")
    assert clients.error(plain, f"BACKUP DATA TO '{target}'")[0] == 1227
    r = run_backup(srv, target, user="bk_plain", password="Plain-pw-1")
    assert r.returncode == 1
    assert "ERROR 1227 (42000): Access denied; you need (at least one of) the SUPER privilege(s) for this operation" in r.stderr
    assert not os.path.exists(target)
    # A target that exists and is not empty; a file; a relative path.
    os.makedirs(os.path.join(backup_dir, "full"))
    open(os.path.join(backup_dir, "full", "x"), "w").close()
    open(os.path.join(backup_dir, "afile"), "w").close()
    for t in ["full", "afile"]:
        code, msg = clients.error(root, f"BACKUP DATA TO '{backup_dir}/{t}'")
        assert (code, msg) == (1086, f"File '{backup_dir}/{t}' already exists")
    for t in ["relative/dir", "", "./x"]:
        code, msg = clients.error(root, f"BACKUP DATA TO '{t}'")
        assert code == 1210 and msg.startswith("Incorrect arguments to BACKUP DATA"), msg
    assert clients.error(root, "BACKUP DATA TO")[0] == 1064
    assert clients.error(root, "BACKUP DATA TO '/tmp/a' '/tmp/b'")[0] == 1064
    assert clients.error(root, "BACKUP STAGE START")[0] == 1064
    # An empty directory is taken (and replaced by the copy).
    empty = os.path.join(backup_dir, "empty")
    os.makedirs(empty)
    rows = clients.query(root, f"BACKUP DATA TO '{empty}/'")
    assert rows[0][0] == empty and rows[0][1] == 1 and rows[0][2] > 0
    assert os.path.isdir(os.path.join(empty, "databases", "bk_r"))
    # The subcommand makes a relative DIR absolute against its own directory.
    r = run_backup(srv, "rel", cwd=backup_dir)
    assert r.returncode == 0, r.stderr
    assert os.path.isfile(os.path.join(backup_dir, "rel", "accounts.json"))
    # Nobody listening: a non-zero status and why.
    dead = TurnstileServer()
    dead.port = mariadb.free_port()
    r = run_backup(dead, os.path.join(backup_dir, "never"))
    assert r.returncode == 1
    assert r.stderr.startswith(f"turnstile backup: cannot connect to the server at 127.0.0.1:{dead.port}: "), r.stderr
    dead.cleanup()
    r = subprocess.run([str(binary_path()), "backup", "--to", os.path.join(backup_dir, "never"), "--socket", os.path.join(backup_dir, "no.sock")], capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "cannot connect to the server through socket" in r.stderr
    # Wrong password: the server's error.
    r = run_backup(srv, os.path.join(backup_dir, "never"), password="wrong")
    assert r.returncode == 1 and "ERROR 1045 (28000)" in r.stderr
    assert not os.path.exists(os.path.join(backup_dir, "never"))


def test_one_backup_at_a_time_and_kill(server_factory, backup_dir):
    """A backup waits for a transaction that is writing (the hold); a second
    backup meanwhile gets 3634; KILL of the waiting one leaves nothing; once
    the writer commits a backup goes through and has its rows."""
    srv = server_factory(engine="sqlite")
    root = clients.root(srv)
    clients.query(root, "CREATE DATABASE bk_k")
    clients.query(root, "CREATE TABLE bk_k.t (a INT)")
    writer = clients.root(srv)
    writer.begin()
    clients.query(writer, "INSERT INTO bk_k.t VALUES (1)")
    waiting = clients.root(srv)
    wid = clients.scalar(waiting, "SELECT CONNECTION_ID()")
    first = os.path.join(backup_dir, "first")
    result = {}

    def backup():
        try:
            result["rows"] = clients.query(waiting, f"BACKUP DATA TO '{first}'")
        except pymysql.err.MySQLError as e:
            result["error"] = e.args

    t = threading.Thread(target=backup, daemon=True)
    t.start()
    assert clients.wait_until(lambda: any(r[0] == wid and (r[7] or "").startswith("BACKUP") for r in clients.query(root, "SHOW PROCESSLIST")), timeout=10)
    time.sleep(0.3)
    code, msg = clients.error(root, f"BACKUP DATA TO '{backup_dir}/second'")
    assert code == 3634, msg
    clients.query(root, f"KILL QUERY {wid}")
    t.join(10)
    assert result.get("error", (None,))[0] == 1317, result
    assert os.listdir(backup_dir) == []
    # The writer commits: a backup now goes through (waiting for no one) and holds its row.
    writer.commit()
    clients.query(root, f"BACKUP DATA TO '{first}'")
    # Inside the session's own open transaction: it is committed first, not waited for.
    writer.begin()
    clients.query(writer, "INSERT INTO bk_k.t VALUES (2)")
    rows = clients.query(writer, f"BACKUP DATA TO '{backup_dir}/own'")
    assert rows[0][1] == 1
    restored = start_on(server_factory, os.path.join(backup_dir, "own"))
    assert clients.query(clients.root(restored), "SELECT a FROM bk_k.t ORDER BY a") == ((1,), (2,))


def test_a_long_transaction_holds_up_only_its_own_database(server_factory, backup_dir):
    """A transaction that keeps bk_h2's writer lock makes the backup wait, but
    writers of bk_h1 (which sorts first) go on committing meanwhile: the
    backup waits for the busy lock holding no other. Once it commits, the
    backup completes with every row committed before that."""
    srv = server_factory(engine="sqlite")
    root = clients.root(srv)
    for db in ["bk_h1", "bk_h2"]:
        clients.query(root, f"CREATE DATABASE {db}")
        clients.query(root, f"CREATE TABLE {db}.t (a INT PRIMARY KEY)")
    long_txn = clients.root(srv)
    long_txn.begin()
    clients.query(long_txn, "INSERT INTO bk_h2.t VALUES (1)")
    target = os.path.join(backup_dir, "copy")
    result = {}

    def backup():
        c = clients.root(srv, read_timeout=120)
        try:
            result["rows"] = clients.query(c, f"BACKUP DATA TO '{target}'")
        except pymysql.err.MySQLError as e:
            result["error"] = e.args

    t = threading.Thread(target=backup, daemon=True)
    t.start()
    time.sleep(0.5)
    assert t.is_alive(), result
    other = clients.root(srv)
    slowest = 0.0
    for n in range(1, 21):
        t0 = time.monotonic()
        clients.query(other, f"INSERT INTO bk_h1.t VALUES ({n})")
        slowest = max(slowest, time.monotonic() - t0)
    assert t.is_alive(), result
    assert slowest < 1.0, slowest
    long_txn.commit()
    t.join(30)
    assert result.get("rows", [[None, None]])[0][1] == 2, result
    restored = start_on(server_factory, target)
    rc = clients.root(restored)
    assert clients.scalar(rc, "SELECT COUNT(*) FROM bk_h1.t") == 20
    assert clients.query(rc, "SELECT a FROM bk_h2.t") == ((1,),)


def test_a_server_without_databases(server_factory, backup_dir):
    """Nothing but the accounts and keys: still a data directory a server starts on."""
    srv = server_factory(engine="sqlite")
    target = os.path.join(backup_dir, "copy")
    r = run_backup(srv, target)
    assert r.returncode == 0 and ": 0 database(s), " in r.stdout, (r.stdout, r.stderr)
    assert os.listdir(os.path.join(target, "databases")) == []
    restored = start_on(server_factory, target)
    assert clients.query(clients.root(restored), "SHOW DATABASES") == (("information_schema",), ("mysql",), ("performance_schema",))


def test_other_engines_say_unsupported(server_factory, backup_dir):
    srv = server_factory()  # blackhole
    code, msg = clients.error(clients.root(srv), f"BACKUP DATA TO '{backup_dir}/x'")
    assert code == 1235 and "BACKUP DATA with the blackhole engine" in msg
    assert os.listdir(backup_dir) == []


@pytest.mark.skipif(mariadb.MARIADBD is None, reason="mariadbd not installed")
def test_upstream_engine_says_unsupported(request, backup_dir):
    """The upstream engine's data is its backend's: 1235, not the backend's 1064."""
    from helpers import upstream

    srv = upstream.start_turnstile(request.getfixturevalue("upstream_backend"))
    try:
        r = run_backup(srv, os.path.join(backup_dir, "x"))
        assert r.returncode == 1
        assert "ERROR 1235 (42000): This version of MySQL doesn't yet support 'BACKUP DATA with the upstream engine'" in r.stderr, r.stderr
        assert os.listdir(backup_dir) == []
    finally:
        srv.stop()
        srv.cleanup()


# ---------------------------------------------------------------------------
# mariadb-dump --single-transaction: Turnstile -> MariaDB -> Turnstile.

DUMP_TOOLS = [mariadb.MARIADBD, shutil.which("mariadb-install-db"), shutil.which("mariadb"), shutil.which("mariadb-dump")]

CORPUS = """
CREATE TABLE items (
  id INT PRIMARY KEY AUTO_INCREMENT,
  name VARCHAR(50) NOT NULL,
  price DECIMAL(10,2),
  qty SMALLINT UNSIGNED,
  ratio DOUBLE,
  made DATETIME(3),
  day DATE,
  kind ENUM('a','b','c'),
  note TEXT,
  raw VARBINARY(64),
  blob_col BLOB,
  KEY by_name (name),
  UNIQUE KEY by_kind_name (kind, name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO items (name, price, qty, ratio, made, day, kind, note, raw, blob_col) VALUES
 ('first', 12.50, 3, 0.25, '2024-01-02 03:04:05.678', '2024-01-02', 'a', 'plain text', X'00FF10', X'000102FEFF'),
 ('second', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 ('it''s "quoted"', -0.01, 65535, -1e300, '1970-01-01 00:00:01.000', '9999-12-31', 'c', 'tab\\there\\nnewline \\\\ back', X'', X'5C27220A0D1A'),
 ('ünïcödé ✓', 99999999.99, 0, 3.141592653589793, '2038-01-19 03:14:07.999', '2000-02-29', 'b', REPEAT('long ', 2000), UNHEX(REPEAT('AB', 64)), UNHEX(REPEAT('00FF', 3000)));
CREATE TABLE empty_one (a INT, b CHAR(3)) ENGINE=InnoDB;
"""


def mysql_args(target):
    if isinstance(target, mariadb.MariaDB):
        return target.client_args()
    return ["--no-defaults", "-h127.0.0.1", f"-P{target.port}", "-uroot", f"-p{ROOT_PASSWORD}", "--ssl=0"]


def run_client(target, sql_bytes, db=None):
    args = ["mariadb", *mysql_args(target), "--binary-mode", "--default-character-set=utf8mb4"] + ([db] if db else [])
    r = subprocess.run(args, input=sql_bytes, capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode(errors="replace")[-3000:]


def dump(source, *opts):
    r = subprocess.run(["mariadb-dump", *mysql_args(source), *opts], capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode(errors="replace")[-3000:]
    return r.stdout


def rows_of(target, db):
    """{table: (column names, rows)} read as text."""
    text_only = {k: v for k, v in pymysql.converters.conversions.items() if not isinstance(k, int)}
    if isinstance(target, mariadb.MariaDB):
        conn = target.connect(db, conv=text_only)
    else:
        conn = clients.root(target, database=db, conv=text_only)
    out = {}
    try:
        for (table,) in clients.query(conn, "SHOW TABLES"):
            table = table.decode() if isinstance(table, bytes) else table
            with conn.cursor() as cur:
                cur.execute(f"SELECT * FROM `{table}` ORDER BY 1")
                out[table] = (tuple(d[0] for d in cur.description), cur.fetchall())
    finally:
        conn.close()
    return out


@pytest.mark.skipif(not all(DUMP_TOOLS), reason="mariadbd / mariadb-dump not installed")
def test_mariadb_dump_single_transaction_round_trip(server_factory):
    ts = server_factory(engine="sqlite")
    run_client(ts, b"CREATE DATABASE bk_dump; USE bk_dump;\n" + CORPUS.encode())
    original = rows_of(ts, "bk_dump")
    assert len(original["items"][1]) == 4
    text = dump(ts, "--single-transaction", "--databases", "bk_dump")
    m = mariadb.MariaDB().start()
    try:
        run_client(m, text)
        assert rows_of(m, "bk_dump") == original
        # MariaDB kept the index and the unique key.
        mc = m.connect("bk_dump")
        keys = {r[2] for r in clients.query(mc, "SHOW INDEX FROM items")}
        mc.close()
        assert {"PRIMARY", "by_name", "by_kind_name"} <= keys
        back = dump(m, "--single-transaction", "--databases", "bk_dump")
    finally:
        m.stop()
    fresh = server_factory(engine="sqlite")
    run_client(fresh, back)
    assert rows_of(fresh, "bk_dump") == original
    keys = {r[2] for r in clients.query(clients.root(fresh, database="bk_dump"), "SHOW INDEX FROM items")}
    assert {"PRIMARY", "by_name", "by_kind_name"} <= keys


def test_over_tcp_the_password_goes_to_an_unverified_key_only_when_asked(server_factory, backup_dir):
    """A caching_sha2_password login that needs the password itself over
    plain TCP fails unless --get-server-public-key says to trust the key the
    server sends (a man in the middle could send its own); the socket needs
    nothing."""
    srv = server_factory(engine="sqlite")
    args = [str(binary_path()), "backup", "--to", os.path.join(backup_dir, "tcp"), "-h", "127.0.0.1", "-P", str(srv.port), "-u", "root", "-p", ROOT_PASSWORD]
    r = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "--get-server-public-key" in r.stderr, r.stderr
    assert not os.path.exists(os.path.join(backup_dir, "tcp"))
    r = subprocess.run([str(binary_path()), "backup", "--to", os.path.join(backup_dir, "sock"), "-S", srv.socket, "-u", "root", "-p", ROOT_PASSWORD], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(args[:3] + [os.path.join(backup_dir, "it's")] + args[4:] + ["--get-server-public-key"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "quote or a backslash" in r.stderr, r.stderr
