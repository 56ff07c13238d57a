"""Build and run tests/helpers/cursor_client.c, a MariaDB Connector/C
program that reads cursors (STMT_ATTR_CURSOR_TYPE, STMT_ATTR_PREFETCH_ROWS):
used by tests/test_protocol_cursors.py (Turnstile's own engine) and
tests/test_upstream_cursors.py (through the upstream engine)."""

from __future__ import annotations

import pathlib
import shutil
import subprocess

import pytest

from helpers.server import ROOT_PASSWORD

SOURCE = pathlib.Path(__file__).resolve().parent / "cursor_client.c"


def build(tmp_path_factory) -> pathlib.Path:
    """The compiled program; the test is skipped without cc and libmariadb-dev."""
    cc, config = shutil.which("cc"), shutil.which("mariadb_config")
    if not cc or not config:
        pytest.skip("needs cc and libmariadb-dev (mariadb_config)")
    flags = subprocess.run([config, "--cflags", "--libs"], capture_output=True, text=True, check=True).stdout.split()
    exe = tmp_path_factory.mktemp("cc") / "cursor_client"
    subprocess.run([cc, "-O1", "-o", str(exe), str(SOURCE), *flags], check=True)
    return exe


def run(exe, port: int, db: str, *args: str) -> list[str]:
    """Run it as root against 127.0.0.1:`port`, database `db`; its output lines."""
    r = subprocess.run([str(exe), "127.0.0.1", str(port), "root", ROOT_PASSWORD, db, *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout.splitlines()
