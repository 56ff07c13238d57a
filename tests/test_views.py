"""Views in the SQL engine (issue #23): CREATE [OR REPLACE] / ALTER / DROP VIEW,
what SHOW, DESCRIBE and information_schema say about them, the MySQL types
of their result columns, and the errors MariaDB 10.11 gives (each expected
value below was read from MariaDB 10.11 for the same statements; where
Turnstile differs on purpose the test says so and docs/compatibility.md
lists it). Security (other databases, nesting bounds) is
tests/security/test_sec_views.py; dumps with views are in tests/test_dump.py.
"""

from __future__ import annotations

import mysql.connector
import pymysql
import pytest

from helpers import clients
from helpers.server import ROOT_PASSWORD

NEWDECIMAL, LONG, DATETIME, VAR_STRING, LONGLONG = 246, 3, 12, 253, 8


@pytest.fixture
def db(sql_server, uniq):
    name = uniq("vw")
    root = clients.root(sql_server)
    clients.query(root, f"CREATE DATABASE {name}")
    clients.query(root, f"USE {name}")
    clients.query(root, "CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(20) NOT NULL DEFAULT 'x', price DECIMAL(8,2), d DATETIME)")
    clients.query(root, "INSERT INTO t VALUES (1,'a',1.50,'2024-01-02 03:04:05'),(2,'b',NULL,NULL)")
    yield root, name
    clients.query(root, f"DROP DATABASE {name}")
    root.close()


def _err(conn, sql) -> int:
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, sql)
    return ei.value.args[0]


def _warnings(conn):
    return clients.query(conn, "SHOW WARNINGS")


def test_select_from_a_view_reads_through_it(db):
    root, name = db
    clients.query(root, "CREATE VIEW v AS SELECT id, name, price * 2 AS p2 FROM t WHERE id > 0")
    assert clients.query(root, "SELECT id, name, p2 FROM v ORDER BY id") == ((1, "a", pymysql.converters.Decimal("3.00")), (2, "b", None))
    clients.query(root, "CREATE VIEW vv AS SELECT v.id, t.name FROM v JOIN t ON t.id = v.id")
    assert clients.query(root, "SELECT * FROM vv ORDER BY id") == ((1, "a"), (2, "b"))
    assert clients.query(root, "SELECT COUNT(*) FROM (SELECT * FROM vv) d WHERE id IN (SELECT id FROM v)") == ((2,),)
    assert clients.query(root, "WITH c AS (SELECT id FROM v) SELECT MAX(id) FROM c") == ((2,),)
    assert clients.query(root, f"SELECT name FROM `{name}`.`v` WHERE id = 2") == (("b",),)


def test_a_temporary_table_does_not_shadow_a_views_table(db):
    """A view reads its database's table even while the session has a
    TEMPORARY table of that name (MySQL: views never read temporary tables)."""
    root, name = db
    clients.query(root, "CREATE VIEW v AS SELECT id FROM t")
    clients.query(root, "CREATE TEMPORARY TABLE t (id INT)")
    clients.query(root, "INSERT INTO t VALUES (99)")
    assert clients.query(root, "SELECT id FROM t") == ((99,),)
    assert clients.query(root, "SELECT id FROM v ORDER BY id") == ((1,), (2,))


def test_a_view_of_another_database_is_read_where_it_lives(db, sql_server, uniq):
    """From a session whose current database is another one, `db.v` is read
    in v's database (its body names `t` unqualified)."""
    root, name = db
    other = uniq("vwo")
    clients.query(root, "CREATE VIEW v AS SELECT id, name FROM t")
    clients.query(root, f"CREATE DATABASE {other}")
    try:
        clients.query(root, f"CREATE TABLE {other}.t (id INT, name VARCHAR(5))")
        clients.query(root, f"INSERT INTO {other}.t VALUES (9, 'wrong')")
        conn = clients.root(sql_server)
        clients.query(conn, f"USE {other}")
        assert clients.query(conn, f"SELECT id, name FROM {name}.v ORDER BY id") == ((1, "a"), (2, "b"))
        assert clients.query(conn, f"SELECT o.name FROM t o JOIN {name}.v w ON w.id = 1") == (("wrong",),)
        conn.close()
    finally:
        clients.query(root, f"DROP DATABASE {other}")


