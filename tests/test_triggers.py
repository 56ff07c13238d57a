"""Triggers (issue #23 item 5), with real clients: CREATE / DROP / SHOW
TRIGGERS / SHOW CREATE TRIGGER / information_schema.TRIGGERS, NEW and OLD,
SET NEW.col in BEFORE triggers, compound bodies with SIGNAL (the whole
statement undone), the forms of INSERT (VALUES, SELECT, SET, REPLACE, ON
DUPLICATE KEY UPDATE), UPDATE and DELETE, prepared statements, cascades
and their limit (trigger_max_nesting), persistence across a restart, DROP
TABLE and RENAME TABLE, and the mysql CLI's DELIMITER. Expected answers
are MariaDB 10.11's, checked on it.
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients, rawproto, stmtproto
from helpers.clients import ROOT_PASSWORD


@pytest.fixture
def db(scratch_db):
    return scratch_db


def code(exc) -> int:
    return exc.value.args[0]


def q(conn, sql):
    return clients.query(conn, sql)


def make_log_triggers(conn):
    q(conn, "CREATE TABLE t (id INT PRIMARY KEY, a INT, u INT UNIQUE)")
    q(conn, "CREATE TABLE log (n INT AUTO_INCREMENT PRIMARY KEY, msg VARCHAR(200))")
    q(
        conn,
        """CREATE TRIGGER bi BEFORE INSERT ON t FOR EACH ROW BEGIN
             DECLARE x INT DEFAULT 0;
             IF NEW.a < 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'negative a'; END IF;
             WHILE x < 2 DO SET x = x + 1; END WHILE;
             SET NEW.a = NEW.a + x;
             INSERT INTO log (msg) VALUES (CONCAT('bi ', NEW.id, ' ', NEW.a));
           END""",
    )
    for name, timing, event, text in [
        ("ai", "AFTER", "INSERT", "CONCAT('ai ', NEW.id, ' ', NEW.a)"),
        ("bu", "BEFORE", "UPDATE", "CONCAT('bu ', OLD.id, ' ', OLD.a, '->', NEW.a)"),
        ("au", "AFTER", "UPDATE", "CONCAT('au ', OLD.id, ' ', OLD.a, '->', NEW.a)"),
        ("bd", "BEFORE", "DELETE", "CONCAT('bd ', OLD.id, ' ', OLD.a)"),
        ("ad", "AFTER", "DELETE", "CONCAT('ad ', OLD.id, ' ', OLD.a)"),
    ]:
        q(conn, f"CREATE TRIGGER {name} {timing} {event} ON t FOR EACH ROW INSERT INTO log (msg) VALUES ({text})")


def log(conn):
    return [r[0] for r in q(conn, "SELECT msg FROM log ORDER BY n")]


def test_insert_fires_before_and_after_and_new_can_be_changed(db):
    conn, _ = db
    make_log_triggers(conn)
    q(conn, "INSERT INTO t VALUES (1, 10, 1), (2, 20, 2)")
    assert q(conn, "SELECT * FROM t ORDER BY id") == ((1, 12, 1), (2, 22, 2))
    assert log(conn) == ["bi 1 12", "ai 1 12", "bi 2 22", "ai 2 22"]


def test_signal_aborts_and_undoes_the_whole_statement(db):
    conn, _ = db
    make_log_triggers(conn)
    with pytest.raises(pymysql.err.MySQLError) as e:
        q(conn, "INSERT INTO t VALUES (3, 30, 3), (4, -1, 4)")
    assert code(e) == 1644 and "negative a" in str(e.value)
    assert q(conn, "SELECT COUNT(*) FROM t") == ((0,),)
    assert log(conn) == []
    # Inside a transaction only the statement is undone.
    q(conn, "BEGIN")
    q(conn, "INSERT INTO t VALUES (50, 1, 50)")
    with pytest.raises(pymysql.err.MySQLError):
        q(conn, "INSERT INTO t VALUES (51, -5, 51)")
    q(conn, "COMMIT")
    assert q(conn, "SELECT id, a FROM t") == ((50, 3),)


def test_update_delete_replace_and_duplicate_key_update(db):
    conn, _ = db
    make_log_triggers(conn)
    q(conn, "INSERT INTO t VALUES (1, 10, 1), (2, 20, 2)")
    q(conn, "DELETE FROM log")
    with conn.cursor() as cur:
        assert cur.execute("UPDATE t SET a = a + 1 WHERE id >= 1 ORDER BY id LIMIT 5") == 2
    assert log(conn) == ["bu 1 12->13", "au 1 12->13", "bu 2 22->23", "au 2 22->23"]
    q(conn, "DELETE FROM log")
    q(conn, "DELETE FROM t WHERE id = 2")
    assert log(conn) == ["bd 2 23", "ad 2 23"]
    q(conn, "DELETE FROM log")
    # REPLACE: BEFORE INSERT, then the conflicting row deleted (its triggers), then the insert.
    q(conn, "REPLACE INTO t VALUES (1, 100, 9)")
    assert log(conn) == ["bi 1 102", "bd 1 13", "ad 1 13", "ai 1 102"]
    q(conn, "DELETE FROM log")
    # ON DUPLICATE KEY UPDATE: BEFORE INSERT, then BEFORE/AFTER UPDATE on the duplicate.
    with conn.cursor() as cur:
        assert cur.execute("INSERT INTO t VALUES (1, 5, 7) ON DUPLICATE KEY UPDATE a = VALUES(a) + 1000") == 2
    assert log(conn) == ["bi 1 7", "bu 1 102->1007", "au 1 102->1007"]
    q(conn, "DELETE FROM log")
    q(conn, "INSERT INTO t (id, a, u) SELECT id + 10, a, u + 10 FROM t")
    assert q(conn, "SELECT * FROM t ORDER BY id") == ((1, 1007, 9), (11, 1009, 19))
    assert log(conn) == ["bi 11 1009", "ai 11 1009"]


def test_new_is_typed_and_defaults_and_auto_increment(db):
    conn, _ = db
    q(conn, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, d DECIMAL(5,2) DEFAULT 1.5, s VARCHAR(5) DEFAULT 'x')")
    q(conn, "CREATE TABLE seen (phase VARCHAR(6), id INT, d VARCHAR(20), s VARCHAR(20))")
    q(conn, "CREATE TRIGGER b BEFORE INSERT ON t FOR EACH ROW INSERT INTO seen VALUES ('before', NEW.id, NEW.d, NEW.s)")
    q(conn, "CREATE TRIGGER a AFTER INSERT ON t FOR EACH ROW INSERT INTO seen VALUES ('after', NEW.id, NEW.d, NEW.s)")
    q(conn, "INSERT INTO t (d) VALUES ('2.345')")
    q(conn, "INSERT INTO t SET s = 'yy'")
    assert q(conn, "SELECT * FROM seen") == (
        ("before", 0, "2.35", "x"),
        ("after", 1, "2.35", "x"),
        ("before", 0, "1.50", "yy"),
        ("after", 2, "1.50", "yy"),
    )
    assert q(conn, "SELECT LAST_INSERT_ID()") == ((2,),)


def test_create_errors(db):
    conn, name = db
    q(conn, "CREATE TABLE t (a INT)")
    q(conn, "CREATE VIEW v AS SELECT 1 AS a")
    cases = [
        ("CREATE TRIGGER x AFTER INSERT ON t FOR EACH ROW SET NEW.a = 1", 1362),
        ("CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET OLD.a = 1", 1362),
        ("CREATE TRIGGER x BEFORE DELETE ON t FOR EACH ROW SET @x = NEW.a", 1363),
        ("CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET @x = OLD.a", 1363),
        ("CREATE TRIGGER x BEFORE INSERT ON nosuch FOR EACH ROW SET @a = 1", 1146),
        ("CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW FOLLOWS nosuch SET @a = 1", 4031),
        ("CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW BEGIN SET @a = 1", 1064),
        ("CREATE OR REPLACE TRIGGER IF NOT EXISTS x BEFORE INSERT ON t FOR EACH ROW SET @a = 1", 1221),
        ("DROP TRIGGER nosuch", 1360),
        ("CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET NEW.nosuch = 1", 1054),
        ("CREATE TRIGGER x BEFORE UPDATE ON t FOR EACH ROW SET @a = OLD.nosuch", 1054),
        ("CREATE TRIGGER x BEFORE INSERT ON v FOR EACH ROW SET @a = 1", 1347),
        ("CREATE TRIGGER x AFTER INSERT ON t FOR EACH ROW SELECT 1", 1415),
    ]
    for sql, want in cases:
        with pytest.raises(pymysql.err.MySQLError) as e:
            q(conn, sql)
        assert code(e) == want, sql
    q(conn, "CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 1")
    with pytest.raises(pymysql.err.MySQLError) as e:
        q(conn, "CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 2")
    assert code(e) == 1359
    q(conn, "CREATE TRIGGER IF NOT EXISTS x BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 2")
    assert q(conn, "SHOW WARNINGS") == (("Note", 1359, f"Trigger '{name}.x' already exists"),)
    q(conn, "CREATE OR REPLACE TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 3")
    q(conn, "INSERT INTO t VALUES (0)")
    assert q(conn, "SELECT a FROM t") == ((3,),)
    q(conn, "DROP TRIGGER IF EXISTS nosuch")
    assert q(conn, "SHOW WARNINGS") == (("Note", 1360, "Trigger does not exist"),)


def test_show_and_information_schema(db):
    conn, name = db
    q(conn, "CREATE TABLE t (a INT)")
    q(conn, "CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW SET @x = NEW.a")
    q(conn, "CREATE TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW SET NEW.a = NEW.a * 10")
    q(conn, "CREATE TRIGGER t_bi0 BEFORE INSERT ON t FOR EACH ROW PRECEDES t_bi SET @y = 1")
    rows = q(conn, "SHOW TRIGGERS")
    assert [(r[0], r[1], r[2], r[3], r[4], r[7]) for r in rows] == [
        ("t_bi0", "INSERT", "t", "SET @y = 1", "BEFORE", "root@%"),
        ("t_bi", "INSERT", "t", "SET NEW.a = NEW.a * 10", "BEFORE", "root@%"),
        ("t_ai", "INSERT", "t", "SET @x = NEW.a", "AFTER", "root@%"),
    ]
    assert q(conn, "SHOW TRIGGERS LIKE 'nope'") == ()
    with conn.cursor() as cur:
        cur.execute("SHOW CREATE TRIGGER t_bi")
        assert [d[0] for d in cur.description] == ["Trigger", "sql_mode", "SQL Original Statement", "character_set_client", "collation_connection", "Database Collation", "Created"]
        assert cur.fetchone()[2] == "CREATE DEFINER=`root`@`%` TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW SET NEW.a = NEW.a * 10"
    got = q(
        conn,
        f"SELECT TRIGGER_NAME, EVENT_MANIPULATION, EVENT_OBJECT_TABLE, ACTION_ORDER, ACTION_TIMING, ACTION_ORIENTATION, ACTION_REFERENCE_NEW_ROW "
        f"FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = '{name}'",
    )
    assert got == (
        ("t_bi0", "INSERT", "t", 1, "BEFORE", "ROW", "NEW"),
        ("t_bi", "INSERT", "t", 2, "BEFORE", "ROW", "NEW"),
        ("t_ai", "INSERT", "t", 1, "AFTER", "ROW", "NEW"),
    )


def test_recursion_into_own_table_is_1442(db):
    conn, _ = db
    q(conn, "CREATE TABLE t (a INT)")
    q(conn, "INSERT INTO t VALUES (1)")
    q(conn, "CREATE TRIGGER r AFTER UPDATE ON t FOR EACH ROW UPDATE t SET a = 1")
    with pytest.raises(pymysql.err.MySQLError) as e:
        q(conn, "UPDATE t SET a = 5")
    assert code(e) == 1442
    assert q(conn, "SELECT a FROM t") == ((1,),)


def chain(conn, n):
    """Tables c0..cn, each c_k's trigger writing c_{k+1}."""
    for k in range(n + 1):
        q(conn, f"CREATE TABLE c{k} (a INT)")
    for k in range(n):
        q(conn, f"CREATE TRIGGER c{k}_ai AFTER INSERT ON c{k} FOR EACH ROW INSERT INTO c{k + 1} VALUES (NEW.a + 1)")


