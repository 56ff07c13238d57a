//! Firing triggers: an INSERT, REPLACE, UPDATE or DELETE of one table
//! that has triggers runs here, row by row, instead of as one engine
//! statement (a table without triggers never comes here: `dml` returns
//! None after one atomic load, or one map lookup while some database has
//! triggers).
//!
//! The statement's rows are read first (the VALUES evaluated, the SELECT
//! run, the rows an UPDATE or DELETE matches with their new values), at
//! most `trigger_max_rows` of them (ERR 1114). Then for each row, as
//! MariaDB: the BEFORE triggers (which may change NEW), the write of that
//! one row (by its primary key, else by all its values), the AFTER
//! triggers. REPLACE deletes the rows a new row conflicts with (firing the
//! DELETE triggers), then inserts it; INSERT ... ON DUPLICATE KEY UPDATE
//! fires BEFORE INSERT, then BEFORE and AFTER UPDATE on the duplicate.
//!
//! The whole statement is one savepoint: an error in a trigger (a SIGNAL:
//! 1644) undoes every row. A trigger's statement writing a table whose
//! statement is running (its own table, or a caller's) is MariaDB's 1442;
//! triggers firing statements that fire triggers nest at most
//! `trigger_max_nesting` deep (ERR 1436), and the thread's stack is checked.
//!
//! Not fired (documented): multi-table UPDATE and DELETE, LOAD DATA.

use super::interp::{Capture, Interp, RowVars};
use super::trigger::{self, Event, Trigger};
use crate::front::{self, Call};
use std::sync::Arc;
use turnstile_engine::{Done, Outcome, SqlError, Value};
use turnstile_sqltext::lex::{self, Tok, Token};

/// A table's columns as triggers see them.
pub struct TableInfo {
    pub db: String,
    pub name: String,
    pub cols: Vec<String>,
    pub types: Vec<String>,
    /// Each column's default as SHOW COLUMNS gives it (NULL: none).
    defaults: Vec<Value>,
    auto: Option<usize>,
    /// The primary key's columns (empty: none).
    key: Vec<usize>,
    /// Unique keys, the primary key first.
    uniques: Vec<Vec<usize>>,
}

fn capture(call: &mut Call<'_, '_>, sql: &str, params: &[Value], limit: usize) -> Result<Vec<Vec<Value>>, SqlError> {
    let mut cap = Capture { rows: Vec::new(), limit, over: false };
    let mut inner = Call { sess: &mut *call.sess, engine: &mut *call.engine, ops: call.ops, ctx: call.ctx, params };
    front::routine_statement(&mut inner, sql, &mut cap)?;
    if cap.over {
        return Err(SqlError::new(1114, "HY000", format!("The statement reads more than {} rows of a table with triggers (trigger_max_rows)", limit)));
    }
    Ok(cap.rows)
}

fn text(v: &Value) -> String {
    String::from_utf8_lossy(&v.to_text().unwrap_or_default()).into_owned()
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// The columns, defaults and keys of `db`.`table` (1146 when there is no such table).
pub fn table_columns(call: &mut Call<'_, '_>, db: &str, table: &str) -> Result<TableInfo, SqlError> {
    let from = format!("{}.{}", quote(db), quote(table));
    let rows = capture(call, &format!("SHOW COLUMNS FROM {}", from), &[], 100_000)?;
    let mut t = TableInfo { db: db.to_string(), name: table.to_string(), cols: Vec::new(), types: Vec::new(), defaults: Vec::new(), auto: None, key: Vec::new(), uniques: Vec::new() };
    for (i, r) in rows.iter().enumerate() {
        let get = |k: usize| r.get(k).map(text).unwrap_or_default();
        t.cols.push(get(0));
        t.types.push(get(1));
        t.defaults.push(r.get(4).cloned().unwrap_or(Value::Null));
        if get(5).to_ascii_lowercase().contains("auto_increment") {
            t.auto = Some(i);
        }
    }
    let index = capture(call, &format!("SHOW INDEX FROM {}", from), &[], 100_000)?;
    let mut keys: Vec<(String, Vec<usize>)> = Vec::new();
    for r in index {
        let (unique, name, col) = (r.get(1).and_then(|v| v.as_i64()) == Some(0), r.get(2).map(text).unwrap_or_default(), r.get(4).map(text).unwrap_or_default());
        let Some(c) = t.cols.iter().position(|x| x.eq_ignore_ascii_case(&col)) else { continue };
        if !unique {
            continue;
        }
        match keys.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => v.push(c),
            None => keys.push((name, vec![c])),
        }
    }
    keys.sort_by_key(|(n, _)| n != "PRIMARY");
    if keys.first().is_some_and(|(n, _)| n == "PRIMARY") {
        t.key = keys[0].1.clone();
    }
    t.uniques = keys.into_iter().map(|(_, v)| v).collect();
    Ok(t)
}

