"""EXECUTE IMMEDIATE and PREPARE ... FROM <expression> (MariaDB): the statement
text is computed at run time, from a string, a variable, CONCAT(...) or a
scalar subquery, so the text is checked as the statement it becomes, and the
expression that computes it is checked as a SELECT: an account granted one
database neither runs nor reads another's tables through them; a text that
would run itself is refused (1295), as are subqueries in USING (1970); deep
nesting gets an error, never a crash. MariaDB 10.11 gives the same codes.
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients


@pytest.fixture
def two_dbs(two_dbs_factory):
    return two_dbs_factory("ei", home=["CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(40))"])


@pytest.mark.parametrize(
    "sql",
    [
        "EXECUTE IMMEDIATE 'SELECT * FROM {v}.secret'",
        "EXECUTE IMMEDIATE CONCAT('SELECT s FROM ', '{v}', '.secret')",
        "EXECUTE IMMEDIATE 'DELETE FROM {v}.secret'",
        "EXECUTE IMMEDIATE 'DROP TABLE {v}.secret'",
        "EXECUTE IMMEDIATE 'INSERT INTO t SELECT * FROM {v}.secret'",
        "EXECUTE IMMEDIATE (SELECT CONCAT('SELECT ', s) FROM {v}.secret)",
        "EXECUTE IMMEDIATE 'SELECT ?' USING (SELECT s FROM {v}.secret)",
        "PREPARE p FROM CONCAT('SELECT * FROM ', '{v}.secret')",
        "PREPARE p FROM (SELECT CONCAT('SELECT ', s) FROM {v}.secret)",
    ],
)
def test_no_text_reaches_another_database(two_dbs, sql):
    text = sql.format(v=two_dbs.victim)
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(two_dbs.att, text)
        # PREPARE of another database's table fails at EXECUTE at the latest.
        clients.query(two_dbs.att, "EXECUTE p")
    assert ei.value.args[0] in (1142, 1970), (text, ei.value.args)
    assert clients.query(two_dbs.root, f"SELECT s FROM {two_dbs.victim}.secret") == (("top",),)
    assert clients.query(two_dbs.att, "SELECT COUNT(*) FROM t") == ((0,),)


@pytest.mark.parametrize(
    "text,code",
    [
        ("EXECUTE IMMEDIATE 'EXECUTE IMMEDIATE ''SELECT 1'''", 1295),
        ("EXECUTE IMMEDIATE 'PREPARE s FROM ''SELECT 1'''", 1295),
        ("EXECUTE IMMEDIATE 'DEALLOCATE PREPARE s'", 1295),
        ("EXECUTE IMMEDIATE 'SELECT 1; DROP TABLE t'", 1064),
        ("PREPARE s FROM 'SELECT 1; DROP TABLE t'", 1064),
        ("EXECUTE IMMEDIATE NULL", 1064),
        ("EXECUTE IMMEDIATE 1 + 1", 1064),
        ("EXECUTE IMMEDIATE 'SELECT ?' USING 1, 2", 1210),
        ("EXECUTE IMMEDIATE 'SELECT ?, ?' USING 1", 1210),
        ("EXECUTE IMMEDIATE 'SELECT ?' USING (SELECT 1)", 1970),
        ("EXECUTE IMMEDIATE", 1064),
        ("EXECUTE IMMEDIATE 'SELECT 1' USING", 1064),
    ],
)
def test_refused_texts(two_dbs, text, code):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(two_dbs.att, text)
    assert ei.value.args[0] == code, (text, ei.value.args)
    assert clients.query(two_dbs.att, "SHOW TABLES") == (("t",),)


@pytest.mark.parametrize("depth", [100, 5000])
def test_deep_nesting_in_the_text_expression(two_dbs, depth):
    """Answered or refused with MySQL's error, never a crash."""
    text = "CONCAT(" * depth + "'SELECT 1'" + ")" * depth
    try:
        assert clients.query(two_dbs.att, f"EXECUTE IMMEDIATE {text}") == ((1,),)
    except pymysql.err.MySQLError as e:
        assert e.args[0] in (1064, 1436, 1473), e
    assert clients.query(two_dbs.att, "SELECT 1") == ((1,),)


def test_values_are_bound_not_spliced(two_dbs):
    """A USING value is a parameter: quotes in it are data."""
    evil = "x'); DROP TABLE t; --"
    clients.query(two_dbs.att, "SET @v = %s", (evil,))
    clients.query(two_dbs.att, "EXECUTE IMMEDIATE 'INSERT INTO t VALUES (?, ?)' USING 1, @v")
    assert clients.query(two_dbs.att, "SELECT s FROM t") == ((evil,),)
