"""Start-up: the configuration file, the Unix socket's stale-file handling, the
data-directory lock and first-start bootstrap errors.

- A TOML file given with --config sets settings; the command line overrides it.
- A stale socket file left by a crashed server is replaced.
- A socket a live server listens on is never taken over: the second server
  refuses to start and the first keeps serving.
- Two servers never share a data directory.
- A first start without any root password option fails with a clear message.
"""

import os
import socket
import subprocess
import tempfile

import pymysql
import pytest

from helpers import clients
from helpers.server import TurnstileServer


def run_to_exit(binary, args, timeout=20):
    return subprocess.run([str(binary)] + args, capture_output=True, text=True, timeout=timeout)


def test_config_file_and_flag_override(turnstile_bin, root_password, tmp_path):
    cfg = tmp_path / "turnstile.toml"
    cfg.write_text('max_connections = 77\nwait_timeout = 1234\nthread_cache_size = 5\n')
    srv = TurnstileServer(extra_args=["--config", str(cfg), "--thread_cache_size=9"]).start()
    try:
        conn = clients.root(srv)
        assert clients.scalar(conn, "SELECT @@global.max_connections") == 77
        assert clients.scalar(conn, "SELECT @@global.wait_timeout") == 1234
        # The command line wins over the file.
        assert clients.scalar(conn, "SELECT @@global.thread_cache_size") == 9
        conn.close()
    finally:
        srv.stop()


