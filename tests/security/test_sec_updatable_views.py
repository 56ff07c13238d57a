"""Writes through a view (INSERT/REPLACE/UPDATE/DELETE naming a view) as an
attacker uses them: a view must never be a way to write, or to read, a table
the session may not.

A write through a view is written again over the view's base table
(crates/sqlite/src/exec/view_dml.rs) and runs as any statement naming that
table. Privileges are held per database here (no table-level grants: 1235),
and a view reads only its own database's tables (cross-database views are
refused at CREATE, tests/security/test_sec_views.py), so a view can never
lead a write into another database. What is checked, compared with MariaDB
10.11 for the same statements and database-level grants:

- the statement's own privilege on the view's database: an account holding
  only INSERT there inserts through the view and gets 1142 naming the view
  for UPDATE, DELETE and REPLACE (MariaDB: the same, same table named);
- a victim database's view: 1142 for INSERT, UPDATE and DELETE (MariaDB: the
  same);
- every other table the statement names (a subquery in SET, WHERE, VALUES,
  ON DUPLICATE KEY UPDATE, an INSERT ... SELECT, or a multi-table UPDATE or
  DELETE joining or writing a victim's table or view): 1142, also while the CHECK OPTION test runs (MariaDB: 1142);
- a WITH CHECK OPTION failure is 1369 naming the view and writes nothing
  (MariaDB: the same, SQLSTATE 44000).

Also: view and column names that need quoting do not escape the rewritten
statement.
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


def _err(conn, sql) -> int:
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, sql)
    return ei.value.args[0]


@pytest.fixture
def dbs(sql_server, uniq):
    """A victim database (secret table, view `sv` of it), a home database
    with a table `t` and a view `tv` of it WITH CHECK OPTION, and an account
    holding ALL on a third database and INSERT only on the home database."""
    v, h, own, user = uniq("uvic"), uniq("uhome"), uniq("uown"), uniq("uatt")
    root = clients.root(sql_server)
    for sql in [
        f"CREATE DATABASE {v}",
        f"CREATE DATABASE {h}",
        f"CREATE DATABASE {own}",
        f"CREATE TABLE {v}.secret (id INT PRIMARY KEY, s VARCHAR(20))",
        f"INSERT INTO {v}.secret VALUES (1, 'top')",
        f"USE {v}",
        "CREATE VIEW sv AS SELECT id, s FROM secret",
        f"USE {h}",
        "CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(20))",
        "INSERT INTO t VALUES (1, 'a')",
        "CREATE VIEW tv AS SELECT id, s FROM t WHERE id < 100 WITH CHECK OPTION",
        f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'",
        f"GRANT ALL ON {own}.* TO '{user}'@'%'",
        f"GRANT INSERT ON {h}.* TO '{user}'@'%'",
    ]:
        clients.query(root, sql)
    att = clients.connect(sql_server, user, "pw", database=own)
    yield root, att, v, h, own, user
    att.close()
    clients.query(root, f"DROP USER '{user}'@'%'")
    for d in (v, h, own):
        clients.query(root, f"DROP DATABASE {d}")
    root.close()


def _unchanged(root, v, h):
    assert clients.query(root, f"SELECT id, s FROM {v}.secret") == ((1, "top"),)
    assert clients.query(root, f"SELECT id, s FROM {h}.t ORDER BY id") == ((1, "a"),)


def test_each_statement_needs_its_own_privilege(dbs):
    """INSERT only: the INSERT goes through the view, UPDATE/DELETE/REPLACE
    are 1142 naming the view (MariaDB: the same four answers)."""
    root, att, v, h, own, user = dbs
    for sql in [
        f"UPDATE {h}.tv SET s = 'z' WHERE id = 1",
        f"UPDATE {h}.tv SET s = 'z'",
        f"DELETE FROM {h}.tv WHERE id = 1",
        f"REPLACE INTO {h}.tv VALUES (1, 'd')",
    ]:
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(att, sql)
        assert ei.value.args[0] == 1142, sql
        assert "tv" in ei.value.args[1], ei.value.args[1]
    _unchanged(root, v, h)
    clients.query(att, f"INSERT INTO {h}.tv SET id = 4, s = 'e'")
    assert clients.query(root, f"SELECT id, s FROM {h}.t ORDER BY id") == ((1, "a"), (4, "e"))


def test_a_victims_view_is_not_written(dbs):
    root, att, v, h, own, user = dbs
    for sql in [
        f"INSERT INTO {v}.sv VALUES (9, 'x')",
        f"INSERT INTO {v}.sv SET id = 9, s = 'x'",
        f"REPLACE INTO {v}.sv VALUES (1, 'x')",
        f"UPDATE {v}.sv SET s = 'pwn'",
        f"UPDATE {v}.sv AS x SET x.s = 'pwn' WHERE x.id = 1",
        f"DELETE FROM {v}.sv",
        f"DELETE FROM {v}.sv WHERE id = 1 ORDER BY id LIMIT 1",
    ]:
        assert _err(att, sql) == 1142, sql
    _unchanged(root, v, h)
    # Its own view of the same shape is written.
    clients.query(att, "CREATE TABLE mine (id INT PRIMARY KEY, s VARCHAR(20))")
    clients.query(att, "CREATE VIEW mv AS SELECT id, s FROM mine")
    clients.query(att, "INSERT INTO mv VALUES (9, 'x')")
    assert clients.query(att, "SELECT * FROM mine") == ((9, "x"),)


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE {h}.tv SET s = (SELECT s FROM {v}.secret LIMIT 1)",
        "UPDATE {h}.tv SET s = 'q' WHERE id = (SELECT id FROM {v}.secret)",
        "UPDATE {h}.tv SET id = 500 WHERE id IN (SELECT id FROM {v}.secret)",
        "INSERT INTO {h}.tv SELECT id + 10, s FROM {v}.secret",
        "INSERT INTO {h}.tv VALUES ((SELECT id + 20 FROM {v}.secret), 'x')",
        "INSERT INTO {h}.tv SET id = 3, s = (SELECT s FROM {v}.secret)",
        "INSERT INTO {h}.tv VALUES (4, 'x') ON DUPLICATE KEY UPDATE s = (SELECT s FROM {v}.secret)",
        "DELETE FROM {h}.tv WHERE id IN (SELECT id FROM {v}.secret)",
        "DELETE FROM {h}.tv WHERE EXISTS (SELECT 1 FROM {v}.sv)",
        "UPDATE {h}.tv, {v}.secret SET tv.s = secret.s WHERE tv.id = secret.id",
        "UPDATE {h}.tv, {v}.sv SET sv.s = 'pwn' WHERE tv.id = sv.id",
        "USE {h}; DELETE tv FROM tv, {v}.secret WHERE tv.id = secret.id",
        "USE {h}; DELETE {v}.sv FROM tv, {v}.sv WHERE tv.id = sv.id",
    ],
)
def test_other_tables_the_statement_names_are_checked(dbs, sql):
    """With every privilege on the view's database, a subquery reading
    the victim's table or view is still 1142 (MariaDB: 1142), the CHECK
    OPTION test included, and nothing is written."""
    root, att, v, h, own, user = dbs
    clients.query(root, f"GRANT ALL ON {h}.* TO '{user}'@'%'")
    *first, last = sql.format(h=h, v=v).split("; ")
    for s in first:
        clients.query(att, s)
    assert _err(att, last) == 1142
    _unchanged(root, v, h)
    # The same view is written when the statement names nothing else.
    with att.cursor() as c:
        assert c.execute(f"UPDATE {h}.tv SET s = 'mine' WHERE id = 1") == 1


def test_check_option_failure_writes_nothing(dbs):
    root, att, v, h, own, user = dbs
    clients.query(root, f"GRANT ALL ON {h}.* TO '{user}'@'%'")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(att, f"INSERT INTO {h}.tv VALUES (2, 'ok'), (200, 'out')")
    assert ei.value.args[0] == 1369
    assert ei.value.args[1] == f"CHECK OPTION failed `{h}`.`tv`"
    assert _err(att, f"UPDATE {h}.tv SET id = id + 1000") == 1369
    _unchanged(root, v, h)


def test_quoted_names_stay_names(dbs):
    """Column and view names with backticks, quotes and SQL in them are
    written back quoted: the rewritten statement is the one meant."""
    root, att, v, h, own, user = dbs
    clients.query(root, f"USE {own}")
    clients.query(root, "CREATE TABLE q (`a``b` INT, `x'; DROP TABLE q; --` INT)")
    clients.query(root, "CREATE VIEW `v``w` (`c``d`, `e f`) AS SELECT `a``b`, `x'; DROP TABLE q; --` FROM q")
    clients.query(att, "INSERT INTO `v``w` (`c``d`, `e f`) VALUES (1, 2)")
    clients.query(att, "UPDATE `v``w` SET `e f` = `c``d` + 10 WHERE `c``d` = 1")
    assert clients.query(att, "SELECT * FROM q") == ((1, 11),)
    clients.query(att, "DELETE FROM `v``w` WHERE `e f` = 11")
    assert clients.query(att, "SELECT COUNT(*) FROM q") == ((0,),)
