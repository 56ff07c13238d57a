"""LOAD DATA [LOCAL] INFILE (issue #23): the LOCAL file transfer (0xFB
request, the client's packets, the empty one, then OK with MariaDB's
"Records: n  Deleted: 0  Skipped: 0  Warnings: 0"), field and line options,
column lists with @variables and SET, IGNORE n LINES, REPLACE, warnings in
MariaDB's order, strict server files, the mysql CLI's --local-infile, and
mysql.user for administrators. Run under both schedulers by the suite."""

import os
import subprocess

import pymysql
import pytest

from helpers import clients, rawproto
from helpers.server import ROOT_PASSWORD

LOCAL_FILES = 0x80


def _conn(srv, db=None, **kw):
    return clients.connect(srv, "root", ROOT_PASSWORD, database=db, local_infile=True, **kw)


@pytest.fixture
def db(sql_server, uniq):
    name = uniq("ld")
    c = clients.root(sql_server)
    clients.query(c, f"CREATE DATABASE {name}")
    c.close()
    return name


def _info(c) -> str:
    """The OK's info: PyMySQL keeps its length byte (the info is a
    length-encoded string, as mysqld sends it)."""
    msg = c._result.message
    return msg[1:].decode() if msg and msg[0] == len(msg) - 1 else msg.decode()


def _write(tmp_path, name, data: bytes) -> str:
    p = tmp_path / name
    p.write_bytes(data)
    return str(p)


