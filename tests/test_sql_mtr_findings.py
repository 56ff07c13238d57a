"""What the differential runner (tests/outside/mtr_diff.py) found Turnstile
answering differently from MariaDB 10.11, and is mended: INSERT of rows of
defaults only (`VALUES (), ()`), the `BINARY` column attribute, MariaDB's INT
metadata for comparisons, short literals and its Item_long_func functions,
and the optimizer and buffer variables MariaDB's test files set. Expected
values were read from MariaDB 10.11 for the same statements.
"""

from __future__ import annotations

import datetime

import pymysql
import pytest

from helpers import clients

LONG, LONGLONG = 3, 8


@pytest.fixture
def db(sql_server, uniq):
    name = uniq("mtrf")
    root = clients.root(sql_server)
    clients.query(root, f"CREATE DATABASE {name}")
    clients.query(root, f"USE {name}")
    yield root, name
    clients.query(root, f"DROP DATABASE {name}")
    root.close()


def test_rows_of_defaults_only(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a INT DEFAULT 5, b VARCHAR(5) NOT NULL DEFAULT 'x')")
    cur = conn.cursor()
    assert cur.execute("INSERT INTO t VALUES (), ()") == 2
    assert cur.execute("INSERT INTO t () VALUES (), (), ()") == 3
    assert cur.execute("INSERT INTO t VALUES ()") == 1
    assert clients.query(conn, "SELECT id, a, b FROM t ORDER BY id") == tuple((i, 5, "x") for i in range(1, 7))
    # A named column wants a value in every row (MariaDB: 1136).
    with pytest.raises(pymysql.err.OperationalError) as ei:
        cur.execute("INSERT INTO t (a) VALUES (), ()")
    assert ei.value.args[0] == 1136
    # 1,000 rows of defaults in one statement.
    assert cur.execute("INSERT INTO t VALUES " + ", ".join(["()"] * 1000)) == 1000
    assert clients.query(conn, "SELECT COUNT(*), MAX(id) FROM t") == ((1006, 1006),)


def test_binary_attribute_is_the_binary_collation(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE b (v VARCHAR(5) BINARY NOT NULL DEFAULT ' ', l VARCHAR(5) CHARACTER SET latin1 BINARY)")
    create = clients.query(conn, "SHOW CREATE TABLE b")[0][1]
    assert "utf8mb4_bin" in create and "latin1_bin" in create
    clients.query(conn, "INSERT INTO b VALUES ('x', 'y')")
    assert clients.query(conn, "SELECT COUNT(*) FROM b WHERE v = 'X'") == ((0,),)
    assert clients.query(conn, "SELECT COUNT(*) FROM b WHERE v = 'x'") == ((1,),)


@pytest.mark.parametrize(
    "item,type_code,length",
    [
        ("1", LONG, 1),
        ("123456789", LONG, 9),
        ("1234567890", LONGLONG, None),
        ("-1", LONG, 2),
        ("1 = 1", LONG, 1),
        ("NULL IS NULL", LONG, 1),
        ("'a' LIKE 'b'", LONG, 1),
        ("5 BETWEEN 1 AND 9", LONG, 1),
        ("LENGTH('abc')", LONG, 10),
        ("CASE WHEN 1 = 1 THEN 12345678901 END", LONGLONG, None),
        ("COUNT(*)", LONGLONG, 21),
    ],
)
def test_int_metadata_as_mariadb(db, item, type_code, length):
    conn, _ = db
    clients.query(conn, "CREATE TABLE one (a INT)")
    clients.query(conn, "INSERT INTO one VALUES (1)")
    for sql in (f"SELECT {item}", f"SELECT {item} FROM one"):
        cur = conn.cursor()
        cur.execute(sql)
        cur.fetchall()
        field = cur._result.fields[0]
        assert field.type_code == type_code, sql
        if length is not None:
            assert field.length == length, sql


def test_optimizer_and_buffer_variables(db):
    conn, _ = db
    clients.query(conn, "SET @old = @@sort_buffer_size")
    clients.query(conn, "SET sort_buffer_size = 40000, join_cache_level = 0, optimizer_use_condition_selectivity = 1")
    assert clients.query(conn, "SELECT @@sort_buffer_size, @@join_cache_level, @@optimizer_use_condition_selectivity") == ((40000, 0, 1),)
    # Below its minimum: clipped to it, as MariaDB does.
    clients.query(conn, "SET sort_buffer_size = 10")
    assert clients.query(conn, "SELECT @@sort_buffer_size") == ((1024,),)
    clients.query(conn, "SET sort_buffer_size = @old")
    assert clients.query(conn, "SELECT @@sort_buffer_size, @@GLOBAL.tmp_table_size") == ((2097152, 16777216),)
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, "SET join_cache_level = 'x'")
    assert ei.value.args[0] == 1232


