#!/usr/bin/env python3
"""Turnstile client compatibility suite: the mysql command-line client (Debian's
mariadb-client), driven as a person or a shell script would: `-e` and stdin
batch mode over TCP and the Unix socket, and an interactive session on a
pseudo-terminal.  Contract (environment in, JSON lines out):
tests/clients/README.md.

The CLI speaks the text protocol only, so values are compared as the exact text
it prints with --batch --raw (MySQL's text form of each type)."""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import subprocess
import sys
import time
import traceback
from typing import Callable, List, Optional, Sequence, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from helpers.pty_session import PtySession  # noqa: E402

HOST = os.environ["TS_HOST"]
PORT = os.environ["TS_PORT"]
SOCKET = os.environ["TS_SOCKET"]
DB = os.environ["TS_DB"]
NATIVE = (os.environ["TS_NATIVE_USER"], os.environ["TS_NATIVE_PASSWORD"])
SHA2 = (os.environ["TS_SHA2_USER"], os.environ["TS_SHA2_PASSWORD"])
EXE = shutil.which("mysql") or shutil.which("mariadb")
BATCH = ("--batch", "--raw", "--skip-column-names")


def emit(obj: dict) -> None:
    print(json.dumps(obj, ensure_ascii=False), flush=True)


class NotApplicable(Exception):
    pass


class Verdicts:
    """Collects every mismatch of one check instead of stopping at the first."""

    def __init__(self) -> None:
        self.errors: List[str] = []

    def eq(self, got, want, what: str) -> bool:
        if got != want:
            self.errors.append(f"{what}: got {show(got)}, want {show(want)}")
            return False
        return True

    def ok(self, cond: bool, what: str) -> bool:
        if not cond:
            self.errors.append(what)
        return cond


def show(v) -> str:
    if isinstance(v, bytes):
        try:
            s = v.decode("utf-8")
            if all(c.isprintable() or c in "\t\n" for c in s):
                v = s
            else:
                return "hex:" + v.hex()
        except UnicodeDecodeError:
            return "hex:" + v.hex()
    r = repr(v)
    return r if len(r) <= 400 else r[:400] + f"...({len(r)} chars)"


def check(feature: str, fn: Callable[[Verdicts], str]) -> None:
    v = Verdicts()
    t0 = time.monotonic()
    try:
        detail = fn(v)
        status = "fail" if v.errors else "pass"
        if v.errors:
            detail = "; ".join(v.errors)
    except NotApplicable as e:
        status, detail = "n/a", str(e)
    except Exception as e:  # a check that raises is a fail; go on with the next one
        status = "fail"
        detail = "; ".join(v.errors + [f"{type(e).__name__}: {e}"])
        traceback.print_exc()
    print(f"{feature:<22} {status:<4} {(time.monotonic() - t0) * 1000:6.0f} ms  {detail}", file=sys.stderr)
    emit({"feature": feature, "status": status, "detail": detail})


class Run:
    def __init__(self, rc: int, out: bytes, err: str) -> None:
        self.rc, self.out, self.err = rc, out, err

    @property
    def text(self) -> str:
        return self.out.decode("utf-8", "replace")

    def lines(self) -> List[str]:
        return self.text.splitlines()


def base_args(who=NATIVE, db: Optional[str] = DB, socket: bool = False) -> List[str]:
    args = [EXE, "--no-defaults", f"--user={who[0]}", f"--password={who[1]}", "--connect-timeout=10",
            "--default-character-set=utf8mb4"]
    if socket:
        args += ["--protocol=SOCKET", f"--socket={SOCKET}"]
    else:
        args += ["--protocol=TCP", f"--host={HOST}", f"--port={PORT}"]
    if db:
        args.append(f"--database={db}")
    return args


