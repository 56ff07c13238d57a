"""What a table definition's own expressions (CHECK constraints, DEFAULT
expressions) may read. They run on every write with no privilege check of
their own, so they must read nothing but the row: MariaDB 10.11 refuses a
subquery in CHECK (1970) and in DEFAULT (1901), another table's column
(1901 naming it), and non-deterministic functions in CHECK (1901). An
account allowed to create tables in its own database gets the same
refusals naming another database's table it cannot read, and nothing is
created. A deeply nested expression is kept and enforced (MariaDB takes
20,000 levels) or refused with 1436, never a crash. A CHECK a SQLite quirk could weaken (an unknown quoted
name read as a string) is refused with 1054.
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def accounts(two_dbs_factory):
    d = two_dbs_factory("dc")
    return d.root, d.att, d.victim, d.home


@pytest.mark.parametrize(
    "sql,code",
    [
        ("CREATE TABLE t (a INT CHECK (a > (SELECT MAX(s) FROM {v}.secret)))", 1970),
        ("CREATE TABLE t (a INT, CHECK (EXISTS (SELECT 1 FROM {v}.secret WHERE s = a)))", 1970),
        ("CREATE TABLE t (a INT CHECK (a IN (SELECT s FROM {v}.secret)))", 1970),
        ("CREATE TABLE t (a INT CHECK (a > {v}.secret.s))", 1901),
        ("CREATE TABLE t (a INT DEFAULT ((SELECT s FROM {v}.secret LIMIT 1)))", 1901),
        ("CREATE TABLE t (a INT DEFAULT (1 + (SELECT COUNT(*) FROM {v}.secret)))", 1901),
        ("CREATE TABLE t (a INT CHECK (a > load_file('/etc/passwd')))", 1901),
        ("CREATE TABLE t (a INT CHECK (a > sleep(1)))", 1901),
    ],
)
def test_expressions_read_only_the_row(accounts, sql, code):
    root, att, v, h = accounts
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(att, sql.format(v=v))
    assert ei.value.args[0] == code
    assert clients.query(root, f"SHOW TABLES FROM {h}") == ()


def test_alter_adds_no_reading_check(accounts):
    root, att, v, h = accounts
    clients.query(att, "CREATE TABLE t (a INT)")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(att, f"ALTER TABLE t ADD CONSTRAINT c CHECK (a <> (SELECT s FROM {v}.secret))")
    assert ei.value.args[0] == 1970
    assert "CHECK" not in clients.query(root, f"SHOW CREATE TABLE {h}.t")[0][1]


def test_unknown_quoted_column_is_no_string(accounts):
    # SQLite would read "b" as the string 'b', a CHECK that always passes.
    _, att, _, _ = accounts
    clients.query(att, "CREATE TABLE t (a INT)")
    for sql in ["ALTER TABLE t ADD CONSTRAINT c CHECK (`b` > 0)", "CREATE TABLE t2 (a INT, CHECK (`nope` = 1))"]:
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(att, sql)
        assert ei.value.args[0] == 1054


@pytest.mark.parametrize("depth", [200, 20000])
def test_deep_nesting_is_kept_or_refused(accounts, depth):
    # MariaDB 10.11 takes both depths; a CHECK Turnstile keeps is enforced,
    # and one too deep for the thread's stack is 1436, not a crash.
    _, att, _, _ = accounts
    nested = "(" * depth + "a > 0" + ")" * depth
    try:
        clients.query(att, f"CREATE TABLE deep (a INT CHECK {nested})")
    except pymysql.err.MySQLError as e:
        assert e.args[0] == 1436
    else:
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(att, "INSERT INTO deep VALUES (-1)")
        assert ei.value.args[0] == 4025
        clients.query(att, "DROP TABLE deep")
    nested_default = "(" * depth + "1" + ")" * depth
    try:
        clients.query(att, f"CREATE TABLE deep (a INT DEFAULT {nested_default})")
        clients.query(att, "INSERT INTO deep () VALUES ()")
        assert clients.query(att, "SELECT a FROM deep") == ((1,),)
    except pymysql.err.MySQLError as e:
        assert e.args[0] == 1436
    assert clients.query(att, "SELECT 1") == ((1,),)


def test_check_failure_reveals_only_names(accounts):
    # The message names the constraint and table, never the values or SQLite's text.
    _, att, _, h = accounts
    clients.query(att, "CREATE TABLE t (a INT, CONSTRAINT pos CHECK (a > 0))")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(att, "INSERT INTO t VALUES (-7)")
    assert ei.value.args == (4025, f"CONSTRAINT `pos` failed for `{h}`.`t`")
