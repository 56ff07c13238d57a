#!/usr/bin/env python3
"""go-sql-driver/mysql's own test suite (`go test` of the module, pinned at
v1.10.1), run against Turnstile and against MariaDB 10.11 by the same script,
side by side (issue #23: outside judges over our own).

The module comes from the Go module proxy (`go mod download` in
tests/clients/go, whose go.mod and go.sum pin the same version); its tests
are compiled once (`go test -c`, GOTOOLCHAIN=local) and the test binary runs
once per server under `go tool test2json`, configured as the driver's own CI
configures it: MYSQL_TEST_USER=gotest, MYSQL_TEST_PASS=secret, database
`gotest`, MYSQL_TEST_CONCURRENT=1, max_connections=50, max_allowed_packet=16M.
MariaDB also gets the rest of that CI's server setup (local_infile,
performance_schema) and a throwaway self-signed certificate, so its TLS tests
run. Every test and every subtest (`TestX/default`) is counted: each has its
own pass/fail/skip line. NOT_RUN lists the tests run on neither server, with
the reason. A test that panics takes the test binary down: it counts as
failed and the binary runs again for the tests it had not finished.
TURNSTILE_GO_SUITE_LOG_DIR=dir keeps the test2json logs of each run there.

The verdict (tests/outside/common.py): every test MariaDB passes passes on
Turnstile too, unless tests/outside/go_mysql_known.txt lists it, or a test
above it, with the reason it cannot (yet); a listed test that passes now is an
error too. Exit status 0 when that holds.

    python3 tests/outside/go_mysql_suite.py               # run, compare, verdict
    python3 tests/outside/go_mysql_suite.py --write-docs  # and rewrite the figures in docs/compatibility.md

Needs: target/release/turnstile (or TURNSTILE_BIN), the Go toolchain (`go` on
PATH or /usr/local/go/bin/go) and the module proxy (or a warm module cache),
mariadbd and mariadb-install-db (Debian mariadb-server), the `mariadb` client,
openssl.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402

MODULE = "github.com/go-sql-driver/mysql"
VERSION = "v1.10.1"
KNOWN = os.path.join(common.HERE, "go_mysql_known.txt")
PINNED = os.path.join(common.ROOT, "tests", "clients", "go")
# All runs of the test binary against one server, in seconds (go test's -timeout).
RUN_TIMEOUT_S = 150
# Crashes of the test binary (a test's panic) after which it runs again for the tests left.
MAX_CRASHES = 5
# The settings the driver's CI gives its server; Turnstile gets the same.
SERVER_ARGS = ("--max-connections=50", "--max-allowed-packet=16777216")
# Tests not run at all (`go test -skip`), with the reason; the docs section lists them.
NOT_RUN = {
    "TestConnectorReturnsTimeout": "dials 1.1.1.1:1234, a public address, to see a connect timeout, and uses no server: tests here send traffic to loopback only",
}
SETUP_SQL = """
CREATE DATABASE gotest;
CREATE USER gotest@'%' IDENTIFIED BY 'secret';
GRANT ALL ON *.* TO gotest@'%';
"""


def go_env() -> dict[str, str]:
    """The installed Go, never another one downloaded; modules exactly as the go.sum files pin them."""
    return {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=readonly"}


def go_binary() -> str:
    found = shutil.which("go") or "/usr/local/go/bin/go"
    if not os.access(found, os.X_OK):
        raise SystemExit("go_mysql_suite: no Go toolchain (go not on PATH, no /usr/local/go/bin/go)")
    return found


def download_module() -> str:
    """The module's directory in the module cache (read-only). Downloaded in
    tests/clients/go, whose go.mod requires this version and whose go.sum pins
    its hash, so Go checks it against that (scripts/test.sh has fetched it
    there already for the client suite)."""
    out = subprocess.run([go_binary(), "mod", "download", "-json", f"{MODULE}@{VERSION}"], cwd=PINNED, env=go_env(), capture_output=True, check=True, timeout=300)
    return json.loads(out.stdout)["Dir"]


def build_tests(work: str) -> None:
    """Copy the module to work/src (writable) and compile its tests once, to work/mysql.test."""
    src = os.path.join(work, "src")
    shutil.copytree(download_module(), src)
    for dirpath, _, files in os.walk(src):
        os.chmod(dirpath, os.stat(dirpath).st_mode | stat.S_IWUSR)
        for f in files:
            path = os.path.join(dirpath, f)
            os.chmod(path, os.stat(path).st_mode | stat.S_IWUSR)
    subprocess.run([go_binary(), "test", "-c", "-o", os.path.join(work, "mysql.test"), "."], cwd=src, env=go_env(), check=True, timeout=600)


def test_env(port: int) -> dict[str, str]:
    """The driver's MYSQL_TEST_* variables (driver_test.go), as its CI sets them."""
    return {
        **go_env(),
        "MYSQL_TEST_USER": "gotest",
        "MYSQL_TEST_PASS": "secret",
        "MYSQL_TEST_PROT": "tcp",
        "MYSQL_TEST_ADDR": f"127.0.0.1:{port}",
        "MYSQL_TEST_DBNAME": "gotest",
        "MYSQL_TEST_CONCURRENT": "1",
    }


def list_tests(work: str) -> list[str]:
    """The top-level tests (and fuzz seeds, examples) of the compiled suite, less NOT_RUN."""
    out = subprocess.run([os.path.join(work, "mysql.test"), "-test.list", "."], cwd=os.path.join(work, "src"), env=test_env(0), capture_output=True, text=True, check=True, timeout=60)
    return [t for t in out.stdout.split() if t[:1].isupper() and t not in NOT_RUN]


