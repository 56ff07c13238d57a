"""DEFAULT(col) in expressions, `col = DEFAULT` in ON DUPLICATE KEY UPDATE,
and the defaults CREATE TABLE refuses, each answer checked against MariaDB
10.11 (issue #23; default.test in the differential runner):
- DEFAULT(col) in SELECT, WHERE, UPDATE and INSERT gives the column's
  default (a literal, CURRENT_TIMESTAMP, an expression over the row's
  columns), 0 for AUTO_INCREMENT, NULL for a generated column; 1364 for a
  NOT NULL column without one, 1054 / 1052 for an unknown or ambiguous name;
- a default naming its own column or a later computed one is 4029, a row
  value 1241, a literal the column cannot hold 1067; `DEFAULT b` names b;
- a decimal literal written to an integer column is rounded (no 1366);
- IGNORE as a value: the default in VALUES, the column unchanged in SET.
"""

from __future__ import annotations

import pytest

from helpers import clients


@pytest.fixture
def db(scratch_db):
    return scratch_db


err = clients.error


def test_default_function_in_expressions(db):
    c, _ = db
    clients.query(
        c,
        "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a INT DEFAULT 10, b INT DEFAULT (a + 1), "
        "c VARCHAR(5) DEFAULT 'x', d INT, e INT NOT NULL, f TIMESTAMP DEFAULT CURRENT_TIMESTAMP, h INT AS (a * 2))",
    )
    clients.query(c, "INSERT INTO t (a, e) VALUES (1, 2)")
    row = clients.query(c, "SELECT DEFAULT(id), DEFAULT(a), DEFAULT(b), DEFAULT(c), DEFAULT(d), DEFAULT(f) > '2000', DEFAULT(h) FROM t")
    assert row == ((0, 10, 2, "x", None, 1, None),)
    assert clients.query(c, "SELECT a FROM t WHERE DEFAULT(a) = 10") == ((1,),)
    clients.query(c, "UPDATE t SET a = DEFAULT(a) + 1")
    assert clients.query(c, "SELECT a FROM t") == ((11,),)
    clients.query(c, "INSERT INTO t (a, e) VALUES (DEFAULT(a) * 2, 3)")
    assert clients.query(c, "SELECT a FROM t ORDER BY id") == ((11,), (20,))
    assert clients.query(c, "SELECT DEFAULT(x.c) FROM t AS x LIMIT 1") == (("x",),)
    assert err(c, "SELECT DEFAULT(e) FROM t") == (1364, "Field 'e' doesn't have a default value")
    assert err(c, "SELECT DEFAULT(zz) FROM t")[0] == 1054
    assert err(c, "SELECT DEFAULT(a) FROM t, t AS u")[0] == 1052
    assert err(c, "SELECT DEFAULT(a b) FROM t")[0] == 1064


def test_odku_set_to_default(db):
    c, _ = db
    clients.query(c, "CREATE TABLE t (k INT PRIMARY KEY, v INT DEFAULT 7)")
    clients.query(c, "CREATE TABLE s (k INT, v INT)")
    clients.query(c, "INSERT INTO t VALUES (1, 1)")
    clients.query(c, "INSERT INTO s VALUES (1, 100)")
    clients.query(c, "INSERT INTO t (k) SELECT k FROM s ON DUPLICATE KEY UPDATE v = DEFAULT")
    assert clients.query(c, "SELECT k, v FROM t") == ((1, 7),)


