"""Statements the server evaluates itself, without an engine: SELECT without
FROM (literals, arithmetic, CONCAT, IF, functions, user variables, system
variables including Connector/J's startup query), the SET variants drivers
send on connect, and unknown system variables (1193)."""

import pymysql
import pymysql.cursors
import pytest

from helpers import clients, rawproto
from helpers.server import ROOT_PASSWORD

CONNECTOR_J_QUERY = (
    "SELECT @@session.auto_increment_increment AS auto_increment_increment, "
    "@@character_set_client AS character_set_client, "
    "@@character_set_connection AS character_set_connection, "
    "@@character_set_results AS character_set_results, "
    "@@character_set_server AS character_set_server, "
    "@@collation_server AS collation_server, "
    "@@collation_connection AS collation_connection, "
    "@@init_connect AS init_connect, "
    "@@interactive_timeout AS interactive_timeout, "
    "@@license AS license, "
    "@@lower_case_table_names AS lower_case_table_names, "
    "@@max_allowed_packet AS max_allowed_packet, "
    "@@net_write_timeout AS net_write_timeout, "
    "@@performance_schema AS performance_schema, "
    "@@query_cache_size AS query_cache_size, "
    "@@query_cache_type AS query_cache_type, "
    "@@sql_mode AS sql_mode, "
    "@@system_time_zone AS system_time_zone, "
    "@@time_zone AS time_zone, "
    "@@transaction_isolation AS transaction_isolation, "
    "@@wait_timeout AS wait_timeout"
)
CONNECTOR_J_COLUMNS = [part.rsplit(" AS ", 1)[1] for part in CONNECTOR_J_QUERY[len("SELECT "):].split(", ")]


@pytest.fixture
def conn(server):
    c = clients.root(server)
    yield c
    c.close()


@pytest.mark.parametrize(
    "sql,expected",
    [
        ("SELECT 1", 1),
        ("SELECT 1+2", 3),
        ("SELECT 'a'", "a"),
        ("SELECT CONCAT('a','b')", "ab"),
        ("SELECT IF(1,'y','n')", "y"),
        ("SELECT IF(0,'y','n')", "n"),
        ("SELECT NULL", None),
        ("SELECT LAST_INSERT_ID()", 0),
    ],
)
def test_select_without_from(conn, sql, expected):
    assert clients.scalar(conn, sql) == expected


