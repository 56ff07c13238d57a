//! EXPLAIN of a statement on the session: the statement compiled exactly as
//! running it would compile it (compile.rs: translation, nesting limits,
//! SQLite's authorizer) and its privileges checked as running it would check
//! them (`authorize::check`: an account learns nothing through EXPLAIN about
//! a table it may not use that way), then SQLite's query plan read from the
//! compiled statement in EXPLAIN QUERY PLAN mode (`sqlite3_stmt_explain`:
//! the program is not run, so EXPLAIN of a write writes nothing) and mapped
//! onto MariaDB's table by explain.rs, with the names and statistics the
//! session resolves here (`SessionLookup`).

use super::SqliteSession;
use crate::authorize;
use crate::conn::Conn;
use crate::explain::{self, Head, Lookup, Node, Shown, Verb};
use crate::rewrite::Kind;
use crate::schema::{sq_ident, TableDef};
use rusqlite::ffi;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::CStr;
use std::os::raw::c_char;
use std::sync::Arc;
use turnstile_engine::{Access, ExecContext, Outcome, Prepared, RowSink, SqlError, Value};
use turnstile_sqltext::lex::{self, Token};

/// Rows of a plan read at most (a plan has a few lines per table and
/// subquery; the statement's nesting and table limits bound it far below).
const MAX_PLAN_LINES: usize = 10_000;

/// What a statement's first word makes of it.
fn kind_of(stmt: &str) -> Kind {
    match turnstile_sqltext::scan::first_word(stmt).to_ascii_uppercase().as_str() {
        "INSERT" | "REPLACE" => Kind::Insert,
        "UPDATE" => Kind::Update,
        "DELETE" => Kind::Delete,
        _ => Kind::Select,
    }
}

/// `EXPLAIN ...` / `DESCRIBE ...` of a statement, or None (a table's columns).
pub(super) fn head_of(sql: &str) -> Result<Option<(Head, Vec<Token>)>, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    Ok(explain::head(sql, &toks)?.map(|h| (h, toks)))
}

impl SqliteSession {
    /// EXPLAIN of a statement: MariaDB's traditional table or its JSON.
    pub(super) fn explain(&mut self, ctx: &ExecContext<'_>, sql: &str, sink: &mut dyn RowSink, head: Head) -> Result<Outcome, SqlError> {
        let stmt = &sql[head.at..];
        let (rows, verb_key) = self.plan(ctx.access, stmt)?;
        let o = head.options;
        sink.columns(&explain::columns(o))?;
        if o.json {
            sink.row(&[Value::str(&explain::json(&rows, verb_key))])?;
        } else {
            for r in &rows {
                sink.row(&explain::values(r, o))?;
            }
        }
        if o.extended {
            // MariaDB's note holds its own rewriting of the query; this one
            // the statement as the client wrote it.
            ctx.note(1003, stmt.trim());
        }
        Ok(Outcome::Rows)
    }

