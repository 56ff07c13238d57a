"""Hostile numbers against exact DECIMAL and BIGINT UNSIGNED: never a crash,
never a runaway number, never a silent wrong value.

Exact arithmetic is done on big integers (crates/sqltext decimal.rs), so an
attacker's inputs decide how big they get: 65-digit values multiplied
together, exponents of a trillion in text stored or CAST to DECIMAL, ROUND
and TRUNCATE to absurd scales, and statements nesting exact arithmetic
100,000 deep (which the rewriter's exact pass parses recursively). Each
answer below is MariaDB 10.11's (checked by hand against it): 1690 "DECIMAL
value is out of range" past its 81-digit numbers, 1264 for a value out of a
column's range, the value clipped with a warning for CAST, 1436 for nesting
its stack cannot hold. After each, the server must keep serving.
"""

from __future__ import annotations

import decimal
from decimal import Decimal

import pymysql
import pytest

from helpers import clients

DEPTHS = (1, 10, 100, 1000, 10_000, 100_000)
# Python's own decimals must not round what the server computes exactly.
decimal.getcontext().prec = 400
MAX65 = "9" * 35 + "." + "9" * 30


@pytest.fixture
def hdb(sql_server, uniq):
    root = clients.root(sql_server)
    db = uniq("hostnum")
    clients.query(root, f"CREATE DATABASE {db}")
    clients.query(root, f"USE {db}")
    clients.query(root, "CREATE TABLE h (id INT PRIMARY KEY, d DECIMAL(65,30), e DECIMAL(65,0), u BIGINT UNSIGNED, x DECIMAL(10,2))")
    clients.query(root, f"INSERT INTO h VALUES (1, {MAX65}, {'9' * 65}, 18446744073709551615, 1.50)")
    yield sql_server, root, db
    clients.query(root, f"DROP DATABASE IF EXISTS {db}")
    root.close()


def answer(srv, db, sql):
    """('ok', rows) or ('err', code), on a connection of its own."""
    conn = clients.root(srv, database=db, read_timeout=120)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return ("ok", cur.fetchall())
    except pymysql.err.MySQLError as e:
        return ("err", e.args[0])
    finally:
        conn.close()


def alive(srv):
    root = clients.root(srv)
    try:
        return clients.scalar(root, "SELECT 1") == 1
    finally:
        root.close()


def test_65_digit_values_past_mariadbs_81_digits_are_1690(hdb):
    srv, _, db = hdb
    # 70 integer digits fit MariaDB's numbers; 105 and 130 do not. (MariaDB
    # shows d * d inexactly, its fraction cut to the 81 digits it holds;
    # Turnstile's is exact, rounded to the 30 digits of its scale.)
    kind, rows = answer(srv, db, "SELECT d * d FROM h")
    assert kind == "ok" and rows[0][0] == (Decimal(MAX65) * Decimal(MAX65)).quantize(Decimal("1e-30"), rounding="ROUND_HALF_UP")
    for sql in ("SELECT d * d * d FROM h", "SELECT e * e FROM h", "SELECT u * u FROM h", "SELECT e DIV 0.0000000001 FROM h", "SELECT d DIV 1 FROM h", "SELECT e DIV 7 FROM h"):
        assert answer(srv, db, sql) == ("err", 1690), sql
        assert alive(srv)
    assert answer(srv, db, "SELECT e + e, SUM(e), e % 0.000000000000000000000000000001 FROM h") == ("ok", ((Decimal("1" + "9" * 64 + "8"), Decimal("9" * 65), Decimal(0)),))


