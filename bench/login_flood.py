#!/usr/bin/env python3
"""bench/login_flood.py — do sessions already logged in keep their speed
while a flood of TLS logins arrives? (issue #25 item 4: "a flood cannot
starve established sessions"). Turnstile against MariaDB 10.11, in one run.

Each target is measured twice per run, for --duration seconds each:

  alone   --threads persistent sysbench clients run oltp_point_select
  flood   the same, while --flood-threads other sysbench clients connect over
          TLS, run one point select and disconnect as fast as they can
          (bench/lua/connect_point_select.lua, a full handshake each)

and the report gives the established clients' queries/s and 95th-percentile
latency in both, their ratio, and the flood's connections/s. `--flood
bad-login` floods with wrong-password logins instead (made-up users, garbage
where the RSA-encrypted password goes: about 1 ms of the server's CPU for a
few µs of the client's), Turnstile only. `--flood slow` holds --slow-clients
TLS handshakes that never finish (greeting read, SSLRequest sent, the first
bytes of a ClientHello and then nothing; reopened when the server closes
one), and also times fresh logins (connect, SELECT 1, quit) during it:
Turnstile keeps max_handshakes (1,000 by default) of them and closes the
oldest for each newcomer; MariaDB keeps each until connect_timeout.
Give --binary-b (another build) to
measure two builds in the same run.
Servers start in their own session (setsid), alternate each run, and share
the ECDSA P-256 certificate Turnstile generates.

    python3 bench/login_flood.py                       # ~3 min
    python3 bench/login_flood.py --binary-b /tmp/before/turnstile --runs 3
Writes bench/results/login-flood-<stamp>.md (and prints it).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import tls as tlsbench  # noqa: E402  (sysbench's client certificate files)
import upstream as common  # noqa: E402  (the servers of bench/upstream.py)

PW = common.PW


def sysbench(a, port, script, threads, extra=(), cwd=None):
    cmd = ["sysbench", script, f"--threads={threads}", f"--time={a.duration}", f"--table-size={a.table_size}", "--mysql-host=127.0.0.1",
           f"--mysql-port={port}", "--mysql-user=root", f"--mysql-password={PW}", "--mysql-db=sbtest", "--percentile=95", *extra, "run"]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd)


def parse(out):
    events = re.search(r"total number of events:\s+(\d+)", out)
    total = re.search(r"total time:\s+([\d.]+)s", out)
    p95 = re.search(r"95th percentile:\s+([\d.]+)", out)
    if not (events and total and p95) or int(events.group(1)) == 0:
        return {"error": out[-400:]}
    return {"ops_s": int(events.group(1)) / float(total.group(1)), "p95_ms": float(p95.group(1))}


def guess(port, seconds, out):
    """One process of the bad-login flood: as many wrong-password logins as it
    can make in `seconds`, each a made-up user whose fast-path token fails,
    then 256 random bytes where the RSA-encrypted password goes: the server
    decrypts and checks a hash (about 1 ms of its CPU) for a few µs of ours.
    Writes the count to the pipe `out`."""
    import random
    import socket

    n, stop = 0, time.time() + seconds
    while time.time() < stop:
        s = socket.create_connection(("127.0.0.1", port))
        try:
            s.recv(4096)
            user = f"u{random.getrandbits(40):x}".encode()
            body = (0x000FA685).to_bytes(4, "little") + (1 << 24).to_bytes(4, "little") + b"\x2d" + b"\0" * 23
            body += user + b"\0" + b"\x20" + os.urandom(32) + b"caching_sha2_password\0"
            s.sendall(len(body).to_bytes(3, "little") + b"\x01" + body)
            s.recv(4096)  # AuthMoreData 0x04: perform full authentication
            s.sendall((256).to_bytes(3, "little") + b"\x03" + os.urandom(256))
            s.recv(4096)  # ERR 1045
            n += 1
        except OSError:
            pass
        finally:
            s.close()
    os.write(out, str(n).encode())


def hold_slow(port, clients, seconds, out, source=""):
    """One process of the slow flood: keep `clients` TLS handshakes open
    that never finish; reopen each one the server closes. Writes the count
    of reopened ones to the pipe `out`."""
    import selectors
    import socket

    hello = b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"
    ssl_request = (0x000FAA85).to_bytes(4, "little") + (1 << 24).to_bytes(4, "little") + b"\x2d" + b"\0" * 23
    sel, reopened, stop = selectors.DefaultSelector(), 0, time.time() + seconds

    def open_one():
        s = socket.socket()
        if source:
            s.bind((source, 0))
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        sel.register(s, selectors.EVENT_READ, "greeting")

    for _ in range(clients):
        open_one()
    while time.time() < stop:
        for key, _ in sel.select(timeout=0.2):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if data and key.data == "greeting":
                try:
                    s.send(len(ssl_request).to_bytes(3, "little") + b"\x01" + ssl_request + hello)
                    sel.modify(s, selectors.EVENT_READ, "waiting")
                    continue
                except OSError:
                    data = b""
            if not data or key.data == "waiting":
                sel.unregister(s)
                s.close()
                reopened += 1
                open_one()
    os.write(out, str(reopened).encode())


def timed_logins(port, seconds):
    """Fresh logins (connect, SELECT 1, quit) one after another for
    `seconds`: their latencies in ms, and how many failed."""
    import pymysql

    times, failed, stop = [], 0, time.time() + seconds
    while time.time() < stop:
        t = time.perf_counter()
        try:
            c = pymysql.connect(host="127.0.0.1", port=port, user="root", password=PW, connect_timeout=10)
            c.cursor().execute("SELECT 1")
            c.close()
            times.append((time.perf_counter() - t) * 1000)
        except pymysql.err.MySQLError:
            failed += 1
        time.sleep(0.05)
    return times, failed


def bad_login_flood(a, port):
    procs = []
    for _ in range(a.flood_procs):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            guess(port, a.duration, w)
            os._exit(0)
        os.close(w)
        procs.append((pid, r))
    return procs


def flood_count(procs):
    total = 0
    for pid, r in procs:
        os.waitpid(pid, 0)
        total += int(os.read(r, 64) or b"0")
        os.close(r)
    return total


def measure(a, port, flood):
    t0 = time.time()
    point = sysbench(a, port, "oltp_point_select", a.threads, ["--mysql-ssl=off"])
    churn = procs = None
    if flood and a.flood == "tls":
        churn = sysbench(a, port, os.path.join(HERE, "lua/connect_point_select.lua"), a.flood_threads, ["--mysql-ssl=on"], cwd=a.ssl_dir)
    elif flood and a.flood == "slow":
        r_fd, w_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r_fd)
            hold_slow(port, a.slow_clients, a.duration + 1, w_fd, a.slow_from)
            os._exit(0)
        os.close(w_fd)
        procs = [(pid, r_fd)]
    elif flood:
        procs = bad_login_flood(a, port)
    logins = timed_logins(port, a.duration - 1) if a.flood == "slow" else None
    r = parse(point.communicate(timeout=a.duration + 120)[0])
    if logins:
        times, failed = logins
        r["login_ms"] = statistics.median(times) if times else 0
        r["login_max_ms"] = max(times) if times else 0
        r["logins_failed"] = failed
    if churn:
        f = parse(churn.communicate(timeout=a.duration + 120)[0])
        r["flood_conn_s"] = f.get("ops_s", 0)
        if "error" in f:
            r["error"] = "flood: " + f["error"]
    if procs:
        r["flood_conn_s"] = flood_count(procs) / max(a.duration, time.time() - t0)
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "target/release/turnstile"))
    ap.add_argument("--binary-b", help="a second Turnstile build to measure beside the first")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=int, default=8)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--flood", choices=["tls", "bad-login", "slow"], default="tls",
                    help="tls: sysbench clients connecting over TLS; bad-login: Python processes making wrong-password logins (full authentication, RSA); "
                         "slow: TLS handshakes that never finish")
    ap.add_argument("--slow-clients", type=int, default=3000, help="handshakes the slow flood holds open")
    ap.add_argument("--slow-from", default="", help="source address of the slow flood (one that is not loopback counts against max_connect_errors)")
    ap.add_argument("--turnstile-args", default="", help="more flags for Turnstile, e.g. '--max-handshakes 1000'")
    ap.add_argument("--flood-threads", type=int, default=64, help="sysbench clients of the tls flood")
    ap.add_argument("--flood-procs", type=int, default=4, help="processes of the bad-login flood")
    ap.add_argument("--table-size", type=int, default=10000)
    a = ap.parse_args()
    targets = {}
    base = 47500 + os.getpid() % 500
    binaries = [("turnstile", a.binary)] + ([("turnstile-b", a.binary_b)] if a.binary_b else [])
    started = []
    results = {}
    try:
        for i, (name, binary) in enumerate(binaries):
            # Every server presents the first one's certificate, which sysbench's clients verify.
            certs = [f"--ssl-cert={started[0].dir}/data/server-cert.pem", f"--ssl-key={started[0].dir}/data/server-key.pem"] if started else []
            ts = common.Turnstile(binary, base + i, ["--root-password", PW, "--connection-control-failed-connections-threshold=100000000", *certs, *a.turnstile_args.split()])
            started.append(ts)
            common.mysql(ts.port, "CREATE DATABASE sbtest")
            subprocess.run(["sysbench", "oltp_point_select", "--tables=1", f"--table-size={a.table_size}", "--mysql-host=127.0.0.1",
                            f"--mysql-port={ts.port}", "--mysql-user=root", f"--mysql-password={PW}", "prepare"], check=True, capture_output=True, timeout=600)
            targets[name] = ts.port
        data = os.path.join(started[0].dir, "data")
        if a.flood in ("tls", "slow"):
            # MariaDB has no caching_sha2_password, so the bad-login flood is Turnstile's alone.
            mdb = common.MariaDB(base + 10).start(a.table_size, [f"--ssl-cert={data}/server-cert.pem", f"--ssl-key={data}/server-key.pem", f"--ssl-ca={data}/ca.pem",
                                                                 "--max-connections=20000"])
            started.append(mdb)
            targets["mariadb"] = mdb.port
        a.ssl_dir = tlsbench.sysbench_ssl_dir(data)
        for run in range(a.runs):
            order = list(targets) if run % 2 == 0 else list(reversed(targets))
            for name in order:
                for flood in (False, True):
                    r = measure(a, targets[name], flood)
                    results.setdefault((name, flood), []).append(r)
                    print(f"run {run + 1} {name} {'flood' if flood else 'alone'}: {r}", flush=True)
    finally:
        for s in started:
            s.stop()
    write_report(a, results, binaries)


def write_report(a, results, binaries):
    med = lambda rs, k: statistics.median([r[k] for r in rs if k in r]) if any(k in r for r in rs) else 0  # noqa: E731
    lines = [f"# Established sessions under a TLS login flood, {time.strftime('%Y-%m-%d %H:%M')}", "",
             f"`python3 bench/login_flood.py --flood {a.flood} --slow-clients {a.slow_clients}" + (f" --slow-from {a.slow_from}" if a.slow_from else "")
             + (f" --turnstile-args '{a.turnstile_args}'" if a.turnstile_args else "") + f" --runs {a.runs} --duration {a.duration} --threads {a.threads} --flood-threads {a.flood_threads} --flood-procs {a.flood_procs}`"
             + (f" with --binary-b {a.binary_b}" if a.binary_b else "") + ": servers in their own session; Turnstile pool-of-threads on its embedded engine"
             + (f" (turnstile: {binaries[0][1]}; turnstile-b: {binaries[1][1]})" if len(binaries) > 1 else "")
             + f", MariaDB 10.11 one-thread-per-connection. {a.threads} persistent sysbench clients run point selects alone, then beside "
             + {"tls": f"{a.flood_threads} clients connecting over TLS (a full handshake each)",
                "bad-login": f"{a.flood_procs} processes making wrong-password logins as unknown users (each a full authentication: RSA decrypt and a hash check)",
                "slow": f"{a.slow_clients} TLS handshakes that never finish (reopened when closed: 'flood connections/s'), while fresh logins "
                        "(PyMySQL: connect, SELECT 1, quit, every 50 ms) are timed"}[a.flood]
             + f". Medians of {a.runs} alternating runs; per run in brackets.", "",
             "| server | QPS alone | QPS during the flood | kept | p95 ms alone | p95 ms flood | flood connections/s | fresh login ms (median, max; failed) | errors |",
             "|---|---|---|---|---|---|---|---|---|"]
    names = []
    for (name, _) in results:
        if name not in names:
            names.append(name)
    for name in names:
        alone, flood = results[(name, False)], results[(name, True)]
        per = lambda rs, k: ", ".join(f"{r[k]:,.0f}" for r in rs if k in r)  # noqa: E731
        kept = med(flood, "ops_s") / med(alone, "ops_s") if med(alone, "ops_s") else 0
        errs = "; ".join(r["error"][:100] for r in alone + flood if "error" in r) or "-"
        lines.append(f"| {name} | {med(alone, 'ops_s'):,.0f} ({per(alone, 'ops_s')}) | {med(flood, 'ops_s'):,.0f} ({per(flood, 'ops_s')}) | {kept:.0%} | "
                     f"{med(alone, 'p95_ms'):.2f} | {med(flood, 'p95_ms'):.2f} | {med(flood, 'flood_conn_s'):,.0f} | "
                     + (f"{med(flood, 'login_ms'):.1f}, {max(r.get('login_max_ms', 0) for r in flood):.0f}; {sum(r.get('logins_failed', 0) for r in flood)}" if a.flood == "slow" else "-")
                     + f" | {errs} |")
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    path = os.path.join(HERE, "results", f"login-flood-{time.strftime('%Y%m%d-%H%M%S')}.md")
    open(path, "w").write(text)
    print(text)
    print("written", path)


if __name__ == "__main__":
    main()
