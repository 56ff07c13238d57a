"""Files on disk (issue #20, item 5): the data directory holds password
hashes (accounts.json) and every database, so only the server's user may read
it: directories 0700, files 0600 (the SQLite database, its -wal file, the
catalog directories, the lock file), and an existing directory with wider
modes is tightened at start-up, with each change logged. The Unix socket is
the one file for others: 0777, as MySQL makes it, so any local user may
connect."""

import os
import stat

from helpers import clients


def _mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def _tree(datadir):
    """Every directory and file under `datadir` with its mode."""
    out = {datadir: _mode(datadir)}
    for root, dirs, files in os.walk(datadir):
        for name in dirs + files:
            p = os.path.join(root, name)
            out[p] = _mode(p)
    return out


def _write_data(srv):
    conn = clients.root(srv)
    clients.query(conn, "CREATE DATABASE sf_db")
    clients.query(conn, "CREATE TABLE sf_db.t (id INT PRIMARY KEY, secret VARCHAR(20))")
    clients.query(conn, "INSERT INTO sf_db.t VALUES (1, 'x'), (2, 'y')")
    clients.query(conn, "CREATE USER 'sf_user'@'%' IDENTIFIED BY 'sf-pw'")
    conn.close()


def test_new_files_are_private_and_socket_is_open(server_factory):
    srv = server_factory(engine="sqlite")
    _write_data(srv)
    d = srv.datadir
    db = os.path.join(d, "databases", "sf_db")
    expected = {
        d: 0o700,
        os.path.join(d, "databases"): 0o700,
        db: 0o700,
        os.path.join(d, "accounts.json"): 0o600,
        os.path.join(d, "turnstile.lock"): 0o600,
        os.path.join(db, "data.sqlite"): 0o600,
        os.path.join(db, "data.sqlite-wal"): 0o600,
    }
    assert {p: _mode(p) for p in expected} == expected
    # Nothing else in the tree is readable by group or others either.
    wide = {p: oct(m) for p, m in _tree(d).items() if m & 0o077}
    assert wide == {}
    assert stat.S_ISSOCK(os.lstat(srv.socket).st_mode)
    assert _mode(srv.socket) == 0o777
    # The socket works, and the data is there.
    conn = clients.root(srv, transport="socket")
    assert clients.query(conn, "SELECT secret FROM sf_db.t ORDER BY id") == (("x",), ("y",))
    conn.close()


def test_existing_datadir_is_tightened_at_start(server_factory):
    """A data directory left world-readable (by an older version, or by hand)
    is tightened when the server starts, and the log names what changed."""
    first = server_factory(engine="sqlite")
    _write_data(first)
    first.stop()
    d = first.datadir
    for p in _tree(d):
        os.chmod(p, 0o755 if os.path.isdir(p) else 0o644)
    second = server_factory(engine="sqlite", datadir=d)
    after = _tree(d)
    assert {p: oct(m) for p, m in after.items() if m & 0o077} == {}
    assert all(m == (0o700 if os.path.isdir(p) else 0o600) for p, m in after.items())
    log = second.log_tail(400)
    assert f"permissions 644 -> 600 (group and other access removed) path={os.path.join(d, 'accounts.json')}" in log
    assert f"permissions 755 -> 700 (group and other access removed) path={d}" in log
    assert "data directory permissions tightened" in log
    conn = clients.root(second)
    assert clients.query(conn, "SELECT COUNT(*) FROM sf_db.t") == ((2,),)
    clients.query(conn, "INSERT INTO sf_db.t VALUES (3, 'z')")
    conn.close()
    assert _mode(os.path.join(d, "databases", "sf_db", "data.sqlite")) == 0o600
