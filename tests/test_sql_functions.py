"""MySQL's function library and expression syntax on the sqlite engine,
through PyMySQL: the values MySQL documents for each function, with and
without a table (the SQL front hands table-less expressions it does not
evaluate itself to the engine), GROUP_CONCAT's ORDER BY/SEPARATOR/DISTINCT,
`date ± INTERVAL n unit`, TRIM ... FROM, POSITION ... IN, SQL_CALC_FOUND_ROWS
with FOUND_ROWS(), the aggregates, and the column names of expressions."""

import datetime
import decimal

import pymysql
import pytest

from helpers.clients import query, scalar


@pytest.fixture
def fdb(sql_conn, uniq):
    name = uniq("f")
    query(sql_conn, f"CREATE DATABASE {name}")
    query(sql_conn, f"USE {name}")
    query(sql_conn, "CREATE TABLE one (x INT)")
    query(sql_conn, "INSERT INTO one VALUES (1)")
    yield sql_conn
    query(sql_conn, f"DROP DATABASE IF EXISTS {name}")


# expression → what MySQL 8.0 returns (as PyMySQL decodes it)
CASES = [
    ("DATE_ADD('2024-01-31', INTERVAL 1 MONTH)", "2024-02-29"),
    ("STR_TO_DATE('2024-05-06','%Y-%m-%d')", "2024-05-06"),
    ("STR_TO_DATE('06/05/2024 14:03','%d/%m/%Y %H:%i')", "2024-05-06 14:03:00"),
    ("STR_TO_DATE('3:04 PM','%l:%i %p')", "15:04:00"),
    ("STR_TO_DATE('2024-02-30','%Y-%m-%d')", None),
    ("JSON_UNQUOTE('\"a\\\\nb\"')", "a\nb"),
    ("JSON_UNQUOTE(JSON_EXTRACT('{\"a\": \"s\"}', '$.a'))", "s"),
    ("JSON_LENGTH('[1, 2, 3]')", 3),
    ("JSON_LENGTH('{\"a\": {\"b\": 1, \"c\": 2}}', '$.a')", 2),
    ("JSON_KEYS('{\"a\": 1, \"b\": 2}')", '["a", "b"]'),
    ("JSON_CONTAINS('[1, 2, {\"k\": 3}]', '{\"k\": 3}')", 1),
    ("JSON_CONTAINS('{\"a\": [1, 2]}', '3', '$.a')", 0),
    ("JSON_CONTAINS_PATH('{\"a\": 1}', 'one', '$.a', '$.b')", 1),
    ("JSON_CONTAINS_PATH('{\"a\": 1}', 'all', '$.a', '$.b')", 0),
    ("JSON_TYPE('[1]')", "ARRAY"),
    ("JSON_DEPTH('[1, [2]]')", 3),
    ("JSON_MERGE_PATCH('{\"a\": 1, \"b\": 2}', '{\"b\": null, \"c\": 3}')", '{"a": 1, "c": 3}'),
    ("MD5('a')", "0cc175b9c0f1b6a831c399e269772661"),
    ("CRC32('MySQL')", 3259397556),
    ("SUBSTRING_INDEX('www.mysql.com', '.', 2)", "www.mysql"),
    ("SUBSTRING_INDEX('www.mysql.com', '.', -2)", "mysql.com"),
    ("TRIM(LEADING 'x' FROM 'xxbarxx')", "barxx"),
    ("TRIM(TRAILING 'xyz' FROM 'barxxyz')", "barx"),
    ("TRIM(BOTH 'x' FROM 'xxbarxx')", "bar"),
    ("TRIM('x' FROM 'xbarx')", "bar"),
    ("POSITION('bar' IN 'foobarbar')", 4),
    ("INSERT('Quadratic', 3, 4, 'What')", "QuWhattic"),
    ("ASCII('2')", 50),
    ("ORD('2')", 50),
    ("BIN(12)", "1100"),
    ("OCT(12)", "14"),
    ("CONV('a', 16, 2)", "1010"),
    ("CONV(-17, 10, -18)", "-H"),
    ("STRCMP('text', 'TEXT')", 0),
    ("STRCMP('a', 'b')", -1),
    ("BIT_LENGTH('text')", 32),
    ("BIT_COUNT(29)", 4),
    ("TO_BASE64('abc')", "YWJj"),
    ("FROM_BASE64('YWJj')", b"abc"),
    ("FORMAT(12332.123456, 4)", "12,332.1235"),
    ("FORMAT(-1234.5, 0)", "-1,235"),
    ("ATAN2(1, 1) * 4", pytest.approx(3.141592653589793)),
    ("COT(1)", pytest.approx(0.6420926159343306)),
    ("WEEK('2008-02-20')", 7),
    ("WEEK('2008-02-20', 1)", 8),
    ("WEEK('2008-12-31', 1)", 53),
    ("WEEK('2024-01-01')", 0),
    ("WEEKOFYEAR('2008-02-20')", 8),
    ("YEARWEEK('1987-01-01')", 198652),
    ("FROM_DAYS(730669)", datetime.date(2000, 7, 3)),  # DATE, as MariaDB types it
    ("MAKEDATE(2011, 32)", datetime.date(2011, 2, 1)),
    ("MAKETIME(12, 15, 30)", datetime.timedelta(hours=12, minutes=15, seconds=30)),  # TIME
    ("PERIOD_DIFF(200802, 200703)", 11),
    ("PERIOD_ADD(200801, 2)", 200803),
    ("ADDTIME('2007-12-31 23:59:59', '1 1:1:1')", "2008-01-02 01:01:00"),
    ("SUBTIME('01:00:00', '02:00:00')", "-01:00:00"),
    ("TIMEDIFF('2008-12-31 23:59:59', '2008-12-30 01:01:01')", "46:58:58"),
    # A DATETIME column, as MariaDB types TIMESTAMP(): PyMySQL gives a datetime.
    ("TIMESTAMP('2003-12-31 12:00:00', '12:00:00')", datetime.datetime(2004, 1, 1)),
    ("TIME_FORMAT('100:00:00', '%H %k %h %I %l')", "100 100 04 04 4"),
    ("SEC_TO_TIME(2378)", datetime.timedelta(minutes=39, seconds=38)),
    ("TIME_TO_SEC('22:23:00')", 80580),
    ("CONVERT_TZ('2004-01-01 12:00:00', '+00:00', '+10:00')", "2004-01-01 22:00:00"),
    ("CONVERT_TZ('2004-01-01 12:00:00', 'Europe/Nowhere', '+10:00')", None),
    ("INET_ATON('10.0.5.9')", 167773449),
    ("INET_NTOA(167773449)", "10.0.5.9"),
    ("IS_IPV4('10.0.5.256')", 0),
    ("IS_IPV6('::1')", 1),
    ("IS_UUID('6ccd780c-baba-1026-9564-5b8c656024db')", 1),
    ("REGEXP_LIKE('CamelCase', 'CAMEL')", 1),
    ("REGEXP_LIKE('CamelCase', 'CAMEL', 'c')", 0),
    ("REGEXP_REPLACE('a b c', 'b', 'X')", "a X c"),
    ("REGEXP_SUBSTR('abc def ghi', '[a-z]+ [a-z]+')", "abc def"),
    ("REGEXP_INSTR('dog cat dog', 'cat')", 5),
    ("ANY_VALUE(7)", 7),
    ("5 & 3", 1),
    ("5 | 3", 7),
    ("1 << 4", 16),
    ("CHARSET('abc')", "utf8mb4"),
]


