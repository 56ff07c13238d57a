#!/usr/bin/env python3
"""bench/tls.py — the cost of a TLS connection, Turnstile against MariaDB
10.11, in one run (issue #25: "the cheapest TLS connect of any
MySQL-protocol server", full handshakes and resumed ones).

Both servers start in their own session (setsid, as a service runs), with
the same certificate: the ECDSA P-256 one Turnstile generates in its data
directory on first start, given to MariaDB with --ssl-cert/--ssl-key. Turnstile
runs its embedded engine (pool-of-threads unless --turnstile-flags says
otherwise), MariaDB one-thread-per-connection; each holds sbtest1
(--table-size rows, `sysbench oltp_point_select prepare`). Every experiment
alternates the targets, --runs rounds (3 by default), and reports per run and
as medians:

  churn     connect + point select + disconnect (bench/lua/connect_point_select.lua),
            --threads clients over TCP (sysbench 1.0.20 on libmariadb), each target
            with TLS (--mysql-ssl=on: a full handshake per connection, as
            libmariadb never resumes) and without: connections/s and the server's
            CPU per connection; TLS's share is the difference. (sysbench always sends
            a client certificate, which both servers verify: see sysbench_ssl_dir.) The servers'
            Ssl_accepts growth is checked against the connections made, so a run
            where TLS was not used cannot pass as one.
  point     persistent oltp_point_select from --point-threads sysbench clients,
            over TLS and without: queries/s and the server's CPU per query (what
            TLS costs a connection that stays: its records' encryption)
  resume    the same connect + SELECT 1 + disconnect from Python clients
            (--resume-threads, tests/helpers/rawproto.py over the ssl module),
            each connection either a full handshake or resuming the previous
            connection's TLS 1.3 session ticket: server CPU per connection, and how
            many connections the server actually resumed (the client's
            `session_reused`). Python is slow, so connections/s says little here;
            the CPU per connection is the figure.

    python3 bench/tls.py                    # both experiments, ~4 min
    python3 bench/tls.py --only churn --runs 5
    python3 bench/tls.py --only point
Writes bench/results/tls-<stamp>.md (and prints it).
"""
import argparse
import os
import re
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import upstream as common  # noqa: E402  (the servers, CPU and status readers of bench/upstream.py)
from helpers import rawproto  # noqa: E402

PW = common.PW


def accepts(port):
    return int(common.status(port, "Ssl_accepts").get("Ssl_accepts", 0))


def sysbench_ssl_dir(datadir):
    """sysbench 1.0.20 with --mysql-ssl=on always loads client-key.pem,
    client-cert.pem and cacert.pem from its working directory (mysql_ssl_set
    with those names) and sends that certificate. Both servers check a client
    certificate they are sent against their CA, so the client's is signed by
    the CA Turnstile generated (MariaDB is given it as --ssl-ca), as an X.509
    v3 certificate (rustls's webpki refuses version 1 ones)."""
    d = tempfile.mkdtemp(prefix="ts-bench-sslcli-")
    key, csr, cert = (os.path.join(d, n) for n in ("client-key.pem", "client.csr", "client-cert.pem"))
    subprocess.run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", csr,
                    "-subj", "/CN=bench-client"], check=True, capture_output=True)
    ext = os.path.join(d, "client.ext")
    with open(ext, "w") as f:
        f.write("basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n")
    subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", os.path.join(datadir, "ca.pem"), "-CAkey", os.path.join(datadir, "ca-key.pem"),
                    "-CAcreateserial", "-out", cert, "-days", "2", "-extfile", ext], check=True, capture_output=True)
    shutil.copy(os.path.join(datadir, "ca.pem"), os.path.join(d, "cacert.pem"))
    return d


