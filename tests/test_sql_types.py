"""Types as MariaDB 10.11 sends them (issue #22, Types), over both protocols.

Each expectation is what MariaDB 10.11 answered for the same statement
(checked against a running 10.11 with the same byte-level client,
helpers/stmtproto.py: COM_QUERY text rows and COM_STMT_EXECUTE binary rows,
with the whole column definition):

* zero dates: `0000-00-00` is length 0 in the binary protocol (a client read
  4 zero bytes as year 0, month 0: `-0001-11-30`), and MySQL's lengths
  drop the parts that are zero (a DATETIME at midnight is 4 bytes);
* CAST to TIME/DATE/DATETIME converts (the time of day of a datetime, a
  number as HHMMSS, the target's fractional digits), typed by the target;
* TIME(), DATE(), TIMESTAMP() are typed TIME/DATE/DATETIME, not strings;
* PyMySQL and mysql-connector (prepared cursor) read the values back.
"""

from __future__ import annotations

import datetime

import mysql.connector
import pymysql
import pytest

from helpers import clients, stmtproto
from helpers.server import ROOT_PASSWORD

T_DATE, T_TIME, T_DATETIME, T_TIMESTAMP = 10, 11, 12, 7


@pytest.fixture
def db(sql_server, sql_conn, uniq):
    name = uniq("typ")
    clients.query(sql_conn, f"CREATE DATABASE {name}")
    yield name
    clients.query(sql_conn, f"DROP DATABASE IF EXISTS {name}")


def _byte_client(server, db):
    return stmtproto.connect(server.port, "root", ROOT_PASSWORD, db=db)


def _both(c, sql):
    """(text rows, binary rows, columns) of one SELECT."""
    text = c.query(sql)
    st = c.prepare(sql)
    binary = c.execute(st, [])
    c.close(st)
    assert [(x.type, x.length, x.decimals) for x in text.cols] == [(x.type, x.length, x.decimals) for x in binary.cols]
    return text.rows, binary.rows, text.cols


def _zero_dates_table(c):
    c.query("SET sql_mode=''")
    c.query("CREATE TABLE z (id INT PRIMARY KEY, d DATE, dt DATETIME, ts TIMESTAMP NULL, t TIME)")
    c.query(
        "INSERT INTO z VALUES (1,'0000-00-00','0000-00-00 00:00:00','0000-00-00 00:00:00','00:00:00'),"
        " (2,'2024-01-02','2024-01-02 00:00:00',NULL,'-01:02:03'), (3,'2024-01-02','2024-01-02 03:04:05',NULL,'00:00:01')"
    )


def test_zero_dates_in_the_binary_protocol_are_length_0(sql_server, db):
    c = _byte_client(sql_server, db)
    _zero_dates_table(c)
    text, binary, cols = _both(c, "SELECT d, dt, ts, t FROM z ORDER BY id")
    assert [x.type for x in cols] == [T_DATE, T_DATETIME, T_TIMESTAMP, T_TIME]
    assert text[0] == (b"0000-00-00", b"0000-00-00 00:00:00", b"0000-00-00 00:00:00", b"00:00:00")
    # MariaDB 10.11: b'' for each zero value (was 4, 7, 7 and 8 zero bytes).
    assert binary[0] == (b"", b"", b"", b"")
    # Midnight is a 4-byte DATETIME; a time of day 7 bytes, a TIME 8.
    assert binary[1] == (b"\xe8\x07\x01\x02", b"\xe8\x07\x01\x02", None, b"\x01\x00\x00\x00\x00\x01\x02\x03")
    assert binary[2] == (b"\xe8\x07\x01\x02", b"\xe8\x07\x01\x02\x03\x04\x05", None, b"\x00" * 7 + b"\x01")
    c.close_connection()


def test_zero_dates_through_mysql_connector_prepared(sql_server, db):
    c = _byte_client(sql_server, db)
    _zero_dates_table(c)
    c.close_connection()
    conn = mysql.connector.connect(host="127.0.0.1", port=sql_server.port, user="root", password=ROOT_PASSWORD, database=db, use_pure=True)
    try:
        cur = conn.cursor(prepared=True)
        # Before: ValueError "year 0 is out of range" inside the connector.
        cur.execute("SELECT d, dt, t FROM z WHERE id = ?", (1,))
        assert cur.fetchall() == [(None, None, datetime.timedelta(0))]
        cur.execute("SELECT dt FROM z WHERE id = ?", (2,))
        assert cur.fetchall() == [(datetime.datetime(2024, 1, 2),)]
    finally:
        conn.close()


