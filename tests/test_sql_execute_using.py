"""EXECUTE ... USING arguments as MariaDB 10.11 takes them (crates/sql/src/bind.rs),
and the statements a prepared statement may newly hold; every expectation
below was checked against MariaDB 10.11.

- DEFAULT and IGNORE: a whole INSERT value or UPDATE / ON DUPLICATE KEY UPDATE
  assignment takes them (the column's default; IGNORE in an assignment keeps
  the value), a whole select item is NULL, anywhere else is 4032. Before,
  DEFAULT was bound as NULL everywhere and IGNORE was an unknown column (1054).
- A prepared CREATE TABLE / CALL gets its `?` written as literals: a column
  DEFAULT ?, CREATE TABLE ... AS SELECT ? typed by the value, CALL p(?) USING @x
  setting @x from an OUT parameter; by COM_STMT_EXECUTE too. Before: 1064, 1351, 1414.
- RESET, START/STOP SLAVE, INSTALL/UNINSTALL PLUGIN (were 1064, so no
  PREPARE or procedure could hold them).
- EXECUTE keeps its statement's warnings for SHOW WARNINGS (they were lost).
- Multi-table UPDATE with SET t.c = DEFAULT | IGNORE (was 1052).
"""

from __future__ import annotations

import pytest

from helpers import clients, stmtproto
from helpers.server import ROOT_PASSWORD

INVALID = 4032


def q(conn, sql):
    return clients.query(conn, sql)


def test_default_and_ignore_where_a_value_goes(scratch_db):
    conn, _ = scratch_db
    q(conn, "CREATE TABLE t1 (a INT DEFAULT 10, b INT DEFAULT 3)")
    q(conn, "EXECUTE IMMEDIATE 'INSERT INTO t1 VALUES (?, ?)' USING DEFAULT, IGNORE")
    q(conn, "EXECUTE IMMEDIATE 'INSERT INTO t1 VALUES (1, 2), ((?), 5)' USING DEFAULT")
    assert q(conn, "SELECT a, b FROM t1 ORDER BY a, b") == ((1, 2), (10, 3), (10, 5))
    q(conn, "UPDATE t1 SET a = 20, b = 30")
    q(conn, "PREPARE s FROM 'UPDATE t1 SET a = ?, b = ?'")
    q(conn, "EXECUTE s USING DEFAULT, IGNORE")
    assert q(conn, "SELECT DISTINCT a, b FROM t1") == ((10, 30),)
    q(conn, "EXECUTE s USING 7, DEFAULT")
    assert q(conn, "SELECT DISTINCT a, b FROM t1") == ((7, 3),)
    # A whole select item: NULL, under its own name.
    cur = conn.cursor()
    cur.execute("EXECUTE IMMEDIATE 'SELECT ?, 1' USING DEFAULT")
    assert cur.fetchall() == ((None, 1),) and cur.description[0][0] == "?"


@pytest.mark.parametrize(
    "sql",
    [
        "EXECUTE IMMEDIATE 'INSERT INTO t1 VALUES (? + 1)' USING DEFAULT",
        "EXECUTE IMMEDIATE 'INSERT INTO t1 VALUES (CONCAT(?, ?))' USING DEFAULT, 'x'",
        "EXECUTE IMMEDIATE 'UPDATE t1 SET a = ? + 1' USING IGNORE",
        "EXECUTE IMMEDIATE 'UPDATE t1 SET a = 1 WHERE a = ?' USING DEFAULT",
        "EXECUTE IMMEDIATE 'DELETE FROM t1 LIMIT ?' USING DEFAULT",
        "EXECUTE IMMEDIATE 'SELECT CAST(? AS SIGNED)' USING DEFAULT",
        "EXECUTE IMMEDIATE 'SELECT * FROM t1 WHERE ?' USING IGNORE",
        "EXECUTE IMMEDIATE 'SELECT ? UNION SELECT 1' USING DEFAULT",
        "EXECUTE IMMEDIATE 'SELECT * FROM (SELECT ? UNION ALL SELECT 1) AS d' USING IGNORE",
        "EXECUTE IMMEDIATE 'CREATE OR REPLACE TABLE t2 (a INT DEFAULT ?)' USING DEFAULT",
        "EXECUTE IMMEDIATE 'CALL p_in(?)' USING DEFAULT",
    ],
)
def test_default_and_ignore_elsewhere_is_4032(scratch_db, sql):
    conn, _ = scratch_db
    q(conn, "CREATE TABLE t1 (a INT DEFAULT 10)")
    q(conn, "INSERT INTO t1 VALUES (1)")
    q(conn, "CREATE PROCEDURE p_in(a INT) SELECT a")
    assert clients.error(conn, sql)[0] == INVALID
    assert q(conn, "SELECT a FROM t1") == ((1,),)


