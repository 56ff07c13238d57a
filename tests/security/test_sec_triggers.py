"""Triggers as an attack surface (issue #23 item 5). An account with TRIGGER
on its own database cannot use a trigger to read or write another one: the
body runs with the definer's privileges (1142 at the first statement it may
not run, and the triggering row is undone too), naming another DEFINER
needs SUPER (1227), and creating, dropping or listing triggers of a
database it has no TRIGGER on is refused (1142, 1044, 1227). A trigger whose
definer may write the other database does, whoever fires it (SQL SECURITY
DEFINER), and one defined by a weak account stays weak when an
administrator fires it. A trigger writing a table whose statement is
running is 1442, directly or through another table's trigger. A body
nested past routine_max_nesting (1436), one past routine_max_body_bytes
(1105) and a transaction end inside one (1422) are refused; a NEW value
holding SQL is a bound value, never text of a statement. Each expected
answer was checked on MariaDB 10.11 (except the two limits, which are
Turnstile's own settings).
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def attacker(sql_server, uniq):
    home, other, user = uniq("trhome"), uniq("trother"), uniq("tratt")
    root = clients.root(sql_server)
    for sql in [
        f"CREATE DATABASE {home}",
        f"CREATE DATABASE {other}",
        f"CREATE TABLE {home}.t (a INT)",
        f"CREATE TABLE {other}.secret (s VARCHAR(20))",
        f"INSERT INTO {other}.secret VALUES ('hidden')",
        f"CREATE TABLE {other}.audit (s VARCHAR(50))",
        f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'",
        f"GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, TRIGGER ON {home}.* TO '{user}'@'%'",
    ]:
        clients.query(root, sql)
    att = clients.connect(sql_server, user, "pw", database=home)
    yield root, att, home, other, user
    att.close()
    clients.query(root, f"DROP USER '{user}'@'%'")
    clients.query(root, f"DROP DATABASE {home}")
    clients.query(root, f"DROP DATABASE {other}")


def code_of(conn, sql) -> int:
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(conn, sql)
    return e.value.args[0]


def test_own_trigger_cannot_write_or_read_another_database(attacker):
    root, att, home, other, _ = attacker
    clients.query(att, f"CREATE TRIGGER w AFTER INSERT ON t FOR EACH ROW INSERT INTO {other}.audit VALUES ('pwned')")
    assert code_of(att, "INSERT INTO t VALUES (1)") == 1142
    clients.query(att, "DROP TRIGGER w")
    clients.query(att, "CREATE TABLE loot (s VARCHAR(20))")
    clients.query(att, f"CREATE TRIGGER r BEFORE INSERT ON t FOR EACH ROW INSERT INTO loot SELECT s FROM {other}.secret")
    assert code_of(att, "INSERT INTO t VALUES (2)") == 1142
    # The triggering rows were undone with the trigger's failure.
    assert clients.query(root, f"SELECT COUNT(*) FROM {home}.t") == ((0,),)
    assert clients.query(root, f"SELECT COUNT(*) FROM {home}.loot") == ((0,),)
    assert clients.query(root, f"SELECT COUNT(*) FROM {other}.audit") == ((0,),)


def test_another_definer_needs_super(attacker):
    _, att, _, other, _ = attacker
    sql = f"CREATE DEFINER=root@'%' TRIGGER d BEFORE INSERT ON t FOR EACH ROW INSERT INTO {other}.audit VALUES ('x')"
    assert code_of(att, sql) == 1227
    assert code_of(att, f"CREATE DEFINER=root@'%' TRIGGER d BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 1") == 1227


def test_other_databases_triggers_are_out_of_reach(attacker):
    root, att, _, other, _ = attacker
    assert code_of(att, f"CREATE TRIGGER {other}.x BEFORE INSERT ON {other}.audit FOR EACH ROW SET NEW.s = 'x'") == 1142
    clients.query(root, f"CREATE TRIGGER {other}.keep BEFORE INSERT ON {other}.audit FOR EACH ROW SET NEW.s = 'kept'")
    assert code_of(att, f"DROP TRIGGER {other}.keep") == 1142
    assert code_of(att, f"SHOW TRIGGERS FROM {other}") == 1044
    assert code_of(att, f"SHOW CREATE TRIGGER {other}.keep") == 1227
    got = clients.query(att, f"SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = '{other}'")
    assert got == ((0,),)
    clients.query(root, f"INSERT INTO {other}.audit VALUES ('x')")
    assert clients.query(root, f"SELECT s FROM {other}.audit") == (("kept",),)


def test_definer_rights_both_ways(attacker):
    root, att, home, other, user = attacker
    # An administrator's trigger on the attacker's table writes the audit table for them.
    clients.query(root, f"CREATE DEFINER=root@'%' TRIGGER {home}.aud AFTER INSERT ON {home}.t FOR EACH ROW INSERT INTO {other}.audit VALUES (CONCAT('row ', NEW.a))")
    clients.query(att, "INSERT INTO t VALUES (7)")
    assert clients.query(root, f"SELECT s FROM {other}.audit") == (("row 7",),)
    clients.query(root, f"DROP TRIGGER {home}.aud")
    # A trigger defined as the weak account stays weak when root fires it.
    clients.query(root, f"CREATE DEFINER='{user}'@'%' TRIGGER {home}.weak AFTER INSERT ON {home}.t FOR EACH ROW INSERT INTO {other}.audit VALUES ('as root?')")
    assert code_of(root, f"INSERT INTO {home}.t VALUES (8)") == 1142
    assert clients.query(root, f"SELECT COUNT(*) FROM {other}.audit") == ((1,),)


def test_recursion_through_another_table_is_1442(attacker):
    _, att, _, _, _ = attacker
    clients.query(att, "CREATE TABLE p1 (a INT)")
    clients.query(att, "CREATE TABLE p2 (a INT)")
    clients.query(att, "CREATE TRIGGER p1t AFTER INSERT ON p1 FOR EACH ROW INSERT INTO p2 VALUES (NEW.a)")
    clients.query(att, "CREATE TRIGGER p2t AFTER INSERT ON p2 FOR EACH ROW INSERT INTO p1 VALUES (NEW.a)")
    assert code_of(att, "INSERT INTO p1 VALUES (1)") == 1442
    assert clients.query(att, "SELECT (SELECT COUNT(*) FROM p1), (SELECT COUNT(*) FROM p2)") == ((0, 0),)
    clients.query(att, "CREATE TRIGGER self BEFORE DELETE ON t FOR EACH ROW DELETE FROM t")
    clients.query(att, "INSERT INTO t VALUES (1)")
    assert code_of(att, "DELETE FROM t") == 1442


def test_deep_and_huge_bodies_and_commits_are_refused(attacker):
    _, att, _, _, _ = attacker
    deep = "BEGIN " * 10_000 + "SET @a = 1;" + " END;" * 10_000
    assert code_of(att, f"CREATE TRIGGER deep BEFORE INSERT ON t FOR EACH ROW {deep}") in (1436, 1105)
    nested = "BEGIN " * 600 + "SET @a = 1;" + " END;" * 600
    assert code_of(att, f"CREATE TRIGGER deep BEFORE INSERT ON t FOR EACH ROW {nested}") == 1436
    huge = "BEGIN " + "SET @a = 1; " * 200_000 + "END"
    assert code_of(att, f"CREATE TRIGGER huge BEFORE INSERT ON t FOR EACH ROW {huge}") == 1105
    for body in ["COMMIT", "DROP TABLE t", "BEGIN ROLLBACK; END", "CREATE TABLE z (a INT)"]:
        assert code_of(att, f"CREATE TRIGGER c BEFORE INSERT ON t FOR EACH ROW {body}") == 1422, body
    assert clients.query(att, "SELECT 1") == ((1,),)
    assert clients.query(att, "SHOW TRIGGERS") == ()


def test_new_values_are_bound_not_spliced(attacker):
    _, att, _, _, _ = attacker
    clients.query(att, "CREATE TABLE s (v VARCHAR(100))")
    clients.query(att, "CREATE TABLE log (v VARCHAR(100))")
    clients.query(att, "CREATE TRIGGER x AFTER INSERT ON s FOR EACH ROW INSERT INTO log VALUES (NEW.v)")
    payload = "'); DROP TABLE s; -- "
    with att.cursor() as cur:
        cur.execute("INSERT INTO s VALUES (%s)", (payload,))
    assert clients.query(att, "SELECT v FROM log") == ((payload,),)
    assert clients.query(att, "SELECT COUNT(*) FROM s") == ((1,),)
