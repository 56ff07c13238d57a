//! Which WITH clause a table name belongs to, as MariaDB decides it.
//!
//! In a WITH clause without RECURSIVE, a CTE's query sees only the CTEs
//! defined before it in that clause (and those of enclosing WITH clauses):
//! its own name, or a later CTE's, names a table of the database. SQLite
//! reads such a name as the CTE (a reference to itself makes it recursive).
//! So, MySQL text to MySQL text before anything else reads it, such a table
//! reference is written with the current database's name (`` `db`.`x` ``),
//! which SQLite never takes for a CTE: MariaDB's 1146 when there is no such
//! table, that table when there is. A CTE column list that names a column
//! twice is MariaDB's 1060 here too (SQLite takes it).
//!
//! One pass over the tokens with a stack of the WITH clauses the pass is
//! inside; each name is looked up in at most MAX_SCOPES of them (hashed),
//! so the pass stays linear however deep they nest.

use crate::cte::splice_edits;
use std::collections::{HashMap, HashSet};
use turnstile_engine::SqlError;
use turnstile_sqltext::lex::{self, Tok, Token};

/// WITH clauses looked through for one name (innermost first); a name
/// inside more is left as it is.
const MAX_SCOPES: usize = 64;

/// One WITH clause: where it stands, its CTEs and their bodies.
struct Scope {
    depth: usize,
    recursive: bool,
    names: HashMap<String, usize>,
    bodies: Vec<(usize, usize)>,
    /// The body the pass is in or before (moves forward only).
    k: usize,
}

/// What `scope` found: the statement with its hidden CTE names qualified
/// (None when it has none), and those names (tables of the current
/// database, which must exist even where SQLite never reads them: MariaDB
/// resolves every CTE, used or not).
pub struct Scoped {
    pub text: Option<String>,
    pub tables: Vec<String>,
}

/// The statement's hidden CTE names qualified; 1060 for a CTE column list
/// naming a column twice, 1046 when a name needs qualifying and there is no
/// current database.
pub fn scope(sql: &str, home: Option<&str>) -> Result<Scoped, SqlError> {
    let none = || Scoped { text: None, tables: Vec::new() };
    if !sql.as_bytes().windows(4).any(|w| w.eq_ignore_ascii_case(b"WITH")) {
        return Ok(none());
    }
    let Ok(toks) = lex::tokenize(sql) else { return Ok(none()) };
    let mut tables = Vec::new();
    let close = matching(&toks);
    let mut scopes: Vec<Scope> = Vec::new();
    let mut in_from: Vec<bool> = vec![false];
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            in_from.push(false);
            continue;
        }
        if t.is_op(")") {
            if in_from.len() > 1 {
                in_from.pop();
            }
            let depth = in_from.len() - 1;
            while scopes.last().is_some_and(|s| s.depth > depth) {
                scopes.pop();
            }
            continue;
        }
        let top = in_from.len() - 1;
        if t.is_kw("WITH") {
            if let Some(s) = with_clause(&toks, &close, i, top)? {
                scopes.push(s);
            }
            continue;
        }
        if t.is_kw("FROM") {
            in_from[top] = true;
            continue;
        }
        if ["WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "ON", "USING", "UNION", "EXCEPT", "INTERSECT", "SELECT", "WINDOW", "SET"].iter().any(|k| t.is_kw(k)) {
            in_from[top] = false;
            continue;
        }
        let Some(name) = t.ident().filter(|_| matches!(t.tok, Tok::Word(_) | Tok::Quoted(_))) else { continue };
        let Some(prev) = i.checked_sub(1).map(|p| &toks[p]) else { continue };
        let names_table = prev.is_kw("FROM") || prev.is_kw("JOIN") || prev.is_kw("STRAIGHT_JOIN") || prev.is_kw("UPDATE") || (prev.is_op(",") && in_from[top]);
        if !names_table || toks.get(i + 1).is_some_and(|n| n.is_op(".") || n.is_op("(")) {
            continue;
        }
        if hidden(&mut scopes, &name.to_ascii_lowercase(), i) {
            let Some(db) = home else { return Err(SqlError::no_database()) };
            edits.push((t.start, t.end, format!("{}.{}", quote(db), quote(name))));
            tables.push(name.to_string());
        }
    }
    Ok(Scoped { text: splice_edits(sql, edits), tables })
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// Is `name`, a table named at token `at`, a CTE of a WITH clause it may
/// not see (its own or a later one, without RECURSIVE) and of none it may?
fn hidden(scopes: &mut [Scope], name: &str, at: usize) -> bool {
    let mut hidden = false;
    for s in scopes.iter_mut().rev().take(MAX_SCOPES) {
        while s.k < s.bodies.len() && at > s.bodies[s.k].1 {
            s.k += 1;
        }
        let Some(&p) = s.names.get(name) else { continue };
        let in_body = s.k < s.bodies.len() && at > s.bodies[s.k].0;
        let visible = if s.recursive || !in_body { s.bodies.len() } else { s.k };
        if p < visible {
            return false;
        }
        hidden = true;
    }
    hidden
}

