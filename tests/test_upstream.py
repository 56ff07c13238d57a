"""The upstream engine (issue #24): Turnstile in front of a real MariaDB
10.11, many client sessions over few backend connections.

Start-up checks, accounts learned from the backend (its passwords and its
grants apply; a wrong password is refused without asking the backend),
multiplexing (the backend never sees the churn), results passed through
(text and binary protocol, large results to slow clients), KILL reaching
the backend statement, and faults: a backend connection that dies, a
backend that is down and comes back. The pinning rules have their own
module (test_upstream_pinning.py).
"""

from __future__ import annotations

import os
import struct
import threading
import time

import pymysql
import pytest

from helpers import clients, rawproto, stmtproto, upstream
from helpers.server import ROOT_PASSWORD, ServerStartError, TurnstileServer


@pytest.fixture(scope="module")
def up(upstream_backend, turnstile_bin):
    srv = upstream.start_turnstile(upstream_backend, "--upstream-max-connections", "4")
    yield srv
    srv.stop()
    srv.cleanup()


def backend_statement_ends(backend, marker: str, timeout_s: float = 10) -> bool:
    """Within `timeout_s`, no statement whose text has `marker` runs on the backend."""
    a = backend.admin()
    running = f"SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%{marker}%' AND INFO NOT LIKE '%PROCESSLIST%'"
    deadline = time.monotonic() + timeout_s
    try:
        while q(a, running)[0][0]:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.2)
        return True
    finally:
        a.close()


def app(srv, **kw):
    return clients.connect(srv, upstream.APP[0], upstream.APP[1], **kw)


def q(conn, sql, args=None):
    return clients.query(conn, sql, args)


def test_statements_run_on_the_backend_as_the_clients_user(up):
    c = app(up, database="shop")
    assert q(c, "SELECT CURRENT_USER(), DATABASE(), VERSION() LIKE '%MariaDB%'") == (("app@%", "shop", 1),)
    q(c, "CREATE TABLE IF NOT EXISTS items (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20))")
    q(c, "INSERT INTO items (name) VALUES ('pen')")
    assert q(c, "SELECT name FROM items WHERE id = LAST_INSERT_ID()") == (("pen",),)
    c.close()


def test_the_backends_grants_apply(up):
    c = app(up)
    assert q(c, "SELECT s FROM other.secret") == (("hidden",),)
    with pytest.raises(pymysql.err.OperationalError) as e:
        q(c, "DROP TABLE other.secret")
    assert e.value.args[0] == 1142
    with pytest.raises(pymysql.err.OperationalError) as e:
        q(c, "SELECT * FROM mysql.user")
    assert e.value.args[0] == 1142
    c.close()


def test_a_database_the_user_may_not_use_fails_the_login(up):
    with pytest.raises(pymysql.err.OperationalError) as e:
        app(up, database="mysql")
    assert e.value.args[0] == 1044
    with pytest.raises(pymysql.err.OperationalError) as e:
        app(up, database="no_such_db")
    assert e.value.args[0] in (1049, 1044)


