//! The FROM item of the outermost SELECT each result column comes from, for
//! the `table` and `org_table` of its definition, as MariaDB 10.11 sends
//! them: a table read through an alias is `table` = the alias, `org_table` =
//! its name; a derived table's (or a CTE's) column is `table` = its alias,
//! and `org_table` = the alias too when the column is a table's column (with
//! the schema), empty when it is computed (an empty schema then), and
//! `org_name` is its name in the derived table; a view's column is described
//! by the view's alias as both `table` and `org_table`; the result of a UNION (EXCEPT,
//! INTERSECT) has no table at all, each `org_name` its name. SQLite reports only the
//! table a column originally comes from (`sqlite3_column_table_name` looks
//! through subqueries), so the client's text decides (go-sql-driver's
//! `columnsWithAlias` names a column `A.one` by it).
//!
//! Read once per compiled statement (its metadata is cached). Where the text
//! leaves a doubt (a parenthesised join, a `*` over items whose
//! column counts are not known, a column without a qualifier among several
//! items that could hold it), the definitions are left as SQLite's origin
//! gives them.

use crate::conn::Conn;
use turnstile_engine::Column;
use turnstile_sqltext::lex::{self, Tok, Token};
use turnstile_sqltext::parens;

/// One item of the outermost FROM clause.
#[derive(Debug, Clone, PartialEq)]
struct FromItem {
    /// What the statement calls it: the alias, else the table's name.
    alias: String,
    /// A base table's name (None: a derived table or a CTE).
    table: Option<String>,
    /// How many columns a derived table's select list has (None: a `*` in it).
    derived_width: Option<usize>,
    /// A base name that is a view: described like a derived table by its
    /// alias (MariaDB: `table` and `org_table` both the alias).
    view: bool,
}

/// Words that end a table reference's name (so are not its alias).
const NOT_ALIAS: [&str; 24] = [
    "JOIN",
    "INNER",
    "LEFT",
    "RIGHT",
    "CROSS",
    "NATURAL",
    "STRAIGHT_JOIN",
    "ON",
    "USING",
    "WHERE",
    "GROUP",
    "HAVING",
    "ORDER",
    "LIMIT",
    "UNION",
    "EXCEPT",
    "INTERSECT",
    "WINDOW",
    "FOR",
    "LOCK",
    "INTO",
    "USE",
    "FORCE",
    "IGNORE",
];

