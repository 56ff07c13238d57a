#!/usr/bin/env python3
"""Record what real MySQL clients send, for the fuzz targets' seed corpus.

    python3 fuzz/tools/record.py OUT_DIR

starts the real `turnstile` binary (SQLite engine; TURNSTILE_BIN or
target/release/turnstile) and a small recording proxy in front of it, then
drives the proxy with real clients: the mysql CLI, PyMySQL (text protocol,
client-side parameters), mysql-connector-python (server-side prepared
statements with every parameter type), sysbench (OLTP scripts, prepared and
not) and the Python and CLI programs of the client compatibility suite
(tests/clients). Each connection is written to OUT_DIR/<client>-<n>.rec as
records `direction (b'C' client->server or b'S' server->client), u32
little-endian length, bytes` in arrival order. fuzz/tools/make_corpus.py turns
the recordings into per-target seed files. Nothing here is needed to run the
fuzzers: the committed corpus under fuzz/corpus/ is its (curated) output.
"""

from __future__ import annotations

import datetime
import decimal
import os
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

import pymysql  # noqa: E402

from clients import harness  # noqa: E402
from clients.registry import CLIENTS  # noqa: E402
from helpers.server import ROOT_PASSWORD, TurnstileServer  # noqa: E402

RUN_TIMEOUT_S = 180


