//! Writes through a view: INSERT, REPLACE, UPDATE and DELETE naming a view,
//! as MariaDB's view merge does them.
//!
//! Views are SQLite views (views.rs), which SQLite will not write. A write
//! that SQLite refuses for that reason (ERR 1471/1288 from errors.rs) comes
//! here: when the view is updatable, the statement is written again over the
//! view's base table, in MySQL text, and run as any statement (so the insert
//! rewrite, strict mode, triggers, affected rows and the authorizer's
//! privilege checks are those of the base table):
//!
//! - `INSERT INTO v (c, ...)` becomes `INSERT INTO db.t (col, ...)`, the view's
//!   column names mapped to the base columns (all of them when the statement
//!   lists none); `SET c = ...` and `ON DUPLICATE KEY UPDATE` are mapped too;
//! - `UPDATE v [AS x] SET c = e WHERE w` becomes `UPDATE db.t AS x SET col = e'
//!   WHERE (w') AND (view's WHERE)`, a reference to a view column replaced by
//!   its base column or expression; a join view's UPDATE becomes a
//!   multi-table UPDATE over the view's FROM;
//! - `DELETE FROM v [AS x] WHERE w` likewise;
//! - a multi-table UPDATE/DELETE naming a view of one table has it replaced
//!   by `db.t AS <the view's name>` in its table list, `v.c` read as the
//!   base column and the view's WHERE added to the statement's.
//!
//! WITH [CASCADED|LOCAL] CHECK OPTION (of the view the statement names, as
//! MariaDB: LOCAL tests its WHERE, CASCADED the views' below too) is tested
//! before the write by a SELECT of the new values: the UPDATE's rows with
//! the assignments applied to the view's WHERE, the INSERT's VALUES rows
//! with the table's defaults for the other columns (1369; under IGNORE a
//! warning and the row left out). Not for INSERT ... SELECT, a statement
//! with parameters, ON DUPLICATE KEY UPDATE's updated row or a join view.
//!
//! A view whose base is a view is written through again, at most
//! `MAX_VIEW_DEPTH` times. Updatable, as MariaDB: one SELECT with a FROM of
//! tables or views only, no DISTINCT, aggregate, GROUP BY, HAVING, LIMIT,
//! UNION or TEMPTABLE. MariaDB's errors otherwise: 1471 (INSERT) and 1288
//! (UPDATE/DELETE) for a view that is not updatable, 1348 for a column that
//! is an expression, 1393 for a join view's columns of two tables, 1394 for
//! an INSERT into a join view without a column list, 1395 for DELETE from a
//! join view.
//!
//! Privileges: the session needs the statement's privilege on the view
//! itself (checked here), and then, as for reading a view (views.rs), on the
//! base table as any statement naming it: the rewritten statement goes
//! through the authorizer. That is stricter than MariaDB's SQL SECURITY
//! DEFINER, never looser (docs/compatibility.md).
//!
//! Also here: the names MariaDB gives a view's repeated generated column
//! names (`My_exp_k`), and whether a view is updatable (IS_UPDATABLE,
//! CHECK OPTION at CREATE: 1368).

use super::view_body::{chain, map_refs, parse_body, parse_from, text, BaseRef, Body, Source};
use super::views::MAX_VIEW_DEPTH;
use super::SqliteSession;
use crate::rewrite::Kind;
use crate::schema::quote_ident;
use turnstile_engine::{privs, ExecContext, Outcome, RowSink, SqlError, Value};
use turnstile_sqltext::lex::{self, Tok, Token};
use turnstile_sqltext::parens;

/// The statement's name for the view: what qualifies its columns.
struct Target {
    db: String,
    view: String,
    alias: Option<String>,
}

impl Target {
    fn qual(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.view)
    }
    fn full(&self) -> String {
        format!("{}.{}", self.db, self.view)
    }
    /// The view column `parts` names, when it names one of the view.
    fn names<'p>(&self, parts: &[&'p str]) -> Option<&'p str> {
        let n = parts.len();
        let qual_ok = match n {
            1 => true,
            2 => parts[0].eq_ignore_ascii_case(self.qual()),
            3 => parts[0].eq_ignore_ascii_case(&self.db) && parts[1].eq_ignore_ascii_case(self.qual()),
            _ => false,
        };
        qual_ok.then(|| parts[n - 1])
    }
}

/// A view column `name` of `body` written as a reference in a statement
/// over the base: single-table statements qualify by `q`, a join by the
/// FROM's names, an INSERT not at all.
#[derive(Clone, Copy)]
enum Render<'a> {
    Single(&'a str),
    Join,
    Bare,
}

fn render(body: &Body, src: &Source, how: Render<'_>, view_db: &str) -> Option<String> {
    match (src, how) {
        (Source::Column { column, .. }, Render::Single(q)) => Some(format!("{}.{}", quote_ident(q), quote_ident(column))),
        (Source::Column { table, column }, Render::Join) => Some(format!("{}.{}", quote_ident(body.tables[*table].qual()), quote_ident(column))),
        (Source::Column { column, .. }, Render::Bare) => Some(quote_ident(column)),
        (Source::Expr(Some(e)), Render::Single(q)) => Some(format!("({})", requalify(e, &body.tables[0], view_db, q))),
        (Source::Expr(Some(e)), Render::Join) => Some(format!("({})", e)),
        _ => None,
    }
}

/// The view's text `e` (its WHERE, an expression) with its base table's
/// qualifier replaced by `q`, the statement's name for the table.
fn requalify(e: &str, base: &BaseRef, view_db: &str, q: &str) -> String {
    let Ok(toks) = lex::tokenize(e) else { return e.to_string() };
    let qual_is = |p: &str| p.eq_ignore_ascii_case(base.qual());
    map_refs(e, &toks, 0..toks.len(), &|parts, _| {
        let ok = match parts.len() {
            2 => qual_is(parts[0]),
            3 => parts[0].eq_ignore_ascii_case(view_db) && qual_is(parts[1]),
            _ => false,
        };
        ok.then(|| format!("{}.{}", quote_ident(q), quote_ident(parts[parts.len() - 1])))
    })
}