/// The statement's table, for the single-table forms: (db, table, index of
/// its first token, index of the token after it and its alias). None for anything else (multi-table).
pub(super) fn target(kw: &str, toks: &[Token]) -> Option<(Option<String>, String, usize, usize)> {
    let mut i = 1;
    let skip: &[&str] = match kw {
        "INSERT" | "REPLACE" => &["LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "IGNORE", "INTO"],
        "UPDATE" => &["LOW_PRIORITY", "IGNORE"],
        _ => &["LOW_PRIORITY", "QUICK", "IGNORE"],
    };
    while toks.get(i).is_some_and(|t| skip.iter().any(|k| t.is_kw(k))) {
        i += 1;
    }
    if kw == "DELETE" {
        if !toks.get(i).is_some_and(|t| t.is_kw("FROM")) {
            return None;
        }
        i += 1;
    }
    let (start, first) = (i, toks.get(i)?.ident()?.to_string());
    let (db, name, mut next) = if toks.get(i + 1).is_some_and(|t| t.is_op(".")) { (Some(first), toks.get(i + 2)?.ident()?.to_string(), i + 3) } else { (None, first, i + 1) };
    if kw == "UPDATE" || kw == "DELETE" {
        // An alias, then a single table's clause (not a join or a list of tables).
        if toks.get(next).is_some_and(|t| t.is_kw("AS")) {
            next += 1;
        }
        let clause = |t: &Token| ["SET", "WHERE", "ORDER", "LIMIT", "RETURNING"].iter().any(|k| t.is_kw(k)) || t.is_op(";");
        if toks.get(next).is_some_and(|t| !clause(t)) {
            next += 1;
        }
        if toks.get(next).is_some_and(|t| !clause(t)) {
            return None;
        }
    }
    Some((db, name, start, next))
}

/// A DML statement on a table with triggers, run here; None for every other.
pub fn dml(call: &mut Call<'_, '_>, kw: &str, sql: &str) -> Option<Result<Outcome, SqlError>> {
    if trigger::none_anywhere() || !matches!(kw, "INSERT" | "REPLACE" | "UPDATE" | "DELETE") {
        return None;
    }
    let toks = lex::tokenize(sql).ok()?;
    let Some((db, table, _, _)) = target(kw, &toks) else { return refuse_multi_table(call, &toks) };
    let db = db.or_else(|| call.sess.db.clone())?;
    let trigs = match trigger::of_table(call, &db, &table) {
        Ok(t) => t,
        Err(e) => return Some(Err(e)),
    };
    if trigs.is_empty() {
        return None;
    }
    Some(with_params_inlined(call, sql, |call, sql| run(call, kw, sql, &db, &table, &trigs)))
}

/// A multi-table UPDATE or DELETE does not fire triggers yet: one naming a
/// table that has some is refused (1235), never run without them.
fn refuse_multi_table(call: &mut Call<'_, '_>, toks: &[Token]) -> Option<Result<Outcome, SqlError>> {
    let home = call.sess.db.clone();
    let mut i = 0;
    while i < toks.len() {
        let Some(first) = toks[i].ident() else {
            i += 1;
            continue;
        };
        let qualified = toks.get(i + 1).is_some_and(|t| t.is_op(".")) && toks.get(i + 2).and_then(|t| t.ident()).is_some();
        let (db, table) = if qualified { (Some(first.to_string()), toks[i + 2].ident().unwrap_or("").to_string()) } else { (home.clone(), first.to_string()) };
        i += if qualified { 3 } else { 1 };
        let Some(db) = db else { continue };
        match trigger::of_table(call, &db, &table) {
            Ok(t) if !t.is_empty() => return Some(Err(SqlError::unsupported("multi-table UPDATE or DELETE of a table with triggers"))),
            Ok(_) => {}
            Err(e) => return Some(Err(e)),
        }
    }
    None
}

/// A prepared statement's `?` written as its values' literals (the rows
/// are read by statements of our own, which have their own parameters).
fn with_params_inlined(call: &mut Call<'_, '_>, sql: &str, f: impl FnOnce(&mut Call<'_, '_>, &str) -> Result<Outcome, SqlError>) -> Result<Outcome, SqlError> {
    if call.params.is_empty() {
        return f(call, sql);
    }
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let (mut out, mut last, mut k) = (String::with_capacity(sql.len() + 32), 0, 0);
    for t in toks.iter().filter(|t| matches!(t.tok, Tok::Param)) {
        out.push_str(&sql[last..t.start]);
        out.push_str(&crate::dialect::literal(call.params.get(k).unwrap_or(&Value::Null)));
        (last, k) = (t.end, k + 1);
    }
    out.push_str(&sql[last..]);
    let mut inner = Call { sess: &mut *call.sess, engine: &mut *call.engine, ops: call.ops, ctx: call.ctx, params: &[] };
    f(&mut inner, &out)
}

fn run(call: &mut Call<'_, '_>, kw: &str, sql: &str, db: &str, table: &str, trigs: &[Arc<Trigger>]) -> Result<Outcome, SqlError> {
    let key = format!("{}.{}", db, table).to_ascii_lowercase();
    if call.sess.trigger_tables.contains(&key) {
        return Err(SqlError::new(
            1442,
            "HY000",
            format!("Can't update table '{}' in stored function/trigger because it is already used by statement which invoked this stored function/trigger", table),
        ));
    }
    let max = super::setting(call, "trigger_max_nesting").max(1) as usize;
    if call.sess.trigger_tables.len() >= max {
        return Err(SqlError::new(1436, "HY000", format!("Triggers nest deeper than {} statements (trigger_max_nesting)", max)));
    }
    turnstile_engine::stack::check()?;
    let info = table_columns(call, db, table)?;
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let (_, _, start, after) = target(kw, &toks).ok_or_else(|| SqlError::syntax(sql))?;
    let ignore = toks.iter().take(start).any(|t| t.is_kw("IGNORE"));
    let depth = call.sess.trigger_tables.len();
    // The triggers run in their table's database; the engine changes its
    // default database only outside a transaction, so before it begins.
    let home = call.sess.db.clone();
    let switch = home.as_deref() != Some(db) && !call.engine.in_transaction();
    if switch {
        front::use_database_quietly(call, Some(db))?;
    }
    let began = savepoint(call, depth);
    let began = match began {
        Ok(b) => b,
        Err(e) => {
            if switch {
                front::use_database_quietly(call, home.as_deref())?;
            }
            return Err(e);
        }
    };
    call.sess.trigger_tables.push(key);
    let mut st = Stmt { info, trigs, ignore, affected: 0, matched: 0, generated: None };
    let r = match kw {
        "INSERT" | "REPLACE" => insert(call, &mut st, sql, &toks, after, kw == "REPLACE"),
        "UPDATE" => update(call, &mut st, sql, &toks, start, after),
        _ => delete(call, &mut st, sql, &toks, start, after),
    };
    call.sess.trigger_tables.pop();
    let done = finish(call, depth, began, r.is_ok());
    if switch {
        front::use_database_quietly(call, home.as_deref())?;
    }
    done?;
    r
}

/// One statement's state while its rows are written.
struct Stmt<'t> {
    info: TableInfo,
    trigs: &'t [Arc<Trigger>],
    ignore: bool,
    affected: u64,
    matched: u64,
    generated: Option<u64>,
}

