"""The slow query log and the general query log (issue #26, item 4), against
the real binary: MariaDB's file formats, read by Percona's pt-query-digest;
the settings changed with SET GLOBAL (and refused as MariaDB refuses them);
FLUSH LOGS and SIGHUP reopening the files after logrotate moved them."""

import json
import os
import shutil
import signal
import subprocess
import time

import pymysql
import pytest

from helpers import clients
from helpers.server import ROOT_PASSWORD

PT_QUERY_DIGEST = shutil.which("pt-query-digest")


def wait_for(path, text, timeout_s=10):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if os.path.exists(path) and text in open(path, errors="replace").read():
            return open(path, errors="replace").read()
        time.sleep(0.05)
    raise AssertionError(f"{text!r} not in {path}: {open(path).read() if os.path.exists(path) else '(no file)'}")


def slow_server(server_factory, *extra):
    srv = server_factory("--slow-query-log", "ON", "--long-query-time", "0.1", *extra, engine="sqlite")
    conn = clients.root(srv)
    return srv, conn, clients.scalar(conn, "SELECT @@slow_query_log_file")


def test_a_statement_past_long_query_time_is_written_and_pt_query_digest_reads_it(server_factory):
    srv, conn, path = slow_server(server_factory)
    assert path == os.path.join(srv.datadir, open("/proc/sys/kernel/hostname").read().strip() + "-slow.log")
    clients.query(conn, "CREATE DATABASE d")
    clients.query(conn, "USE d")
    clients.query(conn, "CREATE TABLE t (id INT PRIMARY KEY, c TEXT)")
    clients.query(conn, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    before = clients.status(conn, "Slow_queries")
    clients.query(conn, "SELECT SLEEP(0.3), c FROM t WHERE id = 1")
    clients.query(conn, "SELECT SLEEP(0.25), c FROM t WHERE id = 2")
    clients.query(conn, "SELECT 1")
    # A statement longer than PROCESSLIST's 1,024 characters is logged whole.
    long_text = "SELECT SLEEP(0.2) /* " + "x" * 3000 + " */"
    clients.query(conn, long_text)
    assert clients.status(conn, "Slow_queries") - before == 3
    text = wait_for(path, "xxx */;")
    assert "SELECT 1;" not in text
    assert text.startswith("turnstile, Version: ")
    assert "# User@Host: root[root] @  [127.0.0.1]\n" in text
    assert "# Thread_id: %d  Schema: d  QC_hit: No\n" % conn.thread_id() in text
    assert "use `d`;\n" in text
    assert long_text + ";\n" in text
    entry = text[max(0, text.index("SLEEP(0.3)") - 400):text.index("SLEEP(0.3)")]
    assert "Rows_sent: 1  Rows_examined: 0" in entry
    query_time = float(entry.split("# Query_time: ")[1].split()[0])
    assert 0.29 < query_time < 5, query_time

    if not PT_QUERY_DIGEST:
        if os.environ.get("TURNSTILE_REQUIRE_CLIENTS") == "1":
            raise RuntimeError("pt-query-digest is not installed (scripts/test.sh installs percona-toolkit)")
        pytest.skip("pt-query-digest not installed")
    out = subprocess.run([PT_QUERY_DIGEST, "--output", "json", "--limit", "100%", path], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    classes = {c["fingerprint"]: c for c in report["classes"]}
    sleeps = [c for f, c in classes.items() if f.startswith("select sleep(?), c from t where id = ?")]
    assert len(sleeps) == 1, list(classes)
    assert sleeps[0]["query_count"] == 2
    assert sleeps[0]["metrics"]["Rows_sent"]["sum"] == "2"
    assert float(sleeps[0]["metrics"]["Query_time"]["sum"]) >= 0.5
    assert sleeps[0]["metrics"]["db"]["value"] == "d"
    assert report["global"]["query_count"] == 3
    assert "stderr" not in out.stderr.lower() and "error" not in out.stderr.lower(), out.stderr


def test_each_statement_of_a_multi_statement_query_and_each_execute_is_an_entry(server_factory):
    srv, _, path = slow_server(server_factory)
    conn = clients.root(srv, client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS)
    with conn.cursor() as c:
        c.execute("SELECT SLEEP(0.15) AS a; SELECT 2 AS b; SELECT SLEEP(0.12) AS c")
        while c.nextset():
            pass
    text = wait_for(path, "SELECT SLEEP(0.12) AS c;")
    assert "SELECT SLEEP(0.15) AS a;\n" in text and "SELECT 2 AS b" not in text
    # COM_STMT_EXECUTE (mysql-connector-python's server-side prepared statements).
    mysql_connector = pytest.importorskip("mysql.connector")
    prepared = mysql_connector.connect(host="127.0.0.1", port=srv.port, user="root", password=ROOT_PASSWORD, ssl_disabled=True)
    cur = prepared.cursor(prepared=True)
    cur.execute("SELECT SLEEP(?) AS prepared_sleep", (0.15,))
    cur.fetchall()
    prepared.close()
    assert "SELECT SLEEP(?) AS prepared_sleep;" in wait_for(path, "prepared_sleep")


def test_slow_log_settings_change_with_set_global_and_are_checked(server_factory):
    srv, conn, path = slow_server(server_factory)
    other = os.path.join(srv.datadir, "elsewhere.log")
    clients.query(conn, "SET GLOBAL slow_query_log_file = 'elsewhere.log'")
    assert clients.scalar(conn, "SELECT @@global.slow_query_log_file") == "elsewhere.log"
    clients.query(conn, "SELECT SLEEP(0.15) AS moved")
    assert "AS moved;" in wait_for(other, "AS moved;")
    assert not os.path.exists(path) or "AS moved" not in open(path).read()
    # As MariaDB: a directory that does not exist, or a directory, is refused
    # (1231); and no log may be appended to the server's own files or a
    # configuration file (a log line must not become an account or a setting).
    for bad in ("/nonexistent/dir/x.log", srv.datadir, "accounts.json", os.path.join(srv.datadir, "server-key.pem"),
                "databases/x/data.sqlite", "../outside.log", "/tmp/x.cnf", "/tmp/my.ini", "a\x00b.log"):
        code, _ = clients.error(conn, f"SET GLOBAL slow_query_log_file = '{bad}'")
        assert code == 1231
    assert clients.scalar(conn, "SELECT @@global.slow_query_log_file") == "elsewhere.log"
    # log_output takes FILE only; long_query_time per session; OFF stops the log.
    assert clients.error(conn, "SET GLOBAL log_output = 'TABLE'")[0] == 1231
    clients.query(conn, "SET SESSION long_query_time = 100")
    clients.query(conn, "SELECT SLEEP(0.15) AS not_slow_for_this_session")
    clients.query(conn, "SET SESSION long_query_time = 0.1")
    clients.query(conn, "SET GLOBAL slow_query_log = OFF")
    clients.query(conn, "SELECT SLEEP(0.15) AS log_is_off")
    clients.query(conn, "SET GLOBAL slow_query_log = ON")
    clients.query(conn, "SELECT SLEEP(0.15) AS back_on")
    text = wait_for(other, "AS back_on;")
    assert "not_slow_for_this_session" not in text and "log_is_off" not in text
    # Only an administrator changes them.
    clients.query(conn, "CREATE USER plain IDENTIFIED BY 'pw'")
    plain = clients.connect(srv, user="plain", password="pw")
    for stmt in ("SET GLOBAL slow_query_log = OFF", "SET GLOBAL slow_query_log_file = '/tmp/x.log'", "SET GLOBAL general_log = ON", "FLUSH LOGS"):
        assert clients.error(plain, stmt)[0] in (1227, 1045), stmt


def test_flush_logs_and_sighup_reopen_files_moved_by_logrotate(server_factory):
    srv, conn, path = slow_server(server_factory, "--general-log", "ON")
    general = clients.scalar(conn, "SELECT @@general_log_file")
    clients.query(conn, "SELECT SLEEP(0.15) AS before_rotation")
    wait_for(path, "AS before_rotation;")
    for log in (path, general):
        os.rename(log, log + ".1")
    # Still open: the next entry goes to the moved file until the logs are reopened.
    clients.query(conn, "SELECT SLEEP(0.15) AS still_old_file")
    wait_for(path + ".1", "still_old_file")
    clients.query(conn, "FLUSH LOGS")
    clients.query(conn, "SELECT SLEEP(0.15) AS after_flush")
    text = wait_for(path, "AS after_flush;")
    assert text.startswith("turnstile, Version: ") and "still_old_file" not in text
    assert "SELECT SLEEP(0.15) AS after_flush" in wait_for(general, "after_flush")
    os.rename(path, path + ".2")
    srv.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 10
    while not os.path.exists(path) and time.monotonic() < deadline:
        clients.query(conn, "SELECT SLEEP(0.12) AS after_sighup")
        time.sleep(0.1)
    assert "after_sighup" in wait_for(path, "after_sighup")
    assert srv.is_running()


def test_the_general_log_has_each_command_of_each_session(server_factory):
    srv = server_factory(engine="sqlite")
    conn = clients.root(srv)
    path = clients.scalar(conn, "SELECT @@general_log_file")
    clients.query(conn, "SELECT 'not logged: general_log is OFF'")
    clients.query(conn, "SET GLOBAL general_log = ON")
    other = clients.root(srv)
    clients.query(other, "SELECT 'logged' AS x")
    with other.cursor() as c:
        c.execute("SELECT %s AS y", ("bound",))
    other.select_db("mysql")
    other.close()
    text = wait_for(path, "Quit")
    tid = other.thread_id()
    assert f"{tid:>6} Connect\troot@127.0.0.1 on  using " in text
    assert f"{tid:>6} Query\tSELECT 'logged' AS x\n" in text
    assert f"{tid:>6} Init DB\tmysql\n" in text
    assert f"{tid:>6} Quit\t\n" in text
    assert "not logged" not in text
    # A statement with a newline stays one entry; a password is not hidden
    # (as MariaDB's general log: it is for debugging, 0600 in the data directory).
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"


def test_log_files_that_cannot_be_written_never_fail_a_statement(server_factory):
    srv, conn, path = slow_server(server_factory)
    os.makedirs(os.path.join(srv.datadir, "gone"))
    clients.query(conn, "SET GLOBAL slow_query_log_file = 'gone/slow.log'")
    os.rmdir(os.path.join(srv.datadir, "gone"))
    assert clients.query(conn, "SELECT SLEEP(0.15), 42")[0][1] == 42
    assert "cannot open the query log" in srv.log_tail()
    # Reported once, not once per statement.
    clients.query(conn, "SELECT SLEEP(0.15), 43")
    assert srv.log_tail(200).count("cannot open the query log") == 1


def test_a_log_file_that_would_overwrite_the_servers_own_files_stops_the_start(server_factory):
    srv = server_factory.new("--slow-query-log-file", "accounts.json", engine="sqlite")
    with pytest.raises(Exception):
        srv.start()
    assert "slow_query_log_file" in open(srv.log_path).read()


def test_a_log_path_through_a_link_or_onto_a_fifo_is_refused_and_never_hangs_the_server(server_factory, tmp_path):
    srv = server_factory(engine="sqlite")
    conn = clients.root(srv)
    accounts = os.path.join(srv.datadir, "accounts.json")
    link = tmp_path / "link.log"
    os.symlink(accounts, link)
    fifo = tmp_path / "fifo.log"
    os.mkfifo(fifo)
    for bad in (str(link), str(fifo), f"/proc/self/root{accounts}", f"/proc/self/root{srv.datadir}/server-key.pem"):
        assert clients.error(conn, f"SET GLOBAL general_log_file = '{bad}'")[0] == 1231, bad
    # A path accepted, then replaced by a FIFO (or a link) before the log
    # opens it: the open fails (logged), every statement goes on.
    target = tmp_path / "later.log"
    clients.query(conn, f"SET GLOBAL general_log_file = '{target}'")
    os.mkfifo(target)
    clients.query(conn, "SET GLOBAL general_log = ON")
    assert clients.scalar(conn, "SELECT 42") == 42
    assert clients.scalar(clients.root(srv), "SELECT 43") == 43
    clients.query(conn, "SET GLOBAL general_log = OFF")
    assert "cannot open the query log" in srv.log_tail(200)
    before = open(accounts).read()
    assert before == open(accounts).read()