def test_cast_to_temporal_types_converts(sql_server, db):
    c = _byte_client(sql_server, db)
    c.query("CREATE TABLE t (id INT PRIMARY KEY, d DATE, dt DATETIME, t TIME)")
    c.query("INSERT INTO t VALUES (2, '2024-01-02', '2024-01-02 03:04:05', '-01:02:03')")
    text, binary, cols = _both(c, "SELECT CAST(dt AS TIME), CAST(dt AS DATE), CAST(d AS DATETIME), CAST(t AS TIME), CAST(dt AS TIME(3)), CAST(dt AS DATETIME(6)), CAST(d AS TIME) FROM t")
    assert [(x.type, x.length, x.decimals) for x in cols] == [(T_TIME, 10, 0), (T_DATE, 10, 0), (T_DATETIME, 19, 0), (T_TIME, 10, 0), (T_TIME, 14, 3), (T_DATETIME, 26, 6), (T_TIME, 10, 0)]
    # Before: the whole datetime as a VARCHAR ('2024-01-02 03:04:05' for each).
    assert text == [(b"03:04:05", b"2024-01-02", b"2024-01-02 00:00:00", b"-01:02:03", b"03:04:05.000", b"2024-01-02 03:04:05.000000", b"00:00:00")]
    assert binary == [(b"\x00\x00\x00\x00\x00\x03\x04\x05", b"\xe8\x07\x01\x02", b"\xe8\x07\x01\x02", b"\x01\x00\x00\x00\x00\x01\x02\x03", b"\x00\x00\x00\x00\x00\x03\x04\x05", b"\xe8\x07\x01\x02\x03\x04\x05", b"")]
    c.close_connection()


@pytest.mark.parametrize("from_table", [False, True], ids=["no_table", "with_table"])
def test_cast_of_strings_and_numbers_as_mariadb(sql_server, db, from_table):
    c = _byte_client(sql_server, db)
    c.query("CREATE TABLE one (x INT)")
    c.query("INSERT INTO one VALUES (1)")
    tail = " FROM one" if from_table else ""
    cases = [
        ("CAST('2024-01-02 03:04:05' AS TIME)", T_TIME, b"03:04:05"),
        ("CAST('123' AS TIME)", T_TIME, b"00:01:23"),
        ("CAST(-123 AS TIME)", T_TIME, b"-00:01:23"),
        ("CAST('900:00:00' AS TIME)", T_TIME, b"838:59:59"),
        ("CAST('1 02:03:04' AS TIME)", T_TIME, b"26:03:04"),
        ("CAST('abc' AS TIME)", T_TIME, None),
        ("CAST('2024-01-02 03:04:05.123456' AS TIME(2))", T_TIME, b"03:04:05.12"),
        ("CAST('20240102' AS DATE)", T_DATE, b"2024-01-02"),
        ("CAST(20240102030405 AS DATETIME)", T_DATETIME, b"2024-01-02 03:04:05"),
        ("CAST('2024-02-30' AS DATE)", T_DATE, None),
        ("CAST('2024-01-02 03:04:05.5' AS DATE)", T_DATE, b"2024-01-02"),
    ]
    text, _, cols = _both(c, "SELECT " + ", ".join(e for e, _, _ in cases) + tail)
    assert [x.type for x in cols] == [t for _, t, _ in cases]
    assert text == [tuple(v for _, _, v in cases)]
    c.close_connection()


def test_time_date_functions_are_typed_temporal(sql_server, db):
    c = _byte_client(sql_server, db)
    c.query("CREATE TABLE t (id INT PRIMARY KEY, dt DATETIME(3))")
    c.query("INSERT INTO t VALUES (1, '2024-01-02 03:04:05.125')")
    text, binary, cols = _both(c, "SELECT TIME('12:30'), DATE('2024-01-02 03:04:05'), TIMESTAMP('2024-01-02'), TIME('12:30:45.5'), TIME(dt), DATE('20240102'), TIME('25:00:00') FROM t")
    # MariaDB 10.11: type, length, decimals of each (before: VARCHAR 253 for all).
    assert [(x.type, x.length, x.decimals, x.charset) for x in cols] == [
        (T_TIME, 10, 0, 63),
        (T_DATE, 10, 0, 63),
        (T_DATETIME, 19, 0, 63),
        (T_TIME, 12, 1, 63),
        (T_TIME, 14, 3, 63),
        (T_DATE, 10, 0, 63),
        (T_TIME, 10, 0, 63),
    ]
    assert text == [(b"12:30:00", b"2024-01-02", b"2024-01-02 00:00:00", b"12:30:45.5", b"03:04:05.125", b"2024-01-02", b"25:00:00")]
    assert binary[0][0] == b"\x00\x00\x00\x00\x00\x0c\x1e\x00"
    assert binary[0][6] == b"\x00\x01\x00\x00\x00\x01\x00\x00"
    c.close_connection()


