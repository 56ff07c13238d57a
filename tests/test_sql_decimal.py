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
(NEWDECIMAL as text) and the mysql CLI.

Also: DECIMAL kept exact through %/MOD, DIV, ROUND, TRUNCATE, CEIL/FLOOR, ABS,
SIGN, CAST(... AS DECIMAL(p,s)) (MariaDB's clipping and warnings), GREATEST,
LEAST, COALESCE/IFNULL/IF/CASE mixing DECIMAL and INT, MIN/MAX of
expressions and SUM/AVG/MIN/MAX as window functions, over both protocols;
BIGINT UNSIGNED over its whole range (stored, compared, ordered, indexed,
computed with MariaDB's 1690, summed, refused with 1264/1366); and result
column names that are the client's text wherever the columns come from."""

from decimal import Decimal

import pymysql
import pytest

from helpers import rawproto, stmtproto
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


@pytest.fixture
def ndb(sql_conn, uniq):
    name = uniq("num")
    query(sql_conn, f"CREATE DATABASE {name}")
    query(sql_conn, f"USE {name}")
    query(sql_conn, "CREATE TABLE n (id INT PRIMARY KEY, x DECIMAL(10,2), i INT, f DOUBLE, b DECIMAL(65,30), y DECIMAL(5,0), ti TINYINT)")
    query(sql_conn, "INSERT INTO n VALUES (1, 10.25, 7, 2.5, 1.5, 12345, 3), (2, -3.10, -3, -1.5, -2.5, -99, -4)")
    yield sql_conn, name
    query(sql_conn, f"DROP DATABASE IF EXISTS {name}")


def columns(conn, sql):
    """(rows, [(type, length, decimals)]) of a query."""
    rows, cols = described(conn, sql)
    return rows, [c[1:] for c in cols]


def test_mod_and_div_are_exact(ndb):
    conn, _ = ndb
    rows, cols = columns(conn, "SELECT x % 3, x % i, i % x, MOD(x, 3), x MOD 2.5, x % 0, f % 2, x DIV 3, x DIV 0.7, i DIV 2, f DIV 2, b DIV 1, y DIV 7, x DIV i FROM n ORDER BY id")
    assert rows == (
        (Decimal("1.25"), Decimal("3.25"), Decimal("7.00"), Decimal("1.25"), Decimal("0.25"), None, 0.5, 3, 14, 3, 1, 1, 1763, 1),
        (Decimal("-0.10"), Decimal("-0.10"), Decimal("-3.00"), Decimal("-0.10"), Decimal("-0.60"), None, -1.5, -1, -4, -1, 0, -2, -14, 1),
    )
    assert cols == [(246, 12, 2)] * 6 + [(5, 23, 31), (3, 8, 0), (3, 8, 0), (8, 10, 0), (8, 21, 0), (8, 21, 0), (3, 5, 0), (3, 8, 0)]
    # the names are the client's text (`x DIV i` was taken for an item aliased i)
    assert [c[0] for c in described(conn, "SELECT x DIV i, x MOD 2.5 FROM n")[1]] == ["x DIV i", "x MOD 2.5"]


def test_round_truncate_ceil_floor_abs_sign(ndb):
    conn, _ = ndb
    rows, cols = columns(conn, "SELECT ROUND(x,1), ROUND(x), ROUND(x,5), ROUND(x,-1), ROUND(x,i), TRUNCATE(x,1), TRUNCATE(x,-1), ROUND(b, 2), ROUND(y, -2), ROUND(i, -1), ROUND(1.005, 2), ROUND(-2.5) FROM n ORDER BY id")
    assert rows == (
        (Decimal("10.3"), Decimal("10"), Decimal("10.25000"), Decimal("10"), Decimal("10.25"), Decimal("10.2"), Decimal("10"), Decimal("1.50"), Decimal("12300"), 10, Decimal("1.01"), Decimal("-3")),
        (Decimal("-3.1"), Decimal("-3"), Decimal("-3.10000"), Decimal("0"), Decimal("0.00"), Decimal("-3.1"), Decimal("0"), Decimal("-2.50"), Decimal("-100"), 0, Decimal("1.01"), Decimal("-3")),
    )
    assert cols == [(246, 12, 1), (246, 10, 0), (246, 15, 5), (246, 10, 0), (246, 12, 2), (246, 11, 1), (246, 9, 0), (246, 40, 2), (246, 6, 0), (8, 12, 0), (246, 6, 2), (246, 3, 0)]
    rows, cols = columns(conn, "SELECT ABS(x), ABS(-x), ABS(b), CEIL(x), FLOOR(x), CEILING(b), FLOOR(y), CEIL(x * 10000000000), SIGN(x), SIGN(b), -x, - -x FROM n ORDER BY id")
    assert rows == (
        (Decimal("10.25"), Decimal("10.25"), Decimal("1.500000000000000000000000000000"), 11, 10, Decimal("2"), 12345, Decimal("102500000000"), 1, 1, Decimal("-10.25"), Decimal("10.25")),
        (Decimal("3.10"), Decimal("3.10"), Decimal("2.500000000000000000000000000000"), -3, -4, Decimal("-2"), -99, Decimal("-31000000000"), -1, -1, Decimal("3.10"), Decimal("-3.10")),
    )
    assert cols == [(246, 12, 2), (246, 13, 2), (246, 67, 30), (3, 10, 0), (3, 10, 0), (246, 37, 0), (3, 6, 0), (246, 21, 0), (3, 2, 0), (3, 2, 0), (246, 13, 2), (246, 14, 2)]


def test_cast_as_decimal_rounds_clips_and_warns(ndb):
    conn, _ = ndb
    rows, cols = columns(conn, "SELECT CAST(x*3 AS DECIMAL(10,3)), CAST(x AS DECIMAL), CONVERT(x, DECIMAL(6,1)), CAST(i AS DECIMAL(4,2)), CAST(f AS DECIMAL(5,3)), CAST(1.005 AS DECIMAL(5,2)), CAST(x AS DECIMAL(40,31)), CAST(NULL AS DECIMAL(5,2)) FROM n ORDER BY id")
    assert rows == (
        (Decimal("30.750"), Decimal("10"), Decimal("10.3"), Decimal("7.00"), Decimal("2.500"), Decimal("1.01"), Decimal("10.2500000000000000000000000000000"), None),
        (Decimal("-9.300"), Decimal("-3"), Decimal("-3.1"), Decimal("-3.00"), Decimal("-1.500"), Decimal("1.01"), Decimal("-3.1000000000000000000000000000000"), None),
    )
    assert cols == [(246, 12, 3), (246, 11, 0), (246, 8, 1), (246, 6, 2), (246, 7, 3), (246, 7, 2), (246, 42, 31), (246, 7, 2)]
    with conn.cursor() as cur:
        cur.execute("SELECT CAST(x AS DECIMAL(3,3)), CAST('abc' AS DECIMAL(5,2)) FROM n ORDER BY id")
        assert cur.fetchall() == ((Decimal("0.999"), Decimal("0.00")), (Decimal("-0.999"), Decimal("0.00")))
        assert conn._result.warning_count == 4  # the EOF packet's count
        cur.execute("SHOW WARNINGS")
        assert cur.fetchall() == (
            ("Warning", 1264, "Out of range value for column 'CAST(x AS DECIMAL(3,3))' at row 1"),
            ("Warning", 1292, "Truncated incorrect DECIMAL value: 'abc'"),
            ("Warning", 1264, "Out of range value for column 'CAST(x AS DECIMAL(3,3))' at row 2"),
            ("Warning", 1292, "Truncated incorrect DECIMAL value: 'abc'"),
        )
    assert error_of(conn, "SELECT CAST(x AS DECIMAL(66,2)) FROM n") == (1426, "Too big precision specified for 'x'. Maximum is 65")
    assert error_of(conn, "SELECT CAST(x AS DECIMAL(2,3)) FROM n") == (1427, "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '')")


def test_hybrid_functions_mix_decimal_and_int(ndb):
    conn, _ = ndb
    rows, cols = columns(
        conn,
        "SELECT GREATEST(x, 3), LEAST(x, i), GREATEST(x, 2.555), GREATEST(x, f), COALESCE(x, 0), IFNULL(i, x), COALESCE(x, 1.5555), CASE WHEN id = 1 THEN x ELSE 0 END, CASE id WHEN 1 THEN i ELSE x END, IF(id=1, x, 0.001), COALESCE(x * 2, 0) FROM n ORDER BY id",
    )
    assert rows == (
        (Decimal("10.25"), Decimal("7.00"), Decimal("10.250"), 10.25, Decimal("10.25"), Decimal("7.00"), Decimal("10.2500"), Decimal("10.25"), Decimal("7.00"), Decimal("10.250"), Decimal("20.50")),
        (Decimal("3.00"), Decimal("-3.10"), Decimal("2.555"), -1.5, Decimal("-3.10"), Decimal("-3.00"), Decimal("-3.1000"), Decimal("0.00"), Decimal("-3.10"), Decimal("0.001"), Decimal("-6.20")),
    )
    assert cols == [(246, 12, 2), (246, 14, 2), (246, 13, 3), (5, 23, 31), (246, 12, 2), (246, 14, 2), (246, 14, 4), (246, 12, 2), (246, 14, 2), (246, 13, 3), (246, 13, 2)]
    assert [c[0] for c in described(conn, "SELECT CASE WHEN id = 1 THEN x ELSE 0 END FROM n")[1]] == ["CASE WHEN id = 1 THEN x ELSE 0 END"]
    # compared as numbers, not as the text of one and the integer of the other
    assert described(conn, "SELECT id FROM n WHERE COALESCE(x, 0) > 5")[0] == ((1,),)
    assert described(conn, "SELECT id FROM n WHERE GREATEST(x, 1) > 2")[0] == ((1,),)


def test_min_max_and_window_aggregates(ndb):
    conn, _ = ndb
    rows, cols = columns(conn, "SELECT MIN(x*2), MAX(x+i), MAX(-x), MIN(ABS(x)) FROM n")
    assert rows == ((Decimal("-6.20"), Decimal("17.25"), Decimal("3.10"), Decimal("3.10")),)
    assert cols == [(246, 13, 2), (246, 15, 2), (246, 13, 2), (246, 12, 2)]
    rows, cols = columns(conn, "SELECT id, SUM(x) OVER (), AVG(x) OVER (), SUM(x) OVER (ORDER BY id), MAX(x) OVER (), MIN(x*3) OVER (), SUM(i) OVER (), AVG(i) OVER (), SUM(x*2) OVER (PARTITION BY id) FROM n ORDER BY id")
    assert rows == (
        (1, Decimal("7.15"), Decimal("3.575000"), Decimal("10.25"), Decimal("10.25"), Decimal("-9.30"), Decimal("4"), Decimal("2.0000"), Decimal("20.50")),
        (2, Decimal("7.15"), Decimal("3.575000"), Decimal("7.15"), Decimal("10.25"), Decimal("-9.30"), Decimal("4"), Decimal("2.0000"), Decimal("-6.20")),
    )
    assert cols[1:] == [(246, 34, 2), (246, 16, 6), (246, 34, 2), (246, 12, 2), (246, 13, 2), (246, 33, 0), (246, 16, 4), (246, 35, 2)]
    # a frame that slides subtracts exactly
    rows = described(conn, "SELECT SUM(x) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM n ORDER BY id")[0]
    assert rows == ((Decimal("7.15"),), (Decimal("-3.10"),))


def test_exact_functions_over_the_binary_protocol(ndb, sql_server):
    _, db = ndb
    c = stmtproto.connect(sql_server.port, "root", ROOT_PASSWORD, db=db)
    try:
        st = c.prepare("SELECT x % 3, x DIV 3, ROUND(x, 1), TRUNCATE(x, 1), ABS(-x), CAST(x*3 AS DECIMAL(10,3)), SUM(x) OVER () FROM n WHERE id = ?")
        res = c.execute(st, [(stmtproto.T_LONG, 1)])
        assert res.rows == [(b"1.25", 3, b"10.3", b"10.2", b"10.25", b"30.750", b"10.25")]
        assert [(col.type, col.length, col.decimals) for col in res.cols] == [(246, 12, 2), (3, 8, 0), (246, 12, 1), (246, 11, 1), (246, 13, 2), (246, 12, 3), (246, 34, 2)]
    finally:
        c.close_connection()


@pytest.fixture
def udb(sql_conn, uniq):
    name = uniq("ubig")
    query(sql_conn, f"CREATE DATABASE {name}")
    query(sql_conn, f"USE {name}")
    query(sql_conn, "CREATE TABLE bu (id INT PRIMARY KEY, u BIGINT UNSIGNED, KEY ku (u))")
    query(sql_conn, "INSERT INTO bu VALUES (1, 18446744073709551615), (2, 5), (3, 9223372036854775807), (4, 9223372036854775808), (5, '10000000000000000000'), (6, 0), (7, NULL)")
    yield sql_conn, name
    query(sql_conn, f"DROP DATABASE IF EXISTS {name}")


def test_bigint_unsigned_full_range_stored_compared_ordered(udb):
    conn, _ = udb
    rows, cols = described(conn, "SELECT id, u FROM bu ORDER BY u, id")
    assert rows == ((7, None), (6, 0), (2, 5), (3, 9223372036854775807), (4, 9223372036854775808), (5, 10000000000000000000), (1, 18446744073709551615))
    assert cols[1][1:] == (8, 20, 0)
    assert described(conn, "SELECT id FROM bu WHERE u > 9223372036854775807 ORDER BY id")[0] == ((1,), (4,), (5,))
    assert described(conn, "SELECT id FROM bu WHERE u = '18446744073709551615'")[0] == ((1,),)
    assert described(conn, "SELECT id FROM bu WHERE u < 18446744073709551615 ORDER BY id")[0] == ((2,), (3,), (4,), (5,), (6,))
    assert described(conn, "SELECT id FROM bu WHERE 10 > u ORDER BY id")[0] == ((2,), (6,))
    assert described(conn, "SELECT id FROM bu WHERE u IN ('5', '18446744073709551615', 9223372036854775808) ORDER BY id")[0] == ((1,), (2,), (4,))
    assert described(conn, "SELECT id FROM bu WHERE u BETWEEN '6' AND '18446744073709551614' ORDER BY id")[0] == ((3,), (4,), (5,))
    assert described(conn, "SELECT id FROM bu WHERE u NOT BETWEEN 0 AND '9223372036854775807' ORDER BY id")[0] == ((1,), (4,), (5,))
    with conn.cursor() as cur:
        # a parameter PyMySQL quotes as a string, and one it writes as a number
        cur.execute("SELECT id FROM bu WHERE u = %s", ("9223372036854775808",))
        assert cur.fetchall() == ((4,),)
        cur.execute("SELECT id FROM bu WHERE u = %s", (18446744073709551615,))
        assert cur.fetchall() == ((1,),)
    rows, cols = described(conn, "SELECT CAST(u AS UNSIGNED), CAST(u AS SIGNED), CAST(-1 AS UNSIGNED), CAST('18446744073709551616' AS UNSIGNED), CAST(u - 1 AS UNSIGNED) FROM bu WHERE id = 1")
    assert rows == ((18446744073709551615, -1, 18446744073709551615, 18446744073709551615, 18446744073709551614),)
    # (CAST AS SIGNED is as long as MariaDB's 20 or 21 by its argument: not checked)
    assert [c[1] for c in cols] == [8] * 5 and [cols[k][2] for k in (0, 2, 3, 4)] == [20, 20, 20, 21]
    rows, cols = described(conn, "SELECT MIN(u), MAX(u), SUM(u), AVG(u), COUNT(DISTINCT u) FROM bu")
    assert rows == ((0, 18446744073709551615, Decimal("46893488147419103235"), Decimal("7815581357903183872.5000"), 6),)
    assert [c[1:] for c in cols] == [(8, 20, 0), (8, 20, 0), (246, 43, 0), (246, 26, 4), (8, 21, 0)]


def test_bigint_unsigned_arithmetic_and_errors(udb):
    conn, db = udb
    rows, cols = described(conn, "SELECT u + 1, u - 1, u * 1 FROM bu WHERE id = 3")
    assert rows == ((9223372036854775808, 9223372036854775806, 9223372036854775807),)
    assert [c[1:] for c in cols] == [(8, 21, 0)] * 3
    assert error_of(conn, "SELECT u + 1 FROM bu WHERE id = 1") == (1690, f"BIGINT UNSIGNED value is out of range in '`{db}`.`bu`.`u` + 1'")
    assert error_of(conn, "SELECT u - 6 FROM bu WHERE id = 2") == (1690, f"BIGINT UNSIGNED value is out of range in '`{db}`.`bu`.`u` - 6'")
    rows, cols = described(conn, "SELECT u % 7, u DIV 3, u / 7 FROM bu WHERE id IN (1, 2) ORDER BY id")
    assert rows == ((1, 6148914691236517205, Decimal("2635249153387078802.1429")), (5, 1, Decimal("0.7143")))
    assert [c[1:] for c in cols] == [(8, 20, 0), (8, 20, 0), (246, 26, 4)]
    assert error_of(conn, "INSERT INTO bu VALUES (10, -1)") == (1264, "Out of range value for column 'u' at row 1")
    assert error_of(conn, "INSERT INTO bu VALUES (10, 18446744073709551616)") == (1264, "Out of range value for column 'u' at row 1")
    assert error_of(conn, "INSERT INTO bu VALUES (10, -0.4)") == (1264, "Out of range value for column 'u' at row 1")
    assert error_of(conn, "INSERT INTO bu VALUES (10, 'abc')") == (1366, f"Incorrect integer value: 'abc' for column `{db}`.`bu`.`u` at row 1")
    # stored by UPDATE, upsert and INSERT ... SELECT; a UNIQUE key sees equal values
    query(conn, "UPDATE bu SET u = u + 9223372036854775800 WHERE id = 2")
    query(conn, "INSERT INTO bu (id, u) SELECT 20, u - 1 FROM bu WHERE id = 1")
    query(conn, "INSERT INTO bu VALUES (2, 0) ON DUPLICATE KEY UPDATE u = 12345678901234567890")
    assert described(conn, "SELECT id, u FROM bu WHERE id IN (2, 20) ORDER BY id")[0] == ((2, 12345678901234567890), (20, 18446744073709551614))
    query(conn, "CREATE TABLE uq (u BIGINT UNSIGNED PRIMARY KEY)")
    query(conn, "INSERT INTO uq VALUES (18446744073709551615), (9223372036854775808)")
    assert error_of(conn, "INSERT INTO uq VALUES ('18446744073709551615')")[0] == 1062
    assert described(conn, "SELECT u FROM uq ORDER BY u DESC")[0] == ((18446744073709551615,), (9223372036854775808,))


def test_bigint_unsigned_clipped_by_a_lenient_write(udb):
    conn, _ = udb
    with conn.cursor() as cur:
        cur.execute("SET SESSION sql_mode = ''")
        cur.execute("INSERT INTO bu VALUES (40, -5), (41, 18446744073709551616), (42, 1e30), (43, 18446744073709551615)")
        cur.execute("SHOW WARNINGS")
        assert cur.fetchall() == tuple(("Warning", 1264, f"Out of range value for column 'u' at row {n}") for n in (1, 2, 3))
        cur.execute("SELECT id, u FROM bu WHERE id >= 40 ORDER BY id")
        assert cur.fetchall() == ((40, 0), (41, 2**64 - 1), (42, 2**64 - 1), (43, 2**64 - 1))
        cur.execute("SET SESSION sql_mode = DEFAULT")


def test_bigint_unsigned_auto_increment_refuses_what_sqlite_cannot_hold(sql_conn, uniq):
    name = uniq("uai")
    query(sql_conn, f"CREATE DATABASE {name}")
    try:
        query(sql_conn, f"CREATE TABLE {name}.a (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, v INT)")
        query(sql_conn, f"INSERT INTO {name}.a (v) VALUES (1)")
        code, message = error_of(sql_conn, f"INSERT INTO {name}.a VALUES (18446744073709551615, 2)")
        assert code == 1235 and "BIGINT UNSIGNED values above 9223372036854775807 in an AUTO_INCREMENT column" in message
        assert described(sql_conn, f"SELECT id, v FROM {name}.a")[0] == ((1, 1),)
    finally:
        query(sql_conn, f"DROP DATABASE IF EXISTS {name}")


def test_bigint_unsigned_over_the_binary_protocol(udb, sql_server):
    _, db = udb
    c = stmtproto.connect(sql_server.port, "root", ROOT_PASSWORD, db=db)
    try:
        ins = c.prepare("INSERT INTO bu VALUES (?, ?)")
        c.execute(ins, [(stmtproto.T_LONG, 30), (stmtproto.T_LONGLONG | stmtproto.UNSIGNED, 2**64 - 2)])
        st = c.prepare("SELECT id, u, u - 1 FROM bu WHERE u >= ? ORDER BY u")
        res = c.execute(st, [(stmtproto.T_LONGLONG | stmtproto.UNSIGNED, 2**64 - 2)])
        assert res.rows == [(30, 2**64 - 2, 2**64 - 3), (1, 2**64 - 1, 2**64 - 2)]
        assert [(col.type, col.flags & 32) for col in res.cols] == [(3, 0), (8, 32), (8, 32)]
        st = c.prepare("SELECT u + 1 FROM bu WHERE u = ?")
        with pytest.raises(rawproto.ServerError) as e:
            c.execute(st, [(stmtproto.T_LONGLONG | stmtproto.UNSIGNED, 2**64 - 1)])
        assert e.value.code == 1690
    finally:
        c.close_connection()


def test_column_names_are_the_clients_text(ndb):
    conn, _ = ndb
    names = lambda sql: [c[0] for c in described(conn, sql)[1]]
    assert names("SELECT 'abc', \"q\", LENGTH(x), SUM(LENGTH(x)) FROM n") == ["abc", "q", "LENGTH(x)", "SUM(LENGTH(x))"]
    assert names("SELECT *, LENGTH(x), x*2, IF(id, 1, 2) FROM n")[-3:] == ["LENGTH(x)", "x*2", "IF(id, 1, 2)"]
    assert names("SELECT n.*, CHAR_LENGTH(x) FROM n")[-1] == "CHAR_LENGTH(x)"
    assert names("SELECT * FROM (SELECT LENGTH(x), x*2, id || 'a', GREATEST(id, 2) FROM n) d") == ["LENGTH(x)", "x*2", "id || 'a'", "GREATEST(id, 2)"]
    assert names("WITH w AS (SELECT LENGTH(x), UCASE(x) FROM n) SELECT * FROM w") == ["LENGTH(x)", "UCASE(x)"]
    assert names("WITH w AS (SELECT x FROM n) SELECT LENGTH(x), LEFT(x, 1) FROM w") == ["LENGTH(x)", "LEFT(x, 1)"]
    # with a `*`, a DECIMAL expression keeps its type too
    rows, cols = described(conn, "SELECT *, x*2 FROM n WHERE id = 1")
    assert rows[0][-1] == Decimal("20.50") and cols[-1][1:] == (246, 13, 2)
