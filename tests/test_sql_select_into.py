"""SELECT ... INTO @a, @b (user variables) at the top level, and MariaDB's
anonymous block BEGIN NOT ATOMIC ... END, run by the routine interpreter as
MariaDB 10.11 runs them: one row into the variables, none is warning 1329
(variables unchanged), more is 1172, a column count that differs 1222."""

from __future__ import annotations

import subprocess

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def db(sql_conn, uniq):
    name = uniq("sidb")
    clients.query(sql_conn, f"CREATE DATABASE {name}")
    clients.query(sql_conn, f"USE {name}")
    clients.query(sql_conn, "CREATE TABLE lt (a INT, b VARCHAR(5))")
    clients.query(sql_conn, "INSERT INTO lt VALUES (5, 'x'), (7, 'y')")
    yield sql_conn
    clients.query(sql_conn, f"DROP DATABASE {name}")


def test_select_into_user_variables(db):
    clients.query(db, "SELECT a INTO @x FROM lt WHERE a = 5")
    clients.query(db, "SELECT a, b FROM lt WHERE a = 7 INTO @p, @q")
    clients.query(db, "SELECT 3 INTO @z")
    clients.query(db, "WITH c AS (SELECT MAX(a) AS m FROM lt) SELECT m INTO @m FROM c")
    assert clients.query(db, "SELECT @x, @p, @q, @z, @m") == ((5, 7, "y", 3, 7),)
    clients.query(db, "SELECT a INTO @x FROM lt WHERE a = 0")
    assert clients.query(db, "SHOW WARNINGS") == (("Warning", 1329, "No data - zero rows fetched, selected, or processed"),)
    assert clients.query(db, "SELECT @x") == ((5,),)
    # INTO inside a subquery or a string is not the statement's.
    assert clients.query(db, "SELECT 'into @x' FROM lt WHERE a = 5") == (("into @x",),)


@pytest.mark.parametrize(
    "sql,code",
    [
        ("SELECT a INTO @x FROM lt", 1172),
        ("SELECT a, b INTO @x FROM lt WHERE a = 5", 1222),
        ("SELECT nope INTO @x FROM lt", 1054),
    ],
)
def test_select_into_errors(db, sql, code):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(db, sql)
    assert ei.value.args[0] == code


def test_anonymous_block(db, sql_server):
    """The mysql CLI sends the block after DELIMITER as one statement."""
    block = "BEGIN NOT ATOMIC DECLARE n INT DEFAULT 0; WHILE n < 3 DO SET n = n + 1; INSERT INTO lt VALUES (n, 'b'); END WHILE; SELECT COUNT(*) INTO @cnt FROM lt; END"
    clients.query(db, block)
    assert clients.query(db, "SELECT @cnt") == ((5,),)
    dbname = clients.scalar(db, "SELECT DATABASE()")
    script = f"DELIMITER //\n{block} //\nDELIMITER ;\nSELECT @cnt;\n"
    r = subprocess.run(["mysql", "-h127.0.0.1", f"-P{sql_server.port}", "-uroot", f"-p{clients.ROOT_PASSWORD}", "-N", dbname], input=script, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["8"]