fn savepoint(call: &mut Call<'_, '_>, depth: usize) -> Result<bool, SqlError> {
    let began = !call.engine.in_transaction();
    if began {
        front::routine_statement(call, "BEGIN", &mut turnstile_engine::DiscardRows)?;
    }
    front::routine_statement(call, &format!("SAVEPOINT ts_trigger_{}", depth), &mut turnstile_engine::DiscardRows)?;
    Ok(began)
}

fn finish(call: &mut Call<'_, '_>, depth: usize, began: bool, ok: bool) -> Result<(), SqlError> {
    let d = &mut turnstile_engine::DiscardRows;
    if !ok {
        let _ = front::routine_statement(call, &format!("ROLLBACK TO SAVEPOINT ts_trigger_{}", depth), d);
    }
    let _ = front::routine_statement(call, &format!("RELEASE SAVEPOINT ts_trigger_{}", depth), d);
    if began && call.sess.autocommit {
        front::routine_statement(call, if ok { "COMMIT" } else { "ROLLBACK" }, d)?;
    }
    Ok(())
}

/// Run one row's write in the engine, no trigger fired (that is this module's).
fn write(call: &mut Call<'_, '_>, sql: &str, params: &[Value]) -> Result<Done, SqlError> {
    let mut inner = Call { sess: &mut *call.sess, engine: &mut *call.engine, ops: call.ops, ctx: call.ctx, params };
    match front::engine_raw(&mut inner, sql, &mut turnstile_engine::DiscardRows)? {
        Outcome::Done(d) => Ok(d),
        _ => Ok(Done::default()),
    }
}

