"""A UNION's result columns typed from all its members, as MariaDB 10.11 types
them (issue #23). Before, the metadata followed the first member only (SQLite's):
`SELECT 12 AS a UNION SELECT 'aa'` was sent as an INT, and PyMySQL failed
decoding 'aa' (ValueError); `12 UNION 12.2` an INT whose second value was 12.2.

Each case was run on MariaDB 10.11 with the same tables; the expected type
code, length, NOT NULL flag and values are what it sent. Checked over the text
protocol (PyMySQL) and the binary one (COM_STMT_EXECUTE), which encodes each
value by its column's type.
"""

import datetime
import decimal

import pytest

from helpers import stmtproto
from helpers.clients import query
from helpers.server import ROOT_PASSWORD

DB = "utypes_db"
TINY, LONG, FLOAT, DOUBLE, LONGLONG, DATETIME, YEAR = 1, 3, 4, 5, 8, 12, 13
NEWDECIMAL, BLOB, VAR_STRING, STRING = 246, 252, 253, 254
NOT_NULL = 1

# (query, MariaDB's type code, length, NOT NULL, its rows in its order)
CASES = [
    ("SELECT 12 AS a UNION SELECT 'aa'", VAR_STRING, 8, True, [("12",), ("aa",)]),
    ("SELECT 12 UNION SELECT 12.2", NEWDECIMAL, 5, True, [(decimal.Decimal("12.0"),), (decimal.Decimal("12.2"),)]),
    ("SELECT 1 UNION SELECT 22", LONG, 3, True, [(1,), (22,)]),
    ("SELECT 1 UNION SELECT NULL UNION SELECT 333", LONG, 4, False, None),
    ("SELECT NULL UNION SELECT NULL", STRING, 0, False, [(None,)]),
    ("SELECT 1 UNION SELECT 1e0", DOUBLE, None, True, [(1.0,)]),
    ("SELECT 123456789012 UNION SELECT 1", LONGLONG, 13, True, None),
    ("SELECT 'abc' UNION SELECT 12345", VAR_STRING, 20, True, [("abc",), ("12345",)]),
    ("SELECT ti FROM t UNION SELECT 1", LONG, 4, False, None),
    ("SELECT ti FROM t UNION SELECT i FROM t", LONG, 11, False, None),
    ("SELECT ti FROM t UNION SELECT ti FROM t", TINY, 4, False, [(1,)]),
    ("SELECT 0 UNION SELECT i FROM t", LONG, 11, True, None),
    ("SELECT su FROM t UNION SELECT ti FROM t", NEWDECIMAL, 6, False, [(decimal.Decimal("1"),)]),
    ("SELECT y FROM t UNION SELECT y FROM t", YEAR, 4, False, [(2001,)]),
    ("SELECT c2 FROM t UNION SELECT c5 FROM t", STRING, 20, False, None),
    ("SELECT c2 FROM t UNION SELECT v3 FROM t", VAR_STRING, 12, False, None),
    ("SELECT c2 FROM t UNION SELECT 1", STRING, 8, False, None),
    ("SELECT e FROM t UNION SELECT e FROM t", VAR_STRING, 12, False, [("a",)]),
    ("SELECT v3 FROM t UNION SELECT tx FROM t", BLOB, None, False, None),
    ("SELECT da FROM t UNION SELECT dt FROM t", DATETIME, 19, False, [(datetime.datetime(2001, 1, 1, 0, 0),), (datetime.datetime(2001, 1, 1, 10, 0),)]),
    ("SELECT 1 UNION SELECT da FROM t", VAR_STRING, 40, False, [("1",), ("2001-01-01",)]),
    ("SELECT d FROM t UNION SELECT i FROM t", NEWDECIMAL, 14, False, [(decimal.Decimal("1.50"),), (decimal.Decimal("1.00"),)]),
    ("SELECT f FROM t UNION SELECT i FROM t", DOUBLE, None, False, [(1.5,), (1.0,)]),
    ("SELECT f FROM t UNION SELECT ti FROM t", FLOAT, None, False, [(1.5,), (1.0,)]),
    ("SELECT i FROM t UNION SELECT i FROM t", LONG, 11, True, [(1,)]),
    ("(SELECT i FROM t LIMIT 1) UNION ALL (SELECT 'x') ORDER BY 1", VAR_STRING, 44, True, [("1",), ("x",)]),
    ("SELECT 'x' UNION SELECT 'yy' EXCEPT SELECT 'x'", VAR_STRING, 8, True, [("yy",)]),
]


