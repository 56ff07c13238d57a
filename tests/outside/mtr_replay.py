"""Replays one parsed mysql-test file (tests/outside/mtr_parse.py) against one
server and records what each SQL statement answered, in a form two servers'
answers can be compared by (tests/outside/mtr_diff.py).

An answer (`Outcome`) is the error code, or the column names and types, the
rows as text, the affected-row count and the warnings (level and code) the
statement left. Rows are compared as a multiset unless the statement has an
ORDER BY (rows in any order are a correct answer to a query without one, and
SQLite and InnoDB walk tables differently); mysqltest's replace_column,
replace_result, replace_regex and lowercase_result apply to both servers'
rows as they apply to its output. Warnings are compared where the file has
them on (disable_warnings turns them off), rows where the result log is on.

A statement that shows a query plan (EXPLAIN, DESCRIBE or DESC of a
statement, ANALYZE of a statement; `plan_statement`) is compared on its error
code and its column names and types only: its rows describe each server's
own plan (SQLite's and InnoDB's access paths, row estimates, EXTENDED's Note
1003 with each server's rewriting of the query), so neither its rows nor its
warnings are kept.

Each file runs in a fresh `test` database with the connections it opens
(`connect`), over the server's Unix socket as mtr's `localhost`; the root
account is given each server's own password. A statement that runs longer
than STATEMENT_TIMEOUT_S, or a file longer than FILE_TIMEOUT_S, stops the
replay there: the statements left are recorded as not answered.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Optional

import pymysql

from mtr_parse import Script, Step, substitute

# Seconds one statement may take before the replay counts it unanswered and stops.
STATEMENT_TIMEOUT_S = 20
# Seconds one file may take on one server.
FILE_TIMEOUT_S = 120
# Rows of one result kept for comparison (the rest are counted, not kept).
MAX_ROWS = 5000
# Bytes of one value kept for comparison (a longer value keeps its length and a prefix).
MAX_VALUE_BYTES = 4096
SYSTEM_DBS = {"information_schema", "mysql", "performance_schema", "sys"}


def _raw_row(self, packet):
    """PyMySQL's row reader, keeping each value's bytes: values are compared as the server sent
    them, and bytes that are not UTF-8 (a latin1 test string) cannot fail the decoding."""
    row = []
    for _ in self.converters:
        try:
            row.append(packet.read_length_coded_string())
        except IndexError:
            break
    return tuple(row)


pymysql.connections.MySQLResult._read_row_from_packet = _raw_row


@dataclass
class Target:
    """Where a server listens and how root logs in to it."""

    label: str
    socket: str
    root_password: str


@dataclass
class Outcome:
    """One statement's answer; `error` set, or the rest."""

    error: Optional[int] = None
    names: tuple = ()
    types: tuple = ()
    rows: Optional[tuple] = None
    affected: Optional[int] = None
    warnings: Optional[tuple] = None
    note: str = ""

    def key(self) -> tuple:
        return (self.error, self.names, self.types, self.rows, self.affected, self.warnings)


@dataclass
class Replay:
    """A file's answers on one server: step.n -> its Outcome (missing: not answered)."""

    outcomes: dict = field(default_factory=dict)
    seconds: float = 0.0
    stopped: str = ""
    lost: list = field(default_factory=list)


def _text(v) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, (bytes, bytearray)):
        b = bytes(v)
        text = b.decode("utf-8", "backslashreplace")
    else:
        text = str(v)
    if len(text) > MAX_VALUE_BYTES:
        return f"{text[:MAX_VALUE_BYTES]}...({len(text)} chars)"
    return text


def _shape_rows(step: Step, rows: list, ordered: bool) -> tuple:
    out = []
    for row in rows:
        vals = [_text(v) for v in row]
        for n, rep in step.replace_column.items():
            if 1 <= n <= len(vals):
                vals[n - 1] = rep
        for i, v in enumerate(vals):
            for a, b in step.replace_result:
                v = v.replace(a, b)
            for rx, rep in step.replace_regex:
                v = rx.sub(rep.replace("\\", "\\\\") if "\\" in rep and not re.search(r"\\\d", rep) else rep, v)
            vals[i] = v.lower() if step.lowercase else v
        out.append(tuple(vals))
    return tuple(out if ordered else sorted(out))


# EXPLAIN/DESCRIBE/DESC [EXTENDED | PARTITIONS | FORMAT=x] statement, ANALYZE [FORMAT=x] statement.
_PLAN = re.compile(
    r"^(?:\s|/\*.*?\*/|#[^\n]*\n|--\s[^\n]*\n)*"
    r"(?:(?:explain|describe|desc)(?:\s+(?:extended|partitions|format\s*=\s*\w+))?|analyze(?:\s+format\s*=\s*\w+)?)"
    r"[\s(]+(?:select|with|insert|replace|update|delete|values|\()",
    re.I | re.S)


def plan_statement(sql: str) -> bool:
    """Does `sql` show a query plan (compared on error, column names and types only)?"""
    return _PLAN.match(sql) is not None


