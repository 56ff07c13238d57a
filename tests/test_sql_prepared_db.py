"""SQL prepared statements belong to the database current at PREPARE, as in
MariaDB 10.11 (crates/sql/src/prepared_db.rs; every expectation checked
against it):

- EXECUTE resolves unqualified names (and DATABASE()) in the PREPARE-time
  database, then the session is back in its own.
- A PREPARE-time database dropped since is 1049 at EXECUTE.
- PREPARE with no current database refuses a statement naming a table
  without one (1046), DDL and SHOW TABLES included.
- Privileges still hold: the switch reads nothing the user may not.
- String values compare PAD SPACE (utf8mb4_general_ci), parameters too
  (crates/sql/src/expr/eval.rs `compare`).
"""

from __future__ import annotations

from helpers import clients


def q(conn, sql):
    return clients.query(conn, sql)


def test_execute_in_prepare_database(sql_server, uniq):
    a, b = uniq("pa"), uniq("pb")
    conn = clients.connect(sql_server)
    q(conn, f"CREATE DATABASE {a}")
    q(conn, f"CREATE DATABASE {b}")
    try:
        q(conn, f"USE {a}")
        q(conn, "CREATE TABLE t (x INT)")
        q(conn, "INSERT INTO t VALUES (1), (2)")
        q(conn, "PREPARE s FROM 'SELECT DATABASE(), COUNT(*) FROM t'")
        q(conn, "PREPARE c FROM 'CREATE TABLE made (i INT)'")
        q(conn, f"USE {b}")
        assert q(conn, "EXECUTE s") == ((a, 2),)
        assert q(conn, "SELECT DATABASE()") == ((b,),)
        q(conn, "EXECUTE c")
        assert q(conn, f"SHOW TABLES FROM {a} LIKE 'made'") == (("made",),)
        assert q(conn, "SHOW TABLES") == ()
        q(conn, f"DROP DATABASE {a}")
        assert clients.error(conn, "EXECUTE s")[0] == 1049
        assert q(conn, "SELECT DATABASE()") == ((b,),)
    finally:
        q(conn, f"DROP DATABASE IF EXISTS {a}")
        q(conn, f"DROP DATABASE IF EXISTS {b}")
        conn.close()


def test_prepare_without_database(sql_server):
    conn = clients.connect(sql_server)
    try:
        for text in ["create table t1 (i int)", "insert into t1 (i) values (1)", "select * from t1", "analyze table t1", "show tables like 't1'", "truncate table t1", "drop table t1"]:
            assert clients.error(conn, f'PREPARE s FROM "{text}"')[0] == 1046, text
        q(conn, "PREPARE s FROM 'SELECT 1'")
        q(conn, "PREPARE s FROM 'SHOW TABLES FROM mysql LIKE \"nothing\"'")
        q(conn, "DEALLOCATE PREPARE s")
        # information_schema as the current database is one: its tables resolve there.
        q(conn, "USE information_schema")
        q(conn, "PREPARE s FROM 'SELECT COUNT(*) > 0 FROM TABLES'")
        q(conn, "USE mysql")
        assert q(conn, "EXECUTE s") == ((1,),)
        assert q(conn, "SELECT DATABASE()") == (("mysql",),)
        q(conn, "DEALLOCATE PREPARE s")
    finally:
        conn.close()


def test_prepare_database_keeps_privileges(sql_server, uniq):
    own, other, user = uniq("po"), uniq("px"), uniq("u")
    root = clients.connect(sql_server)
    q(root, f"CREATE DATABASE {own}")
    q(root, f"CREATE DATABASE {other}")
    q(root, f"CREATE TABLE {own}.t (x INT)")
    q(root, f"CREATE TABLE {other}.t (x INT)")
    q(root, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    q(root, f"GRANT SELECT ON {own}.* TO '{user}'@'%'")
    try:
        conn = clients.connect(sql_server, user, "pw", database=own)
        q(conn, "PREPARE s FROM 'SELECT COUNT(*) FROM t'")
        q(conn, f"PREPARE o FROM 'SELECT COUNT(*) FROM {other}.t'")
        assert q(conn, "EXECUTE s") == ((0,),)
        assert clients.error(conn, "EXECUTE o")[0] == 1142
        # Revoked since PREPARE: the switch does not carry the old grant.
        q(root, f"REVOKE SELECT ON {own}.* FROM '{user}'@'%'")
        assert clients.error(conn, "EXECUTE s")[0] in (1142, 1044)
        conn.close()
    finally:
        q(root, f"DROP USER '{user}'@'%'")
        q(root, f"DROP DATABASE {own}")
        q(root, f"DROP DATABASE {other}")
        root.close()


def test_string_parameters_compare_pad_space(sql_conn):
    # utf8mb4_general_ci ignores trailing spaces, for literals and parameters
    # alike (MariaDB: 'CHRISTINE    ' = 'CHRISTINE' is 1).
    assert q(sql_conn, "SELECT 'a  ' = 'a', 'a ' < 'a', 'a ' = 'A'") == ((1, 0, 1),)
    q(sql_conn, "SET @a = 'CHRISTINE    ', @b = 'CHRISTINE'")
    q(sql_conn, "PREPARE s FROM 'SELECT ?=?'")
    assert q(sql_conn, "EXECUTE s USING @a, @b") == ((1,),)
    q(sql_conn, "DEALLOCATE PREPARE s")
