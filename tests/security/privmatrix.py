"""The privilege matrix: statement kind x reference form x grant level x protocol.

Generated, not hand-picked. An attacker account holds some privileges on a
victim database (`V`) and all privileges on its own database (`H`, its
current database). Every statement template names a victim table through
every reference form and states what MySQL requires on each database it
touches; the matrix runs every template for every grant level and protocol
and checks that the server allows exactly what the account holds:

* denied: MySQL's error (1142 for a table, 1044 for a database; MariaDB's
  column-level 1143 counts as 1142) and nothing of the victim's data in the
  reply;
* allowed: the statement succeeds (an account is not refused what it holds).

`python3 tests/security/privmatrix.py --port N --user U --password P` runs the
same matrix against any server (MariaDB 10.11 included) and prints the
agreement, so the model itself is checked against MariaDB; the test
(`test_sec_privileges.py`) runs it against Turnstile.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import pymysql

SECRET = "top-secret-value"

# Privilege names as GRANT spells them.
SELECT, INSERT, UPDATE, DELETE, CREATE, DROP = "SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP"
ALTER, INDEX, LOCK = "ALTER", "INDEX", "LOCK TABLES"
ANY = "ANY"  # some privilege, whichever
ANY_COLUMN = "ANY_COLUMN"  # some privilege that applies to columns: SELECT, INSERT, UPDATE, REFERENCES


@dataclass(frozen=True)
class Template:
    name: str
    sql: str  # {v} victim table, {vdb} victim database, {h} home database, {n} a fresh name
    needs: Tuple[Tuple[str, frozenset], ...]  # ("v"|"h", privileges)
    denied_code: int = 1142
    destructive: bool = False
    # Statements whose success depends on what the server supports, not on
    # privileges: allowed cases are not required to succeed.
    may_be_unsupported: bool = False
    # information_schema / SHOW DATABASES: never refused, but the victim's
    # names must appear only when the account holds something on V.
    visibility: bool = False
    # Not understood by MariaDB 10.11 (MySQL-only syntax).
    mysql_only: bool = False
    # When allowed, the statement fails with this code instead of succeeding
    # (the table it names does not exist).
    allowed_code: Optional[int] = None
    protocols: Tuple[str, ...] = ("text", "binary", "sqlprep", "multi")
    # Any privilege on the table will do when it comes from a table-level
    # grant (MariaDB 10.11: SHOW COLUMNS, DESCRIBE, SHOW INDEX).
    any_at_table_level: bool = False


def T(name, sql, *needs, **kw) -> Template:
    return Template(name, sql, tuple((w, frozenset(p)) for w, p in needs), **kw)


TEMPLATES: List[Template] = [
    # Reads, in every position a table can appear.
    T("select", "SELECT * FROM {v}", ("v", {SELECT})),
    T("count", "SELECT count(*) FROM {v}", ("v", {SELECT})),
    T("join", "SELECT z.s FROM {h}.t JOIN {v} AS z ON t.id = z.id", ("v", {SELECT})),
    T("scalar_subquery", "SELECT (SELECT s FROM {v} LIMIT 1)", ("v", {SELECT})),
    T("in_subquery", "SELECT * FROM {h}.t WHERE id IN (SELECT id FROM {v})", ("v", {SELECT})),
    T("exists", "SELECT EXISTS(SELECT 1 FROM {v})", ("v", {SELECT})),
    T("derived", "SELECT * FROM (SELECT * FROM {v}) AS d", ("v", {SELECT})),
    T("cte", "WITH c AS (SELECT * FROM {v}) SELECT * FROM c", ("v", {SELECT})),
    T("union", "SELECT s FROM {h}.t UNION SELECT s FROM {v}", ("v", {SELECT})),
    T("where_column", "SELECT 1 FROM {h}.t WHERE s = (SELECT max(s) FROM {v})", ("v", {SELECT})),
    # Joins whose columns SQLite does not report to its authorizer.
    T("natural_join", "SELECT * FROM (SELECT NULL AS id, NULL AS s) x NATURAL JOIN {v}", ("v", {SELECT})),
    T("natural_left_join", "SELECT * FROM {h}.t NATURAL LEFT JOIN {v}", ("v", {SELECT})),
    T("using_join", "SELECT x.s FROM (SELECT 'zzz' AS s) x JOIN {v} USING (s)", ("v", {SELECT})),
    T("using_join_count", "SELECT COUNT(*) FROM (SELECT 1 AS id) x JOIN {v} USING (id)", ("v", {SELECT})),
    # Errors that would tell whether a column or function exists.
    # Forms the rewriter restructures (tests/outside/mtr_diff.py findings): each
    # still checks the victim table it names.
    T("having_without_group_by", "SELECT * FROM {h}.t WHERE id IN (SELECT id FROM {v} HAVING id > 0)", ("v", {SELECT})),
    T("having_alias_of_subquery", "SELECT (SELECT s FROM {v} LIMIT 1) AS a FROM {h}.t HAVING a IS NULL OR a IS NOT NULL", ("v", {SELECT})),
    T("nested_join_on", "SELECT t.s FROM {h}.t JOIN {h}.t AS t2 JOIN {v} AS z ON t2.id = z.id ON t.id = t2.id", ("v", {SELECT})),
    T("parenthesised_union_derived", "SELECT * FROM ((SELECT s FROM {h}.t) UNION (SELECT s FROM {v})) AS q", ("v", {SELECT})),
    T("recursive_cte_anchor_last", "WITH RECURSIVE c (n) AS (SELECT n + 1 FROM c WHERE n < 3 UNION ALL SELECT COUNT(*) FROM {v}) SELECT * FROM c", ("v", {SELECT})),
    T("user_variable_assigned", "SELECT @pmx_v := s FROM {v}", ("v", {SELECT})),
    T("column_oracle", "SELECT nosuchcol FROM {v}", ("v", {SELECT}), allowed_code=1054),
    T("function_oracle", "SELECT nosuchfunc(1) FROM {v}", ("v", {SELECT}), allowed_code=1305),
    T("insert_column_oracle", "INSERT INTO {v} (nosuchcol) VALUES (1)", ("v", {INSERT}), allowed_code=1054),
    # DROP TEMPORARY TABLE never drops a real table (MariaDB: 1051 for everyone).
    T("drop_temporary", "DROP TEMPORARY TABLE {v}", allowed_code=1051, destructive=True),
    # What does not exist: refused (1142) without the privilege, so that no
    # account learns which databases and tables exist; 1146 with it.
    T("missing_table", "SELECT * FROM {vdb}.nosuch", ("v", {SELECT}), allowed_code=1146),
    T("missing_db", "SELECT * FROM {vdb}_none.t", ("v", {"NOBODY"}), allowed_code=1146),
    T("insert_missing_table", "INSERT INTO {vdb}.nosuch VALUES (1)", ("v", {INSERT}), allowed_code=1146),
    # Writes, and writes that read.
    T("insert", "INSERT INTO {v} VALUES (100, 'x')", ("v", {INSERT}), destructive=True),
    T("insert_select_into_v", "INSERT INTO {v} (id, s) SELECT id + 1000, s FROM {h}.t", ("v", {INSERT}), destructive=True),
    T("insert_select_from_v", "INSERT INTO {h}.t (id, s) SELECT id + 1000, s FROM {v}", ("v", {SELECT}), destructive=True),
    T("replace", "REPLACE INTO {v} VALUES (1, 'r')", ("v", {INSERT, DELETE}), destructive=True),
    T("upsert", "INSERT INTO {v} VALUES (1, 'd') ON DUPLICATE KEY UPDATE s = 'u'", ("v", {INSERT, UPDATE}), destructive=True),
    T("update_where", "UPDATE {v} SET s = 'u' WHERE id = 1", ("v", {UPDATE, SELECT}), destructive=True),
    T("update_from_v", "UPDATE {h}.t SET s = (SELECT max(s) FROM {v})", ("v", {SELECT}), destructive=True),
    T("delete_where", "DELETE FROM {v} WHERE id = 1", ("v", {DELETE, SELECT}), destructive=True),
    T("delete_all", "DELETE FROM {v}", ("v", {DELETE}), destructive=True),
    T("delete_in_v", "DELETE FROM {h}.t WHERE id IN (SELECT id FROM {v})", ("v", {SELECT}), destructive=True),
    # DDL.
    T("create", "CREATE TABLE {vdb}.{n} (a INT)", ("v", {CREATE}), destructive=True),
    T("create_like_v", "CREATE TABLE {h}.{n} LIKE {v}", ("v", {SELECT}), destructive=True),
    T("create_or_replace", "CREATE OR REPLACE TABLE {v} (a INT)", ("v", {CREATE, DROP}), destructive=True),
    T("create_or_replace_select_v", "CREATE OR REPLACE TABLE {h}.{n} SELECT * FROM {v}", ("v", {SELECT}), destructive=True),
    T("drop", "DROP TABLE {v}", ("v", {DROP}), destructive=True),
    T("drop_if_exists", "DROP TABLE IF EXISTS {v}", ("v", {DROP}), destructive=True),
    T("truncate", "TRUNCATE TABLE {v}", ("v", {DROP}), destructive=True),
    T("alter_add", "ALTER TABLE {v} ADD COLUMN z INT", ("v", {ALTER}), destructive=True),
    T("rename", "RENAME TABLE {v} TO {vdb}.{n}", ("v", {ALTER, DROP, CREATE, INSERT}), destructive=True),
    T("create_index", "CREATE INDEX ix_new ON {v} (s)", ("v", {INDEX}), destructive=True),
    T("drop_index", "DROP INDEX ix_s ON {v}", ("v", {INDEX}), destructive=True),
    # Statement text computed at run time (MariaDB's EXECUTE IMMEDIATE).
    T("execute_immediate", "EXECUTE IMMEDIATE 'SELECT * FROM {v}'", ("v", {SELECT}), protocols=("text", "multi")),
    T("execute_immediate_concat", "EXECUTE IMMEDIATE CONCAT('DELETE FROM ', '{v}')", ("v", {DELETE}), destructive=True, protocols=("text", "multi")),
    T("execute_immediate_using", "EXECUTE IMMEDIATE 'SELECT ?' USING (SELECT s FROM {v} LIMIT 1)", ("v", {SELECT}), denied_code=1970, allowed_code=1970, protocols=("text", "multi")),
    # SHOW and metadata.
    T("show_create", "SHOW CREATE TABLE {v}", ("v", {ANY})),
    # MariaDB 10.11 asks for SELECT here (INSERT alone does not do).
    T("show_columns", "SHOW COLUMNS FROM {v}", ("v", {SELECT}), any_at_table_level=True),
    T("describe", "DESCRIBE {v}", ("v", {SELECT}), any_at_table_level=True),
    T("show_index", "SHOW INDEX FROM {v}", ("v", {SELECT}), any_at_table_level=True),
    T("show_tables", "SHOW TABLES FROM {vdb}", ("v", {ANY}), denied_code=1044),
    T("show_table_status", "SHOW TABLE STATUS FROM {vdb}", ("v", {ANY}), denied_code=1044),
    T("is_tables", "SELECT table_name FROM information_schema.tables WHERE table_schema = '{vdb_raw}'", ("v", {ANY}), visibility=True),
    T("is_columns", "SELECT column_name FROM information_schema.columns WHERE table_schema = '{vdb_raw}'", ("v", {ANY_COLUMN}), visibility=True),
    T("show_databases", "SHOW DATABASES", ("v", {ANY}), visibility=True, protocols=("text",)),
    # EXPLAIN: what the statement itself needs, and no more (MariaDB 10.11).
    T("explain_select", "EXPLAIN SELECT * FROM {v} WHERE id = 1", ("v", {SELECT})),
    T("explain_join", "EXPLAIN SELECT z.s FROM {h}.t JOIN {v} AS z ON t.id = z.id", ("v", {SELECT})),
    T("explain_in_subquery", "EXPLAIN EXTENDED SELECT * FROM {h}.t WHERE id IN (SELECT id FROM {v})", ("v", {SELECT})),
    T("explain_json", "EXPLAIN FORMAT=JSON SELECT s FROM {v}", ("v", {SELECT})),
    T("explain_missing_table", "EXPLAIN SELECT * FROM {vdb}.nosuch", ("v", {SELECT}), allowed_code=1146),
    T("explain_insert", "EXPLAIN INSERT INTO {v} VALUES (100, 'x')", ("v", {INSERT})),
    T("explain_update", "EXPLAIN UPDATE {v} SET s = 'u' WHERE id = 1", ("v", {UPDATE, SELECT})),
    T("explain_delete", "DESCRIBE DELETE FROM {v} WHERE id = 1", ("v", {DELETE, SELECT})),
    # Maintenance and locks.
    # LOCK TABLES is a database privilege: without it, 1044 before any table.
    T("lock_tables", "LOCK TABLES {v} READ", ("v", {LOCK, SELECT}), denied_code=1044, protocols=("text",)),
    T("analyze", "ANALYZE TABLE {v}", ("v", {SELECT, INSERT}), protocols=("text",)),
]

# The victim table in every reference form. `{V}` is the database, `{T}` the table.
FORMS: Dict[str, str] = {
    "plain": "{V}.{T}",
    "backquoted": "`{V}`.`{T}`",
    "spaced": "{V} . {T}",
    "commented": "{V}/* c */.{T}",
}

# Grant levels on the victim database (the home database always gets ALL),
# and on the victim table alone (`t_*`).
GRANT_LEVELS: Dict[str, Optional[str]] = {
    "none": None,
    "select": SELECT,
    "insert": INSERT,
    "update": UPDATE,
    "delete": DELETE,
    "create": CREATE,
    "drop": DROP,
    "alter": ALTER,
    "index": INDEX,
    "all": "ALL",
    # Table-level grants on the victim table itself (`ON V.secret`).
    "t_select": SELECT,
    "t_insert": INSERT,
    "t_update": UPDATE,
    "t_delete": DELETE,
    "t_drop": DROP,
    "t_alter": ALTER,
    "t_all": "ALL",
}

# Levels granted on the victim table rather than its database.
TABLE_LEVELS = frozenset(k for k in GRANT_LEVELS if k.startswith("t_"))


def table_level_applies(t: "Template") -> bool:
    """A table-level grant on V.secret says nothing about other tables of V:
    templates naming one (`{vdb}.x`) are left to the database-level rows."""
    return "{vdb}." not in t.sql


def held(level: str) -> frozenset:
    g = GRANT_LEVELS[level]
    if g is None:
        return frozenset()
    if g == "ALL":
        # LOCK TABLES is a database privilege: ALL on a table does not hold it.
        table_all = frozenset({SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX})
        return table_all if level in TABLE_LEVELS else table_all | {LOCK}
    return frozenset({g})


def allowed(t: Template, level: str) -> bool:
    have = {"v": held(level), "h": held("all")}
    for where, need in t.needs:
        if where == "v" and level in TABLE_LEVELS and t.any_at_table_level:
            need = frozenset({ANY})
        if ANY in need:
            if not have[where]:
                return False
        elif ANY_COLUMN in need:
            if not have[where] & {SELECT, INSERT, UPDATE}:
                return False
        elif not need <= have[where]:
            return False
    return True


@dataclass
class Outcome:
    ok: bool
    code: Optional[int]
    text: str  # the reply, flattened, to look for leaked secrets


@dataclass
class Case:
    template: Template
    form: str
    level: str
    protocol: str

    @property
    def id(self) -> str:
        return f"{self.template.name}-{self.form}-{self.level}-{self.protocol}"


def cases(templates: Sequence[Template] = TEMPLATES, forms: Iterable[str] = FORMS, levels: Iterable[str] = GRANT_LEVELS) -> List[Case]:
    out = []
    for t, form, level in itertools.product(templates, list(forms), list(levels)):
        # Statements with no table reference do not vary by form.
        if form != "plain" and "{v}" not in t.sql:
            continue
        if level in TABLE_LEVELS and not table_level_applies(t):
            continue
        for p in t.protocols:
            # Non-plain forms once per protocol would multiply DDL runs for
            # little: text and binary cover the parsing paths.
            if form != "plain" and p in ("sqlprep", "multi"):
                continue
            out.append(Case(t, form, level, p))
    return out


@dataclass
class Target:
    """A server to run the matrix on, and the names it uses."""

    host: str
    port: int
    admin_user: str
    admin_password: str
    prefix: str = "pm"
    levels: Sequence[str] = tuple(GRANT_LEVELS)

    @property
    def vdb(self) -> str:
        return f"{self.prefix}_v"

    @property
    def hdb(self) -> str:
        return f"{self.prefix}_h"

    def user(self, level: str) -> str:
        return f"{self.prefix}_{level}"

    def admin(self):
        return pymysql.connect(host=self.host, port=self.port, user=self.admin_user, password=self.admin_password, autocommit=True, client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS)

    def attacker(self, level: str, multi: bool = False):
        flags = pymysql.constants.CLIENT.MULTI_STATEMENTS if multi else 0
        return pymysql.connect(host=self.host, port=self.port, user=self.user(level), password="pw", database=self.hdb, autocommit=True, client_flag=flags)

    def setup(self) -> None:
        c = self.admin()
        with c.cursor() as cur:
            for db in (self.vdb, self.hdb):
                cur.execute(f"DROP DATABASE IF EXISTS {db}")
                cur.execute(f"CREATE DATABASE {db}")
            cur.execute(f"CREATE TABLE {self.hdb}.t (id INT PRIMARY KEY, s VARCHAR(40))")
            cur.execute(f"INSERT INTO {self.hdb}.t VALUES (1, 'home')")
            self.reset_victim(cur)
            for level in self.levels:
                u = self.user(level)
                cur.execute(f"DROP USER IF EXISTS '{u}'@'%'")
                cur.execute(f"CREATE USER '{u}'@'%' IDENTIFIED BY 'pw'")
                cur.execute(f"GRANT ALL ON {self.hdb}.* TO '{u}'@'%'")
                g = GRANT_LEVELS[level]
                if g is not None:
                    on = f"{self.vdb}.secret" if level in TABLE_LEVELS else f"{self.vdb}.*"
                    cur.execute(f"GRANT {g} ON {on} TO '{u}'@'%'")
        c.close()

    def reset_victim(self, cur) -> None:
        v = self.vdb
        cur.execute(f"DROP TABLE IF EXISTS {v}.secret")
        cur.execute(f"DROP TABLE IF EXISTS {v}.renamed")
        cur.execute(f"DROP TABLE IF EXISTS {v}.fresh")
        cur.execute(f"DROP TABLE IF EXISTS {self.hdb}.fresh")
        cur.execute(f"CREATE TABLE {v}.secret (id INT PRIMARY KEY, s VARCHAR(40))")
        cur.execute(f"CREATE INDEX ix_s ON {v}.secret (s)")
        cur.execute(f"INSERT INTO {v}.secret VALUES (1, '{SECRET}')")
        cur.execute(f"DELETE FROM {self.hdb}.t WHERE id <> 1")
        cur.execute(f"UPDATE {self.hdb}.t SET s = 'home'")

    def teardown(self) -> None:
        c = self.admin()
        with c.cursor() as cur:
            for level in self.levels:
                cur.execute(f"DROP USER IF EXISTS '{self.user(level)}'@'%'")
            for db in (self.vdb, self.hdb):
                cur.execute(f"DROP DATABASE IF EXISTS {db}")
        c.close()

    def render(self, case: Case) -> str:
        ref = FORMS[case.form].format(V=self.vdb, T="secret")
        fresh = "renamed" if case.template.name == "rename" else "fresh"
        return case.template.sql.format(v=ref, vdb=self.vdb, vdb_raw=self.vdb, h=self.hdb, n=fresh)


def flatten(rows) -> str:
    return " ".join(str(v) for r in rows or () for v in r)


def run_one(target: Target, case: Case, conns: Dict[Tuple[str, str], object]) -> Outcome:
    sql = target.render(case)
    key = (case.level, case.protocol)
    try:
        if case.protocol == "binary":
            import mysql.connector  # mysql-connector-python: COM_STMT_PREPARE/EXECUTE

            if key not in conns:
                conns[key] = mysql.connector.connect(host=target.host, port=target.port, user=target.user(case.level), password="pw", database=target.hdb, autocommit=True, use_pure=True)
            cur = conns[key].cursor(prepared=True)
            try:
                cur.execute(sql)
                rows = cur.fetchall() if cur.with_rows else []
            finally:
                cur.close()
            return Outcome(True, None, flatten(rows))
        if key not in conns:
            conns[key] = target.attacker(case.level, multi=case.protocol == "multi")
        conn = conns[key]
        with conn.cursor() as cur:
            if case.protocol == "sqlprep":
                cur.execute("PREPARE pm_s FROM %s", (sql,))
                cur.execute("EXECUTE pm_s")
                rows = cur.fetchall()
                cur.execute("DEALLOCATE PREPARE pm_s")
            elif case.protocol == "multi":
                # The statement second in a multi-statement text; only its rows count.
                cur.execute("SELECT 1; " + sql)
                rows = []
                while cur.nextset():
                    rows.extend(cur.fetchall() or ())
            else:
                cur.execute(sql)
                rows = cur.fetchall()
            if "LOCK TABLES" in sql:
                cur.execute("UNLOCK TABLES")
        return Outcome(True, None, flatten(rows))
    except (pymysql.err.MySQLError,) as e:
        conns.pop(key, None) if e.args and e.args[0] in (2006, 2013) else None
        return Outcome(False, e.args[0] if e.args else None, str(e))
    except Exception as e:  # mysql.connector errors
        code = getattr(e, "errno", None)
        if code in (2006, 2013, 2055):
            conns.pop(key, None)
        return Outcome(False, code, str(e))


def judge(case: Case, out: Outcome, vdb: str) -> Optional[str]:
    """None if the outcome is what MySQL's privilege rules require."""
    t = case.template
    want = allowed(t, case.level)
    if t.visibility:
        if not out.ok:
            return f"refused ({out.code}): {out.text[:120]}"
        # SHOW DATABASES lists names; the information_schema queries filter
        # on the victim database, so any row shows it.
        shows = vdb in out.text.split() if t.name == "show_databases" else bool(out.text.strip())
        if shows != want:
            return f"victim {'hidden' if want else 'visible'}: {out.text[:160]}"
        return None
    if SECRET in out.text and not want:
        return f"leaked the victim's data: {out.text[:120]}"
    if want:
        if t.allowed_code is not None:
            return None if out.code == t.allowed_code else f"got {out.code}, not {t.allowed_code}: {out.text[:160]}"
        if out.ok or t.may_be_unsupported:
            return None
        if out.code in (1142, 1143, 1044):
            return f"refused what the account holds ({out.code}): {out.text[:160]}"
        return f"failed ({out.code}): {out.text[:160]}"
    if out.ok:
        return "allowed without the privilege"
    expected = {t.denied_code} | ({1143} if t.denied_code == 1142 else set())
    if out.code not in expected:
        return f"refused with {out.code}, not {t.denied_code}: {out.text[:160]}"
    return None