@pytest.mark.parametrize(
    "create,code",
    [
        ("CREATE TABLE t1 (a INT DEFAULT a)", 4029),
        ("CREATE TABLE t1 (a INT DEFAULT b, b INT DEFAULT a)", 4029),
        ("CREATE TABLE t1 (a INT DEFAULT (DEFAULT(a)))", 4029),
        ("CREATE TABLE t1 (a INT DEFAULT ROW(1,1))", 1241),
        ("CREATE TABLE t1 (a INT DEFAULT (1,1))", 1241),
        ("CREATE TABLE t1 (a INT DEFAULT ((1,2,3)))", 1241),
        ("CREATE TABLE t1 (a TINYINT DEFAULT 300 NOT NULL)", 1067),
        ("CREATE TABLE t1 (a TINYINT DEFAULT -500)", 1067),
        ("CREATE TABLE t1 (a INT UNSIGNED DEFAULT -1)", 1067),
        ("CREATE TABLE t1 (a INT DEFAULT 'x')", 1067),
        ("CREATE TABLE t1 (a INT DEFAULT '1x')", 1067),
        ("CREATE TABLE t1 (a VARCHAR(2) DEFAULT 'xxx')", 1067),
        ("CREATE TABLE t1 (a VARCHAR(2) DEFAULT 'xx ')", 1067),
        ("CREATE TABLE t1 (e ENUM('a','b') DEFAULT 'c')", 1067),
        ("CREATE TABLE t1 (e SET('a','b') DEFAULT 'a,c')", 1067),
        ("CREATE TABLE t1 (a INT DEFAULT COUNT(*))", 1901),
        ("CREATE TABLE t1 (a INT DEFAULT (GROUP_CONCAT(1)))", 1901),
        ("CREATE TABLE t1 (a INT, b INT AS (SUM(a)))", 1901),
        ("CREATE TABLE t1 (a INT CHECK (MAX(a) > 1))", 1901),
    ],
)
def test_refused_defaults(db, create, code):
    c, _ = db
    assert err(c, create)[0] == code
    assert clients.query(c, "SHOW TABLES") == ()


@pytest.mark.parametrize(
    "create",
    [
        "CREATE TABLE t1 (a INT DEFAULT 1, b INT DEFAULT a)",
        "CREATE TABLE t1 (a INT DEFAULT b, b INT DEFAULT 1)",
        "CREATE TABLE t1 (a INT DEFAULT b, b INT DEFAULT (1+1))",
        "CREATE TABLE t1 (a INT DEFAULT '1 ')",
        "CREATE TABLE t1 (a CHAR(2) DEFAULT 'xx ')",
        "CREATE TABLE t1 (e ENUM(' ','a','b ') NOT NULL DEFAULT 'b ')",
        "CREATE TABLE t1 (a INT DEFAULT(DEFAULT(b)), b INT DEFAULT 1)",
    ],
)
def test_accepted_defaults(db, create):
    c, _ = db
    clients.query(c, create)
    assert clients.query(c, "SHOW TABLES") == (("t1",),)


def test_row_default_naming_another_column(db):
    c, _ = db
    clients.query(c, "CREATE TABLE t1 (a INT DEFAULT 1, b INT DEFAULT a)")
    clients.query(c, "INSERT INTO t1 (a) VALUES (5)")
    clients.query(c, "INSERT INTO t1 () VALUES ()")
    assert clients.query(c, "SELECT a, b FROM t1") == ((5, 5), (1, 1))


def test_decimal_literal_into_integer_is_rounded(db):
    c, _ = db
    clients.query(c, "CREATE TABLE t1 (a INT, b TINYINT)")
    clients.query(c, "INSERT INTO t1 VALUES (10.1, 1), (10.9, 2)")
    clients.query(c, "INSERT INTO t1 VALUES (10.5, 127.4)")
    assert clients.query(c, "SELECT a, b FROM t1") == ((10, 1), (11, 2), (11, 127))
    assert err(c, "INSERT INTO t1 VALUES (1, 127.5)")[0] == 1264


def test_ignore_as_a_value(db):
    """MariaDB's IGNORE as a value: in VALUES the column's default, in
    UPDATE's SET the column left as it is (answers read from MariaDB 10.11)."""
    c, _ = db
    clients.query(c, "CREATE TABLE t1 (a INT DEFAULT 5, b INT)")
    clients.query(c, "INSERT INTO t1 VALUES (IGNORE, 1), (2, IGNORE)")
    clients.query(c, "INSERT INTO t1 (b) VALUES (IGNORE)")
    clients.query(c, "UPDATE t1 SET a = IGNORE, b = 9 WHERE b = 1")
    clients.query(c, "REPLACE INTO t1 VALUES (7, IGNORE)")
    assert clients.query(c, "SELECT a, b FROM t1") == ((5, 9), (2, None), (5, None), (7, None))
