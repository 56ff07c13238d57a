"""Result column names as MariaDB 10.11 gives them for unaliased items
(each checked on MariaDB): adjacent string literals are one string named by
its value ('a' 'b' is 'ab', where the second was taken for an alias and
the value was 'a'); a column in parentheses is named as the column; a
unary plus is no part of the name; the select options SQL_SMALL_RESULT,
SQL_BIG_RESULT and SQL_BUFFER_RESULT are not part of the first item's name.
Also DO over a table (its rows discarded, evaluation errors kept as conditions).
"""

import pytest

from helpers.clients import query


@pytest.fixture
def db(db_with_t):
    return db_with_t


def described(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return [d[0] for d in cur.description], list(cur.fetchall())


@pytest.mark.parametrize("sql,names,rows", [
    ("SELECT 'hello' 'monty'", ["hellomonty"], [("hellomonty",)]),
    ("SELECT 'a' \"b\", 'a' 'b' 'c', 'a' 'b' x", ["ab", "abc", "x"], [("ab", "abc", "ab")]),
    ("SELECT X'41' 'b'", ["b"], [(b"A",)]),
    ("SELECT (a), ((a)) FROM t", ["a", "a"], [(7, 7)]),
    ("SELECT DISTINCT(a) FROM t", ["a"], [(7,)]),
    ("SELECT +1, + 2, +a, -(+3) FROM t", ["1", "2", "a", "-(+3)"], [(1, 2, 7, -3)]),
    ("SELECT SQL_BUFFER_RESULT MAX(a) + 1 FROM t", ["MAX(a) + 1"], [(8,)]),
    ("SELECT SQL_SMALL_RESULT a FROM t GROUP BY a", ["a"], [(7,)]),
    ("SELECT SQL_BIG_RESULT a, COUNT(*) FROM t GROUP BY a", ["a", "COUNT(*)"], [(7, 1)]),
])
def test_unaliased_item_names(sql_conn, db, sql, names, rows):
    assert described(sql_conn, sql) == (names, rows)


def test_do_reads_tables_and_keeps_evaluation_errors_as_conditions(sql_conn, db):
    """DO with a subquery that reads a table runs (it was 1064). As in
    MariaDB ("DO always is OK"), an error of the evaluation (a scalar
    subquery of two rows) is an Error condition of a statement that
    succeeds; an unknown table is still the statement's error."""
    query(sql_conn, "INSERT INTO t VALUES (8)")
    query(sql_conn, "DO (SELECT a FROM t ORDER BY a LIMIT 1)")
    assert query(sql_conn, "SHOW WARNINGS") == ()
    query(sql_conn, "DO (SELECT a FROM t), 1 + 1")
    assert [tuple(r) for r in query(sql_conn, "SHOW WARNINGS")] == [("Error", 1242, "Subquery returns more than 1 row")]
    with pytest.raises(Exception) as e:
        query(sql_conn, "DO (SELECT a FROM nosuch)")
    assert e.value.args[0] == 1146


def test_an_aggregate_only_in_order_by_makes_the_query_aggregate(sql_conn, db):
    """MariaDB: `SELECT 1 FROM t ORDER BY COUNT(*)` is an aggregate query
    (one row); SQLite refused it (1111). Difference kept: over an empty
    table Turnstile gives no row where MariaDB gives one."""
    query(sql_conn, "INSERT INTO t VALUES (1), (2)")
    assert query(sql_conn, "SELECT 1 FROM t ORDER BY COUNT(*)") == ((1,),)
    assert query(sql_conn, "SELECT 1 FROM t WHERE a > 1 ORDER BY SUM(a) + 1, 1") == ((1,),)
    assert query(sql_conn, "SELECT a FROM t ORDER BY a") == ((1,), (2,), (7,))


@pytest.mark.parametrize("sql,expected", [
    ("SELECT 'hakan%' LIKE 'hakan%' ESCAPE ''", 1),
    ("SELECT 'hakanx' LIKE 'hakan\\\\%' ESCAPE ''", 0),
    ("SELECT 'hakan%' LIKE 'hakan\\\\%' ESCAPE ''", 1),
])
def test_like_escape_empty_is_backslash(sql_conn, db, sql, expected):
    assert query(sql_conn, sql) == ((expected,),)
    assert query(sql_conn, sql + " FROM t") == ((expected,),)


def test_like_escape_of_two_characters_is_1210(sql_conn, db):
    for sql in ["SELECT 'a' LIKE 'a**%' ESCAPE '**'", "SELECT a FROM t WHERE a LIKE 'a**%' ESCAPE '**'"]:
        with pytest.raises(Exception) as e:
            query(sql_conn, sql)
        assert e.value.args == (1210, "Incorrect arguments to ESCAPE")
    query(sql_conn, "SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'")
    try:
        with pytest.raises(Exception) as e:
            query(sql_conn, "SELECT a FROM t WHERE a LIKE 'a%' ESCAPE ''")
        assert e.value.args[0] == 1210
    finally:
        query(sql_conn, "SET SESSION sql_mode = DEFAULT")


def test_a_long_run_of_unary_pluses_is_named_in_one_pass(sql_conn, db):
    """Adversarial: 20,000 leading pluses (each was a recursive call and a
    fresh tokenization before) name the item after them."""
    assert described(sql_conn, "SELECT " + "+ " * 20000 + "a FROM t") == (["a"], [(7,)])
