"""Run one client program of the compatibility suite against a server.

`prepare_accounts` creates the two accounts every client uses;
`client_env` creates a fresh database for one client run and returns the
environment of the contract (README.md); `run_client` runs the program and
parses its JSON lines into a `ClientRun`.  Used by tests/test_clients.py and
by serve.py (a server to develop client programs against).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .registry import KNOWN_GAPS, RUN_TIMEOUT, Client

NATIVE_USER, NATIVE_PASSWORD = "cm_native", "Native-pw-1"
SHA2_USER, SHA2_PASSWORD = "cm_sha2", "Sha2-pw-1"


def prepare_accounts(query) -> None:
    """`query(sql)` runs one statement as root. Through the upstream engine
    (TURNSTILE_UPSTREAM=1) the accounts are MariaDB's, which has no
    caching_sha2_password: both are mysql_native_password accounts there,
    made with MariaDB's syntax (docs/upstream.md, "Accounts")."""
    upstream = os.environ.get("TURNSTILE_UPSTREAM") == "1"
    for user, plugin, password in (
        (NATIVE_USER, "mysql_native_password", NATIVE_PASSWORD),
        (SHA2_USER, "caching_sha2_password", SHA2_PASSWORD),
    ):
        query(f"DROP USER IF EXISTS '{user}'@'%'")
        if upstream:
            query(f"CREATE USER '{user}'@'%' IDENTIFIED BY '{password}'")
        else:
            query(f"CREATE USER '{user}'@'%' IDENTIFIED WITH {plugin} BY '{password}'")


def warm_sha2_cache(server) -> None:
    """caching_sha2_password's first login after CREATE USER (or a restart)
    is a full authentication, as in MySQL 8: the password itself, inside TLS
    or over the socket, or RSA-encrypted. Clients whose default options allow
    none of those (Connector/J without allowPublicKeyRetrieval) then fail, as
    they do against MySQL. One login over the Unix socket fills the server's
    cache, so the matrix's `connect_sha2` tests the fast path every client has."""
    if os.environ.get("TURNSTILE_UPSTREAM") == "1":
        return
    import pymysql

    pymysql.connect(unix_socket=str(server.socket), user=SHA2_USER, password=SHA2_PASSWORD).close()


_OTHER_CA: List[str] = []


def other_ca() -> str:
    """A CA certificate (PEM) that signed nothing the server has: a client
    that verifies must refuse the server with it (connect_tls's second half).
    Made once per process with the openssl CLI."""
    if not _OTHER_CA:
        import tempfile

        d = tempfile.mkdtemp(prefix="ts-other-ca-")
        cert = os.path.join(d, "other-ca.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                        "-subj", "/CN=Not the Turnstile CA", "-keyout", os.path.join(d, "other-ca-key.pem"), "-out", cert],
                       check=True, capture_output=True)
        _OTHER_CA.append(cert)
    return _OTHER_CA[0]


def database_name(client: Client) -> str:
    return "cm_" + re.sub(r"[^a-z0-9]+", "_", client.name.lower()).strip("_")


def client_env(query, server, client: Client) -> Dict[str, str]:
    db = database_name(client)
    query(f"DROP DATABASE IF EXISTS `{db}`")
    query(f"CREATE DATABASE `{db}`")
    for user in (NATIVE_USER, SHA2_USER):
        query(f"GRANT ALL ON `{db}`.* TO '{user}'@'%'")
    warm_sha2_cache(server)
    env = dict(os.environ)
    env.update(
        TS_HOST="127.0.0.1",
        TS_PORT=str(server.port),
        TS_SOCKET=str(server.socket),
        TS_DB=db,
        TS_NATIVE_USER=NATIVE_USER,
        TS_NATIVE_PASSWORD=NATIVE_PASSWORD,
        TS_SHA2_USER=SHA2_USER,
        TS_SHA2_PASSWORD=SHA2_PASSWORD,
        # The CA the server generated in its data directory (its certificate
        # names localhost and 127.0.0.1), and one that signed nothing of it.
        TS_CA=os.path.join(str(server.datadir), "ca.pem"),
        TS_OTHER_CA=other_ca(),
    )
    return env


@dataclass
class ClientRun:
    client: Client
    returncode: Optional[int] = None
    version: str = ""
    verdicts: Dict[str, Dict[str, str]] = field(default_factory=dict)
    problems: List[str] = field(default_factory=list)
    stderr: str = ""

    def failures(self) -> List[str]:
        """Failing checks, except those explained by a known gap (registry.KNOWN_GAPS)."""
        return [f"{k}: {v.get('detail', '')}" for k, v in self.verdicts.items() if v["status"] == "fail" and not known_gap(v.get("detail", ""))]

    def known_failures(self) -> List[str]:
        return [f"{k}: {known_gap(v.get('detail', ''))}" for k, v in self.verdicts.items() if v["status"] == "fail" and known_gap(v.get("detail", ""))]

    def as_json(self) -> dict:
        return {
            "client": self.client.name,
            "ecosystem": self.client.ecosystem,
            "version": self.version,
            "returncode": self.returncode,
            "verdicts": self.verdicts,
            "problems": self.problems,
        }


def known_gap(detail: str) -> str:
    """The known server limitation a failure's detail names, or ''."""
    return next((reason for marker, reason in KNOWN_GAPS if marker in detail), "")


def run_client(client: Client, env: Dict[str, str], timeout: float = RUN_TIMEOUT) -> ClientRun:
    run = ClientRun(client)
    try:
        proc = subprocess.run(
            client.argv(),
            cwd=os.path.dirname(client.argv()[0]),
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        run.problems.append(f"timed out after {timeout:.0f} s")
        run.stderr = (exc.stderr or b"").decode("utf-8", "replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        return run
    run.returncode = proc.returncode
    run.stderr = proc.stderr
    for line in proc.stdout.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            run.problems.append(f"not a JSON line: {line[:200]}")
            continue
        if "client" in obj:
            run.version = str(obj.get("version", ""))
        elif "feature" in obj:
            status = obj.get("status")
            if status not in ("pass", "fail", "n/a"):
                run.problems.append(f"bad status {status!r} for {obj['feature']}")
                continue
            if obj["feature"] in run.verdicts:
                run.problems.append(f"feature {obj['feature']} reported twice")
            run.verdicts[obj["feature"]] = {"status": status, "detail": str(obj.get("detail", ""))}
        else:
            run.problems.append(f"unknown line: {line[:200]}")
    return run