def test_parenthesised_query_members(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE p (a INT, b INT)")
    clients.query(conn, "INSERT INTO p VALUES (3, 1), (1, 2), (2, 3)")
    q = lambda sql: [tuple(r) for r in clients.query(conn, sql)]  # noqa: E731
    assert q("(SELECT 1) UNION (SELECT 2)") == [(1,), (2,)]
    assert q("SELECT 1 UNION (SELECT 2)") == [(1,), (2,)]
    # Each member keeps its own ORDER BY and LIMIT (MariaDB: 1, 2, 3).
    assert q("(SELECT a FROM p ORDER BY a LIMIT 2) UNION ALL (SELECT b FROM p ORDER BY b DESC LIMIT 1)") == [(1,), (2,), (3,)]
    assert q("(SELECT a FROM p ORDER BY a LIMIT 2) ORDER BY a DESC") == [(2,), (1,)]
    assert q("((SELECT 1)) UNION DISTINCT (SELECT 2)") == [(1,), (2,)]
    cur = conn.cursor()
    cur.execute("(SELECT a, b AS c FROM p) ORDER BY c + 1")
    assert [d[0] for d in cur.description] == ["a", "c"] and cur.fetchall() == ((3, 1), (1, 2), (2, 3))


def test_row_constructor(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE r (a INT, b INT, c VARCHAR(5))")
    clients.query(conn, "INSERT INTO r VALUES (1, 1, 'a'), (2, 2, 'b')")
    assert clients.query(conn, "SELECT ROW(1, 1, 'a') IN (SELECT a, b, c FROM r)") == ((1,),)
    assert clients.query(conn, "SELECT ROW(1, 2, 'a') IN (SELECT a, b, c FROM r)") == ((0,),)
    assert clients.query(conn, "SELECT a FROM r WHERE ROW(a, b) = ROW(2, 2)") == ((2,),)
    assert clients.query(conn, "SELECT a FROM r WHERE (a, b) IN (ROW(1, 1), ROW(3, 3))") == ((1,),)


def test_set_a_user_variable_from_a_query(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE sv (id INT PRIMARY KEY, d DECIMAL(5,2))")
    clients.query(conn, "INSERT INTO sv VALUES (1, 1.50), (5, 2.25)")
    clients.query(conn, "SET @x = (SELECT MAX(id) FROM sv), @y = 2, @v := 1 + (SELECT MIN(id) FROM sv) * 2")
    clients.query(conn, "SET @d = (SELECT SUM(d) FROM sv), @none = (SELECT id FROM sv WHERE id > 100)")
    assert clients.query(conn, "SELECT @x, @y, @v, @d, @none") == ((5, 2, 3, pymysql.converters.Decimal("3.75"), None),)
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, "SET @w = (SELECT id FROM sv)")
    assert ei.value.args[0] == 1242


def test_update_set_default(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE ud (id INT PRIMARY KEY, a INT DEFAULT 7, b VARCHAR(5) NOT NULL, d DECIMAL(5,2) DEFAULT 1.5, n INT)")
    clients.query(conn, "INSERT INTO ud VALUES (1, 1, 'x', 9, 3), (2, 2, 'y', 8, 4)")
    assert conn.cursor().execute("UPDATE ud SET a = DEFAULT, d = DEFAULT, n = DEFAULT WHERE id = 1") == 1
    assert clients.query(conn, "SELECT a, b, d, n FROM ud WHERE id = 1") == ((7, "x", pymysql.converters.Decimal("1.50"), None),)
    # A NOT NULL column without a default (MariaDB's strict answer: 1364).
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, "UPDATE ud SET b = DEFAULT WHERE id = 2")
    assert ei.value.args[0] == 1364
    assert clients.query(conn, "SELECT b FROM ud WHERE id = 2") == (("y",),)


def test_typed_temporal_literals(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE tl (d DATE, t DATETIME)")
    clients.query(conn, "INSERT INTO tl VALUES (DATE '2024-01-02', TIMESTAMP '2024-01-02 03:04:05')")
    cur = conn.cursor()
    cur.execute("SELECT DATE '2024-01-02', TIME '10:00:00', TIMESTAMP '2024-01-02 03:04:05'")
    assert [f.type_code for f in cur._result.fields] == [10, 11, 12]  # DATE, TIME, DATETIME, as MariaDB
    assert cur.fetchall() == ((datetime.date(2024, 1, 2), datetime.timedelta(hours=10), datetime.datetime(2024, 1, 2, 3, 4, 5)),)
    assert clients.query(conn, "SELECT COUNT(*) FROM tl WHERE d = DATE '2024-01-02' AND t < TIMESTAMP '2025-01-01 00:00:00'") == ((1,),)


def test_interval_before_the_date(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE iv (d DATE)")
    clients.query(conn, "INSERT INTO iv VALUES ('2024-01-31')")
    # MariaDB: 2024-02-01, 2024-02-29, 2024-01-01 02:00:00.
    got = clients.query(conn, "SELECT INTERVAL 1 DAY + d, INTERVAL 1 MONTH + d, INTERVAL 2 HOUR + '2024-01-01 00:00:00' FROM iv")
    assert [str(v) for v in got[0]] == ["2024-02-01", "2024-02-29", "2024-01-01 02:00:00"]


def test_from_dual_inside_engine_statements(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE du (a INT)")
    clients.query(conn, "INSERT INTO du SELECT 1 FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM du)")
    clients.query(conn, "INSERT INTO du SELECT 2 FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM du)")
    assert clients.query(conn, "SELECT a FROM du") == ((1,),)
    assert clients.query(conn, "SELECT 1 FROM DUAL WHERE 1 INTERSECT SELECT a FROM du") == ((1,),)


def test_insert_returning(db):
    conn, _ = db
    clients.query(conn, "CREATE TABLE rt (id INT AUTO_INCREMENT PRIMARY KEY, a INT)")
    # MariaDB 10.11's answers for the same statements.
    assert clients.query(conn, "INSERT INTO rt (a) VALUES (1), (2) RETURNING id, a") == ((1, 1), (2, 2))
    assert clients.query(conn, "INSERT INTO rt VALUES (5, 7) RETURNING *") == ((5, 7),)
    assert clients.query(conn, "INSERT IGNORE INTO rt VALUES (5, 8) RETURNING id") == ()
    assert clients.query(conn, "REPLACE INTO rt VALUES (5, 9) RETURNING a * 2 AS d") == ((18,),)
    assert clients.query(conn, "DELETE FROM rt WHERE a = 2 RETURNING id") == ((2,),)


@pytest.mark.parametrize(
    "sql,message",
    [
        ("SELECT 1 FROM (SELECT 1) dt ORDER BY 50", "Unknown column '50' in 'ORDER BY'"),
        ("SELECT 1 FROM (SELECT 1) dt GROUP BY -1", "Unknown column '-1' in 'GROUP BY'"),
        ("SELECT 1, 2 ORDER BY 1, 3", "Unknown column '3' in 'ORDER BY'"),
    ],
)
def test_position_past_the_select_list_is_an_unknown_column(sql_conn, sql, message):
    """MariaDB 10.11's 1054 naming the term (SQLite's 'term out of range' was 1105)."""
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(sql_conn, sql)
    assert ei.value.args == (1054, message)


def test_duplicate_column_names_through_joins_keep_their_name(sql_conn, uniq):
    """SQLite's `f1:1` for a second f1 in a derived table never reaches a client (MariaDB: f1, f1, f1)."""
    db = uniq("dupn")
    clients.query(sql_conn, f"CREATE DATABASE {db}")
    clients.query(sql_conn, f"USE {db}")
    for t in ("d1", "d2"):
        clients.query(sql_conn, f"CREATE TABLE {t} (f1 INT)")
    cur = sql_conn.cursor()
    cur.execute("SELECT * FROM d1, (d2 LEFT JOIN d1 AS d3 ON d2.f1 = d3.f1)")
    assert [d[0] for d in cur.description] == ["f1", "f1", "f1"]
    clients.query(sql_conn, f"DROP DATABASE {db}")


@pytest.mark.parametrize(
    "expr,expected",
    [
        # A literal compared with literals: by the connection's collation
        # (utf8mb4_general_ci), in IN lists and simple CASE as with `=`.
        ("'a' IN ('A', 'b')", 1),
        ("'str' IN ('STR', NULL)", 1),
        ("'x' IN ('y', NULL)", None),
        ("'a' NOT IN ('A')", 0),
        ("CASE 'str' WHEN 'STR' THEN 1 ELSE 0 END", 1),
        ("CASE 'a' WHEN 'b' THEN 1 WHEN 'A' THEN 2 END", 2),
    ],
)
def test_literal_in_list_and_case_by_connection_collation(db, expr, expected):
    c, _ = db
    assert clients.query(c, f"SELECT {expr}") == ((expected,),)


def test_group_by_with_a_direction(db):
    """MariaDB's GROUP BY a DESC sorts the groups that way; the statement's
    own ORDER BY still decides (answers read from MariaDB 10.11)."""
    c, _ = db
    clients.query(c, "CREATE TABLE g (a INT, b INT)")
    clients.query(c, "INSERT INTO g VALUES (1, 1), (2, 2), (2, 3), (3, 4)")
    assert clients.query(c, "SELECT a, COUNT(*) FROM g GROUP BY a DESC") == ((3, 1), (2, 2), (1, 1))
    assert clients.query(c, "SELECT a, SUM(b) FROM g GROUP BY a DESC HAVING SUM(b) > 1 LIMIT 2") == ((3, 4), (2, 5))
    assert clients.query(c, "SELECT a FROM g GROUP BY a DESC ORDER BY a") == ((1,), (2,), (3,))
    assert clients.query(c, "SELECT a FROM g GROUP BY a ASC") == ((1,), (2,), (3,))


def test_having_without_group_by_in_every_query_block(db):
    # SQLite refuses HAVING on a query that does not aggregate; MariaDB reads it
    # as a filter that sees the select list's aliases, in a subquery or a UNION
    # member too (subselect.test: `a > ANY (SELECT a FROM t1 HAVING a = 2 UNION ...)`).
    conn, _ = db
    clients.query(conn, "CREATE TABLE th (a INT, b INT)")
    clients.query(conn, "INSERT INTO th VALUES (1, 2), (2, 3), (3, 4)")
    assert clients.query(conn, "SELECT a FROM th WHERE a > 0 HAVING a < 3 UNION SELECT 5 HAVING 1") == ((1,), (2,), (5,))
    assert clients.query(conn, "SELECT a FROM th WHERE a = ANY (SELECT a FROM th HAVING a = 2 UNION SELECT a FROM th HAVING a = 3) ORDER BY a") == ((2,), (3,))
    assert clients.query(conn, "SELECT a, (SELECT b FROM th t2 WHERE t2.a = th.a HAVING b = 3) FROM th ORDER BY a") == ((1, None), (2, 3), (3, None))
    assert clients.query(conn, "SELECT 1 AS z HAVING z = 1") == ((1,),)
    # An alias is read before the column of the same name.
    assert clients.query(conn, "SELECT a + 1 AS a FROM th HAVING a = 3") == ((3,),)
    assert clients.query(conn, "SELECT DISTINCT a AS q FROM th HAVING q > 1 ORDER BY q") == ((2,), (3,))
    # In a statement that writes, through its subquery.
    assert conn.cursor().execute("UPDATE th SET b = b + 1 WHERE a IN (SELECT a FROM (SELECT a FROM th HAVING a > 2) d)") == 1
    assert clients.query(conn, "SELECT b FROM th WHERE a = 3") == ((5,),)
    # An aggregating select list keeps its HAVING.
    assert clients.query(conn, "SELECT COUNT(*) AS n FROM th HAVING n = 3") == ((3,),)


def test_recursive_cte_with_its_anchor_last(db):
    # MariaDB takes a recursive CTE's non-recursive members wherever they
    # stand among the UNION's members (cte_recursive.test); the column names
    # stay the first member's.
    conn, _ = db
    cur = conn.cursor()
    cur.execute("WITH RECURSIVE cte(n) AS (SELECT n + 1 FROM cte WHERE n < 5 UNION SELECT 1 UNION SELECT 1) SELECT * FROM cte ORDER BY n")
    assert cur.fetchall() == ((1,), (2,), (3,), (4,), (5,))
    cur.execute("WITH RECURSIVE r AS (SELECT n + 1 AS n FROM r WHERE n < 3 UNION ALL SELECT 1 AS first) SELECT * FROM r ORDER BY n")
    assert [d[0] for d in cur.description] == ["n"]
    assert cur.fetchall() == ((1,), (2,), (3,))
    # Mixed UNION and UNION ALL is left as it is, and refused (MariaDB answers it).
    with pytest.raises(pymysql.err.MySQLError):
        cur.execute("WITH RECURSIVE r(n) AS (SELECT n + 1 FROM r WHERE n < 3 UNION ALL SELECT 1 UNION SELECT 2) SELECT * FROM r")
    # The depth limit still applies to the reordered CTE.
    with pytest.raises(pymysql.err.OperationalError) as ei:
        cur.execute("WITH RECURSIVE r(n) AS (SELECT n + 1 FROM r UNION ALL SELECT 1) SELECT COUNT(*) FROM r")
    assert ei.value.args[0] == 3636


def test_parenthesised_members_inside_parentheses(db):
    # MariaDB takes a query with parenthesised members as a derived table or a
    # subquery too (union.test, subselect.test); SQLite's parser refuses it.
    conn, _ = db
    clients.query(conn, "CREATE TABLE pu (a INT, b INT)")
    clients.query(conn, "INSERT INTO pu VALUES (1, 2), (2, 3), (3, 5)")
    assert clients.query(conn, "SELECT * FROM ((SELECT 1 a) UNION SELECT 1 a) q") == ((1,),)
    assert clients.query(conn, "SELECT COUNT(*) FROM ((SELECT a FROM pu LIMIT 2) UNION ALL (SELECT b FROM pu ORDER BY b)) q") == ((5,),)
    assert clients.query(conn, "SELECT c1 FROM (SELECT a c1 FROM pu UNION (SELECT b FROM pu) ORDER BY c1 DESC LIMIT 2) AS res") == ((5,), (3,))
    assert clients.query(conn, "SELECT * FROM ((SELECT 1 UNION SELECT 1) UNION SELECT 2) a ORDER BY 1") == ((1,), (2,))
    assert clients.query(conn, "SELECT COUNT(*) FROM pu WHERE NOT EXISTS ((SELECT a FROM pu WHERE a > 9) UNION (SELECT b FROM pu WHERE b > 9))") == ((3,),)
    assert clients.query(conn, "SELECT a FROM pu WHERE a IN ((SELECT 1 UNION SELECT 2) UNION SELECT 3) ORDER BY a") == ((1,), (2,), (3,))
    # Each member keeps its own LIMIT.
    assert clients.query(conn, "SELECT * FROM ((SELECT a FROM pu ORDER BY a LIMIT 1) UNION ALL (SELECT a FROM pu ORDER BY a DESC LIMIT 1)) q ORDER BY a") == ((1,), (3,))
    # A row constructor list and a doubled subquery are no such query.
    assert clients.query(conn, "SELECT a FROM pu WHERE (a, b) IN ((1, 2), (3, 5)) ORDER BY a") == ((1,), (3,))
    assert clients.query(conn, "SELECT a FROM pu WHERE a IN ((SELECT 2)) ") == ((2,),)


def test_user_variables_assigned_row_by_row(db):
    # MariaDB evaluates `@v := expr` in a statement that reads a table row by
    # row (order_by.test, update.test, type_datetime.test); Turnstile refused
    # it with 1235. Values here were read from MariaDB 10.11.
    conn, _ = db
    clients.query(conn, "CREATE TABLE uv (a INT, b INT)")
    clients.query(conn, "INSERT INTO uv VALUES (1, 0), (2, 0), (3, 0)")
    cur = conn.cursor()
    cur.execute("SET @n = 0")
    cur.execute("SELECT @n := @n + 1 AS rn, a FROM uv ORDER BY a")
    assert cur.fetchall() == ((1, 1), (2, 2), (3, 3))
    assert clients.query(conn, "SELECT @n") == ((3,),)
    # Reads after the assignment in the same row see the new value.
    cur.execute("SET @row = 10")
    cur.execute("SELECT a + (@row := @row - 1) * 10, b - @row FROM uv ORDER BY a")
    assert [d[0] for d in cur.description] == ["a + (@row := @row - 1) * 10", "b - @row"]
    assert cur.fetchall() == ((91, -9), (82, -8), (73, -7))
    # UPDATE assigns once per row (the change test must not evaluate it again).
    cur.execute("SET @tmp = 0")
    assert cur.execute("UPDATE uv SET b = (@tmp := @tmp + 1) ORDER BY a") == 3
    assert clients.query(conn, "SELECT a, b FROM uv ORDER BY a") == ((1, 1), (2, 2), (3, 3))
    assert clients.query(conn, "SELECT @tmp") == ((3,),)
    # INSERT ... SELECT, and a derived table's column keeps the client's name.
    cur.execute("SET @r = 100")
    assert cur.execute("INSERT INTO uv SELECT @r := @r + a, 9 FROM uv WHERE b > 0 ORDER BY a") == 3
    assert clients.query(conn, "SELECT a FROM uv WHERE b = 9 ORDER BY a") == ((101,), (103,), (106,))
    cur.execute("SELECT d.* FROM (SELECT a, @n := @n + 1 FROM uv WHERE b < 9) d ORDER BY a")
    assert [d[0] for d in cur.description] == ["a", "@n := @n + 1"]
    # A string, a NULL and bytes keep their values across statements.
    cur.execute("SELECT @s := CONCAT('x', a), @z := NULL, @bin := UNHEX('00FF') FROM uv WHERE a = 1")
    assert clients.query(conn, "SELECT @s, @z, HEX(@bin)") == (("x1", None, "00FF"),)
    # A view may not hold one (MariaDB: 1351).
    with pytest.raises(pymysql.err.OperationalError) as ei:
        cur.execute("CREATE VIEW uvv AS SELECT @q := a FROM uv")
    assert ei.value.args[0] == 1351


@pytest.mark.parametrize(
    "expr,expected",
    [("1<=>COALESCE(1,2)", 1), ("NULL<=>(1)", 0), ("'a'<=>'a'", 1), ("1||0", 1), ("1&&0", 0), ("!1", 0), ("a<=>a", 1)],
)
def test_word_operators_without_spaces(db, expr, expected):
    # `<=>`, `||`, `&&` and `!` become SQLite's words: `a<=>COALESCE(...)` was
    # written `aISCOALESCE(...)` and refused (type_datetime.test, 1064).
    conn, _ = db
    clients.query(conn, "CREATE TABLE IF NOT EXISTS wo (a INT)")
    clients.query(conn, "DELETE FROM wo")
    clients.query(conn, "INSERT INTO wo VALUES (7)")
    assert clients.query(conn, f"SELECT {expr} FROM wo") == ((expected,),)


def test_two_digit_years_in_strict_mode(db):
    # MariaDB reads 93 as 1993 and '0' as 2000 in a YEAR column in every
    # sql_mode; under the default strict mode it was ERR 1264 (type_year.test).
    conn, _ = db
    clients.query(conn, "SET sql_mode = DEFAULT")
    clients.query(conn, "CREATE TABLE yy (y YEAR)")
    assert conn.cursor().execute("INSERT INTO yy VALUES (93), (0), (70), (69), (2000), ('0'), ('93'), (0x01)") == 8
    assert clients.query(conn, "SELECT y FROM yy") == ((1993,), (0,), (1970,), (2069,), (2000,), (2000,), (1993,), (2001,))
    assert conn.cursor().execute("UPDATE yy SET y = 5 WHERE y = 1993") == 2
    assert clients.query(conn, "SELECT COUNT(*) FROM yy WHERE y = 2005") == ((2,),)
    # Out of range and not a number stay errors, as MariaDB.
    for value, code in (("1800", 1264), ("'abc'", 1366), ("2156", 1264)):
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(conn, f"INSERT INTO yy VALUES ({value})")
        assert ei.value.args[0] == code, value


def test_select_into_variables_reports_the_row(db):
    # MariaDB's OK for `SELECT ... INTO @v` counts the row it assigned
    # (distinct.test, union.test); none selected is 0 with warning 1329.
    conn, _ = db
    clients.query(conn, "CREATE TABLE si (a INT)")
    clients.query(conn, "INSERT INTO si VALUES (1), (2)")
    cur = conn.cursor()
    assert cur.execute("SELECT a INTO @v FROM si WHERE a = 2") == 1
    assert cur.execute("SELECT DISTINCT a, a + 1 INTO @x, @y FROM si WHERE a = 1") == 1
    assert cur.execute("SELECT a INTO @v FROM si WHERE a = 9") == 0
    assert clients.query(conn, "SHOW WARNINGS") == (("Warning", 1329, "No data - zero rows fetched, selected, or processed"),)
    assert clients.query(conn, "SELECT @v, @x, @y") == ((2, 1, 2),)


def test_nested_joins_without_parentheses(db):
    # `t1 JOIN t2 JOIN t3 ON c1 ON c2` is `t1 JOIN (t2 JOIN t3 ON c1) ON c2`
    # in MySQL (join.test, join_outer.test); SQLite refused it (1064).
    conn, _ = db
    for t, vals in (("j1", "(7), (5), (3)"), ("j2", "(5), (1), (7)"), ("j3", "(2), (7), (3)")):
        clients.query(conn, f"CREATE TABLE {t} (a INT)")
        clients.query(conn, f"INSERT INTO {t} VALUES {vals}")
    assert clients.query(conn, "SELECT j1.a, j2.a, j3.a FROM j1 JOIN j2 JOIN j3 ON j2.a = j3.a ON j1.a = j2.a") == ((7, 7, 7),)
    assert clients.query(conn, "SELECT j1.a, j2.a, j3.a FROM j1 LEFT JOIN j2 LEFT JOIN j3 ON j2.a = j3.a ON j1.a = j2.a ORDER BY 1") == ((3, None, None), (5, 5, None), (7, 7, 7))
    assert clients.query(conn, "SELECT COUNT(*) FROM j1 LEFT JOIN j2 JOIN j3 USING (a) ON j1.a = j2.a") == ((3,),)
    # Only ON nests, as in MariaDB: two USINGs in a row are its 1064.
    with pytest.raises(pymysql.err.ProgrammingError) as ei:
        clients.query(conn, "SELECT COUNT(*) FROM j1 LEFT JOIN j2 JOIN j3 USING (a) USING (a)")
    assert ei.value.args[0] == 1064


def test_enum_values_by_number_and_spelling(db):
    # MariaDB stores a number into an ENUM as the member at that position
    # (from 1; a double rounded), any-case spelling as the member's own, and
    # drops members' trailing blanks; a strict write refuses what is no
    # member (1265), a lenient one stores '' with Warning 1265 (type_enum.test,
    # default.test). Each was ERR 1265 before. Read from MariaDB 10.11.
    conn, _ = db
    cur = conn.cursor()
    clients.query(conn, "SET sql_mode = DEFAULT")
    clients.query(conn, "CREATE TABLE en (id INT AUTO_INCREMENT PRIMARY KEY, b ENUM('small', 'medium', 'large ') NOT NULL, n ENUM('a', 'b') NULL)")
    assert "enum('small','medium','large')" in clients.query(conn, "SHOW CREATE TABLE en")[0][1]
    for values in ("(3, NULL)", "('LARGE', NULL)", "('2', 'B')", "(1.6, 2)", "('large  ', 1)"):
        assert cur.execute(f"INSERT INTO en (b, n) VALUES {values}") == 1, values
    assert clients.query(conn, "SELECT b, n FROM en ORDER BY id") == (("large", None), ("large", None), ("medium", "b"), ("medium", "b"), ("large", "a"))
    for bad in ("0", "4", "''", "'x'", "-1", "'1x'"):
        with pytest.raises(pymysql.err.MySQLError) as ei:
            cur.execute(f"INSERT INTO en (b) VALUES ({bad})")
        assert ei.value.args[:2] == (1265, "Data truncated for column 'b' at row 1"), bad
    assert cur.execute("UPDATE en SET b = 1 WHERE n = 'a'") == 1
    clients.query(conn, "SET sql_mode = ''")
    assert cur.execute("INSERT INTO en (b) VALUES (3), (9), ('x')") == 3
    assert clients.query(conn, "SHOW WARNINGS") == (("Warning", 1265, "Data truncated for column 'b' at row 2"), ("Warning", 1265, "Data truncated for column 'b' at row 3"))
    assert clients.query(conn, "SELECT b FROM en WHERE id > 5 ORDER BY id") == (("large",), ("",), ("",))
    # Every byte value as a would-be member: '1' to '3' are positions, the
    # rest no member ('' and a warning each).
    for byte in range(256):
        cur.execute("INSERT INTO en (b) VALUES (%s)", (bytes([byte]),))
    assert clients.query(conn, "SELECT COUNT(*) FROM en WHERE b = ''") == ((2 + 253,),)


def test_default_for_a_column_without_one_warns(db):
    # `DEFAULT` given to a NOT NULL column without a default: the column's
    # zero and Warning 1364 per value in a lenient write, ERR 1364 in a
    # strict one, as for a column left out (default.test). It was silent.
    conn, _ = db
    cur = conn.cursor()
    clients.query(conn, "CREATE TABLE dd (i INT, d DATETIME NOT NULL, e ENUM('x', 'y') NOT NULL, dn INT NOT NULL DEFAULT 4)")
    clients.query(conn, "SET sql_mode = ''")
    assert cur.execute("INSERT INTO dd VALUES (1, DEFAULT, DEFAULT, DEFAULT), (2, '2001-01-01', 'y', 5), (3, DEFAULT, 'x', DEFAULT)") == 3
    message = "Field 'd' doesn't have a default value"
    assert clients.query(conn, "SHOW WARNINGS") == (("Warning", 1364, message), ("Warning", 1364, message))
    assert clients.query(conn, "SELECT i, d, e, dn FROM dd WHERE i = 1") == ((1, "0000-00-00 00:00:00", "x", 4),)
    clients.query(conn, "SET sql_mode = 'STRICT_ALL_TABLES'")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        cur.execute("INSERT INTO dd VALUES (4, DEFAULT, 'x', 1)")
    assert ei.value.args[:2] == (1364, message)
    assert cur.execute("INSERT IGNORE INTO dd VALUES (4, DEFAULT, 'x', 1)") == 1
    assert clients.query(conn, "SELECT COUNT(*) FROM dd") == ((4,),)


def test_show_create_table_of_a_temporary_table(db):
    # MariaDB shows a temporary table as CREATE TEMPORARY TABLE (show_check,
    # rename, alter_table, create.test); the base table of the same name,
    # hidden while the temporary one exists, shows as CREATE TABLE again.
    conn, name = db
    clients.query(conn, "CREATE TABLE tt (a INT)")
    clients.query(conn, "CREATE TEMPORARY TABLE tt (b INT NOT NULL)")
    assert clients.query(conn, "SHOW CREATE TABLE tt")[0][1].startswith("CREATE TEMPORARY TABLE `tt` (\n  `b` int(11) NOT NULL\n)")
    assert clients.query(conn, f"SHOW CREATE TABLE {name}.tt")[0][1].startswith("CREATE TEMPORARY TABLE `tt`")
    clients.query(conn, "DROP TEMPORARY TABLE tt")
    assert clients.query(conn, "SHOW CREATE TABLE tt")[0][1].startswith("CREATE TABLE `tt` (\n  `a` int(11) DEFAULT NULL\n)")


def test_two_digit_year_date_texts_in_strict_mode(db):
    # MariaDB reads '01-01-01' as 2001-01-01, '70-01-02' as 1970 and the
    # compact '981231101112' as 1998-12-31 10:11:12 in every sql_mode; a
    # one-digit year is the year itself. Under strict mode they were ERR 1292.
    conn, _ = db
    clients.query(conn, "SET sql_mode = DEFAULT")
    clients.query(conn, "CREATE TABLE dy (a DATE, b DATETIME, c TIMESTAMP NULL)")
    cur = conn.cursor()
    assert cur.execute("INSERT INTO dy VALUES ('01-01-01', '98-12-31 10:11:12', '70-01-02'), ('010101', '981231101112', '700102'), ('1-1-1', '9-1-1 1:1:1', NULL)") == 3
    rows = clients.query(conn, "SELECT CAST(a AS CHAR), CAST(b AS CHAR), CAST(c AS CHAR) FROM dy")
    assert rows == (("2001-01-01", "1998-12-31 10:11:12", "1970-01-02 00:00:00"),) * 2 + (("0001-01-01", "0009-01-01 01:01:01", None),)
    assert clients.query(conn, "SELECT COUNT(*) FROM dy WHERE a = '01-01-01'") == ((2,),)
    # Seven digits are YYMMDDh (MariaDB 10.11 takes '0101010' as 2001-01-01).
    assert cur.execute("INSERT INTO dy (a) VALUES ('0101010')") == 1
    for bad in ("'12345-01-01'", "'01-13-01'"):
        with pytest.raises(pymysql.err.MySQLError) as ei:
            cur.execute(f"INSERT INTO dy (a) VALUES ({bad})")
        assert ei.value.args[0] == 1292, bad


def test_select_star_over_natural_and_using_joins_in_mysqls_order(db):
    # MySQL lists the common columns once, then the kept side's others, then
    # the other side's (the right side first in a RIGHT join); SQLite kept
    # the tables' own order (join.test). Read from MariaDB 10.11.
    conn, _ = db
    clients.query(conn, "CREATE TABLE n1 (a INT, b INT, c INT)")
    clients.query(conn, "CREATE TABLE n2 (c INT, d INT, b INT)")
    clients.query(conn, "INSERT INTO n1 VALUES (1, 2, 3), (4, 5, 6)")
    clients.query(conn, "INSERT INTO n2 VALUES (3, 7, 2), (9, 9, 9)")
    cur = conn.cursor()

    def names_rows(sql):
        cur.execute(sql)
        return [d[0] for d in cur.description], cur.fetchall()

    assert names_rows("SELECT * FROM n1 NATURAL JOIN n2") == (["b", "c", "a", "d"], ((2, 3, 1, 7),))
    assert names_rows("SELECT * FROM n1 LEFT JOIN n2 USING (c) ORDER BY a") == (["c", "a", "b", "d", "b"], ((3, 1, 2, 7, 2), (6, 4, 5, None, None)))
    assert names_rows("SELECT * FROM n1 RIGHT JOIN n2 USING (c) ORDER BY c") == (["c", "d", "b", "a", "b"], ((3, 7, 2, 1, 2), (9, 9, 9, None, None)))
    assert names_rows("SELECT * FROM n1 NATURAL RIGHT JOIN n2 ORDER BY c") == (["c", "b", "d", "a"], ((3, 2, 7, 1), (9, 9, 9, None)))
    # Qualified stars keep each table's order, as before.
    assert names_rows("SELECT n1.*, n2.* FROM n1 JOIN n2 USING (c)")[0] == ["a", "b", "c", "c", "d", "b"]


def test_set_clamped_into_range_warns(db):
    # MariaDB clamps a numeric system variable into its range with Warning
    # 1292 naming the value as written; Turnstile clamped silently.
    conn, _ = db
    clients.query(conn, "SET max_sort_length = 20")
    assert clients.query(conn, "SHOW WARNINGS") == (("Warning", 1292, "Truncated incorrect max_sort_length value: '20'"),)
    assert clients.query(conn, "SELECT @@max_sort_length") == ((64,),)
    clients.query(conn, "SET sort_buffer_size = 1")
    assert clients.query(conn, "SHOW WARNINGS") == (("Warning", 1292, "Truncated incorrect sort_buffer_size value: '1'"),)
    clients.query(conn, "SET max_sort_length = 100, sort_buffer_size = 4096")
    assert clients.query(conn, "SELECT @@max_sort_length, @@sort_buffer_size") == ((100, 4096),)


def test_charset_introducer_before_a_hex_literal(db):
    # `_utf8 0x41` is the string 'A' (MariaDB 10.11), named as written; in a
    # column DEFAULT too. Before, the SELECT was ERR 1064 and the DEFAULT's
    # 1064 quoted the SQLite DDL Turnstile had generated.
    conn, _ = db
    cur = conn.cursor()
    cur.execute("SELECT _utf8 0x41, _latin1 X'42', _binary 0x4142, X'43', _utf8'd', HEX(_utf8mb4 0xC3A4)")
    assert [d[0] for d in cur.description] == ["_utf8 0x41", "_latin1 X'42'", "_binary 0x4142", "X'43'", "d", "HEX(_utf8mb4 0xC3A4)"]
    assert cur.fetchall() == (("A", "B", b"AB", b"C", "d", "C3A4"),)
    clients.query(conn, "CREATE TABLE intro (c VARCHAR(3) DEFAULT (_utf8 0x41), d VARCHAR(3) DEFAULT CONCAT(_utf8 0x41) NOT NULL)")
    clients.query(conn, "INSERT INTO intro VALUES ()")
    assert clients.query(conn, "SELECT c, d FROM intro") == (("A", "A"),)
    # Without an introducer 0x41 is still a number in numeric context.
    assert clients.query(conn, "SELECT 0x41 + 0") == ((65,),)


def test_syntax_errors_quote_only_the_clients_statement(db):
    conn, _ = db
    cur = conn.cursor()
    with pytest.raises(pymysql.err.ProgrammingError) as ei:
        cur.execute("SELECT 1 +")
    assert ei.value.args[0] == 1064 and "near '' at line 1" in ei.value.args[1]
    with pytest.raises(pymysql.err.ProgrammingError) as ei:
        cur.execute("SELECT * FORM t")
    assert ei.value.args[0] == 1064 and "near 'FORM t' at line 1" in ei.value.args[1]


def test_sequence_engine_tables(db):
    # MariaDB's Sequence engine: seq_<from>_to_<to>[_step_<n>] in FROM.
    conn, _ = db
    assert clients.query(conn, "SELECT * FROM seq_1_to_10_step_4") == ((1,), (5,), (9,))
    assert clients.query(conn, "SELECT seq FROM seq_5_to_3") == ((5,), (4,), (3,))
    assert clients.query(conn, "SELECT COUNT(*), SUM(seq) FROM seq_1_to_100000") == ((100000, 5000050000),)
    clients.query(conn, "CREATE TABLE s2 (a INT, b INT)")
    clients.query(conn, "INSERT INTO s2 SELECT seq, seq * 2 FROM seq_1_to_4")
    assert clients.query(conn, "SELECT a, s.seq FROM s2 JOIN seq_2_to_3 s ON a = s.seq ORDER BY a") == ((2, 2), (3, 3))
    # A table of that name is the table.
    clients.query(conn, "CREATE TABLE seq_1_to_2 (seq INT)")
    assert clients.query(conn, "SELECT COUNT(*) FROM seq_1_to_2") == ((0,),)


def test_auto_increment_column_that_is_not_the_whole_primary_key(db):
    # The first column of a plain key or of a composite PRIMARY KEY (InnoDB's
    # rule): Turnstile generates one past the largest value (before: ERR 1235).
    conn, _ = db
    cur = conn.cursor()
    clients.query(conn, "CREATE TABLE ak (a INT NOT NULL AUTO_INCREMENT, b INT NOT NULL, KEY (a, b))")
    assert cur.execute("INSERT INTO ak VALUES (NULL, 1), (NULL, 2), (0, 3)") == 3
    assert cur.lastrowid == 1
    assert clients.query(conn, "SELECT LAST_INSERT_ID()") == ((1,),)
    clients.query(conn, "INSERT INTO ak (b) VALUES (4)")
    assert clients.query(conn, "SELECT LAST_INSERT_ID()") == ((4,),)
    clients.query(conn, "INSERT INTO ak VALUES (100, 5)")
    clients.query(conn, "INSERT INTO ak SET b = 6, a = DEFAULT")
    clients.query(conn, "INSERT INTO ak (b) SELECT b FROM ak WHERE b <= 2")
    assert clients.query(conn, "SELECT a, b FROM ak ORDER BY a") == ((1, 1), (2, 2), (3, 3), (4, 4), (100, 5), (101, 6), (102, 1), (103, 2))
    assert "AUTO_INCREMENT=104" in clients.query(conn, "SHOW CREATE TABLE ak")[0][1]
    clients.query(conn, "CREATE TABLE ck (id INT AUTO_INCREMENT, g INT, PRIMARY KEY (id, g))")
    clients.query(conn, "INSERT INTO ck (g) VALUES (5), (5)")
    assert clients.query(conn, "SELECT id, g FROM ck") == ((1, 5), (2, 5))
    # Not first in any key: MariaDB's 1075.
    with pytest.raises(pymysql.err.MySQLError) as ei:
        cur.execute("CREATE TABLE bad (g INT, id INT AUTO_INCREMENT, PRIMARY KEY (g, id))")
    assert ei.value.args[0] == 1075


def test_enum_members_in_hex_and_case_defaults(db):
    # MariaDB takes hex literals as ENUM/SET members (a NUL among their bytes
    # too) and an unparenthesised CASE as a column's DEFAULT.
    conn, _ = db
    clients.query(conn, "CREATE TABLE eh (a ENUM ('', 0x0000), c SET ('a', 0x62))")
    assert "enum('','\\0\\0')" in clients.query(conn, "SHOW CREATE TABLE eh")[0][1]
    clients.query(conn, "INSERT INTO eh VALUES (0x0000, 'a,b'), (2, 'b')")
    assert clients.query(conn, "SELECT HEX(a), c FROM eh") == (("0000", "a,b"), ("0000", "b"))
    clients.query(conn, "CREATE TABLE cd (a INT, b INT, c INT DEFAULT CASE WHEN a THEN b ELSE 2 END)")
    clients.query(conn, "INSERT INTO cd VALUES (0, 1, DEFAULT), (1, 1, DEFAULT)")
    assert clients.query(conn, "SELECT c FROM cd") == ((2,), (1,))


def test_logical_xor_in_queries_updates_and_defaults(db):
    # MySQL's XOR (between AND and OR in precedence; NULL if a side is NULL).
    # Before: ERR 1235 wherever the engine (not the constant evaluator) ran it.
    conn, _ = db
    clients.query(conn, "CREATE TABLE x (a INT, b INT)")
    clients.query(conn, "INSERT INTO x VALUES (1, 1), (1, 0), (0, 1), (0, 0), (NULL, 1)")
    assert clients.query(conn, "SELECT a XOR b FROM x") == ((0,), (1,), (1,), (0,), (None,))
    assert clients.query(conn, "SELECT COUNT(*) FROM x WHERE a = 1 AND b = 1 XOR a = 0 OR b IS NULL") == ((3,),)
    assert clients.query(conn, "SELECT COUNT(*) FROM x WHERE a XOR b XOR 1") == ((2,),)
    clients.query(conn, "UPDATE x SET b = a XOR b WHERE a IS NOT NULL")
    assert clients.query(conn, "SELECT b FROM x") == ((0,), (1,), (1,), (0,), (1,))
    clients.query(conn, "CREATE TABLE xd (a INT, b INT, c INT DEFAULT (a XOR b))")
    clients.query(conn, "INSERT INTO xd (a, b) VALUES (0, 1), (1, 1)")
    assert clients.query(conn, "SELECT c FROM xd") == ((1,), (0,))


def test_count_distinct_of_several_expressions(db):
    """COUNT(DISTINCT a, b, ...) counts distinct rows of the expressions,
    leaving out those with a NULL; text compares as utf8mb4_general_ci
    (was 1582: SQLite's count takes one argument)."""
    conn, _ = db
    clients.query(conn, "CREATE TABLE g (a1 CHAR(2), a2 CHAR(2), b CHAR(2), n INT)")
    clients.query(conn, "INSERT INTO g VALUES ('a','b','c',1), ('a','b','a',1), ('a','B','a',2), (NULL,'b','a',2), ('ab','','c',NULL)")
    q = "SELECT COUNT(DISTINCT a1, a2), COUNT(DISTINCT a1, a2, b), COUNT(DISTINCT a2, n), COUNT(DISTINCT CONCAT(a1, a2), b) FROM g"
    # ('a', 'b') and ('ab', '') make one CONCAT.
    assert clients.query(conn, q) == ((2, 3, 2, 2),)
    assert clients.query(conn, "SELECT n, COUNT(DISTINCT a2, b) FROM g GROUP BY n ORDER BY n") == ((None, 1), (1, 2), (2, 1))
    # One expression is SQLite's own count; none is a syntax error.
    assert clients.query(conn, "SELECT COUNT(DISTINCT a2) FROM g") == ((2,),)
    with pytest.raises(pymysql.err.ProgrammingError) as e:
        clients.query(conn, "SELECT COUNT(DISTINCT) FROM g")
    assert e.value.args[0] == 1064 and "near ') FROM g'" in e.value.args[1]


def test_auto_increment_column_added_to_a_table_with_rows(db):
    """ALTER TABLE ... ADD an AUTO_INCREMENT key column numbers the rows
    1, 2, ... in table order, and new rows go on from there (was 1062: every
    row got the column's implicit default)."""
    conn, _ = db
    clients.query(conn, "CREATE TABLE t3 (x INT)")
    clients.query(conn, "INSERT INTO t3 VALUES (5), (6), (7)")
    clients.query(conn, "ALTER TABLE t3 ADD t2nr INT NOT NULL AUTO_INCREMENT PRIMARY KEY FIRST")
    clients.query(conn, "INSERT INTO t3 (x) VALUES (8)")
    assert clients.query(conn, "SELECT * FROM t3 ORDER BY t2nr") == ((1, 5), (2, 6), (3, 7), (4, 8))
    clients.query(conn, "CREATE TABLE t4 (x INT, y INT PRIMARY KEY)")
    clients.query(conn, "INSERT INTO t4 VALUES (5, 1), (6, 2), (7, 3)")
    clients.query(conn, "ALTER TABLE t4 ADD id INT NOT NULL AUTO_INCREMENT, ADD KEY (id)")
    clients.query(conn, "INSERT INTO t4 (x, y) VALUES (8, 4)")
    assert clients.query(conn, "SELECT x, y, id FROM t4 ORDER BY y") == ((5, 1, 1), (6, 2, 2), (7, 3, 3), (8, 4, 4))


def test_rename_to_the_name_of_a_rebuilt_table_dropped_since(db):
    """RENAME TABLE t2 TO t1 after t1 was rebuilt by ALTER TABLE and dropped
    (was 1105: SQLite's schema in memory still had the rebuilt t1)."""
    conn, _ = db
    clients.query(conn, "CREATE TABLE t1 (a INT, b INT NOT NULL, UNIQUE KEY (a, b), INDEX (b))")
    clients.query(conn, "CREATE TABLE t2 LIKE t1")
    clients.query(conn, "INSERT INTO t2 VALUES (1, 1), (2, 2)")
    clients.query(conn, "ALTER TABLE t1 MODIFY b BLOB NOT NULL, ADD c INT NOT NULL, DROP KEY a, ADD UNIQUE KEY (a, b(20), c)")
    clients.query(conn, "DROP TABLE t1")
    clients.query(conn, "RENAME TABLE t2 TO t1")
    clients.query(conn, "ALTER TABLE t1 MODIFY b INT NULL")
    clients.query(conn, "INSERT INTO t1 VALUES (7, NULL)")
    assert clients.query(conn, "SELECT a, b FROM t1 ORDER BY a") == ((1, 1), (2, 2), (7, None))


def test_null_into_timestamp_not_null_stores_the_current_time(db):
    """NULL into a TIMESTAMP NOT NULL column (INSERT, INSERT ... SELECT,
    UPDATE, ON DUPLICATE KEY UPDATE, REPLACE) stores the current time, as
    MariaDB does (was 1048)."""
    conn, _ = db
    clients.query(conn, "CREATE TABLE t2 (a INT PRIMARY KEY, t TIMESTAMP NOT NULL DEFAULT '2001-01-01 00:00:00')")
    clients.query(conn, "CREATE TABLE t1 (a INT, t TIMESTAMP NULL)")
    clients.query(conn, "INSERT INTO t1 VALUES (3, NULL)")
    clients.query(conn, "INSERT INTO t2 VALUES (1, NULL), (2, '2000-01-01 10:00:00')")
    clients.query(conn, "INSERT INTO t2 SELECT * FROM t1")
    clients.query(conn, "UPDATE t2 SET t = NULL WHERE a = 2")
    clients.query(conn, "INSERT INTO t2 VALUES (3, '2000-01-01') ON DUPLICATE KEY UPDATE t = NULL")
    clients.query(conn, "REPLACE INTO t2 VALUES (4, NULL)")
    now = clients.query(conn, "SELECT NOW()")[0][0]
    rows = clients.query(conn, "SELECT a, t FROM t2 ORDER BY a")
    assert [r[0] for r in rows] == [1, 2, 3, 4]
    assert all(r[1] is not None and abs((r[1] - now).total_seconds()) < 60 for r in rows), rows
    # A TIMESTAMP NULL keeps its NULL.
    assert clients.query(conn, "SELECT t FROM t1") == ((None,),)


def test_group_by_with_rollup(db):
    """GROUP BY ... WITH ROLLUP: a super-aggregate row after each group's
    rows, the rolled-up columns NULL, by position, alias and DESC; with
    HAVING and LIMIT; as a UNION member; ORDER BY beside it is 1221 (was
    1064 for every ROLLUP)."""
    conn, _ = db
    clients.query(conn, "CREATE TABLE t2 (b INT, c INT)")
    clients.query(conn, "INSERT INTO t2 VALUES (1, 1), (1, 2), (3, 3)")
    assert clients.query(conn, "SELECT b, COUNT(*) FROM t2 GROUP BY b WITH ROLLUP") == ((1, 2), (3, 1), (None, 3))
    assert clients.query(conn, "SELECT b, COUNT(*) FROM t2 GROUP BY 1 WITH ROLLUP LIMIT 2") == ((1, 2), (3, 1))
    rows = clients.query(conn, "SELECT b, c, SUM(c), b + 1, CONCAT(b, 'x') FROM t2 GROUP BY b DESC, c WITH ROLLUP")
    assert [(r[0], r[1], int(r[2]), r[3], r[4]) for r in rows] == [
        (3, 3, 3, 4, "3x"), (3, None, 3, 4, "3x"), (1, 1, 1, 2, "1x"), (1, 2, 2, 2, "1x"), (1, None, 3, 2, "1x"), (None, None, 6, None, None)
    ]
    assert clients.query(conn, "SELECT b AS x, COUNT(*) FROM t2 GROUP BY x WITH ROLLUP HAVING x > 1 OR x IS NULL") == ((3, 1), (None, 3))
    clients.query(conn, "CREATE TABLE t1 (a INT)")
    clients.query(conn, "INSERT INTO t1 VALUES (1), (2)")
    union = "SELECT a, 1 FROM t1 UNION SELECT b, COUNT(*) FROM t2 GROUP BY b WITH ROLLUP ORDER BY a"
    assert clients.query(conn, union) == ((None, 3), (1, 1), (1, 2), (2, 1), (3, 1))
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(conn, "SELECT b, COUNT(*) FROM t2 GROUP BY b WITH ROLLUP ORDER BY b")
    assert e.value.args[0] == 1221


def test_a_date_or_time_into_a_number_column_is_its_digits(db):
    """MariaDB stores MAKEDATE(2023, 5) into an INT as 20230105 and a TIME as
    hhmmss (type_int.test fills tables so in FOR loops); SQLite would read the
    number at the start of the text (2023) or refuse it."""
    conn, _ = db
    q = clients.query
    q(conn, "CREATE TABLE tnum (i INT, b BIGINT, d DECIMAL(20,2), f DOUBLE)")
    q(conn, "INSERT INTO tnum VALUES (MAKEDATE(2023, 5), NOW() - INTERVAL 0 SECOND, CAST('2001-02-03 04:05:06.5' AS DATETIME(1)), SEC_TO_TIME(3700))")
    i, b, d, f = q(conn, "SELECT i, b, d, f FROM tnum")[0]
    assert (i, str(d), f) == (20230105, "20010203040506.50", 10140.0)
    assert 20200101000000 < b < 21000101000000
    q(conn, "DROP TABLE tnum")


def test_insert_ignore_past_bit_63_is_its_largest_value(db):
    """BIT(63)'s largest value is i64::MAX: INSERT IGNORE of a wider value
    stores it with 1264, as for any other width (was 1406; type_bit.test)."""
    conn, _ = db
    clients.query(conn, "CREATE TABLE b63 (a BIT(63))")
    cur = conn.cursor()
    cur.execute("INSERT IGNORE INTO b63 VALUES (0xFFFFFFFFFFFFFFFF), (0x8000000000000000)")
    cur.execute("SHOW WARNINGS")
    assert [r[1] for r in cur.fetchall()] == [1264, 1264]
    assert clients.query(conn, "SELECT a + 0 FROM b63") == ((2**63 - 1,), (2**63 - 1,))


def test_values_row_names_its_columns(db):
    # A column named in a VALUES row (or INSERT ... SET) is the value the row
    # gave it before, else its default (checked on MariaDB 10.11).
    conn, _ = db
    clients.query(conn, "CREATE TABLE t (a INT, b INT DEFAULT 7, c VARCHAR(10))")
    clients.query(conn, "INSERT INTO t VALUES (b, 5, concat(a, '-', b))")
    clients.query(conn, "INSERT INTO t SET b = 2, a = b + 1, c = a")
    clients.query(conn, "INSERT INTO t (c, a) VALUES (b, 9)")
    assert clients.query(conn, "SELECT a, b, c FROM t") == ((7, 5, "7-5"), (3, 2, "3"), (9, 7, "7"))
    clients.query(conn, "CREATE TABLE d (da DATE, dt DATETIME)")
    clients.query(conn, "INSERT INTO d SET dt = '2007-03-23 13:49:38', da = dt")
    assert clients.query(conn, "SELECT CAST(da AS CHAR), CAST(dt AS CHAR) FROM d") == (("2007-03-23", "2007-03-23 13:49:38"),)
