"""Reads a MariaDB mysql-test file (mysql-test/main/*.test, the language
mysqltest runs) into the flat list of steps the differential runner replays
(tests/outside/mtr_diff.py): SQL statements, connection changes, the
directives that shape how a result is compared (sorted_result,
replace_column, disable_warnings, ...) and variables for `eval`.

Why flat: a statement is compared by its position in the file, so both
servers must run the same steps in the same order whatever their answers.
Control flow that depends on answers (`if`, `while`) would break that, so its
blocks are left out whole and counted as not replayed, as are `source`d
files, shell and perl blocks, statements that name variables mtr sets
from its environment ($MYSQLTEST_VARDIR, ...), and DDL on the server's
own `mysql.*` tables (a file puts those back by copying files). Everything left out is
counted, so the figures say how much of a file was replayed.

A line starting with `#` is a comment. A line starting with `--` is one
mysqltest command (`--error 1064`, `--source x.inc`), or an SQL comment when
no command follows. Anything else accumulates up to the current delimiter
(quote-aware); if its first word is a mysqltest command (`let`, `eval`,
`connect`, ...) it is that command, otherwise an SQL statement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

# mysqltest's commands (client/mysqltest.cc, command_names) that can start a step.
COMMANDS = {
    "connection", "query", "connect", "sleep", "real_sleep", "inc", "dec", "source", "disconnect", "let",
    "echo", "expr", "while", "end", "save_master_pos", "sync_with_master", "sync_slave_with_master", "error",
    "send", "reap", "dirty_close", "replace_result", "replace_column", "ping", "eval", "enable_query_log",
    "disable_query_log", "enable_result_log", "disable_result_log", "enable_connect_log",
    "disable_connect_log", "wait_for_slave_to_stop", "enable_warnings", "disable_warnings", "enable_info",
    "disable_info", "enable_session_track_info", "disable_session_track_info", "enable_metadata",
    "disable_metadata", "enable_column_names", "disable_column_names", "exec", "execw", "exec_in_background",
    "delimiter", "disable_abort_on_error", "enable_abort_on_error", "vertical_results", "horizontal_results",
    "query_vertical", "query_horizontal", "sorted_result", "lowercase_result", "start_timer", "end_timer",
    "character_set", "disable_ps_protocol", "enable_ps_protocol", "disable_view_protocol",
    "enable_view_protocol", "disable_cursor_protocol", "enable_cursor_protocol", "disable_reconnect",
    "enable_reconnect", "if", "disable_parsing", "enable_parsing", "replace_regex", "remove_file",
    "file_exists", "write_file", "copy_file", "perl", "die", "exit", "skip", "chmod", "append_file", "cat_file",
    "diff_files", "send_quit", "change_user", "mkdir", "rmdir", "list_files", "list_files_write_file",
    "list_files_append_file", "send_shutdown", "shutdown_server", "result_format", "move_file",
    "remove_files_wildcard", "copy_files_wildcard", "send_eval", "output", "reset_connection", "system",
    "evalp", "require", "write_line", "disable_prepare_warnings", "enable_prepare_warnings",
    "disable_service_connection", "enable_service_connection", "disable_ps2_protocol",
    "enable_ps2_protocol", "disable_non_blocking_api", "enable_non_blocking_api", "replace_numeric_round",
    "disable_testcase", "enable_testcase", "disable_async_client", "enable_async_client", "query_attributes",
}
# Commands followed by lines up to a terminator (EOF unless named) that are not SQL.
HEREDOC = {"perl", "write_file", "append_file"}
# DDL on the reference server's own system tables (mysql.*), left out (see `statement`).
SYSTEM_TABLE_CHANGE = re.compile(r"\s*(drop|rename|alter|truncate)\s+table\s+(if\s+exists\s+)?`?mysql`?\s*\.", re.I)
# Directives that apply to the next statement only.
ONE_SHOT = {"sorted_result", "replace_column", "replace_result", "replace_regex", "lowercase_result", "error"}


@dataclass
class Step:
    """One thing to do, in file order."""

    kind: str  # "sql", "connect", "connection", "disconnect", "let", "change_user"
    line: int
    text: str = ""
    # For "sql": how to compare (sorted, replacements, warnings/result compared or not).
    sorted_result: bool = False
    lowercase: bool = False
    replace_column: dict = field(default_factory=dict)
    replace_result: list = field(default_factory=list)
    replace_regex: list = field(default_factory=list)
    warnings: bool = True
    result: bool = True
    # "sql" from `eval`: $variables are substituted when it runs.
    eval: bool = False
    # "sql" from `send`: sent now, its answer read at the connection's next `reap`.
    send: bool = False
    # Position among the steps that get an answer ("sql" and "connect"), set by `parse`.
    n: int = -1
    args: list = field(default_factory=list)


@dataclass
class Script:
    """A parsed file: the steps, and how much was left out (statements and commands)."""

    steps: list
    skipped: dict  # reason -> count


def _split_args(text: str) -> list[str]:
    """mysqltest's argument words: spaces separate, quotes group, `\\` escapes."""
    out, cur, quote, i = [], "", None, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\" and i + 1 < len(text):
                cur += text[i + 1]
                i += 1
            elif c == quote:
                quote = None
            else:
                cur += c
        elif c in "\"'":
            quote = c
        elif c.isspace():
            if cur:
                out.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    if cur:
        out.append(cur)
    return out


