"""sql_mode and the warnings of writes, as MariaDB 10.11 has them (issue #22,
"Modes and warnings"). Every expectation was taken from MariaDB 10.11
running the same statements side by side:

- SET sql_mode: MariaDB's names and bits, combination modes expanded, ERR
  1231/1232 for what is no mode; the default is MariaDB's;
- without STRICT_TRANS_TABLES/STRICT_ALL_TABLES a write stores what fits and
  warns: 1264 clipped, 1265 cut (a Note for blanks), 1366 "Incorrect integer
  value: 'x12' for column `db`.`t`.`i` at row 1", 1048 NULL into NOT NULL,
  1364 a column without a default; "at row N" is the VALUES row, or the row
  of INSERT ... SELECT; strict mode keeps the errors;
- INSERT IGNORE: the same conversions, a duplicate skipped with 1062, a row
  without its parent with 1452; the OK packet counts them;
- division by zero: NULL and 1365, an error in a strict INSERT/UPDATE under
  ERROR_FOR_DIVISION_BY_ZERO, nothing without it;
- NO_BACKSLASH_ESCAPES: a backslash in a string is a character, from the
  statement after the SET on (also in one multi-statement text); LIKE still
  escapes with it.
"""

import datetime
from decimal import Decimal

import pymysql
import pytest
from pymysql.constants import CLIENT

from helpers import clients
from helpers.clients import query, scalar

DEFAULT_MODE = "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"


@pytest.fixture
def db(sql_conn, uniq):
    name = uniq("m")
    query(sql_conn, f"CREATE DATABASE {name}")
    query(sql_conn, f"USE {name}")
    yield name
    query(sql_conn, "SET sql_mode = DEFAULT")
    query(sql_conn, f"DROP DATABASE IF EXISTS {name}")


def warnings(conn):
    return [tuple(r) for r in query(conn, "SHOW WARNINGS")]


def ok(conn, sql):
    """(affected rows, the OK packet's warning count, its info string: a
    length-encoded string, whose length byte PyMySQL keeps)."""
    with conn.cursor() as cur:
        n = cur.execute(sql)
        raw = cur._result.message or b""
        assert not raw or raw[0] == len(raw) - 1, raw
        return n, cur._result.warning_count, raw[1:].decode()


