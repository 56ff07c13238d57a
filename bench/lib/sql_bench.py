#!/usr/bin/env python3
"""bench/lib/sql_bench.py — the SQL-engine benchmark driven by bench/sql.sh.

Why: the embedded-engine issue sets targets relative to MariaDB 10.11
(InnoDB, one-thread-per-connection) on this machine, measured side by side in
one run. For each server this prepares sysbench's sbtest1 (one table,
--table-size rows), then runs, alternating servers run by run:

  * oltp_point_select, oltp_read_only, oltp_read_write at each thread count
    (default 16 and 100), --db-ps-mode=auto (prepared statements, as sysbench
    does by default), every server at its default isolation, REPEATABLE READ;
  * oltp_read_write_rc: oltp_read_write with both servers' global
    tx_isolation set to READ-COMMITTED for the run (the sysbench sessions
    start with it), restored to REPEATABLE-READ after;
  * connect + one point select on sbtest1 + disconnect, 100 threads
    (bench/lua/connect_point_select.lua).

Per run it reads the server's utime+stime from /proc/PID/stat before and after
and reports: QPS and TPS (sysbench), server CPU per query (or per connection
for the connect run) = CPU delta / queries, and ignored (retried 1213/1205)
errors. Each cell shows the median of the runs and [min-max]. Prints a
Markdown table and writes it to bench/results/sql-<stamp>.md (+ .json).

A server marked "canned" (crates/floor, which answers every query with a fixed
row and does no SQL work) runs only the point select and connect rows, beside
the others; the report then shows each real server's CPU above that floor.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
sys.path.insert(0, HERE)

try:  # reuse the connection benchmark's /proc helper when it is there
    from connect_bench import proc_cpu_seconds  # type: ignore
except Exception:  # pragma: no cover - fallback with the same meaning
    def proc_cpu_seconds(pid):
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sysbench(srv, args, timeout):
    cmd = ["sysbench", *args, "--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={srv['port']}",
           f"--mysql-user={srv['user']}", f"--mysql-password={srv['password']}", "--mysql-db=sbtest"]
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout, cwd="/tmp")


def num(pattern, out, conv=float):
    m = re.search(pattern, out, re.M)
    return conv(m.group(1)) if m else None


def set_isolation(srv, level):
    """SET GLOBAL tx_isolation (MariaDB 10.11 knows only this name) through the mysql CLI."""
    p = subprocess.run(["mysql", "-h127.0.0.1", f"-P{srv['port']}", f"-u{srv['user']}", f"-p{srv['password']}",
                        "-e", f"SET GLOBAL tx_isolation = '{level}'"], capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        raise RuntimeError(f"SET GLOBAL tx_isolation on {srv['name']}: {p.stderr.strip()}")


def measure(srv, workload, threads, duration, table_size):
    if workload.endswith("_rc"):
        try:
            set_isolation(srv, "READ-COMMITTED")
            try:
                return measure(srv, workload[:-3], threads, duration, table_size)
            finally:
                set_isolation(srv, "REPEATABLE-READ")
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            return {"ok": False, "error": str(e)}
    if workload == "connect":
        args = [os.path.join(BENCH, "lua", "connect_point_select.lua"), f"--threads={threads}", f"--time={duration}",
                f"--table-size={table_size}", "--events=0", "run"]
    else:
        args = [workload, f"--threads={threads}", f"--time={duration}", "--tables=1", f"--table-size={table_size}",
                "--db-ps-mode=auto", "--events=0", "--forced-shutdown=30", "run"]
    cpu0 = proc_cpu_seconds(srv["pid"])
    p = sysbench(srv, args, duration + 90)
    cpu1 = proc_cpu_seconds(srv["pid"])
    out = p.stdout
    if p.returncode != 0 or "FATAL" in out:
        return {"ok": False, "error": out[-2000:]}
    queries = num(r"^\s+queries:\s+(\d+)", out, int)
    events = num(r"^\s+total number of events:\s+(\d+)", out, int)
    secs = num(r"^\s+total time:\s+([\d.]+)s", out) or duration
    units = events if workload == "connect" else queries
    return {
        "ok": True,
        "qps": (queries or 0) / secs,
        "tps": num(r"^\s+transactions:\s+\d+\s+\(([\d.]+) per sec", out),
        "eps": (events or 0) / secs,
        "ignored": num(r"^\s+ignored errors:\s+(\d+)", out, int) or 0,
        "cpu_us_per_unit": (cpu1 - cpu0) * 1e6 / units if units else None,
        "cpu_s": cpu1 - cpu0,
    }


# The workloads a canned-reply server can answer as the real servers do
# (prepared point select; connect + one query + disconnect).
CANNED_WORKLOADS = {"oltp_point_select", "connect"}


def med(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None, None, None
    return statistics.median(vals), min(vals), max(vals)


def cell(vals, nd=0):
    m, lo, hi = med(vals)
    if m is None:
        return "n/a"
    f = f"{{:.{nd}f}}"
    return f"{f.format(m)} [{f.format(lo)}-{f.format(hi)}]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--servers", required=True,
                    help="JSON list of {name,pid,port,user,password[,canned]}; canned: the floor server, "
                         "run only for the workloads in CANNED_WORKLOADS and not prepared")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--threads", default="16,100")
    ap.add_argument("--workloads", default="oltp_point_select,oltp_read_only,oltp_read_write,oltp_read_write_rc")
    ap.add_argument("--connect-threads", type=int, default=100)
    ap.add_argument("--table-size", type=int, default=100000)
    ap.add_argument("--out", required=True)
    ap.add_argument("--command", default="")
    a = ap.parse_args()
    servers = json.loads(a.servers)

    for srv in servers:
        if srv.get("canned"):
            continue  # the floor server has no tables: it answers everything with a canned row
        print(f"[sql_bench] preparing sbtest1 ({a.table_size} rows) on {srv['name']}", file=sys.stderr, flush=True)
        sysbench(srv, ["oltp_read_only", "--tables=1", f"--table-size={a.table_size}", "cleanup"], 300)
        p = sysbench(srv, ["oltp_read_only", "--tables=1", f"--table-size={a.table_size}", "prepare"], 1200)
        if p.returncode != 0:
            print(p.stdout[-3000:], file=sys.stderr)
            sys.exit(f"prepare failed on {srv['name']}")

    cases = [(w, int(t)) for w in a.workloads.split(",") for t in a.threads.split(",")] + [("connect", a.connect_threads)]
    results = {}
    for (w, t) in cases:
        runs_on = [s for s in servers if not s.get("canned") or w in CANNED_WORKLOADS]
        # warm-up (caches, connection pools), not measured
        for srv in runs_on:
            measure(srv, w, t, 2, a.table_size)
        for run in range(a.runs):
            order = runs_on if run % 2 == 0 else list(reversed(runs_on))
            for srv in order:
                r = measure(srv, w, t, a.duration, a.table_size)
                results.setdefault(f"{w}|{t}|{srv['name']}", []).append(r)
                status = "ok" if r["ok"] else "FAILED"
                extra = f"qps={r.get('qps', 0):.0f} cpu/unit={r.get('cpu_us_per_unit') or 0:.1f}us ignored={r.get('ignored')}" if r["ok"] else r["error"][-300:]
                print(f"[sql_bench] {w} threads={t} run={run + 1} {srv['name']}: {status} {extra}", file=sys.stderr, flush=True)

    names = [s["name"] for s in servers]
    floor = next((s["name"] for s in servers if s.get("canned")), None)
    lines = []
    P = lines.append
    P(f"# SQL engine benchmark ({time.strftime('%Y-%m-%d %H:%M:%S')})")
    P("")
    P(f"Command: `{a.command}`  ")
    P(f"{a.runs} runs of {a.duration} s per cell, servers alternating; median [min-max]. Table size {a.table_size}. "
      "sysbench 1.0.20, --db-ps-mode=auto. Server CPU = utime+stime of the server process (/proc/PID/stat) over the run, "
      "divided by queries (connect: by connections).")
    P("")
    P("| workload | threads | server | QPS | TPS | server CPU µs/query | retried 1213/1205 |")
    P("|---|---|---|---|---|---|---|")
    summary = {}
    for (w, t) in cases:
        for n in names:
            if f"{w}|{t}|{n}" not in results:
                continue  # the floor runs only the workloads it can answer
            rs = [r for r in results.get(f"{w}|{t}|{n}", []) if r["ok"]]
            failed = len(results.get(f"{w}|{t}|{n}", [])) - len(rs)
            qps = [r["eps"] if w == "connect" else r["qps"] for r in rs]
            tps = [r["tps"] for r in rs] if w != "connect" else []
            cpu = [r["cpu_us_per_unit"] for r in rs]
            ign = sum(r["ignored"] for r in rs)
            summary[(w, t, n)] = (med(qps)[0], med(cpu)[0])
            label = {"connect": "connect+point select+disconnect (conn/s, CPU µs/conn)",
                     "oltp_read_write_rc": "oltp_read_write, READ COMMITTED"}.get(w, w)
            P(f"| {label} | {t} | {n} | {cell(qps)} | {cell(tps) if tps else '-'} | {cell(cpu, 1)} | {ign}{' (' + str(failed) + ' runs failed)' if failed else ''} |")
    measured = [n for n in names if n != floor]
    if len(measured) == 2:
        t_name, m_name = measured
        P("")
        P(f"Ratios ({t_name} / {m_name}, medians):")
        P("")
        P("| workload | threads | QPS ratio | CPU per query ratio |")
        P("|---|---|---|---|")
        for (w, t) in cases:
            tq, tc = summary[(w, t, t_name)]
            mq, mc = summary[(w, t, m_name)]
            qr = f"{tq / mq:.2f}x" if tq and mq else "n/a"
            cr = f"{tc / mc:.2f}" if tc and mc else "n/a"
            P(f"| {w} | {t} | {qr} | {cr} |")
    if floor and len(measured) == 2:
        P("")
        P(f"Above the floor ({floor}: canned replies, no SQL; the same client and round trips). "
          "Server CPU per query (per connection for connect) minus the floor's, medians:")
        P("")
        P(f"| workload | threads | {floor} µs | {measured[0]} above floor µs | {measured[1]} above floor µs | "
          f"{measured[0]} / {measured[1]} above floor |")
        P("|---|---|---|---|---|---|")
        for (w, t) in cases:
            fc = summary.get((w, t, floor), (None, None))[1]
            if fc is None:
                continue
            tc, mc = summary[(w, t, measured[0])][1], summary[(w, t, measured[1])][1]
            ta = tc - fc if tc is not None else None
            ma = mc - fc if mc is not None else None
            ratio = f"{ta / ma:.2f}" if ta is not None and ma else "n/a"
            fmt = lambda v: "n/a" if v is None else f"{v:.1f}"
            P(f"| {w} | {t} | {fc:.1f} | {fmt(ta)} | {fmt(ma)} | {ratio} |")
    text = "\n".join(lines) + "\n"
    print(text)
    with open(a.out + ".md", "w") as f:
        f.write(text)
    with open(a.out + ".json", "w") as f:
        json.dump({k: v for k, v in results.items()}, f, indent=1)


if __name__ == "__main__":
    main()
