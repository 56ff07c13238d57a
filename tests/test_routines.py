"""Stored procedures and functions (issue #23 item 5), with real clients:
CREATE / DROP / SHOW, CALL with IN/OUT/INOUT parameters, the compound
statements of a body, result sets sent as MySQL does for CALL (each with
SERVER_MORE_RESULTS_EXISTS, then the CALL's OK), SIGNAL, handlers, cursors,
the recursion limit, persistence across a restart and DROP DATABASE, and the
mysql CLI's DELIMITER (the whole definition arrives as one multi-statement
query and must not be split at the body's `;`). Expected answers are
MariaDB 10.11's, checked on it.
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def db(scratch_db):
    return scratch_db


def code(exc) -> int:
    return exc.value.args[0]


def test_procedure_with_in_out_inout_parameters(db):
    conn, _ = db
    clients.query(
        conn,
        """CREATE PROCEDURE p1(IN a INT, OUT b VARCHAR(10), INOUT c INT)
           BEGIN
             DECLARE x INT DEFAULT 5;
             SET b = CONCAT('v', a + x);
             SET c = c * 2;
           END""",
    )
    clients.query(conn, "SET @c = 3")
    clients.query(conn, "CALL p1(1, @b, @c)")
    assert clients.query(conn, "SELECT @b, @c") == (("v6", 6),)


def test_call_sends_each_select_then_an_ok(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE t (a INT)")
    clients.query(conn, "INSERT INTO t VALUES (1), (2)")
    clients.query(conn, "CREATE PROCEDURE two() BEGIN SELECT a FROM t ORDER BY a; SELECT 'x' AS y; END")
    cur = conn.cursor()
    cur.execute("CALL two()")
    assert cur.fetchall() == ((1,), (2,))
    assert [d[0] for d in cur.description] == ["a"]
    assert cur.nextset()
    assert cur.fetchall() == (("x",),)
    assert cur.nextset()  # the CALL's own OK
    assert cur.description is None
    assert not cur.nextset()
    # The connection is in step afterwards.
    assert clients.scalar(conn, "SELECT 41 + 1") == 42


def test_do_statements_in_a_body_sent_in_one_multi_statement_query(db, sql_server):
    """go-sql-driver's TestMultiResultSet: DROP PROCEDURE IF EXISTS and a
    CREATE PROCEDURE whose body has DO statements (one calling IF()), sent as
    one query; the CALL sends the SELECTs' results only (MariaDB: the same).
    Before, DO at the start of a body statement was 1064, and without
    CLIENT_MULTI_STATEMENTS the DROP ran and the CREATE was dropped silently
    (MariaDB: 1064 for the whole text)."""
    _, name = db
    two = "DROP PROCEDURE IF EXISTS mrs; CREATE PROCEDURE mrs() BEGIN DO 1; SELECT 1 AS c; DO IF(1, 2, 3); WHILE 0 DO DO 1; END WHILE; SELECT 2 AS d; END"
    single = clients.root(sql_server, database=name)
    for sql in (two, "DROP FUNCTION IF EXISTS f; SELECT 1", "DROP TRIGGER IF EXISTS t; SELECT 1"):
        with pytest.raises(pymysql.err.ProgrammingError) as e:
            clients.query(single, sql)
        assert code(e) == 1064
    single.close()
    conn = clients.root(sql_server, database=name, client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS)
    with conn.cursor() as cur:
        cur.execute(two)
        while cur.nextset():
            pass
    cur = conn.cursor()
    cur.execute("CALL mrs()")
    assert cur.fetchall() == ((1,),)
    assert cur.nextset()
    assert cur.fetchall() == ((2,),)
    assert cur.nextset()
    assert cur.description is None
    assert not cur.nextset()
    assert clients.scalar(conn, "SELECT 41 + 1") == 42
    conn.close()


def test_control_flow(db):
    conn, _ = db
    clients.query(
        conn,
        """CREATE PROCEDURE flow(n INT, OUT total INT, OUT seen VARCHAR(100))
           BEGIN
             DECLARE i INT DEFAULT 0;
             SET total = 0, seen = '';
             l1: WHILE i < n DO
               SET i = i + 1;
               IF i = 2 THEN ITERATE l1; ELSEIF i > 6 THEN LEAVE l1; END IF;
               SET total = total + i;
             END WHILE l1;
             REPEAT SET seen = CONCAT(seen, 'r'); UNTIL LENGTH(seen) >= 3 END REPEAT;
             l2: LOOP SET seen = CONCAT(seen, 'l'); IF LENGTH(seen) >= 5 THEN LEAVE l2; END IF; END LOOP;
             CASE n WHEN 10 THEN SET seen = CONCAT(seen, '!'); ELSE SET seen = CONCAT(seen, '?'); END CASE;
             CASE WHEN total > 100 THEN SET total = -1; ELSE BEGIN END; END CASE;
           END""",
    )
    clients.query(conn, "CALL flow(10, @t, @s)")
    assert clients.query(conn, "SELECT @t, @s") == ((1 + 3 + 4 + 5 + 6, "rrrll!"),)


def test_select_into_cursor_and_handler(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE t (a INT, b VARCHAR(10))")
    clients.query(conn, "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
    clients.query(
        conn,
        """CREATE PROCEDURE cur(OUT s VARCHAR(100), OUT m INT)
           BEGIN
             DECLARE done INT DEFAULT 0;
             DECLARE v VARCHAR(10);
             DECLARE c CURSOR FOR SELECT b FROM t ORDER BY a;
             DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
             SELECT MAX(a) INTO m FROM t;
             SET s = '';
             OPEN c;
             rd: LOOP
               FETCH c INTO v;
               IF done THEN LEAVE rd; END IF;
               SET s = CONCAT(s, v, ',');
             END LOOP;
             CLOSE c;
           END""",
    )
    clients.query(conn, "CALL cur(@s, @m)")
    assert clients.query(conn, "SELECT @s, @m") == (("one,two,three,", 3),)


def test_exit_handler_and_signal(db):
    conn, _ = db
    clients.query(
        conn,
        """CREATE PROCEDURE h(OUT r VARCHAR(20))
           BEGIN
             DECLARE EXIT HANDLER FOR SQLEXCEPTION SET r = 'caught';
             SET r = 'before';
             SELECT * FROM no_such_table;
             SET r = 'after';
           END""",
    )
    clients.query(conn, "CALL h(@r)")
    assert clients.scalar(conn, "SELECT @r") == "caught"
    clients.query(conn, "CREATE PROCEDURE sig(x INT) BEGIN IF x < 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'negative'; END IF; END")
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(conn, "CALL sig(-1)")
    assert code(e) == 1644 and "negative" in str(e.value)
    clients.query(conn, "CALL sig(1)")


def test_locals_are_bound_not_spliced(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE t (a INT, name VARCHAR(50))")
    clients.query(conn, "CREATE PROCEDURE ins(name VARCHAR(50)) INSERT INTO t (a, name) VALUES (1, name)")
    evil = "x'); DROP TABLE t; --"
    clients.query(conn, "CALL ins(%s)", (evil,))
    assert clients.query(conn, "SELECT a, name FROM t") == ((1, evil),)


def test_ddl_errors_and_show(db):
    conn, name = db
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(conn, "DROP PROCEDURE nope")
    assert code(e) == 1305
    cur = conn.cursor()
    cur.execute("DROP PROCEDURE IF EXISTS nope")
    cur.execute("SHOW WARNINGS")
    assert cur.fetchall() == (("Note", 1305, f"PROCEDURE {name}.nope does not exist"),)
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(conn, "CALL nope()")
    assert code(e) == 1305
    clients.query(conn, "CREATE PROCEDURE p(a INT) COMMENT 'hi' SELECT a")
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(conn, "CREATE PROCEDURE p() SELECT 1")
    assert code(e) == 1304
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(conn, "CALL p()")
    assert code(e) == 1318
    row = clients.query(conn, "SHOW CREATE PROCEDURE p")[0]
    assert row[0] == "p" and row[2] == "CREATE DEFINER=`root`@`%` PROCEDURE `p`(a INT) COMMENT 'hi' SELECT a"
    status = clients.query(conn, "SHOW PROCEDURE STATUS LIKE 'p'")
    assert [(r[0], r[1], r[2], r[7]) for r in status] == [(name, "p", "PROCEDURE", "hi")]
    clients.query(conn, "CREATE FUNCTION f(a INT) RETURNS INT DETERMINISTIC RETURN a * 2")
    rows = clients.query(conn, f"SELECT ROUTINE_NAME, ROUTINE_TYPE, DATA_TYPE, ROUTINE_DEFINITION, IS_DETERMINISTIC FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = '{name}' ORDER BY 1")
    assert rows == (("f", "FUNCTION", "int", "RETURN a * 2", "YES"), ("p", "PROCEDURE", "", "SELECT a", "NO"))
    clients.query(conn, "CREATE OR REPLACE PROCEDURE p() SELECT 2")
    assert clients.query(conn, "CALL p()") == ((2,),)
    clients.query(conn, "DROP FUNCTION f")
    clients.query(conn, "DROP PROCEDURE p")
    assert clients.query(conn, f"SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = '{name}'") == ((0,),)


def test_recursion_limit(db):
    conn, _ = db
    clients.query(conn, "CREATE PROCEDURE r(n INT) BEGIN IF n > 0 THEN CALL r(n - 1); END IF; END")
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(conn, "CALL r(3)")
    assert code(e) == 1456
    clients.query(conn, "CALL r(0)")
    clients.query(conn, "SET max_sp_recursion_depth = 5")
    clients.query(conn, "CALL r(5)")
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(conn, "CALL r(6)")
    assert code(e) == 1456


def test_routines_survive_restart_and_go_with_their_database(server_factory):
    srv = server_factory(engine="sqlite")
    root = clients.root(srv)
    clients.query(root, "CREATE DATABASE keep")
    clients.query(root, "CREATE PROCEDURE keep.p() SELECT 'kept'")
    root.close()
    srv.stop()
    srv.start()
    root = clients.root(srv)
    assert clients.query(root, "CALL keep.p()") == (("kept",),)
    clients.query(root, "DROP DATABASE keep")
    clients.query(root, "CREATE DATABASE keep")
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(root, "CALL keep.p()")
    assert code(e) == 1305
    root.close()


def test_mysql_cli_delimiter(sql_server, uniq):
    if not clients.mysql_cli():
        pytest.skip("mysql client not installed")
    name = uniq("spcli")
    script = f"""CREATE DATABASE {name};
