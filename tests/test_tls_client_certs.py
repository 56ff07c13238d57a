"""Client certificates (issue #25 item 3): CREATE/ALTER USER ... REQUIRE
X509 | ISSUER | SUBJECT | CIPHER, against the real binary with PyMySQL and
the mysql CLI, beside what MariaDB 10.11 does (checked side by side when this
was written: the same SHOW GRANTS text, the same mysql.user columns, the same
1225 for an option given twice, 1045 for a login without what is required,
and CIPHER alone needing no certificate).

The server asks every TLS client for a certificate (as MySQL does when it has
a CA): one it sends must be signed by ssl_ca (the data directory's generated
ca.pem here), or the handshake fails; none is fine for every account but
those requiring one. Certificates are made with openssl as an operator
would: X.509 v3 (rustls's webpki refuses version 1 ones, which `openssl x509
-req` makes without an extension file)."""

import os
import subprocess

import pymysql
import pytest

from helpers import clients

CLIENT_EXT = "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n"


def make_cert(tmp_path, name, subject, ca_dir=None, v3=True):
    """A client key and certificate with `subject`, signed by the CA in
    `ca_dir` (ca.pem, ca-key.pem) or by a new CA of its own."""
    key, csr, cert = (str(tmp_path / f"{name}{x}") for x in ("-key.pem", ".csr", "-cert.pem"))
    if ca_dir is None:
        ca_dir = tmp_path / f"{name}-ca"
        ca_dir.mkdir()
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", str(ca_dir / "ca-key.pem"),
                        "-out", str(ca_dir / "ca.pem"), "-days", "2", "-subj", "/CN=Other CA"], check=True, capture_output=True)
    subprocess.run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", csr, "-subj", subject],
                   check=True, capture_output=True)
    cmd = ["openssl", "x509", "-req", "-in", csr, "-CA", os.path.join(ca_dir, "ca.pem"), "-CAkey", os.path.join(ca_dir, "ca-key.pem"), "-CAcreateserial",
           "-out", cert, "-days", "2"]
    if v3:
        ext = tmp_path / f"{name}.ext"
        ext.write_text(CLIENT_EXT)
        cmd += ["-extfile", str(ext)]
    subprocess.run(cmd, check=True, capture_output=True)
    return cert, key


def login(server, user, cert=None, tls=True):
    """A PyMySQL login over TCP; returns CURRENT_USER() or the error code."""
    kw = {"ssl_disabled": True} if not tls else {"ssl": {"check_hostname": False, "verify_mode": 0, **({"cert": cert[0], "key": cert[1]} if cert else {})}}
    try:
        conn = clients.connect(server, user, "pw", **kw)
    except pymysql.err.OperationalError as e:
        return e.args[0]
    try:
        return clients.scalar(conn, "SELECT CURRENT_USER()")
    finally:
        conn.close()


@pytest.fixture
def certs(sql_server, tmp_path):
    ca = sql_server.datadir
    return {
        "client": make_cert(tmp_path, "client", "/C=FI/O=Acme/CN=client", ca),
        "other": make_cert(tmp_path, "other", "/C=FI/O=Acme/CN=other", ca),
        "v1": make_cert(tmp_path, "v1", "/C=FI/O=Acme/CN=client", ca, v3=False),
        "foreign": make_cert(tmp_path, "foreign", "/C=FI/O=Acme/CN=client"),
    }


CA_SUBJECT = "/CN=Turnstile_Auto_Generated_CA_Certificate"


