"""LOAD DATA [LOCAL] INFILE and mysql.user under attack (issue #23): server
files outside secure_file_priv (`..`, absolute paths, symlinks), server files
without FILE privilege, LOCAL with local_infile OFF, files at and far beyond
load_data_max_bytes, a client that disconnects or breaks the sequence in the
middle of its file, garbage bytes, a stalled transfer on a pool with one
worker, and password hashes that must reach no one but an administrator."""

import os
import socket

import pymysql
import pytest

from helpers import clients, rawproto
from helpers.server import ROOT_PASSWORD

LOCAL_FILES = 0x80


def _raw(srv, db):
    return rawproto.connect(srv, "root", ROOT_PASSWORD, db=db, extra_caps=LOCAL_FILES)


def _start_load(c, sql=b"LOAD DATA LOCAL INFILE 'f' INTO TABLE t"):
    c.command(rawproto.COM_QUERY, sql)
    assert c.read_packet()[:1] == b"\xfb"


def _count(srv, db):
    c = clients.root(srv, database=db)
    try:
        return clients.query(c, "SELECT COUNT(*) FROM t")[0][0]
    finally:
        c.close()


@pytest.fixture(scope="module")
def priv_dir(tmp_path_factory):
    base = tmp_path_factory.mktemp("sfp")
    inside = base / "inside"
    inside.mkdir()
    (inside / "ok.txt").write_bytes(b"1\n2\n")
    (base / "secret.txt").write_bytes(b"42\n")
    os.symlink(base / "secret.txt", inside / "link.txt")
    return base


@pytest.fixture(scope="module")
def srv(turnstile_bin, priv_dir):
    from conftest import _start

    inside = priv_dir / "inside"
    s = _start(["--secure-file-priv", str(inside), "--load-data-max-bytes", "1024", "--net-read-timeout", "5"], engine="sqlite")
    c = clients.root(s)
    clients.query(c, "CREATE DATABASE sec")
    clients.query(c, "CREATE TABLE sec.t (a INT, b VARCHAR(2000))")
    clients.query(c, "CREATE USER 'plain'@'%' IDENTIFIED WITH mysql_native_password BY 'pw'")
    clients.query(c, "GRANT ALL ON sec.* TO 'plain'@'%'")
    c.close()
    yield s
    s.stop()
    s.cleanup()


def _empty(srv):
    c = clients.root(srv, database="sec")
    clients.query(c, "DELETE FROM t")
    c.close()


@pytest.mark.parametrize("path", ["../secret.txt", "link.txt", "{base}/secret.txt", "/etc/passwd", "inside/../../secret.txt"])
def test_server_files_outside_secure_file_priv_are_refused(srv, priv_dir, path):
    c = clients.root(srv, database="sec")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(c, f"LOAD DATA INFILE '{path.format(base=priv_dir)}' INTO TABLE t")
    assert ei.value.args[0] in (1290, 29)
    assert clients.query(c, "SELECT COUNT(*) FROM t WHERE a = 42") == ((0,),)
    c.close()


def test_server_file_inside_is_read(srv, priv_dir):
    _empty(srv)
    c = clients.root(srv, database="sec")
    # Strict mode: a row with too few fields is an error (1261), as MariaDB's.
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(c, "LOAD DATA INFILE 'ok.txt' INTO TABLE t")
    assert ei.value.args[0] == 1261
    assert clients.query(c, "SELECT COUNT(*) FROM t") == ((0,),)
    clients.query(c, "LOAD DATA INFILE 'ok.txt' INTO TABLE t (a)")
    assert clients.query(c, "SELECT COUNT(*) FROM t") == ((2,),)
    c.close()
    _empty(srv)


def test_server_file_needs_file_privilege(srv):
    c = clients.connect(srv, "plain", "pw", database="sec")
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.query(c, "LOAD DATA INFILE 'ok.txt' INTO TABLE t")
    assert ei.value.args[0] == 1045
    c.close()


