#!/usr/bin/env python3
"""bench/observe.py — what watching costs (issue #26, item 5): Turnstile with
everything an operator turns on (the Prometheus endpoint, scraped every 5 s;
statement digests; the slow query log with a long_query_time nobody reaches)
against Turnstile with all of it off, and MariaDB 10.11 with its
performance_schema ON against OFF for comparison, in one run.

Four servers, each in its own session (setsid, as a service runs), each
holding sbtest1 (--table-size rows, `sysbench oltp_point_select prepare`):

  turnstile-off   --performance-schema OFF (no metrics port, slow log OFF)
  turnstile-on    --metrics-port P --performance-schema ON --slow-query-log ON --long-query-time 100
  mariadb-off     --performance-schema=OFF
  mariadb-on      --performance-schema=ON (its default consumers: digests among them)

Experiments, each --runs rounds (5 by default), the servers alternating in
order (reversed every other round); each server's CPU per operation is its
process's CPU time over the operations sysbench counted:

  churn   connect + point select + disconnect (bench/lua/connect_point_select.lua), --threads clients over TCP
  point   persistent oltp_point_select (prepared statements), --point-threads clients

    python3 bench/observe.py                   # ~8 min
    python3 bench/observe.py --runs 7 --duration 15
Writes bench/results/observe-<stamp>.md (and prints it). The target: on ≤ 1.02× off.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import upstream as common  # noqa: E402  (the servers, CPU and status readers of bench/upstream.py)

PW = common.PW


class Scraper:
    """Scrapes a metrics endpoint every `interval_s` until stopped, as Prometheus would."""

    def __init__(self, port, interval_s=5.0):
        self.port, self.interval_s, self.scrapes, self.errors = port, interval_s, 0, 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stopping.wait(self.interval_s):
            try:
                body = urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=10).read()
                self.scrapes += b"turnstile_statements_total" in body
            except OSError:
                self.errors += 1

    def stop(self):
        self.stopping.set()
        self.thread.join()


def sysbench(a, port, pid, experiment):
    conn = ["--mysql-host=127.0.0.1", f"--mysql-port={port}", "--mysql-user=root", f"--mysql-password={PW}", "--mysql-db=sbtest"]
    script, threads = (os.path.join(HERE, "lua/connect_point_select.lua"), a.threads) if experiment == "churn" else ("oltp_point_select", a.point_threads)
    cmd = ["sysbench", script, f"--threads={threads}", f"--time={a.duration}", f"--table-size={a.table_size}", "--mysql-ssl=off", *conn, "run"]
    c0, t0 = common.cpu_seconds(pid), time.time()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=a.duration + 300)
    c1, t1 = common.cpu_seconds(pid), time.time()
    text = out.stdout + out.stderr
    m = re.search(r"total number of events:\s+(\d+)", text)
    if not m or int(m.group(1)) == 0:
        return {"error": text[-600:]}
    n = int(m.group(1))
    errors = re.search(r"ignored errors:\s+(\d+)", text)
    return {"ops_s": n / (t1 - t0), "cpu_us": (c1 - c0) / n * 1e6, "errors": int(errors.group(1)) if errors else 0}


def prepare(port):
    common.mysql(port, "CREATE DATABASE IF NOT EXISTS sbtest")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "target/release/turnstile"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--table-size", type=int, default=10000)
    ap.add_argument("--threads", type=int, default=100, help="sysbench clients for churn")
    ap.add_argument("--point-threads", type=int, default=16, help="persistent sysbench clients for point")
    ap.add_argument("--only", choices=["churn", "point"])
    ap.add_argument("--no-mariadb", action="store_true", help="Turnstile on and off only")
    a = ap.parse_args()
    base = 47000 + os.getpid() % 500
    metrics_port = base + 9
    servers, stoppers, scrapers = {}, [], {}
    try:
        for name, flags in (("turnstile-off", ["--performance-schema", "OFF"]),
                            ("turnstile-on", ["--metrics-port", str(metrics_port), "--performance-schema", "ON", "--slow-query-log", "ON", "--long-query-time", "100"])):
            ts = common.Turnstile(a.binary, base + len(servers), ["--root-password", PW, *flags])
            stoppers.append(ts.stop)
            prepare(ts.port)
            subprocess.run(["sysbench", "oltp_point_select", "--tables=1", f"--table-size={a.table_size}", "--mysql-host=127.0.0.1",
                            f"--mysql-port={ts.port}", "--mysql-user=root", f"--mysql-password={PW}", "prepare"], check=True, capture_output=True, timeout=600)
            servers[name] = (ts.port, ts.proc.pid)
        if not a.no_mariadb:
            for name, ps in (("mariadb-off", "OFF"), ("mariadb-on", "ON")):
                m = common.MariaDB(base + 100 + len(servers)).start(a.table_size, [f"--performance-schema={ps}"])
                stoppers.append(m.stop)
                servers[name] = (m.port, m.proc.pid)
        plan = [e for e in ("churn", "point") if a.only in (None, e)]
        results = {}
        for name, (port, pid) in servers.items():
            for exp in plan:
                sysbench(argparse.Namespace(**{**vars(a), "duration": 2}), port, pid, exp)
        for run in range(a.runs):
            for exp in plan:
                order = list(servers) if run % 2 == 0 else list(reversed(servers))
                for name in order:
                    port, pid = servers[name]
                    scraper = Scraper(metrics_port) if name == "turnstile-on" else None
                    r = sysbench(a, port, pid, exp)
                    if scraper:
                        scraper.stop()
                        r["scrapes"] = scraper.scrapes
                        if scraper.errors:
                            r["error"] = f"{scraper.errors} failed scrapes"
                    results.setdefault((exp, name), []).append(r)
                    print(f"run {run + 1} {exp} {name}: {r}", flush=True)
        digests = common.mysql(servers["turnstile-on"][0], "SELECT COUNT(*), SUM(COUNT_STAR) FROM performance_schema.events_statements_summary_by_digest")
    finally:
        for stop in stoppers:
            stop()
    write_report(a, results, plan, list(servers), digests)


def med(rs, key):
    vals = [r[key] for r in rs if key in r]
    return statistics.median(vals) if vals else float("nan")


def write_report(a, results, plan, names, digests):
    label = {"churn": f"connect + point select + disconnect, {a.threads} clients", "point": f"persistent point select, {a.point_threads} clients"}
    lines = [f"# What watching costs, {time.strftime('%Y-%m-%d %H:%M')}", "",
             f"`python3 bench/observe.py --runs {a.runs} --duration {a.duration}" + (f" --only {a.only}" if a.only else "") + "`: every server in its own session; "
             "Turnstile pool-of-threads on its embedded engine, MariaDB 10.11 one-thread-per-connection. "
             f"Medians of {a.runs} alternating runs; per run in brackets. turnstile-on: metrics endpoint scraped every 5 s, digests, slow log "
             "(long_query_time 100); turnstile-off: none of them. mariadb-on/off: its performance_schema.", "",
             "| experiment | server | ops/s | server µs CPU per op | on / off | errors |", "|---|---|---|---|---|---|"]
    for exp in plan:
        for name in names:
            rs = results.get((exp, name), [])
            cpu = med(rs, "cpu_us")
            off = names[names.index(name) - 1] if name.endswith("-on") else None
            ratio = f"{cpu / med(results[(exp, off)], 'cpu_us'):.3f}×" if off else ""
            per_run = ", ".join(f"{r.get('cpu_us', float('nan')):.1f}" for r in rs)
            errs = sum(r.get("errors", 0) for r in rs) + sum(1 for r in rs if "error" in r)
            lines.append(f"| {label[exp]} | {name} | {med(rs, 'ops_s'):,.0f} | {cpu:.2f} [{per_run}] | {ratio} | {errs} |")
    lines += ["", f"turnstile-on's digests after the run (digests, statements counted): {digests.strip()}"]
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    path = os.path.join(HERE, "results", f"observe-{time.strftime('%Y%m%d-%H%M%S')}.md")
    with open(path, "w") as f:
        f.write(text)
    print(text)
    print(f"written to {path}")


if __name__ == "__main__":
    main()
