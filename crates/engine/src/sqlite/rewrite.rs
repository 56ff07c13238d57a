//! MySQL DML text → SQLite DML text, token by token.
//!
//! Runs once per distinct statement text (the result is cached with the
//! compiled SQLite statement), never on the hot path of a cached statement.
//! Most tokens are copied unchanged, keeping the original spacing so that
//! SQLite names expression columns as MySQL would. What is patched:
//! - quoting: "strings" → 'strings', backslash escapes resolved, `ids` → "ids";
//! - operators: `||` → OR, `&&` → AND, `!` → NOT, `<=>` → IS, `/` → real
//!   division (MySQL's 5/2 is 2.5), `DIV`, `MOD`, `->`/`->>`;
//! - functions SQLite spells differently or lacks (IF, LEFT, RIGHT, LENGTH,
//!   CHAR_LENGTH, GREATEST, LEAST, DATE_ADD(... INTERVAL n unit), EXTRACT,
//!   CAST types, CONVERT, SUBSTRING ... FROM ... FOR, TIMESTAMPDIFF units,
//!   GROUP_CONCAT ... SEPARATOR);
//! - clauses SQLite lacks: index hints, SELECT modifiers, FOR UPDATE / LOCK IN
//!   SHARE MODE (dropped; FOR UPDATE marks the statement as a writer),
//!   LIKE's default backslash escape;
//! - `db.table` names: the current database becomes `main`, others are
//!   ATTACHed, information_schema is a per-connection in-memory database;
//! - hex and bit literals (`0x41`, `b'1'`): the string of their bytes (TEXT,
//!   as binary columns store it), or their number in numeric context
//!   (`numeric_context`: MySQL's operator precedence decides which operator
//!   a literal is an operand of);
//! - INSERT: IGNORE, ON DUPLICATE KEY UPDATE (→ UPSERT, VALUES(c) →
//!   excluded.c), INSERT ... SET, DEFAULT values, 0/NULL into AUTO_INCREMENT;
//! - values written to a column (INSERT, UPDATE, upsert; `emit_store`): dates
//!   in canonical form, a hybrid literal into a number column as its number,
//!   bytes for a binary column as TEXT padded to BINARY(n) (`ts_bin`);
//! - UPDATE/DELETE with ORDER BY/LIMIT (→ rowid IN (subquery));
//! - UPDATE and ON DUPLICATE KEY UPDATE write only rows whose values change
//!   (`ts_chg`, for MySQL's affected rows: see `Tr::update`).
//!
//! Anything with no SQLite equivalent is refused with 1235 naming it.

use super::cursor::Cur;
use super::schema::{sq_ident, TableDef};
use crate::lex::{self, Tok, Token};
use crate::SqlError;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Select,
    Insert,
    Update,
    Delete,
}

#[derive(Debug, Clone, Default)]
pub struct InsertInfo {
    /// The target table has an AUTO_INCREMENT column.
    pub has_ai: bool,
    /// ...and the statement names it (values go through `ts_ai`).
    pub ai_named: bool,
    pub odku: bool,
    /// INSERT IGNORE / REPLACE (for the OK packet's "Duplicates").
    pub ignore: bool,
    pub replace: bool,
    /// Rows of a VALUES list; 0 for INSERT ... SELECT.
    pub rows: usize,
    /// Target columns, and the SQLite text of the first row's values (used to
    /// name the duplicate value in ERR 1062).
    pub cols: Vec<String>,
    pub first_row: Vec<String>,
    /// SQLite text naming the target table with its schema (`main."t"`).
    pub target: String,
    /// The same as its parts: the schema as SQLite text (`main`, `temp`, an
    /// attached database) and the table's plain name.
    pub schema: String,
    pub table: String,
}

#[derive(Debug, Clone)]
pub struct Rewritten {
    pub sql: String,
    pub kind: Kind,
    /// Other databases the statement names (to ATTACH).
    pub dbs: Vec<String>,
    pub info_schema: bool,
    pub for_update: bool,
    pub insert: Option<InsertInfo>,
    /// Each top-level select item: (original expression text, has an alias);
    /// empty when the list has a `*`.
    pub select_items: Vec<(String, bool)>,
    /// Tables named in the statement (db, table), for result metadata.
    pub tables: Vec<(Option<String>, String)>,
    /// Names defined by WITH (not tables).
    pub ctes: Vec<String>,
    /// SELECT SQL_CALC_FOUND_ROWS ... LIMIT: the query counting every row
    /// without the LIMIT, for FOUND_ROWS().
    pub count_sql: Option<String>,
    /// A recursive CTE carries its depth (cte.rs): cte_max_recursion_depth
    /// must be set before the statement runs.
    pub cte_limited: bool,
}

/// What the rewriter needs to know about the schema.
pub trait Resolver {
    /// Current database (the one SQLite calls `main`).
    fn home(&self) -> Option<&str>;
    fn is_database(&self, name: &str) -> bool;
    fn table(&self, db: Option<&str>, name: &str) -> Option<Arc<TableDef>>;
    /// A TEMPORARY table of the session (SQLite's `temp` schema).
    fn is_temp(&self, _name: &str) -> bool {
        false
    }
}

/// Translate a standalone expression (column DEFAULT (expr)).
pub fn expression(e: &str) -> Result<String, SqlError> {
    struct NoSchema;
    impl Resolver for NoSchema {
        fn home(&self) -> Option<&str> {
            None
        }
        fn is_database(&self, _: &str) -> bool {
            false
        }
        fn table(&self, _: Option<&str>, _: &str) -> Option<Arc<TableDef>> {
            None
        }
    }
    let toks = lex::tokenize(e).map_err(|x| SqlError::syntax(&e[x.at..]))?;
    let mut tr = Tr::new(e, &toks, &NoSchema);
    tr.emit(0, toks.len())?;
    Ok(tr.out)
}

pub fn rewrite(sql: &str, kind: Kind, r: &dyn Resolver) -> Result<Rewritten, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let mut end = toks.len();
    while end > 0 && toks[end - 1].is_op(";") {
        end -= 1;
    }
    let toks = &toks[..end];
    check_nesting(toks)?;
    if toks.iter().any(|t| t.is_op(";")) {
        return Err(SqlError::syntax(&sql[toks.iter().find(|t| t.is_op(";")).map_or(0, |t| t.start)..]));
    }
    let mut tr = Tr::new(sql, toks, r);
    let mut insert = None;
    let mut count_sql = None;
    let mut kind = kind;
    match kind {
        Kind::Insert => insert = Some(tr.insert()?),
        Kind::Update => tr.update_delete(true)?,
        Kind::Delete => tr.update_delete(false)?,
        Kind::Select => {
            if let Some(again) = having_without_group_by(sql, toks) {
                return rewrite(&again, kind, r);
            }
            if toks.first().is_some_and(|t| t.is_kw("TABLE")) {
                // TABLE t  →  SELECT * FROM t
                tr.out.push_str("SELECT * FROM ");
                tr.emit(1, toks.len())?;
            } else {
                tr.emit(0, toks.len())?;
                if toks.iter().take(8).any(|t| t.is_kw("SQL_CALC_FOUND_ROWS")) {
                    count_sql = Some(match top_level_limit(toks).map(|l| tr.out_at[l]).filter(|at| *at != usize::MAX) {
                        Some(at) => format!("SELECT COUNT(*) FROM ({})", &tr.out[..at]),
                        None => format!("SELECT COUNT(*) FROM ({})", tr.out),
                    });
                }
            }
            kind = Kind::Select;
        }
    }
    let select_items = if kind == Kind::Select { select_items(sql, toks) } else { Vec::new() };
    Ok(Rewritten { sql: tr.out, kind, dbs: tr.dbs, info_schema: tr.info_schema, for_update: tr.for_update, insert, select_items, tables: tr.tables, ctes: tr.ctes, count_sql, cte_limited: false })
}

/// SELECTs nested inside one another, counting the outermost (MariaDB
/// 10.11's limit: 64 levels work, 65 are 1473).
pub const MAX_SELECT_NESTING: usize = 64;
/// Elements of one WITH clause (MariaDB's limit; 65 is 4003).
pub const MAX_WITH_ELEMENTS: usize = 64;

/// Refuse statements nested deeper than SQLite can compile on a thread's
/// stack: SQLite recurses once per derived table or subquery and per CTE
/// that reads the one before it, and neither counts toward its expression
/// depth limit (3,000 nested derived tables overflowed 1 MiB). The limits
/// are MariaDB's, with its errors.
fn check_nesting(toks: &[Token]) -> Result<(), SqlError> {
    // Per open parenthesis: does it open a subquery; and per level, a WITH
    // list being read and its elements so far.
    let mut parens: Vec<bool> = Vec::new();
    let mut subqueries = 0usize;
    let mut with: Vec<Option<usize>> = vec![None];
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            let sub = toks.get(i + 1).is_some_and(|n| n.is_kw("SELECT") || n.is_kw("WITH"));
            parens.push(sub);
            with.push(None);
            if sub {
                subqueries += 1;
                if subqueries + 1 > MAX_SELECT_NESTING {
                    return Err(SqlError::new(1473, "HY000", "Too high level of nesting for select"));
                }
            }
        } else if t.is_op(")") {
            if parens.pop() == Some(true) {
                subqueries -= 1;
            }
            with.pop();
            if with.is_empty() {
                with.push(None);
            }
        } else {
            let level = with.last_mut().expect("one level at least");
            if t.is_kw("WITH") {
                *level = Some(1);
            } else if t.is_op(",") {
                if let Some(n) = level.as_mut() {
                    *n += 1;
                    if *n > MAX_WITH_ELEMENTS {
                        return Err(SqlError::new(4003, "HY000", "Too many WITH elements in WITH clause"));
                    }
                }
            } else if t.is_kw("SELECT") || t.is_kw("INSERT") || t.is_kw("UPDATE") || t.is_kw("DELETE") {
                *level = None;
            }
        }
    }
    Ok(())
}

/// The LIMIT clause of the outermost query, if any.
fn top_level_limit(toks: &[Token]) -> Option<usize> {
    let mut depth = 0i32;
    let mut found = None;
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
        } else if depth == 0 && t.is_kw("LIMIT") {
            found = Some(i);
        }
    }
    found
}

const AGGREGATES: [&str; 18] = [
    "COUNT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "GROUP_CONCAT",
    "BIT_AND",
    "BIT_OR",
    "BIT_XOR",
    "STD",
    "STDDEV",
    "STDDEV_POP",
    "STDDEV_SAMP",
    "VAR_POP",
    "VAR_SAMP",
    "VARIANCE",
    "JSON_ARRAYAGG",
    "JSON_OBJECTAGG",
];

