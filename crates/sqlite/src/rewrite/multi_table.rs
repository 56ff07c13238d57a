//! Multi-table UPDATE and DELETE (MySQL's `UPDATE t1, t2 SET ...`,
//! `UPDATE t1 JOIN t2 ON ... SET ...`, `DELETE t1, t2 FROM ...`,
//! `DELETE FROM t1, t2 USING ...`), as one join and one write per target.
//!
//! SQLite writes one table per statement, and its `UPDATE ... FROM` neither
//! updates several tables nor reads the values MySQL does (MySQL computes
//! every new value from the rows as they were before the statement). So the
//! statement becomes:
//! - the join, a SELECT of each target's rowid (NULL on a LEFT JOIN's
//!   missing side) and, for UPDATE, each target's new values (through
//!   `emit_store`, as a single-table UPDATE's are): `Rewritten::sql`;
//! - one write per target by rowid (`MultiTarget::sql`): `UPDATE t SET
//!   c = ?1 WHERE rowid = ?2 AND ts_chg(...)` (the change test of a
//!   single-table UPDATE, so "Rows matched/Changed" count alike) or
//!   `DELETE FROM t WHERE rowid = ?1`;
//! - the join without the rowids (`MultiInfo::probe`), compiled only for
//!   the privileges it needs: an UPDATE's target needs SELECT only when
//!   the statement reads its columns, as in MariaDB, and a rowid is no
//!   column the client reads (a DELETE's target needs SELECT, as there).
//!
//! exec/run_multi.rs runs them: the join once, each target row kept once
//! (the first join row that matches it), then the writes, inside a
//! savepoint, so the statement applies entirely or not at all.
//!
//! Errors as MariaDB's: a DELETE target not in the FROM list 1109, a
//! DELETE target read again in a subquery 1093, a derived table or a view
//! as a target 1288 (the views of this engine are SQLite views, which no
//! statement writes), SET of an unknown or ambiguous column 1054/1052, and
//! ORDER BY/LIMIT on a multi-table DELETE 1064.

use super::store::{affinity_code, param_ordinals, store_table_name};
use super::translator::Translator;
use crate::schema::{sq_ident, TableDef};
use std::sync::Arc;
use turnstile_engine::SqlError;
use turnstile_sqltext::lex::Token;

/// One table a multi-table statement writes.
#[derive(Debug, Clone)]
pub struct MultiTarget {
    /// The write, by rowid: UPDATE binds the new values as ?1..?n and the
    /// rowid as ?n+1; DELETE the rowid as ?1.
    pub sql: String,
    /// How many new values the join selects for it (0 for DELETE).
    pub values: usize,
    /// The table as the statement names it (`db` None: the current database
    /// or a TEMPORARY table).
    pub db: Option<String>,
    pub table: String,
}

/// What runs a multi-table statement besides its join (`Rewritten::sql`,
/// whose columns are each target's rowid, then each target's new values).
#[derive(Debug, Clone)]
pub struct MultiInfo {
    pub update: bool,
    pub targets: Vec<MultiTarget>,
    /// The join without the rowids, for the columns it reads (privileges).
    pub probe: String,
    /// Tables the statement reads other than as a target: the FROM list's
    /// other tables and the tables its subqueries name. A target among them
    /// needs SELECT.
    pub reads: Vec<(Option<String>, String)>,
}

/// A table reference of the FROM list.
struct Factor {
    db: Option<String>,
    table: String,
    alias: Option<String>,
    /// A derived table (`(SELECT ...) AS d`).
    derived: bool,
    /// Tokens of `[db.]table` (empty for a derived table).
    name: (usize, usize),
}

impl Factor {
    fn exposed(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.table)
    }
}

/// Words that end a table reference's name (no alias).
const NOT_ALIAS: [&str; 20] =
    ["ON", "USING", "JOIN", "INNER", "LEFT", "RIGHT", "CROSS", "STRAIGHT_JOIN", "NATURAL", "FULL", "OUTER", "SET", "WHERE", "ORDER", "LIMIT", "USE", "IGNORE", "FORCE", "PARTITION", "GROUP"];
