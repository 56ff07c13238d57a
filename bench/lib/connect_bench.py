#!/usr/bin/env python3
"""bench/lib/connect_bench.py — measurement and reporting half of bench/connect.sh.

Why: the core-server issue asks what a short-lived connection costs Turnstile
compared with MariaDB and with the machine's floor (crates/floor). connect.sh
installs, builds and starts the servers, then hands them to this script, which

  * holds N idle, fully authenticated connections (PyMySQL) on each server and
    reads the server's VmRSS before and with them (RSS per idle connection);
  * runs sysbench 1.0.20 with bench/lua/connect_select1.lua (connect +
    SELECT 1 + disconnect per event) against every server, alternating
    servers (order rotated each run) and transports (TCP 127.0.0.1, Unix
    socket), and for every run records
      - conn/s              = sysbench events / sysbench total time
      - server CPU per conn = delta(utime+stime) of the server process from
                              /proc/PID/stat (clock ticks / CLK_TCK) / events
      - client CPU per conn = sysbench's own utime+stime (getrusage of the
                              reaped child) / events
      - other CPU           = machine-wide busy time (/proc/stat) minus both,
                              a noise indicator for this shared machine;
  * prints a table (median and min–max over runs) with ratios
    Turnstile/MariaDB and Turnstile/floor, and writes raw CSV + JSON and a
    markdown summary under the results directory.

Input is a JSON file written by connect.sh:
  {"servers": [{"name": "mariadb", "pid": 123, "host": "127.0.0.1",
                "port": 13306, "socket": "/tmp/x/m.sock", "user": "bench",
                "password": "bench", "available": true, "note": "..."}, ...],
   "meta": {...}}
Servers with "available": false are listed in the report with their note and
otherwise skipped. Every load loop is bounded: sysbench by --time and
--events, sysbench's process by a timeout, idle connections by count.
"""

import argparse
import csv
import datetime as dt
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")
ORDER = ["turnstile", "turnstile-pool", "mariadb", "floor"]  # display order
LABEL = {"turnstile": "Turnstile per-thread", "turnstile-pool": "Turnstile pool (default)", "mariadb": "MariaDB", "floor": "floor"}


# ---------------------------------------------------------------- /proc helpers
def proc_cpu_seconds(pid):
    """utime+stime of a whole process (all threads, live and exited), seconds."""
    with open(f"/proc/{pid}/stat") as f:
        data = f.read()
    fields = data[data.rindex(")") + 2:].split()
    # fields[0] is field 3 (state); utime is field 14, stime field 15.
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def proc_threads(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return 0


def machine_busy_seconds():
    """(busy, softirq) CPU time of the whole machine (all CPUs), seconds."""
    with open("/proc/stat") as f:
        parts = f.readline().split()
    vals = [int(x) for x in parts[1:]]
    # user nice system idle iowait irq softirq steal guest guest_nice
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)
    total = sum(vals[:8])
    return (total - idle) / CLK_TCK, vals[6] / CLK_TCK


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


# ---------------------------------------------------------------- sysbench run
SB_PATTERNS = {
    "events": re.compile(r"total number of events:\s+(\d+)"),
    "total_time": re.compile(r"total time:\s+([\d.]+)s"),
    "lat_avg_ms": re.compile(r"^\s*avg:\s+([\d.]+)", re.M),
    "lat_p95_ms": re.compile(r"95th percentile:\s+([\d.]+)"),
    "lat_max_ms": re.compile(r"^\s*max:\s+([\d.]+)", re.M),
    "errors": re.compile(r"ignored errors:\s+(\d+)"),
}