def _ordered(step: Step, sql: str) -> bool:
    return not step.sorted_result and re.search(r"\border\s+by\b", sql, re.I) is not None


class Session:
    """The named connections of one file's replay on one server."""

    def __init__(self, target: Target):
        self.target = target
        self.conns: dict = {}
        self.current: Optional[str] = None
        self.vars: dict = {}
        # connection name -> (step, sql) sent by `send` and not yet reaped.
        self.sent: dict = {}

    def open(self, user: str, password: str, db: Optional[str]) -> pymysql.connections.Connection:
        if user == "root" and not password:
            password = self.target.root_password
        return pymysql.connect(
            unix_socket=self.target.socket, user=user, password=password, database=db or None, charset="utf8mb4",
            conv={}, read_timeout=STATEMENT_TIMEOUT_S, write_timeout=STATEMENT_TIMEOUT_S, connect_timeout=10,
            autocommit=True, client_flag=pymysql.constants.CLIENT.MULTI_RESULTS, defer_connect=False)

    def close(self) -> None:
        for c in self.conns.values():
            try:
                c.close()
            except Exception:
                pass
        self.conns.clear()

    @property
    def conn(self):
        return self.conns.get(self.current)


def _error(e: Exception) -> int:
    if isinstance(e, pymysql.err.MySQLError) and e.args and isinstance(e.args[0], int):
        return e.args[0]
    return -1


def run_sql(conn, step: Step, sql: str) -> Outcome:
    """Execute `sql` and read every result it returns, then its warnings."""
    send_sql(conn, sql)
    return read_answer(conn, step, sql)


def send_sql(conn, sql: str) -> None:
    """Send `sql` (bytes as the file has them: files in other charsets are read with
    surrogateescape) without reading the answer."""
    conn._execute_command(pymysql.constants.COMMAND.COM_QUERY, sql.encode("utf-8", "surrogateescape"))


def read_answer(conn, step: Step, sql: str) -> Outcome:
    """Read the answer to the statement sent last on `conn`."""
    cur = conn.cursor()
    cur._executed = sql  # what PyMySQL's execute() records; fetchall() checks it
    try:
        conn._affected_rows = conn._read_query_result()
        cur._do_get_result()
    except pymysql.err.OperationalError as e:
        if _error(e) in (2013, 2006, 2014, -1):
            raise
        return Outcome(error=_error(e))
    except pymysql.err.MySQLError as e:
        return Outcome(error=_error(e))
    names, types, rows, affected = [], [], [], None
    ordered = _ordered(step, sql)
    while True:
        if cur.description:
            names.append(tuple(d[0] for d in cur.description))
            types.append(tuple(d[1] for d in cur.description))
            rows.append(_shape_rows(step, list(cur.fetchall())[:MAX_ROWS], ordered) if step.result else None)
        else:
            affected = cur.rowcount
        try:
            more = cur.nextset()
        except pymysql.err.OperationalError as e:
            if _error(e) in (2013, 2006, 2014, -1):
                raise
            return Outcome(error=_error(e))
        except pymysql.err.MySQLError as e:
            # An error after result sets (a CALL whose procedure fails after a SELECT) is the statement's.
            return Outcome(error=_error(e))
        if not more:
            break
    warnings = None
    plan = plan_statement(sql)
    if step.warnings and not plan:
        warnings = ()
        if conn._result is not None and conn._result.warning_count:
            cur.execute("SHOW WARNINGS")
            warnings = tuple((str(r[0]), int(r[1])) for r in cur.fetchall())
    cur.close()
    if plan:
        rows = None
    return Outcome(names=tuple(names), types=tuple(types), rows=tuple(rows) if step.result and rows is not None else None, affected=affected, warnings=warnings)


def _let(session: Session, step: Step) -> None:
    """`let $x = value`, `` let $x = `query` ``, query_get_value(query, column, row), inc/dec."""
    name, _, value = step.text.partition("=")
    name = name.strip().lstrip("$")
    value = value.strip()
    if step.args and step.args[0] in ("inc", "dec"):
        try:
            session.vars[name] = str(int(session.vars.get(name, "0")) + (1 if step.args[0] == "inc" else -1))
        except ValueError:
            session.vars.pop(name, None)
        return
    session.vars.pop(name, None)
    value = substitute(value, session.vars)
    if value is None or session.conn is None:
        return
    try:
        if value.startswith("`") and value.endswith("`"):
            cur = session.conn.cursor()
            cur.execute(value[1:-1].encode("utf-8", "surrogateescape"))
            row = cur.fetchone() if cur.description else None
            session.vars[name] = _text(row[0]) if row else ""
        elif value.lower().startswith("query_get_value("):
            session.vars[name] = _query_get_value(session.conn, value) or ""
        else:
            session.vars[name] = value
    except pymysql.err.MySQLError:
        pass


