"""MariaDB's SET STATEMENT var = value [, ...] FOR statement: the session
variables hold the values for that one statement only, and get their own
back after it, also when it fails; variables that outlive a statement are
refused (1971), unknown ones are 1193, as in MariaDB 10.11."""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


def test_values_hold_for_one_statement(sql_conn):
    clients.query(sql_conn, "SET SESSION sql_mode = 'STRICT_TRANS_TABLES'")
    assert clients.query(sql_conn, "SET STATEMENT sql_mode = '' FOR SELECT @@sql_mode") == (("",),)
    assert clients.query(sql_conn, "SELECT @@sql_mode") == (("STRICT_TRANS_TABLES",),)
    row = clients.query(sql_conn, "SET STATEMENT sql_mode = 'ANSI_QUOTES', max_statement_time = 5 FOR SELECT @@sql_mode, @@max_statement_time")
    assert row[0][0] == "ANSI_QUOTES" and float(row[0][1]) == 5.0
    assert float(clients.scalar(sql_conn, "SELECT @@max_statement_time")) == 0.0


def test_restored_after_a_failure(sql_conn):
    clients.query(sql_conn, "SET SESSION sql_mode = 'STRICT_TRANS_TABLES'")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(sql_conn, "SET STATEMENT sql_mode = '' FOR SELECT nope FROM information_schema.tables")
    assert ei.value.args[0] == 1054
    assert clients.query(sql_conn, "SELECT @@sql_mode") == (("STRICT_TRANS_TABLES",),)


@pytest.mark.parametrize(
    "sql,code",
    [
        ("SET STATEMENT autocommit = 0 FOR SELECT 1", 1971),
        ("SET STATEMENT character_set_client = 'latin1' FOR SELECT 1", 1971),
        ("SET STATEMENT nope = 1 FOR SELECT 1", 1193),
        ("SET STATEMENT sql_mode = '' SELECT 1", 1064),
        ("SET STATEMENT sql_mode = '' FOR", 1064),
    ],
)
def test_refused(sql_conn, sql, code):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(sql_conn, sql)
    assert ei.value.args[0] == code, ei.value.args
    assert clients.query(sql_conn, "SELECT 1") == ((1,),)


@pytest.mark.parametrize("depth", [50, 20000])
def test_nested_set_statement(sql_conn, depth):
    """MariaDB allows SET STATEMENT ... FOR SET STATEMENT ...: taken apart
    in one pass (no recursion), any depth answers at once, and the inner
    values win while the statement runs."""
    sql = "SET STATEMENT sql_mode = 'ANSI_QUOTES' FOR " * depth + "SET STATEMENT sql_mode = '' FOR SELECT @@sql_mode"
    assert clients.query(sql_conn, sql) == (("",),)
    assert clients.query(sql_conn, "SELECT @@sql_mode") != (("",),)