def test_result_metadata_carries_mysql_types_and_the_view_name(db, sql_server):
    root, name = db
    clients.query(root, "CREATE VIEW v AS SELECT id, name, price, d FROM t")
    conn = clients.root(sql_server)
    cur = conn.cursor()
    cur.execute(f"SELECT * FROM {name}.v")
    assert [(c[0], c[1]) for c in cur.description] == [("id", LONG), ("name", VAR_STRING), ("price", NEWDECIMAL), ("d", DATETIME)]
    fields = cur._result.fields
    # MariaDB: table and org_table are the view, not the table under it.
    assert {(f.table_name, f.org_table) for f in fields} == {("v", "v")}
    assert cur.fetchall()[0][2] == pymysql.converters.Decimal("1.50")
    # Computed columns are typed as when the view was made (MariaDB: DECIMAL(9,2), BIGINT).
    clients.query(root, "CREATE VIEW agg AS SELECT price * 2 AS p2, COUNT(*) AS n FROM t GROUP BY price")
    cur.execute(f"SELECT p2, n FROM {name}.agg WHERE p2 IS NOT NULL")
    assert [(c[0], c[1]) for c in cur.description] == [("p2", NEWDECIMAL), ("n", LONGLONG)]
    assert cur.fetchall() == ((pymysql.converters.Decimal("3.00"), 1),)
    cur.execute(f"SELECT a.p2 AS x, COUNT(*) AS p2 FROM {name}.agg a GROUP BY a.p2 ORDER BY 1 DESC LIMIT 1")
    assert [(c[0], c[1]) for c in cur.description] == [("x", NEWDECIMAL), ("p2", LONGLONG)]
    conn.close()
    # Binary protocol (a server-side prepared statement) too.
    mc = mysql.connector.connect(host="127.0.0.1", port=sql_server.port, user="root", password=ROOT_PASSWORD, database=name)
    c = mc.cursor(prepared=True)
    c.execute("SELECT id, price FROM v WHERE id = ?", (1,))
    assert [d[1] for d in c.description] == [LONG, NEWDECIMAL]
    assert c.fetchall() == [(1, pymysql.converters.Decimal("1.50"))]
    mc.close()


def test_show_and_information_schema(db):
    root, name = db
    clients.query(root, "CREATE VIEW v2 (x, y) AS SELECT id, name FROM t WHERE id > 1 WITH CHECK OPTION")
    cur = root.cursor()
    cur.execute("SHOW CREATE VIEW v2")
    assert [d[0] for d in cur.description] == ["View", "Create View", "character_set_client", "collation_connection"]
    row = cur.fetchone()
    assert row[0] == "v2"
    assert row[1].startswith("CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`")
    # The query as MariaDB prints it: the column list becomes each item's name.
    assert row[1].endswith(" SQL SECURITY DEFINER VIEW `v2` AS select `t`.`id` AS `x`,`t`.`name` AS `y` from `t` where `t`.`id` > 1 WITH CASCADED CHECK OPTION")
    # SHOW CREATE TABLE of a view answers as SHOW CREATE VIEW (MariaDB).
    cur.execute("SHOW CREATE TABLE v2")
    assert [d[0] for d in cur.description][:2] == ["View", "Create View"]
    assert clients.query(root, "SHOW FULL TABLES") == (("t", "BASE TABLE"), ("v2", "VIEW"))
    got = clients.query(root, f"SELECT TABLE_NAME, TABLE_TYPE, ENGINE, TABLE_ROWS, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = '{name}' ORDER BY 1")
    assert got == (("t", "BASE TABLE", "InnoDB", 0, ""), ("v2", "VIEW", None, None, "VIEW"))
    got = clients.query(root, f"SELECT TABLE_NAME, CHECK_OPTION, SECURITY_TYPE, ALGORITHM, VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = '{name}'")
    assert got == (("v2", "CASCADED", "DEFINER", "UNDEFINED", "select `t`.`id` AS `x`,`t`.`name` AS `y` from `t` where `t`.`id` > 1"),)
    assert clients.query(root, f"SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '{name}' AND TABLE_NAME = 'v2' ORDER BY ORDINAL_POSITION") == (("x",), ("y",))
    status = {r[0]: r for r in clients.query(root, "SHOW TABLE STATUS")}
    assert status["v2"][1] is None and status["v2"][17] == "VIEW"
    assert [r[0] for r in clients.query(root, "DESCRIBE v2")] == ["x", "y"]


def test_view_options_are_kept(db):
    root, name = db
    clients.query(root, "CREATE ALGORITHM=MERGE DEFINER=`someone`@`localhost` SQL SECURITY INVOKER VIEW v AS SELECT id FROM t WITH LOCAL CHECK OPTION")
    text = clients.query(root, "SHOW CREATE VIEW v")[0][1]
    assert text == "CREATE ALGORITHM=MERGE DEFINER=`someone`@`localhost` SQL SECURITY INVOKER VIEW `v` AS select `t`.`id` AS `id` from `t` WITH LOCAL CHECK OPTION"
    clients.query(root, "CREATE DEFINER=CURRENT_USER VIEW w AS SELECT 1 AS one")
    assert clients.query(root, "SHOW CREATE VIEW w")[0][1].startswith("CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`")


def test_or_replace_and_alter_view(db):
    root, name = db
    clients.query(root, "CREATE VIEW v AS SELECT id FROM t")
    assert _err(root, "CREATE VIEW v AS SELECT name FROM t") == 1050
    clients.query(root, "CREATE OR REPLACE VIEW v AS SELECT name FROM t")
    assert clients.query(root, "SELECT * FROM v ORDER BY 1") == (("a",), ("b",))
    clients.query(root, "ALTER VIEW v (n) AS SELECT id FROM t WHERE id = 2")
    assert clients.query(root, "SELECT n FROM v") == ((2,),)
    assert _err(root, "ALTER VIEW nope AS SELECT 1") == 1146
    assert _err(root, "ALTER VIEW t AS SELECT 1") == 1347
    assert _err(root, "CREATE VIEW t AS SELECT 1") == 1050
    assert _err(root, "CREATE OR REPLACE VIEW t AS SELECT 1") == 1050