/// Words that end the FROM clause.
const CLAUSE_END: [&str; 13] = ["WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "EXCEPT", "INTERSECT", "WINDOW", "FOR", "LOCK", "INTO", "PROCEDURE"];

fn ident(t: &Token) -> Option<&str> {
    match &t.tok {
        Tok::Word(w) | Tok::Quoted(w) => Some(w.as_str()),
        _ => None,
    }
}

/// Index of the outermost SELECT keyword (after a WITH list), and whether
/// its select list is exactly `*`.
fn outer_select(toks: &[Token]) -> Option<usize> {
    let mut i = 0;
    if toks.first()?.is_kw("WITH") {
        i = 1;
        if toks.get(i)?.is_kw("RECURSIVE") {
            i += 1;
        }
        // name [(cols)] AS ( ... ) [, ...]
        loop {
            ident(toks.get(i)?)?;
            i += 1;
            if toks.get(i)?.is_op("(") {
                i = parens::closing(toks, i)? + 1;
            }
            if !toks.get(i)?.is_kw("AS") {
                return None;
            }
            i = parens::closing(toks, i + 1)? + 1;
            if !toks.get(i)?.is_op(",") {
                break;
            }
            i += 1;
        }
    }
    toks.get(i)?.is_kw("SELECT").then_some(i)
}

/// The top-level `FROM` after the SELECT at `select`, and the select list's
/// items as token ranges.
fn select_list(toks: &[Token], select: usize) -> Option<(usize, Vec<(usize, usize)>)> {
    let mut i = select + 1;
    while toks.get(i).is_some_and(|t| ["DISTINCT", "ALL", "DISTINCTROW", "SQL_NO_CACHE", "SQL_CACHE", "SQL_CALC_FOUND_ROWS", "HIGH_PRIORITY", "STRAIGHT_JOIN"].iter().any(|k| t.is_kw(k))) {
        i += 1;
    }
    let mut items = Vec::new();
    let mut start = i;
    while i < toks.len() {
        let t = &toks[i];
        if t.is_op("(") {
            i = parens::closing(toks, i)? + 1;
            continue;
        }
        if t.is_op(",") || t.is_kw("FROM") {
            items.push((start, i));
            if t.is_kw("FROM") {
                return Some((i, items));
            }
            start = i + 1;
        }
        i += 1;
    }
    None
}

/// The FROM items starting after `from`; None where the text is not a plain
/// list of tables, derived tables and joins.
fn from_items(toks: &[Token], from: usize, ctes: &[String]) -> Option<Vec<FromItem>> {
    let mut items = Vec::new();
    let mut i = from + 1;
    loop {
        let t = toks.get(i)?;
        let mut item = if t.is_op("(") {
            let close = parens::closing(toks, i)?;
            let inner = toks.get(i + 1)?;
            if !inner.is_kw("SELECT") && !inner.is_kw("WITH") {
                return None;
            }
            let width = outer_select(&toks[i + 1..close]).and_then(|s| select_list(&toks[i + 1..close], s).or_else(|| select_list_to_end(&toks[i + 1..close], s))).and_then(|(_, list)| {
                let star = list.iter().any(|&(s, e)| toks[i + 1 + s..i + 1 + e].iter().any(|t| t.is_op("*")) && e - s <= 3);
                (!star).then_some(list.len())
            });
            i = close + 1;
            FromItem { alias: String::new(), table: None, derived_width: width, view: false }
        } else {
            let mut name = ident(t)?.to_string();
            i += 1;
            if toks.get(i).is_some_and(|t| t.is_op(".")) {
                name = ident(toks.get(i + 1)?)?.to_string();
                i += 2;
            }
            let cte = ctes.iter().any(|c| c.eq_ignore_ascii_case(&name));
            FromItem { alias: name.clone(), table: (!cte).then_some(name), derived_width: None, view: false }
        };
        if toks.get(i).is_some_and(|t| t.is_kw("AS")) {
            i += 1;
        }
        if let Some(a) = toks.get(i).and_then(|t| ident(t).filter(|_| !NOT_ALIAS.iter().any(|k| t.is_kw(k)))) {
            item.alias = a.to_string();
            i += 1;
        }
        if item.alias.is_empty() {
            return None;
        }
        items.push(item);
        i = after_join_condition(toks, i)?;
        match toks.get(i) {
            None => return Some(items),
            Some(t) if t.is_op(";") || CLAUSE_END.iter().any(|k| t.is_kw(k)) => return Some(items),
            Some(t) if t.is_op(",") => i += 1,
            Some(_) => i = join_keywords(toks, i)?,
        }
    }
}

/// A derived table's select list when it has no FROM (`SELECT 1 AS one`).
fn select_list_to_end(toks: &[Token], select: usize) -> Option<(usize, Vec<(usize, usize)>)> {
    let mut with_from = toks.to_vec();
    with_from.push(Token { tok: Tok::Word("FROM".into()), start: 0, end: 0 });
    select_list(&with_from, select)
}

/// Skip index hints, `ON expr` and `USING (...)` after a table reference.
fn after_join_condition(toks: &[Token], mut i: usize) -> Option<usize> {
    while toks.get(i).is_some_and(|t| t.is_kw("USE") || t.is_kw("FORCE") || t.is_kw("IGNORE")) {
        while toks.get(i).is_some_and(|t| !t.is_op("(")) {
            i += 1;
        }
        i = parens::closing(toks, i)? + 1;
    }
    if toks.get(i).is_some_and(|t| t.is_kw("USING")) {
        return Some(parens::closing(toks, i + 1)? + 1);
    }
    if toks.get(i).is_some_and(|t| t.is_kw("ON")) {
        i += 1;
        while let Some(t) = toks.get(i) {
            if t.is_op("(") {
                i = parens::closing(toks, i)? + 1;
                continue;
            }
            if t.is_op(",") || t.is_op(";") || CLAUSE_END.iter().any(|k| t.is_kw(k)) || ["JOIN", "INNER", "LEFT", "RIGHT", "CROSS", "NATURAL", "STRAIGHT_JOIN"].iter().any(|k| t.is_kw(k)) {
                break;
            }
            i += 1;
        }
    }
    Some(i)
}

/// Past `[NATURAL] [LEFT|RIGHT [OUTER] | INNER | CROSS] JOIN` or `STRAIGHT_JOIN`.
fn join_keywords(toks: &[Token], mut i: usize) -> Option<usize> {
    let start = i;
    while toks.get(i).is_some_and(|t| ["NATURAL", "LEFT", "RIGHT", "OUTER", "INNER", "CROSS"].iter().any(|k| t.is_kw(k))) {
        i += 1;
    }
    let t = toks.get(i)?;
    (t.is_kw("JOIN") || (t.is_kw("STRAIGHT_JOIN") && i == start)).then_some(i + 1)
}

/// A select item that is a column reference: (qualifier, column name).
fn column_ref(toks: &[Token]) -> Option<(Option<String>, String)> {
    // Strip an alias: `x AS y`, `x y`.
    let toks = match toks.len() {
        n if n >= 3 && toks[n - 2].is_kw("AS") => &toks[..n - 2],
        n if n == 2 || (n == 4 && toks[1].is_op(".")) => &toks[..n - 1],
        _ => toks,
    };
    match toks {
        [c] => Some((None, ident(c)?.to_string())),
        [q, dot, c] if dot.is_op(".") => Some((Some(ident(q)?.to_string()), ident(c)?.to_string())),
        [_, d1, q, d2, c] if d1.is_op(".") && d2.is_op(".") => Some((Some(ident(q)?.to_string()), ident(c)?.to_string())),
        _ => None,
    }
}

/// Set each column's table, org_table (and for a derived table's column its
/// schema and org_name) by the FROM item it comes from. `ctes`: the names
/// the statement's WITH defines.
pub(super) fn name_sources(conn: &Conn, sql: &str, ctes: &[String], cols: &mut [Column]) {
    let Ok(toks) = lex::tokenize(sql) else { return };
    if has_set_operation(&toks) {
        // The columns of a UNION's result belong to no table (MariaDB: every
        // name is the column's own).
        for c in cols.iter_mut() {
            c.schema.clear();
            c.table.clear();
            c.org_table.clear();
            c.org_name.clone_from(&c.name);
        }
        return;
    }
    let Some(select) = outer_select(&toks) else { return };
    let Some((from, list)) = select_list(&toks, select) else { return };
    let Some(mut items) = from_items(&toks, from, ctes) else { return };
    for it in &mut items {
        it.view = it.table.as_deref().is_some_and(|t| conn.table_def("temp", t).or_else(|| conn.table_def("main", t)).is_some_and(|d| d.view.is_some()));
    }
    let star = list.len() == 1 && toks[list[0].0..list[0].1].len() == 1 && toks[list[0].0].is_op("*");
    // `q.*` alone: every column is item q's.
    if let [(s, e)] = list[..] {
        if let [q, dot, st] = &toks[s..e] {
            if dot.is_op(".") && st.is_op("*") {
                if let Some(item) = ident(q).and_then(|q| items.iter().find(|it| it.alias.eq_ignore_ascii_case(q))) {
                    for c in cols.iter_mut() {
                        let name = c.name.clone();
                        apply(item, &name, c);
                    }
                }
                return;
            }
        }
    }
    if star {
        let Some(widths) = star_widths(conn, &items, cols.len()) else { return };
        let mut at = 0;
        for (item, w) in items.iter().zip(widths) {
            for c in &mut cols[at..at + w] {
                let name = c.name.clone();
                apply(item, &name, c);
            }
            at += w;
        }
        return;
    }
    if list.len() != cols.len() || list.iter().any(|&(s, e)| toks[s..e].iter().any(|t| t.is_op("*"))) {
        return;
    }
    for (&(s, e), c) in list.iter().zip(cols.iter_mut()) {
        let Some((qualifier, column)) = column_ref(&toks[s..e]) else { continue };
        let item = match &qualifier {
            Some(q) => items.iter().find(|it| it.alias.eq_ignore_ascii_case(q)),
            None if items.len() == 1 => items.first(),
            None => {
                let mut holders = items.iter().filter(|it| it.table.is_none() || it.table.as_deref().is_some_and(|t| t.eq_ignore_ascii_case(&c.org_table)));
                match (holders.next(), holders.next()) {
                    (Some(one), None) => Some(one),
                    _ => None,
                }
            }
        };
        if let Some(item) = item {
            apply(item, &column, c);
        }
    }
}

/// A UNION, EXCEPT or INTERSECT outside parentheses: the outer SELECT is
/// one of several (one inside a derived table is that table's business).
fn has_set_operation(toks: &[Token]) -> bool {
    let mut depth = 0usize;
    toks.iter().any(|t| {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        }
        depth == 0 && (t.is_kw("UNION") || t.is_kw("EXCEPT") || t.is_kw("INTERSECT"))
    })
}

