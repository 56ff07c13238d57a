"""A private MariaDB 10.11 (Debian mariadb-server) for tests that need a real
one beside Turnstile: the dump round trips (tests/test_dump.py) and the
outside conformance suites (tests/outside/), which run the same tests
against both. Its own data directory, port and socket under /tmp, started in
its own session (as a service runs), removed by `stop`.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time

import pymysql

MARIADBD = shutil.which("mariadbd") or ("/usr/sbin/mariadbd" if os.path.exists("/usr/sbin/mariadbd") else None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MariaDB:
    """A private mariadbd: its own data directory, port and socket."""

    def __init__(self, extra_args=()):
        self.dir = tempfile.mkdtemp(prefix="ts-mdb-", dir="/tmp")
        self.datadir = os.path.join(self.dir, "data")
        self.socket = os.path.join(self.dir, "m.sock")
        self.port = free_port()
        self.log = os.path.join(self.dir, "error.log")
        self.proc = None
        # Server options after the defaults below (a later option wins).
        self.extra_args = list(extra_args)

    def start(self):
        subprocess.run(["mariadb-install-db", "--no-defaults", "--user=root", f"--datadir={self.datadir}", "--auth-root-authentication-method=normal", "--skip-test-db"], check=True, capture_output=True, timeout=120)
        args = [MARIADBD, "--no-defaults", "--user=root", f"--datadir={self.datadir}", f"--port={self.port}", "--bind-address=127.0.0.1", f"--socket={self.socket}", f"--log-error={self.log}", f"--pid-file={self.dir}/m.pid", "--skip-log-bin", "--performance-schema=OFF", "--innodb-buffer-pool-size=32M", "--skip-name-resolve", "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci", *self.extra_args]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("mariadbd exited: " + open(self.log).read()[-2000:])
            try:
                pymysql.connect(unix_socket=self.socket, user="root").close()
                return self
            except pymysql.err.OperationalError:
                time.sleep(0.2)
        raise RuntimeError("mariadbd did not start: " + open(self.log).read()[-2000:])

    def client_args(self):
        return ["--no-defaults", f"--socket={self.socket}", "-uroot"]

    def connect(self, db=None, **kwargs):
        return pymysql.connect(unix_socket=self.socket, user="root", database=db, charset="utf8mb4", **kwargs)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
