"""CREATE OR REPLACE TABLE drops before it creates: every privilege the
statement needs (CREATE, DROP, INSERT and the SELECT's reads for ... SELECT)
is checked before the drop, so a refused statement destroys nothing. MariaDB
10.11 gives 1142 for each of these and keeps the table."""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def two_dbs(two_dbs_factory):
    return two_dbs_factory("cr", home=["CREATE TABLE keep (a INT)", "INSERT INTO keep VALUES (7)"])


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE OR REPLACE TABLE {v}.secret (a INT)",
        "CREATE OR REPLACE TABLE {v}.secret SELECT 1",
        "CREATE OR REPLACE TABLE {v}.secret LIKE keep",
        "CREATE OR REPLACE TABLE keep SELECT * FROM {v}.secret",
        "CREATE OR REPLACE TABLE keep LIKE {v}.secret",
        "CREATE OR REPLACE TABLE keep SELECT (SELECT s FROM {v}.secret) AS s",
    ],
)
def test_refused_replace_destroys_nothing(two_dbs, sql):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(two_dbs.att, sql.format(v=two_dbs.victim))
    assert ei.value.args[0] == 1142, ei.value.args
    assert clients.query(two_dbs.root, f"SELECT s FROM {two_dbs.victim}.secret") == (("top",),)
    assert clients.query(two_dbs.att, "SELECT a FROM keep") == ((7,),)


def test_create_without_drop_privilege(two_dbs, uniq):
    user = uniq("crnodrop")
    root = two_dbs.root
    clients.query(root, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    clients.query(root, f"GRANT SELECT, INSERT, CREATE ON {two_dbs.home}.* TO '{user}'@'%'")
    conn = clients.connect(two_dbs.srv, user, "pw", database=two_dbs.home)
    try:
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(conn, "CREATE OR REPLACE TABLE keep (b INT)")
        assert ei.value.args[0] == 1142
        assert clients.query(conn, "SELECT a FROM keep") == ((7,),)
        # MariaDB asks for DROP also when there is nothing to drop.
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(conn, "CREATE OR REPLACE TABLE fresh (b INT)")
        assert ei.value.args[0] == 1142
    finally:
        conn.close()
        clients.query(root, f"DROP USER '{user}'@'%'")