@pytest.mark.parametrize("size", [1024, 1025, 10 * 1024 * 1024])
def test_file_size_limit_at_and_beyond_the_edge(srv, size):
    _empty(srv)
    line = b"1\t" + b"x" * 9 + b"\n"  # 12 bytes
    data = (line * (size // len(line) + 1))[:size]
    c = _raw(srv, "sec")
    _start_load(c)
    for i in range(0, len(data), 16384):
        c.write_packet(data[i : i + 16384])
    c.write_packet(b"")
    reply = c.read_packet()
    if size <= 1024:
        assert rawproto.parse_ok(reply).affected_rows == size // len(line) + (1 if size % len(line) else 0)
    else:
        err = rawproto.parse_err(reply)
        assert err.code == 1105 and "load_data_max_bytes" in err.message
        assert _count(srv, "sec") == 0
    # The connection goes on.
    assert rawproto.rows(c.query("SELECT 1")) == [("1",)]
    c.close()
    _empty(srv)


def test_disconnect_mid_file_loads_nothing_and_server_serves(srv):
    _empty(srv)
    c = _raw(srv, "sec")
    _start_load(c)
    c.write_packet(b"1\ta\n2\tb\n")
    c.sock.shutdown(socket.SHUT_RDWR)
    c.close()
    # Nothing half-loaded, and the table takes writes (no lock left behind).
    w = clients.root(srv, database="sec")
    clients.query(w, "INSERT INTO t VALUES (9, 'z')")
    assert clients.query(w, "SELECT a FROM t") == ((9,),)
    w.close()
    _empty(srv)


def test_stalled_client_is_closed_after_net_read_timeout(srv):
    _empty(srv)
    c = _raw(srv, "sec")
    _start_load(c)
    c.write_packet(b"1\ta\n")
    # net_read_timeout is 5 s on this server: the connection ends, with no ERR 4031.
    closed, packets = c.wait_closed(30)
    assert closed
    assert not any(p[:1] == b"\xff" and int.from_bytes(p[1:3], "little") == 4031 for p in packets)
    c.close()
    assert _count(srv, "sec") == 0


def test_out_of_order_packet_mid_file(srv):
    _empty(srv)
    c = _raw(srv, "sec")
    _start_load(c)
    c.write_packet(b"1\ta\n")
    c.seq = (c.seq + 5) & 0xFF
    c.write_packet(b"2\tb\n")
    c.seq = (c.seq - 5) & 0xFF
    closed, packets = c.wait_closed(10)
    assert closed
    assert any(p[:1] == b"\xff" and int.from_bytes(p[1:3], "little") == 1156 for p in packets)
    c.close()
    assert _count(srv, "sec") == 0


def test_garbage_bytes_are_values_not_a_crash(srv):
    _empty(srv)
    garbage = bytes(range(256)) * 3
    c = _raw(srv, "sec")
    _start_load(c)
    c.write_packet(garbage[:1000])
    c.write_packet(b"")
    reply = c.read_packet()
    assert reply[:1] in (b"\x00", b"\xff")
    assert rawproto.rows(c.query("SELECT 1")) == [("1",)]
    c.close()
    _empty(srv)


def test_stalled_transfer_holds_no_pool_worker(server_factory, tmp_path):
    s = server_factory("--thread-handling", "pool-of-threads", "--thread-pool-size", "1", "--thread-pool-max-threads", "1", "--thread-pool-oversubscribe", "0", engine="sqlite")
    c = clients.root(s)
    clients.query(c, "CREATE DATABASE st")
    clients.query(c, "CREATE TABLE st.t (a INT)")
    c.close()
    stalled = _raw(s, "st")
    _start_load(stalled)
    stalled.write_packet(b"1\n")
    # The only worker must be free: other sessions log in and run statements.
    for _ in range(3):
        o = clients.root(s, database="st")
        assert clients.query(o, "SELECT COUNT(*) FROM t") == ((0,),)
        o.close()
    stalled.write_packet(b"2\n")
    stalled.write_packet(b"")
    assert rawproto.parse_ok(stalled.read_packet()).affected_rows == 2
    stalled.close()


def test_local_infile_off_refuses_before_any_request(srv):
    root = clients.root(srv)
    clients.query(root, "SET GLOBAL local_infile = OFF")
    try:
        c = _raw(srv, "sec")
        c.command(rawproto.COM_QUERY, b"LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE t")
        reply = c.read_packet()
        assert rawproto.parse_err(reply).code == 4166
        c.close()
    finally:
        clients.query(root, "SET GLOBAL local_infile = ON")
    # Only an administrator may turn it back on.
    p = clients.connect(srv, "plain", "pw")
    with pytest.raises(pymysql.err.MySQLError):
        clients.query(p, "SET GLOBAL local_infile = ON")
    p.close()
    root.close()


def test_password_hashes_reach_no_non_administrator(srv):
    root = clients.root(srv)
    assert clients.query(root, "SELECT COUNT(*) FROM mysql.user WHERE authentication_string <> ''")[0][0] >= 2
    root.close()
    p = clients.connect(srv, "plain", "pw", database="sec")
    for sql in [
        "SELECT * FROM mysql.user",
        "SELECT authentication_string FROM `mysql`.`user`",
        "SELECT * FROM information_schema.user",
        "SELECT (SELECT MAX(Password) FROM mysql.user)",
        "SELECT * FROM sec.t WHERE b IN (SELECT authentication_string FROM mysql.user)",
        "WITH x AS (SELECT * FROM mysql.user) SELECT * FROM x",
    ]:
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(p, sql)
        assert ei.value.args[0] == 1142, (sql, ei.value.args)
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(p, "USE mysql")
    assert ei.value.args[0] == 1044
    # A prepared statement is checked again at every execution, by its session.
    with p.cursor() as cur:
        with pytest.raises(pymysql.err.MySQLError) as ei:
            cur.execute("PREPARE s FROM 'SELECT Password FROM mysql.user'")
            cur.execute("EXECUTE s")
        assert ei.value.args[0] == 1142
    p.close()