def test_ddl_parameters_are_written_as_literals(scratch_db):
    conn, _ = scratch_db
    q(conn, "PREPARE s FROM 'CREATE TABLE t1 (a INT DEFAULT ?, b VARCHAR(20) DEFAULT ?)'")
    q(conn, "SET @b = 'it''s'")
    q(conn, "EXECUTE s USING -1, @b")
    create = q(conn, "SHOW CREATE TABLE t1")[0][1]
    assert "`a` int(11) DEFAULT -1" in create and "`b` varchar(20) DEFAULT 'it''s'" in create
    q(conn, "INSERT INTO t1 VALUES ()")
    assert q(conn, "SELECT a, b FROM t1") == ((-1, "it's"),)
    # Each value's own type; an unaliased item keeps `?` as its name.
    q(conn, "EXECUTE IMMEDIATE 'CREATE TABLE t2 AS SELECT ?, ? AS b, ? AS c, ? AS d' USING 10.123, 1.5e0, DATE'2001-01-02', CURRENT_TIMESTAMP(3)")
    create = q(conn, "SHOW CREATE TABLE t2")[0][1]
    for column in ["`?` decimal(5,3)", "`b` double", "`c` date", "`d` datetime(3)"]:
        assert column in create, create
    # A view keeps refusing parameters.
    assert clients.error(conn, "EXECUTE IMMEDIATE 'CREATE VIEW v AS SELECT ? AS a' USING 1")[0] == 1351


def test_call_takes_user_variables_for_out_parameters(scratch_db):
    conn, _ = scratch_db
    q(conn, "CREATE PROCEDURE p_out(OUT a INT) SET a = 42")
    q(conn, "PREPARE s FROM 'CALL p_out(?)'")
    q(conn, "EXECUTE s USING @z")
    assert q(conn, "SELECT @z") == ((42,),)
    for arg in ["10", "DEFAULT", "IGNORE"]:
        assert clients.error(conn, f"EXECUTE s USING {arg}")[0] == 1414


def test_binary_protocol_ddl_parameters(sql_server, scratch_db):
    _, db = scratch_db
    b = stmtproto.connect(sql_server.port, "root", ROOT_PASSWORD, db=db)
    st = b.prepare("CREATE TABLE t9 (a INT DEFAULT ?, b VARCHAR(5) DEFAULT ?)")
    assert b.execute(st, [(stmtproto.T_LONGLONG, 7), (stmtproto.T_VAR_STRING, b"it's")]).warnings == 0
    create = b.query("SHOW CREATE TABLE t9").rows[0][1]
    assert b"`a` int(11) DEFAULT 7" in create and b"`b` varchar(5) DEFAULT 'it''s'" in create
    st = b.prepare("CREATE TABLE t8 AS SELECT ? AS a, ?")
    assert b.execute(st, [(stmtproto.T_LONGLONG, 7), (stmtproto.T_DOUBLE, 1.5)]).affected_rows == 1
    assert b.query("SELECT * FROM t8").rows == [(b"7", b"1.5")]
    b.close_connection()


