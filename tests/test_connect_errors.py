"""Connection-level errors: unknown database (1049 / 42000) at connect time,
by USE and by COM_INIT_DB; no privilege on a database (1044 / 42000); too
many connections (1040 / 08004) with the +1 admin slot and the admin port
still answering; --max_connections / --max-connections spellings and
SET GLOBAL max_connections."""

import re

import pymysql
import pytest

from helpers import clients, rawproto
from helpers.server import ROOT_PASSWORD


@pytest.fixture(scope="module")
def setup(server):
    conn = clients.root(server)
    clients.query(conn, "CREATE DATABASE ce_allowed")
    clients.query(conn, "CREATE DATABASE ce_forbidden")
    clients.query(conn, "CREATE USER 'ce_user'@'%' IDENTIFIED WITH mysql_native_password BY 'ce-pw'")
    clients.query(conn, "GRANT ALL ON ce_allowed.* TO 'ce_user'@'%'")
    conn.close()
    return ("ce_user", "ce-pw")


@pytest.mark.parametrize("transport", ["tcp", "socket"])
def test_unknown_database_at_connect(server, transport):
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.root(server, transport=transport, database="no_such_db")
    code, msg = ei.value.args
    assert code == 1049
    assert msg == "Unknown database 'no_such_db'"


def test_unknown_database_at_connect_sqlstate(server, root_password):
    with pytest.raises(rawproto.ServerError) as ei:
        rawproto.connect(server, "root", root_password, db="no_such_db")
    assert (ei.value.code, ei.value.sqlstate) == (1049, "42000")
    assert ei.value.message == "Unknown database 'no_such_db'"


def test_unknown_database_use_and_init_db(root_conn):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(root_conn, "USE no_such_db")
    assert ei.value.args == (1049, "Unknown database 'no_such_db'")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        root_conn.select_db("no_such_db2")  # COM_INIT_DB
    assert ei.value.args == (1049, "Unknown database 'no_such_db2'")
    # The session is still usable and still has no default database.
    assert clients.scalar(root_conn, "SELECT DATABASE()") is None


def test_unknown_database_init_db_raw(server, root_password):
    with rawproto.connect(server, "root", root_password) as c:
        with pytest.raises(rawproto.ServerError) as ei:
            c.init_db("no_such_db")
        assert (ei.value.code, ei.value.sqlstate) == (1049, "42000")
        c.init_db("mysql")
        assert c.scalar("SELECT DATABASE()") == "mysql"


def test_database_access_denied_at_connect(server, setup):
    user, pw = setup
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.connect(server, user, pw, database="ce_forbidden")
    code, msg = ei.value.args
    assert code == 1044
    assert re.match(r"^Access denied for user 'ce_user'@'[^']+' to database 'ce_forbidden'$", msg), msg
    with pytest.raises(rawproto.ServerError) as ei:
        rawproto.connect(server, user, pw, db="ce_forbidden")
    assert (ei.value.code, ei.value.sqlstate) == (1044, "42000")


def test_database_access_denied_on_use(server, setup):
    user, pw = setup
    conn = clients.connect(server, user, pw, database="ce_allowed")
    try:
        assert clients.scalar(conn, "SELECT DATABASE()") == "ce_allowed"
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(conn, "USE ce_forbidden")
        assert ei.value.args[0] == 1044
        assert "to database 'ce_forbidden'" in ei.value.args[1]
        with pytest.raises(pymysql.err.MySQLError) as ei:
            conn.select_db("ce_forbidden")
        assert ei.value.args[0] == 1044
        # Still in the allowed database.
        assert clients.scalar(conn, "SELECT DATABASE()") == "ce_allowed"
        clients.query(conn, "USE ce_allowed")
    finally:
        conn.close()


# ----------------------------------------------------------------------------
# max_connections


def _plain_user(srv):
    conn = clients.root(srv)
    clients.query(conn, "CREATE USER 'plain'@'%' IDENTIFIED WITH mysql_native_password BY 'plain-pw'")
    conn.close()
    return "plain", "plain-pw"