def test_cascade_depth_is_bounded_by_trigger_max_nesting(db, sql_server):
    conn, _ = db
    root = clients.root(sql_server)
    try:
        q(root, "SET GLOBAL trigger_max_nesting = 3")
        chain(conn, 3)
        # c0 -> c1 -> c2 -> c3: three statements firing triggers, at the limit.
        q(conn, "INSERT INTO c0 VALUES (0)")
        assert q(conn, "SELECT a FROM c3") == ((3,),)
        q(conn, "CREATE TABLE c4 (a INT)")
        q(conn, "CREATE TRIGGER c3_ai AFTER INSERT ON c3 FOR EACH ROW INSERT INTO c4 VALUES (NEW.a + 1)")
        q(conn, "CREATE TRIGGER c4_ai AFTER INSERT ON c4 FOR EACH ROW SET @x = 1")
        with pytest.raises(pymysql.err.MySQLError) as e:
            q(conn, "INSERT INTO c0 VALUES (10)")
        assert code(e) == 1436
        assert q(conn, "SELECT COUNT(*) FROM c3") == ((1,),)
        q(root, "SET GLOBAL trigger_max_nesting = 1000")
        q(conn, "INSERT INTO c0 VALUES (20)")
        assert q(conn, "SELECT MAX(a) FROM c4") == ((24,),)
    finally:
        q(root, "SET GLOBAL trigger_max_nesting = 32")
        root.close()


