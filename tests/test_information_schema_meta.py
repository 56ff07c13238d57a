"""information_schema and SHOW metadata in MariaDB 10.11's shapes (issue #23):
information_schema's own tables listed as SYSTEM VIEW, `USE
information_schema` then bare names, every collation of a character set,
the variables, status and privileges tables, MariaDB's column types
(LONGTEXT, DATETIME), SHOW ... WHERE over any SHOW's columns, and that every
row respects the reader's privileges (an account sees only what it holds
some privilege on, its own grants only). Expected values were read from
MariaDB 10.11 for the same statements.
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients

BLOB, DATETIME, LONG, LONGLONG, VAR_STRING = 252, 12, 3, 8, 253


@pytest.fixture
def db(sql_server, uniq):
    name = uniq("ism")
    root = clients.root(sql_server)
    clients.query(root, f"CREATE DATABASE {name}")
    clients.query(root, f"USE {name}")
    clients.query(root, "CREATE TABLE t3 (a INT, b INT, KEY a_data (a), KEY (b))")
    yield root, name
    clients.query(root, f"DROP DATABASE {name}")
    root.close()


def _types(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        cur.fetchall()
        return [d[1] for d in cur.description]


def _names(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        cur.fetchall()
        return [d[0] for d in cur.description]


def test_information_schemas_own_tables_are_listed(db):
    root, _ = db
    rows = clients.query(root, "SELECT TABLE_NAME, TABLE_TYPE, ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'information_schema' AND TABLE_NAME IN ('TABLES', 'COLUMNS') ORDER BY 1")
    assert rows == (("COLUMNS", "SYSTEM VIEW", "Aria"), ("TABLES", "SYSTEM VIEW", "MEMORY"))
    shown = clients.query(root, "SHOW FULL TABLES FROM information_schema LIKE 'GLOBAL%'")
    assert ("GLOBAL_VARIABLES", "SYSTEM VIEW") in shown and ("GLOBAL_STATUS", "SYSTEM VIEW") in shown
    # Every listed table has its columns (MariaDB's types).
    assert clients.scalar(root, "SELECT COUNT(*) FROM information_schema.TABLES a WHERE NOT EXISTS (SELECT * FROM information_schema.COLUMNS b WHERE a.TABLE_SCHEMA = b.TABLE_SCHEMA AND a.TABLE_NAME = b.TABLE_NAME) AND a.TABLE_SCHEMA = 'information_schema'") == 0
    assert clients.query(root, "SELECT COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'information_schema' AND TABLE_NAME = 'TABLES' AND COLUMN_NAME IN ('TABLE_NAME', 'VERSION') ORDER BY ORDINAL_POSITION") == (
        ("varchar(64)", "NO"),
        ("bigint(21) unsigned", "YES"),
    )


def test_use_information_schema_reads_bare_names(db):
    root, name = db
    clients.query(root, "USE information_schema")
    assert clients.query(root, f"SELECT table_name FROM tables WHERE table_schema = '{name}'") == (("t3",),)
    assert clients.scalar(root, "SELECT COUNT(*) FROM collations c JOIN character_sets s ON s.character_set_name = c.character_set_name WHERE s.character_set_name = 'latin1'") == 10


def test_every_collation_of_a_character_set(db):
    root, _ = db
    rows = clients.query(root, "SHOW COLLATION LIKE 'latin1%'")
    assert len(rows) == 10 and ("latin1_bin", "latin1", 47, "", "Yes", 1) in rows
    assert clients.query(root, "SELECT ID, IS_DEFAULT FROM information_schema.COLLATION_CHARACTER_SET_APPLICABILITY WHERE COLLATION_NAME = 'latin1_swedish_ci'") == ((8, "Yes"),)


def test_variables_and_status_tables(db):
    root, _ = db
    assert clients.query(root, "SELECT * FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME = 'autocommit'") == (("AUTOCOMMIT", "ON"),)
    clients.query(root, "SET SESSION sql_select_limit = 7")
    assert clients.query(root, "SELECT VARIABLE_VALUE FROM information_schema.SESSION_VARIABLES WHERE VARIABLE_NAME = 'sql_select_limit'") == (("7",),)
    assert clients.scalar(root, "SELECT COUNT(*) FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'Uptime'") == 1


def test_column_types_are_mariadbs(db):
    root, _ = db
    assert _types(root, "SELECT COLUMN_TYPE, ORDINAL_POSITION FROM information_schema.COLUMNS LIMIT 1") == [BLOB, LONGLONG]
    assert _types(root, "SELECT CREATED, LAST_ALTERED FROM information_schema.ROUTINES") == [DATETIME, DATETIME]
    assert _types(root, "SELECT SEQ_IN_INDEX FROM information_schema.STATISTICS") == [LONG]
    assert _names(root, "SELECT * FROM information_schema.SCHEMATA")[-1] == "SCHEMA_COMMENT"
    assert _types(root, "SHOW PROCEDURE STATUS")[4:6] == [DATETIME, DATETIME]


def test_show_where_filters_any_show(db):
    root, name = db
    assert [r[2] for r in clients.query(root, "SHOW KEYS FROM t3 WHERE Key_name = 'a_data'")] == ["a_data"]
    assert clients.query(root, f"SHOW TABLE STATUS FROM {name} WHERE Name IN (SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = '{name}')")[0][0] == "t3"
    assert clients.query(root, "SHOW COLLATION WHERE Collation LIKE 'latin1%' AND Id < 9") == (("latin1_german1_ci", "latin1", 5, "", "Yes", 1), ("latin1_swedish_ci", "latin1", 8, "Yes", "Yes", 1))
    assert clients.query(root, f"SHOW DATABASES WHERE `Database` = '{name}'") == ((name,),)
    assert _names(root, f"SHOW DATABASES LIKE '{name}'") == [f"Database ({name})"]
    assert clients.error(root, "SHOW KEYS FROM t3 WHERE nosuch = 1")[0] == 1054
    # The condition is one expression: nothing may follow it.
    assert clients.error(root, "SHOW DATABASES WHERE 1 = 1 UNION SELECT 1")[0] == 1064
    assert clients.error(root, "SHOW DATABASES WHERE 1) UNION SELECT (1")[0] == 1064


def test_rows_respect_the_readers_privileges(sql_server, db, uniq):
    root, name = db
    other = uniq("ismo")
    user = uniq("ismu")
    clients.query(root, f"CREATE DATABASE {other}")
    clients.query(root, f"CREATE TABLE {other}.secret (x INT)")
    clients.query(root, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    clients.query(root, f"GRANT SELECT ON {name}.* TO '{user}'@'%'")
    try:
        conn = clients.connect(sql_server, user=user, password="pw")
        try:
            schemas = {r[0] for r in clients.query(conn, "SELECT TABLE_SCHEMA FROM information_schema.TABLES")}
            assert name in schemas and "information_schema" in schemas and other not in schemas and "mysql" not in schemas
            assert {r[0] for r in clients.query(conn, "SELECT GRANTEE FROM information_schema.USER_PRIVILEGES")} == {f"'{user}'@'%'"}
            assert clients.query(conn, "SELECT TABLE_SCHEMA, PRIVILEGE_TYPE FROM information_schema.SCHEMA_PRIVILEGES") == ((name, "SELECT"),)
            # SHOW ... WHERE reads nothing the SHOW itself would refuse.
            assert clients.error(conn, f"SHOW TABLES FROM {other} WHERE 1 = 1")[0] == 1044
            assert clients.error(conn, f"SHOW KEYS FROM {name}.t3 WHERE Key_name IN (SELECT x FROM {other}.secret)")[0] in (1142, 1044)
            clients.query(conn, "USE information_schema")
            assert other not in {r[0] for r in clients.query(conn, "SELECT TABLE_SCHEMA FROM tables")}
        finally:
            conn.close()
        admin_grantees = {r[0] for r in clients.query(root, "SELECT GRANTEE FROM information_schema.USER_PRIVILEGES")}
        assert f"'{user}'@'%'" in admin_grantees and len(admin_grantees) > 1
        assert clients.query(root, "SELECT TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'mysql' AND TABLE_NAME = 'user'") == (("VIEW",),)
    finally:
        clients.query(root, f"DROP USER '{user}'@'%'")
        clients.query(root, f"DROP DATABASE {other}")