/// `WHERE` naming one row: its primary key, else all its columns.
fn identity(info: &TableInfo, row: &[Value]) -> (String, Vec<Value>) {
    let cols: Vec<usize> = if info.key.is_empty() { (0..info.cols.len()).collect() } else { info.key.clone() };
    let op = if info.key.is_empty() { "<=>" } else { "=" };
    let cond: Vec<String> = cols.iter().map(|&c| format!("{} {} ?", quote(&info.cols[c]), op)).collect();
    (format!(" WHERE {}", cond.join(" AND ")), cols.iter().map(|&c| row[c].clone()).collect())
}

fn from(info: &TableInfo) -> String {
    format!("{}.{}", quote(&info.db), quote(&info.name))
}

/// A value converted to a column's type, as NEW holds it.
fn typed(call: &mut Call<'_, '_>, v: Value, ty: &str) -> Result<Value, SqlError> {
    Interp::new(call, false).coerce(v, ty)
}

/// Run the triggers of `event` at one timing on a row; a BEFORE trigger's
/// changes to NEW come back in `new` (`set` marks the columns it assigned).
fn fire(call: &mut Call<'_, '_>, st: &Stmt<'_>, before: bool, event: Event, new: &mut Option<Vec<Value>>, old: Option<&[Value]>, set: &mut [bool]) -> Result<(), SqlError> {
    for t in st.trigs.iter().filter(|t| t.before == before && t.event == event) {
        let key = format!("{}.{}", t.row.db, t.row.name).to_ascii_lowercase();
        let guard = super::Activation::enter(call, &t.row, key)?;
        let mut it = Interp::new(&mut *call, false);
        let n = st.info.cols.len();
        it.row = Some(RowVars { cols: st.info.cols.clone(), types: st.info.types.clone(), new: new.clone(), old: old.map(|o| o.to_vec()), set: vec![false; n] });
        let r = match &t.body {
            Ok(body) => it.run_body(body, &mut turnstile_engine::DiscardRows),
            Err(e) => Err(e.clone()),
        };
        let rows = it.row.take();
        guard.leave(call)?;
        r?;
        if let Some(rv) = rows.filter(|_| before) {
            for (s, x) in set.iter_mut().zip(&rv.set) {
                *s |= *x;
            }
            *new = rv.new;
        }
    }
    Ok(())
}

/// Top-level pieces of `toks[from..to]` split at commas.
fn split_commas(toks: &[Token], from: usize, to: usize) -> Vec<(usize, usize)> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, from);
    for (i, t) in toks.iter().enumerate().take(to).skip(from) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
        } else if depth == 0 && t.is_op(",") {
            out.push((start, i));
            start = i + 1;
        }
    }
    if start < to {
        out.push((start, to));
    }
    out
}

/// The text of tokens `a..b`.
fn span(sql: &str, toks: &[Token], a: usize, b: usize) -> String {
    if a >= b {
        return String::new();
    }
    sql[toks[a].start..toks[b - 1].end].to_string()
}

/// The first top-level token at or after `from` that is one of `kws`.
fn find_top(toks: &[Token], from: usize, kws: &[&str]) -> usize {
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate().skip(from) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
        } else if depth == 0 && (kws.iter().any(|k| t.is_kw(k)) || t.is_op(";")) {
            return i;
        }
    }
    toks.len()
}