    /// COM_STMT_PREPARE of an EXPLAIN: refused as running it would be.
    pub(super) fn explain_prepare(&mut self, access: &dyn Access, sql: &str, head: Head) -> Result<Prepared, SqlError> {
        self.plan(access, &sql[head.at..])?;
        let params = lex::count_params(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
        Ok(Prepared { params, columns: explain::columns(head.options) })
    }

    /// The plan of `stmt`, compiled and checked as running it would be.
    fn plan(&mut self, access: &dyn Access, stmt: &str) -> Result<(Vec<explain::PlanRow>, Option<&'static str>), SqlError> {
        // As `dml`: after USE mysql a bare `user` is mysql.user; and the SQL
        // front answers `SELECT ... FROM DUAL` itself, which SQLite does not know.
        let redirected = self.system_db.as_deref().filter(|d| d.eq_ignore_ascii_case("mysql")).and_then(|_| crate::mysql_user::redirect(stmt, true));
        let stmt = redirected.as_deref().unwrap_or(stmt);
        let without_dual = without_from_dual(stmt);
        let stmt = without_dual.as_deref().unwrap_or(stmt);
        let kind = kind_of(stmt);
        self.ensure_conn()?;
        for attempt in 0..2 {
            let epoch = self.inner.epoch();
            match self.compile(stmt, kind, access) {
                Err(e) if e.code == 1412 && attempt == 0 => {
                    self.conn.as_mut().expect("conn").cache.clear();
                    continue;
                }
                r => r?,
            }
            let conn = self.conn.as_ref().expect("conn");
            let entry = conn.cache.get(stmt).expect("compiled");
            authorize::check(&entry.needs, access)?;
            // The plan of the translated text, compiled again, whose needs
            // were just checked: the cached statement may be the UNION in
            // the order rows are first seen (union_order.rs), and a cursor
            // of this session may still be reading it (COM_STMT_PREPARE of
            // an EXPLAIN between fetches).
            let nodes = query_plan(conn.prepare(&entry.rw.sql, stmt)?.raw())?;
            if self.inner.epoch() != epoch {
                // DDL ran meanwhile: the plan may be of another schema.
                if attempt == 0 {
                    self.conn.as_mut().expect("conn").cache.clear();
                    continue;
                }
                return Err(crate::errors::table_definition_changed());
            }
            let rw = entry.rw.clone();
            let lookup = SessionLookup::new(conn, stmt, &entry.needs, &rw.tables);
            let values = rw.insert.as_ref().is_some_and(|i| i.rows > 0);
            let verb = match kind {
                Kind::Insert if values => Verb::InsertValues,
                Kind::Select => Verb::Select,
                Kind::Delete => Verb::Delete,
                _ => Verb::Other,
            };
            let target = rw.insert.as_ref().map(|i| i.table.clone()).or_else(|| rw.tables.first().map(|(_, t)| t.clone()));
            let rows = explain::rows(&nodes, &lookup, verb, target.as_deref())?;
            let verb_key = match kind {
                Kind::Update => Some("update"),
                Kind::Delete => Some("delete"),
                _ => None,
            };
            return Ok((rows, verb_key));
        }
        Err(crate::errors::table_definition_changed())
    }
}

/// The text without a top-level `FROM DUAL` (MySQL's table-less FROM), or
/// None when it has none.
fn without_from_dual(stmt: &str) -> Option<String> {
    let toks = lex::tokenize(stmt).ok()?;
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
        } else if depth == 0 && t.is_kw("FROM") && toks.get(i + 1).is_some_and(|n| n.is_kw("DUAL")) {
            let end = toks[i + 1].end;
            return Some(format!("{} {}", &stmt[..t.start], &stmt[end..]));
        }
    }
    None
}

/// SQLite's EXPLAIN QUERY PLAN of a compiled statement, without running it.
fn query_plan(st: *mut ffi::sqlite3_stmt) -> Result<Vec<Node>, SqlError> {
    let mut nodes = Vec::new();
    // SAFETY: a valid, reset statement of the connection this thread holds;
    // EXPLAIN mode is switched off again (and the statement reset) before it
    // is used for anything else, as authorize.rs does.
    unsafe {
        if ffi::sqlite3_stmt_explain(st, 2) != ffi::SQLITE_OK {
            return Err(SqlError::internal("cannot read the statement's plan"));
        }
        while nodes.len() < MAX_PLAN_LINES && ffi::sqlite3_step(st) == ffi::SQLITE_ROW {
            let p = ffi::sqlite3_column_text(st, 3);
            let detail = if p.is_null() { String::new() } else { CStr::from_ptr(p as *const c_char).to_string_lossy().into_owned() };
            nodes.push(Node { id: ffi::sqlite3_column_int64(st, 0), parent: ffi::sqlite3_column_int64(st, 1), detail });
        }
        ffi::sqlite3_reset(st);
        ffi::sqlite3_stmt_explain(st, 0);
    }
    Ok(nodes)
}

/// A table the statement reaches: its SQLite schema and definition.
struct Reached {
    schema: String,
    def: Arc<TableDef>,
}

