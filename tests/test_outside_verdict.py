"""The rule of the outside conformance suites (tests/outside/common.py), on
made-up outcomes: a test MariaDB passes must pass on Turnstile or be listed;
an entry covers its subtests and the parent a listed subtest fails; a listed
test that passes now (or that the suite or MariaDB no longer passes) is an
error unless its reason starts with "flaky:". No server is started.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "outside"))

import common  # noqa: E402

GO = common.Suite(name="x", known=os.path.join(common.ROOT, "k.txt"), marker="x", run_turnstile=None, run_mariadb=None, docs=None, sep="/")
FLAT = common.Suite(name="x", known=os.path.join(common.ROOT, "k.txt"), marker="x", run_turnstile=None, run_mariadb=None, docs=None)

MD = {"TestA": "passed", "TestA/default": "passed", "TestA/compress": "passed", "TestB": "passed", "TestB/x": "passed", "TestC": "passed"}


def test_an_unlisted_regression_is_reported_and_a_listed_one_is_not():
    ts = {**MD, "TestC": "failed"}
    assert common.verdict(GO, ts, MD, {}) == ["passes on MariaDB, failed on Turnstile, not in k.txt: TestC"]
    assert common.verdict(GO, ts, MD, {"TestC": "why"}) == []
    missing = {t: o for t, o in MD.items() if t != "TestC"}
    assert common.verdict(GO, missing, MD, {}) == ["passes on MariaDB, missing on Turnstile, not in k.txt: TestC"]


def test_an_entry_covers_its_subtests_and_their_parent():
    ts = {**MD, "TestA": "failed", "TestA/compress": "failed"}
    assert common.verdict(GO, ts, MD, {"TestA": "why"}) == []
    assert common.verdict(GO, ts, MD, {"TestA/compress": "why"}) == []
    # Without a separator, ids are flat: TestA/compress is a test of its own.
    assert len(common.verdict(FLAT, ts, MD, {"TestA": "why"})) == 1


def test_stale_entries_are_errors_unless_flaky():
    assert common.verdict(GO, MD, MD, {"TestB": "why"}) == ["listed in k.txt but passes now (remove it): TestB"]
    assert common.verdict(GO, MD, MD, {"TestB": "flaky: a race"}) == []
    assert common.verdict(GO, MD, MD, {"TestGone": "why"}) == ["listed in k.txt but not in the suite: TestGone"]
    md = {**MD, "TestC": "failed"}
    assert common.verdict(GO, {**md}, md, {"TestC": "why"}) == ["listed in k.txt but MariaDB does not pass it either (remove it): TestC"]