def test_a_login_database_is_proven_once_and_again_after_grants_or_drops(up, upstream_backend, uniq):
    """A login naming a database the backend let that user into lately
    costs no backend round trip (under churn, the check took a backend
    connection and blocked the login's worker when none was free); a
    REVOKE or DROP DATABASE through Turnstile is seen by the next login."""
    user, db = uniq("prover"), uniq("proven_db")
    r = clients.root(up)
    q(r, f"CREATE DATABASE {db}")
    q(r, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'Prove-pw-1'")
    q(r, f"GRANT SELECT ON {db}.* TO '{user}'@'%'")
    clients.connect(up, user, "Prove-pw-1", database=db).close()
    before = upstream_backend.status("Com_change_db")
    for _ in range(20):
        clients.connect(up, user, "Prove-pw-1", database=db).close()
    # At most one: the accounts' periodic read (every 10 s) forgets proofs.
    assert upstream_backend.status("Com_change_db") - before <= 1
    q(r, f"REVOKE SELECT ON {db}.* FROM '{user}'@'%'")
    with pytest.raises(pymysql.err.OperationalError) as e:
        clients.connect(up, user, "Prove-pw-1", database=db)
    assert e.value.args[0] == 1044
    q(r, f"GRANT SELECT ON {db}.* TO '{user}'@'%'")
    c = clients.connect(up, user, "Prove-pw-1", database=db)
    assert q(c, "SELECT DATABASE()") == ((db,),)
    c.close()
    q(r, f"DROP DATABASE {db}")
    with pytest.raises(pymysql.err.OperationalError) as e:
        clients.connect(up, user, "Prove-pw-1", database=db)
    assert e.value.args[0] == 1049
    # Dropped on the backend directly, a proof goes stale until the next
    # accounts read: the login gets in, its first statement gets the
    # backend's own error (docs/upstream.md).
    q(r, f"CREATE DATABASE {db}")
    clients.connect(up, user, "Prove-pw-1", database=db).close()
    a = upstream_backend.admin()
    q(a, f"DROP DATABASE {db}")
    try:
        c = clients.connect(up, user, "Prove-pw-1", database=db)
    except pymysql.err.OperationalError as e:
        assert e.args[0] == 1049  # the accounts were read meanwhile
    else:
        with pytest.raises(pymysql.err.OperationalError) as e:
            q(c, "SHOW TABLES")
        assert e.value.args[0] == 1049
        c.close()
    q(a, f"DROP USER '{user}'@'%'")
    a.close()
    r.close()


def test_get_diagnostics_never_reads_another_sessions_conditions(up):
    """MariaDB keeps a connection's diagnostics area across statements that
    use no table, so on a shared connection GET DIAGNOSTICS could read the
    error of the session that used it before (measured: another session of
    the same account read 'Duplicate entry ...'). Pinned (in a transaction)
    the connection is the session's own and it runs there; otherwise 1235."""
    a = app(up, database="shop")
    q(a, "CREATE TABLE IF NOT EXISTS uniq (k VARCHAR(20) PRIMARY KEY)")
    q(a, "INSERT IGNORE INTO uniq VALUES ('secret-of-a')")
    with pytest.raises(pymysql.err.IntegrityError):
        q(a, "INSERT INTO uniq VALUES ('secret-of-a')")
    b = app(up, database="shop")
    with pytest.raises(pymysql.err.NotSupportedError) as e:
        q(b, "GET DIAGNOSTICS CONDITION 1 @m = MESSAGE_TEXT")
    assert e.value.args[0] == 1235
    assert q(b, "SELECT @m") == ((None,),)
    b.close()
    q(a, "BEGIN")
    with pytest.raises(pymysql.err.IntegrityError):
        q(a, "INSERT INTO uniq VALUES ('secret-of-a')")
    q(a, "GET DIAGNOSTICS CONDITION 1 @m = MESSAGE_TEXT, @e = MYSQL_ERRNO")
    assert q(a, "SELECT @e, @m LIKE 'Duplicate entry%'") == ((1062, 1),)
    q(a, "ROLLBACK")
    a.close()


def test_a_wrong_password_is_refused_without_a_backend_round_trip(up, upstream_backend):
    c = app(up)  # the accounts are loaded and a connection is warm
    statements = int(upstream.status(c, "Upstream_statements"))
    before = upstream_backend.status("Connections")
    # Three: the failed-login threshold (connection_control); later attempts would wait.
    for _ in range(3):
        with pytest.raises(pymysql.err.OperationalError) as e:
            clients.connect(up, upstream.APP[0], "wrong")
        assert e.value.args[0] == 1045
    after = upstream_backend.status("Connections")
    assert after - before <= 1, (before, after)  # the status read's own
    # Only the SHOW STATUS itself ran on the backend meanwhile.
    assert int(upstream.status(c, "Upstream_statements")) == statements + 1
    c.close()


def test_an_account_created_on_the_backend_can_log_in_at_once(up, upstream_backend, uniq):
    user = uniq("late")
    a = upstream_backend.admin()
    q(a, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'Late-pw-1'")
    q(a, f"GRANT SELECT ON shop.* TO '{user}'@'%'")
    c = clients.connect(up, user, "Late-pw-1")
    assert q(c, "SELECT CURRENT_USER()") == ((f"{user}@%",),)
    c.close()
    # A password changed through Turnstile is read again at once too.
    r = clients.root(up)
    q(r, f"ALTER USER '{user}'@'%' IDENTIFIED BY 'Late-pw-2'")
    r.close()
    with pytest.raises(pymysql.err.OperationalError):
        clients.connect(up, user, "Late-pw-1")
    clients.connect(up, user, "Late-pw-2").close()
    q(a, f"DROP USER '{user}'@'%'")
    a.close()


def test_accounts_turnstile_cannot_proxy_are_refused_with_1045(up, upstream_backend, uniq):
    user = uniq("sock")
    a = upstream_backend.admin()
    q(a, f"CREATE USER '{user}'@'%' IDENTIFIED VIA unix_socket")
    with pytest.raises(pymysql.err.OperationalError) as e:
        clients.connect(up, user, "")
    assert e.value.args[0] == 1045
    q(a, f"DROP USER '{user}'@'%'")
    a.close()


def test_ssl_status_describes_the_clients_connection_not_the_backends(up):
    """TLS is between the client and Turnstile: SHOW STATUS's Ssl_version and
    Ssl_cipher are the client's (one row each, not the backend's too), and
    empty for a plain connection, though the backend answered the rest."""
    import ssl

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    secure = app(up, ssl=ctx)
    rows = q(secure, "SHOW SESSION STATUS LIKE 'Ssl_%'")
    names = [r[0] for r in rows]
    assert len(names) == len(set(names)), names
    got = dict(rows)
    assert got["Ssl_version"].startswith("TLSv1.") and got["Ssl_cipher"].startswith("TLS_")
    assert "Ssl_accepts" in got
    assert dict(q(secure, "SHOW STATUS"))["Ssl_cipher"] == got["Ssl_cipher"]
    assert dict(q(secure, "SHOW GLOBAL STATUS LIKE 'Ssl_cipher'"))["Ssl_cipher"] == ""
    secure.close()
    plain = app(up, ssl_disabled=True)
    assert dict(q(plain, "SHOW STATUS LIKE 'Ssl_cipher'")) == {"Ssl_cipher": ""}
    plain.close()


def test_churn_reaches_the_backend_as_no_new_connections(up, upstream_backend):
    for _ in range(5):
        app(up).close()
    before = upstream_backend.status("Connections")
    for _ in range(200):
        c = app(up, database="shop")
        assert q(c, "SELECT 1") == ((1,),)
        c.close()
    after = upstream_backend.status("Connections")
    assert after - before <= 1, (before, after)  # the status read's own


def test_many_sessions_share_few_backend_connections(up, upstream_backend):
    conns = [app(up) for _ in range(60)]
    for i, c in enumerate(conns):
        assert q(c, "SELECT %s", (i,)) == ((i,),)
    assert int(upstream.status(conns[0], "Upstream_connections_open")) <= 4
    threads_connected = upstream_backend.status("Threads_connected")
    assert threads_connected <= 4 + 1, threads_connected  # the cap counts the monitor; + this read
    for c in conns:
        c.close()


def test_parallel_sessions_never_exceed_the_cap(up):
    errors = []

    def work():
        try:
            c = app(up, database="shop")
            for _ in range(20):
                q(c, "SELECT SLEEP(0.001)")
            c.close()
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    c = app(up)
    assert int(upstream.status(c, "Upstream_connections_open")) <= 4
    c.close()


@pytest.fixture(scope="module")
def two(upstream_backend, turnstile_bin):
    # Two connections for sessions (the third is the monitor's).
    srv = upstream.start_turnstile(upstream_backend, "--upstream-max-connections", "3", "--upstream-checkout-timeout-ms", "20000")
    yield srv
    srv.stop()
    srv.cleanup()


def threads_of(srv) -> int:
    return len(os.listdir(f"/proc/{srv.pid}/task"))


def test_sessions_waiting_for_the_backend_hold_no_thread(two):
    """Statements waiting for their answer, or for a free backend
    connection, park their session (the pool-of-threads scheduler): 24
    sessions with slow statements over 2 backend connections do not take 24
    threads, and all of them are answered."""
    idle = [app(two) for _ in range(24)]
    for c in idle:
        assert q(c, "SELECT 1") == ((1,),)
    before = threads_of(two)
    most = [before]
    errors = []

    def work(c, i):
        try:
            assert q(c, "SELECT SLEEP(0.1), %s", (i,)) == ((0, i),)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    workers = [threading.Thread(target=work, args=(c, i)) for i, c in enumerate(idle)]
    for t in workers:
        t.start()
    while any(t.is_alive() for t in workers):
        most.append(threads_of(two))
        time.sleep(0.02)
    for t in workers:
        t.join()
    assert not errors, errors
    # 24 statements of 0.1 s over 2 connections: ~1.2 s of queueing.
    assert max(most) <= before + 2, (before, max(most))
    assert int(upstream.status(idle[0], "Upstream_connections_open")) <= 2
    assert int(upstream.status(idle[0], "Upstream_waits")) >= 10
    for c in idle:
        c.close()


def test_a_queued_session_that_leaves_takes_no_connection_with_it(two):
    """A session queued for a backend connection whose client goes away is
    taken out of the queue: the connection given back serves the next one."""
    from helpers import rawproto

    a, b = app(two), app(two)
    q(a, "BEGIN")
    q(b, "BEGIN")  # both backend connections are pinned now
    q(a, "SELECT 1")
    q(b, "SELECT 1")
    gone = rawproto.connect(two, upstream.APP[0], upstream.APP[1])
    gone.command(0x03, b"SELECT 'never answered'")
    time.sleep(0.3)
    gone.close()  # queued, and gone without reading
    time.sleep(0.3)
    q(a, "COMMIT")
    c = app(two)
    t0 = time.monotonic()
    assert q(c, "SELECT 2") == ((2,),)
    assert time.monotonic() - t0 < 2
    q(b, "COMMIT")
    assert int(upstream.status(c, "Upstream_connections_open")) <= 2
    for x in (a, b, c):
        x.close()


def test_binary_protocol_statements_prepare_lazily_per_connection(up):
    b = stmtproto.connect(up.port, upstream.APP[0], upstream.APP[1], db="shop")
    b.query("CREATE TABLE IF NOT EXISTS bin (id INT PRIMARY KEY, v VARBINARY(10))")
    b.query("DELETE FROM bin")
    ins = b.prepare("INSERT INTO bin VALUES (?, ?)")
    for i in range(10):
        b.execute(ins, [(stmtproto.T_LONG, i), (stmtproto.T_VAR_STRING, bytes([0, 255, i]))])
    sel = b.prepare("SELECT v FROM bin WHERE id = ?")
    rows = b.execute(sel, [(stmtproto.T_LONG, 7)])
    assert rows.rows == [(bytes([0, 255, 7]),)]
    b.close(sel)
    with pytest.raises(Exception):
        b.execute(sel, [(stmtproto.T_LONG, 7)])
    b.close_connection()


@pytest.mark.parametrize("deprecate_eof", [False, True], ids=["eof", "deprecate_eof"])
@pytest.mark.parametrize("sql", [b"SELECT id, v FROM bin WHERE id = ? AND v <> ?", b"INSERT INTO bin VALUES (?, ?)", b"SELECT 1", b"DO 1", b"SELECT * FROM no_such_table", b"SELEC 1"])
def test_prepare_answers_match_mariadb_byte_for_byte(up, upstream_backend, sql, deprecate_eof):
    """COM_STMT_PREPARE runs like any command (no worker waits for the
    answer under the pool); what the client reads is MariaDB's answer but
    for the statement id, which is the session's."""

    def answer(port):
        c = rawproto.RawConnection.tcp(port)
        c.handshake(upstream.APP[0], upstream.APP[1], db="shop", extra_caps=rawproto.CLIENT_DEPRECATE_EOF if deprecate_eof else 0)
        c.command(rawproto.COM_QUERY, b"CREATE TABLE IF NOT EXISTS bin (id INT PRIMARY KEY, v VARBINARY(10))")
        c.read_packet()
        c.command(stmtproto.COM_STMT_PREPARE, sql)
        first = c.read_packet()
        packets = [first]
        if first[:1] == b"\x00":
            _, cols, params = struct.unpack_from("<IHH", first, 1)
            for n in (params, cols):
                packets += [c.read_packet() for _ in range(n + (1 if n and not deprecate_eof else 0))]
            packets[0] = first[:1] + b"ID" + first[5:]
        c.command(rawproto.COM_QUERY, b"SELECT 2")  # the connection is in step
        assert c.read_packet() == b"\x01"
        c.close()
        return packets

    assert answer(up.port) == answer(upstream_backend.port)


def test_binary_and_unusual_values_round_trip(up):
    c = app(up, database="shop")
    q(c, "CREATE TABLE IF NOT EXISTS vals (b VARBINARY(20), d DECIMAL(30,10), t DATETIME(6), j JSON)")
    q(c, "DELETE FROM vals")
    blob = bytes(range(256))[:20]
    q(c, "INSERT INTO vals VALUES (%s, '12345678901234567890.0123456789', '2026-11-27 10:11:12.123456', '{\"a\": [1, 2]}')", (blob,))
    row = q(c, "SELECT b, d, t, j FROM vals")[0]
    assert row[0] == blob
    assert str(row[1]) == "12345678901234567890.0123456789"
    assert str(row[2]) == "2026-11-27 10:11:12.123456"
    c.close()


def test_a_large_result_streams_to_a_slow_client_and_others_go_on(up):
    c = app(up, database="shop")
    q(c, "CREATE TABLE IF NOT EXISTS big (id INT PRIMARY KEY, pad VARCHAR(1000))")
    q(c, "DELETE FROM big")
    q(c, "INSERT INTO big SELECT seq, REPEAT('x', 1000) FROM seq_1_to_12000")
    slow = app(up, database="shop", cursorclass=pymysql.cursors.SSCursor)
    cur = slow.cursor()
    cur.execute("SELECT * FROM big ORDER BY id")
    first = cur.fetchone()
    assert first[0] == 1
    # While the slow client has read one row of 12 MB, others are served.
    others = [app(up) for _ in range(6)]
    for o in others:
        assert q(o, "SELECT 2") == ((2,),)
        o.close()
    n = 1 + sum(1 for _ in cur)
    assert n == 12000
    cur.close()
    slow.close()
    c.close()


def test_kill_query_reaches_the_backend_statement(up):
    victim = app(up)
    vid = victim.thread_id()
    killer = clients.root(up)
    result = {}

    def run():
        t0 = time.monotonic()
        try:
            q(victim, "SELECT SLEEP(20)")
            result["rows"] = True
        except pymysql.err.MySQLError as e:
            result["err"] = e.args[0]
        result["s"] = time.monotonic() - t0

    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.5)
    q(killer, f"KILL QUERY {vid}")
    t.join(10)
    # MariaDB ends an interrupted SLEEP with the value 1 (no error).
    assert result.get("s", 99) < 5, result
    assert q(victim, "SELECT 3") == ((3,),)
    victim.close()
    killer.close()


def test_a_dead_backend_connection_is_replaced_for_a_clean_session(up, upstream_backend):
    c = app(up)
    assert q(c, "SELECT 1") == ((1,),)
    a = upstream_backend.admin()
    for (pid,) in q(a, "SELECT id FROM information_schema.PROCESSLIST WHERE user = 'app'"):
        q(a, f"KILL {pid}")
    time.sleep(0.2)
    assert q(c, "SELECT 2") == ((2,),)
    a.close()
    c.close()


def test_a_pinned_session_that_loses_its_connection_gets_2013_then_works(up, upstream_backend):
    c = app(up, database="shop")
    q(c, "SET @kept = 1")
    a = upstream_backend.admin()
    # The session's backend connection is among app's (CONNECTION_ID() is Turnstile's id).
    for (pid,) in q(a, "SELECT id FROM information_schema.PROCESSLIST WHERE user = 'app'"):
        q(a, f"KILL {pid}")
    a.close()
    time.sleep(0.2)
    with pytest.raises(pymysql.err.MySQLError) as e:
        q(c, "SELECT @kept")
    assert e.value.args[0] == 2013
    assert q(c, "SELECT 5") == ((5,),)
    c.close()


def test_a_backend_on_this_host_is_reached_over_its_unix_socket(upstream_backend, turnstile_bin):
    """`--upstream-servers /path/to.sock`: the backend's Unix socket (a
    database beside Turnstile), with the same accounts and grants."""
    args = ["--upstream-servers", upstream_backend.socket, "--upstream-user", upstream.MONITOR[0], "--upstream-password", upstream.MONITOR[1]]
    srv = TurnstileServer(extra_args=args, engine="upstream", root_password=None).start()
    try:
        c = app(srv, database="shop")
        assert q(c, "SELECT CURRENT_USER()") == (("app@%",),)
        with pytest.raises(pymysql.err.OperationalError) as e:
            q(c, "DELETE FROM other.secret")
        assert e.value.args[0] == 1142
        a = upstream_backend.admin()
        hosts = {r[0] for r in q(a, "SELECT HOST FROM information_schema.PROCESSLIST WHERE USER = 'app'")}
        assert "localhost" in hosts, hosts  # (other modules' Turnstiles reach it over TCP)
        a.close()
        c.close()
    finally:
        srv.stop()
        srv.cleanup()


def test_load_data_local_relays_the_clients_file_to_the_backend(up, upstream_backend, tmp_path):
    """LOAD DATA LOCAL INFILE: the backend's file request goes to the
    client, the file's packets go to the backend as they come, and the
    backend's answer (rows, warnings) comes back; the connection is shared
    again after it."""
    path = tmp_path / "rows.csv"
    path.write_text("".join(f"{i},name {i}\n" for i in range(5000)) + "5000,x,extra\n")
    c = app(up, database="shop", local_infile=True)
    q(c, "CREATE TABLE IF NOT EXISTS loaded (id INT PRIMARY KEY, name VARCHAR(20))")
    q(c, "DELETE FROM loaded")
    with c.cursor() as cur:
        n = cur.execute(f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE loaded FIELDS TERMINATED BY ','")
        cur.execute("SHOW WARNINGS")
        warnings = cur.fetchall()
    assert n == 5001
    assert [w[1] for w in warnings] == [1262]  # the extra column, as MariaDB words it
    a = upstream_backend.admin()
    assert q(a, "SELECT COUNT(*), MAX(name) FROM shop.loaded") == ((5001, "x"),)
    a.close()
    assert q(c, "SELECT COUNT(*) FROM loaded") == ((5001,),)
    assert upstream.status(c, "Upstream_pinned_state_change") == "0"
    c.close()


def test_load_data_local_is_refused_to_a_client_that_did_not_ask_for_it(up):
    c = app(up, database="shop")  # PyMySQL without local_infile: no CLIENT_LOCAL_FILES
    q(c, "CREATE TABLE IF NOT EXISTS loaded (id INT PRIMARY KEY, name VARCHAR(20))")
    with pytest.raises(pymysql.err.OperationalError) as e:
        q(c, "LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE loaded")
    assert e.value.args[0] == 4166
    assert q(c, "SELECT 1") == ((1,),)
    c.close()


def test_a_client_that_leaves_in_the_middle_of_its_file_loses_nothing_else(up, upstream_backend):
    """Adversarial: the file request answered with part of a file, then the
    client is gone. The half-loaded statement does not outlive it on the
    backend, nothing of it was committed, and other sessions go on."""
    from helpers import rawproto

    c = app(up, database="shop")
    q(c, "CREATE TABLE IF NOT EXISTS halfway (id INT PRIMARY KEY)")
    q(c, "DELETE FROM halfway")
    r = rawproto.connect(up, upstream.APP[0], upstream.APP[1], db="shop", extra_caps=0x80)  # CLIENT_LOCAL_FILES
    r.command(0x03, b"LOAD DATA LOCAL INFILE 'f' INTO TABLE halfway /* ts-halfway */")
    request = r.read_packet()
    assert request[:1] == b"\xfb" and request[1:] == b"f"
    r.write_packet(b"".join(b"%d\n" % i for i in range(1000)))
    time.sleep(0.3)
    r.close()
    assert backend_statement_ends(upstream_backend, "ts-halfway"), "the load outlived its client"
    a = upstream_backend.admin()
    assert q(a, "SELECT COUNT(*) FROM shop.halfway") == ((0,),)
    a.close()
    assert q(c, "SELECT 5") == ((5,),)
    c.close()


def test_load_data_local_is_checked_and_answered_as_mariadb_answers_it(up, upstream_backend, tmp_path):
    """The same LOAD DATA LOCAL statements through Turnstile and straight to
    MariaDB: the user's grants apply (1142 for a table it may only read),
    4166 for a client that did not ask for local files, and every byte value
    of a file lands as it does in MariaDB."""
    data = bytes(b for b in range(256) if b not in (0x09, 0x0A, 0x5C))  # the field and line terminators, the escape
    path = tmp_path / "bytes.tsv"
    path.write_bytes(b"1\t" + data + b"\n2\t\xff\x00\xc3\n")
    load = f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE %s"

    def direct(**kw):
        return pymysql.connect(host="127.0.0.1", port=upstream_backend.port, user=upstream.APP[0], password=upstream.APP[1], autocommit=True, **kw)

    a = upstream_backend.admin()
    for t in ("bytes_ts", "bytes_direct"):
        q(a, f"CREATE TABLE IF NOT EXISTS shop.{t} (id INT PRIMARY KEY, v BLOB)")
        q(a, f"DELETE FROM shop.{t}")
    outcomes = []
    for conn in (app(up, database="shop", local_infile=True), direct(database="shop", local_infile=True)):
        table = "bytes_ts" if not outcomes else "bytes_direct"
        got = []
        with conn.cursor() as cur:
            got.append(cur.execute(load % table))
            cur.execute("SHOW WARNINGS")
            got.append(cur.fetchall())
            with pytest.raises(pymysql.err.OperationalError) as e:
                cur.execute(load % "other.secret")
            got.append(e.value.args[0])
        conn.close()
        outcomes.append(got)
    assert outcomes[0] == outcomes[1] == [2, (), 1142]
    assert q(a, "SELECT id, HEX(v) FROM shop.bytes_ts ORDER BY id") == q(a, "SELECT id, HEX(v) FROM shop.bytes_direct ORDER BY id")
    assert q(a, "SELECT v FROM shop.bytes_ts WHERE id = 1") == ((data,),)
    assert q(a, "SELECT COUNT(*) FROM other.secret") == ((1,),)
    a.close()
    refused = []
    for conn in (app(up, database="shop"), direct(database="shop")):
        with pytest.raises(pymysql.err.OperationalError) as e:
            q(conn, load % "bytes_ts")
        refused.append(e.value.args[0])
        conn.close()
    assert refused == [4166, 4166]


def test_a_file_packet_at_and_past_max_allowed_packet(upstream_backend, turnstile_bin):
    """A LOCAL file's packets are bounded by Turnstile's max_allowed_packet
    like any other: one of exactly that size reaches the backend; one byte
    more is ERR 1153 and the connection closes, and the backend's half-done
    load neither outlives it nor commits a row."""
    from helpers import rawproto

    limit = 65536
    srv = upstream.start_turnstile(upstream_backend, "--max-allowed-packet", str(limit))
    try:
        c = app(srv, database="shop")
        q(c, "CREATE TABLE IF NOT EXISTS long_lines (v MEDIUMTEXT)")
        q(c, "DELETE FROM long_lines")
        for size, ok in ((limit, True), (limit + 1, False)):
            r = rawproto.connect(srv, upstream.APP[0], upstream.APP[1], db="shop", extra_caps=0x80)  # CLIENT_LOCAL_FILES
            r.command(0x03, b"LOAD DATA LOCAL INFILE 'f' INTO TABLE long_lines /* ts-edge */")
            assert r.read_packet()[:1] == b"\xfb"
            r.write_packet(b"x" * (size - 1) + b"\n")
            if ok:
                r.write_packet(b"")
                assert r.read_packet()[:1] == b"\x00"  # OK: one row
            else:
                closed, packets = r.wait_closed(5)
                assert closed
                assert [int.from_bytes(p[1:3], "little") for p in packets if p[:1] == b"\xff"] == [1153]
            r.close()
        assert backend_statement_ends(upstream_backend, "ts-edge"), "the load outlived its client"
        assert q(c, "SELECT COUNT(*), MAX(LENGTH(v)) FROM long_lines") == ((1, limit - 1),)
        c.close()
    finally:
        srv.stop()
        srv.cleanup()


def test_start_up_fails_clearly_when_the_backend_is_unreachable(turnstile_bin):
    srv = TurnstileServer(engine="upstream", root_password=None, extra_args=["--upstream-servers", "127.0.0.1:1", "--upstream-user", "x", "--upstream-password", "y"])
    with pytest.raises(ServerStartError) as e:
        srv.start()
    assert "unreachable" in str(e.value)
    srv.cleanup()


def test_start_up_names_the_privilege_the_monitor_lacks(upstream_backend, turnstile_bin, uniq):
    user = uniq("weak")
    a = upstream_backend.admin()
    q(a, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'Weak-pw-1'")
    srv = TurnstileServer(engine="upstream", root_password=None, extra_args=["--upstream-servers", f"127.0.0.1:{upstream_backend.port}", "--upstream-user", user, "--upstream-password", "Weak-pw-1"])
    with pytest.raises(ServerStartError) as e:
        srv.start()
    assert "mysql.user" in str(e.value)
    srv.cleanup()
    q(a, f"GRANT SELECT ON mysql.user TO '{user}'@'%'")
    srv = TurnstileServer(engine="upstream", root_password=None, extra_args=["--upstream-servers", f"127.0.0.1:{upstream_backend.port}", "--upstream-user", user, "--upstream-password", "Weak-pw-1"])
    with pytest.raises(ServerStartError) as e:
        srv.start()
    assert "CONNECTION ADMIN" in str(e.value)
    srv.cleanup()
    q(a, f"DROP USER '{user}'@'%'")
    a.close()


def test_a_backend_that_is_down_fails_fast_and_recovery_is_noticed(turnstile_bin):
    backend = upstream.Backend().start()
    srv = upstream.start_turnstile(backend, "--upstream-connect-timeout-ms", "500", "--upstream-retry-interval-ms", "1000", "--upstream-health-interval-ms", "200")
    try:
        c = clients.root(srv)
        assert q(c, "SELECT 1") == ((1,),)
        backend.proc.terminate()
        backend.proc.wait(30)
        t0 = time.monotonic()
        with pytest.raises(pymysql.err.MySQLError) as e:
            q(c, "SELECT 1")
        assert e.value.args[0] in (2003, 2013)
        with pytest.raises(pymysql.err.MySQLError) as e:
            q(c, "SELECT 1")
        assert e.value.args[0] == 2003
        assert time.monotonic() - t0 < 3
        # The same data directory, port and socket again.
        import subprocess

        backend.proc = subprocess.Popen(backend.proc.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 30
        while True:
            try:
                assert q(c, "SELECT 7") == ((7,),)
                break
            except pymysql.err.MySQLError:
                assert time.monotonic() < deadline, "Turnstile did not notice the backend came back"
                time.sleep(0.3)
        c.close()
    finally:
        srv.stop()
        srv.cleanup()
        backend.stop()


def test_statements_a_proxy_parser_would_not_know_pass_through(up):
    c = app(up, database="shop")
    assert q(c, "SELECT 1 /*!50000 + 1 */ /*M!100000 + 1 */") == ((3,),)
    assert q(c, "VALUES (1), (2)") == ((1,), (2,))
    assert q(c, "EXECUTE IMMEDIATE 'SELECT 4'") == ((4,),)
    assert q(c, "SELECT seq FROM seq_1_to_3 WHERE seq <=> 2") == ((2,),)
    assert q(c, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT SUM(n) FROM r")[0][0] == 6
    c.close()


def test_multi_statements_only_when_the_client_asks(up):
    c = app(up, database="shop")
    with pytest.raises(pymysql.err.ProgrammingError) as e:
        q(c, "SELECT 1; SELECT 2")
    assert e.value.args[0] == 1064
    c.close()
    m = app(up, database="shop", client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS)
    with m.cursor() as cur:
        cur.execute("SELECT 1; SELECT 2")
        assert cur.fetchall() == ((1,),)
        assert cur.nextset()
        assert cur.fetchall() == ((2,),)
    m.close()


def test_the_mysql_cli_works_through_it(up):
    r = clients.run_cli(up, "SELECT CONCAT('cli', 1) AS x; SHOW DATABASES LIKE 'shop'", user=upstream.APP[0], password=upstream.APP[1])
    assert r.returncode == 0, r.stderr
    assert "cli1" in r.stdout and "shop" in r.stdout


def test_root_password_and_admin_port(up):
    r = clients.connect(up, "root", ROOT_PASSWORD, transport="admin")
    assert q(r, "SELECT CURRENT_USER()") == (("root@%",),)
    r.close()
    with pytest.raises(pymysql.err.OperationalError):
        clients.connect(up, upstream.APP[0], upstream.APP[1], transport="admin")


def test_a_client_that_goes_away_has_its_backend_statement_killed(up, upstream_backend):
    from helpers import rawproto

    c = rawproto.connect(up, upstream.APP[0], upstream.APP[1])
    c.command(0x03, b"SELECT SLEEP(60) /* ts-gone-marker */")
    time.sleep(0.5)
    c.close()  # gone without reading
    assert backend_statement_ends(upstream_backend, "ts-gone-marker"), "the backend statement outlived its client"
    # The connection it ran on is fine for the next session.
    d = app(up)
    assert q(d, "SELECT 8") == ((8,),)
    d.close()


def test_long_data_past_max_allowed_packet_fails_the_execute_and_stores_nothing(upstream_backend, turnstile_bin):
    # Turnstile's own max_allowed_packet (SET GLOBAL through it would reach the backend's).
    srv = upstream.start_turnstile(upstream_backend, "--max-allowed-packet", "1048576")
    try:
        b = stmtproto.connect(srv.port, upstream.APP[0], upstream.APP[1], db="shop")
        b.query("CREATE TABLE IF NOT EXISTS longd (id INT PRIMARY KEY, v LONGBLOB)")
        b.query("DELETE FROM longd")
        ins = b.prepare("INSERT INTO longd VALUES (?, ?)")
        # At the edge: exactly max_allowed_packet bytes in pieces is kept whole.
        for _ in range(4):
            b.send_long_data(ins, 1, b"a" * 262144)
        b.execute(ins, [(stmtproto.T_LONG, 1), (stmtproto.T_BLOB, None)])
        assert b.query("SELECT LENGTH(v) FROM longd WHERE id = 1").rows == [(b"1048576",)]
        # One byte past it: the execute fails and nothing is stored.
        for _ in range(4):
            b.send_long_data(ins, 1, b"a" * 262144)
        b.send_long_data(ins, 1, b"a")
        with pytest.raises(Exception) as e:
            b.execute(ins, [(stmtproto.T_LONG, 2), (stmtproto.T_BLOB, None)])
        assert "1105" in str(e.value) or "max_allowed_packet" in str(e.value)
        assert b.query("SELECT COUNT(*) FROM longd WHERE id = 2").rows == [(b"0",)]
        # The statement works again afterwards.
        b.execute(ins, [(stmtproto.T_LONG, 3), (stmtproto.T_BLOB, b"x")])
        b.close_connection()
    finally:
        srv.stop()
        srv.cleanup()


def test_statements_nested_past_the_limit_never_reach_the_backend(up, upstream_backend):
    """MariaDB 10.11 itself crashes on window functions nested 5,000 deep
    (measured: the server process exits); through Turnstile any account
    could stop the backend so. upstream_max_nesting (1000) refuses them
    first, with 1436; at the limit a statement still goes through."""
    c = app(up, database="shop")
    q(c, "CREATE TABLE IF NOT EXISTS w1 (a INT)")
    crash = "SELECT " + "sum(" * 5000 + "a" + ") OVER ()" * 5000 + " FROM w1"
    with pytest.raises(pymysql.err.MySQLError) as e:
        q(c, crash)
    assert e.value.args[0] == 1436
    at_limit = "SELECT " + "(" * 1000 + "1" + ")" * 1000
    assert q(c, at_limit) == ((1,),)
    with pytest.raises(pymysql.err.MySQLError) as e:
        q(c, "SELECT " + "(" * 1001 + "1" + ")" * 1001)
    assert e.value.args[0] == 1436
    assert upstream_backend.status("Uptime") > 0  # the backend is still up
    assert q(c, "SELECT 1") == ((1,),)
    c.close()


def test_the_greeting_presents_the_backends_version(up, upstream_backend):
    """Drivers choose protocol features by the greeting's version (mysql2
    sends JSON parameters as MySQL 8's JSON type to an 8.0 server, which
    MariaDB refuses with 1210): through Turnstile they see the backend's."""
    c = app(up)
    b = upstream_backend.admin()
    assert c.get_server_info() == b.get_server_info()
    assert "MariaDB" in c.get_server_info()
    b.close()
    c.close()