USE {name};
DELIMITER //
CREATE PROCEDURE p(n INT)
BEGIN
  DECLARE i INT DEFAULT 0;
  WHILE i < n DO
    SET i = i + 1;
  END WHILE;
  SELECT i AS counted;
END//
DELIMITER ;
CALL p(4);
DROP DATABASE {name};
"""
    r = clients.run_cli(sql_server, stdin=script)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["counted", "4"]


def test_for_loops_in_routines_and_on_their_own(db):
    """MariaDB's integer FOR loop, and IF/WHILE/FOR as statements outside any
    routine (MariaDB 10.11 runs them as anonymous blocks; its test files fill
    tables with `FOR i IN 1..31 DO INSERT ... END FOR`)."""
    conn, _ = db
    clients.query(conn, "CREATE TABLE f (a INT, b VARCHAR(40))")
    clients.query(conn, "FOR i IN 1..5 DO INSERT INTO f VALUES (i, MD5(i)); END FOR")
    assert clients.query(conn, "SELECT count(*), sum(a) FROM f") == ((5, 15),)
    clients.query(conn, "FOR i IN REVERSE 1..3 DO INSERT INTO f VALUES (i * 100, 'r'); END FOR")
    assert clients.query(conn, "SELECT a FROM f WHERE b = 'r'") == ((300,), (200,), (100,))
    clients.query(conn, "FOR i IN 3..1 DO INSERT INTO f VALUES (-1, 'never'); END FOR")
    clients.query(conn, "WHILE (SELECT count(*) FROM f) < 12 DO INSERT INTO f VALUES (0, 'w'); END WHILE")
    clients.query(conn, "IF (SELECT count(*) FROM f) = 12 THEN INSERT INTO f VALUES (55, 'if'); END IF")
    assert clients.query(conn, "SELECT count(*), sum(b = 'never'), sum(b = 'if') FROM f") == ((13, 0, 1),)
    # The body may move the loop variable; LEAVE and ITERATE name the loop's label.
    clients.query(
        conn,
        """CREATE PROCEDURE pf(n INT)
           BEGIN
             DECLARE s INT DEFAULT 0;
             lp: FOR i IN 1 .. n DO
               IF i = 3 THEN SET i = i + 1; END IF;
               IF i > 8 THEN LEAVE lp; END IF;
               SET s = s + i;
             END FOR lp;
             SELECT s;
           END""",
    )
    assert clients.query(conn, "CALL pf(100)") == ((1 + 2 + 4 + 5 + 6 + 7 + 8,),)
    clients.query(conn, "CREATE FUNCTION ff(n INT) RETURNS INT BEGIN DECLARE s INT DEFAULT 0; FOR i IN 1..n DO SET s = s + i; END FOR; RETURN s; END")
    assert clients.query(conn, "SELECT ff(10)") == ((55,),)
    for sql, want in [
        ("FOR i IN 1..NULL DO SELECT 1; END FOR", 1048),
        ("FOR r IN (SELECT 1) DO SELECT 1; END FOR", 1235),
        ("FOR i IN 1..2 DO SELECT 1; END WHILE", 1064),
    ]:
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(conn, sql)
        assert code(ei) == want, sql


def test_affected_rows_of_call_and_compound_statements_are_summed(db, sql_server):
    """The OK after a CALL or a compound statement counts the rows every
    statement in it changed, as MariaDB 10.11 does (each figure checked
    there): a SELECT ... INTO counts 1, a FETCH, SET and a result set
    nothing, a nested CALL its own sum. Before, only the last statement's."""
    _, name = db
    conn = clients.root(sql_server, database=name, client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS)
    cur = conn.cursor()
    for sql in (
        "CREATE TABLE t (a INT)",
        "CREATE PROCEDURE p1() BEGIN INSERT INTO t VALUES (1), (2); INSERT INTO t VALUES (3); END",
        "CREATE PROCEDURE p2() BEGIN INSERT INTO t VALUES (1), (2); SELECT 1; INSERT INTO t VALUES (3); END",
        "CREATE PROCEDURE p3() BEGIN INSERT INTO t VALUES (1), (2); UPDATE t SET a = a WHERE 0; END",
        "CREATE PROCEDURE p4() BEGIN DECLARE x INT; INSERT INTO t VALUES (1), (2); SELECT a INTO x FROM t LIMIT 1; SELECT a INTO x FROM t WHERE 0; END",
        "CREATE PROCEDURE p5() BEGIN INSERT INTO t VALUES (1), (2); CALL p1(); SET @x = 1; END",
    ):
        cur.execute(sql)

    def counts(sql):
        cur.execute(sql)
        out = [cur.rowcount]
        while cur.nextset():
            out.append(cur.rowcount)
        return out

    assert counts("CALL p1()") == [3]
    assert counts("CALL p2()") == [1, 3]
    assert counts("CALL p3()") == [2]
    assert counts("CALL p4()") == [3]
    assert counts("CALL p5()") == [5]
    assert counts("FOR i IN 1..3 DO INSERT INTO t VALUES (i), (i); END FOR") == [6]
    assert counts("BEGIN NOT ATOMIC INSERT INTO t VALUES (1), (2); INSERT INTO t VALUES (3); END") == [3]
    assert counts("IF 1 THEN INSERT INTO t VALUES (1), (2); INSERT INTO t VALUES (3); END IF") == [3]
    conn.close()


