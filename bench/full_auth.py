#!/usr/bin/env python3
"""bench/full_auth.py — what caching_sha2_password's full authentication
costs (issue #25 items 3 and 4), beside MariaDB 10.11's logins, in one run.

A full authentication checks the password against the salted SHA-256 crypt
(`caching_sha2_password_digest_rounds`, 5,000) and, on plain TCP, first
decrypts it (RSA-2048 OAEP). It happens once per account after a start or a
new password, and for every wrong password and unknown user, so it is also
what a guessing flood costs the server. Each kind of login below is made
--logins times by one Python client (tests/helpers/rawproto.py) and the
server's CPU per login is read from /proc (utime + stime); the kinds
alternate, --runs rounds. The median wall time of a refused login is shown
for a wrong password and an unknown user side by side: the same answer in the
same time (the unknown user's password is checked against a decoy hash).

  fast            right password, the cache warm: the fast path (TCP)
  full-socket     wrong password over the Unix socket: password in the clear, crypt checked
  full-rsa        wrong password over TCP: public key asked, RSA decrypt, crypt checked
  unknown-rsa     unknown user over TCP: the same steps against the decoy
  mariadb-native  MariaDB 10.11, right password, mysql_native_password (TCP), for scale
  mariadb-wrong   MariaDB 10.11, wrong password

Both servers start in their own session (setsid). Turnstile's failed-login
delay is set out of reach (--connection-control-failed-connections-threshold)
so the figures are the checks, not the hold.

    python3 bench/full_auth.py                # ~1 min
    python3 bench/full_auth.py --logins 500 --runs 5
Writes bench/results/full-auth-<stamp>.md (and prints it).
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import upstream as common  # noqa: E402  (the servers and the CPU reader of bench/upstream.py)
from helpers import rawproto  # noqa: E402

USER, PW = "fa_user", "Fa-pw-1"


def login(port, sock, user, password, transport, plugin):
    """One login; True when it succeeded, False on 1045."""
    c = rawproto.RawConnection.unix(sock) if transport == "socket" else rawproto.RawConnection.tcp(port)
    try:
        c.handshake(user, password, plugin=plugin)
        return True
    except rawproto.ServerError as e:
        assert e.code == 1045, e
        return False
    finally:
        c.close()


def measure(pid, n, fn):
    """Server CPU µs per call and the median wall ms of one call."""
    walls = []
    cpu0 = common.cpu_seconds(pid)
    for _ in range(n):
        t = time.perf_counter()
        fn()
        walls.append((time.perf_counter() - t) * 1000)
    cpu = common.cpu_seconds(pid) - cpu0
    return cpu / n * 1e6, statistics.median(walls)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "target/release/turnstile"))
    ap.add_argument("--logins", type=int, default=300)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    ts = common.Turnstile(a.binary, 33400, ["--root-password", common.PW, "--connection-control-failed-connections-threshold=100000000"])
    ts_sock = f"{ts.dir}/t.sock"
    mdb = common.MariaDB(33401).start(table_size=10)
    try:
        common.mysql(ts.port, f"CREATE USER {USER}@'%' IDENTIFIED WITH caching_sha2_password BY '{PW}'")
        common.mysql(mdb.port, f"CREATE USER {USER}@'%' IDENTIFIED BY '{PW}'")
        assert login(ts.port, ts_sock, USER, PW, "socket", "caching_sha2_password"), "the first login fills the cache"
        kinds = {
            "fast": (ts, lambda: login(ts.port, ts_sock, USER, PW, "tcp", "caching_sha2_password"), True),
            "full-socket": (ts, lambda: login(ts.port, ts_sock, USER, "wrong", "socket", "caching_sha2_password"), False),
            "full-rsa": (ts, lambda: login(ts.port, ts_sock, USER, "wrong", "tcp", "caching_sha2_password"), False),
            "unknown-rsa": (ts, lambda: login(ts.port, ts_sock, "nobody_here", "wrong", "tcp", "caching_sha2_password"), False),
            "mariadb-native": (mdb, lambda: login(mdb.port, None, USER, PW, "tcp", "mysql_native_password"), True),
            "mariadb-wrong": (mdb, lambda: login(mdb.port, None, USER, "wrong", "tcp", "mysql_native_password"), False),
        }
        results = {k: [] for k in kinds}
        for r in range(a.runs):
            for name, (srv, fn, expect) in kinds.items():
                assert fn() is expect, name
                results[name].append(measure(srv.proc.pid, a.logins, fn))
                print(f"run {r + 1} {name}: {results[name][-1][0]:.0f} us CPU/login, {results[name][-1][1]:.2f} ms median", flush=True)
    finally:
        ts.stop()
        mdb.stop()
    lines = [
        f"# caching_sha2_password full authentication — {time.strftime('%Y-%m-%d %H:%M')}",
        "",
        f"`python3 bench/full_auth.py --logins {a.logins} --runs {a.runs}`; one Python client (rawproto), servers in their own session; "
        "Turnstile pool-of-threads, caching_sha2_password_digest_rounds 5000, RSA-2048; MariaDB 10.11 one-thread-per-connection.",
        "",
        "| login | server CPU µs per login (runs) | median | median wall ms per login |",
        "| --- | --- | --- | --- |",
    ]
    for name, rs in results.items():
        cpus = [c for c, _ in rs]
        walls = [w for _, w in rs]
        lines.append(f"| {name} | {', '.join(f'{c:.0f}' for c in cpus)} | {statistics.median(cpus):.0f} | {statistics.median(walls):.2f} |")
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    path = os.path.join(HERE, "results", f"full-auth-{time.strftime('%Y%m%d-%H%M%S')}.md")
    open(path, "w").write(text)
    print(text)
    print("written", path)


if __name__ == "__main__":
    main()