class Proxy:
    """TCP proxy on an ephemeral loopback port that logs both directions."""

    def __init__(self, upstream_port: int, out_dir: Path):
        self.upstream_port = upstream_port
        self.out_dir = out_dir
        self.label = "unlabelled"
        self.count = 0
        self.active = 0
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.count += 1
                self.active += 1
                name = f"{self.label}-{self.count:05d}.rec"
            threading.Thread(target=self._serve, args=(client, self.out_dir / name), daemon=True).start()

    def _serve(self, client: socket.socket, path: Path) -> None:
        upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
        records: list = []
        rec_lock = threading.Lock()

        def pump(src: socket.socket, dst: socket.socket, tag: bytes) -> None:
            try:
                while True:
                    data = src.recv(65536)
                    if not data:
                        break
                    with rec_lock:
                        records.append((tag, data))
                    dst.sendall(data)
            except OSError:
                pass
            finally:
                try:
                    dst.shutdown(socket.SHUT_WR)
                except OSError:
                    pass

        threads = [
            threading.Thread(target=pump, args=(client, upstream, b"C"), daemon=True),
            threading.Thread(target=pump, args=(upstream, client, b"S"), daemon=True),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        client.close()
        upstream.close()
        with open(path, "wb") as f:
            for tag, data in records:
                f.write(tag + struct.pack("<I", len(data)) + data)
        with self.lock:
            self.active -= 1

    def wait_idle(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self.lock:
                if self.active == 0:
                    return
            time.sleep(0.05)


CLI_SQL = r"""
SELECT @@version_comment LIMIT 1;
SELECT DATABASE(), USER(), CONNECTION_ID(), VERSION(), NOW(), CURDATE();
SET NAMES utf8mb4; SET autocommit=1; SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION';
SET @a := 5, @b = 'x', @@session.autocommit = ON;
SELECT @a + 1, -@a, @a * 2 / 3, 7 DIV 2, 7 MOD 3, 2 << 3, 5 & 3, 5 | 2, 5 ^ 1, ~0;
SELECT CONCAT('a', "b", _utf8mb4'c', N'd', X'414243', 0x44), CONCAT_WS(',', 'x', NULL, 'y');
SELECT IF(1 > 0, 'yes', 'no'), IFNULL(NULL, 3), COALESCE(NULL, NULL, 'z'), NULLIF(1, 1);
SELECT CASE WHEN @a = 5 THEN 'five' WHEN @a = 6 THEN 'six' ELSE 'other' END, CASE @a WHEN 5 THEN 1 END;
SELECT 'abc' LIKE 'a%', 'a_c' LIKE 'a\_c', 3 IN (1, 2, 3), 2 BETWEEN 1 AND 3, NULL <=> NULL, 1 IS NOT NULL;
SELECT LOWER('ÄBC'), UPPER('straße'), LENGTH('日本'), CHAR_LENGTH('日本'), SUBSTRING('hello', 2, 3), REPLACE('aXbX', 'X', '-');
SELECT ROUND(2.567, 2), FLOOR(-1.5), CEIL(1.2), TRUNCATE(9.99, 1), ABS(-3), GREATEST(1, 5, 3), LEAST('b', 'a');
SELECT HEX('abc'), HEX(255), CAST('12abc' AS SIGNED), CAST(-1 AS UNSIGNED), CAST('2024-02-29 10:11:12' AS DATETIME), CONVERT('x', CHAR);
SELECT (SELECT CONCAT(@@sql_mode, ',X')), @@global.max_connections, @@local.wait_timeout /* comment */ -- trailing
;
SELECT 1 /*! +1 */ /*!50700 +1 */, 'it''s', 'back\\slash', "dq""uote", 1e3, .5, 0x1F, b'101';
SHOW VARIABLES LIKE 'max%'; SHOW STATUS LIKE 'Threads%'; SHOW DATABASES; SHOW PROCESSLIST; SHOW GRANTS;
DROP DATABASE IF EXISTS fzrec; CREATE DATABASE fzrec; USE fzrec;
CREATE TABLE t (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, a INT, b VARCHAR(20) UNIQUE, d DATETIME(3),
  x DECIMAL(10,2), e ENUM('x','y'), j JSON, bl BLOB, f DOUBLE, ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE u (k INT PRIMARY KEY, v TEXT, KEY kv (v(10)));
INSERT INTO t (a, b, d, x, e, j, bl, f) VALUES (1, 'one', '2024-01-02 03:04:05.678', 12.34, 'x', '{"k": [1, 2]}', X'00FF', 1.5e-3),
  (2, 'two', NOW(), -0.5, 'y', JSON_OBJECT('a', 1), 'blob', -2);
INSERT IGNORE INTO t SET a = 3, b = 'one';
INSERT INTO t (a, b) VALUES (4, 'four') ON DUPLICATE KEY UPDATE a = VALUES(a) + 1, b = CONCAT(b, '!');
REPLACE INTO u VALUES (1, 'a'), (2, 'b'), (3, NULL);
INSERT INTO u SELECT id + 10, b FROM t WHERE a > 0;
UPDATE t SET a = a + 1, d = DATE_ADD(d, INTERVAL 1 DAY) WHERE b LIKE 't%' ORDER BY id DESC LIMIT 1;
UPDATE t, u SET t.a = 0 WHERE t.id = u.k;
DELETE FROM u WHERE k IN (SELECT id FROM t WHERE a IS NULL) ORDER BY k LIMIT 2;
SELECT SQL_CALC_FOUND_ROWS * FROM t USE INDEX (PRIMARY) WHERE id > 0 AND (a = 1 || b = 'two') && !(x < 0) LIMIT 1; SELECT FOUND_ROWS();
SELECT a, COUNT(*) AS n, GROUP_CONCAT(b ORDER BY b SEPARATOR ';') FROM t GROUP BY a HAVING n > 0 ORDER BY 1 DESC LIMIT 10 OFFSET 0;
SELECT t.id, u.v FROM fzrec.t AS t LEFT JOIN u ON u.k = t.id WHERE t.d >= '2024-01-01' AND j->>'$.k' IS NOT NULL FOR UPDATE;
SELECT EXTRACT(YEAR FROM d), DATE_FORMAT(d, '%Y-%m-%d %H:%i'), TIMESTAMPDIFF(SECOND, d, NOW()), LEFT(b, 2), RIGHT(b, 1) FROM t LOCK IN SHARE MODE;
SELECT SUBSTRING(b FROM 2 FOR 2), CAST(x AS CHAR), CONVERT(a, UNSIGNED), a / 3, a DIV 2, a % 2, b REGEXP '^o' FROM t;
WITH c AS (SELECT id FROM t) SELECT * FROM c WHERE id IN (1, 2, 3) UNION ALL SELECT 7;
SELECT * FROM information_schema.tables WHERE table_schema = 'fzrec';
START TRANSACTION; INSERT INTO u VALUES (100, 'tx'); ROLLBACK; BEGIN; DELETE FROM u WHERE k = 1; COMMIT;
SHOW TABLES; SHOW CREATE TABLE t; DESCRIBE t; SHOW COLUMNS FROM u; SHOW INDEX FROM t; SHOW TABLE STATUS;
ALTER TABLE u ADD COLUMN w INT DEFAULT (1 + 1) AFTER k, ADD INDEX iw (w);
CREATE TEMPORARY TABLE tmp1 (id INT PRIMARY KEY, v TEXT); INSERT INTO tmp1 VALUES (1, 'x'); SELECT * FROM tmp1;
SELECT nosuchcol FROM t; SELECT * FROM nosuchtable; SELECT 1 +; INSERT INTO t (b) VALUES ('one');
TRUNCATE TABLE u; DROP TABLE u; DROP DATABASE fzrec;
"""


def run(argv, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, encoding="utf-8", errors="replace", timeout=RUN_TIMEOUT_S, **kw)


def cli(proxy: Proxy) -> None:
    proxy.label = "mysql-cli"
    base = ["mysql", "-h127.0.0.1", f"-P{proxy.port}", "-uroot", f"-p{ROOT_PASSWORD}"]
    run(base + ["--force", "-t"], input=CLI_SQL)
    run(base + ["--binary-mode", "-e", "SELECT 'a\\0b', CHAR(0)"])
    run(base + ["-D", "mysql", "-e", "SELECT 1"])


def pymysql_session(proxy: Proxy) -> None:
    proxy.label = "pymysql"
    conn = pymysql.connect(host="127.0.0.1", port=proxy.port, user="root", password=ROOT_PASSWORD, autocommit=True, charset="utf8mb4")
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE IF NOT EXISTS fzrec_py")
        cur.execute("USE fzrec_py")
        cur.execute("DROP TABLE IF EXISTS p")
        cur.execute("CREATE TABLE p (id INT AUTO_INCREMENT PRIMARY KEY, s VARCHAR(100), b BLOB, d DATETIME(6), t TIME, x DECIMAL(20,6), f DOUBLE)")
        rows = [
            ("plain", b"\x00\x01\xff'\"\\", datetime.datetime(2024, 2, 29, 23, 59, 59, 123456), datetime.timedelta(hours=-838), decimal.Decimal("-12345678901234.5"), 1e300),
            ("quote ' and \" and \\ and \n", b"", datetime.datetime(1970, 1, 1), datetime.timedelta(0), decimal.Decimal("0"), -0.0),
            ("日本語 😀", None, None, None, None, None),
        ]
        cur.executemany("INSERT INTO p (s, b, d, t, x, f) VALUES (%s, %s, %s, %s, %s, %s)", rows)
        cur.execute("SELECT * FROM p WHERE s = %s OR id IN %s", ("plain", (1, 2, 3)))
        cur.execute("UPDATE p SET f = f * %s WHERE id = %s", (2.5, 1))
        cur.execute("DELETE FROM p WHERE d < %s", (datetime.date(2000, 1, 1),))
        cur.execute("SELECT %s, %s, %s", (True, None, 2**63 - 1))
        try:
            cur.execute("SELECT * FROM p WHERE", ())
        except pymysql.MySQLError:
            pass
        cur.execute("DROP DATABASE fzrec_py")
    conn.ping()
    conn.close()


def connector_session(proxy: Proxy) -> None:
    import mysql.connector

    proxy.label = "connector"
    conn = mysql.connector.connect(host="127.0.0.1", port=proxy.port, user="root", password=ROOT_PASSWORD, autocommit=True)
    cur = conn.cursor(prepared=True)
    cur.execute("CREATE DATABASE IF NOT EXISTS fzrec_c")
    cur.execute("USE fzrec_c")
    cur.execute("DROP TABLE IF EXISTS c")
    cur.execute(
        "CREATE TABLE c (id INT AUTO_INCREMENT PRIMARY KEY, i BIGINT, u BIGINT UNSIGNED, s VARCHAR(100), b BLOB, "
        "d DATE, dt DATETIME(6), t TIME(6), x DECIMAL(20,6), f FLOAT, g DOUBLE, k TINYINT)"
    )
    ins = "INSERT INTO c (i, u, s, b, d, dt, t, x, f, g, k) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    values = [
        (-(2**63), 2**64 - 1, "text", b"\x00\xff", datetime.date(2024, 2, 29), datetime.datetime(2024, 1, 2, 3, 4, 5, 678901), datetime.timedelta(days=-1, seconds=5, microseconds=7), decimal.Decimal("1.5"), 0.1, 1e-300, True),
        (0, 0, "", b"", datetime.date(1, 1, 1), datetime.datetime(9999, 12, 31, 23, 59, 59), datetime.timedelta(hours=838, minutes=59, seconds=59), decimal.Decimal("-99999999999999.999999"), -3.5, float("1e308"), False),
        (None, None, None, None, None, None, None, None, None, None, None),
        (7, 8, "😀 ünïcode", bytes(range(256)), datetime.date(2000, 1, 1), datetime.datetime(2000, 1, 1), datetime.time(12, 30), decimal.Decimal("3"), 2.0, 2.0, 127),
    ]
    # Refusals (out-of-range values) are part of the traffic too.
    statements = [(ins, v) for v in values] + [
        ("SELECT * FROM c WHERE id > ? AND s LIKE ? ORDER BY id LIMIT ?", (0, "%", 10)),
        ("UPDATE c SET g = g + ? WHERE i = ? OR u = ?", (1.25, 7, 8)),
        ("SELECT ?, ?, ? FROM c", (1, "two", None)),
        ("DELETE FROM c WHERE id = ?", (2,)),
    ]
    for sql, params in statements:
        try:
            cur.execute(sql, params)
            if cur.with_rows:
                cur.fetchall()
        except mysql.connector.Error:
            pass
    cur.close()
    plain = conn.cursor()
    plain.execute("SELECT COUNT(*) FROM c")
    plain.fetchall()
    plain.execute("DROP DATABASE fzrec_c")
    conn.cmd_reset_connection()
    conn.close()


def sysbench_sessions(proxy: Proxy) -> None:
    root = pymysql.connect(host="127.0.0.1", port=proxy.port, user="root", password=ROOT_PASSWORD, autocommit=True)
    with root.cursor() as cur:
        cur.execute("CREATE DATABASE IF NOT EXISTS sbtest")
    root.close()
    scripts = ["oltp_read_write", "oltp_insert", "oltp_delete", "oltp_update_index", "oltp_update_non_index", "select_random_points", "select_random_ranges", "bulk_insert"]
    for script in scripts:
        for mode in ("auto", "disable"):
            proxy.label = f"sysbench-{script}-{mode}"
            base = [
                "sysbench", script, "--threads=1", "--tables=1", "--table-size=20", "--db-driver=mysql", f"--db-ps-mode={mode}",
                "--mysql-host=127.0.0.1", f"--mysql-port={proxy.port}", "--mysql-user=root", f"--mysql-password={ROOT_PASSWORD}", "--mysql-db=sbtest",
            ]
            run(base + ["cleanup"], cwd="/tmp")
            run(base + ["prepare"], cwd="/tmp")
            run(base + ["--events=20", "--time=0", "run"], cwd="/tmp")
            run(base + ["cleanup"], cwd="/tmp")


def compat_programs(proxy: Proxy, server: TurnstileServer) -> None:
    root = pymysql.connect(host="127.0.0.1", port=server.port, user="root", password=ROOT_PASSWORD, autocommit=True)

    def query(sql: str) -> None:
        with root.cursor() as cur:
            cur.execute(sql)

    harness.prepare_accounts(query)
    for client in CLIENTS:
        if client.directory not in ("cli", "python"):
            continue
        env = harness.client_env(query, server, client)
        env["TS_PORT"] = str(proxy.port)
        proxy.label = "compat-" + harness.database_name(client)
        result = harness.run_client(client, env)
        print(f"  {client.name}: exit {result.returncode}", file=sys.stderr)
    root.close()


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    server = TurnstileServer(engine="sqlite").start()
    try:
        proxy = Proxy(server.port, out)
        for step in (cli, pymysql_session, connector_session, sysbench_sessions):
            print(f"recording {step.__name__}", file=sys.stderr)
            step(proxy)
        print("recording compat programs", file=sys.stderr)
        compat_programs(proxy, server)
        proxy.wait_idle(10)
    finally:
        server.stop()
    print(f"{len(list(out.glob('*.rec')))} connections recorded in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