/// Words that start a join.
const JOIN_WORDS: [&str; 8] = ["JOIN", "INNER", "LEFT", "RIGHT", "CROSS", "STRAIGHT_JOIN", "NATURAL", "OUTER"];

fn is_join_word(toks: &[Token], i: usize) -> bool {
    // LEFT( and RIGHT( are functions.
    let function = (toks[i].is_kw("LEFT") || toks[i].is_kw("RIGHT")) && toks.get(i + 1).is_some_and(|n| n.is_op("("));
    JOIN_WORDS.iter().any(|k| toks[i].is_kw(k)) && !function
}

/// The `)` closing the `(` at `open`.
fn close_of(toks: &[Token], open: usize, to: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, t) in toks.iter().enumerate().take(to).skip(open) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
            if depth == 0 {
                return Some(j);
            }
        }
    }
    None
}

/// The first token in [from, to) at parenthesis depth 0 for which `stop` holds.
fn top_level(toks: &[Token], from: usize, to: usize, stop: impl Fn(usize) -> bool) -> Option<usize> {
    let mut depth = 0i32;
    for (j, t) in toks.iter().enumerate().take(to).skip(from) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
        } else if depth == 0 && stop(j) {
            return Some(j);
        }
    }
    None
}

/// Is the UPDATE or DELETE whose table list starts at token `at` a
/// multi-table one?
pub(super) fn is_multi(toks: &[Token], at: usize, update: bool) -> bool {
    if update {
        let set = top_level(toks, at, toks.len(), |j| toks[j].is_kw("SET")).unwrap_or(toks.len());
        return top_level(toks, at, set, |j| toks[j].is_op(",") || is_join_word(toks, j)).is_some();
    }
    if !toks.get(at).is_some_and(|t| t.is_kw("FROM")) {
        return true;
    }
    let end = top_level(toks, at, toks.len(), |j| ["WHERE", "ORDER", "LIMIT"].iter().any(|k| toks[j].is_kw(k))).unwrap_or(toks.len());
    top_level(toks, at + 1, end, |j| toks[j].is_op(",") || toks[j].is_kw("USING") || is_join_word(toks, j)).is_some()
}

/// The table references in [from, to), nested joins flattened.
fn factors(sql: &str, toks: &[Token], from: usize, to: usize, out: &mut Vec<Factor>) -> Result<(), SqlError> {
    let syntax = |at: usize| SqlError::syntax(toks.get(at).map_or("", |t| &sql[t.start..]));
    let mut i = from;
    loop {
        if i >= to {
            return Err(syntax(i));
        }
        if toks[i].is_op("(") {
            let open = i;
            let close = close_of(toks, open, to).ok_or_else(|| syntax(open))?;
            let query = toks.get(open + 1).is_some_and(|t| t.is_kw("SELECT") || t.is_kw("WITH") || t.is_op("("));
            i = close + 1;
            if query {
                if i < to && toks[i].is_kw("AS") {
                    i += 1;
                }
                let alias = toks.get(i).filter(|_| i < to).and_then(|t| t.ident()).map(str::to_string).ok_or_else(|| SqlError::new(1248, "42000", "Every derived table must have its own alias"))?;
                i += 1;
                out.push(Factor { db: None, table: alias.clone(), alias: Some(alias), derived: true, name: (0, 0) });
            } else {
                // A parenthesised join: its references, in order.
                factors(sql, toks, open + 1, close, out)?;
            }
        } else {
            let start = i;
            let first = toks[i].ident().ok_or_else(|| syntax(i))?.to_string();
            i += 1;
            let (db, table) = if toks.get(i).is_some_and(|t| t.is_op(".")) && i + 1 < to && toks[i + 1].ident().is_some() {
                i += 2;
                (Some(first), toks[i - 1].ident().unwrap_or_default().to_string())
            } else {
                (None, first)
            };
            let name = (start, i);
            let mut alias = None;
            if i < to && toks[i].is_kw("AS") {
                alias = Some(toks.get(i + 1).filter(|_| i + 1 < to).and_then(|t| t.ident()).ok_or_else(|| syntax(i + 1))?.to_string());
                i += 2;
            } else if i < to && toks[i].ident().is_some() && !NOT_ALIAS.iter().any(|k| toks[i].is_kw(k)) {
                alias = toks[i].ident().map(str::to_string);
                i += 1;
            }
            out.push(Factor { db, table, alias, derived: false, name });
        }
        // ON ..., USING (...), index hints: up to the next reference.
        match top_level(toks, i, to, |j| toks[j].is_op(",") || is_join_word(toks, j)) {
            None => return Ok(()),
            Some(j) if toks[j].is_op(",") => i = j + 1,
            Some(j) => {
                i = j;
                while i < to && is_join_word(toks, i) {
                    i += 1;
                }
            }
        }
    }
}

