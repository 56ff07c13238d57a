"""TLS (issue #25): the SSLRequest and the handshake under the scheduler in
use (CI runs this file under both), the certificate generated at first start
and verified by its CA, TLS 1.2 and 1.3, large results and every byte value
inside TLS, the ClientHello arriving with the SSLRequest, resumption with a
session ticket, require_secure_transport (ERR 3159), configured certificate
files and cipher lists, settings refused at start-up, and what a client that
breaks the handshake gets while everyone else is served."""

import hashlib
import os
import ssl
import stat
import subprocess
import threading

import pymysql
import pytest

from helpers import clients, rawproto
from helpers.server import ROOT_PASSWORD, ServerStartError, TurnstileServer


def ca_context(server) -> ssl.SSLContext:
    """Verify the server's certificate with the CA generated in its data directory."""
    return ssl.create_default_context(cafile=os.path.join(server.datadir, "ca.pem"))


def no_verify_context(**kw) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    for k, v in kw.items():
        setattr(ctx, k, v)
    return ctx


def tls_conn(server, ctx=None, **kw):
    return clients.root(server, ssl=ctx or no_verify_context(), **kw)


def status(conn, name, scope="SESSION"):
    rows = clients.query(conn, f"SHOW {scope} STATUS LIKE '{name}'")
    return rows[0][1] if rows else None


def test_generated_certificate_files_and_their_modes(sql_server):
    for name in ("ca.pem", "ca-key.pem", "server-cert.pem", "server-key.pem"):
        path = os.path.join(sql_server.datadir, name)
        assert os.path.exists(path), name
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, name
    assert "generated a TLS certificate" in open(sql_server.log_path).read()


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
def test_the_generated_ca_verifies_the_server_with_its_names(sql_server, host):
    ctx = ca_context(sql_server)
    conn = pymysql.connect(host=host, port=sql_server.port, user="root", password=ROOT_PASSWORD, ssl=ctx, autocommit=True)
    try:
        assert status(conn, "Ssl_version") == "TLSv1.3"
        assert status(conn, "Ssl_cipher").startswith("TLS_")
        assert clients.scalar(conn, "SELECT @@have_ssl") == "YES"
        assert clients.scalar(conn, "SELECT @@ssl_cert").endswith("server-cert.pem")
    finally:
        conn.close()


def test_a_wrong_host_name_fails_verification(sql_server):
    # The certificate names localhost, 127.0.0.1, ::1 and the host name only.
    c = rawproto.RawConnection.tcp(sql_server.port)
    try:
        with pytest.raises(ssl.SSLCertVerificationError):
            c.start_tls(ca_context(sql_server), server_hostname="db.example.com")
    finally:
        c.close()


def test_plain_connections_have_empty_ssl_status(sql_server):
    # (PyMySQL, like MySQL 8's clients, uses TLS whenever the server offers it.)
    conn = clients.root(sql_server, ssl_disabled=True)
    try:
        assert status(conn, "Ssl_cipher") == ""
        assert status(conn, "Ssl_version") == ""
    finally:
        conn.close()


def test_tls12_when_the_client_caps_it(sql_server):
    conn = tls_conn(sql_server, no_verify_context(maximum_version=ssl.TLSVersion.TLSv1_2))
    try:
        assert status(conn, "Ssl_version") == "TLSv1.2"
        assert status(conn, "Ssl_cipher").startswith("ECDHE-ECDSA-")
    finally:
        conn.close()


def test_over_the_unix_socket(sql_server):
    conn = clients.root(sql_server, transport="socket", ssl=no_verify_context())
    try:
        assert status(conn, "Ssl_version") == "TLSv1.3"
    finally:
        conn.close()


def test_every_byte_value_and_large_results_round_trip_inside_tls(sql_server, uniq):
    db = uniq("tls")
    conn = tls_conn(sql_server, max_allowed_packet=64 * 1024 * 1024)
    try:
        clients.query(conn, f"CREATE DATABASE {db}")
        clients.query(conn, f"CREATE TABLE {db}.b (id INT PRIMARY KEY, v LONGBLOB)")
        every = bytes(range(256)) * 64
        big = os.urandom(12 * 1024 * 1024)
        clients.query(conn, f"INSERT INTO {db}.b VALUES (1, %s), (2, %s)", (every, big))
        assert clients.scalar(conn, f"SELECT v FROM {db}.b WHERE id = 1") == every
        assert clients.scalar(conn, f"SELECT v FROM {db}.b WHERE id = 2") == big
        n = clients.query(conn, f"SELECT LENGTH(v), MD5(v) FROM {db}.b ORDER BY id")
        assert n == ((len(every), hashlib.md5(every).hexdigest()), (len(big), hashlib.md5(big).hexdigest()))
    finally:
        clients.query(conn, f"DROP DATABASE IF EXISTS {db}")
        conn.close()