def test_select_column_names(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT 1, 'a' AS x, @@version")
        assert [d[0] for d in cur.description] == ["1", "x", "@@version"]
        assert cur.fetchall()[0][:2] == (1, "a")


def test_select_functions(server, conn):
    with conn.cursor() as cur:
        cur.execute("SELECT DATABASE(), USER(), CURRENT_USER(), VERSION(), CONNECTION_ID(), LAST_INSERT_ID()")
        db, user, current, version, conn_id, last_id = cur.fetchone()
    assert db is None
    assert user.startswith("root@")
    assert current == "root@%"
    assert version and version == clients.scalar(conn, "SELECT @@version")
    assert conn_id == conn.thread_id()
    assert last_id == 0
    clients.query(conn, "USE mysql")
    assert clients.scalar(conn, "SELECT DATABASE()") == "mysql"


def test_system_variables(server, conn):
    with conn.cursor() as cur:
        cur.execute("SELECT @@version, @@max_allowed_packet, @@session.autocommit, @@global.max_connections")
        version, max_packet, autocommit, max_conn = cur.fetchone()
    assert isinstance(version, str) and version
    assert isinstance(max_packet, int) and max_packet > 0
    assert autocommit == 1
    assert max_conn == 100  # conftest starts the module server with --max-connections 100


def test_select_socket(server, conn):
    assert clients.scalar(conn, "SELECT @@socket") == server.socket
    sock_conn = clients.root(server, transport="socket")
    assert clients.scalar(sock_conn, "SELECT @@socket") == server.socket
    sock_conn.close()


def test_user_variables(server, conn):
    clients.query(conn, "SET @x = 5")
    assert clients.scalar(conn, "SELECT @x") == 5
    clients.query(conn, "SET @s = 'hello', @n = NULL")
    assert clients.query(conn, "SELECT @s, @n, @never_set") == (("hello", None, None),)
    other = clients.root(server)
    try:
        assert clients.scalar(other, "SELECT @x") is None  # user variables are per session
    finally:
        other.close()


def test_connector_j_startup_query(conn):
    with conn.cursor(pymysql.cursors.DictCursor) as cur:
        cur.execute(CONNECTOR_J_QUERY)
        assert [d[0] for d in cur.description] == CONNECTOR_J_COLUMNS
        rows = cur.fetchall()
    assert len(rows) == 1
    row = rows[0]
    assert int(row["auto_increment_increment"]) == 1
    for name in ("character_set_client", "character_set_connection", "character_set_server",
                 "collation_server", "collation_connection", "license", "sql_mode",
                 "system_time_zone", "time_zone", "transaction_isolation"):
        assert isinstance(row[name], str), (name, row[name])
    assert row["character_set_client"].startswith("utf8")
    assert row["collation_connection"].startswith(row["character_set_connection"])
    assert row["init_connect"] in ("", None)
    assert row["transaction_isolation"] == "REPEATABLE-READ"
    for name in ("interactive_timeout", "lower_case_table_names", "max_allowed_packet",
                 "net_write_timeout", "query_cache_size", "wait_timeout"):
        assert int(row[name]) >= 0, (name, row[name])
    assert int(row["max_allowed_packet"]) == clients.scalar(conn, "SELECT @@max_allowed_packet")
    assert int(row["wait_timeout"]) == clients.scalar(conn, "SELECT @@session.wait_timeout")


# ----------------------------------------------------------------------------
# SET


def test_set_names(conn):
    clients.query(conn, "SET NAMES utf8mb4")
    assert clients.query(
        conn, "SELECT @@character_set_client, @@character_set_connection, @@character_set_results"
    ) == (("utf8mb4", "utf8mb4", "utf8mb4"),)
    clients.query(conn, "SET NAMES 'utf8mb4' COLLATE 'utf8mb4_general_ci'")
    assert clients.scalar(conn, "SELECT @@collation_connection") == "utf8mb4_general_ci"


def test_set_autocommit(conn):
    clients.query(conn, "SET autocommit=0")
    assert clients.scalar(conn, "SELECT @@session.autocommit") == 0
    clients.query(conn, "SET autocommit=1")
    assert clients.scalar(conn, "SELECT @@autocommit") == 1
    clients.query(conn, "SET @@session.autocommit = OFF")
    assert clients.scalar(conn, "SELECT @@session.autocommit") == 0
    clients.query(conn, "SET @@session.autocommit = ON")
    assert clients.scalar(conn, "SELECT @@session.autocommit") == 1


def test_set_multiple_assignments(conn):
    clients.query(conn, "SET SESSION wait_timeout=100, @a=1")
    assert clients.query(conn, "SELECT @@session.wait_timeout, @a") == ((100, 1),)


def test_set_global_needs_admin(server, conn, uniq):
    before = clients.scalar(conn, "SELECT @@global.max_connections")
    clients.query(conn, "SET GLOBAL max_connections=500")
    try:
        assert clients.scalar(conn, "SELECT @@global.max_connections") == 500
        assert clients.query(conn, "SHOW GLOBAL VARIABLES LIKE 'max_connections'") == (("max_connections", "500"),)
        user = uniq("sg")
        clients.query(conn, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'sg-pw'")
        plain = clients.connect(server, user, "sg-pw")
        try:
            with pytest.raises(pymysql.err.MySQLError) as ei:
                clients.query(plain, "SET GLOBAL max_connections=7")
            assert ei.value.args[0] == 1227  # ER_SPECIFIC_ACCESS_DENIED_ERROR
        finally:
            plain.close()
        assert clients.scalar(conn, "SELECT @@global.max_connections") == 500
    finally:
        clients.query(conn, f"SET GLOBAL max_connections={before}")


def test_set_sql_mode_from_subquery(conn):
    clients.query(conn, "SET sql_mode=(SELECT CONCAT(@@sql_mode, ',PIPES_AS_CONCAT'))")
    mode = clients.scalar(conn, "SELECT @@sql_mode")
    assert "PIPES_AS_CONCAT" in mode.split(",")


def test_set_character_set_results_null(conn):
    clients.query(conn, "SET character_set_results = NULL")
    assert clients.scalar(conn, "SELECT @@character_set_results") is None


def test_session_settings_are_per_connection(server, conn):
    clients.query(conn, "SET SESSION wait_timeout=123")
    other = clients.root(server)
    try:
        assert clients.scalar(other, "SELECT @@session.wait_timeout") != 123
    finally:
        other.close()


def test_unknown_system_variable(conn):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, "SELECT @@no_such_variable")
    assert ei.value.args == (1193, "Unknown system variable 'no_such_variable'")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, "SET @@session.no_such_variable = 1")
    assert ei.value.args[0] == 1193
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, "SET no_such_variable = 1")
    assert ei.value.args[0] == 1193
    assert clients.scalar(conn, "SELECT 1") == 1


def test_unknown_system_variable_sqlstate(server):
    with rawproto.connect(server, "root", ROOT_PASSWORD) as c:
        with pytest.raises(rawproto.ServerError) as ei:
            c.query("SELECT @@no_such_variable")
        assert (ei.value.code, ei.value.sqlstate) == (1193, "HY000")