def test_huge_exponents_and_scales_stay_small(hdb):
    srv, root, db = hdb
    with root.cursor() as cur:
        cur.execute("SELECT CAST('1e999999999999' AS DECIMAL(65,0)), CAST('1e-999999999999' AS DECIMAL(65,30)), CAST(1e308 AS DECIMAL(65,30))")
        assert cur.fetchall() == ((Decimal("9" * 65), Decimal(0), Decimal(MAX65)),)
        cur.execute("SELECT ROUND(d, 99999999999999), ROUND(d, -99999999999999), TRUNCATE(d, -9223372036854775808), ROUND(e, -64), ROUND(x, 9223372036854775807) FROM h")
        assert cur.fetchall() == ((Decimal(MAX65), Decimal(0), Decimal(0), Decimal("1" + "0" * 65), Decimal("1.50")),)
    with pytest.raises(pymysql.err.MySQLError) as e:
        clients.query(root, "INSERT INTO h (id, d) VALUES (2, '1e999999999999999999')")
    assert e.value.args[0] == 1264
    clients.query(root, "INSERT INTO h (id, d) VALUES (3, '1e-999999999999999999')")
    assert clients.query(root, "SHOW WARNINGS") == (("Note", 1265, "Data truncated for column 'd' at row 1"),)
    assert clients.scalar(root, "SELECT d FROM h WHERE id = 3") == Decimal(0)
    assert alive(srv)


def test_bigint_unsigned_out_of_range_texts(hdb):
    _, root, _ = hdb
    for v in ("'99999999999999999999999999'", "'1e20'", "-1", "'-0.4'", "1" + "0" * 64, f"'{MAX65}'", "-9223372036854775808"):
        with pytest.raises(pymysql.err.MySQLError) as e:
            clients.query(root, f"INSERT INTO h (id, u) VALUES (10, {v})")
        assert e.value.args[0] == 1264, v
    for v, stored in (("1e19", 10**19), ("'-0'", 0), ("'18446744073709551615'", 2**64 - 1), ("18446744073709551614.5", 2**64 - 1)):
        clients.query(root, f"INSERT INTO h (id, u) VALUES (10, {v})")
        assert clients.scalar(root, "SELECT u FROM h WHERE id = 10") == stored, v
        clients.query(root, "DELETE FROM h WHERE id = 10")


def shapes():
    return {
        "parens": lambda n: (f"SELECT {'(' * n}x{')' * n} FROM h", Decimal("1.50")),
        "unary_minus": lambda n: (f"SELECT {'- ' * n}x FROM h", Decimal("-1.50") if n % 2 else Decimal("1.50")),
        "product_chain": lambda n: (f"SELECT x{'*x' * n} FROM h", Decimal("1.5") ** (n + 1)),
        "half_chain": lambda n: (f"SELECT 0.5{'*0.5' * n} FROM h", Decimal("0.5") ** (n + 1)),
        "sum_chain": lambda n: (f"SELECT x{'+x' * n} FROM h", Decimal("1.50") * (n + 1)),
        "round": lambda n: (f"SELECT {'ROUND(' * n}x{',1)' * n} FROM h", Decimal("1.5")),
        "case": lambda n: (f"SELECT {'CASE WHEN 1 THEN ' * n}x{' END' * n} FROM h", Decimal("1.50")),
        "coalesce": lambda n: (f"SELECT {'COALESCE(' * n}x{',1)' * n} FROM h", Decimal("1.50")),
        "cast": lambda n: (f"SELECT {'CAST(' * n}x{' AS DECIMAL(10,2))' * n} FROM h", Decimal("1.50")),
        "where": lambda n: (f"SELECT id FROM h WHERE {'(' * n}x*2{')' * n} > 1", 1),
    }


@pytest.mark.parametrize("shape", sorted(shapes()))
def test_deep_exact_arithmetic_never_crashes(hdb, shape):
    srv, _, db = hdb
    for n in DEPTHS:
        sql, want = shapes()[shape](n)
        kind, val = answer(srv, db, sql)
        assert alive(srv), f"server gone after {shape} at {n} levels"
        if kind == "err":
            # MariaDB: 1436 at 1,000 levels for all but parentheses; a product
            # past 81 integer digits is 1690.
            assert val in (1436, 1690), (shape, n, val)
            continue
        got = val[0][0]
        if isinstance(want, Decimal):
            # Shown at the expression's scale (at most 30 digits).
            assert abs(Decimal(got) - want) <= Decimal("1e-30") * max(1, abs(want)), (shape, n, got)
        else:
            assert got == want, (shape, n, got)
