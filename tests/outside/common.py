"""What the outside conformance suites (tests/outside/*_suite.py) share: the
two servers they run against, the known-failures file, the verdict, and the
marked section of docs/compatibility.md each one rewrites.

A suite script runs a driver's own test suite against Turnstile (sqlite
engine, default scheduler, started here in a session of its own) and against
a private MariaDB 10.11 (tests/helpers/mariadb.py), and hands `main` a
`Suite`: how to run it against each and what to say in the docs. The rule
`verdict` checks, for every suite: each test MariaDB passes passes on
Turnstile too, unless the suite's known file lists it with the reason it
cannot (yet); a listed test that passes now, or that the suite no longer has,
is an error as well, so the list stays true. A reason that starts with
"flaky:" marks a test that fails in some runs only (a race the reason
describes): it may pass without being stale.

Test ids may name subtests (Go's `TestX/default`): with `Suite.sep` set, an
entry covers the test it names and every subtest under it, and a test whose
failure comes from a listed subtest (a parent fails when a child does) is
covered by that entry.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))

from helpers.mariadb import MariaDB  # noqa: E402
from helpers.server import ROOT_PASSWORD, TurnstileServer  # noqa: E402

DOCS = os.path.join(ROOT, "docs", "compatibility.md")
OUTCOMES = ("passed", "failed", "skipped")


@dataclass
class Suite:
    """One outside suite as `main` runs it.

    prepare(work) runs first (a build both runs use); run_turnstile(work) -> {test id: outcome};
    run_mariadb(work) -> (that, MariaDB's version); docs(ts, md, version, known) -> the lines of the
    docs section between the markers.
    """

    name: str
    known: str
    marker: str
    run_turnstile: Callable[[str], dict]
    run_mariadb: Callable[[str], tuple]
    docs: Callable[[dict, dict, str, dict], list]
    sep: Optional[str] = None
    prepare: Callable[[str], None] = lambda work: None

    @property
    def mark_start(self) -> str:
        return f"<!-- {self.marker}:start (tests/outside/{self.name}.py --write-docs) -->"

    @property
    def mark_end(self) -> str:
        return f"<!-- {self.marker}:end -->"


def read_known(path: str) -> dict[str, str]:
    """test id -> reason, from `id  # reason` lines."""
    known = {}
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        test, _, reason = line.partition("#")
        assert reason.strip(), f"{path}: {test.strip()} has no reason"
        known[test.strip()] = reason.strip()
    return known


@contextlib.contextmanager
def turnstile(extra_args: tuple = ()) -> Iterator[TurnstileServer]:
    """A Turnstile on the sqlite engine, in a session of its own (as a service runs)."""
    srv = TurnstileServer(engine="sqlite", extra_args=extra_args, preexec_fn=os.setsid).start()
    try:
        yield srv
    finally:
        srv.stop()
        srv.cleanup()


def turnstile_client_args(srv: TurnstileServer) -> list[str]:
    return ["--no-defaults", "-h127.0.0.1", f"-P{srv.port}", "-uroot", f"-p{ROOT_PASSWORD}"]


@contextlib.contextmanager
def mariadb(extra_args: tuple = (), prepare: Callable[[MariaDB], None] = lambda m: None) -> Iterator[MariaDB]:
    """A private mariadbd; `prepare` runs before it starts (files in `m.dir`)."""
    m = MariaDB(extra_args=extra_args)
    try:
        prepare(m)
        yield m.start()
    finally:
        m.stop()


def mariadb_version(m: MariaDB) -> str:
    """Its version without the `5.5.5-` that MariaDB puts before it for old clients."""
    conn = m.connect()
    try:
        return conn.get_server_info().removeprefix("5.5.5-")
    finally:
        conn.close()


def client(args: list[str], sql: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run SQL through the real `mariadb` client."""
    return subprocess.run(["mariadb", *args, "--comments"], input=sql.encode(), capture_output=True, check=check, timeout=60)


def timed(fn: Callable, *args):
    """(fn(*args), seconds it took)."""
    start = time.monotonic()
    result = fn(*args)
    return result, time.monotonic() - start


def junit_outcomes(xml: str) -> dict[str, str]:
    """pytest's --junitxml report: test id (class::name) -> passed/failed/skipped."""
    import xml.etree.ElementTree as ET

    results = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        test = f"{case.get('classname')}::{case.get('name')}"
        kinds = {child.tag for child in case}
        results[test] = "failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed"
    return results


def counts(results: dict[str, str]) -> dict[str, int]:
    return {k: sum(1 for v in results.values() if v == k) for k in OUTCOMES}


def _under(test: str, entry: str, sep: Optional[str]) -> bool:
    return test == entry or (sep is not None and test.startswith(entry + sep))


def covered(test: str, known: dict[str, str], sep: Optional[str]) -> bool:
    """Listed itself, under a listed test, or the parent of a listed subtest."""
    return any(_under(test, entry, sep) or _under(entry, test, sep) for entry in known)


def verdict(suite: Suite, ts: dict[str, str], md: dict[str, str], known: dict[str, str]) -> list[str]:
    """What breaks the rule in the module header (empty: it holds)."""
    rel = os.path.relpath(suite.known, ROOT)
    problems = []
    for test, outcome in sorted(md.items()):
        if outcome == "passed" and ts.get(test) != "passed" and not covered(test, known, suite.sep):
            problems.append(f"passes on MariaDB, {ts.get(test, 'missing')} on Turnstile, not in {rel}: {test}")
    for entry in sorted(known):
        judged = [t for t, o in md.items() if o == "passed" and _under(t, entry, suite.sep)]
        if entry not in md:
            problems.append(f"listed in {rel} but not in the suite: {entry}")
        elif not judged:
            problems.append(f"listed in {rel} but MariaDB does not pass it either (remove it): {entry}")
        elif all(ts.get(t) == "passed" for t in judged) and not known[entry].startswith("flaky:"):
            problems.append(f"listed in {rel} but passes now (remove it): {entry}")
    return problems


def count_table(rows: list[tuple[str, list[dict[str, int]]]], groups: tuple[str, ...] = ("",)) -> list[str]:
    """A markdown table of passed/failed/skipped per server, one column group per count."""
    head = ["server"] + [f"{g} {o}".strip() for g in groups for o in OUTCOMES]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join([label] + [str(c[o]) for c in cs for o in OUTCOMES]) + " |" for label, cs in rows]


