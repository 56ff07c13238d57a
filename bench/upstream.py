#!/usr/bin/env python3
"""bench/upstream.py — Turnstile's upstream engine in front of MariaDB 10.11,
against MariaDB directly, in one run (issue #24's benchmarks).

Both servers start in their own session (setsid, as a service runs): a
private mariadbd (its own data directory and port, one-thread-per-connection,
max_connections 2000, sbtest1 with --table-size rows) and Turnstile with
`--engine upstream` in front of it. Every experiment alternates the two
targets, --runs rounds (3 by default), and reports per run and as medians:

  churn         connect + point select + disconnect (bench/lua/connect_point_select.lua),
                --churn-threads clients (100) over TCP: connections/s, server CPU per
                connection (Turnstile's own, MariaDB's), the backend's `Connections`
                growth during the run (0 is the target after warm-up; this script's
                status reads keep their connections open) and the most
                `Threads_connected` it had (sampled every 0.2 s; it counts Turnstile's
                monitor connection and the script's two status connections). A third
                target runs beside the two: Turnstile on its blackhole engine (own session,
                no backend), whose CPU per connection is Turnstile's connect, login and
                disconnect alone: through the upstream engine Turnstile spends that plus
                one relayed statement.
  point-select  persistent oltp_point_select (prepared statements) at 16, 100 and 1,000
                clients: queries/s, median latency (sysbench's 50th percentile), server
                CPU per query (Turnstile's own and MariaDB's). A third target runs beside
                the two: relay-floor (crates/floor/src/relay.rs, in its own session too),
                the least a proxy can do (bytes copied both ways, one backend connection
                per client, one thread): its CPU per query is what the kernel charges any
                proxy on this machine, the floor under Turnstile's.
  idle          --idle-clients (10,000) client connections held open through Turnstile
                (crates/loadgen idle) while 16 clients run point selects: their QPS, the
                backend connections used and Turnstile's RSS.

Beside every Turnstile figure: backend connections open, the multiplexing
ratio (statements per backend connection lent for one statement, from
SHOW STATUS Upstream_statements_multiplexed / Upstream_statements) and the
pins by reason (Upstream_pins_total_*).

    python3 bench/upstream.py                      # everything, ~8 min
    python3 bench/upstream.py --only churn --runs 5
Writes bench/results/upstream-<stamp>.md (and prints it).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TICK = os.sysconf("SC_CLK_TCK")
PW = "bench-pw"


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def mysql(port, sql, user="root", password=PW):
    out = subprocess.run(["mysql", "--no-defaults", "-h127.0.0.1", f"-P{port}", f"-u{user}", f"-p{password}", "-N", "-B", "-e", sql],
                         capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise RuntimeError(f"{sql}: {out.stderr}")
    return out.stdout


_STATUS_CONNS = {}


def status(port, like, user="root"):
    """SHOW GLOBAL STATUS over one connection kept per port (and thread), so
    reading the backend's `Connections` does not itself add connections."""
    import pymysql

    key = (port, threading.get_ident())
    c = _STATUS_CONNS.get(key)
    if c is None:
        c = _STATUS_CONNS[key] = pymysql.connect(host="127.0.0.1", port=port, user=user, password=PW, autocommit=True)
    with c.cursor() as cur:
        cur.execute(f"SHOW GLOBAL STATUS LIKE '{like}'")
        return {k: str(v) for k, v in cur.fetchall()}


