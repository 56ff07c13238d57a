"""Window functions and common table expressions as MariaDB runs and refuses
them (issue #23, the win / cte_recursive / cte_nonrecursive files of the
differential runner): BIT_AND/OR/XOR over moving frames, a division by a
framed window function, MIN/MAX(DISTINCT) OVER, MariaDB's own error codes
for bad window names, frames and places (4009-4022, 4074, 1235, 1064), a
WITH clause before parenthesised union members, which CTEs a non-RECURSIVE
WITH clause lets a name see (1146), CTE column lists (1060, 4002) and
names (4004), an anchor after a recursive member, and mutually recursive
CTEs. Every expected answer was read from MariaDB 10.11 for the same
statements on the same tables (values compared as text, or the error code).
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients

SETUP = [
    "CREATE TABLE t1 (pk INT PRIMARY KEY, a INT, b INT, c INT)",
    "INSERT INTO t1 VALUES (1,1,1,1),(2,1,2,1),(3,2,4,2),(4,2,8,2),(5,2,16,2)",
    "CREATE TABLE folks (id INT, name CHAR(32), father INT, mother INT)",
    "INSERT INTO folks VALUES (100,'Me',20,30),(20,'Dad',10,9),(30,'Mom',8,7),(10,'Bill',NULL,NULL),(9,'Ann',NULL,NULL),(8,'Ben',NULL,NULL),(7,'Sally',NULL,6),(6,'Martha',NULL,NULL)",
]

# (statement, MariaDB 10.11's rows as text, or its error code)
CASES = [
    ('SELECT pk, bit_or(b) OVER (PARTITION BY a ORDER BY pk ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t1 ORDER BY pk', [('1', '3'), ('2', '3'), ('3', '12'), ('4', '28'), ('5', '24')]),
    ('SELECT pk, bit_and(b + 1) OVER (ORDER BY pk ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t1 ORDER BY pk', [('1', '2'), ('2', '2'), ('3', '1'), ('4', '1'), ('5', '1')]),
    ('SELECT pk, bit_xor(b) OVER (ORDER BY pk ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING) FROM t1 ORDER BY pk', [('1', '0'), ('2', '1'), ('3', '3'), ('4', '6'), ('5', '12')]),
    ('SELECT pk, c / count(*) OVER (PARTITION BY c ORDER BY pk ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING) FROM t1 ORDER BY pk', [('1', '0.5000'), ('2', '0.5000'), ('3', '0.6667'), ('4', '0.6667'), ('5', '1.0000')]),
    ('SELECT pk, count(*) OVER w FROM t1 WINDOW w AS (PARTITION BY c ORDER BY pk ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING) ORDER BY pk', [('1', '2'), ('2', '2'), ('3', '3'), ('4', '3'), ('5', '2')]),
    ('SELECT pk, min(DISTINCT b) OVER (), max(DISTINCT a) OVER (PARTITION BY c) FROM t1 ORDER BY pk', [('1', '1', '1'), ('2', '1', '1'), ('3', '1', '2'), ('4', '1', '2'), ('5', '1', '2')]),
    ('SELECT count(DISTINCT b) OVER () FROM t1', 1235),
    ('SELECT sum(DISTINCT b) OVER () FROM t1', 1235),
    ('SELECT group_concat(b) OVER () FROM t1', 1235),
    ('SELECT count(*) OVER w FROM t1 WINDOW w1 AS (ORDER BY pk)', 4009),
    ('SELECT count(*) OVER w FROM t1 WINDOW w AS (ORDER BY pk), w AS (ORDER BY a)', 4010),
    ('SELECT count(*) OVER (w1 PARTITION BY a) FROM t1 WINDOW w1 AS (ORDER BY pk)', 4011),
    ('SELECT count(*) OVER (w1 ORDER BY a) FROM t1 WINDOW w1 AS (ORDER BY pk)', 4012),
    ('SELECT count(*) OVER (w1) FROM t1 WINDOW w1 AS (ORDER BY pk ROWS 2 PRECEDING)', 4013),
    ('SELECT count(*) OVER (ORDER BY pk ROWS BETWEEN UNBOUNDED FOLLOWING AND 2 FOLLOWING) FROM t1', 4014),
    ('SELECT count(*) OVER (ORDER BY pk ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM t1', 4014),
    ('SELECT * FROM t1 WHERE rank() OVER (ORDER BY pk) > 1', 4015),
    ('SELECT a, rank() OVER w AS r, rank() OVER (ORDER BY r) FROM t1 WINDOW w AS (ORDER BY a)', 4016),
    ('SELECT row_number() OVER (ORDER BY pk ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t1', 4017),
    ('SELECT rank() OVER (PARTITION BY a) FROM t1', 4018),
    ('SELECT count(*) OVER (ORDER BY a, b RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t1', 4019),
    ('SELECT count(*) OVER (ORDER BY a ROWS BETWEEN 0.5 PRECEDING AND CURRENT ROW) FROM t1', 4020),
    ("SELECT count(*) OVER (ORDER BY a RANGE BETWEEN 'x' PRECEDING AND CURRENT ROW) FROM t1", 4021),
    ('SELECT count(*) OVER (ORDER BY a ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) FROM t1', 4022),
    ('SELECT sum(sum(a) OVER ()) FROM t1', 4074),
    ('SELECT row_number() FROM t1', 1064),
    ('WITH c AS (SELECT a FROM t1 WHERE a > 1) (SELECT a FROM c) UNION (SELECT 7) ORDER BY a', [('2',), ('7',)]),
    ('WITH t AS (SELECT a FROM s), s AS (SELECT a FROM t1) SELECT * FROM t', 1146),
    ('WITH x AS (SELECT a FROM t1 UNION SELECT a + 1 FROM x WHERE a < 4) SELECT * FROM x', 1146),
    ('WITH t1 AS (SELECT pk FROM t1 WHERE pk < 3) SELECT * FROM t1 ORDER BY pk', [('1',), ('2',)]),
    ('WITH t(f, f) AS (SELECT a, b FROM t1) SELECT * FROM t', 1060),
    ('WITH t AS (SELECT 1), t AS (SELECT 2) SELECT * FROM t', 4004),
    ('WITH t(f) AS (SELECT a, b FROM t1) SELECT * FROM t', 4002),
    ('WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r WHERE n < 3 UNION SELECT 10) SELECT * FROM r ORDER BY n', [('1',), ('2',), ('3',), ('10',)]),
    ("WITH RECURSIVE couples(h_id, h_name, w_id, w_name) AS (SELECT h.id, h.name, w.id, w.name FROM folks h, folks w, ancestors a WHERE a.father = h.id AND a.mother = w.id UNION SELECT h.id, h.name, w.id, w.name FROM folks v, folks h, folks w WHERE v.name = 'Me' AND v.father = h.id AND v.mother = w.id), ancestors(id, name, father, mother) AS (SELECT f.id, f.name, f.father, f.mother FROM folks f, couples c WHERE f.id = c.h_id UNION SELECT f.id, f.name, f.father, f.mother FROM folks f, couples c WHERE f.id = c.w_id) SELECT h_name, w_name FROM couples ORDER BY h_name", [('Ben', 'Sally'), ('Bill', 'Ann'), ('Dad', 'Mom')]),
]


@pytest.fixture(scope="module")
def conn(sql_server):
    c = clients.root(sql_server)
    clients.query(c, "CREATE DATABASE wincte")
    clients.query(c, "USE wincte")
    for s in SETUP:
        clients.query(c, s)
    yield c
    c.close()


def answer(conn, sql):
    try:
        rows = clients.query(conn, sql)
    except pymysql.MySQLError as e:
        return e.args[0]
    return [tuple(None if v is None else str(v) for v in r) for r in rows]


@pytest.mark.parametrize("sql,expected", CASES, ids=[c[0][:60] for c in CASES])
def test_as_mariadb(conn, sql, expected):
    assert answer(conn, sql) == expected


def test_deep_nesting_is_refused_not_crashed(conn):
    """Window calls and WITH clauses nested far past any limit: an error
    code, and the server still answers."""
    deep_over = "SELECT " + "sum(" * 5000 + "a" + ") OVER ()" * 5000 + " FROM t1"
    assert isinstance(answer(conn, deep_over), int)
    deep_with = "SELECT (" * 3000 + "WITH x AS (SELECT 1) SELECT * FROM x" + ")" * 3000
    assert isinstance(answer(conn, deep_with), int)
    assert answer(conn, "SELECT 1") == [("1",)]
