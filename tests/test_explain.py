"""EXPLAIN of a statement, as MariaDB 10.11 answers it, through real drivers.

The column names, types, lengths and flags are MariaDB 10.11's (read from it
with PyMySQL: `id` BIGINT, `rows` a string, `filtered` DOUBLE, `partitions`
MEDIUMTEXT, FORMAT=JSON one `EXPLAIN` column). The rows describe Turnstile's
own plan (SQLite's) in MariaDB's words; for the simple plans checked here
they are the rows MariaDB gives for the same tables (checked against it),
and docs/compatibility.md says where they differ. Tests of what EXPLAIN
refuses and must never show are in tests/security/test_sec_explain.py.
"""

from __future__ import annotations

import json

import pymysql
import pytest

from helpers import clients

# (name, type code, length, flags) as MariaDB 10.11 sends them.
VS, LL, DBL, MBLOB = 253, 8, 5, 250
TRADITIONAL = [
    ("id", LL, 3, 0xA0),
    ("select_type", VS, 76, 0x1),
    ("table", VS, 256, 0),
    ("type", VS, 40, 0),
    ("possible_keys", VS, 16384, 0),
    ("key", VS, 256, 0),
    ("key_len", VS, 16384, 0),
    ("ref", VS, 8192, 0),
    ("rows", VS, 256, 0),
    ("Extra", VS, 1020, 0x1),
]


def _fields(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        rows = cur.fetchall()
        return [(f.name, f.type_code, f.length, f.flags) for f in cur._result.fields], rows


@pytest.fixture
def db(sql_server, uniq):
    name = uniq("expl")
    conn = clients.root(sql_server)
    for sql in [
        f"CREATE DATABASE {name}",
        f"USE {name}",
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10), KEY ia (a))",
        "CREATE TABLE u (x VARCHAR(10) PRIMARY KEY, y INT)",
        "INSERT INTO t VALUES (1, 1, 'x'), (2, 2, 'y'), (3, 3, 'z')",
        "INSERT INTO u VALUES ('x', 1)",
    ]:
        clients.query(conn, sql)
    conn.test_db = name
    yield conn
    clients.query(conn, f"DROP DATABASE {name}")
    conn.close()


def test_columns_are_mariadbs(db):
    fields, _ = _fields(db, "EXPLAIN SELECT * FROM t")
    assert fields == TRADITIONAL
    fields, _ = _fields(db, "EXPLAIN EXTENDED SELECT * FROM t")
    extended = TRADITIONAL[:8] + [("rows", VS, 256, 0x1), ("filtered", DBL, 4, 0x80), ("Extra", VS, 1020, 0x1)]
    assert fields == extended
    fields, _ = _fields(db, "EXPLAIN PARTITIONS SELECT * FROM t")
    assert fields == TRADITIONAL[:3] + [("partitions", MBLOB, 25264128, 0)] + TRADITIONAL[3:]
    fields, _ = _fields(db, "EXPLAIN FORMAT=JSON SELECT * FROM t")
    assert [f[:2] for f in fields] == [("EXPLAIN", VS)]
    fields, _ = _fields(db, "DESCRIBE SELECT * FROM t")
    assert fields == TRADITIONAL


# Statement -> MariaDB 10.11's rows for it on these tables (id, select_type,
# table, type, possible_keys, key, key_len, ref, Extra; rows left out).
SAME_AS_MARIADB = [
    ("SELECT * FROM t", [(1, "SIMPLE", "t", "ALL", None, None, None, None, "")]),
    ("SELECT * FROM t WHERE id = 1", [(1, "SIMPLE", "t", "const", "PRIMARY", "PRIMARY", "4", "const", "")]),
    ("SELECT * FROM t WHERE a = 1", [(1, "SIMPLE", "t", "ref", "ia", "ia", "5", "const", "")]),
    ("SELECT a FROM t WHERE a > 1", [(1, "SIMPLE", "t", "range", "ia", "ia", "5", None, "Using where; Using index")]),
    ("SELECT * FROM t ORDER BY b", [(1, "SIMPLE", "t", "ALL", None, None, None, None, "Using filesort")]),
    ("SELECT b, count(*) FROM t GROUP BY b", [(1, "SIMPLE", "t", "ALL", None, None, None, None, "Using temporary; Using filesort")]),
    ("SELECT 1", [(1, "SIMPLE", None, None, None, None, None, None, "No tables used")]),
    (
        "SELECT * FROM (SELECT a, count(*) FROM t GROUP BY a) d",
        [(1, "PRIMARY", "<derived2>", "ALL", None, None, None, None, ""), (2, "DERIVED", "t", "index", None, "ia", "5", None, "Using index")],
    ),
    (
        "SELECT a FROM t UNION SELECT y FROM u",
        [
            (1, "PRIMARY", "t", "index", None, "ia", "5", None, "Using index"),
            (2, "UNION", "u", "ALL", None, None, None, None, ""),
            (None, "UNION RESULT", "<union1,2>", "ALL", None, None, None, None, ""),
        ],
    ),
    (
        "SELECT (SELECT max(y) FROM u) FROM t",
        [(1, "PRIMARY", "t", "index", None, "ia", "5", None, "Using index"), (2, "SUBQUERY", "u", "ALL", None, None, None, None, "")],
    ),
    (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r",
        [
            (1, "PRIMARY", "<derived2>", "ALL", None, None, None, None, ""),
            (2, "DERIVED", None, None, None, None, None, None, "No tables used"),
            (3, "RECURSIVE UNION", "<derived2>", "ALL", None, None, None, None, ""),
            (None, "UNION RESULT", "<union2,3>", "ALL", None, None, None, None, ""),
        ],
    ),
    ("UPDATE t SET a = 2 WHERE id = 1", [(1, "SIMPLE", "t", "const", "PRIMARY", "PRIMARY", "4", "const", "")]),
    ("INSERT INTO t VALUES (9, 9, 'q')", [(1, "INSERT", "t", "ALL", None, None, None, None, None)]),
]


