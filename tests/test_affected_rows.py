"""Affected rows and the OK packet's info string, as MySQL reports them.

MySQL counts an UPDATE's affected rows as the rows it *changed*, unless the
client connected with CLIENT_FOUND_ROWS (then: rows matched). INSERT ... ON
DUPLICATE KEY UPDATE counts 1 per inserted row, 2 per updated row that
changed and 0 per duplicate left as it was (1 with CLIENT_FOUND_ROWS). The
OK packet carries `Rows matched: M  Changed: C  Warnings: W` after UPDATE,
`Records: N  Duplicates: D  Warnings: W` after a multi-row INSERT and ALTER
TABLE, nothing after DELETE; ROW_COUNT() returns the affected rows.

Checked through PyMySQL (which does not set CLIENT_FOUND_ROWS by default) with
and without the flag, mysql-connector-python's prepared cursor (binary
protocol), a raw COM_STMT_EXECUTE (the info string over the binary protocol)
and the mysql CLI (`-vvv` prints the info line).
"""

import struct

import pymysql
import pytest

from helpers import clients, rawproto
from helpers.clients import query, scalar

FOUND_ROWS = pymysql.constants.CLIENT.FOUND_ROWS


def update_info(matched, changed):
    return f"Rows matched: {matched}  Changed: {changed}  Warnings: 0"


def info_of(raw):
    """The OK packet's info: a length-encoded string after the warnings, as
    mysqld sends it (PyMySQL's `message` and rawproto's `info` keep the length
    byte, which is checked here)."""
    if not raw:
        return ""
    assert raw[0] == len(raw) - 1, raw
    return raw[1:].decode()


@pytest.fixture
def db(sql_server, uniq):
    name = uniq("ar")
    conn = clients.root(sql_server)
    query(conn, f"CREATE DATABASE {name}")
    yield name
    query(conn, f"DROP DATABASE IF EXISTS {name}")
    conn.close()


def fresh(conn):
    query(conn, "DROP TABLE IF EXISTS t")
    query(
        conn,
        "CREATE TABLE t (id INT PRIMARY KEY, v INT, s VARCHAR(20), "
        "ts TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP)",
    )
    with conn.cursor() as cur:
        cur.execute(
            "INSERT INTO t (id, v, s, ts) VALUES (1, 1, 'a', '2001-01-01 00:00:00'), (2, 1, NULL, '2001-01-01 00:00:00'), "
            "(3, 0, 'c', '2001-01-01 00:00:00'), (4, 0, 'd', '2001-01-01 00:00:00')"
        )
        assert cur.rowcount == 4
        assert info_of(conn._result.message) == "Records: 4  Duplicates: 0  Warnings: 0"


def execute(conn, sql, args=None):
    """(affected rows, info string, ROW_COUNT() afterwards)."""
    with conn.cursor() as cur:
        n = cur.execute(sql, args)
        info = info_of(conn._result.message)
    return n, info, scalar(conn, "SELECT ROW_COUNT()")


def test_pymysql_default_flags_lack_found_rows(sql_server):
    # What the rest relies on: PyMySQL's default capabilities leave CLIENT_FOUND_ROWS off.
    conn = clients.root(sql_server)
    assert conn.client_flag & FOUND_ROWS == 0
    conn.close()
    conn = clients.root(sql_server, client_flag=FOUND_ROWS)
    assert conn.client_flag & FOUND_ROWS
    conn.close()