def known_lines(suite: Suite, ts: dict[str, str], md: dict[str, str], known: dict[str, str]) -> list[str]:
    """The known failures with their reasons, and what only Turnstile passes."""
    lines = ["", f"Tests MariaDB passes and Turnstile does not, each with its reason ({os.path.relpath(suite.known, ROOT)}):", ""]
    lines += [f"- `{test}`: {reason}" for test, reason in sorted(known.items())]
    extra = sorted(test for test, o in ts.items() if o == "passed" and md.get(test) != "passed")
    if extra:
        lines += ["", "Tests Turnstile passes and MariaDB does not: " + ", ".join(f"`{x}`" for x in extra) + "."]
    return lines


def write_docs(suite: Suite, body: list[str]) -> None:
    """Replace the suite's marked section of docs/compatibility.md with `body`."""
    text = open(DOCS, encoding="utf-8").read()
    pattern = re.compile(re.escape(suite.mark_start) + ".*?" + re.escape(suite.mark_end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{DOCS} has no {suite.mark_start} ... {suite.mark_end} section")
    section = "\n".join([suite.mark_start, *body, suite.mark_end])
    open(DOCS, "w", encoding="utf-8").write(pattern.sub(lambda _: section, text))


def main(suite: Suite, description: str) -> int:
    """Run `suite` against both servers, print the counts and times, check the verdict."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--write-docs", action="store_true", help="rewrite the figures in docs/compatibility.md")
    args = ap.parse_args()
    known = read_known(suite.known)
    with tempfile.TemporaryDirectory(prefix=f"ts-{suite.name}-") as work:
        _, prep_s = timed(suite.prepare, work)
        ts, ts_s = timed(suite.run_turnstile, work)
        (md, version), md_s = timed(suite.run_mariadb, work)
    print(f"{suite.name}: Turnstile {counts(ts)} in {ts_s:.0f} s; MariaDB {version} {counts(md)} in {md_s:.0f} s (setup {prep_s:.0f} s)")
    if args.write_docs:
        write_docs(suite, suite.docs(ts, md, version, known))
    problems = verdict(suite, ts, md, known)
    for p in problems:
        print("  " + p)
    return 1 if problems else 0