def test_config_file_with_unknown_setting_is_rejected(turnstile_bin, tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text("no_such_setting = 1\n")
    r = run_to_exit(turnstile_bin, ["--config", str(cfg), "--datadir", str(tmp_path / "d"), "--port", "0", "--admin-port", "0", "--socket", ""])
    assert r.returncode != 0
    assert "no_such_setting" in r.stderr


@pytest.mark.parametrize("setting, value, shown", [
    ("connect_timeout", "0", "2..=31536000"),
    ("max_allowed_packet", "5", "1024..=1073741824"),
    ("thread_stack", "4096", "131072..=1073741824"),
    ("max_connections", "0", "1..=100000"),
    ("max_handshakes", "0", "1..=100000"),
    ("default_authentication_plugin", "sha256_password", ("caching_sha2_password", "mysql_native_password")),
    ("max_handshakes", "100001", "1..=100000"),
    ("thread_pool_stall_limit", "1", "10..=4294967295"),
    ("thread_handling", "bogus", ("one-thread-per-connection", "pool-of-threads")),
    ("engine", "innodb", ("sqlite", "blackhole")),
    ("sqlite_durability", "sometimes", ("full", "periodic")),
    ("port", "70000", "0..=65535"),
    ("sqlite_pool_size", "70000", "0..=65536"),
    ("sqlite_cache_kib", "-1", "0..=1073741824"),
    ("shutdown_timeout", "99999999999", "0..=31536000"),
    ("thread_pool_nice", "-21", "-20..=19"),
    ("statistics", "maybe", "ON, OFF"),
    ("transaction_isolation", "READ COMMITTED", ("READ-COMMITTED", "REPEATABLE-READ")),
    ("caching_sha2_password_digest_rounds", "4999", "5000..=4095000"),
    ("caching_sha2_password_digest_rounds", "4096000", "5000..=4095000"),
])
@pytest.mark.parametrize("where", ["flag", "file"])
def test_a_value_out_of_range_stops_start_up_naming_the_setting_and_range(turnstile_bin, tmp_path, setting, value, shown, where):
    """Limits are checked once, where settings are read; nothing is clamped
    silently later. SET GLOBAL clamps to the same ranges (one table: crates/settings)."""
    base = ["--datadir", str(tmp_path / "d"), "--port", "0", "--admin-port", "0", "--socket", "", "--root-password", "x"]
    if where == "flag":
        args = base + [f"--{setting}={value}"]
    else:
        cfg = tmp_path / "bad.toml"
        quoted = value if value.lstrip("-").isdigit() else f'"{value}"'
        cfg.write_text(f"{setting} = {quoted}\n")
        args = base + ["--config", str(cfg)]
    r = run_to_exit(turnstile_bin, args)
    assert r.returncode != 0
    flag = "--" + setting.replace("_", "-")
    assert flag in r.stderr or setting in r.stderr, r.stderr
    for part in (shown,) if isinstance(shown, str) else shown:
        assert part in r.stderr, r.stderr
    assert not (tmp_path / "d").exists(), "nothing is created before the settings are known to be valid"


@pytest.mark.parametrize("line, named", [
    ("version = \"9.9\"", "version"),  # a variable, but not a start-up setting
    ("sql_mode = \"\"", "sql_mode"),
    ("max_connections = [1, 2]", "max_connections"),
])
def test_config_file_names_only_start_up_settings(turnstile_bin, tmp_path, line, named):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(line + "\n")
    r = run_to_exit(turnstile_bin, ["--config", str(cfg), "--datadir", str(tmp_path / "d"), "--port", "0", "--admin-port", "0", "--socket", "", "--root-password", "x"])
    assert r.returncode != 0
    assert named in r.stderr, r.stderr
    assert not (tmp_path / "d").exists()


def failure(conn, sql):
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(conn, sql)
    return clients.error_code(e.value)


def test_every_start_up_setting_is_a_read_only_variable_with_its_value(turnstile_bin, root_password, tmp_path):
    """One table: what start-up was given is what SHOW VARIABLES shows, and
    SET GLOBAL refuses what cannot change while running (ERR 1238, as MariaDB
    for thread_pool_size's read-only cousins). The first-start password is no
    variable at all."""
    cfg = tmp_path / "t.toml"
    cfg.write_text('sqlite_pool_size = 7\nstatistics = false\nthread_pool_nice = -3\n')
    srv = TurnstileServer(extra_args=["--config", str(cfg), "--thread-pool-size", "3", "--transaction-isolation", "read-committed"]).start()
    try:
        conn = clients.root(srv)
        assert clients.scalar(conn, "SELECT @@global.thread_pool_size") == 3
        assert clients.scalar(conn, "SELECT @@global.sqlite_pool_size") == 7
        assert clients.scalar(conn, "SELECT @@global.thread_pool_nice") == -3
        assert clients.scalar(conn, "SELECT @@global.transaction_isolation") == "READ-COMMITTED"
        assert clients.scalar(conn, "SELECT @@global.thread_stack") == 1048576
        rows = dict(clients.query(conn, "SHOW GLOBAL VARIABLES LIKE 'statistics'"))
        assert rows == {"statistics": "OFF"}
        for stmt in ("SET GLOBAL thread_pool_size = 4", "SET GLOBAL engine = 'blackhole'"):
            assert failure(conn, stmt) == 1238
        assert failure(conn, "SELECT @@root_password") == 1193
        # MariaDB's disconnect_on_expired_password and MySQL's caching_sha2_password
        # settings are the only ones, and none is a secret.
        assert clients.query(conn, "SHOW VARIABLES LIKE '%password%'") == (
            ("caching_sha2_password_auto_generate_rsa_keys", "ON"),
            ("caching_sha2_password_digest_rounds", "5000"),
            ("caching_sha2_password_private_key_path", "private_key.pem"),
            ("caching_sha2_password_public_key_path", "public_key.pem"),
            ("disconnect_on_expired_password", "OFF"),
        )
        # SET GLOBAL clamps to the range start-up refuses beyond.
        clients.query(conn, "SET GLOBAL connect_timeout = 0")
        assert clients.scalar(conn, "SELECT @@global.connect_timeout") == 2
        clients.query(conn, "SET GLOBAL connect_timeout = 10")
        conn.close()
    finally:
        srv.stop()


def test_stale_socket_file_is_replaced(turnstile_bin, root_password, tmp_path):
    srv = TurnstileServer()
    path = srv.socket_path
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.close()  # the file stays behind, nobody listens: a crashed server's leftover
    assert os.path.exists(path)
    srv.start()
    try:
        conn = clients.root(srv, transport="socket")
        assert clients.scalar(conn, "SELECT @@socket") == path
        conn.close()
    finally:
        srv.stop()


def test_live_socket_is_never_stolen(turnstile_bin, root_password, tmp_path):
    first = TurnstileServer().start()
    try:
        r = run_to_exit(
            turnstile_bin,
            ["--port", "0", "--admin-port", "0", "--socket", first.socket, "--datadir", str(tmp_path / "d2"), "--root-password", root_password],
        )
        assert r.returncode != 0
        assert "another server is listening" in r.stderr
        conn = clients.root(first, transport="socket")
        assert clients.scalar(conn, "SELECT 1") == 1
        conn.close()
    finally:
        first.stop()


def test_datadir_is_locked(turnstile_bin, root_password, tmp_path):
    first = TurnstileServer().start()
    try:
        r = run_to_exit(
            turnstile_bin,
            ["--port", "0", "--admin-port", "0", "--socket", "", "--datadir", first.datadir, "--root-password", root_password],
        )
        assert r.returncode != 0
        assert "in use by another turnstile process" in r.stderr
    finally:
        first.stop()


def test_first_start_needs_a_root_password(turnstile_bin, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "TURNSTILE_ROOT_PASSWORD"}
    r = subprocess.run(
        [str(turnstile_bin), "--port", "0", "--admin-port", "0", "--socket", "", "--datadir", str(tmp_path / "fresh")],
        capture_output=True,
        text=True,
        timeout=20,
        env=env,
    )
    assert r.returncode != 0
    assert "--root-password" in r.stderr