@pytest.mark.parametrize("expr,want", CASES, ids=[c[0][:40] for c in CASES])
def test_function_values_with_and_without_a_table(fdb, expr, want):
    for sql in (f"SELECT {expr}", f"SELECT {expr} FROM one"):
        got = scalar(fdb, sql)
        if isinstance(got, decimal.Decimal):
            got = int(got) if got == int(got) else float(got)
        # STR_TO_DATE, TIMEDIFF, CONVERT_TZ are DATE/TIME/DATETIME columns (as
        # MariaDB's), which PyMySQL decodes: compared as MySQL's text.
        if isinstance(got, datetime.timedelta) and isinstance(want, str):
            secs = int(got.total_seconds())
            got = "%s%02d:%02d:%02d" % ("-" if secs < 0 else "", abs(secs) // 3600, abs(secs) // 60 % 60, abs(secs) % 60)
        elif isinstance(got, (datetime.date, datetime.datetime)) and isinstance(want, str):
            got = str(got)
        assert got == want, sql


def test_operators_mysql_computes_differently_are_refused(fdb):
    # MySQL's bitwise results are unsigned 64-bit: refused with a clear 1235, not a different number.
    for expr in ("~1", "5 ^ 3"):
        for sql in (f"SELECT {expr}", f"SELECT {expr} FROM one"):
            with pytest.raises(pymysql.MySQLError) as ei:
                query(fdb, sql)
            assert ei.value.args[0] == 1235, sql


@pytest.fixture
def people(fdb):
    c = fdb
    query(c, "CREATE TABLE p (id INT PRIMARY KEY, name VARCHAR(20), team VARCHAR(10), score INT, joined DATETIME)")
    query(c, "INSERT INTO p VALUES (1, 'ann', 'red', 10, '2024-01-10 08:00:00'), (2, 'Bob', 'red', 20, '2024-01-20 09:00:00'), "
             "(3, 'cid', 'blue', 30, '2024-02-01 10:00:00'), (4, 'ANN', 'blue', 40, '2024-02-15 11:00:00'), (5, 'eve', NULL, NULL, '2024-03-01 12:00:00')")
    return c


def test_group_concat_order_separator_distinct(people):
    c = people
    assert scalar(c, "SELECT GROUP_CONCAT(name ORDER BY id DESC SEPARATOR ';') FROM p") == "eve;ANN;cid;Bob;ann"
    assert query(c, "SELECT team, GROUP_CONCAT(name ORDER BY name SEPARATOR '/') FROM p WHERE team IS NOT NULL GROUP BY team ORDER BY team") == (
        ("blue", "ANN/cid"), ("red", "ann/Bob"))
    # several expressions are concatenated per row; a row with a NULL among them is skipped
    assert scalar(c, "SELECT GROUP_CONCAT(name, ':', team ORDER BY id) FROM p") == "ann:red,Bob:red,cid:blue,ANN:blue"
    # DISTINCT compares with the column's case-insensitive collation
    assert scalar(c, "SELECT GROUP_CONCAT(DISTINCT name ORDER BY name SEPARATOR '|') FROM p WHERE id IN (1, 4, 2)") in ("ann|Bob", "ANN|Bob")
    assert scalar(c, "SELECT GROUP_CONCAT(DISTINCT team) FROM p") in ("red,blue", "blue,red")


def test_interval_arithmetic(people):
    c = people
    assert scalar(c, "SELECT COUNT(*) FROM p WHERE joined > '2024-02-10' - INTERVAL 10 DAY") == 3
    assert str(scalar(c, "SELECT joined + INTERVAL 1 MONTH FROM p WHERE id = 1")) == "2024-02-10 08:00:00"
    assert scalar(c, "SELECT '2024-01-01 10:00:00' + INTERVAL 90 MINUTE - INTERVAL 1 DAY") == "2023-12-31 11:30:00"
    assert scalar(c, "SELECT DATE('2024-03-01') - INTERVAL 1 DAY FROM one") == datetime.date(2024, 2, 29)
    assert scalar(c, "SELECT COUNT(*) FROM p WHERE joined < NOW() - INTERVAL (1 + 9) YEAR") == 0


def test_aggregates(people):
    c = people
    row = query(c, "SELECT STD(score), STDDEV_SAMP(score), VARIANCE(score), VAR_SAMP(score), BIT_OR(id), BIT_AND(id), BIT_XOR(id) FROM p")[0]
    assert [float(v) for v in row[:4]] == pytest.approx([11.180339887, 12.909944487, 125.0, 166.666666667])
    assert [int(v) for v in row[4:]] == [7, 0, 1]
    assert scalar(c, "SELECT JSON_ARRAYAGG(id) FROM p WHERE id < 3") == "[1,2]"
    assert scalar(c, "SELECT JSON_OBJECTAGG(name, score) FROM p WHERE id = 3") == '{"cid":30}'
    assert query(c, "SELECT team, ANY_VALUE(name) IS NOT NULL FROM p WHERE team = 'red' GROUP BY team") == (("red", 1),)


def test_sql_calc_found_rows(people):
    c = people
    assert query(c, "SELECT SQL_CALC_FOUND_ROWS id FROM p WHERE score > 10 ORDER BY id LIMIT 1") == ((2,),)
    assert scalar(c, "SELECT FOUND_ROWS()") == 3
    assert len(query(c, "SELECT id FROM p LIMIT 2")) == 2
    assert scalar(c, "SELECT FOUND_ROWS() FROM one") == 2
    with c.cursor() as cur:  # parameters before and inside the LIMIT
        cur.execute("SELECT SQL_CALC_FOUND_ROWS name FROM p WHERE id > %s ORDER BY id LIMIT %s, %s", (1, 1, 2))
        assert cur.fetchall() == (("cid",), ("ANN",))
    assert scalar(c, "SELECT FOUND_ROWS()") == 4


def test_expression_column_names_keep_their_literals(people):
    with people.cursor() as cur:
        cur.execute("SELECT IF(score > 15, 'hi', 'lo'), id = 2, name FROM p WHERE id = 2")
        assert [d[0] for d in cur.description] == ["IF(score > 15, 'hi', 'lo')", "id = 2", "name"]
        assert cur.fetchall() == (("hi", 1, "Bob"),)