def test_errors_as_mariadb_gives_them(db):
    root, name = db
    clients.query(root, "CREATE VIEW v AS SELECT id, name FROM t")
    assert _err(root, "DROP TABLE v") == 1965
    clients.query(root, "DROP TABLE IF EXISTS v")
    assert _warnings(root) == (("Note", 1965, f"'{name}.v' is a view"),)
    assert clients.query(root, "SELECT COUNT(*) FROM v") == ((2,),)
    assert _err(root, "DROP VIEW t") == 4092
    assert _err(root, "DROP VIEW nope") == 4092
    clients.query(root, "DROP VIEW IF EXISTS nope, nope2")
    assert _warnings(root) == (("Note", 4092, f"Unknown VIEW: '{name}.nope,{name}.nope2'"),)
    assert _err(root, "ALTER TABLE v ADD COLUMN z INT") == 1347
    assert _err(root, "CREATE INDEX i ON v (id)") == 1347
    assert _err(root, "TRUNCATE TABLE v") == 1146
    assert _err(root, "SHOW CREATE VIEW t") == 1347
    assert _err(root, "CREATE VIEW w AS SELECT @a") == 1351
    assert _err(root, "CREATE VIEW w AS SELECT 1 a, 2 a") == 1060
    assert _err(root, "CREATE VIEW w (a) AS SELECT 1, 2") == 1353
    clients.query(root, "CREATE TEMPORARY TABLE tt (a INT)")
    assert _err(root, "CREATE VIEW w AS SELECT * FROM tt") == 1352
    assert _err(root, "CREATE VIEW w AS SELECT nope FROM t") == 1054
    assert _err(root, "CREATE VIEW w AS SELECT * FROM nope") == 1146
    assert _err(root, "CREATE VIEW w AS") == 1064


def test_writes_through_a_single_table_view(db):
    """INSERT (column list, none, SET), REPLACE, ON DUPLICATE KEY UPDATE,
    UPDATE and DELETE (ORDER BY/LIMIT) through a view with renamed and
    computed columns go to its table (view_dml.rs); rows and affected counts
    as MariaDB 10.11 gives them for the same statements."""
    root, name = db
    clients.query(root, "CREATE VIEW v (k, n, p2) AS SELECT id, name, price * 2 FROM t WHERE id < 50")
    with root.cursor() as c:
        assert c.execute("INSERT INTO v (k, n) VALUES (3, 'c')") == 1
        assert c.execute("INSERT INTO v SET k = 4, n = 'd'") == 1
        assert c.execute("REPLACE INTO v (k, n) VALUES (4, 'dd')") == 2
        assert c.execute("INSERT INTO v (k, n) VALUES (3, 'z') ON DUPLICATE KEY UPDATE n = CONCAT(n, '!')") == 2
        assert c.execute("UPDATE v SET n = UPPER(n) WHERE p2 > 2 OR k = 3") == 2
        assert c.execute("UPDATE v SET n = 'last' ORDER BY k DESC LIMIT 1") == 1
        assert c.execute("DELETE FROM v WHERE k = 1") == 1
    assert clients.query(root, "SELECT id, name, price FROM t ORDER BY id") == ((2, "b", None), (3, "C!", None), (4, "last", None))
    assert _err(root, "INSERT INTO v VALUES (9, 'q', 1)") == 1471
    assert _err(root, "UPDATE v SET p2 = 1") == 1348
    # A view of the view: written through both.
    clients.query(root, "CREATE VIEW vv AS SELECT k AS kk, n FROM v WHERE k > 2")
    clients.query(root, "UPDATE vv SET n = 'via vv' WHERE kk = 3")
    clients.query(root, "INSERT INTO vv (kk, n) VALUES (5, 'e')")
    clients.query(root, "DELETE FROM vv WHERE kk = 4")
    clients.query(root, "DELETE FROM vv WHERE kk = 2")  # not in vv: nothing
    assert clients.query(root, "SELECT id, name FROM t ORDER BY id") == ((2, "b"), (3, "via vv"), (5, "e"))