def test_time_function_reads_back_in_pymysql(sql_server, sql_conn):
    # PyMySQL converts by column type: a TIME is a timedelta, not a str.
    assert clients.query(sql_conn, "SELECT TIME('12:30'), DATE('2024-01-02 03:04:05') FROM (SELECT 1) x") == ((datetime.timedelta(hours=12, minutes=30), datetime.date(2024, 1, 2)),)


# ---------------------------------------------------------------- BIT


def test_bit_values_are_bytes_over_both_protocols(sql_server, db):
    c = _byte_client(sql_server, db)
    c.query("CREATE TABLE bits (id INT PRIMARY KEY, b1 BIT(1), b8 BIT(8), b12 BIT(12), b64 BIT(64))")
    # Bit, hex and decimal literals; 2^64-1 and 2^63 into BIT(64) (were 1366).
    c.query("INSERT INTO bits VALUES (1, b'1', b'10000001', b'101', b'1111111111111111111111111111111111111111111111111111111111111110')")
    c.query("INSERT INTO bits VALUES (2, 0, 0x05, 0x0fff, 18446744073709551615), (3, NULL, 1, 4095, 9223372036854775808)")
    # A binary string's bytes, as mariadb-dump writes BIT values.
    c.query(b"INSERT INTO bits VALUES (4, '\\0', '\x81', '\x0f\xff', '\x80\\0\\0\\0\\0\\0\\0\x01')")
    text, binary, cols = _both(c, "SELECT b1, b8, b12, b64 FROM bits ORDER BY id")
    # MariaDB 10.11: type BIT (16), charset binary, flags UNSIGNED only, length n.
    assert [(x.type, x.charset, x.flags, x.length) for x in cols] == [(16, 63, 32, 1), (16, 63, 32, 8), (16, 63, 32, 12), (16, 63, 32, 64)]
    want = [
        (b"\x01", b"\x81", b"\x00\x05", b"\xff" * 7 + b"\xfe"),
        (b"\x00", b"\x05", b"\x0f\xff", b"\xff" * 8),
        (None, b"\x01", b"\x0f\xff", b"\x80" + b"\x00" * 7),
        (b"\x00", b"\x81", b"\x0f\xff", b"\x80" + b"\x00" * 6 + b"\x01"),
    ]
    assert text == want  # was b'1', b'129', ... as decimal text
    assert binary == want
    c.close_connection()


def test_bit_compares_as_a_number(sql_server, sql_conn, db):
    clients.query(sql_conn, f"CREATE TABLE {db}.bits (id INT PRIMARY KEY, b8 BIT(8))")
    clients.query(sql_conn, f"INSERT INTO {db}.bits VALUES (1, 129), (2, 5), (3, 1)")
    assert clients.query(sql_conn, f"SELECT id, b8 + 0, HEX(b8), BIN(b8), b8 = 5, b8 = b'101', b8 > 4 FROM {db}.bits ORDER BY id") == (
        (1, 129, "81", "10000001", 0, 0, 1),
        (2, 5, "5", "101", 1, 1, 1),
        (3, 1, "1", "1", 0, 0, 0),
    )
    assert clients.query(sql_conn, f"SELECT id FROM {db}.bits WHERE b8 = b'10000001'") == ((1,),)
    assert clients.query(sql_conn, f"SELECT id FROM {db}.bits ORDER BY b8") == ((3,), (2,), (1,))
    # A bound byte parameter (PyMySQL sends _binary'...').
    clients.query(sql_conn, f"INSERT INTO {db}.bits VALUES (4, %s)", (b"\x07",))
    assert clients.query(sql_conn, f"SELECT b8 FROM {db}.bits WHERE id = 4") == ((b"\x07",),)


