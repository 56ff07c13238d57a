//! Views kept as MySQL text ("expanded views"): a view whose query SQLite
//! cannot hold as a view of its database file, because it reads
//! information_schema (an in-memory database each connection attaches and
//! fills from the catalog before a statement that names it: show.rs), is
//! stored as its MySQL text (`ViewDef::expand`) with a placeholder SQLite
//! view of its columns (no rows), and every statement that reads it has the
//! reference written as a derived table of that text before it is
//! translated: `FROM v1 WHERE ...` becomes `FROM (select ...) AS v1 WHERE ...`.
//! The statement then names information_schema itself, so its tables are
//! filled for the reading session (what information_schema shows that
//! account) exactly as for a direct query, joins and filters apply as to
//! any derived table, and what the text names is checked as the statement's
//! own references (compile.rs adds SELECT on each view expanded).
//!
//! One linear pass over the tokens per round; a round's output may name
//! expanded views again (a view over such a view), so rounds repeat up to
//! `MAX_VIEW_DEPTH` (1473 past it) and the references written out over all
//! rounds are bounded by `MAX_VIEW_TABLES` (1116), which also bounds the
//! text's growth.

use crate::exec::{MAX_VIEW_DEPTH, MAX_VIEW_TABLES};
use crate::schema::quote_ident;
use turnstile_engine::SqlError;
use turnstile_sqltext::clause::NOT_TABLE_ALIAS;
use turnstile_sqltext::lex::{self, Tok, Token};

/// An expanded view found for a table reference: its database and name as
/// the catalog spells them, and the MySQL query it reads as (its tables
/// qualified: `qualify`).
pub struct Found {
    pub db: String,
    pub name: String,
    pub text: String,
}

/// A statement with its expanded views written out, and the views, (db,
/// name), each once per reference: the reader needs SELECT on each.
#[derive(Debug, PartialEq)]
pub struct Expanded {
    pub text: String,
    pub views: Vec<(String, String)>,
}

/// `sql` with every reference to an expanded view written as a derived
/// table of its text; None when it reads none (nothing to pay for
/// statements that do not). `lookup(db, name)`: the expanded view a
/// reference names, if any (`db` None: the current database's).
pub fn expand(sql: &str, lookup: &dyn Fn(Option<&str>, &str) -> Option<Found>) -> Result<Option<Expanded>, SqlError> {
    let mut text: Option<String> = None;
    let mut views: Vec<(String, String)> = Vec::new();
    for _ in 0..=MAX_VIEW_DEPTH {
        let cur = text.as_deref().unwrap_or(sql);
        let Some(next) = expand_once(cur, lookup, &mut views)? else {
            return Ok(text.map(|text| Expanded { text, views }));
        };
        if views.len() > MAX_VIEW_TABLES {
            return Err(SqlError::new(1116, "HY000", format!("Too many tables; a view may expand to at most {} table references", MAX_VIEW_TABLES)));
        }
        text = Some(next);
    }
    Err(SqlError::new(1473, "HY000", "Too high level of nesting for select"))
}

/// Does `t` end what comes before a table reference (FROM, JOIN, a comma
/// or an opening parenthesis of a FROM list)?
fn before_reference(t: &Token) -> bool {
    t.is_kw("FROM") || t.is_kw("JOIN") || t.is_kw("STRAIGHT_JOIN") || t.is_op(",") || t.is_op("(")
}

/// Keywords that end a FROM list at their level.
const ENDS_FROM: [&str; 17] = ["WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "EXCEPT", "INTERSECT", "WINDOW", "FOR", "LOCK", "INTO", "SET", "VALUES", "VALUE", "RETURNING", "SELECT"];

/// A table reference found in a statement's tokens.
struct Reference<'a> {
    /// Its first and last token (`db . name` or `name`).
    first: usize,
    last: usize,
    db: Option<&'a str>,
    name: &'a str,
    /// The statement's write target (UPDATE's first table, DELETE FROM's,
    /// INSERT/REPLACE INTO's).
    target: bool,
    /// An alias follows it.
    aliased: bool,
}