def test_multi_table_writes_naming_a_view(db):
    """UPDATE t2, v SET v.c ... and DELETE v FROM t2, v: the view's table is
    written, through the view's names and within its WHERE (MariaDB 10.11:
    the same rows and counts); an expression column is 1348, a join view
    1395 for DELETE."""
    root, name = db
    clients.query(root, "CREATE TABLE t2 (x INT)")
    clients.query(root, "INSERT INTO t2 VALUES (1), (2), (3)")
    clients.query(root, "INSERT INTO t VALUES (3, 'c', 3, NULL), (60, 'big', 60, NULL)")
    clients.query(root, "CREATE VIEW v (k, n, p2) AS SELECT id, name, price * 2 FROM t WHERE id < 50")
    with root.cursor() as c:
        assert c.execute("UPDATE t2, v SET v.n = CONCAT(v.n, '+') WHERE t2.x = v.k AND v.k > 1") == 2
        assert c.execute("DELETE v FROM t2, v WHERE t2.x = v.k AND v.k = 3") == 1
        assert c.execute("UPDATE t2, t AS big SET big.name = 'B' WHERE big.id = 60 AND t2.x = 1") == 1
    assert _err(root, "UPDATE t2, v SET v.p2 = 1 WHERE t2.x = v.k") == 1348
    clients.query(root, "CREATE VIEW vj AS SELECT t.id, t2.x FROM t JOIN t2 ON t.id = t2.x")
    assert _err(root, "DELETE vj FROM vj, t2 WHERE vj.x = t2.x") == 1395
    assert clients.query(root, "SELECT id, name FROM t ORDER BY id") == ((1, "a"), (2, "b+"), (60, "B"))


def test_views_that_cannot_be_written(db):
    """MariaDB's errors for a view that is not updatable, and for a join
    view: one table's columns per write (1393), a column list for INSERT
    (1394), no DELETE (1395); nothing is written."""
    root, name = db
    for sql in [
        "CREATE VIEW vd AS SELECT DISTINCT name FROM t",
        "CREATE VIEW vl AS SELECT id FROM t LIMIT 1",
        "CREATE VIEW vg AS SELECT COUNT(*) c FROM t",
        "CREATE VIEW vu AS SELECT id FROM t UNION SELECT id FROM t",
        "CREATE ALGORITHM=TEMPTABLE VIEW vt AS SELECT id, name FROM t",
        "CREATE TABLE u (uid INT PRIMARY KEY, t_id INT, note VARCHAR(10))",
        "INSERT INTO u VALUES (1, 2, 'u1'), (2, 3, 'u2')",
        "CREATE VIEW vj AS SELECT id, name, uid, note FROM t JOIN u ON t.id = u.t_id",
    ]:
        clients.query(root, sql)
    assert _err(root, "INSERT INTO vd VALUES ('x')") == 1471
    assert _err(root, "UPDATE vl SET id = 9") == 1288
    assert _err(root, "DELETE FROM vg") == 1288
    assert _err(root, "INSERT INTO vu VALUES (1)") == 1471
    assert _err(root, "UPDATE vt SET name = 'n'") == 1288
    assert _err(root, "UPDATE vj SET note = 'j2', name = 'nn'") == 1393
    assert _err(root, "INSERT INTO vj VALUES (8, 'n', 9, 'x')") == 1394
    assert _err(root, "DELETE FROM vj") == 1395
    with root.cursor() as c:
        assert c.execute("UPDATE vj SET note = 'j' WHERE name = 'b'") == 1
        assert c.execute("INSERT INTO vj (uid, note) VALUES (7, 'ins')") == 1
    assert clients.query(root, "SELECT * FROM u ORDER BY uid") == ((1, 2, "j"), (2, 3, "u2"), (7, None, "ins"))
    assert clients.query(root, "SELECT id, name FROM t ORDER BY id") == ((1, "a"), (2, "b"))


def test_with_check_option(db):
    """WITH CHECK OPTION: a row the view would not show is 1369 (SQLSTATE
    44000) naming the view the statement names; under IGNORE it is left out
    with warning 1369 (a single row fails even then). LOCAL tests the view's own WHERE, CASCADED the views'
    below too. A view that cannot be written takes no CHECK OPTION (1368)."""
    root, name = db
    clients.query(root, "CREATE VIEW vc AS SELECT id, name FROM t WHERE id < 10 WITH CHECK OPTION")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(root, "INSERT INTO vc VALUES (20, 'out')")
    assert ei.value.args == (1369, f"CHECK OPTION failed `{name}`.`vc`")
    with root.cursor() as c:
        assert c.execute("INSERT IGNORE INTO vc VALUES (6, 'in'), (21, 'out'), (22, 'out')") == 1
    assert [w[1] for w in _warnings(root)] == [1369, 1369]
    # One row fails even under IGNORE, as MariaDB's.
    assert _err(root, "INSERT IGNORE INTO vc VALUES (40, 'one')") == 1369
    assert _err(root, "UPDATE vc SET id = id + 100 WHERE id = 6") == 1369
    with root.cursor() as c:
        assert c.execute("UPDATE IGNORE vc SET id = id + 100 WHERE id >= 5") == 0
    assert [w[1] for w in _warnings(root)] == [1369]
    clients.query(root, "CREATE VIEW vloc AS SELECT id, name FROM vc WHERE id > 1 WITH LOCAL CHECK OPTION")
    clients.query(root, "CREATE VIEW vcas AS SELECT id, name FROM vc WHERE id > 1 WITH CASCADED CHECK OPTION")
    clients.query(root, "INSERT INTO vloc VALUES (30, 'loc')")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(root, "INSERT INTO vcas VALUES (31, 'cas')")
    assert ei.value.args == (1369, f"CHECK OPTION failed `{name}`.`vcas`")
    assert _err(root, "INSERT INTO vcas VALUES (1, 'cas')") == 1369
    assert _err(root, "CREATE VIEW vg AS SELECT COUNT(*) FROM t WITH CHECK OPTION") == 1368
    assert clients.query(root, "SELECT id FROM t ORDER BY id") == ((1,), (2,), (6,), (30,))