/// MySQL accepts HAVING without GROUP BY in a query without aggregates: it
/// filters the rows like WHERE but sees the select list's aliases first
/// (Connector/J's DatabaseMetaData.getTables sends `... HAVING TABLE_TYPE IN
/// (...)` where TABLE_TYPE is both a column and an alias). SQLite refuses
/// HAVING on a non-aggregate query, so the outermost SELECT's condition moves
/// into WHERE with each alias replaced by its expression. Returns the MySQL
/// text to translate instead, or None when the statement has no such HAVING.
fn having_without_group_by(sql: &str, toks: &[Token]) -> Option<String> {
    if !toks.first().is_some_and(|t| t.is_kw("SELECT")) {
        return None;
    }
    // depth-0 clause positions
    let (mut from, mut where_at, mut having, mut having_end) = (None, None, None, toks.len());
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.checked_sub(1)?;
        } else if let Tok::Word(w) = &t.tok {
            if toks.get(i + 1).is_some_and(|n| n.is_op("(")) && AGGREGATES.iter().any(|a| w.eq_ignore_ascii_case(a)) {
                return None;
            }
            if depth > 0 {
                continue;
            }
            let up = w.to_ascii_uppercase();
            match up.as_str() {
                "FROM" if from.is_none() => from = Some(i),
                "WHERE" if where_at.is_none() => where_at = Some(i),
                "HAVING" if having.is_none() => having = Some(i),
                "GROUP" | "UNION" | "EXCEPT" | "INTERSECT" | "WINDOW" => return None,
                "ORDER" | "LIMIT" | "FOR" | "LOCK" | "INTO" if having.is_some() && having_end == toks.len() => having_end = i,
                _ => {}
            }
        }
    }
    let (from, h) = (from?, having?);
    // Clauses out of MySQL's order (WHERE or FROM after HAVING): left to
    // SQLite, which calls it a syntax error.
    if h + 1 >= having_end || from > h || where_at.is_some_and(|w| w > h) {
        return None;
    }
    // aliases of the select list: name -> expression text
    let mut aliases: Vec<(String, &str)> = Vec::new();
    let (mut start, mut depth) = (1usize, 0usize);
    for j in 1..=from {
        let t = &toks[j];
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && (j == from || t.is_op(",")) {
            let part = &toks[start..j];
            let n = part.len();
            let alias = match part {
                [.., a, name] if n >= 3 && a.is_kw("AS") => name.ident().map(|x| (x.to_string(), n - 2)),
                [.., prev, name] if matches!(name.tok, Tok::Word(_) | Tok::Quoted(_)) && !prev.is_op(".") && is_value_end(prev) => name.ident().map(|x| (x.to_string(), n - 1)),
                _ => None,
            };
            if let Some((name, e)) = alias {
                // an expression with `?` cannot be repeated (parameters are positional)
                let params = part[..e].iter().any(|t| matches!(t.tok, Tok::Param));
                aliases.push((name, if params { "" } else { &sql[part[0].start..part[e - 1].end] }));
            }
            start = j + 1;
        }
    }
    // the condition, aliases replaced
    let mut cond = String::new();
    let mut last = toks[h + 1].start;
    for k in h + 1..having_end {
        let t = &toks[k];
        cond.push_str(&sql[last..t.start]);
        let dotted = toks[k - 1].is_op(".") || toks.get(k + 1).is_some_and(|n| n.is_op(".") || n.is_op("("));
        match (t.ident(), dotted) {
            (Some(id), false) if matches!(t.tok, Tok::Word(_) | Tok::Quoted(_)) => match aliases.iter().find(|(a, _)| a.eq_ignore_ascii_case(id)) {
                Some((_, "")) => return None,
                Some((_, e)) => {
                    cond.push('(');
                    cond.push_str(e);
                    cond.push(')');
                }
                None => cond.push_str(&sql[t.start..t.end]),
            },
            _ => cond.push_str(&sql[t.start..t.end]),
        }
        last = t.end;
    }
    let rest = toks.get(having_end).map_or("", |t| &sql[t.start..]);
    Some(match where_at {
        Some(w) => format!("{} ({}) AND ({}) {}", &sql[..toks[w].end], &sql[toks[w + 1].start..toks[h].start].trim_end(), cond, rest),
        None => format!("{}WHERE {} {}", &sql[..toks[h].start], cond, rest),
    })
}

/// Top-level select items of the outermost SELECT: Some(text) when unaliased.
fn select_items(sql: &str, toks: &[Token]) -> Vec<(String, bool)> {
    let mut i = 0;
    while i < toks.len() && (toks[i].is_op("(") || !toks[i].is_kw("SELECT")) {
        if toks[i].is_kw("WITH") {
            return Vec::new();
        }
        i += 1;
    }
    if i >= toks.len() {
        return Vec::new();
    }
    i += 1;
    while i < toks.len() && ["DISTINCT", "ALL", "DISTINCTROW", "SQL_NO_CACHE", "SQL_CACHE", "SQL_CALC_FOUND_ROWS", "HIGH_PRIORITY", "STRAIGHT_JOIN"].iter().any(|k| toks[i].is_kw(k)) {
        i += 1;
    }
    let mut items = Vec::new();
    let mut depth = 0;
    let mut start = i;
    let mut j = i;
    let finish = |s: usize, e: usize, items: &mut Vec<(String, bool)>| -> bool {
        if s >= e {
            return false;
        }
        let part = &toks[s..e];
        if part.iter().any(|t| t.is_op("*")) && (part.len() == 1 || (part.len() == 3 && part[1].is_op("."))) {
            return true;
        }
        let n = part.len();
        let with_as = n >= 2 && part[n - 2].is_kw("AS");
        let bare = n >= 2 && matches!(part[n - 1].tok, Tok::Word(_) | Tok::Quoted(_) | Tok::Str(_)) && !part[n - 2].is_op(".") && is_value_end(&part[n - 2]);
        let expr_end = if with_as {
            n - 2
        } else if bare {
            n - 1
        } else {
            n
        };
        if expr_end == 0 {
            return false;
        }
        items.push((sql[part[0].start..part[expr_end - 1].end].to_string(), with_as || bare));
        false
    };
    while j < toks.len() {
        let t = &toks[j];
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            if depth == 0 {
                break;
            }
            depth -= 1;
        } else if depth == 0 && (t.is_op(",") || ["FROM", "WHERE", "GROUP", "ORDER", "LIMIT", "HAVING", "UNION", "INTO", "FOR", "LOCK", "WINDOW"].iter().any(|k| t.is_kw(k))) {
            if finish(start, j, &mut items) {
                return Vec::new();
            }
            if !t.is_op(",") {
                return items;
            }
            start = j + 1;
        }
        j += 1;
    }
    if finish(start, j, &mut items) {
        return Vec::new();
    }
    items
}

/// Can this token end a value (so a following word is an alias)?
fn is_value_end(t: &Token) -> bool {
    match &t.tok {
        Tok::Op(o) => *o == ")",
        Tok::Word(w) => {
            !["SELECT", "DISTINCT", "AND", "OR", "NOT", "IS", "NULL", "CASE", "WHEN", "THEN", "ELSE", "BY", "ON", "AS"].iter().any(|k| w.eq_ignore_ascii_case(k))
                || w.eq_ignore_ascii_case("END")
                || w.eq_ignore_ascii_case("NULL")
        }
        _ => true,
    }
}

const SKIP_WORDS: &[&str] =
    &["SQL_CALC_FOUND_ROWS", "SQL_NO_CACHE", "SQL_CACHE", "HIGH_PRIORITY", "SQL_SMALL_RESULT", "SQL_BIG_RESULT", "SQL_BUFFER_RESULT", "LOW_PRIORITY", "DELAYED", "QUICK", "DISTINCTROW"];

const INTERVAL_UNITS: &[&str] = &[
    "MICROSECOND",
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
    "WEEK",
    "MONTH",
    "QUARTER",
    "YEAR",
    "SECOND_MICROSECOND",
    "MINUTE_MICROSECOND",
    "MINUTE_SECOND",
    "HOUR_MICROSECOND",
    "HOUR_SECOND",
    "HOUR_MINUTE",
    "DAY_MICROSECOND",
    "DAY_SECOND",
    "DAY_MINUTE",
    "DAY_HOUR",
    "YEAR_MONTH",
];

struct Tr<'a> {
    sql: &'a str,
    toks: &'a [Token],
    r: &'a dyn Resolver,
    out: String,
    dbs: Vec<String>,
    info_schema: bool,
    for_update: bool,
    tables: Vec<(Option<String>, String)>,
    /// Function names of the open parentheses (empty string: not a call).
    parens: Vec<String>,
    /// Inside ON DUPLICATE KEY UPDATE: VALUES(c) → excluded.c
    odku: bool,
    last_end: Option<usize>,
    parens_pending: Option<String>,
    /// Inside a FROM list (a comma introduces another table).
    in_from: bool,
    ctes: Vec<String>,
    /// When set, `?` at token i is written `?N` with N = `param_ord[i]` + 1
    /// (the statement repeats some expressions, which must reuse the
    /// client's parameter, not add one).
    param_ord: Option<Vec<usize>>,
    /// Output offset at which token i began (usize::MAX: not emitted), for
    /// `x + INTERVAL n unit`, which wraps x after it was written.
    out_at: Vec<usize>,
    /// (unit token, first token of the wrapped operand) of the last
    /// `x ± INTERVAL` rewritten, so a chain wraps the whole left side.
    last_interval: Option<(usize, usize)>,
}