def _expect_1040(fn):
    with pytest.raises(pymysql.err.OperationalError) as ei:
        fn()
    assert ei.value.args == (1040, "Too many connections"), ei.value.args


def test_too_many_connections(server_factory):
    srv = server_factory("--max-connections", "3")
    user, pw = _plain_user(srv)
    # Wait for the setup connection to be gone before filling the slots.
    held = []
    try:
        def fill():
            while len(held) < 3:
                held.append(clients.connect(srv, user, pw))
            return True

        assert clients.wait_until(lambda: _try(fill), timeout=10), "could not open 3 connections"
        # Normal users: over the limit, on TCP and on the socket.
        _expect_1040(lambda: clients.connect(srv, user, pw))
        _expect_1040(lambda: clients.connect(srv, user, pw, transport="socket"))
        with pytest.raises(rawproto.ServerError) as ei:
            rawproto.connect(srv, user, pw)
        assert (ei.value.code, ei.value.sqlstate, ei.value.message) == (1040, "08004", "Too many connections")
        # The existing sessions are unaffected.
        assert all(clients.scalar(c, "SELECT 1") == 1 for c in held)
        # One extra connection is reserved for an admin on the main port...
        admin = clients.root(srv)
        held.append(admin)
        assert clients.scalar(admin, "SELECT @@global.max_connections") == 3
        rows = clients.query(admin, "SHOW PROCESSLIST")
        assert len([r for r in rows if r[1] == user]) == 3
        # ...but only one.
        _expect_1040(lambda: clients.root(srv))
        # Refused in place of the greeting: ERR 1040 without a SQLSTATE, as
        # MariaDB sends it (the client's protocol is not known yet).
        with pytest.raises(rawproto.ServerError) as ei:
            rawproto.connect(srv, "root", ROOT_PASSWORD)
        assert (ei.value.code, ei.value.sqlstate, ei.value.message) == (1040, None, "Too many connections")
        # The admin port still accepts admins.
        for _ in range(2):
            a = clients.root(srv, transport="admin")
            held.append(a)
            assert clients.scalar(a, "SELECT CURRENT_USER()") == "root@%"
        # Closing a normal session frees its slot (the admin on the main port
        # goes too, otherwise it still occupies max_connections + 1).
        held.remove(admin)
        admin.close()
        held.pop(0).close()
        c = []
        assert clients.wait_until(lambda: _try(lambda: c.append(clients.connect(srv, user, pw))), timeout=10)
        held.extend(c)
        assert clients.scalar(c[0], "SELECT 1") == 1
    finally:
        for c in held:
            c.close()


def _try(fn):
    try:
        fn()
        return True
    except pymysql.err.OperationalError as e:
        if e.args[0] != 1040:
            raise
        return False


def test_set_global_max_connections_changes_limit(server_factory):
    srv = server_factory("--max-connections", "2")
    user, pw = _plain_user(srv)
    held = []
    try:
        assert clients.wait_until(
            lambda: _try(lambda: [held.append(clients.connect(srv, user, pw)) for _ in range(2 - len(held))]),
            timeout=10,
        )
        _expect_1040(lambda: clients.connect(srv, user, pw))
        admin = clients.root(srv)
        held.append(admin)
        clients.query(admin, "SET GLOBAL max_connections = 4")
        assert clients.scalar(admin, "SELECT @@global.max_connections") == 4
        held.append(clients.connect(srv, user, pw))
        assert clients.scalar(held[-1], "SELECT 1") == 1
    finally:
        for c in held:
            c.close()


@pytest.mark.parametrize("flag", ["--max_connections", "--max-connections"])
def test_max_connections_flag_spellings(server_factory, flag):
    srv = server_factory(flag, "7")
    conn = clients.root(srv)
    assert clients.scalar(conn, "SELECT @@global.max_connections") == 7
    assert clients.query(conn, "SHOW VARIABLES LIKE 'max_connections'") == (("max_connections", "7"),)
    conn.close()