def run_tests(port: int, label: str, work: str) -> dict[str, str]:
    """Run the compiled suite against 127.0.0.1:port; test id -> passed/failed/skipped.

    A test that panics takes the test binary down with it (TestColumnsWithAlias calls
    the parent's Fatalf from a subtest when it fails): the test the panic is reported
    under counts as failed and the binary runs again for the top-level tests that had
    not finished. A timeout ends the run; what it cut short is missing.
    """
    results: dict[str, str] = {}
    pending = list_tests(work)
    deadline = time.monotonic() + RUN_TIMEOUT_S
    for attempt in range(MAX_CRASHES + 1):
        left_s = int(deadline - time.monotonic())
        if left_s <= 0:
            break
        log = os.path.join(work, f"{label}-{attempt}.json")
        cmd = [go_binary(), "tool", "test2json", "-t", os.path.join(work, "mysql.test"), "-test.v=test2json", f"-test.timeout={left_s}s", "-test.count=1", "-test.run=^(" + "|".join(pending) + ")$"]
        with open(log, "wb") as out:
            subprocess.run(cmd, cwd=os.path.join(work, "src"), env=test_env(port), stdout=out, stderr=subprocess.STDOUT, timeout=left_s + 60)
        if os.environ.get("TURNSTILE_GO_SUITE_LOG_DIR"):
            shutil.copy(log, os.environ["TURNSTILE_GO_SUITE_LOG_DIR"])
        outcome, panicked = outcomes(log)
        results.update(outcome)
        if panicked is None:
            break
        if panicked.startswith("timeout"):
            print(f"{label}: {panicked}")
            break
        results[panicked] = "failed"
        pending = [t for t in pending if t not in outcome and t != panicked]
        print(f"{label}: {panicked} panicked and took the test binary down; {len(pending)} tests left to run")
        if not pending:
            break
    return results


def outcomes(log: str) -> tuple[dict[str, str], str | None]:
    """Per test and subtest, its last pass/fail/skip event (a test a crash cut short has none),
    and the test a panic was reported under ("timeout: ..." for go test's own timeout)."""
    action = {"pass": "passed", "fail": "failed", "skip": "skipped"}
    results, panicked = {}, None
    for line in open(log, encoding="utf-8", errors="replace"):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        test = event.get("Test") or ""
        if test and event.get("Action") in action:
            results[test] = action[event["Action"]]
        elif event.get("Action") == "output" and event.get("Output", "").startswith("panic: ") and panicked is None:
            timeout = event["Output"].startswith("panic: test timed out")
            panicked = "timeout: " + event["Output"].strip() if timeout else test.split("/")[0] or "(no test)"
    return results, panicked


def run_turnstile(work: str) -> dict[str, str]:
    with common.turnstile(SERVER_ARGS) as srv:
        common.client(common.turnstile_client_args(srv), SETUP_SQL)
        return run_tests(srv.port, "turnstile", work)


def self_signed_cert(m) -> None:
    """A throwaway certificate for MariaDB's TLS (the driver's TLS tests skip-verify it)."""
    cert, key = os.path.join(m.dir, "cert.pem"), os.path.join(m.dir, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=ts-mariadb"], check=True, capture_output=True, timeout=60)
    m.extra_args += [f"--ssl-cert={cert}", f"--ssl-key={key}"]


def run_mariadb(work: str) -> tuple[dict[str, str], str]:
    extra = (*SERVER_ARGS, "--local-infile=1", "--performance-schema=ON")
    with common.mariadb(extra, prepare=self_signed_cert) as m:
        version = common.mariadb_version(m)
        common.client(m.client_args(), SETUP_SQL)
        return run_tests(m.port, "mariadb", work), version


def top_level(results: dict[str, str]) -> dict[str, str]:
    return {t: o for t, o in results.items() if "/" not in t}


def docs(ts: dict[str, str], md: dict[str, str], version: str, known: dict[str, str]) -> list[str]:
    rows = [
        ("Turnstile (sqlite engine, default scheduler)", [common.counts(ts), common.counts(top_level(ts))]),
        (f"MariaDB {version}", [common.counts(md), common.counts(top_level(md))]),
    ]
    return [
        f"go-sql-driver/mysql's own test suite (`go test` of {MODULE} {VERSION}, from the Go module proxy), run by",
        "`python3 tests/outside/go_mysql_suite.py` against both servers in one run (CI runs it on every change),",
        "with the driver's CI settings (MYSQL_TEST_CONCURRENT=1, max_connections=50, max_allowed_packet=16M).",
        "Every test and subtest counts once (the PASS/FAIL/SKIP lines of `go test -v`), and top-level tests alone:",
        "",
        *common.count_table(rows, ("", "top-level")),
        "",
        "Not run on either server (`go test -skip`, NOT_RUN in tests/outside/go_mysql_suite.py):",
        "",
        *(f"- `{test}`: {reason}" for test, reason in sorted(NOT_RUN.items())),
        *common.known_lines(SUITE, ts, md, known),
        "",
        "A listed test covers its subtests (`TestX` covers `TestX/default`); \"flaky:\" marks one that fails in some runs only.",
    ]


SUITE = common.Suite(name="go_mysql_suite", known=KNOWN, marker="go-mysql-suite", run_turnstile=run_turnstile, run_mariadb=run_mariadb, docs=docs, sep="/", prepare=build_tests)


if __name__ == "__main__":
    sys.exit(common.main(SUITE, __doc__.split("\n\n")[0]))