impl<'a> Tr<'a> {
    fn new(sql: &'a str, toks: &'a [Token], r: &'a dyn Resolver) -> Tr<'a> {
        Tr {
            sql,
            toks,
            r,
            out: String::with_capacity(sql.len() + 16),
            dbs: Vec::new(),
            info_schema: false,
            for_update: false,
            tables: Vec::new(),
            parens: Vec::new(),
            odku: false,
            last_end: None,
            parens_pending: None,
            in_from: false,
            ctes: Vec::new(),
            param_ord: None,
            out_at: vec![usize::MAX; toks.len()],
            last_interval: None,
        }
    }

    /// Separator before a token: the original whitespace when it was plain
    /// whitespace, else one space.
    fn gap(&mut self, t: &Token) {
        match self.last_end {
            Some(e) if e <= t.start => {
                let g = &self.sql[e..t.start];
                if g.bytes().all(|b| b.is_ascii_whitespace()) {
                    self.out.push_str(g);
                } else {
                    self.out.push(' ');
                }
            }
            Some(_) => self.out.push(' '),
            None => {
                if !self.out.is_empty() && !self.out.ends_with(' ') && !self.out.ends_with('(') {
                    self.out.push(' ');
                }
            }
        }
        self.last_end = Some(t.end);
    }

    fn push(&mut self, t: &Token, text: &str) {
        self.gap(t);
        // MySQL reads `--1` as two minuses (its comments need `-- `); SQLite
        // would read a comment.
        if self.out.ends_with('-') && text.starts_with('-') {
            self.out.push(' ');
        }
        self.out.push_str(text);
    }

    /// Raw text from the generator (not a source token).
    fn raw(&mut self, s: &str) {
        self.out.push_str(s);
        self.last_end = None;
    }

    fn word_at(&self, i: usize, kw: &str) -> bool {
        self.toks.get(i).is_some_and(|t| t.is_kw(kw))
    }
    fn op_at(&self, i: usize, op: &str) -> bool {
        self.toks.get(i).is_some_and(|t| t.is_op(op))
    }

    /// The SQLite schema for `name.table`.
    fn qualifier(&mut self, name: &str, table: &str) -> Option<String> {
        if name.eq_ignore_ascii_case("information_schema") {
            self.info_schema = true;
            return Some("information_schema".into());
        }
        if Some(name) == self.r.home() {
            // `db.t` names the session's temporary table t when there is one, as in MySQL.
            return Some(if self.r.is_temp(table) { "temp" } else { "main" }.into());
        }
        if self.r.is_database(name) {
            if !self.dbs.iter().any(|d| d == name) {
                self.dbs.push(name.to_string());
            }
            return Some(sq_ident(name));
        }
        None
    }

    fn unsupported(what: &str) -> SqlError {
        SqlError::unsupported(what)
    }

    /// Copy tokens [from, to) translating as described in the module header.
    /// Every recursion of the rewriter passes through here: the thread's
    /// stack is checked first (ERR 1436 on a deep nesting).
    fn emit(&mut self, from: usize, to: usize) -> Result<(), SqlError> {
        crate::stack::check()?;
        let toks = self.toks;
        let mut i = from;
        while i < to {
            let t = &toks[i];
            self.out_at[i] = self.out.len();
            match &t.tok {
                Tok::Word(w) | Tok::Quoted(w) => {
                    let quoted = matches!(t.tok, Tok::Quoted(_));
                    // db.table(.column)
                    if self.op_at(i + 1, ".") && i + 2 < to && (toks[i + 2].ident().is_some() || toks[i + 2].is_op("*")) && !(i > from && toks[i - 1].is_op(".")) {
                        let three = self.op_at(i + 3, ".") && i + 4 < to && toks[i + 4].ident().is_some();
                        let next = toks[i + 2].ident().unwrap_or("");
                        let is_db = w.eq_ignore_ascii_case("information_schema")
                            || three && (self.r.is_database(w) || Some(w.as_str()) == self.r.home())
                            || (!three && (Some(w.as_str()) == self.r.home() || self.r.is_database(w)) && self.r.table(Some(w), next).is_some());
                        if is_db {
                            if let Some(q) = self.qualifier(w, next) {
                                if !three {
                                    self.tables.push((Some(w.to_string()), next.to_string()));
                                }
                                self.push(t, &q);
                                i += 1;
                                continue;
                            }
                        }
                    }
                    if quoted {
                        self.push(t, &sq_ident(w));
                        self.note_table(i);
                        i += 1;
                        continue;
                    }
                    let up = w.to_ascii_uppercase();
                    let call = self.op_at(i + 1, "(");
                    if SKIP_WORDS.contains(&up.as_str()) {
                        i += 1;
                        continue;
                    }
                    match up.as_str() {
                        "IF" if call => self.push(t, "iif"),
                        "DIV" => self.push(t, "/"),
                        "MOD" if !call => self.push(t, "%"),
                        "XOR" => return Err(Self::unsupported("XOR")),
                        "RLIKE" => self.push(t, "REGEXP"),
                        "GROUP_CONCAT" if call => {
                            i = self.group_concat(i, to)?;
                            continue;
                        }
                        "STRAIGHT_JOIN" => {
                            let after_select = i > 0 && toks[i - 1].is_kw("SELECT");
                            if !after_select {
                                self.push(t, "JOIN");
                            }
                        }
                        "USE" | "FORCE" | "IGNORE" if self.word_at(i + 1, "INDEX") || self.word_at(i + 1, "KEY") => {
                            // index hint: skip words up to and including the (list)
                            let mut j = i + 1;
                            while j < to && !toks[j].is_op("(") {
                                j += 1;
                            }
                            let mut depth = 0;
                            while j < to {
                                if toks[j].is_op("(") {
                                    depth += 1;
                                } else if toks[j].is_op(")") {
                                    depth -= 1;
                                    if depth == 0 {
                                        break;
                                    }
                                }
                                j += 1;
                            }
                            i = j + 1;
                            continue;
                        }
                        "FOR" if self.word_at(i + 1, "UPDATE") || self.word_at(i + 1, "SHARE") => {
                            if self.word_at(i + 1, "UPDATE") {
                                self.for_update = true;
                            }
                            let mut j = i + 2;
                            if self.word_at(j, "OF") {
                                j += 1;
                                while j < to && (toks[j].ident().is_some() || toks[j].is_op(",")) {
                                    j += 1;
                                }
                            }
                            if self.word_at(j, "NOWAIT") {
                                j += 1;
                            } else if self.word_at(j, "SKIP") && self.word_at(j + 1, "LOCKED") {
                                j += 2;
                            }
                            i = j;
                            continue;
                        }
                        "LOCK" if self.word_at(i + 1, "IN") && self.word_at(i + 2, "SHARE") && self.word_at(i + 3, "MODE") => {
                            i += 4;
                            continue;
                        }
                        "INTERVAL" => {
                            // DATE_ADD(d, INTERVAL n unit) → date_add(d, n, 'unit')
                            let inside = self.parens.last().is_some_and(|f| matches!(f.as_str(), "DATE_ADD" | "DATE_SUB" | "ADDDATE" | "SUBDATE"));
                            if !inside && i > from && (toks[i - 1].is_op("+") || toks[i - 1].is_op("-")) {
                                i = self.interval_arithmetic(from, i, to)?;
                                continue;
                            }
                            if !inside {
                                return Err(Self::unsupported("INTERVAL arithmetic other than date + INTERVAL n unit and date - INTERVAL n unit"));
                            }
                            let mut j = i + 1;
                            let mut depth = 0;
                            while j < to {
                                if toks[j].is_op("(") {
                                    depth += 1;
                                } else if toks[j].is_op(")") {
                                    if depth == 0 {
                                        break;
                                    }
                                    depth -= 1;
                                } else if depth == 0 && INTERVAL_UNITS.iter().any(|u| toks[j].is_kw(u)) {
                                    break;
                                }
                                j += 1;
                            }
                            if j >= to || !INTERVAL_UNITS.iter().any(|u| toks[j].is_kw(u)) {
                                return Err(SqlError::syntax(&self.sql[t.start..]));
                            }
                            self.last_end = Some(t.end);
                            self.emit(i + 1, j)?;
                            let unit = toks[j].ident().unwrap_or("").to_ascii_uppercase();
                            self.raw(&format!(", '{}'", unit));
                            self.last_end = Some(toks[j].end);
                            i = j + 1;
                            continue;
                        }
                        "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "NOW" | "SYSDATE" => {
                            self.push(t, "now");
                            if !call {
                                self.raw("()");
                            }
                        }
                        "CURRENT_DATE" | "CURDATE" => {
                            self.push(t, "curdate");
                            if !call {
                                self.raw("()");
                            }
                        }
                        "CURRENT_TIME" | "CURTIME" => {
                            self.push(t, "curtime");
                            if !call {
                                self.raw("()");
                            }
                        }
                        "UTC_TIMESTAMP" | "UTC_DATE" | "UTC_TIME" => {
                            self.push(t, &up.to_ascii_lowercase());
                            if !call {
                                self.raw("()");
                            }
                        }
                        "LEFT" | "RIGHT" if call => self.push(t, if up == "LEFT" { "ts_left" } else { "ts_right" }),
                        "LENGTH" | "OCTET_LENGTH" if call => self.push(t, "octet_length"),
                        "CHAR_LENGTH" | "CHARACTER_LENGTH" if call => self.push(t, "length"),
                        "LCASE" if call => self.push(t, "lower"),
                        "UCASE" if call => self.push(t, "upper"),
                        "MID" if call => self.push(t, "substr"),
                        "GREATEST" if call => self.push(t, "max"),
                        "LEAST" if call => self.push(t, "min"),
                        "ISNULL" if call => self.push(t, "ts_isnull"),
                        "RAND" if call => self.push(t, "ts_rand"),
                        "DATABASE" | "SCHEMA" if call => self.push(t, "ts_database"),
                        "CAST" | "CONVERT" if call && self.binary_n_cast(i, to).is_some() => {
                            i = self.emit_binary_n_cast(i, to)?;
                            continue;
                        }
                        "CONVERT" if call => self.push(t, "CAST"),
                        "BINARY" if !call && self.parens.last().is_none_or(|f| f != "CAST#AS") => {
                            // BINARY expr: a binary comparison; SQLite compares with the column's collation.
                        }
                        "COLLATE" => {
                            let name = toks.get(i + 1).and_then(|n| match &n.tok {
                                Tok::Word(w) | Tok::Quoted(w) => Some(w.to_string()),
                                Tok::Str(s) => Some(String::from_utf8_lossy(s).into_owned()),
                                _ => None,
                            });
                            let name = name.ok_or_else(|| SqlError::syntax(&self.sql[t.start..]))?.to_ascii_lowercase();
                            let coll = if name == "binary" {
                                "BINARY"
                            } else if name.ends_with("_bin") {
                                "RTRIM"
                            } else {
                                "ts_ci"
                            };
                            self.push(t, &format!("COLLATE {}", coll));
                            self.last_end = Some(toks[i + 1].end);
                            i += 2;
                            continue;
                        }
                        "VALUES" if call && self.odku => {
                            // VALUES(col) → excluded.col
                            let col = toks.get(i + 2).and_then(|c| c.ident()).ok_or_else(|| SqlError::syntax(&self.sql[t.start..]))?.to_string();
                            if !self.op_at(i + 3, ")") {
                                return Err(SqlError::syntax(&self.sql[t.start..]));
                            }
                            self.push(t, &format!("excluded.{}", sq_ident(&col)));
                            self.last_end = Some(toks[i + 3].end);
                            i += 4;
                            continue;
                        }
                        "MATCH" if call => return Err(Self::unsupported("MATCH ... AGAINST (full-text search)")),
                        "TIMESTAMPDIFF" | "TIMESTAMPADD" | "EXTRACT" if call => {
                            // first argument is a unit word → string
                            let unit = toks.get(i + 2).and_then(|u| u.ident()).ok_or_else(|| SqlError::syntax(&self.sql[t.start..]))?.to_ascii_uppercase();
                            let fname = match up.as_str() {
                                "EXTRACT" => "ts_extract",
                                "TIMESTAMPDIFF" => "timestampdiff",
                                _ => "timestampadd",
                            };
                            self.push(t, &format!("{}('{}', ", fname, unit));
                            let sep = if up == "EXTRACT" { "FROM" } else { "," };
                            let ok = if sep == "FROM" { self.word_at(i + 3, "FROM") } else { self.op_at(i + 3, ",") };
                            if !ok {
                                return Err(SqlError::syntax(&self.sql[t.start..]));
                            }
                            self.parens.push(String::new());
                            self.last_end = None;
                            i += 4;
                            continue;
                        }
                        "FROM" | "FOR" if self.parens.last().is_some_and(|f| f == "SUBSTRING" || f == "SUBSTR") => self.push(t, ","),
                        "USING" if self.parens.last().is_some_and(|f| f == "CONVERT") => {
                            // CONVERT(x USING cs) → CAST(x AS TEXT)
                            self.push(t, "AS TEXT");
                            i += 2;
                            continue;
                        }
                        "AS" if self.parens.last().is_some_and(|f| f == "CAST" || f == "CONVERT") => {
                            self.push(t, "AS");
                            i = self.cast_type(i + 1, to)?;
                            continue;
                        }
                        "TRIM" if call && (toks.get(i + 2).is_some_and(|n| n.is_kw("BOTH") || n.is_kw("LEADING") || n.is_kw("TRAILING")) || self.top_level_word(i + 1, to, "FROM").is_some()) => {
                            i = self.trim_from(i, to)?;
                            continue;
                        }
                        "POSITION" if call => {
                            // POSITION(sub IN s) → locate(sub, s)
                            let syntax = || SqlError::syntax(&self.sql[t.start..]);
                            let (close, inner) = self.paren_span(i + 1, to).ok_or_else(syntax)?;
                            let inn = inner.into_iter().find(|&j| toks[j].is_kw("IN")).ok_or_else(syntax)?;
                            self.push(t, "locate(");
                            self.emit(i + 2, inn)?;
                            self.raw(", ");
                            self.emit(inn + 1, close)?;
                            self.raw(")");
                            self.last_end = Some(toks[close].end);
                            i = close + 1;
                            continue;
                        }
                        "INSERT" if call && i > from => self.push(t, "ts_insert"),
                        "JSON_ARRAYAGG" if call => self.push(t, "json_group_array"),
                        "JSON_OBJECTAGG" if call => self.push(t, "json_group_object"),
                        "LIKE" => {
                            self.push(t, "LIKE");
                            // MySQL's LIKE escapes with backslash by default.
                            if let Some(Tok::Str(s)) = toks.get(i + 1).map(|n| &n.tok) {
                                if s.contains(&b'\\') && !self.word_at(i + 2, "ESCAPE") {
                                    let lit = str_literal(s);
                                    self.push(&toks[i + 1], &lit);
                                    self.raw(" ESCAPE '\\'");
                                    self.last_end = Some(toks[i + 1].end);
                                    i += 2;
                                    continue;
                                }
                            }
                        }
                        // A name that starts with a digit (MySQL allows `1abc`, and `0x`
                        // is one): SQLite reads it only quoted.
                        _ if w.starts_with(|c: char| c.is_ascii_digit()) => {
                            self.push(t, &sq_ident(w));
                            self.note_table(i);
                        }
                        _ => {
                            self.push(t, w);
                            self.note_table(i);
                        }
                    }
                    if call {
                        // remember the function of the next '('
                        self.pending_call(&up);
                    }
                    i += 1;
                }
                Tok::Str(s) => {
                    let mut bytes = s.clone();
                    let mut j = i + 1;
                    while j < to {
                        if let Tok::Str(more) = &toks[j].tok {
                            bytes.extend_from_slice(more);
                            j += 1;
                        } else {
                            break;
                        }
                    }
                    self.push(t, &str_literal(&bytes));
                    if j > i + 1 {
                        self.last_end = Some(toks[j - 1].end);
                    }
                    i = j;
                }
                Tok::Number(n) if needs_exact_float(n) => {
                    self.push(t, &format!("ts_f64('{}')", n));
                    i += 1;
                }
                Tok::Number(n) => {
                    match lex::hybrid_bytes(n) {
                        Some(b) => {
                            let text = self.hybrid_literal(i, &b);
                            self.push(t, &text);
                        }
                        None => self.push(t, n),
                    }
                    i += 1;
                }
                Tok::Param => {
                    match self.param_ord.as_ref().map(|o| o[i] + 1) {
                        Some(n) => self.push(t, &format!("?{}", n)),
                        None => self.push(t, "?"),
                    }
                    i += 1;
                }
                Tok::SysVar(..) | Tok::UserVar(_) => {
                    return Err(Self::unsupported("variables in this statement"));
                }
                Tok::Op(op) => {
                    let op = *op;
                    match op {
                        "||" => self.push(t, "OR"),
                        "&&" => self.push(t, "AND"),
                        "!" => self.push(t, "NOT "),
                        "<=>" => self.push(t, "IS"),
                        ":=" => return Err(Self::unsupported("':=' assignment in a query")),
                        // MySQL's bitwise results are unsigned 64-bit; SQLite has no ^ and a signed ~.
                        "^" => return Err(Self::unsupported("the ^ (bitwise XOR) operator")),
                        "~" => return Err(Self::unsupported("the ~ (bitwise NOT) operator")),
                        "/" => self.push(t, "* 1.0 /"),
                        "-" if toks.get(i + 1).is_some_and(|n| (n.is_op(">") || n.is_op(">>")) && n.start == t.end) => {
                            let arrow = if toks[i + 1].is_op(">>") { "->>" } else { "->" };
                            self.push(t, arrow);
                            self.last_end = Some(toks[i + 1].end);
                            i += 2;
                            continue;
                        }
                        "(" => {
                            self.push(t, "(");
                            let f = self.take_pending();
                            self.parens.push(f);
                        }
                        ")" => {
                            self.push(t, ")");
                            self.parens.pop();
                        }
                        "," if self.parens.last().is_some_and(|f| f == "CONVERT") => {
                            self.push(t, " AS");
                            i = self.cast_type(i + 1, to)?;
                            continue;
                        }
                        _ => self.push(t, op),
                    }
                    i += 1;
                }
            }
        }
        Ok(())
    }