def run(target: Target, selected: Sequence[Case]) -> List[Tuple[Case, Outcome, Optional[str]]]:
    """Run cases in order; reset the victim after every destructive success."""
    conns: Dict[Tuple[str, str], object] = {}
    admin = target.admin()
    results = []
    try:
        for case in selected:
            out = run_one(target, case, conns)
            results.append((case, out, judge(case, out, target.vdb)))
            if case.template.destructive and out.ok:
                with admin.cursor() as cur:
                    target.reset_victim(cur)
    finally:
        for c in conns.values():
            try:
                c.close()
            except Exception:
                pass
        admin.close()
    return results


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--user", default="root")
    ap.add_argument("--password", default="")
    ap.add_argument("--mariadb", action="store_true", help="skip MySQL-only statements")
    ap.add_argument("--levels", default=",".join(GRANT_LEVELS), help="grant levels to run (comma-separated)")
    args = ap.parse_args(argv)
    levels = args.levels.split(",")
    target = Target(args.host, args.port, args.user, args.password, levels=levels)
    target.setup()
    selected = [c for c in cases(levels=levels) if not (args.mariadb and c.template.mysql_only)]
    try:
        results = run(target, selected)
    finally:
        target.teardown()
    bad = [(c, o, v) for c, o, v in results if v]
    for c, o, v in bad:
        print(f"DISAGREE {c.id}: {v}")
    print(f"{len(results) - len(bad)}/{len(results)} cases agree with the model ({len(TEMPLATES)} templates, {len(FORMS)} forms, {len(GRANT_LEVELS)} grant levels)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
