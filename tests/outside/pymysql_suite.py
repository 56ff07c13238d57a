#!/usr/bin/env python3
"""PyMySQL's own test suite, run against Turnstile and against MariaDB 10.11
by the same script, side by side (issue #23: outside judges over our own).

The suite is PyMySQL's (third_party/PyMySQL: the driver and its
pymysql/tests from one commit, vendored because CI reaches only package
registries and the PyPI release carries no tests). Each server gets the setup
PyMySQL's CI gives MySQL (its ci/docker-entrypoint-initdb.d/init.sql through
the `mariadb` client, `SET GLOBAL local_infile=on`) and a databases.json
pointing at it: root over the Unix socket, `test2` over TCP. Turnstile runs
the sqlite engine under its default scheduler; MariaDB is a private mariadbd
(tests/helpers/mariadb.py). Both start in sessions of their own.

The verdict: every test MariaDB passes must pass on Turnstile, unless
tests/outside/pymysql_known.txt lists it with the reason it cannot (yet);
a listed test that passes now is an error too, so the list stays true.
Exit status 0 when that holds.

    python3 tests/outside/pymysql_suite.py               # run, compare, verdict
    python3 tests/outside/pymysql_suite.py --write-docs  # and rewrite the figures in docs/compatibility.md

Needs: target/release/turnstile (or TURNSTILE_BIN), mariadbd and
mariadb-install-db (Debian mariadb-server), the `mariadb` client, pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))

from helpers.mariadb import MariaDB  # noqa: E402
from helpers.server import ROOT_PASSWORD, TurnstileServer  # noqa: E402

VENDORED = os.path.join(ROOT, "third_party", "PyMySQL")
KNOWN = os.path.join(HERE, "pymysql_known.txt")
DOCS = os.path.join(ROOT, "docs", "compatibility.md")
MARK_START = "<!-- pymysql-suite:start (tests/outside/pymysql_suite.py --write-docs) -->"
MARK_END = "<!-- pymysql-suite:end -->"
# Seconds the whole suite may take against one server.
SUITE_TIMEOUT_S = 900


def read_known(path: str = KNOWN) -> dict[str, str]:
    """test id -> reason, from `id  # reason` lines."""
    known = {}
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        test, _, reason = line.partition("#")
        known[test.strip()] = reason.strip()
    return known


def setup_server(client_args: list[str]) -> None:
    """PyMySQL's CI setup: its init.sql (databases test1 and test2, user test2)."""
    init = os.path.join(VENDORED, "ci", "docker-entrypoint-initdb.d", "init.sql")
    with open(init, "rb") as f:
        subprocess.run(["mariadb", *client_args, "--comments"], stdin=f, check=True, timeout=60)
    # Turnstile has no LOAD DATA yet and answers this with an error; MariaDB needs it.
    subprocess.run(["mariadb", *client_args, "-e", "SET GLOBAL local_infile=on"], capture_output=True, timeout=60)


def run_suite(databases: list[dict], label: str, work: str) -> dict[str, str]:
    """Run the vendored suite against `databases`; test id -> passed/failed/skipped."""
    tree = os.path.join(work, label)
    shutil.copytree(VENDORED, tree)
    with open(os.path.join(tree, "pymysql", "tests", "databases.json"), "w") as f:
        json.dump(databases, f)
    xml = os.path.join(work, f"{label}.xml")
    # cwd first on sys.path: the vendored driver is the one imported, not the installed one.
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={xml}", "pymysql"], cwd=tree, timeout=SUITE_TIMEOUT_S, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return outcomes(xml)


def outcomes(xml: str) -> dict[str, str]:
    results = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        test = f"{case.get('classname')}::{case.get('name')}"
        kinds = {child.tag for child in case}
        results[test] = "failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed"
    return results