/// `col = expr` pieces: (column index, expression text).
fn assignments(sql: &str, toks: &[Token], info: &TableInfo, a: usize, b: usize) -> Result<Vec<(usize, String)>, SqlError> {
    let mut out = Vec::new();
    for (s, e) in split_commas(toks, a, b) {
        let eq = (s..e).find(|&i| toks[i].is_op("=") || toks[i].is_op(":=")).ok_or_else(|| SqlError::syntax(&sql[toks[s].start..]))?;
        let col = toks.get(eq.wrapping_sub(1)).and_then(|t| t.ident()).unwrap_or("");
        let c = info.cols.iter().position(|x| x.eq_ignore_ascii_case(col)).ok_or_else(|| SqlError::new(1054, "42S22", format!("Unknown column '{}' in 'field list'", col)))?;
        out.push((c, span(sql, toks, eq + 1, e)));
    }
    Ok(out)
}

fn max_rows(call: &Call<'_, '_>) -> usize {
    super::setting(call, "trigger_max_rows").max(1) as usize
}

/// Where INSERT's rows come from.
enum Source {
    /// Each row: one expression per listed column (None: DEFAULT).
    Values(Vec<Vec<Option<String>>>),
    Select(String),
}

fn insert(call: &mut Call<'_, '_>, st: &mut Stmt<'_>, sql: &str, toks: &[Token], mut i: usize, replace: bool) -> Result<Outcome, SqlError> {
    let syntax = |i: usize| SqlError::syntax(toks.get(i).map_or("", |t| &sql[t.start..]));
    if toks.get(i).is_some_and(|t| t.is_kw("PARTITION")) {
        return Err(SqlError::unsupported("INSERT ... PARTITION on a table with triggers"));
    }
    let mut cols: Vec<usize> = (0..st.info.cols.len()).collect();
    if toks.get(i).is_some_and(|t| t.is_op("(")) && !toks.get(i + 1).is_some_and(|t| t.is_kw("SELECT")) {
        let close = (i..toks.len()).find(|&k| toks[k].is_op(")")).ok_or_else(|| syntax(i))?;
        cols.clear();
        for k in (i + 1..close).filter(|k| !toks[*k].is_op(",")) {
            let name = toks[k].ident().ok_or_else(|| syntax(k))?;
            cols.push(st.info.cols.iter().position(|c| c.eq_ignore_ascii_case(name)).ok_or_else(|| SqlError::new(1054, "42S22", format!("Unknown column '{}' in 'field list'", name)))?);
        }
        i = close + 1;
    }
    let odku_at = (i..toks.len()).find(|&k| toks[k].is_kw("ON") && toks.get(k + 1).is_some_and(|t| t.is_kw("DUPLICATE"))).unwrap_or(toks.len());
    if toks[i..].iter().any(|t| t.is_kw("RETURNING")) {
        return Err(SqlError::unsupported("INSERT ... RETURNING on a table with triggers"));
    }
    let end = if odku_at < toks.len() { odku_at } else { find_top(toks, i, &[]) };
    let source = if toks.get(i).is_some_and(|t| t.is_kw("VALUES") || t.is_kw("VALUE")) {
        let mut rows = Vec::new();
        for (a, b) in split_commas(toks, i + 1, end) {
            if !(toks[a].is_op("(") && toks[b - 1].is_op(")")) {
                return Err(syntax(a));
            }
            let items = split_commas(toks, a + 1, b - 1);
            rows.push(items.into_iter().map(|(x, y)| if y == x + 1 && toks[x].is_kw("DEFAULT") { None } else { Some(span(sql, toks, x, y)) }).collect());
        }
        Source::Values(rows)
    } else if toks.get(i).is_some_and(|t| t.is_kw("SET")) {
        let sets = assignments(sql, toks, &st.info, i + 1, end)?;
        cols = sets.iter().map(|(c, _)| *c).collect();
        Source::Values(vec![sets.into_iter().map(|(_, e)| Some(e)).collect()])
    } else {
        Source::Select(span(sql, toks, i, end))
    };
    let odku = if odku_at < toks.len() { Some(assignments(sql, toks, &st.info, odku_at + 4, find_top(toks, odku_at + 4, &[]))?) } else { None };
    let rows = source_rows(call, source, cols.len())?;
    for (n, row) in rows.into_iter().enumerate() {
        if row.len() != cols.len() {
            return Err(SqlError::new(1136, "21S01", format!("Column count doesn't match value count at row {}", n + 1)));
        }
        insert_row(call, st, &cols, row, replace, odku.as_deref())?;
    }
    let info = if st.matched > 1 { format!("Records: {}  Duplicates: 0  Warnings: {}", st.matched, call.ctx.warning_count()) } else { String::new() };
    Ok(Outcome::Done(Done { affected_rows: st.affected, last_insert_id: st.generated.unwrap_or(0), generated_id: st.generated, info, ..Default::default() }))
}

