#!/usr/bin/env python3
"""bench/ab.py — alternating A/B runs of Turnstile builds or settings.

Why: on this 2-core shared machine a single run of anything moves by ±10%, so
a change is judged by running the candidates in turn, several rounds, and
comparing medians of the server's CPU per operation (utime+stime of the server
process from /proc over the run, divided by operations). Each candidate is a
turnstile binary, optionally followed by its own flags after a colon:

    bench/ab.py --workload connect /tmp/old /tmp/new
    bench/ab.py --workload point-select --threads 16 \\
        "target/release/turnstile" "target/release/turnstile:--thread-handling pool-of-threads"

Workloads (sysbench 1.0.20, loopback, every run bounded by --duration):
  connect               connect + SELECT 1 + disconnect (bench/lua/connect_select1.lua), blackhole engine
  connect-point-select  connect + point select on sbtest1 + disconnect (bench/lua/connect_point_select.lua)
  point-select          persistent oltp_point_select (prepared statements)
  read-only             persistent oltp_read_only (an operation is one transaction of 16 statements)
  read-write            persistent oltp_read_write (an operation is one transaction of 18 statements)
  bulk-insert           sysbench's prepare of sbtest1 into an empty database: --table-size rows in
                        multi-row INSERTs (an operation is one row); --sql-mode sets the global
                        sql_mode first ('' measures the lenient writes of a non-strict mode)
The SQL workloads copy a template data directory prepared once per table size
(sbtest1 with --table-size rows) so every run starts from the same files.

Output: one line per run and a median line per candidate: operations/s and
server µs CPU per operation, with the min and max of the runs.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def start(binary, flags, d, port, engine):
    cmd = [binary, "--engine", engine, "--port", str(port), "--admin-port", str(port + 1), "--socket", d + "/s.sock",
           "--datadir", d + "/data", "--root-password", "pw", "--max-connections", "3000", *flags]
    # Its own session, as a service runs: in the load generator's session the
    # pool's nice value would outrank sysbench and flatter the pool.
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.time() + 30
    while time.time() < deadline:
        line = p.stderr.readline()
        if "ready" in line:
            return p
        if not line and p.poll() is not None:
            break
    p.kill()
    sys.exit(f"{binary} did not start")


def template(binary, port, table_size):
    """A data directory with sbtest.sbtest1 prepared, made once and copied per run."""
    t = os.path.join(tempfile.gettempdir(), f"turnstile-ab-{table_size}")
    if os.path.isdir(os.path.join(t, "data")):
        return t
    shutil.rmtree(t, ignore_errors=True)
    os.makedirs(t)
    p = start(binary, [], t, port, "sqlite")
    try:
        subprocess.run(["mysql", "-h127.0.0.1", f"-P{port}", "-uroot", "-ppw", "-e", "CREATE DATABASE sbtest"], check=True)
        subprocess.run(["sysbench", "oltp_point_select", "--tables=1", f"--table-size={table_size}", "--mysql-host=127.0.0.1",
                        f"--mysql-port={port}", "--mysql-user=root", "--mysql-password=pw", "prepare"],
                       check=True, capture_output=True, timeout=600)
    finally:
        p.terminate()
        p.wait()
    return t


def one_run(a, binary, flags, port, tmpl):
    d = tempfile.mkdtemp(prefix="turnstile-ab-run-")
    try:
        if tmpl:
            shutil.copytree(os.path.join(tmpl, "data"), os.path.join(d, "data"))
        p = start(binary, flags, d, port, "blackhole" if a.workload == "connect" else "sqlite")
        conn = ["--mysql-host=127.0.0.1", f"--mysql-port={port}"] if a.transport == "tcp" else [f"--mysql-socket={d}/s.sock"]
        common = [f"--threads={a.threads}", f"--time={a.duration}", *conn, "--mysql-user=root", "--mysql-password=pw"]
        if a.workload == "bulk-insert":
            return bulk_insert(a, p, port, conn)
        if a.workload == "connect":
            cmd = ["sysbench", os.path.join(HERE, "lua/connect_select1.lua"), *common, "--mysql-db=mysql", "run"]
        elif a.workload == "connect-point-select":
            cmd = ["sysbench", os.path.join(HERE, "lua/connect_point_select.lua"), *common, "--mysql-db=sbtest",
                   f"--table-size={a.table_size}", "run"]
        else:
            test = {"point-select": "oltp_point_select", "read-only": "oltp_read_only"}.get(a.workload, "oltp_read_write")
            cmd = ["sysbench", test, "--tables=1", f"--table-size={a.table_size}", *common, "run"]
        c0, t0 = cpu_seconds(p.pid), time.time()
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=a.duration + 120).stdout
        c1, t1 = cpu_seconds(p.pid), time.time()
        p.terminate()
        p.wait()
        pattern = {"point-select": r"queries:\s+(\d+)", "read-only": r"transactions:\s+(\d+)", "read-write": r"transactions:\s+(\d+)"}.get(a.workload, r"total number of events:\s+(\d+)")
        m = re.search(pattern, out)
        if not m or int(m.group(1)) == 0:
            return None
        ops = int(m.group(1))
        return ops / (t1 - t0), (c1 - c0) / ops * 1e6
    finally:
        shutil.rmtree(d, ignore_errors=True)


def bulk_insert(a, p, port, conn):
    """sysbench prepare into an empty database: rows/s and server µs CPU per row."""
    setup = "CREATE DATABASE sbtest" + (f"; SET GLOBAL sql_mode = '{a.sql_mode}'" if a.sql_mode is not None else "")
    subprocess.run(["mysql", "-h127.0.0.1", f"-P{port}", "-uroot", "-ppw", "-e", setup], check=True)
    cmd = ["sysbench", "oltp_point_select", "--tables=1", f"--table-size={a.table_size}", *conn, "--mysql-user=root", "--mysql-password=pw", "prepare"]
    c0, t0 = cpu_seconds(p.pid), time.time()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    c1, t1 = cpu_seconds(p.pid), time.time()
    p.terminate()
    p.wait()
    if done.returncode != 0:
        return None
    return a.table_size / (t1 - t0), (c1 - c0) / a.table_size * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("candidates", nargs="+", help="BINARY[:FLAGS...]")
    ap.add_argument("--workload", choices=["connect", "connect-point-select", "point-select", "read-only", "read-write", "bulk-insert"], default="connect")
    ap.add_argument("--sql-mode", default=None, help="bulk-insert: the global sql_mode to load under")
    ap.add_argument("--transport", choices=["tcp", "unix"], default="tcp")
    ap.add_argument("--threads", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=int, default=6)
    ap.add_argument("--table-size", type=int, default=10000)
    ap.add_argument("--port", type=int, default=14300)
    a = ap.parse_args()
    cands = []
    for c in a.candidates:
        binary, _, flags = c.partition(":")
        cands.append((c, os.path.abspath(binary), flags.split()))
    tmpl = None if a.workload in ("connect", "bulk-insert") else template(cands[0][1], a.port, a.table_size)
    results = {c[0]: [] for c in cands}
    for r in range(a.runs):
        for name, binary, flags in cands:
            res = one_run(a, binary, flags, a.port, tmpl)
            if res is None:
                print(f"{name:48s} run {r + 1}: failed", flush=True)
                continue
            results[name].append(res)
            print(f"{name:48s} run {r + 1}: {res[0]:9.0f} ops/s {res[1]:7.1f} µs CPU/op", flush=True)
    print(f"\n{a.workload}, {a.transport}, {a.threads} clients, {a.runs} alternating runs of {a.duration} s:")
    for name, _, _ in cands:
        rs = results[name]
        if not rs:
            print(f"{name:48s} no successful run")
            continue
        ops = sorted(x[0] for x in rs)
        us = sorted(x[1] for x in rs)
        print(f"{name:48s} median {ops[len(ops) // 2]:9.0f} ops/s {us[len(us) // 2]:7.1f} µs CPU/op (min {us[0]:.1f} max {us[-1]:.1f})")


if __name__ == "__main__":
    main()
