"""Defaults that name columns of the row (issue #23 item 4): `DEFAULT (a +
1)`, `DEFAULT a`, `DEFAULT MOD(a, 3)`, computed from the row being inserted
as MariaDB 10.11 does (each answer checked against it): a column the
INSERT writes by its value, one it leaves out by its own default (so a
default may name a later column), DEFAULT in every VALUES row as leaving
the column out, UPDATE ... SET c = DEFAULT from the row's current values;
1054 for an unknown column.
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def db(scratch_db):
    return scratch_db


def test_row_defaults_computed_from_the_row(db):
    c, _ = db
    clients.query(c, "CREATE TABLE d1 (a INT DEFAULT 1, b INT DEFAULT (a+1), c INT DEFAULT (a+b))")
    assert "`c` int(11) DEFAULT (`a` + `b`)" in clients.query(c, "SHOW CREATE TABLE d1")[0][1]
    clients.query(c, "INSERT INTO d1 VALUES ()")
    clients.query(c, "INSERT INTO d1 (a) VALUES (10), (20)")
    clients.query(c, "INSERT INTO d1 (b) VALUES (10)")
    clients.query(c, "INSERT INTO d1 (c, a) VALUES (7, 3)")
    clients.query(c, "INSERT INTO d1 VALUES (5, DEFAULT, DEFAULT)")
    clients.query(c, "INSERT INTO d1 (a) SELECT 100")
    assert clients.query(c, "SELECT * FROM d1 ORDER BY a, b") == (
        (1, 2, 3),
        (1, 10, 11),
        (3, 4, 7),
        (5, 6, 11),
        (10, 11, 21),
        (20, 21, 41),
        (100, 101, 201),
    )
    clients.query(c, "UPDATE d1 SET b = 0 WHERE a = 100")
    clients.query(c, "UPDATE d1 SET c = DEFAULT WHERE a = 100")
    assert clients.query(c, "SELECT * FROM d1 WHERE a = 100") == ((100, 0, 100),)


def test_row_default_names_a_later_column(db):
    c, _ = db
    clients.query(c, "CREATE TABLE d2 (a INT DEFAULT (b), b INT DEFAULT 3)")
    clients.query(c, "INSERT INTO d2 () VALUES ()")
    clients.query(c, "INSERT INTO d2 (b) VALUES (7)")
    assert clients.query(c, "SELECT * FROM d2 ORDER BY a") == ((3, 3), (7, 7))


def test_row_default_not_null_and_functions(db):
    c, _ = db
    clients.query(c, "CREATE TABLE d3 (a INT NOT NULL, b INT NOT NULL DEFAULT (a+1), m INT DEFAULT MOD(a, 3), s VARCHAR(20) DEFAULT (concat('n', a)))")
    clients.query(c, "INSERT INTO d3 (a) VALUES (7)")
    assert clients.query(c, "SELECT * FROM d3") == ((7, 8, 1, "n7"),)
    clients.query(c, "SET sql_mode = ''")
    clients.query(c, "INSERT INTO d3 (a) VALUES (4), (5)")
    assert clients.query(c, "SELECT * FROM d3 WHERE a < 7 ORDER BY a") == ((4, 5, 1, "n4"), (5, 6, 2, "n5"))


def test_row_default_unknown_column(db):
    c, name = db
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(c, "CREATE TABLE d4 (a INT, b INT DEFAULT (x))")
    assert ei.value.args == (1054, "Unknown column 'x' in 'DEFAULT'")
    assert clients.query(c, f"SHOW TABLES FROM {name}") == ()


def test_hex_and_bit_literal_defaults_read_for_the_column(db):
    """`DEFAULT 0x10` is a number for a numeric column and bytes for the
    others, as MariaDB reads it (was the text '0x10': 1366 on INSERT); the
    string '0x10' stays a string."""
    c, _ = db
    clients.query(c, "CREATE TABLE hx (b VARBINARY(9) DEFAULT 0x41FF, c INT DEFAULT 0x10, e INT DEFAULT 0b101, f VARCHAR(9) DEFAULT '0x10', g VARCHAR(5) DEFAULT 0x4142, h BIT(8) DEFAULT 0x0F)")
    create = clients.query(c, "SHOW CREATE TABLE hx")[0][1]
    assert "`c` int(11) DEFAULT 16" in create and "`g` varchar(5) DEFAULT 'AB'" in create and "`f` varchar(9) DEFAULT '0x10'" in create
    clients.query(c, "INSERT INTO hx VALUES ()")
    assert clients.query(c, "SELECT HEX(b), c, e, f, g, h + 0 FROM hx") == (("41FF", 16, 5, "0x10", "AB", 15),)
