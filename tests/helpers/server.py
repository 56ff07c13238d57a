"""Start and stop a real turnstile server process for the tests.

`TurnstileServer.start()` launches the binary with an ephemeral port, an
ephemeral admin port, a unix socket and a datadir inside a fresh temporary
directory, waits (at most 20 s) for the stderr line

    turnstile ready: port=N admin_port=M socket=PATH

and from then on a daemon thread keeps copying stderr into `server.log_path`
so the pipe never fills up.  `stop()` sends SIGTERM, waits up to 10 s, then
SIGKILLs, and returns the exit status.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BIN = REPO_ROOT / "target" / "release" / "turnstile"
ROOT_PASSWORD = "Root-pw-42"
READY_RE = re.compile(r"turnstile ready: port=(\d+) admin_port=(\d+) socket=(\S+)")
READY_TIMEOUT = 20.0
STOP_TIMEOUT = 10.0

# Servers currently running; conftest attaches their log tails to failures.
ACTIVE: List["TurnstileServer"] = []


def binary_path() -> Path:
    return Path(os.environ.get("TURNSTILE_BIN", str(DEFAULT_BIN)))


class ServerStartError(RuntimeError):
    pass


class TurnstileServer:
    def __init__(
        self,
        extra_args: Sequence[str] = (),
        root_password: Optional[str] = ROOT_PASSWORD,
        base_dir: Optional[str] = None,
        datadir: Optional[str] = None,
        env: Optional[Dict[str, str]] = None,
        engine: str = "blackhole",
        preexec_fn=None,
    ):
        self.binary = binary_path()
        self.extra_args = list(extra_args)
        self.root_password = root_password
        self.engine = engine
        self.env_extra = dict(env or {})
        # Run in the child before exec (e.g. resource.setrlimit for a low `ulimit -n`).
        self.preexec_fn = preexec_fn
        # Unix socket paths are limited to ~108 bytes, so keep them short
        # (pytest's tmp_path can be long).
        self._own_base = base_dir is None
        self.base_dir = base_dir or tempfile.mkdtemp(prefix="ts-", dir="/tmp")
        self.socket_path = os.path.join(self.base_dir, "t.sock")
        self.datadir = datadir or os.path.join(self.base_dir, "data")
        os.makedirs(self.datadir, exist_ok=True)
        self.log_path = os.path.join(self.base_dir, f"stderr-{int(time.time() * 1000)}.log")
        self.proc: Optional[subprocess.Popen] = None
        self.port: Optional[int] = None
        self.admin_port: Optional[int] = None
        self.socket: Optional[str] = None
        self.returncode: Optional[int] = None
        self._ready = threading.Event()
        self._log_lines: List[str] = []
        self._log_lock = threading.Lock()
        self._drain_thread: Optional[threading.Thread] = None

    # ------------------------------------------------------------------
    @property
    def pid(self) -> Optional[int]:
        return self.proc.pid if self.proc else None

    def argv(self) -> List[str]:
        args = [
            str(self.binary),
            "--port", "0",
            "--admin-port", "0",
            "--socket", self.socket_path,
            "--datadir", self.datadir,
            "--engine", self.engine,
        ]
        # The whole suite runs once per scheduler (scripts/test.sh sets this).
        scheduler = os.environ.get("TURNSTILE_THREAD_HANDLING")
        if scheduler and not any(a.startswith("--thread-handling") for a in self.extra_args):
            args += ["--thread-handling", scheduler]
        if self.root_password is not None:
            args += ["--root-password", self.root_password]
        return args + self.extra_args

    def _drain(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        with open(self.log_path, "ab", buffering=0) as log:
            for raw in iter(self.proc.stderr.readline, b""):
                log.write(raw)
                line = raw.decode("utf-8", "replace").rstrip("\n")
                with self._log_lock:
                    self._log_lines.append(line)
                    if len(self._log_lines) > 2000:
                        del self._log_lines[:1000]
                if not self._ready.is_set():
                    m = READY_RE.search(line)
                    if m:
                        self.port = int(m.group(1))
                        self.admin_port = int(m.group(2))
                        self.socket = m.group(3)
                        self._ready.set()
        self.proc.stderr.close()

    def log_tail(self, n: int = 60) -> str:
        with self._log_lock:
            return "\n".join(self._log_lines[-n:])

    def start(self) -> "TurnstileServer":
        if not self.binary.exists():
            raise ServerStartError(f"turnstile binary not found at {self.binary}")
        env = dict(os.environ)
        env.pop("TURNSTILE_ROOT_PASSWORD", None)
        env.update(self.env_extra)
        self._ready.clear()
        self.port = self.admin_port = self.socket = None
        self.returncode = None
        self.proc = subprocess.Popen(
            self.argv(),
            stdin=subprocess.DEVNULL,
            stdout=open(os.path.join(self.base_dir, "stdout.log"), "ab"),
            stderr=subprocess.PIPE,
            env=env,
            cwd=self.base_dir,
            preexec_fn=self.preexec_fn,
        )
        self._drain_thread = threading.Thread(target=self._drain, daemon=True, name="turnstile-stderr")
        self._drain_thread.start()
        deadline = time.monotonic() + READY_TIMEOUT
        while not self._ready.wait(0.05):
            if self.proc.poll() is not None:
                self._drain_thread.join(2)
                raise ServerStartError(
                    f"turnstile exited with {self.proc.returncode} before becoming ready; "
                    f"argv={self.argv()}\n{self.log_tail()}"
                )
            if time.monotonic() > deadline:
                self.kill()
                raise ServerStartError(
                    f"turnstile did not print the ready line within {READY_TIMEOUT}s; "
                    f"argv={self.argv()}\n{self.log_tail()}"
                )
        ACTIVE.append(self)
        return self

    def send_signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def wait(self, timeout: float) -> Optional[int]:
        assert self.proc is not None
        try:
            self.returncode = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        if self._drain_thread:
            self._drain_thread.join(5)
        return self.returncode

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        if self.proc:
            self.returncode = self.proc.returncode

    def stop(self, timeout: float = STOP_TIMEOUT) -> Optional[int]:
        """SIGTERM, wait up to `timeout` s, then SIGKILL. Returns the exit code
        (negative = killed by that signal)."""
        if self in ACTIVE:
            ACTIVE.remove(self)
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            if self.wait(timeout) is None:
                self.kill()
        self.returncode = self.proc.returncode
        if self._drain_thread:
            self._drain_thread.join(5)
        return self.returncode

    def is_running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def cleanup(self) -> None:
        if self._own_base and not os.environ.get("TURNSTILE_KEEP_TMP"):
            shutil.rmtree(self.base_dir, ignore_errors=True)

    def __repr__(self) -> str:
        return f"<TurnstileServer pid={self.pid} port={self.port} admin_port={self.admin_port} socket={self.socket}>"