    /// GROUP_CONCAT([DISTINCT] e1[, e2...] [ORDER BY ...] [SEPARATOR s]) at
    /// token `i` → SQLite's group_concat(e, s ORDER BY ...): the separator
    /// goes before ORDER BY, several expressions are concatenated (a row
    /// with a NULL among them is skipped, as in MySQL), and DISTINCT with a
    /// separator uses ts_group_concat_distinct (SQLite's DISTINCT aggregates
    /// take one argument). Returns the index after the closing parenthesis.
    fn group_concat(&mut self, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let syntax = || SqlError::syntax(&self.sql[toks[i].start..]);
        let (close, inner) = self.paren_span(i + 1, to).ok_or_else(syntax)?;
        let order = inner.iter().copied().find(|&j| toks[j].is_kw("ORDER") && self.word_at(j + 1, "BY"));
        let sep = inner.iter().copied().rfind(|&j| toks[j].is_kw("SEPARATOR"));
        let distinct = self.word_at(i + 2, "DISTINCT");
        let args_from = if distinct { i + 3 } else { i + 2 };
        let args_to = order.or(sep).unwrap_or(close);
        let several = inner.iter().any(|&j| toks[j].is_op(",") && j < args_to);
        if args_from >= args_to || sep.is_some_and(|s| s + 1 >= close || order.is_some_and(|o| o > s)) {
            return Err(syntax());
        }
        let name = if distinct && sep.is_some() { "ts_group_concat_distinct" } else { "group_concat" };
        self.push(&toks[i], name);
        self.raw("(");
        if distinct && sep.is_none() {
            self.raw("DISTINCT ");
        }
        if !several {
            self.emit(args_from, args_to)?;
        } else {
            self.raw("concat(");
            self.emit(args_from, args_to)?;
            self.raw(")");
        }
        if let Some(s) = sep {
            self.raw(", ");
            self.emit(s + 1, close)?;
        }
        if let Some(o) = order {
            self.raw(" ");
            self.emit(o, sep.unwrap_or(close))?;
        }
        self.raw(")");
        self.last_end = Some(toks[close].end);
        Ok(close + 1)
    }

    /// `x + INTERVAL n unit` / `x - INTERVAL n unit` with INTERVAL at token
    /// `i`, x and the operator already written: rewrite the output to
    /// date_add(x, [-](n), 'UNIT'). x is the primary before the operator (a
    /// literal, a column, a function call, a parenthesized expression, or
    /// the previous such rewrite). Returns the index after the unit.
    fn interval_arithmetic(&mut self, from: usize, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let syntax = || SqlError::syntax(&self.sql[toks[i].start..]);
        let op = i - 1;
        if op <= from {
            return Err(syntax());
        }
        let mut k = op - 1;
        if let Some((_, start)) = self.last_interval.filter(|(unit, _)| *unit == k) {
            k = start;
        } else if toks[k].is_op(")") {
            let mut depth = 0usize;
            loop {
                if toks[k].is_op(")") {
                    depth += 1;
                } else if toks[k].is_op("(") {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                if k == from {
                    return Err(syntax());
                }
                k -= 1;
            }
            if k > from && toks[k - 1].ident().is_some() {
                k -= 1;
            }
        } else {
            while k >= from + 2 && toks[k - 1].is_op(".") && toks[k - 2].ident().is_some() {
                k -= 2;
            }
        }
        let (start, op_at) = (self.out_at[k], self.out_at[op]);
        if start == usize::MAX || op_at == usize::MAX || start > op_at {
            return Err(syntax());
        }
        let start = start + self.out[start..].len() - self.out[start..].trim_start().len();
        // Drop the operator, wrap the operand.
        self.out.truncate(op_at);
        self.out.insert_str(start, "date_add(");
        for p in self.out_at.iter_mut() {
            if *p != usize::MAX && *p >= start {
                *p += "date_add(".len();
            }
        }
        let mut j = i + 1;
        while j < to && !INTERVAL_UNITS.iter().any(|u| toks[j].is_kw(u)) {
            j += 1;
        }
        if j >= to || j == i + 1 {
            return Err(syntax());
        }
        self.raw(if toks[op].is_op("-") { ", -(" } else { ", (" });
        self.emit(i + 1, j)?;
        let unit = toks[j].ident().unwrap_or("").to_ascii_uppercase();
        self.raw(&format!("), '{}')", unit));
        self.last_end = Some(toks[j].end);
        self.last_interval = Some((j, k));
        Ok(j + 1)
    }

    /// The `)` closing the `(` at token `open`, and the indices of the tokens
    /// directly inside (not in nested parentheses).
    fn paren_span(&self, open: usize, to: usize) -> Option<(usize, Vec<usize>)> {
        let mut depth = 0usize;
        let mut inner = Vec::new();
        for (j, t) in self.toks.iter().enumerate().take(to).skip(open) {
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth -= 1;
                if depth == 0 {
                    return Some((j, inner));
                }
            } else if depth == 1 {
                inner.push(j);
            }
        }
        None
    }

    /// `CAST(x AS BINARY(n))` / `CONVERT(x, BINARY(n))` at token `i`: the
    /// index of the AS or comma, n, and the index of the closing parenthesis.
    fn binary_n_cast(&self, i: usize, to: usize) -> Option<(usize, u64, usize)> {
        let toks = self.toks;
        let (close, inner) = self.paren_span(i + 1, to)?;
        let sep = inner.into_iter().find(|&j| toks[j].is_kw("AS") || toks[j].is_op(","))?;
        let n = match toks.get(sep + 3).map(|t| &t.tok) {
            Some(Tok::Number(n)) => n.parse::<u64>().ok()?,
            _ => return None,
        };
        let shape = self.word_at(sep + 1, "BINARY") && self.op_at(sep + 2, "(") && self.op_at(sep + 4, ")") && sep + 5 == close;
        shape.then_some((sep, n, close))
    }

    /// `CAST(x AS BINARY(n))` → `ts_bin_n(x, n)`: exactly n bytes, padded with
    /// 0x00 or cut, as MySQL's cast. Returns the index after the cast.
    fn emit_binary_n_cast(&mut self, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let (sep, n, close) = self.binary_n_cast(i, to).ok_or_else(|| SqlError::syntax(&self.sql[toks[i].start..]))?;
        self.push(&toks[i], "ts_bin_n(");
        self.last_end = None;
        self.emit(i + 2, sep)?;
        self.raw(&format!(", {})", n));
        self.last_end = Some(toks[close].end);
        Ok(close + 1)
    }

    /// Index of keyword `kw` directly inside the parentheses opened at `open`.
    fn top_level_word(&self, open: usize, to: usize, kw: &str) -> Option<usize> {
        self.paren_span(open, to)?.1.into_iter().find(|&j| self.toks[j].is_kw(kw))
    }

    /// TRIM([BOTH|LEADING|TRAILING] [remstr] FROM s) at token `i` →
    /// ts_trim(s, remstr, mode) (functions/ext.rs). Returns the index after `)`.
    fn trim_from(&mut self, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let syntax = || SqlError::syntax(&self.sql[toks[i].start..]);
        let (close, inner) = self.paren_span(i + 1, to).ok_or_else(syntax)?;
        let mode = ["BOTH", "LEADING", "TRAILING"].into_iter().find(|m| self.word_at(i + 2, m));
        let rem_from = if mode.is_some() { i + 3 } else { i + 2 };
        let from_kw = inner.into_iter().find(|&j| toks[j].is_kw("FROM"));
        let (rem, subject) = match from_kw {
            Some(f) if f > rem_from => (Some((rem_from, f)), (f + 1, close)),
            Some(f) => (None, (f + 1, close)),
            // TRIM(LEADING s): trim spaces
            None => (None, (rem_from, close)),
        };
        if subject.0 >= subject.1 {
            return Err(syntax());
        }
        self.push(&toks[i], "ts_trim(");
        self.emit(subject.0, subject.1)?;
        self.raw(", ");
        match rem {
            Some((a, b)) => self.emit(a, b)?,
            None => self.raw("' '"),
        }
        self.raw(&format!(", '{}')", mode.unwrap_or("BOTH")));
        self.last_end = Some(toks[close].end);
        Ok(close + 1)
    }

    fn note_table(&mut self, i: usize) {
        let toks = self.toks;
        if i == 0 {
            return;
        }
        let t = &toks[i];
        if t.is_kw("FROM") {
            self.in_from = true;
        } else if ["WHERE", "GROUP", "ORDER", "LIMIT", "HAVING", "ON", "USING", "SET", "UNION", "WINDOW", "SELECT", "VALUES"].iter().any(|k| t.is_kw(k)) {
            self.in_from = false;
        }
        let prev = &toks[i - 1];
        // A WITH name: `name AS (` or `name (columns) AS (`, first in the
        // WITH list or after a comma at the top level.
        let starts_cte = prev.is_kw("WITH") || prev.is_kw("RECURSIVE") || (prev.is_op(",") && self.parens.is_empty());
        if let (Some(n), true) = (t.ident(), starts_cte) {
            let after_columns = if self.op_at(i + 1, "(") { self.paren_span(i + 1, toks.len()).map(|(close, _)| close + 1) } else { Some(i + 1) };
            if after_columns.is_some_and(|j| self.word_at(j, "AS") && self.op_at(j + 1, "(")) {
                self.ctes.push(n.to_string());
            }
        }
        let after_comma = prev.is_op(",") && self.in_from && self.parens.is_empty();
        if (prev.is_kw("FROM") || prev.is_kw("JOIN") || prev.is_kw("INTO") || prev.is_kw("UPDATE") || after_comma) && !self.op_at(i + 1, ".") && !self.op_at(i + 1, "(") {
            if let Some(n) = toks[i].ident() {
                self.tables.push((None, n.to_string()));
            }
        }
    }

    fn pending_call(&mut self, name: &str) {
        self.parens_pending = Some(name.to_string());
    }
    fn take_pending(&mut self) -> String {
        self.parens_pending.take().unwrap_or_default()
    }

