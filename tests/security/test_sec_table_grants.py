"""Table- and column-level grants (`GRANT ... ON db.t`, `GRANT SELECT (a) ...`)
as an attacker meets them.

The privilege matrix (privmatrix.py, levels `t_*`) runs every statement
template against grants on the victim table alone, and agrees with MariaDB
10.11 on every case. Here: what one statement cannot show. Column grants are
honoured where SQLite reports every column a statement reads or writes
(SELECT, UPDATE); elsewhere they are refused, never widened: INSERT needs a
table-level grant, and a NATURAL or USING join needs SELECT on the table
(MariaDB allows both with column grants; we refuse with 1142 rather than
guess which columns the statement touches).
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


def _code(excinfo) -> int:
    return excinfo.value.args[0]


@pytest.fixture
def grants(sql_server, uniq):
    db, user = uniq("tg"), uniq("tgu")
    root = clients.root(sql_server)
    for sql in [
        f"CREATE DATABASE {db}",
        f"CREATE TABLE {db}.t1 (a INT, b INT)",
        f"INSERT INTO {db}.t1 VALUES (1, 2), (3, 4)",
        f"CREATE TABLE {db}.t2 (a INT, b INT, c VARCHAR(20))",
        f"INSERT INTO {db}.t2 VALUES (1, 2, 'secret-c')",
        f"CREATE TABLE {db}.hidden (x VARCHAR(20))",
        f"INSERT INTO {db}.hidden VALUES ('secret-hidden')",
        f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'",
        f"GRANT SELECT ON {db}.t1 TO '{user}'@'%'",
        f"GRANT SELECT (a, b), UPDATE (b) ON {db}.t2 TO '{user}'@'%'",
    ]:
        clients.query(root, sql)
    att = clients.connect(sql_server, user, "pw", database=db)
    yield sql_server, root, att, db, user
    att.close()
    clients.query(root, f"DROP USER IF EXISTS '{user}'@'%'")
    clients.query(root, f"DROP DATABASE {db}")
    root.close()


def _refused(conn, sql: str) -> int:
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, sql)
    return _code(ei)


def test_show_grants_spells_table_and_column_grants_as_mariadb(grants):
    _, root, _, db, user = grants
    lines = [r[0] for r in clients.query(root, f"SHOW GRANTS FOR '{user}'@'%'")]
    assert lines == [
        f"GRANT USAGE ON *.* TO `{user}`@`%`",
        f"GRANT SELECT ON `{db}`.`t1` TO `{user}`@`%`",
        f"GRANT SELECT (`a`, `b`), UPDATE (`b`) ON `{db}`.`t2` TO `{user}`@`%`",
    ]


def test_column_grants_cover_exactly_their_columns(grants):
    _, _, att, db, _ = grants
    assert clients.query(att, "SELECT a, b FROM t2") == ((1, 2),)
    assert clients.query(att, "SELECT count(*) FROM t2") == ((1,),)
    clients.query(att, "UPDATE t2 SET b = a + 1")
    assert clients.query(att, "SELECT b FROM t2") == ((2,),)
    for sql, code in [
        ("SELECT c FROM t2", 1143),
        ("SELECT * FROM t2", 1143),
        ("SELECT a FROM t2 WHERE c LIKE 'secret%'", 1143),
        ("SELECT a FROM t2 ORDER BY c", 1143),
        ("SELECT (SELECT max(c) FROM t2)", 1143),
        ("UPDATE t2 SET c = 'x'", 1143),
        ("UPDATE t2 SET b = length(c)", 1143),
        ("UPDATE t2 SET a = 5", 1143),
        ("DELETE FROM t2", 1142),
        ("INSERT INTO t2 (b) VALUES (1)", 1142),
        # SQLite does not report what a USING or NATURAL join compares.
        ("SELECT t1.a FROM t1 JOIN t2 USING (a)", 1142),
        ("SELECT t2.a FROM t1 NATURAL JOIN t2", 1142),
        ("SELECT * FROM hidden", 1142),
        (f"SELECT * FROM {db}.hidden", 1142),
        ("UPDATE t1 SET a = 1", 1142),
        ("DROP TABLE t1", 1142),
    ]:
        assert _refused(att, sql) == code, sql
    # Nothing of the refused columns reached the client through an error.
    assert "secret" not in str(clients.error(att, "SELECT c FROM t2"))


def test_only_tables_with_a_grant_are_visible(grants):
    _, _, att, db, _ = grants
    assert {r[0] for r in clients.query(att, "SHOW TABLES")} == {"t1", "t2"}
    names = clients.query(att, f"SELECT table_name FROM information_schema.tables WHERE table_schema = '{db}' ORDER BY 1")
    assert names == (("t1",), ("t2",))
    cols = clients.query(att, f"SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = '{db}' ORDER BY 1, 2")
    assert cols == (("t1", "a"), ("t1", "b"), ("t2", "a"), ("t2", "b"))
    assert [r[0] for r in clients.query(att, "SHOW COLUMNS FROM t2")] == ["a", "b"]
    assert _refused(att, "SHOW COLUMNS FROM hidden") == 1142
    assert db in {r[0] for r in clients.query(att, "SHOW DATABASES")}


def test_revoke_reaches_cached_statements(grants):
    _, root, att, db, user = grants
    for _ in range(3):
        assert clients.query(att, "SELECT a FROM t1 ORDER BY a") == ((1,), (3,))
        assert clients.query(att, "SELECT a FROM t2") == ((1,),)
    clients.query(root, f"REVOKE SELECT ON {db}.t1 FROM '{user}'@'%'")
    clients.query(root, f"REVOKE SELECT (a) ON {db}.t2 FROM '{user}'@'%'")
    assert _refused(att, "SELECT a FROM t1 ORDER BY a") == 1142
    assert _refused(att, "SELECT a FROM t2") == 1143
    assert clients.query(att, "SELECT b FROM t2") == ((2,),)
    clients.query(root, f"REVOKE ALL PRIVILEGES, GRANT OPTION FROM '{user}'@'%'")
    assert _refused(att, "SELECT b FROM t2") == 1142
    assert [r[0] for r in clients.query(root, f"SHOW GRANTS FOR '{user}'@'%'")] == [f"GRANT USAGE ON *.* TO `{user}`@`%`"]


def test_a_table_grant_names_a_table_case_blind_and_outlives_drop(grants):
    _, root, att, db, _ = grants
    assert clients.query(att, f"SELECT a FROM {db}.T1 WHERE a = 1") == ((1,),)
    clients.query(root, f"DROP TABLE {db}.t1")
    clients.query(root, f"CREATE TABLE {db}.t1 (a INT)")
    clients.query(root, f"INSERT INTO {db}.t1 VALUES (7)")
    # As in MariaDB: the grant is for the name, not for the table that was.
    assert clients.query(att, "SELECT a FROM t1") == ((7,),)


def test_grant_option_on_a_table_gives_away_that_table_only(grants):
    srv, root, _, db, user = grants
    other = user + "o"
    clients.query(root, f"CREATE USER '{other}'@'%' IDENTIFIED BY 'pw'")
    clients.query(root, f"GRANT SELECT ON {db}.t1 TO '{user}'@'%' WITH GRANT OPTION")
    g = clients.connect(srv, user, "pw", database=db)
    clients.query(g, f"GRANT SELECT ON {db}.t1 TO '{other}'@'%'")
    for sql, code in [
        (f"GRANT SELECT ON {db}.hidden TO '{other}'@'%'", 1142),
        (f"GRANT INSERT ON {db}.t1 TO '{other}'@'%'", 1142),
        (f"GRANT SELECT ON {db}.* TO '{other}'@'%'", 1044),
        (f"GRANT SELECT ON *.* TO '{other}'@'%'", 1045),
        (f"GRANT SELECT ON {db}.t1 TO '{other}'@'%' IDENTIFIED BY 'x'", 1044),
        (f"GRANT SELECT ON {db}.t1 TO 'brand_new'@'%'", 1133),
        (f"REVOKE ALL PRIVILEGES, GRANT OPTION FROM '{other}'@'%'", 1227),
    ]:
        assert _refused(g, sql) == code, sql
    g.close()
    clients.query(root, f"DROP USER '{other}'@'%'")


def test_grant_errors_and_account_creation(grants):
    _, root, _, db, user = grants
    for sql, code in [
        (f"GRANT SELECT ON {db}.nosuch TO '{user}'@'%'", 1146),
        (f"GRANT SELECT ON {db}_none.t TO '{user}'@'%'", 1146),
        (f"GRANT EXECUTE ON {db}.t1 TO '{user}'@'%'", 1144),
        (f"GRANT DELETE (a) ON {db}.t1 TO '{user}'@'%'", 1064),
        (f"GRANT SELECT (a) ON {db}.* TO '{user}'@'%'", 1144),
        (f"REVOKE SELECT ON {db}.hidden FROM '{user}'@'%'", 1147),
        (f"GRANT SELECT ON information_schema.* TO '{user}'@'%'", 1044),
        (f"GRANT SELECT ON information_schema.tables TO '{user}'@'%'", 1044),
        # NO_AUTO_CREATE_USER (the default sql_mode): no account out of thin air.
        (f"GRANT SELECT ON {db}.t1 TO 'tg_missing'@'%'", 1133),
    ]:
        assert _refused(root, sql) == code, sql
    clients.query(root, "SET SESSION sql_mode = ''")
    clients.query(root, f"GRANT SELECT ON {db}.t1 TO 'tg_made'@'%'")
    assert [r[0] for r in clients.query(root, "SHOW GRANTS FOR 'tg_made'@'%'")][1] == f"GRANT SELECT ON `{db}`.`t1` TO `tg_made`@`%`"
    clients.query(root, "DROP USER 'tg_made'@'%'")
    clients.query(root, "SET SESSION sql_mode = DEFAULT")


def test_table_grants_are_kept_with_the_accounts(sql_server, uniq):
    """The grants are in accounts.json: a server restarted on the data
    directory enforces them as before (checked by reading them back)."""
    root = clients.root(sql_server)
    db, user = uniq("tgr"), uniq("tgru")
    clients.query(root, f"CREATE DATABASE {db}")
    clients.query(root, f"CREATE TABLE {db}.t (a INT, b INT)")
    clients.query(root, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    clients.query(root, f"GRANT INSERT, SELECT (b) ON {db}.t TO '{user}'@'%'")
    import json
    import os

    with open(os.path.join(sql_server.datadir, "accounts.json")) as f:
        stored = json.load(f)
    mine = [a for a in stored["accounts"] if a["user"] == user][0]
    assert mine["table_privs"] == [{"db": db, "table": "t", "privs": 2, "columns": [["b", 1]]}]
    clients.query(root, f"DROP USER '{user}'@'%'")
    clients.query(root, f"DROP DATABASE {db}")
    root.close()