def test_the_client_hello_in_the_same_write_as_the_ssl_request(sql_server):
    c = rawproto.RawConnection.tcp(sql_server.port)
    try:
        tls = c.start_tls(no_verify_context(), in_one_write=True)
        assert tls.version() in ("TLSv1.3", "TLSv1.2")
        c.handshake("root", ROOT_PASSWORD, extra_caps=rawproto.CLIENT_SSL)
        assert c.scalar("SELECT 40 + 2") == "42"
        rs = c.query("SHOW SESSION STATUS LIKE 'Ssl_version'")
        assert rs.rows == [("Ssl_version", tls.version())]
    finally:
        c.close()


def test_a_session_ticket_resumes_and_is_counted(sql_server):
    ctx = no_verify_context()
    before = clients.status(clients.root(sql_server), "Ssl_session_cache_hits")
    c = rawproto.RawConnection.tcp(sql_server.port)
    tls = c.start_tls(ctx)
    c.handshake("root", ROOT_PASSWORD, extra_caps=rawproto.CLIENT_SSL)
    assert c.scalar("SELECT 1") == "1"  # TLS 1.3 tickets arrive after the handshake
    session = tls.session
    c.quit()
    assert session is not None and session.has_ticket
    c2 = rawproto.RawConnection.tcp(sql_server.port)
    tls2 = c2.start_tls(ctx, session=session)
    c2.handshake("root", ROOT_PASSWORD, extra_caps=rawproto.CLIENT_SSL)
    assert c2.scalar("SELECT 2") == "2"
    assert tls2.session_reused
    c2.quit()
    after = clients.status(clients.root(sql_server), "Ssl_session_cache_hits")
    assert after >= before + 1


def test_an_unknown_ticket_falls_back_to_a_full_handshake(turnstile_bin):
    # A ticket from one server is nothing to another: a full handshake, never a failure.
    a, b = TurnstileServer().start(), TurnstileServer().start()
    try:
        ctx = no_verify_context()
        c = rawproto.RawConnection.tcp(a.port)
        tls = c.start_tls(ctx)
        c.handshake("root", ROOT_PASSWORD, extra_caps=rawproto.CLIENT_SSL)
        c.scalar("SELECT 1")
        session = tls.session
        c.quit()
        c2 = rawproto.RawConnection.tcp(b.port)
        tls2 = c2.start_tls(ctx, session=session)
        c2.handshake("root", ROOT_PASSWORD, extra_caps=rawproto.CLIENT_SSL)
        assert c2.scalar("SELECT 3") == "3"
        assert not tls2.session_reused
        c2.quit()
    finally:
        for s in (a, b):
            s.stop()
            s.cleanup()


def test_require_secure_transport(server_factory):
    srv = server_factory()
    admin = clients.root(srv, transport="socket")
    try:
        clients.query(admin, "SET GLOBAL require_secure_transport = ON")
        with pytest.raises(pymysql.err.OperationalError) as ei:
            clients.root(srv, ssl_disabled=True)
        assert ei.value.args[0] == 3159
        raw = rawproto.RawConnection.tcp(srv.port)
        with pytest.raises(rawproto.ServerError) as e2:
            raw.handshake("root", ROOT_PASSWORD)
        assert (e2.value.code, e2.value.sqlstate) == (3159, "HY000")
        raw.close()
        # TLS and the Unix socket are secure.
        tls_conn(srv).close()
        clients.root(srv, transport="socket").close()
        clients.query(admin, "SET GLOBAL require_secure_transport = OFF")
        clients.root(srv, ssl_disabled=True).close()
    finally:
        admin.close()