    /// Translate a CAST/CONVERT target type starting at token `i`; returns the
    /// index after it.
    fn cast_type(&mut self, i: usize, to: usize) -> Result<usize, SqlError> {
        let toks = self.toks;
        let t = toks.get(i).filter(|_| i < to).ok_or_else(|| SqlError::syntax(""))?;
        let name = t.ident().unwrap_or("").to_ascii_uppercase();
        let mut j = i + 1;
        let target = match name.as_str() {
            "SIGNED" | "UNSIGNED" => {
                if self.word_at(j, "INTEGER") || self.word_at(j, "INT") {
                    j += 1;
                }
                "INTEGER"
            }
            "INTEGER" | "INT" => "INTEGER",
            "CHAR" | "NCHAR" | "VARCHAR" | "BINARY" | "TEXT" | "DATE" | "DATETIME" | "TIME" | "JSON" | "YEAR" => "TEXT",
            "DECIMAL" | "NUMERIC" => "NUMERIC",
            "DOUBLE" | "FLOAT" | "REAL" => "REAL",
            _ => return Err(SqlError::syntax(&self.sql[t.start..])),
        };
        if self.op_at(j, "(") {
            while j < to && !toks[j].is_op(")") {
                j += 1;
            }
            j += 1;
        }
        while self.word_at(j, "CHARACTER") || self.word_at(j, "CHARSET") || self.word_at(j, "ARRAY") {
            if self.word_at(j, "CHARACTER") {
                j += 1;
            }
            j += 2;
        }
        self.raw(&format!(" {}", target));
        if let Some(p) = self.parens.last_mut() {
            if p == "CONVERT" {
                *p = "CAST#AS".into();
            }
        }
        if j > 0 {
            self.last_end = Some(toks[(j - 1).min(toks.len() - 1)].end);
        }
        Ok(j)
    }

    // ------------------------------------------------------------ INSERT

    fn insert(&mut self) -> Result<InsertInfo, SqlError> {
        let toks = self.toks;
        let mut c = Cur::new(self.sql, toks);
        let replace = c.eat_kw("REPLACE");
        if !replace {
            c.expect_kw("INSERT")?;
        }
        let mut ignore = false;
        loop {
            if c.eat_kw("LOW_PRIORITY") || c.eat_kw("DELAYED") || c.eat_kw("HIGH_PRIORITY") {
                continue;
            }
            if c.eat_kw("IGNORE") {
                ignore = true;
                continue;
            }
            break;
        }
        c.eat_kw("INTO");
        let (db, table) = c.qualified()?;
        if c.is_kw("PARTITION") {
            return Err(Self::unsupported("PARTITION in INSERT"));
        }
        let def = self.r.table(db.as_deref(), &table);
        self.tables.push((db.clone(), table.clone()));
        let schema = match &db {
            Some(d) => match self.qualifier(d, &table) {
                Some(q) => Some(q),
                None => return Err(SqlError::new(1146, "42S02", format!("Table '{}.{}' doesn't exist", d, table))),
            },
            None => None,
        };
        let qname = match &schema {
            Some(q) => format!("{}.{}", q, sq_ident(&table)),
            None => sq_ident(&table),
        };
        // column list
        let mut cols: Vec<String> = Vec::new();
        let mut explicit_cols = false;
        if c.is_op("(") && !c.peek_at(1).is_some_and(|t| t.is_kw("SELECT") || t.is_kw("WITH")) {
            c.next();
            explicit_cols = true;
            if !c.is_op(")") {
                loop {
                    cols.push(c.ident()?);
                    if !c.eat_op(",") {
                        break;
                    }
                }
            }
            c.expect_op(")")?;
        }
        let ai_col = def.as_ref().and_then(|d| d.auto_increment_column().map(|a| a.name.clone()));
        let schema = schema.unwrap_or_else(|| if self.r.is_temp(&table) { "temp" } else { "main" }.to_string());
        let target = format!("{}.{}", schema, sq_ident(&table));
        let mut info = InsertInfo { has_ai: ai_col.is_some(), ignore, replace, target, schema, table: table.clone(), ..Default::default() };
        if self.has_odku(c.pos) {
            // ON DUPLICATE KEY UPDATE values are written twice (see below).
            self.param_ord = Some(param_ordinals(toks));
        }
        let verb = if replace {
            "REPLACE"
        } else if ignore && !self.has_odku(c.pos) {
            "INSERT OR IGNORE"
        } else {
            "INSERT"
        };
        // rows: Vec of Vec<(from, to)> token ranges per value; or SELECT range
        enum Source {
            Values(Vec<Vec<(usize, usize)>>),
            Select(usize, usize),
        }
        let source;
        if c.eat_kw("SET") {
            if explicit_cols {
                return Err(c.error());
            }
            let mut row = Vec::new();
            loop {
                cols.push(c.ident()?);
                if !(c.eat_op("=") || c.eat_op(":=")) {
                    return Err(c.error());
                }
                let s = c.pos;
                let e = expr_end(toks, s);
                if s == e {
                    return Err(c.error());
                }
                row.push((s, e));
                c.pos = e;
                if !c.eat_op(",") {
                    break;
                }
            }
            source = Source::Values(vec![row]);
        } else if c.eat_kw("VALUES") || c.eat_kw("VALUE") {
            let mut rows = Vec::new();
            loop {
                c.eat_kw("ROW");
                c.expect_op("(")?;
                let mut row = Vec::new();
                if !c.is_op(")") {
                    loop {
                        let s = c.pos;
                        let e = expr_end(toks, s);
                        if s == e {
                            return Err(c.error());
                        }
                        row.push((s, e));
                        c.pos = e;
                        if !c.eat_op(",") {
                            break;
                        }
                    }
                }
                c.expect_op(")")?;
                rows.push(row);
                if !c.eat_op(",") {
                    break;
                }
            }
            source = Source::Values(rows);
        } else if c.is_kw("SELECT") || c.is_kw("WITH") || c.is_op("(") || c.is_kw("TABLE") {
            let s = c.pos;
            let mut e = s;
            let mut depth = 0;
            while e < toks.len() {
                if toks[e].is_op("(") {
                    depth += 1;
                } else if toks[e].is_op(")") {
                    depth -= 1;
                } else if depth == 0 && toks[e].is_kw("ON") && toks.get(e + 1).is_some_and(|t| t.is_kw("DUPLICATE")) {
                    break;
                }
                e += 1;
            }
            c.pos = e;
            source = Source::Select(s, e);
        } else {
            return Err(c.error());
        }
        if c.is_kw("AS") {
            return Err(Self::unsupported("row aliases in INSERT (INSERT ... AS alias)"));
        }
        // target columns
        if cols.is_empty() && !explicit_cols {
            if let Some(d) = &def {
                cols = d.columns.iter().map(|c| c.name.clone()).collect();
            }
        }
        let ai_pos = ai_col.as_ref().and_then(|a| cols.iter().position(|c| c.eq_ignore_ascii_case(a)));
        info.ai_named = ai_pos.is_some();
        info.cols = cols.clone();
        self.raw(&format!("{} INTO {}", verb, qname));
        if !cols.is_empty() {
            self.raw(&format!(" ({})", cols.iter().map(|c| sq_ident(c)).collect::<Vec<_>>().join(", ")));
        }
        match source {
            Source::Values(rows) => {
                info.rows = rows.len();
                if rows.len() == 1 && rows[0].is_empty() && cols.is_empty() {
                    self.raw(" DEFAULT VALUES");
                } else {
                    self.raw(" VALUES ");
                    for (ri, row) in rows.iter().enumerate() {
                        if !cols.is_empty() && row.len() != cols.len() {
                            return Err(SqlError::new(1136, "21S01", format!("Column count doesn't match value count at row {}", ri + 1)));
                        }
                        if ri > 0 {
                            self.raw(", ");
                        }
                        self.raw("(");
                        for (vi, &(s, e)) in row.iter().enumerate() {
                            if vi > 0 {
                                self.raw(", ");
                            }
                            let is_default = e == s + 1 && toks[s].is_kw("DEFAULT");
                            if is_default {
                                let col = cols.get(vi).and_then(|n| def.as_ref().and_then(|d| d.column(n)));
                                let d = match col {
                                    Some(cd) if cd.auto_increment => "NULL".to_string(),
                                    Some(cd) => super::ddl::implicit_default(cd),
                                    None => "NULL".into(),
                                };
                                if ri == 0 {
                                    info.first_row.push(d.clone());
                                }
                                self.raw(&d);
                                continue;
                            }
                            let at = self.out.len();
                            let cd = cols.get(vi).and_then(|n| def.as_deref().and_then(|d| d.column(n)));
                            if Some(vi) == ai_pos {
                                self.raw("ts_ai(");
                                self.emit_store(s, e, cd)?;
                                self.raw(")");
                            } else {
                                self.emit_store(s, e, cd)?;
                            }
                            if ri == 0 {
                                let text = self.out[at..].trim().to_string();
                                info.first_row.push(text);
                            }
                        }
                        self.raw(")");
                    }
                }
            }
            Source::Select(s, e) => {
                info.rows = 0;
                let odku = self.has_odku(e);
                let binary: Vec<Option<u64>> = cols.iter().map(|n| def.as_deref().and_then(|d| d.column(n)).filter(|cd| cd.base.is_binary()).map(binary_pad)).collect();
                if ai_pos.is_some() || odku || binary.iter().any(Option::is_some) {
                    let n = cols.len();
                    let names: Vec<String> = (0..n).map(|k| format!("c{}", k)).collect();
                    self.raw(&format!(" WITH ts_src({}) AS (", names.join(", ")));
                    self.emit(s, e)?;
                    let sel: Vec<String> = names
                        .iter()
                        .enumerate()
                        .map(|(k, nm)| match binary[k] {
                            _ if Some(k) == ai_pos => format!("ts_ai({})", nm),
                            Some(pad) => format!("ts_bin({}, {})", nm, pad),
                            None => nm.clone(),
                        })
                        .collect();
                    self.raw(&format!(") SELECT {} FROM ts_src WHERE true", sel.join(", ")));
                } else {
                    self.raw(" ");
                    self.emit(s, e)?;
                }
            }
        }
        if c.eat_kw("ON") {
            c.expect_kw("DUPLICATE")?;
            c.expect_kw("KEY")?;
            c.expect_kw("UPDATE")?;
            if replace {
                return Err(c.error());
            }
            info.odku = true;
            self.raw(" ON CONFLICT DO UPDATE SET ");
            self.odku = true;
            let mut first = true;
            // (column, SQLite text of its new value), for the change test below
            let mut values: Vec<(String, String)> = Vec::new();
            let mut repeatable = true;
            loop {
                let col = c.ident()?;
                let col = if c.eat_op(".") { c.ident()? } else { col };
                if !(c.eat_op("=") || c.eat_op(":=")) {
                    return Err(c.error());
                }
                let s = c.pos;
                let e = expr_end(toks, s);
                if s == e {
                    return Err(c.error());
                }
                if !first {
                    self.raw(", ");
                }
                self.raw(&format!("{} = ", sq_ident(&col)));
                if first {
                    self.raw("ts_upd(");
                }
                let from = self.out.len();
                self.emit_store(s, e, def.as_deref().and_then(|d| d.column(&col)))?;
                values.push((col.clone(), self.out[from..].trim().to_string()));
                if toks[s..e].iter().enumerate().any(|(k, t)| NOT_REPEATABLE.iter().any(|f| t.is_kw(f)) && toks.get(s + k + 1).is_some_and(|n| n.is_op("("))) {
                    repeatable = false;
                }
                if first {
                    self.raw(")");
                }
                first = false;
                c.pos = e;
                if !c.eat_op(",") {
                    break;
                }
            }
            self.odku = false;
            // MySQL leaves a duplicate whose new values equal the stored ones
            // alone (affected rows 0 for it, or 1 with CLIENT_FOUND_ROWS):
            // ts_chg counts every duplicate and lets only real changes through
            // (ts_upd, in the SET, then counts those). See `update`.
            if !repeatable {
                values.clear();
            }
            let affs: String = values.iter().map(|(col, _)| affinity_code(def.as_deref(), col)).collect();
            self.raw(&format!(" WHERE ts_chg('{}'", affs));
            for (col, v) in &values {
                self.raw(&format!(", {}, ({})", sq_ident(col), v));
            }
            self.raw(")");
        }
        if !c.at_end() {
            return Err(c.error());
        }
        Ok(info)
    }

