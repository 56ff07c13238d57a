"""Views as an attacker uses them: a view must never be a path into another database.

An account holding ALL on its own database tries to read a victim database
through views: a view over the victim's table (any reference form), over the
victim's view, a view retargeted by ALTER VIEW / OR REPLACE, CREATE TABLE ...
SELECT from either, SHOW CREATE VIEW and information_schema.VIEWS of the
victim. MariaDB 10.11 refuses each with 1142 (checked against it: "ANY
command denied" for a view's SELECT, "SELECT command denied" for CTAS).
Turnstile refuses them with 1142 as well, and refuses cross-database views for
everyone (1235, docs/compatibility.md: a view reads its own database only,
wherever it is made from), so no view made by an administrator
can hand another database's rows to a reader either (MariaDB's SQL SECURITY
DEFINER views would). Also: what SQLite must never see through a view's body
(its own tables, a second statement), DROP VIEW of a table and DROP TABLE of a
view, and the bound on views nested in views (64, MariaDB's nesting limit:
1473) and on what a view expands to (1116), checked again when a view under
others is replaced (recursion: 1462).
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
def two_dbs(sql_server, uniq):
    """A victim database with a secret table and a view of it, and an
    account holding ALL on another database only."""
    v, h, user = uniq("vvic"), uniq("vhome"), uniq("vatt")
    root = clients.root(sql_server)
    for sql in [
        f"CREATE DATABASE {v}",
        f"CREATE DATABASE {h}",
        f"CREATE TABLE {v}.secret (id INT PRIMARY KEY, s VARCHAR(20))",
        f"INSERT INTO {v}.secret VALUES (1, 'top')",
        f"USE {v}",
        "CREATE VIEW sv AS SELECT id, s FROM secret",
        f"CREATE TABLE {h}.t (id INT PRIMARY KEY)",
        f"INSERT INTO {h}.t VALUES (1)",
        f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'",
        f"GRANT ALL ON {h}.* TO '{user}'@'%'",
    ]:
        clients.query(root, sql)
    att = clients.connect(sql_server, user, "pw", database=h)
    yield sql_server, root, att, v, h, user
    att.close()
    clients.query(root, f"DROP USER '{user}'@'%'")
    clients.query(root, f"DROP DATABASE {v}")
    clients.query(root, f"DROP DATABASE {h}")
    root.close()


def _tables(conn, db):
    return {r[0] for r in clients.query(conn, f"SHOW TABLES FROM {db}")}


@pytest.mark.parametrize(
    "body",
    [
        "SELECT * FROM {v}.secret",
        "SELECT s FROM `{v}`.`secret`",
        "SELECT t.id FROM t JOIN {v}.secret s ON s.id = t.id",
        "SELECT (SELECT s FROM {v}.secret LIMIT 1) AS x",
        "SELECT id FROM t WHERE id IN (SELECT id FROM {v}.secret)",
        "WITH c AS (SELECT * FROM {v}.secret) SELECT * FROM c",
        "SELECT id FROM t UNION SELECT id FROM {v}.secret",
        "SELECT * FROM {v}.sv",
        "SELECT * FROM (SELECT * FROM {v}.sv) d",
    ],
)
def test_a_view_over_another_database_is_refused(two_dbs, body):
    srv, root, att, v, h, user = two_dbs
    sql = body.format(v=v)
    assert _err(att, f"CREATE VIEW leak AS {sql}") == 1142
    assert _err(att, f"CREATE OR REPLACE VIEW leak AS {sql}") == 1142
    assert _err(att, f"CREATE TABLE leak AS {sql}") == 1142
    clients.query(att, "CREATE VIEW mine AS SELECT id FROM t")
    assert _err(att, f"ALTER VIEW mine AS {sql}") == 1142
    assert clients.query(att, "SELECT * FROM mine") == ((1,),)
    assert "leak" not in _tables(root, h)


def test_the_victims_view_is_a_table_the_attacker_cannot_touch(two_dbs):
    srv, root, att, v, h, user = two_dbs
    assert clients.query(root, f"SELECT s FROM {v}.sv") == (("top",),)
    for sql in [
        f"SELECT * FROM {v}.sv",
        f"SHOW CREATE VIEW {v}.sv",
        f"SHOW CREATE TABLE {v}.sv",
        f"DESCRIBE {v}.sv",
        f"DROP VIEW {v}.sv",
        f"CREATE VIEW {v}.v3 AS SELECT 1",
        f"CREATE OR REPLACE VIEW {v}.sv AS SELECT 1 AS id",
        f"ALTER VIEW {v}.sv AS SELECT 1 AS id",
        f"INSERT INTO {v}.sv VALUES (2, 'x')",
    ]:
        assert _err(att, sql) == 1142, sql
    seen = clients.query(att, f"SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = '{v}'")
    assert seen == ((0,),)
    assert clients.query(root, f"SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = '{v}'") == ((1,),)
    assert clients.query(root, f"SELECT s FROM {v}.sv") == (("top",),)


def test_no_account_makes_a_cross_database_view(two_dbs):
    """An administrator's view would run with its definer's rights in
    MariaDB and read the victim for whoever may read the view: refused."""
    srv, root, att, v, h, user = two_dbs
    clients.query(root, f"USE {h}")
    assert _err(root, f"CREATE VIEW adm AS SELECT * FROM {v}.secret") == 1235
    # A view of another database reads that database's tables only: made
    # as if that database were current; naming this one's is refused.
    clients.query(root, f"CREATE VIEW {v}.adm AS SELECT s FROM {v}.secret")
    assert clients.query(root, f"SELECT * FROM {v}.adm") == (("top",),)
    clients.query(root, f"DROP VIEW {v}.adm")
    assert _err(root, f"CREATE VIEW {v}.adm AS SELECT * FROM {h}.t") == 1235
    # `secret` unqualified is this database's (none here): never the view's.
    assert _err(root, f"CREATE VIEW {v}.adm AS SELECT * FROM secret") == 1235
    assert clients.query(root, "SELECT DATABASE()") == ((h,),)
    # information_schema with another database: refused as any other database.
    assert _err(root, f"CREATE VIEW adm AS SELECT s FROM information_schema.TABLES JOIN {v}.secret") == 1235
    assert "adm" not in _tables(root, h)


def test_a_view_over_information_schema_shows_the_reader_only_its_own(two_dbs, uniq):
    """A view over information_schema (kept as text and expanded where it is
    read: crates/sqlite/src/view_expand.rs) lists what information_schema
    lists the reader, whoever made it (an administrator's SQL SECURITY
    DEFINER view included: MariaDB would list the definer's), needs SELECT
    on the view, and cannot carry a table of a database the maker may not read."""
    srv, root, att, v, h, user = two_dbs
    q = f"SELECT table_schema, table_name FROM information_schema.TABLES WHERE table_schema IN ('{v}', '{h}')"
    clients.query(att, f"CREATE VIEW mine AS {q}")
    assert set(clients.query(att, "SELECT * FROM mine")) == {(h, "t"), (h, "mine")}
    clients.query(root, f"CREATE SQL SECURITY DEFINER VIEW {h}.adm AS {q}")
    assert (v, "secret") in set(clients.query(root, f"SELECT * FROM {h}.adm"))
    assert {r[0] for r in clients.query(att, "SELECT * FROM adm")} == {h}
    # Joined and filtered with a table, and in a subquery.
    got = clients.query(att, "SELECT t.id, m.table_name FROM t JOIN mine m ON m.table_name = 't'")
    assert got == ((1, "t"),)
    assert clients.query(att, "SELECT COUNT(*) FROM t WHERE EXISTS (SELECT 1 FROM adm WHERE table_name = 'secret')") == ((0,),)
    # Its text naming the victim's table is refused as any view's.
    assert _err(att, f"CREATE VIEW leak AS SELECT s FROM information_schema.TABLES, {v}.secret") == 1142
    assert _err(att, f"CREATE VIEW leak AS SELECT * FROM mine WHERE table_name IN (SELECT s FROM {v}.secret)") == 1142
    # Written through: never (MariaDB: not updatable).
    assert _err(att, "UPDATE mine SET table_name = 'x'") == 1288
    assert _err(att, "DELETE FROM mine") == 1288
    assert _err(att, "INSERT INTO mine VALUES ('a', 'b')") == 1471
    # Reading it needs SELECT on it, checked on each execution.
    reader = uniq("vrd")
    clients.query(root, f"CREATE USER '{reader}'@'%' IDENTIFIED BY 'pw'")
    clients.query(root, f"GRANT SELECT ON {h}.* TO '{reader}'@'%'")
    try:
        rd = clients.connect(srv, reader, "pw", database=h)
        assert {r[1] for r in clients.query(rd, "SELECT * FROM adm")} == {"t", "mine", "adm"}
        clients.query(root, f"REVOKE SELECT ON {h}.* FROM '{reader}'@'%'")
        assert _err(rd, "SELECT * FROM adm") == 1142
        assert _err(rd, f"SELECT * FROM {h}.mine") == 1142
        rd.close()
    finally:
        clients.query(root, f"DROP USER '{reader}'@'%'")
    assert _err(att, f"SELECT * FROM {v}.sv JOIN mine") == 1142
    clients.query(att, "DROP VIEW mine")
    assert _err(att, "SELECT * FROM mine") == 1146


def test_a_views_query_is_shown_only_to_who_may_read_it(two_dbs, uniq):
    """information_schema.VIEWS lists a view to an account that sees its
    database, but its query only with SELECT there (MariaDB: SHOW VIEW)."""
    srv, root, att, v, h, user = two_dbs
    other = uniq("vins")
    clients.query(root, f"CREATE USER '{other}'@'%' IDENTIFIED BY 'pw'")
    clients.query(root, f"GRANT INSERT ON {v}.* TO '{other}'@'%'")
    try:
        conn = clients.connect(srv, other, "pw")
        got = clients.query(conn, f"SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = '{v}'")
        assert got == (("sv", ""),)
        assert _err(conn, f"SHOW CREATE VIEW {v}.sv") == 1142
        conn.close()
    finally:
        clients.query(root, f"DROP USER '{other}'@'%'")


def test_reading_a_view_needs_select_on_its_database(two_dbs, uniq):
    """A view is checked as a table when it is read, on every execution of a
    statement cached by another session, and after a REVOKE."""
    srv, root, att, v, h, user = two_dbs
    reader = uniq("vrd")
    clients.query(root, f"CREATE USER '{reader}'@'%' IDENTIFIED BY 'pw'")
    clients.query(root, f"GRANT SELECT ON {v}.* TO '{reader}'@'%'")
    try:
        rd = clients.connect(srv, reader, "pw", database=v)
        assert clients.query(rd, "SELECT s FROM sv") == (("top",),)
        clients.query(root, f"REVOKE SELECT ON {v}.* FROM '{reader}'@'%'")
        assert _err(rd, "SELECT s FROM sv") == 1142
        assert _err(rd, "SELECT s FROM secret") == 1142
        rd.close()
    finally:
        clients.query(root, f"DROP USER '{reader}'@'%'")


def test_sqlite_internals_and_second_statements_stay_out_of_a_view(two_dbs):
    srv, root, att, v, h, user = two_dbs
    for body in ["SELECT * FROM sqlite_master", "SELECT * FROM turnstile_meta", "SELECT * FROM pragma_table_info('t')", "SELECT sqlite_version()"]:
        assert _err(att, f"CREATE VIEW x AS {body}") in (1146, 1305), body
    assert _err(att, "CREATE VIEW x AS SELECT 1; DROP TABLE t") == 1064
    assert _err(att, "CREATE TABLE x AS SELECT 1; DROP TABLE t") == 1064
    assert _err(att, "CREATE VIEW x AS SELECT @a") == 1351
    assert clients.query(att, "SELECT id FROM t") == ((1,),)
    assert "x" not in _tables(root, h)


def test_drop_view_of_a_table_and_drop_table_of_a_view(two_dbs):
    srv, root, att, v, h, user = two_dbs
    clients.query(att, "CREATE VIEW w AS SELECT id FROM t")
    assert _err(att, "DROP VIEW t") == 4092
    assert _err(att, "DROP TABLE w") == 1965
    assert _err(att, "ALTER TABLE w ADD COLUMN z INT") == 1347
    assert _err(att, "TRUNCATE TABLE w") == 1146
    assert _tables(root, h) >= {"t", "w"}
    clients.query(att, "DROP VIEW w")
    assert clients.query(att, "SELECT id FROM t") == ((1,),)


def test_views_over_views_are_bounded(two_dbs):
    srv, root, att, v, h, user = two_dbs
    clients.query(att, "CREATE VIEW d0 AS SELECT id FROM t")
    for n in range(1, 64):
        clients.query(att, f"CREATE VIEW d{n} AS SELECT id FROM d{n - 1}")
    assert clients.query(att, "SELECT id FROM d63") == ((1,),)
    assert _err(att, "CREATE VIEW d64 AS SELECT id FROM d63") == 1473
    assert _err(att, "CREATE VIEW d64 AS SELECT a.id FROM d63 a JOIN d0 b ON a.id = b.id") == 1473
    # Doubling at each level. Joined views are flattened into one join:
    # SQLite's 64 tables (1116) at 2^7. Grouped ones are not: each is a
    # subquery of its own, and 2^11 table references is past the bound.
    for shape, limit_level in [("SELECT a.id FROM {p} a JOIN {p} b ON a.id = b.id", 7), ("SELECT a.id FROM {p} a JOIN {p} b ON a.id = b.id GROUP BY a.id", 11)]:
        tag = "g" if "GROUP" in shape else "w"
        clients.query(att, f"CREATE VIEW {tag}0 AS SELECT id FROM t")
        code = level = None
        for n in range(1, 40):
            try:
                clients.query(att, f"CREATE VIEW {tag}{n} AS " + shape.format(p=f"{tag}{n - 1}"))
            except pymysql.err.MySQLError as e:
                code, level = e.args[0], n
                break
        assert (code, level) == (1116, limit_level)
        assert clients.query(att, f"SELECT COUNT(*) FROM {tag}{level - 1}") == ((1,),)
    # A view replaced under others: the chain is checked again where it is read.
    assert _err(att, "CREATE OR REPLACE VIEW d0 AS SELECT id FROM d5") == 1462
    clients.query(att, "CREATE OR REPLACE VIEW d0 AS SELECT id FROM w0")
    assert _err(att, "SELECT id FROM d63") == 1473
    assert clients.scalar(root, "SELECT 1") == 1


def test_a_view_calling_a_stored_function_is_checked_as_any_view(two_dbs, uniq):
    """A view whose query calls a stored function (kept as text, its calls
    written out by the front where it is read): SELECT on the view and on
    what its text names is required of the reader, and EXECUTE on the
    function; the text naming another database's table is refused."""
    srv, root, att, v, h, user = two_dbs
    clients.query(root, f"CREATE FUNCTION {h}.hf() RETURNS INT RETURN 5")
    clients.query(att, "CREATE VIEW fv AS SELECT id, hf() AS k FROM t")
    assert clients.query(att, "SELECT * FROM fv") == ((1, 5),)
    assert _err(att, f"CREATE VIEW leak AS SELECT hf(), s FROM {v}.secret") == 1142
    reader = uniq("vfr")
    clients.query(root, f"CREATE USER '{reader}'@'%' IDENTIFIED BY 'pw'")
    try:
        rd = clients.connect(srv, reader, "pw")
        assert _err(rd, f"SELECT * FROM {h}.fv") == 1142
        clients.query(root, f"GRANT SELECT ON {h}.fv TO '{reader}'@'%'")
        assert _err(rd, f"SELECT * FROM {h}.fv") in (1142, 1370)
        rd.close()
    finally:
        clients.query(root, f"DROP USER '{reader}'@'%'")
    clients.query(root, f"DROP FUNCTION {h}.hf")
