"""ALTER TABLE's IF [NOT] EXISTS forms, CREATE/DROP INDEX IF [NOT] EXISTS,
RENAME TABLE IF EXISTS and ALTER ... ORDER BY on another database's tables:
privileges are checked before existence, so an account with rights only in
its own database gets 1142 for a table that exists and for one that does
not (no note tells it which), and nothing changes. MariaDB 10.11 answers
1142 for each of these statements from such an account."""

from __future__ import annotations

import pytest

from helpers import clients


@pytest.fixture
def two_dbs(two_dbs_factory):
    return two_dbs_factory("alf", victim=["CREATE TABLE t2 (a INT, KEY ka (a))"], home=["CREATE TABLE mine (a INT)"])


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE IF EXISTS {v}.secret ADD COLUMN x INT",
        "ALTER TABLE IF EXISTS {v}.nosuch ADD COLUMN x INT",
        "ALTER TABLE {v}.secret DROP COLUMN IF EXISTS s",
        "ALTER TABLE {v}.secret ADD COLUMN IF NOT EXISTS s INT",
        "ALTER TABLE {v}.secret ORDER BY s",
        "CREATE INDEX IF NOT EXISTS k ON {v}.secret (s)",
        "DROP INDEX IF EXISTS ka ON {v}.t2",
        "DROP INDEX IF EXISTS nosuch ON {v}.nosuch",
        "RENAME TABLE IF EXISTS {v}.secret TO {v}.gone",
        "RENAME TABLE IF EXISTS {v}.nosuch TO {v}.gone",
        "RENAME TABLE mine TO mine2, {v}.secret TO {v}.gone",
    ],
)
def test_refused_before_existence_is_looked_at(two_dbs, sql):
    code, _ = clients.error(two_dbs.att, sql.format(v=two_dbs.victim))
    assert code == 1142
    root, v = two_dbs.root, two_dbs.victim
    assert clients.query(root, f"SELECT * FROM {v}.secret") == ((1, "top"),)
    assert [r[0] for r in clients.query(root, f"SHOW COLUMNS FROM {v}.secret")] == ["id", "s"]
    assert sorted({r[2] for r in clients.query(root, f"SHOW INDEX FROM {v}.t2")}) == ["ka"]
    assert sorted(r[0] for r in clients.query(root, f"SHOW TABLES FROM {v}")) == ["secret", "t2"]
    assert [r[0] for r in clients.query(two_dbs.att, "SHOW TABLES")] == ["mine"]
