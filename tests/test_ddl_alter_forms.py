"""ALTER TABLE, CREATE/DROP INDEX and RENAME TABLE forms MariaDB 10.11 has
and applications (migration tools above all) use, each checked against what
MariaDB answered for the same statements (issue #23 item 4):
- `IF [NOT] EXISTS` on each ALTER operation, on ALTER TABLE itself, on
  CREATE INDEX, DROP INDEX and RENAME TABLE: the skipped operation is a note
  with MariaDB's code and message, the others still run;
- ALTER TABLE ... ORDER BY (rows copied in that order; an InnoDB table with
  a primary key keeps its order and warns 1105);
- RENAME TABLE of several pairs, each seeing the ones before it (a swap);
- the rows an ALTER reports: copied (MariaDB counts them) or in place (0).
"""

from __future__ import annotations

import pytest

from helpers import clients


@pytest.fixture
def db(scratch_db):
    return scratch_db


err = clients.error


def run(c, sql):
    """(affected rows, info, [(level, code, message)]) of one statement."""
    with c.cursor() as cur:
        n = cur.execute(sql)
        raw = c._result.message or b""
        # The OK's info: PyMySQL keeps its length byte.
        info = raw[1:].decode() if raw else ""
        cur.execute("SHOW WARNINGS")
        return n, info, [tuple(r) for r in cur.fetchall()]


def columns(c, table):
    return [r[0] for r in clients.query(c, f"SHOW COLUMNS FROM {table}")]


def keys(c, table):
    return sorted({r[2] for r in clients.query(c, f"SHOW INDEX FROM {table}")})


def test_alter_operations_if_not_exists_and_if_exists(db):
    c, _ = db
    clients.query(c, "CREATE TABLE t1 (a INT, b INT, KEY kb (b), CONSTRAINT c1 CHECK (a > 0))")
    n, info, w = run(c, "ALTER TABLE t1 ADD COLUMN IF NOT EXISTS a INT, ADD COLUMN IF NOT EXISTS c INT AFTER a")
    assert (info, w) == ("Records: 0  Duplicates: 0  Warnings: 1", [("Note", 1060, "Duplicate column name 'a'")])
    assert columns(c, "t1") == ["a", "c", "b"]
    _, _, w = run(c, "ALTER TABLE t1 DROP COLUMN IF EXISTS zz, DROP INDEX IF EXISTS kz, DROP KEY IF EXISTS kb")
    assert w == [("Note", 1091, "Can't DROP COLUMN `zz`; check that it exists"), ("Note", 1091, "Can't DROP INDEX `kz`; check that it exists")]
    assert keys(c, "t1") == []
    assert run(c, "ALTER TABLE t1 MODIFY COLUMN IF EXISTS zz INT")[2] == [("Note", 1054, "Unknown column 'zz' in 't1'")]
    assert run(c, "ALTER TABLE t1 CHANGE COLUMN IF EXISTS zz yy INT")[2] == [("Note", 1054, "Unknown column 'zz' in 't1'")]
    assert run(c, "ALTER TABLE t1 RENAME COLUMN IF EXISTS zz TO qq")[2] == [("Note", 1054, "Unknown column 'zz' in 't1'")]
    assert run(c, "ALTER TABLE t1 ADD INDEX IF NOT EXISTS kc (c), ADD KEY IF NOT EXISTS kc (a)")[2] == [("Note", 1061, "Duplicate key name 'kc'")]
    assert keys(c, "t1") == ["kc"]
    assert run(c, "ALTER TABLE t1 ADD UNIQUE IF NOT EXISTS kc (b)")[2] == [("Note", 1061, "Duplicate key name 'kc'")]
    assert run(c, "ALTER TABLE t1 RENAME KEY IF EXISTS zz TO yy")[2] == [("Note", 1176, "Key 'zz' doesn't exist in table 't1'")]
    assert run(c, "ALTER TABLE t1 DROP FOREIGN KEY IF EXISTS f1")[2] == [("Note", 1091, "Can't DROP FOREIGN KEY `f1`; check that it exists")]
    assert run(c, "ALTER TABLE t1 DROP CONSTRAINT IF EXISTS c9")[2] == [("Note", 1091, "Can't DROP CONSTRAINT `c9`; check that it exists")]
    assert run(c, "ALTER TABLE t1 DROP CONSTRAINT IF EXISTS c1")[2] == []
    assert run(c, "ALTER TABLE t1 ADD CONSTRAINT IF NOT EXISTS c2 CHECK (b > 0)")[2] == []
    assert run(c, "ALTER TABLE t1 ADD CONSTRAINT IF NOT EXISTS c2 CHECK (b > 0)")[2] == [("Note", 1826, "Duplicate CHECK constraint name 'c2'")]
    assert run(c, "ALTER TABLE t1 ADD COLUMN IF NOT EXISTS (b INT, e INT)")[2] == [("Note", 1060, "Duplicate column name 'b'")]
    assert columns(c, "t1") == ["a", "c", "b", "e"]
    clients.query(c, "ALTER TABLE t1 MODIFY a INT NOT NULL, ADD PRIMARY KEY (a)")
    assert run(c, "ALTER TABLE t1 ADD PRIMARY KEY IF NOT EXISTS (c)")[2] == [("Note", 1061, "Multiple primary key defined")]
    # An unnamed key is named after its first column.
    clients.query(c, "ALTER TABLE t1 ADD INDEX IF NOT EXISTS (e)")
    assert run(c, "ALTER TABLE t1 ADD INDEX IF NOT EXISTS (e)")[2] == [("Note", 1061, "Duplicate key name 'e'")]
    # Without IF [NOT] EXISTS the same operations fail, with MariaDB's messages.
    assert err(c, "ALTER TABLE t1 DROP COLUMN zz") == (1091, "Can't DROP COLUMN `zz`; check that it exists")
    assert err(c, "ALTER TABLE t1 DROP INDEX zz") == (1091, "Can't DROP INDEX `zz`; check that it exists")
    assert err(c, "ALTER TABLE t1 DROP FOREIGN KEY zz") == (1091, "Can't DROP FOREIGN KEY `zz`; check that it exists")
    assert err(c, "ALTER TABLE t1 ADD COLUMN a INT")[0] == 1060
    # A skipped operation does not skip the next one, nor does IF EXISTS hide other errors.
    assert err(c, "ALTER TABLE t1 DROP COLUMN IF EXISTS zz, ADD COLUMN b INT")[0] == 1060
    assert columns(c, "t1") == ["a", "c", "b", "e"]