/// The rows to insert: values (None: the column's default).
fn source_rows(call: &mut Call<'_, '_>, source: Source, width: usize) -> Result<Vec<Vec<Option<Value>>>, SqlError> {
    let limit = max_rows(call);
    match source {
        Source::Select(q) => Ok(capture(call, &q, &[], limit)?.into_iter().map(|r| r.into_iter().map(Some).collect()).collect()),
        Source::Values(rows) => {
            if rows.len() > limit {
                return Err(SqlError::new(1114, "HY000", format!("The statement reads more than {} rows of a table with triggers (trigger_max_rows)", limit)));
            }
            let mut out = Vec::with_capacity(rows.len());
            for (n, r) in rows.into_iter().enumerate() {
                if r.len() != width {
                    return Err(SqlError::new(1136, "21S01", format!("Column count doesn't match value count at row {}", n + 1)));
                }
                let exprs: Vec<&str> = r.iter().flatten().map(|s| s.as_str()).collect();
                let mut values = if exprs.is_empty() { Vec::new() } else { capture(call, &format!("SELECT {}", exprs.join(", ")), &[], 1)?.pop().unwrap_or_default() }.into_iter();
                out.push(r.iter().map(|e| e.as_ref().and_then(|_| values.next())).collect());
            }
            Ok(out)
        }
    }
}

/// A column's default as NEW holds it before the row is written.
fn default_of(call: &mut Call<'_, '_>, info: &TableInfo, c: usize) -> Result<Value, SqlError> {
    if info.auto == Some(c) {
        return Ok(Value::Int(0));
    }
    let d = &info.defaults[c];
    if d.is_null() {
        return Ok(Value::Null);
    }
    let t = text(d).to_ascii_lowercase();
    if t.starts_with("current_timestamp") || t.starts_with("now(") {
        return Ok(crate::expr::clock::now_value(false));
    }
    typed(call, d.clone(), &info.types[c].clone())
}

fn insert_row(call: &mut Call<'_, '_>, st: &mut Stmt<'_>, cols: &[usize], row: Vec<Option<Value>>, replace: bool, odku: Option<&[(usize, String)]>) -> Result<(), SqlError> {
    let n = st.info.cols.len();
    let mut new = Vec::with_capacity(n);
    for c in 0..n {
        new.push(default_of(call, &st.info, c)?);
    }
    let (mut given, mut raw) = (vec![false; n], vec![Value::Null; n]);
    for (&c, v) in cols.iter().zip(row) {
        if let Some(v) = v {
            let ty = st.info.types[c].clone();
            new[c] = typed(call, v.clone(), &ty)?;
            raw[c] = v;
            given[c] = true;
        }
    }
    let mut set = vec![false; n];
    let mut new = Some(new);
    fire(call, st, true, Event::Insert, &mut new, None, &mut set)?;
    let mut new = new.unwrap_or_default();
    if replace || odku.is_some() {
        let conflicts = conflicting(call, &st.info, &new, odku.is_some())?;
        if let (Some(assign), Some(old)) = (odku, conflicts.first()) {
            return duplicate_update(call, st, assign, old, &new);
        }
        for old in conflicts {
            delete_row(call, st, &old)?;
        }
    }
    let written: Vec<usize> = (0..n).filter(|&c| given[c] || set[c]).collect();
    let names: Vec<String> = written.iter().map(|&c| quote(&st.info.cols[c])).collect();
    let values: Vec<Value> = written.iter().map(|&c| if set[c] { new[c].clone() } else { raw[c].clone() }).collect();
    let marks = vec!["?"; values.len()].join(", ");
    let verb = if st.ignore { "INSERT IGNORE" } else { "INSERT" };
    let d = write(call, &format!("{} INTO {} ({}) VALUES ({})", verb, from(&st.info), names.join(", "), marks), &values)?;
    st.matched += 1;
    if d.affected_rows == 0 {
        return Ok(());
    }
    st.affected += d.affected_rows;
    if let Some(a) = st.info.auto.filter(|a| !given[*a] && !set[*a] || new[*a].as_i64() == Some(0) || new[*a].is_null()) {
        if let Some(id) = d.generated_id {
            new[a] = Value::Int(id as i64);
            st.generated.get_or_insert(id);
        }
    }
    fire(call, st, false, Event::Insert, &mut Some(new), None, &mut [])
}