class MariaDB:
    def __init__(self, port):
        self.dir = tempfile.mkdtemp(prefix="ts-bench-mdb-")
        self.port = port
        self.proc = None

    def start(self, table_size, extra_args=()):
        data = os.path.join(self.dir, "data")
        subprocess.run(["mariadb-install-db", "--no-defaults", "--user=root", f"--datadir={data}", "--auth-root-authentication-method=normal", "--skip-test-db"],
                       check=True, capture_output=True, timeout=120)
        args = [shutil.which("mariadbd") or "/usr/sbin/mariadbd", "--no-defaults", "--user=root", f"--datadir={data}", f"--port={self.port}",
                "--bind-address=127.0.0.1", f"--socket={self.dir}/m.sock", f"--pid-file={self.dir}/m.pid", "--skip-log-bin",
                "--performance-schema=OFF", "--innodb-buffer-pool-size=128M", "--skip-name-resolve", "--max-connections=2000",
                "--max-prepared-stmt-count=1000000", f"--log-error={self.dir}/error.log", "--character-set-server=utf8mb4",
                "--collation-server=utf8mb4_general_ci", *extra_args]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.time() + 60
        while True:
            r = subprocess.run(["mysql", "--no-defaults", f"--socket={self.dir}/m.sock", "-uroot", "-e", "SELECT 1"], capture_output=True)
            if r.returncode == 0:
                break
            if time.time() > deadline:
                sys.exit("mariadbd did not start")
            time.sleep(0.3)
        setup = ";".join([
            f"CREATE USER 'root'@'%' IDENTIFIED BY '{PW}'", "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION",
            "DROP USER IF EXISTS 'root'@'127.0.0.1'", "DROP USER IF EXISTS 'root'@'::1'",
            "CREATE USER 'monitor'@'%' IDENTIFIED BY 'mon'", "GRANT SELECT ON mysql.user TO 'monitor'@'%'",
            "GRANT CONNECTION ADMIN ON *.* TO 'monitor'@'%'", "CREATE DATABASE sbtest",
            # A loopback client matches 'localhost' rows in Turnstile (as in MariaDB with name resolution).
            f"ALTER USER 'root'@'localhost' IDENTIFIED BY '{PW}'"])
        subprocess.run(["mysql", "--no-defaults", f"--socket={self.dir}/m.sock", "-uroot", "-e", setup], check=True)
        subprocess.run(["sysbench", "oltp_point_select", "--tables=1", f"--table-size={table_size}", "--mysql-host=127.0.0.1",
                        f"--mysql-port={self.port}", "--mysql-user=root", f"--mysql-password={PW}", "prepare"],
                       check=True, capture_output=True, timeout=600)
        return self

    def stop(self):
        if self.proc:
            self.proc.terminate()
            self.proc.wait(60)
        shutil.rmtree(self.dir, ignore_errors=True)


class Turnstile:
    """Turnstile in its own session, with `engine_args` (which engine, and its settings)."""

    def __init__(self, binary, port, engine_args):
        self.dir = tempfile.mkdtemp(prefix="ts-bench-up-")
        cmd = [binary, *engine_args, "--port", str(port), "--admin-port", "0", "--socket", f"{self.dir}/t.sock", "--datadir", f"{self.dir}/data",
               "--max-connections", "20000"]
        self.port = port
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
        deadline = time.time() + 30
        while time.time() < deadline:
            line = self.proc.stderr.readline()
            if "ready" in line:
                threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()
                return
            if not line and self.proc.poll() is not None:
                break
        sys.exit("turnstile did not start")

    def upstream_status(self):
        return status(self.port, "Upstream%")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(30)
        shutil.rmtree(self.dir, ignore_errors=True)


def upstream_turnstile(binary, port, backend_port, max_backend, flags=()):
    return Turnstile(binary, port, ["--engine", "upstream", "--upstream-servers", f"127.0.0.1:{backend_port}", "--upstream-user", "monitor",
                                    "--upstream-password", "mon", "--upstream-max-connections", str(max_backend), *flags])


def blackhole_turnstile(binary, port):
    """Turnstile on its blackhole engine: the connect path alone (the select is answered with nothing)."""
    ts = Turnstile(binary, port, ["--engine", "blackhole", "--root-password", PW])
    mysql(port, "CREATE DATABASE sbtest")
    return ts


class Relay:
    """relay-floor in front of MariaDB, in its own session."""

    def __init__(self, port, backend_port):
        binary = os.path.join(ROOT, "target/release/relay-floor")
        if not os.path.exists(binary):
            subprocess.run(["cargo", "build", "--release", "--manifest-path", "crates/floor/Cargo.toml", "--target-dir", "target"], check=True, cwd=ROOT)
        self.port = port
        self.proc = subprocess.Popen([binary, "--port", str(port), "--backend", f"127.0.0.1:{backend_port}"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True)
        if "ready" not in self.proc.stderr.readline():
            sys.exit("relay-floor did not start")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(30)


class Sampler:
    """The backend's Threads_connected, sampled until stopped: the most seen
    (its own status connection is one of them)."""

    def __init__(self, port):
        self.port, self.most, self.stop_flag = port, 0, False
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        while not self.stop_flag:
            try:
                self.most = max(self.most, int(status(self.port, "Threads_connected")["Threads_connected"]))
            except Exception:  # noqa: BLE001
                pass
            time.sleep(0.2)

    def stop(self):
        self.stop_flag = True
        self.t.join(5)
        c = _STATUS_CONNS.pop((self.port, self.t.ident), None)
        if c is not None:
            c.close()
        return self.most


def sysbench(cmd, duration):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 300)
    return out.stdout + out.stderr