/// A statement's text over `toks[range]` with view columns replaced.
fn map_view_refs(sql: &str, toks: &[Token], range: std::ops::Range<usize>, t: &Target, body: &Body, how: Render<'_>) -> String {
    map_refs(sql, toks, range, &|parts, in_sub| {
        if parts.len() == 1 && in_sub {
            return None;
        }
        let name = t.names(parts)?;
        render(body, body.col(name)?, how, &t.db)
    })
}

/// A statement over the base, and the CHECK OPTION test to run first.
#[derive(Debug)]
struct Written {
    sql: String,
    check: Option<Check>,
}

/// WITH CHECK OPTION, tested before the write (rows the view would not show
/// afterwards fail it: 1369, or a warning and the row left out with IGNORE).
#[derive(Debug)]
enum Check {
    /// `count` counts the rows the UPDATE would take out of the view;
    /// `filtered` is the UPDATE leaving them alone.
    Update { count: String, filtered: String, ignore: bool },
    /// `flags` gives, for each VALUES row in order, whether it stays in the
    /// view; `head` + rows + `tail` is the INSERT.
    Insert { flags: String, all: String, head: String, rows: Vec<String>, tail: String, ignore: bool },
}

fn err_check_option(t: &Target) -> SqlError {
    SqlError::new(1369, "44000", check_failed(t))
}

fn check_failed(t: &Target) -> String {
    format!("CHECK OPTION failed {}.{}", quote_ident(&t.db), quote_ident(&t.view))
}

fn err_not_insertable(view: &str) -> SqlError {
    SqlError::new(1471, "HY000", format!("The target table {} of the INSERT is not insertable-into", view))
}
fn err_not_updatable_col(col: &str) -> SqlError {
    SqlError::new(1348, "HY000", format!("Column '{}' is not updatable", col))
}
fn err_two_tables(t: &Target) -> SqlError {
    SqlError::new(1393, "HY000", format!("Can not modify more than one base table through a join view '{}'", t.full()))
}
fn err_unknown_col(col: &str) -> SqlError {
    SqlError::new(1054, "42S22", format!("Unknown column '{}' in 'field list'", col))
}

/// The view name at `toks[i..]` (`[db.]v [[AS] alias]` when `alias`),
/// and the token after it.
fn target_at(toks: &[Token], mut i: usize, home: &str, alias: bool, stop: &[&str]) -> Option<(Target, usize, usize)> {
    let start = i;
    let mut db = home.to_string();
    let mut view = toks.get(i)?.ident()?.to_string();
    i += 1;
    if toks.get(i).is_some_and(|t| t.is_op(".")) {
        db = view;
        view = toks.get(i + 1)?.ident()?.to_string();
        i += 2;
    }
    let _ = start;
    let name_end = i;
    let mut a = None;
    if alias {
        if toks.get(i).is_some_and(|t| t.is_kw("AS")) {
            a = Some(toks.get(i + 1)?.ident()?.to_string());
            i += 2;
        } else if let Some(t) = toks.get(i).filter(|t| t.ident().is_some() && !stop.iter().any(|k| t.is_kw(k))) {
            a = t.ident().map(str::to_string);
            i += 1;
        }
    }
    Some((Target { db, view, alias: a }, name_end, i))
}

/// The assignments `c = e, ...` in toks[range]: (column parts' start, `=`, end).
fn assignments(toks: &[Token], range: std::ops::Range<usize>) -> Option<Vec<(usize, usize, usize)>> {
    if range.start >= range.end || range.end > toks.len() {
        return None;
    }
    let mut out = Vec::new();
    let mut from = range.start;
    for part in parens::split_top_level(&toks[range.clone()], ",") {
        let eq = part.iter().position(|t| t.is_op("=") || t.is_op(":="))?;
        out.push((from, from + eq, from + part.len()));
        from += part.len() + 1;
    }
    Some(out)
}

/// The base column an assignment's left side names; one table for them all.
fn assigned_column<'b>(toks: &[Token], at: usize, eq: usize, t: &Target, body: &'b Body, table: &mut Option<usize>) -> Result<(usize, &'b str), SqlError> {
    let parts = chain(&toks[..eq], at);
    let shown = parts.join(".");
    let name = t.names(&parts).filter(|_| 2 * parts.len() - 1 == eq - at).ok_or_else(|| err_unknown_col(&shown))?;
    match body.col(name) {
        Some(Source::Column { table: k, column }) => {
            if table.is_some_and(|x| x != *k) {
                return Err(err_two_tables(t));
            }
            *table = Some(*k);
            Ok((*k, column.as_str()))
        }
        Some(Source::Expr(_)) => Err(err_not_updatable_col(name)),
        None => Err(err_unknown_col(&shown)),
    }
}

