"""performance_schema (issue #26, item 3) against the real binary: statement
digests in events_statements_summary_by_digest (MySQL's columns, literals
normalized to `?`, timers in picoseconds, bounded, reset by TRUNCATE),
`threads`, and who may read them (SELECT on performance_schema, as MariaDB)."""

import pymysql

from helpers import clients

DIGESTS = "performance_schema.events_statements_summary_by_digest"


def digest_rows(conn, where="1=1"):
    with conn.cursor(pymysql.cursors.DictCursor) as c:
        c.execute(f"SELECT * FROM {DIGESTS} WHERE {where}")
        return c.fetchall()


def test_statements_differing_in_literals_share_a_digest(server_factory):
    srv = server_factory(engine="sqlite")
    conn = clients.root(srv)
    clients.query(conn, "CREATE DATABASE d")
    clients.query(conn, "USE d")
    clients.query(conn, "CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(10))")
    clients.query(conn, "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    for i in (1, 2, 3, 99):
        clients.query(conn, f"SELECT c FROM t WHERE id = {i}")
    clients.query(conn, "select c from t where id in (1, 2)")
    assert clients.error(conn, "SELECT nosuch FROM t")[0] == 1054
    rows = digest_rows(conn, "SCHEMA_NAME = 'd'")
    by_text = {r["DIGEST_TEXT"]: r for r in rows}
    point = by_text["SELECT `c` FROM `t` WHERE ID = ?"]
    assert point["COUNT_STAR"] == 4 and point["SUM_ROWS_SENT"] == 3 and point["SUM_ERRORS"] == 0
    assert 0 < point["MIN_TIMER_WAIT"] <= point["AVG_TIMER_WAIT"] <= point["MAX_TIMER_WAIT"] <= point["SUM_TIMER_WAIT"]
    # Picoseconds: a point select takes more than 1 µs and less than 10 s.
    assert 10**6 < point["SUM_TIMER_WAIT"] < 10**13
    assert len(point["DIGEST"]) == 32 and int(point["DIGEST"], 16) >= 0
    assert point["FIRST_SEEN"] <= point["LAST_SEEN"]
    assert by_text["SELECT `c` FROM `t` WHERE ID IN (...)"]["SUM_ROWS_SENT"] == 2
    assert by_text["INSERT INTO `t` VALUES (...) /* , ... */"]["SUM_ROWS_AFFECTED"] == 3
    assert by_text["SELECT `nosuch` FROM `t`"]["SUM_ERRORS"] == 1
    # The columns tools read, in MySQL's order.
    with conn.cursor() as c:
        c.execute(f"SELECT * FROM {DIGESTS} LIMIT 0")
        names = [d[0] for d in c.description]
    assert names[:16] == ["SCHEMA_NAME", "DIGEST", "DIGEST_TEXT", "COUNT_STAR", "SUM_TIMER_WAIT", "MIN_TIMER_WAIT", "AVG_TIMER_WAIT", "MAX_TIMER_WAIT",
                          "SUM_LOCK_TIME", "SUM_ERRORS", "SUM_WARNINGS", "SUM_ROWS_AFFECTED", "SUM_ROWS_SENT", "SUM_ROWS_EXAMINED",
                          "SUM_CREATED_TMP_DISK_TABLES", "SUM_CREATED_TMP_TABLES"]
    assert names[-2:] == ["FIRST_SEEN", "LAST_SEEN"]
    # The same digest from another session adds to the same row; TRUNCATE resets.
    other = clients.root(srv, database="d")
    clients.query(other, "SELECT c FROM t WHERE id = 7")
    assert digest_rows(conn, "DIGEST = '%s'" % point["DIGEST"])[0]["COUNT_STAR"] == 5
    clients.query(conn, f"TRUNCATE TABLE {DIGESTS}")
    assert clients.scalar(conn, f"SELECT COUNT(*) FROM {DIGESTS} WHERE SCHEMA_NAME = 'd'") == 0


def test_the_table_is_bounded_and_counts_the_rest_in_a_row_without_digest(server_factory):
    srv = server_factory("--performance-schema-digests-size", "2", "--performance-schema-max-digest-length", "40", engine="sqlite")
    conn = clients.root(srv)
    for i in range(40):
        clients.query(conn, f"SELECT {i} AS c{i}")
    long = "SELECT " + ", ".join(f"col_{i}" for i in range(200)) + " FROM nowhere"
    clients.error(conn, long)
    rows = digest_rows(conn)
    named = [r for r in rows if r["DIGEST"] is not None]
    # 16 shards of 2 at most; a single connection's statements land in few of them.
    assert len(named) <= 32
    overflow = [r for r in rows if r["DIGEST"] is None]
    assert len(overflow) == 1 and overflow[0]["DIGEST_TEXT"] is None
    # Every statement is counted somewhere (the reading SELECT not yet).
    assert sum(r["COUNT_STAR"] for r in rows) >= 41
    for r in named:
        assert len(r["DIGEST_TEXT"].encode()) <= 43, r["DIGEST_TEXT"]


def test_performance_schema_off_keeps_no_digests(server_factory):
    srv = server_factory("--performance-schema", "OFF", engine="sqlite")
    conn = clients.root(srv)
    assert clients.scalar(conn, "SELECT @@performance_schema") == 0
    clients.query(conn, "SELECT 1")
    assert clients.scalar(conn, f"SELECT COUNT(*) FROM {DIGESTS}") == 0
    assert clients.scalar(conn, "SELECT COUNT(*) FROM performance_schema.threads") >= 1


def test_threads_has_a_row_per_session(server_factory):
    srv = server_factory(engine="sqlite")
    conn = clients.root(srv)
    other = clients.root(srv, transport="socket")
    clients.query(other, "CREATE DATABASE d2")
    other.select_db("d2")
    with conn.cursor(pymysql.cursors.DictCursor) as c:
        c.execute("SELECT * FROM performance_schema.threads ORDER BY THREAD_ID")
        rows = c.fetchall()
    ids = {r["PROCESSLIST_ID"]: r for r in rows}
    me, them = ids[conn.thread_id()], ids[other.thread_id()]
    assert (me["NAME"], me["TYPE"], me["PROCESSLIST_USER"], me["PROCESSLIST_HOST"]) == ("thread/sql/one_connection", "FOREGROUND", "root", "127.0.0.1")
    assert me["PROCESSLIST_COMMAND"] == "Query" and "performance_schema.threads" in me["PROCESSLIST_INFO"]
    assert (them["PROCESSLIST_DB"], them["PROCESSLIST_COMMAND"], them["PROCESSLIST_INFO"]) == ("d2", "Sleep", None)
    assert them["CONNECTION_TYPE"] == "Socket" and me["CONNECTION_TYPE"] == "TCP/IP"
    assert clients.scalar(conn, "SELECT COUNT(*) FROM information_schema.PROCESSLIST") == len(rows)
    tables = [r[0] for r in clients.query(conn, "SHOW TABLES FROM performance_schema")]
    assert tables == ["events_statements_summary_by_digest", "session_account_connect_attrs", "session_connect_attrs", "threads"]


def test_reading_performance_schema_takes_select_on_it(server_factory):
    srv = server_factory(engine="sqlite")
    root = clients.root(srv)
    clients.query(root, "CREATE USER plain IDENTIFIED BY 'pw'")
    clients.query(root, "CREATE USER reader IDENTIFIED BY 'pw'")
    clients.query(root, "GRANT SELECT ON performance_schema.* TO reader")
    plain = clients.connect(srv, user="plain", password="pw")
    # As MariaDB: 1142 naming the table, for reads and for TRUNCATE.
    for table in ("threads", "events_statements_summary_by_digest"):
        code, msg = clients.error(plain, f"SELECT * FROM performance_schema.{table}")
        assert code == 1142 and table in msg, msg
    assert clients.error(plain, f"TRUNCATE {DIGESTS}")[0] == 1142
    # Through a join, a subquery, or another database's view: still refused.
    clients.query(root, "CREATE DATABASE open_db")
    clients.query(root, "GRANT ALL ON open_db.* TO plain")
    plain.select_db("open_db")
    clients.query(plain, "CREATE TABLE t (a INT)")
    assert clients.error(plain, "SELECT * FROM t JOIN performance_schema.threads ON 1=1")[0] == 1142
    assert clients.error(plain, f"SELECT (SELECT MAX(DIGEST_TEXT) FROM {DIGESTS})")[0] == 1142
    assert clients.error(plain, "CREATE VIEW v AS SELECT * FROM performance_schema.threads")[0] in (1142, 1235)
    reader = clients.connect(srv, user="reader", password="pw")
    # Another account's sessions (and their statements) only to an administrator, as SHOW PROCESSLIST.
    assert clients.query(reader, "SELECT DISTINCT PROCESSLIST_USER FROM performance_schema.threads") == (("reader",),)
    assert clients.error(reader, f"TRUNCATE {DIGESTS}")[0] == 1142
    # Writing to it is refused for everyone, the administrator too.
    assert clients.error(root, "DELETE FROM performance_schema.threads")[0] == 1142
    assert clients.error(root, f"INSERT INTO {DIGESTS} (DIGEST) VALUES ('x')")[0] == 1142
    assert clients.error(root, "UPDATE information_schema.PROCESSLIST SET INFO = 'x'")[0] == 1044


def test_a_flood_of_odd_statements_leaves_the_digests_whole(server_factory):
    srv = server_factory("--performance-schema-digests-size", "50", engine="sqlite")
    conn = clients.root(srv)
    nasty = ["(" * 5000, "SELECT '" + "\\" * 999, "SELECT 0x", "SELECT /*!", "SELECT `a``b`", "SELECT _utf8mb4'x' COLLATE x", "SELECT 1e", "\x00\x01", "SELECT 'é' + ü"]
    for sql in nasty:
        try:
            clients.query(conn, sql)
        except pymysql.err.MySQLError:
            pass
    assert clients.scalar(conn, "SELECT 1") == 1
    assert clients.scalar(conn, f"SELECT COUNT(*) FROM {DIGESTS}") >= 1


def attrs_of(conn):
    return dict(clients.query(conn, "SELECT ATTR_NAME, ATTR_VALUE FROM performance_schema.session_account_connect_attrs WHERE PROCESSLIST_ID = CONNECTION_ID() ORDER BY ORDINAL_POSITION"))


def test_connection_attributes_are_kept_as_the_client_sent_them(server_factory):
    srv = server_factory(engine="sqlite")
    conn = clients.root(srv, program_name="turnstile-test-é")
    attrs = attrs_of(conn)
    assert attrs["_client_name"] == "pymysql" and attrs["program_name"] == "turnstile-test-é"
    assert attrs["_pid"] == str(__import__("os").getpid())
    # Another account's sessions: in session_connect_attrs for an administrator only.
    clients.query(conn, "CREATE USER other IDENTIFIED BY 'pw'")
    clients.query(conn, "GRANT SELECT ON performance_schema.* TO other")
    other = clients.connect(srv, user="other", password="pw", program_name="other-program")
    assert clients.scalar(conn, f"SELECT ATTR_VALUE FROM performance_schema.session_connect_attrs WHERE PROCESSLIST_ID = {other.thread_id()} AND ATTR_NAME = 'program_name'") == "other-program"
    assert clients.scalar(conn, f"SELECT COUNT(*) FROM performance_schema.session_account_connect_attrs WHERE PROCESSLIST_ID = {other.thread_id()}") == 0
    assert clients.scalar(other, f"SELECT COUNT(*) FROM performance_schema.session_connect_attrs WHERE PROCESSLIST_ID = {conn.thread_id()}") == 0
    assert attrs_of(other)["program_name"] == "other-program"


def test_connection_attributes_are_bounded_and_kept_only_with_performance_schema(server_factory):
    srv = server_factory("--performance-schema-session-connect-attrs-size", "40", engine="sqlite")
    conn = clients.root(srv, program_name="x" * 100)
    kept = clients.query(conn, "SELECT ATTR_NAME, ATTR_VALUE FROM performance_schema.session_account_connect_attrs WHERE PROCESSLIST_ID = CONNECTION_ID()")
    assert sum(len(n) + len(v) + 2 for n, v in kept) <= 40 and "program_name" not in dict(kept)
    off = server_factory("--performance-schema", "OFF", engine="sqlite")
    assert attrs_of(clients.root(off, program_name="p")) == {}


def test_no_literal_reaches_a_digest_in_either_lexing_mode(server_factory):
    """A backslash ends no string under NO_BACKSLASH_ESCAPES: the digest must
    read the statement as the server does, or another user's literal would
    be shown to every reader of performance_schema."""
    srv = server_factory(engine="sqlite")
    conn = clients.root(srv)
    clients.query(conn, "CREATE DATABASE d")
    conn.select_db("d")
    clients.query(conn, "CREATE TABLE t (a TEXT, b TEXT)")
    clients.query(conn, "SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'")
    clients.query(conn, "INSERT INTO t VALUES ('C:\\', 'api-key-123')")
    clients.query(conn, "SET SESSION sql_mode = DEFAULT")
    clients.error(conn, "SELECT `x FROM u WHERE pw='hunter2'")
    texts = [r[0] or "" for r in clients.query(conn, f"SELECT DIGEST_TEXT FROM {DIGESTS}")]
    assert not any("api-key" in t or "hunter2" in t for t in texts), texts
    assert "INSERT INTO `t` VALUES (...)" in texts
