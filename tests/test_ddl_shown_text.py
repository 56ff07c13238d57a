"""SHOW CREATE TABLE's text for what a definition keeps, as MariaDB 10.11
prints it (each form checked against it): expression defaults in
MariaDB's own normalized form (`a DIV b`, `curdate()`, `round(a,0)`,
`1 - -1`, a CAST in parentheses), CURRENT_TIMESTAMP as
`current_timestamp(N)`, YEAR defaults in four digits, utf8 collations as
utf8mb3, a key's USING BTREE/HASH when one was named, and RENAME KEY of a
key the same ALTER adds (1176). The defaults still compute.
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def db(scratch_db):
    return scratch_db


def shown(c, table):
    return clients.query(c, f"SHOW CREATE TABLE {table}")[0][1]


def test_expression_defaults_in_mariadb_form(db):
    c, _ = db
    clients.query(
        c,
        "CREATE TABLE t (a INT, b INT, c1 INT DEFAULT (1----1), c2 INT DEFAULT (--1), d INT DEFAULT (a div b),"
        " e INT DEFAULT (a % 3), f DATE DEFAULT current_date, g INT DEFAULT round(a), h INT DEFAULT (a is unknown),"
        " i BIGINT DEFAULT cast(a as signed integer), j VARCHAR(10) DEFAULT upper(a), k DATE DEFAULT cast(a as date))",
    )
    text = shown(c, "t")
    for line in [
        "`c1` int(11) DEFAULT (1 - -1)",
        "`c2` int(11) DEFAULT 1",
        "`d` int(11) DEFAULT (`a` DIV `b`)",
        "`e` int(11) DEFAULT (`a` MOD 3)",
        "`f` date DEFAULT curdate()",
        "`g` int(11) DEFAULT round(`a`,0)",
        "`h` int(11) DEFAULT (`a` is null)",
        "`i` bigint(20) DEFAULT (cast(`a` as signed))",
        "`j` varchar(10) DEFAULT ucase(`a`)",
        "`k` date DEFAULT cast(`a` as date)",
    ]:
        assert line in text, (line, text)
    clients.query(c, "INSERT INTO t (a, b, k) VALUES (7, 2, '2001-01-01')")
    row = clients.query(c, "SELECT c1, c2, d, e, g, h, i, j FROM t")[0]
    assert row == (2, 1, 3, 1, 7, 0, 7, "7")


def test_timestamp_year_and_collation_text(db):
    c, _ = db
    clients.query(
        c,
        "CREATE TABLE t (ts TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,"
        " dt DATETIME DEFAULT NOW(), y YEAR DEFAULT 0, y2 YEAR DEFAULT 99, v VARCHAR(5) CHARACTER SET utf8 COLLATE utf8_bin)",
    )
    text = shown(c, "t")
    assert "`ts` timestamp(3) NOT NULL DEFAULT current_timestamp(3) ON UPDATE current_timestamp(3)" in text
    assert "`dt` datetime DEFAULT current_timestamp()" in text
    assert "`y` year(4) DEFAULT 0000" in text
    assert "`y2` year(4) DEFAULT 1999" in text
    assert "`v` varchar(5) CHARACTER SET utf8mb3 COLLATE utf8mb3_bin DEFAULT NULL" in text
    clients.query(c, "INSERT INTO t (v) VALUES ('x')")
    assert clients.query(c, "SELECT y, y2 FROM t") == ((0, 1999),)


def test_key_algorithm_shown_when_named(db):
    c, _ = db
    clients.query(c, "CREATE TABLE t (a INT NOT NULL, b INT, i INT, PRIMARY KEY USING HASH (a), KEY kb USING BTREE (b), KEY (i)) ENGINE=MEMORY")
    text = shown(c, "t")
    assert "PRIMARY KEY (`a`) USING HASH," in text
    assert "KEY `kb` (`b`) USING BTREE," in text
    assert "KEY `i` (`i`)\n" in text
    clients.query(c, "ALTER TABLE t ENGINE=MyISAM")
    assert "KEY `kb` (`b`) USING BTREE," in shown(c, "t")


def test_rename_key_names_a_key_the_table_had(db):
    c, _ = db
    clients.query(c, "CREATE TABLE t (i INT, j INT, KEY c (i))")
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(c, "ALTER TABLE t ADD KEY d (j), RENAME KEY d TO e")
    assert e.value.args[0] == 1176
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(c, "ALTER TABLE t DROP KEY c, RENAME KEY c TO d")
    assert e.value.args[0] == 1176
    assert "KEY `c` (`i`)" in shown(c, "t")


def test_memory_tables_refuse_blob_and_text(db):
    c, _ = db
    for sql in ["CREATE TABLE m (a INT, b TEXT) ENGINE=MEMORY", "CREATE TABLE m (a INT, b JSON) ENGINE=HEAP"]:
        with pytest.raises(pymysql.err.MySQLError) as e:
            clients.query(c, sql)
        assert e.value.args[0] == 1163
    clients.query(c, "CREATE TABLE m (a INT, b VARCHAR(10)) ENGINE=MEMORY")
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(c, "ALTER TABLE m ADD c BLOB")
    assert e.value.args[0] == 1163


def test_first_whole_not_null_unique_key_shows_as_pri(db):
    """MariaDB takes a table's first UNIQUE key whose columns are all NOT
    NULL and whole for its primary key when it has none: SHOW COLUMNS (and
    information_schema.COLUMNS) show Key PRI for its columns."""
    c, name = db
    clients.query(c, "CREATE TABLE tk (a INT NULL UNIQUE, b INT NOT NULL, c INT NOT NULL, d CHAR(10) NOT NULL, UNIQUE (d(3)), UNIQUE (b, c), UNIQUE (c))")
    assert [(r[0], r[3]) for r in clients.query(c, "SHOW COLUMNS FROM tk")] == [("a", "UNI"), ("b", "PRI"), ("c", "PRI"), ("d", "UNI")]
    assert [r[0] for r in clients.query(c, f"SELECT COLUMN_KEY FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '{name}' AND TABLE_NAME = 'tk' ORDER BY ORDINAL_POSITION")] == ["UNI", "PRI", "PRI", "UNI"]
    clients.query(c, "CREATE TABLE tk2 (a INT NOT NULL, b INT, KEY (a), UNIQUE (b))")
    assert [(r[0], r[3]) for r in clients.query(c, "SHOW COLUMNS FROM tk2")] == [("a", "MUL"), ("b", "UNI")]
