"""Exact DECIMAL on the sqlite engine, checked against MariaDB 10.11's answers.

Every expected value, type, length, decimals and error below is what MariaDB
10.11 returned for the same statement (PyMySQL's cursor.description gives
type code, display length and decimals; 246 is NEWDECIMAL). What is covered:
values stored exactly up to 65 digits and rounded half away from zero to the
column's scale; MySQL's result precision and scale of + - * / (div_precision_
increment 4), SUM and AVG; comparisons, ORDER BY, GROUP BY, MIN/MAX and an
index in numeric order; decimal literals without a table; the strict-mode
errors of a value that does not fit or is no number, and the Note 1265 of a
value rounded to its column (SHOW WARNINGS, the OK packet's count); the binary protocol
(NEWDECIMAL as text) and the mysql CLI."""

from decimal import Decimal

import pymysql
import pytest

from helpers import stmtproto
from helpers.clients import query, run_cli
from helpers.server import ROOT_PASSWORD


@pytest.fixture
def ddb(sql_conn, uniq):
    name = uniq("dec")
    query(sql_conn, f"CREATE DATABASE {name}")
    query(sql_conn, f"USE {name}")
    query(sql_conn, "CREATE TABLE t (id INT PRIMARY KEY, amt DECIMAL(10,2), d0 DECIMAL(5,0), big DECIMAL(65,30), u DECIMAL(5,2) UNSIGNED, q INT)")
    yield sql_conn, name
    query(sql_conn, f"DROP DATABASE IF EXISTS {name}")


def described(conn, sql):
    """(rows, [(name, type, length, decimals)]) of a query."""
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall(), [(d[0], d[1], d[3], d[5]) for d in cur.description]