def error(conn, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        query(conn, sql)
    return e.value.args[0], e.value.args[1]


def W(code, message, level="Warning"):
    return (level, code, message)


def truncated(col, row, level="Warning"):
    return W(1265, f"Data truncated for column '{col}' at row {row}", level)


def out_of_range(col, row):
    return W(1264, f"Out of range value for column '{col}' at row {row}")


# ---------------------------------------------------------------- sql_mode itself

def test_sql_mode_values_as_mariadb(sql_conn):
    assert scalar(sql_conn, "SELECT @@sql_mode") == DEFAULT_MODE
    assert scalar(sql_conn, "SELECT @@GLOBAL.sql_mode") == DEFAULT_MODE
    cases = {
        "'strict_all_tables,,Strict_All_Tables'": "STRICT_ALL_TABLES",
        "'STRICT_TRANS_TABLES '": "STRICT_TRANS_TABLES",
        "'ansi'": "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ANSI",
        "'traditional'": "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION",
        "1048576": "NO_BACKSLASH_ESCAPES",
        "256": "PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,POSTGRESQL,NO_KEY_OPTIONS,NO_TABLE_OPTIONS,NO_FIELD_OPTIONS",
        "''": "",
        "DEFAULT": DEFAULT_MODE,
    }
    for value, shown in cases.items():
        query(sql_conn, f"SET sql_mode = {value}")
        assert scalar(sql_conn, "SELECT @@sql_mode") == shown, value
    bad = "Variable 'sql_mode' can't be set to the value of '{}'"
    for value, code, message in [
        ("'FOO'", 1231, bad.format("FOO")),
        ("'ANSI_QUOTES,foo,bar'", 1231, bad.format("foo")),
        ("'STRICT_TRANS_TABLES, NO_BACKSLASH_ESCAPES'", 1231, bad.format(" NO_BACKSLASH_ESCAPES")),
        ("-1", 1231, bad.format("-1")),
        ("34359738368", 1231, bad.format("34359738368")),
        ("NULL", 1231, bad.format("NULL")),
        ("1.5e0", 1232, "Incorrect argument type to variable 'sql_mode'"),
    ]:
        assert error(sql_conn, f"SET sql_mode = {value}") == (code, message), value
    assert scalar(sql_conn, "SELECT @@sql_mode") == DEFAULT_MODE


# ---------------------------------------------------------------- lenient writes

def test_non_strict_insert_clips_cuts_and_warns(sql_conn, db):
    query(sql_conn, "CREATE TABLE t (a TINYINT, c CHAR(5), d DATE, u TINYINT UNSIGNED, v VARCHAR(3), i INT)")
    # The default mode is strict: errors, nothing written.
    assert error(sql_conn, "INSERT INTO t (a) VALUES (300)") == (1264, "Out of range value for column 'a' at row 1")
    assert error(sql_conn, "INSERT INTO t (c) VALUES ('abcdefg')") == (1406, "Data too long for column 'c' at row 1")
    assert error(sql_conn, "INSERT INTO t (i) VALUES ('x12')")[0] == 1366
    assert error(sql_conn, "INSERT INTO t (d) VALUES ('2024-02-30')")[0] == 1292
    query(sql_conn, "SET sql_mode = ''")
    assert ok(sql_conn, "INSERT INTO t VALUES (300, 'abcdefg', '20240115x', -5, 'abcdef', 'x12'), "
                        "(-300, 'ab', '2024-02-30', 256, 'ab ', '12x'), (1.5, 'abcde   ', 'garbage', 3, 'abc   ', '  7  ')") \
        == (3, 13, "Records: 3  Duplicates: 0  Warnings: 13")
    assert warnings(sql_conn) == [
        out_of_range("a", 1), truncated("c", 1), truncated("d", 1), out_of_range("u", 1), truncated("v", 1),
        W(1366, f"Incorrect integer value: 'x12' for column `{db}`.`t`.`i` at row 1"),
        out_of_range("a", 2), truncated("d", 2), out_of_range("u", 2), truncated("i", 2),
        # CHAR's cut blanks are silent, VARCHAR's and a number's trailing blanks a Note
        truncated("d", 3), truncated("v", 3, "Note"), truncated("i", 3, "Note"),
    ]
    assert query(sql_conn, "SELECT a, c, d, u, v, i FROM t ORDER BY i") == (
        (127, "abcde", datetime.date(2024, 1, 15), 0, "abc", 0),
        (2, "abcde", "0000-00-00", 3, "abc", 7),
        (-128, "ab", "0000-00-00", 255, "ab ", 12),
    )
    # INSERT ... SELECT numbers its rows as they are written
    assert ok(sql_conn, "INSERT INTO t (a, i) SELECT a * 10, CONCAT('z', i) FROM t ORDER BY i") == (3, 5, "Records: 3  Duplicates: 0  Warnings: 5")
    assert warnings(sql_conn) == [
        out_of_range("a", 1), W(1366, f"Incorrect integer value: 'z0' for column `{db}`.`t`.`i` at row 1"),
        W(1366, f"Incorrect integer value: 'z7' for column `{db}`.`t`.`i` at row 2"),
        out_of_range("a", 3), W(1366, f"Incorrect integer value: 'z12' for column `{db}`.`t`.`i` at row 3"),
    ]
    assert query(sql_conn, "SELECT a, i FROM t ORDER BY i, a") == ((-128, 0), (20, 0), (127, 0), (127, 0), (2, 7), (-128, 12))


def test_non_strict_other_types(sql_conn, db):
    query(sql_conn, "CREATE TABLE s (m SET('x','y'), y YEAR, b BIT(3), f FLOAT, dc DECIMAL(5,2), tm TIME, ts TIMESTAMP NULL)")
    query(sql_conn, "SET sql_mode = ''")
    assert ok(sql_conn, "INSERT INTO s VALUES ('x,Y,z', 99, 9, 1e39, 12345.678, '839:00:00', '1969-01-01 00:00:00'), "
                        "('', '0', -1, 'abc', 'xyz', '12:30:aa', 'garbage')")[1] == 11
    assert warnings(sql_conn) == [
        truncated("m", 1), out_of_range("b", 1), out_of_range("f", 1), out_of_range("dc", 1), out_of_range("tm", 1), out_of_range("ts", 1),
        out_of_range("b", 2), W(1366, f"Incorrect double value: 'abc' for column `{db}`.`s`.`f` at row 2"),
        W(1366, f"Incorrect decimal value: 'xyz' for column `{db}`.`s`.`dc` at row 2"), truncated("tm", 2), truncated("ts", 2),
    ]
    rows = query(sql_conn, "SELECT m, y, b+0, f > 3.4e38, dc, tm, ts FROM s")
    assert rows == (
        ("x,y", 1999, 7, 1, Decimal("999.99"), datetime.timedelta(hours=838, minutes=59, seconds=59), "0000-00-00 00:00:00"),
        ("", 2000, 7, 0, Decimal("0.00"), datetime.timedelta(hours=12, minutes=30), "0000-00-00 00:00:00"),
    )


def test_warning_count_past_the_64_kept(sql_conn, db):
    query(sql_conn, "CREATE TABLE big (i INT)")
    query(sql_conn, "SET sql_mode = ''")
    values = ", ".join(f"('a{k}')" for k in range(1, 71))
    assert ok(sql_conn, f"INSERT INTO big (i) VALUES {values}") == (70, 70, "Records: 70  Duplicates: 0  Warnings: 70")
    shown = warnings(sql_conn)
    assert len(shown) == 64
    assert shown[63] == W(1366, f"Incorrect integer value: 'a64' for column `{db}`.`big`.`i` at row 64")
    assert scalar(sql_conn, "SELECT @@warning_count") == 70
    assert query(sql_conn, "SHOW COUNT(*) WARNINGS") == ((70,),)


def test_not_null_and_missing_defaults(sql_conn, db):
    query(sql_conn, "CREATE TABLE n (id INT PRIMARY KEY, a INT NOT NULL, c CHAR(3) NOT NULL, d DATE NOT NULL, u INT UNIQUE, e ENUM('p', 'q') NOT NULL)")
    # strict: 1364 for a column left without a default (was 1048)
    assert error(sql_conn, "INSERT INTO n (id) VALUES (4)") == (1364, "Field 'a' doesn't have a default value")
    query(sql_conn, "SET sql_mode = ''")
    # a single-row INSERT of NULL stays an error; a multi-row one stores zeros with 1048
    assert error(sql_conn, "INSERT INTO n (id, a, c, d) VALUES (1, NULL, 'a', '2020-01-01')") == (1048, "Column 'a' cannot be null")
    assert ok(sql_conn, "INSERT INTO n (id, a, c, d, u) VALUES (1, NULL, NULL, NULL, 1), (2, 5, NULL, NULL, 2)")[1] == 5
    assert warnings(sql_conn) == [W(1048, f"Column '{c}' cannot be null") for c in ("a", "c", "d", "c", "d")]
    # columns left out: their zero, one 1364 per column; an ENUM its first member, silently
    assert ok(sql_conn, "INSERT INTO n (id) VALUES (3), (5)")[1] == 3
    assert warnings(sql_conn) == [W(1364, f"Field '{c}' doesn't have a default value") for c in ("a", "c", "d")]
    assert query(sql_conn, "SELECT id, a, c, d, u, e FROM n ORDER BY id") == (
        (1, 0, "", "0000-00-00", 1, "p"), (2, 5, "", "0000-00-00", 2, "p"), (3, 0, "", "0000-00-00", None, "p"), (5, 0, "", "0000-00-00", None, "p"))
    # UPDATE: NULL into NOT NULL and values cut, once per matched row
    assert ok(sql_conn, "UPDATE n SET a = NULL, c = 'abcdef' WHERE id >= 2 AND id <= 3") == (2, 4, "Rows matched: 2  Changed: 2  Warnings: 4")
    assert warnings(sql_conn) == [W(1048, "Column 'a' cannot be null"), truncated("c", 1), W(1048, "Column 'a' cannot be null"), truncated("c", 2)]
    # a value clipped to what is stored: warned for every matched row, changed or not
    assert ok(sql_conn, "UPDATE n SET a = 300000000000 WHERE id = 1")[1] == 1
    assert ok(sql_conn, "UPDATE n SET a = 300000000000 WHERE id = 1") == (0, 1, "Rows matched: 1  Changed: 0  Warnings: 1")
    assert warnings(sql_conn) == [out_of_range("a", 1)]


def test_insert_ignore(sql_conn, db):
    query(sql_conn, "CREATE TABLE n (id INT PRIMARY KEY, a INT NOT NULL, c CHAR(3) NOT NULL, u INT UNIQUE)")
    query(sql_conn, "INSERT INTO n VALUES (1, 1, 'a', 1), (2, 2, 'b', 2)")
    assert error(sql_conn, "INSERT INTO n VALUES (1, 1, 'x', 10)")[0] == 1062
    # strict mode, IGNORE: duplicates skipped with 1062 naming the key, values fitted, NULL and missing columns
    assert ok(sql_conn, "INSERT IGNORE INTO n (id, a, c, u) VALUES (1, 1, 'x', 10), (6, 1, 'x', 2), (7, 1, 'x', 7), (7, 1, 'x', 8), "
                        "(8, NULL, 'toolong', 9), (9, 'x1', 'y', 90)") == (3, 6, "Records: 6  Duplicates: 3  Warnings: 6")
    assert warnings(sql_conn) == [
        W(1062, "Duplicate entry '1' for key 'PRIMARY'"), W(1062, "Duplicate entry '2' for key 'u'"), W(1062, "Duplicate entry '7' for key 'PRIMARY'"),
        W(1048, "Column 'a' cannot be null"), truncated("c", 5), W(1366, f"Incorrect integer value: 'x1' for column `{db}`.`n`.`a` at row 6"),
    ]
    assert query(sql_conn, "SELECT id, a, c, u FROM n ORDER BY id") == ((1, 1, "a", 1), (2, 2, "b", 2), (7, 1, "x", 7), (8, 0, "too", 9), (9, 0, "y", 90))
    assert ok(sql_conn, "INSERT IGNORE INTO n (id) VALUES (20)") == (1, 2, "")
    assert warnings(sql_conn) == [W(1364, "Field 'a' doesn't have a default value"), W(1364, "Field 'c' doesn't have a default value")]
    # INSERT IGNORE ... SELECT; a composite key names its values joined by '-'
    assert ok(sql_conn, "INSERT IGNORE INTO n (id, a, c) SELECT id, a, c FROM n WHERE id < 3 ORDER BY id") == (0, 2, "Records: 2  Duplicates: 2  Warnings: 2")
    assert warnings(sql_conn) == [W(1062, "Duplicate entry '1' for key 'PRIMARY'"), W(1062, "Duplicate entry '2' for key 'PRIMARY'")]
    query(sql_conn, "CREATE TABLE k (a INT, b VARCHAR(10), UNIQUE KEY ab (a, b))")
    query(sql_conn, "INSERT INTO k VALUES (1, 'x'), (1, 'y')")
    assert ok(sql_conn, "INSERT IGNORE INTO k VALUES (1, 'X'), (2, 'x'), (1, 'y')") == (1, 2, "Records: 3  Duplicates: 2  Warnings: 2")
    assert warnings(sql_conn) == [W(1062, "Duplicate entry '1-X' for key 'ab'"), W(1062, "Duplicate entry '1-y' for key 'ab'")]
    # UPDATE IGNORE skips a duplicate silently, as MariaDB
    assert ok(sql_conn, "UPDATE IGNORE n SET u = 7 WHERE id IN (1, 2)") == (0, 0, "Rows matched: 2  Changed: 0  Warnings: 0")


def test_insert_ignore_skips_rows_without_parent(sql_conn, db):
    query(sql_conn, "CREATE TABLE p (id INT PRIMARY KEY)")
    query(sql_conn, "CREATE TABLE c (id INT PRIMARY KEY, pid INT, CONSTRAINT fk_p FOREIGN KEY (pid) REFERENCES p (id))")
    query(sql_conn, "INSERT INTO p VALUES (1), (2)")
    assert error(sql_conn, "INSERT INTO c VALUES (2, 9)")[0] == 1452
    fails = f"Cannot add or update a child row: a foreign key constraint fails (`{db}`.`c`, CONSTRAINT `fk_p` FOREIGN KEY (`pid`) REFERENCES `p` (`id`))"
    assert ok(sql_conn, "INSERT IGNORE INTO c VALUES (2, 9), (3, 2), (4, NULL), (5, 8)") == (2, 2, "Records: 4  Duplicates: 2  Warnings: 2")
    assert warnings(sql_conn) == [W(1452, fails), W(1452, fails)]
    assert ok(sql_conn, "INSERT IGNORE INTO c SELECT id + 10, id + 5 FROM c") == (0, 2, "Records: 2  Duplicates: 2  Warnings: 2")
    assert query(sql_conn, "SELECT id, pid FROM c ORDER BY id") == ((3, 2), (4, None))
    query(sql_conn, "SET foreign_key_checks = 0")
    assert ok(sql_conn, "INSERT IGNORE INTO c VALUES (20, 99)")[:2] == (1, 0)
    query(sql_conn, "SET foreign_key_checks = 1")


# ---------------------------------------------------------------- division by zero

def test_division_by_zero(sql_conn, db):
    query(sql_conn, "CREATE TABLE t (id INT, x INT, y DOUBLE)")
    query(sql_conn, "INSERT INTO t VALUES (1, 0, 0), (2, 1, 2), (3, 0, 1)")
    div0 = W(1365, "Division by 0")
    assert query(sql_conn, "SELECT id, 10/x IS NULL, 5 DIV x IS NULL, MOD(id, x) IS NULL, id % x IS NULL FROM t ORDER BY id") == (
        (1, 1, 1, 1, 1), (2, 0, 0, 0, 0), (3, 1, 1, 1, 1))
    assert warnings(sql_conn) == [div0] * 8
    assert query(sql_conn, "SELECT 1/0, 5 DIV 0, 5 % 0, MOD(5, 0)") == ((None, None, None, None),)
    assert warnings(sql_conn) == [div0] * 4
    # the front's evaluator: SET and DO
    assert ok(sql_conn, "SET @q = 7 DIV 0")[1] == 1
    assert scalar(sql_conn, "SELECT @q") is None
    assert ok(sql_conn, "DO 1 % 0")[1] == 1
    # a strict write: the statement's error (SQLSTATE 22012); a DELETE warns
    for sql in ["INSERT INTO t VALUES (4, 1/0, 1)", "INSERT INTO t SELECT 5, 1/x, 1 FROM t", "UPDATE t SET y = 1/x", "INSERT INTO t VALUES (9, (SELECT 1/0), 1)"]:
        assert error(sql_conn, sql) == (1365, "Division by 0"), sql
    with pytest.raises(pymysql.MySQLError) as e:
        query(sql_conn, "UPDATE t SET y = 3 WHERE 1/x = 1")
    assert e.value.args[0] == 1365
    assert ok(sql_conn, "DELETE FROM t WHERE 1/x IS NULL AND id = 99") == (0, 2, "")
    assert ok(sql_conn, "INSERT IGNORE INTO t VALUES (6, 1/0, 1)") == (1, 1, "")
    # once per matched row in an UPDATE IGNORE
    assert ok(sql_conn, "UPDATE IGNORE t SET y = 1/x")[1] == 2
    # without ERROR_FOR_DIVISION_BY_ZERO: nothing; without strict mode: a warning
    query(sql_conn, "SET sql_mode = 'STRICT_TRANS_TABLES'")
    assert ok(sql_conn, "INSERT INTO t VALUES (7, 1/0, 1)") == (1, 0, "")
    assert query(sql_conn, "SELECT 1/0") == ((None,),)
    assert scalar(sql_conn, "SELECT @@warning_count") == 0
    query(sql_conn, "SET sql_mode = 'ERROR_FOR_DIVISION_BY_ZERO'")
    assert ok(sql_conn, "INSERT INTO t VALUES (8, 1/0, 1)") == (1, 1, "")
    assert warnings(sql_conn) == [div0]


def test_division_by_zero_sqlstate(sql_server, db):
    conn = clients.root(sql_server, database=db)
    query(conn, "CREATE TABLE z (x INT)")
    with pytest.raises(pymysql.MySQLError):
        query(conn, "INSERT INTO z VALUES (1/0)")
    # PyMySQL keeps no SQLSTATE: the mysql CLI shows it
    cli = clients.mysql_cli()
    if cli is None:
        pytest.skip("no mysql client")
    r = clients.run_cli(sql_server, "INSERT INTO z VALUES (1 DIV 0)", database=db)
    assert "ERROR 1365 (22012)" in r.stderr, r.stderr
    conn.close()


# ---------------------------------------------------------------- NO_BACKSLASH_ESCAPES

def test_no_backslash_escapes(sql_server, db):
    conn = clients.root(sql_server, database=db, client_flag=CLIENT.MULTI_STATEMENTS)
    other = clients.root(sql_server, database=db)
    query(conn, "CREATE TABLE s (id INT, v VARCHAR(20))")
    query(conn, "SET sql_mode = 'NO_BACKSLASH_ESCAPES'")
    with conn.cursor() as cur:
        cur.execute("SELECT 'a\\nb', LENGTH('a\\nb'), 'a\\_b' LIKE 'a\\_b', 'a_b' LIKE 'a\\_b'")
        assert [d[0] for d in cur.description] == ["a\\nb", "LENGTH('a\\nb')", "'a\\_b' LIKE 'a\\_b'", "'a_b' LIKE 'a\\_b'"]
        assert cur.fetchall() == (("a\\nb", 4, 0, 1),)
    # the same text through the engine, for a session with and without the mode
    for i in range(3):
        assert query(conn, "SELECT LENGTH('a\\nb'), COUNT(*) FROM s") == ((4, 0),)
        assert query(other, "SELECT LENGTH('a\\nb'), COUNT(*) FROM s") == ((3, 0),)
    query(conn, "INSERT INTO s VALUES (1, 'c:\\dir\\n')")
    query(other, "INSERT INTO s VALUES (2, 'c:\\\\dir\\\\n')")
    assert query(other, "SELECT id, v FROM s ORDER BY id") == ((1, "c:\\dir\\n"), (2, "c:\\dir\\n"))
    # a multi-statement text is read statement by statement: after the SET, by its mode
    query(conn, "SET sql_mode = DEFAULT")
    with conn.cursor() as cur:
        cur.execute("SET sql_mode = 'NO_BACKSLASH_ESCAPES'; SELECT 'a\\'; SELECT 2")
        results = []
        while True:
            results.append(tuple(cur.fetchall()))
            if not cur.nextset():
                break
    assert results == [(), (("a\\",),), ((2,),)]
    conn.close()
    other.close()


def test_no_auto_value_on_zero(sql_conn, db):
    """NO_AUTO_VALUE_ON_ZERO (which mariadb-dump sets before its INSERTs): 0
    into an AUTO_INCREMENT column stores 0 and only NULL takes the next
    value; without it 0 takes the next value too. The same statement text
    compiled under both modes on one pooled connection keeps each meaning.
    Rows as MariaDB 10.11 stores them."""
    query(sql_conn, "CREATE TABLE ai0 (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    query(sql_conn, "SET sql_mode = 'NO_AUTO_VALUE_ON_ZERO'")
    query(sql_conn, "INSERT INTO ai0 VALUES (0, 1)")
    query(sql_conn, "INSERT INTO ai0 VALUES (NULL, 2)")
    query(sql_conn, "INSERT INTO ai0 (v) VALUES (3)")
    query(sql_conn, "SET sql_mode = DEFAULT")
    query(sql_conn, "INSERT INTO ai0 VALUES (0, 4)")
    assert query(sql_conn, "SELECT id, v FROM ai0 ORDER BY id") == ((0, 1), (1, 2), (2, 3), (3, 4))
    query(sql_conn, "SET sql_mode = 'NO_AUTO_VALUE_ON_ZERO'")
    with pytest.raises(pymysql.MySQLError) as ei:
        query(sql_conn, "INSERT INTO ai0 VALUES (0, 4)")
    assert ei.value.args[0] == 1062


def test_set_global_default_is_the_compiled_default(server_factory):
    # MariaDB's test files end with `SET GLOBAL sql_mode = DEFAULT` (view.test);
    # it was 1235 here, which left the global mode as the file had set it.
    srv = server_factory("--max-connections", "300")
    conn = clients.root(srv)
    try:
        query(conn, "SET GLOBAL sql_mode = ''")
        query(conn, "SET GLOBAL wait_timeout = 100")
        assert scalar(conn, "SELECT @@GLOBAL.sql_mode") == ""
        query(conn, "SET GLOBAL sql_mode = DEFAULT, GLOBAL wait_timeout = DEFAULT, GLOBAL max_connections = DEFAULT")
        assert scalar(conn, "SELECT @@GLOBAL.sql_mode") == DEFAULT_MODE
        assert scalar(conn, "SELECT @@GLOBAL.wait_timeout") == 28800
        # The compiled-in default, not the start-up setting (as MariaDB).
        assert scalar(conn, "SELECT @@GLOBAL.max_connections") == 151
    finally:
        conn.close()
