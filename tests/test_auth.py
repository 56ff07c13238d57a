"""Authentication: mysql_native_password and caching_sha2_password users over
TCP, the unix socket and the admin port, with PyMySQL, the mysql CLI and the
raw protocol helper; wrong passwords and unknown users (1045 / 28000); the
root account from --root-password, TURNSTILE_ROOT_PASSWORD and
--allow-empty-root-password."""

import re

import pymysql
import pytest

from helpers import clients, rawproto
from helpers.server import ROOT_PASSWORD

PLUGINS = ["mysql_native_password", "caching_sha2_password"]
TRANSPORTS = ["tcp", "socket"]
ACCESS_DENIED_RE = r"^Access denied for user '{user}'@'[^']+' \(using password: {yes}\)$"


@pytest.fixture(scope="module")
def plugin_users(server):
    """One user per auth plugin, plus one created without a plugin clause."""
    conn = clients.root(server)
    users = {}
    for plugin in PLUGINS:
        name = "a_" + plugin.split("_")[0]  # a_mysql, a_caching
        pw = f"pw-{plugin}-Ok1"
        clients.query(conn, f"CREATE USER '{name}'@'%' IDENTIFIED WITH {plugin} BY '{pw}'")
        users[plugin] = (name, pw)
    clients.query(conn, "CREATE USER 'a_default'@'%' IDENTIFIED BY 'pw-default-Ok1'")
    users["default"] = ("a_default", "pw-default-Ok1")
    conn.close()
    return users


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("plugin", PLUGINS + ["default"])
def test_pymysql_login_each_plugin(server, plugin_users, plugin, transport):
    user, pw = plugin_users[plugin]
    # Twice: for caching_sha2_password the first login does the full
    # authentication and the second may take the fast (cached) path.
    for _ in range(2):
        conn = clients.connect(server, user, pw, transport=transport)
        try:
            assert clients.scalar(conn, "SELECT CURRENT_USER()") == f"{user}@%"
            assert clients.scalar(conn, "SELECT USER()").startswith(f"{user}@")
            assert clients.scalar(conn, "SELECT 1") == 1
        finally:
            conn.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("plugin", PLUGINS)
def test_raw_protocol_login_each_plugin(server, plugin_users, plugin, transport):
    """The raw helper answers AuthSwitchRequest / AuthMoreData itself, so
    whichever plugin the greeting offers, the login must succeed."""
    user, pw = plugin_users[plugin]
    for client_plugin in PLUGINS:
        with rawproto.connect(server, user, pw, transport=transport, plugin=client_plugin) as c:
            assert c.scalar("SELECT CURRENT_USER()") == f"{user}@%"


def test_greeting_advertises_caching_sha2_by_default(server):
    with rawproto.RawConnection.tcp(server.port) as c:
        g = c.read_greeting()
        assert g.protocol_version == 10
        assert g.auth_plugin == "caching_sha2_password"
        assert len(g.nonce) == 20
        assert g.connection_id > 0
        assert g.capabilities & rawproto.CLIENT_PROTOCOL_41
        assert g.capabilities & rawproto.CLIENT_PLUGIN_AUTH


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("plugin", PLUGINS)
def test_mysql_cli_login_each_plugin(server, plugin_users, plugin, transport):
    if not clients.mysql_cli():
        pytest.skip("mysql client not installed")
    user, pw = plugin_users[plugin]
    res = clients.run_cli(
        server,
        "SELECT CURRENT_USER()",
        user=user,
        password=pw,
        transport=transport,
        extra=["--batch", "--skip-column-names"],
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == f"{user}@%"


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("plugin", PLUGINS)
def test_wrong_password(server, plugin_users, plugin, transport):
    user, _ = plugin_users[plugin]
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.connect(server, user, "wrong-password", transport=transport)
    code, msg = ei.value.args
    assert code == 1045
    assert re.match(ACCESS_DENIED_RE.format(user=user, yes="YES"), msg), msg


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_unknown_user(server, transport):
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.connect(server, "no_such_user", "whatever", transport=transport)
    code, msg = ei.value.args
    assert code == 1045
    assert re.match(ACCESS_DENIED_RE.format(user="no_such_user", yes="YES"), msg), msg


@pytest.mark.parametrize("plugin", PLUGINS)
def test_wrong_password_sqlstate_raw(server, plugin_users, plugin):
    user, _ = plugin_users[plugin]
    for who in (user, "no_such_user"):
        with pytest.raises(rawproto.ServerError) as ei:
            rawproto.connect(server, who, "wrong-password", plugin=plugin)
        assert ei.value.code == 1045
        assert ei.value.sqlstate == "28000"
        assert re.match(ACCESS_DENIED_RE.format(user=who, yes="YES"), ei.value.message), ei.value.message


def test_empty_password_for_user_with_password(server, plugin_users):
    user, _ = plugin_users["mysql_native_password"]
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.connect(server, user, "")
    code, msg = ei.value.args
    assert code == 1045
    assert re.match(ACCESS_DENIED_RE.format(user=user, yes="NO"), msg), msg


def test_mysql_cli_wrong_password(server, plugin_users):
    if not clients.mysql_cli():
        pytest.skip("mysql client not installed")
    user, _ = plugin_users["mysql_native_password"]
    res = clients.run_cli(server, "SELECT 1", user=user, password="nope")
    assert res.returncode != 0
    assert "ERROR 1045 (28000)" in res.stderr, res.stderr


def test_failed_login_does_not_break_server(server, plugin_users):
    user, pw = plugin_users["caching_sha2_password"]
    for _ in range(3):
        with pytest.raises(pymysql.err.OperationalError):
            clients.connect(server, user, "bad")
    conn = clients.connect(server, user, pw)
    assert clients.scalar(conn, "SELECT 1") == 1
    conn.close()


@pytest.mark.parametrize("transport", ["tcp", "socket", "admin"])
def test_root_login_all_listeners(server, transport):
    conn = clients.root(server, transport=transport)
    try:
        assert clients.scalar(conn, "SELECT CURRENT_USER()") == "root@%"
        assert clients.scalar(conn, "SELECT CONNECTION_ID()") == conn.thread_id()
    finally:
        conn.close()


def test_root_password_from_environment(server_factory):
    srv = server_factory(root_password=None, env={"TURNSTILE_ROOT_PASSWORD": "from-env-Pw9"})
    conn = clients.connect(srv, "root", "from-env-Pw9")
    assert clients.scalar(conn, "SELECT CURRENT_USER()") == "root@%"
    conn.close()
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.connect(srv, "root", ROOT_PASSWORD)
    assert ei.value.args[0] == 1045


def test_allow_empty_root_password(server_factory):
    srv = server_factory("--allow-empty-root-password", root_password=None)
    for transport in TRANSPORTS:
        conn = clients.connect(srv, "root", "", transport=transport)
        assert clients.scalar(conn, "SELECT 1") == 1
        assert clients.scalar(conn, "SELECT CURRENT_USER()").startswith("root@")
        conn.close()
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.connect(srv, "root", "not-empty")
    assert ei.value.args[0] == 1045
