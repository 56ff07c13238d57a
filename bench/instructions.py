#!/usr/bin/env python3
"""bench/instructions.py — user-space instructions per operation, under callgrind.

Why: CPU time on this shared 2-core machine moves by ±10% from run to run, too
much to see a 3% change. Instructions executed by the server (valgrind's
callgrind, user space only: the kernel's share is not counted) are exact and
repeatable, so they judge a change to the server's own code. The server runs
the same sysbench load twice, N and 2N events with 4 client threads, and the
difference divided by N removes start-up and shutdown:

    bench/instructions.py --workload point-select target/release/turnstile
    bench/instructions.py --workload connect /tmp/old /tmp/new
    bench/instructions.py --workload point-select "target/release/turnstile:--thread-handling pool-of-threads"

Each argument is a turnstile binary, optionally followed by its own flags
after a colon (as in bench/ab.py).

Under valgrind the sha2 crate takes its software path (no SHA CPU extensions),
so caching_sha2_password's check costs ~6,900 of a connect's instructions
here and far fewer on the real CPU.

Workloads as in bench/ab.py (connect uses the blackhole engine; point-select
is sysbench's prepared oltp_point_select on a 10,000-row sbtest1). Needs
valgrind. Kernel work (system calls, TCP, scheduling) is not in these figures:
use bench/ab.py for CPU time.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab  # noqa: E402  (template data directory, workload commands)

HERE = os.path.dirname(os.path.abspath(__file__))


def instructions(binary, flags, workload, events, port, tmpl):
    d = tempfile.mkdtemp(prefix="turnstile-cg-")
    try:
        if tmpl:
            shutil.copytree(os.path.join(tmpl, "data"), os.path.join(d, "data"))
        out_file = os.path.join(d, "callgrind.out")
        engine = "blackhole" if workload == "connect" else "sqlite"
        p = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", binary, "--engine", engine,
                              "--port", str(port), "--admin-port", str(port + 1), "--socket", d + "/s.sock",
                              "--datadir", d + "/data", "--root-password", "pw", *flags],
                             stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 120
        while time.time() < deadline:
            line = p.stderr.readline()
            if "ready" in line:
                break
            if not line and p.poll() is not None:
                sys.exit(f"{binary} did not start under valgrind")
        common = ["--threads=4", f"--events={events}", "--time=0", "--mysql-host=127.0.0.1", f"--mysql-port={port}",
                  "--mysql-user=root", "--mysql-password=pw"]
        if workload == "connect":
            cmd = ["sysbench", os.path.join(HERE, "lua/connect_select1.lua"), *common, "--mysql-db=mysql", "run"]
        elif workload == "connect-point-select":
            cmd = ["sysbench", os.path.join(HERE, "lua/connect_point_select.lua"), *common, "--mysql-db=sbtest", "run"]
        else:
            cmd = ["sysbench", "oltp_point_select", "--tables=1", "--table-size=10000", *common, "run"]
        subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=True)
        p.terminate()
        p.wait(timeout=120)
        total = subprocess.run(["callgrind_annotate", out_file], capture_output=True, text=True).stdout
        m = re.search(r"([\d,]+)\s+\([^)]*\)\s+PROGRAM TOTALS", total)
        if not m:
            sys.exit("callgrind_annotate printed no total")
        return int(m.group(1).replace(",", ""))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binaries", nargs="+")
    ap.add_argument("--workload", choices=["connect", "connect-point-select", "point-select"], default="point-select")
    ap.add_argument("--events", type=int, default=None, help="N (default: 2,000 connects or 10,000 queries)")
    ap.add_argument("--port", type=int, default=14320)
    a = ap.parse_args()
    n = a.events or (10000 if a.workload == "point-select" else 2000)
    tmpl = None if a.workload == "connect" else ab.template(os.path.abspath(a.binaries[0].partition(":")[0]), a.port, 10000)
    for c in a.binaries:
        binary, _, flags = c.partition(":")
        binary = os.path.abspath(binary)
        one = instructions(binary, flags.split(), a.workload, n, a.port, tmpl)
        two = instructions(binary, flags.split(), a.workload, 2 * n, a.port, tmpl)
        print(f"{c:48s} {a.workload}: {(two - one) / n:,.0f} instructions per operation (N={n})", flush=True)


if __name__ == "__main__":
    main()