def test_repeated_generated_names_and_renamed_views(db):
    """`SELECT 'k', 'k'`: MariaDB names the second column My_exp_k (1060 only
    for names the client gave twice). RENAME TABLE renames a view, and a
    list of renames sees the ones before it (a swap through a spare name)."""
    root, name = db
    clients.query(root, "CREATE VIEW vk AS SELECT 'k', 'k', 1+1, 1+1, name AS k FROM t")
    with root.cursor() as c:
        c.execute("SELECT * FROM vk LIMIT 1")
        assert [d[0] for d in c.description] == ["My_exp_1_k", "My_exp_k", "1+1", "My_exp_1+1", "k"]
    assert _err(root, "CREATE VIEW vk2 AS SELECT id, name AS id FROM t") == 1060
    clients.query(root, "CREATE VIEW vr AS SELECT id FROM t")
    clients.query(root, "CREATE TABLE t2 (a INT)")
    clients.query(root, "RENAME TABLE vr TO vr2, t TO t_tmp, t2 TO t, t_tmp TO t2")
    assert clients.query(root, "SELECT COUNT(*) FROM t2") == ((2,),)
    assert clients.query(root, "SHOW FULL TABLES LIKE 'vr%'") == (("vr2", "VIEW"),)
    assert _err(root, "SELECT * FROM vr") == 1146
    assert _err(root, f"RENAME TABLE vr2 TO mysql.vr2") in (1450, 1044)


def test_a_view_whose_table_changed(db):
    root, name = db
    clients.query(root, "CREATE VIEW star AS SELECT * FROM t")
    clients.query(root, "CREATE VIEW listed (a, b, c, d) AS SELECT * FROM t")
    # Rebuilding the table under the views (ALTER TABLE copies it) works.
    clients.query(root, "ALTER TABLE t ADD COLUMN z INT")
    assert len(clients.query(root, "SELECT * FROM star")[0]) == 5
    # MySQL fixes `*` when the view is made: a listed view breaks (1356).
    assert _err(root, "SELECT * FROM listed") == 1356
    clients.query(root, "DROP TABLE t")
    assert _err(root, "SELECT * FROM star") == 1356
    # A view naming a dropped table does not block DDL on other tables.
    clients.query(root, "CREATE TABLE t2 (a INT)")
    clients.query(root, "ALTER TABLE t2 ADD COLUMN b INT")
    clients.query(root, "RENAME TABLE t2 TO t3")
    clients.query(root, "CREATE TABLE t (id INT, name VARCHAR(5), price INT, d INT, z INT)")
    clients.query(root, "INSERT INTO t VALUES (7, 'n', 1, 2, 3)")
    assert clients.query(root, "SELECT id, name FROM star") == ((7, "n"),)


def test_renaming_a_table_with_on_update_columns_keeps_them_working(db):
    """Renames run in SQLite's legacy mode (so views do not block them); the
    table's ON UPDATE triggers are made again under the new name."""
    root, name = db
    clients.query(root, "CREATE TABLE u (id INT PRIMARY KEY, a INT, ts DATETIME DEFAULT '2000-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP)")
    clients.query(root, "INSERT INTO u (id, a) VALUES (1, 1)")
    clients.query(root, "CREATE VIEW uv AS SELECT id, ts FROM u")
    clients.query(root, "RENAME TABLE u TO u2")
    clients.query(root, "UPDATE u2 SET a = 2")
    assert clients.query(root, "SELECT ts > '2001-01-01' FROM u2") == ((1,),)
    clients.query(root, "ALTER TABLE u2 RENAME TO u")
    assert clients.query(root, "SELECT COUNT(*) FROM uv") == ((1,),)


def test_views_survive_a_restart(server_factory):
    srv = server_factory(engine="sqlite")
    conn = clients.root(srv)
    for sql in ["CREATE DATABASE vr", "USE vr", "CREATE TABLE t (a INT)", "INSERT INTO t VALUES (1)", "CREATE VIEW v AS SELECT a + 1 AS b FROM t"]:
        clients.query(conn, sql)
    conn.close()
    assert srv.stop() == 0
    srv2 = server_factory(engine="sqlite", datadir=srv.datadir)
    conn = clients.root(srv2)
    clients.query(conn, "USE vr")
    assert clients.query(conn, "SELECT b FROM v") == ((2,),)
    assert clients.query(conn, "SHOW FULL TABLES") == (("t", "BASE TABLE"), ("v", "VIEW"))
    conn.close()