def churn(a, name, port, pid, tls, script=None, threads=None):
    conn = ["--mysql-host=127.0.0.1", f"--mysql-port={port}", "--mysql-user=root", f"--mysql-password={PW}", "--mysql-db=sbtest"]
    cmd = ["sysbench", script or os.path.join(HERE, "lua/connect_point_select.lua"), f"--threads={threads or a.threads}", f"--time={a.duration}",
           f"--table-size={a.table_size}", f"--mysql-ssl={'on' if tls else 'off'}", *conn, "run"]
    s0 = accepts(port)
    c0, t0 = common.cpu_seconds(pid), time.time()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=a.duration + 300, cwd=a.ssl_dir)
    out = out.stdout + out.stderr
    c1, t1 = common.cpu_seconds(pid), time.time()
    m = re.search(r"total number of events:\s+(\d+)", out)
    if not m or int(m.group(1)) == 0:
        return {"error": out[-600:]}
    n = int(m.group(1))
    handshakes = accepts(port) - s0
    r = {"ops_s": n / (t1 - t0), "cpu_us": (c1 - c0) / n * 1e6, "tls_share": handshakes / n}
    if script:
        # Persistent clients: one handshake each, not one per query.
        r["tls_share"] = handshakes / (threads or a.threads)
    if tls and r["tls_share"] < 0.95:
        r["error"] = f"{name}: only {handshakes} TLS handshakes for {n} connections"
    return r


