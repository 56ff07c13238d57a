"""caching_sha2_password's full authentication and how passwords are stored
(issue #25 items 3 and 6), against the real binary with PyMySQL, the mysql
CLI and the raw protocol helper:

- the fast path's cache is memory only: after a start, CREATE USER or a new
  password, the first login sends the password itself (inside TLS or over
  the Unix socket in the clear; on plain TCP RSA-encrypted to the key the
  server generated in its data directory), later ones take the fast path;
- accounts.json keeps MySQL's salted `$A$005$...` and nothing unsalted, and
  mysql.user shows it; a data directory of the previous format is upgraded
  without locking anyone out;
- hashes can be given back (IDENTIFIED WITH ... AS, IDENTIFIED BY PASSWORD);
- the key files: generated 0600, MySQL/OpenSSL PKCS#1 keys read, a
  mismatched pair refused at start, none at all leaves TLS and the socket;
- whatever a client sends in the full authentication gets 1045, and the
  server goes on serving everyone else."""

import hashlib
import json
import os
import ssl
import stat
import subprocess

import pymysql
import pytest

from helpers import clients, rawproto
from helpers.server import ROOT_PASSWORD

PW = "Full-auth-pw1"


def make_user(server, name, password=PW, plugin="caching_sha2_password"):
    conn = clients.root(server, transport="socket")
    clients.query(conn, f"DROP USER IF EXISTS '{name}'@'%'")
    clients.query(conn, f"CREATE USER '{name}'@'%' IDENTIFIED WITH {plugin} BY '{password}'")
    conn.close()


def raw_login(server, user, password=PW, transport="tcp", tls=False):
    """Log in with the raw helper; returns its caching_sha2 path (["full"], ["fast"])."""
    if transport == "tcp":
        c = rawproto.RawConnection.tcp(server.port)
    else:
        c = rawproto.RawConnection.unix(server.socket)
    try:
        caps = 0
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
            c.read_greeting()
            c.start_tls(ctx)
            caps = rawproto.CLIENT_SSL
        c.handshake(user, password, plugin="caching_sha2_password", extra_caps=caps)
        assert c.scalar("SELECT CURRENT_USER()") == f"{user}@%"
        return c.auth_path
    finally:
        c.close()


@pytest.mark.parametrize("how", ["tcp-rsa", "tcp-tls", "socket"])
def test_first_login_is_full_then_fast(sql_server, uniq, how):
    user = uniq("fa")
    make_user(sql_server, user)
    transport = "socket" if how == "socket" else "tcp"
    assert raw_login(sql_server, user, transport=transport, tls=how == "tcp-tls") == ["full"]
    # The cache is filled: every transport takes the fast path now.
    assert raw_login(sql_server, user, transport="tcp") == ["fast"]
    assert raw_login(sql_server, user, transport="socket") == ["fast"]


def test_a_wrong_password_is_asked_in_full_and_refused_on_every_transport(sql_server, uniq):
    user = uniq("fw")
    make_user(sql_server, user)
    raw_login(sql_server, user)
    for transport, tls in [("tcp", False), ("tcp", True), ("socket", False)]:
        with pytest.raises(rawproto.ServerError) as e:
            raw_login(sql_server, user, "not-it", transport=transport, tls=tls)
        assert e.value.code == 1045
    # An unknown user is asked the same way and gets the same answer.
    with pytest.raises(rawproto.ServerError) as e:
        raw_login(sql_server, uniq("nobody"), "x")
    assert e.value.code == 1045
    assert raw_login(sql_server, user) == ["fast"], "a failure does not empty the cache"


def test_a_new_password_empties_the_cache(sql_server, uniq):
    user = uniq("fp")
    make_user(sql_server, user)
    raw_login(sql_server, user)
    assert raw_login(sql_server, user) == ["fast"]
    root = clients.root(sql_server, transport="socket")
    clients.query(root, f"ALTER USER '{user}'@'%' IDENTIFIED BY 'Second-pw2'")
    assert raw_login(sql_server, user, "Second-pw2") == ["full"]
    with pytest.raises(rawproto.ServerError):
        raw_login(sql_server, user, PW)
    clients.query(root, f"SET PASSWORD FOR '{user}'@'%' = 'Third-pw3'")
    assert raw_login(sql_server, user, "Third-pw3", transport="socket") == ["full"]
    root.close()


