"""Multi-table UPDATE and DELETE: every table named is checked. An account
with SELECT only on one database (`ro`) and UPDATE or DELETE only on another
(`rw`) writes nothing in `ro` through a statement naming both, whatever the
aliases, the join form or where the target hides (a parenthesised join, the
USING list), and reads nothing of a table it may only write. MariaDB 10.11
refuses each statement below (1142, or its column-level 1143 where it names
the column; Turnstile has no column privileges and says 1142) and allows
each statement of `test_allowed` (checked against MariaDB at 10.11.19).
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture(scope="module")
def setup(sql_server):
    root = clients.root(sql_server)
    ro, rw, upd, dele = "secmu_ro", "secmu_rw", "secmu_upd", "secmu_del"
    for sql in [
        f"CREATE DATABASE {ro}",
        f"CREATE DATABASE {rw}",
        f"CREATE TABLE {ro}.t (id INT PRIMARY KEY, s VARCHAR(20))",
        f"CREATE TABLE {rw}.u (id INT PRIMARY KEY, s VARCHAR(20))",
        f"INSERT INTO {ro}.t VALUES (1, 'secret'), (2, 'secret')",
        f"INSERT INTO {rw}.u VALUES (1, 'u1'), (2, 'u2')",
        f"CREATE USER '{upd}'@'%' IDENTIFIED BY 'pw'",
        f"GRANT SELECT ON {ro}.* TO '{upd}'@'%'",
        f"GRANT UPDATE ON {rw}.* TO '{upd}'@'%'",
        f"CREATE USER '{dele}'@'%' IDENTIFIED BY 'pw'",
        f"GRANT SELECT ON {ro}.* TO '{dele}'@'%'",
        f"GRANT DELETE ON {rw}.* TO '{dele}'@'%'",
    ]:
        clients.query(root, sql)
    yield root, sql_server
    for u in (upd, dele):
        clients.query(root, f"DROP USER '{u}'@'%'")
    clients.query(root, f"DROP DATABASE {ro}")
    clients.query(root, f"DROP DATABASE {rw}")
    root.close()


def unchanged(root):
    assert clients.query(root, "SELECT id, s FROM secmu_ro.t ORDER BY id") == ((1, "secret"), (2, "secret"))
    assert clients.query(root, "SELECT COUNT(*) FROM secmu_rw.u") == ((2,),)


DENIED = [
    # UPDATE on ro.t, which it may only read: whatever it is called.
    ("secmu_upd", "UPDATE secmu_ro.t, secmu_rw.u SET t.s = 'x' WHERE t.id = u.id"),
    ("secmu_upd", "UPDATE secmu_ro.t a, secmu_rw.u SET a.s = 'x'"),
    ("secmu_upd", "UPDATE secmu_rw.u JOIN secmu_ro.t AS z ON z.id = z.id SET z.s = 'x'"),
    ("secmu_upd", "UPDATE secmu_rw.u x JOIN secmu_ro.t y SET y.s = 'q'"),
    ("secmu_upd", "UPDATE secmu_rw.u LEFT JOIN (secmu_ro.t STRAIGHT_JOIN secmu_rw.u AS w ON 1) ON 1 SET t.s = 'x'"),
    ("secmu_upd", "UPDATE secmu_ro.t JOIN secmu_rw.u ON t.id = u.id SET t.s = 'z', u.s = 'z'"),
    # Reading u's columns needs SELECT on u (MariaDB: 1143 naming the column).
    ("secmu_upd", "UPDATE secmu_ro.t, secmu_rw.u SET u.s = t.s WHERE u.id = t.id"),
    ("secmu_upd", "UPDATE secmu_ro.t, secmu_rw.u SET u.s = CONCAT(u.s, t.s)"),
    ("secmu_upd", "UPDATE secmu_ro.t, secmu_rw.u SET u.s = 'q' WHERE u.id = 1"),
    ("secmu_upd", "UPDATE secmu_rw.u, secmu_ro.t SET u.s = (SELECT COUNT(*) FROM secmu_rw.u x)"),
    # DELETE needs DELETE on every target, through aliases and USING.
    ("secmu_upd", "DELETE a FROM secmu_ro.t a, secmu_rw.u"),
    ("secmu_del", "DELETE a FROM secmu_ro.t AS a JOIN secmu_rw.u b ON a.id = b.id"),
    ("secmu_del", "DELETE secmu_ro.t FROM secmu_rw.u, secmu_ro.t"),
    ("secmu_del", "DELETE FROM secmu_ro.t USING secmu_ro.t JOIN secmu_rw.u"),
    ("secmu_del", "DELETE FROM x, secmu_ro.t.* USING secmu_rw.u AS x, secmu_ro.t"),
    # A DELETE target needs SELECT too (MariaDB's rule), so rows of u cannot be probed by deleting.
    ("secmu_del", "DELETE x FROM secmu_ro.t, secmu_rw.u x WHERE t.id = 1"),
    ("secmu_del", "DELETE FROM x USING secmu_ro.t JOIN secmu_rw.u x ON x.s = 'u1'"),
]


@pytest.mark.parametrize("user,sql", DENIED)
@pytest.mark.parametrize("protocol", ["text", "sqlprep"])
def test_denied(setup, user, sql, protocol):
    root, srv = setup
    conn = clients.connect(srv, user, "pw", database="secmu_ro")
    try:
        with pytest.raises(pymysql.err.MySQLError) as ei:
            if protocol == "text":
                clients.query(conn, sql)
            else:
                clients.query(conn, "PREPARE s FROM %s", (sql,))
                clients.query(conn, "EXECUTE s")
        assert ei.value.args[0] in (1142, 1143), ei.value.args
        assert "secret" not in str(ei.value.args[1])
    finally:
        conn.close()
    unchanged(root)


def test_allowed(setup):
    root, srv = setup
    conn = clients.connect(srv, "secmu_upd", "pw", database="secmu_ro")
    try:
        # A target whose columns are not read needs UPDATE alone (MariaDB: 2 rows).
        with conn.cursor() as cur:
            assert cur.execute("UPDATE secmu_ro.t, secmu_rw.u SET u.s = t.s") == 2
        assert clients.query(root, "SELECT s FROM secmu_rw.u ORDER BY id") == (("secret",), ("secret",))
    finally:
        conn.close()
        clients.query(root, "UPDATE secmu_rw.u SET s = CONCAT('u', id)")
    unchanged(root)


def test_revoke_applies_to_a_prepared_statement(setup):
    root, srv = setup
    clients.query(root, "CREATE USER 'secmu_rev'@'%' IDENTIFIED BY 'pw'")
    clients.query(root, "GRANT SELECT, UPDATE ON secmu_rw.* TO 'secmu_rev'@'%'")
    clients.query(root, "GRANT SELECT, UPDATE ON secmu_ro.* TO 'secmu_rev'@'%'")
    conn = clients.connect(srv, "secmu_rev", "pw", database="secmu_rw")
    try:
        clients.query(conn, "PREPARE s FROM 'UPDATE secmu_rw.u a JOIN secmu_ro.t b ON a.id = b.id SET b.s = a.s WHERE a.id = 0'")
        clients.query(conn, "EXECUTE s")
        clients.query(root, "REVOKE UPDATE ON secmu_ro.* FROM 'secmu_rev'@'%'")
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(conn, "EXECUTE s")
        assert ei.value.args[0] == 1142
    finally:
        conn.close()
        clients.query(root, "DROP USER 'secmu_rev'@'%'")
    unchanged(root)