def test_long_chain_with_the_default_limit(db):
    conn, _ = db
    chain(conn, 30)
    q(conn, "INSERT INTO c0 VALUES (0)")
    assert q(conn, "SELECT a FROM c30") == ((30,),)


def test_drop_table_drops_its_triggers_and_rename_keeps_them(db):
    conn, name = db
    q(conn, "CREATE TABLE t (a INT)")
    q(conn, "CREATE TABLE u (a INT)")
    q(conn, "CREATE TRIGGER tt BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 7")
    q(conn, "CREATE TRIGGER uu BEFORE INSERT ON u FOR EACH ROW SET NEW.a = 8")
    q(conn, "DROP TABLE t")
    assert [r[0] for r in q(conn, "SHOW TRIGGERS")] == ["uu"]
    q(conn, "CREATE TABLE t (a INT)")
    q(conn, "INSERT INTO t VALUES (1)")
    assert q(conn, "SELECT a FROM t") == ((1,),)
    q(conn, "RENAME TABLE u TO v")
    q(conn, "INSERT INTO v VALUES (1)")
    assert q(conn, "SELECT a FROM v") == ((8,),)
    assert [(r[0], r[2]) for r in q(conn, "SHOW TRIGGERS")] == [("uu", "v")]


def test_prepared_statements_fire_triggers(db, sql_server):
    conn, name = db
    q(conn, "CREATE TABLE t (id INT PRIMARY KEY, a INT)")
    q(conn, "CREATE TABLE log (msg VARCHAR(50))")
    q(conn, "CREATE TRIGGER b BEFORE INSERT ON t FOR EACH ROW SET NEW.a = NEW.a * 2")
    q(conn, "CREATE TRIGGER u AFTER UPDATE ON t FOR EACH ROW INSERT INTO log VALUES (CONCAT(OLD.a, '->', NEW.a))")
    c = rawproto.RawConnection.tcp(sql_server.port)
    c.handshake("root", ROOT_PASSWORD, db=name)
    bc = stmtproto.ByteClient(c)
    ins = bc.prepare("INSERT INTO t VALUES (?, ?)")
    bc.execute(ins, [(stmtproto.T_LONGLONG, 1), (stmtproto.T_LONGLONG, 21)])
    upd = bc.prepare("UPDATE t SET a = ? WHERE id = ?")
    ok = bc.execute(upd, [(stmtproto.T_LONGLONG, 5), (stmtproto.T_LONGLONG, 1)])
    assert ok.affected_rows == 1
    bc.close_connection()
    assert q(conn, "SELECT a FROM t") == ((5,),)
    assert q(conn, "SELECT msg FROM log") == (("42->5",),)


