"""What a generated column's expression may read. It is computed on every
write and read with no privilege check of its own, so it reads nothing but
the row: MariaDB 10.11 refuses a subquery (1901 'select ...'), another
table's column (1901 naming it) and non-deterministic functions (1901);
nothing is created. (A user variable is replaced by its value before the
engine sees the statement, as in CHECK: docs/compatibility.md.) A deeply nested
expression is kept and computed or refused with 1436, never a crash; a
write to a generated column never stores the value given (1906). The
same holds for a DEFAULT that names the row's columns (1901).
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def accounts(two_dbs_factory):
    d = two_dbs_factory("dg")
    return d.root, d.att, d.victim, d.home


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE TABLE t (a INT, b INT AS ((SELECT MAX(s) FROM {v}.secret)) STORED)",
        "CREATE TABLE t (a INT, b INT AS (a + (SELECT s FROM {v}.secret LIMIT 1)) VIRTUAL)",
        "CREATE TABLE t (a INT, b INT AS (EXISTS (SELECT 1 FROM {v}.secret WHERE s = a)))",
        "CREATE TABLE t (a INT, b INT AS ({v}.secret.s) VIRTUAL)",
        "CREATE TABLE t (a INT, b TEXT AS (load_file('/etc/passwd')) STORED)",
        "CREATE TABLE t (a INT, b INT AS (sleep(1)) STORED)",
        "CREATE TABLE t (a INT, b INT AS (last_insert_id()))",
        # A default naming the row's columns reads only the row too.
        "CREATE TABLE t (a INT, b INT DEFAULT ({v}.secret.s))",
        "CREATE TABLE t (a INT, b INT DEFAULT (secret.s + a))",
        "CREATE TABLE t (a INT, b INT DEFAULT (a + (SELECT s FROM {v}.secret)))",
    ],
)
def test_generated_reads_only_the_row(accounts, sql):
    root, att, v, h = accounts
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(att, sql.format(v=v))
    assert ei.value.args[0] == 1901
    assert clients.query(root, f"SHOW TABLES FROM {h}") == ()


def test_alter_adds_no_reading_column(accounts):
    root, att, v, h = accounts
    clients.query(att, "CREATE TABLE t (a INT)")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(att, f"ALTER TABLE t ADD COLUMN b INT AS ((SELECT s FROM {v}.secret)) STORED")
    assert ei.value.args[0] == 1901
    assert "GENERATED" not in clients.query(root, f"SHOW CREATE TABLE {h}.t")[0][1]


@pytest.mark.parametrize("depth", [200, 20000])
def test_deep_nesting_is_kept_or_refused(accounts, depth):
    _, att, _, _ = accounts
    nested = "(" * depth + "a + 1" + ")" * depth
    try:
        clients.query(att, f"CREATE TABLE deep (a INT, b INT AS {nested} STORED)")
    except pymysql.err.MySQLError as e:
        assert e.args[0] == 1436
    else:
        clients.query(att, "INSERT INTO deep (a) VALUES (1)")
        assert clients.query(att, "SELECT b FROM deep") == ((2,),)
    assert clients.query(att, "SELECT 1") == ((1,),)


def test_given_values_never_stored(accounts):
    _, att, _, _ = accounts
    clients.query(att, "CREATE TABLE t (a INT, b INT AS (a * 2) STORED)")
    for sql in ["INSERT INTO t VALUES (1, 99)", "INSERT INTO t (b, a) VALUES (99, 1)", "INSERT INTO t SELECT 1, 99"]:
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(att, sql)
        assert ei.value.args[0] == 1906
    clients.query(att, "SET sql_mode = ''")
    clients.query(att, "INSERT INTO t VALUES (1, 99)")
    clients.query(att, "UPDATE t SET b = 77")
    assert clients.query(att, "SELECT a, b FROM t") == ((1, 2),)
