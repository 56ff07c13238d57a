"""Deprecation warnings and rounded variable values, as MariaDB 10.11 raises
them (every expectation taken from MariaDB running the same statements):

- `SELECT ... FROM ... INTO @v` and `(SELECT ...) UNION (SELECT ...) INTO @v`
  (INTO after the FROM clause or a UNION) warn 1287; `SELECT ... INTO @v
  FROM ...` does not. In a routine body the warning comes at CREATE.
- SET of @@big_tables, @@old_alter_table and @@storage_engine warns 1287.
- A YEAR column declared with any width but 4 is Note 1287 naming the width
  (clipped to 4294967295), at CREATE TABLE and ALTER TABLE alike.
- Variables MariaDB sizes in blocks are rounded down to a multiple of the
  block (tmp_table_size 16 KiB, max_allowed_packet 1 KiB, read_buffer_size
  4 KiB, join_buffer_size 128), with Warning 1292 when SET rounds.
"""

import pytest

from helpers.clients import query, scalar

INTO_TEXT = ("'<select expression> INTO <destination>;' is deprecated and will be removed in a future release. "
             "Please use 'SELECT <select list> INTO <destination> FROM...' instead")


@pytest.fixture
def db(db_with_t):
    return db_with_t


def warnings(conn):
    return [tuple(r) for r in query(conn, "SHOW WARNINGS")]


def test_select_into_after_from_is_deprecated(sql_conn, db):
    query(sql_conn, "SELECT a FROM t INTO @v")
    assert warnings(sql_conn) == [("Warning", 1287, INTO_TEXT)]
    assert scalar(sql_conn, "SELECT @v") == 7
    query(sql_conn, "(SELECT 1) UNION (SELECT 2) ORDER BY 1 DESC LIMIT 1 INTO @u")
    assert warnings(sql_conn) == [("Warning", 1287, INTO_TEXT)]
    assert scalar(sql_conn, "SELECT @u") == 2
    query(sql_conn, "SELECT a INTO @w FROM t")
    assert warnings(sql_conn) == []
    # The text inside a subquery or a string is not the statement's INTO.
    query(sql_conn, "SELECT (SELECT a FROM t) INTO @x")
    assert warnings(sql_conn) == []


def test_routine_with_trailing_into_warns_at_create(sql_conn, db):
    query(sql_conn, "CREATE FUNCTION f() RETURNS INT BEGIN DECLARE x INT; SELECT MAX(a) FROM t INTO x; RETURN x; END")
    assert warnings(sql_conn) == [("Warning", 1287, INTO_TEXT)]
    assert scalar(sql_conn, "SELECT f() FROM t") == 7
    assert warnings(sql_conn) == []
    query(sql_conn, "CREATE PROCEDURE p() BEGIN DECLARE x INT; IF 1 THEN SELECT a INTO x FROM t; END IF; END")
    assert warnings(sql_conn) == []


@pytest.mark.parametrize("name,instead", [("big_tables", None), ("old_alter_table", "alter_algorithm"), ("storage_engine", "default_storage_engine")])
def test_set_of_deprecated_variable_warns(sql_conn, name, instead):
    before = scalar(sql_conn, f"SELECT @@session.{name}")
    query(sql_conn, f"SET SESSION {name} = {before!r}" if isinstance(before, str) else f"SET SESSION {name} = {before}")
    text = f"'@@{name}' is deprecated and will be removed in a future release"
    if instead:
        text += f". Please use '@@{instead}' instead"
    assert warnings(sql_conn) == [("Warning", 1287, text)]


@pytest.mark.parametrize("width,shown", [(0, 0), (1, 1), (2, 2), (3, 3), (5, 5), (100, 100), (4294967296, 4294967295), (99999999999999999999, 4294967295)])
def test_year_width_other_than_four_is_a_note(sql_conn, db, width, shown):
    query(sql_conn, f"CREATE TABLE y (a YEAR({width}))")
    assert warnings(sql_conn) == [("Note", 1287, f"'YEAR({shown})' is deprecated and will be removed in a future release. Please use YEAR(4) instead")]
    created = query(sql_conn, "SHOW CREATE TABLE y")[0][1]
    assert ("`a` year(2)" if width == 2 else "`a` year(4)") in created


def test_year_four_is_silent_and_alter_notes_too(sql_conn, db):
    query(sql_conn, "CREATE TABLE y (a YEAR(4), b YEAR)")
    assert warnings(sql_conn) == []
    query(sql_conn, "ALTER TABLE y MODIFY b YEAR(2)")
    assert warnings(sql_conn) == [("Note", 1287, "'YEAR(2)' is deprecated and will be removed in a future release. Please use YEAR(4) instead")]
    query(sql_conn, "ALTER TABLE y ADD c YEAR(7)")
    assert warnings(sql_conn) == [("Note", 1287, "'YEAR(7)' is deprecated and will be removed in a future release. Please use YEAR(4) instead")]


@pytest.mark.parametrize("name,given,kept", [
    ("tmp_table_size", 1024, 0),
    ("tmp_table_size", 20000, 16384),
    ("tmp_table_size", 1000000, 999424),
    ("join_buffer_size", 1000001, 999936),
    ("read_buffer_size", 1003000, 999424),
    ("max_heap_table_size", 1003000, 1002496),
])
def test_block_sized_variables_round_down_with_a_warning(sql_conn, name, given, kept):
    saved = scalar(sql_conn, f"SELECT @@session.{name}")
    try:
        query(sql_conn, f"SET SESSION {name} = {given}")
        assert warnings(sql_conn) == [("Warning", 1292, f"Truncated incorrect {name} value: '{given}'")]
        assert scalar(sql_conn, f"SELECT @@session.{name}") == kept
    finally:
        query(sql_conn, f"SET SESSION {name} = {saved}")


def test_enable_disable_keys_note_for_engines_without_the_option(sql_conn, db):
    """ALTER TABLE ... ENABLE|DISABLE KEYS: MariaDB's Note 1031 for an
    InnoDB (or MEMORY) table; MyISAM and Aria have the option."""
    query(sql_conn, "ALTER TABLE t DISABLE KEYS")
    assert warnings(sql_conn) == [("Note", 1031, f"Storage engine InnoDB of the table `{db}`.`t` doesn't have this option")]
    query(sql_conn, "ALTER TABLE t ADD b INT, ENABLE KEYS")
    assert warnings(sql_conn) == [("Note", 1031, f"Storage engine InnoDB of the table `{db}`.`t` doesn't have this option")]
    query(sql_conn, "CREATE TABLE m (a INT) ENGINE=MyISAM")
    query(sql_conn, "ALTER TABLE m DISABLE KEYS")
    assert warnings(sql_conn) == []