def resume(a, name, port, pid, reuse):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    stop = time.time() + a.duration
    counts = {"n": 0, "reused": 0, "errors": 0}
    lock = threading.Lock()

    def client():
        session = None
        while time.time() < stop:
            try:
                c = rawproto.RawConnection.tcp(port)
                tls = c.start_tls(ctx, session=session if reuse else None)
                c.handshake("root", PW, extra_caps=rawproto.CLIENT_SSL)
                c.scalar("SELECT 1")  # TLS 1.3 tickets arrive after the handshake
                session = tls.session
                reused = tls.session_reused
                c.quit()
                with lock:
                    counts["n"] += 1
                    counts["reused"] += reused
            except Exception:  # noqa: BLE001 - counted; a run with errors is reported as such
                with lock:
                    counts["errors"] += 1

    c0, t0 = common.cpu_seconds(pid), time.time()
    threads = [threading.Thread(target=client) for _ in range(a.resume_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    c1, t1 = common.cpu_seconds(pid), time.time()
    n = max(1, counts["n"])
    r = {"ops_s": counts["n"] / (t1 - t0), "cpu_us": (c1 - c0) / n * 1e6, "reused_share": counts["reused"] / n}
    if counts["errors"]:
        r["error"] = f"{counts['errors']} failed connections"
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "target/release/turnstile"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=int, default=8)
    ap.add_argument("--table-size", type=int, default=10000)
    ap.add_argument("--threads", type=int, default=100, help="sysbench clients for churn")
    ap.add_argument("--resume-threads", type=int, default=8, help="Python clients for resume")
    ap.add_argument("--only", choices=["churn", "resume", "point"])
    ap.add_argument("--point-threads", type=int, default=16, help="persistent sysbench clients for point")
    ap.add_argument("--turnstile-flags", default="", help="more Turnstile flags, e.g. '--thread-handling one-thread-per-connection'")
    a = ap.parse_args()
    ts = common.Turnstile(a.binary, 46500 + os.getpid() % 1000, ["--root-password", PW, *a.turnstile_flags.split()])
    common.mysql(ts.port, "CREATE DATABASE sbtest")
    subprocess.run(["sysbench", "oltp_point_select", "--tables=1", f"--table-size={a.table_size}", "--mysql-host=127.0.0.1",
                    f"--mysql-port={ts.port}", "--mysql-user=root", f"--mysql-password={PW}", "prepare"], check=True, capture_output=True, timeout=600)
    data = os.path.join(ts.dir, "data")
    mdb = common.MariaDB(45500 + os.getpid() % 1000).start(
        a.table_size, [f"--ssl-cert={data}/server-cert.pem", f"--ssl-key={data}/server-key.pem", f"--ssl-ca={data}/ca.pem"])
    a.ssl_dir = sysbench_ssl_dir(data)
    servers = {"turnstile": (ts.port, ts.proc.pid), "mariadb": (mdb.port, mdb.proc.pid)}
    plan = []
    if a.only in (None, "churn"):
        plan += [("churn", tls) for tls in (True, False)]
    if a.only in (None, "resume"):
        plan += [("resume", reuse) for reuse in (False, True)]
    if a.only in (None, "point"):
        plan += [("point", tls) for tls in (True, False)]
    results = {}
    try:
        for name in servers:
            warm = churn(argparse.Namespace(**{**vars(a), "duration": 2}), name, *servers[name], True)
            if "error" in warm:
                sys.exit(f"warm-up over TLS failed on {name}: {warm['error']}")
        for run in range(a.runs):
            for exp, flag in plan:
                order = list(servers) if run % 2 == 0 else list(reversed(servers))
                for name in order:
                    port, pid = servers[name]
                    if exp == "churn":
                        r = churn(a, name, port, pid, flag)
                    elif exp == "point":
                        r = churn(a, name, port, pid, flag, script="oltp_point_select", threads=a.point_threads)
                    else:
                        r = resume(a, name, port, pid, flag)
                    results.setdefault((exp, flag, name), []).append(r)
                    kind = ("resumed" if flag else "full") if exp == "resume" else ("tls" if flag else "plain")
                    print(f"run {run + 1} {exp} {kind} {name}: {r}", flush=True)
    finally:
        ts.stop()
        mdb.stop()
        shutil.rmtree(a.ssl_dir, ignore_errors=True)
    write_report(a, results)


def write_report(a, results):
    lines = [f"# TLS connection cost, {time.strftime('%Y-%m-%d %H:%M')}", "",
             f"`python3 bench/tls.py --runs {a.runs} --duration {a.duration}" + (f" --only {a.only}" if a.only else "") + "`: both servers in their own session, the same ECDSA P-256 certificate, "
             f"Turnstile {a.turnstile_flags or 'pool-of-threads'} on its embedded engine, MariaDB 10.11 one-thread-per-connection. Medians of {a.runs} alternating runs; per run in brackets.", "",
             "| experiment | server | connections/s | server µs CPU per connection | TLS handshakes per connection / resumed share | errors |", "|---|---|---|---|---|---|"]
    label = {("churn", True): f"churn over TLS, {a.threads} sysbench clients", ("churn", False): f"churn plain, {a.threads} sysbench clients",
             ("resume", False): f"full handshake, {a.resume_threads} Python clients", ("resume", True): f"resumed ticket, {a.resume_threads} Python clients",
             ("point", True): f"persistent point select over TLS, {a.point_threads} sysbench clients (per query)",
             ("point", False): f"persistent point select plain, {a.point_threads} sysbench clients (per query)"}
    for (exp, flag, name), rs in results.items():
        ok = [r for r in rs if "error" not in r]
        med = lambda k: statistics.median([r[k] for r in ok]) if ok else None  # noqa: E731
        per = lambda k: ", ".join(f"{r[k]:,.0f}" for r in ok)  # noqa: E731
        share = "reused_share" if exp == "resume" else "tls_share"
        errs = "; ".join(r["error"][:120] for r in rs if "error" in r) or "-"
        lines.append(f"| {label[(exp, flag)]} | {name} | {med('ops_s') or 0:,.0f} ({per('ops_s')}) | {med('cpu_us') or 0:,.1f} ({per('cpu_us')}) | "
                     f"{med(share) or 0:.2f} | {errs} |")
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    path = os.path.join(HERE, "results", f"tls-{time.strftime('%Y%m%d-%H%M%S')}.md")
    with open(path, "w") as f:
        f.write(text)
    print(text)
    print(f"written: {path}")


if __name__ == "__main__":
    main()
