#!/usr/bin/env python3
"""The differential runner: statements from MariaDB's own test files, replayed
against Turnstile and against MariaDB 10.11, compared statement by statement
(issue #23 item 2: outside judges over our own).

The files are MariaDB's mysql-test/main/*.test as Debian's mariadb-test ships
them, the ones tests/outside/mtr_files.txt names (chosen by topic, for what
applications use). Each file is parsed (mtr_parse.py) into a flat list of
statements and replayed on both servers at once (mtr_replay.py); a statement
agrees when both answer the same: the same error code, or the same column
names and types, rows, affected-row count and warnings (see mtr_replay.py for
how rows and warnings are compared). A statement that shows a query plan
(EXPLAIN, DESCRIBE or ANALYZE of a statement) agrees on the error code or the
column names and types alone: its rows describe each server's own plan. Turnstile runs the sqlite engine under
its default scheduler, MariaDB is a private mariadbd (tests/helpers/mariadb.py);
both start in sessions of their own.

    python3 tests/outside/mtr_diff.py                    # run, print figures, verdict
    python3 tests/outside/mtr_diff.py --write-docs       # and rewrite docs/compatibility.md and the floor
    python3 tests/outside/mtr_diff.py --details out.txt  # and write every disagreement
    python3 tests/outside/mtr_diff.py --only select,ps   # some files only (no verdict, no docs)

The verdict: no file may agree on fewer statements than the floor
tests/outside/mtr_floor.txt records for it (written by --write-docs), less a
slack (FLOOR_SLACK_PCT, FLOOR_SLACK_MIN) for statements whose answers depend on timing. So a
change that breaks what agreed fails CI; one that mends more raises the floor
when the docs are regenerated.

Needs: target/release/turnstile (or TURNSTILE_BIN), mariadbd and
mariadb-install-db (Debian mariadb-server), the mysql-test files (Debian
mariadb-test), PyMySQL.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
import mtr_parse  # noqa: E402
import mtr_replay  # noqa: E402
from helpers.server import ROOT_PASSWORD  # noqa: E402

TEST_DIR = os.environ.get("MTR_TEST_DIR", "/usr/share/mysql/mysql-test/main")
FILES = os.path.join(common.HERE, "mtr_files.txt")
FLOOR = os.path.join(common.HERE, "mtr_floor.txt")
MARK_START = "<!-- mtr-diff:start (tests/outside/mtr_diff.py --write-docs) -->"
MARK_END = "<!-- mtr-diff:end -->"
# How far a file's agreement may fall below its floor before the verdict fails: this percent of its
# statements, and at least FLOOR_SLACK_MIN. Answers that depend on timing move between runs of one
# binary (two runs: create 545/546, rename 41/39, information_schema 344/346, ps 1497/1498; and
# create.test's `INSERT INTO t3 VALUES (0)` at line 1085 answered 1146 in some runs, with 60 statements
# after it following: a timing-dependent difference not yet found).
FLOOR_SLACK_PCT = 2.0
FLOOR_SLACK_MIN = 3
# Files with a known timing-dependent difference larger than that slack, and how much more they may
# fall: rename.test's `RENAME TABLE t1 TO t2, t3 to t4`, sent while another connection holds FLUSH
# TABLES WITH READ LOCK, answered 1105 in 1 of 3 runs on a loaded machine (2026-11-26), and the four
# statements after it follow (not yet found; 15 quiet runs in a row agreed).
TIMING_SLACK = {"rename": 4}
# Speed-only settings for the reference MariaDB (no change to what a statement answers).
MARIADB_ARGS = ("--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0", "--max-connections=200")


def read_list(path: str) -> list[tuple[str, str]]:
    """(file, topic) pairs from `name  # topic` lines."""
    out = []
    for line in open(path, encoding="utf-8"):
        name, _, topic = line.partition("#")
        if name.strip():
            out.append((name.strip(), topic.strip()))
    return out


def read_floor() -> dict[str, int]:
    if not os.path.exists(FLOOR):
        return {}
    floor = {}
    for line in open(FLOOR, encoding="utf-8"):
        parts = line.split()
        if len(parts) >= 2 and not line.startswith("#"):
            floor[parts[0]] = int(parts[1])
    return floor


def differ(ts, md) -> str:
    """Why two outcomes disagree ('' when they agree); `None` is not answered."""
    if ts is None:
        return "no answer from Turnstile" if md is not None else ""
    if md is None:
        return ""
    if ts.error is not None or md.error is not None:
        if ts.error == md.error:
            return ""
        if ts.error is None:
            return "error on MariaDB only"
        return "error on Turnstile only" if md.error is None else "other error code"
    for what, a, b in (("column names", ts.names, md.names), ("column types", ts.types, md.types),
                       ("rows", ts.rows, md.rows), ("affected rows", ts.affected, md.affected)):
        if a != b:
            return what
    if ts.warnings is not None and md.warnings is not None and ts.warnings != md.warnings:
        return "warnings"
    return ""


class FileResult:
    def __init__(self, name: str, topic: str):
        self.name, self.topic = name, topic
        self.statements = 0
        self.agree = 0
        self.not_replayed = 0
        self.kinds = collections.Counter()
        self.details: list[str] = []
        self.seconds = (0.0, 0.0)
        self.stopped = ("", "")
        # Statements each server did not answer in time (or whose connection broke), by line.
        self.lost: tuple = ([], [])

    @property
    def pct(self) -> float:
        return 100.0 * self.agree / self.statements if self.statements else 100.0


def compare_file(name: str, topic: str, ts_target, md_target, pool) -> FileResult:
    res = FileResult(name, topic)
    text = open(os.path.join(TEST_DIR, name + ".test"), encoding="utf-8", errors="surrogateescape").read()
    script = mtr_parse.parse(text)
    res.not_replayed = sum(script.skipped.values())
    steps = mtr_replay.compared_steps(script)
    for t in (ts_target, md_target):
        mtr_replay.prepare(t)
    ts_f = pool.submit(mtr_replay.replay, script, ts_target)
    md_f = pool.submit(mtr_replay.replay, script, md_target)
    ts, md = ts_f.result(), md_f.result()
    res.seconds = (ts.seconds, md.seconds)
    res.stopped = (ts.stopped, md.stopped)
    res.lost = (ts.lost, md.lost)
    for i, step in enumerate(steps):
        a, b = ts.outcomes.get(step.n), md.outcomes.get(step.n)
        if b is None or b.note or (a is not None and a.note):
            res.not_replayed += 1
            continue
        res.statements += 1
        why = differ(a, b)
        if not why:
            res.agree += 1
            continue
        res.kinds[why] += 1
        res.details.append(f"{name}.test:{step.line}: {why}\n  sql: {step.text[:300]!r}\n  turnstile: {_show(a)}\n  mariadb:   {_show(b)}")
    return res


def _lost_note(r: FileResult) -> str:
    ts, md = r.lost
    return f" lost: Turnstile {ts[:3]}, MariaDB {md[:3]}" if ts or md else ""


def _show(o) -> str:
    if o is None:
        return "no answer"
    if o.error is not None:
        return f"error {o.error}"
    rows = "" if o.rows is None else f" rows={[list(r)[:5] for r in o.rows][:3]}"
    return f"names={list(o.names)[:3]} types={list(o.types)[:3]} affected={o.affected} warnings={o.warnings}{rows}"[:600]


def run(files: list[tuple[str, str]], details_path: str | None) -> tuple[list[FileResult], str]:
    with common.turnstile() as srv, common.mariadb(extra_args=MARIADB_ARGS) as m:
        version = common.mariadb_version(m)
        ts_target = mtr_replay.Target("turnstile", srv.socket, ROOT_PASSWORD)
        md_target = mtr_replay.Target("mariadb", m.socket, "")
        results = []
        details = open(details_path, "w", encoding="utf-8") if details_path else None
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            for name, topic in files:
                r = compare_file(name, topic, ts_target, md_target, pool)
                results.append(r)
                print(f"  {name:20} {r.agree:5}/{r.statements:<5} {r.pct:5.1f}%  ({r.seconds[0]:.0f} s / {r.seconds[1]:.0f} s) {r.stopped[0] or r.stopped[1]}{_lost_note(r)}", flush=True)
                if details:
                    details.write("".join(d + "\n" for d in r.details))
                    details.flush()
        if details:
            details.close()
    return results, version


def totals(results: list[FileResult]) -> tuple[int, int]:
    return sum(r.agree for r in results), sum(r.statements for r in results)


def docs(results: list[FileResult], version: str) -> list[str]:
    agree, total = totals(results)
    kinds = collections.Counter()
    for r in results:
        kinds.update(r.kinds)
    lines = [
        f"Statements of {len(results)} MariaDB test files (Debian mariadb-test, mysql-test/main; the list and",
        "why each is there: tests/outside/mtr_files.txt), replayed against Turnstile (sqlite engine, default",
        f"scheduler) and MariaDB {version} by `python3 tests/outside/mtr_diff.py` (CI runs it on every change).",
        "A statement agrees when both servers give the same error code, or the same column names and types,",
        "rows (as a multiset unless it has ORDER BY), affected rows and warnings; a statement that shows a",
        "query plan (EXPLAIN, DESCRIBE or ANALYZE of a statement) on the error code or the column names and",
        "types alone, since its rows describe each server's own plan.",
        "",
        f"**Overall: {agree} of {total} statements agree ({100.0 * agree / max(total, 1):.1f}%).** The target is 90%.",
        "",
        "Disagreements by kind: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()) + ".",
        "",
        "| file | topic | statements | agree | % | not replayed |",
        "|---|---|---|---|---|---|",
    ]
    lines += [f"| {r.name} | {r.topic} | {r.statements} | {r.agree} | {r.pct:.1f} | {r.not_replayed} |" for r in results]
    lines += ["", "\"Not replayed\" counts what the runner leaves out of a file: `if`/`while` blocks, `source`d files,",
              "shell and perl blocks, and statements naming variables mtr sets from its environment."]
    return lines


def write_docs(body: list[str]) -> None:
    text = open(common.DOCS, encoding="utf-8").read()
    pattern = re.compile(re.escape(MARK_START) + ".*?" + re.escape(MARK_END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{common.DOCS} has no {MARK_START} ... {MARK_END} section")
    section = "\n".join([MARK_START, *body, MARK_END])
    open(common.DOCS, "w", encoding="utf-8").write(pattern.sub(lambda _: section, text))


def write_floor(results: list[FileResult]) -> None:
    with open(FLOOR, "w", encoding="utf-8") as f:
        f.write("# Statements of each file that agreed when the docs were last written (tests/outside/mtr_diff.py\n")
        f.write("# --write-docs): `file agree statements`. The verdict fails when a file falls below its floor.\n")
        for r in results:
            f.write(f"{r.name} {r.agree} {r.statements}\n")


def verdict(results: list[FileResult]) -> list[str]:
    floor = read_floor()
    problems = []
    for r in results:
        want = floor.get(r.name)
        if want is None:
            problems.append(f"{r.name}: no floor in {os.path.relpath(FLOOR, common.ROOT)} (run --write-docs)")
        elif r.agree < want - max(FLOOR_SLACK_MIN, int(r.statements * FLOOR_SLACK_PCT / 100)) - TIMING_SLACK.get(r.name, 0):
            problems.append(f"{r.name}: {r.agree} statements agree, the floor is {want}")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write-docs", action="store_true", help="rewrite docs/compatibility.md's section and the floor")
    ap.add_argument("--details", help="write every disagreement to this file")
    ap.add_argument("--only", help="comma-separated file names (no verdict, no docs)")
    args = ap.parse_args()
    files = read_list(FILES)
    if args.only:
        wanted = set(args.only.split(","))
        files = [(n, t) for n, t in files if n in wanted] or [(n, "") for n in wanted]
    started = time.monotonic()
    results, version = run(files, args.details)
    agree, total = totals(results)
    print(f"mtr_diff: {agree}/{total} statements agree ({100.0 * agree / max(total, 1):.1f}%) over {len(results)} files, MariaDB {version}, {time.monotonic() - started:.0f} s")
    if args.only:
        return 0
    if args.write_docs:
        write_docs(docs(results, version))
        write_floor(results)
    problems = verdict(results)
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
