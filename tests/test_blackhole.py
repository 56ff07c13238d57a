"""The blackhole engine: CREATE/DROP DATABASE and SHOW DATABASES work and
databases are directories in the datadir (system schemas are listed too);
CREATE TABLE and INSERT/UPDATE/DELETE succeed with 0 affected rows; SELECT
from a table returns an empty result set."""

import os

import pymysql
import pytest

from helpers import clients, rawproto
from helpers.server import ROOT_PASSWORD

SYSTEM_SCHEMAS = {"information_schema", "mysql", "performance_schema"}


def _databases(conn):
    with conn.cursor() as cur:
        cur.execute("SHOW DATABASES")
        assert [d[0] for d in cur.description] == ["Database"]
        return [r[0] for r in cur.fetchall()]


def _db_dirs(datadir, name, max_depth=3):
    """Directories called `name` anywhere (a few levels deep) under datadir:
    the spec says databases are directories, not where exactly."""
    found = []
    base_depth = datadir.rstrip(os.sep).count(os.sep)
    for root, dirs, _ in os.walk(datadir):
        if root.count(os.sep) - base_depth >= max_depth:
            dirs[:] = []
        found += [os.path.join(root, d) for d in dirs if d == name]
    return found


def test_show_databases_lists_system_schemas(root_conn):
    assert SYSTEM_SCHEMAS <= set(_databases(root_conn))


def test_create_drop_database(server, root_conn, uniq):
    db = uniq("bh")
    clients.query(root_conn, f"CREATE DATABASE {db}")
    assert db in _databases(root_conn)
    assert _db_dirs(server.datadir, db), f"no directory {db!r} under the datadir"
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(root_conn, f"CREATE DATABASE {db}")
    assert ei.value.args[0] == 1007  # ER_DB_CREATE_EXISTS
    clients.query(root_conn, f"CREATE DATABASE IF NOT EXISTS {db}")
    # Visible from another session and usable as a default database.
    other = clients.root(server, database=db)
    assert clients.scalar(other, "SELECT DATABASE()") == db
    other.close()
    clients.query(root_conn, f"DROP DATABASE {db}")
    assert db not in _databases(root_conn)
    assert not _db_dirs(server.datadir, db), "database directory left behind by DROP DATABASE"
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(root_conn, f"DROP DATABASE {db}")
    assert ei.value.args[0] == 1008  # ER_DB_DROP_EXISTS
    clients.query(root_conn, f"DROP DATABASE IF EXISTS {db}")
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.root(server, database=db)
    assert ei.value.args[0] == 1049


def test_table_dml_stores_nothing(server, root_conn, uniq):
    db = uniq("bhdml")
    clients.query(root_conn, f"CREATE DATABASE {db}")
    clients.query(root_conn, f"USE {db}")
    with root_conn.cursor() as cur:
        assert cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))") == 0
        assert cur.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')") == 0
        assert cur.execute("INSERT INTO t (id, v) VALUES (%s, %s)", (3, "c")) == 0
        assert cur.execute("UPDATE t SET v = 'z' WHERE id = 1") == 0
        assert cur.execute("DELETE FROM t WHERE id = 2") == 0
        assert cur.execute("DELETE FROM t") == 0

        cur.execute("SELECT * FROM t")
        assert cur.description is not None, "SELECT from a table must return a result set"
        assert cur.fetchall() == ()

        cur.execute("SELECT id, v FROM t WHERE id = 1")
        assert [d[0] for d in cur.description] == ["id", "v"]
        assert cur.fetchall() == ()

        cur.execute(f"SELECT id FROM {db}.t")
        assert cur.fetchall() == ()


def test_select_from_table_raw(server, root_conn, uniq):
    db = uniq("bhraw")
    clients.query(root_conn, f"CREATE DATABASE {db}")
    clients.query(root_conn, f"CREATE TABLE {db}.t (id INT, name VARCHAR(20))")
    with rawproto.connect(server, "root", ROOT_PASSWORD, db=db) as c:
        ins = c.query("INSERT INTO t VALUES (1, 'x')")
        assert isinstance(ins, rawproto.OkPacket) and ins.affected_rows == 0
        rs = c.query("SELECT id, name FROM t")
        assert isinstance(rs, rawproto.ResultSet)
        assert rs.names == ["id", "name"]
        assert rs.rows == []


def test_databases_survive_restart(server_factory):
    first = server_factory()
    conn = clients.root(first)
    clients.query(conn, "CREATE DATABASE durable_db")
    clients.query(conn, "CREATE DATABASE dropped_db")
    clients.query(conn, "DROP DATABASE dropped_db")
    conn.close()
    assert first.stop() == 0
    second = server_factory(datadir=first.datadir)
    conn = clients.root(second)
    try:
        dbs = set(_databases(conn))
        assert "durable_db" in dbs
        assert "dropped_db" not in dbs
        assert SYSTEM_SCHEMAS <= dbs
        clients.query(conn, "USE durable_db")
    finally:
        conn.close()