def test_server_administration_statements(scratch_db):
    conn, _ = scratch_db
    q(conn, "RESET QUERY CACHE")
    q(conn, "RESET SLAVE ALL, QUERY CACHE")
    q(conn, "PREPARE s FROM 'RESET QUERY CACHE'")
    q(conn, "EXECUTE s")
    q(conn, "PREPARE s FROM 'STOP SLAVE'")
    q(conn, "EXECUTE s")
    assert q(conn, "SHOW WARNINGS") == (("Note", 1255, "Slave already has been stopped"),)
    q(conn, "STOP ALL SLAVES")
    q(conn, "CREATE PROCEDURE p() RESET QUERY CACHE")
    q(conn, "CALL p()")
    q(conn, "UNINSTALL PLUGIN IF EXISTS my_plug")
    assert q(conn, "SHOW WARNINGS") == (("Note", 1305, "PLUGIN my_plug does not exist"),)
    expected = {
        "RESET MASTER": 1186,
        "START SLAVE": 1200,
        "RESET SLAVE 'c1'": 1617,
        "INSTALL PLUGIN my_plug SONAME 'some_plugin.so'": 1126,
        "INSTALL SONAME 'x'": 1126,
        "UNINSTALL PLUGIN my_plug": 1305,
        "UNINSTALL SONAME 'x'": 1305,
        "RESET": 1064,
        "RESET QUERY": 1064,
        "STOP SLAVE junk": 1064,
    }
    for sql, code in expected.items():
        assert clients.error(conn, sql)[0] == code, sql


def test_administration_needs_privileges(sql_server, scratch_db):
    conn, db = scratch_db
    q(conn, "CREATE USER IF NOT EXISTS 'eu_plain'@'%' IDENTIFIED BY 'pw'")
    q(conn, f"GRANT ALL ON {db}.* TO 'eu_plain'@'%'")
    plain = clients.connect(sql_server, user="eu_plain", password="pw", database=db)
    for sql in ["RESET QUERY CACHE", "STOP SLAVE", "INSTALL SONAME 'x'", "UNINSTALL PLUGIN p"]:
        assert clients.error(plain, sql)[0] == 1227, sql
    plain.close()
    q(conn, "DROP USER 'eu_plain'@'%'")


def test_multi_table_update_default_and_ignore(scratch_db):
    conn, _ = scratch_db
    q(conn, "CREATE TABLE t1 (a INT, b INT DEFAULT a)")
    q(conn, "CREATE TABLE t2 (a INT, b INT DEFAULT a)")
    q(conn, "INSERT INTO t1 VALUES (1,2),(2,3)")
    q(conn, "INSERT INTO t2 VALUES (1,10),(2,30)")
    q(conn, "UPDATE t1, t2 SET t1.b = DEFAULT, t2.b = IGNORE WHERE t1.a = t2.a")
    assert q(conn, "SELECT * FROM t1 ORDER BY a") == ((1, 1), (2, 2))
    assert q(conn, "SELECT * FROM t2 ORDER BY a") == ((1, 10), (2, 30))
    q(conn, "EXECUTE IMMEDIATE 'UPDATE t1 x, t2 SET x.b = ?, t2.b = ? WHERE x.a = t2.a' USING 9, DEFAULT")
    assert q(conn, "SELECT * FROM t1 ORDER BY a") == ((1, 9), (2, 9))
    assert q(conn, "SELECT * FROM t2 ORDER BY a") == ((1, 1), (2, 2))


def test_on_duplicate_key_update_ignore_is_default(scratch_db):
    conn, _ = scratch_db
    q(conn, "CREATE TABLE t1 (a INT NOT NULL PRIMARY KEY AUTO_INCREMENT)")
    q(conn, "CREATE TABLE t2 (a INT)")
    q(conn, "INSERT INTO t2 VALUES (1),(2),(3),(2)")
    q(conn, "INSERT INTO t1 SELECT a FROM t2 ON DUPLICATE KEY UPDATE a = IGNORE")
    assert q(conn, "SELECT a FROM t1 ORDER BY a") == ((0,), (1,), (3,))
