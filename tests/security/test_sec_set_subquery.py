"""`SET @x = (SELECT ... FROM t)`: the front hands a value that reads a table
to the engine as `SELECT <value>`, so it is checked as that SELECT: an
account granted one database reads no other through a user variable
(MariaDB 10.11: 1142 for the same statements).
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def attacker(two_dbs_factory):
    d = two_dbs_factory("ss")
    return d.att, d.victim


@pytest.mark.parametrize(
    "value",
    [
        "(SELECT s FROM {v}.secret)",
        "(SELECT COUNT(*) FROM {v}.secret)",
        "1 + (SELECT id FROM {v}.secret LIMIT 1)",
        "(SELECT 1 WHERE EXISTS (SELECT 1 FROM {v}.secret))",
        "(SELECT 1 FROM DUAL WHERE EXISTS (SELECT 1 FROM {v}.secret))",
        "(SELECT s FROM (SELECT s FROM {v}.secret) d)",
    ],
)
def test_no_variable_reads_another_database(attacker, value):
    att, v = attacker
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(att, f"SET @leak = {value.format(v=v)}")
    assert ei.value.args[0] == 1142
    assert clients.query(att, "SELECT @leak") == ((None,),)


@pytest.mark.parametrize("depth", [200, 5000])
def test_deep_nesting_in_a_variable(attacker, depth):
    """Answered or refused with MySQL's error, never a crash; the session keeps serving."""
    att, _ = attacker
    value = "(" * depth + "SELECT COUNT(*) FROM information_schema.tables" + ")" * depth
    try:
        clients.query(att, f"SET @deep = {value}")
    except pymysql.err.MySQLError as e:
        assert e.args[0] in (1064, 1436, 1473), e
    assert clients.query(att, "SELECT 1") == ((1,),)
