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
    """A value as text, booleans as 1/0 (TOML's true, the server's ON or 1)."""
    text = str(v)
    return {"true": "1", "false": "0", "ON": "1", "OFF": "0"}.get(text, text)


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


def test_the_shipped_configuration_starts_and_holds_the_defaults(tmp_path, turnstile_bin):
    """The example, with its two service paths moved into a temporary
    directory and ports picked free, against a server started with no
    configuration at all: every other value it sets is the default."""
    cfg = config_values()
    assert set(SERVICE_PATHS) <= set(cfg) and all(cfg[k] == v for k, v in SERVICE_PATHS.items())
    shipped = TurnstileServer(extra_args=["--config", CONFIG], engine="sqlite").start()
    plain = TurnstileServer(engine="sqlite").start()
    try:
        a, b = clients.root(shipped), clients.root(plain)
        assert clients.scalar(a, "SELECT 1") == 1
        checked = 0
        for key, value in cfg.items():
            if key in SERVICE_PATHS or key in ("port", "admin_port"):
                continue  # the test servers' own
            got, default = (clients.scalar(c, f"SELECT @@global.{key}") for c in (a, b))
            assert str(got) == str(default), f"{key}: {got!r} in the example, {default!r} by default"
            assert norm(value) == norm(got), f"{key}: the file says {value!r}, the server {got!r}"
            checked += 1
        assert checked >= 10
        a.close()
        b.close()
    finally:
        for s in (shipped, plain):
            s.stop()
            s.cleanup()
