"""Privileges as an attacker meets them: every table a statement names is checked.

The matrix (privmatrix.py) runs every statement template x reference form x
grant level x protocol (text, binary prepared, SQL PREPARE, multi-statement)
and requires exactly MySQL's answer: the model it checks against agrees with
MariaDB 10.11 on every case (`python3 tests/security/privmatrix.py --port
<mariadb> ...`). Around it: what the matrix cannot show in one statement —
checks that survive the statement cache and a REVOKE, GRANT OPTION that hands
out only what the grantor holds, SQLite's internals hidden from everyone.
"""

from __future__ import annotations

import os
import sys

import pymysql
import pytest

sys.path.insert(0, os.path.dirname(__file__))

import privmatrix  # noqa: E402
from helpers import clients  # noqa: E402
from helpers.server import ROOT_PASSWORD  # noqa: E402


def _code(excinfo) -> int:
    return excinfo.value.args[0]


def test_privilege_matrix(sql_server):
    target = privmatrix.Target("127.0.0.1", sql_server.port, "root", ROOT_PASSWORD, prefix="pmx")
    target.setup()
    try:
        results = privmatrix.run(target, privmatrix.cases())
    finally:
        target.teardown()
    bad = [f"{c.id}: {v}" for c, _, v in results if v]
    assert len(results) > 3000
    assert not bad, f"{len(bad)} of {len(results)} cases differ from MySQL's rules:\n" + "\n".join(bad[:40])