/// Tables named after FROM or JOIN inside parentheses in [from, to): the
/// tables subqueries read.
fn subquery_tables(toks: &[Token], from: usize, to: usize) -> Vec<(Option<String>, String)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    for j in from..to {
        let t = &toks[j];
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
        } else if depth > 0 && (t.is_kw("FROM") || t.is_kw("JOIN")) {
            if let Some(first) = toks.get(j + 1).and_then(|n| n.ident()) {
                if toks.get(j + 2).is_some_and(|d| d.is_op(".")) {
                    if let Some(second) = toks.get(j + 3).and_then(|n| n.ident()) {
                        out.push((Some(first.to_string()), second.to_string()));
                        continue;
                    }
                }
                out.push((None, first.to_string()));
            }
        }
    }
    out
}

/// A target's column and the tokens of its new value.
type SetValue = (String, usize, usize);

/// One `[[db.]table.]column = value` of a SET list.
struct Assign {
    qualifier: Vec<String>,
    column: String,
    value: (usize, usize),
}

fn not_updatable(name: &str, update: bool) -> SqlError {
    SqlError::new(1288, "HY000", format!("The target table {} of the {} is not updatable", name, if update { "UPDATE" } else { "DELETE" }))
}

impl Translator<'_> {
    /// The multi-table statement whose table list starts at token `at`
    /// (after UPDATE or DELETE and their modifiers).
    pub(super) fn multi_table(&mut self, at: usize, update: bool, ignore: bool) -> Result<(), SqlError> {
        let toks = self.toks;
        let sql = self.sql;
        let syntax = |i: usize| SqlError::syntax(toks.get(i).map_or("", |t| &sql[t.start..]));
        // `DELETE` or `UPDATE` with nothing after it (the fuzzer's `DELETE # ...`).
        if at >= toks.len() {
            return Err(syntax(at));
        }
        self.param_ord = Some(param_ordinals(toks));
        let clause = |from: usize, words: &[&str]| top_level(toks, from, toks.len(), |j| words.iter().any(|k| toks[j].is_kw(k)));
        // (table list, first token after it, delete list)
        let (refs, mut after, delete_list) = if update {
            let set = clause(at, &["SET"]).ok_or_else(|| syntax(toks.len()))?;
            ((at, set), set, (0, 0))
        } else if toks[at].is_kw("FROM") {
            let using = clause(at, &["USING"]).ok_or_else(|| syntax(toks.len()))?;
            let end = clause(using, &["WHERE", "ORDER", "LIMIT"]).unwrap_or(toks.len());
            ((using + 1, end), end, (at + 1, using))
        } else {
            let from = clause(at, &["FROM"]).ok_or_else(|| syntax(toks.len()))?;
            let end = clause(from, &["WHERE", "ORDER", "LIMIT"]).unwrap_or(toks.len());
            ((from + 1, end), end, (at, from))
        };
        let mut list = Vec::new();
        factors(sql, toks, refs.0, refs.1, &mut list)?;
        let home = self.resolver.home().map(str::to_string);
        let defs: Vec<Option<Arc<TableDef>>> = list.iter().map(|f| if f.derived { None } else { self.resolver.table(f.db.as_deref(), &f.table) }).collect();
        // Each target: (factor, its assignments).
        let mut targets: Vec<(usize, Vec<SetValue>)> = Vec::new();
        if update {
            let set_end = clause(after, &["WHERE", "ORDER", "LIMIT"]).unwrap_or(toks.len());
            for a in set_list(sql, toks, after + 1, set_end)? {
                let k = self.assigned_factor(&a, &list, &defs, home.as_deref())?;
                let col = defs[k].as_ref().and_then(|d| d.column(&a.column)).map(|c| c.name.clone()).unwrap_or(a.column.clone());
                match targets.iter_mut().find(|(f, _)| *f == k) {
                    Some((_, v)) => v.push((col, a.value.0, a.value.1)),
                    None => targets.push((k, vec![(col, a.value.0, a.value.1)])),
                }
            }
            after = set_end;
        } else {
            for (q, name) in delete_targets(sql, toks, delete_list.0, delete_list.1)? {
                // An alias, or a table of the database the target names (the
                // current one when it names none), as MariaDB matches them.
                let alias = list.iter().position(|f| q.is_none() && f.alias.as_deref().is_some_and(|a| a.eq_ignore_ascii_case(&name)));
                let Some(db) = q.as_deref().or(home.as_deref()).or(alias.map(|_| "")) else {
                    return Err(SqlError::no_database());
                };
                let table = || list.iter().position(|f| f.alias.is_none() && !f.derived && f.table.eq_ignore_ascii_case(&name) && f.db.as_deref().or(home.as_deref()) == Some(db));
                let k = alias.or_else(table).ok_or_else(|| SqlError::new(1109, "42S02", format!("Unknown table '{}' in MULTI DELETE", name)))?;
                if list[k].derived || defs[k].as_ref().is_some_and(|d| d.view.is_some()) {
                    return Err(not_updatable(list[k].exposed(), false));
                }
                if !targets.iter().any(|(f, _)| *f == k) {
                    targets.push((k, Vec::new()));
                }
            }
            if let Some(o) = clause(after, &["ORDER", "LIMIT"]) {
                return Err(syntax(o));
            }
        }
        let mut reads = subquery_tables(toks, refs.0, toks.len());
        if !update {
            if let Some((_, t)) = targets
                .iter()
                .map(|(k, _)| &list[*k])
                .find_map(|f| reads.iter().find(|(d, t)| t.eq_ignore_ascii_case(&f.table) && d.as_deref().or(home.as_deref()) == f.db.as_deref().or(home.as_deref())))
            {
                return Err(SqlError::new(1093, "HY000", format!("Table '{}' is specified twice, both as a target for 'DELETE' and as a separate source for data", t)));
            }
        }
        for (k, f) in list.iter().enumerate() {
            if !f.derived && !targets.iter().any(|(t, _)| *t == k) {
                reads.push((f.db.clone(), f.table.clone()));
            }
        }
        if update {
            self.set_write_mode(ignore);
            self.nulls_to_default = self.lenient;
        }
        // The pieces of the join, each translated on its own.
        let mut names = Vec::new();
        for (k, _) in &targets {
            let f = &list[*k];
            names.push(self.emit_apart(f.name.0, f.name.1)?);
        }
        let mut values = String::new();
        let mut out_targets = Vec::new();
        for ((k, assigns), tname) in targets.iter().zip(&names) {
            let f = &list[*k];
            let def = defs[*k].as_deref();
            let mut sets = Vec::new();
            let mut compared = Vec::new();
            self.store_table = store_table_name(f.db.as_deref().or(home.as_deref()), &f.table);
            self.set_target = def.map(|d| (f.exposed().to_string(), d.columns.iter().map(|c| c.name.clone()).collect()));
            for (n, (col, s, e)) in assigns.iter().enumerate() {
                self.last_end = None;
                let mark = self.out.len();
                self.emit_set_value(*s, *e, def.and_then(|d| d.column(col)))?;
                values.push_str(", ");
                values.push_str(self.out[mark..].trim());
                self.out.truncate(mark);
                sets.push(format!("{} = ?{}", sq_ident(col), n + 1));
                compared.push(format!("{}, (?{})", sq_ident(col), n + 1));
            }
            self.set_target = None;
            let rowid = rowid_name(def);
            let sql = if update {
                let codes: String = assigns.iter().map(|(c, _, _)| affinity_code(def, c)).collect();
                format!("UPDATE{} {} SET {} WHERE {} = ?{} AND ts_chg('{}', {})", if ignore { " OR IGNORE" } else { "" }, tname, sets.join(", "), rowid, assigns.len() + 1, codes, compared.join(", "))
            } else {
                format!("DELETE FROM {} WHERE {} = ?1", tname, rowid)
            };
            out_targets.push(MultiTarget { sql, values: assigns.len(), db: f.db.clone(), table: f.table.clone() });
        }
        let rowids: Vec<String> = targets
            .iter()
            .zip(&names)
            .map(|((k, _), tname)| {
                let f = &list[*k];
                let rowid = rowid_name(defs[*k].as_deref());
                match &f.alias {
                    Some(a) => format!("{}.{}", sq_ident(a), rowid),
                    None => format!("{}.{}", tname, rowid),
                }
            })
            .collect();
        self.in_from = true;
        let from = self.emit_refs(refs.0, refs.1)?;
        let tail = if after < toks.len() { self.emit_apart(after, toks.len())? } else { String::new() };
        for f in &list {
            if !f.derived && !self.tables.iter().any(|(d, t)| d == &f.db && t == &f.table) {
                self.tables.push((f.db.clone(), f.table.clone()));
            }
        }
        let rest = format!("{} FROM {} {}", values, from, tail);
        self.out = format!("SELECT {}{}", rowids.join(", "), rest.trim_end());
        let probe = format!("SELECT 0{}", rest.trim_end());
        self.multi = Some(Arc::new(MultiInfo { update, targets: out_targets, probe, reads }));
        Ok(())
    }

    /// Tokens [s, e) translated, returned rather than written.
    fn emit_apart(&mut self, s: usize, e: usize) -> Result<String, SqlError> {
        let mark = self.out.len();
        self.last_end = None;
        self.emit(s, e)?;
        let text = self.out[mark..].trim().to_string();
        self.out.truncate(mark);
        self.last_end = None;
        Ok(text)
    }

    /// The FROM list [s, e) translated; STRAIGHT_JOIN (MySQL's join in the
    /// written order) is a JOIN.
    fn emit_refs(&mut self, s: usize, e: usize) -> Result<String, SqlError> {
        let toks = self.toks;
        let mut parts = Vec::new();
        let mut at = s;
        while let Some(j) = top_level(toks, at, e, |j| toks[j].is_kw("STRAIGHT_JOIN")) {
            parts.push(self.emit_apart(at, j)?);
            parts.push("JOIN".to_string());
            at = j + 1;
        }
        parts.push(self.emit_apart(at, e)?);
        Ok(parts.join(" "))
    }

    /// The FROM list's reference that the SET column `a` names (1054, 1052,
    /// 1288 as MariaDB).
    fn assigned_factor(&self, a: &Assign, list: &[Factor], defs: &[Option<Arc<TableDef>>], home: Option<&str>) -> Result<usize, SqlError> {
        let shown = if a.qualifier.is_empty() { a.column.clone() } else { format!("{}.{}", a.qualifier.join("."), a.column) };
        let unknown = || SqlError::new(1054, "42S22", format!("Unknown column '{}' in 'SET'", shown));
        let k = match a.qualifier.as_slice() {
            [] => {
                let having: Vec<usize> = (0..list.len()).filter(|&k| defs[k].as_ref().is_some_and(|d| d.column(&a.column).is_some())).collect();
                match having.as_slice() {
                    [k] => *k,
                    [] => return Err(unknown()),
                    _ => return Err(SqlError::new(1052, "23000", format!("Column '{}' in SET is ambiguous", a.column))),
                }
            }
            [q] => list.iter().position(|f| f.exposed().eq_ignore_ascii_case(q)).ok_or_else(unknown)?,
            [d, q] => list.iter().position(|f| f.alias.is_none() && f.table.eq_ignore_ascii_case(q) && f.db.as_deref().or(home) == Some(d.as_str())).ok_or_else(unknown)?,
            _ => return Err(unknown()),
        };
        if list[k].derived || defs[k].as_ref().is_some_and(|d| d.view.is_some()) {
            return Err(not_updatable(list[k].exposed(), true));
        }
        if defs[k].as_ref().is_none_or(|d| d.column(&a.column).is_none()) {
            return Err(unknown());
        }
        Ok(k)
    }
}