def test_clients_make_the_full_authentication_themselves(sql_server, uniq):
    """PyMySQL (RSA with `cryptography`, or in the clear inside TLS) and the
    mysql CLI (libmariadb asks for the key) on a cold account."""
    for how in ["pymysql-tcp", "pymysql-tls", "cli-tcp", "cli-tls"]:
        user = uniq("fc")
        make_user(sql_server, user)
        if how.startswith("pymysql"):
            kw = {"ssl": {"check_hostname": False, "verify_mode": ssl.CERT_NONE}} if how.endswith("tls") else {}
            conn = clients.connect(sql_server, user, PW, **kw)
            assert clients.scalar(conn, "SELECT CURRENT_USER()") == f"{user}@%"
            conn.close()
        else:
            ssl_flag = "--ssl" if how.endswith("tls") else "--skip-ssl"
            out = subprocess.run(
                ["mysql", "-h127.0.0.1", f"-P{sql_server.port}", f"-u{user}", f"-p{PW}", ssl_flag, "-N", "-e", "SELECT CURRENT_USER()"],
                capture_output=True, text=True, timeout=30,
            )
            assert out.returncode == 0 and out.stdout.strip() == f"{user}@%", (how, out.stderr)
        assert raw_login(sql_server, user) == ["fast"], how


def test_stored_hashes_are_salted_and_shown_as_mysql_does(sql_server, uniq):
    user = uniq("fs")
    make_user(sql_server, user)
    root = clients.root(sql_server, transport="socket")
    shown = clients.scalar(root, f"SELECT authentication_string FROM mysql.user WHERE user = '{user}'")
    assert shown.startswith("$A$005$") and len(shown) == 70
    twin = uniq("ft")
    make_user(sql_server, twin)
    other = clients.scalar(root, f"SELECT authentication_string FROM mysql.user WHERE user = '{twin}'")
    assert other[7:27] != shown[7:27] and other[27:] != shown[27:], "each hash has its own salt"
    on_disk = open(os.path.join(sql_server.datadir, "accounts.json"), encoding="utf-8").read()
    unsalted = hashlib.sha256(hashlib.sha256(PW.encode()).digest()).hexdigest()
    assert unsalted not in on_disk
    sha1 = hashlib.sha1(hashlib.sha1(PW.encode()).digest()).hexdigest()
    assert sha1 not in on_disk, "a caching_sha2_password account keeps no SHA1 hash"
    root.close()


def test_hashes_given_back_log_in(sql_server, uniq):
    root = clients.root(sql_server, transport="socket")
    src = uniq("fh")
    make_user(sql_server, src)
    stored = clients.scalar(root, f"SELECT authentication_string FROM mysql.user WHERE user = '{src}'")
    copy = uniq("fh")
    root_cur = root.cursor()
    root_cur.execute(f"CREATE USER '{copy}'@'%%' IDENTIFIED WITH caching_sha2_password AS %s", (stored,))
    assert raw_login(sql_server, copy) == ["full"]
    native = uniq("fn")
    star = "*" + hashlib.sha1(hashlib.sha1(PW.encode()).digest()).hexdigest().upper()
    clients.query(root, f"CREATE USER '{native}'@'%' IDENTIFIED BY PASSWORD '{star}'")
    assert clients.scalar(root, f"SELECT plugin FROM mysql.user WHERE user = '{native}'") == "mysql_native_password"
    conn = clients.connect(sql_server, native, PW)
    conn.close()
    for sql, code in [
        (f"CREATE USER '{uniq('fx')}'@'%' IDENTIFIED BY PASSWORD '*12'", 1372),
        (f"CREATE USER '{uniq('fx')}'@'%' IDENTIFIED WITH caching_sha2_password AS '$A$005$short'", 1827),
        (f"ALTER USER '{copy}'@'%' IDENTIFIED WITH caching_sha2_password AS '$A$004$" + "a" * 63 + "'", 1827),
    ]:
        with pytest.raises(pymysql.err.MySQLError) as e:
            clients.query(root, sql)
        assert e.value.args[0] == code, sql
    root.close()


def test_only_an_administrator_gives_a_hash_as_stored(sql_server, uniq):
    """A hash names its own rounds (up to 4,095,000: about a second of CPU for
    every login attempt at the account), so an account may change its own
    password but not give itself a hash: 1227, as for its own REQUIRE."""
    user = uniq("fo")
    make_user(sql_server, user)
    conn = clients.connect(sql_server, user, PW, transport="socket")
    slow = "$A$FFF$" + "a" * 20 + "b" * 43
    for sql in [f"ALTER USER CURRENT_USER() IDENTIFIED WITH caching_sha2_password AS '{slow}'",
                "ALTER USER CURRENT_USER() IDENTIFIED BY PASSWORD '*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19'"]:
        code, _ = clients.error(conn, sql)
        assert code == 1227, sql
    clients.query(conn, "ALTER USER CURRENT_USER() IDENTIFIED BY 'Own-new-pw1'")
    conn.close()
    assert raw_login(sql_server, user, "Own-new-pw1", transport="socket") == ["full"]


