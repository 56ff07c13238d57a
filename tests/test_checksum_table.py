"""CHECKSUM TABLE (was 1235): SELECT on every table named (1142 without);
a row per table; NULL with an Error condition 1146 for a table that is not
there and 1347 for a view, as MariaDB 10.11; 0 for an empty table; NULL
for QUICK (InnoDB keeps no live checksum). The value for a table with rows
is Turnstile's own (not MariaDB's record-format CRC): equal contents give
equal checksums, and a change gives another.
"""

import pymysql
import pytest

from helpers import clients
from helpers.clients import query


@pytest.fixture
def db(scratch_db):
    return scratch_db


def test_checksum_table(db):
    c, name = db
    query(c, "CREATE TABLE t (a INT, b VARCHAR(10))")
    query(c, "CREATE TABLE u (a INT, b VARCHAR(10))")
    query(c, "CREATE VIEW v AS SELECT 1")
    assert query(c, "CHECKSUM TABLE t") == ((f"{name}.t", 0),)
    query(c, "INSERT INTO t VALUES (1, 'x'), (2, NULL)")
    query(c, "INSERT INTO u VALUES (1, 'x'), (2, NULL)")
    (_, first), (_, second) = query(c, "CHECKSUM TABLES t, u EXTENDED")
    assert first == second and first not in (0, None)
    query(c, "UPDATE u SET b = 'y' WHERE a = 1")
    assert query(c, "CHECKSUM TABLE u")[0][1] not in (first, 0, None)
    assert query(c, "CHECKSUM TABLE t QUICK") == ((f"{name}.t", None),)
    assert query(c, "CHECKSUM TABLE nosuch, v") == ((f"{name}.nosuch", None), (f"{name}.v", None))
    assert [tuple(r) for r in query(c, "SHOW WARNINGS")] == [
        ("Error", 1146, f"Table '{name}.nosuch' doesn't exist"),
        ("Error", 1347, f"'{name}.v' is not of type 'BASE TABLE'"),
    ]


def test_checksum_table_needs_select(sql_server, db):
    c, name = db
    query(c, "CREATE TABLE t (a INT)")
    query(c, "CREATE USER 'ck_user'@'%' IDENTIFIED BY 'pw'")
    query(c, f"GRANT INSERT ON {name}.* TO 'ck_user'@'%'")
    try:
        other = clients.connect(sql_server, user="ck_user", password="pw", database=name)
        with pytest.raises(pymysql.MySQLError) as e:
            query(other, "CHECKSUM TABLE t")
        assert e.value.args[0] == 1142
        other.close()
    finally:
        query(c, "DROP USER 'ck_user'@'%'")