def run_measured(cmd, server_pid, timeout, log_path=None, stdin=None):
    """Run one client command to completion and measure it.

    Shared by connect.sh's runs and bench/run's suite (bench/lib/suite.py).
    Returns a dict with the client's output and exit status and
      server_cpu_s  delta utime+stime of server_pid over the run (/proc, all threads)
      client_cpu_s  utime+stime of this very child (os.wait4 rusage; unaffected
                    by other children reaped meanwhile)
      machine_busy_s, softirq_s, other_cpu_s, other_cpu_frac (noise indicator)
      wall_s, rc, timed_out, server_alive.
    The child is killed after `timeout` seconds (bounded, always)."""
    import tempfile
    outf = open(log_path, "w+") if log_path else tempfile.TemporaryFile(mode="w+")
    if log_path:
        outf.write(" ".join(map(str, cmd)) + "\n\n")
        outf.flush()
    pos0 = outf.tell()
    cpu0 = proc_cpu_seconds(server_pid) if server_pid else 0.0
    busy0, sirq0 = machine_busy_seconds()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=outf, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL if stdin is None else stdin)
    timed_out = False
    ru = None
    status = 0
    try:
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                break
            if time.monotonic() - t0 > timeout:
                timed_out = True
                p.kill()
                _, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.02)
    except BaseException:
        try:
            p.kill()
            os.wait4(p.pid, 0)
        except Exception:
            pass
        raise
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    busy1, sirq1 = machine_busy_seconds()
    server_alive = alive(server_pid) if server_pid else True
    cpu1 = proc_cpu_seconds(server_pid) if (server_pid and server_alive) else cpu0
    outf.seek(pos0)
    out = outf.read()
    outf.close()
    server_cpu = cpu1 - cpu0
    client_cpu = (ru.ru_utime + ru.ru_stime) if ru else 0.0
    busy = busy1 - busy0
    return {
        "out": out, "rc": -1 if timed_out else p.returncode, "timed_out": timed_out,
        "server_alive": server_alive, "wall_s": round(wall, 3),
        "server_cpu_s": round(server_cpu, 3), "client_cpu_s": round(client_cpu, 3),
        "machine_busy_s": round(busy, 3),
        # softirq time not charged to any task (loopback TCP receive work can land here);
        # it is part of other_cpu_s.
        "softirq_s": round(sirq1 - sirq0, 3),
        "other_cpu_s": round(max(0.0, busy - server_cpu - client_cpu), 3),
        "other_cpu_frac": round(max(0.0, busy - server_cpu - client_cpu) / (max(wall, 1e-3) * (os.cpu_count() or 1)), 3),
    }


def parse_sysbench(out):
    """Figures from sysbench 1.0.20's report (None when absent) and its error lines."""
    rec = {}
    for k, rx in SB_PATTERNS.items():
        m = rx.search(out)
        rec[k] = float(m.group(1)) if m else None
    m = re.search(r"queries:\s+(\d+)", out)
    rec["queries"] = float(m.group(1)) if m else None
    fatal = [l.strip() for l in out.splitlines()
             if "FATAL" in l or ("error" in l.lower() and "ignored errors" not in l)]
    rec["fatal"] = fatal[:5]
    return rec


def run_sysbench(args, srv, transport, run_no, logdir):
    cmd = [
        args.sysbench, args.lua,
        "--db-driver=mysql",
        f"--threads={args.threads}",
        f"--time={args.duration}",
        f"--events={args.max_events}",
        "--report-interval=0",
        f"--mysql-user={srv['user']}",
        f"--mysql-password={srv['password']}",
        "--mysql-db=",
    ]
    if transport == "tcp":
        cmd += [f"--mysql-host={srv['host']}", f"--mysql-port={srv['port']}"]
    else:
        cmd += ["--mysql-host=localhost", f"--mysql-socket={srv['socket']}"]
    cmd.append("run")

    log = os.path.join(logdir, f"sysbench-{srv['name']}-{transport}-run{run_no}.log")
    m = run_measured(cmd, srv["pid"], args.duration + 60, log_path=log)
    rec = {
        "server": srv["name"], "transport": transport, "run": run_no,
        "threads": args.threads, "duration_s": args.duration,
        "rc": m["rc"], "timed_out": m["timed_out"], "server_alive": m["server_alive"],
        "wall_s": m["wall_s"],
    }
    rec.update(parse_sysbench(m["out"]))
    rec.pop("queries", None)
    for k in ("server_cpu_s", "client_cpu_s", "machine_busy_s", "softirq_s", "other_cpu_s", "other_cpu_frac"):
        rec[k] = m[k]
    ev = rec["events"] or 0
    server_cpu, client_cpu = m["server_cpu_s"], m["client_cpu_s"]
    ok = m["rc"] == 0 and ev > 0 and m["server_alive"] and not rec["fatal"]
    rec["ok"] = ok
    if ev > 0 and rec["total_time"]:
        rec["conn_per_s"] = round(ev / rec["total_time"], 1)
        rec["server_us_per_conn"] = round(server_cpu / ev * 1e6, 2)
        rec["client_us_per_conn"] = round(client_cpu / ev * 1e6, 2)
        rec["total_us_per_conn"] = round((server_cpu + client_cpu) / ev * 1e6, 2)
    else:
        rec["conn_per_s"] = rec["server_us_per_conn"] = rec["client_us_per_conn"] = None
        rec["total_us_per_conn"] = None
    return rec


