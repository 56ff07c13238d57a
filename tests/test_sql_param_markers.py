"""`?` markers read as MariaDB 10.11's lexer reads them (crates/sqltext/src/
lex.rs `count_markers`, `first_marker`; each expectation checked against it):

- In a statement to prepare (SQL PREPARE, COM_STMT_PREPARE) a `?` followed at
  once by a name character (`?FROM`) is no marker, and `??` is no SQL: 1064
  near that `?`, and no statement is held.
- A statement sent as text has no markers: `SELECT ?` is 1064 (it was NULL).
"""

from __future__ import annotations

import pytest

from helpers import clients, stmtproto
from helpers.server import ROOT_PASSWORD


def test_misplaced_markers_refused_at_prepare(sql_conn):
    for text, near in [("select ??", "?"), ("select ?FROM t1", "?FROM t1"), ("update t1 set a=a+?WHERE 1", "?WHERE 1"), ("select ?1", "?1")]:
        code, msg = clients.error(sql_conn, f'PREPARE s FROM "{text}"')
        assert code == 1064, text
        assert f"near '{near}'" in msg, msg
    assert clients.error(sql_conn, "EXECUTE s")[0] == 1243
    clients.query(sql_conn, "PREPARE s FROM 'SELECT ? + 1, ?'")
    assert clients.query(sql_conn, "EXECUTE s USING 1, 'x'") == ((2, "x"),)
    clients.query(sql_conn, "DEALLOCATE PREPARE s")


def test_marker_in_text_statement_is_syntax_error(sql_conn):
    code, msg = clients.error(sql_conn, "SELECT ?")
    assert code == 1064 and "near '?'" in msg
    assert clients.query(sql_conn, "SHOW WARNINGS")[0][:2] == ("Error", 1064)
    # Inside strings, quoted names and comments a `?` is text.
    assert clients.query(sql_conn, "SELECT '?' AS `?` /* ? */") == (("?",),)
    assert clients.query(sql_conn, "EXECUTE IMMEDIATE 'SELECT ?' USING 5") == ((5,),)


def test_binary_prepare_refuses_misplaced_marker(sql_server):
    conn = stmtproto.connect(sql_server.port, "root", ROOT_PASSWORD)
    try:
        with pytest.raises(Exception) as err:
            conn.prepare("SELECT ?FROM dual")
        assert "1064" in str(err.value)
    finally:
        conn.close_connection()
