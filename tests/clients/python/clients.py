#!/usr/bin/env python3
"""The Python clients of the compatibility suite (contract: ../README.md).

    python3 clients.py pymysql | mysqlclient | connector | sqlalchemy

The three DB-API drivers share the checks where they agree (every one uses
`%s` parameters that it escapes into the SQL text, autocommit off, `rowcount`,
`lastrowid`, `nextset()`); the `Driver` classes hold what differs: how to
connect, where the error code lives, server-side prepared statements (only
mysql-connector-python has them: `cursor(prepared=True)`), multi statements
(a client flag for PyMySQL and mysqlclient; on by default in the connector),
and pools (only mysql-connector-python has one).  SQLAlchemy runs every check
through its own API (ORM models, Core statements, QueuePool).
"""

import sys

DRIVER = sys.argv[1] if len(sys.argv) > 1 else ""

# mysql-connector-python's C extension links the OpenSSL (>= 3.2) that its wheel
# ships in mysql/vendor.  Once Python's `ssl` module has loaded the system's
# older libssl.so.3 (Debian 12 has 3.0), loading the extension fails and the
# connector silently falls back to pure Python.  Loading the extension first
# makes both use the vendored library.
CEXT_ERROR = None
if DRIVER == "connector":
    try:
        import _mysql_connector  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the machine
        CEXT_ERROR = str(exc)

import datetime as dt  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import traceback  # noqa: E402
from importlib.metadata import version as dist_version  # noqa: E402
from decimal import Decimal  # noqa: E402

HOST = os.environ.get("TS_HOST", "127.0.0.1")
PORT = int(os.environ.get("TS_PORT", "3306"))
SOCKET = os.environ.get("TS_SOCKET", "")
DB = os.environ.get("TS_DB", "")
NATIVE = (os.environ.get("TS_NATIVE_USER", ""), os.environ.get("TS_NATIVE_PASSWORD", ""))
SHA2 = (os.environ.get("TS_SHA2_USER", ""), os.environ.get("TS_SHA2_PASSWORD", ""))
CA = os.environ.get("TS_CA", "")
OTHER_CA = os.environ.get("TS_OTHER_CA", "")