def _regex_pairs(text: str) -> list:
    """`/regex/replacement/[i]` pairs of replace_regex (any delimiter after the first char)."""
    pairs, s = [], text.strip()
    while s:
        d = s[0]
        parts, i, cur = [], 1, ""
        while i < len(s) and len(parts) < 2:
            if s[i] == "\\" and i + 1 < len(s) and s[i + 1] == d:
                cur += d
                i += 2
                continue
            if s[i] == d:
                parts.append(cur)
                cur = ""
            else:
                cur += s[i]
            i += 1
        if len(parts) < 2:
            break
        flags = 0
        while i < len(s) and s[i] in "ig":
            flags |= re.I if s[i] == "i" else 0
            i += 1
        try:
            # mysqltest's \1 back references read as Python's.
            pairs.append((re.compile(parts[0], flags), parts[1]))
        except re.error:
            pass
        s = s[i:].strip()
    return pairs


def _find_delimiter(buf: str, delim: str) -> int:
    """Index of `delim` outside quotes and comments in `buf`, or -1."""
    quote, i, n = None, 0, len(buf)
    while i < n:
        c = buf[i]
        if quote:
            if c == "\\" and quote != "`":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
        elif buf.startswith("/*", i) and not buf.startswith("/*!", i) and not buf.startswith("/*M!", i):
            end = buf.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        elif buf.startswith(delim, i):
            return i
        i += 1
    return -1


