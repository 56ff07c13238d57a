"""A UNION's members compiled one by one to type its result columns
(crates/sqlite/src/exec/compile.rs union_members, rewrite/paren_union.rs
member_texts), and INSERT / CREATE TABLE ... SELECT of parenthesised members
(paren_union.rs unwrap_insert): new ways into the compiler, so each is tried
as an attacker would. An account granted one database learns nothing of
another through them, not even a column's type in a prepared statement's
metadata (MariaDB 10.11: ERR 1142 for each of these); text that only looks
like a set operator (in a string, a comment, a nested query) splits nothing;
the member count stays bounded by the 500 SELECTs a UNION may join, and the
server keeps serving after each.
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients, stmtproto

VAR_STRING = 253


@pytest.fixture
def two_dbs(two_dbs_factory):
    d = two_dbs_factory("um", home=["CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(20))", "INSERT INTO t VALUES (1, 'a')"])
    return d


def _code(conn, sql) -> int:
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, sql)
    return ei.value.args[0]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT id FROM {h}.t UNION SELECT s FROM {v}.secret",
        "SELECT 'x' UNION ALL SELECT s FROM {v}.secret",
        "INSERT INTO {h}.t (SELECT 5, 'q') UNION (SELECT id + 10, s FROM {v}.secret) LIMIT 2",
        "INSERT INTO {h}.t (id, s) (SELECT id + 10, s FROM {v}.secret) UNION (SELECT 6, 'r')",
        "CREATE TABLE {h}.stolen (SELECT 'x' AS s) UNION (SELECT s FROM {v}.secret)",
        "CREATE TABLE {h}.stolen2 AS (SELECT s FROM {v}.secret) UNION (SELECT 'x')",
        "CREATE TABLE {h}.stolen3 SELECT id FROM {h}.t UNION SELECT id FROM {v}.secret",
    ],
)
def test_no_member_reads_another_database(two_dbs, sql):
    d = two_dbs
    assert _code(d.att, sql.format(v=d.victim, h=d.home)) == 1142
    # Nothing was made or written, and the attacker's own tables are intact.
    assert clients.query(d.att, "SELECT id, s FROM t") == ((1, "a"),)
    assert clients.query(d.root, f"SHOW TABLES FROM {d.home} LIKE 'stolen%'") == ()
    # root may: the refusal is the privilege, not the form.
    clients.query(d.root, sql.format(v=d.victim, h=d.home))


def test_prepared_union_reveals_no_types_of_another_database(two_dbs):
    d = two_dbs
    b = stmtproto.connect(d.srv.port, d.user, "pw", db=d.home)
    try:
        with pytest.raises(Exception) as ei:
            b.prepare(f"SELECT 1 UNION SELECT s FROM {d.victim}.secret")
        assert "1142" in str(ei.value)
    finally:
        b.close_connection()
    assert clients.query(d.att, "SELECT 1") == ((1,),)


@pytest.mark.parametrize(
    "sql,rows",
    [
        ("SELECT 'x UNION SELECT 1' UNION SELECT 2", [("2",), ("x UNION SELECT 1",)]),
        ("SELECT ') UNION (' AS a UNION SELECT /* UNION SELECT 9 */ 2", [(") UNION (",), ("2",)]),
        ("SELECT (SELECT 1 UNION SELECT 2 LIMIT 1) UNION SELECT 'b'", [("1",), ("b",)]),
        ("SELECT id FROM t WHERE id IN (SELECT 1 UNION SELECT 'z') UNION SELECT 'c' ORDER BY 1", [("1",), ("c",)]),
        ("SELECT s FROM t UNION SELECT 'x' INTO @um_v", None),
    ],
)
def test_text_that_looks_like_a_set_operator_splits_nothing(two_dbs, sql, rows):
    d = two_dbs
    cur = d.att.cursor()
    try:
        cur.execute(sql)
    except pymysql.err.MySQLError as e:
        # SELECT ... INTO of two rows: MariaDB's 1172.
        assert rows is None and e.args[0] == 1172, e
        return
    got = cur.fetchall()
    assert cur._result.fields[0].type_code == VAR_STRING, sql
    assert sorted(got) == rows, sql


@pytest.mark.parametrize("members", [2, 100, 500, 501, 5000])
def test_member_count_is_bounded(two_dbs, members):
    d = two_dbs
    sql = " UNION ".join(f"SELECT {i}" if i % 2 else f"SELECT 'v{i}'" for i in range(members))
    cur = d.att.cursor()
    try:
        cur.execute(sql)
        assert len(cur.fetchall()) == members and cur._result.fields[0].type_code == VAR_STRING
    except pymysql.err.MySQLError as e:
        # Past SQLite's 500 compound SELECTs (docs/compatibility.md).
        assert members > 500 and e.args[0] == 1235, e
    assert clients.query(d.att, "SELECT 1") == ((1,),)


@pytest.mark.parametrize("depth", [1, 31, 33, 64, 5000])
def test_deep_parenthesised_insert_members_are_an_error_not_a_crash(two_dbs, depth):
    d = two_dbs
    sql = "INSERT INTO t " + "(" * depth + "SELECT 7, 'p'" + ")" * depth + " UNION (SELECT 8, 'q')"
    try:
        clients.query(d.att, sql)
        assert clients.query(d.att, "SELECT COUNT(*) FROM t WHERE id IN (7, 8)") == ((2,),)
    except pymysql.err.MySQLError as e:
        assert e.args[0] in (1064, 1436, 1473), e
    assert clients.query(d.att, "SELECT 1") == ((1,),)