def emit(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


class CheckFailed(Exception):
    pass


class NotApplicable(Exception):
    pass


def expect(cond, msg: str) -> None:
    if not cond:
        raise CheckFailed(msg)


def expect_eq(got, want, what: str) -> None:
    if got != want or type(got) is not type(want):
        raise CheckFailed(f"{what}: got {got!r} ({type(got).__name__}), want {want!r} ({type(want).__name__})")


def run_check(key: str, fn, *args) -> None:
    try:
        detail = fn(*args)
        emit({"feature": key, "status": "pass", "detail": detail or ""})
    except NotApplicable as exc:
        emit({"feature": key, "status": "n/a", "detail": str(exc)})
    except CheckFailed as exc:
        emit({"feature": key, "status": "fail", "detail": str(exc)})
    except Exception as exc:  # a check that raises is a fail; go on with the next
        traceback.print_exc(file=sys.stderr)
        emit({"feature": key, "status": "fail", "detail": f"{type(exc).__name__}: {exc}"})


# --------------------------------------------------------------------------
# Test data shared by every driver (and SQLAlchemy)

INT_COLUMNS = (
    ("ti", "TINYINT", -128, 127),
    ("tu", "TINYINT UNSIGNED", 0, 255),
    ("si", "SMALLINT", -32768, 32767),
    ("su", "SMALLINT UNSIGNED", 0, 65535),
    ("mi", "MEDIUMINT", -8388608, 8388607),
    ("mu", "MEDIUMINT UNSIGNED", 0, 16777215),
    ("i", "INT", -(2**31), 2**31 - 1),
    ("iu", "INT UNSIGNED", 0, 2**32 - 1),
    ("bi", "BIGINT", -(2**63), 2**63 - 1),
    ("bu", "BIGINT UNSIGNED", 0, 2**64 - 1),
)
U64_MAX = 2**64 - 1

# (column, type, scale, values for rows 1..3)
DECIMAL_COLUMNS = (
    ("d1", "DECIMAL(10,2)", 2, (Decimal("12345678.90"), Decimal("-0.01"), Decimal("0.00"))),
    ("d2", "DECIMAL(18,0)", 0, (Decimal("999999999999999999"), Decimal("-999999999999999999"), Decimal("0"))),
    ("d3", "DECIMAL(15,5)", 5, (Decimal("1234567890.12345"), Decimal("-0.00001"), Decimal("0.00000"))),
    ("d4", "DECIMAL(5,5)", 5, (Decimal("0.99999"), Decimal("-0.12345"), Decimal("0.00000"))),
)
DECIMAL_SUM_D1 = Decimal("12345678.89")

# FLOAT values exact in single precision; DOUBLE values at the limits.
FLOAT_ROWS = (
    (1, 1.5, 0.1),
    (2, -0.25, -1.7976931348623157e308),
    (3, 16777216.0, 2.2250738585072014e-308),
    (4, 0.0, 3.141592653589793),
)

STRINGS = (
    "héllo wörld 😀 日本語 ñ",
    "quote ' double \" backslash \\ newline \n tab \t end",
    "",
    "😀" * 50 + "ü",
)
LONG_TEXT = ("Grüße 😀 " * 4000)[:30000]

BLOBS = (bytes(range(256)), bytes(reversed(range(256))), b"", b"\x00" * 10 + b"'\"\\" + b"\xff" * 10)
LONG_BLOB = bytes(range(256)) * 400  # 100 KiB, every byte value

TEMPORAL_ROWS = (
    # id, DATE, DATETIME, DATETIME(6), TIMESTAMP, TIME, TIME(6)
    (1, dt.date(2024, 2, 29), dt.datetime(2024, 2, 29, 13, 45, 59), dt.datetime(1999, 12, 31, 23, 59, 59, 123456),
     dt.datetime(2038, 1, 19, 3, 14, 7), dt.timedelta(hours=838, minutes=59, seconds=59),
     dt.timedelta(hours=13, minutes=45, seconds=59, microseconds=500000)),
    (2, dt.date(1000, 1, 1), dt.datetime(1000, 1, 1, 0, 0, 0), dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
     dt.datetime(1970, 1, 1, 0, 0, 1), -dt.timedelta(hours=12, minutes=30), -dt.timedelta(microseconds=1)),
    (3, dt.date(9999, 12, 31), dt.datetime(1970, 1, 1, 0, 0, 0), dt.datetime(2000, 1, 1, 0, 0, 0, 1),
     dt.datetime(2000, 6, 15, 12, 0, 0), dt.timedelta(0), dt.timedelta(seconds=1)),
)

NULL_COLUMNS = (
    ("c_int", "INT"), ("c_bu", "BIGINT UNSIGNED"), ("c_dec", "DECIMAL(10,2)"), ("c_flt", "FLOAT"),
    ("c_dbl", "DOUBLE"), ("c_vc", "VARCHAR(20)"), ("c_txt", "TEXT"), ("c_blob", "BLOB"),
    ("c_vb", "VARBINARY(20)"), ("c_date", "DATE"), ("c_dt", "DATETIME"), ("c_ts", "TIMESTAMP NULL"),
    ("c_time", "TIME"), ("c_enum", "ENUM('a','b')"), ("c_json", "JSON"),
)
NULL_VALUES = (7, 2**63 - 1, Decimal("1.25"), 1.5, 2.5, "v", "t", b"\x00b", b"\x01", dt.date(2024, 1, 2),
               dt.datetime(2024, 1, 2, 3, 4, 5), dt.datetime(2024, 1, 2, 3, 4, 5), dt.timedelta(hours=1), "a", '{"k": 1}')


def time_text(td: dt.timedelta) -> str:
    """A timedelta as MySQL TIME text, [-]H:MM:SS[.ffffff]."""
    sign, td = ("-", -td) if td < dt.timedelta(0) else ("", td)
    secs = td.days * 86400 + td.seconds
    frac = f".{td.microseconds:06d}" if td.microseconds else ""
    return f"{sign}{secs // 3600}:{secs // 60 % 60:02d}:{secs % 60:02d}{frac}"


def parse_time_text(s: str) -> dt.timedelta:
    neg = s.startswith("-")
    h, m, sec = s.lstrip("-").split(":")
    td = dt.timedelta(hours=int(h), minutes=int(m), seconds=float(sec))
    return -td if neg else td


def is_bytes(v) -> bool:
    return type(v) is bytes


# --------------------------------------------------------------------------
# The DB-API drivers


class Driver:
    name = ""
    module = None
    cext = False  # mysql-connector-python only

    def version(self) -> str:
        raise NotImplementedError

    def connect(self, user=NATIVE, autocommit=False, multi=False, socket=False, **kw):
        raise NotImplementedError

    def errno(self, exc) -> int:
        return exc.args[0]

    def sqlstate(self, exc):
        return None

    def integrity_error(self):
        return self.module.IntegrityError

    def tls(self, ca: str):
        """connect() keywords for TLS with the server verified against `ca`,
        and how strictly (connect_tls's detail)."""
        raise NotImplementedError


class PyMySQLDriver(Driver):
    name = "PyMySQL"

    def __init__(self):
        import pymysql
        import pymysql.constants.CLIENT

        self.module = pymysql

    def version(self):
        return dist_version("PyMySQL")  # pymysql.__version__ is a MySQLdb-compatible number

    def connect(self, user=NATIVE, autocommit=False, multi=False, socket=False, **kw):
        flags = self.module.constants.CLIENT.MULTI_STATEMENTS if multi else 0
        where = {"unix_socket": SOCKET} if socket else {"host": HOST, "port": PORT}
        return self.module.connect(user=user[0], password=user[1], database=DB, charset="utf8mb4",
                                   autocommit=autocommit, client_flag=flags, **where, **kw)

    def tls(self, ca):
        # (PyMySQL builds its own ssl dict from the ssl_* keywords, so the CA goes there too.)
        return {"ssl_ca": ca, "ssl_verify_cert": True, "ssl_verify_identity": True}, "ssl_ca, ssl_verify_cert and ssl_verify_identity"


class MysqlclientDriver(Driver):
    name = "mysqlclient"

    def __init__(self):
        import MySQLdb
        import MySQLdb.constants.CLIENT

        self.module = MySQLdb

    def version(self):
        return f"{dist_version('mysqlclient')} (libmariadb {self.module._mysql.get_client_info()})"

    def connect(self, user=NATIVE, autocommit=False, multi=False, socket=False, **kw):
        # mysqlclient asks for MULTI_STATEMENTS and MULTI_RESULTS by itself;
        # the flag is passed explicitly so that the check does not rely on that.
        flags = self.module.constants.CLIENT.MULTI_STATEMENTS if multi else 0
        where = {"unix_socket": SOCKET, "host": "localhost"} if socket else {"host": HOST, "port": PORT}
        return self.module.connect(user=user[0], password=user[1], database=DB, charset="utf8mb4",
                                   autocommit=autocommit, client_flag=flags, **where, **kw)

    def tls(self, ca):
        return {"ssl": {"ca": ca}, "ssl_mode": "VERIFY_IDENTITY"}, "ssl_mode VERIFY_IDENTITY"


class ConnectorDriver(Driver):
    name = "mysql-connector-python"

    def __init__(self, use_pure: bool):
        import mysql.connector

        self.module = mysql.connector
        self.use_pure = use_pure
        self.cext = not use_pure

    def version(self):
        if self.module.HAVE_CEXT:
            import _mysql_connector

            how = f"C extension (libmysqlclient {_mysql_connector.MySQL().get_client_info()}) and pure Python"
        else:
            how = f"pure Python; C extension unavailable: {CEXT_ERROR or 'not installed'}"
        return f"{dist_version('mysql-connector-python')} ({how})"

    def connect(self, user=NATIVE, autocommit=False, multi=False, socket=False, **kw):
        where = {"unix_socket": SOCKET} if socket else {"host": HOST, "port": PORT}
        return self.module.connect(user=user[0], password=user[1], database=DB, charset="utf8mb4",
                                   collation="utf8mb4_general_ci", autocommit=autocommit,
                                   use_pure=self.use_pure, **where, **kw)

    def tls(self, ca):
        return {"ssl_ca": ca, "ssl_verify_cert": True, "ssl_verify_identity": True}, "ssl_verify_cert and ssl_verify_identity"

    def errno(self, exc):
        return exc.errno

    def sqlstate(self, exc):
        return exc.sqlstate


def one(conn, sql, args=None):
    cur = conn.cursor()
    cur.execute(sql, args)
    rows = cur.fetchall()
    cur.close()
    return rows


def scalar(conn, sql, args=None):
    rows = one(conn, sql, args)
    expect(len(rows) == 1 and len(rows[0]) == 1, f"{sql}: expected one value, got {rows!r}")
    return rows[0][0]


def ddl(conn, sql):
    cur = conn.cursor()
    cur.execute(sql)
    cur.close()


def check_connect(d: Driver, user):
    conn = d.connect(user)
    try:
        got = one(conn, "SELECT 1")
        expect(list(map(tuple, got)) == [(1,)], f"SELECT 1 returned {got!r}")
        who = scalar(conn, "SELECT CURRENT_USER()")
        expect(str(who).split("@")[0] == user[0], f"CURRENT_USER() is {who!r}, want {user[0]}@%")
        return f"SELECT 1 as {who}"
    finally:
        conn.close()


def session_cipher(conn) -> str:
    rows = one(conn, "SHOW SESSION STATUS LIKE 'Ssl_cipher'")
    return str(rows[0][1]) if rows else ""


def check_tls(d: Driver):
    """TLS with the server's certificate verified against TS_CA; refused
    against TS_OTHER_CA."""
    kw, how = d.tls(CA)
    conn = d.connect(SHA2, **kw)
    try:
        expect(scalar(conn, "SELECT 1") == 1, "SELECT 1 over TLS")
        cipher = session_cipher(conn)
        expect(cipher != "", "Ssl_cipher is empty: the connection is not TLS")
    finally:
        conn.close()
    try:
        d.connect(SHA2, **d.tls(OTHER_CA)[0]).close()
    except Exception as exc:  # noqa: BLE001 - any refusal will do; which one is in the detail
        refused = f"{type(exc).__name__}: {str(exc)[:80]}"
    else:
        raise CheckFailed("a CA that signed nothing of the server's was accepted: the certificate is not verified")
    return f"{how}, {cipher}; with another CA: {refused}"


def compare_rows(got, want, what, bytes_like=False):
    """Compare rows value by value and type by type (bytes_like: bytearray counts as bytes)."""
    expect(len(got) == len(want), f"{what}: {len(got)} rows, want {len(want)}")
    for r, (grow, wrow) in enumerate(zip(got, want)):
        for c, (g, w) in enumerate(zip(grow, wrow)):
            if w is None:
                expect(g is None, f"{what} row {r + 1} col {c + 1}: got {g!r}, want NULL")
            elif isinstance(w, bytes):
                expect((is_bytes(g) or (bytes_like and type(g) is bytearray)) and g == w,
                       f"{what} row {r + 1} col {c + 1}: got {type(g).__name__} {g[:40]!r}..., want bytes {w[:40]!r}...")
            elif isinstance(w, Decimal):
                expect_eq(g, w, f"{what} row {r + 1} col {c + 1}")
                expect(g.as_tuple().exponent == w.as_tuple().exponent,
                       f"{what} row {r + 1} col {c + 1}: got {g} (scale {-g.as_tuple().exponent}), want {w}")
            else:
                expect_eq(g, w, f"{what} row {r + 1} col {c + 1}")


def check_types_integer(d: Driver):
    conn = d.connect()
    cols = ", ".join(f"{n} {t}" for n, t, _, _ in INT_COLUMNS)
    ddl(conn, f"CREATE TABLE t_int (id INT PRIMARY KEY, {cols})")
    names = ", ".join(n for n, _, _, _ in INT_COLUMNS)
    marks = ", ".join(["%s"] * (len(INT_COLUMNS) + 1))
    mins = tuple(lo for _, _, lo, _ in INT_COLUMNS)
    # Row 2: every maximum except BIGINT UNSIGNED, which row 3 tries alone.
    maxes = tuple(hi for _, _, _, hi in INT_COLUMNS[:-1]) + (2**63 - 1,)
    cur = conn.cursor()
    cur.execute(f"INSERT INTO t_int (id, {names}) VALUES ({marks})", (1,) + mins)
    cur.execute(f"INSERT INTO t_int (id, {names}) VALUES ({marks})", (2,) + maxes)
    conn.commit()
    compare_rows(one(conn, f"SELECT {names} FROM t_int ORDER BY id"), [mins, maxes], "t_int")
    try:
        cur.execute("INSERT INTO t_int (id, bu) VALUES (%s, %s)", (3, U64_MAX))
        conn.commit()
        got = scalar(conn, "SELECT bu FROM t_int WHERE id = 3")
        expect_eq(got, U64_MAX, "BIGINT UNSIGNED max")
    except d.module.Error as exc:
        raise CheckFailed(f"BIGINT UNSIGNED max {U64_MAX} not stored: {exc} "
                          f"(every other limit round-trips)") from exc
    conn.close()
    return "TINYINT..BIGINT signed/unsigned min and max as int, BIGINT UNSIGNED max included"


def check_types_decimal(d: Driver):
    conn = d.connect()
    ddl(conn, "CREATE TABLE t_dec (id INT PRIMARY KEY, " + ", ".join(f"{n} {t}" for n, t, _, _ in DECIMAL_COLUMNS) + ")")
    rows = [tuple(c[3][i] for c in DECIMAL_COLUMNS) for i in range(3)]
    cur = conn.cursor()
    for i, row in enumerate(rows):
        cur.execute("INSERT INTO t_dec VALUES (%s, %s, %s, %s, %s)", (i + 1,) + row)
    conn.commit()
    compare_rows(one(conn, "SELECT d1, d2, d3, d4 FROM t_dec ORDER BY id"), rows, "t_dec")
    total = scalar(conn, "SELECT SUM(d1) FROM t_dec")
    compare_rows([(total,)], [(DECIMAL_SUM_D1,)], "SUM(d1)")
    conn.close()
    return "DECIMAL(10,2), (18,0), (15,5), (5,5) as Decimal with their scale; SUM as Decimal"


def check_types_float(d: Driver):
    conn = d.connect()
    ddl(conn, "CREATE TABLE t_flt (id INT PRIMARY KEY, f FLOAT, d DOUBLE)")
    cur = conn.cursor()
    for row in FLOAT_ROWS:
        cur.execute("INSERT INTO t_flt VALUES (%s, %s, %s)", row)
    conn.commit()
    compare_rows(one(conn, "SELECT id, f, d FROM t_flt ORDER BY id"), list(FLOAT_ROWS), "t_flt")
    conn.close()
    return "FLOAT and DOUBLE (incl. +-1.797e308, 2.2e-308) as float"


def check_types_string(d: Driver):
    conn = d.connect()
    ddl(conn, "CREATE TABLE t_str (id INT PRIMARY KEY, v VARCHAR(200), t TEXT, m MEDIUMTEXT)")
    cur = conn.cursor()
    for i, s in enumerate(STRINGS):
        cur.execute("INSERT INTO t_str VALUES (%s, %s, %s, %s)", (i + 1, s, s, LONG_TEXT))
    conn.commit()
    compare_rows(one(conn, "SELECT v, t, m FROM t_str ORDER BY id"), [(s, s, LONG_TEXT) for s in STRINGS], "t_str")
    lengths = one(conn, "SELECT CHAR_LENGTH(v), LENGTH(v) FROM t_str ORDER BY id")
    want = [(len(s), len(s.encode("utf-8"))) for s in STRINGS]
    expect([tuple(r) for r in lengths] == want, f"CHAR_LENGTH/LENGTH {lengths!r}, want {want!r}")
    conn.close()
    return "VARCHAR/TEXT/MEDIUMTEXT with 4-byte UTF-8, quotes, backslashes; CHAR_LENGTH and LENGTH agree"


def check_types_blob(d: Driver):
    conn = d.connect()
    ddl(conn, "CREATE TABLE t_blob (id INT PRIMARY KEY, b BLOB, vb VARBINARY(300), lb LONGBLOB)")
    cur = conn.cursor()
    for i, b in enumerate(BLOBS):
        cur.execute("INSERT INTO t_blob VALUES (%s, %s, %s, %s)", (i + 1, b, b, LONG_BLOB))
    conn.commit()
    compare_rows(one(conn, "SELECT b, vb, lb FROM t_blob ORDER BY id"), [(b, b, LONG_BLOB) for b in BLOBS], "t_blob")
    lengths = [tuple(r) for r in one(conn, "SELECT LENGTH(b), LENGTH(lb) FROM t_blob ORDER BY id")]
    expect(lengths == [(len(b), len(LONG_BLOB)) for b in BLOBS], f"LENGTH() {lengths!r}")
    conn.close()
    return "BLOB/VARBINARY/LONGBLOB (100 KiB) with all 256 byte values as bytes"


def check_types_temporal(d: Driver):
    conn = d.connect()
    ddl(conn, "CREATE TABLE t_tmp (id INT PRIMARY KEY, d DATE, dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL, "
              "tm TIME, tm6 TIME(6))")
    cur = conn.cursor()
    for row in TEMPORAL_ROWS:
        cur.execute("INSERT INTO t_tmp VALUES (%s, %s, %s, %s, %s, %s, %s)", row)
    conn.commit()
    compare_rows(one(conn, "SELECT * FROM t_tmp ORDER BY id"), list(TEMPORAL_ROWS), "t_tmp")
    conn.close()
    return "DATE as date, DATETIME[(6)]/TIMESTAMP as datetime, TIME[(6)] as timedelta (838:59:59, negative)"


def check_types_null(d: Driver):
    conn = d.connect()
    ddl(conn, "CREATE TABLE t_null (id INT PRIMARY KEY, " + ", ".join(f"{n} {t}" for n, t in NULL_COLUMNS) + ")")
    cur = conn.cursor()
    marks = ", ".join(["%s"] * (len(NULL_COLUMNS) + 1))
    cur.execute(f"INSERT INTO t_null VALUES ({marks})", (1,) + (None,) * len(NULL_COLUMNS))
    cur.execute(f"INSERT INTO t_null VALUES ({marks})", (2,) + NULL_VALUES)
    conn.commit()
    names = ", ".join(n for n, _ in NULL_COLUMNS)
    rows = one(conn, f"SELECT {names} FROM t_null ORDER BY id")
    expect(all(v is None for v in rows[0]), f"row of NULLs came back as {rows[0]!r}")
    expect(all(v is not None for v in rows[1]), f"row without NULLs came back as {rows[1]!r}")
    isnull = scalar(conn, "SELECT " + " + ".join(f"({n} IS NULL)" for n, _ in NULL_COLUMNS) + " FROM t_null WHERE id = 1")
    expect(int(isnull) == len(NULL_COLUMNS), f"IS NULL count {isnull}")
    expect(tuple(one(conn, "SELECT NULL, NULL + 1, CONCAT('a', NULL)")[0]) == (None, None, None), "NULL expressions")
    conn.close()
    return f"NULL in {len(NULL_COLUMNS)} column types is None"


def check_prepared(d: Driver):
    if not isinstance(d, ConnectorDriver):
        raise NotApplicable(f"{d.name} has no server-side prepared statements: it escapes parameters into the SQL "
                            "text (text protocol)")
    conn = d.connect()
    ddl(conn, "CREATE TABLE t_prep (id INT PRIMARY KEY, i BIGINT, u BIGINT UNSIGNED, dc DECIMAL(12,3), f DOUBLE, "
              "s VARCHAR(50), b VARBINARY(300), dt DATETIME(6), d DATE, tm TIME)")
    rows = [
        (1, -(2**63), 2**63 - 1, Decimal("-123456789.125"), -2.5, "héllo 😀", bytes(range(256)),
         dt.datetime(2024, 2, 29, 13, 45, 59, 123456), dt.date(2024, 2, 29), dt.timedelta(hours=838, minutes=59, seconds=59)),
        (2, 2**63 - 1, 0, Decimal("0.000"), 1e300, "", b"", dt.datetime(1970, 1, 1), dt.date(1000, 1, 1),
         -dt.timedelta(hours=1, minutes=2, seconds=3)),
        (3, None, None, None, None, None, None, None, None, None),
    ]
    notes = []
    if d.cext:
        # Two bugs of the C extension's parameter binding (seen on the wire):
        # a Python float goes out as MYSQL_TYPE_FLOAT (4 bytes: 1e300 becomes
        # inf), and a timedelta as MYSQL_TYPE_TIME with zero hours, minutes and
        # seconds and garbage microseconds (838:59:59 as 00:00:00 + 7291649 us).
        # So the double is one single precision holds and TIME goes as text.
        rows = [r[:4] + ((0.375 if r[4] == 1e300 else r[4]),) + r[5:9] + ((None if r[9] is None else time_text(r[9])),)
                for r in rows]
        notes.append("C extension bugs avoided: floats bound as MYSQL_TYPE_FLOAT (DOUBLE value kept single-precision-"
                     "exact), timedelta mis-encoded (TIME bound as text)")
    cur = conn.cursor(prepared=True)
    insert = "INSERT INTO t_prep VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    for row in rows:
        cur.execute(insert, row)
        expect(cur.rowcount == 1, f"prepared INSERT rowcount {cur.rowcount}")
    conn.commit()
    if d.cext:
        rows = [r[:9] + ((None if r[9] is None else parse_time_text(r[9])),) for r in rows]
    sel = conn.cursor(prepared=True)
    for row in rows:
        sel.execute("SELECT * FROM t_prep WHERE id = ?", (row[0],))
        got = sel.fetchall()
        if any(type(v) is bytearray for r in got for v in r) and not any("bytearray" in n for n in notes):
            notes.append("VARBINARY comes back as bytearray (the C extension's type for binary results)")
        compare_rows(got, [row], f"prepared SELECT id={row[0]}", bytes_like=d.cext)
    sel.execute("SELECT COUNT(*) FROM t_prep WHERE i > ? AND s = ?", (0, ""))
    expect([tuple(r) for r in sel.fetchall()] == [(1,)], "prepared COUNT with two parameters")
    sel.close()
    cur.close()
    conn.close()
    kind = "C extension" if d.cext else "pure Python"
    return (f"cursor(prepared=True) ({kind}): one INSERT executed 3 times (typed params, NULLs), "
            "SELECT re-executed per id, binary results decoded" + "".join("; " + n for n in notes))


def check_tx_rollback(d: Driver):
    conn = d.connect()
    ddl(conn, "CREATE TABLE t_tx_rb (id INT PRIMARY KEY, v VARCHAR(10))")
    cur = conn.cursor()
    cur.execute("INSERT INTO t_tx_rb VALUES (1, 'a'), (2, 'b')")
    expect(scalar(conn, "SELECT COUNT(*) FROM t_tx_rb") == 2, "rows not visible inside the transaction")
    conn.rollback()
    expect(scalar(conn, "SELECT COUNT(*) FROM t_tx_rb") == 0, "rows still there after rollback")
    other = d.connect(autocommit=True)
    expect(scalar(other, "SELECT COUNT(*) FROM t_tx_rb") == 0, "other connection sees rolled-back rows")
    other.close()
    conn.close()
    return "2 rows inserted, visible in the transaction, gone after rollback()"


def check_tx_commit(d: Driver):
    conn = d.connect()
    ddl(conn, "CREATE TABLE t_tx_c (id INT PRIMARY KEY, v VARCHAR(10))")
    other = d.connect(autocommit=True)
    cur = conn.cursor()
    cur.execute("INSERT INTO t_tx_c VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    expect(scalar(other, "SELECT COUNT(*) FROM t_tx_c") == 0, "other connection sees uncommitted rows")
    conn.commit()
    expect(scalar(other, "SELECT COUNT(*) FROM t_tx_c") == 3, "other connection does not see committed rows")
    other.close()
    conn.close()
    return "uncommitted rows invisible to another connection, visible after commit()"


def check_duplicate_key(d: Driver):
    conn = d.connect(autocommit=True)
    ddl(conn, "CREATE TABLE t_dup (id INT PRIMARY KEY, email VARCHAR(50), UNIQUE KEY uk_email (email))")
    cur = conn.cursor()
    cur.execute("INSERT INTO t_dup VALUES (%s, %s)", (1, "a@example.com"))
    found = []
    for sql, args in (("INSERT INTO t_dup VALUES (%s, %s)", (1, "b@example.com")),
                      ("INSERT INTO t_dup VALUES (%s, %s)", (2, "a@example.com"))):
        try:
            cur.execute(sql, args)
        except d.integrity_error() as exc:
            expect(d.errno(exc) == 1062, f"IntegrityError with errno {d.errno(exc)}, want 1062: {exc}")
            if d.sqlstate(exc) is not None:
                expect(d.sqlstate(exc) == "23000", f"sqlstate {d.sqlstate(exc)}")
            found.append(str(exc))
        except d.module.Error as exc:
            raise CheckFailed(f"{type(exc).__name__} instead of IntegrityError: {exc}") from exc
        else:
            raise CheckFailed(f"duplicate {args} was accepted")
    expect(scalar(conn, "SELECT COUNT(*) FROM t_dup") == 1, "table changed by the failed inserts")
    conn.close()
    return f"IntegrityError 1062 for PRIMARY and UNIQUE: {found[1]}"


def check_last_insert_id(d: Driver):
    conn = d.connect(autocommit=True)
    ddl(conn, "CREATE TABLE t_ai (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10))")
    cur = conn.cursor()
    cur.execute("INSERT INTO t_ai (v) VALUES (%s)", ("a",))
    expect(cur.lastrowid == 1, f"lastrowid after first insert {cur.lastrowid}, want 1")
    cur.execute("INSERT INTO t_ai (v) VALUES ('b'), ('c'), ('d')")
    expect(cur.lastrowid == 2, f"lastrowid after 3-row insert {cur.lastrowid}, want 2 (the first id)")
    expect(scalar(conn, "SELECT LAST_INSERT_ID()") == 2, "LAST_INSERT_ID() after 3-row insert")
    cur.execute("INSERT INTO t_ai (id, v) VALUES (100, 'e')")
    expect(cur.lastrowid == 100, f"lastrowid after explicit id {cur.lastrowid}, want 100")
    cur.execute("INSERT INTO t_ai (v) VALUES ('f')")
    expect(cur.lastrowid == 101, f"lastrowid after explicit id 100 {cur.lastrowid}, want 101")
    if isinstance(d, MysqlclientDriver):
        expect(conn.insert_id() == 101, f"conn.insert_id() {conn.insert_id()}")
    conn.close()
    return "cursor.lastrowid 1, then 2 for a 3-row insert (= LAST_INSERT_ID()), 100 explicit, 101 next"


def check_affected_rows(d: Driver):
    conn = d.connect(autocommit=True)
    ddl(conn, "CREATE TABLE t_aff (id INT PRIMARY KEY, v INT)")
    cur = conn.cursor()
    cur.execute("INSERT INTO t_aff VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0)")
    expect(cur.rowcount == 5, f"INSERT rowcount {cur.rowcount}, want 5")
    cur.execute("UPDATE t_aff SET v = v + 1 WHERE id <= %s", (3,))
    expect(cur.rowcount == 3, f"UPDATE rowcount {cur.rowcount}, want 3")
    cur.execute("UPDATE t_aff SET v = 9 WHERE id > 100")
    expect(cur.rowcount == 0, f"UPDATE of no rows: rowcount {cur.rowcount}, want 0")
    cur.execute("DELETE FROM t_aff WHERE id > %s", (3,))
    expect(cur.rowcount == 2, f"DELETE rowcount {cur.rowcount}, want 2")
    expect(scalar(conn, "SELECT COUNT(*) FROM t_aff") == 3, "rows left after DELETE")
    conn.close()
    return "rowcount: INSERT 5, UPDATE 3, UPDATE of none 0, DELETE 2"


def check_multi_results(d: Driver):
    conn = d.connect(multi=True, autocommit=True)
    ddl(conn, "CREATE TABLE t_multi (id INT PRIMARY KEY, v VARCHAR(10))")
    cur = conn.cursor()
    cur.execute("SELECT 1 AS a, 'x' AS b; INSERT INTO t_multi VALUES (1, 'p'), (2, 'q'); "
                "SELECT id, v FROM t_multi ORDER BY id; SELECT COUNT(*) FROM t_multi")
    sets = [([tuple(r) for r in cur.fetchall()], cur.rowcount)]
    while cur.nextset():
        rows = [tuple(r) for r in cur.fetchall()] if cur.description else None
        sets.append((rows, cur.rowcount))
    want = [([(1, "x")], 1), (None, 2), ([(1, "p"), (2, "q")], 2), ([(2,)], 1)]
    expect(sets == want, f"result sets {sets!r}, want {want!r}")
    expect(scalar(conn, "SELECT 7") == 7, "connection unusable after the multi-statement query")
    cur.close()
    conn.close()
    return "4 statements: 3 result sets and an OK (rowcount 2) through nextset()"


def check_pool_reuse(d: Driver):
    if not isinstance(d, ConnectorDriver):
        raise NotApplicable(f"{d.name} has no connection pool")
    from mysql.connector import pooling

    pool = pooling.MySQLConnectionPool(pool_name=f"ts_{'c' if d.cext else 'p'}", pool_size=1, pool_reset_session=True,
                                       host=HOST, port=PORT, user=NATIVE[0], password=NATIVE[1], database=DB,
                                       charset="utf8mb4", collation="utf8mb4_general_ci", use_pure=d.use_pure)
    first = pool.get_connection()
    resets = []
    inner = first._cnx
    real_reset = inner.cmd_reset_connection

    def spy():
        ok = real_reset()
        resets.append(ok)
        return ok

    inner.cmd_reset_connection = spy
    cid = scalar(first, "SELECT CONNECTION_ID()")
    ddl(first, "SET @pool_v = 42, SESSION sql_mode = 'ANSI_QUOTES'")
    ddl(first, "CREATE TEMPORARY TABLE t_pool_tmp (id INT)")
    expect(scalar(first, "SELECT @pool_v") == 42, "user variable not set")
    first.close()  # back to the pool; resets the session
    expect(resets == [True], f"COM_RESET_CONNECTION on return: {resets!r} (False = fell back to change user)")
    second = pool.get_connection()
    try:
        expect(second._cnx is inner, "the pool handed out another connection object")
        cid2 = scalar(second, "SELECT CONNECTION_ID()")
        expect(cid2 == cid, f"server connection id {cid2}, want {cid} (reconnected instead of reused)")
        expect(scalar(second, "SELECT @pool_v") is None, "user variable survived the reset")
        mode = scalar(second, "SELECT @@SESSION.sql_mode")
        expect("ANSI_QUOTES" not in str(mode), f"sql_mode survived the reset: {mode}")
        try:
            one(second, "SELECT * FROM t_pool_tmp")
            raise CheckFailed("temporary table survived the reset")
        except d.module.Error as exc:
            expect(d.errno(exc) == 1146, f"temporary table: errno {d.errno(exc)}: {exc}")
    finally:
        second.close()
    return (f"MySQLConnectionPool(size 1): same connection (id {cid}) reused; COM_RESET_CONNECTION on return cleared "
            "user variable, sql_mode and temporary table")


def check_unix_socket(d: Driver):
    if not SOCKET:
        raise NotApplicable("no TS_SOCKET")
    conn = d.connect(SHA2, socket=True)
    try:
        expect(scalar(conn, "SELECT 1") == 1, "SELECT 1")
        return f"SELECT 1 as {SHA2[0]} over {SOCKET}"
    finally:
        conn.close()


def check_batch(d: Driver):
    conn = d.connect()
    ddl(conn, "CREATE TABLE t_batch (id INT PRIMARY KEY, v VARCHAR(20), d DECIMAL(8,2))")
    cur = conn.cursor()
    rows = [(i, f"row {i} 😀", Decimal(i) / 4) for i in range(1, 201)]
    cur.executemany("INSERT INTO t_batch (id, v, d) VALUES (%s, %s, %s)", rows)
    expect(cur.rowcount == 200, f"executemany rowcount {cur.rowcount}, want 200")
    conn.commit()
    got = [tuple(r) for r in one(conn, "SELECT id, v, d FROM t_batch ORDER BY id")]
    want = [(i, v, d.quantize(Decimal("0.01"))) for i, v, d in rows]
    expect(got == want, "rows differ after executemany")
    conn.close()
    return "executemany of 200 rows (rewritten to multi-row INSERT), rowcount 200"


def check_change_user(d: Driver):
    """mysqlclient: COM_CHANGE_USER through mysql_change_user() (libmariadb)."""
    conn = d.connect(NATIVE)
    cid = scalar(conn, "SELECT CONNECTION_ID()")
    ddl(conn, "SET @cu = 1")
    conn.change_user(SHA2[0], SHA2[1], DB)
    who = scalar(conn, "SELECT CURRENT_USER()")
    expect(str(who).split("@")[0] == SHA2[0], f"CURRENT_USER() after change_user: {who}")
    expect(scalar(conn, "SELECT CONNECTION_ID()") == cid, "connection id changed")
    expect(scalar(conn, "SELECT @cu") is None, "user variable survived COM_CHANGE_USER")
    expect(scalar(conn, "SELECT DATABASE()") == DB, "database after change_user")
    conn.close()
    return f"change_user() from {NATIVE[0]} to {SHA2[0]} (caching_sha2_password) on connection {cid}; session reset"


CORE_CHECKS = (
    ("connect_native", lambda d: check_connect(d, NATIVE)),
    ("connect_sha2", lambda d: check_connect(d, SHA2)),
    ("connect_tls", check_tls),
    ("types_integer", check_types_integer),
    ("types_decimal", check_types_decimal),
    ("types_float", check_types_float),
    ("types_string", check_types_string),
    ("types_blob", check_types_blob),
    ("types_temporal", check_types_temporal),
    ("types_null", check_types_null),
    ("prepared", check_prepared),
    ("tx_rollback", check_tx_rollback),
    ("tx_commit", check_tx_commit),
    ("duplicate_key", check_duplicate_key),
    ("last_insert_id", check_last_insert_id),
    ("affected_rows", check_affected_rows),
    ("multi_results", check_multi_results),
    ("pool_reuse", check_pool_reuse),
)


def reset_tables(d: Driver) -> None:
    """Drop the tables of a previous pass (the connector runs the checks twice)."""
    conn = d.connect(autocommit=True)
    for (name,) in one(conn, "SHOW TABLES"):
        ddl(conn, f"DROP TABLE `{name}`")
    conn.close()


def run_dbapi(d: Driver) -> None:
    for key, fn in CORE_CHECKS:
        run_check(key, fn, d)
    run_check("x_unix_socket", check_unix_socket, d)
    run_check("x_batch", check_batch, d)
    if isinstance(d, MysqlclientDriver):
        run_check("x_change_user", check_change_user, d)


def run_connector_other(d: ConnectorDriver) -> None:
    """x_pure: every core check again through the pure Python implementation."""
    key = "x_pure"
    failed, passed = [], []
    reset_tables(d)
    for name, fn in CORE_CHECKS:
        try:
            fn(d)
            passed.append(name)
        except NotApplicable:
            pass
        except Exception as exc:  # noqa: BLE001
            traceback.print_exc(file=sys.stderr)
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
    what = "pure Python (use_pure=True)"
    if failed:
        emit({"feature": key, "status": "fail", "detail": f"{what}: " + "; ".join(failed)})
    else:
        emit({"feature": key, "status": "pass", "detail": f"{what}: all {len(passed)} core checks pass"})


# --------------------------------------------------------------------------
# SQLAlchemy 2.x over PyMySQL

def run_sqlalchemy() -> None:
    import pymysql
    import sqlalchemy as sa
    from sqlalchemy import event, exc as sa_exc, func, select, text
    from sqlalchemy.dialects import mysql
    from sqlalchemy.orm import (DeclarativeBase, Mapped, Session, mapped_column, relationship, selectinload)
    from sqlalchemy.pool import QueuePool

    emit({"client": "SQLAlchemy (PyMySQL)", "version": f"SQLAlchemy {sa.__version__}, PyMySQL {dist_version('PyMySQL')}"})

    def url(user):
        return sa.URL.create("mysql+pymysql", username=user[0], password=user[1], host=HOST, port=PORT, database=DB,
                             query={"charset": "utf8mb4"})

    engine = sa.create_engine(url(NATIVE), poolclass=QueuePool, pool_size=2, max_overflow=0)

    class Base(DeclarativeBase):
        pass

    class IntRow(Base):
        __tablename__ = "t_int"
        id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
        ti: Mapped[int | None] = mapped_column(mysql.TINYINT)
        tu: Mapped[int | None] = mapped_column(mysql.TINYINT(unsigned=True))
        si: Mapped[int | None] = mapped_column(mysql.SMALLINT)
        su: Mapped[int | None] = mapped_column(mysql.SMALLINT(unsigned=True))
        mi: Mapped[int | None] = mapped_column(mysql.MEDIUMINT)
        mu: Mapped[int | None] = mapped_column(mysql.MEDIUMINT(unsigned=True))
        i: Mapped[int | None] = mapped_column(sa.Integer)
        iu: Mapped[int | None] = mapped_column(mysql.INTEGER(unsigned=True))
        bi: Mapped[int | None] = mapped_column(sa.BigInteger)
        bu: Mapped[int | None] = mapped_column(mysql.BIGINT(unsigned=True))

    class DecRow(Base):
        __tablename__ = "t_dec"
        id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
        d1: Mapped[Decimal | None] = mapped_column(sa.Numeric(10, 2))
        d2: Mapped[Decimal | None] = mapped_column(sa.Numeric(18, 0))
        d3: Mapped[Decimal | None] = mapped_column(sa.Numeric(15, 5))
        d4: Mapped[Decimal | None] = mapped_column(sa.Numeric(5, 5))

    class FltRow(Base):
        __tablename__ = "t_flt"
        id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
        f: Mapped[float | None] = mapped_column(mysql.FLOAT)
        d: Mapped[float | None] = mapped_column(sa.Double)

    class StrRow(Base):
        __tablename__ = "t_str"
        id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
        v: Mapped[str | None] = mapped_column(sa.String(200))
        t: Mapped[str | None] = mapped_column(sa.Text)
        m: Mapped[str | None] = mapped_column(mysql.MEDIUMTEXT)

    class BlobRow(Base):
        __tablename__ = "t_blob"
        id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
        b: Mapped[bytes | None] = mapped_column(sa.LargeBinary)
        vb: Mapped[bytes | None] = mapped_column(mysql.VARBINARY(300))
        lb: Mapped[bytes | None] = mapped_column(mysql.LONGBLOB)

    class TmpRow(Base):
        __tablename__ = "t_tmp"
        id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
        d: Mapped[dt.date | None] = mapped_column(sa.Date)
        dt_: Mapped[dt.datetime | None] = mapped_column("dt", sa.DateTime)
        dt6: Mapped[dt.datetime | None] = mapped_column(mysql.DATETIME(fsp=6))
        ts: Mapped[dt.datetime | None] = mapped_column(mysql.TIMESTAMP, nullable=True)
        tm: Mapped[dt.time | None] = mapped_column(sa.Time)
        tm6: Mapped[dt.time | None] = mapped_column(mysql.TIME(fsp=6))

    class NullRow(Base):
        __tablename__ = "t_null"
        id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
        c_int: Mapped[int | None] = mapped_column(sa.Integer)
        c_bu: Mapped[int | None] = mapped_column(mysql.BIGINT(unsigned=True))
        c_dec: Mapped[Decimal | None] = mapped_column(sa.Numeric(10, 2))
        c_flt: Mapped[float | None] = mapped_column(mysql.FLOAT)
        c_dbl: Mapped[float | None] = mapped_column(sa.Double)
        c_vc: Mapped[str | None] = mapped_column(sa.String(20))
        c_txt: Mapped[str | None] = mapped_column(sa.Text)
        c_blob: Mapped[bytes | None] = mapped_column(sa.LargeBinary)
        c_vb: Mapped[bytes | None] = mapped_column(mysql.VARBINARY(20))
        c_date: Mapped[dt.date | None] = mapped_column(sa.Date)
        c_dt: Mapped[dt.datetime | None] = mapped_column(sa.DateTime)
        c_ts: Mapped[dt.datetime | None] = mapped_column(mysql.TIMESTAMP, nullable=True)
        c_time: Mapped[dt.time | None] = mapped_column(sa.Time)
        c_enum: Mapped[str | None] = mapped_column(sa.Enum("a", "b", native_enum=True))
        c_json: Mapped[dict | None] = mapped_column(sa.JSON)

    class Account(Base):
        __tablename__ = "t_account"
        id: Mapped[int] = mapped_column(primary_key=True)
        email: Mapped[str] = mapped_column(sa.String(100), unique=True)
        balance: Mapped[Decimal] = mapped_column(sa.Numeric(12, 2), default=Decimal("0.00"))

    class Author(Base):
        __tablename__ = "t_orm_author"
        id: Mapped[int] = mapped_column(primary_key=True)
        name: Mapped[str] = mapped_column(sa.String(100), unique=True)
        born: Mapped[dt.date | None] = mapped_column(sa.Date)
        books: Mapped[list["Book"]] = relationship(back_populates="author", cascade="all, delete-orphan",
                                                   order_by="Book.id")

    class Book(Base):
        __tablename__ = "t_orm_book"
        id: Mapped[int] = mapped_column(primary_key=True)
        author_id: Mapped[int] = mapped_column(sa.ForeignKey("t_orm_author.id"), index=True)
        title: Mapped[str] = mapped_column(sa.String(200))
        price: Mapped[Decimal] = mapped_column(sa.Numeric(8, 2))
        published: Mapped[dt.datetime | None] = mapped_column(sa.DateTime)
        author: Mapped[Author] = relationship(back_populates="books")

    def check_connect_sa(user):
        eng = sa.create_engine(url(user), poolclass=sa.pool.NullPool)
        try:
            with eng.connect() as c:
                expect(c.execute(text("SELECT 1")).scalar_one() == 1, "SELECT 1")
                who = c.execute(text("SELECT CURRENT_USER()")).scalar_one()
                expect(who.split("@")[0] == user[0], f"CURRENT_USER() {who}")
                ver = eng.dialect.server_version_info
            return f"engine.connect() and SELECT 1 as {who}; dialect saw server version {ver}"
        finally:
            eng.dispose()

    def roundtrip(model, rows, names):
        """Insert ORM objects, read them back in a fresh session, compare."""
        with Session(engine) as s:
            s.add_all([model(**dict(zip(["id", *names], r))) for r in rows])
            s.commit()
        with Session(engine) as s:
            got = [tuple(getattr(o, n) for n in names) for o in s.scalars(select(model).order_by(model.id))]
        compare_rows(got, [tuple(r[1:]) for r in rows], model.__tablename__)

    def check_types_integer_sa():
        names = [n for n, _, _, _ in INT_COLUMNS]
        mins = (1,) + tuple(lo for _, _, lo, _ in INT_COLUMNS)
        maxes = (2,) + tuple(hi for _, _, _, hi in INT_COLUMNS[:-1]) + (2**63 - 1,)
        roundtrip(IntRow, [mins, maxes], names)
        try:
            with Session(engine) as s:
                s.add(IntRow(id=3, bu=U64_MAX))
                s.commit()
            with Session(engine) as s:
                expect_eq(s.get(IntRow, 3).bu, U64_MAX, "BIGINT UNSIGNED max")
        except sa_exc.DBAPIError as exc:
            raise CheckFailed(f"BIGINT UNSIGNED max {U64_MAX} not stored: {exc.orig} "
                              "(every other limit round-trips)") from exc
        return "mysql.TINYINT..BIGINT(unsigned) columns, min and max as int, BIGINT UNSIGNED max included"

    def check_types_decimal_sa():
        names = [c[0] for c in DECIMAL_COLUMNS]
        roundtrip(DecRow, [(i + 1,) + tuple(c[3][i] for c in DECIMAL_COLUMNS) for i in range(3)], names)
        with Session(engine) as s:
            total = s.scalar(select(func.sum(DecRow.d1)))
        compare_rows([(total,)], [(DECIMAL_SUM_D1,)], "func.sum(d1)")
        return "Numeric(10,2), (18,0), (15,5), (5,5) as Decimal with scale; func.sum as Decimal"

    def check_types_float_sa():
        roundtrip(FltRow, FLOAT_ROWS, ["f", "d"])
        return "mysql.FLOAT and Double as float"

    def check_types_string_sa():
        roundtrip(StrRow, [(i + 1, s, s, LONG_TEXT) for i, s in enumerate(STRINGS)], ["v", "t", "m"])
        with Session(engine) as s:
            got = s.scalars(select(StrRow.id).where(StrRow.v == STRINGS[0])).all()
        expect(got == [1], f"filter on a 4-byte UTF-8 string found {got}")
        return "String/Text/MEDIUMTEXT with 4-byte UTF-8; WHERE on it"

    def check_types_blob_sa():
        roundtrip(BlobRow, [(i + 1, b, b, LONG_BLOB) for i, b in enumerate(BLOBS)], ["b", "vb", "lb"])
        return "LargeBinary/VARBINARY/LONGBLOB with all 256 byte values as bytes"

    def check_types_temporal_sa():
        # SQLAlchemy's Time is a time of day: TIME values become datetime.time.
        rows = [
            (1, dt.date(2024, 2, 29), dt.datetime(2024, 2, 29, 13, 45, 59), dt.datetime(1999, 12, 31, 23, 59, 59, 123456),
             dt.datetime(2038, 1, 19, 3, 14, 7), dt.time(23, 59, 59), dt.time(13, 45, 59, 500000)),
            (2, dt.date(1000, 1, 1), dt.datetime(1000, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
             dt.datetime(1970, 1, 1, 0, 0, 1), dt.time(0, 0, 0), dt.time(0, 0, 0, 1)),
        ]
        roundtrip(TmpRow, rows, ["d", "dt_", "dt6", "ts", "tm", "tm6"])
        return "Date, DateTime, DATETIME(fsp=6), TIMESTAMP as date/datetime; Time, TIME(fsp=6) as time"

    def check_types_null_sa():
        cols = [n for n, _ in NULL_COLUMNS]
        with Session(engine) as s:
            s.add(NullRow(id=1))
            s.add(NullRow(id=2, **dict(zip(cols, [7, 2**63 - 1, Decimal("1.25"), 1.5, 2.5, "v", "t", b"\x00b", b"\x01",
                                                   dt.date(2024, 1, 2), dt.datetime(2024, 1, 2, 3, 4, 5),
                                                   dt.datetime(2024, 1, 2, 3, 4, 5), dt.time(1), "a", {"k": 1}]))))
            s.commit()
        with Session(engine) as s:
            r1, r2 = s.scalars(select(NullRow).order_by(NullRow.id)).all()
            v1 = [getattr(r1, c) for c in cols]
            v2 = [getattr(r2, c) for c in cols]
            n = s.scalar(select(func.count()).select_from(NullRow).where(NullRow.c_bu.is_(None), NullRow.c_dt.is_(None)))
        expect(all(v is None for v in v1), f"NULL row came back as {v1!r}")
        expect(all(v is not None for v in v2), f"non-NULL row came back as {v2!r}")
        expect(v2[-1] == {"k": 1}, f"JSON column {v2[-1]!r}")
        expect(n == 1, f"IS NULL filter count {n}")
        return f"None in {len(cols)} column types (incl. Enum, JSON); is_(None) filter"

    def check_tx_rollback_sa():
        with Session(engine) as s:
            s.add_all([Account(email="rb1@x"), Account(email="rb2@x")])
            s.flush()
            expect(s.scalar(select(func.count()).select_from(Account)) == 2, "rows not visible after flush")
            s.rollback()
            expect(s.scalar(select(func.count()).select_from(Account)) == 0, "rows still there after rollback")
        with engine.connect() as c:
            expect(c.execute(select(func.count()).select_from(Account)).scalar_one() == 0, "rows visible elsewhere")
        return "Session.add_all + flush, visible in the session, gone after Session.rollback()"

    def check_tx_commit_sa():
        other = sa.create_engine(url(SHA2), poolclass=sa.pool.NullPool, isolation_level="AUTOCOMMIT")
        try:
            with Session(engine) as s, other.connect() as o:
                s.add_all([Account(email="c1@x"), Account(email="c2@x"), Account(email="c3@x")])
                s.flush()
                cnt = o.execute(select(func.count()).select_from(Account).where(Account.email.like("c%"))).scalar_one()
                expect(cnt == 0, f"other connection sees {cnt} uncommitted rows")
                s.commit()
                cnt = o.execute(select(func.count()).select_from(Account).where(Account.email.like("c%"))).scalar_one()
                expect(cnt == 3, f"other connection sees {cnt} committed rows, want 3")
        finally:
            other.dispose()
        return "flushed rows invisible to another engine's connection, visible after Session.commit()"

    def check_duplicate_key_sa():
        with Session(engine) as s:
            s.add(Account(email="dup@x"))
            s.commit()
            s.add(Account(email="dup@x"))
            try:
                s.commit()
                raise CheckFailed("duplicate email accepted")
            except sa_exc.IntegrityError as exc:
                code = exc.orig.args[0]
                expect(code == 1062, f"IntegrityError with code {code}: {exc.orig}")
                msg = str(exc.orig)
                s.rollback()
            expect(s.scalar(select(func.count()).select_from(Account).where(Account.email == "dup@x")) == 1,
                   "session unusable or row duplicated after the error")
        return f"sqlalchemy.exc.IntegrityError, orig errno 1062: {msg}"

    def check_last_insert_id_sa():
        t = Base.metadata.tables["t_orm_author"]
        with Session(engine) as s:
            a = Author(name="first")
            s.add(a)
            s.flush()
            expect(a.id == 1, f"ORM primary key after flush {a.id}, want 1")
            s.commit()
        with engine.begin() as c:
            r = c.execute(sa.insert(t).values(name="core"))
            expect(r.inserted_primary_key == (2,), f"inserted_primary_key {r.inserted_primary_key}")
            r = c.execute(sa.insert(t).values([{"name": "m1"}, {"name": "m2"}, {"name": "m3"}]))
            expect(r.lastrowid == 3, f"lastrowid after 3-row insert {r.lastrowid}, want 3 (the first id)")
        with Session(engine) as s:
            s.execute(sa.delete(Author))
            s.commit()
        return "ORM id 1 after flush; Core inserted_primary_key (2,); lastrowid 3 for a 3-row VALUES insert"

    def check_affected_rows_sa():
        with engine.begin() as c:
            c.execute(sa.insert(Account.__table__), [{"email": f"aff{i}@x", "balance": Decimal(i)} for i in range(5)])
        with Session(engine) as s:
            r = s.execute(sa.update(Account).where(Account.email.like("aff%"), Account.balance < 3)
                          .values(balance=Account.balance + 100))
            expect(r.rowcount == 3, f"ORM UPDATE rowcount {r.rowcount}, want 3")
            r = s.execute(sa.update(Account).where(Account.email == "nobody").values(balance=1))
            expect(r.rowcount == 0, f"UPDATE of none: rowcount {r.rowcount}")
            r = s.execute(sa.delete(Account).where(Account.email.like("aff%"), Account.balance < 100))
            expect(r.rowcount == 2, f"DELETE rowcount {r.rowcount}, want 2")
            s.commit()
        return "Session.execute(update/delete).rowcount: 3, 0, 2"

    def check_pool_reuse_sa():
        eng = sa.create_engine(url(NATIVE), poolclass=QueuePool, pool_size=1, max_overflow=0, pool_timeout=5)
        resets = []

        @event.listens_for(eng, "reset")
        def on_reset(dbapi_conn, record, reset_state):
            resets.append((id(dbapi_conn), reset_state.transaction_was_reset))

        try:
            with eng.connect() as c:
                c.execute(text("CREATE TABLE t_pool (id INT PRIMARY KEY)"))
            with eng.connect() as c:
                raw1 = c.connection.dbapi_connection
                cid = c.execute(text("SELECT CONNECTION_ID()")).scalar_one()
                c.execute(text("SET @pool_v = 42"))
                c.execute(text("INSERT INTO t_pool VALUES (1)"))  # autobegun, never committed
                expect(raw1.get_autocommit() is False, "DB-API connection in autocommit")
            # closed without commit: QueuePool's reset-on-return is a ROLLBACK
            with eng.connect() as c:
                raw2 = c.connection.dbapi_connection
                expect(raw2 is raw1, "QueuePool handed out another DB-API connection")
                cid2 = c.execute(text("SELECT CONNECTION_ID()")).scalar_one()
                expect(cid2 == cid, f"server connection id {cid2}, want {cid}")
                n = c.execute(text("SELECT COUNT(*) FROM t_pool")).scalar_one()
                expect(n == 0, f"uncommitted row survived the return to the pool ({n})")
                v = c.execute(text("SELECT @pool_v")).scalar_one()
                expect(v == 42, f"user variable after the pool's rollback: {v!r} (ROLLBACK must not touch it)")
            expect(len(resets) >= 2 and resets[1][0] == id(raw1), f"pool reset events {resets!r}")
            expect(eng.pool.checkedout() == 0, "connection still checked out")
        finally:
            eng.dispose()
        return (f"QueuePool(size 1) reused the same connection (id {cid}); its reset on return is a ROLLBACK "
                "(uncommitted row gone), not a session reset: the user variable is kept, as SQLAlchemy documents")

    def check_orm():
        with Session(engine) as s:
            ann = Author(name="Ann 😀", born=dt.date(1970, 5, 17))
            bob = Author(name="Bob", born=None)
            ann.books = [Book(title="Alpha", price=Decimal("10.50"), published=dt.datetime(2020, 1, 2, 3, 4, 5)),
                         Book(title="Beta", price=Decimal("20.00")),
                         Book(title="Gamma ü", price=Decimal("5.25"))]
            bob.books = [Book(title="Delta", price=Decimal("99.99"))]
            s.add_all([ann, bob])
            s.commit()
            ann_id = ann.id
        with Session(engine) as s:
            # filters, ordering, limit
            titles = s.scalars(select(Book.title).where(Book.price > Decimal("6")).order_by(Book.price.desc()).limit(2)).all()
            expect(titles == ["Delta", "Beta"], f"filter/order/limit: {titles}")
            # join with aggregate
            rows = s.execute(select(Author.name, func.count(Book.id), func.sum(Book.price)).join(Author.books)
                             .group_by(Author.name).order_by(Author.name)).all()
            expect([tuple(r) for r in rows] == [("Ann 😀", 3, Decimal("35.75")), ("Bob", 1, Decimal("99.99"))],
                   f"join/group_by: {rows}")
            # relationship loading, lazy and selectin
            a = s.get(Author, ann_id)
            expect([b.title for b in a.books] == ["Alpha", "Beta", "Gamma ü"], "lazy-loaded relationship")
            authors = s.scalars(select(Author).options(selectinload(Author.books)).order_by(Author.id)).all()
            expect([len(x.books) for x in authors] == [3, 1], "selectinload")
            expect(s.scalar(select(Book).where(Book.title == "Alpha")).author.born == dt.date(1970, 5, 17), "many-to-one")
            # filters on NULL and LIKE, IN
            expect(s.scalars(select(Author.name).where(Author.born.is_(None))).all() == ["Bob"], "IS NULL filter")
            expect(s.scalar(select(func.count()).select_from(Book).where(Book.title.in_(["Alpha", "Delta", "x"]))) == 2,
                   "IN filter")
            # unit of work: update, delete with cascade
            a.books[1].price = Decimal("21.00")
            s.delete(s.scalar(select(Author).where(Author.name == "Bob")))
            s.commit()
        with Session(engine) as s:
            expect(s.scalar(select(Book.price).where(Book.title == "Beta")) == Decimal("21.00"), "attribute update")
            expect(s.scalar(select(func.count()).select_from(Book)) == 3, "cascade delete of Bob's book")
            # rollback of pending changes
            s.add(Book(author_id=ann_id, title="Pending", price=Decimal("1.00")))
            s.get(Author, ann_id).name = "changed"
            s.flush()
            s.rollback()
            expect(s.get(Author, ann_id).name == "Ann 😀", "rollback restores the attribute")
            expect(s.scalar(select(func.count()).select_from(Book)) == 3, "rollback removed the pending book")
            # foreign key violation surfaces as IntegrityError 1452
            s.add(Book(author_id=999, title="Orphan", price=Decimal("1.00")))
            try:
                s.flush()
                raise CheckFailed("foreign key violation accepted")
            except sa_exc.IntegrityError as exc:
                expect(exc.orig.args[0] == 1452, f"FK violation code {exc.orig.args[0]}")
            s.rollback()
        return ("declarative models with relationship: add_all/commit, filter/order/limit, join+group_by+sum, lazy and "
                "selectin loading, update, cascade delete, rollback, IntegrityError 1452 for a FK violation")

    def check_reflection():
        insp = sa.inspect(engine)
        tables = set(insp.get_table_names())
        expect({"t_orm_author", "t_orm_book", "t_int", "t_tmp"} <= tables, f"get_table_names: {sorted(tables)}")
        cols = {c["name"]: c for c in insp.get_columns("t_orm_book")}
        expect(list(cols) == ["id", "author_id", "title", "price", "published"], f"columns {list(cols)}")
        expect(isinstance(cols["price"]["type"], sa.Numeric) and cols["price"]["type"].precision == 8
               and cols["price"]["type"].scale == 2, f"price type {cols['price']['type']!r}")
        expect(isinstance(cols["title"]["type"], sa.String) and cols["title"]["type"].length == 200, "title type")
        expect(cols["id"]["autoincrement"] is True and cols["title"]["nullable"] is False, "id/title attributes")
        expect(insp.get_pk_constraint("t_orm_book")["constrained_columns"] == ["id"], "primary key")
        fks = insp.get_foreign_keys("t_orm_book")
        expect(len(fks) == 1 and fks[0]["referred_table"] == "t_orm_author" and fks[0]["constrained_columns"] == ["author_id"],
               f"foreign keys {fks}")
        idx = insp.get_indexes("t_orm_book")
        expect(any(i["column_names"] == ["author_id"] for i in idx), f"indexes {idx}")
        uniq = insp.get_unique_constraints("t_orm_author") + [i for i in insp.get_indexes("t_orm_author") if i["unique"]]
        expect(any(u["column_names"] == ["name"] for u in uniq), f"unique on name: {uniq}")
        icols = {c["name"]: c["type"] for c in insp.get_columns("t_int")}
        expect(isinstance(icols["bu"], mysql.BIGINT) and icols["bu"].unsigned, f"t_int.bu reflected as {icols['bu']!r}")
        md = sa.MetaData()
        md.reflect(engine, only=["t_orm_author", "t_orm_book"])
        with engine.connect() as c:
            n = c.execute(select(func.count()).select_from(md.tables["t_orm_book"])).scalar_one()
        expect(n == 3, f"query through reflected table: {n}")
        return "inspect(): tables, columns with types (Numeric(8,2), BIGINT UNSIGNED), PK, FK, indexes, unique; MetaData.reflect"

    run_check("connect_native", check_connect_sa, NATIVE)
    run_check("connect_sha2", check_connect_sa, SHA2)

    def check_tls_sa():
        def engine_with(ca):
            return sa.create_engine(url(SHA2), poolclass=sa.pool.NullPool,
                                    connect_args={"ssl_ca": ca, "ssl_verify_cert": True, "ssl_verify_identity": True})
        eng = engine_with(CA)
        try:
            with eng.connect() as c:
                cipher = c.execute(text("SHOW SESSION STATUS LIKE 'Ssl_cipher'")).one()[1]
                expect(cipher != "", "Ssl_cipher is empty: the connection is not TLS")
        finally:
            eng.dispose()
        other = engine_with(OTHER_CA)
        try:
            with other.connect():
                raise CheckFailed("a CA that signed nothing of the server's was accepted")
        except sa.exc.OperationalError as exc:
            refused = str(exc.orig)[:80]
        finally:
            other.dispose()
        return f"connect_args ssl_ca, ssl_verify_cert and ssl_verify_identity, {cipher}; with another CA: {refused}"

    run_check("connect_tls", check_tls_sa)
    try:
        Base.metadata.create_all(engine)
        created = None
    except Exception as exc:  # noqa: BLE001
        traceback.print_exc(file=sys.stderr)
        created = f"metadata.create_all failed: {type(exc).__name__}: {exc}"

    def needs_tables(fn):
        def wrapped(*a):
            if created:
                raise CheckFailed(created)
            return fn(*a)
        return wrapped

    run_check("types_integer", needs_tables(check_types_integer_sa))
    run_check("types_decimal", needs_tables(check_types_decimal_sa))
    run_check("types_float", needs_tables(check_types_float_sa))
    run_check("types_string", needs_tables(check_types_string_sa))
    run_check("types_blob", needs_tables(check_types_blob_sa))
    run_check("types_temporal", needs_tables(check_types_temporal_sa))
    run_check("types_null", needs_tables(check_types_null_sa))
    emit({"feature": "prepared", "status": "n/a",
          "detail": "SQLAlchemy runs on PyMySQL, which has no server-side prepared statements (text protocol)"})
    run_check("tx_rollback", needs_tables(check_tx_rollback_sa))
    run_check("tx_commit", needs_tables(check_tx_commit_sa))
    run_check("duplicate_key", needs_tables(check_duplicate_key_sa))
    run_check("last_insert_id", needs_tables(check_last_insert_id_sa))
    run_check("affected_rows", needs_tables(check_affected_rows_sa))
    emit({"feature": "multi_results", "status": "n/a",
          "detail": "SQLAlchemy has no API for multiple result sets (see the PyMySQL row for the driver's nextset())"})
    run_check("pool_reuse", check_pool_reuse_sa)
    run_check("x_orm", needs_tables(check_orm))
    run_check("x_reflection", needs_tables(check_reflection))
    engine.dispose()


def main() -> int:
    if DRIVER == "sqlalchemy":
        run_sqlalchemy()
        return 0
    if DRIVER == "pymysql":
        d = PyMySQLDriver()
    elif DRIVER == "mysqlclient":
        d = MysqlclientDriver()
    elif DRIVER == "connector":
        import mysql.connector

        d = ConnectorDriver(use_pure=not mysql.connector.HAVE_CEXT)
    else:
        print(f"usage: {sys.argv[0]} pymysql|mysqlclient|connector|sqlalchemy", file=sys.stderr)
        return 2
    emit({"client": d.name, "version": d.version()})
    run_dbapi(d)
    if isinstance(d, ConnectorDriver):
        if d.cext:
            run_connector_other(ConnectorDriver(use_pure=True))
        else:
            emit({"feature": "x_pure", "status": "n/a",
                  "detail": "the core checks above already ran pure Python: C extension unavailable: "
                            f"{CEXT_ERROR or 'not installed'}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