/// The rows a new row conflicts with on a unique key (only the first when `first`).
fn conflicting(call: &mut Call<'_, '_>, info: &TableInfo, new: &[Value], first: bool) -> Result<Vec<Vec<Value>>, SqlError> {
    let mut out: Vec<Vec<Value>> = Vec::new();
    for key in &info.uniques {
        if key.iter().any(|&c| new[c].is_null()) {
            continue;
        }
        let cond: Vec<String> = key.iter().map(|&c| format!("{} = ?", quote(&info.cols[c]))).collect();
        let params: Vec<Value> = key.iter().map(|&c| new[c].clone()).collect();
        for r in capture(call, &format!("SELECT * FROM {} WHERE {}", from(info), cond.join(" AND ")), &params, 1000)? {
            if !out.contains(&r) {
                out.push(r);
            }
        }
        if first && !out.is_empty() {
            break;
        }
    }
    Ok(out)
}

/// ON DUPLICATE KEY UPDATE on the row `old` the new row collided with.
fn duplicate_update(call: &mut Call<'_, '_>, st: &mut Stmt<'_>, assign: &[(usize, String)], old: &[Value], inserted: &[Value]) -> Result<(), SqlError> {
    // VALUES(col) is the value the row would have inserted.
    let mut params = Vec::new();
    let mut exprs = Vec::new();
    for (_, e) in assign {
        let toks = lex::tokenize(e).map_err(|x| SqlError::syntax(&e[x.at..]))?;
        let (mut out, mut last, mut k) = (String::new(), 0, 0);
        while k < toks.len() {
            let t = &toks[k];
            let col = toks.get(k + 2).and_then(|c| c.ident()).and_then(|n| st.info.cols.iter().position(|x| x.eq_ignore_ascii_case(n)));
            let call_form = (t.is_kw("VALUES") || t.is_kw("VALUE")) && toks.get(k + 1).is_some_and(|p| p.is_op("(")) && toks.get(k + 3).is_some_and(|p| p.is_op(")"));
            if let Some(c) = col.filter(|_| call_form) {
                out.push_str(&e[last..t.start]);
                out.push('?');
                params.push(inserted[c].clone());
                last = toks[k + 3].end;
                k += 4;
                continue;
            }
            k += 1;
        }
        out.push_str(&e[last..]);
        exprs.push(out);
    }
    let (cond, ids) = identity(&st.info, old);
    params.extend(ids);
    let values = capture(call, &format!("SELECT {} FROM {}{} LIMIT 1", exprs.join(", "), from(&st.info), cond), &params, 1)?.pop().unwrap_or_default();
    let assigned: Vec<(usize, Value)> = assign.iter().map(|(c, _)| *c).zip(values).collect();
    let before = st.affected;
    update_row(call, st, old, assigned)?;
    // MySQL counts an updated duplicate twice.
    if st.affected > before {
        st.affected += 1;
    }
    Ok(())
}

fn update(call: &mut Call<'_, '_>, st: &mut Stmt<'_>, sql: &str, toks: &[Token], start: usize, set_at: usize) -> Result<Outcome, SqlError> {
    // The table as written with its alias: `t`, `d.t AS x`.
    let named = span(sql, toks, start, set_at);
    let rest_at = find_top(toks, set_at + 1, &["WHERE", "ORDER", "LIMIT"]);
    let assign = assignments(sql, toks, &st.info, set_at + 1, rest_at)?;
    let exprs: Vec<String> = assign.iter().map(|(_, e)| format!("({})", e)).collect();
    let rest = if rest_at < toks.len() { &sql[toks[rest_at].start..] } else { "" };
    let q = format!("SELECT *, {} FROM {} {}", exprs.join(", "), named, rest.trim_end().trim_end_matches(';'));
    let limit = max_rows(call);
    let rows = capture(call, &q, &[], limit)?;
    let n = st.info.cols.len();
    for r in rows {
        let (old, values) = r.split_at(n.min(r.len()));
        let assigned: Vec<(usize, Value)> = assign.iter().map(|(c, _)| *c).zip(values.iter().cloned()).collect();
        st.matched += 1;
        update_row(call, st, old, assigned)?;
    }
    let info = format!("Rows matched: {}  Changed: {}  Warnings: {}", st.matched, st.affected, call.ctx.warning_count());
    Ok(Outcome::Done(Done { affected_rows: st.affected, info, ..Default::default() }))
}

