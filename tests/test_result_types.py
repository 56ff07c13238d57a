"""Result column types of expressions, as MariaDB 10.11 reports them (issue #23:
the differential runner's biggest disagreement after errors was the wire type
of result columns, 1,875 statements on its list).

Each case was run on MariaDB 10.11 (`mysql --column-type-info`) with the same
table; the expected (type, length, decimals) and text value are what it sent.
Before, Turnstile typed an expression by SQLite's value: `tinyint + 1` and `1+1`
as BIGINT (MariaDB: INT), `sum(a)/count(*)` as DOUBLE with SQLite's digits
(MariaDB: DECIMAL with 4 decimals, so the text differs too), SEC_TO_TIME and
COALESCE of a DATE as VARCHAR, COALESCE of CHAR columns as VARCHAR, `1 + NULL`
as VARCHAR (no value to go by), REPEAT by a column as VARCHAR (MariaDB:
LONGBLOB). Checked over the text protocol (PyMySQL) and the binary one
(COM_STMT_EXECUTE), which encodes each value by its column's type.
"""

import pytest

from helpers import stmtproto
from helpers.clients import query
from helpers.server import ROOT_PASSWORD

DB = "rtypes_db"
TINY, SHORT, LONG, DOUBLE, NULL, LONGLONG = 1, 2, 3, 5, 6, 8
DATE, TIME, DATETIME = 10, 11, 12
NEWDECIMAL, MEDIUM_BLOB, LONG_BLOB, BLOB, VAR_STRING, STRING = 246, 250, 251, 252, 253, 254

# A value these cases do not compare (the metadata is the point; Turnstile's
# text of DATE_ADD('... .5', ...) has six digits where MariaDB's has one).
ANY = object()

