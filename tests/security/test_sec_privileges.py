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
import time

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


def test_grant_identified_by_cannot_take_over_an_account(sql_server, uniq):
    """GRANT OPTION on one database used to set any account's password."""
    root = clients.root(sql_server)
    g, db = uniq("gi"), uniq("gidb")
    clients.query(root, f"CREATE DATABASE {db}")
    clients.query(root, f"CREATE USER '{g}'@'%' IDENTIFIED BY 'pw'")
    clients.query(root, f"GRANT SELECT ON {db}.* TO '{g}'@'%' WITH GRANT OPTION")
    att = clients.connect(sql_server, g, "pw")
    for sql in (f"GRANT SELECT ON {db}.* TO 'root'@'%' IDENTIFIED BY 'pwned'", f"GRANT SELECT ON {db}.* TO 'root'@'%' IDENTIFIED WITH mysql_native_password BY 'pwned'"):
        with pytest.raises(pymysql.err.OperationalError) as ei:
            clients.query(att, sql)
        assert _code(ei) == 1044, sql
    # root's password is unchanged.
    clients.root(sql_server).close()
    with pytest.raises(pymysql.err.OperationalError):
        clients.connect(sql_server, "root", "pwned").close()
    att.close()
    clients.query(root, f"DROP USER '{g}'@'%'")
    clients.query(root, f"DROP DATABASE {db}")
    root.close()


def test_drop_temporary_table_never_drops_a_real_table(two_dbs):
    srv, root, v, h, user = two_dbs
    att = clients.connect(srv, user, "pw", database=h)
    for sql in (f"DROP TEMPORARY TABLE {v}.secret", "DROP TEMPORARY TABLE t", f"DROP TEMPORARY TABLE IF EXISTS {v}.secret"):
        try:
            clients.query(att, sql)
        except pymysql.err.OperationalError as e:
            assert e.args[0] == 1051, (sql, e.args)
    assert clients.query(root, f"SELECT s FROM {v}.secret") == (("top",),)
    assert clients.query(root, f"SELECT COUNT(*) FROM {h}.t") == ((0,),)
    att.close()


def test_schema_change_race_reads_nothing_of_another_database(two_dbs):
    """A statement compiled for `secret` in the current database must not run
    against another database's `secret` when the current one's is dropped
    under it: SQLite recompiles statements on its own after a schema change,
    and the name would then resolve to the attached database."""
    import threading

    srv, root, v, h, user = two_dbs
    clients.query(root, f"GRANT ALL ON {h}.* TO '{user}'@'%'")
    reader = clients.connect(srv, user, "pw", database=h)
    ddl = clients.connect(srv, user, "pw", database=h)
    # Attach the victim's database to the reader's connection (refused, but attached).
    with pytest.raises(pymysql.err.OperationalError):
        clients.query(reader, f"SELECT s FROM {v}.secret")
    stop = time.monotonic() + 4
    leaked = []

    def churn():
        while time.monotonic() < stop:
            clients.query(ddl, "CREATE TABLE IF NOT EXISTS secret (id INT PRIMARY KEY, s VARCHAR(20))")
            clients.query(ddl, "DROP TABLE IF EXISTS secret")

    t = threading.Thread(target=churn)
    t.start()
    while time.monotonic() < stop:
        for sql in ("SELECT s FROM secret", "UPDATE secret SET s = 'pwned'"):
            try:
                rows = clients.query(reader, sql)
                if rows and any(r[0] == "top" for r in rows):
                    leaked.append(sql)
            except pymysql.err.MySQLError as e:
                assert e.args[0] in (1146, 1142, 1412), e.args
    t.join()
    assert not leaked
    assert clients.query(root, f"SELECT s FROM {v}.secret") == (("top",),)
    reader.close()
    ddl.close()


@pytest.mark.parametrize("query", [
    'SELECT table_schema, table_name FROM "information_schema"."TABLES"',
    "SELECT table_schema, table_name FROM `information_schema`.`TABLES`",
    "SELECT table_schema, table_name FROM TABLES",
    "SELECT table_schema, column_name FROM information_schema.COLUMNS",
])
def test_information_schema_shows_only_what_the_account_may_see(two_dbs, query):
    """information_schema is filled per statement for the session running it;
    a statement that reaches it another way must not read what the last one
    left there (root's view of every database)."""
    srv, root, v, h, user = two_dbs
    clients.query(root, f"USE {h}")
    assert any(r[0] == v for r in clients.query(root, "SELECT table_schema, table_name FROM information_schema.TABLES"))
    att = clients.connect(srv, user, "pw", database=h)
    for _ in range(3):
        try:
            rows = clients.query(att, query)
        except pymysql.err.MySQLError as e:
            assert e.args[0] in (1146, 1064), e.args
            continue
        assert not any(v in r for r in rows), rows
    att.close()



def test_tables_created_and_filled_at_once_by_several_sessions(sql_server, uniq):
    """sysbench's prepare: sessions each create a table, fill it and index it
    while the others do the same. SQLite compiles against its own copy of the
    schema; a program compiled while another session's DDL committed (or
    against a copy older than it) names b-trees by root pages that the schema
    read just after gives to other tables, and the check that a statement
    writes only the tables it names refused it (1105). Before the fix about
    one round in ten failed."""
    import threading

    d = uniq("fill")
    root = clients.root(sql_server)
    clients.query(root, f"CREATE DATABASE {d}")
    rows = ",".join(f"({j}, '{'x' * 100}', '{'y' * 50}')" for j in range(100))
    errors = []

    def fill(i: int) -> None:
        c = clients.connect(sql_server, "root", ROOT_PASSWORD, database=d)
        try:
            clients.query(c, f"CREATE TABLE sb{i} (id INT AUTO_INCREMENT PRIMARY KEY, k INT, c CHAR(120), pad CHAR(60))")
            for _ in range(5):
                clients.query(c, f"INSERT INTO sb{i} (k, c, pad) VALUES {rows}")
            clients.query(c, f"CREATE INDEX k_{i} ON sb{i} (k)")
        except pymysql.err.MySQLError as e:
            errors.append((i, e.args))
        finally:
            c.close()

    try:
        for _ in range(40):
            for i in range(4):
                clients.query(root, f"DROP TABLE IF EXISTS {d}.sb{i}")
            threads = [threading.Thread(target=fill, args=(i,)) for i in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert not errors, errors
            for i in range(4):
                assert clients.query(root, f"SELECT COUNT(*) FROM {d}.sb{i}") == ((500,),)
    finally:
        clients.query(root, f"DROP DATABASE {d}")
        root.close()