/// INSERT/REPLACE through the view, over its base table.
fn rewrite_insert(sql: &str, toks: &[Token], home: &str, check: bool, body_of: &dyn Fn(&Target) -> Result<Option<Body>, SqlError>) -> Result<Option<Written>, SqlError> {
    let mut i = 1;
    while toks.get(i).is_some_and(|t| ["LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "IGNORE"].iter().any(|k| t.is_kw(k))) {
        i += 1;
    }
    let ignore = toks[1..i].iter().any(|t| t.is_kw("IGNORE"));
    if toks.get(i).is_some_and(|t| t.is_kw("INTO")) {
        i += 1;
    }
    let name_start = i;
    let Some((t, _, after)) = target_at(toks, i, home, false, &[]) else { return Ok(None) };
    let Some(body) = body_of(&t)? else { return Err(err_not_insertable(&t.view)) };
    // A base column shown twice: which value would it take?
    let shown: Vec<(usize, String)> = body.cols.iter().filter_map(|(_, s)| if let Source::Column { table, column } = s { Some((*table, column.to_ascii_lowercase())) } else { None }).collect();
    if shown.iter().enumerate().any(|(k, c)| shown[..k].contains(c)) {
        return Err(err_not_insertable(&t.view));
    }
    let mut table = None;
    let odku = parens::find_top_level(toks, after, |k, x| x.is_kw("ON") && toks.get(k + 1).is_some_and(|n| n.is_kw("DUPLICATE"))).unwrap_or(toks.len());
    let mut rest_from = after;
    // The base columns written, and the one row of a SET form.
    let mut base_cols: Vec<String> = Vec::new();
    let mut set_row: Option<Vec<String>> = None;
    let cols_text;
    let listed = toks.get(after).is_some_and(|x| x.is_op("(")) && !toks.get(after + 1).is_some_and(|x| x.is_kw("SELECT") || x.is_kw("WITH") || x.is_op("("));
    if listed {
        let close = parens::closing(toks, after).ok_or_else(|| SqlError::syntax(text(sql, &toks[after..])))?;
        let mut at = after + 1;
        for part in parens::split_top_level(&toks[after + 1..close], ",") {
            let (_, col) = assigned_column(toks, at, at + part.len(), &t, &body, &mut table).map_err(|e| if e.code == 1348 { err_not_insertable(&t.view) } else { e })?;
            base_cols.push(col.to_string());
            at += part.len() + 1;
        }
        cols_text = format!("({})", base_cols.iter().map(|c| quote_ident(c)).collect::<Vec<_>>().join(","));
        rest_from = close + 1;
    } else if toks.get(after).is_some_and(|x| x.is_kw("SET")) {
        let Some(sets) = assignments(toks, after + 1..odku) else { return Err(SqlError::syntax(text(sql, &toks[after..]))) };
        let mut parts = Vec::new();
        let mut row = Vec::new();
        for (at, eq, end) in sets {
            let (_, col) = assigned_column(toks, at, eq, &t, &body, &mut table)?;
            let value = map_view_refs(sql, toks, eq + 1..end, &t, &body, Render::Bare);
            parts.push(format!("{} = {}", quote_ident(col), value));
            base_cols.push(col.to_string());
            row.push(value);
        }
        set_row = Some(row);
        cols_text = format!("SET {}", parts.join(", "));
        rest_from = odku;
    } else {
        if body.tables.len() > 1 {
            return Err(SqlError::new(1394, "HY000", format!("Can not insert into join view '{}' without fields list", t.full())));
        }
        for (_, src) in &body.cols {
            match src {
                Source::Column { column, .. } => base_cols.push(column.clone()),
                Source::Expr(_) => return Err(err_not_insertable(&t.view)),
            }
        }
        table = Some(0);
        cols_text = format!("({})", base_cols.iter().map(|c| quote_ident(c)).collect::<Vec<_>>().join(","));
    }
    let base = &body.tables[table.unwrap_or(0)].table;
    let head = format!("{} {}.{} {} ", text(sql, &toks[..name_start]), quote_ident(&t.db), quote_ident(base), cols_text);
    let tail = if odku < toks.len() { format!(" {}", map_view_refs(sql, toks, odku..toks.len(), &t, &body, Render::Bare)) } else { String::new() };
    let middle = if rest_from < odku { text(sql, &toks[rest_from..odku]) } else { "" };
    let sql_out = format!("{}{}{}", head, middle, tail);
    let check = match (check, body.cond.as_ref()) {
        (true, Some(cond)) if body.tables.len() == 1 => insert_check(sql, toks, rest_from..odku, set_row, &base_cols, &body, cond, &t, (sql_out.clone(), head, tail), ignore),
        _ => None,
    };
    Ok(Some(Written { sql: sql_out, check }))
}

/// The CHECK OPTION test of an INSERT's VALUES rows (or its SET row): each
/// row, with the base table's defaults for the columns it does not write,
/// tested against the view's WHERE. None for INSERT ... SELECT.
#[allow(clippy::too_many_arguments)]
fn insert_check(
    sql: &str,
    toks: &[Token],
    values: std::ops::Range<usize>,
    set_row: Option<Vec<String>>,
    cols: &[String],
    body: &Body,
    cond: &str,
    t: &Target,
    (all, head, tail): (String, String, String),
    ignore: bool,
) -> Option<Check> {
    let rows: Vec<Vec<String>> = match set_row {
        Some(r) => vec![r],
        None => {
            let v = toks.get(values.start)?;
            if !(v.is_kw("VALUES") || v.is_kw("VALUE")) {
                return None;
            }
            let mut rows = Vec::new();
            for group in parens::split_top_level(&toks[values.start + 1..values.end], ",") {
                if !(group.first()?.is_op("(") && group.last()?.is_op(")")) {
                    return None;
                }
                rows.push(parens::split_top_level(&group[1..group.len() - 1], ",").into_iter().map(|v| text(sql, v).to_string()).collect());
            }
            rows
        }
    };
    let default_of = |c: &str| body.defaults.iter().find(|(n, _)| n.eq_ignore_ascii_case(c)).map_or("NULL".to_string(), |(_, d)| d.clone());
    let mut selects = Vec::new();
    for row in &rows {
        if row.len() != cols.len() {
            return None;
        }
        let mut items: Vec<String> = cols.iter().zip(row).map(|(c, v)| format!("{} AS {}", if v.eq_ignore_ascii_case("DEFAULT") { default_of(c) } else { v.clone() }, quote_ident(c))).collect();
        for (c, d) in body.defaults.iter().filter(|(c, _)| !cols.iter().any(|x| x.eq_ignore_ascii_case(c))) {
            items.push(format!("{} AS {}", d, quote_ident(c)));
        }
        selects.push(format!("SELECT {}", items.join(", ")));
    }
    let guard = requalify(cond, &body.tables[0], &t.db, "ts_new");
    let flags = format!("SELECT coalesce(({}), 0) <> 0 FROM ({}) AS `ts_new`", guard, selects.join(" UNION ALL "));
    let rows = rows.iter().map(|r| format!("({})", r.join(", "))).collect();
    Some(Check::Insert { flags, all, head: format!("{}VALUES ", head), rows, tail, ignore })
}

/// The WHERE of a statement over the base: the statement's own and the view's.
fn both_conditions(mine: Option<String>, view: Option<String>) -> String {
    match (mine, view) {
        (Some(a), Some(b)) => format!(" WHERE ({}) AND ({})", a, b),
        (Some(a), None) | (None, Some(a)) => format!(" WHERE {}", a),
        (None, None) => String::new(),
    }
}

/// UPDATE/DELETE of one view (its WHERE, ORDER BY and LIMIT kept).
fn rewrite_update_delete(sql: &str, toks: &[Token], home: &str, update: bool, check: bool, body_of: &dyn Fn(&Target) -> Result<Option<Body>, SqlError>) -> Result<Option<Written>, SqlError> {
    let mut i = 1;
    while toks.get(i).is_some_and(|t| ["LOW_PRIORITY", "QUICK", "IGNORE"].iter().any(|k| t.is_kw(k))) {
        i += 1;
    }
    let mods = text(sql, &toks[1..i]).to_string();
    let ignore = toks[1..i].iter().any(|t| t.is_kw("IGNORE"));
    if !update && !toks.get(i).is_some_and(|t| t.is_kw("FROM")) {
        return rewrite_multi(sql, toks, home, update, body_of);
    }
    let name_at = if update { i } else { i + 1 };
    let stop = ["SET", "WHERE", "ORDER", "LIMIT"];
    let Some((t, _, after)) = target_at(toks, name_at, home, true, &stop) else { return Ok(None) };
    let verb = if update { "UPDATE" } else { "DELETE" };
    if !toks.get(after).is_none_or(|x| stop.iter().any(|k| x.is_kw(k)) || x.is_op(";")) {
        return rewrite_multi(sql, toks, home, update, body_of);
    }
    let Some(body) = body_of(&t)? else {
        return Err(SqlError::new(1288, "HY000", format!("The target table {} of the {} is not updatable", t.view, verb)));
    };
    let join = body.tables.len() > 1;
    if join && !update {
        return Err(SqlError::new(1395, "HY000", format!("Can not delete from join view '{}'", t.full())));
    }
    let find = |from: usize, kw: &str| parens::find_top_level(toks, from, |_, x| x.is_kw(kw));
    let where_at = find(after, "WHERE");
    let order_at = find(after, "ORDER");
    let limit_at = find(after, "LIMIT");
    let tail = order_at.or(limit_at).unwrap_or(toks.len());
    let where_end = tail;
    let how = if join { Render::Join } else { Render::Single(t.qual()) };
    let q = t.qual().to_string();
    let view_cond = body.cond.as_ref().map(|c| if join { c.clone() } else { requalify(c, &body.tables[0], &t.db, &q) });
    let mine = where_at.map(|w| map_view_refs(sql, toks, w + 1..where_end, &t, &body, how));
    let mut out = format!("{}{}{} ", verb, if mods.is_empty() { "" } else { " " }, mods);
    if !update {
        out.push_str("FROM ");
    }
    if join {
        if tail < toks.len() {
            return Ok(None);
        }
        out.push_str(&body.from);
    } else {
        out.push_str(&format!("{}.{} AS {}", quote_ident(&t.db), quote_ident(&body.tables[0].table), quote_ident(&q)));
    }
    let mut assigned: Vec<(String, String)> = Vec::new();
    if update {
        if !toks.get(after).is_some_and(|x| x.is_kw("SET")) {
            return Ok(None);
        }
        let set_end = where_at.unwrap_or(tail);
        let Some(sets) = assignments(toks, after + 1..set_end) else { return Ok(None) };
        let mut table = None;
        let mut parts = Vec::new();
        for (at, eq, end) in sets {
            let (k, col) = assigned_column(toks, at, eq, &t, &body, &mut table)?;
            let lhs = if join { format!("{}.{}", quote_ident(body.tables[k].qual()), quote_ident(col)) } else { quote_ident(col) };
            let rhs = map_view_refs(sql, toks, eq + 1..end, &t, &body, how);
            parts.push(format!("{} = {}", lhs, rhs));
            assigned.push((col.to_string(), rhs));
        }
        out.push_str(" SET ");
        out.push_str(&parts.join(", "));
    }
    let conditions = both_conditions(mine, view_cond.clone());
    let order_limit = if tail < toks.len() { format!(" {}", map_view_refs(sql, toks, tail..toks.len(), &t, &body, how)) } else { String::new() };
    let written = format!("{}{}{}", out, conditions, order_limit);
    let check = match view_cond {
        Some(cond) if check && update && !join => {
            let guard = new_row_test(&cond, &q, &assigned);
            let base = format!("{}.{} AS {}", quote_ident(&t.db), quote_ident(&body.tables[0].table), quote_ident(&q));
            let count = format!("SELECT count(*) FROM (SELECT ({}) AS `ts_ok` FROM {}{}{}) AS `ts_rows` WHERE NOT coalesce(`ts_ok`, 0)", guard, base, conditions, order_limit);
            let filtered = format!("{}{} AND coalesce(({}), 0){}", out, conditions, guard, order_limit);
            Some(Check::Update { count, filtered, ignore })
        }
        _ => None,
    };
    Ok(Some(Written { sql: written, check }))
}

/// A multi-table UPDATE/DELETE naming views of one table: each such view
/// in the table list becomes `db.base AS <its name>`, its columns named
/// through that name (`v.c`) read as the base's, and its WHERE joins the
/// statement's. Join views stay (1288 for UPDATE, 1395 for DELETE).
fn rewrite_multi(sql: &str, toks: &[Token], home: &str, update: bool, body_of: &dyn Fn(&Target) -> Result<Option<Body>, SqlError>) -> Result<Option<Written>, SqlError> {
    let find = |from: usize, kw: &str| parens::find_top_level(toks, from, |_, x| x.is_kw(kw));
    // The table list: UPDATE <list> SET; DELETE ... FROM <list> [WHERE];
    // DELETE FROM targets USING <list> [WHERE].
    let (list_at, list_end) = if update {
        let set = find(1, "SET").unwrap_or(toks.len());
        let first = (1..set).find(|&k| !["LOW_PRIORITY", "IGNORE"].iter().any(|w| toks[k].is_kw(w))).unwrap_or(set);
        (first, set)
    } else {
        let from = find(1, "FROM").unwrap_or(toks.len());
        let using = find(from, "USING");
        let at = using.unwrap_or(from) + 1;
        (at, find(at, "WHERE").unwrap_or(toks.len()))
    };
    if list_at >= list_end || (update && list_end >= toks.len()) {
        return Ok(None);
    }
    let Some(refs) = parse_from(&toks[list_at..list_end]) else { return Ok(None) };
    let mut pieces: Vec<(usize, usize, String)> = Vec::new();
    let mut views: Vec<(Target, Body)> = Vec::new();
    for r in &refs {
        let t = Target { db: r.db.clone().unwrap_or_else(|| home.to_string()), view: r.table.clone(), alias: r.alias.clone() };
        let body = match body_of(&t) {
            Ok(Some(body)) => body,
            // A table, or a view this cannot write through.
            Ok(None) => continue,
            Err(e) if e.code == 1146 => continue,
            Err(e) => return Err(e),
        };
        if body.tables.len() > 1 {
            if !update {
                return Err(SqlError::new(1395, "HY000", format!("Can not delete from join view '{}'", t.full())));
            }
            continue;
        }
        let q = t.qual().to_string();
        pieces.push((list_at + r.span.0, list_at + r.span.1, format!("{}.{} AS {}", quote_ident(&t.db), quote_ident(&body.tables[0].table), quote_ident(&q))));
        views.push((t, body));
    }
    if views.is_empty() {
        return Ok(None);
    }
    let pick = |parts: &[&str], _in_sub: bool| -> Option<String> {
        if parts.len() < 2 {
            return None;
        }
        let (t, body) = views.iter().find(|(t, _)| t.names(parts).is_some())?;
        render(body, body.col(parts[parts.len() - 1])?, Render::Single(t.qual()), &t.db)
    };
    let where_at = find(list_end, "WHERE");
    let mut out = String::new();
    let mut last = toks[0].start;
    // The table list, views replaced.
    for (s0, e0, text_) in &pieces {
        out.push_str(&sql[last..toks[*s0].start]);
        out.push_str(text_);
        last = toks[*e0 - 1].end;
    }
    let rest_end = where_at.unwrap_or(toks.len());
    if update {
        // SET: a view's column on the left is its base column (1348 for an expression).
        let Some(sets) = assignments(toks, list_end + 1..rest_end) else { return Ok(None) };
        out.push_str(&sql[last..toks[list_end].end]);
        let mut parts = Vec::new();
        for (at, eq, end) in sets {
            let lhs_parts = chain(&toks[..eq], at);
            let lhs = match views.iter().find(|(t, _)| lhs_parts.len() >= 2 && t.names(&lhs_parts).is_some()) {
                Some((t, body)) => match body.col(lhs_parts[lhs_parts.len() - 1]) {
                    Some(Source::Column { column, .. }) => format!("{}.{}", quote_ident(t.qual()), quote_ident(column)),
                    Some(Source::Expr(_)) => return Err(err_not_updatable_col(lhs_parts[lhs_parts.len() - 1])),
                    None => text(sql, &toks[at..eq]).to_string(),
                },
                None => text(sql, &toks[at..eq]).to_string(),
            };
            parts.push(format!("{} = {}", lhs, map_refs(sql, toks, eq + 1..end, &pick)));
        }
        out.push(' ');
        out.push_str(&parts.join(", "));
    } else {
        out.push_str(&sql[last..toks[list_end - 1].end]);
    }
    let mine = where_at.map(|w| map_refs(sql, toks, w + 1..toks.len(), &pick));
    let conds: Vec<String> = views.iter().filter_map(|(t, b)| b.cond.as_ref().map(|c| requalify(c, &b.tables[0], &t.db, t.qual()))).collect();
    let all: Vec<String> = mine.into_iter().chain(conds).map(|c| format!("({})", c)).collect();
    if !all.is_empty() {
        out.push_str(" WHERE ");
        out.push_str(&all.join(" AND "));
    }
    Ok(Some(Written { sql: out, check: None }))
}

/// The view's condition `cond` (qualified by `q`) as the row will be after
/// the assignments: each assigned column read as its new value.
fn new_row_test(cond: &str, q: &str, assigned: &[(String, String)]) -> String {
    let Ok(toks) = lex::tokenize(cond) else { return cond.to_string() };
    map_refs(cond, &toks, 0..toks.len(), &|parts, in_sub| {
        let col = match parts {
            [c] if !in_sub => c,
            [qual, c] if qual.eq_ignore_ascii_case(q) => c,
            _ => return None,
        };
        assigned.iter().find(|(a, _)| a.eq_ignore_ascii_case(col)).map(|(_, v)| format!("({})", v))
    })
}

/// Is a view with this SELECT updatable (CREATE VIEW ... WITH CHECK OPTION
/// needs one: 1368)?
pub(crate) fn updatable(select: &str, names: &[String], columns_of: &dyn Fn(&str) -> Option<Vec<String>>) -> bool {
    parse_body(select, names, columns_of).is_some()
}

/// For each item of a view's select list, whether its name is the
/// client's (an alias, or a column's own name); None when the list has a
/// `*` or cannot be read.
pub(super) fn explicit_names(select: &str) -> Option<Vec<bool>> {
    let toks = lex::tokenize(select).ok()?;
    // `(SELECT ...) UNION ...`: the first member's list.
    let open = toks.iter().take_while(|t| t.is_op("(")).count();
    if !toks.get(open)?.is_kw("SELECT") {
        return None;
    }
    let mut i = open + 1;
    while toks.get(i).is_some_and(|t| {
        t.is_kw("ALL")
            || t.is_kw("DISTINCT")
            || t.is_kw("DISTINCTROW")
            || t.is_kw("STRAIGHT_JOIN")
            || t.is_kw("HIGH_PRIORITY")
            || matches!(&t.tok, Tok::Word(w) if w.len() > 4 && w[..4].eq_ignore_ascii_case("SQL_"))
    }) {
        i += 1;
    }
    // The list ends at its first clause, or at the `)` closing a member.
    let mut depth = 0usize;
    let close = toks.iter().enumerate().skip(i).find_map(|(k, t)| {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            if depth == 0 {
                return Some(k);
            }
            depth -= 1;
        }
        None
    });
    let toks = &toks[..close.unwrap_or(toks.len())];
    let end = parens::find_top_level(toks, i, |_, t| {
        t.is_op(";") || ["FROM", "INTO", "UNION", "INTERSECT", "EXCEPT", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "WINDOW", "FOR", "LOCK"].iter().any(|k| t.is_kw(k))
    })
    .unwrap_or(toks.len());
    let mut out = Vec::new();
    for item in parens::split_top_level(&toks[i..end], ",") {
        let n = item.len();
        if n == 0 || (item[n - 1].is_op("*") && (n == 1 || item[n - 2].is_op("."))) {
            return None;
        }
        let aliased = n >= 2 && item[n - 1].ident().is_some() && (item[n - 2].is_kw("AS") || !matches!(item[n - 2].tok, Tok::Op(_)) || item[n - 2].is_op(")")) && !item[n - 1].is_kw("END");
        let aliased = aliased || (n >= 2 && matches!(item[n - 1].tok, Tok::Str(_)) && item[n - 2].is_kw("AS"));
        let column = chain(item, 0).len() * 2 == n + 1;
        out.push(aliased || column);
    }
    Some(out)
}

