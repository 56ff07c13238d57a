"""Statements this session added that run other statements: SELECT ... INTO
@var, the anonymous block BEGIN NOT ATOMIC ... END, and SET STATEMENT ...
FOR. Each is checked as the statement it runs: an account granted one
database reads no other through them (MariaDB 10.11: 1142 for each), leaves
the variable untouched, and cannot set a global variable for one statement
(1229, as MariaDB)."""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def two_dbs(two_dbs_factory):
    return two_dbs_factory("si")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT s INTO @leak FROM {v}.secret",
        "SELECT 1 FROM DUAL WHERE EXISTS (SELECT 1 FROM {v}.secret) INTO @leak",
        "SELECT (SELECT s FROM {v}.secret) INTO @leak",
        "BEGIN NOT ATOMIC DECLARE x VARCHAR(20); SELECT s INTO x FROM {v}.secret; SET @leak = x; END",
        "BEGIN NOT ATOMIC SELECT s FROM {v}.secret; END",
        "SET STATEMENT sql_mode = '' FOR SELECT s INTO @leak FROM {v}.secret",
        "SET STATEMENT sql_mode = '' FOR SELECT * FROM {v}.secret",
    ],
)
def test_nothing_reads_another_database(two_dbs, sql):
    clients.query(two_dbs.att, "SET @leak = 'none'")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(two_dbs.att, sql.format(v=two_dbs.victim))
    assert ei.value.args[0] == 1142, ei.value.args
    assert clients.query(two_dbs.att, "SELECT @leak") == (("none",),)


@pytest.mark.parametrize("var", ["max_connections", "read_only"])
def test_set_statement_sets_no_global(two_dbs, var):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(two_dbs.att, f"SET STATEMENT {var} = 1 FOR SELECT 1")
    assert ei.value.args[0] in (1229, 1193), ei.value.args


@pytest.mark.parametrize("value", ["-1", "99999999999", "1e300", "0"])
def test_session_timestamp_out_of_range_keeps_the_system_clock(two_dbs, value):
    """MariaDB accepts these; Turnstile keeps the system clock for them."""
    clients.query(two_dbs.att, f"SET timestamp = {value}")
    assert clients.scalar(two_dbs.att, "SELECT YEAR(NOW())") >= 2024