@pytest.fixture(scope="module")
def conn(sql_server):
    from helpers import clients

    c = clients.root(sql_server)
    query(c, f"CREATE DATABASE {DB}")
    query(c, f"USE {DB}")
    query(
        c,
        "CREATE TABLE t (ti TINYINT, su SMALLINT UNSIGNED, i INT NOT NULL, y YEAR, d DECIMAL(5,2), f FLOAT,"
        " c2 CHAR(2), c5 CHAR(5), v3 VARCHAR(3), tx TEXT, e ENUM('a','bcd'), da DATE, dt DATETIME)",
    )
    query(c, "INSERT INTO t VALUES (1, 1, 1, 2001, 1.5, 1.5, 'a', 'b', 'c', 't', 'a', '2001-01-01', '2001-01-01 10:00:00')")
    yield c
    c.close()


@pytest.mark.parametrize("sql,ty,length,not_null,rows", CASES, ids=[c[0] for c in CASES])
def test_union_columns_typed_from_every_member(conn, sql, ty, length, not_null, rows):
    cur = conn.cursor()
    cur.execute(sql)
    got = cur.fetchall()
    f = cur._result.fields[0]
    assert f.type_code == ty, sql
    if length is not None:
        assert f.length == length, sql
    assert bool(f.flags & NOT_NULL) == not_null, sql
    if rows is not None:
        # In MariaDB's order: each row where it was first seen (union_order.rs).
        assert list(got) == rows, sql


def test_binary_protocol_encodes_every_member_by_the_joined_type(sql_server, conn):
    b = stmtproto.connect(sql_server.port, "root", ROOT_PASSWORD, db=DB)
    st = b.prepare("SELECT 12 AS a, ti FROM t UNION ALL SELECT 'aa', 12.5")
    r = b.execute(st)
    assert [c.type for c in r.cols] == [VAR_STRING, NEWDECIMAL]
    assert [tuple(row) for row in r.rows] == [(b"12", b"1.0"), (b"aa", b"12.5")]
    b.close_connection()


def test_members_that_do_not_compile_alone_keep_the_first_members_type(conn):
    """A member naming a CTE of the whole query is not typed alone: the
    first member's type stays (as before), and the query still runs."""
    cur = conn.cursor()
    cur.execute("WITH w AS (SELECT 5 AS v) SELECT v FROM w UNION SELECT 6")
    assert sorted(cur.fetchall()) == [(5,), (6,)]
    cur.execute("SELECT i FROM t UNION SELECT v FROM (SELECT 7 AS v) q")
    assert sorted(cur.fetchall()) == [(1,), (7,)]


def test_union_rows_come_in_the_order_first_seen(sql_server, conn):
    """SELECT ... UNION [DISTINCT] ... without ORDER BY returns each row where
    it was first seen, members left to right, as MariaDB 10.11 does (each
    answer checked there); before, SQLite's sorted order: `SELECT 1 UNION
    SELECT 0` gave 0, 1 (go-sql-driver's TestStmtMultiRows)."""
    cur = conn.cursor()
    cur.execute("CREATE TABLE uo (id INT, name VARCHAR(20), d DECIMAL(5,2))")
    cur.execute("INSERT INTO uo VALUES (3, 'c', 1.5), (1, 'a', 2.5), (2, 'B', NULL), (1, 'a', 2.5)")
    cases = [
        ("SELECT 1 UNION SELECT 0", [(1,), (0,)]),
        ("SELECT 0 AS id, 'All' AS name UNION SELECT id, name FROM uo", [(0, "All"), (3, "c"), (1, "a"), (2, "B")]),
        # Compared as the column's collation compares: 'A' is 'a' (utf8mb4_general_ci).
        ("SELECT name FROM uo UNION SELECT 'A' UNION SELECT 'b'", [("c",), ("a",), ("B",)]),
        ("SELECT id FROM uo UNION DISTINCT SELECT 9 LIMIT 1, 2", [(1,), (2,)]),
        ("SELECT NULL UNION SELECT 1 UNION SELECT NULL", [(None,), (1,)]),
        ("SELECT d FROM uo UNION SELECT 1", [(decimal.Decimal("1.50"),), (decimal.Decimal("2.50"),), (None,), (decimal.Decimal("1.00"),)]),
        # With ORDER BY the order is the ORDER BY's.
        ("SELECT 1 UNION SELECT 0 ORDER BY 1", [(0,), (1,)]),
    ]
    for sql, rows in cases:
        cur.execute(sql)
        assert list(cur.fetchall()) == rows, sql
    # Prepared (the binary protocol), twice from one statement.
    b = stmtproto.connect(sql_server.port, "root", ROOT_PASSWORD, db=DB)
    st = b.prepare("SELECT 1 UNION SELECT 0")
    for _ in range(2):
        assert [tuple(r) for r in b.execute(st).rows] == [(1,), (0,)]
    b.close_connection()
    cur.execute("DROP TABLE uo")