/// MariaDB's names for a view's columns whose names repeat: a generated
/// name (not the client's) that another column has becomes `My_exp_<name>`
/// (`My_exp_<n>_<name>` while that is taken too); two names the client
/// gave are 1060, as before.
pub(super) fn unique_names(names: &mut [String], explicit: &[bool]) {
    for i in 0..names.len() {
        for j in 0..i {
            if !names[i].eq_ignore_ascii_case(&names[j]) {
                continue;
            }
            let target = if !explicit[i] {
                i
            } else if !explicit[j] {
                j
            } else {
                continue;
            };
            let base = names[target].clone();
            for attempt in 0usize.. {
                let cand = if attempt == 0 { format!("My_exp_{}", base) } else { format!("My_exp_{}_{}", attempt, base) };
                if !names[..i].iter().any(|n| n.eq_ignore_ascii_case(&cand)) {
                    names[target] = cand;
                    break;
                }
            }
        }
    }
}

impl SqliteSession {
    /// A write SQLite refused because it names a view (`refused`, 1471 or
    /// 1288): written again over the view's base table and run, when the
    /// view is updatable.
    pub(super) fn write_through_view(&mut self, ctx: &ExecContext<'_>, sql: &str, params: &[Value], sink: &mut dyn RowSink, kind: Kind, refused: SqlError) -> Result<Outcome, SqlError> {
        let mut sql = sql.to_string();
        let mut refused = refused;
        // The view the statement names: its CHECK OPTION decides what is
        // tested (LOCAL: its own WHERE; CASCADED: the views' below it too;
        // the views below have no say), and a failure names it.
        let mut top: Option<(String, Target)> = None;
        for _ in 0..MAX_VIEW_DEPTH {
            let Some((written, t, option)) = self.view_rewrite(ctx, &sql, kind, params.is_empty(), top.as_ref().map(|(o, _)| o.as_str()))? else { return Err(refused) };
            let (_, named) = top.get_or_insert((option, t));
            let tested = written.check.is_some().then(|| Target { db: named.db.clone(), view: named.view.clone(), alias: None });
            let next = match (written.check, tested) {
                (Some(check), Some(t)) => match self.run_check(ctx, check, &t)? {
                    Ok(next) => next,
                    Err(done) => return Ok(done),
                },
                _ => written.sql,
            };
            let mark = ctx.warnings().map_or(0, |w| w.kept_len());
            // A column left without a value is the view's field (1423), as MariaDB names it.
            let no_default = |t: &Target| format!("Field of view '{}.{}' underlying table doesn't have a default value", t.db, t.view);
            match self.dml_retrying(ctx, &next, params, sink, kind) {
                Err(e) if e.code == 1471 || e.code == 1288 => {
                    refused = e;
                    sql = next;
                }
                Err(e) if e.code == 1364 => {
                    return Err(match top.as_ref() {
                        Some((_, t)) => SqlError::new(1423, "HY000", no_default(t)),
                        None => e,
                    })
                }
                r => {
                    if let (Some(w), Some((_, t))) = (ctx.warnings(), top.as_ref()) {
                        w.recode_since(mark, 1364, 1423, &no_default(t));
                    }
                    return r;
                }
            }
        }
        Err(SqlError::new(1473, "HY000", "Too high level of nesting for select"))
    }