def _query_get_value(conn, value: str) -> Optional[str]:
    m = re.match(r"query_get_value\((.*),\s*([^,]+?)\s*,\s*(\d+)\s*\)\s*$", value, re.I | re.S)
    if not m:
        return None
    cur = conn.cursor()
    cur.execute(m.group(1).strip().encode("utf-8", "surrogateescape"))
    cols = [d[0] for d in cur.description or ()]
    rows = cur.fetchall()
    col, n = m.group(2).strip(), int(m.group(3))
    if col not in cols or n > len(rows):
        return "No such row"
    return _text(rows[n - 1][cols.index(col)])


def _connect(session: Session, step: Step) -> Outcome:
    parts = step.args + [""] * 5
    name, user, password, db = parts[0], parts[2] or "root", parts[3], parts[4]
    user = substitute(user, session.vars) or user
    db = None if db == "*NO-ONE*" else (db or "test")
    try:
        session.conns[name] = session.open(user, password, db)
        session.current = name
        return Outcome()
    except pymysql.err.MySQLError as e:
        session.current = name
        session.conns.pop(name, None)
        return Outcome(error=_error(e))


def prepare(target: Target) -> None:
    """A clean slate for one file: no databases but the system ones, and an empty `test`."""
    conn = Session(target).open("root", "", None)
    try:
        cur = conn.cursor()
        cur.execute("SHOW DATABASES")
        for (db,) in cur.fetchall():
            name = _text(db)
            if name.lower() not in SYSTEM_DBS:
                _drop_database(cur, name)
        cur.execute("CREATE DATABASE IF NOT EXISTS test")
    finally:
        conn.close()


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _drop_database(cur, name: str) -> None:
    """DROP DATABASE; when it fails (MariaDB: a file a test left in its directory, 1010), its
    tables and views one by one, so the next file finds none."""
    try:
        cur.execute(f"DROP DATABASE {_quote(name)}")
        return
    except pymysql.err.MySQLError:
        pass
    cur.execute(f"SHOW FULL TABLES FROM {_quote(name)}")
    for table, kind in cur.fetchall():
        what = "VIEW" if _text(kind) == "VIEW" else "TABLE"
        cur.execute(f"DROP {what} IF EXISTS {_quote(name)}.{_quote(_text(table))}")


def replay(script: Script, target: Target) -> Replay:
    """Run every step of `script` on `target`; one Outcome per SQL or connect step."""
    out = Replay()
    start = time.monotonic()
    session = Session(target)
    try:
        session.conns["default"] = session.open("root", "", "test")
        session.current = "default"
        _steps(script, session, out, start)
    finally:
        session.close()
        out.seconds = time.monotonic() - start
    return out


def compared_steps(script: Script) -> list:
    """The steps that get an Outcome, in order."""
    return [s for s in script.steps if s.kind in ("sql", "connect")]


def _steps(script: Script, session: Session, out: Replay, start: float) -> None:
    for step in script.steps:
        if time.monotonic() - start > FILE_TIMEOUT_S:
            out.stopped = f"file took over {FILE_TIMEOUT_S} s"
            return
        if step.kind == "let":
            _let(session, step)
        elif step.kind == "connection":
            session.current = step.text
        elif step.kind == "disconnect":
            c = session.conns.pop(step.text, None)
            if c is not None:
                c.close()
        elif step.kind == "connect":
            out.outcomes[step.n] = _connect(session, step)
        elif step.kind == "sql":
            if not _sql_step(session, step, out):
                return
        elif step.kind == "reap":
            if not _reap(session, step, out):
                return


def _sql_step(session: Session, step: Step, out: Replay) -> bool:
    sql = substitute(step.text, session.vars) if step.eval else step.text
    if sql is None:
        out.outcomes[step.n] = Outcome(note="unknown variable")
        return True
    if session.conn is None:
        out.outcomes[step.n] = Outcome(note="no connection")
        return True
    try:
        if step.send:
            send_sql(session.conn, sql)
            session.sent[session.current] = (step, sql)
        else:
            out.outcomes[step.n] = run_sql(session.conn, step, sql)
        return True
    except (pymysql.err.OperationalError, pymysql.err.InterfaceError, OSError, ValueError) as e:
        return _lost(session, step, out, e)


def _reap(session: Session, reap: Step, out: Replay) -> bool:
    sent = session.sent.pop(session.current, None)
    if sent is None or session.conn is None:
        return True
    step, sql = sent
    try:
        out.outcomes[step.n] = read_answer(session.conn, step, sql)
        return True
    except (pymysql.err.OperationalError, pymysql.err.InterfaceError, OSError, ValueError) as e:
        return _lost(session, step, out, e)


def _lost(session: Session, step: Step, out: Replay, e: Exception) -> bool:
    """Lost (a hang past the timeout, or the server closed it), or an answer the driver could not
    read (a column name that is not UTF-8: UnicodeDecodeError): unanswered; open it again."""
    out.lost.append(f"line {step.line}: {type(e).__name__} {e}"[:200])
    try:
        session.conn.close()
    except Exception:
        pass
    try:
        session.conns[session.current] = session.open("root", "", "test")
        return True
    except pymysql.err.MySQLError:
        out.stopped = "could not reconnect after " + out.lost[-1]
        return False