def test_if_exists_on_the_table_index_and_rename(db):
    c, name = db
    n, _, w = run(c, "ALTER TABLE IF EXISTS nosuch ADD COLUMN b INT")
    assert (n, w) == (0, [("Error", 1146, f"Table '{name}.nosuch' doesn't exist")])
    clients.query(c, "CREATE TABLE t1 (a INT, c INT)")
    clients.query(c, "ALTER TABLE IF EXISTS t1 ADD COLUMN b INT")
    assert columns(c, "t1") == ["a", "c", "b"]
    clients.query(c, "CREATE INDEX IF NOT EXISTS kc ON t1 (c)")
    assert run(c, "CREATE INDEX IF NOT EXISTS kc ON t1 (a)")[2] == [("Note", 1061, "Duplicate key name 'kc'")]
    assert err(c, "CREATE INDEX kc ON t1 (a)")[0] == 1061
    assert run(c, "DROP INDEX IF EXISTS kq ON t1")[2] == [("Note", 1091, "Can't DROP INDEX `kq`; check that it exists")]
    clients.query(c, "DROP INDEX IF EXISTS kc ON t1")
    assert keys(c, "t1") == []
    assert run(c, "RENAME TABLE IF EXISTS nosuch TO t8")[2] == [("Note", 1146, f"Table '{name}.nosuch' doesn't exist")]
    clients.query(c, "RENAME TABLE IF EXISTS t1 TO t2")
    assert [r[0] for r in clients.query(c, "SHOW TABLES")] == ["t2"]
    assert err(c, "RENAME TABLE nosuch TO t8")[0] == 1146


def test_rename_table_pairs_see_the_ones_before(db):
    c, _ = db
    for i in (1, 2, 3):
        clients.query(c, f"CREATE TABLE t{i} SELECT {i} AS n")
    clients.query(c, "RENAME TABLE t3 TO t4, t2 TO t3, t1 TO t2, t4 TO t1")
    assert [clients.query(c, f"SELECT n FROM t{i}")[0][0] for i in (1, 2, 3)] == [3, 1, 2]
    # A clash anywhere undoes the whole statement.
    assert err(c, "RENAME TABLE t3 TO t4, t2 TO t3, t1 TO t2, t4 TO t2")[0] == 1050
    assert [clients.query(c, f"SELECT n FROM t{i}")[0][0] for i in (1, 2, 3)] == [3, 1, 2]
    assert [r[0] for r in clients.query(c, "SHOW TABLES")] == ["t1", "t2", "t3"]