def error_of(conn, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        query(conn, sql)
    return e.value.args[0], e.value.args[1]


def test_arithmetic_is_exact_with_mysqls_result_types(ddb):
    conn, _ = ddb
    query(conn, "INSERT INTO t (id, amt, q) VALUES (1, 0.10, 3)")
    rows, cols = described(conn, "SELECT amt*3, amt+1, amt-0.001, amt/3, amt*amt, amt*q, -amt, 7/2, (amt + 1) * 2 FROM t")
    assert rows == ((Decimal("0.30"), Decimal("1.10"), Decimal("0.099"), Decimal("0.033333"), Decimal("0.0100"), Decimal("0.30"), Decimal("-0.10"), Decimal("3.5000"), Decimal("2.20")),)
    assert [c[1:] for c in cols] == [(246, 13, 2), (246, 13, 2), (246, 14, 3), (246, 16, 6), (246, 22, 4), (246, 22, 2), (246, 13, 2), (246, 7, 4), (246, 14, 2)]
    # the column names are the client's text
    assert [c[0] for c in cols][:2] == ["amt*3", "amt+1"]
    # computed exactly where it is compared too
    assert described(conn, "SELECT id FROM t WHERE amt*3 = 0.3")[0] == ((1,),)


def test_literals_without_a_table(sql_conn):
    rows, cols = described(sql_conn, "SELECT 0.1 + 0.2, 1/3, 1.0/3, 2*0.5, 0.1*3, -0.5, 0.10")
    assert rows == ((Decimal("0.3"), Decimal("0.3333"), Decimal("0.33333"), Decimal("1.0"), Decimal("0.3"), Decimal("-0.5"), Decimal("0.10")),)
    assert [c[1:] for c in cols] == [(246, 5, 1), (246, 7, 4), (246, 8, 5), (246, 5, 1), (246, 5, 1), (246, 4, 1), (246, 5, 2)]


def test_stored_values_round_half_away_from_zero(ddb):
    conn, _ = ddb
    query(conn, "INSERT INTO t (id, amt) VALUES (1, 1.005), (2, -1.005), (3, 99999999.994), (4, '  2.5  '), (5, 1e3)")
    query(conn, "INSERT INTO t (id, d0) VALUES (6, 13.37), (7, 13.5)")
    rows, cols = described(conn, "SELECT id, amt, d0 FROM t ORDER BY id")
    assert rows == (
        (1, Decimal("1.01"), None),
        (2, Decimal("-1.01"), None),
        (3, Decimal("99999999.99"), None),
        (4, Decimal("2.50"), None),
        (5, Decimal("1000.00"), None),
        (6, None, Decimal("13")),
        (7, None, Decimal("14")),
    )
    assert cols[1][1:] == (246, 12, 2) and cols[2][1:] == (246, 6, 0)


def test_values_that_do_not_fit_or_are_no_number(ddb):
    conn, db = ddb
    assert error_of(conn, "INSERT INTO t (id, amt) VALUES (1, 'abc')") == (1366, f"Incorrect decimal value: 'abc' for column `{db}`.`t`.`amt` at row 1")
    assert error_of(conn, "INSERT INTO t (id, amt) VALUES (1, '')") == (1366, f"Incorrect decimal value: '' for column `{db}`.`t`.`amt` at row 1")
    assert error_of(conn, "INSERT INTO t (id, amt) VALUES (1, '1.5x')") == (1265, "Data truncated for column 'amt' at row 1")
    assert error_of(conn, "INSERT INTO t (id, amt) VALUES (1, 123456789.5)") == (1264, "Out of range value for column 'amt' at row 1")
    # rounding up past the precision is out of range too
    assert error_of(conn, "INSERT INTO t (id, amt) VALUES (1, 99999999.995)") == (1264, "Out of range value for column 'amt' at row 1")
    assert error_of(conn, "INSERT INTO t (id, u) VALUES (1, -1)") == (1264, "Out of range value for column 'u' at row 1")
    query(conn, "INSERT INTO t (id, amt) VALUES (1, 5)")
    assert error_of(conn, "UPDATE t SET amt = amt * 100000000 WHERE id = 1") == (1264, "Out of range value for column 'amt' at row 1")
    assert described(conn, "SELECT amt FROM t")[0] == ((Decimal("5.00"),),)


def test_65_digits_kept_compared_and_summed_exactly(ddb):
    conn, _ = ddb
    a = "12345678901234567890123456789012345.123456789012345678901234567891"
    b = "12345678901234567890123456789012345.123456789012345678901234567892"
    query(conn, f"INSERT INTO t (id, big) VALUES (1, {a}), (2, {b}), (3, -{a})")
    assert described(conn, "SELECT big FROM t WHERE id = 1")[0] == ((Decimal(a),),)
    assert described(conn, f"SELECT id FROM t WHERE big > {a}")[0] == ((2,),)
    assert described(conn, "SELECT id FROM t WHERE big IS NOT NULL ORDER BY big DESC")[0] == ((2,), (1,), (3,))
    rows, cols = described(conn, "SELECT SUM(big) FROM t")
    assert rows == ((Decimal(b),),) and cols[0][1:] == (246, 67, 30)


def test_order_comparison_grouping_and_index_are_numeric(ddb):
    conn, _ = ddb
    query(conn, "INSERT INTO t (id, amt) VALUES (1, 0.10), (2, -7.5), (3, 100), (4, 9.99), (5, 10), (6, 0.1)")
    query(conn, "CREATE INDEX t_amt ON t (amt)")
    assert described(conn, "SELECT id FROM t ORDER BY amt, id")[0] == ((2,), (1,), (6,), (4,), (5,), (3,))
    assert described(conn, "SELECT id FROM t WHERE amt > 9.995 ORDER BY id")[0] == ((3,), (5,))
    assert described(conn, "SELECT id FROM t WHERE amt = 0.1 ORDER BY id")[0] == ((1,), (6,))
    assert described(conn, "SELECT id FROM t WHERE amt BETWEEN -8 AND 1 ORDER BY id")[0] == ((1,), (2,), (6,))
    assert described(conn, "SELECT id FROM t WHERE amt IN (10, 100) ORDER BY id")[0] == ((3,), (5,))
    assert described(conn, "SELECT amt, COUNT(*) FROM t GROUP BY amt ORDER BY amt")[0] == ((Decimal("-7.50"), 1), (Decimal("0.10"), 2), (Decimal("9.99"), 1), (Decimal("10.00"), 1), (Decimal("100.00"), 1))
    assert described(conn, "SELECT MIN(amt), MAX(amt) FROM t")[0] == ((Decimal("-7.50"), Decimal("100.00")),)
    # an alias of a DECIMAL expression orders numerically, its values DECIMAL (not floats)
    rows, cols = described(conn, "SELECT amt * 3 AS x FROM t ORDER BY x DESC LIMIT 2")
    assert [str(r[0]) for r in rows] == ["300.00", "30.00"]
    assert cols[0][1:] == (246, 13, 2)


def test_sum_and_avg_are_exact_decimals(ddb):
    conn, _ = ddb
    query(conn, "INSERT INTO t (id, amt, q) VALUES " + ", ".join(f"({i}, 0.10, {i})" for i in range(1, 11)))
    rows, cols = described(conn, "SELECT SUM(amt), AVG(amt), SUM(amt) * 3, SUM(q), AVG(q) FROM t")
    assert rows == ((Decimal("1.00"), Decimal("0.100000"), Decimal("3.00"), Decimal("55"), Decimal("5.5000")),)
    assert [c[1:] for c in cols] == [(246, 34, 2), (246, 16, 6), (246, 35, 2), (246, 33, 0), (246, 16, 4)]
    assert described(conn, "SELECT id FROM t GROUP BY id HAVING SUM(amt) * 10 = 1 ORDER BY id LIMIT 1")[0] == ((1,),)


def test_update_and_insert_select_store_exact_results(ddb):
    conn, _ = ddb
    query(conn, "INSERT INTO t (id, amt) VALUES (1, 0.10), (2, 1.05)")
    # a quotient keeps MariaDB's nine digits when the column has room for them
    query(conn, "UPDATE t SET big = amt / 3, u = amt * 1.5")
    assert described(conn, "SELECT id, big, u FROM t ORDER BY id")[0] == ((1, Decimal("0.033333333000000000000000000000"), Decimal("0.15")), (2, Decimal("0.350000000000000000000000000000"), Decimal("1.58")))
    query(conn, "UPDATE t SET amt = amt * 3 + 0.005")
    query(conn, "INSERT INTO t (id, amt) SELECT id + 10, amt / 3 FROM t")
    assert described(conn, "SELECT id, amt FROM t ORDER BY id")[0] == ((1, Decimal("0.31")), (2, Decimal("3.16")), (11, Decimal("0.10")), (12, Decimal("1.05")))


def test_binary_protocol_sends_newdecimal_text(ddb, sql_server):
    conn, db = ddb
    query(conn, "INSERT INTO t (id, amt) VALUES (1, 0.10)")
    c = stmtproto.connect(sql_server.port, "root", ROOT_PASSWORD, db=db)
    try:
        st = c.prepare("SELECT amt, amt*3, SUM(amt) FROM t WHERE id = ?")
        res = c.execute(st, [(stmtproto.T_LONG, 1)])
        assert res.rows == [(b"0.10", b"0.30", b"0.10")]
        assert [(col.type, col.length, col.decimals) for col in res.cols] == [(246, 12, 2), (246, 13, 2), (246, 34, 2)]
    finally:
        c.close_connection()


def test_mysql_cli_shows_exact_values(ddb, sql_server):
    _, db = ddb
    r = run_cli(sql_server, execute="INSERT INTO t (id, amt) VALUES (1, 0.10); SELECT amt*3, SUM(amt) / 3, 0.1 + 0.2 FROM t", database=db, extra=["--batch", "--skip-column-names"])
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0.30", "0.033333", "0.3"]


def test_rounding_raises_mariadbs_note(ddb):
    conn, _ = ddb
    with conn.cursor() as cur:
        assert cur.execute("INSERT INTO t (id, amt) VALUES (1, 2.50), (2, 2.555), (3, 1.0001), (4, '2.5 ')") == 4
        assert conn._result.warning_count == 3  # the OK packet's count
        cur.execute("SHOW WARNINGS")
        assert cur.fetchall() == (
            ("Note", 1265, "Data truncated for column 'amt' at row 2"),
            ("Note", 1265, "Data truncated for column 'amt' at row 3"),
            ("Note", 1265, "Data truncated for column 'amt' at row 4"),
        )
        cur.execute("UPDATE t SET amt = amt / 3")
        cur.execute("SHOW WARNINGS")
        assert [r[2] for r in cur.fetchall()] == [f"Data truncated for column 'amt' at row {n}" for n in (1, 2, 3, 4)]
        # exact values raise nothing
        cur.execute("INSERT INTO t (id, amt) VALUES (5, 1.5), (6, 1e3)")
        cur.execute("SHOW WARNINGS")
        assert cur.fetchall() == ()
