"""Account management SQL: CREATE USER (both plugins, default plugin), DROP
USER, ALTER USER ... IDENTIFIED BY, SET PASSWORD FOR, GRANT / REVOKE on *.*
and db.*, SHOW GRANTS [FOR], and accounts, grants and databases persisting
across a server restart on the same datadir."""

import re

import pymysql
import pytest

from helpers import clients
from helpers.server import ROOT_PASSWORD


def _can_login(srv, user, pw, **kw):
    try:
        c = clients.connect(srv, user, pw, **kw)
    except pymysql.err.OperationalError as e:
        assert e.args[0] == 1045, e.args
        return False
    try:
        assert clients.scalar(c, "SELECT CURRENT_USER()") == f"{user}@%"
    finally:
        c.close()
    return True


def _grants(conn, user=None):
    sql = "SHOW GRANTS" if user is None else f"SHOW GRANTS FOR '{user}'@'%'"
    with conn.cursor() as cur:
        cur.execute(sql)
        assert len(cur.description) == 1
        return [r[0] for r in cur.fetchall()]


@pytest.mark.parametrize("clause", ["", "WITH mysql_native_password ", "WITH caching_sha2_password "])
def test_create_and_drop_user(server, root_conn, uniq, clause):
    user = uniq("cu")
    clients.query(root_conn, f"CREATE USER '{user}'@'%' IDENTIFIED {clause}BY 'first-Pw1'")
    for transport in ("tcp", "socket"):
        assert _can_login(server, user, "first-Pw1", transport=transport)
        assert not _can_login(server, user, "other", transport=transport)
    clients.query(root_conn, f"DROP USER '{user}'@'%'")
    assert not _can_login(server, user, "first-Pw1")


@pytest.mark.mysql_compat
def test_create_existing_user_fails(root_conn, uniq):
    user = uniq("dup")
    clients.query(root_conn, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'x'")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(root_conn, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'y'")
    assert ei.value.args[0] == 1396  # ER_CANNOT_USER
    clients.query(root_conn, f"CREATE USER IF NOT EXISTS '{user}'@'%' IDENTIFIED BY 'y'")
    clients.query(root_conn, f"DROP USER '{user}'@'%'")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(root_conn, f"DROP USER '{user}'@'%'")
    assert ei.value.args[0] == 1396
    clients.query(root_conn, f"DROP USER IF EXISTS '{user}'@'%'")


@pytest.mark.parametrize("plugin", ["mysql_native_password", "caching_sha2_password"])
def test_alter_user_and_set_password(server, root_conn, uniq, plugin):
    user = uniq("pw")
    clients.query(root_conn, f"CREATE USER '{user}'@'%' IDENTIFIED WITH {plugin} BY 'p1'")
    assert _can_login(server, user, "p1")
    clients.query(root_conn, f"ALTER USER '{user}'@'%' IDENTIFIED BY 'p2'")
    assert not _can_login(server, user, "p1")
    assert _can_login(server, user, "p2")
    assert _can_login(server, user, "p2", transport="socket")
    clients.query(root_conn, f"SET PASSWORD FOR '{user}'@'%' = 'p3'")
    assert not _can_login(server, user, "p2")
    assert _can_login(server, user, "p3")
    assert _can_login(server, user, "p3", transport="socket")


