"""BACKUP DATA TO 'dir' (issue #26 item 6) turned against the server: it
writes files anywhere the server's user may, so who may run it and where it
may write are the attack surface.

- Who: only an administrator. An account with every privilege on its own
  database, with every global privilege but the administrator's, or reaching
  the statement through PREPARE, EXECUTE IMMEDIATE or a stored procedure
  with SQL SECURITY INVOKER gets 1227 and nothing is written.
- Where: `..` and `.` parts, relative paths, NUL bytes, the data directory
  itself or anything inside it (a copy there would show up as a database at
  the next start), a symbolic link as the target (to an empty directory, to
  a file, dangling), a path far past PATH_MAX and a component past NAME_MAX:
  each refused with a MySQL error, no SQLite or Rust text, nothing written
  and no partial copy left beside the target; the server keeps serving.
"""

import os
import shutil
import tempfile

import pytest

from helpers import clients


@pytest.fixture
def srv(server_factory):
    s = server_factory(engine="sqlite")
    root = clients.root(s)
    clients.query(root, "CREATE DATABASE sb_own")
    clients.query(root, "CREATE TABLE sb_own.t (a INT)")
    clients.query(root, "CREATE USER 'sb_owner'@'%' IDENTIFIED BY 'Owner-pw-1'")
    clients.query(root, "GRANT ALL ON sb_own.* TO 'sb_owner'@'%' WITH GRANT OPTION")
    # Every global privilege an account can hold short of the administrator's bit.
    clients.query(root, "CREATE USER 'sb_wide'@'%' IDENTIFIED BY 'Wide-pw-1'")
    clients.query(root, "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX, REFERENCES, CREATE ROUTINE, ALTER ROUTINE, EXECUTE, TRIGGER, CREATE TEMPORARY TABLES, LOCK TABLES ON *.* TO 'sb_wide'@'%' WITH GRANT OPTION")
    root.close()
    return s


@pytest.fixture
def place():
    base = tempfile.mkdtemp(prefix="ts-sb-", dir="/tmp")
    yield base
    shutil.rmtree(base, ignore_errors=True)


def test_only_administrators(srv, place):
    target = os.path.join(place, "copy")
    for user, pw in [("sb_owner", "Owner-pw-1"), ("sb_wide", "Wide-pw-1")]:
        conn = clients.connect(srv, user, pw, database="sb_own")
        assert clients.error(conn, f"BACKUP DATA TO '{target}'")[0] == 1227
        clients.query(conn, f"PREPARE s FROM 'BACKUP DATA TO ''{target}'''")
        assert clients.error(conn, "EXECUTE s")[0] == 1227
        assert clients.error(conn, f"EXECUTE IMMEDIATE 'BACKUP DATA TO ''{target}'''")[0] == 1227
        conn.close()
    owner = clients.connect(srv, "sb_owner", "Owner-pw-1", database="sb_own")
    clients.query(owner, f"CREATE PROCEDURE sb_own.p() SQL SECURITY INVOKER BACKUP DATA TO '{target}'")
    assert clients.error(owner, "CALL sb_own.p()")[0] == 1227
    owner.close()
    assert os.listdir(place) == []
    root = clients.root(srv)
    assert clients.query(root, f"BACKUP DATA TO '{target}'")[0][1] == 1
    assert os.listdir(place) == ["copy"]


def test_hostile_targets(srv, place):
    root = clients.root(srv)
    datadir = os.path.realpath(srv.datadir)
    empty = os.path.join(place, "empty")
    os.makedirs(empty)
    afile = os.path.join(place, "afile")
    open(afile, "w").close()
    os.symlink(empty, os.path.join(place, "link_dir"))
    os.symlink(afile, os.path.join(place, "link_file"))
    os.symlink(os.path.join(place, "nowhere"), os.path.join(place, "link_dangling"))
    os.symlink(datadir, os.path.join(place, "link_datadir"))
    before = sorted(os.listdir(place))
    cases = {
        f"{place}/../{os.path.basename(place)}/x": 1210,
        f"{place}/./x": 1210,
        f"{place}/x/..": 1210,
        "tmp/x": 1210,
        "": 1210,
        "/": 1210,
        "/\\0": None,  # a NUL byte (SQL escape \\0)
        datadir: 1210,
        f"{datadir}/databases/evil": 1210,
        f"{place}/link_datadir/evil": 1210,
        f"{place}/link_dir": 1086,
        f"{place}/link_file": 1086,
        f"{place}/link_dangling": 1086,
        afile: 1086,
        "/" + "a" * 5000: 1210,
        f"{place}/" + "n" * 300: 1004,
        f"{place}/no/such/parent": 1004,
        "/proc/self/x": 1004,
    }
    for target, code in cases.items():
        if code is None:
            code, msg = clients.error(root, f"BACKUP DATA TO '{place}/a\\0b'")
            assert code == 1210, msg
            continue
        got, msg = clients.error(root, f"BACKUP DATA TO '{target}'")
        assert got == code, (target[:80], got, msg)
        low = msg.lower()
        assert "sqlite" not in low and "os error" not in low and "panick" not in low, msg
    assert sorted(os.listdir(place)) == before
    assert os.listdir(empty) == []
    assert not os.path.exists(os.path.join(datadir, "databases", "evil"))
    assert clients.query(root, "SHOW DATABASES LIKE 'evil'") == ()
    # Still serving, and a good target still works.
    assert clients.query(root, f"BACKUP DATA TO '{place}/good'")[0][0] == f"{place}/good"