/// How many of the `n` columns of a `SELECT *` each item gives: a base
/// table its column count, a derived table its list's, at most one of them
/// unknown (the rest). None when that does not add up.
fn star_widths(conn: &Conn, items: &[FromItem], n: usize) -> Option<Vec<usize>> {
    let mut widths: Vec<Option<usize>> = items
        .iter()
        .map(|it| match &it.table {
            Some(t) => conn.table_def("temp", t).or_else(|| conn.table_def("main", t)).map(|d| d.columns.len()),
            None => it.derived_width,
        })
        .collect();
    let known: usize = widths.iter().flatten().sum();
    match widths.iter().filter(|w| w.is_none()).count() {
        0 if known == n => {}
        1 if known < n => *widths.iter_mut().find(|w| w.is_none())? = Some(n - known),
        _ => return None,
    }
    widths.into_iter().collect()
}

/// Describe `c` as a column of `item`; `column` its name there.
fn apply(item: &FromItem, column: &str, c: &mut Column) {
    match &item.table {
        // A base table (or view): only when SQLite says the column is its.
        Some(t) if t.eq_ignore_ascii_case(&c.org_table) => {
            c.table = item.alias.clone();
            if item.view {
                c.org_table = item.alias.clone();
            }
        }
        Some(_) => {}
        None => {
            let from_table = !c.org_table.is_empty();
            c.table = item.alias.clone();
            c.org_table = if from_table { item.alias.clone() } else { String::new() };
            if !from_table {
                c.schema.clear();
            }
            c.org_name = column.to_string();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (alias, base table, derived width) of each item.
    type Item = (String, Option<String>, Option<usize>);

    fn items(sql: &str) -> Option<Vec<Item>> {
        let toks = lex::tokenize(sql).ok()?;
        let s = outer_select(&toks)?;
        let (from, _) = select_list(&toks, s)?;
        from_items(&toks, from, &["c".to_string()]).map(|v| v.into_iter().map(|i| (i.alias, i.table, i.derived_width)).collect())
    }

    #[test]
    fn reads_from_lists() {
        let d = |a: &str, w: Option<usize>| (a.to_string(), None, w);
        let b = |a: &str, t: &str| (a.to_string(), Some(t.to_string()), None);
        assert_eq!(items("SELECT * FROM (SELECT 1 AS one) AS A"), Some(vec![d("A", Some(1))]));
        assert_eq!(items("SELECT x.a FROM t AS x WHERE a = 1"), Some(vec![b("x", "t")]));
        assert_eq!(items("SELECT * FROM db.t x JOIN (SELECT a, b FROM u) d ON x.a = d.a LEFT JOIN v USING (a) ORDER BY 1"), Some(vec![b("x", "t"), d("d", Some(2)), b("v", "v")]));
        assert_eq!(items("WITH c AS (SELECT 1) SELECT * FROM c, t FORCE INDEX (PRIMARY)"), Some(vec![d("c", None), b("t", "t")]));
        assert_eq!(items("SELECT * FROM (SELECT * FROM t) d"), Some(vec![d("d", None)]));
        assert_eq!(items("SELECT * FROM (t JOIN u)"), None);
        assert_eq!(items("SELECT 1"), None);
    }

    #[test]
    fn column_refs() {
        let toks = lex::tokenize("d.one AS w").unwrap();
        assert_eq!(column_ref(&toks), Some((Some("d".into()), "one".into())));
        let toks = lex::tokenize("one + 1").unwrap();
        assert_eq!(column_ref(&toks), None);
        let toks = lex::tokenize("db.t.a").unwrap();
        assert_eq!(column_ref(&toks), Some((Some("t".into()), "a".into())));
    }
}