def cli(sql: Optional[str] = None, who=NATIVE, db: Optional[str] = DB, socket: bool = False,
        opts: Sequence[str] = BATCH, stdin: Optional[bytes] = None, timeout: float = 30) -> Run:
    """One mysql process: `-e sql` or a script on stdin."""
    args = base_args(who, db, socket) + list(opts)
    if sql is not None:
        args += ["-e", sql]
    p = subprocess.run(args, input=stdin if stdin is not None else b"", capture_output=True, timeout=timeout)
    return Run(p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"))


def ok_run(v: Verdicts, r: Run, what: str) -> bool:
    return v.ok(r.rc == 0, f"{what}: exit {r.rc}, stderr {r.err.strip()!r}")


def last_line(text: str) -> str:
    """The error line (the MariaDB client prints the failing statement above it)."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def sql_str(s: str) -> str:
    """A MySQL string literal (backslash escapes, as the default sql_mode reads them)."""
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'").replace("\0", "\\0") + "'"


# ---------------------------------------------------------------- the data
U64_MAX = 18446744073709551615
INT_COLS = ["ti", "tiu", "si", "siu", "mi", "miu", "i", "iu", "bi", "biu"]
INT_ROWS = {
    "max": [127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, 9223372036854775807, 9223372036854775807],
    "mid": [-1, 1, -2, 2, -3, 3, -4, 4, -5, 5],
    "min": [-128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0],
}
DEC_ROWS = {  # inserted literal -> printed with the declared scale
    1: (["12345678.90", "999999999999999999", "1234567890.12345", "-12345.6789"],
        ["12345678.90", "999999999999999999", "1234567890.12345", "-12345.6789"]),
    2: (["-0.05", "-999999999999999999", "0.1", "0"], ["-0.05", "-999999999999999999", "0.10000", "0.0000"]),
    3: (["7", "0", "-3.5", "100000000000.5"], ["7.00", "0", "-3.50000", "100000000000.5000"]),
}
# FLOAT and DOUBLE literal -> MySQL's text form (the shortest that round-trips, e-notation for large exponents).
FLOAT_ROWS = {
    1: (("1.5", "0.1"), ("1.5", "0.1")),
    2: (("-0.25", "3.141592653589793"), ("-0.25", "3.141592653589793")),
    3: (("0.1", "1e300"), ("0.1", "1e300")),
    4: (("12345.5", "-2.5e-300"), ("12345.5", "-2.5e-300")),
}
STR_ROWS = {
    1: ("h\u00e9llo w\u00f6rld", "caf\u00e9 \u2014 na\u00efve"),
    2: ("grin \U0001F600 4-byte", "\u65e5\u672c\u8a9e \U0001F680\U0001F30D \U00010348"),
    3: ("", "quotes ' \" back\\slash\ttab"),
    4: ("\U0001F600" * 100, "\u00fc\U0001F600" * 5000),
}
ALL_BYTES = bytes(range(256))
BLOB_ROWS = {1: (ALL_BYTES, ALL_BYTES[::-1]), 2: (ALL_BYTES * 255, ALL_BYTES * 2), 3: (b"", b"\x00")}
TEMP_ROWS = {
    1: ["2024-02-29", "2024-02-29 13:45:59", "2024-02-29 13:45:59", "13:45:59", "2024-02-29 13:45:59.123456"],
    2: ["1000-01-01", "1000-01-01 00:00:00", "1970-01-01 00:00:01", "-838:59:59", "1999-12-31 23:59:59.000001"],
    3: ["9999-12-31", "9999-12-31 23:59:59", "2038-01-19 03:14:07", "838:59:59", "2000-01-01 00:00:00.500000"],
}
NULL_COLS = ["ti", "bi", "dc", "f", "db", "vc", "tx", "bl", "vb", "d", "dt", "ts", "tm", "yr", "en", "js", "bt"]


def version() -> str:
    out = subprocess.run([EXE, "--version"], capture_output=True, text=True).stdout.strip()
    m = re.search(r"Ver (\S+) Distrib (\S+?),.*using\s+(.*)$", out)
    return f"{m.group(2)} (mysql Ver {m.group(1)}, {m.group(3).strip()})" if m else out


# ---------------------------------------------------------------- checks
def connect_check(who, v: Verdicts) -> str:
    details = []
    for socket in (False, True):
        how = "socket" if socket else "TCP"
        r = cli("SELECT CURRENT_USER(), 1+1, DATABASE()", who=who, socket=socket)
        if ok_run(v, r, how):
            v.eq(r.lines(), [f"{who[0]}@%\t2\t{DB}"], f"{how}: output")
        details.append(how)
    bad = cli("SELECT 1", who=(who[0], "wrong-" + who[1]))
    v.eq(bad.rc, 1, "exit code with a wrong password")
    v.ok(re.search(rf"^ERROR 1045 \(28000\): Access denied for user '{re.escape(who[0])}'@", bad.err, re.M) is not None,
         f"wrong password error: {bad.err.strip()!r}")
    return "--user/--password over " + " and ".join(details) + "; a wrong password gives ERROR 1045 (28000)"


def connect_tls(v: Verdicts) -> str:
    """--ssl-ca with --ssl-verify-server-cert (the client checks the chain
    and that the certificate names --host); another CA is refused."""
    ca, other = os.environ.get("TS_CA", ""), os.environ.get("TS_OTHER_CA", "")
    r = cli("SHOW SESSION STATUS LIKE 'Ssl_cipher'", who=SHA2, opts=BATCH + (f"--ssl-ca={ca}", "--ssl-verify-server-cert"))
    cipher = ""
    if ok_run(v, r, "TLS with --ssl-ca"):
        cipher = r.text.split("\t")[-1].strip()
        v.ok(cipher != "", f"Ssl_cipher is empty: {r.text!r}")
    bad = cli("SELECT 1", who=SHA2, opts=BATCH + (f"--ssl-ca={other}", "--ssl-verify-server-cert"))
    v.ok(bad.rc != 0, "a CA that signed nothing of the server's was accepted")
    return f"--ssl-ca --ssl-verify-server-cert, {cipher}; with another CA: {last_line(bad.err)[:80]}"


def types_integer(v: Verdicts) -> str:
    cols = ",".join(INT_COLS)
    ddl = ("CREATE TABLE t_int (k VARCHAR(8) PRIMARY KEY, ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED,"
           " mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED)")
    ins = "; ".join(f"INSERT INTO t_int (k,{cols}) VALUES ('{k}',{','.join(map(str, vals))})" for k, vals in INT_ROWS.items())
    ok_run(v, cli(f"{ddl}; {ins}"), "create and insert")
    r = cli(f"INSERT INTO t_int (k, biu) VALUES ('u64max', {U64_MAX})")
    u64_stored = v.ok(r.rc == 0, f"BIGINT UNSIGNED max {U64_MAX} not stored: {last_line(r.err)}")
    r = cli(f"SELECT k,{cols} FROM t_int ORDER BY k")
    want = [k + "\t" + "\t".join(map(str, vals)) for k, vals in INT_ROWS.items()]
    if u64_stored:
        want.append("u64max\t" + "\t".join(["NULL"] * 9 + [str(U64_MAX)]))
    if ok_run(v, r, "select"):
        v.eq(r.lines(), want, "rows" + ("" if u64_stored else " (without the BIGINT UNSIGNED max row)"))
        # and as integers
        got = {ln.split("\t")[0]: [None if x == "NULL" else int(x) for x in ln.split("\t")[1:]] for ln in r.lines()}
        v.eq(got.get("max"), INT_ROWS["max"], "max row as integers")
    r = cli("SELECT COUNT(*) FROM t_int WHERE bi = -9223372036854775808 AND biu = 0 AND iu = 0")
    v.eq(r.lines(), ["1"], "BIGINT min compared server-side")
    return f"TINYINT..BIGINT signed/unsigned at their limits incl. BIGINT UNSIGNED max {U64_MAX}, printed exactly (--batch --raw)"


def types_decimal(v: Verdicts) -> str:
    cols = "d102, d180, d155, d194"
    ok_run(v, cli("CREATE TABLE t_dec (id INT PRIMARY KEY, d102 DECIMAL(10,2), d180 DECIMAL(18,0), d155 DECIMAL(15,5), d194 DECIMAL(19,4)); "
                  + "; ".join(f"INSERT INTO t_dec (id,{cols}) VALUES ({i},{','.join(vals[0])})" for i, vals in DEC_ROWS.items())),
           "create and insert")
    r = cli(f"SELECT id,{cols} FROM t_dec ORDER BY id")
    if ok_run(v, r, "select"):
        v.eq(r.lines(), [f"{i}\t" + "\t".join(vals[1]) for i, vals in DEC_ROWS.items()], "rows")
    v.eq(cli("SELECT SUM(d102), SUM(d155) FROM t_dec").lines(), ["12345685.85\t1234567886.72345"], "SUM()")
    return "DECIMAL(10,2), (18,0), (15,5), (19,4) printed with the declared scale"


def types_float(v: Verdicts) -> str:
    ok_run(v, cli("CREATE TABLE t_float (id INT PRIMARY KEY, f FLOAT, d DOUBLE); "
                  + "; ".join(f"INSERT INTO t_float VALUES ({i},{a[0]},{a[1]})" for i, (a, _) in FLOAT_ROWS.items())),
           "create and insert")
    r = cli("SELECT id, f, d FROM t_float ORDER BY id")
    if ok_run(v, r, "select"):
        for line, (i, (lit, want)) in zip(r.lines(), FLOAT_ROWS.items()):
            v.eq(line, f"{i}\t{want[0]}\t{want[1]}",
                 f"row {i} as MySQL prints it (shortest round-trip digits; 'e' form for |x| < 1e-15 and for integers above 1e15)")
            got = line.split("\t")
            if len(got) == 3:
                v.eq((float(got[1]), float(got[2])), (float(lit[0]), float(lit[1])), f"row {i} parsed as floating point")
        v.eq(len(r.lines()), len(FLOAT_ROWS), "row count")
    v.eq(cli("SELECT COUNT(*) FROM t_float WHERE d = 3.141592653589793").lines(), ["1"], "DOUBLE compared server-side")
    return "FLOAT and DOUBLE printed as MySQL prints them (0.1, 3.141592653589793, 1e300, -2.5e-300) and parsed back as floats"


def types_string(v: Verdicts) -> str:
    ins = "; ".join(f"INSERT INTO t_str VALUES ({i}, {sql_str(a)}, {sql_str(b)})" for i, (a, b) in STR_ROWS.items())
    ok_run(v, cli("CREATE TABLE t_str (id INT PRIMARY KEY, v VARCHAR(100), t TEXT) DEFAULT CHARSET=utf8mb4; " + ins), "create and insert")
    r = cli("SELECT id, v, t, CHAR_LENGTH(v), LENGTH(t) FROM t_str ORDER BY id")
    want = "".join(f"{i}\t{a}\t{b}\t{len(a)}\t{len(b.encode())}\n" for i, (a, b) in STR_ROWS.items()).encode()
    if ok_run(v, r, "select"):
        v.eq(r.out, want, "rows (raw bytes)")
    r = cli(f"SELECT id FROM t_str WHERE v = {sql_str(STR_ROWS[2][0])}")
    v.eq(r.lines(), ["2"], "lookup by a 4-byte UTF-8 string")
    return "VARCHAR and TEXT with UTF-8 incl. U+1F600, byte-exact output with --raw; CHAR_LENGTH/LENGTH agree"


def types_blob(v: Verdicts) -> str:
    ins = "".join(f"INSERT INTO t_blob VALUES ({i}, X'{b.hex()}', X'{vb.hex()}');\n" for i, (b, vb) in BLOB_ROWS.items())
    ok_run(v, cli(stdin=("CREATE TABLE t_blob (id INT PRIMARY KEY, b BLOB, vb VARBINARY(600));\n" + ins).encode()), "create and insert")
    for i, (b, vb) in BLOB_ROWS.items():
        r = cli(f"SELECT b FROM t_blob WHERE id = {i}")
        if ok_run(v, r, f"select b of row {i}"):
            v.eq(r.out, b + b"\n", f"BLOB of row {i} (raw bytes)")
        r = cli(stdin=f"SELECT vb, HEX(b) = '{b.hex().upper()}', LENGTH(b) FROM t_blob WHERE id = {i};".encode())
        if ok_run(v, r, f"select vb of row {i}"):
            v.eq(r.out, vb + f"\t1\t{len(b)}\n".encode(), f"VARBINARY, HEX(b) and LENGTH(b) of row {i}")
    # A dump-style script (mysqldump without --hex-blob): raw bytes in an escaped string literal.
    esc = {0: b"\\0", 10: b"\\n", 13: b"\\r", 92: b"\\\\", 39: b"\\'", 34: b'\\"', 26: b"\\Z"}
    raw = b"".join(esc.get(c, bytes([c])) for c in ALL_BYTES)
    r = cli(stdin=b"INSERT INTO t_blob VALUES (5, '" + raw + b"', NULL);\nSELECT b FROM t_blob WHERE id = 5;\n")
    if ok_run(v, r, "a script with raw bytes in a string literal"):
        v.eq(r.out, ALL_BYTES + b"\n", "BLOB from raw bytes in a string literal")
    # A string literal with escapes into a BLOB, and --binary-as-hex output.
    ok_run(v, cli("INSERT INTO t_blob VALUES (4, 'a\\0b\\nc\\\\', NULL)"), "insert an escaped literal")
    v.eq(cli("SELECT HEX(b) FROM t_blob WHERE id = 4").lines(), ["610062 0A635C".replace(" ", "")], "escaped literal stored")
    r = cli("SELECT b FROM t_blob WHERE id = 1", opts=BATCH + ("--binary-as-hex",))
    v.eq(r.lines(), ["0x" + ALL_BYTES.hex().upper()], "--binary-as-hex output")
    return ("BLOB and VARBINARY with all 256 byte values (and 64 KiB) from X'..' literals and from a dump-style script with raw bytes"
            " in an escaped literal, byte-exact with --raw; HEX() and --binary-as-hex agree")


def types_temporal(v: Verdicts) -> str:
    ins = "; ".join(f"INSERT INTO t_temporal VALUES ({i}, " + ", ".join(f"'{x}'" for x in vals) + ")" for i, vals in TEMP_ROWS.items())
    ok_run(v, cli("CREATE TABLE t_temporal (id INT PRIMARY KEY, d DATE, dt DATETIME, ts TIMESTAMP NULL, tm TIME, dt6 DATETIME(6)); " + ins),
           "create and insert")
    r = cli("SELECT id, d, dt, ts, tm, dt6 FROM t_temporal ORDER BY id")
    if ok_run(v, r, "select"):
        v.eq(r.lines(), [f"{i}\t" + "\t".join(vals) for i, vals in TEMP_ROWS.items()], "rows")
    r = cli("SELECT DATE_ADD(dt, INTERVAL 1 DAY), TIMESTAMPDIFF(SECOND, '2024-02-29 00:00:00', dt) FROM t_temporal WHERE d = '2024-02-29'")
    v.eq(r.lines(), ["2024-03-01 13:45:59\t49559"], "date arithmetic on the stored values")
    return "DATE, DATETIME, TIMESTAMP, TIME (incl. -838:59:59) and DATETIME(6) printed exactly; DATE_ADD/TIMESTAMPDIFF on them"


def types_null(v: Verdicts) -> str:
    cols = ",".join(NULL_COLS)
    ddl = ("CREATE TABLE t_null (id INT PRIMARY KEY, ti TINYINT, bi BIGINT UNSIGNED, dc DECIMAL(10,2), f FLOAT, db DOUBLE,"
           " vc VARCHAR(10), tx TEXT, bl BLOB, vb VARBINARY(10), d DATE, dt DATETIME, ts TIMESTAMP NULL, tm TIME, yr YEAR,"
           " en ENUM('a','b'), js JSON, bt BIT(8))")
    nulls = ",".join(["NULL"] * len(NULL_COLS))
    ok_run(v, cli(f"{ddl}; INSERT INTO t_null (id) VALUES (1); INSERT INTO t_null (id,{cols}) VALUES (2,{nulls})"), "create and insert")
    r = cli(f"SELECT id,{cols} FROM t_null ORDER BY id")
    if ok_run(v, r, "select"):
        v.eq(r.lines(), [f"{i}\t" + "\t".join(["NULL"] * len(NULL_COLS)) for i in (1, 2)], "rows")
    is_null = " + ".join(f"({c} IS NULL)" for c in NULL_COLS)
    v.eq(cli(f"SELECT {is_null} FROM t_null ORDER BY id").lines(), [str(len(NULL_COLS))] * 2, "IS NULL count per row")
    v.eq(cli("SELECT 'NULL' IS NULL, NULL IS NULL").lines(), ["0\t1"], "the string 'NULL' vs NULL")
    return f"{len(NULL_COLS)} column types NULL (default and literal) print as NULL and test IS NULL server-side"


def prepared(v: Verdicts) -> str:
    script = (
        "CREATE TABLE t_prep (id INT PRIMARY KEY, name VARCHAR(20), score DOUBLE);\n"
        "PREPARE ins FROM 'INSERT INTO t_prep VALUES (?, ?, ?)';\n"
        "SET @i = 1, @n = 'one', @s = 1.5; EXECUTE ins USING @i, @n, @s;\n"
        "SET @i = 2, @n = 'two', @s = -2.25; EXECUTE ins USING @i, @n, @s;\n"
        "SET @i = 3, @n = NULL, @s = NULL; EXECUTE ins USING @i, @n, @s;\n"
        "DEALLOCATE PREPARE ins;\n"
        "SET @q = 'SELECT id, name, score FROM t_prep WHERE id = ? OR name = ?';\n"
        "PREPARE sel FROM @q;\n"
        "SET @a = 2, @b = 'x'; EXECUTE sel USING @a, @b;\n"
        "SET @a = 3; EXECUTE sel USING @a, @b;\n"
        "SET @a = 0, @b = 'one'; EXECUTE sel USING @a, @b;\n"
        "SET @a = 99; EXECUTE sel USING @a, @a;\n"
        "DROP PREPARE sel;\n"
        "EXECUTE sel USING @a, @b;\n"
    )
    r = cli(stdin=script.encode())
    v.eq(r.out.decode(), "2\ttwo\t-2.25\n3\tNULL\tNULL\n1\tone\t1.5\n", "results of the EXECUTEs")
    v.ok(re.search(r"^ERROR 1243 \(HY000\) at line 14: Unknown prepared statement handler \(sel\)", r.err, re.M) is not None,
         f"EXECUTE after DROP PREPARE: {r.err.strip()!r}")
    return "SQL PREPARE/EXECUTE USING/DEALLOCATE (the CLI has no binary protocol): INSERT 3x, SELECT 4x with different parameters incl. NULL and no row; 1243 after DROP PREPARE"


def tx_rollback(v: Verdicts) -> str:
    ok_run(v, cli("CREATE TABLE t_tx (id INT PRIMARY KEY, v VARCHAR(10))"), "create")
    r = cli("START TRANSACTION; INSERT INTO t_tx VALUES (1,'a'),(2,'b'); SELECT COUNT(*) FROM t_tx; ROLLBACK; SELECT COUNT(*) FROM t_tx")
    v.eq(r.lines(), ["2", "0"], "count inside the transaction, after ROLLBACK")
    r = cli("SET autocommit = 0; INSERT INTO t_tx VALUES (3,'c'); ROLLBACK; SELECT COUNT(*), @@autocommit FROM t_tx")
    v.eq(r.lines(), ["0\t0"], "autocommit=0 + ROLLBACK")
    v.eq(cli("SELECT COUNT(*) FROM t_tx").lines(), ["0"], "count from a new connection")
    return "START TRANSACTION/ROLLBACK and autocommit=0/ROLLBACK leave no rows"


def read_line(p: subprocess.Popen, timeout: float) -> bytes:
    """One line of a child's stdout, or what came before the deadline."""
    fd = p.stdout.fileno()
    buf = b""
    deadline = time.monotonic() + timeout
    while not buf.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 1)
        if not chunk:
            break
        buf += chunk
    return buf