def test_a_view_of_another_database_is_made_from_here(db, uniq):
    """CREATE VIEW other.v from another current database (or none): its
    query names other's tables, as MariaDB's; the current database stays."""
    root, name = db
    other = uniq("vwo")
    clients.query(root, f"CREATE DATABASE {other}")
    try:
        clients.query(root, f"CREATE TABLE {other}.t1 (a INT, b INT)")
        clients.query(root, f"INSERT INTO {other}.t1 VALUES (1, 2)")
        clients.query(root, f"CREATE VIEW {other}.v1 AS SELECT a FROM {other}.t1")
        clients.query(root, f"ALTER VIEW {other}.v1 AS SELECT b FROM {other}.t1")
        assert clients.query(root, f"SELECT * FROM {other}.v1") == ((2,),)
        assert clients.query(root, "SELECT DATABASE()") == ((name,),)
        # An unqualified table is the current database's: not the view's file.
        clients.query(root, "CREATE TABLE t1 (a INT)")
        assert _err(root, f"CREATE VIEW {other}.v2 AS SELECT a FROM t1") == 1235
        assert _err(root, f"CREATE VIEW {uniq('nodb')}.v AS SELECT 1") == 1049
        clients.query(root, f"DROP VIEW {other}.v1")
        # With no database selected: a derived table of the view's database.
        clients.query(root, f"CREATE DATABASE {other}x")
        clients.query(root, f"USE {other}x")
        clients.query(root, f"DROP DATABASE {other}x")
        clients.query(root, f"CREATE VIEW {other}.v3 AS SELECT * FROM (SELECT * FROM {other}.t1) d")
        assert clients.query(root, f"SELECT a, b FROM {other}.v3") == ((1, 2),)
        assert _err(root, f"CREATE VIEW {other}.v4 AS SELECT * FROM t1") == 1046
        assert clients.query(root, "SELECT DATABASE()") == ((None,),)
    finally:
        clients.query(root, f"DROP DATABASE {other}")
        clients.query(root, f"USE {name}")


def test_session_functions_in_a_view_are_the_readers(db, sql_server):
    """CONNECTION_ID(), USER() and CURRENT_USER in a view's query are
    evaluated for the session reading it (not written in when it is made);
    a system variable in it is 1351, as MariaDB says."""
    root, name = db
    clients.query(root, "CREATE VIEW who AS SELECT CONNECTION_ID() AS c, USER() AS u, CURRENT_USER AS cu, CURRENT_USER() AS cu2, SESSION_USER() AS su")
    other = clients.root(sql_server)
    try:
        clients.query(other, f"USE {name}")
        for conn in (root, other):
            (cid,), = clients.query(conn, "SELECT CONNECTION_ID()")
            (u,), = clients.query(conn, "SELECT USER()")
            (cu,), = clients.query(conn, "SELECT CURRENT_USER()")
            assert clients.query(conn, "SELECT * FROM who") == ((cid, u, cu, cu, u),)
    finally:
        other.close()
    assert _err(root, "CREATE VIEW sv AS SELECT a + @@global.max_user_connections FROM t") == 1351
    # NOT NULL DEFAULT NULL beside AUTO_INCREMENT: the default is dropped (MariaDB).
    clients.query(root, "CREATE TABLE ai (a INT NOT NULL DEFAULT NULL AUTO_INCREMENT PRIMARY KEY)")
    assert "`a` int(11) NOT NULL AUTO_INCREMENT," in clients.query(root, "SHOW CREATE TABLE ai")[0][1]


def test_show_create_view_prints_the_query_as_mariadb(db):
    """SHOW CREATE VIEW and information_schema.VIEWS show a simple query as
    MariaDB prints it (columns qualified and named, `*` expanded); others as
    written. DROP VIEW drops the views that exist before naming the others
    (4092); the session's character set is kept with the view."""
    root, name = db
    clients.query(root, "CREATE VIEW v (c) AS select price+1 from t where id > 0 order by 1")
    shown = "select `t`.`price` + 1 AS `c` from `t` where `t`.`id` > 0 order by 1"
    assert clients.query(root, "SHOW CREATE VIEW v")[0][1].endswith(f"VIEW `v` AS {shown}")
    assert clients.query(root, f"SELECT VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = '{name}'") == ((shown,),)
    clients.query(root, "CREATE VIEW s AS SELECT * FROM t, v")
    assert clients.query(root, "SHOW CREATE VIEW s")[0][1].endswith("AS select `t`.`id` AS `id`,`t`.`name` AS `name`,`t`.`price` AS `price`,`t`.`d` AS `d`,`v`.`c` AS `c` from (`t` join `v`)")
    clients.query(root, "CREATE VIEW u AS SELECT id FROM t UNION SELECT 2")
    assert clients.query(root, "SHOW CREATE VIEW u")[0][1].endswith("AS select `t`.`id` AS `id` from `t` union select 2 AS `2`")
    clients.query(root, "CREATE VIEW x AS SELECT id FROM t INTERSECT SELECT 2")
    assert clients.query(root, "SHOW CREATE VIEW x")[0][1].endswith("AS SELECT id FROM t INTERSECT SELECT 2")
    assert _err(root, "DROP VIEW nosuch, s") == 4092
    assert _err(root, "SELECT * FROM s") == 1146
    clients.query(root, "SET NAMES latin1")
    clients.query(root, "CREATE VIEW l AS SELECT 1 AS one")
    assert clients.query(root, "SHOW CREATE VIEW l")[0][2:] == ("latin1", "latin1_swedish_ci")
    clients.query(root, "SET NAMES utf8mb4")
    # DEFINER = CURRENT_USER() is the definition's own clause, not a value.
    clients.query(root, "CREATE DEFINER = CURRENT_USER() SQL SECURITY INVOKER VIEW w AS SELECT 1")
    assert "DEFINER=`root`@`" in clients.query(root, "SHOW CREATE VIEW w")[0][1]