def test_after_call_show_warnings_has_the_last_statements_conditions(db):
    """MariaDB 10.11: each statement of a procedure starts the diagnostics
    area afresh unless it raises nothing and keeps it (SET, a SELECT without
    a table), so after CALL SHOW WARNINGS shows the last statement's."""
    conn, name = db
    clients.query(conn, "CREATE TABLE tw (a TINYINT)")
    clients.query(conn, "CREATE PROCEDURE w1() BEGIN INSERT IGNORE INTO tw VALUES (1000); END")
    clients.query(conn, "CREATE PROCEDURE w2() BEGIN INSERT IGNORE INTO tw VALUES (1000); DROP TABLE IF EXISTS nonesuch; END")
    clients.query(conn, "CREATE PROCEDURE w3() BEGIN INSERT IGNORE INTO tw VALUES (1000); SELECT COUNT(*) FROM tw; END")
    clients.query(conn, "CREATE PROCEDURE w4() BEGIN INSERT IGNORE INTO tw VALUES (1000); SET @w4 = 1; END")
    warnings = lambda: [tuple(r[:2]) for r in clients.query(conn, "SHOW WARNINGS")]
    clients.query(conn, "CALL w1()")
    assert warnings() == [("Warning", 1264)]
    clients.query(conn, "CALL w2()")
    assert warnings() == [("Note", 1051)]
    with conn.cursor() as cur:
        cur.execute("CALL w3()")
        while cur.nextset():
            pass
    assert warnings() == []
    clients.query(conn, "CALL w4()")
    assert warnings() == [("Warning", 1264)]