    /// Run a CHECK OPTION test: the statement to run (rows that fail left
    /// out under IGNORE, each with warning 1369), or, when none is left,
    /// the statement's result.
    fn run_check(&mut self, ctx: &ExecContext<'_>, check: Check, t: &Target) -> Result<Result<String, Outcome>, SqlError> {
        match check {
            Check::Update { count, filtered, ignore } => {
                let rows = self.query_rows(ctx, &count)?;
                let failing = rows.first().and_then(|r| r.first()).and_then(value_u64).unwrap_or(0);
                if failing == 0 {
                    // The same statement, with the test in: nothing is left out.
                    return Ok(Ok(filtered));
                }
                if !ignore {
                    return Err(err_check_option(t));
                }
                for _ in 0..failing {
                    ctx.warn(1369, check_failed(t));
                }
                Ok(Ok(filtered))
            }
            Check::Insert { flags, all, head, rows, tail, ignore } => {
                let ok: Vec<bool> = self.query_rows(ctx, &flags)?.iter().map(|r| r.first().and_then(value_u64).unwrap_or(0) != 0).collect();
                if ok.len() != rows.len() || ok.iter().all(|k| *k) {
                    return Ok(Ok(all));
                }
                // One row fails even under IGNORE (MariaDB).
                if !ignore || rows.len() == 1 {
                    return Err(err_check_option(t));
                }
                for _ in ok.iter().filter(|k| !**k) {
                    ctx.warn(1369, check_failed(t));
                }
                let kept: Vec<String> = rows.into_iter().zip(&ok).filter(|(_, k)| **k).map(|(r, _)| r).collect();
                if kept.is_empty() {
                    return Ok(Err(Outcome::Done(turnstile_engine::Done::default())));
                }
                Ok(Ok(format!("{}{}{}", head, kept.join(", "), tail)))
            }
        }
    }