def test_bit_wider_than_the_column_is_1406(sql_server, sql_conn, db):
    # MariaDB 10.11 (strict): 1406 Data too long for column 'b' at row 1.
    # The string '1' is the byte 0x31, too wide for BIT(1) (was stored as 1).
    clients.query(sql_conn, f"CREATE TABLE {db}.b (b BIT(1))")
    clients.query(sql_conn, f"CREATE TABLE {db}.w (b BIT(8))")
    for table, value in [("b", "'1'"), ("w", "'ab'"), ("b", "2"), ("b", "b'11'"), ("w", "0x0100")]:
        with pytest.raises(pymysql.err.MySQLError) as e:
            clients.query(sql_conn, f"INSERT INTO {db}.{table} VALUES ({value})")
        assert e.value.args == (1406, "Data too long for column 'b' at row 1"), value
    assert clients.query(sql_conn, f"SELECT COUNT(*) FROM {db}.b") == ((0,),)


def test_bit_64_hex_literal_over_64_bits_is_1264(sql_server, sql_conn, db):
    clients.query(sql_conn, f"CREATE TABLE {db}.b (b BIT(64))")
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(sql_conn, f"INSERT INTO {db}.b VALUES (0x010203040506070809)")
    assert e.value.args[0] == 1264  # MariaDB: Out of range value for column 'b'


def test_bit_through_mysql_connector_prepared(sql_server, db):
    conn = mysql.connector.connect(host="127.0.0.1", port=sql_server.port, user="root", password=ROOT_PASSWORD, database=db, use_pure=True, autocommit=True)
    try:
        cur = conn.cursor(prepared=True)
        cur.execute("CREATE TABLE bits (id INT PRIMARY KEY, b8 BIT(8))")
        cur.execute("INSERT INTO bits VALUES (?, ?)", (1, 129))
        cur.execute("INSERT INTO bits VALUES (?, ?)", (2, b"\x05"))
        cur.execute("SELECT b8 FROM bits ORDER BY id")
        # As against MariaDB 10.11: the prepared cursor gives the bytes,
        # the text cursor the integer (it reads type BIT).
        assert cur.fetchall() == [(b"\x81",), (b"\x05",)]
        text = conn.cursor()
        text.execute("SELECT b8 FROM bits ORDER BY id")
        assert text.fetchall() == [(129,), (5,)]
    finally:
        conn.close()


def test_bit_default_and_update(sql_server, sql_conn, db):
    clients.query(sql_conn, f"CREATE TABLE {db}.d (id INT PRIMARY KEY, b BIT(8) DEFAULT b'101', c BIT(4) NOT NULL DEFAULT 3)")
    # Was 1366: the default b'101' was kept as the text '0b101'.
    clients.query(sql_conn, f"INSERT INTO {db}.d (id) VALUES (1)")
    assert clients.query(sql_conn, f"SELECT b, c FROM {db}.d") == ((b"\x05", b"\x03"),)
    create = clients.query(sql_conn, f"SHOW CREATE TABLE {db}.d")[0][1]
    assert "`b` bit(8) DEFAULT b'101'" in create and "`c` bit(4) NOT NULL DEFAULT b'11'" in create  # MariaDB's form
    clients.query(sql_conn, f"UPDATE {db}.d SET b = b'11', c = %s WHERE id = 1", (b"\x00",))
    assert clients.query(sql_conn, f"SELECT b, c FROM {db}.d") == ((b"\x03", b"\x00"),)


# ---------------------------------------------------------------- character sets


def test_latin1_and_ascii_columns_refuse_other_characters(sql_server, sql_conn, db):
    clients.query(sql_conn, f"CREATE TABLE {db}.l (id INT PRIMARY KEY, a VARCHAR(10) CHARACTER SET latin1, b CHAR(5) CHARACTER SET ascii, c TEXT CHARACTER SET latin1)")
    # MariaDB 10.11 (strict): 1366 with the refused bytes, the column and row.
    for values, bad, col in [
        ("(1, '中文', 'x', 'y')", r"\xE4\xB8\xAD\xE6\x96\x87", "a at row 1"),
        ("(2, 'x', 'é', 'y')", r"\xC3\xA9", "b at row 1"),
        ("(3, 'é', 'x', 'y'), (5, 'é', 'x', 'aé中')", r"\xE4\xB8\xAD", "c at row 2"),
    ]:
        with pytest.raises(pymysql.err.MySQLError) as e:
            clients.query(sql_conn, f"INSERT INTO {db}.l VALUES {values}")
        column, at = col.split(" ", 1)
        assert e.value.args == (1366, f"Incorrect string value: '{bad}' for column `{db}`.`l`.`{column}` {at}"), values
    # Windows-1252 is MariaDB's latin1: é and € are latin1 characters.
    clients.query(sql_conn, f"INSERT INTO {db}.l VALUES (4, 'é€', 'ok', 'ÿ')")
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(sql_conn, f"UPDATE {db}.l SET a = %s WHERE id = 4", ("中",))
    assert e.value.args[0] == 1366
    assert clients.query(sql_conn, f"SELECT id, a, b, c FROM {db}.l") == ((4, "é€", "ok", "ÿ"),)