def test_grant_revoke_database(server, root_conn, uniq):
    user, db, other_db = uniq("gu"), uniq("gdb"), uniq("godb")
    clients.query(root_conn, f"CREATE DATABASE {db}")
    clients.query(root_conn, f"CREATE DATABASE {other_db}")
    clients.query(root_conn, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'g-pw'")

    # No privileges yet: USAGE only, no access to the database.
    assert _grants(root_conn, user) == [f"GRANT USAGE ON *.* TO `{user}`@`%`"]
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.connect(server, user, "g-pw", database=db)
    assert ei.value.args[0] == 1044

    clients.query(root_conn, f"GRANT SELECT ON {db}.* TO '{user}'@'%'")
    grants = _grants(root_conn, user)
    assert f"GRANT SELECT ON `{db}`.* TO `{user}`@`%`" in grants, grants
    conn = clients.connect(server, user, "g-pw", database=db)
    try:
        assert clients.scalar(conn, "SELECT DATABASE()") == db
        assert f"GRANT SELECT ON `{db}`.* TO `{user}`@`%`" in _grants(conn)
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(conn, f"USE {other_db}")
        assert ei.value.args[0] == 1044
        dbs = {r[0] for r in clients.query(conn, "SHOW DATABASES")}
        assert db in dbs
    finally:
        conn.close()

    clients.query(root_conn, f"GRANT SELECT, INSERT, UPDATE ON {db}.* TO '{user}'@'%'")
    line = [g for g in _grants(root_conn, user) if f"ON `{db}`.*" in g]
    assert len(line) == 1, line
    assert re.fullmatch(rf"GRANT (SELECT|INSERT|UPDATE)(, (SELECT|INSERT|UPDATE)){{2}} ON `{db}`\.\* TO `{user}`@`%`", line[0]), line
    assert all(p in line[0] for p in ("SELECT", "INSERT", "UPDATE"))

    clients.query(root_conn, f"REVOKE INSERT ON {db}.* FROM '{user}'@'%'")
    line = [g for g in _grants(root_conn, user) if f"ON `{db}`.*" in g]
    assert len(line) == 1 and "INSERT" not in line[0] and "SELECT" in line[0], line

    clients.query(root_conn, f"REVOKE ALL ON {db}.* FROM '{user}'@'%'")
    assert _grants(root_conn, user) == [f"GRANT USAGE ON *.* TO `{user}`@`%`"]
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.connect(server, user, "g-pw", database=db)
    assert ei.value.args[0] == 1044


def test_grant_all_global(server, root_conn, uniq):
    user, db = uniq("ga"), uniq("gadb")
    clients.query(root_conn, f"CREATE DATABASE {db}")
    clients.query(root_conn, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'ga-pw'")
    clients.query(root_conn, f"GRANT ALL ON *.* TO '{user}'@'%'")
    global_line = [g for g in _grants(root_conn, user) if " ON *.* TO " in g]
    assert global_line and ("ALL PRIVILEGES" in global_line[0] or "SELECT" in global_line[0]), global_line
    conn = clients.connect(server, user, "ga-pw", database=db)
    try:
        clients.query(conn, "USE mysql")
        # Global ALL makes the user an admin: SET GLOBAL works.
        before = clients.scalar(conn, "SELECT @@global.max_connections")
        clients.query(conn, f"SET GLOBAL max_connections = {before}")
    finally:
        conn.close()
    clients.query(root_conn, f"REVOKE ALL ON *.* FROM '{user}'@'%'")
    assert _grants(root_conn, user) == [f"GRANT USAGE ON *.* TO `{user}`@`%`"]
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.connect(server, user, "ga-pw", database=db)
    assert ei.value.args[0] == 1044


def test_show_grants_for_root(root_conn):
    grants = _grants(root_conn)
    assert any(g.startswith("GRANT ALL PRIVILEGES ON *.* TO `root`@`%`") or
               (" ON *.* TO `root`@`%`" in g and "SELECT" in g) for g in grants), grants
    assert _grants(root_conn, "root") == grants


def test_accounts_persist_across_restart(server_factory):
    first = server_factory()
    conn = clients.root(first)
    clients.query(conn, "CREATE DATABASE persist_db")
    clients.query(conn, "CREATE USER 'keep_native'@'%' IDENTIFIED WITH mysql_native_password BY 'kn-1'")
    clients.query(conn, "CREATE USER 'keep_sha2'@'%' IDENTIFIED WITH caching_sha2_password BY 'ks-1'")
    clients.query(conn, "CREATE USER 'gone'@'%' IDENTIFIED BY 'g-1'")
    clients.query(conn, "GRANT SELECT ON persist_db.* TO 'keep_native'@'%'")
    clients.query(conn, "ALTER USER 'keep_sha2'@'%' IDENTIFIED BY 'ks-2'")
    clients.query(conn, "DROP USER 'gone'@'%'")
    conn.close()
    assert first.stop() == 0

    second = server_factory(datadir=first.datadir)
    assert _can_login(second, "keep_native", "kn-1", database="persist_db")
    assert _can_login(second, "keep_sha2", "ks-2")
    assert _can_login(second, "keep_sha2", "ks-2", transport="socket")
    assert not _can_login(second, "keep_sha2", "ks-1")
    assert not _can_login(second, "gone", "g-1")
    conn = clients.root(second)
    try:
        assert "GRANT SELECT ON `persist_db`.* TO `keep_native`@`%`" in _grants(conn, "keep_native")
        assert "persist_db" in {r[0] for r in clients.query(conn, "SHOW DATABASES")}
    finally:
        conn.close()


@pytest.mark.mysql_compat
def test_plain_user_cannot_manage_accounts(server, root_conn, uniq):
    user, victim = uniq("pl"), uniq("pv")
    clients.query(root_conn, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pl-pw'")
    conn = clients.connect(server, user, "pl-pw")
    try:
        for sql in (
            f"CREATE USER '{victim}'@'%' IDENTIFIED BY 'x'",
            f"GRANT ALL ON *.* TO '{user}'@'%'",
            "ALTER USER 'root'@'%' IDENTIFIED BY 'hijacked'",
        ):
            with pytest.raises(pymysql.err.MySQLError) as ei:
                clients.query(conn, sql)
            assert ei.value.args[0] in (1227, 1044, 1045), (sql, ei.value.args)
    finally:
        conn.close()
    assert not _can_login(server, victim, "x")
    assert _can_login(server, "root", ROOT_PASSWORD)  # root's password is unchanged
    assert _grants(root_conn, user) == [f"GRANT USAGE ON *.* TO `{user}`@`%`"]


@pytest.mark.mysql_compat
def test_show_grants_for_unknown_user(root_conn):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(root_conn, "SHOW GRANTS FOR 'nobody_here'@'%'")
    assert ei.value.args[0] == 1141


@pytest.mark.mysql_compat
def test_table_privileges_enforced(server, root_conn, uniq):
    user, db = uniq("tp"), uniq("tpdb")
    clients.query(root_conn, f"CREATE DATABASE {db}")
    clients.query(root_conn, f"CREATE TABLE {db}.t (id INT)")
    clients.query(root_conn, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'tp-pw'")
    clients.query(root_conn, f"GRANT SELECT ON {db}.* TO '{user}'@'%'")
    conn = clients.connect(server, user, "tp-pw", database=db)
    try:
        assert clients.query(conn, "SELECT * FROM t") == ()
        with pytest.raises(pymysql.err.MySQLError) as ei:
            clients.query(conn, "INSERT INTO t VALUES (1)")
        assert ei.value.args[0] == 1142
        assert ei.value.args[1].startswith(f"INSERT command denied to user '{user}'@"), ei.value.args
    finally:
        conn.close()