    /// The rows of an engine-written SELECT.
    fn query_rows(&mut self, ctx: &ExecContext<'_>, sql: &str) -> Result<Vec<Vec<Value>>, SqlError> {
        struct Rows(Vec<Vec<Value>>);
        impl RowSink for Rows {
            fn columns(&mut self, _: &[turnstile_engine::Column]) -> Result<(), SqlError> {
                Ok(())
            }
            fn row(&mut self, r: &[Value]) -> Result<(), SqlError> {
                self.0.push(r.to_vec());
                Ok(())
            }
        }
        let mut rows = Rows(Vec::new());
        self.dml_retrying(ctx, sql, &[], &mut rows, Kind::Select)?;
        Ok(rows.0)
    }

    /// The statement over the base table, None when it does not name a view
    /// this can write through. `checkable`: the statement has no parameters
    /// (a CHECK OPTION test is written with its values in).
    /// `above`: the CHECK OPTION of the view the statement names, when this
    /// is a view below it. Returns the statement, the view, its CHECK OPTION.
    fn view_rewrite(&mut self, ctx: &ExecContext<'_>, sql: &str, kind: Kind, checkable: bool, above: Option<&str>) -> Result<Option<(Written, Target, String)>, SqlError> {
        let Some(home) = self.db.clone() else { return Ok(None) };
        let Ok(toks) = lex::tokenize(sql) else { return Ok(None) };
        let need = match kind {
            // REPLACE deletes; ON DUPLICATE KEY UPDATE updates.
            Kind::Insert => {
                let replace = toks.first().is_some_and(|t| t.is_kw("REPLACE"));
                let odku = toks.windows(2).any(|w| w[0].is_kw("DUPLICATE") && w[1].is_kw("KEY"));
                privs::INSERT | if replace { privs::DELETE } else { 0 } | if odku { privs::UPDATE } else { 0 }
            }
            Kind::Update => privs::UPDATE,
            Kind::Delete => privs::DELETE,
            Kind::Select => return Ok(None),
        };
        // The databases the statement names, attached (SQLite may have
        // refused it before reaching them) so that their views are seen.
        for w in toks.windows(3).filter(|w| w[1].is_op(".")) {
            if let Some(d) = w[0].ident().filter(|d| !d.eq_ignore_ascii_case(&home) && self.inner.db(d).is_ok()) {
                let _ = self.target(&(Some(d.to_string()), String::new()), false);
            }
        }
        let conn = match self.conn.as_ref() {
            Some(c) => c,
            None => return Ok(None),
        };
        let option = std::cell::RefCell::new(String::new());
        let named = std::cell::RefCell::new(None);
        let body_of = |t: &Target| -> Result<Option<Body>, SqlError> {
            let schema = if t.db == home { "main".to_string() } else { t.db.clone() };
            let missing = || SqlError::new(1146, "42S02", format!("Table '{}' doesn't exist", t.full()));
            let def = conn.table_def(&schema, &t.view).ok_or_else(missing)?;
            let v = def.view.as_ref().ok_or_else(missing)?;
            ctx.access.check_table(&t.db, &t.view, need)?;
            *option.borrow_mut() = v.check_option.clone();
            *named.borrow_mut() = Some(Target { db: t.db.clone(), view: t.view.clone(), alias: None });
            // A view over information_schema (view_expand.rs) writes nothing.
            if v.algorithm.eq_ignore_ascii_case("TEMPTABLE") || v.expand.is_some() {
                return Ok(None);
            }
            let names: Vec<String> = def.columns.iter().map(|c| c.name.clone()).collect();
            let columns_of = |table: &str| conn.table_def(&schema, table).map(|d| d.columns.iter().map(|c| c.name.clone()).collect());
            let Some(mut body) = parse_body(&v.select, &names, &columns_of) else { return Ok(None) };
            if body.stale {
                return Err(SqlError::new(1356, "HY000", format!("View '{}' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them", t.full())));
            }
            // A join view's FROM names its tables as the view's database has them.
            if body.tables.len() > 1 && t.db != home {
                return Ok(None);
            }
            if let Some(base) = conn.table_def(&schema, &body.tables[0].table) {
                body.defaults = base.columns.iter().map(|c| (c.name.clone(), default_sql(c))).collect();
            }
            Ok(Some(body))
        };
        // Tested when the view asks, or a CASCADED view above it does.
        let wants = |opt: &str| checkable && above.map_or(opt != "NONE", |a| a == "CASCADED");
        let written = match kind {
            Kind::Insert => rewrite_insert(sql, &toks, &home, checkable, &body_of)?,
            _ => rewrite_update_delete(sql, &toks, &home, kind == Kind::Update, checkable, &body_of)?,
        };
        let opt = option.into_inner();
        let Some(mut written) = written else { return Ok(None) };
        if !wants(&opt) {
            written.check = None;
        }
        let t = named.into_inner().expect("a view was read");
        Ok(Some((written, t, opt)))
    }
}