def run_one(a, target, mdb, ts, workload, threads, relay=None, blackhole=None):
    proxy = {"turnstile": ts, "relay-floor": relay, "turnstile-blackhole": blackhole}.get(target)
    port = proxy.port if proxy else mdb.port
    conn = ["--mysql-host=127.0.0.1", f"--mysql-port={port}", "--mysql-user=root", f"--mysql-password={PW}", "--mysql-db=sbtest"]
    if workload == "churn":
        cmd = ["sysbench", os.path.join(HERE, "lua/connect_point_select.lua"), f"--threads={threads}", f"--time={a.duration}",
               f"--table-size={a.table_size}", *conn, "run"]
        pattern = r"total number of events:\s+(\d+)"
    else:
        cmd = ["sysbench", "oltp_point_select", "--tables=1", f"--table-size={a.table_size}", f"--threads={threads}",
               f"--time={a.duration}", "--percentile=50", *conn, "run"]
        pattern = r"queries:\s+(\d+)"
    sampler = Sampler(mdb.port)
    time.sleep(0.3)  # its connection is open before `Connections` is read
    before = status(mdb.port, "Connections")["Connections"]
    up0 = ts.upstream_status() if target == "turnstile" else None
    m0, t0c = cpu_seconds(mdb.proc.pid), cpu_seconds(proxy.proc.pid) if proxy else 0.0
    t0 = time.time()
    out = sysbench(cmd, a.duration)
    t1 = time.time()
    m1, t1c = cpu_seconds(mdb.proc.pid), cpu_seconds(proxy.proc.pid) if proxy else 0.0
    most = sampler.stop()
    after = status(mdb.port, "Connections")["Connections"]
    m = re.search(pattern, out)
    if not m or int(m.group(1)) == 0:
        return {"error": out[-800:]}
    ops = int(m.group(1))
    lat = re.search(r"50th percentile:\s+([\d.]+)", out)
    errors = re.search(r"ignored errors:\s+(\d+)", out)
    r = {"ops_s": ops / (t1 - t0), "backend_us": (m1 - m0) / ops * 1e6, "turnstile_us": (t1c - t0c) / ops * 1e6 if proxy else 0.0,
         "median_ms": float(lat.group(1)) if lat else None, "backend_new_connections": int(after) - int(before),
         "backend_threads_max": most, "errors": int(errors.group(1)) if errors else 0}
    if up0 is not None:
        up1 = ts.upstream_status()
        d = lambda k: int(up1.get(k, 0)) - int(up0.get(k, 0))  # noqa: E731
        r["backend_open"] = int(up1.get("Upstream_connections_open", 0))
        r["statements"] = d("Upstream_statements")
        r["multiplexed"] = d("Upstream_statements_multiplexed")
        r["pins"] = {k[len("Upstream_pins_total_"):]: d(k) for k in up1 if k.startswith("Upstream_pins_total_") and d(k)}
    return r