/// The WITH clause at token `i` (at parenthesis depth `depth`), or None
/// when WITH starts none here (`WITH ROLLUP`, a malformed clause).
fn with_clause(toks: &[Token], close: &[Option<usize>], i: usize, depth: usize) -> Result<Option<Scope>, SqlError> {
    let recursive = toks.get(i + 1).is_some_and(|t| t.is_kw("RECURSIVE"));
    let mut s = Scope { depth, recursive, names: HashMap::new(), bodies: Vec::new(), k: 0 };
    let mut j = i + 1 + usize::from(recursive);
    loop {
        let Some(name) = toks.get(j).and_then(|t| t.ident()) else { return Ok(None) };
        j += 1;
        if toks.get(j).is_some_and(|t| t.is_op("(")) {
            let Some(c) = close[j] else { return Ok(None) };
            let mut seen = HashSet::new();
            for col in toks[j + 1..c].iter().filter_map(|t| t.ident()) {
                if !seen.insert(col.to_ascii_lowercase()) {
                    return Err(SqlError::new(1060, "42S21", format!("Duplicate column name '{}'", col)));
                }
            }
            j = c + 1;
        }
        if !toks.get(j).is_some_and(|t| t.is_kw("AS")) || !toks.get(j + 1).is_some_and(|t| t.is_op("(")) {
            return Ok(None);
        }
        let Some(c) = close[j + 1] else { return Ok(None) };
        s.names.entry(name.to_ascii_lowercase()).or_insert(s.bodies.len());
        s.bodies.push((j + 1, c));
        if !toks.get(c + 1).is_some_and(|t| t.is_op(",")) {
            return Ok(Some(s));
        }
        j = c + 2;
    }
}

/// For each `(`, the index of its `)`.
fn matching(toks: &[Token]) -> Vec<Option<usize>> {
    let mut close = vec![None; toks.len()];
    let mut stack = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            stack.push(i);
        } else if t.is_op(")") {
            if let Some(o) = stack.pop() {
                close[o] = Some(i);
            }
        }
    }
    close
}

#[cfg(test)]
mod tests {
    use super::scope;

    fn run(sql: &str) -> Option<String> {
        scope(sql, Some("db")).unwrap().text
    }

    #[test]
    fn own_and_later_names_are_tables() {
        assert_eq!(
            run("with t as (select a from s where a<5), s as (select a from t1) select * from t,s").as_deref(),
            Some("with t as (select a from `db`.`s` where a<5), s as (select a from t1) select * from t,s")
        );
        assert_eq!(
            run("with x as (select a from t1 union select a+1 from x as r1 where a < 7) select * from x").as_deref(),
            Some("with x as (select a from t1 union select a+1 from `db`.`x` as r1 where a < 7) select * from x")
        );
        // Earlier names, RECURSIVE, and the main query see them all.
        assert_eq!(run("with s as (select 1), t as (select * from s) select * from t, s"), None);
        assert_eq!(run("with recursive t as (select 1 union select a from t) select * from t"), None);
        // An enclosing clause's CTE of that name is what the inner one sees.
        assert_eq!(run("with recursive x as (select 1 union select a from (with x as (select * from x) select * from x) d) select * from x"), None);
        assert_eq!(run("select a from t1 group by a with rollup"), None);
    }

    #[test]
    fn column_lists_and_no_database() {
        assert_eq!(scope("with t(f1, f1) as (select 1, 2) select * from t", Some("db")).err().map(|e| e.code), Some(1060));
        assert_eq!(scope("with t as (select * from t) select * from t", None).err().map(|e| e.code), Some(1046));
        assert_eq!(scope("with x as (select (with x as (select a from x as t) select 1) as c) select c from x", Some("db")).ok().map(|s| s.tables), Some(vec!["x".to_string()]));
    }
}
