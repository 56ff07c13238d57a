"""INSERT / REPLACE / DELETE ... RETURNING (MariaDB's): what the clause reads
is checked as a read. An account granted one database reads no other through
a RETURNING subquery, and an account with INSERT but no SELECT on its table
gets no column values back. MariaDB 10.11 gives 1142 for each statement below,
and 1143 naming the column for the INSERT-only account (Turnstile has no
column privileges and says 1142, as docs/compatibility.md notes).
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def accounts(sql_server, uniq):
    v, h, user, ins = uniq("rtvic"), uniq("rthome"), uniq("rtatt"), uniq("rtins")
    root = clients.root(sql_server)
    for sql in [
        f"CREATE DATABASE {v}",
        f"CREATE DATABASE {h}",
        f"CREATE TABLE {v}.secret (id INT PRIMARY KEY, s VARCHAR(20))",
        f"INSERT INTO {v}.secret VALUES (1, 'top')",
        f"CREATE TABLE {h}.t (id INT PRIMARY KEY, a INT)",
        f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'",
        f"GRANT ALL ON {h}.* TO '{user}'@'%'",
        f"CREATE USER '{ins}'@'%' IDENTIFIED BY 'pw'",
        f"GRANT INSERT, DELETE ON {h}.* TO '{ins}'@'%'",
    ]:
        clients.query(root, sql)
    att = clients.connect(sql_server, user, "pw", database=h)
    only_insert = clients.connect(sql_server, ins, "pw", database=h)
    yield root, att, only_insert, v, h
    att.close()
    only_insert.close()
    for u in (user, ins):
        clients.query(root, f"DROP USER '{u}'@'%'")
    clients.query(root, f"DROP DATABASE {v}")
    clients.query(root, f"DROP DATABASE {h}")
    root.close()


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO t VALUES (1, 1) RETURNING (SELECT s FROM {v}.secret)",
        "REPLACE INTO t VALUES (2, 1) RETURNING id, (SELECT COUNT(*) FROM {v}.secret)",
        "DELETE FROM t WHERE id > 100 RETURNING (SELECT s FROM {v}.secret LIMIT 1)",
    ],
)
def test_returning_reads_no_other_database(accounts, sql):
    root, att, _, v, h = accounts
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(att, sql.format(v=v))
    assert ei.value.args[0] == 1142
    # Refused whole: nothing was written.
    assert clients.query(root, f"SELECT COUNT(*) FROM {h}.t") == ((0,),)


def test_returning_needs_select_on_the_table(accounts):
    root, _, only_insert, _, h = accounts
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(only_insert, "INSERT INTO t VALUES (3, 30) RETURNING a")
    assert ei.value.args[0] == 1142
    # Without RETURNING the same account inserts.
    clients.query(only_insert, "INSERT INTO t VALUES (3, 30)")
    assert clients.query(root, f"SELECT a FROM {h}.t") == ((30,),)
