"""CREATE OR REPLACE [TEMPORARY] TABLE (MariaDB): the old table is dropped and
the new one created, with MariaDB 10.11's refusals (1221 with IF NOT EXISTS,
1093 when the table is its own source) before anything is dropped."""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def db(sql_conn, uniq):
    name = uniq("cor")
    clients.query(sql_conn, f"CREATE DATABASE {name}")
    clients.query(sql_conn, f"USE {name}")
    yield sql_conn
    clients.query(sql_conn, f"DROP DATABASE {name}")


def test_replaces_table_definition_and_rows(db):
    clients.query(db, "CREATE TABLE t (a INT)")
    clients.query(db, "INSERT INTO t VALUES (1)")
    clients.query(db, "CREATE OR REPLACE TABLE t (b VARCHAR(5))")
    assert clients.query(db, "SHOW WARNINGS") == ()
    assert [r[0] for r in clients.query(db, "SHOW COLUMNS FROM t")] == ["b"]
    assert clients.query(db, "SELECT COUNT(*) FROM t") == ((0,),)
    clients.query(db, "CREATE OR REPLACE TABLE t2 SELECT 1 AS x")
    clients.query(db, "CREATE OR REPLACE TABLE t2 SELECT 2 AS y")
    assert clients.query(db, "SELECT * FROM t2") == ((2,),)
    clients.query(db, "CREATE OR REPLACE TABLE t3 LIKE t2")
    assert [r[0] for r in clients.query(db, "SHOW COLUMNS FROM t3")] == ["y"]
    clients.query(db, "CREATE OR REPLACE TEMPORARY TABLE tt (c INT)")
    clients.query(db, "CREATE OR REPLACE TEMPORARY TABLE tt (d INT)")
    assert [r[0] for r in clients.query(db, "SHOW COLUMNS FROM tt")] == ["d"]


@pytest.mark.parametrize(
    "sql,code",
    [
        ("CREATE OR REPLACE TABLE IF NOT EXISTS t (b INT)", 1221),
        ("CREATE OR REPLACE TABLE t SELECT * FROM t", 1093),
        ("CREATE OR REPLACE TABLE t LIKE t", 1093),
        ("CREATE OR REPLACE TABLE t SELECT nope FROM t2", 1054),
    ],
)
def test_refusals_keep_the_old_table(db, sql, code):
    clients.query(db, "CREATE TABLE t (a INT)")
    clients.query(db, "CREATE TABLE t2 (a INT)")
    clients.query(db, "INSERT INTO t VALUES (1)")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(db, sql)
    assert ei.value.args[0] == code, ei.value.args
    assert clients.query(db, "SELECT a FROM t") == ((1,),)
