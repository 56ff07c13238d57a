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

The verdict (tests/outside/common.py): every test MariaDB passes must pass on
Turnstile, unless tests/outside/pymysql_known.txt lists it with the reason it
cannot (yet); a listed test that passes now is an error too, so the list stays
true. Exit status 0 when that holds.

    python3 tests/outside/pymysql_suite.py               # run, compare, verdict
    python3 tests/outside/pymysql_suite.py --write-docs  # and rewrite the figures in docs/compatibility.md

Needs: target/release/turnstile (or TURNSTILE_BIN), mariadbd and
mariadb-install-db (Debian mariadb-server), the `mariadb` client, pytest.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
from helpers.server import ROOT_PASSWORD  # noqa: E402

VENDORED = os.path.join(common.ROOT, "third_party", "PyMySQL")
KNOWN = os.path.join(common.HERE, "pymysql_known.txt")
# Seconds the whole suite may take against one server.
SUITE_TIMEOUT_S = 900


def setup_server(client_args: list[str]) -> None:
    """PyMySQL's CI setup: its init.sql (databases test1 and test2, user test2)."""
    init = os.path.join(VENDORED, "ci", "docker-entrypoint-initdb.d", "init.sql")
    common.client(client_args, open(init, encoding="utf-8").read())
    # Turnstile's default is ON already (docs/configuration.md); MariaDB's test setup sets it.
    common.client(client_args, "SET GLOBAL local_infile=on")


def run_suite(databases: list[dict], label: str, work: str) -> dict[str, str]:
    """Run the vendored suite against `databases`; test id -> passed/failed/skipped."""
    tree = os.path.join(work, label)
    shutil.copytree(VENDORED, tree)
    with open(os.path.join(tree, "pymysql", "tests", "databases.json"), "w") as f:
        json.dump(databases, f)
    xml = os.path.join(work, f"{label}.xml")
    # cwd first on sys.path: the vendored driver is the one imported, not the installed one.
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={xml}", "pymysql"], cwd=tree, timeout=SUITE_TIMEOUT_S, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return common.junit_outcomes(xml)


def run_turnstile(work: str) -> dict[str, str]:
    with common.turnstile() as srv:
        setup_server(common.turnstile_client_args(srv))
        return run_suite([
            {"host": "localhost", "unix_socket": srv.socket, "user": "root", "password": ROOT_PASSWORD, "database": "test1", "use_unicode": True, "local_infile": True},
            {"host": "127.0.0.1", "port": srv.port, "user": "test2", "password": "some password", "database": "test2"},
        ], "turnstile", work)


def run_mariadb(work: str) -> tuple[dict[str, str], str]:
    with common.mariadb() as m:
        version = common.mariadb_version(m)
        setup_server(m.client_args())
        return run_suite([
            {"host": "localhost", "unix_socket": m.socket, "user": "root", "password": "", "database": "test1", "use_unicode": True, "local_infile": True},
            {"host": "127.0.0.1", "port": m.port, "user": "test2", "password": "some password", "database": "test2"},
        ], "mariadb", work), version


def docs(ts: dict[str, str], md: dict[str, str], version: str, known: dict[str, str]) -> list[str]:
    commit = open(os.path.join(VENDORED, "COMMIT")).read().strip()
    return [
        f"PyMySQL's own test suite (third_party/PyMySQL, commit {commit[:12]}), run by",
        "`python3 tests/outside/pymysql_suite.py` against both servers in one run (CI runs it on every change):",
        "",
        *common.count_table([("Turnstile (sqlite engine, default scheduler)", [common.counts(ts)]), (f"MariaDB {version}", [common.counts(md)])]),
        *common.known_lines(SUITE, ts, md, known),
    ]


SUITE = common.Suite(name="pymysql_suite", known=KNOWN, marker="pymysql-suite", run_turnstile=run_turnstile, run_mariadb=run_mariadb, docs=docs)


if __name__ == "__main__":
    sys.exit(common.main(SUITE, __doc__.split("\n\n")[0]))