/// One row's UPDATE: `assigned` (column, value as the statement computed it).
fn update_row(call: &mut Call<'_, '_>, st: &mut Stmt<'_>, old: &[Value], assigned: Vec<(usize, Value)>) -> Result<(), SqlError> {
    let n = st.info.cols.len();
    let mut new = old.to_vec();
    let mut raw: Vec<Option<Value>> = vec![None; n];
    for (c, v) in assigned {
        let ty = st.info.types[c].clone();
        new[c] = typed(call, v.clone(), &ty)?;
        raw[c] = Some(v);
    }
    let mut set = vec![false; n];
    let mut new = Some(new);
    fire(call, st, true, Event::Update, &mut new, Some(old), &mut set)?;
    let new = new.unwrap_or_default();
    let written: Vec<usize> = (0..n).filter(|&c| raw[c].is_some() || set[c]).collect();
    if !written.is_empty() {
        let sets: Vec<String> = written.iter().map(|&c| format!("{} = ?", quote(&st.info.cols[c]))).collect();
        let mut params: Vec<Value> = written.iter().map(|&c| if set[c] { new[c].clone() } else { raw[c].clone().unwrap_or(Value::Null) }).collect();
        let (cond, ids) = identity(&st.info, old);
        params.extend(ids);
        let verb = if st.ignore { "UPDATE IGNORE" } else { "UPDATE" };
        let d = write(call, &format!("{} {} SET {}{} LIMIT 1", verb, from(&st.info), sets.join(", "), cond), &params)?;
        st.affected += d.affected_rows;
    }
    fire(call, st, false, Event::Update, &mut Some(new), Some(old), &mut [])
}

fn delete(call: &mut Call<'_, '_>, st: &mut Stmt<'_>, sql: &str, toks: &[Token], start: usize, after: usize) -> Result<Outcome, SqlError> {
    let rest_at = find_top(toks, after, &["WHERE", "ORDER", "LIMIT"]);
    let named = span(sql, toks, start, after);
    let rest = if rest_at < toks.len() { &sql[toks[rest_at].start..] } else { "" };
    let q = format!("SELECT * FROM {} {}", named, rest.trim_end().trim_end_matches(';'));
    let limit = max_rows(call);
    let rows = capture(call, &q, &[], limit)?;
    for r in rows {
        delete_row(call, st, &r)?;
    }
    Ok(Outcome::Done(Done { affected_rows: st.affected, ..Default::default() }))
}

fn delete_row(call: &mut Call<'_, '_>, st: &mut Stmt<'_>, old: &[Value]) -> Result<(), SqlError> {
    fire(call, st, true, Event::Delete, &mut None, Some(old), &mut [])?;
    let (cond, ids) = identity(&st.info, old);
    let verb = if st.ignore { "DELETE IGNORE" } else { "DELETE" };
    let d = write(call, &format!("{} FROM {}{} LIMIT 1", verb, from(&st.info), cond), &ids)?;
    st.affected += d.affected_rows;
    if d.affected_rows == 0 {
        return Ok(());
    }
    fire(call, st, false, Event::Delete, &mut None, Some(old), &mut [])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(kw: &str, sql: &str) -> Option<(Option<String>, String)> {
        target(kw, &lex::tokenize(sql).unwrap()).map(|(d, n, _, _)| (d, n))
    }

    #[test]
    fn single_table_targets() {
        assert_eq!(t("INSERT", "INSERT IGNORE INTO d.t VALUES (1)"), Some((Some("d".into()), "t".into())));
        assert_eq!(t("UPDATE", "UPDATE t AS x SET a = 1"), Some((None, "t".into())));
        assert_eq!(t("UPDATE", "UPDATE t x SET a = 1"), Some((None, "t".into())));
        assert_eq!(t("UPDATE", "UPDATE t1, t2 SET t1.a = 1"), None);
        assert_eq!(t("UPDATE", "UPDATE t1 JOIN t2 ON 1 SET t1.a = 1"), None);
        assert_eq!(t("DELETE", "DELETE FROM t WHERE a = 1"), Some((None, "t".into())));
        assert_eq!(t("DELETE", "DELETE t1 FROM t1, t2"), None);
        assert_eq!(t("DELETE", "DELETE FROM t1 USING t1, t2"), None);
        assert_eq!(t("DELETE", "DELETE FROM t1 AS x WHERE x.a = 1"), Some((None, "t1".into())));
    }
}