@pytest.mark.parametrize("found_rows", [False, True], ids=["changed", "found_rows"])
def test_update_counts(sql_server, db, found_rows):
    conn = clients.root(sql_server, database=db, **({"client_flag": FOUND_ROWS} if found_rows else {}))
    fresh(conn)

    def expect(sql, matched, changed, args=None):
        affected = matched if found_rows else changed
        assert execute(conn, sql, args) == (affected, update_info(matched, changed), affected), sql

    # some of the matched rows already hold the value
    expect("UPDATE t SET v = 1 WHERE id <= 3", 3, 1)
    # the ON UPDATE CURRENT_TIMESTAMP column moved for the changed row only
    assert query(conn, "SELECT id FROM t WHERE ts <> '2001-01-01 00:00:00'") == ((3,),)
    # SET v = v changes nothing, and leaves the ON UPDATE column alone
    expect("UPDATE t SET v = v", 4, 0)
    expect("UPDATE t SET v = v, s = s WHERE id > 0", 4, 0)
    assert query(conn, "SELECT id FROM t WHERE ts <> '2001-01-01 00:00:00'") == ((3,),)
    # NULL is compared as a value
    expect("UPDATE t SET s = NULL WHERE id IN (1, 2)", 2, 1)
    expect("UPDATE t SET s = NULL WHERE id IN (1, 2)", 2, 0)
    # byte-exact: a change of case is a change, whatever the collation
    expect("UPDATE t SET s = 'C' WHERE id = 3", 1, 1)
    assert scalar(conn, "SELECT s FROM t WHERE id = 3") == "C"
    # a real change moves the ON UPDATE column
    assert scalar(conn, "SELECT COUNT(*) FROM t WHERE ts = '2001-01-01 00:00:00'") == 2
    # a value given as a string for an INT column, the same number
    expect("UPDATE t SET v = %s WHERE id = 1", 1, 0, ("1",))
    # nothing matched
    expect("UPDATE t SET v = 5 WHERE id > 100", 0, 0)
    # DELETE: affected rows, no info string
    assert execute(conn, "DELETE FROM t WHERE id = 4") == (1, "", 1)
    conn.close()


@pytest.mark.parametrize("found_rows", [False, True], ids=["changed", "found_rows"])
def test_update_order_by_limit_counts_matched_rows(sql_server, db, found_rows):
    conn = clients.root(sql_server, database=db, **({"client_flag": FOUND_ROWS} if found_rows else {}))
    fresh(conn)
    # rows 1 and 2 already have v = 1: LIMIT 3 takes rows 1-3 (MySQL's LIMIT counts
    # matched rows), only row 3 changes, row 4 is not touched
    n, info, rc = execute(conn, "UPDATE t SET v = 1 ORDER BY id LIMIT 3")
    assert (n, info, rc) == ((3, update_info(3, 1), 3) if found_rows else (1, update_info(3, 1), 1))
    assert query(conn, "SELECT id, v FROM t ORDER BY id") == ((1, 1), (2, 1), (3, 1), (4, 0))
    n, info, _ = execute(conn, "UPDATE t SET v = 2 WHERE v = 1 ORDER BY id DESC LIMIT 2")
    assert (n, info) == (2, update_info(2, 2))
    assert query(conn, "SELECT id, v FROM t ORDER BY id") == ((1, 1), (2, 2), (3, 2), (4, 0))
    conn.close()


@pytest.mark.parametrize("found_rows", [False, True], ids=["changed", "found_rows"])
def test_insert_on_duplicate_key_update(sql_server, db, found_rows):
    conn = clients.root(sql_server, database=db, **({"client_flag": FOUND_ROWS} if found_rows else {}))
    fresh(conn)
    odku = "INSERT INTO t (id, v) VALUES (%s, %s) ON DUPLICATE KEY UPDATE v = VALUES(v)"
    # inserted: 1; updated and changed: 2; duplicate left as it was: 0 (1 with FOUND_ROWS)
    assert execute(conn, odku, (10, 1)) == (1, "", 1)
    assert execute(conn, odku, (10, 2)) == (2, "", 2)
    unchanged = 1 if found_rows else 0
    assert execute(conn, odku, (10, 2)) == (unchanged, "", unchanged)
    assert scalar(conn, "SELECT v FROM t WHERE id = 10") == 2
    # multi-row: 1 changed (2) + 1 inserted (1) + 1 unchanged (0 or 1)
    n, info, rc = execute(conn, "INSERT INTO t (id, v) VALUES (10, 3), (11, 1), (1, 1) ON DUPLICATE KEY UPDATE v = VALUES(v)")
    assert (n, info, rc) == (3 + unchanged, "Records: 3  Duplicates: 1  Warnings: 0", 3 + unchanged)
    # INSERT IGNORE: the duplicate is skipped, with MariaDB's warning 1062
    n, info, _ = execute(conn, "INSERT IGNORE INTO t (id, v) VALUES (10, 0), (12, 0)")
    assert (n, info) == (1, "Records: 2  Duplicates: 1  Warnings: 1")
    conn.close()