def test_restart_empties_the_cache_and_keys_persist(server_factory, uniq):
    srv = server_factory()
    user = uniq("fr")
    make_user(srv, user)
    raw_login(srv, user)
    assert raw_login(srv, user) == ["fast"]
    key_files = {n: os.path.join(srv.datadir, n) for n in ("private_key.pem", "public_key.pem")}
    for path in key_files.values():
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    public = open(key_files["public_key.pem"]).read()
    assert public.startswith("-----BEGIN PUBLIC KEY-----")
    srv.stop()
    srv.start()
    assert raw_login(srv, user) == ["full"], "the cache is memory only"
    assert raw_login(srv, user) == ["fast"]
    root = clients.root(srv, transport="socket")
    rows = dict(clients.query(root, "SHOW GLOBAL STATUS LIKE 'Caching_sha2_password_rsa_public_key'"))
    assert rows["Caching_sha2_password_rsa_public_key"] == public, "the same key after a restart"
    root.close()


def version_one_accounts(password: str) -> dict:
    sha1 = hashlib.sha1(hashlib.sha1(password.encode()).digest()).hexdigest()
    sha2 = hashlib.sha256(hashlib.sha256(password.encode()).digest()).hexdigest()
    everything = 0xFFFFFFFF
    acct = lambda user, plugin, privs: {"user": user, "host": "%", "plugin": plugin, "native": sha1, "sha2": sha2, "global_privs": privs}
    return {"accounts": [acct("root", "caching_sha2_password", everything), acct("old", "caching_sha2_password", 0), acct("oldn", "mysql_native_password", 0)], "version": 1}


def test_a_version_one_data_directory_is_upgraded_without_locking_anyone_out(server_factory, tmp_path):
    datadir = tmp_path / "data"
    datadir.mkdir(mode=0o700)
    (datadir / "accounts.json").write_text(json.dumps(version_one_accounts(ROOT_PASSWORD)))
    srv = server_factory(datadir=str(datadir))
    path = datadir / "accounts.json"
    sha1 = hashlib.sha1(hashlib.sha1(ROOT_PASSWORD.encode()).digest()).hexdigest()
    sha2 = hashlib.sha256(hashlib.sha256(ROOT_PASSWORD.encode()).digest()).hexdigest()
    text = path.read_text()
    assert text.count(sha1) == 1, "only the native account keeps SHA1(SHA1(pw))"
    assert text.count(sha2) == 2, "the caching_sha2 accounts keep their hash until salted"
    assert "still keep an unsalted hash" in open(srv.log_path).read()
    # Plain TCP: the old hash serves the fast path, nothing is asked.
    assert raw_login(srv, "old", ROOT_PASSWORD) == ["fast"]
    # TLS or the socket: the password is asked once, and the hash salted.
    assert raw_login(srv, "old", ROOT_PASSWORD, transport="socket") == ["full"]
    assert raw_login(srv, "old", ROOT_PASSWORD, transport="socket") == ["fast"]
    assert path.read_text().count(sha2) == 1
    conn = clients.connect(srv, "oldn", ROOT_PASSWORD)
    conn.close()
    # root is salted by a new password as well.
    root = clients.root(srv)
    clients.query(root, f"ALTER USER root@'%' IDENTIFIED BY '{ROOT_PASSWORD}'")
    root.close()
    assert sha2 not in path.read_text()
    srv.stop()
    srv.start()
    assert raw_login(srv, "old", ROOT_PASSWORD) == ["full"], "salted now: a full authentication after the restart"