@pytest.fixture
def two_dbs(sql_server, uniq):
    """A victim database with a secret and an account holding ALL on another database only."""
    v, h, user = uniq("vic"), uniq("home"), uniq("att")
    root = clients.root(sql_server)
    clients.query(root, f"CREATE DATABASE {v}")
    clients.query(root, f"CREATE DATABASE {h}")
    clients.query(root, f"CREATE TABLE {v}.secret (id INT PRIMARY KEY, s VARCHAR(20))")
    clients.query(root, f"INSERT INTO {v}.secret VALUES (1, 'top')")
    clients.query(root, f"CREATE TABLE {h}.t (id INT PRIMARY KEY)")
    clients.query(root, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    clients.query(root, f"GRANT ALL ON {h}.* TO '{user}'@'%'")
    yield sql_server, root, v, h, user
    clients.query(root, f"DROP USER '{user}'@'%'")
    clients.query(root, f"DROP DATABASE {v}")
    clients.query(root, f"DROP DATABASE {h}")
    root.close()


def test_a_cached_statement_is_checked_for_the_session_that_runs_it(two_dbs):
    """Connections and their compiled statements are shared between sessions:
    a statement root compiled is checked again for the attacker."""
    srv, root, v, h, user = two_dbs
    sql = f"SELECT s FROM {v}.secret WHERE id = 1"
    for _ in range(3):
        assert clients.query(root, sql) == (("top",),)
    att = clients.connect(srv, user, "pw", database=h)
    for _ in range(3):
        with pytest.raises(pymysql.err.OperationalError) as ei:
            clients.query(att, sql)
        assert _code(ei) == 1142
    att.close()


def test_revoke_reaches_prepared_statements(two_dbs):
    """A statement prepared while allowed is refused at its next execution after REVOKE."""
    import mysql.connector

    srv, root, v, h, user = two_dbs
    clients.query(root, f"GRANT SELECT ON {v}.* TO '{user}'@'%'")
    conn = mysql.connector.connect(host="127.0.0.1", port=srv.port, user=user, password="pw", database=h, use_pure=True)
    cur = conn.cursor(prepared=True)
    cur.execute(f"SELECT s FROM {v}.secret WHERE id = ?", (1,))
    assert cur.fetchall() == [("top",)]
    clients.query(root, f"REVOKE SELECT ON {v}.* FROM '{user}'@'%'")
    with pytest.raises(mysql.connector.Error) as ei:
        cur.execute(f"SELECT s FROM {v}.secret WHERE id = ?", (1,))
        cur.fetchall()
    assert ei.value.errno == 1142
    conn.close()


def test_grant_option_gives_away_only_what_the_grantor_holds(sql_server, uniq):
    root = clients.root(sql_server)
    g, victim, db = uniq("g"), uniq("v"), uniq("d")
    clients.query(root, f"CREATE DATABASE {db}")
    clients.query(root, f"CREATE USER '{g}'@'%' IDENTIFIED BY 'pw'")
    clients.query(root, f"CREATE USER '{victim}'@'%' IDENTIFIED BY 'pw'")
    clients.query(root, f"GRANT SELECT ON *.* TO '{g}'@'%' WITH GRANT OPTION")
    att = clients.connect(sql_server, g, "pw")
    # The escalation this closes: SELECT with GRANT OPTION granting itself ALL.
    for sql, code in [
        (f"GRANT ALL ON *.* TO '{g}'@'%'", 1045),
        (f"GRANT ALL ON *.* TO '{victim}'@'%'", 1045),
        (f"GRANT INSERT ON {db}.* TO '{victim}'@'%'", 1044),
        (f"REVOKE ALL PRIVILEGES ON *.* FROM 'root'@'%'", 1045),
    ]:
        with pytest.raises(pymysql.err.OperationalError) as ei:
            clients.query(att, sql)
        assert _code(ei) == code, sql
    clients.query(att, f"GRANT SELECT ON {db}.* TO '{victim}'@'%'")
    grants = [r[0] for r in clients.query(root, f"SHOW GRANTS FOR '{g}'@'%'")]
    assert grants == [f"GRANT SELECT ON *.* TO `{g}`@`%` WITH GRANT OPTION"], grants
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.query(att, "CREATE USER 'zz_new'@'%'")
    assert _code(ei) == 1227
    att.close()
    clients.query(root, f"DROP USER '{g}'@'%', '{victim}'@'%'")
    clients.query(root, f"DROP DATABASE {db}")
    root.close()


@pytest.mark.parametrize(
    "sql,code",
    [
        ("SELECT name FROM sqlite_master", 1146),
        ("SELECT * FROM sqlite_schema", 1146),
        ("SELECT * FROM sqlite_sequence", 1146),
        ("SELECT * FROM turnstile_meta", 1146),
        ("SELECT * FROM pragma_table_info('t')", 1146),
        ("SELECT * FROM pragma_database_list", 1146),
        ("SELECT * FROM json_each('[1]')", 1146),
        ("SELECT sqlite_version()", 1305),
        ("SELECT sqlite_source_id()", 1305),
        ("SELECT load_extension('x')", 1305),
        ("SELECT * FROM t WHERE id IN (SELECT rootpage FROM sqlite_master)", 1146),
        ("PRAGMA table_info(t)", 1064),
        ("ATTACH DATABASE '/tmp/x' AS x", 1064),
    ],
)
def test_sqlite_internals_are_not_there(two_dbs, sql, code):
    srv, root, v, h, user = two_dbs
    for who in (root, clients.connect(srv, user, "pw", database=h)):
        clients.query(who, f"USE {h}")
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(who, sql)
        assert _code(ei) == code, (sql, ei.value.args)
        # MySQL's wording, not SQLite's ("no such table", "not authorized").
        assert "no such" not in ei.value.args[1] and "not authorized" not in ei.value.args[1], ei.value.args


def test_prepare_of_execute_is_refused(sql_conn):
    """PREPARE s FROM 'EXECUTE s' would run itself until the stack ran out."""
    for text in ("EXECUTE s1", "PREPARE s2 FROM 'SELECT 1'", "DEALLOCATE PREPARE s1", "DROP PREPARE s1"):
        with pytest.raises(pymysql.err.OperationalError) as ei:
            clients.query(sql_conn, "PREPARE s1 FROM %s", (text,))
        assert _code(ei) == 1295, text
    assert clients.scalar(sql_conn, "SELECT 1") == 1


def test_blackhole_engine_checks_named_databases(server, uniq):
    """The blackhole engine stores nothing, but refuses what MySQL would."""
    root = clients.root(server)
    v, h, user = uniq("bv"), uniq("bh"), uniq("bu")
    clients.query(root, f"CREATE DATABASE {v}")
    clients.query(root, f"CREATE DATABASE {h}")
    clients.query(root, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    clients.query(root, f"GRANT SELECT ON {h}.* TO '{user}'@'%'")
    att = clients.connect(server, user, "pw", database=h)
    for sql in (f"SELECT * FROM {v}.t", f"SELECT * FROM `{v}`.`t`", f"DROP TABLE {v}.t", f"INSERT INTO t SELECT * FROM {v}.t", "INSERT INTO t VALUES (1)", "DROP TABLE t"):
        with pytest.raises(pymysql.err.OperationalError) as ei:
            clients.query(att, sql)
        assert _code(ei) == 1142, sql
    assert clients.query(att, "SELECT * FROM t") == ()
    att.close()
    clients.query(root, f"DROP USER '{user}'@'%'")
    root.close()