def test_replace_counts_the_rows_it_deleted(sql_server, db):
    """REPLACE: 1 per row inserted plus 1 per row deleted to make room (a row
    conflicting on two unique keys with two rows counts 3); Duplicates in the
    info string = rows deleted. Also after a rollback, inside transactions, on a
    TEMPORARY table that shadows the table, and under another qualifier."""
    conn = clients.root(sql_server, database=db)
    query(conn, "CREATE TABLE r (id INT PRIMARY KEY, u INT UNIQUE, v INT)")
    query(conn, "INSERT INTO r VALUES (1, 10, 0), (2, 20, 0)")
    assert execute(conn, "REPLACE INTO r VALUES (3, 30, 0)") == (1, "", 1)
    assert execute(conn, "REPLACE INTO r VALUES (1, 11, 1)") == (2, "", 2)
    assert execute(conn, "REPLACE INTO r VALUES (2, 11, 2)") == (3, "", 3)
    n, info, rc = execute(conn, "REPLACE INTO r VALUES (5, 50, 0), (3, 31, 1), (6, 60, 0)")
    assert (n, info, rc) == (4, "Records: 3  Duplicates: 1  Warnings: 0", 4)
    assert execute(conn, f"REPLACE INTO {db}.r VALUES (6, 61, 1)") == (2, "", 2)
    assert execute(conn, "REPLACE INTO r SET id = 6, u = 62, v = 2") == (2, "", 2)
    query(conn, "BEGIN")
    assert execute(conn, "REPLACE INTO r VALUES (7, 70, 0)")[0] == 1
    query(conn, "ROLLBACK")
    assert execute(conn, "REPLACE INTO r VALUES (5, 51, 0)")[0] == 2
    assert execute(conn, "DELETE FROM r WHERE id = 5")[0] == 1
    n, info, _ = execute(conn, "REPLACE INTO r (id, u, v) SELECT id, u + 1, 9 FROM r WHERE id IN (2, 3)")
    assert (n, info) == (4, "Records: 2  Duplicates: 2  Warnings: 0")
    assert query(conn, "SELECT id, u, v FROM r ORDER BY id") == ((2, 12, 9), (3, 32, 9), (6, 62, 2))
    query(conn, "CREATE TEMPORARY TABLE r (id INT PRIMARY KEY)")
    query(conn, "INSERT INTO r VALUES (1)")
    assert execute(conn, "REPLACE INTO r VALUES (1)")[0] == 2
    query(conn, "DROP TEMPORARY TABLE r")
    assert execute(conn, "REPLACE INTO r VALUES (1, 1, 1)")[0] == 1
    conn.close()


def test_alter_table_info(sql_server, db):
    conn = clients.root(sql_server, database=db)
    fresh(conn)
    # MySQL 8.0: ADD COLUMN and ADD INDEX run INSTANT/INPLACE (0 records); a type change copies the rows
    assert execute(conn, "ALTER TABLE t ADD COLUMN extra INT")[:2] == (0, "Records: 0  Duplicates: 0  Warnings: 0")
    assert execute(conn, "CREATE INDEX iv ON t (v)")[:2] == (0, "Records: 0  Duplicates: 0  Warnings: 0")
    assert execute(conn, "ALTER TABLE t MODIFY extra BIGINT")[:2] == (4, "Records: 4  Duplicates: 0  Warnings: 0")
    conn.close()