@pytest.mark.parametrize("stmt,want", SAME_AS_MARIADB, ids=[s for s, _ in SAME_AS_MARIADB])
def test_simple_plans(db, stmt, want):
    rows = clients.query(db, f"EXPLAIN {stmt}")
    assert [r[:8] + r[9:] for r in rows] == want
    for r in rows:
        # rows: an estimate, as a string, NULL only where MariaDB has NULL.
        assert (r[8] is None) == (r[2] is None or r[1] in ("INSERT", "UNION RESULT")), r
        assert r[8] is None or int(r[8]) >= 1


def test_rows_are_estimates(db):
    """The span of the row ids before ANALYZE TABLE, its count after."""
    assert clients.query(db, "EXPLAIN SELECT * FROM t")[0][8] == "3"
    clients.query(db, "INSERT INTO t VALUES (100, 4, 'w')")
    assert clients.query(db, "EXPLAIN SELECT * FROM t")[0][8] == "100"
    clients.query(db, "ANALYZE TABLE t")
    assert clients.query(db, "EXPLAIN SELECT * FROM t")[0][8] == "4"


def test_extended_has_filtered_and_note_1003(db):
    with db.cursor() as cur:
        cur.execute("EXPLAIN EXTENDED SELECT * FROM t WHERE a = 1")
        rows = cur.fetchall()
        assert rows[0][9] == 100.0
        cur.execute("SHOW WARNINGS")
        assert cur.fetchall() == (("Note", 1003, "SELECT * FROM t WHERE a = 1"),)


def test_text_of_filtered(sql_server, db):
    """`filtered` travels as MariaDB's text, 100.00."""
    raw = pymysql.connect(host="127.0.0.1", port=sql_server.port, user="root", password=clients.ROOT_PASSWORD, database=db.test_db, conv=dict(pymysql.converters.encoders))
    try:
        with raw.cursor() as cur:
            cur.execute("EXPLAIN EXTENDED SELECT * FROM t")
            assert cur.fetchall()[0][9] in ("100.00", b"100.00")
    finally:
        raw.close()


def test_format_json(db):
    doc = json.loads(clients.scalar(db, "EXPLAIN FORMAT=JSON SELECT * FROM t WHERE a = 1"))
    table = doc["query_block"]["nested_loop"][0]["table"]
    assert doc["query_block"]["select_id"] == 1
    assert {k: table[k] for k in ("table_name", "access_type", "possible_keys", "key", "key_length", "used_key_parts", "ref")} == {
        "table_name": "t",
        "access_type": "ref",
        "possible_keys": ["ia"],
        "key": "ia",
        "key_length": "5",
        "used_key_parts": ["a"],
        "ref": ["const"],
    }
    assert json.loads(clients.scalar(db, "EXPLAIN FORMAT=JSON SELECT 1")) == {"query_block": {"select_id": 1, "table": {"message": "No tables used"}}}
    # A union: MariaDB's union_result over its parts.
    doc = json.loads(clients.scalar(db, "EXPLAIN FORMAT=JSON SELECT a FROM t UNION SELECT y FROM u"))
    union = doc["query_block"]["union_result"]
    assert (union["table_name"], union["access_type"]) == ("<union1,2>", "ALL")
    specs = [q["query_block"] for q in union["query_specifications"]]
    assert [(q["select_id"], q.get("operation"), q["nested_loop"][0]["table"]["table_name"]) for q in specs] == [(1, None, "t"), (2, "UNION", "u")]
    doc = json.loads(clients.scalar(db, "EXPLAIN FORMAT=JSON SELECT (SELECT max(y) FROM u) FROM t"))
    assert doc["query_block"]["subqueries"][0]["query_block"]["nested_loop"][0]["table"]["table_name"] == "u"
    doc = json.loads(clients.scalar(db, "EXPLAIN FORMAT=JSON UPDATE t SET a = 1 WHERE a > 2"))
    assert doc["query_block"]["nested_loop"][0]["table"]["update"] == 1