/// Names in the plan resolved for the session: the tables the statement
/// touches (its needs, which its privileges were checked for, and the tables
/// it names), the aliases its text gives them, and their row estimates.
struct SessionLookup<'a> {
    conn: &'a Conn,
    /// Identifiers of the client's text, lowercased.
    idents: Vec<String>,
    tables: Vec<Reached>,
    /// alias (lowercased) → index into `tables`.
    aliases: Vec<(String, usize)>,
    estimates: RefCell<HashMap<(String, String), Option<u64>>>,
}

/// Words that end a table reference instead of naming its alias.
const NOT_ALIASES: [&str; 34] = [
    "WHERE",
    "JOIN",
    "LEFT",
    "RIGHT",
    "INNER",
    "CROSS",
    "STRAIGHT_JOIN",
    "NATURAL",
    "ON",
    "USING",
    "GROUP",
    "ORDER",
    "LIMIT",
    "HAVING",
    "UNION",
    "SET",
    "WINDOW",
    "FOR",
    "LOCK",
    "FORCE",
    "USE",
    "IGNORE",
    "PARTITION",
    "INTO",
    "VALUES",
    "SELECT",
    "EXCEPT",
    "INTERSECT",
    "RETURNING",
    "OUTER",
    "FULL",
    "VALUE",
    "ON",
    "PROCEDURE",
];

impl<'a> SessionLookup<'a> {
    fn new(conn: &'a Conn, stmt: &str, needs: &[authorize::Need], named: &[(Option<String>, String)]) -> SessionLookup<'a> {
        let toks = lex::tokenize(stmt).unwrap_or_default();
        let idents: Vec<String> = toks.iter().filter_map(|t| t.ident()).map(|w| w.to_ascii_lowercase()).collect();
        let home = conn.home.as_ref().map(|h| h.name.clone());
        let mut tables: Vec<Reached> = Vec::new();
        let mut add = |schema: &str, name: &str| {
            if let Some(def) = conn.table_def(schema, name) {
                if !tables.iter().any(|r| r.schema == schema && r.def.name.eq_ignore_ascii_case(&def.name)) {
                    tables.push(Reached { schema: schema.to_string(), def });
                }
            }
        };
        for n in needs {
            let schema = if n.db.is_empty() {
                "temp"
            } else if Some(&*n.db) == home.as_deref() {
                "main"
            } else {
                &n.db
            };
            add(schema, &n.table);
        }
        for (db, t) in named {
            match db.as_deref() {
                None => {
                    add("temp", t);
                    add("main", t);
                }
                Some(d) if Some(d) == home.as_deref() => add("main", t),
                Some(d) => add(d, t),
            }
        }
        let aliases = aliases_of(&toks, &tables);
        SessionLookup { conn, idents, tables, aliases, estimates: RefCell::new(HashMap::new()) }
    }

    fn is_schema(&self, s: &str) -> bool {
        s == "main" || s == "temp" || crate::perf_tables::is_system_view_schema(s) || self.conn.attached.iter().any(|a| a.name == s)
    }

    /// ANALYZE TABLE's row count, else the span of the row ids: two index
    /// seeks, never a scan.
    fn estimate(&self, r: &Reached) -> Option<u64> {
        if r.def.view.is_some() {
            return None;
        }
        let key = (r.schema.clone(), r.def.name.clone());
        if let Some(e) = self.estimates.borrow().get(&key) {
            return *e;
        }
        let s = sq_ident(&r.schema);
        let stat: Option<String> = self.conn.db.query_row(&format!("SELECT stat FROM {s}.sqlite_stat1 WHERE tbl = ?1 ORDER BY idx IS NOT NULL LIMIT 1"), [&r.def.name], |row| row.get(0)).ok();
        let from_stat = stat.and_then(|s| s.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()));
        let e = from_stat.or_else(|| {
            let t = format!("{}.{}", s, sq_ident(&r.def.name));
            let sql = format!("SELECT coalesce((SELECT max(rowid) FROM {t}) - (SELECT min(rowid) FROM {t}) + 1, 0)");
            self.conn.db.query_row(&sql, [], |row| row.get::<_, i64>(0)).ok().map(|n| n.max(0) as u64)
        });
        self.estimates.borrow_mut().insert(key, e);
        e
    }
}