def test_tables_without_triggers_are_untouched_by_others(db):
    conn, _ = db
    q(conn, "CREATE TABLE plain (a INT)")
    q(conn, "CREATE TABLE t (a INT)")
    q(conn, "CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 9")
    q(conn, "INSERT INTO plain VALUES (1)")
    assert q(conn, "SELECT a FROM plain") == ((1,),)


def test_triggers_survive_restart(server_factory):
    srv = server_factory(engine="sqlite")
    root = clients.root(srv)
    q(root, "CREATE DATABASE keep")
    q(root, "CREATE TABLE keep.t (a INT)")
    q(root, "CREATE TRIGGER keep.x BEFORE INSERT ON keep.t FOR EACH ROW SET NEW.a = NEW.a + 100")
    root.close()
    srv.stop()
    srv.start()
    root = clients.root(srv)
    q(root, "INSERT INTO keep.t VALUES (1)")
    assert q(root, "SELECT a FROM keep.t") == ((101,),)
    q(root, "DROP DATABASE keep")
    q(root, "CREATE DATABASE keep")
    q(root, "CREATE TABLE keep.t (a INT)")
    q(root, "INSERT INTO keep.t VALUES (1)")
    assert q(root, "SELECT a FROM keep.t") == ((1,),)


def test_mysql_cli_delimiter(sql_server, uniq):
    if not clients.mysql_cli():
        pytest.skip("mysql client not installed")
    name = uniq("trgcli")
    script = f"""CREATE DATABASE {name};
USE {name};
CREATE TABLE t (a INT);
DELIMITER //
CREATE TRIGGER bi BEFORE INSERT ON t FOR EACH ROW
BEGIN
  DECLARE i INT DEFAULT 0;
  WHILE i < NEW.a DO
    SET i = i + 1;
  END WHILE;
  SET NEW.a = i * 3;
END//
DELIMITER ;
INSERT INTO t VALUES (4);
SELECT a AS got FROM t;
DROP DATABASE {name};
"""
    r = clients.run_cli(sql_server, stdin=script)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["got", "12"]


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE t, log SET t.a = 5 WHERE t.id = 1",
        "UPDATE log JOIN t ON t.id = log.n SET t.a = 5",
        "DELETE t FROM t, log WHERE t.id = log.n",
        "DELETE FROM t USING t, log WHERE t.id = log.n",
    ],
)
def test_statements_that_do_not_fire_triggers_yet_are_refused(db, sql):
    """Multi-table UPDATE/DELETE of a table with triggers is 1235 naming the
    feature, never run without its triggers (nothing written)."""
    conn, _ = db
    make_log_triggers(conn)
    q(conn, "INSERT INTO t VALUES (1, 10, 1)")
    before = (q(conn, "SELECT * FROM t"), log(conn))
    with pytest.raises(pymysql.err.MySQLError) as ei:
        q(conn, sql)
    assert code(ei) == 1235 and "triggers" in ei.value.args[1]
    assert (q(conn, "SELECT * FROM t"), log(conn)) == before
    # A multi-table statement over tables without triggers still runs.
    q(conn, "CREATE TABLE plain (id INT)")
    q(conn, "UPDATE plain, log SET plain.id = 1 WHERE plain.id = log.n")