/// The table references of `toks`, in order: names after FROM, JOIN and
/// the commas and parentheses of a FROM list, UPDATE's tables, INSERT INTO's
/// table. One pass; a stack of the open parentheses' levels.
fn references(toks: &[Token]) -> Vec<Reference<'_>> {
    // Whether each open parenthesis level is in a FROM list (the statement's
    // own level first). Its size is the nesting, bounded by the tokens.
    let mut in_from: Vec<bool> = vec![false];
    let first = toks.first();
    let writes = first.is_some_and(|t| t.is_kw("UPDATE") || t.is_kw("DELETE") || t.is_kw("INSERT") || t.is_kw("REPLACE"));
    let mut froms = 0usize;
    let mut target_seen = false;
    let mut found = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let prev = i.checked_sub(1).map(|p| &toks[p]);
        if t.is_op("(") {
            let from_list = *in_from.last().unwrap_or(&false) && prev.is_some_and(before_reference);
            in_from.push(from_list);
            i += 1;
            continue;
        }
        if t.is_op(")") {
            if in_from.len() > 1 {
                in_from.pop();
            }
            i += 1;
            continue;
        }
        if t.is_kw("FROM") || (t.is_kw("UPDATE") && i == 0) {
            froms += usize::from(t.is_kw("FROM") && in_from.len() == 1);
            *in_from.last_mut().expect("a level") = true;
            i += 1;
            continue;
        }
        if matches!(t.tok, Tok::Word(_)) && ENDS_FROM.iter().any(|k| t.is_kw(k)) {
            *in_from.last_mut().expect("a level") = false;
            i += 1;
            continue;
        }
        let table_position = *in_from.last().unwrap_or(&false) && prev.is_some_and(|p| before_reference(p) || (i == 1 && p.is_kw("UPDATE")));
        let into_target = prev.is_some_and(|p| p.is_kw("INTO")) && in_from.len() == 1 && writes;
        let Some(word) = t.ident().filter(|_| table_position || into_target) else {
            i += 1;
            continue;
        };
        if matches!(t.tok, Tok::Word(_)) && (t.is_kw("SELECT") || t.is_kw("WITH") || t.is_kw("LATERAL") || t.is_kw("DUAL")) {
            i += 1;
            continue;
        }
        // `db . name` or `name`, not a table function's call.
        let qualified = toks.get(i + 1).is_some_and(|d| d.is_op(".")) && toks.get(i + 2).is_some_and(|n| n.ident().is_some());
        let last = if qualified { i + 2 } else { i };
        if toks.get(last + 1).is_some_and(|n| n.is_op("(") || n.is_op(".")) {
            i = last + 1;
            continue;
        }
        let target = writes && in_from.len() == 1 && !target_seen && (into_target || prev.is_some_and(|p| p.is_kw("UPDATE") || (p.is_kw("FROM") && froms == 1)));
        target_seen = true;
        let aliased = match toks.get(last + 1) {
            Some(n) if n.is_kw("AS") => true,
            Some(Token { tok: Tok::Quoted(_), .. }) => true,
            Some(n @ Token { tok: Tok::Word(_), .. }) => !NOT_TABLE_ALIAS.iter().any(|k| n.is_kw(k)),
            _ => false,
        };
        let (db, name) = if qualified { (Some(word), toks[last].ident().unwrap_or("")) } else { (None, word) };
        found.push(Reference { first: i, last, db, name, target, aliased });
        i = last + 1;
    }
    found
}

/// One round: the references of this text written out, or None.
fn expand_once(sql: &str, lookup: &dyn Fn(Option<&str>, &str) -> Option<Found>, views: &mut Vec<(String, String)>) -> Result<Option<String>, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let insert = toks.first().is_some_and(|f| f.is_kw("INSERT") || f.is_kw("REPLACE"));
    let delete = toks.first().is_some_and(|f| f.is_kw("DELETE"));
    let mut out = String::new();
    let mut at = 0;
    for r in references(&toks) {
        let Some(found) = lookup(r.db, r.name) else { continue };
        if r.target {
            return Err(match insert {
                true => SqlError::new(1471, "HY000", format!("The target table {} of the INSERT is not insertable-into", found.name)),
                false => SqlError::new(1288, "HY000", format!("The target table {} of the {} is not updatable", found.name, if delete { "DELETE" } else { "UPDATE" })),
            });
        }
        out.push_str(&sql[at..toks[r.first].start]);
        out.push('(');
        out.push_str(&found.text);
        out.push(')');
        if !r.aliased {
            out.push_str(" AS ");
            out.push_str(&quote_ident(&found.name));
        }
        at = toks[r.last].end;
        views.push((found.db, found.name));
    }
    if at == 0 {
        return Ok(None);
    }
    out.push_str(&sql[at..]);
    Ok(Some(out))
}

