#!/usr/bin/env python3
"""bench/lib/suite.py — the experiments of the benchmark suite (bench/run).

bench/run installs and builds what is missing, then runs this script, which

  * starts the servers it needs on private ports, data directories and
    sockets under a temp dir: Turnstile with both schedulers
    (--thread-handling one-thread-per-connection | pool-of-threads), MariaDB
    10.11 in both thread_handling modes, crates/floor (canned MySQL replies)
    and the load generator's raw socket floor;
  * runs the experiments of issue 5 §2 and issue 4's benchmarks (see
    EXPERIMENTS and bench/README.md), measuring for every run the throughput,
    the server's CPU per operation (utime+stime of the server process from
    /proc over the run / operations) and the client's (os.wait4 rusage);
  * stops everything it started (also on SIGTERM/SIGINT, and bench/run's trap
    kills whatever is listed in TMP/pids), removes the network namespace it
    created, and writes bench/results/suite-<stamp>.json and .csv; then
    bench/lib/report.py renders docs/benchmarks.md and docs/bench/*.png.

Measurement primitives (run_measured, parse_sysbench, /proc readers) come
from bench/lib/connect_bench.py, which bench/connect.sh also uses.

Every loop is bounded: sysbench by --time and a process timeout, the load
generator by its own --duration/--timeout/--hold, waits by deadlines.
"""

import argparse
import csv
import datetime as dt
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import connect_bench as cb  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")

# Order matters: the load curves (one run per point, the least "key" figures) go last and
# stop early, with a note, if the mode's time budget would be exceeded.
EXPERIMENTS = ["nonpersistent", "floor_loadgen", "persistent", "slow_readers", "storm",
               "instrumentation", "schedulers", "scale", "curves"]

LABELS = {
    "ts-thread": "Turnstile per-thread",
    "ts-pool": "Turnstile pool",
    "mdb-thread": "MariaDB one-thread-per-connection",
    "mdb-pool": "MariaDB pool-of-threads",
    "floor": "floor (crates/floor)",
    "rawfloor": "raw socket floor",
    "ts-stats-on": "Turnstile statistics=true",
    "ts-stats-off": "Turnstile statistics=false",
    "mdb-ps-off": "MariaDB performance_schema=OFF",
    "mdb-ps-on": "MariaDB performance_schema=ON",
}

TS_PW = "bench-root-pw"
MDB_USER, MDB_PW = "bench", "bench"
VETH_HOST, VETH_NS = "198.18.0.1", "198.18.0.2"  # RFC 2544 benchmarking range, on our own veth pair only


