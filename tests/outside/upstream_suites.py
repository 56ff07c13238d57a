#!/usr/bin/env python3
"""Turnstile's own SQL and session suites, and the client matrix, run through
the upstream engine against a private MariaDB 10.11 (issue #24, item 7).

The test files in tests/outside/upstream_files.txt run with
TURNSTILE_UPSTREAM=1, so their `server` and `sql_server` are Turnstile's
upstream engine in front of MariaDB (tests/conftest.py,
tests/helpers/upstream.py): the expected results are then MariaDB's own. The
rule, checked here: every test passes through the upstream engine unless
tests/outside/upstream_known.txt lists it with the reason (most are tests of
Turnstile's own engine that MariaDB answers differently; each such reason
says how); a listed test that passes now, or that no longer exists, is an
error too, so the list stays true.

    python3 tests/outside/upstream_suites.py [--write-docs]

--write-docs rewrites the figures in docs/compatibility.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import common

FILES = os.path.join(common.HERE, "upstream_files.txt")
KNOWN = os.path.join(common.HERE, "upstream_known.txt")
MARK_START = "<!-- upstream-suites:start (tests/outside/upstream_suites.py --write-docs) -->"
MARK_END = "<!-- upstream-suites:end -->"
TIMEOUT_S = 1800


def files() -> list[str]:
    out = []
    for line in open(FILES, encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if line:
            out.append(line)
    return out


def run(work: str) -> dict[str, str]:
    xml = os.path.join(work, "upstream.xml")
    env = dict(os.environ, TURNSTILE_UPSTREAM="1", TURNSTILE_REQUIRE_BIN="1")
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={xml}", *[os.path.join(common.ROOT, f) for f in files()]],
                   cwd=common.ROOT, env=env, timeout=TIMEOUT_S, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return common.junit_outcomes(xml)


def verdict(results: dict[str, str], known: dict[str, str]) -> list[str]:
    rel = os.path.relpath(KNOWN, common.ROOT)
    problems = [f"fails through the upstream engine, not in {rel}: {t}" for t, o in sorted(results.items()) if o == "failed" and t not in known]
    for t in sorted(known):
        if t not in results:
            problems.append(f"listed in {rel} but not run (remove it): {t}")
        elif results[t] == "passed" and not known[t].startswith("flaky:"):
            problems.append(f"listed in {rel} but passes now (remove it): {t}")
    return problems


def docs(results: dict[str, str], known: dict[str, str]) -> list[str]:
    c = common.counts(results)
    by_reason: dict[str, list[str]] = {}
    for t, r in known.items():
        by_reason.setdefault(r, []).append(t)
    lines = [
        f"Turnstile's own SQL and session suites and the client matrix ({len(files())} test files, tests/outside/upstream_files.txt),",
        "run through `--engine upstream` in front of MariaDB 10.11 by `python3 tests/outside/upstream_suites.py` (CI runs it):",
        "the expected results are then MariaDB's own.",
        "",
        "| passed | failed | skipped |",
        "|---|---|---|",
        f"| {c['passed']} | {c['failed']} | {c['skipped']} |",
        "",
        f"Every failure is listed in tests/outside/upstream_known.txt with its reason ({len(known)} tests, by reason):",
        "",
    ]
    for reason, tests in sorted(by_reason.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"- {reason} ({len(tests)}: " + ", ".join(f"`{t.split('::', 1)[-1]}`" for t in sorted(tests)[:6]) + (", ..." if len(tests) > 6 else "") + ")")
    return lines


def write_docs(body: list[str]) -> None:
    text = open(common.DOCS, encoding="utf-8").read()
    a, b = text.find(MARK_START), text.find(MARK_END)
    if a < 0 or b < 0:
        raise SystemExit(f"{common.DOCS} has no {MARK_START} ... {MARK_END} section")
    open(common.DOCS, "w", encoding="utf-8").write(text[:a] + "\n".join([MARK_START, *body]) + "\n" + text[b:])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    known = common.read_known(KNOWN)
    with tempfile.TemporaryDirectory(prefix="ts-upstream-suites-") as work:
        t0 = time.monotonic()
        results = run(work)
        took = time.monotonic() - t0
    c = common.counts(results)
    print(f"upstream suites: {c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped in {took:.0f} s ({len(known)} known)")
    if args.write_docs:
        write_docs(docs(results, known))
    problems = verdict(results, known)
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
