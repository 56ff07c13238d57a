"""DEFAULT(col) reads a column's default from the table definition, not from
a row: it must not become a way to read another database's definitions.
The column is looked for only among the tables the statement names, which
the statement's own privilege checks cover: naming the victim's table is
1142, and a qualifier naming a table the statement does not read is 1054
(nothing about the victim's table is said). MariaDB 10.11 answers 1142 and
1054 for the same statements."""

from __future__ import annotations

import pytest

from helpers import clients


@pytest.fixture
def two_dbs(two_dbs_factory):
    return two_dbs_factory("dfl", victim=["CREATE TABLE d (x INT DEFAULT 42)"], home=["CREATE TABLE mine (a INT DEFAULT 1)", "INSERT INTO mine VALUES (5)"])


@pytest.mark.parametrize(
    "sql,code",
    [
        ("SELECT DEFAULT(x) FROM {v}.d", 1142),
        ("SELECT DEFAULT({v}.d.x) FROM mine", 1054),
        ("SELECT DEFAULT(d.x) FROM mine", 1054),
        ("SELECT DEFAULT(x) FROM mine", 1054),
        ("UPDATE mine SET a = DEFAULT({v}.d.x)", 1054),
        ("INSERT INTO mine VALUES (DEFAULT(d.x))", 1054),
        ("SELECT (SELECT DEFAULT(x) FROM {v}.d) FROM mine", 1142),
    ],
)
def test_default_of_another_database(two_dbs, sql, code):
    got, _ = clients.error(two_dbs.att, sql.format(v=two_dbs.victim))
    assert got == code
    assert clients.query(two_dbs.att, "SELECT a FROM mine") == ((5,),)