def test_latin1_column_is_described_in_the_connections_charset(sql_server, db):
    # Its values are sent as UTF-8, so the column says utf8mb4 (45), length 4
    # bytes a character, as MariaDB with character_set_results=utf8mb4 (was
    # latin1, 8: a client decoding by the column's charset read mojibake).
    c = _byte_client(sql_server, db)
    c.query("CREATE TABLE l (a VARCHAR(10) CHARACTER SET latin1, b CHAR(5) CHARACTER SET ascii)")
    c.query("INSERT INTO l VALUES ('é', 'x')")
    text, binary, cols = _both(c, "SELECT a, b FROM l")
    assert [(x.charset, x.length) for x in cols] == [(45, 40), (45, 20)]
    assert text == binary == [("é".encode(), b"x")]
    c.close_connection()


def test_set_names_accepts_mariadbs_character_sets(sql_server, sql_conn):
    # MariaDB 10.11: every character set of SHOW CHARACTER SET but the four
    # that are not ASCII-based; 1231 for those, 1115 for an unknown name.
    for cs, collation in [("latin2", "latin2_general_ci"), ("cp1251", "cp1251_general_ci"), ("sjis", "sjis_japanese_ci"), ("koi8r", "koi8r_general_ci"), ("latin1", "latin1_swedish_ci")]:
        clients.query(sql_conn, f"SET NAMES {cs}")  # was 1115 (latin1 was accepted)
        assert clients.query(sql_conn, "SELECT @@character_set_client, @@character_set_results, @@collation_connection") == ((cs, cs, collation),)
    for cs in ["ucs2", "utf16", "utf16le", "utf32"]:
        with pytest.raises(pymysql.err.MySQLError) as e:
            clients.query(sql_conn, f"SET NAMES {cs}")
        assert e.value.args == (1231, f"Variable 'character_set_client' can't be set to the value of '{cs}'")
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(sql_conn, "SET NAMES nosuch")
    assert e.value.args == (1115, "Unknown character set: 'nosuch'")
    clients.query(sql_conn, "SET NAMES utf8mb4")


def test_non_utf8_client_text_is_refused_not_stored_as_bytes(sql_server, sql_conn, db):
    # Before: a latin1 client's 'é' (0xE9) was stored as that byte in a
    # utf8mb4 column, which every UTF-8 reader then failed to decode. MariaDB
    # converts; Turnstile keeps text as UTF-8 and refuses (1235) what it
    # would have to convert, keeping ASCII text and _binary bytes.
    clients.query(sql_conn, f"CREATE TABLE {db}.t (id INT PRIMARY KEY, s VARCHAR(20), b BLOB)")
    latin1 = clients.root(sql_server, database=db, charset="latin1")
    try:
        with pytest.raises(pymysql.err.MySQLError) as e:
            clients.query(latin1, "INSERT INTO t VALUES (2, %s, NULL)", ("é",))
        assert e.value.args[0] == 1235 and "character set is latin1" in e.value.args[1]
        clients.query(latin1, "INSERT INTO t VALUES (3, 'abc', %s)", (b"\xe9\xff",))  # _binary'...': bytes
        assert clients.query(latin1, "SELECT id FROM t WHERE s = %s", ("abc",)) == ((3,),)
    finally:
        latin1.close()
    conn = mysql.connector.connect(host="127.0.0.1", port=sql_server.port, user="root", password=ROOT_PASSWORD, database=db, charset="latin1", use_pure=True, autocommit=True)
    try:
        cur = conn.cursor(prepared=True)
        with pytest.raises(mysql.connector.Error) as e:
            cur.execute("INSERT INTO t VALUES (?, ?, NULL)", (4, "é"))
        assert e.value.errno == 1235
    finally:
        conn.close()
    assert clients.query(sql_conn, f"SELECT id, HEX(s), HEX(b) FROM {db}.t ORDER BY id") == ((3, "616263", "E9FF"),)


# ---------------------------------------------------------------- BINARY


