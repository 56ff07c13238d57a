#!/usr/bin/env python3
"""Start a turnstile (SQLite engine) for developing a client program by hand.

    python3 tests/clients/serve.py [--pool] [CLIENT-NAME]

prints the contract's environment (README.md) as `export` lines, for the
named client's database (default: the first client), and keeps the server up
until Ctrl-C.  Or run one client against it at once:

    python3 tests/clients/serve.py --run "PHP mysqli"
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pymysql  # noqa: E402

from clients import harness  # noqa: E402
from clients.registry import CLIENTS  # noqa: E402
from helpers.server import ROOT_PASSWORD, TurnstileServer  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("client", nargs="?", default=CLIENTS[0].name)
    ap.add_argument("--pool", action="store_true", help="thread_handling=pool-of-threads")
    ap.add_argument("--run", action="store_true", help="run the client once and exit")
    args = ap.parse_args()
    client = next((c for c in CLIENTS if c.name == args.client), None)
    if client is None:
        ap.error(f"unknown client {args.client!r}; known: {', '.join(c.name for c in CLIENTS)}")
    extra = ["--thread-handling", "pool-of-threads"] if args.pool else []
    srv = TurnstileServer(extra_args=extra, engine="sqlite").start()
    try:
        conn = pymysql.connect(host="127.0.0.1", port=srv.port, user="root", password=ROOT_PASSWORD, autocommit=True)

        def query(sql):
            with conn.cursor() as cur:
                cur.execute(sql)

        harness.prepare_accounts(query)
        env = harness.client_env(query, srv, client)
        if args.run:
            run = harness.run_client(client, env)
            print(json.dumps(run.as_json(), indent=2))
            if run.stderr:
                print("--- stderr ---\n" + run.stderr[-4000:], file=sys.stderr)
            return 0 if run.returncode == 0 and not run.failures() and not run.problems else 1
        for key in sorted(k for k in env if k.startswith("TS_")):
            print(f"export {key}='{env[key]}'")
        print(f"# root password: {ROOT_PASSWORD}; server log: {srv.log_path}", flush=True)
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0
    finally:
        srv.stop()
        srv.cleanup()


if __name__ == "__main__":
    sys.exit(main())