def test_alter_order_by(db):
    c, _ = db
    clients.query(c, "CREATE TABLE t4 (a INT, b INT)")
    clients.query(c, "INSERT INTO t4 VALUES (3,1),(1,2),(2,3)")
    assert run(c, "ALTER TABLE t4 ORDER BY a DESC")[:2] == (3, "Records: 3  Duplicates: 0  Warnings: 0")
    assert clients.query(c, "SELECT * FROM t4") == ((3, 1), (2, 3), (1, 2))
    clients.query(c, "ALTER TABLE t4 ORDER BY t4.b, a")
    assert clients.query(c, "SELECT * FROM t4") == ((3, 1), (1, 2), (2, 3))
    assert err(c, "ALTER TABLE t4 ORDER BY a+1")[0] == 1064
    assert err(c, "ALTER TABLE t4 ORDER BY nosuch")[0] == 1054
    clients.query(c, "CREATE TABLE t3 (a INT PRIMARY KEY, b INT)")
    n, _, w = run(c, "ALTER TABLE t3 ORDER BY b")
    assert (n, w) == (0, [("Warning", 1105, "ORDER BY ignored as there is a user-defined clustered index in the table 't3'")])
    # MyISAM has no clustered index: it orders.
    clients.query(c, "CREATE TABLE m1 (a INT PRIMARY KEY, b INT) ENGINE=MyISAM")
    clients.query(c, "INSERT INTO m1 VALUES (1,3),(2,2),(3,1)")
    assert run(c, "ALTER TABLE m1 ADD COLUMN c INT, ORDER BY b")[:2] == (3, "Records: 3  Duplicates: 0  Warnings: 0")


@pytest.mark.parametrize(
    "engine,sql,copied",
    [
        # Measured on MariaDB 10.11 (alter_table.test's "which operations require copy").
        ("InnoDB", "ALTER TABLE t ADD COLUMN d VARCHAR(200)", False),
        ("MyISAM", "ALTER TABLE t ADD COLUMN d VARCHAR(200)", True),
        ("InnoDB", "ALTER TABLE t ALTER COLUMN b SET DEFAULT 1", False),
        ("MyISAM", "ALTER TABLE t ALTER COLUMN b SET DEFAULT 1", False),
        ("MyISAM", "ALTER TABLE t CHANGE COLUMN c g INT", False),
        ("MyISAM", "ALTER TABLE t COMMENT 'test'", False),
        ("MyISAM", "ALTER TABLE t ENABLE KEYS", False),
        ("MyISAM", "ALTER TABLE t", False),
        ("MyISAM", "ALTER TABLE t MODIFY COLUMN c INT NOT NULL", True),
        ("InnoDB", "ALTER TABLE t MODIFY COLUMN c INT NOT NULL", False),
        ("InnoDB", "ALTER TABLE t MODIFY COLUMN e ENUM('a','b','c')", False),
        ("InnoDB", "ALTER TABLE t MODIFY COLUMN e ENUM('b','a')", True),
        ("InnoDB", "ALTER TABLE t MODIFY COLUMN v VARCHAR(60)", False),
        ("InnoDB", "ALTER TABLE t MODIFY COLUMN v VARCHAR(64)", True),
        ("InnoDB", "ALTER TABLE t MODIFY COLUMN c BIGINT", True),
        ("InnoDB", "ALTER TABLE t CONVERT TO CHARACTER SET latin1", True),
        ("InnoDB", "ALTER TABLE t ADD INDEX i (b)", False),
        ("InnoDB", "ALTER TABLE t ADD INDEX i (b), ALGORITHM=COPY", True),
        ("MyISAM", "ALTER TABLE t ADD INDEX i (b)", True),
    ],
)
def test_rows_an_alter_reports(db, engine, sql, copied):
    c, _ = db
    clients.query(c, f"CREATE TABLE t (a INT NOT NULL, b INT, c INT, e ENUM('a','b'), v VARCHAR(40)) ENGINE={engine} CHARSET=utf8mb4")
    clients.query(c, "INSERT INTO t (a, c) VALUES (1, 1), (2, 2)")
    assert run(c, sql)[0] == (2 if copied else 0)


def test_convert_to_changes_every_text_column(db):
    c, _ = db
    clients.query(c, "CREATE TABLE t (a VARCHAR(10), b TEXT, n INT) CHARSET=utf8mb4")
    clients.query(c, "ALTER TABLE t CONVERT TO CHARACTER SET latin1")
    create = clients.query(c, "SHOW CREATE TABLE t")[0][1]
    assert "utf8mb4" not in create and "DEFAULT CHARSET=latin1" in create
