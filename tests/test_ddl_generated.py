"""Generated columns (issue #23 item 4), each answer checked against
MariaDB 10.11: `[GENERATED ALWAYS] AS (expr) VIRTUAL|STORED|PERSISTENT`
computed on every write, shown as MariaDB shows them (SHOW CREATE TABLE,
DESCRIBE's Extra, information_schema.COLUMNS), indexed, kept by ALTER
TABLE's copy and CREATE TABLE LIKE; a value written to one is 1906 in a
strict write and a warning in a lenient one (DEFAULT is allowed);
MariaDB's refusals (1901, 4029, 1903, 1054, 1064). Also the one-argument
calls MariaDB takes and SQLite does not (COALESCE(x)) or reads as an
aggregate (GREATEST(x), LEAST(x): 1582).
"""

from __future__ import annotations

import pytest

from helpers import clients


@pytest.fixture
def db(scratch_db):
    return scratch_db


err = clients.error


def test_generated_columns_computed_and_shown(db):
    c, name = db
    clients.query(c, "CREATE TABLE t (a INT, b INT GENERATED ALWAYS AS (a+1) VIRTUAL, c INT AS (a*2) STORED, d VARCHAR(10) AS (concat('x',a)) PERSISTENT)")
    create = clients.query(c, "SHOW CREATE TABLE t")[0][1]
    assert "  `b` int(11) GENERATED ALWAYS AS (`a` + 1) VIRTUAL,\n" in create
    assert "  `c` int(11) GENERATED ALWAYS AS (`a` * 2) STORED,\n" in create
    assert "  `d` varchar(10) GENERATED ALWAYS AS (concat('x',`a`)) STORED\n" in create
    desc = clients.query(c, "DESC t")
    assert [(r[0], r[4], r[5]) for r in desc] == [("a", None, ""), ("b", None, "VIRTUAL GENERATED"), ("c", None, "STORED GENERATED"), ("d", None, "STORED GENERATED")]
    rows = clients.query(c, f"SELECT COLUMN_NAME, EXTRA, IS_GENERATED, GENERATION_EXPRESSION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '{name}' ORDER BY ORDINAL_POSITION")
    assert rows == (("a", "", "NEVER", None), ("b", "VIRTUAL GENERATED", "ALWAYS", "`a` + 1"), ("c", "STORED GENERATED", "ALWAYS", "`a` * 2"), ("d", "STORED GENERATED", "ALWAYS", "concat('x',`a`)"))
    clients.query(c, "INSERT INTO t (a) VALUES (1)")
    clients.query(c, "INSERT INTO t VALUES (2, DEFAULT, DEFAULT, DEFAULT)")
    clients.query(c, "UPDATE t SET a = a + 10 WHERE a = 2")
    assert clients.query(c, "SELECT * FROM t ORDER BY a") == ((1, 2, 2, "x1"), (12, 13, 24, "x12"))


def test_writes_to_generated_columns(db):
    c, _ = db
    clients.query(c, "CREATE TABLE t (a INT, b INT AS (a+1) VIRTUAL, c INT DEFAULT 7)")
    message = "The value specified for generated column 'b' in table 't' has been ignored"
    assert err(c, "INSERT INTO t VALUES (3, 5, 1)") == (1906, message)
    assert err(c, "INSERT INTO t (a, b) VALUES (3, 5)") == (1906, message)
    assert err(c, "INSERT INTO t SELECT 1, 2, 3") == (1906, message)
    clients.query(c, "INSERT INTO t VALUES (1, DEFAULT, 2)")
    assert err(c, "UPDATE t SET b = 5") == (1906, message)
    clients.query(c, "UPDATE t SET b = DEFAULT, c = 8")
    clients.query(c, "UPDATE t SET c = 9, b = DEFAULT WHERE a = 1")
    assert c.affected_rows() == 1
    clients.query(c, "UPDATE t SET b = DEFAULT")
    assert c.affected_rows() == 0
    assert clients.query(c, "SELECT * FROM t") == ((1, 2, 9),)
    clients.query(c, "SET sql_mode = ''")
    clients.query(c, "INSERT INTO t VALUES (4, 5, 6), (5, 0, 0)")
    warnings = clients.query(c, "SHOW WARNINGS")
    assert warnings == (("Warning", 1906, message), ("Warning", 1906, message))
    assert clients.query(c, "SELECT * FROM t ORDER BY a") == ((1, 2, 9), (4, 5, 6), (5, 6, 0))
    clients.query(c, "UPDATE t SET b = 77, c = c + 1 WHERE a = 5")
    clients.query(c, "UPDATE t SET c = c + 1, b = 78 WHERE a = 5")
    assert clients.query(c, "SELECT * FROM t WHERE a = 5") == ((5, 6, 2),)