# (expression over table t, MariaDB's type, length, decimals, MariaDB's text of the value)
CASES = [
    ("i+1", LONGLONG, 12, 0, "2"),
    ("1+1", LONG, 3, 0, "2"),
    ("ti+ti", LONG, 5, 0, "2"),
    ("mi+mi", LONGLONG, 10, 0, "2"),
    ("ti*ti", LONG, 7, 0, "1"),
    ("-ti", LONG, 5, 0, "-1"),
    ("tu+1", LONG, 4, 0, "2"),
    ("ti%10", LONG, 4, 0, "1"),
    ("abs(ti)", LONG, 4, 0, "1"),
    ("count(i) > 0", LONG, 1, 0, "1"),
    ("b'10'+0", LONG, 4, 0, "2"),
    ("ifnull(tu, su)", SHORT, 5, 0, "1"),
    ("round(tu)", TINY, 3, 0, "1"),
    ("max(ti+1)", LONGLONG, 5, 0, "2"),
    ("i+null", DOUBLE, 17, 0, None),
    ("abs(null)", DOUBLE, 17, 0, None),
    ("1|null", LONGLONG, 21, 0, None),
    ("sum(i)/count(*)", NEWDECIMAL, 38, 4, "1.0000"),
    ("i/3", NEWDECIMAL, 16, 4, "0.3333"),
    ("avg(ti)", NEWDECIMAL, 9, 4, "1.0000"),
    ("coalesce(c, c)", STRING, 40, 39, "a"),
    ("ifnull(c, 'a')", VAR_STRING, 40, 39, "a"),
    ("repeat('a', i)", LONG_BLOB, None, None, "a"),
    ("concat(tx, 'a')", MEDIUM_BLOB, None, None, "ca"),
    ("upper(tx)", BLOB, None, None, "C"),
    ("group_concat(i)", BLOB, None, None, "1"),
    ("sec_to_time(i)", TIME, 10, 0, "00:00:01"),
    ("sec_to_time(sum(time_to_sec(tm)))", TIME, 10, 0, "10:00:00"),
    ("ifnull(tm, tm)", TIME, 10, 0, "10:00:00"),
    ("coalesce(dt, da)", DATETIME, 19, 0, "2020-01-01 00:00:00"),
    ("da + interval 1 day", DATE, 10, 0, "2020-01-02"),
    ("date_add(da, interval 1 hour)", DATETIME, 19, 0, "2020-01-01 01:00:00"),
    ("from_days(700000)", DATE, 10, 0, "1916-07-15"),
    ("timediff(dt, dt)", TIME, 10, 0, "00:00:00"),
    # DATE_ADD of no DATE/DATETIME/TIME: a CHAR of a DATETIME's length (was VARCHAR).
    ("date_add(c, interval 1 day)", STRING, 104, 6, ANY),
    ("date_add(NULL, interval 1 second)", STRING, 76, 0, None),
    ("'2001-01-01' + interval 1 day", STRING, 76, 0, "2001-01-02"),
    # A scalar subquery: its item's type (was VARCHAR, BIGINT or DOUBLE by the value).
    ("(select ti from t)", TINY, 4, 0, "1"),
    ("(select avg(ti) from t)", NEWDECIMAL, 9, 4, "1.0000"),
    ("1.1 * exists(select * from t)", NEWDECIMAL, 5, 1, "1.1"),
    ("json_arrayagg(i)", BLOB, 16777224, None, "[1]"),
    ("json_exists('{\"a\":1}', '$.a')", LONG, 1, 0, "1"),
    ("greatest(i, tm)", TIME, 10, 0, "10:00:00"),
    ("str_to_date('10:00 PM', '%h:%i %p')", TIME, 10, 0, "22:00:00"),
    ("str_to_date('2001-01-01 10:00', '%Y-%m-%d %H:%i')", DATETIME, 19, 0, "2001-01-01 10:00:00"),
    ("str_to_date('2001-01-01', '%Y-%m-%d') + interval 1 hour", DATETIME, 19, 0, "2001-01-01 01:00:00"),
    ("time('1:2:3.45')", TIME, 13, 2, ANY),
    ("timediff('10:10:10.1', '00:00:00')", TIME, 12, 1, ANY),
    ("timestamp('2001-01-01 10:10:10.1')", DATETIME, 21, 1, ANY),
    ("addtime(tm, '1:00:00.25')", TIME, 13, 2, ANY),
    ("(select 1 union select 22 order by 1 limit 1)", LONG, 11, 0, "1"),
    # A temporal in arithmetic is its number (HHMMSS, YYYYMMDD): INT or
    # DECIMAL, not DOUBLE. (Turnstile's value is still SQLite's number of
    # the text, 10 for '10:00:00', where MariaDB's is 100000.)
    ("tm + 0", LONG, 9, 0, ANY),
    ("tm + 0.0", NEWDECIMAL, 11, 1, ANY),
    ("da / 1", NEWDECIMAL, 14, 4, ANY),
    ("avg(tm)", NEWDECIMAL, 13, 4, ANY),
    ("sum(da)", NEWDECIMAL, 31, 0, ANY),
]

# SELECT without a table (answered by the SQL front): the same rules.
NO_TABLE = [
    ("1+1", LONG, "2"),
    ("1+null", DOUBLE, None),
    ("12%null", DOUBLE, None),
    ("sec_to_time(5)", TIME, "00:00:05"),
    ("maketime(1,2,3)", TIME, "01:02:03"),
    ("-(1 div 0)", LONG, None),
    ("coalesce(null, null)", NULL, None),
    ("cast(1 as signed)", LONG, "1"),
]


@pytest.fixture(scope="module")
def conn(sql_server):
    from helpers import clients

    c = clients.root(sql_server)
    query(c, f"CREATE DATABASE {DB}")
    query(c, f"USE {DB}")
    query(
        c,
        "CREATE TABLE t (i INT, ti TINYINT, tu TINYINT UNSIGNED, su SMALLINT UNSIGNED, mi MEDIUMINT, c CHAR(10),"
        " tx TEXT, dt DATETIME, da DATE, tm TIME)",
    )
    query(c, "INSERT INTO t VALUES (1, 1, 1, 1, 1, 'a', 'c', '2020-01-01 00:00:00', '2020-01-01', '10:00:00')")
    yield c
    c.close()


