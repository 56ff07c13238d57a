"""ORDER BY and HAVING names that MariaDB 10.11 refuses and SQLite took.

ORDER BY naming two select items that are different columns under one name
is 1052 "Column 'x' in ORDER BY is ambiguous"; HAVING naming a column that
is neither a select item (alias or column) nor a GROUP BY column, outside an
aggregate, is 1054 "Unknown column 'x' in 'HAVING'". Every expected answer
here is what MariaDB 10.11 answered for the same statements.
"""

import pymysql
import pytest

from helpers.clients import query


def setup(conn):
    query(conn, "CREATE TABLE t1 (col1 INT, col INT, a INT, b INT)")
    query(conn, "INSERT INTO t1 VALUES (1, 1, 1, 1), (2, 2, 2, 1)")


def refused(conn, sql):
    with pytest.raises(pymysql.err.MySQLError) as e:
        query(conn, sql)
    return e.value.args[0], e.value.args[1]


def test_order_by_ambiguous(scratch_db):
    conn, _ = scratch_db
    setup(conn)
    assert refused(conn, "SELECT col1 AS col, col FROM t1 ORDER BY col") == (1052, "Column 'col' in ORDER BY is ambiguous")
    assert refused(conn, "SELECT p.a AS val, q.a AS val FROM t1 p, t1 q ORDER BY val > 1") == (1052, "Column 'val' in ORDER BY is ambiguous")
    assert refused(conn, "SELECT p.a, q.a FROM t1 p, t1 q ORDER BY a")[0] == 1052


def test_order_by_accepted(scratch_db):
    conn, _ = scratch_db
    setup(conn)
    assert query(conn, "SELECT a, a FROM t1 ORDER BY a DESC") == ((2, 2), (1, 1))
    assert query(conn, "SELECT a, t1.a FROM t1 ORDER BY a") == ((1, 1), (2, 2))
    assert query(conn, "SELECT 1 AS x, a AS x FROM t1 ORDER BY x") == ((1, 1), (1, 2))


def test_having_unknown_column(scratch_db):
    conn, _ = scratch_db
    setup(conn)
    assert refused(conn, "SELECT COUNT(*) FROM t1 GROUP BY b HAVING col1 = 10") == (1054, "Unknown column 'col1' in 'HAVING'")
    assert refused(conn, "SELECT a FROM t1 HAVING b = 1") == (1054, "Unknown column 'b' in 'HAVING'")
    assert refused(conn, "SELECT a FROM t1 GROUP BY a + b HAVING b = 1")[0] == 1054
    assert refused(conn, "SELECT a FROM (SELECT a FROM t1 HAVING b = 1) d")[0] == 1054


def test_having_accepted(scratch_db):
    conn, _ = scratch_db
    setup(conn)
    assert query(conn, "SELECT a AS z FROM t1 HAVING a = 1") == ((1,),)
    assert query(conn, "SELECT x.a FROM t1 x HAVING a > 1") == ((2,),)
    assert query(conn, "SELECT b, COUNT(*) FROM t1 GROUP BY b HAVING b = 1 AND SUM(a) > 2") == ((1, 2),)
    assert query(conn, "SELECT * FROM t1 HAVING b = 1 ORDER BY a") == ((1, 1, 1, 1), (2, 2, 2, 1))
    # A subquery's HAVING may name the outer query's column.
    assert query(conn, "SELECT a FROM t1 WHERE a IN (SELECT a FROM t1 t2 GROUP BY a HAVING t1.col = 2)") == ((2,),)
