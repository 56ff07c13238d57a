"""The service packaging (packaging/, issue #26 item 7): the systemd unit
verifies with systemd-analyze and names the configuration file it ships;
that configuration starts the real binary and holds the documented defaults
except the two paths the service changes; the unit's directories are the
ones the configuration uses, and its descriptor limit covers 100,000
connections (docs/operations.md)."""

import os
import shutil
import subprocess

import pytest

from helpers import clients
from helpers.server import TurnstileServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNIT = os.path.join(ROOT, "packaging", "turnstile.service")
CONFIG = os.path.join(ROOT, "packaging", "turnstile.toml")
# The keys the service sets differently from the defaults, and why.
SERVICE_PATHS = {"datadir": "/var/lib/turnstile", "socket": "/run/turnstile/turnstile.sock"}


def unit_values(key: str) -> list:
    return [line.split("=", 1)[1].strip() for line in open(UNIT) if line.startswith(key + "=")]


def config_values() -> dict:
    """The example's settings (a flat TOML file: key = value lines)."""
    out = {}
    for line in open(CONFIG):
        line = line.split("#", 1)[0].strip()
        if line:
            key, value = (p.strip() for p in line.split("=", 1))
            out[key] = value.strip('"')
    return out


def norm(v) -> str:
    """A value as text, booleans as 1/0 (TOML's true, the server's ON or 1),
    numbers as numbers (the file's 10 is the server's 10.0 for a float)."""
    text = str(v)
    text = {"true": "1", "false": "0", "ON": "1", "OFF": "0"}.get(text, text)
    try:
        return repr(float(text))
    except ValueError:
        return text


def test_the_unit_file_verifies(tmp_path, turnstile_bin):
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze not installed")
    unit = tmp_path / "turnstile.service"
    unit.write_text(open(UNIT).read().replace("/usr/local/bin/turnstile", os.path.abspath(turnstile_bin)))
    out = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)], capture_output=True, text=True, timeout=60)
    # systemd-analyze exits 0 on a value it ignores: any warning fails the check.
    assert out.returncode == 0 and out.stderr.strip() == "", out.stderr


def test_the_unit_runs_the_shipped_configuration_with_its_own_directories():
    assert unit_values("ExecStart") == ["/usr/local/bin/turnstile --config /etc/turnstile/turnstile.toml"]
    cfg = config_values()
    assert cfg["datadir"] == "/var/lib/" + unit_values("StateDirectory")[0]
    assert os.path.dirname(cfg["socket"]) == "/run/" + unit_values("RuntimeDirectory")[0]
    assert unit_values("StateDirectoryMode") == ["0700"], "the data directory is the server's alone"
    # max_connections' largest value, plus the engine's files and the reserve.
    assert int(unit_values("LimitNOFILE")[0]) >= 110_000
    assert "CAP_SYS_NICE" in unit_values("AmbientCapabilities")[0], "thread_pool_nice needs it"
    assert unit_values("KillSignal") == ["SIGTERM"], "the server's graceful shutdown"
    assert int(unit_values("TimeoutStopSec")[0]) > int(cfg["shutdown_timeout"])


def documented_defaults() -> dict:
    """Each setting's default as docs/configuration.md's reference table
    gives it (generated from the settings table; a test keeps it true)."""
    out = {}
    for line in open(os.path.join(ROOT, "docs", "configuration.md")):
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 5 and cells[1].startswith("`") and cells[4].startswith("`"):
            out.setdefault(cells[1].strip("`"), cells[4].strip("`"))
    return out


def test_the_shipped_configuration_holds_the_documented_defaults():
    cfg, defaults = config_values(), documented_defaults()
    assert all(cfg[k] == v for k, v in SERVICE_PATHS.items())
    others = {k: v for k, v in cfg.items() if k not in SERVICE_PATHS}
    assert len(others) >= 10
    for key, value in others.items():
        assert key in defaults, f"{key} is not a documented setting"
        assert norm(value) == norm(defaults[key]), f"{key}: {value!r} in the example, {defaults[key]!r} documented"


def test_the_shipped_configuration_starts_the_server_with_its_values(turnstile_bin):
    """The example, with its two service paths moved into a temporary
    directory and ports picked free (the test harness's flags, which win
    over the file, as do its engine and scheduler): every other value is in
    effect."""
    harness_flags = {"port", "admin_port", "engine", "thread_handling"}
    shipped = TurnstileServer(extra_args=["--config", CONFIG], engine="sqlite").start()
    try:
        a = clients.root(shipped)
        assert clients.scalar(a, "SELECT 1") == 1
        for key, value in config_values().items():
            if key in SERVICE_PATHS or key in harness_flags:
                continue
            got = clients.scalar(a, f"SELECT @@global.{key}")
            assert norm(value) == norm(got), f"{key}: the file says {value!r}, the server {got!r}"
        a.close()
    finally:
        shipped.stop()
        shipped.cleanup()


LOGROTATE = shutil.which("logrotate") or ("/usr/sbin/logrotate" if os.path.exists("/usr/sbin/logrotate") else None)


def test_the_shipped_logrotate_file_rotates_the_query_logs_of_a_running_server(server_factory, tmp_path):
    """packaging/turnstile.logrotate run by the real logrotate against a live
    server: its paths point at the test's data directory and its postrotate
    sends SIGHUP to the server directly (the service's reload does that)."""
    if not LOGROTATE:
        if os.environ.get("TURNSTILE_REQUIRE_CLIENTS") == "1":
            raise RuntimeError("logrotate is not installed (scripts/test.sh installs it)")
        pytest.skip("logrotate not installed")
    srv = server_factory("--slow-query-log", "ON", "--long-query-time", "0", "--general-log", "ON", engine="sqlite")
    conn = clients.root(srv)
    clients.query(conn, "SELECT 'before rotation'")
    shipped = open(os.path.join(ROOT, "packaging", "turnstile.logrotate")).read()
    assert "/var/lib/turnstile/*.log" in shipped and "systemctl reload turnstile" in shipped
    conf = shipped.replace("/var/lib/turnstile", srv.datadir).replace("systemctl reload turnstile", f"kill -HUP {srv.pid}")
    conf = conf.replace("create 0600 turnstile turnstile", "create 0600")
    (tmp_path / "turnstile.logrotate").write_text(conf)
    os.chmod(tmp_path / "turnstile.logrotate", 0o644)
    out = subprocess.run([LOGROTATE, "--force", "--state", str(tmp_path / "state"), str(tmp_path / "turnstile.logrotate")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    logs = sorted(f for f in os.listdir(srv.datadir) if ".log" in f)
    assert any(f.endswith("-slow.log.1") for f in logs) and any(f.endswith(".log.1") and "-slow" not in f for f in logs), logs
    clients.query(conn, "SELECT 'after rotation'")
    slow = clients.scalar(conn, "SELECT @@slow_query_log_file")
    general = clients.scalar(conn, "SELECT @@general_log_file")
    import time
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not (os.path.exists(slow) and "after rotation" in open(slow).read()):
        time.sleep(0.1)
    for path in (slow, general):
        text = open(path).read()
        assert "after rotation" in text and "before rotation" not in text, path
        assert "before rotation" in open(path + ".1").read()