    fn has_odku(&self, from: usize) -> bool {
        let mut depth = 0;
        for (k, t) in self.toks.iter().enumerate().skip(from) {
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth -= 1;
            } else if depth == 0 && t.is_kw("ON") && self.word_at(k + 1, "DUPLICATE") {
                return true;
            }
        }
        false
    }

    // ------------------------------------------------------------ UPDATE / DELETE

    fn update_delete(&mut self, update: bool) -> Result<(), SqlError> {
        let toks = self.toks;
        let mut c = Cur::new(self.sql, toks);
        let mut ignore = false;
        if update {
            c.expect_kw("UPDATE")?;
        } else {
            c.expect_kw("DELETE")?;
        }
        loop {
            if c.eat_kw("LOW_PRIORITY") || c.eat_kw("QUICK") {
                continue;
            }
            if c.eat_kw("IGNORE") {
                ignore = true;
                continue;
            }
            break;
        }
        if !update && !c.eat_kw("FROM") {
            return Err(Self::unsupported("multi-table DELETE"));
        }
        let tstart = c.pos;
        let (db, table) = c.qualified()?;
        let tend = c.pos;
        self.tables.push((db.clone(), table.clone()));
        if c.is_op(",") || ["JOIN", "INNER", "LEFT", "RIGHT", "CROSS", "STRAIGHT_JOIN", "NATURAL"].iter().any(|k| c.is_kw(k)) || (!update && c.is_kw("USING")) {
            return Err(Self::unsupported(if update { "multi-table UPDATE" } else { "multi-table DELETE" }));
        }
        let mut alias = false;
        if c.eat_kw("AS") {
            c.ident()?;
            alias = true;
        } else if let Some(Tok::Word(w)) = c.peek().map(|t| &t.tok) {
            if !["SET", "WHERE", "ORDER", "LIMIT", "USING"].iter().any(|k| w.eq_ignore_ascii_case(k)) {
                c.next();
                alias = true;
            }
        }
        let alias_end = c.pos;
        if c.is_op(",") || ["JOIN", "INNER", "LEFT", "RIGHT", "CROSS", "STRAIGHT_JOIN", "NATURAL", "USING"].iter().any(|k| c.is_kw(k)) {
            return Err(Self::unsupported(if update { "multi-table UPDATE" } else { "multi-table DELETE" }));
        }
        // find top-level ORDER BY / LIMIT
        let mut depth = 0;
        let mut order_at = None;
        let mut limit_at = None;
        let mut where_at = None;
        for (k, t) in toks.iter().enumerate().skip(c.pos) {
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth -= 1;
            } else if depth == 0 {
                if t.is_kw("ORDER") && self.word_at(k + 1, "BY") && order_at.is_none() {
                    order_at = Some(k);
                } else if t.is_kw("LIMIT") && limit_at.is_none() {
                    limit_at = Some(k);
                } else if t.is_kw("WHERE") && where_at.is_none() {
                    where_at = Some(k);
                }
            }
        }
        // WHERE, then ORDER BY, then LIMIT: anything else is MySQL's 1064
        // (and the translation below relies on that order).
        let out_of_place = match (where_at, order_at.or(limit_at), order_at, limit_at) {
            (Some(w), Some(t), _, _) if w > t => Some(w),
            (_, _, Some(o), Some(l)) if o > l => Some(o),
            _ => None,
        };
        if let Some(at) = out_of_place {
            return Err(SqlError::syntax(&self.sql[toks[at].start..]));
        }
        if update {
            return self.update(c, ignore, (db, table), (tstart, tend, alias_end), where_at, order_at.or(limit_at));
        }
        self.raw("DELETE FROM ");
        let body_start = tend;
        if order_at.is_none() && limit_at.is_none() {
            self.emit(tstart, toks.len())?;
            return Ok(());
        }
        if alias {
            return Err(Self::unsupported("ORDER BY/LIMIT in UPDATE or DELETE with a table alias"));
        }
        let tail = order_at.or(limit_at).unwrap_or(toks.len());
        let cut = where_at.unwrap_or(tail);
        // DELETE FROM t WHERE rowid IN (SELECT rowid FROM t [WHERE ...] [ORDER BY] [LIMIT])
        self.emit(tstart, tend)?;
        self.emit(body_start, cut)?;
        self.raw(" WHERE rowid IN (SELECT rowid FROM ");
        self.last_end = None;
        self.emit(tstart, tend)?;
        self.emit(cut, toks.len())?;
        self.raw(")");
        Ok(())
    }

    /// UPDATE, with MySQL's affected-rows rule: a matched row whose new values
    /// equal the stored ones is not written and not counted as changed.
    ///
    /// `UPDATE t SET a = X, b = Y WHERE cond` becomes
    /// `UPDATE t SET a = X, b = Y WHERE (cond) AND ts_chg('<affinities>', a, X, b, Y, <cond's columns>)`.
    /// `ts_chg` (functions.rs) runs once per row that satisfies `cond` (it is
    /// the last WHERE term; the trailing column references keep SQLite from
    /// testing it before cond's terms when an index covers it): it counts the
    /// row as matched and is true when some new value, after the column's
    /// affinity, differs from the stored one (NULL-safe, byte-exact). So
    /// SQLite's change count is MySQL's "changed" and the function's count its
    /// "matched". With ORDER BY/LIMIT (or a subquery in the WHERE) the rows are
    /// chosen first, `WHERE rowid IN (SELECT rowid FROM t WHERE cond ORDER BY
    /// .. LIMIT n) AND ts_chg(..)`, so LIMIT still counts matched rows.
    /// Parameters are numbered (`?N`) because X and Y appear twice. A SET value
    /// that is not repeatable (RAND(), UUID(), ...) is not compared: every
    /// matched row is written and counts as changed.
    fn update(&mut self, mut c: Cur<'_>, ignore: bool, target: (Option<String>, String), span: (usize, usize, usize), where_at: Option<usize>, tail: Option<usize>) -> Result<(), SqlError> {
        let toks = self.toks;
        let (db, table) = target;
        let (tstart, tend, alias_end) = span;
        self.param_ord = Some(param_ordinals(toks));
        let def = self.r.table(db.as_deref(), &table);
        // SET col = value, ...: (column, value token range)
        let mut assigns: Vec<(String, usize, usize)> = Vec::new();
        let set_end = [where_at, tail].into_iter().flatten().min().unwrap_or(toks.len());
        if c.eat_kw("SET") {
            while c.pos < set_end {
                let mut col = c.ident()?;
                while c.eat_op(".") {
                    col = c.ident()?;
                }
                if !(c.eat_op("=") || c.eat_op(":=")) {
                    return Err(c.error());
                }
                let s = c.pos;
                let e = expr_end(toks, s).min(set_end);
                assigns.push((col, s, e));
                c.pos = e;
                if !c.eat_op(",") {
                    break;
                }
            }
        }
        self.raw(if ignore { "UPDATE OR IGNORE " } else { "UPDATE " });
        let mut at = tstart;
        let mut values: Vec<(String, String)> = Vec::new();
        for (col, s, e) in &assigns {
            self.emit(at, *s)?;
            let from = self.out.len();
            match def.as_deref().and_then(|d| d.column(col)) {
                Some(cd) if e > s => self.emit_store(*s, *e, Some(cd))?,
                _ => self.emit(*s, *e)?,
            }
            values.push((col.clone(), self.out[from..].trim().to_string()));
            at = *e;
        }
        let repeatable = !assigns.iter().any(|&(_, s, e)| toks[s..e].iter().enumerate().any(|(k, t)| NOT_REPEATABLE.iter().any(|f| t.is_kw(f)) && toks.get(s + k + 1).is_some_and(|n| n.is_op("("))));
        // Columns of the table the WHERE refers to (see above).
        let mut refs: Vec<String> = Vec::new();
        if let (Some(w), Some(d)) = (where_at, def.as_deref()) {
            for t in &toks[w..tail.unwrap_or(toks.len())] {
                if let Some(name) = t.ident() {
                    if let Some(col) = d.column(name) {
                        if !refs.iter().any(|r| r.eq_ignore_ascii_case(&col.name)) {
                            refs.push(col.name.clone());
                        }
                    }
                }
            }
        }
        let mut chg = String::from("ts_chg('");
        if repeatable {
            for (col, _) in &values {
                chg.push(affinity_code(def.as_deref(), col));
            }
        }
        chg.push('\'');
        if repeatable {
            for (col, v) in &values {
                chg.push_str(&format!(", {}, ({})", sq_ident(col), v));
            }
        }
        let subquery = where_at.is_some_and(|w| toks[w..].iter().any(|t| t.is_kw("SELECT")));
        let direct = tail.is_none() && !subquery;
        if direct {
            for r in &refs {
                chg.push_str(&format!(", {}", sq_ident(r)));
            }
        }
        chg.push(')');
        if direct {
            let cut = where_at.unwrap_or(toks.len());
            self.emit(at, cut)?;
            match where_at {
                Some(w) => {
                    self.raw(" WHERE (");
                    self.emit(w + 1, toks.len())?;
                    self.raw(") AND ");
                }
                None => self.raw(" WHERE "),
            }
            self.raw(&chg);
            return Ok(());
        }
        // UPDATE t SET ... WHERE rowid IN (SELECT rowid FROM t [alias] [WHERE ...] [ORDER BY] [LIMIT]) AND ts_chg(..)
        let cut = where_at.or(tail).unwrap_or(toks.len());
        self.emit(at, cut)?;
        self.raw(" WHERE rowid IN (SELECT rowid FROM ");
        self.last_end = None;
        self.emit(tstart, tend)?;
        self.emit(tend, alias_end)?;
        self.emit(cut, toks.len())?;
        self.raw(") AND ");
        self.raw(&chg);
        Ok(())
    }
}

/// Functions whose value may differ between two calls in one statement: an
/// UPDATE that assigns one is not compared with the stored row (ts_chg).
const NOT_REPEATABLE: &[&str] = &["RAND", "UUID", "UUID_SHORT", "RANDOM_BYTES", "SYSDATE", "SLEEP", "GET_LOCK", "RELEASE_LOCK"];

/// The SQLite affinity of a column as ddl.rs declares it: 'I' INTEGER,
/// 'R' REAL, 'T' TEXT; '?' when unknown (then only identical values compare equal).
pub fn affinity_code(def: Option<&TableDef>, col: &str) -> char {
    match def.and_then(|d| d.column(col)).map(|c| super::ddl::storage_affinity(c)) {
        Some("INTEGER") => 'I',
        Some("REAL") => 'R',
        Some("TEXT") => 'T',
        _ => '?',
    }
}

