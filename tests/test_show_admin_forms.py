"""SHOW and table-maintenance answers as MariaDB 10.11 gives them (every
expectation checked against it):

- SHOW CREATE TABLE with sql_quote_show_create off quotes only the names
  MariaDB would (keywords, names with characters outside a plain name, digits
  only): crates/sqltext/src/keywords.rs, schema.rs `quote_if_needed`.
- ANALYZE/CHECK/OPTIMIZE/REPAIR TABLE answer by the table's engine (InnoDB
  repairs nothing and optimizes by recreating, MEMORY supports none), a view
  only for CHECK, and a missing table with an Error then 'Operation failed'
  (crates/sqlite/src/exec/table_admin.rs). Privileges still hold.
"""

from __future__ import annotations

from helpers import clients


def q(conn, sql):
    return clients.query(conn, sql)


def test_quote_show_create_off(sql_conn, uniq):
    db = uniq("qsc")
    q(sql_conn, f"CREATE DATABASE {db}")
    q(sql_conn, f"USE {db}")
    q(sql_conn, "CREATE TABLE t1 (a INT NOT NULL, name INT, `c-b` INT, `123` INT, PRIMARY KEY (a), KEY name (name))")
    q(sql_conn, "CREATE TABLE `a.1` (i INT)")
    try:
        q(sql_conn, "SET sql_quote_show_create = 0")
        create = q(sql_conn, "SHOW CREATE TABLE t1")[0][1]
        assert create.startswith("CREATE TABLE t1 (\n  a int(11) NOT NULL,\n  `name` int(11) DEFAULT NULL,\n  `c-b` int(11) DEFAULT NULL,\n  `123` int(11) DEFAULT NULL,\n  PRIMARY KEY (a),\n  KEY `name` (`name`)\n)")
        assert q(sql_conn, "SHOW CREATE TABLE `a.1`")[0][1].startswith("CREATE TABLE `a.1` (\n  i int(11) DEFAULT NULL\n)")
        q(sql_conn, "SET sql_quote_show_create = ON")
        assert q(sql_conn, "SHOW CREATE TABLE t1")[0][1].startswith("CREATE TABLE `t1` (\n  `a` int(11) NOT NULL,")
    finally:
        q(sql_conn, "SET sql_quote_show_create = DEFAULT")
        q(sql_conn, f"DROP DATABASE {db}")


def test_maintenance_by_engine(sql_conn, uniq):
    db = uniq("maint")
    q(sql_conn, f"CREATE DATABASE {db}")
    q(sql_conn, f"USE {db}")
    q(sql_conn, "CREATE TABLE ti (a INT) ENGINE=InnoDB")
    q(sql_conn, "CREATE TABLE tm (a INT) ENGINE=MyISAM")
    q(sql_conn, "CREATE TABLE tme (a INT) ENGINE=MEMORY")
    q(sql_conn, "CREATE VIEW v AS SELECT 1")
    try:
        rows = lambda op: [r[1:] for r in q(sql_conn, f"{op} TABLE ti, tm, tme, nosuch")]  # noqa: E731
        missing = lambda op: [(op, "Error", f"Table '{db}.nosuch' doesn't exist"), (op, "status", "Operation failed")]  # noqa: E731
        assert rows("REPAIR") == [("repair", "note", "The storage engine for the table doesn't support repair"), ("repair", "status", "OK"), ("repair", "note", "The storage engine for the table doesn't support repair")] + missing("repair")
        assert rows("OPTIMIZE") == [("optimize", "note", "Table does not support optimize, doing recreate + analyze instead"), ("optimize", "status", "OK"), ("optimize", "status", "OK"), ("optimize", "note", "The storage engine for the table doesn't support optimize")] + missing("optimize")
        assert rows("ANALYZE") == [("analyze", "status", "OK"), ("analyze", "status", "OK"), ("analyze", "note", "The storage engine for the table doesn't support analyze")] + missing("analyze")
        assert rows("CHECK") == [("check", "status", "OK"), ("check", "status", "OK"), ("check", "note", "The storage engine for the table doesn't support check")] + missing("check")
        assert q(sql_conn, "CHECK TABLE v") == ((f"{db}.v", "check", "status", "OK"),)
        assert q(sql_conn, "REPAIR TABLE v") == ((f"{db}.v", "repair", "Error", f"'{db}.v' is not of type 'BASE TABLE'"), (f"{db}.v", "repair", "status", "Operation failed"))
    finally:
        q(sql_conn, f"DROP DATABASE {db}")


def test_maintenance_keeps_privileges(sql_server, sql_conn, uniq):
    db, user = uniq("maintp"), uniq("u")
    q(sql_conn, f"CREATE DATABASE {db}")
    q(sql_conn, f"CREATE TABLE {db}.t (a INT)")
    q(sql_conn, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    q(sql_conn, f"GRANT SELECT ON {db}.t TO '{user}'@'%'")
    try:
        conn = clients.connect(sql_server, user, "pw")
        # REPAIR/OPTIMIZE need INSERT as well: refused, the engine answer not shown.
        assert clients.error(conn, f"REPAIR TABLE {db}.t")[0] == 1142
        assert clients.error(conn, f"OPTIMIZE TABLE {db}.nosuch")[0] == 1142
        assert q(conn, f"CHECK TABLE {db}.t")[0][2:] == ("status", "OK")
        conn.close()
    finally:
        q(sql_conn, f"DROP USER '{user}'@'%'")
        q(sql_conn, f"DROP DATABASE {db}")