def tx_commit(v: Verdicts) -> str:
    # One session holds the transaction open (statements fed on stdin); another looks before and after COMMIT.
    # --unbuffered: the CLI flushes its output after each statement, so we can wait for it.
    p = subprocess.Popen(base_args() + list(BATCH) + ["--unbuffered"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        p.stdin.write(b"START TRANSACTION;\nINSERT INTO t_tx VALUES (10,'x'),(11,'y');\nSELECT 'ready';\n")
        p.stdin.flush()
        v.eq(read_line(p, 15), b"ready\n", "the writer's session is in its transaction")
        v.eq(cli("SELECT COUNT(*) FROM t_tx WHERE id >= 10", who=SHA2).lines(), ["0"], "rows seen by another connection before COMMIT")
        p.stdin.write(b"COMMIT;\nSELECT 'done';\n")
        p.stdin.flush()
        v.eq(read_line(p, 15), b"done\n", "COMMIT")
        p.stdin.close()
        p.wait(15)
        v.eq(p.returncode, 0, "writer's exit code")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    v.eq(cli("SELECT COUNT(*) FROM t_tx WHERE id >= 10", who=SHA2).lines(), ["2"], "rows seen by another connection after COMMIT")
    return "rows committed in one mysql session are invisible to another before COMMIT and visible after"


def duplicate_key(v: Verdicts) -> str:
    ok_run(v, cli("CREATE TABLE t_dup (id INT PRIMARY KEY, email VARCHAR(50), UNIQUE KEY uk_email (email)); "
                  "INSERT INTO t_dup VALUES (1, 'a@example.com')"), "create and insert")
    r = cli("INSERT INTO t_dup VALUES (1, 'b@example.com')")
    v.eq(r.rc, 1, "exit code")
    v.eq(last_line(r.err), "ERROR 1062 (23000) at line 1: Duplicate entry '1' for key 't_dup.PRIMARY'", "error text")
    # --force goes on after the error; the line number is that of the failing statement.
    r = cli(stdin=b"SELECT 'before';\nINSERT INTO t_dup VALUES (2, 'a@example.com');\nSELECT 'after';\n", opts=BATCH + ("--force",))
    v.eq(r.lines(), ["before", "after"], "--force output")
    v.eq(last_line(r.err), "ERROR 1062 (23000) at line 2: Duplicate entry 'a@example.com' for key 't_dup.uk_email'", "unique key error text")
    v.eq(cli("SELECT COUNT(*) FROM t_dup").lines(), ["1"], "rows after the failed inserts")
    return "ERROR 1062 (23000) ... Duplicate entry '1' for key 't_dup.PRIMARY', exit code 1; unique key with --force"


def last_insert_id(v: Verdicts) -> str:
    r = cli("CREATE TABLE t_ai (id BIGINT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10)); "
            "INSERT INTO t_ai (v) VALUES ('a'); SELECT LAST_INSERT_ID(); "
            "INSERT INTO t_ai (v) VALUES ('b'); SELECT LAST_INSERT_ID(); "
            "INSERT INTO t_ai (v) VALUES ('c'),('d'),('e'); SELECT LAST_INSERT_ID(); "
            "INSERT INTO t_ai (id, v) VALUES (100, 'x'); SELECT LAST_INSERT_ID(); "
            "INSERT INTO t_ai (v) VALUES ('f'); SELECT LAST_INSERT_ID(), MAX(id) FROM t_ai")
    v.eq(r.lines(), ["1", "2", "3", "3", "101\t101"], "LAST_INSERT_ID() after each insert")
    v.eq(cli("SELECT LAST_INSERT_ID()").lines(), ["0"], "LAST_INSERT_ID() of a new connection")
    return "LAST_INSERT_ID() 1, 2, first id 3 of a 3-row insert, unchanged by an explicit id, then 101"


def affected_rows(v: Verdicts) -> str:
    ok_run(v, cli("CREATE TABLE t_aff (id INT PRIMARY KEY, v INT); INSERT INTO t_aff VALUES (1,0),(2,0),(3,0),(4,0),(5,0)"), "create and insert")
    r = cli("UPDATE t_aff SET v = 1 WHERE id <= 3; SELECT ROW_COUNT(); UPDATE t_aff SET v = 9 WHERE id > 100; SELECT ROW_COUNT(); "
            "DELETE FROM t_aff WHERE id > 3; SELECT ROW_COUNT(); SELECT ROW_COUNT()")
    v.eq(r.lines(), ["3", "0", "2", "-1"], "ROW_COUNT() after UPDATE 3, UPDATE 0, DELETE 2, and after a SELECT")
    # The CLI's own report in verbose batch mode: "Query OK, N rows affected" (the OK packet's affected rows)
    # and, for UPDATE, the OK packet's info string "Rows matched: M  Changed: N  Warnings: W" (mysql_info()).
    def report(sql: str) -> List[str]:
        r = cli(sql, opts=("--batch", "-vvv"))
        return [re.sub(r" \([\d.]+ sec\)", "", ln) for ln in r.lines() if ln.startswith(("Query OK", "Rows matched", "Records", "ERROR"))]

    v.eq(report("UPDATE t_aff SET v = 2 WHERE id <= 2"), ["Query OK, 2 rows affected", "Rows matched: 2  Changed: 2  Warnings: 0"],
         "-vvv report of an UPDATE changing 2 rows")
    v.eq(report("DELETE FROM t_aff WHERE id = 3"), ["Query OK, 1 row affected"], "-vvv report of a DELETE of 1 row")
    # The CLI does not set CLIENT_FOUND_ROWS: rows that already hold the value are matched but not changed.
    v.eq(report("UPDATE t_aff SET v = 2 WHERE id <= 2"), ["Query OK, 0 rows affected", "Rows matched: 2  Changed: 0  Warnings: 0"],
         "-vvv report of an UPDATE matching 2 rows that already hold the value (no CLIENT_FOUND_ROWS)")
    r = cli("UPDATE t_aff SET v = 2 WHERE id <= 2; SELECT ROW_COUNT()")
    v.eq(r.lines(), ["0"], "ROW_COUNT() after that UPDATE")
    return "ROW_COUNT() after UPDATE/DELETE/SELECT; the CLI's 'Query OK, N rows affected' and 'Rows matched/Changed' lines"


def multi_results(v: Verdicts) -> str:
    ok_run(v, cli("CREATE TABLE t_multi (id INT PRIMARY KEY, b VARCHAR(5)); INSERT INTO t_multi VALUES (2,'x'),(3,'y')"), "create")
    # With another delimiter the CLI sends the whole batch as one COM_QUERY: the server answers with several results.
    script = ("delimiter //\n"
              "SELECT 1 AS a; SELECT b, id FROM t_multi ORDER BY id; INSERT INTO t_multi VALUES (4,'z'); SELECT COUNT(*) AS n FROM t_multi //\n"
              "SELECT 'one' AS o; SELECT * FROM t_no_such_table; SELECT 'never' //\n")
    r = cli(stdin=script.encode(), opts=("--batch", "--raw", "--force"))
    v.eq(r.lines(), ["a", "1", "b\tid", "x\t2", "y\t3", "n", "3", "o", "one"], "result sets of one multi-statement query")
    v.ok(re.search(r"^ERROR 1146 \(42S02\) at line 3: Table '.*t_no_such_table' doesn't exist", r.err, re.M) is not None,
         f"error of the second statement in a batch: {r.err.strip()!r}")
    # -e with several statements: the CLI splits them and prints each result.
    r = cli("SELECT 1; SELECT 2 AS two, 'x' AS ex", opts=("--batch",))
    v.eq(r.lines(), ["1", "1", "two\tex", "2\tx"], "-e 'select 1; select 2'")
    r = cli("SELECT 1 AS a; SELECT 2 AS b", opts=("--table",))
    v.eq(r.text.count("+---+"), 6, f"--table output of two statements: {r.text!r}")
    return "4 statements in one COM_QUERY (delimiter //) give 3 result sets + OK; an error mid-batch stops it (1146); -e 'select 1; select 2'"


def pool_reuse(v: Verdicts) -> str:
    raise NotApplicable("the mysql CLI has no connection pool: each invocation opens one connection, and the MariaDB client has"
                        " no resetconnection command (its `connect` opens a new connection; covered by x_interactive)")


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\([A-Z0-9]|\x07")


def x_interactive(v: Verdicts) -> str:
    ok_run(v, cli("CREATE TABLE t_comp_orders (order_id INT PRIMARY KEY, customer_name VARCHAR(20)); "
                  "CREATE TABLE t_comp_items (item_sku VARCHAR(10) PRIMARY KEY, qty INT); "
                  "INSERT INTO t_comp_orders VALUES (7, 'Ada'); INSERT INTO t_comp_items VALUES ('sku-1', 3)"), "create tables")
    env = dict(os.environ, TERM="dumb", HOME=os.environ.get("HOME", "/tmp"))
    s = PtySession(base_args(NATIVE, db=None) + ["--auto-rehash"], env=env)
    prompt_none = r"(MariaDB|MySQL) \[\(none\)\]> "
    prompt_db = rf"(MariaDB|MySQL) \[{re.escape(DB)}\]> "
    try:
        m = s.expect(r"Your (MySQL|MariaDB) connection id is (\d+)")
        conn_id = m.group(2)
        m = s.expect(r"Server version: (.*?)\r?\n")
        v.eq(m.group(1).strip(), "8.0.36-turnstile Turnstile", "banner server version")
        s.expect(prompt_none)
        # use: the client changes database (COM_INIT_DB) and, with auto-rehash, reads the table and column
        # names for completion (SHOW TABLES, then COM_FIELD_LIST per table).
        s.sendline(f"use {DB}")
        m = s.expect(re.compile(r"Reading table information for completion of table and column names.*?Database changed", re.S), timeout=20)
        s.expect(prompt_db)
        # Completion: TAB after a unique prefix of a column and of a table name.
        os.write(s.master, b"SELECT customer_n\t")
        time.sleep(0.3)
        os.write(s.master, b" FROM t_comp_ord\t")
        time.sleep(0.3)
        os.write(s.master, b" WHERE order_id = 7;\r")
        m = s.expect(re.compile(rf"\| customer_name \|.*?\| Ada\s+\|.*?1 row in set.*?{prompt_db}", re.S), timeout=20)
        os.write(s.master, b"SELECT qt\t")
        time.sleep(0.3)
        os.write(s.master, b" FROM t_comp_it\t")
        time.sleep(0.3)
        os.write(s.master, b";\r")
        s.expect(re.compile(rf"\| qty\s+\|.*?\|\s+3 \|.*?{prompt_db}", re.S), timeout=20)
        # status
        s.sendline("status")
        m = s.expect(re.compile(rf"(Connection id:.*?)\r?\n-+\r?\n.*?{prompt_db}", re.S), timeout=20)
        st = ANSI.sub("", m.group(1)).replace("\r", "")
        fields = dict(re.findall(r"^([A-Za-z][A-Za-z .]*?):\s+(.*)$", st, re.M))
        v.eq(fields.get("Connection id"), conn_id, "status: Connection id")
        v.eq(fields.get("Current database"), DB, "status: Current database")
        v.ok(re.fullmatch(rf"{re.escape(NATIVE[0])}@(localhost|127\.0\.0\.1)", fields.get("Current user", "")) is not None,
             f"status: Current user {fields.get('Current user')!r}")
        v.eq(fields.get("Server version"), "8.0.36-turnstile Turnstile", "status: Server version")
        v.eq(fields.get("Protocol version"), "10", "status: Protocol version")
        v.eq(fields.get("Connection"), f"{HOST} via TCP/IP", "status: Connection")
        v.eq(fields.get("TCP port"), PORT, "status: TCP port")
        for cs in ("Server characterset", "Db     characterset", "Client characterset", "Conn.  characterset"):
            v.eq(fields.get(cs), "utf8mb4", f"status: {cs}")
        v.ok(re.match(r"\d+ (sec|min)", fields.get("Uptime", "")) is not None, f"status: Uptime {fields.get('Uptime')!r}")
        v.ok(re.search(r"^Threads: \d+\s+Questions: \d+\s+Slow queries: \d+.*Queries per second avg: [\d.]+$", st, re.M) is not None,
             f"status: statistics line (COM_STATISTICS) in {st!r}")
        # An error, then the session goes on.
        s.sendline("SELECT * FROM t_comp_missing;")
        s.expect(re.compile(rf"ERROR 1146 \(42S02\): Table '{re.escape(DB)}\.t_comp_missing' doesn't exist\r?\n.*?{prompt_db}", re.S))
        # A transaction across prompts.
        s.sendline("BEGIN; INSERT INTO t_comp_items VALUES ('sku-2', 1); ROLLBACK; SELECT COUNT(*) AS n FROM t_comp_items;")
        s.expect(re.compile(rf"\| n\s+\|.*?\|\s+1 \|.*?{prompt_db}", re.S))
        # connect (\r): a new connection to the same database.
        s.sendline("connect")
        m = s.expect(r"Connection id:\s+(\d+)\r?\nCurrent database: (\S+)")
        new_id = m.group(1)
        v.ok(new_id != conn_id, f"connect gave a new connection id ({new_id} vs {conn_id})")
        v.eq(m.group(2), DB, "database after connect")
        s.expect(prompt_db)
        s.sendline("SELECT CONNECTION_ID() AS cid;")
        m = s.expect(re.compile(rf"\|\s+(\d+) \|.*?{prompt_db}", re.S))
        v.eq(m.group(1), new_id, "CONNECTION_ID() after connect")
        s.sendline("quit")
        s.expect(r"Bye")
        v.eq(s.wait(15), 0, "exit code after quit")
    finally:
        s.close()
    return ("pty session: banner, use <db> with auto-rehash ('Reading table information...'; TAB completes table and column names),"
            " queries, status (connection id, database, user, server version, TCP port, charsets, uptime, statistics), an error,"
            " a transaction, connect, quit")


def x_batch_socket(v: Verdicts) -> str:
    for who in (NATIVE, SHA2):
        r = cli("SELECT CURRENT_USER(), DATABASE();\nstatus", who=who, socket=True, opts=("--batch", "--skip-column-names"))
        if ok_run(v, r, f"{who[0]} over the socket"):
            v.eq(r.lines()[0] if r.lines() else None, f"{who[0]}@%\t{DB}", f"{who[0]}: first line")
            v.ok(re.search(r"^Connection:\s+Localhost via UNIX socket$", r.text, re.M) is not None, f"{who[0]}: status Connection line")
            v.ok(re.search(rf"^UNIX socket:\s+{re.escape(SOCKET)}$", r.text, re.M) is not None, f"{who[0]}: status UNIX socket line")
    r = cli(stdin=b"CREATE TABLE t_sock (id INT PRIMARY KEY);\nINSERT INTO t_sock VALUES (1),(2);\nSELECT SUM(id) FROM t_sock;\n", socket=True)
    v.eq(r.lines(), ["3"], "a script on stdin over the socket")
    return "-e and stdin batch mode over the Unix socket with both auth plugins; status reports the socket"


def main() -> int:
    if not EXE:
        print("mysql client not installed (run tests/clients/cli/setup)", file=sys.stderr)
        return 77
    emit({"client": "mysql-cli", "version": version()})
    check("connect_native", lambda v: connect_check(NATIVE, v))
    check("connect_sha2", lambda v: connect_check(SHA2, v))
    check("connect_tls", connect_tls)
    for name, fn in (("types_integer", types_integer), ("types_decimal", types_decimal), ("types_float", types_float),
                     ("types_string", types_string), ("types_blob", types_blob), ("types_temporal", types_temporal),
                     ("types_null", types_null), ("prepared", prepared), ("tx_rollback", tx_rollback), ("tx_commit", tx_commit),
                     ("duplicate_key", duplicate_key), ("last_insert_id", last_insert_id), ("affected_rows", affected_rows),
                     ("multi_results", multi_results), ("pool_reuse", pool_reuse), ("x_interactive", x_interactive),
                     ("x_batch_socket", x_batch_socket)):
        check(name, fn)
    return 0


if __name__ == "__main__":
    sys.exit(main())