def idle_experiment(a, mdb, ts, loadgen):
    """--idle-clients held through Turnstile while 16 clients run point selects."""
    rss0 = rss_kib(ts.proc.pid)
    p = subprocess.Popen([loadgen, "idle", "--port", str(ts.port), "--clients", str(a.idle_clients), "--in-flight", "64", "--user", "root",
                          "--password", PW, "--hold", "600"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ready = None
    deadline = time.time() + 300
    while time.time() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        ev = json.loads(line)
        if ev.get("event") == "ready":
            ready = ev
            break
    rss1 = rss_kib(ts.proc.pid)
    r = run_one(a, "turnstile", mdb, ts, "point-select", 16)
    r["idle_ready"] = ready
    r["rss_per_idle_kib"] = (rss1 - rss0) / max(1, a.idle_clients)
    p.stdin.write("release\n")
    p.stdin.close()
    p.wait(120)
    return r


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, nd=1):
    return "-" if x is None else f"{x:,.{nd}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "target/release/turnstile"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=int, default=8)
    ap.add_argument("--table-size", type=int, default=10000)
    ap.add_argument("--churn-threads", type=int, default=100)
    ap.add_argument("--threads", default="16,100,1000", help="point-select client counts")
    ap.add_argument("--idle-clients", type=int, default=10000)
    ap.add_argument("--max-backend", type=int, default=32, help="--upstream-max-connections")
    ap.add_argument("--only", choices=["churn", "point-select", "idle"])
    ap.add_argument("--turnstile-flags", default="", help="more Turnstile flags, e.g. '--thread-handling one-thread-per-connection'")
    a = ap.parse_args()
    loadgen = os.path.join(ROOT, "target/release/turnstile-loadgen")
    if a.only in (None, "idle") and not os.path.exists(loadgen):
        subprocess.run(["cargo", "build", "--release", "-p", "turnstile-loadgen"], check=True, cwd=ROOT)
    mdb = MariaDB(45000 + os.getpid() % 1000).start(a.table_size)
    ts = upstream_turnstile(a.binary, 46000 + os.getpid() % 1000, mdb.port, a.max_backend, a.turnstile_flags.split())
    relay = Relay(47000 + os.getpid() % 1000, mdb.port) if a.only in (None, "point-select") else None
    blackhole = blackhole_turnstile(a.binary, 48000 + os.getpid() % 1000) if a.only in (None, "churn") else None
    results = {}
    try:
        # Warm-up: the pool opens its connections, MariaDB its buffer pool.
        run_one(argparse.Namespace(**{**vars(a), "duration": 2}), "turnstile", mdb, ts, "churn", a.churn_threads)
        plan = []
        if a.only in (None, "churn"):
            plan.append(("churn", a.churn_threads))
        if a.only in (None, "point-select"):
            plan += [("point-select", int(t)) for t in a.threads.split(",")]
        for workload, threads in plan:
            targets = ["turnstile", "mariadb"] + (["relay-floor"] if workload == "point-select" else ["turnstile-blackhole"])
            for i in range(a.runs):
                # Alternating: each run starts with the next target.
                for target in targets[i % len(targets):] + targets[:i % len(targets)]:
                    r = run_one(a, target, mdb, ts, workload, threads, relay, blackhole)
                    results.setdefault((workload, threads, target), []).append(r)
                    print(workload, threads, target, json.dumps(r), flush=True)
        if a.only in (None, "idle"):
            r = idle_experiment(a, mdb, ts, loadgen)
            results[("idle", 16, "turnstile")] = [r]
            print("idle", json.dumps(r), flush=True)
    finally:
        ts.stop()
        for extra in (relay, blackhole):
            if extra:
                extra.stop()
        mdb.stop()
    report(a, results)


def report(a, results):
    lines = [f"# Upstream engine vs MariaDB direct ({time.strftime('%Y-%m-%d %H:%M')})", "",
             f"`python3 bench/upstream.py --runs {a.runs} --duration {a.duration}{' --turnstile-flags=' + repr(a.turnstile_flags) if a.turnstile_flags else ''}`: MariaDB 10.11 (one thread per connection, "
             f"own session) and Turnstile `--engine upstream --upstream-max-connections {a.max_backend}` in front of it (own session); "
             f"sysbench 1.0.20 over TCP on this 2-core machine, the targets alternating, {a.runs} runs each; medians, with the runs' range. "
             "Point selects also through relay-floor (crates/floor/src/relay.rs, own session): bytes copied both ways over a backend connection per client, "
             "the least a proxy can do. Churn also against Turnstile on its blackhole engine (own session, no backend): its connect path alone.", "",
             "| workload | clients | target | ops/s | proxy µs CPU/op (Turnstile's or relay-floor's; the blackhole engine's for turnstile-blackhole) | MariaDB µs CPU/op | median latency ms | backend new connections | backend Threads_connected max | backend connections open | multiplexed / statements | pins |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (workload, threads, target), rs in results.items():
        ok = [r for r in rs if "error" not in r]
        if not ok:
            lines.append(f"| {workload} | {threads} | {target} | failed: {rs[0].get('error', '')[:80]!r} |")
            continue
        rng = lambda k, nd=1: f"{fmt(med([r[k] for r in ok]), nd)} ({fmt(min(r[k] for r in ok), nd)}–{fmt(max(r[k] for r in ok), nd)})"  # noqa: E731
        mux = f"{sum(r.get('multiplexed', 0) for r in ok):,} / {sum(r.get('statements', 0) for r in ok):,}" if target == "turnstile" else "-"
        pins = {}
        for r in ok:
            for k, v in r.get("pins", {}).items():
                pins[k] = pins.get(k, 0) + v
        lines.append(f"| {workload} | {threads} | {target} | {rng('ops_s', 0)} | {rng('turnstile_us') if target != 'mariadb' else '-'} | {rng('backend_us')} | "
                     f"{fmt(med([r['median_ms'] for r in ok]), 2)} | {max(r['backend_new_connections'] for r in ok)} | {max(r['backend_threads_max'] for r in ok)} | "
                     f"{max(r.get('backend_open', 0) for r in ok) if target == 'turnstile' else '-'} | {mux} | {', '.join(f'{k} {v}' for k, v in pins.items()) or 'none'} |")
        if workload == "idle":
            r = ok[0]
            lines.append("")
            lines.append(f"Idle: {a.idle_clients:,} client connections held through Turnstile ({json.dumps(r.get('idle_ready'))}), "
                         f"Turnstile RSS {fmt(r['rss_per_idle_kib'], 2)} KiB per idle connection, while 16 clients ran point selects at {fmt(r['ops_s'], 0)} QPS "
                         f"over at most {r.get('backend_open')} backend connections (backend Threads_connected max {r['backend_threads_max']}).")
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    path = os.path.join(HERE, "results", f"upstream-{time.strftime('%Y%m%d-%H%M%S')}.md")
    open(path, "w").write(text)
    print(text)
    print("written to", path)


if __name__ == "__main__":
    main()