def test_describe_of_a_table_or_of_a_statement(db):
    """DESCRIBE/EXPLAIN of a table keeps its columns; of a statement, its plan;
    a word that starts no statement is still a table's name (MariaDB)."""
    assert [r[0] for r in clients.query(db, "DESCRIBE t")] == ["id", "a", "b"]
    assert [r[0] for r in clients.query(db, "EXPLAIN t")] == ["id", "a", "b"]
    assert [r[0] for r in clients.query(db, "DESC t a")] == ["a"]
    assert [r[2] for r in clients.query(db, "DESC SELECT * FROM t")] == ["t"]
    assert [r[2] for r in clients.query(db, "DESCRIBE EXTENDED SELECT * FROM t")] == ["t"]
    for sql, code in [("EXPLAIN SELEC 1", 1064), ("EXPLAIN EXTENDED", 1146)]:
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(db, sql)
        assert ei.value.args[0] == code


@pytest.mark.parametrize(
    "sql,code",
    [
        ("EXPLAIN FORMAT=xml SELECT 1", 1791),
        ("EXPLAIN SELECT * FROM nosuch", 1146),
        ("EXPLAIN SELECT nosuch FROM t", 1054),
        ("ANALYZE SELECT * FROM t", 1235),
        ("ANALYZE FORMAT=JSON SELECT * FROM t", 1235),
        ("EXPLAIN FOR CONNECTION 1", 1235),
    ],
)
def test_errors(db, sql, code):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(db, sql)
    assert ei.value.args[0] == code


def test_temporary_tables_and_transactions(db):
    clients.query(db, "CREATE TEMPORARY TABLE tt (k INT PRIMARY KEY)")
    rows = clients.query(db, "EXPLAIN SELECT * FROM tt JOIN t ON t.id = tt.k")
    assert [(r[2], r[3]) for r in rows] == [("tt", "ALL"), ("t", "eq_ref")]
    db.begin()
    clients.query(db, "DELETE FROM t WHERE id = 3")
    # MariaDB: a DELETE of every row reads nothing.
    assert clients.query(db, "EXPLAIN DELETE FROM t")[0][1:] == ("SIMPLE", None, None, None, None, None, None, "2", "Deleting all rows")
    assert clients.query(db, "EXPLAIN DELETE FROM t WHERE a = 1")[0][2:4] == ("t", "ref")
    db.rollback()
    assert clients.scalar(db, "SELECT count(*) FROM t") == 3


def test_binary_protocol(sql_server, db):
    """COM_STMT_PREPARE / EXECUTE of an EXPLAIN with a parameter (MySQL Connector/Python)."""
    import mysql.connector

    conn = mysql.connector.connect(host="127.0.0.1", port=sql_server.port, user="root", password=clients.ROOT_PASSWORD, database=db.test_db)
    try:
        cur = conn.cursor(prepared=True)
        cur.execute("EXPLAIN SELECT * FROM t WHERE id = %s", (2,))
        rows = cur.fetchall()
        assert [c[0] for c in cur.description] == [f[0] for f in TRADITIONAL]
        assert rows[0][0] == 1 and rows[0][2] == "t" and rows[0][5] == "PRIMARY"
        cur.execute("EXPLAIN EXTENDED SELECT * FROM t WHERE id = %s", (2,))
        assert cur.fetchall()[0][9] == 100.0
    finally:
        conn.close()


def test_blackhole_engine(server, uniq):
    """The blackhole engine stores nothing: MariaDB's EXPLAIN columns and no
    rows, refused as the explained statement is (a write needs the write's
    privilege)."""
    db, user = uniq("bhx"), uniq("bhu")
    root = clients.root(server)
    clients.query(root, f"CREATE DATABASE {db}")
    clients.query(root, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    clients.query(root, f"GRANT SELECT ON {db}.* TO '{user}'@'%'")
    try:
        conn = clients.connect(server, user, "pw", database=db)
        with conn.cursor() as cur:
            cur.execute("EXPLAIN SELECT * FROM t WHERE a = 1")
            assert [d[0] for d in cur.description] == [f[0] for f in TRADITIONAL]
            assert cur.fetchall() == ()
        for sql in ["EXPLAIN UPDATE t SET a = 1", f"EXPLAIN DELETE FROM {db}.t", "EXPLAIN INSERT INTO t VALUES (1)"]:
            with pytest.raises(pymysql.err.MySQLError) as ei:
                clients.query(conn, sql)
            assert ei.value.args[0] == 1142, sql
        assert [r for r in clients.query(conn, "DESCRIBE t")] == []
        conn.close()
    finally:
        clients.query(root, f"DROP USER '{user}'@'%'")
        clients.query(root, f"DROP DATABASE {db}")
        root.close()