# ---------------------------------------------------------------- idle RSS
def idle_rss(args, srv):
    """Open args.idle authenticated connections over TCP, hold them, read VmRSS."""
    import pymysql  # installed by connect.sh

    pid = srv["pid"]
    res = {"server": srv["name"], "idle_target": args.idle, "transport": "tcp"}

    def connect():
        return pymysql.connect(host=srv["host"], port=srv["port"], user=srv["user"],
                               password=srv["password"], autocommit=None,
                               ssl_disabled=True,  # plain connections, as sysbench uses
                               connect_timeout=10, read_timeout=30)

    # Warm-up: one full connection + query, so lazily initialised server state
    # is not charged to the idle connections.
    c = connect()
    with c.cursor() as cur:
        cur.execute("SELECT 1")
        cur.fetchall()
    c.close()
    time.sleep(1.0)
    res["rss_before_kib"] = proc_rss_kib(pid)
    res["threads_before"] = proc_threads(pid)
    conns, err = [], None
    t0 = time.monotonic()
    try:
        for _ in range(args.idle):
            conns.append(connect())
    except Exception as e:  # report how far it got
        err = f"{type(e).__name__}: {e}"
    res["open_s"] = round(time.monotonic() - t0, 2)
    res["held"] = len(conns)
    time.sleep(args.idle_settle)
    res["rss_with_idle_kib"] = proc_rss_kib(pid)
    res["threads_with_idle"] = proc_threads(pid)
    # Prove the connections are live, not half-open: ping a sample of them.
    pinged = 0
    for c in conns[:: max(1, len(conns) // 20)]:
        try:
            c.ping(reconnect=False)
            pinged += 1
        except Exception as e:
            err = err or f"ping: {type(e).__name__}: {e}"
    res["pinged_sample"] = pinged
    for c in conns:
        try:
            c.close()
        except Exception:
            pass
    time.sleep(1.0)
    res["rss_after_close_kib"] = proc_rss_kib(pid)
    res["error"] = err
    if conns:
        res["rss_per_conn_kib"] = round((res["rss_with_idle_kib"] - res["rss_before_kib"]) / len(conns), 2)
    else:
        res["rss_per_conn_kib"] = None
    return res


# ---------------------------------------------------------------- summary
def med_range(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None, None, None
    return statistics.median(vals), min(vals), max(vals)


def fmt_mr(vals, nd=1):
    m, lo, hi = med_range(vals)
    if m is None:
        return "n/a"
    if len([v for v in vals if v is not None]) == 1 or lo == hi:
        return f"{m:,.{nd}f}"
    return f"{m:,.{nd}f} ({lo:,.{nd}f}–{hi:,.{nd}f})"


def ratio(a, b, nd=2):
    if a is None or b is None or b == 0:
        return "n/a"
    return f"{a / b:.{nd}f}×"


def summarize(args, servers, runs, rss, meta):
    names = [n for n in ORDER if n in {s["name"] for s in servers}]
    avail = {s["name"]: s for s in servers}
    lines = []
    P = lines.append
    P(f"# Connection benchmark — {meta['started']}")
    P("")
    P(f"Each sysbench event = new connection + `SELECT 1` + disconnect; {args.threads} client threads, "
      f"{args.duration} s per run, {args.runs} run(s) per server × transport, servers alternated "
      f"(order rotated each run). Figures: median (min–max) over successful runs.")
    P("")
    P(f"Machine: {meta.get('machine', '')}  ")
    P(f"Versions: {meta.get('versions', '')}  ")
    P(f"Turnstile: {meta.get('turnstile_rev', 'n/a')}  ")
    if meta.get("mariadb_extra_opts"):
        P(f"MariaDB extra options: `{meta['mariadb_extra_opts']}`  ")
    P("")
    for n in names:
        s = avail[n]
        if not s.get("available"):
            P(f"**{LABEL[n]} not measured:** {s.get('note', '')}")
            P("")

    def pick(name, transport, key):
        return [r[key] for r in runs if r["server"] == name and r["transport"] == transport and r["ok"]]

    P("## Throughput and CPU per connection")
    P("")
    P("| server | transport | conn/s | server µs CPU/conn | client µs CPU/conn | total µs CPU/conn | p95 latency ms | ok runs | other CPU % |")
    P("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for t in args.transports:
        for n in names:
            if not avail[n].get("available"):
                continue
            allr = [r for r in runs if r["server"] == n and r["transport"] == t]
            okr = [r for r in allr if r["ok"]]
            other = med_range([r["other_cpu_frac"] * 100 for r in allr])[0]
            P(f"| {LABEL[n]} | {t} | {fmt_mr(pick(n, t, 'conn_per_s'), 0)} | "
              f"{fmt_mr(pick(n, t, 'server_us_per_conn'), 1)} | {fmt_mr(pick(n, t, 'client_us_per_conn'), 1)} | "
              f"{fmt_mr(pick(n, t, 'total_us_per_conn'), 1)} | "
              f"{fmt_mr(pick(n, t, 'lat_p95_ms'), 2)} | {len(okr)}/{len(allr)} | "
              f"{'n/a' if other is None else f'{other:.0f}'} |")
    P("")

    ours = [n for n in ("turnstile", "turnstile-pool") if n in names and avail[n].get("available")]
    if ours:
        P("## Ratios (medians)")
        P("")
        P("conn/s: higher is better for Turnstile; CPU/conn: lower is better. MariaDB runs "
          "one-thread-per-connection.")
        P("")
        P("| server | transport | metric | /MariaDB | /floor |")
        P("|---|---|---|---:|---:|")
        for n in ours:
            for t in args.transports:
                for key, label in (("conn_per_s", "conn/s"), ("server_us_per_conn", "server µs CPU/conn"),
                                   ("client_us_per_conn", "client µs CPU/conn"),
                                   ("total_us_per_conn", "total µs CPU/conn")):
                    tv = med_range(pick(n, t, key))[0]
                    mv = med_range(pick("mariadb", t, key))[0] if "mariadb" in names else None
                    fv = med_range(pick("floor", t, key))[0] if "floor" in names else None
                    P(f"| {LABEL[n]} | {t} | {label} | {ratio(tv, mv)} | {ratio(tv, fv)} |")
        P("")
    elif "mariadb" in names and "floor" in names:
        P("## Ratios (medians) — MariaDB/floor (Turnstile not measured)")
        P("")
        P("| transport | metric | MariaDB/floor |")
        P("|---|---|---:|")
        for t in args.transports:
            for key, label in (("conn_per_s", "conn/s"), ("server_us_per_conn", "server µs CPU/conn"),
                               ("client_us_per_conn", "client µs CPU/conn"),
                               ("total_us_per_conn", "total µs CPU/conn")):
                mv = med_range(pick("mariadb", t, key))[0]
                fv = med_range(pick("floor", t, key))[0]
                P(f"| {t} | {label} | {ratio(mv, fv)} |")
        P("")

    if rss:
        P(f"## RSS per idle connection ({args.idle} idle, authenticated TCP connections)")
        P("")
        P("| server | RSS before MiB | RSS with idle MiB | held | KiB per idle conn | threads before→with | after close MiB |")
        P("|---|---:|---:|---:|---:|---:|---:|")
        by = {r["server"]: r for r in rss}
        for n in names:
            r = by.get(n)
            if not r:
                continue
            if "rss_before_kib" not in r:
                P(f"| {LABEL[n]} | n/a | n/a | 0 | n/a | n/a | n/a |")
                continue
            per = "n/a" if r["rss_per_conn_kib"] is None else f"{r['rss_per_conn_kib']:.1f}"
            P(f"| {LABEL[n]} | {r['rss_before_kib'] / 1024:.1f} | {r['rss_with_idle_kib'] / 1024:.1f} | {r['held']} | "
              f"{per} | {r['threads_before']}→{r['threads_with_idle']} | {r['rss_after_close_kib'] / 1024:.1f} |")
        errs = [f"{LABEL[r['server']]}: {r['error']}" for r in rss if r.get("error")]
        parts = []
        for ours in ("turnstile", "turnstile-pool"):
            t = by.get(ours, {}).get("rss_per_conn_kib")
            if t is None:
                continue
            for n in ("mariadb", "floor"):
                v = by.get(n, {}).get("rss_per_conn_kib")
                if v is None:
                    continue
                if v < 1.0:  # the floor keeps no per-connection user memory: a ratio would be meaningless
                    note = f"{LABEL[n]} ≈ 0 KiB/conn (kernel socket memory is not in RSS)"
                    if note not in parts:
                        parts.append(note)
                else:
                    parts.append(f"{LABEL[ours]}/{LABEL[n]} = {ratio(t, v)}")
        if parts:
            P("")
            P("RSS ratios: " + ", ".join(parts))
        if errs:
            P("")
            P("Idle-connection errors: " + "; ".join(errs))
        P("")

    bad = [r for r in runs if not r["ok"]]
    if bad:
        P("## Failed runs")
        P("")
        for r in bad:
            P(f"- {r['server']} {r['transport']} run {r['run']}: rc={r['rc']} alive={r['server_alive']} "
              f"events={r['events']} {'; '.join(r['fatal'][:2])}")
        P("")
    P("Notes: server CPU/conn is the server process's utime+stime delta over the run (all threads, "
      f"{CLK_TCK} Hz ticks) divided by connections served; client CPU/conn is sysbench's own. "
      "'other CPU %' is machine-wide busy time not used by the server or sysbench, as a share of "
      "all cores over the run — a noise indicator on this shared machine. "
      "Raw per-run data: the JSON/CSV files next to this summary.")
    return "\n".join(lines) + "\n"


def main():
    # TERM (from connect.sh's cleanup) -> SystemExit, so subprocess.run kills a running sysbench.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--summarize", metavar="RESULTS.json",
                    help="only re-render the markdown summary of an earlier run's JSON to stdout")
    ap.add_argument("--config")
    ap.add_argument("--lua")
    ap.add_argument("--sysbench", default="sysbench")
    ap.add_argument("--duration", type=int, default=20)
    ap.add_argument("--threads", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--max-events", type=int, default=20_000_000)
    ap.add_argument("--transports", default="tcp,unix")
    ap.add_argument("--idle", type=int, default=1000, help="idle connections for the RSS test (0 = skip)")
    ap.add_argument("--idle-settle", type=float, default=2.0)
    ap.add_argument("--pause", type=float, default=2.0, help="seconds between runs")
    ap.add_argument("--out")
    ap.add_argument("--logdir")
    args = ap.parse_args()
    if args.summarize:
        with open(args.summarize) as f:
            doc = json.load(f)
        for k, v in doc["params"].items():
            setattr(args, k, v)
        sys.stdout.write(summarize(args, doc["servers"], doc["runs"], doc["idle_rss"], doc["meta"]))
        return 0
    if not (args.config and args.lua and args.out and args.logdir):
        ap.error("--config, --lua, --out and --logdir are required")
    args.transports = [t for t in args.transports.split(",") if t]

    with open(args.config) as f:
        cfg = json.load(f)
    servers = cfg["servers"]
    meta = cfg.get("meta", {})
    meta["started"] = dt.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    live = [s for s in servers if s.get("available")]
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.logdir, exist_ok=True)

    # 1. RSS per idle connection, on freshly started servers.
    rss = []
    if args.idle > 0:
        for s in live:
            print(f"[idle] {s['name']}: holding {args.idle} idle connections ...", flush=True)
            try:
                r = idle_rss(args, s)
            except Exception as e:
                r = {"server": s["name"], "error": f"{type(e).__name__}: {e}", "rss_per_conn_kib": None}
            rss.append(r)
            print(f"[idle] {s['name']}: {json.dumps(r)}", flush=True)

    # 2. Load runs: run-major, transport, then servers in an order rotated per run.
    runs = []
    total = args.runs * len(args.transports) * len(live)
    k = 0
    for run_no in range(1, args.runs + 1):
        rot = (run_no - 1) % max(1, len(live))
        order = live[rot:] + live[:rot]
        for t in args.transports:
            for s in order:
                k += 1
                if not alive(s["pid"]):
                    print(f"[{k}/{total}] {s['name']} {t} run {run_no}: server process gone, skipped", flush=True)
                    runs.append({"server": s["name"], "transport": t, "run": run_no, "ok": False, "rc": None,
                                 "server_alive": False, "events": None, "fatal": ["server not running"],
                                 "other_cpu_frac": 0.0})
                    continue
                if t == "unix" and not s.get("socket"):
                    continue
                time.sleep(args.pause)
                r = run_sysbench(args, s, t, run_no, args.logdir)
                runs.append(r)
                print(f"[{k}/{total}] {s['name']:9s} {t:4s} run {run_no}: "
                      f"{r['conn_per_s'] or 0:>9,.0f} conn/s  server {r['server_us_per_conn'] or 0:7.1f} µs/conn  "
                      f"client {r['client_us_per_conn'] or 0:7.1f} µs/conn  other-cpu {r['other_cpu_frac'] * 100:3.0f}%"
                      f"{'' if r['ok'] else '  FAILED ' + '; '.join(r['fatal'][:1])}", flush=True)

    # 3. Write results.
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = os.path.join(args.out, f"connect-{stamp}")
    doc = {"meta": meta, "params": {k: getattr(args, k) for k in
                                    ("duration", "threads", "runs", "max_events", "transports", "idle")},
           "servers": [{k: v for k, v in s.items() if k != "password"} for s in servers],
           "runs": runs, "idle_rss": rss}
    with open(base + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    cols = ["server", "transport", "run", "ok", "threads", "duration_s", "events", "total_time", "conn_per_s",
            "server_cpu_s", "client_cpu_s", "server_us_per_conn", "client_us_per_conn", "total_us_per_conn", "lat_avg_ms",
            "lat_p95_ms", "lat_max_ms", "errors", "machine_busy_s", "softirq_s", "other_cpu_s", "other_cpu_frac", "rc",
            "server_alive", "wall_s"]
    with open(base + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in runs:
            w.writerow(r)
    md = summarize(args, servers, runs, rss, meta)
    md += f"\nRaw data: `{os.path.basename(base)}.json`, `.csv` (next to this file).\n"
    with open(os.path.join(args.out, "connect-latest.md"), "w") as f:
        f.write(md)
    with open(os.path.join(args.out, "connect-latest.json"), "w") as f:
        json.dump(doc, f, indent=1)
    print()
    print(md)
    print(f"wrote {base}.json, {base}.csv, {os.path.join(args.out, 'connect-latest.md')}")
    return 0 if runs and all(r["ok"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