# ----------------------------------------------------------------------------
# MySQL's errors for common mistakes


@pytest.mark.mysql_compat
def test_set_variable_scope_errors(conn):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, "SET max_connections = 5")  # GLOBAL-only variable
    assert ei.value.args[0] == 1229
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, "SET GLOBAL version = 'x'")  # read-only
    assert ei.value.args[0] == 1238
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, "SET autocommit = 'maybe'")
    assert ei.value.args[0] == 1231
    assert clients.scalar(conn, "SELECT @@autocommit") == 1


@pytest.mark.mysql_compat
@pytest.mark.parametrize("sql", ["CREATE TABLE t_nodb (id INT)", "INSERT INTO t_nodb VALUES (1)", "SELECT * FROM t_nodb"])
def test_no_database_selected(conn, sql):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(conn, sql)
    assert ei.value.args == (1046, "No database selected")


@pytest.mark.mysql_compat
@pytest.mark.parametrize("sql", ["SELEKT 1", "FOO BAR", "SELECT 1 +"])
def test_syntax_error(conn, sql):
    with pytest.raises(pymysql.err.ProgrammingError) as ei:
        clients.query(conn, sql)
    assert ei.value.args[0] == 1064
    assert "SQL syntax" in ei.value.args[1]
    assert clients.scalar(conn, "SELECT 1") == 1


@pytest.mark.mysql_compat
def test_empty_query(server):
    with rawproto.connect(server, "root", ROOT_PASSWORD) as c:
        with pytest.raises(rawproto.ServerError) as ei:
            c.query("")
        assert (ei.value.code, ei.value.sqlstate) == (1065, "42000")
        assert c.scalar("SELECT 1") == "1"


def test_show_plugins_and_engines(conn):
    """SHOW PLUGINS (PyMySQL's own test suite reads it at import to pick its
    authentication tests) lists the authentication plugins logins may use and
    the storage engine as SHOW ENGINES names it; MariaDB's columns."""
    with conn.cursor() as cur:
        cur.execute("SHOW PLUGINS")
        assert [d[0] for d in cur.description] == ["Name", "Status", "Type", "Library", "License"]
        rows = {r[0]: r for r in cur.fetchall()}
        assert rows["mysql_native_password"][1:3] == ("ACTIVE", "AUTHENTICATION")
        assert rows["caching_sha2_password"][1:3] == ("ACTIVE", "AUTHENTICATION")
        cur.execute("SHOW ENGINES")
        engines = [r[0] for r in cur.fetchall()]
        assert engines and all(rows[e][2] == "STORAGE ENGINE" for e in engines)
        with pytest.raises(pymysql.err.ProgrammingError) as ei:
            cur.execute("SHOW PLUGINS x")
        assert ei.value.args[0] == 1064


def test_replication_status_as_without_binary_logging(server, conn, uniq):
    """SHOW MASTER/BINLOG STATUS and SHOW [ALL] SLAVE/REPLICA STATUS are
    empty results with MariaDB 10.11's columns (monitoring tools read them by
    name), SHOW BINARY/MASTER LOGS is 1381, as MariaDB answers with binary
    logging off; each needs an administrator (1227). SHOW STORAGE ENGINES is
    SHOW ENGINES; SHOW OPEN TABLES is empty."""
    with conn.cursor() as cur:
        for sql, ncols, first in [("SHOW MASTER STATUS", 4, "File"), ("SHOW BINLOG STATUS", 4, "File"), ("SHOW SLAVE STATUS", 54, "Slave_IO_State"),
                                  ("SHOW REPLICA STATUS", 54, "Slave_IO_State"), ("SHOW ALL SLAVES STATUS", 62, "Connection_name"), ("SHOW OPEN TABLES", 4, "Database")]:
            cur.execute(sql)
            assert (len(cur.description), cur.description[0][0], cur.fetchall()) == (ncols, first, ()), sql
        for sql in ["SHOW BINARY LOGS", "SHOW MASTER LOGS"]:
            with pytest.raises(pymysql.err.MySQLError) as ei:
                cur.execute(sql)
            assert ei.value.args == (1381, "You are not using binary logging")
        cur.execute("SHOW STORAGE ENGINES")
        engines = cur.fetchall()
        cur.execute("SHOW ENGINES")
        assert engines == cur.fetchall()
        user = uniq("repl")
        cur.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw-repl-1'")
    plain = clients.connect(server, user, "pw-repl-1")
    try:
        for sql in ["SHOW SLAVE STATUS", "SHOW MASTER STATUS", "SHOW BINARY LOGS"]:
            with pytest.raises(pymysql.err.MySQLError) as ei:
                clients.query(plain, sql)
            assert ei.value.args[0] == 1227, sql
    finally:
        plain.close()
