"""Metadata the binary protocol and COM_FIELD_LIST send, compared with MariaDB
10.11 packet by packet:

* COM_STMT_PREPARE of a SELECT without a table describes its columns (the
  count and names, a `?` as MYSQL_TYPE_NULL, a literal by its type), as
  MariaDB does; before, Turnstile sent none, so a driver that reads the
  column count at prepare saw a statement without a result set;
* a statement prepared before ALTER TABLE is re-prepared at its execute,
  also when the execute opens a cursor: the columns of the table as it is
  now, or the error the statement now gets (1054), never stale metadata;
* a column read through a table alias, a view, a derived table or a CTE is described
  with that alias as its table (and org_table, org_name as MariaDB sends
  them); before, SQLite's origin table was sent (go-sql-driver's
  columnsWithAlias read `one` for `A.one`);
* COM_FIELD_LIST sends each column's default as MariaDB keeps it in its
  default row (the literal; NULL for a nullable column without one; the
  type's zero value for a NOT NULL column without one); before, every
  default was NULL. Read with MariaDB Connector/C's mysql_list_fields too.
"""

import pathlib
import shutil
import subprocess

import pytest

from helpers import rawproto, stmtproto
from helpers.server import ROOT_PASSWORD

DB = "meta_db"
HERE = pathlib.Path(__file__).resolve().parent
T_NULL = 6


@pytest.fixture(scope="module")
def srv(sql_server):
    b = stmtproto.connect(sql_server.port, "root", ROOT_PASSWORD)
    b.query(f"CREATE DATABASE {DB}")
    b.query(
        f"CREATE TABLE {DB}.fl (a INT PRIMARY KEY, b VARCHAR(10) NOT NULL, c VARCHAR(10) DEFAULT 'zz', d INT DEFAULT 5,"
        " e DATETIME NULL, f TEXT, g INT NOT NULL DEFAULT 7, h DECIMAL(5,2) DEFAULT 1.5,"
        " i TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, k DATE NOT NULL, l BLOB NOT NULL,"
        " n ENUM('p','q') NOT NULL, o VARCHAR(5) DEFAULT '', t TIME(3) NOT NULL)"
    )
    b.close_connection()
    return sql_server


def connect(srv):
    return stmtproto.connect(srv.port, "root", ROOT_PASSWORD, db=DB)


@pytest.mark.parametrize(
    "sql,names,types",
    [
        ("SELECT ?", [b"?"], [T_NULL]),
        ("SELECT 1", [b"1"], [stmtproto.T_LONG]),  # MariaDB: INT, a short literal
        ("SELECT 1, 'a' AS x, ? AS p", [b"1", b"x", b"p"], [stmtproto.T_LONG, stmtproto.T_VAR_STRING, T_NULL]),
        ("SELECT @@version_comment", [b"@@version_comment"], [stmtproto.T_VAR_STRING]),
        ("SELECT CONCAT(?, 'x')", [b"CONCAT(?, 'x')"], [stmtproto.T_VAR_STRING]),
    ],
)
def test_prepare_describes_a_select_without_a_table(srv, sql, names, types):
    b = connect(srv)
    st = b.prepare(sql)
    assert [c.name for c in st.cols] == names
    assert [c.type for c in st.cols] == types
    b.close_connection()


def test_prepare_of_a_select_with_side_effects_does_not_run_it(srv):
    b = connect(srv)
    b.query("SET @v = 1")
    st = b.prepare("SELECT @v := @v + 1")
    assert len(st.cols) == 1
    assert b.query("SELECT @v").rows == [(b"1",)]
    b.close_connection()


def test_statement_prepared_before_alter_table_is_prepared_again(srv):
    b = connect(srv)
    b.query("CREATE TABLE rp (a INT PRIMARY KEY, b VARCHAR(5))")
    b.query("INSERT INTO rp VALUES (1, 'x')")
    star, ab, one = b.prepare("SELECT * FROM rp"), b.prepare("SELECT a, b FROM rp"), b.prepare("SELECT b FROM rp WHERE a = ?")
    b.query("ALTER TABLE rp ADD COLUMN c INT DEFAULT 7")
    r = b.execute(star)
    assert ([c.name for c in r.cols], r.rows) == ([b"a", b"b", b"c"], [(1, b"x", 7)])
    cur = b.execute_cursor(star)
    assert [c.name for c in cur.cols] == [b"a", b"b", b"c"]
    assert b.fetch(star.id, 5, cur.cols).rows == [(1, b"x", 7)]
    b.query("ALTER TABLE rp MODIFY b VARCHAR(20)")
    r = b.execute(one, [(stmtproto.T_LONGLONG, 1)])
    assert (r.cols[0].length, r.rows) == (80, [(b"x",)])
    b.query("ALTER TABLE rp DROP COLUMN b")
    with pytest.raises(rawproto.ServerError) as e:
        b.execute_cursor(ab)
    assert e.value.code == 1054
    cur = b.execute_cursor(star)
    assert b.fetch(star.id, 5, cur.cols).rows == [(1, 7)]
    b.query("DROP TABLE rp")
    b.close_connection()


# What MariaDB 10.11 sends for the same table (its DECIMAL default with the scale).
EXPECTED_DEFAULTS = {
    b"a": b"0",
    b"b": b"",
    b"c": b"zz",
    b"d": b"5",
    b"e": None,
    b"f": None,
    b"g": b"7",
    b"h": b"1.50",
    b"i": b"0000-00-00 00:00:00",
    b"k": b"0000-00-00",
    b"l": b"",
    b"n": b"p",
    b"o": b"",
    b"t": b"00:00:00.000",
}