def test_ssl_off_offers_no_tls(server_factory):
    srv = server_factory("--ssl=OFF")
    c = rawproto.RawConnection.tcp(srv.port)
    g = c.read_greeting()
    assert g.capabilities & rawproto.CLIENT_SSL == 0
    c.write_packet(c.ssl_request())
    closed, packets = c.wait_closed(5)
    assert closed and packets and rawproto.parse_err(packets[0]).code == 1043
    c.close()
    conn = clients.root(srv)
    assert clients.scalar(conn, "SELECT @@have_ssl") == "DISABLED"
    conn.close()
    assert not os.path.exists(os.path.join(srv.datadir, "server-cert.pem"))


def _openssl_rsa_cert(dirpath):
    key, cert = os.path.join(dirpath, "k.pem"), os.path.join(dirpath, "c.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "30", "-subj", "/CN=localhost"],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_configured_rsa_certificate_and_cipher_lists(server_factory, tmp_path):
    cert, key = _openssl_rsa_cert(str(tmp_path))
    srv = server_factory(f"--ssl-cert={cert}", f"--ssl-key={key}", "--ssl-cipher=ECDHE-RSA-AES128-GCM-SHA256", "--tls-ciphersuites=TLS_CHACHA20_POLY1305_SHA256")
    assert not os.path.exists(os.path.join(srv.datadir, "server-cert.pem"))
    c13 = tls_conn(srv)
    c12 = tls_conn(srv, no_verify_context(maximum_version=ssl.TLSVersion.TLSv1_2))
    try:
        assert status(c13, "Ssl_cipher") == "TLS_CHACHA20_POLY1305_SHA256"
        assert status(c12, "Ssl_cipher") == "ECDHE-RSA-AES128-GCM-SHA256"
        assert clients.scalar(c13, "SELECT @@ssl_cert") == cert
        not_after = status(c13, "Ssl_server_not_after", "GLOBAL")
        assert not_after.endswith(" GMT") and len(not_after.split()) == 5
    finally:
        c13.close()
        c12.close()


@pytest.mark.parametrize(
    "args, words",
    [
        (["--tls-version=TLSv1.1"], "tls_version"),
        (["--tls-version=TLSv9"], "tls_version"),
        (["--ssl-cipher=RC4-MD5"], "ssl_cipher"),
        (["--tls-ciphersuites=TLS_NOPE"], "tls_ciphersuites"),
        (["--ssl-cert=/nonexistent/cert.pem", "--ssl-key=/nonexistent/key.pem"], "ssl_cert"),
        (["--ssl-cert=/nonexistent/cert.pem"], "ssl_cert and ssl_key"),
    ],
)
def test_bad_tls_settings_stop_the_start(turnstile_bin, args, words):
    srv = TurnstileServer(extra_args=args)
    try:
        with pytest.raises(ServerStartError):
            srv.start()
        assert words in srv.log_tail(40)
    finally:
        srv.stop()
        srv.cleanup()


def test_a_broken_handshake_is_counted_and_others_are_served(sql_server):
    root = clients.root(sql_server)
    failures = clients.status(root, "Ssl_handshake_failures")
    for garbage in (b"\x16\x03\x01\x00\x05hello", b"GET / HTTP/1.0\r\n\r\n", os.urandom(3000)):
        c = rawproto.RawConnection.tcp(sql_server.port)
        c.write_packet(c.ssl_request())
        c.send_raw(garbage)
        closed, _ = c.wait_closed(5)
        assert closed
        c.close()
    # A client that asks for TLS and then says nothing is a login that times out, not a held worker.
    idle = rawproto.RawConnection.tcp(sql_server.port)
    idle.write_packet(idle.ssl_request())
    assert clients.scalar(root, "SELECT 1") == 1
    assert clients.status(root, "Ssl_handshake_failures") >= failures + 2
    idle.close()
    root.close()


def test_slow_handshakes_past_max_handshakes_give_way(server_factory):
    """A flood of slow TLS handshakes (greeting read, SSLRequest sent, a
    ClientHello's first bytes and then nothing) with max_connections far
    above them: past max_handshakes the oldest gives way (SHED, Handshakes_evicted)
    and is closed, logins in progress stay at the limit, the established
    session is served and new logins over TLS and plain TCP succeed."""
    limit, flood = 20, 100
    srv = server_factory("--max-handshakes", str(limit), "--max-connections", "1000", "--connect-timeout", "120")
    root = clients.root(srv)
    slow = []
    try:
        for _ in range(flood):
            c = rawproto.RawConnection.tcp(srv.port)
            c.write_packet(c.ssl_request())
            c.send_raw(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
            slow.append(c)
        assert clients.scalar(root, "SELECT 1") == 1
        assert clients.wait_until(lambda: clients.status(root, "Handshakes_evicted") >= flood - limit, timeout=15)
        assert clients.status(root, "Handshakes_in_progress") <= limit
        # The oldest were closed; the newest still wait for their handshake.
        assert all(c.wait_closed(5)[0] for c in slow[:10])
        assert not slow[-1].wait_closed(0.2)[0]
        for ctx in (no_verify_context(), None):
            conn = clients.root(srv, ssl=ctx) if ctx else clients.root(srv)
            assert clients.scalar(conn, "SELECT 2") == 2
            conn.close()
        assert clients.status(root, "Connection_errors_max_connections") == 0
        # At its lowest, 1: each newcomer takes the one login in progress's place.
        for c in slow:
            c.close()
        # Far past its edges, SET GLOBAL truncates with 1292, as MySQL does.
        for far, kept in (("0", 1), ("100001", 100000), ("-5", 1)):
            clients.query(root, f"SET GLOBAL max_handshakes = {far}")
            assert clients.query(root, "SHOW WARNINGS")[0][1] == 1292
            assert clients.scalar(root, "SELECT @@global.max_handshakes") == kept
        clients.query(root, "SET GLOBAL max_handshakes = 1")
        assert clients.wait_until(lambda: clients.status(root, "Handshakes_in_progress") <= 1, timeout=15)
        first = rawproto.RawConnection.tcp(srv.port)
        first.read_greeting()
        conn = clients.root(srv)
        assert clients.scalar(conn, "SELECT 3") == 3
        conn.close()
        assert first.wait_closed(5)[0]
        first.close()
        assert clients.scalar(root, "SELECT @@global.max_handshakes") == 1
    finally:
        for c in slow:
            c.close()
        root.close()


def test_a_tls_client_closes_after_quit_without_a_reset(sql_server):
    """reset_after_quit (ON) closes plain TCP with an RST after COM_QUIT; a
    TLS client then still exchanges close_notify, which a reset would fail
    (mysql_async's disconnect did, one time in three): TLS ends with the
    server's close_notify and a FIN."""
    for _ in range(20):
        c = rawproto.RawConnection.tcp(sql_server.port)
        c.start_tls(no_verify_context())
        c.handshake("root", ROOT_PASSWORD, extra_caps=rawproto.CLIENT_SSL)
        c.seq = 0
        c.write_packet(b"\x01")  # COM_QUIT
        c.sock.unwrap()  # close_notify both ways; a reset raises ConnectionResetError
        c.close()


def test_a_second_ssl_request_inside_tls_is_refused(sql_server):
    c = rawproto.RawConnection.tcp(sql_server.port)
    c.start_tls(no_verify_context())
    c.write_packet(c.ssl_request())
    closed, packets = c.wait_closed(5)
    assert closed and rawproto.parse_err(packets[0]).code == 1043
    c.close()


def test_many_tls_clients_at_once(sql_server):
    errors = []

    def worker():
        try:
            for _ in range(10):
                conn = tls_conn(sql_server)
                assert clients.scalar(conn, "SELECT 7") == 7
                conn.close()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]


def test_a_client_that_does_not_read_its_tls_result_holds_no_one_up(sql_server):
    # 8 MB result over TLS to a client that never reads it: the socket and
    # TLS buffers fill, and the session waits (the pool: for EPOLLOUT) while
    # everyone else is served.
    c = rawproto.RawConnection.tcp(sql_server.port)
    c.start_tls(no_verify_context())
    c.handshake("root", ROOT_PASSWORD, extra_caps=rawproto.CLIENT_SSL)
    c.command(rawproto.COM_QUERY, b"SELECT REPEAT('z', 8000000)")
    for _ in range(5):
        conn = tls_conn(sql_server)
        assert clients.scalar(conn, "SELECT 5") == 5
        conn.close()
    # Then it reads, and gets it all.
    rs = c.read_result()
    assert len(rs.rows[0][0]) == 8000000
    c.close()


def test_mariadb_cli_verifies_with_the_ca(sql_server):
    cli = clients.mysql_cli()
    if not cli:
        pytest.skip("no mariadb/mysql CLI")
    out = subprocess.run(
        [cli, "-h127.0.0.1", f"-P{sql_server.port}", "-uroot", f"-p{ROOT_PASSWORD}", f"--ssl-ca={os.path.join(sql_server.datadir, 'ca.pem')}", "--ssl-verify-server-cert", "-N", "-e", "SHOW STATUS LIKE 'Ssl_version'"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["Ssl_version", "TLSv1.3"]


def test_an_ip_address_as_sni_leaves_no_log_line_per_connection(sql_server):
    """PHP's mysqlnd sends the host it connects to as SNI, 127.0.0.1 too,
    which rustls would warn about on every connection (a line per request
    of a PHP site, and one an attacker controls)."""
    import shutil

    if not shutil.which("php"):
        pytest.skip("no php CLI")
    code = ('$m = mysqli_init(); $m->options(MYSQLI_OPT_SSL_VERIFY_SERVER_CERT, true); $m->ssl_set(null, null, $argv[2], null, null);'
            '$m->real_connect("127.0.0.1", "root", $argv[3], "", (int)$argv[1], null, MYSQLI_CLIENT_SSL);'
            'echo $m->query("SHOW STATUS LIKE \'Ssl_version\'")->fetch_row()[1];')
    for _ in range(3):
        out = subprocess.run(["php", "-r", code, str(sql_server.port), os.path.join(sql_server.datadir, "ca.pem"), ROOT_PASSWORD],
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0 and out.stdout.startswith("TLSv1."), out.stdout + out.stderr
    assert "SNI" not in open(sql_server.log_path, errors="replace").read()


def _cert_proof(password: bytes, scramble: bytes, datadir: str) -> bytes:
    """What MariaDB Connector/C 3.4 and Connector/J 3.4+ compute to trust a
    certificate they cannot verify: 0x01 and the upper-case hex of
    SHA-256(SHA1(SHA1(password)), the scramble, SHA-256 of the certificate)."""
    pem = open(os.path.join(datadir, "server-cert.pem")).read()
    end = "-----END CERTIFICATE-----"
    der = ssl.PEM_cert_to_DER_cert(pem[: pem.index(end) + len(end)])  # the leaf; the CA follows it
    stored = hashlib.sha1(hashlib.sha1(password).digest()).digest()
    return b"\x01" + hashlib.sha256(stored + scramble + hashlib.sha256(der).digest()).hexdigest().upper().encode()


def test_the_login_ok_proves_the_certificate_for_native_accounts(server_factory):
    """With default_authentication_plugin=mysql_native_password (the greeting
    names it, root is made with it): over TLS the login's OK carries the
    proof; over plain TCP, and for a caching_sha2_password account, none."""
    srv = server_factory("--default-authentication-plugin", "mysql_native_password", engine="sqlite")
    root = clients.root(srv)
    assert clients.query(root, "SELECT plugin FROM mysql.user WHERE user = 'root'") == (("mysql_native_password",),)
    assert clients.scalar(root, "SELECT @@default_authentication_plugin") == "mysql_native_password"
    clients.query(root, "CREATE USER 'tp_sha2'@'%' IDENTIFIED WITH caching_sha2_password BY 'pw-2'")
    clients.query(root, "CREATE USER 'tp_default'@'%' IDENTIFIED BY 'pw-3'")
    assert clients.query(root, "SELECT plugin FROM mysql.user WHERE user = 'tp_default'") == (("mysql_native_password",),)
    root.close()
    c = rawproto.RawConnection.tcp(srv.port)
    assert c.read_greeting().auth_plugin == "mysql_native_password"
    c.start_tls(no_verify_context())
    ok = c.handshake("root", ROOT_PASSWORD, extra_caps=rawproto.CLIENT_SSL)
    proof = _cert_proof(ROOT_PASSWORD.encode(), c.greeting.nonce, srv.datadir)
    assert ok.info == bytes([len(proof)]) + proof
    assert c.scalar("SELECT 1") == "1"
    c.close()
    plain = rawproto.RawConnection.tcp(srv.port)
    assert plain.handshake("root", ROOT_PASSWORD).info in (b"", b"\x00")
    plain.close()
    sha2 = rawproto.RawConnection.tcp(srv.port)
    sha2.start_tls(no_verify_context())
    assert sha2.handshake("tp_sha2", "pw-2", extra_caps=rawproto.CLIENT_SSL).info in (b"", b"\x00")
    sha2.close()


def test_mariadb_connector_j_trusts_the_self_signed_certificate_by_that_proof(server_factory):
    """MariaDB Connector/J with sslMode=verify-full and no CA at all: it
    cannot verify the generated certificate, takes the OK's proof instead,
    and connects (tests/clients/java, x_tls_self_signed)."""
    import json

    from clients import harness
    from clients.registry import CLIENTS

    java = next(c for c in CLIENTS if c.name == "MariaDB Connector/J")
    srv = server_factory("--default-authentication-plugin", "mysql_native_password", engine="sqlite")
    root = clients.root(srv)
    harness.prepare_accounts(lambda sql: clients.query(root, sql))
    env = harness.client_env(lambda sql: clients.query(root, sql), srv, java)
    root.close()
    out = subprocess.run([*java.argv(), "x_tls_self_signed"], env=env, capture_output=True, text=True, timeout=120)
    if out.returncode == 77:
        pytest.skip("MariaDB Connector/J is not built (tests/clients/java/setup)")
    verdicts = [json.loads(line) for line in out.stdout.splitlines() if '"feature"' in line]
    assert [v["status"] for v in verdicts] == ["pass"], out.stdout + out.stderr[-2000:]


def test_require_ssl_accounts(sql_server, uniq):
    user = uniq("req")
    root = clients.root(sql_server)
    try:
        clients.query(root, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw1' REQUIRE SSL")
        assert clients.query(root, f"SHOW GRANTS FOR '{user}'@'%'")[0][0] == f"GRANT USAGE ON *.* TO `{user}`@`%` REQUIRE SSL"
        # Without TLS (TCP or the Unix socket): the answer a wrong password gets.
        for transport in ("tcp", "socket"):
            with pytest.raises(pymysql.err.OperationalError) as ei:
                clients.connect(sql_server, user, "pw1", transport=transport, ssl_disabled=True)
            assert ei.value.args[0] == 1045
        ok = clients.connect(sql_server, user, "pw1", ssl=no_verify_context())
        assert status(ok, "Ssl_version") == "TLSv1.3"
        # One's own REQUIRE is not one's own to change; an administrator's ALTER USER is.
        with pytest.raises(pymysql.err.OperationalError) as ei:
            clients.query(ok, "ALTER USER CURRENT_USER() REQUIRE NONE")
        assert ei.value.args[0] == 1227
        ok.close()
        clients.query(root, f"ALTER USER '{user}'@'%' REQUIRE NONE")
        clients.connect(sql_server, user, "pw1", ssl_disabled=True).close()
    finally:
        clients.query(root, f"DROP USER IF EXISTS '{user}'@'%'")
        root.close()


def _peer_cert(server):
    c = rawproto.RawConnection.tcp(server.port)
    try:
        return c.start_tls(no_verify_context()).getpeercert(binary_form=True)
    finally:
        c.close()


def test_reload_takes_new_certificate_files_without_a_restart(server_factory, tmp_path, uniq):
    cert, key = _openssl_rsa_cert(str(tmp_path))
    srv = server_factory(f"--ssl-cert={cert}", f"--ssl-key={key}")
    first = _peer_cert(srv)
    held = tls_conn(srv)
    root = clients.root(srv, transport="socket")
    try:
        new_dir = tmp_path / "new"
        new_dir.mkdir()
        cert2, key2 = _openssl_rsa_cert(str(new_dir))
        os.replace(cert2, cert)
        os.replace(key2, key)
        assert _peer_cert(srv) == first  # nothing changes before the reload
        clients.query(root, "ALTER INSTANCE RELOAD TLS")
        second = _peer_cert(srv)
        assert second != first
        assert clients.scalar(held, "SELECT 1") == 1  # a session inside TLS goes on
        # A broken file: the statement fails, the configuration in use stays.
        with open(key, "w") as f:
            f.write("not a key\n")
        code, msg = clients.error(root, "FLUSH SSL")
        assert code == 3888 and "ssl_key" in msg
        assert _peer_cert(srv) == second
        code, _ = clients.error(root, "ALTER INSTANCE RELOAD TLS NO ROLLBACK")
        assert code == 1064
        user = uniq("norel")
        clients.query(root, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'x'")
        plain = clients.connect(srv, user, "x")
        code, _ = clients.error(plain, "ALTER INSTANCE RELOAD TLS")
        assert code == 1227
        plain.close()
    finally:
        held.close()
        root.close()