def test_pkcs1_keys_are_read_and_a_mismatched_pair_refused(server_factory, tmp_path):
    key = tmp_path / "rsa.pem"
    pub = tmp_path / "rsa.pub"
    subprocess.run(["openssl", "genrsa", "-traditional", "-out", str(key), "2048"], check=True, capture_output=True)
    subprocess.run(["openssl", "rsa", "-in", str(key), "-pubout", "-out", str(pub)], check=True, capture_output=True)
    assert "BEGIN RSA PRIVATE KEY" in key.read_text()
    args = [f"--caching-sha2-password-private-key-path={key}", f"--caching-sha2-password-public-key-path={pub}"]
    srv = server_factory(*args)
    make_user(srv, "pk")
    assert raw_login(srv, "pk") == ["full"]
    root = clients.root(srv, transport="socket")
    shown = dict(clients.query(root, "SHOW GLOBAL STATUS LIKE 'Caching_sha2_password_rsa_public_key'"))
    assert shown["Caching_sha2_password_rsa_public_key"] == pub.read_text()
    root.close()
    other = tmp_path / "other.pem"
    subprocess.run(["openssl", "genrsa", "-out", str(other), "2048"], check=True, capture_output=True)
    bad = server_factory.new(f"--caching-sha2-password-private-key-path={other}", f"--caching-sha2-password-public-key-path={pub}")
    with pytest.raises(Exception):
        bad.start()
    assert "not the private key's" in open(bad.log_path).read()


def test_without_keys_plain_tcp_cannot_but_tls_and_the_socket_can(server_factory, uniq):
    srv = server_factory("--caching-sha2-password-auto-generate-rsa-keys=OFF")
    assert not os.path.exists(os.path.join(srv.datadir, "private_key.pem"))
    user = uniq("fk")
    make_user(srv, user)
    with pytest.raises(rawproto.ServerError) as e:
        raw_login(srv, user)
    assert e.value.code == 1045
    assert raw_login(srv, user, tls=True) == ["full"]
    assert raw_login(srv, user) == ["fast"], "once the cache is filled plain TCP works"


def asked_for_the_password(server, user):
    """A raw connection that sent a wrong fast-path token for `user` and was
    asked for the password itself (its next packet is the client's)."""
    c = rawproto.RawConnection.tcp(server.port)
    c._auth_loop = lambda *args: None  # stop after the handshake response
    c.handshake(user, "wrong", plugin="caching_sha2_password")
    assert c.read_packet() == b"\x01\x04"
    return c


def test_garbage_in_the_full_authentication_is_1045_and_others_are_served(server_factory, uniq):
    # A threshold nobody reaches here: each attempt is answered at once.
    srv = server_factory("--connection-control-failed-connections-threshold=1000")
    user = uniq("fg")
    make_user(srv, user)
    payloads = [b"", b"\x02\x02", b"\x00", b"\xff" * 255, b"\x01" * 256, b"\x00" * 257, os.urandom(256), os.urandom(60_000)]
    for payload in payloads:
        c = asked_for_the_password(srv, user)
        try:
            c.write_packet(payload)
            pkt = c.read_packet()
            assert pkt[:1] == b"\xff" and rawproto.parse_err(pkt).code == 1045, (payload[:8], pkt)
        finally:
            c.close()
    # Past the 64 KiB a login packet may have, the connection closes unanswered.
    c = asked_for_the_password(srv, user)
    try:
        c.write_packet(os.urandom(100_000))
        with pytest.raises(rawproto.ConnectionClosed):
            c.read_packet()
    finally:
        c.close()
    # A second key request in one login is refused too.
    c = asked_for_the_password(srv, user)
    try:
        c.write_packet(b"\x02")
        assert c.read_packet().startswith(b"\x01-----BEGIN PUBLIC KEY-----")
        c.write_packet(b"\x02")
        assert rawproto.parse_err(c.read_packet()).code == 1045
    finally:
        c.close()
    assert raw_login(srv, user) == ["full"]


@pytest.mark.parametrize("transport", ["tcp", "socket"])
def test_change_user_to_a_cold_account_makes_the_full_authentication(sql_server, uniq, transport):
    """COM_CHANGE_USER to an account whose cache is empty: the same exchange
    inside the command (RSA on TCP, the clear over the socket), then the
    session is the new user's; a wrong password is 1045."""
    user = uniq("fu")
    make_user(sql_server, user)
    c = rawproto.RawConnection.tcp(sql_server.port) if transport == "tcp" else rawproto.RawConnection.unix(sql_server.socket)
    try:
        c.handshake("root", ROOT_PASSWORD)
        c.auth_path.clear()
        c.change_user(user, PW, plugin="caching_sha2_password")
        assert c.auth_path == ["full"]
        assert c.scalar("SELECT CURRENT_USER()") == f"{user}@%"
        c.auth_path.clear()
        c.change_user("root", ROOT_PASSWORD, plugin="caching_sha2_password")
        assert c.auth_path == ["fast"]
        with pytest.raises(rawproto.ServerError) as e:
            c.change_user(user, "not-it", plugin="caching_sha2_password")
        assert e.value.code == 1045
    finally:
        c.close()