def test_field_list_sends_defaults_as_mariadb(srv):
    c = rawproto.RawConnection.tcp(srv.port)
    c.handshake("root", ROOT_PASSWORD, db=DB)
    c.command(0x04, b"fl\0")
    got = {}
    while True:
        p = c.read_packet()
        if p[:1] == b"\xfe" and len(p) < 9:
            break
        r = rawproto.Reader(p)
        fields = [r.lenenc_str() for _ in range(6)]
        r.lenenc_int()
        r.take(12)
        got[fields[4]] = r.lenenc_str()
        assert r.remaining() == 0
    assert got == EXPECTED_DEFAULTS
    c.close()


def test_connector_c_lists_fields_and_stays_in_step(srv, tmp_path):
    cc, config = shutil.which("cc"), shutil.which("mariadb_config")
    if not cc or not config:
        pytest.skip("needs cc and libmariadb-dev (mariadb_config)")
    flags = subprocess.run([config, "--cflags", "--libs"], capture_output=True, text=True, check=True).stdout.split()
    exe = str(tmp_path / "cursor_client")
    subprocess.run([cc, "-O1", "-o", exe, str(HERE / "helpers" / "cursor_client.c"), *flags], check=True)
    r = subprocess.run([exe, "127.0.0.1", str(srv.port), "root", ROOT_PASSWORD, DB, "fields", "fl"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[-1] == "q:still in sync"
    listed = dict(line.split("\t") for line in lines[:-1])
    assert listed == {k.decode(): "\\N" if v is None else v.decode() for k, v in EXPECTED_DEFAULTS.items()}


def _defs(srv, sql):
    """(schema, table, org_table, name, org_name) of each column of `sql`'s result."""
    c = rawproto.RawConnection.tcp(srv.port)
    c.handshake("root", ROOT_PASSWORD, db=DB)
    c.command(rawproto.COM_QUERY, sql.encode())
    n = rawproto.Reader(c.read_packet()).lenenc_int()
    out = []
    for _ in range(n):
        r = rawproto.Reader(c.read_packet())
        f = [r.lenenc_str() for _ in range(6)]
        out.append(tuple(x.decode() for x in f[1:]))
    c.close()
    return out


# What MariaDB 10.11 sends for each (schema, table, org_table, name, org_name).
ALIASED = [
    ("SELECT * FROM (SELECT 1 AS one) AS A", [("", "A", "", "one", "one")]),
    ("SELECT A.one FROM (SELECT 1 AS one) AS A", [("", "A", "", "one", "one")]),
    ("SELECT * FROM (SELECT a, b FROM al) AS d", [(DB, "d", "d", "a", "a"), (DB, "d", "d", "b", "b")]),
    ("SELECT x.a FROM al AS x", [(DB, "x", "al", "a", "a")]),
    ("SELECT a FROM al x WHERE a = 1", [(DB, "x", "al", "a", "a")]),
    ("SELECT x.a, y.b FROM al x, al y", [(DB, "x", "al", "a", "a"), (DB, "y", "al", "b", "b")]),
    ("WITH c AS (SELECT a FROM al) SELECT * FROM c", [(DB, "c", "c", "a", "a")]),
    ("SELECT one + 1 FROM (SELECT 1 AS one) AS A", [("", "", "", "one + 1", "")]),
    ("SELECT * FROM (SELECT a FROM al) d JOIN al ON d.a = al.a", [(DB, "d", "d", "a", "a"), (DB, "al", "al", "a", "a"), (DB, "al", "al", "b", "b")]),
    ("SELECT d.z AS w FROM (SELECT a AS z FROM al) d", [(DB, "d", "d", "w", "z")]),
    ("SELECT * FROM (SELECT * FROM (SELECT a FROM al) i) o", [(DB, "o", "o", "a", "a")]),
    ("SELECT al.a FROM al", [(DB, "al", "al", "a", "a")]),
    ("SELECT d.* FROM (SELECT a FROM al UNION SELECT 2) d", [("", "d", "", "a", "a")]),
    ("SELECT x.* FROM al x", [(DB, "x", "al", "a", "a"), (DB, "x", "al", "b", "b")]),
    ("SELECT a FROM al x UNION SELECT 1", [("", "", "", "a", "a")]),
    ("SELECT a AS z, b FROM al UNION SELECT 1, 'x'", [("", "", "", "z", "z"), ("", "", "", "b", "b")]),
    ("SELECT 1 UNION SELECT 2", [("", "", "", "1", "1")]),
    ("SELECT * FROM alv", [(DB, "alv", "alv", "a", "a"), (DB, "alv", "alv", "bb", "bb")]),
    ("SELECT w.a FROM alv AS w", [(DB, "w", "w", "a", "a")]),
]


@pytest.fixture(scope="module")
def aliased(srv):
    b = connect(srv)
    b.query("CREATE TABLE al (a INT PRIMARY KEY, b VARCHAR(10))")
    b.query("CREATE VIEW alv AS SELECT a, b AS bb FROM al")
    b.close_connection()
    return srv


@pytest.mark.parametrize("sql,expected", ALIASED, ids=[s for s, _ in ALIASED])
def test_columns_carry_the_alias_of_their_from_item(aliased, sql, expected):
    assert _defs(aliased, sql) == expected


@pytest.mark.parametrize("sql,expected", ALIASED[:4], ids=[s for s, _ in ALIASED[:4]])
def test_prepared_statements_describe_aliases_too(aliased, sql, expected):
    b = connect(aliased)
    st = b.prepare(sql)
    assert [(c.table.decode(), c.name.decode()) for c in st.cols] == [(e[1], e[3]) for e in expected]
    r = b.execute(st)
    assert [(c.table.decode(), c.name.decode()) for c in r.cols] == [(e[1], e[3]) for e in expected]
    b.close_connection()