def _text(v):
    return None if v is None else v.decode() if isinstance(v, bytes) else str(v)


def described(c, sql):
    cur = c.cursor()
    cur.execute(sql)
    row = cur.fetchone()
    return cur._result.fields, row


@pytest.mark.parametrize("expr,ty,length,decimals,value", CASES, ids=[c[0] for c in CASES])
def test_expression_types_as_mariadb(conn, expr, ty, length, decimals, value):
    fields, row = described(conn, f"SELECT {expr} FROM t")
    f = fields[0]
    assert f.type_code == ty, expr
    if length is not None:
        assert f.length == length, expr
    if decimals is not None:
        assert f.scale == decimals, expr
    got = row[0]
    if value is ANY:
        return
    if ty in (TIME, DATE, DATETIME) and got is not None:
        # PyMySQL parses temporals; compare MariaDB's text.
        got = str(got) if ty != TIME else "%02d:%02d:%02d" % (got.seconds // 3600, got.seconds // 60 % 60, got.seconds % 60)
    assert _text(got) == value, expr


@pytest.mark.parametrize("expr,ty,value", NO_TABLE, ids=[c[0] for c in NO_TABLE])
def test_select_without_a_table_types_as_mariadb(conn, expr, ty, value):
    fields, row = described(conn, f"SELECT {expr}")
    assert fields[0].type_code == ty, expr
    got = row[0]
    if ty == TIME and got is not None:
        got = "%02d:%02d:%02d" % (got.seconds // 3600, got.seconds // 60 % 60, got.seconds % 60)
    assert _text(got) == value, expr


def test_binary_protocol_encodes_values_by_the_new_types(sql_server, conn):
    b = stmtproto.connect(sql_server.port, "root", ROOT_PASSWORD, db=DB)
    st = b.prepare("SELECT ti+1, min(tu), sum(i)/count(*), sec_to_time(i), da + interval 1 day, coalesce(c, c), i+null FROM t")
    r = b.execute(st)
    assert [c.type for c in r.cols] == [LONG, TINY, NEWDECIMAL, TIME, DATE, STRING, DOUBLE]
    assert r.rows[0][0] == 2 and r.rows[0][1] == 1 and r.rows[0][2] == b"1.0000" and r.rows[0][5] == b"a" and r.rows[0][6] is None
    b.close_connection()


def _types(c, sql):
    cur = c.cursor()
    cur.execute(sql)
    cur.fetchall()
    return {f.name: (f.type_code, f.length) for f in cur._result.fields}


def test_show_and_maintenance_columns_as_mariadb(conn):
    """SHOW INDEX's Seq_in_index is INT (was BIGINT), SHOW TABLE STATUS' times
    DATETIME (were VARCHAR), ANALYZE/CHECK TABLE's Msg_text MEDIUMTEXT (was
    VARCHAR): MariaDB 10.11's types and lengths for the same statements."""
    query(conn, "CREATE TABLE k (a INT PRIMARY KEY)")
    keys = _types(conn, "SHOW KEYS FROM k")
    assert keys["Seq_in_index"] == (LONG, 2) and keys["Non_unique"][0] == LONGLONG
    status = _types(conn, "SHOW TABLE STATUS LIKE 'k'")
    assert [status[n] for n in ("Create_time", "Update_time", "Check_time")] == [(DATETIME, 19)] * 3
    cur = conn.cursor()
    cur.execute("SHOW TABLE STATUS LIKE 'k'")
    created = cur.fetchone()[11]
    assert created is not None and created.year >= 2024  # PyMySQL decoded a DATETIME
    for stmt in ("ANALYZE TABLE k", "CHECK TABLE k", "OPTIMIZE TABLE k", "REPAIR TABLE k"):
        cols = _types(conn, stmt)
        assert cols == {"Table": (VAR_STRING, 512), "Op": (VAR_STRING, 40), "Msg_type": (VAR_STRING, 40), "Msg_text": (MEDIUM_BLOB, 1572864)}, stmt


def test_user_variables_typed_as_mariadb(conn):
    """`SELECT @v`: a string LONGTEXT, an integer BIGINT, a double DOUBLE, an
    unset variable LONGTEXT (MariaDB 10.11; were VARCHAR and NULL)."""
    query(conn, "SET @s = 'abc', @i = 5, @f = 1e0")
    fields, row = described(conn, "SELECT @s, @i, @f, @rtypes_never_set")
    assert [(f.type_code, f.length) for f in fields] == [(LONG_BLOB, 67108860), (LONGLONG, 20), (DOUBLE, 23), (LONG_BLOB, 16777216)]
    assert row == ("abc", 5, 1.0, None)


def test_text_columns_and_string_variables_sized_by_characters_as_mariadb(conn):
    """MariaDB counts a TEXT column as 65,535 characters and a string user
    variable as 16,777,215: LOWER(text) is a BLOB, one character more a
    MEDIUMTEXT; JSON_VALUE(@j, ...) a MEDIUMTEXT, JSON_EXTRACT(@j, ...) a
    LONGTEXT (were VARCHAR, MEDIUMTEXT and VARCHAR: mtr_diff func_json)."""
    assert [f.type_code for f in described(conn, "SELECT LOWER(tx), CONCAT(tx, 'x'), JSON_EXTRACT(tx, '$') FROM t")[0]] == [BLOB, MEDIUM_BLOB, MEDIUM_BLOB]
    query(conn, """SET @rtypes_j = '{"a": [1, 2]}', @rtypes_i = 5""")
    fields, row = described(conn, "SELECT LOWER(@rtypes_j), CONCAT(@rtypes_j, 'x'), @rtypes_i + 1")
    assert [f.type_code for f in fields] == [MEDIUM_BLOB, LONG_BLOB, LONGLONG]
    assert row == ('{"a": [1, 2]}', '{"a": [1, 2]}x', 6)
    # An assignment is its value's type: INT(1), BIGINT(11).
    for sql in ("SELECT @k := 1, @k2 := 12345678901", "SELECT @k := 1, @k2 := 12345678901 FROM t"):
        fields, row = described(conn, sql)
        assert [f.type_code for f in fields] == [LONG, LONGLONG], sql
        assert row == (1, 12345678901), sql


def test_decimal_user_variable_and_bit_arithmetic_typed_as_mariadb(conn):
    """A variable a query set to a DECIMAL is DECIMAL (PyMySQL: Decimal, as
    from MariaDB; was a DOUBLE); BIT(n) + 0 an INT UNSIGNED of n+1 (was BIGINT)."""
    import decimal

    query(conn, "CREATE TABLE dv (d DECIMAL(5,2), b1 BIT(1), b8 BIT(8))")
    query(conn, "INSERT INTO dv VALUES (1.50, b'1', b'101')")
    query(conn, "SET @dv = (SELECT SUM(d) FROM dv)")
    fields, row = described(conn, "SELECT @dv")
    assert (fields[0].type_code, fields[0].scale) == (NEWDECIMAL, 38)
    assert row == (decimal.Decimal("1.50"),)
    fields, row = described(conn, "SELECT b1 + 0, b8 + 0 FROM dv")
    assert [(f.type_code, f.length, bool(f.flags & 32)) for f in fields] == [(LONG, 2, True), (LONG, 9, True)]
    assert row == (1, 5)


# Whole statements reading derived tables, CTEs and scalar subqueries
# (MariaDB 10.11's type codes for each column). A derived table's (or CTE's)
# column is the type of the item that makes it, and an INT(11) column as an
# operand; before, such columns were typed by SQLite's value (BIGINT for
# `WITH w AS (SELECT 1 AS a) SELECT a FROM w`, DOUBLE for an AVG).
DERIVED = [
    ("WITH w AS (SELECT 1 AS a) SELECT a FROM w", [LONG]),
    ("WITH w AS (SELECT 1 AS a) SELECT a + 1 FROM w", [LONGLONG]),
    ("SELECT a FROM (SELECT ti + 1 AS a FROM t) d", [LONG]),
    ("SELECT * FROM (SELECT avg(ti) AS a, sum(i) AS s FROM t) d", [NEWDECIMAL, NEWDECIMAL]),
    ("WITH w (x, y) AS (SELECT c, tm FROM t) SELECT x, y FROM w", [STRING, TIME]),
    ("WITH w AS (SELECT 1 AS a UNION SELECT 22) SELECT a, a + 1 FROM w", [LONG, LONGLONG]),
    ("WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n, n + 1 FROM r", [LONG, LONGLONG]),
    ("SELECT max(a) FROM (SELECT i + 10 AS a FROM t) d", [LONGLONG]),
    ("SELECT (SELECT a FROM (SELECT ti AS a FROM t) d)", [TINY]),
    ("SELECT (SELECT 1 UNION SELECT 22 LIMIT 1)", [LONG]),
    ("SELECT cast(NULL AS SIGNED), cast(1.5 AS SIGNED), cast(11.1234 AS DECIMAL(3,2))", [LONG, LONG, NEWDECIMAL]),
    ("SELECT * FROM (SELECT cast(11.1234 AS DECIMAL(3,2))) d", [NEWDECIMAL]),
    ("SELECT max(timestamp(i)), time(1.5) FROM t", [DATETIME, TIME]),
    # With a `*` in the list: each column by its place.
    ("SELECT * FROM (SELECT 1 AS a) d JOIN (SELECT avg(ti) AS b FROM t) e ON 1", [LONG, NEWDECIMAL]),
    ("SELECT *, i = ALL (SELECT i FROM t) AS m FROM (SELECT ti AS i FROM t) d", [TINY, LONG]),
    # Hex and bit literals through COALESCE/IF stay ones: integers in arithmetic.
    ("SELECT 10 + coalesce(b'00110001'), coalesce(0x31) + 0.0, if(1, 0x31, 0x30), round(coalesce(0x2A), 2)", [LONG, NEWDECIMAL, VAR_STRING, LONG]),
]


@pytest.mark.parametrize("sql,types", DERIVED, ids=[c[0] for c in DERIVED])
def test_derived_tables_ctes_and_subqueries_typed_as_mariadb(conn, sql, types):
    fields, _ = described(conn, sql)
    assert [f.type_code for f in fields] == types, sql


def test_default_of_a_column_is_the_columns_type(conn):
    query(conn, "CREATE TABLE dm (f MEDIUMTEXT NOT NULL DEFAULT 'A')")
    query(conn, "INSERT INTO dm VALUES ('x')")
    fields, row = described(conn, "SELECT DEFAULT(f) AS h FROM dm")
    assert fields[0].type_code == BLOB and _text(row[0]) == "A"


def test_create_table_select_from_a_derived_table_as_mariadb(conn):
    """SHOW CREATE TABLE after CREATE TABLE ... SELECT from a derived table
    or a CTE: the column types MariaDB 10.11 gave the same statements."""
    query(conn, "CREATE TABLE cs1 SELECT * FROM (SELECT 1 a, 1+1 b, 2.5 d, sum(1) e) x")
    text = query(conn, "SHOW CREATE TABLE cs1")[0][1]
    for col in ("`a` int(1)", "`b` int(3)", "`d` decimal(2,1)", "`e` decimal(23,0)"):
        assert col in text, text
    query(conn, "CREATE TABLE cs2 WITH w AS (SELECT 1 a UNION SELECT 22) SELECT a, a+1 b FROM w")
    text = query(conn, "SHOW CREATE TABLE cs2")[0][1]
    assert "`a` int(3)" in text and "`b` bigint(12)" in text, text