def test_a_refused_drop_keeps_the_sessions_temporary_table_its_own(db, sql_server):
    """DROP TABLE naming a system schema's table is 1044 before anything is
    dropped: the TEMPORARY table it also names stays the session's (it was
    dropped in SQLite, kept by the rollback, and its connection went back
    to the pool for another session to see)."""
    root, name = db
    clients.query(root, "CREATE TEMPORARY TABLE tt (a INT)")
    assert _err(root, "DROP TABLE tt, information_schema.tables") == 1044
    assert clients.query(root, "SELECT COUNT(*) FROM tt") == ((0,),)
    other = clients.root(sql_server)
    try:
        clients.query(other, f"USE {name}")
        clients.query(other, "CREATE TEMPORARY TABLE tt (b INT)")
        assert clients.query(other, "SELECT b FROM tt") == ()
    finally:
        other.close()
    clients.query(root, "DROP TEMPORARY TABLE tt")


@pytest.mark.parametrize(
    "query, shown",
    [
        # Each shown text is MariaDB 10.11's SHOW CREATE VIEW for the query.
        ("SELECT id FROM t WHERE id IN (SELECT id FROM t WHERE price > 1)", "select `t`.`id` AS `id` from `t` where `t`.`id` in (select `t`.`id` from `t` where `t`.`price` > 1)"),
        ("SELECT * FROM (SELECT id, price*2 FROM t) d WHERE d.id > 1", "select `d`.`id` AS `id`,`d`.`price*2` AS `price*2` from (select `t`.`id` AS `id`,`t`.`price` * 2 AS `price*2` from `t`) `d` where `d`.`id` > 1"),
        ("WITH c (n) AS (SELECT id FROM t) SELECT n FROM c", "with c(`n`) as (select `t`.`id` AS `n` from `t`)select `c`.`n` AS `n` from `c`"),
        ("SELECT a.id FROM t a LEFT JOIN t b ON (a.id = b.id + 1)", "select `a`.`id` AS `id` from (`t` `a` left join `t` `b` on(`a`.`id` = `b`.`id` + 1))"),
        (
            "SELECT id, COUNT(*) OVER (PARTITION BY name ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS c FROM t",
            "select `t`.`id` AS `id`,count(0) over ( partition by `t`.`name` order by `t`.`id` rows between 1 preceding  and  current row ) AS `c` from `t`",
        ),
        ("SELECT id AS x, (SELECT x) AS y FROM t", "select `t`.`id` AS `x`,(select `x`) AS `y` from `t`"),
        ("SELECT '' FROM t", "select '' AS `Name_exp_1` from `t`"),
    ],
)
def test_show_create_view_prints_nested_queries_as_mariadb(db, query, shown):
    """Subqueries, derived tables, CTEs, joins and window functions are
    printed as MariaDB prints them too, and the view reads as its query."""
    root, name = db
    clients.query(root, f"CREATE VIEW nv AS {query}")
    assert clients.query(root, "SHOW CREATE VIEW nv")[0][1].endswith(f"VIEW `nv` AS {shown}")
    assert clients.query(root, "SELECT * FROM nv") == clients.query(root, query)


def test_a_subquery_names_an_earlier_items_alias_in_a_view(db):
    """`SELECT a AS x, (SELECT x) AS y`: the view reads x's value there, as
    MariaDB does (the view's body is the query with the alias written out)."""
    root, name = db
    clients.query(root, "CREATE VIEW av AS SELECT id AS x, (SELECT x) AS y, (SELECT y) AS z FROM t")
    assert clients.query(root, "SELECT * FROM av ORDER BY x") == ((1, 1, 1), (2, 2, 2))
    assert clients.query(root, "SELECT SUM(z) FROM av") == ((pymysql.converters.Decimal("3"),),)
    # With a table in between (that could have the name) Turnstile leaves it
    # 1054 on purpose; MariaDB reads x's value there too.
    assert _err(root, "CREATE VIEW bv AS SELECT id AS x, (SELECT MAX(x) FROM t AS u) AS y FROM t") == 1054