class _Parser:
    def __init__(self, text: str):
        self.lines = text.split("\n")
        self.steps: list[Step] = []
        self.skipped: dict[str, int] = {}
        self.delim = ";"
        self.pending: dict = {}
        self.warnings = True
        self.result = True
        self.parsing = True
        self.done = False

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + n

    def run(self) -> Script:
        i, buf, start = 0, "", 0
        while i < len(self.lines) and not self.done:
            line = self.lines[i]
            stripped = line.strip()
            i += 1
            if not buf:
                if not stripped or stripped.startswith("#"):
                    continue
                if stripped.startswith("--"):
                    i = self.dash_command(stripped[2:].strip(), i)
                    continue
                if re.match(r"(if|while)\s*\(", stripped, re.I):
                    i = self.block(i - 1)
                    continue
                if stripped.startswith("}"):
                    continue
                start = i
            buf += line + "\n"
            if self.delim not in line:
                continue  # no statement can end on this line
            while buf and not self.done:
                at = _find_delimiter(buf, self.delim)
                if at < 0:
                    break
                stmt, buf = buf[:at].strip(), buf[at + len(self.delim):]
                if stmt:
                    i = self.statement(stmt, start, i)
                if not buf.strip():
                    buf = ""
        if buf.strip() and not self.done:
            self.skip("unterminated statement")
        return Script(self.steps, self.skipped)

    def dash_command(self, rest: str, i: int) -> int:
        word = re.match(r"[A-Za-z_0-9]*", rest).group(0).lower()
        if word not in COMMANDS:
            return i  # an SQL comment: `-- text`
        return self.command(word, rest[len(word):].strip(), i, i)

    def statement(self, stmt: str, start: int, i: int) -> int:
        # A comment line inside a statement's first lines is part of it; a leading one is not.
        body = "\n".join(ln for ln in stmt.split("\n") if not ln.strip().startswith("#")).strip()
        if not body:
            return i
        word = re.match(r"[A-Za-z_0-9]*", body).group(0).lower()
        if word in COMMANDS and not (word in ("end", "if", "while") and self._sql_like(body)):
            return self.command(word, body[len(word):].strip(), start, i)
        if word.startswith("}"):
            return i
        if not self.parsing:
            self.skip("disable_parsing")
            return i
        if SYSTEM_TABLE_CHANGE.match(body):
            # The file puts the table back by copying its files (copy_file), which is not replayed:
            # run, it would leave the reference server without it for every file after (drop.test
            # drops mysql.proc, and every procedure statement after it got 1146).
            self.skip("changes a mysql.* system table")
            return i
        self.add_sql(body, start, evaluated=False)
        return i

    @staticmethod
    def _sql_like(body: str) -> bool:
        """`if`/`while`/`end` of mysqltest have a parenthesised condition or stand alone."""
        word = body.split(None, 1)[0].lower()
        return word == "end" and len(body.split()) > 1 or (word in ("if", "while") and not body[len(word):].lstrip().startswith("("))

    def add_sql(self, sql: str, line: int, evaluated: bool) -> None:
        p = self.pending
        self.steps.append(Step(
            "sql", line, sql, sorted_result=p.get("sorted_result", False), lowercase=p.get("lowercase_result", False),
            replace_column=p.get("replace_column", {}), replace_result=p.get("replace_result", []),
            replace_regex=p.get("replace_regex", []), warnings=self.warnings, result=self.result, eval=evaluated,
            send=p.get("send", False)))
        self.pending = {}

    def command(self, word: str, arg: str, start: int, i: int) -> int:
        arg = arg.rstrip()
        if arg.endswith(self.delim) and self.delim != ";":
            arg = arg[: -len(self.delim)].rstrip()
        if arg.endswith(";"):
            arg = arg[:-1].rstrip()
        handler = getattr(self, "cmd_" + word, None)
        if handler is not None:
            return handler(arg, start, i)
        if word in HEREDOC:
            return self.heredoc(arg, i)
        if word in ("if", "while"):
            return self.block(start - 1)
        if word in ("source", "exec", "execw", "system", "exec_in_background", "query_attributes"):
            self.skip(word)
        return i

    # Commands that change the steps or how they are compared.
    def cmd_delimiter(self, arg, start, i):
        self.delim = arg.split()[0] if arg.split() else ";"
        return i

    def cmd_disable_parsing(self, arg, start, i):
        self.parsing = False
        return i

    def cmd_enable_parsing(self, arg, start, i):
        self.parsing = True
        return i

    def cmd_exit(self, arg, start, i):
        self.done = True
        return i

    cmd_skip = cmd_exit
    cmd_die = cmd_exit

    def cmd_disable_warnings(self, arg, start, i):
        self.warnings = False
        return i

    def cmd_enable_warnings(self, arg, start, i):
        self.warnings = True
        return i

    def cmd_disable_result_log(self, arg, start, i):
        self.result = False
        return i

    def cmd_enable_result_log(self, arg, start, i):
        self.result = True
        return i

    def cmd_sorted_result(self, arg, start, i):
        self.pending["sorted_result"] = True
        return i

    def cmd_lowercase_result(self, arg, start, i):
        self.pending["lowercase_result"] = True
        return i

    def cmd_replace_column(self, arg, start, i):
        words = _split_args(arg)
        cols = self.pending.setdefault("replace_column", {})
        for n, v in zip(words[0::2], words[1::2]):
            if n.isdigit():
                cols[int(n)] = v
        return i

    def cmd_replace_result(self, arg, start, i):
        words = _split_args(arg)
        self.pending.setdefault("replace_result", []).extend(zip(words[0::2], words[1::2]))
        return i

    def cmd_replace_regex(self, arg, start, i):
        self.pending.setdefault("replace_regex", []).extend(_regex_pairs(arg))
        return i

    def cmd_query(self, arg, start, i):
        if arg:
            self.add_sql(arg, start, evaluated=False)
        return i

    cmd_query_vertical = cmd_query
    cmd_query_horizontal = cmd_query

    def cmd_send(self, arg, start, i):
        """`send stmt`: sent without waiting; its answer is read at `reap` (a statement that
        blocks on another connection's lock while that connection goes on)."""
        if arg:
            self.add_sql(arg, start, evaluated=False)
            self.steps[-1].send = True
        else:
            self.pending["send"] = True  # `send` alone: the next statement is sent
        return i

    def cmd_send_eval(self, arg, start, i):
        if arg:
            self.add_sql(arg, start, evaluated=True)
            self.steps[-1].send = True
        return i

    def cmd_reap(self, arg, start, i):
        self.steps.append(Step("reap", start))
        return i

    def cmd_eval(self, arg, start, i):
        if arg:
            self.add_sql(arg, start, evaluated=True)
        return i

    cmd_evalp = cmd_eval

    def cmd_let(self, arg, start, i):
        self.steps.append(Step("let", start, arg))
        return i

    def cmd_inc(self, arg, start, i):
        self.steps.append(Step("let", start, f"{arg.strip()} = {arg.strip()} + 1", args=["inc"]))
        return i

    def cmd_dec(self, arg, start, i):
        self.steps.append(Step("let", start, f"{arg.strip()} = {arg.strip()} - 1", args=["dec"]))
        return i

    def cmd_connect(self, arg, start, i):
        inner = arg.strip()
        if inner.startswith("(") and inner.endswith(")"):
            inner = inner[1:-1]
        parts = [p.strip() for p in inner.split(",")]
        self.steps.append(Step("connect", start, arg, args=parts))
        return i

    def cmd_connection(self, arg, start, i):
        self.steps.append(Step("connection", start, arg.strip()))
        return i

    def cmd_disconnect(self, arg, start, i):
        self.steps.append(Step("disconnect", start, arg.strip()))
        return i

    def cmd_change_user(self, arg, start, i):
        self.steps.append(Step("change_user", start, arg, args=[p.strip() for p in arg.split(",")]))
        return i

    def heredoc(self, arg: str, i: int) -> int:
        words = arg.split()
        end = words[-1] if len(words) > 1 and self._heredoc_named(words) else "EOF"
        while i < len(self.lines) and self.lines[i].strip() != end:
            i += 1
        self.skip("perl/write_file")
        return i + 1

    @staticmethod
    def _heredoc_named(words: list) -> bool:
        return not words[-1].startswith("$") and "/" not in words[-1] and "." not in words[-1]

    def block(self, first: int) -> int:
        """Skip the if/while block whose condition is on line index `first`: to its matching `}`,
        counting the statements in it. Returns the index of the line after it."""
        depth, opened, i = 0, False, first
        while i < len(self.lines):
            s = self.lines[i].strip()
            i += 1
            if s.startswith("#") or s.startswith("--"):
                continue
            if i - 1 > first and s.endswith(self.delim):
                self.skip("if/while block")
            depth += s.count("{") - s.count("}")
            opened = opened or "{" in s
            if opened and depth <= 0:
                break
        return i


def parse(text: str) -> Script:
    script = _Parser(text).run()
    answered = [s for s in script.steps if s.kind in ("sql", "connect")]
    for n, step in enumerate(answered):
        step.n = n
    return script


def substitute(text: str, variables: dict) -> Optional[str]:
    """`$name` and `${name}` replaced from `variables`; None when one is unknown."""
    missing = []

    def one(m: re.Match) -> str:
        name = m.group(1) or m.group(2)
        if name not in variables:
            missing.append(name)
            return ""
        return variables[name]

    out = re.sub(r"\$\{(\w+)\}|\$(\w+)", one, text)
    return None if missing else out