/// The name that reads a row's rowid from `def` (one no column of it takes).
fn rowid_name(def: Option<&TableDef>) -> &'static str {
    ["rowid", "_rowid_", "oid"].into_iter().find(|n| def.is_none_or(|d| d.column(n).is_none())).unwrap_or("rowid")
}

/// `[[db.]table.]col = value, ...` in [from, to).
fn set_list(sql: &str, toks: &[Token], from: usize, to: usize) -> Result<Vec<Assign>, SqlError> {
    let syntax = |i: usize| SqlError::syntax(toks.get(i).map_or("", |t| &sql[t.start..]));
    let mut out = Vec::new();
    let mut i = from;
    loop {
        let mut parts = vec![toks.get(i).filter(|_| i < to).and_then(|t| t.ident()).ok_or_else(|| syntax(i))?.to_string()];
        i += 1;
        while i + 1 < to && toks[i].is_op(".") && toks[i + 1].ident().is_some() {
            parts.push(toks[i + 1].ident().unwrap_or_default().to_string());
            i += 2;
        }
        if !(i < to && (toks[i].is_op("=") || toks[i].is_op(":="))) {
            return Err(syntax(i));
        }
        let s = i + 1;
        let e = top_level(toks, s, to, |j| toks[j].is_op(",")).unwrap_or(to);
        if e == s {
            return Err(syntax(s));
        }
        let column = parts.pop().unwrap_or_default();
        out.push(Assign { qualifier: parts, column, value: (s, e) });
        if e >= to {
            return Ok(out);
        }
        i = e + 1;
    }
}

/// A multi-table DELETE's targets in [from, to): `name[.*]`, `db.name[.*]`.
fn delete_targets(sql: &str, toks: &[Token], from: usize, to: usize) -> Result<Vec<(Option<String>, String)>, SqlError> {
    let syntax = |i: usize| SqlError::syntax(toks.get(i).map_or("", |t| &sql[t.start..]));
    let mut out = Vec::new();
    let mut i = from;
    loop {
        let first = toks.get(i).filter(|_| i < to).and_then(|t| t.ident()).ok_or_else(|| syntax(i))?.to_string();
        i += 1;
        let mut target = (None, first);
        if i + 1 < to && toks[i].is_op(".") && toks[i + 1].ident().is_some() {
            target = (Some(target.1), toks[i + 1].ident().unwrap_or_default().to_string());
            i += 2;
        }
        if i + 1 < to && toks[i].is_op(".") && toks[i + 1].is_op("*") {
            i += 2;
        }
        out.push(target);
        if i >= to {
            return Ok(out);
        }
        if !toks[i].is_op(",") {
            return Err(syntax(i));
        }
        i += 1;
    }
}