def test_alter_view_keeps_what_it_does_not_restate_and_view_fields_without_default(db):
    """ALTER VIEW keeps ALGORITHM and SQL SECURITY unless it restates them;
    a column left without a value by an INSERT through a view is the view's
    field: 1423 (a warning under IGNORE), as MariaDB names it."""
    root, name = db
    clients.query(root, "CREATE TABLE nd (a INT NOT NULL, b INT)")
    clients.query(root, "CREATE ALGORITHM=TEMPTABLE SQL SECURITY INVOKER VIEW kv AS SELECT a FROM nd")
    clients.query(root, "ALTER VIEW kv AS SELECT a, b FROM nd")
    text = clients.query(root, "SHOW CREATE VIEW kv")[0][1]
    assert text.startswith("CREATE ALGORITHM=TEMPTABLE DEFINER=") and "SQL SECURITY INVOKER VIEW `kv` AS select `nd`.`a` AS `a`,`nd`.`b` AS `b` from `nd`" in text
    clients.query(root, "ALTER ALGORITHM=MERGE VIEW kv AS SELECT b FROM nd")
    assert clients.query(root, "SHOW CREATE VIEW kv")[0][1].startswith("CREATE ALGORITHM=MERGE")
    assert _err(root, "INSERT INTO kv (b) VALUES (1)") == 1423
    clients.query(root, "INSERT IGNORE INTO kv (b) VALUES (2)")
    assert [(w[1], w[2]) for w in _warnings(root)] == [(1423, f"Field of view '{name}.kv' underlying table doesn't have a default value")]


def test_a_view_over_information_schema(db):
    """A view reading information_schema (kept as its MySQL text, read as a
    derived table: crates/sqlite/src/view_expand.rs): made, read with a
    column list, joined and filtered, a view over it, not updatable, its
    base dropped 1356 (MariaDB's answers for the same statements)."""
    root, name = db
    clients.query(root, f"CREATE VIEW vi (c) AS SELECT table_name FROM information_schema.TABLES WHERE table_schema = '{name}' AND table_name LIKE 't%'")
    assert clients.query(root, "SELECT * FROM vi") == (("t",),)
    got = clients.query(root, "SELECT vi.c, v2.table_type FROM vi JOIN information_schema.TABLES v2 ON vi.c = v2.table_name WHERE vi.c LIKE 't%'")
    assert got == (("t", "BASE TABLE"),)
    assert clients.query(root, "SELECT t.id FROM t JOIN vi x ON x.c = 't' ORDER BY 1") == ((1,), (2,))
    assert clients.query(root, "DESCRIBE vi")[0][0] == "c"
    row = clients.query(root, f"SELECT CHECK_OPTION, IS_UPDATABLE, SECURITY_TYPE FROM information_schema.VIEWS WHERE TABLE_SCHEMA = '{name}' AND TABLE_NAME = 'vi'")
    assert row == (("NONE", "NO", "DEFINER"),)
    assert "information_schema.TABLES" in clients.query(root, "SHOW CREATE VIEW vi")[0][1]
    clients.query(root, "CREATE VIEW vv AS SELECT c FROM vi WHERE c = 't'")
    assert clients.query(root, "SELECT * FROM vv") == (("t",),)
    assert _err(root, "UPDATE vi SET c = 'x'") == 1288
    assert _err(root, "INSERT INTO vi VALUES ('x')") == 1471
    assert _err(root, "CREATE VIEW vc AS SELECT c FROM vi WITH CHECK OPTION") == 1368
    clients.query(root, "DROP VIEW vi")
    assert _err(root, "SELECT * FROM vv") == 1356
    clients.query(root, "DROP VIEW vv")


def test_a_view_calling_stored_functions(db):
    """Stored functions in a view's query (the view kept as text; the front
    writes the calls out where it is read: crates/sqlite/src/exec/view_calls.rs):
    made, typed as the functions' RETURNS, read, joined, a view over it, and
    1356 once the function is dropped (MariaDB 10.11's answers)."""
    root, name = db
    clients.query(root, "CREATE FUNCTION vf1() RETURNS INT RETURN 7")
    clients.query(root, "CREATE FUNCTION vf2(x INT) RETURNS VARCHAR(10) RETURN CONCAT('v', x)")
    clients.query(root, "CREATE VIEW vc1 AS SELECT vf1() FROM t")
    clients.query(root, "CREATE VIEW vc2 AS SELECT id, vf2(id) AS s, vf1() AS k FROM t")
    clients.query(root, "CREATE VIEW vc3 AS SELECT vf1()")
    clients.query(root, "CREATE VIEW vc4 AS SELECT * FROM vc3")
    assert clients.query(root, "SELECT * FROM vc1") == ((7,), (7,))
    assert clients.query(root, "SELECT * FROM vc2 ORDER BY id") == ((1, "v1", 7), (2, "v2", 7))
    assert clients.query(root, "SELECT * FROM vc4") == ((7,),)
    assert clients.query(root, "SELECT vc1.`vf1()` + t.id FROM vc1 JOIN t ORDER BY 1") == ((8,), (8,), (9,), (9,))
    assert [r[:2] for r in clients.query(root, "DESCRIBE vc2")] == [("id", "int(11)"), ("s", "varchar(10)"), ("k", "int(11)")]
    assert clients.query(root, "DESCRIBE vc1")[0][:2] == ("vf1()", "int(11)")
    clients.query(root, "DROP FUNCTION vf1")
    for v in ["vc1", "vc2", "vc4"]:
        assert _err(root, f"SELECT * FROM {v}") == 1356, v
    assert _err(root, "SELECT vf1()") == 1305
    clients.query(root, "DROP FUNCTION vf2")