impl Tr<'_> {
    /// SQLite text for the hybrid literal (`0x..`, `b'..'`) at token `i`:
    /// its number in numeric context, else the string of its bytes (TEXT,
    /// as binary columns store them, so `b = 0x41` compares bytes).
    fn hybrid_literal(&self, i: usize, b: &[u8]) -> String {
        if self.numeric_context(i) {
            hybrid_number(b)
        } else {
            str_literal(b)
        }
    }

    /// MySQL's numeric context for the operand at token `i`: an operand of
    /// an arithmetic, bit or logical operator, of a comparison with a
    /// number or a numeric column, an argument of a numeric function or of
    /// CAST to a number. The operator it belongs to is the adjacent one
    /// that binds tighter (`b = 0x41 AND ...` compares b with 0x41).
    fn numeric_context(&self, i: usize) -> bool {
        let toks = self.toks;
        let before = i.checked_sub(1).and_then(|k| precedence(&toks[k]));
        let after = toks.get(i + 1).and_then(precedence);
        let next = toks.get(i + 1);
        match (before, after) {
            (Some(b), a) if a.is_none_or(|a| b >= a) => return if b == COMPARISON { i >= 2 && self.numeric_operand(i - 2, false) } else { true },
            (_, Some(a)) => return if a == COMPARISON { self.numeric_operand(i + 2, true) } else { true },
            _ => {}
        }
        match self.parens.last().map(String::as_str) {
            Some(f) if NUMERIC_FUNCTIONS.contains(&f) => true,
            Some("CAST" | "CONVERT") => next.is_some_and(|n| n.is_kw("AS") || n.is_op(",")) && toks.get(i + 2).is_some_and(|t| NUMERIC_TYPES.iter().any(|k| t.is_kw(k))),
            _ => false,
        }
    }

    /// Is the operand ending (or, `forward`, starting) at token `k` a number:
    /// a numeric literal, or a column of a numeric type of a table the
    /// statement names (`c`, `t.c`)?
    fn numeric_operand(&self, k: usize, forward: bool) -> bool {
        let toks = self.toks;
        let Some(t) = toks.get(k) else { return false };
        match &t.tok {
            Tok::Number(n) => lex::hybrid_bytes(n).is_none(),
            Tok::Word(_) | Tok::Quoted(_) => {
                // `t.c`: the column is the last part.
                let col = if forward && self.op_at(k + 1, ".") { toks.get(k + 2).and_then(Token::ident) } else { t.ident() };
                col.is_some_and(|c| self.statement_tables().iter().any(|d| d.column(c).is_some_and(|cd| cd.base.is_numeric())))
            }
            _ => false,
        }
    }

    /// Definitions of the tables the statement names anywhere.
    fn statement_tables(&self) -> Vec<Arc<TableDef>> {
        let toks = self.toks;
        let mut out: Vec<Arc<TableDef>> = Vec::new();
        for (k, t) in toks.iter().enumerate() {
            let Some(w) = t.ident() else { continue };
            let def = match toks.get(k + 2).and_then(Token::ident) {
                Some(next) if self.op_at(k + 1, ".") => self.r.table(Some(w), next).or_else(|| self.r.table(None, w)),
                _ => self.r.table(None, w),
            };
            if let Some(d) = def {
                if !out.iter().any(|o| Arc::ptr_eq(o, &d)) {
                    out.push(d);
                }
            }
        }
        out
    }

    /// A value written to column `col` (INSERT, UPDATE SET, ON DUPLICATE KEY
    /// UPDATE): dates in canonical form (`ts_tnorm`); a hybrid literal into
    /// a numeric column as its number; bytes for a binary column as TEXT,
    /// padded to BINARY(n) (`ts_bin`).
    fn emit_store(&mut self, s: usize, e: usize, col: Option<&super::schema::ColumnDef>) -> Result<(), SqlError> {
        let Some(cd) = col else {
            return self.emit(s, e);
        };
        if let Some(kind) = super::schema::temporal_kind_fsp(cd.base, cd.length.unwrap_or(0)) {
            return self.emit_temporal(s, e, kind);
        }
        let toks = self.toks;
        if cd.base.is_numeric() && e == s + 1 {
            if let Tok::Number(n) = &toks[s].tok {
                if let Some(b) = lex::hybrid_bytes(n) {
                    self.push(&toks[s], &hybrid_number(&b));
                    return Ok(());
                }
            }
        }
        if cd.base.is_binary() {
            self.gap(&toks[s]);
            self.raw("ts_bin(");
            self.emit(s, e)?;
            self.raw(&format!(", {})", binary_pad(cd)));
            return Ok(());
        }
        self.emit(s, e)
    }

    /// A value for a date/time column: `ts_tnorm(value, 'kind')` stores the
    /// forms MySQL accepts in canonical form (functions.rs).
    fn emit_temporal(&mut self, s: usize, e: usize, kind: &str) -> Result<(), SqlError> {
        self.raw("ts_tnorm(");
        self.emit(s, e)?;
        self.raw(&format!(", '{}')", kind));
        Ok(())
    }
}

/// Bytes a value written to `cd` is padded to: n for BINARY(n), else 0.
fn binary_pad(cd: &super::schema::ColumnDef) -> u64 {
    if cd.base == super::schema::Base::Binary {
        cd.length.unwrap_or(1)
    } else {
        0
    }
}

/// End (exclusive) of the expression starting at `s`: the next top-level `,`,
/// `)` or ON DUPLICATE.
fn expr_end(toks: &[Token], s: usize) -> usize {
    let mut depth = 0;
    let mut e = s;
    while e < toks.len() {
        let t = &toks[e];
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            if depth == 0 {
                break;
            }
            depth -= 1;
        } else if depth == 0 && (t.is_op(",") || (t.is_kw("ON") && toks.get(e + 1).is_some_and(|n| n.is_kw("DUPLICATE")))) {
            break;
        }
        e += 1;
    }
    e
}

/// For each token, how many `?` placeholders come before it: the `?N` number
/// of a parameter written more than once in the rewritten statement.
fn param_ordinals(toks: &[Token]) -> Vec<usize> {
    let mut n = 0;
    toks.iter()
        .map(|t| {
            let at = n;
            if t.tok == Tok::Param {
                n += 1;
            }
            at
        })
        .collect()
}

/// A hybrid literal's number: its last eight bytes, as SQLite integer text
/// (above i64::MAX SQLite reads the digits as a REAL).
fn hybrid_number(b: &[u8]) -> String {
    lex::hybrid_u64(b).to_string()
}

/// MySQL's operator precedence (higher binds tighter), for the operators
/// a literal can be an operand of; comparisons are `COMPARISON`.
fn precedence(t: &Token) -> Option<u8> {
    const COMPARISON_OPS: &[&str] = &["=", "<>", "!=", "<", ">", "<=", ">=", "<=>"];
    Some(match &t.tok {
        Tok::Op("~" | "!") => 10,
        Tok::Op("^") => 9,
        Tok::Op("*" | "/" | "%") => 8,
        Tok::Op("+" | "-") => 7,
        Tok::Op("<<" | ">>") => 6,
        Tok::Op("&") => 5,
        Tok::Op("|") => 4,
        Tok::Op(o) if COMPARISON_OPS.contains(o) => COMPARISON,
        Tok::Op("&&") => 1,
        Tok::Op("||") => 0,
        Tok::Word(w) => match w.to_ascii_uppercase().as_str() {
            "DIV" | "MOD" => 8,
            "NOT" => 2,
            "AND" => 1,
            "XOR" | "OR" => 0,
            _ => return None,
        },
        _ => return None,
    })
}

const COMPARISON: u8 = 3;

/// Functions whose arguments are numbers.
const NUMERIC_FUNCTIONS: &[&str] = &[
    "ABS",
    "ROUND",
    "FLOOR",
    "CEIL",
    "CEILING",
    "TRUNCATE",
    "SIGN",
    "MOD",
    "POW",
    "POWER",
    "SQRT",
    "EXP",
    "LN",
    "LOG",
    "LOG2",
    "LOG10",
    "SIN",
    "COS",
    "TAN",
    "ASIN",
    "ACOS",
    "ATAN",
    "ATAN2",
    "COT",
    "DEGREES",
    "RADIANS",
    "BIT_COUNT",
    "BIN",
    "OCT",
    "FROM_UNIXTIME",
    "SUM",
    "AVG",
    "BIT_AND",
    "BIT_OR",
    "BIT_XOR",
    "INET_NTOA",
];
const NUMERIC_TYPES: &[&str] = &["SIGNED", "UNSIGNED", "INTEGER", "INT", "DECIMAL", "NUMERIC", "DOUBLE", "FLOAT", "REAL"];

/// SQLite's text-to-double conversion is not correctly rounded for large
/// decimal exponents (1.0E-300 becomes 9.999999999999999e-301), and drivers
/// write doubles into SQL text in exponent form (Java's Double.toString does
/// below 1e-3 and from 1e7 up). Such literals, and those with more significant
/// digits than a double holds exactly, go through ts_f64(), which parses them
/// in Rust (correctly rounded).
fn needs_exact_float(n: &str) -> bool {
    let b = n.as_bytes();
    if b.len() > 1 && b[0] == b'0' && matches!(b[1], b'x' | b'X' | b'b' | b'B') {
        return false;
    }
    let exp = b.iter().any(|&c| c == b'e' || c == b'E');
    let digits = n.split(['e', 'E']).next().unwrap_or("").bytes().filter(u8::is_ascii_digit).collect::<Vec<u8>>();
    let significant = digits.iter().skip_while(|&&d| d == b'0').count();
    (exp || (n.contains('.') && significant > 15)) && n.parse::<f64>().is_ok_and(|v| v.is_finite())
}