/// `t AS x`, `t x`, `db.t x` in the client's text, for the tables reached.
fn aliases_of(toks: &[Token], tables: &[Reached]) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let Some(name) = toks[i].ident() else {
            i += 1;
            continue;
        };
        let (name, mut j) = match (toks.get(i + 1), toks.get(i + 2).and_then(|t| t.ident())) {
            (Some(dot), Some(t)) if dot.is_op(".") => (t, i + 3),
            _ => (name, i + 1),
        };
        if let Some(k) = tables.iter().position(|r| r.def.name.eq_ignore_ascii_case(name)) {
            if toks.get(j).is_some_and(|t| t.is_kw("AS")) {
                j += 1;
            }
            if let Some(alias) = toks.get(j).and_then(|t| t.ident()) {
                let word = matches!(toks[j].tok, turnstile_sqltext::lex::Tok::Word(_));
                if !(word && NOT_ALIASES.iter().any(|w| alias.eq_ignore_ascii_case(w))) {
                    out.push((alias.to_ascii_lowercase(), k));
                }
            }
        }
        i += 1;
    }
    out
}

impl Lookup for SessionLookup<'_> {
    fn table(&self, name: &str) -> Option<Shown> {
        let (schema, bare) = match name.split_once('.') {
            Some((s, rest)) if self.is_schema(s) => (Some(s), rest),
            _ => (None, name),
        };
        let lower = bare.to_ascii_lowercase();
        // SQLite's own names and the translator's helpers are never shown.
        let helper = (lower.starts_with("ts_") || lower.starts_with("ts:")) && !self.idents.contains(&lower);
        let internal = bare.starts_with('(') || lower.starts_with("sqlite_") || helper;
        if internal || bare.is_empty() {
            return None;
        }
        if schema.is_some_and(crate::perf_tables::is_system_view_schema) {
            return Some(Shown { name: bare.to_string(), def: None, rows: None });
        }
        let by_alias = self.aliases.iter().find(|(a, _)| *a == lower).map(|(_, k)| &self.tables[*k]);
        let reached = by_alias.or_else(|| self.tables.iter().find(|r| r.def.name.eq_ignore_ascii_case(bare) && schema.is_none_or(|s| s == r.schema)));
        let rows = reached.and_then(|r| self.estimate(r));
        Some(Shown { name: bare.to_string(), def: reached.map(|r| r.def.clone()), rows })
    }

    fn index_table(&self, sqlite_index: &str) -> Option<Shown> {
        let auto = |r: &&Reached| sqlite_index.strip_prefix("sqlite_autoindex_").and_then(|x| x.rsplit_once('_')).is_some_and(|(t, _)| t.eq_ignore_ascii_case(&r.def.name));
        let r = self.tables.iter().find(|r| r.def.indexes.iter().any(|ix| ix.sqlite_name.eq_ignore_ascii_case(sqlite_index)) || auto(r))?;
        Some(Shown { name: r.def.name.clone(), def: Some(r.def.clone()), rows: self.estimate(r) })
    }

    fn rows_per_key(&self, def: &TableDef, index: Option<&str>, parts: usize) -> Option<u64> {
        let r = self.tables.iter().find(|r| std::ptr::eq(&*r.def, def))?;
        let idx = match index {
            Some(name) => def.indexes.iter().find(|ix| ix.name == name)?.sqlite_name.clone(),
            None => format!("sqlite_autoindex_{}_1", def.name),
        };
        let sql = format!("SELECT stat FROM {}.sqlite_stat1 WHERE tbl = ?1 AND idx = ?2", sq_ident(&r.schema));
        let stat: String = self.conn.db.query_row(&sql, [&def.name, &idx], |row| row.get(0)).ok()?;
        stat.split_whitespace().nth(parts.max(1)).and_then(|n| n.parse().ok())
    }
}