def log(msg):
    print(f"[suite {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ---------------------------------------------------------------- plans
def plan(mode):
    """The experiment matrix. quick: reduced (≤ 5 min); full: everything (≤ 60 min)."""
    if mode == "quick":
        return {
            "runs": 3, "d_key": 2, "d_curve": 2, "pause": 0.2, "table_size": 10000, "budget_s": 285,
            "np_clients": [100], "np_runs_other": 1, "np_transports_3runs": ["tcp"], "np_transports": ["tcp", "unix"],
            "ps_threads": [16, 1000], "ps_runs": {16: 3, 1000: 1},
            "curve_workloads": ["oltp_read_only", "oltp_read_write"], "curve_threads": [16],
            "curve_transports": ["tcp"],
            "sched_threads": [16], "sched_runs": 1, "sched_workload": "oltp_read_only",
            "instr_runs": 1, "instr_workloads": ["connect"],
            "floor_runs": 1, "floor_servers": ["rawfloor", "floor", "ts-thread", "ts-pool", "mdb-thread", "mdb-pool"],
            "storm_clients": 10000, "storm_runs": 1, "storm_servers": ["ts-pool", "ts-thread", "mdb-pool", "mdb-thread"],
            "scale_levels": [0, 1000, 10000], "scale_servers": ["ts-pool", "mdb-pool"], "scale_runs": 1,
            "scale_thread_levels_max": 0,
            "slow_servers": ["ts-pool", "mdb-pool"], "slow_runs": 1, "slow_clients": 200,
        }
    return {
        "runs": 3, "d_key": 5, "d_curve": 3, "pause": 0.5, "table_size": 10000, "budget_s": 3480,
        "np_clients": [1, 16, 100, 256, 1000], "np_runs_other": 1, "np_transports_3runs": ["tcp", "unix"],
        "np_transports": ["tcp", "unix"],
        "ps_threads": [1, 16, 100, 1000], "ps_runs": {1: 3, 16: 3, 100: 3, 1000: 3},
        "curve_workloads": ["oltp_point_select", "oltp_read_only", "oltp_read_write"],
        "curve_threads": [1, 8, 64, 256, 1024], "curve_transports": ["tcp", "unix"],
        "sched_threads": [16, 256], "sched_runs": 3, "sched_workload": "oltp_read_only",
        "instr_runs": 3, "instr_workloads": ["connect", "oltp_point_select"],
        "floor_runs": 3, "floor_servers": ["rawfloor", "floor", "ts-thread", "ts-pool", "mdb-thread", "mdb-pool"],
        "storm_clients": 10000, "storm_runs": 3, "storm_servers": ["ts-pool", "ts-thread", "mdb-pool", "mdb-thread"],
        "scale_levels": [0, 1000, 10000, 19000], "scale_servers": ["ts-pool", "mdb-pool", "ts-thread", "mdb-thread"],
        "scale_runs": 3, "scale_thread_levels_max": 10000,
        "slow_servers": ["ts-pool", "ts-thread", "mdb-pool", "mdb-thread"], "slow_runs": 3, "slow_clients": 200,
    }


# ---------------------------------------------------------------- helpers
def sh(cmd, timeout=60, check=False, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({r.returncode}): {r.stderr.strip()[-400:]}")
    return r


def free_port(start):
    for p in range(start, start + 200):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", p))
                return p
            except OSError:
                continue
    raise RuntimeError(f"no free port near {start}")


def wait_for(pred, timeout, step=0.1):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if pred():
            return True
        time.sleep(step)
    return False


def proc_status(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def sockstat_tcp_mem_pages():
    try:
        with open("/proc/net/sockstat") as f:
            for line in f:
                if line.startswith("TCP:"):
                    parts = line.split()
                    return int(parts[parts.index("mem") + 1])
    except (OSError, ValueError):
        return None
    return None


class Suite:
    def __init__(self, args):
        self.a = args
        self.p = plan(args.mode)
        if args.runs:  # one run count for everything (np_runs_other stays: non-key points)
            self.p["runs"] = args.runs
            for k in ("floor_runs", "storm_runs", "scale_runs", "slow_runs", "instr_runs", "sched_runs"):
                self.p[k] = args.runs
            self.p["ps_runs"] = {t: args.runs for t in self.p["ps_threads"]}
        self.tmp = args.tmp
        self.logdir = args.logdir
        os.makedirs(self.logdir, exist_ok=True)
        self.servers = {}      # name -> dict
        self.procs = []        # every Popen we started (servers and held load generators)
        self.records = []
        self.notes = []        # report notes (skips, misbehaviour)
        self.configs = {}      # name -> exact command line / variables
        self.engine = None
        self.engine_note = ""
        self.netns = None
        self.port_next = 14306
        self.t_start = time.monotonic()
        self.mdb_template = None
        self.ts_template = None
        self.misbehaviour = []

    # ------------------------------------------------------------ process tracking
    def track(self, p):
        """Remember a process we started; bench/run's trap reads TMP/pids ("pid starttime") and
        kills only a process whose start time still matches (pids are reused on a busy machine)."""
        self.procs.append(p)
        try:
            with open(f"/proc/{p.pid}/stat") as f:
                start = f.read().rsplit(")", 1)[1].split()[19]
        except (OSError, IndexError):
            start = "?"
        with open(os.path.join(self.tmp, "pids"), "a") as f:
            f.write(f"{p.pid} {start}\n")

    def fresh_log(self, fname):
        """A log path in the log dir that no earlier instance used (restarts keep both logs)."""
        base, ext = os.path.splitext(fname)
        path, k = os.path.join(self.logdir, fname), 2
        while os.path.exists(path):
            path = os.path.join(self.logdir, f"{base}-{k}{ext}")
            k += 1
        return path

    def next_port(self):
        p = free_port(self.port_next)
        self.port_next = p + 1
        return p

    def note(self, msg):
        log("NOTE: " + msg)
        self.notes.append(msg)

    # ------------------------------------------------------------ engine choice
    def choose_engine(self):
        want = self.a.engine
        helptext = sh([self.a.turnstile, "--help"], timeout=30).stdout
        has_sqlite = '"sqlite"' in helptext or "sqlite" in helptext.split("--engine", 1)[-1][:300]
        if want in ("auto", "sqlite"):
            if not has_sqlite:
                if want == "sqlite":
                    raise SystemExit("--engine sqlite: this Turnstile binary has no sqlite engine")
                self.engine = "blackhole"
                self.engine_note = ("`turnstile --help` lists no sqlite engine: Turnstile runs `--engine blackhole` "
                                    "and MariaDB uses its BLACKHOLE engine for sbtest1 (connection layer only).")
                return
            ok, why = self.smoke_sqlite()
            if ok:
                self.engine = "sqlite"
                self.engine_note = ("Real engines: Turnstile `--engine sqlite` (the embedded SQL engine) vs MariaDB "
                                    "InnoDB, sbtest1 with the rows sysbench prepares.")
            elif want == "sqlite":
                raise SystemExit(f"--engine sqlite: smoke test failed: {why}")
            else:
                self.engine = "blackhole"
                self.engine_note = (f"The sqlite engine is in the binary but failed the smoke test ({why}); "
                                    "Turnstile runs `--engine blackhole` and MariaDB BLACKHOLE.")
                self.misbehaviour.append(f"sqlite smoke test failed: {why}")
        else:
            self.engine = "blackhole"
            self.engine_note = ("`--engine blackhole` requested: Turnstile's blackhole engine vs MariaDB's BLACKHOLE "
                                "engine (connection layer only; selects return no rows).")

    def smoke_sqlite(self):
        """Start a throw-away sqlite Turnstile: create, insert, select a row back."""
        d = os.path.join(self.tmp, "smoke")
        os.makedirs(d, exist_ok=True)
        try:
            s = self.start_turnstile("smoke", "one-thread-per-connection", engine="sqlite", datadir=os.path.join(d, "data"),
                                     template=False, record=False)
        except Exception as e:
            return False, f"start: {e}"
        try:
            r = self.mysql(s, "CREATE DATABASE IF NOT EXISTS smoke; CREATE TABLE smoke.t (id INT PRIMARY KEY, c CHAR(10)); "
                              "INSERT INTO smoke.t VALUES (1,'x'),(2,'y'); SELECT c FROM smoke.t WHERE id=2;")
            if r.returncode != 0 or r.stdout.strip().splitlines()[-1:] != ["y"]:
                return False, f"got {r.stdout.strip()!r} {r.stderr.strip()[-200:]!r}"
            return True, ""
        finally:
            self.stop(s["name"])

    # ------------------------------------------------------------ clients
    def mysql(self, s, sql, timeout=60):
        cmd = [self.a.mysql, "--no-defaults", "--connect-timeout=10", "-N", "-B", f"-u{s['user']}",
               f"-p{s['password']}"]
        if s.get("socket"):
            cmd += ["-S", s["socket"]]
        else:
            cmd += [f"-h{s['host']}", f"-P{s['port']}"]
        return sh(cmd + ["-e", sql], timeout=timeout)

    # ------------------------------------------------------------ servers
    def start_turnstile(self, name, sched, engine=None, statistics=True, bind="127.0.0.1", datadir=None,
                        template=True, record=True):
        engine = engine or self.engine
        d = os.path.join(self.tmp, name)
        os.makedirs(d, exist_ok=True)
        if datadir is None:
            datadir = os.path.join(d, "data")
            shutil.rmtree(datadir, ignore_errors=True)  # a restart (curves) starts from the template again
            if template and self.ts_template:
                shutil.copytree(self.ts_template, datadir, symlinks=True)
        port, admin = self.next_port(), self.next_port()
        sock = os.path.join(d, "turnstile.sock")
        cmd = [self.a.turnstile, "--port", str(port), "--admin-port", str(admin), "--bind-address", bind,
               "--socket", sock, "--datadir", datadir, "--engine", engine,
               "--thread-handling", sched, "--max-connections", "19900", "--thread-cache-size", "256",
               "--back-log", "4096", "--statistics", "true" if statistics else "false",
               "--root-password", TS_PW, "--log-level", "warn"]
        errlog = self.fresh_log(f"{name}.log")
        p = subprocess.Popen(cmd, stdout=open(self.fresh_log(f"{name}-stdout.log"), "w"),
                             stderr=open(errlog, "w"), start_new_session=True)
        self.track(p)

        def ready():
            try:
                return "turnstile ready:" in open(errlog).read()
            except OSError:
                return False
        if not wait_for(lambda: ready() or p.poll() is not None, 30) or p.poll() is not None:
            tail = open(errlog).read()[-500:]
            raise RuntimeError(f"turnstile {name} did not start (exit {p.poll()}): {tail}")
        s = {"name": name, "kind": "turnstile", "pid": p.pid, "proc": p, "host": bind, "port": port,
             "socket": sock, "user": "root", "password": TS_PW, "sched": sched}
        self.servers[name] = s
        if record:
            self.configs[name] = {"command": " ".join(cmd).replace(TS_PW, "***")}
        return s

    def mariadb_template(self):
        """One datadir (install-db, users, sbtest prepared), copied for every instance."""
        if self.mdb_template:
            return self.mdb_template
        d = os.path.join(self.tmp, "mdb-template")
        os.makedirs(d, exist_ok=True)
        data = os.path.join(d, "data")
        log("initialising the MariaDB template datadir")
        r = sh(["mariadb-install-db", "--no-defaults", "--user=root", f"--datadir={data}",
                "--auth-root-authentication-method=normal", "--skip-test-db"], timeout=180)
        if r.returncode != 0:
            raise RuntimeError(f"mariadb-install-db failed: {r.stderr[-400:]}")
        self.mdb_template = data
        s = self.start_mariadb("mdb-template", "one-thread-per-connection", record=False, copy=False, datadir=data,
                               setup=True)
        self.prepare_tables(s)
        self.stop("mdb-template")
        return data

    def start_mariadb(self, name, sched, perf_schema=False, bind="127.0.0.1", record=True, copy=True, datadir=None,
                      setup=False):
        d = os.path.join(self.tmp, name)
        os.makedirs(d, exist_ok=True)
        if datadir is None:
            datadir = os.path.join(d, "data")
            shutil.rmtree(datadir, ignore_errors=True)  # a restart (curves) starts from the template again
            if copy:
                shutil.copytree(self.mariadb_template(), datadir, symlinks=True)
        port = self.next_port()
        sock = os.path.join(d, "mariadb.sock")
        # --log-error appends: a restarted instance gets a new file, so "ready for connections"
        # is never read from the previous instance's log
        errlog = self.fresh_log(f"{name}-error.log")
        cmd = ["mariadbd", "--no-defaults", "--user=root", f"--datadir={datadir}", f"--port={port}",
               f"--bind-address={bind}", f"--socket={sock}", f"--pid-file={d}/mariadb.pid",
               f"--log-error={errlog}", f"--tmpdir={d}",
               f"--thread-handling={sched}", f"--performance-schema={'ON' if perf_schema else 'OFF'}",
               "--max-connections=19500", "--open-files-limit=20000", "--table-open-cache=400",
               "--thread-cache-size=256", "--back-log=4096", "--skip-name-resolve", "--skip-log-bin",
               "--innodb-buffer-pool-size=256M", "--plugin-load-add=ha_blackhole"]
        p = subprocess.Popen(cmd, stdout=open(self.fresh_log(f"{name}-stdout.log"), "w"),
                             stderr=subprocess.STDOUT, start_new_session=True)
        self.track(p)

        def ready():
            try:
                return "ready for connections" in open(errlog).read()
            except OSError:
                return False
        if not wait_for(lambda: ready() or p.poll() is not None, 90) or p.poll() is not None:
            tail = open(errlog).read()[-600:] if os.path.exists(errlog) else ""
            raise RuntimeError(f"mariadbd {name} did not start: {tail}")
        s = {"name": name, "kind": "mariadb", "pid": p.pid, "proc": p, "host": bind, "port": port,
             "socket": sock, "user": MDB_USER, "password": MDB_PW, "sched": sched}
        self.servers[name] = s
        if setup:
            root = dict(s, user="root", password="")
            r = self.mysql(root, f"""
                CREATE USER IF NOT EXISTS '{MDB_USER}'@'%' IDENTIFIED BY '{MDB_PW}';
                CREATE USER IF NOT EXISTS '{MDB_USER}'@'localhost' IDENTIFIED BY '{MDB_PW}';
                GRANT ALL PRIVILEGES ON *.* TO '{MDB_USER}'@'%' WITH GRANT OPTION;
                GRANT ALL PRIVILEGES ON *.* TO '{MDB_USER}'@'localhost' WITH GRANT OPTION;
                FLUSH PRIVILEGES;""")
            if r.returncode != 0:
                raise RuntimeError(f"creating the bench user failed: {r.stderr}")
        if record:
            keys = ("thread_handling", "thread_pool_size", "thread_pool_max_threads", "thread_pool_oversubscribe",
                    "thread_pool_stall_limit", "max_connections", "open_files_limit", "performance_schema",
                    "innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "max_allowed_packet",
                    "net_write_timeout", "thread_cache_size", "back_log", "table_open_cache", "version")
            r = self.mysql(s, "SHOW GLOBAL VARIABLES WHERE Variable_name IN (%s)" % ",".join(f"'{k}'" for k in keys))
            vars_ = dict(line.split("\t", 1) for line in r.stdout.strip().splitlines() if "\t" in line)
            self.configs[name] = {"command": " ".join(cmd), "variables": vars_}
            if vars_.get("max_connections") and int(vars_["max_connections"]) < 19500:
                self.note(f"{name}: MariaDB lowered max_connections to {vars_['max_connections']} (open-files limit)")
        return s

    def start_floor(self):
        port = self.next_port()
        sock = os.path.join(self.tmp, "floor.sock")
        cmd = [self.a.floor, "--port", str(port), "--socket", sock]
        errlog = os.path.join(self.logdir, "floor.log")
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(errlog, "w"), start_new_session=True)
        self.track(p)
        if not wait_for(lambda: "floor ready" in open(errlog).read() or p.poll() is not None, 10) or p.poll() is not None:
            raise RuntimeError("floor did not start")
        s = {"name": "floor", "kind": "floor", "pid": p.pid, "proc": p, "host": "127.0.0.1", "port": port,
             "socket": sock, "user": "bench", "password": "bench", "sched": "epoll"}
        self.servers["floor"] = s
        self.configs["floor"] = {"command": " ".join(cmd)}
        return s

    def start_rawfloor(self):
        port = self.next_port()
        cmd = [self.a.loadgen, "floor-server", "--port", str(port), "--max-seconds", "3600"]
        errlog = os.path.join(self.logdir, "rawfloor.log")
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(errlog, "w"), start_new_session=True)
        self.track(p)
        if not wait_for(lambda: "rawfloor ready" in open(errlog).read() or p.poll() is not None, 10) or p.poll() is not None:
            raise RuntimeError("raw floor did not start")
        s = {"name": "rawfloor", "kind": "rawfloor", "pid": p.pid, "proc": p, "host": "127.0.0.1", "port": port,
             "socket": None, "user": "", "password": "", "sched": "epoll"}
        self.servers["rawfloor"] = s
        self.configs["rawfloor"] = {"command": " ".join(cmd)}
        return s

    def start(self, name, bind="127.0.0.1"):
        """Start one of the standard servers by name."""
        if name == "ts-thread":
            return self.start_turnstile(name, "one-thread-per-connection", bind=bind)
        if name == "ts-pool":
            return self.start_turnstile(name, "pool-of-threads", bind=bind)
        if name == "mdb-thread":
            return self.start_mariadb(name, "one-thread-per-connection", bind=bind)
        if name == "mdb-pool":
            return self.start_mariadb(name, "pool-of-threads", bind=bind)
        if name == "floor":
            return self.start_floor()
        if name == "rawfloor":
            return self.start_rawfloor()
        raise ValueError(name)

    def stop(self, name):
        s = self.servers.pop(name, None)
        if not s:
            return
        p = s["proc"]
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                log(f"{name} did not stop on TERM; killing")
                p.kill()
                p.wait(timeout=10)
        elif s["kind"] in ("turnstile", "mariadb") and name != "smoke":
            msg = f"{name} had exited by itself (status {p.returncode}) before the suite stopped it"
            self.misbehaviour.append(msg)
            self.note(msg)

    def stop_all(self):
        for n in list(self.servers):
            try:
                self.stop(n)
            except Exception as e:
                log(f"stopping {n}: {e}")
        for p in self.procs:
            if p.poll() is None:
                try:
                    p.kill()
                    p.wait(timeout=10)
                except Exception:
                    pass

    def alive_or_note(self, s, exp):
        if s["proc"].poll() is not None:
            msg = f"{s['name']} exited (status {s['proc'].returncode}) during {exp}; see {s['name']}.log"
            self.misbehaviour.append(msg)
            self.note(msg)
            return False
        return True

    # ------------------------------------------------------------ tables
    def prepare_tables(self, s):
        r = self.mysql(s, "CREATE DATABASE IF NOT EXISTS sbtest")
        if r.returncode != 0:
            raise RuntimeError(f"CREATE DATABASE on {s['name']}: {r.stderr}")
        cmd = ["sysbench", "oltp_common", "--db-driver=mysql", f"--mysql-user={s['user']}",
               f"--mysql-password={s['password']}", "--mysql-db=sbtest", f"--mysql-socket={s['socket']}",
               "--mysql-host=localhost", "--tables=1", f"--table-size={self.p['table_size']}"]
        if self.engine == "blackhole" and s["kind"] == "mariadb":
            cmd.append("--mysql-storage-engine=BLACKHOLE")
        r = sh(cmd + ["prepare"], timeout=300)
        if r.returncode != 0:
            raise RuntimeError(f"sysbench prepare on {s['name']}: {r.stdout[-400:]} {r.stderr[-400:]}")

    def turnstile_template(self):
        """A Turnstile datadir with root's password and sbtest prepared, copied per instance."""
        d = os.path.join(self.tmp, "ts-template")
        s = self.start_turnstile("ts-template", "one-thread-per-connection", datadir=os.path.join(d, "data"),
                                 template=False, record=False)
        try:
            self.prepare_tables(s)
        finally:
            self.stop("ts-template")
        self.ts_template = os.path.join(d, "data")
        for f in ("turnstile.lock", "lock", "LOCK"):
            fp = os.path.join(self.ts_template, f)
            if os.path.exists(fp):
                os.remove(fp)

    # ------------------------------------------------------------ measured runs
    def record(self, exp, s, m, ops, extra):
        ops = ops or 0
        rec = {"exp": exp, "server": s["name"], "kind": s["kind"], "ok": bool(m.get("ok", True)) and ops > 0,
               "ops": ops, "wall_s": m["wall_s"], "rc": m["rc"],
               "server_cpu_s": m["server_cpu_s"], "client_cpu_s": m["client_cpu_s"],
               "other_cpu_frac": m["other_cpu_frac"]}
        rec.update(extra)
        el = rec.get("elapsed_s") or m["wall_s"]
        if ops > 0:
            rec["ops_per_s"] = round(ops / el, 1) if el else None
            rec["server_us_per_op"] = round(m["server_cpu_s"] / ops * 1e6, 2)
            rec["client_us_per_op"] = round(m["client_cpu_s"] / ops * 1e6, 2)
            rec["total_us_per_op"] = round((m["server_cpu_s"] + m["client_cpu_s"]) / ops * 1e6, 2)
        else:
            rec["ops_per_s"] = rec["server_us_per_op"] = rec["client_us_per_op"] = rec["total_us_per_op"] = None
        self.records.append(rec)
        return rec

    def sysbench(self, exp, s, workload, threads, duration, transport="tcp", run=1, host=None, netns=None, extra=None):
        """One sysbench run. workload: 'connect' (bench/lua/connect_point_select.lua) or a built-in oltp_*."""
        time.sleep(self.p["pause"])
        script = os.path.join(BENCH, "lua", "connect_point_select.lua") if workload == "connect" else workload
        cmd = ["sysbench", script, "--db-driver=mysql", f"--threads={threads}", f"--time={duration}",
               "--events=0", "--report-interval=0", f"--mysql-user={s['user']}", f"--mysql-password={s['password']}",
               "--mysql-db=sbtest", f"--table-size={self.p['table_size']}"]
        if workload != "connect":
            cmd += ["--tables=1"]
        if transport == "unix":
            cmd += ["--mysql-host=localhost", f"--mysql-socket={s['socket']}"]
        else:
            cmd += [f"--mysql-host={host or s['host']}", f"--mysql-port={s['port']}"]
        cmd.append("run")
        if netns:
            cmd = ["ip", "netns", "exec", netns] + cmd
        tag = f"{exp}-{s['name']}-{workload}-{transport}-t{threads}-r{run}" + ("-remote" if netns else "")
        tag += "".join(f"-{k}{v}" for k, v in sorted((extra or {}).items())
                       if k in ("idle", "slow_clients", "clients", "location"))
        m = cb.run_measured(cmd, s["pid"], duration + 90, log_path=os.path.join(self.logdir, f"sb-{tag}.log"))
        sb = cb.parse_sysbench(m["out"])
        ev = int(sb["events"] or 0)
        m["ok"] = m["rc"] == 0 and ev > 0 and m["server_alive"] and not sb["fatal"]
        rec = {"workload": workload, "threads": threads, "transport": transport, "run": run, "duration_s": duration,
               "elapsed_s": sb["total_time"], "queries": sb["queries"], "lat_p95_ms": sb["lat_p95_ms"],
               "ignored_errors": sb["errors"], "fatal": "; ".join(sb["fatal"][:2])}
        rec.update(extra or {})
        r = self.record(exp, s, m, ev, rec)
        if not r["ok"]:
            log(f"  run failed: {tag}: rc={m['rc']} {rec['fatal'][:200]}")
            self.alive_or_note(s, exp)
        return r

    def loadgen_cmd(self, mode, s, *args):
        cmd = [self.a.loadgen, mode, "--port", str(s["port"]), "--user", s["user"], "--password", s["password"]]
        return cmd + [str(a) for a in args]

    # ------------------------------------------------------------ experiments
    def rotate(self, items, k):
        k %= max(1, len(items))
        return items[k:] + items[:k]

    def exp_nonpersistent(self):
        """Seeds 000/002: connect + one point select + disconnect at N clients, TCP and socket."""
        servers = [n for n in ("ts-thread", "ts-pool", "mdb-thread", "mdb-pool", "floor") if n in self.servers]
        runs = self.p["runs"]
        for clients in self.p["np_clients"]:
            for t in self.p["np_transports"]:
                n_runs = runs if (clients == 100 and t in self.p["np_transports_3runs"]) else self.p["np_runs_other"]
                for run in range(1, n_runs + 1):
                    for name in self.rotate(servers, run - 1):
                        s = self.servers[name]
                        r = self.sysbench("nonpersistent", s, "connect", clients, self.p["d_key"], t, run,
                                          extra={"clients": clients})
                        log(f"nonpersistent {name:10s} {t:4s} c={clients:<5d} run {run}: {r['ops_per_s'] or 0:>8.0f} conn/s "
                            f"server {r['server_us_per_op'] or 0:6.1f} µs/conn")

    def exp_floor_loadgen(self):
        """The raw socket floor vs every server under the Rust load generator (connect loop, 100 threads)."""
        names = [n for n in self.p["floor_servers"] if n in self.servers]
        d = self.p["d_key"]
        for run in range(1, self.p["floor_runs"] + 1):
            for name in self.rotate(names, run - 1):
                s = self.servers[name]
                time.sleep(self.p["pause"])
                proto = "raw" if name == "rawfloor" else "mysql"
                cmd = self.loadgen_cmd("connect", s, "--protocol", proto, "--concurrency", 100, "--duration", d,
                                       "--query", "SELECT 1")
                m = cb.run_measured(cmd, s["pid"], d + 60,
                                    log_path=os.path.join(self.logdir, f"lg-floor-{name}-r{run}.log"))
                j = last_json(m["out"])
                m["ok"] = m["rc"] == 0 and j is not None and m["server_alive"]
                j = j or {}
                r = self.record("floor_loadgen", s, m, j.get("ops", 0), {
                    "run": run, "protocol": proto, "clients": 100, "elapsed_s": j.get("elapsed_s"),
                    "errors": j.get("error_count"), "error_kinds": json.dumps(j.get("errors", {})),
                    "lat_p50_ms": (j.get("latency") or {}).get("p50_ms"),
                    "lat_p99_ms": (j.get("latency") or {}).get("p99_ms")})
                log(f"floor_loadgen {name:10s} run {run}: {r['ops_per_s'] or 0:>8.0f} conn/s server "
                    f"{r['server_us_per_op'] or 0:6.1f} client {r['client_us_per_op'] or 0:6.1f} µs/conn")

    def exp_persistent(self):
        """Issue 4 benchmark 1: persistent point select at 1/16/100/1000 clients, the four schedulers, TCP."""
        servers = [n for n in ("ts-pool", "ts-thread", "mdb-pool", "mdb-thread") if n in self.servers]
        for threads in self.p["ps_threads"]:
            for run in range(1, self.p["ps_runs"].get(threads, 1) + 1):
                for name in self.rotate(servers, run - 1):
                    r = self.sysbench("persistent", self.servers[name], "oltp_point_select", threads, self.p["d_key"],
                                      "tcp", run)
                    log(f"persistent {name:10s} t={threads:<5d} run {run}: {r['ops_per_s'] or 0:>8.0f} tps "
                        f"server {r['server_us_per_op'] or 0:6.1f} µs/tx")

    def exp_curves(self):
        """Seed 001 style: TPS vs threads for point_select/read_only/read_write per transport (1 run per point)."""
        servers = [n for n in ("ts-pool", "ts-thread", "mdb-pool", "mdb-thread") if n in self.servers]
        for wl in self.p["curve_workloads"]:
            for t in self.p["curve_transports"]:
                for threads in self.p["curve_threads"]:
                    left = self.p["budget_s"] - (time.monotonic() - self.t_start)
                    if left < 4 * (self.p["d_curve"] + 2) + 10:
                        self.note(f"curves: stopped before {wl} {t} {threads} threads to stay within the "
                                  f"{self.a.mode} mode's time budget ({self.p['budget_s']} s); later points are missing")
                        return
                    for name in self.rotate(servers, threads):
                        r = self.sysbench("curves", self.servers[name], wl, threads, self.p["d_curve"], t, 1)
                        log(f"curves {wl:17s} {name:10s} {t:4s} t={threads:<5d}: {r['ops_per_s'] or 0:>8.0f} tps")

    def exp_slow_readers(self):
        """Issue 4 benchmark 3: 16 point-select clients with and without 200 slow readers."""
        names = [n for n in self.p["slow_servers"] if n in self.servers]
        d, runs, n_slow = self.p["d_key"], self.p["slow_runs"], self.p["slow_clients"]
        q = self.slow_query()
        for name in names:
            s = self.servers[name]
            chk = self.mysql(s, q.replace("SELECT ", "SELECT LENGTH(", 1) + ")")
            if chk.stdout.strip() != "4000000":
                self.note(f"slow_readers {name}: `{q}` does not return a 4,000,000-byte value here "
                          f"(got {chk.stdout.strip()!r} {chk.stderr.strip()[-200:]!r}); its slow-reader figures are suspect")
            for run in range(1, runs + 1):
                r = self.sysbench("slow_readers", s, "oltp_point_select", 16, d, "tcp", run,
                                  extra={"slow_clients": 0})
                log(f"slow_readers {name:10s} without slow run {run}: {r['ops_per_s'] or 0:>8.0f} tps")
            hold = runs * (d + 10) + 60
            cmd = self.loadgen_cmd("slow", s, "--clients", n_slow, "--query", q, "--rcvbuf", 65536,
                                   "--hold", hold, "--open-timeout", 60, "--sources", "127.0.0.20-127.0.0.23")
            h = self.spawn_holder(cmd, f"slow-{name}")
            ready = h.wait_ready(90)
            rss = proc_status(s["pid"], "VmRSS")
            thr = proc_status(s["pid"], "Threads")
            for run in range(1, runs + 1):
                r = self.sysbench("slow_readers", s, "oltp_point_select", 16, d, "tcp", run,
                                  extra={"slow_clients": n_slow, "slow_held": (ready or {}).get("held"),
                                         "server_rss_kib": rss, "server_threads": thr})
                log(f"slow_readers {name:10s} with {(ready or {}).get('held')} slow run {run}: "
                    f"{r['ops_per_s'] or 0:>8.0f} tps (server RSS {rss or 0:,} KiB, {thr} threads)")
            done = h.release(60)
            self.records.append({"exp": "slow_readers_meta", "server": name, "ready": ready, "done": done,
                                 "server_rss_kib": rss, "server_threads": thr})
            self.alive_or_note(s, "slow_readers")
            time.sleep(1.0)

    def slow_query(self):
        return "SELECT REPEAT('x', 4000000)"

    def exp_storm(self):
        """10,000 clients connecting at once: time until all are served, latency percentiles, errors by kind."""
        names = [n for n in self.p["storm_servers"] if n in self.servers]
        n = self.p["storm_clients"]
        for run in range(1, self.p["storm_runs"] + 1):
            for name in self.rotate(names, run - 1):
                s = self.servers[name]
                time.sleep(max(1.0, self.p["pause"]))
                cmd = self.loadgen_cmd("storm", s, "--clients", n, "--threads", 2, "--timeout", 60,
                                       "--sources", "127.0.0.1-127.0.0.8", "--query", "SELECT 1")
                m = cb.run_measured(cmd, s["pid"], 120, log_path=os.path.join(self.logdir, f"lg-storm-{name}-r{run}.log"))
                j = last_json(m["out"]) or {}
                m["ok"] = m["rc"] == 0 and bool(j) and m["server_alive"]
                lat = j.get("latency") or {}
                r = self.record("storm", s, m, j.get("served", 0), {
                    "run": run, "clients": n, "served": j.get("served"), "all_served": j.get("all_served"),
                    "elapsed_s": j.get("time_to_serve_all_s"), "time_to_serve_all_s": j.get("time_to_serve_all_s"),
                    "lat_p50_ms": lat.get("p50_ms"), "lat_p99_ms": lat.get("p99_ms"), "lat_p999_ms": lat.get("p999_ms"),
                    "lat_max_ms": lat.get("max_ms"), "errors": j.get("error_count"),
                    "error_kinds": json.dumps(j.get("errors", {}))})
                log(f"storm {name:10s} run {run}: served {j.get('served')}/{n} in {j.get('time_to_serve_all_s') or 0:.2f} s, "
                    f"p50 {lat.get('p50_ms')} p99 {lat.get('p99_ms')} p999 {lat.get('p999_ms')} ms, errors {j.get('errors')}")
                self.alive_or_note(s, "storm")

    def exp_instrumentation(self):
        """Turnstile statistics on/off; MariaDB performance_schema off/on (fresh per-thread servers)."""
        started = []
        try:
            started.append(self.start_turnstile("ts-stats-on", "one-thread-per-connection", statistics=True))
            started.append(self.start_turnstile("ts-stats-off", "one-thread-per-connection", statistics=False))
            started.append(self.start_mariadb("mdb-ps-off", "one-thread-per-connection", perf_schema=False))
            started.append(self.start_mariadb("mdb-ps-on", "one-thread-per-connection", perf_schema=True))
            names = [s["name"] for s in started]
            for wl in self.p["instr_workloads"]:
                threads = 100 if wl == "connect" else 16
                for run in range(1, self.p["instr_runs"] + 1):
                    for name in self.rotate(names, run - 1):
                        r = self.sysbench("instrumentation", self.servers[name], wl, threads, self.p["d_key"], "tcp", run)
                        log(f"instrumentation {name:13s} {wl} run {run}: {r['ops_per_s'] or 0:>8.0f}/s "
                            f"server {r['server_us_per_op'] or 0:6.1f} µs/op")
        finally:
            for s in started:
                self.stop(s["name"])

    # -------- network namespace for the "remote clients" runs
    def netns_up(self):
        tag = str(os.getpid() % 100000)
        ns, vh, vn = f"tsb{tag}", f"tsbh{tag}", f"tsbn{tag}"
        with open(os.path.join(self.tmp, "netns"), "w") as f:
            f.write(f"{ns} {vh}\n")
        steps = [["ip", "netns", "add", ns],
                 ["ip", "link", "add", vh, "type", "veth", "peer", "name", vn],
                 ["ip", "link", "set", vn, "netns", ns],
                 ["ip", "addr", "add", f"{VETH_HOST}/30", "dev", vh],
                 ["ip", "link", "set", vh, "up"],
                 ["ip", "netns", "exec", ns, "ip", "addr", "add", f"{VETH_NS}/30", "dev", vn],
                 ["ip", "netns", "exec", ns, "ip", "link", "set", vn, "up"],
                 ["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"]]
        for c in steps:
            r = sh(c, timeout=20)
            if r.returncode != 0:
                self.netns = (ns, vh)
                self.netns_down()
                return None, f"`{' '.join(c)}` failed: {r.stderr.strip()}"
        self.netns = (ns, vh)
        delay = self.a.netem_delay
        a = sh(["tc", "qdisc", "add", "dev", vh, "root", "netem", "delay", delay], timeout=20)
        b = sh(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", vn, "root", "netem", "delay", delay], timeout=20) \
            if a.returncode == 0 else a
        netem = a.returncode == 0 and b.returncode == 0
        why = "" if netem else (a.stderr.strip() or b.stderr.strip())
        # the namespace reaches the host end of the veth pair
        r = sh(["ip", "netns", "exec", ns, "ping", "-c", "1", "-W", "2", VETH_HOST], timeout=10) \
            if shutil.which("ping") else None
        if r is not None and r.returncode != 0:
            log("warning: ping across the veth pair failed (continuing; sysbench will tell)")
        return ns, ("" if netem else why)

    def netns_down(self):
        if not self.netns:
            return
        ns, vh = self.netns
        sh(["ip", "link", "del", vh], timeout=20)
        sh(["ip", "netns", "del", ns], timeout=20)
        self.netns = None

    def exp_schedulers(self):
        """Seed 004: the schedulers with co-located clients and with clients in a network namespace (veth + netem)."""
        if self.a.no_netns:
            self.note("schedulers local vs remote: skipped (--no-netns).")
            return
        ns, why = self.netns_up()
        if ns is None:
            self.note(f"schedulers local vs remote: SKIPPED — cannot create a network namespace with a veth pair here ({why}).")
            return
        if why:
            self.note(f"schedulers local vs remote: netem is not available in this kernel (`tc qdisc add ... netem` said: "
                      f"{why!r}), so the 'remote' clients reach the server through the network namespace and veth pair "
                      f"with NO added delay; the intended {self.a.netem_delay} each way could not be applied.")
            self.remote_delay = "none (netem unavailable)"
        else:
            self.remote_delay = f"{self.a.netem_delay} each way (netem)"
        started = []
        try:
            for n in ("ts-thread", "ts-pool", "mdb-thread", "mdb-pool"):
                name = n + "-veth"
                if n.startswith("ts"):
                    s = self.start_turnstile(name, "pool-of-threads" if n.endswith("pool") else "one-thread-per-connection",
                                             bind=VETH_HOST)
                else:
                    s = self.start_mariadb(name, "pool-of-threads" if n.endswith("pool") else "one-thread-per-connection",
                                           bind=VETH_HOST)
                s["base"] = n
                started.append(s)
            wl = self.p["sched_workload"]
            for threads in self.p["sched_threads"]:
                for run in range(1, self.p["sched_runs"] + 1):
                    for loc in ("local", "remote"):
                        for s in self.rotate(started, run - 1):
                            r = self.sysbench("schedulers", s, wl, threads, self.p["d_key"], "tcp", run, host=VETH_HOST,
                                              netns=ns if loc == "remote" else None,
                                              extra={"location": loc, "base": s["base"], "delay": self.remote_delay})
                            log(f"schedulers {s['base']:10s} {loc:6s} t={threads:<4d} run {run}: "
                                f"{r['ops_per_s'] or 0:>8.0f} tps server {r['server_us_per_op'] or 0:6.1f} µs/tx")
        finally:
            for s in started:
                self.stop(s["name"])
            self.netns_down()

    # -------- idle hordes held by load-generator processes
    def spawn_holder(self, cmd, tag):
        return Holder(self, cmd, tag)

    def exp_scale(self):
        """1,000 / 10,000 / 19,000 idle connections with 64 active clients: throughput, RSS, projection."""
        d, runs = self.p["d_key"], self.p["scale_runs"]
        for base in self.p["scale_servers"]:
            levels = list(self.p["scale_levels"])
            if base.endswith("thread"):
                cap = self.p["scale_thread_levels_max"]
                if cap == 0:
                    continue
                levels = [l for l in levels if l <= cap]
            name = base + "-scale"
            try:
                if base.startswith("ts"):
                    s = self.start_turnstile(name, "pool-of-threads" if base.endswith("pool") else "one-thread-per-connection")
                else:
                    s = self.start_mariadb(name, "pool-of-threads" if base.endswith("pool") else "one-thread-per-connection")
            except Exception as e:
                self.note(f"scale {base}: could not start a fresh server: {e}")
                continue
            s["base"] = base
            holders = []
            held = 0
            proc_i = 0
            try:
                # Warm the fresh server up with the same 64-client load (caches, pools, worker
                # threads), then take the baseline RSS: what the idle connections add is
                # measured against a server that has already served the active clients.
                self.sysbench("scale_warmup", s, "oltp_point_select", 64, 2, "tcp", 1, extra={"base": base})
                time.sleep(1.0)
                rss0 = proc_status(s["pid"], "VmRSS")
                for level in levels:
                    want = level - held
                    ok = True
                    while want > 0:
                        n = min(want, 5000)  # per-process fd limit is 20,000; stay well below
                        a, b = 2 + 2 * (proc_i % 60), 3 + 2 * (proc_i % 60)
                        cmd = self.loadgen_cmd("idle", s, "--clients", n, "--in-flight", 128, "--hold", 1800,
                                               "--open-timeout", 120, "--ping",
                                               "--sources", f"127.0.1.{a}-127.0.1.{b}")
                        h = self.spawn_holder(cmd, f"idle-{name}-{proc_i}")
                        proc_i += 1
                        holders.append(h)
                        rd = h.wait_ready(150)
                        got = (rd or {}).get("held", 0)
                        held += got
                        want -= n
                        if got < n:
                            ok = False
                            self.note(f"scale {base}: a load-generator process opened only {got} of {n} idle connections "
                                      f"(errors {json.dumps((rd or {}).get('errors'))})")
                            break
                    time.sleep(2.0)
                    rss = proc_status(s["pid"], "VmRSS")
                    thr = proc_status(s["pid"], "Threads")
                    sockmem = sockstat_tcp_mem_pages()
                    meta = {"exp": "scale_meta", "server": name, "base": base, "level": level, "held": held,
                            "server_rss_kib": rss, "server_rss0_kib": rss0, "server_threads": thr,
                            "tcp_mem_pages": sockmem,
                            "rss_per_idle_kib": round((rss - rss0) / held, 2) if (held and rss and rss0) else None}
                    self.records.append(meta)
                    log(f"scale {base:10s} idle={held:<6d} RSS {rss or 0:,} KiB ({meta['rss_per_idle_kib']} KiB/idle), "
                        f"{thr} threads")
                    if not self.alive_or_note(s, "scale"):
                        break
                    for run in range(1, runs + 1):
                        r = self.sysbench("scale", s, "oltp_point_select", 64, d, "tcp", run,
                                          extra={"idle": held, "level": level, "base": base, "server_rss_kib": rss})
                        log(f"scale {base:10s} idle={held:<6d} run {run}: {r['ops_per_s'] or 0:>8.0f} tps "
                            f"server {r['server_us_per_op'] or 0:6.1f} µs/tx")
                    if not ok:
                        break
            finally:
                alive_total = 0
                for h in holders:
                    done = h.release(90)
                    alive_total += (done or {}).get("alive_at_release") or 0
                self.records.append({"exp": "scale_meta", "server": name, "base": base, "level": "release",
                                     "held": held, "alive_at_release": alive_total})
                self.stop(name)

    # ------------------------------------------------------------ main
    def run(self):
        self.choose_engine()
        log(f"engine: {self.engine} — {self.engine_note}")
        only = set(self.a.only.split(",")) if self.a.only else set(EXPERIMENTS)
        skip = set(self.a.skip.split(",")) if self.a.skip else set()
        todo = [e for e in EXPERIMENTS if e in only and e not in skip]
        self.turnstile_template()
        base_needed = any(e in todo for e in ("nonpersistent", "floor_loadgen", "persistent",
                                              "slow_readers", "storm"))
        if base_needed:
            for n in ("ts-thread", "ts-pool", "mdb-thread", "mdb-pool", "floor", "rawfloor"):
                try:
                    self.start(n)
                except Exception as e:
                    self.note(f"{n} could not be started: {e}")
                    if n.startswith("ts"):
                        self.misbehaviour.append(f"{n} could not be started: {e}")
        for e in todo:
            if e == "curves" and not any(n in self.servers for n in ("ts-thread", "ts-pool", "mdb-thread", "mdb-pool")):
                for n in ("ts-thread", "ts-pool", "mdb-thread", "mdb-pool"):
                    try:
                        self.start(n)
                    except Exception as ex:
                        self.note(f"{n} could not be started: {ex}")
            if e in ("instrumentation", "schedulers", "scale") and any(
                    n in self.servers for n in ("ts-thread", "ts-pool", "mdb-thread", "mdb-pool", "floor", "rawfloor")):
                # the base servers are done with; free their memory and threads first
                for n in ("ts-thread", "ts-pool", "mdb-thread", "mdb-pool", "floor", "rawfloor"):
                    self.stop(n)
            t0 = time.monotonic()
            log(f"=== {e}")
            try:
                getattr(self, "exp_" + e)()
            except Exception as ex:
                import traceback
                traceback.print_exc()
                self.note(f"experiment {e} aborted: {type(ex).__name__}: {ex}")
            self.records.append({"exp": "timing", "server": "-", "experiment": e,
                                 "seconds": round(time.monotonic() - t0, 1)})
        return todo


class Holder:
    """A load-generator process holding connections (idle or slow) until released."""

    def __init__(self, suite, cmd, tag):
        self.suite = suite
        self.out_path = os.path.join(suite.logdir, f"lg-{tag}.log")
        self.out = open(self.out_path, "w")
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=self.out, stderr=subprocess.STDOUT,
                                  start_new_session=True)
        suite.track(self.p)

    def lines(self):
        try:
            return [json.loads(l) for l in open(self.out_path) if l.startswith("{")]
        except (OSError, ValueError):
            return []

    def wait_ready(self, timeout):
        ok = wait_for(lambda: any(j.get("event") == "ready" for j in self.lines()) or self.p.poll() is not None,
                      timeout, 0.1)
        for j in self.lines():
            if j.get("event") == "ready":
                return j
        if not ok:
            log(f"holder {self.out_path}: not ready after {timeout} s")
        else:
            log(f"holder {self.out_path}: exited: {open(self.out_path).read()[-300:]}")
        return None

    def release(self, timeout):
        try:
            self.p.stdin.close()
        except Exception:
            pass
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait(timeout=10)
        for j in self.lines():
            if j.get("event") == "done":
                return j
        return None


def last_json(out):
    for line in reversed(out.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    return None


# ---------------------------------------------------------------- machine facts
def machine_facts():
    def first(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
        except Exception:
            return "?"

    def sysctl(name):
        try:
            return " ".join(open("/proc/sys/" + name.replace(".", "/")).read().split())
        except OSError:
            return "?"
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    u = os.uname()
    return {
        "nproc": os.cpu_count(), "cpu_model": cpu, "kernel": f"{u.sysname} {u.release}", "memory": mem,
        "os": first(["sh", "-c", ". /etc/os-release; echo $PRETTY_NAME"]),
        "loadavg_start": " ".join(open("/proc/loadavg").read().split()[:3]),
        "sysctl": {k: sysctl(k) for k in ("net.core.somaxconn", "net.ipv4.tcp_tw_reuse", "net.ipv4.ip_local_port_range",
                                          "net.ipv4.tcp_max_syn_backlog", "kernel.pid_max", "fs.nr_open")},
        "nofile_limit": first(["sh", "-c", "ulimit -Hn"]),
        "mariadbd": first(["mariadbd", "--version"]),
        "sysbench": first(["sysbench", "--version"]),
        "python": platform.python_version(),
        "rustc": first(["rustc", "--version"]),
    }


def git_rev():
    def git(*a):
        try:
            return subprocess.run(["git", "-C", ROOT, *a], capture_output=True, text=True, timeout=10).stdout.strip()
        except Exception:
            return ""
    rev = git("rev-parse", "--short", "HEAD") or "no commit"
    dirty = git("status", "--porcelain", "--", "crates", ":!crates/floor", ":!crates/loadgen")
    return rev + (" + uncommitted changes under crates/" if dirty else "")


def main():
    ap = argparse.ArgumentParser(description="Turnstile benchmark suite (run through bench/run)")
    ap.add_argument("--mode", choices=["quick", "full"], default="quick")
    ap.add_argument("--engine", choices=["auto", "sqlite", "blackhole"], default="auto")
    ap.add_argument("--only", default="")
    ap.add_argument("--skip", default="")
    ap.add_argument("--runs", type=int, default=0)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--logdir", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--docs", required=True)
    ap.add_argument("--turnstile", required=True)
    ap.add_argument("--floor", required=True)
    ap.add_argument("--loadgen", required=True)
    ap.add_argument("--mysql", default=shutil.which("mysql") or shutil.which("mariadb") or "mysql")
    ap.add_argument("--netem-delay", default="100us")
    ap.add_argument("--no-netns", action="store_true")
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--command", default="bench/run")
    a = ap.parse_args()

    suite = Suite(a)

    def on_term(*_):
        raise SystemExit(143)
    signal.signal(signal.SIGTERM, on_term)
    started = dt.datetime.now()
    facts = machine_facts()
    todo = []
    rc = 0
    try:
        todo = suite.run()
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else 1
        suite.note(f"suite interrupted ({e.code}); results are partial")
    except KeyboardInterrupt:
        rc = 130
        suite.note("suite interrupted (Ctrl-C); results are partial")
    except Exception as e:
        import traceback
        traceback.print_exc()
        rc = 1
        suite.note(f"suite failed: {type(e).__name__}: {e}")
    finally:
        suite.stop_all()
        suite.netns_down()
    facts["loadavg_end"] = " ".join(open("/proc/loadavg").read().split()[:3])
    ended = dt.datetime.now()
    stamp = started.strftime("%Y%m%d-%H%M%S")
    doc = {
        "meta": {"mode": a.mode, "command": a.command, "started": started.strftime("%Y-%m-%d %H:%M:%S"),
                 "ended": ended.strftime("%Y-%m-%d %H:%M:%S"), "seconds": round((ended - started).total_seconds()),
                 "engine": suite.engine, "engine_note": suite.engine_note, "turnstile_rev": git_rev(),
                 "turnstile_bin": a.turnstile, "experiments": todo, "plan": suite.p, "machine": facts,
                 "remote_delay": getattr(suite, "remote_delay", None), "table_size": suite.p["table_size"]},
        "configs": suite.configs,
        "notes": suite.notes,
        "misbehaviour": suite.misbehaviour,
        "records": suite.records,
    }
    os.makedirs(a.results, exist_ok=True)
    base = os.path.join(a.results, f"suite-{stamp}")
    with open(base + ".json", "w") as f:
        json.dump(doc, f, indent=1, default=str)
    cols = []
    for r in suite.records:
        for k in r:
            if k not in cols and not isinstance(r[k], (dict, list)):
                cols.append(k)
    with open(base + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in suite.records:
            w.writerow({k: v for k, v in r.items() if not isinstance(v, (dict, list))})
    shutil.copyfile(base + ".json", os.path.join(a.results, "suite-latest.json"))
    log(f"wrote {base}.json and .csv ({len(suite.records)} records, {doc['meta']['seconds']} s)")
    if not a.no_report:
        import report
        report.render(doc, a.docs, os.path.relpath(base + ".json", ROOT))
        log(f"wrote {os.path.join(a.docs, 'benchmarks.md')} and plots in {os.path.join(a.docs, 'bench')}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