def test_local_load_reports_records_and_warnings_as_mariadb(sql_server, db, tmp_path):
    f = _write(tmp_path, "f1.txt", b"1\tabc\t2020-01-01\n2\tabcdefgh\tzz\n1\tdup\t2020-01-01\nx\n3\t\\N\t2021-02-02\textra\n")
    c = _conn(sql_server, db)
    clients.query(c, "CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(5), c DATE)")
    with c.cursor() as cur:
        n = cur.execute(f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE t")
        assert n == 4
        assert _info(c) == "Records: 5  Deleted: 0  Skipped: 1  Warnings: 7"
        assert cur.warning_count == 7
        cur.execute("SHOW WARNINGS")
        assert [(r[1], r[2]) for r in cur.fetchall()] == [
            (1265, "Data truncated for column 'b' at row 2"),
            (1265, "Data truncated for column 'c' at row 2"),
            (1062, "Duplicate entry '1' for key 'PRIMARY'"),
            (1366, "Incorrect integer value: 'x' for column `%s`.`t`.`a` at row 4" % db),
            (1261, "Row 4 doesn't contain data for all columns"),
            (1261, "Row 4 doesn't contain data for all columns"),
            (1262, "Row 5 was truncated; it contained more data than there were input columns"),
        ]
        cur.execute("SELECT a, b, CAST(c AS CHAR) FROM t ORDER BY a")
        assert cur.fetchall() == ((0, None, None), (1, "abc", "2020-01-01"), (2, "abcde", "0000-00-00"), (3, None, "2021-02-02"))
    c.close()


def test_csv_options_columns_variables_and_set(sql_server, db, tmp_path):
    f = _write(tmp_path, "f.csv", b'id,name,skip\r\n1,"a, ""quoted"" name",x\r\n2,plain,y\r\n')
    c = _conn(sql_server, db)
    clients.query(c, "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(40), up VARCHAR(40), k INT DEFAULT 7)")
    clients.query(
        c,
        f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE t CHARACTER SET utf8mb4 FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' "
        "LINES TERMINATED BY '\\r\\n' IGNORE 1 LINES (id, @n, @dummy) SET name = @n, up = UPPER(@n)",
    )
    assert clients.query(c, "SELECT id, name, up, k FROM t ORDER BY id") == ((1, 'a, "quoted" name', 'A, "QUOTED" NAME', 7), (2, "plain", "PLAIN", 7))
    # LINES STARTING BY skips lines without the prefix; REPLACE counts the rows it replaced.
    g = _write(tmp_path, "g.txt", b"xx1,one\nnoise\nxx3,three\n")
    with c.cursor() as cur:
        cur.execute(f"LOAD DATA LOCAL INFILE '{g}' REPLACE INTO TABLE t FIELDS TERMINATED BY ',' LINES STARTING BY 'xx' (id, name)")
        assert _info(c) == "Records: 2  Deleted: 1  Skipped: 0  Warnings: 0"
    assert clients.query(c, "SELECT id, name FROM t ORDER BY id") == ((1, "one"), (2, "plain"), (3, "three"))
    c.close()


def test_trailing_field_terminator_is_no_extra_field(sql_server, db, tmp_path):
    f = _write(tmp_path, "tr.txt", b"1,2,3\n4,5,\n6,7, \n,8,\n")
    c = _conn(sql_server, db)
    clients.query(c, "CREATE TABLE w (a INT, b INT)")
    with c.cursor() as cur:
        cur.execute(f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE w FIELDS TERMINATED BY ','")
        cur.execute("SHOW WARNINGS")
        # MariaDB 10.11's list for the same file.
        assert [(r[1], r[2]) for r in cur.fetchall()] == [
            (1262, "Row 1 was truncated; it contained more data than there were input columns"),
            (1262, "Row 3 was truncated; it contained more data than there were input columns"),
            (1366, "Incorrect integer value: '' for column `%s`.`w`.`a` at row 4" % db),
        ]
    c.close()


def test_tricky_csv_reads_as_mariadb(sql_server, db, tmp_path):
    # MariaDB 10.11 stores exactly these values from this file.
    f = _write(tmp_path, "tricky.csv", b'id,txt,n\n1,"a ""q"" b",10\n2,"line\nbreak",\\N\n3,plain \\, esc,NULL\n4,"NULL",-5\n"5",,7\n6,"unterminated,8\n')
    c = _conn(sql_server, db)
    clients.query(c, "CREATE TABLE tr (id INT, txt VARCHAR(40), n INT)")
    clients.query(c, f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE tr FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' IGNORE 1 LINES")
    assert clients.query(c, "SELECT id, txt, n FROM tr ORDER BY id") == (
        (1, 'a "q" b', 10),
        (2, "line\nbreak", None),
        (3, "plain , esc", None),
        (4, "NULL", -5),
        (5, "", 7),
        (6, '"unterminated,8\n', None),
    )
    c.close()


def test_hundred_thousand_rows(sql_server, db, tmp_path):
    data = b"".join(b"%d\tname-%d\n" % (i, i) for i in range(100_000))
    f = _write(tmp_path, "big.txt", data)
    c = _conn(sql_server, db)
    clients.query(c, "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20))")
    clients.query(c, f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE t")
    assert clients.query(c, "SELECT COUNT(*), SUM(id), MAX(name) FROM t") == ((100_000, 4999950000, "name-99999"),)
    c.close()


def test_local_refused_without_client_flag_or_when_local_infile_off(sql_server, db, tmp_path):
    f = _write(tmp_path, "f.txt", b"1\n")
    c = clients.root(sql_server, database=db)  # no CLIENT_LOCAL_FILES
    clients.query(c, "CREATE TABLE t (a INT)")
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.query(c, f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE t")
    assert ei.value.args[0] == 4166
    c.close()
    root = clients.root(sql_server)
    clients.query(root, "SET GLOBAL local_infile = OFF")
    try:
        c = _conn(sql_server, db)
        with pytest.raises(pymysql.err.OperationalError) as ei:
            clients.query(c, f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE t")
        assert ei.value.args[0] == 4166
        c.close()
    finally:
        clients.query(root, "SET GLOBAL local_infile = ON")
    assert clients.query(root, "SELECT @@local_infile, @@load_data_max_bytes, @@secure_file_priv") == ((1, 67108864, ""),)
    root.close()


def test_missing_table_is_refused_before_the_file_is_asked_for(sql_server, db):
    c = rawproto.connect(sql_server, "root", ROOT_PASSWORD, db=db, extra_caps=LOCAL_FILES)
    c.command(rawproto.COM_QUERY, b"LOAD DATA LOCAL INFILE '/nonexistent' INTO TABLE nope")
    err = rawproto.parse_err(c.read_packet())
    assert err.code == 1146
    c.close()


def test_raw_transfer_and_multi_statements(sql_server, db):
    c = rawproto.connect(sql_server, "root", ROOT_PASSWORD, db=db, extra_caps=LOCAL_FILES)
    c.query("CREATE TABLE t (a INT, b VARCHAR(10))")
    c.command(rawproto.COM_QUERY, b"LOAD DATA LOCAL INFILE 'any name' INTO TABLE t FIELDS TERMINATED BY ','")
    req = c.read_packet()
    assert req == b"\xfbany name"
    # The file in several packets, split inside a line.
    for chunk in (b"1,o", b"ne\n2,two\n", b"3,three"):
        c.write_packet(chunk)
    c.write_packet(b"")
    ok = rawproto.parse_ok(c.read_packet())
    assert ok.affected_rows == 3
    assert rawproto.rows(c.query("SELECT a, b FROM t ORDER BY a")) == [("1", "one"), ("2", "two"), ("3", "three")]
    c.close()


def test_load_inside_multi_statements(sql_server, db, tmp_path):
    f = _write(tmp_path, "m.txt", b"1\n2\n")
    c = _conn(sql_server, db, client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS)
    with c.cursor() as cur:
        cur.execute(f"CREATE TABLE t (a INT); LOAD DATA LOCAL INFILE '{f}' INTO TABLE t; SELECT COUNT(*) FROM t")
        while cur.nextset():
            if cur.description:
                assert cur.fetchall() == ((2,),)
                break
        else:
            pytest.fail("no result set after the load")
    c.close()


def test_server_file_needs_secure_file_priv(sql_server, db, tmp_path):
    f = _write(tmp_path, "s.txt", b"1\n")
    c = clients.root(sql_server, database=db)
    clients.query(c, "CREATE TABLE t (a INT)")
    with pytest.raises(pymysql.err.OperationalError) as ei:
        clients.query(c, f"LOAD DATA INFILE '{f}' INTO TABLE t")
    assert ei.value.args[0] == 1290
    c.close()


def test_server_file_inside_secure_file_priv_is_strict(server_factory, tmp_path):
    d = tmp_path / "priv"
    d.mkdir()
    (d / "ok.txt").write_bytes(b"1\tab\n2\tabcdefgh\n")
    srv = server_factory("--secure-file-priv", str(d), engine="sqlite")
    c = clients.root(srv)
    clients.query(c, "CREATE DATABASE sf")
    clients.query(c, "CREATE TABLE sf.t (a INT, b VARCHAR(5))")
    clients.query(c, "USE sf")
    # Strict mode, no LOCAL and no IGNORE: the second row is an error and nothing stays.
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(c, "LOAD DATA INFILE 'ok.txt' INTO TABLE t")
    assert ei.value.args[0] == 1406
    assert clients.query(c, "SELECT COUNT(*) FROM t") == ((0,),)
    (d / "few.txt").write_bytes(b"1\n")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(c, "LOAD DATA INFILE 'few.txt' INTO TABLE t")
    assert ei.value.args[0] == 1261
    clients.query(c, "SET sql_mode = ''")
    clients.query(c, "LOAD DATA INFILE 'few.txt' INTO TABLE t")
    assert clients.query(c, "SELECT a, b FROM t") == ((1, None),)
    clients.query(c, "DELETE FROM t")
    clients.query(c, "SET sql_mode = DEFAULT")
    clients.query(c, "LOAD DATA INFILE 'ok.txt' IGNORE INTO TABLE t")
    assert clients.query(c, "SELECT a, b FROM t ORDER BY a") == ((1, "ab"), (2, "abcde"))
    c.close()


def test_mysql_cli_local_infile(sql_server, db, tmp_path):
    f = _write(tmp_path, "cli.txt", b"1\n2\n3\n")
    c = clients.root(sql_server, database=db)
    clients.query(c, "CREATE TABLE t (a INT)")
    c.close()
    base = ["mysql", "-h127.0.0.1", f"-P{sql_server.port}", "-uroot", f"-p{ROOT_PASSWORD}", db]
    r = subprocess.run(base + ["--local-infile=1", "-vvv", "-e", f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE t"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Records: 3  Deleted: 0  Skipped: 0  Warnings: 0" in r.stdout
    r = subprocess.run(base + ["--local-infile=0", "-e", f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE t"], capture_output=True, text=True, timeout=60)
    assert "ERROR 4166" in r.stderr


def test_mysql_user_for_administrators(sql_server, uniq):
    user = uniq("mu")
    root = clients.root(sql_server)
    clients.query(root, f"CREATE USER '{user}'@'%' IDENTIFIED WITH mysql_native_password BY 'pw1'")
    rows = clients.query(root, f"SELECT Host, User, plugin, Password, authentication_string, Select_priv, Super_priv FROM mysql.user WHERE User = '{user}'")
    assert len(rows) == 1
    host, u, plugin, pw, auth, sel, sup = rows[0]
    assert (host, u, plugin, sel, sup) == ("%", user, "mysql_native_password", "N", "N")
    assert pw == auth and auth.startswith("*") and len(auth) == 41
    assert clients.query(root, "SELECT plugin, Select_priv FROM mysql.user WHERE CONCAT(User, '@', Host) = CURRENT_USER()") == (("caching_sha2_password", "Y"),)
    clients.query(root, f"DROP USER '{user}'@'%'")
    root.close()
    c = clients.root(sql_server, database="mysql")
    names = [r[0] for r in clients.query(c, "SELECT User FROM user")]
    assert "root" in names
    with c.cursor() as cur:
        cur.execute("SELECT * FROM mysql.user LIMIT 1")
        assert len(cur.description) == 47
    c.close()


def test_load_into_a_table_with_triggers_is_refused(sql_server, db, tmp_path):
    """Loaded rows do not fire triggers yet: 1235 naming the feature, nothing loaded."""
    f = _write(tmp_path, "trg.txt", b"1\n2\n")
    c = _conn(sql_server, db)
    clients.query(c, "CREATE TABLE t (a INT)")
    clients.query(c, "CREATE TABLE log (a INT)")
    clients.query(c, "CREATE TRIGGER ai AFTER INSERT ON t FOR EACH ROW INSERT INTO log VALUES (NEW.a)")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        clients.query(c, f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE t")
    assert ei.value.args[0] == 1235 and "triggers" in ei.value.args[1]
    assert clients.query(c, "SELECT COUNT(*) FROM t") == ((0,),)
    clients.query(c, "DROP TRIGGER ai")
    clients.query(c, f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE t")
    assert clients.query(c, "SELECT COUNT(*) FROM t") == ((2,),)
