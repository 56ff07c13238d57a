"""The engine's own machinery is not callable (issue #22's rule: nothing of
SQLite's, and nothing of ours written for it, reaches a client).

The SQLite rewriter writes calls to `ts_*` functions (exact DECIMAL
arithmetic, lenient stores, the scalar-subquery check, ...) with arguments it
vouches for. A client naming one gets 1305, as for any function that does not
exist, in every statement form, under any spelling; tables and CTEs that
happen to be named `ts_...` still work.
"""

import pymysql
import pytest

from helpers.clients import query, scalar


@pytest.fixture
def db(sql_conn, uniq):
    name = uniq("int")
    query(sql_conn, f"CREATE DATABASE {name}")
    query(sql_conn, f"USE {name}")
    query(sql_conn, "CREATE TABLE t (a INT, d DECIMAL(6,2))")
    query(sql_conn, "INSERT INTO t VALUES (1, 1.50), (2, 2.50)")
    yield name
    query(sql_conn, f"DROP DATABASE IF EXISTS {name}")


@pytest.mark.parametrize("sql", [
    "SELECT ts_one(a) FROM t",
    "SELECT TS_ONE(1)",
    "SELECT a FROM t WHERE ts_chg('I', a, 1)",
    "SELECT `ts_one`(a) FROM t",
    "SELECT a, ts_fit(a, 'x') FROM t",
    "UPDATE t SET a = ts_one(a)",
    "INSERT INTO t (a) VALUES (ts_ai(5))",
    "INSERT INTO t (a) SELECT ts_one(a) FROM t",
    "SELECT (SELECT ts_one(a) FROM t LIMIT 1)",
    "DELETE FROM t WHERE a = ts_one(1)",
    # The front's mark of a string user variable's value, written by a client.
    "SELECT ts_uvs('x')",
    "SELECT json_extract(TS_UVS('[1]'), '$[0]') FROM t",
    "SELECT ts_uvs('x'), @v FROM t",
    "CREATE VIEW v AS SELECT ts_uvs('x') AS c",
    "SELECT ts_json_slice('[1]', 0, 1)",
])
def test_internal_functions_do_not_exist_for_clients(sql_conn, db, sql):
    with pytest.raises(pymysql.MySQLError) as ei:
        query(sql_conn, sql)
    assert ei.value.args[0] == 1305, (sql, ei.value.args)
    assert scalar(sql_conn, "SELECT COUNT(*) FROM t") == 2


def test_tables_and_ctes_named_ts_still_work(sql_conn, db):
    query(sql_conn, "CREATE TABLE ts_log(a INT)")
    query(sql_conn, "INSERT INTO ts_log(a) VALUES (1)")
    query(sql_conn, f"INSERT INTO {db}.ts_log(a) VALUES (2)")
    assert query(sql_conn, "WITH ts_x(v) AS (SELECT a FROM ts_log) SELECT SUM(v) FROM ts_x") == ((3,),)
    assert query(sql_conn, "WITH y AS (SELECT 1 AS v), ts_z(w) AS (SELECT v FROM y) SELECT w FROM ts_z") == ((1,),)