def test_binary_compares_bytes(sql_server, sql_conn, db):
    clients.query(sql_conn, f"CREATE TABLE {db}.f (id INT PRIMARY KEY, name VARCHAR(20), nb VARCHAR(20) COLLATE utf8mb4_bin)")
    clients.query(sql_conn, f"INSERT INTO {db}.f VALUES (1, 'apple', 'apple'), (2, 'Apple', 'Apple'), (3, 'äpple', 'äpple'), (4, 'apple ', 'apple ')")
    ids = lambda where: tuple(r[0] for r in clients.query(sql_conn, f"SELECT id FROM {db}.f WHERE {where} ORDER BY id"))  # noqa: E731
    # MariaDB 10.11 for each (before: every row matched but the accent one... or all four).
    assert ids("BINARY name = 'apple'") == (1,)
    assert ids("name = BINARY 'apple'") == (1,)
    assert ids("BINARY(name) = 'Apple'") == (2,)  # was 1305 FUNCTION BINARY does not exist
    assert ids("CAST(name AS BINARY) = 'apple'") == (1,)
    assert ids("CONVERT(name, BINARY) = 'Apple'") == (2,)
    assert ids("BINARY f.name = 'äpple'") == (3,)
    assert ids("name IN (BINARY 'Apple')") == (2,)
    # utf8mb4_bin is case-sensitive and PAD SPACE (trailing spaces ignored).
    assert ids("nb = 'apple'") == (1, 4)
    # The column's own collation stays case-insensitive.
    assert ids("name = 'APPLE'") == (1, 2, 3, 4)
    assert clients.query(sql_conn, f"SELECT id FROM {db}.f ORDER BY BINARY name, id") == ((2,), (1,), (4,), (3,))


def test_binary_literals_compare_bytes(sql_conn):
    # MariaDB 10.11: 0 0 0 1, with and without a table (before: 1 0 1 1
    # without one, evaluated by the SQL front).
    sql = "SELECT BINARY 'a' = 'A', BINARY 'a ' = 'a', CAST('a' AS BINARY) = 'A', BINARY 'a' = 'a'"
    for tail in ["", " FROM (SELECT 1) x"]:
        assert clients.query(sql_conn, sql + tail) == ((0, 0, 0, 1),), tail


def test_long_type_synonyms(sql_server, db):
    """MariaDB's LONG synonyms (PyMySQL's MySQLdb capability tests create
    `LONG BYTE`): LONG BYTE and LONG VARBINARY are MEDIUMBLOB, LONG VARCHAR
    and LONG MEDIUMTEXT, as SHOW CREATE TABLE on MariaDB 10.11 shows them."""
    conn = clients.root(sql_server, database=db)
    clients.query(conn, "CREATE TABLE lng (a LONG BYTE, b LONG VARBINARY, c LONG VARCHAR, d LONG)")
    create = clients.query(conn, "SHOW CREATE TABLE lng")[0][1].lower()
    for col, kind in [("a", "mediumblob"), ("b", "mediumblob"), ("c", "mediumtext"), ("d", "mediumtext")]:
        assert f"`{col}` {kind}" in create, create
    blob = b"BLOB\x00Binary " * 1024
    clients.query(conn, "INSERT INTO lng (a) VALUES (%s)", (blob,))
    assert clients.scalar(conn, "SELECT a FROM lng") == blob
    conn.close()


def test_year_columns_are_described_unsigned_zerofill(sql_server, db):
    """MariaDB 10.11 describes a YEAR column with UNSIGNED and ZEROFILL (flags
    NOT_NULL UNSIGNED ZEROFILL NO_DEFAULT_VALUE NUM for `YEAR NOT NULL`,
    UNSIGNED ZEROFILL NUM for `YEAR`); go-sql-driver/mysql scans a NOT NULL
    YEAR as uint16 by them (its TestRowsColumnTypes; was int16: no UNSIGNED)."""
    c = _byte_client(sql_server, db)
    c.query("CREATE TABLE yr (a YEAR NOT NULL, b YEAR)")
    c.query("INSERT INTO yr VALUES (2006, NULL), (1994, 2000)")
    text, binary, cols = _both(c, "SELECT a, b FROM yr ORDER BY a")
    unsigned_zerofill = 32 | 64
    assert [(x.type, x.flags & unsigned_zerofill, x.flags & 1) for x in cols] == [(13, unsigned_zerofill, 1), (13, unsigned_zerofill, 0)]
    assert text == [(b"1994", b"2000"), (b"2006", None)]
    assert binary == [(1994, 2000), (2006, None)]
    c.close_connection()
