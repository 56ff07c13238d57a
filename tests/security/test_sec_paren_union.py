"""Parenthesised query members (`(SELECT ...) UNION (SELECT ...)`, `(SELECT
... LIMIT n) ORDER BY x`), which the sqlite engine reads as derived tables
(crates/sqlite/src/rewrite/paren_union.rs): an account granted one database
reads no other through them, in any member or nesting, and parentheses
nested far past the rewrite's limit get an error, never a crash, while the
server keeps serving. MariaDB 10.11 gives 1142 for the same reads.
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def two_dbs(two_dbs_factory):
    d = two_dbs_factory("pu", home=["CREATE TABLE t (id INT PRIMARY KEY)", "INSERT INTO t VALUES (1)"])
    return d.root, d.att, d.victim, d.home


@pytest.mark.parametrize(
    "sql",
    [
        "(SELECT s FROM {v}.secret) UNION (SELECT 'x')",
        "(SELECT id FROM {h}.t) UNION ALL (SELECT id FROM {v}.secret LIMIT 1)",
        "SELECT id FROM {h}.t UNION (SELECT id FROM {v}.secret)",
        "((SELECT s FROM {v}.secret)) UNION (SELECT 'x')",
        "(SELECT s FROM {v}.secret LIMIT 1) ORDER BY s",
        "(SELECT id FROM {h}.t) INTERSECT (SELECT id FROM {v}.secret)",
    ],
)
def test_no_member_reads_another_database(two_dbs, sql):
    root, att, v, h = two_dbs
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(att, sql.format(v=v, h=h))
    assert ei.value.args[0] == 1142
    # root reads it: the refusal is the privilege, not the syntax
    clients.query(root, sql.format(v=v, h=h))


@pytest.mark.parametrize("depth", [31, 33, 64, 5000])
def test_deep_parentheses_are_an_error_not_a_crash(two_dbs, depth):
    root, att, _, _ = two_dbs
    sql = "(" * depth + "SELECT 1" + ")" * depth + " UNION (SELECT 2)"
    try:
        rows = clients.query(att, sql)
        assert sorted(rows) == [(1,), (2,)]
    except pymysql.err.MySQLError as e:
        assert e.args[0] in (1064, 1436, 1473), e
    assert clients.query(att, "SELECT 1") == ((1,),)