/// A view's query with its unqualified table references qualified by its
/// database `db` (so that it reads the same tables wherever it is
/// expanded), except the names of CTEs `is_cte` says it defines.
pub fn qualify(sql: &str, db: &str, is_cte: &dyn Fn(&str) -> bool) -> Result<String, SqlError> {
    let toks = lex::tokenize(sql).map_err(|e| SqlError::syntax(&sql[e.at..]))?;
    let mut out = String::with_capacity(sql.len() + 16);
    let mut at = 0;
    for r in references(&toks) {
        if r.db.is_some() || is_cte(r.name) {
            continue;
        }
        let t = &toks[r.first];
        out.push_str(&sql[at..t.start]);
        out.push_str(&quote_ident(db));
        out.push('.');
        at = t.start;
    }
    out.push_str(&sql[at..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(db: Option<&str>, name: &str) -> Option<Found> {
        let ok_db = db.is_none_or(|d| d == "d1");
        match name.to_ascii_lowercase().as_str() {
            "v1" if ok_db => Some(Found { db: "d1".into(), name: "v1".into(), text: "select table_name from information_schema.tables".into() }),
            "v2" if ok_db => Some(Found { db: "d1".into(), name: "v2".into(), text: "select * from v1 join v1 x".into() }),
            "vl" if ok_db => Some(Found { db: "d1".into(), name: "vl".into(), text: "select a from t1".into() }),
            "vself" if ok_db => Some(Found { db: "d1".into(), name: "vself".into(), text: "select * from vself".into() }),
            _ => None,
        }
    }

    fn ex(sql: &str) -> Option<String> {
        expand(sql, &lookup).unwrap().map(|e| e.text)
    }

    #[test]
    fn references_become_derived_tables() {
        assert_eq!(ex("select * from v1").unwrap(), "select * from (select table_name from information_schema.tables) AS `v1`");
        assert_eq!(ex("select * from d1.v1 where c like 't%'").unwrap(), "select * from (select table_name from information_schema.tables) AS `v1` where c like 't%'");
        assert_eq!(ex("select * from v1 x").unwrap(), "select * from (select table_name from information_schema.tables) x");
        assert_eq!(ex("select * from t, v1 as y join t2 on 1").unwrap(), "select * from t, (select table_name from information_schema.tables) as y join t2 on 1");
        assert_eq!(ex("select (select count(*) from v1) from dual").unwrap(), "select (select count(*) from (select table_name from information_schema.tables) AS `v1`) from dual");
        assert_eq!(ex("select * from t1 join (t2, v1) on 1").unwrap(), "select * from t1 join (t2, (select table_name from information_schema.tables) AS `v1`) on 1");
    }

    #[test]
    fn other_names_stay() {
        assert_eq!(ex("select v1 from t1"), None);
        assert_eq!(ex("select a, v1 from t1 where v1 in (1, v1)"), None);
        assert_eq!(ex("select * from d2.v1"), None);
        assert_eq!(ex("select * from v1.c"), None);
        assert_eq!(ex("select * from t1 where x in (select v1 from t2)"), None);
    }

    #[test]
    fn views_over_views_expand_in_rounds() {
        let e = expand("select * from v2", &lookup).unwrap().unwrap();
        assert_eq!(e.views.len(), 3);
        assert!(!e.text.contains(" v1 "), "{}", e.text);
        assert_eq!(expand("select * from vself", &lookup).unwrap_err().code, 1473);
    }

    #[test]
    fn targets_and_other_databases_are_refused() {
        assert_eq!(expand("update v1 set table_name = 'x'", &lookup).unwrap_err().code, 1288);
        assert_eq!(expand("delete from v1", &lookup).unwrap_err().code, 1288);
        assert_eq!(expand("insert into v1 values ('x')", &lookup).unwrap_err().code, 1471);
        assert!(expand("insert into t1 select * from v1", &lookup).unwrap().is_some());
        assert_eq!(qualify("select * from t1 join d2.t2 x, c where a in (select b from t3)", "d1", &|n| n == "c").unwrap(), "select * from `d1`.t1 join d2.t2 x, c where a in (select b from `d1`.t3)");
        assert!(expand("select * from vl", &lookup).unwrap().is_some());
    }

    #[test]
    fn deep_nesting_is_linear() {
        let sql = format!("select * from {}v1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(expand(&sql, &lookup).unwrap().is_some());
    }
}
