"""Thin wrappers around the real clients: PyMySQL and the mysql CLI."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import time
from typing import Callable, List, Optional, Sequence, Tuple

import pymysql
import pymysql.cursors

from .server import ROOT_PASSWORD

LOST_CONNECTION_CODES = (2013, 2006)


def connect(
    server,
    user: str = "root",
    password: Optional[str] = ROOT_PASSWORD,
    transport: str = "tcp",
    port: Optional[int] = None,
    database: Optional[str] = None,
    timeout: float = 10.0,
    **kwargs,
) -> pymysql.connections.Connection:
    """Connect with PyMySQL over TCP (main or given port) or the unix socket."""
    common = dict(
        user=user,
        password=password or "",
        database=database,
        connect_timeout=timeout,
        read_timeout=kwargs.pop("read_timeout", 30),
        write_timeout=30,
        autocommit=True,
        charset="utf8mb4",
    )
    common.update(kwargs)
    if transport == "tcp":
        return pymysql.connect(host="127.0.0.1", port=port or server.port, **common)
    if transport == "socket":
        return pymysql.connect(unix_socket=server.socket, **common)
    if transport == "admin":
        return pymysql.connect(host="127.0.0.1", port=server.admin_port, **common)
    raise ValueError(transport)


def root(server, transport: str = "tcp", **kwargs) -> pymysql.connections.Connection:
    return connect(server, "root", ROOT_PASSWORD, transport=transport, **kwargs)


def query(conn, sql: str, args=None) -> Tuple[tuple, ...]:
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def scalar(conn, sql: str, args=None):
    rows = query(conn, sql, args)
    assert len(rows) == 1 and len(rows[0]) == 1, rows
    return rows[0][0]


def status(conn, name: str, scope: str = "GLOBAL") -> int:
    rows = query(conn, f"SHOW {scope} STATUS LIKE %s", (name,))
    found = {r[0]: r[1] for r in rows}
    assert name in found, f"SHOW {scope} STATUS LIKE '{name}' returned {rows}"
    return int(found[name])


def wait_until(pred: Callable[[], bool], timeout: float = 10.0, interval: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        if pred():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)


def error(conn, sql: str) -> Tuple[int, str]:
    """(code, message) of the error `sql` must end in (a pytest failure if it succeeds)."""
    import pytest

    with pytest.raises(pymysql.err.MySQLError) as ei:
        query(conn, sql)
    return ei.value.args[0], ei.value.args[1]


def error_code(exc: BaseException) -> Optional[int]:
    args = getattr(exc, "args", ())
    if args and isinstance(args[0], int):
        return args[0]
    return None


def wait_socket_closed(conn, timeout: float) -> bool:
    """Wait until the server closes a PyMySQL connection's socket (it becomes
    readable: EOF or an error packet). Does not consume data."""
    sock = conn._sock  # PyMySQL internal, stable across 1.x
    r, _, _ = select.select([sock], [], [], timeout)
    return bool(r)


# --------------------------------------------------------------------------
# mysql CLI (Debian's mariadb-client)

def mysql_cli() -> Optional[str]:
    return shutil.which("mysql") or shutil.which("mariadb")


def cli_args(
    server,
    user: str = "root",
    password: Optional[str] = ROOT_PASSWORD,
    transport: str = "tcp",
    database: Optional[str] = None,
    extra: Sequence[str] = (),
) -> List[str]:
    exe = mysql_cli()
    assert exe, "mysql client not installed"
    args = [exe, "--no-defaults", f"--user={user}", "--connect-timeout=10"]
    if password:
        args.append(f"--password={password}")
    else:
        args.append("--skip-password")
    if transport == "tcp":
        args += ["--protocol=TCP", "--host=127.0.0.1", f"--port={server.port}"]
    elif transport == "admin":
        args += ["--protocol=TCP", "--host=127.0.0.1", f"--port={server.admin_port}"]
    else:
        args += ["--protocol=SOCKET", f"--socket={server.socket}"]
    if database:
        args.append(f"--database={database}")
    return args + list(extra)


def run_cli(
    server,
    execute: Optional[str] = None,
    stdin: Optional[str] = None,
    timeout: float = 30.0,
    **kwargs,
) -> subprocess.CompletedProcess:
    extra = list(kwargs.pop("extra", ()))
    if execute is not None:
        extra += ["-e", execute]
    args = cli_args(server, extra=extra, **kwargs)
    env = dict(os.environ)
    env.pop("MYSQL_PWD", None)
    env["HOME"] = env.get("HOME", "/tmp")
    return subprocess.run(
        args,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