/// A column's default as SQL text (NULL when it has none written).
fn default_sql(c: &crate::schema::ColumnDef) -> String {
    use crate::schema::{quote_str, Default_};
    match &c.default {
        Some(Default_::Literal(l)) => quote_str(l),
        Some(Default_::CurrentTimestamp) => "CURRENT_TIMESTAMP".to_string(),
        Some(Default_::Expr(e)) => format!("({})", e),
        Some(Default_::Null) | None => "NULL".to_string(),
    }
}

fn value_u64(v: &Value) -> Option<u64> {
    match v {
        Value::Int(i) => u64::try_from(*i).ok(),
        Value::UInt(u) => Some(*u),
        Value::Bytes(b) => std::str::from_utf8(b).ok()?.trim().parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(t: &str) -> Option<Vec<String>> {
        match t {
            "t1" => Some(vec!["a".into(), "b".into()]),
            "t2" => Some(vec!["x".into(), "y".into()]),
            _ => None,
        }
    }

    fn body(select: &str, names: &[&str]) -> Option<Body> {
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        parse_body(select, &names, &cols)
    }

    fn rw(sql: &str, select: &str, names: &[&str]) -> Result<Option<String>, SqlError> {
        let toks = lex::tokenize(sql).unwrap();
        let of = |t: &Target| Ok(if t.view == "v" { body(select, names) } else { None });
        if turnstile_sqltext::scan::first_word(sql).eq_ignore_ascii_case("INSERT") {
            rewrite_insert(sql, &toks, "d", false, &of).map(|w| w.map(|w| w.sql))
        } else {
            rewrite_update_delete(sql, &toks, "d", sql.to_ascii_uppercase().starts_with("UPDATE"), false, &of).map(|w| w.map(|w| w.sql))
        }
    }

    #[test]
    fn updatable_or_not() {
        assert!(body("select a, b from t1", &["a", "b"]).is_some());
        assert!(body("select distinct a from t1", &["a"]).is_none());
        assert!(body("select a from t1 limit 1", &["a"]).is_none());
        assert!(body("select count(*) from t1", &["c"]).is_none());
        assert!(body("select a from t1 group by a", &["a"]).is_none());
        assert!(body("select a from t1 union select x from t2", &["a"]).is_none());
        assert!(body("select a from (select a from t1) d", &["a"]).is_none());
        assert!(body("select 1", &["1"]).is_none());
        assert!(body("select a from t1 where 20 < (select a from t1)", &["a"]).is_none());
        assert!(body("select a from t1 where a in (select x from t2)", &["a"]).is_some());
        let b = body("select t.a as k, b+1 c, x from t1 t join t2 on a = x where a > 0 order by a", &["k", "c", "x"]).unwrap();
        assert_eq!(b.cols[0].1, Source::Column { table: 0, column: "a".into() });
        assert_eq!(b.cols[1].1, Source::Expr(None));
        assert_eq!(b.cols[2].1, Source::Column { table: 1, column: "x".into() });
        assert_eq!(b.cond.as_deref(), Some("a > 0"));
        assert_eq!(body("select * from t1", &["a", "b"]).unwrap().cols.len(), 2);
    }

    #[test]
    fn statements_over_the_base() {
        let v = "select b as k, a from t1 where a < 10";
        assert_eq!(rw("insert into v values (1, 2)", v, &["k", "a"]).unwrap().unwrap(), "insert into `d`.`t1` (`b`,`a`) values (1, 2)");
        assert_eq!(rw("insert into v (k) values (?)", v, &["k", "a"]).unwrap().unwrap(), "insert into `d`.`t1` (`b`) values (?)");
        assert_eq!(rw("insert into v set k = k + 1", v, &["k", "a"]).unwrap().unwrap(), "insert into `d`.`t1` SET `b` = `b` + 1 ");
        assert_eq!(
            rw("update v set k = k + 1 where a > 2 order by k limit 1", v, &["k", "a"]).unwrap().unwrap(),
            "UPDATE `d`.`t1` AS `v` SET `b` = `v`.`b` + 1 WHERE (`v`.`a` > 2) AND (a < 10) order by `v`.`b` limit 1"
        );
        assert_eq!(rw("delete from v where v.k = 3", "select b as k from t1 tt where tt.a < 1", &["k"]).unwrap().unwrap(), "DELETE FROM `d`.`t1` AS `v` WHERE (`v`.`b` = 3) AND (`v`.`a` < 1)");
        assert_eq!(rw("update v set c = 1", "select a, b + 1 as c from t1", &["a", "c"]).unwrap_err().code, 1348);
        assert_eq!(rw("insert into v values (1, 2)", "select a, b + 1 as c from t1", &["a", "c"]).unwrap_err().code, 1471);
        assert_eq!(rw("delete from v", "select a, x from t1 join t2 on a = x", &["a", "x"]).unwrap_err().code, 1395);
        assert_eq!(rw("update v set a = 1, x = 2", "select a, x from t1 join t2 on a = x", &["a", "x"]).unwrap_err().code, 1393);
        assert_eq!(rw("insert into v values (1, 2)", "select a, x from t1 join t2 on a = x", &["a", "x"]).unwrap_err().code, 1394);
        assert_eq!(rw("update v set a = 1", "select a, x from t1 join t2 on a = x", &["a", "x"]).unwrap().unwrap(), "UPDATE t1 join t2 on a = x SET `t1`.`a` = 1");
        assert_eq!(rw("update v set a = 1", "select distinct a from t1", &["a"]).unwrap_err().code, 1288);
        assert_eq!(
            rw("update t2, v set v.k = v.k + 1 where t2.x = v.k", "select a as k from t1 where a > 0", &["k"]).unwrap().unwrap(),
            "update t2, `d`.`t1` AS `v` set `v`.`a` = `v`.`a` + 1 WHERE (t2.x = `v`.`a`) AND (a > 0)"
        );
        assert_eq!(rw("delete v from t2, v where t2.x = v.k", "select a as k from t1", &["k"]).unwrap().unwrap(), "delete v from t2, `d`.`t1` AS `v` WHERE (t2.x = `v`.`a`)");
    }

    #[test]
    fn repeated_generated_names() {
        let mut n: Vec<String> = ["k", "k", "1+1", "1+1", "a"].iter().map(|s| s.to_string()).collect();
        let e = explicit_names("select 'k','k', 1+1, 1+1, b as a from t1").unwrap();
        assert_eq!(e, vec![false, false, false, false, true]);
        unique_names(&mut n, &e);
        assert_eq!(n, vec!["k", "My_exp_k", "1+1", "My_exp_1+1", "a"]);
        let mut n: Vec<String> = ["k", "a", "k"].iter().map(|s| s.to_string()).collect();
        unique_names(&mut n, &explicit_names("select 'k', a, b as k from t1").unwrap());
        assert_eq!(n, vec!["My_exp_k", "a", "k"]);
        assert!(explicit_names("select * from t1").is_none());
        assert_eq!(explicit_names("select a, t.b, a*b from t").unwrap(), vec![true, true, false]);
    }

    #[test]
    fn malformed_statements_are_no_panic() {
        let v = "select b as k, a from t1 where a < 10";
        for sql in [
            "update v",
            "update v set",
            "update v where a = 1",
            "update v set k",
            "update v set k = ",
            "update v, t2",
            "update v, t2 set",
            "update v, t2 set v.k",
            "update , set k = 1",
            "delete from v",
            "delete v",
            "delete v from",
            "delete from v using",
            "delete from v, t2 using v where",
            "insert into v",
            "insert into v (",
            "insert into v (k",
            "insert into v ()",
            "insert into v set",
            "insert into v set k",
            "insert into v values",
            "insert into v values ()",
            "insert into v values (1,",
            "insert into v on duplicate key update",
            "insert v.",
            "insert into v (k) select",
        ] {
            let _ = rw(sql, v, &["k", "a"]);
            let toks = lex::tokenize(sql).unwrap();
            let of = |t: &Target| Ok(if t.view == "v" { body(v, &["k", "a"]) } else { None });
            let _ = rewrite_insert(sql, &toks, "d", true, &of);
            let _ = rewrite_update_delete(sql, &toks, "d", true, true, &of);
            let _ = rewrite_update_delete(sql, &toks, "d", false, true, &of);
        }
        for select in ["select", "select from", "select a from", "select a from t1 join", "select a from t1 join t2 on", "select * from", "select t.* from t1"] {
            let _ = body(select, &["a"]);
            let _ = explicit_names(select);
        }
    }
}