@pytest.mark.parametrize("found_rows", [False, True], ids=["changed", "found_rows"])
def test_prepared_update_mysql_connector(sql_server, db, found_rows):
    mysql_connector = pytest.importorskip("mysql.connector")
    from mysql.connector.constants import ClientFlag

    setup = clients.root(sql_server, database=db)
    fresh(setup)
    setup.close()
    flags = [ClientFlag.FOUND_ROWS] if found_rows else [-ClientFlag.FOUND_ROWS]
    cnx = mysql_connector.connect(
        host="127.0.0.1", port=sql_server.port, user="root", password=clients.ROOT_PASSWORD,
        database=db, client_flags=flags, autocommit=True,
    )
    try:
        cur = cnx.cursor(prepared=True)
        sql = "UPDATE t SET v = ?, s = ? WHERE id <= ?"
        cur.execute(sql, (1, "a", 3))  # row 1 already (1, 'a')
        assert cur.rowcount == (3 if found_rows else 2)
        cur.execute(sql, (1, "a", 3))  # nothing left to change
        assert cur.rowcount == (3 if found_rows else 0)
        cur.execute(sql, (7, "a", 1))
        assert cur.rowcount == 1
        cur.close()
        plain = cnx.cursor()
        plain.execute("SELECT ROW_COUNT()")
        assert plain.fetchall() == [(1,)]
        plain.close()
    finally:
        cnx.close()


def raw_connect(server, db, found_rows, monkeypatch):
    caps = rawproto.DEFAULT_CAPS | rawproto.CLIENT_FOUND_ROWS if found_rows else rawproto.DEFAULT_CAPS & ~rawproto.CLIENT_FOUND_ROWS
    monkeypatch.setattr(rawproto, "DEFAULT_CAPS", caps)
    c = rawproto.RawConnection.tcp(server.port)
    c.handshake("root", clients.ROOT_PASSWORD, db=db)
    return c


def stmt_prepare(c, sql):
    c.command(0x16, sql.encode())
    head = c.read_packet()
    assert head[:1] == b"\x00", head
    stmt_id, ncols, nparams = struct.unpack("<IHH", head[1:9])
    for _ in range(nparams):
        c.read_packet()
    if nparams and not c.client_caps & rawproto.CLIENT_DEPRECATE_EOF:
        c.read_packet()  # EOF
    assert ncols == 0
    return stmt_id, nparams