def test_require_forms_logins_and_how_they_are_shown(sql_server, uniq, certs):
    root = clients.root(sql_server)
    users = {}
    forms = {
        "x509": "REQUIRE X509",
        "subject": "REQUIRE SUBJECT '/C=FI/O=Acme/CN=client'",
        "issuer_subject": f"REQUIRE ISSUER '{CA_SUBJECT}' AND SUBJECT '/C=FI/O=Acme/CN=client'",
        "wrong_subject": "REQUIRE SUBJECT '/CN=client'",
        "wrong_issuer": "REQUIRE ISSUER '/CN=Other CA'",
        "cipher": "REQUIRE CIPHER 'TLS_AES_128_GCM_SHA256'",
        "wrong_cipher": "REQUIRE CIPHER 'ECDHE-ECDSA-AES256-GCM-SHA384'",
    }
    try:
        for k, req in forms.items():
            users[k] = uniq("rq")
            clients.query(root, f"CREATE USER '{users[k]}'@'%' IDENTIFIED BY 'pw' {req}")
        grants = {k: clients.query(root, f"SHOW GRANTS FOR '{u}'@'%'")[0][0] for k, u in users.items()}
        assert grants["x509"].endswith("REQUIRE X509")
        assert grants["issuer_subject"].endswith(f"REQUIRE ISSUER '{CA_SUBJECT}' SUBJECT '/C=FI/O=Acme/CN=client'"), "MariaDB's text: no AND"
        assert grants["cipher"].endswith("REQUIRE CIPHER 'TLS_AES_128_GCM_SHA256'")
        rows = dict((r[0], r[1:]) for r in clients.query(root, "SELECT user, ssl_type, ssl_cipher, x509_issuer, x509_subject FROM mysql.user"))
        assert rows[users["x509"]] == ("X509", "", "", "")
        assert rows[users["issuer_subject"]] == ("SPECIFIED", "", CA_SUBJECT, "/C=FI/O=Acme/CN=client")
        assert rows[users["cipher"]] == ("SPECIFIED", "TLS_AES_128_GCM_SHA256", "", "")
        expect = {
            # account: (no TLS, TLS without a certificate, TLS with client's, TLS with other's)
            "x509": (1045, 1045, "ok", "ok"),
            "subject": (1045, 1045, "ok", 1045),
            "issuer_subject": (1045, 1045, "ok", 1045),
            "wrong_subject": (1045, 1045, 1045, 1045),
            "wrong_issuer": (1045, 1045, 1045, 1045),
            "cipher": (1045, "ok", "ok", "ok"),
            "wrong_cipher": (1045, 1045, 1045, 1045),
        }
        for k, want in expect.items():
            got = (login(sql_server, users[k], tls=False), login(sql_server, users[k]), login(sql_server, users[k], certs["client"]),
                   login(sql_server, users[k], certs["other"]))
            got = tuple("ok" if g == f"{users[k]}@%" else g for g in got)
            assert got == want, k
        # REQUIRE NONE lifts it; an option twice is MariaDB's 1225.
        clients.query(root, f"ALTER USER '{users['x509']}'@'%' REQUIRE NONE")
        assert login(sql_server, users["x509"], tls=False) == f"{users['x509']}@%"
        assert clients.error(root, f"ALTER USER '{users['x509']}'@'%' REQUIRE ISSUER 'a' ISSUER 'b'") == (1225, "Option 'ISSUER' used twice in statement")
        assert clients.error(root, f"ALTER USER '{users['x509']}'@'%' REQUIRE")[0] == 1064
    finally:
        for u in users.values():
            clients.query(root, f"DROP USER IF EXISTS '{u}'@'%'")
        root.close()


def test_certificates_that_do_not_verify_fail_the_handshake_and_others_go_on(sql_server, uniq, certs):
    root = clients.root(sql_server)
    user = uniq("rq")
    clients.query(root, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    try:
        for bad in ("foreign", "v1"):
            # The handshake fails: the client sees its connection lost (2013), as with MariaDB for another CA's.
            assert login(sql_server, user, certs[bad]) in clients.LOST_CONNECTION_CODES, bad
        assert clients.status(root, "Ssl_handshake_failures") >= 2
        assert login(sql_server, user, certs["client"]) == f"{user}@%", "an account with no REQUIRE may send a certificate"
        assert login(sql_server, user) == f"{user}@%"
        assert clients.scalar(root, "SELECT 1") == 1
    finally:
        clients.query(root, f"DROP USER IF EXISTS '{user}'@'%'")
        root.close()


def test_the_mysql_cli_and_a_restart(server_factory, tmp_path):
    srv = server_factory()
    cert, key = make_cert(tmp_path, "cli", "/C=FI/O=Acme/CN=cli", srv.datadir)
    root = clients.root(srv)
    clients.query(root, "CREATE USER cli@'%' IDENTIFIED BY 'pw' REQUIRE SUBJECT '/C=FI/O=Acme/CN=cli'")
    root.close()

    def cli(*extra):
        return subprocess.run(["mysql", "-h127.0.0.1", f"-P{srv.port}", "-ucli", "-ppw", "--ssl", *extra, "-N", "-e", "SELECT CURRENT_USER()"],
                              capture_output=True, text=True, timeout=30)

    assert cli(f"--ssl-cert={cert}", f"--ssl-key={key}").stdout.strip() == "cli@%"
    assert "1045" in cli().stderr
    srv.stop()
    srv.start()
    assert cli(f"--ssl-cert={cert}", f"--ssl-key={key}").stdout.strip() == "cli@%", "REQUIRE is kept on disk"
    assert "1045" in cli().stderr


def test_without_a_ca_no_certificate_is_asked_and_x509_accounts_cannot_log_in(server_factory, tmp_path):
    cert = tmp_path / "server-cert.pem"
    key = tmp_path / "server-key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "2", "-subj", "/CN=localhost"], check=True, capture_output=True)
    srv = server_factory(f"--ssl-cert={cert}", f"--ssl-key={key}")
    client = make_cert(tmp_path, "noca", "/CN=c")
    root = clients.root(srv)
    clients.query(root, "CREATE USER nx@'%' IDENTIFIED BY 'pw' REQUIRE X509")
    clients.query(root, "CREATE USER plain@'%' IDENTIFIED BY 'pw'")
    root.close()
    # No CA: no certificate is asked for, so one a client has is never sent or checked.
    assert login(srv, "plain", client) == "plain@%"
    assert login(srv, "nx", client) == 1045
