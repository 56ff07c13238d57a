"""Binary values interpolated into query text by the client (not UTF-8).

PHP PDO's emulated prepares and go-sql-driver with interpolateParams send
bytes as `_binary'...'` with raw (escaped) bytes in the query text. MySQL stores them byte for byte; so must we.  Invalid UTF-8 outside a
string literal is still ERR 1300.
"""

import pymysql
import pytest

from helpers import clients


def _escape(data: bytes) -> bytes:
    """mysql_real_escape_string's escaping, as PHP and the C API send it."""
    table = {0: b"\\0", 10: b"\\n", 13: b"\\r", 26: b"\\Z", 39: b"\\'", 34: b'\\"', 92: b"\\\\"}
    return b"".join(table.get(c, bytes([c])) for c in data)


def test_all_byte_values_round_trip_through_query_text(sql_server, sql_conn, uniq):
    db = uniq("bq")
    clients.query(sql_conn, f"CREATE DATABASE {db}")
    clients.query(sql_conn, f"CREATE TABLE {db}.t (id INT PRIMARY KEY, b BLOB, v VARBINARY(300))")
    data = bytes(range(256))
    # Raw bytes in the query text, as PHP PDO (emulated prepares) and
    # go-sql-driver (interpolateParams) send binary parameters.
    sql_conn.query(f"INSERT INTO {db}.t VALUES (1, _binary'".encode() + _escape(data) + b"', '" + _escape(data[::-1]) + b"')")
    assert sql_conn.affected_rows() == 1
    with sql_conn.cursor() as cur:
        cur.execute(f"SELECT b, v, LENGTH(b) FROM {db}.t WHERE b = %s", (data,))
        assert cur.fetchall() == ((data, data[::-1], 256),)


def test_invalid_utf8_outside_literals_is_error_1300(sql_server, sql_conn):
    with pytest.raises(pymysql.err.MySQLError) as e:
        sql_conn.query(b"SELECT 1 \xff")  # raw bytes: PyMySQL sends them as they are
    assert e.value.args[0] == 1300
    assert clients.query(sql_conn, "SELECT 2") == ((2,),)


def test_bytes_that_are_not_utf8_into_a_text_column_are_refused(sql_server, sql_conn, uniq):
    """MariaDB 10.11 (strict mode): a string that is not UTF-8 written to a
    utf8mb4 column is 1366 "Incorrect string value", naming the bytes from
    the first bad one, the column and the row; a binary column takes it.
    Before, Turnstile stored the bytes and a client's next SELECT could not
    decode the column."""
    db = uniq("bq8")
    clients.query(sql_conn, f"CREATE DATABASE {db}")
    clients.query(sql_conn, f"CREATE TABLE {db}.t (a VARCHAR(20), b VARBINARY(20), c TEXT)")
    for sql, message in [
        (f"INSERT INTO {db}.t (a) VALUES ('k\xfclm')".encode("latin1"), f"Incorrect string value: '\\xFClm' for column `{db}`.`t`.`a` at row 1"),
        (f"INSERT INTO {db}.t VALUES ('x', 'y', 'z'), ('ok', 'ok', X'E9')".encode(), f"Incorrect string value: '\\xE9' for column `{db}`.`t`.`c` at row 2"),
        (f"UPDATE {db}.t SET a = 0xFCFC".encode(), f"Incorrect string value: '\\xFC\\xFC' for column `{db}`.`t`.`a` at row 1"),
    ]:
        with pytest.raises(pymysql.err.MySQLError) as e:
            sql_conn.query(sql)
        assert e.value.args == (1366, message)
    sql_conn.query(f"INSERT INTO {db}.t VALUES (X'C3A9', 'k\xfclm', 'z')".encode("latin1"))
    assert clients.query(sql_conn, f"SELECT a, b, c FROM {db}.t") == (("é", b"k\xfclm", "z"),)
    clients.query(sql_conn, f"DROP DATABASE {db}")