def test_generated_columns_indexed_altered_copied(db):
    c, _ = db
    clients.query(c, "CREATE TABLE g (a VARCHAR(10), b INT AS (length(a)) STORED, c VARCHAR(20) AS (coalesce(a)) VIRTUAL, KEY (c), d INT AS (b*2) VIRTUAL)")
    clients.query(c, "INSERT INTO g (a) VALUES ('abc'), (NULL)")
    assert clients.query(c, "SELECT * FROM g WHERE c = 'abc'") == (("abc", 3, "abc", 6),)
    clients.query(c, "ALTER TABLE g ADD COLUMN e INT AS (b+1) STORED")
    clients.query(c, "ALTER TABLE g MODIFY a VARCHAR(20)")
    clients.query(c, "CREATE INDEX ix ON g (d)")
    assert clients.query(c, "SELECT * FROM g ORDER BY a") == ((None, None, None, None, None), ("abc", 3, "abc", 6, 4))
    assert "`b` int(11) GENERATED ALWAYS AS (octet_length(`a`)) STORED" in clients.query(c, "SHOW CREATE TABLE g")[0][1]
    clients.query(c, "CREATE TABLE g2 LIKE g")
    clients.query(c, "INSERT INTO g2 (a) SELECT a FROM g")
    assert clients.query(c, "SELECT * FROM g2 ORDER BY a") == ((None, None, None, None, None), ("abc", 3, "abc", 6, 4))
    clients.query(c, "CREATE TABLE u (a INT, b INT AS (a) VIRTUAL, UNIQUE KEY (b))")
    assert err(c, "INSERT INTO u (a) VALUES (1), (1)")[0] == 1062


@pytest.mark.parametrize(
    "sql,code,message",
    [
        ("CREATE TABLE x (a INT, b INT AS ((SELECT 1)))", 1901, "Function or expression 'select ...' cannot be used in the GENERATED ALWAYS AS clause of `b`"),
        ("CREATE TABLE x (a INT, b INT AS (rand()) STORED)", 1901, "Function or expression 'rand()' cannot be used in the GENERATED ALWAYS AS clause of `b`"),
        ("CREATE TABLE x (a INT, b INT AS (now()) VIRTUAL, KEY (b))", 1901, "Function or expression 'current_timestamp()' cannot be used in the GENERATED ALWAYS AS clause of `b`"),
        ("CREATE TABLE x (a INT, b INT AS (c), c INT AS (a))", 4029, "Expression for field `b` is referring to uninitialized field `c`"),
        ("CREATE TABLE x (a INT, b INT AS (b+1))", 4029, "Expression for field `b` is referring to uninitialized field `b`"),
        ("CREATE TABLE x (a INT, b INT AS (nope))", 1054, "Unknown column 'nope' in 'GENERATED ALWAYS AS'"),
        ("CREATE TABLE x (a INT, b INT AS (a+1) STORED, PRIMARY KEY (b))", 1903, "Primary key cannot be defined upon a generated column"),
        ("CREATE TABLE x (a INT AUTO_INCREMENT PRIMARY KEY, b INT AS (a) STORED)", 1901, "Function or expression 'AUTO_INCREMENT' cannot be used in the GENERATED ALWAYS AS clause of `a`"),
        ("CREATE TABLE x (a INT, b INT AS (a+1) STORED NOT NULL)", 1064, None),
        ("CREATE TABLE x (a INT, b INT AS (a+1) DEFAULT 3)", 1064, None),
        ("CREATE TABLE x (a INT, b INT NOT NULL AS (a) STORED)", 1064, None),
        ("CREATE TABLE x (a INT, b INT AS (a) AUTO_INCREMENT)", 1064, None),
    ],
)
def test_generated_refusals(db, sql, code, message):
    c, name = db
    got = err(c, sql)
    assert got[0] == code
    if message is not None:
        assert got[1] == message
    assert clients.query(c, f"SHOW TABLES FROM {name}") == ()


def test_generated_column_later_plain_column(db):
    # MariaDB: a generated column may name a later ordinary column.
    c, _ = db
    clients.query(c, "CREATE TABLE t (b INT AS (a * 3), a INT)")
    clients.query(c, "INSERT INTO t (a) VALUES (2)")
    assert clients.query(c, "SELECT b, a FROM t") == ((6, 2),)


def test_one_argument_calls(db):
    # On a table, so the SQLite engine (not the SQL front) evaluates them.
    c, _ = db
    clients.query(c, "CREATE TABLE o (a INT, s VARCHAR(5))")
    clients.query(c, "INSERT INTO o VALUES (1, 'a'), (NULL, NULL)")
    assert clients.query(c, "SELECT COALESCE(s), COALESCE(a), COALESCE(a, 2) FROM o ORDER BY a DESC") == (("a", 1, 1), (None, None, 2))
    assert err(c, "SELECT GREATEST(a) FROM o") == (1582, "Incorrect parameter count in the call to native function 'greatest'")
    assert err(c, "SELECT LEAST((a)) FROM o") == (1582, "Incorrect parameter count in the call to native function 'least'")
    assert clients.query(c, "SELECT GREATEST((a), 3), LEAST(a, 0) FROM o WHERE a = 1") == ((3, 0),)