def run_turnstile(work: str) -> dict[str, str]:
    srv = TurnstileServer(engine="sqlite").start()
    try:
        setup_server(["--no-defaults", "-h127.0.0.1", f"-P{srv.port}", "-uroot", f"-p{ROOT_PASSWORD}"])
        return run_suite([
            {"host": "localhost", "unix_socket": srv.socket, "user": "root", "password": ROOT_PASSWORD, "database": "test1", "use_unicode": True, "local_infile": True},
            {"host": "127.0.0.1", "port": srv.port, "user": "test2", "password": "some password", "database": "test2"},
        ], "turnstile", work)
    finally:
        srv.stop()
        srv.cleanup()


def run_mariadb(work: str) -> tuple[dict[str, str], str]:
    m = MariaDB().start()
    try:
        version = m.connect().get_server_info()
        setup_server(m.client_args())
        return run_suite([
            {"host": "localhost", "unix_socket": m.socket, "user": "root", "password": "", "database": "test1", "use_unicode": True, "local_infile": True},
            {"host": "127.0.0.1", "port": m.port, "user": "test2", "password": "some password", "database": "test2"},
        ], "mariadb", work), version
    finally:
        m.stop()


def counts(results: dict[str, str]) -> dict[str, int]:
    return {k: sum(1 for v in results.values() if v == k) for k in ("passed", "failed", "skipped")}


def verdict(ts: dict[str, str], md: dict[str, str], known: dict[str, str]) -> list[str]:
    """What breaks the rule in the module header (empty: it holds)."""
    problems = []
    for test, outcome in sorted(md.items()):
        if outcome == "passed" and ts.get(test) != "passed" and test not in known:
            problems.append(f"passes on MariaDB, {ts.get(test, 'missing')} on Turnstile, not in {os.path.relpath(KNOWN, ROOT)}: {test}")
    for test in sorted(known):
        if ts.get(test) == "passed":
            problems.append(f"listed in {os.path.relpath(KNOWN, ROOT)} but passes now (remove it): {test}")
        elif test not in md:
            problems.append(f"listed in {os.path.relpath(KNOWN, ROOT)} but not in the suite: {test}")
    return problems


def docs_section(ts: dict[str, str], md: dict[str, str], version: str, known: dict[str, str]) -> str:
    t, m = counts(ts), counts(md)
    commit = open(os.path.join(VENDORED, "COMMIT")).read().strip()
    lines = [
        MARK_START,
        f"PyMySQL's own test suite (third_party/PyMySQL, commit {commit[:12]}), run by",
        "`python3 tests/outside/pymysql_suite.py` against both servers in one run (CI runs it on every change):",
        "",
        "| server | passed | failed | skipped |",
        "|---|---|---|---|",
        f"| Turnstile (sqlite engine, default scheduler) | {t['passed']} | {t['failed']} | {t['skipped']} |",
        f"| MariaDB {version} | {m['passed']} | {m['failed']} | {m['skipped']} |",
        "",
        "Tests MariaDB passes and Turnstile does not, each with its reason (tests/outside/pymysql_known.txt):",
        "",
    ]
    for test, reason in sorted(known.items()):
        lines.append(f"- `{test}`: {reason}")
    extra = sorted(test for test, o in ts.items() if o == "passed" and md.get(test) != "passed")
    if extra:
        lines += ["", "Tests Turnstile passes and MariaDB does not: " + ", ".join(f"`{x}`" for x in extra) + "."]
    lines.append(MARK_END)
    return "\n".join(lines)


def write_docs(section: str) -> None:
    text = open(DOCS, encoding="utf-8").read()
    pattern = re.compile(re.escape(MARK_START) + ".*?" + re.escape(MARK_END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{DOCS} has no {MARK_START} ... {MARK_END} section")
    open(DOCS, "w", encoding="utf-8").write(pattern.sub(lambda _: section, text))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write-docs", action="store_true", help="rewrite the figures in docs/compatibility.md")
    args = ap.parse_args()
    known = read_known()
    with tempfile.TemporaryDirectory(prefix="ts-pymysql-") as work:
        ts = run_turnstile(work)
        md, version = run_mariadb(work)
    print(f"pymysql suite: Turnstile {counts(ts)}; MariaDB {version} {counts(md)}")
    if args.write_docs:
        write_docs(docs_section(ts, md, version, known))
    problems = verdict(ts, md, known)
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