/// A SQLite string literal for MySQL string bytes.
pub fn str_literal(s: &[u8]) -> String {
    // SQLite ends the statement text at a NUL byte, so a literal holding one
    // (MySQL's '\0' escape, which drivers send for NUL) goes as hex too.
    match std::str::from_utf8(s) {
        Ok(t) if !s.contains(&0) => {
            let mut o = String::with_capacity(t.len() + 2);
            o.push('\'');
            for ch in t.chars() {
                if ch == '\'' {
                    o.push('\'');
                }
                o.push(ch);
            }
            o.push('\'');
            o
        }
        _ => {
            let hex: String = s.iter().map(|b| format!("{:02X}", b)).collect();
            format!("CAST(X'{}' AS TEXT)", hex)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sqlite::ddl;

    struct R(Vec<Arc<TableDef>>);
    impl Resolver for R {
        fn home(&self) -> Option<&str> {
            Some("sbtest")
        }
        fn is_database(&self, n: &str) -> bool {
            n == "other" || n == "sbtest"
        }
        fn table(&self, _: Option<&str>, name: &str) -> Option<Arc<TableDef>> {
            // tmp1: a temporary table (of sbtest1's shape)
            self.0.iter().find(|t| t.name == name || name == "tmp1").cloned()
        }
        fn is_temp(&self, name: &str) -> bool {
            name == "tmp1"
        }
    }

    fn r() -> R {
        let d = match ddl::parse("CREATE TABLE sbtest1 (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c CHAR(120), PRIMARY KEY (id))").unwrap().unwrap() {
            ddl::Ddl::CreateTable { def, .. } => *def,
            _ => unreachable!(),
        };
        R(vec![Arc::new(d)])
    }

    fn sel(sql: &str) -> String {
        rewrite(sql, Kind::Select, &r()).unwrap().sql
    }

    #[test]
    fn nesting_limits_are_mariadbs() {
        let nest = |n: usize| format!("SELECT * FROM {}(SELECT 1 AS x) d{}", "(SELECT * FROM ".repeat(n), ") d".repeat(n));
        // As MariaDB: 62 derived tables inside the outermost SELECT and around the innermost work.
        assert!(rewrite(&nest(62), Kind::Select, &r()).is_ok());
        assert_eq!(rewrite(&nest(63), Kind::Select, &r()).unwrap_err().code, 1473);
        assert_eq!(rewrite(&nest(3000), Kind::Select, &r()).unwrap_err().code, 1473);
        let chain = |n: usize| {
            format!(
                "WITH {} SELECT * FROM c{}",
                (0..n).map(|i| if i == 0 { "c0 AS (SELECT 1 AS x)".to_string() } else { format!("c{} AS (SELECT x FROM c{})", i, i - 1) }).collect::<Vec<_>>().join(", "),
                n - 1
            )
        };
        assert!(rewrite(&chain(64), Kind::Select, &r()).is_ok());
        assert_eq!(rewrite(&chain(65), Kind::Select, &r()).unwrap_err().code, 4003);
        // Inside a derived table too.
        assert_eq!(rewrite(&format!("SELECT * FROM ({}) q", chain(3000)), Kind::Select, &r()).unwrap_err().code, 4003);
    }

    #[test]
    fn clauses_out_of_order_are_syntax_errors() {
        // Found by fuzz/fuzz_targets/rewrite.rs (a slice panic before).
        assert_eq!(rewrite("SELECT c FROM sbtest1 HAVING c > 1 WHERE id > 0", Kind::Select, &r()).map(|_| ()).unwrap_or(()), ());
        for sql in ["UPDATE sbtest1 SET k = 1 ORDER BY id WHERE 1", "UPDATE sbtest1 SET k = 1 LIMIT 1 ORDER BY id", "DELETE FROM sbtest1 ORDER BY id WHERE 1", "DELETE FROM sbtest1 LIMIT 1 WHERE 1"] {
            let kind = if sql.starts_with("UPDATE") { Kind::Update } else { Kind::Delete };
            assert_eq!(rewrite(sql, kind, &r()).unwrap_err().code, 1064, "{}", sql);
        }
    }

    #[test]
    fn selects() {
        assert_eq!(sel("SELECT c FROM sbtest1 WHERE id=?"), "SELECT c FROM sbtest1 WHERE id=?");
        assert_eq!(sel("SELECT `c`, \"x\" FROM sbtest.sbtest1"), "SELECT \"c\", 'x' FROM main.sbtest1");
        assert_eq!(sel("SELECT IF(a,1,2) FROM t WHERE a || b && !c"), "SELECT iif(a,1,2) FROM t WHERE a OR b AND NOT c");
        assert_eq!(sel("SELECT 'it\\'s' FROM t FOR UPDATE"), "SELECT 'it''s' FROM t");
        assert_eq!(sel("SELECT a/b FROM t LIMIT 1, 2"), "SELECT a* 1.0 /b FROM t LIMIT 1, 2");
        assert_eq!(sel("SELECT DATE_ADD(d, INTERVAL 1 DAY) FROM t"), "SELECT DATE_ADD(d, 1, 'DAY') FROM t");
        assert_eq!(sel("SELECT c FROM t WHERE c LIKE 'a\\_b'"), "SELECT c FROM t WHERE c LIKE 'a\\_b' ESCAPE '\\'");
        assert_eq!(sel("SELECT CAST(x AS UNSIGNED), CONVERT(y, CHAR) FROM t"), "SELECT CAST(x AS INTEGER), CAST(y AS TEXT) FROM t");
        assert_eq!(sel("SELECT SQL_NO_CACHE c FROM t USE INDEX (k) WHERE 1"), "SELECT c FROM t WHERE 1");
        assert_eq!(sel("SELECT * FROM other.sbtest1"), "SELECT * FROM \"other\".sbtest1");
        assert_eq!(sel("SELECT 0x41 + 0, 0xfffe00112233445566 FROM t"), "SELECT 65 + 0, CAST(X'FFFE00112233445566' AS TEXT) FROM t");
        assert_eq!(sel("SELECT 0x41, b'1000001', 0x00, -0x41, 0x41 AND 1 FROM t"), "SELECT 'A', 'A', CAST(X'00' AS TEXT), -65, 65 AND 1 FROM t");
        assert_eq!(
            sel("SELECT 0x41 = 'A', 0x41 = 65, 65 < 0x41, CAST(0x41 AS UNSIGNED), ABS(0x41), HEX(0x41) FROM t"),
            "SELECT 'A' = 'A', 65 = 65, 65 < 65, CAST(65 AS INTEGER), ABS(65), HEX('A') FROM t"
        );
        assert_eq!(sel("SELECT 0x14243444546474849 FROM t"), "SELECT '\u{1}BCDEFGHI' FROM t");
        assert_eq!(sel("SELECT CAST(a AS BINARY(4)), CONVERT(b, BINARY(2)), CAST(c AS BINARY) FROM t"), "SELECT ts_bin_n(a, 4), ts_bin_n(b, 2), CAST(c AS TEXT) FROM t");
        assert_eq!(sel("SELECT 'a\\0b', 'c' FROM t WHERE x = 'd\\0'"), "SELECT CAST(X'610062' AS TEXT), 'c' FROM t WHERE x = CAST(X'6400' AS TEXT)");
        assert_eq!(sel("SELECT sbtest.tmp1.c FROM sbtest.tmp1"), "SELECT temp.tmp1.c FROM temp.tmp1");
        assert_eq!(
            sel("SELECT a, CASE WHEN b = 1 THEN 'x' ELSE b END AS b FROM t WHERE a > 1 OR a < 0 HAVING b IN ('x', 'y') ORDER BY b"),
            "SELECT a, CASE WHEN b = 1 THEN 'x' ELSE b END AS b FROM t WHERE (a > 1 OR a < 0) AND ((CASE WHEN b = 1 THEN 'x' ELSE b END) IN ('x', 'y')) ORDER BY b"
        );
        assert_eq!(sel("SELECT a AS k FROM t HAVING k = 1"), "SELECT a AS k FROM t WHERE (a) = 1");
        assert_eq!(sel("SELECT COUNT(*) AS n FROM t HAVING n > 0"), "SELECT COUNT(*) AS n FROM t HAVING n > 0");
        // A statement whose literals became parameters (exec.rs: normalize) keeps HAVING; the
        // literal text it falls back to moves it.
        assert_eq!(sel("SELECT IF(a = ?, 1, 2) AS k FROM t HAVING k = ?"), "SELECT iif(a = ?, 1, 2) AS k FROM t HAVING k = ?");
        assert_eq!(
            sel("SELECT 1.5E3, 2.5, 0.30000000000000004, 123456789012345.6, -1.0e-300, 10 FROM t"),
            "SELECT ts_f64('1.5E3'), 2.5, ts_f64('0.30000000000000004'), ts_f64('123456789012345.6'), -ts_f64('1.0e-300'), 10 FROM t"
        );
        assert!(rewrite("SELECT a XOR b FROM t", Kind::Select, &r()).unwrap_err().code == 1235);
        let rw = rewrite("SELECT DISTINCT c, COUNT(*), k AS kk FROM sbtest1", Kind::Select, &r()).unwrap();
        assert_eq!(rw.select_items, vec![("c".into(), false), ("COUNT(*)".into(), false), ("k".into(), true)]);
    }

    #[test]
    fn inserts() {
        let rw = rewrite("INSERT INTO sbtest1 (id, k, c) VALUES (?, ?, ?)", Kind::Insert, &r()).unwrap();
        assert_eq!(rw.sql, "INSERT INTO \"sbtest1\" (\"id\", \"k\", \"c\") VALUES (ts_ai(?), ?, ?)");
        assert!(rw.insert.as_ref().unwrap().ai_named);
        let rw = rewrite("INSERT IGNORE INTO sbtest1 SET k=1, c='x'", Kind::Insert, &r()).unwrap();
        assert_eq!(rw.sql, "INSERT OR IGNORE INTO \"sbtest1\" (\"k\", \"c\") VALUES (1, 'x')");
        let rw = rewrite("INSERT INTO sbtest1 (id,k) VALUES (1,2),(3,4) ON DUPLICATE KEY UPDATE k=VALUES(k)+1", Kind::Insert, &r()).unwrap();
        assert_eq!(
            rw.sql,
            "INSERT INTO \"sbtest1\" (\"id\", \"k\") VALUES (ts_ai(1), 2), (ts_ai(3), 4) ON CONFLICT DO UPDATE SET \"k\" = ts_upd(excluded.\"k\"+1) WHERE ts_chg('I', \"k\", (excluded.\"k\"+1))"
        );
        // ODKU values appear twice: parameters are numbered
        let rw = rewrite("INSERT INTO sbtest1 (id,c) VALUES (?,?) ON DUPLICATE KEY UPDATE c=?, k=k+1", Kind::Insert, &r()).unwrap();
        assert_eq!(rw.sql, "INSERT INTO \"sbtest1\" (\"id\", \"c\") VALUES (ts_ai(?1), ?2) ON CONFLICT DO UPDATE SET \"c\" = ts_upd(?3), \"k\" = k+1 WHERE ts_chg('TI', \"c\", (?3), \"k\", (k+1))");
        // a value that differs between two evaluations is not compared
        let rw = rewrite("INSERT INTO sbtest1 (id) VALUES (1) ON DUPLICATE KEY UPDATE k=RAND()", Kind::Insert, &r()).unwrap();
        assert!(rw.sql.ends_with("SET \"k\" = ts_upd(ts_rand()) WHERE ts_chg('')"), "{}", rw.sql);
        assert_eq!(rewrite("INSERT INTO sbtest1 (k) VALUES (1,2)", Kind::Insert, &r()).unwrap_err().code, 1136);
        let rw = rewrite("INSERT INTO sbtest1 VALUES (DEFAULT, 1, 'a')", Kind::Insert, &r()).unwrap();
        assert_eq!(rw.sql, "INSERT INTO \"sbtest1\" (\"id\", \"k\", \"c\") VALUES (NULL, 1, 'a')");
    }

    #[test]
    fn binary_values() {
        let d = match ddl::parse("CREATE TABLE bt (id INT, b BINARY(4), vb VARBINARY(8), n BIGINT)").unwrap().unwrap() {
            ddl::Ddl::CreateTable { def, .. } => *def,
            _ => unreachable!(),
        };
        let r = R(vec![Arc::new(d)]);
        let rw = |sql: &str, kind| rewrite(sql, kind, &r).unwrap().sql;
        // into a binary column: TEXT of the bytes, BINARY(n) padded; into a number: the number
        assert_eq!(
            rw("INSERT INTO bt VALUES (0x01, 0x41, X'00', 0x41)", Kind::Insert),
            "INSERT INTO \"bt\" (\"id\", \"b\", \"vb\", \"n\") VALUES (1, ts_bin('A', 4), ts_bin(CAST(X'00' AS TEXT), 0), 65)"
        );
        assert_eq!(
            rw("UPDATE bt SET b = UNHEX(?), n = b'11' WHERE id = 1", Kind::Update),
            "UPDATE bt SET b = ts_bin(UNHEX(?1), 4) , n = 3 WHERE (id = 1) AND ts_chg('TI', \"b\", (ts_bin(UNHEX(?1), 4)), \"n\", (3), \"id\")"
        );
        assert!(rw("INSERT INTO bt (id, b) SELECT 1, 0x41", Kind::Insert).ends_with("SELECT c0, ts_bin(c1, 4) FROM ts_src WHERE true"));
        // compared with a numeric column a hybrid literal is a number; with a binary column, bytes
        assert_eq!(rw("SELECT id FROM bt WHERE n = 0x41 AND b = 0x41 AND 0x41 < bt.n", Kind::Select), "SELECT id FROM bt WHERE n = 65 AND b = 'A' AND 65 < bt.n");
    }

    #[test]
    fn update_delete_limit() {
        let rw = rewrite("UPDATE sbtest1 SET k=k+1 WHERE id=? ORDER BY id LIMIT 1", Kind::Update, &r()).unwrap();
        assert_eq!(rw.sql, "UPDATE sbtest1 SET k=k+1 WHERE rowid IN (SELECT rowid FROM sbtest1 WHERE id=?1 ORDER BY id LIMIT 1) AND ts_chg('I', \"k\", (k+1))");
        let rw = rewrite("UPDATE sbtest1 AS s SET s.k = 0 ORDER BY s.id DESC LIMIT ?", Kind::Update, &r()).unwrap();
        assert_eq!(rw.sql, "UPDATE sbtest1 AS s SET s.k = 0 WHERE rowid IN (SELECT rowid FROM sbtest1 AS s ORDER BY s.id DESC LIMIT ?1) AND ts_chg('I', \"k\", (0))");
        // sysbench's updates: the row is written (and counted as changed) only when a value differs
        let rw = rewrite("UPDATE sbtest1 SET c=? WHERE id=?", Kind::Update, &r()).unwrap();
        assert_eq!(rw.sql, "UPDATE sbtest1 SET c=?1 WHERE (id=?2) AND ts_chg('T', \"c\", (?1), \"id\")");
        let rw = rewrite("UPDATE IGNORE sbtest1 SET k=k+1, c = CONCAT(c, 'x') WHERE k > 5 OR `c` IS NULL", Kind::Update, &r()).unwrap();
        assert_eq!(rw.sql, "UPDATE OR IGNORE sbtest1 SET k=k+1, c = CONCAT(c, 'x') WHERE (k > 5 OR \"c\" IS NULL) AND ts_chg('IT', \"k\", (k+1), \"c\", (CONCAT(c, 'x')), \"k\", \"c\")");
        let rw = rewrite("UPDATE sbtest1 SET k = FLOOR(RAND() * 2)", Kind::Update, &r()).unwrap();
        assert_eq!(rw.sql, "UPDATE sbtest1 SET k = FLOOR(ts_rand() * 2) WHERE ts_chg('')");
        // a subquery in the WHERE: rows are chosen first
        let rw = rewrite("UPDATE sbtest1 SET k = 1 WHERE id IN (SELECT id FROM sbtest1 WHERE c = 'a')", Kind::Update, &r()).unwrap();
        assert_eq!(rw.sql, "UPDATE sbtest1 SET k = 1 WHERE rowid IN (SELECT rowid FROM sbtest1 WHERE id IN (SELECT id FROM sbtest1 WHERE c = 'a')) AND ts_chg('I', \"k\", (1))");
        let rw = rewrite("DELETE FROM sbtest1 WHERE id=?", Kind::Delete, &r()).unwrap();
        assert_eq!(rw.sql, "DELETE FROM sbtest1 WHERE id=?");
        assert_eq!(rewrite("DELETE a FROM a JOIN b", Kind::Delete, &r()).unwrap_err().code, 1235);
    }
}