def stmt_execute(c, stmt_id, ints):
    payload = struct.pack("<IBI", stmt_id, 0, 1)
    payload += b"\x00" * ((len(ints) + 7) // 8) + b"\x01"
    payload += b"".join(struct.pack("<BB", 8, 0) for _ in ints)  # MYSQL_TYPE_LONGLONG
    payload += b"".join(struct.pack("<q", v) for v in ints)
    c.command(0x17, payload)
    return c.read_result()


@pytest.mark.parametrize("found_rows", [False, True], ids=["changed", "found_rows"])
def test_info_string_over_binary_protocol(sql_server, db, found_rows, monkeypatch):
    setup = clients.root(sql_server, database=db)
    fresh(setup)
    setup.close()
    c = raw_connect(sql_server, db, found_rows, monkeypatch)
    try:
        assert bool(c.client_caps & rawproto.CLIENT_FOUND_ROWS) == found_rows
        stmt_id, nparams = stmt_prepare(c, "UPDATE t SET v = ? WHERE id <= ?")
        assert nparams == 2
        ok = stmt_execute(c, stmt_id, [1, 4])  # rows 1, 2 hold 1 already
        assert (ok.affected_rows, info_of(ok.info)) == ((4 if found_rows else 2), update_info(4, 2))
        ok = stmt_execute(c, stmt_id, [1, 4])
        assert (ok.affected_rows, info_of(ok.info)) == ((4 if found_rows else 0), update_info(4, 0))
        # the same numbers over the text protocol
        ok = c.query("UPDATE t SET v = 0 WHERE id >= 3")
        assert (ok.affected_rows, info_of(ok.info)) == (2, update_info(2, 2))
        ok = c.query("INSERT INTO t (id, v) VALUES (7, 1), (8, 1)")
        assert (ok.affected_rows, info_of(ok.info)) == (2, "Records: 2  Duplicates: 0  Warnings: 0")
        ok = c.query("INSERT INTO t (id, v) VALUES (9, 1)")
        assert (ok.affected_rows, info_of(ok.info)) == (1, "")
        ok = c.query("DELETE FROM t WHERE id >= 7")
        assert (ok.affected_rows, info_of(ok.info)) == (3, "")
    finally:
        c.close()


def test_mysql_cli_prints_rows_matched(sql_server, db):
    if not clients.mysql_cli():
        pytest.skip("mysql client not installed")
    conn = clients.root(sql_server, database=db)
    fresh(conn)
    conn.close()
    res = clients.run_cli(sql_server, "UPDATE t SET v = 1 WHERE id <= 3", database=db, extra=["-vvv"])
    assert res.returncode == 0, res.stderr
    assert "Query OK, 1 row affected" in res.stdout, res.stdout
    assert "Rows matched: 3  Changed: 1  Warnings: 0" in res.stdout, res.stdout
    res = clients.run_cli(sql_server, "UPDATE t SET v = v", database=db, extra=["-vvv"])
    assert res.returncode == 0, res.stderr
    assert "Query OK, 0 rows affected" in res.stdout, res.stdout
    assert "Rows matched: 4  Changed: 0  Warnings: 0" in res.stdout, res.stdout
    res = clients.run_cli(sql_server, "INSERT INTO t (id, v) VALUES (5, 1), (6, 1)", database=db, extra=["-vvv"])
    assert "Query OK, 2 rows affected" in res.stdout and "Records: 2  Duplicates: 0  Warnings: 0" in res.stdout, res.stdout


def test_alter_table_counts_rows_it_copies_as_mariadb(sql_conn, uniq):
    """MariaDB 10.11: a MyISAM table is rebuilt (rows counted) for every
    ALTER, an index change included; InnoDB adds an index or a column in
    place (0) and copies for a type change."""
    db = uniq("altaff")
    clients.query(sql_conn, f"CREATE DATABASE {db}")
    clients.query(sql_conn, f"USE {db}")
    cur = sql_conn.cursor()
    cur.execute("CREATE TABLE am (a INT, b VARCHAR(10)) ENGINE=MyISAM")
    cur.execute("INSERT INTO am VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    assert cur.execute("ALTER TABLE am ADD KEY (a)") == 3
    assert cur.execute("ALTER TABLE am ADD c INT") == 3
    cur.execute("CREATE TABLE ai (a INT, b VARCHAR(10))")
    cur.execute("INSERT INTO ai VALUES (1, 'a'), (2, 'b')")
    assert cur.execute("ALTER TABLE ai ADD KEY (a)") == 0
    assert cur.execute("ALTER TABLE ai ADD c INT") == 0
    assert cur.execute("ALTER TABLE ai MODIFY a BIGINT") == 2
    clients.query(sql_conn, f"DROP DATABASE {db}")


def test_drop_database_counts_its_tables_and_views(sql_conn, uniq):
    """MariaDB 10.11: DROP DATABASE's affected rows are the tables and views it held."""
    db = uniq("dropcnt")
    cur = sql_conn.cursor()
    cur.execute(f"CREATE DATABASE {db}")
    cur.execute(f"USE {db}")
    cur.execute("CREATE TABLE a (x INT)")
    cur.execute("CREATE TABLE b (x INT)")
    cur.execute("CREATE VIEW v AS SELECT x FROM a")
    assert cur.execute(f"DROP DATABASE {db}") == 3
    cur.execute(f"CREATE DATABASE {db}")
    assert cur.execute(f"DROP DATABASE {db}") == 0
    assert cur.execute(f"DROP DATABASE IF EXISTS {db}") == 0
