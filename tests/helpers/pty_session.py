"""Run a program on a pseudo-terminal and talk to it like a person would
(a tiny stand-in for pexpect, which is not a dependency)."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import time
from typing import List, Optional, Union


class PtySession:
    def __init__(self, argv: List[str], env: Optional[dict] = None, cols: int = 200):
        self.master, slave = pty.openpty()
        try:
            import fcntl
            import struct
            import termios

            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
        except OSError:
            pass
        env = dict(env or os.environ)
        env.setdefault("TERM", "dumb")
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True, start_new_session=True
        )
        os.close(slave)
        self.buffer = ""
        self.transcript = ""

    def _read(self, timeout: float) -> bool:
        r, _, _ = select.select([self.master], [], [], timeout)
        if not r:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the child closed the terminal
            return False
        if not data:
            return False
        text = data.decode("utf-8", "replace")
        self.buffer += text
        self.transcript += text
        return True

    def expect(self, pattern: Union[str, "re.Pattern"], timeout: float = 15.0) -> "re.Match":
        """Wait until `pattern` (regex) appears; consume the buffer up to the
        end of the match and return the match."""
        rx = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        while True:
            m = rx.search(self.buffer)
            if m:
                self.buffer = self.buffer[m.end():]
                return m
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {rx.pattern!r}; transcript:\n{self.transcript}")
            if not self._read(min(left, 0.5)):
                m = rx.search(self.buffer)
                if m:
                    self.buffer = self.buffer[m.end():]
                    return m
                raise AssertionError(f"program ended before {rx.pattern!r}; transcript:\n{self.transcript}")

    def sendline(self, line: str) -> None:
        os.write(self.master, (line + "\r").encode())

    def wait(self, timeout: float = 15.0) -> int:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            if not self._read(0.2):
                break
        try:
            return self.proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            raise AssertionError(f"program did not exit; transcript:\n{self.transcript}")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        try:
            os.close(self.master)
        except OSError:
            pass
