//! `SELECT *` over NATURAL and USING joins in MySQL's column order.
//!
//! MySQL (and the SQL standard) lists a NATURAL or USING join's columns as:
//! the common columns once, then the left operand's other columns, then the
//! right's; for a RIGHT join the right operand comes first. SQLite keeps
//! the tables' own order (`a, b, c, d` where MariaDB gives `b, c, a, d` for
//! `t1 (a, b, c) NATURAL JOIN t2 (c, d, b)`), so `SELECT *` read positionally
//! by a client got other columns (join.test, type_enum.test).
//!
//! How: in the outermost select list, a bare `*` over a FROM clause that is
//! one chain of named tables, joined without parentheses, at least one of
//! them NATURAL or with USING, is written out as the qualified columns in
//! MySQL's order, MySQL text to MySQL text, before the translation. A common
//! column is read from the operand whose rows the join keeps (the left one,
//! the right one of a RIGHT join), so its value is the one MySQL shows.
//! Anything else (a derived table, a view, parentheses, an unknown table)
//! is left as it is.

use super::Resolver;
use turnstile_sqltext::lex::{Tok, Token};

/// Tables in one chain this pass expands at most (MariaDB's limit is 61).
const MAX_TABLES: usize = 61;

/// A column of the join's result: the qualifier it is read through and its name.
#[derive(Clone)]
struct Col {
    qual: String,
    name: String,
}

/// How one table joins the chain before it.
enum Link {
    Natural { right: bool },
    Using { right: bool, cols: Vec<String> },
    Other,
}

/// The statement with its `*` written out, or None when it has no such
/// select list.
pub(super) fn rewrite(sql: &str, toks: &[Token], resolver: &dyn Resolver) -> Option<String> {
    if !toks.iter().any(|t| t.is_kw("NATURAL") || t.is_kw("USING")) || !toks.first()?.is_kw("SELECT") {
        return None;
    }
    // The outermost select list: `SELECT [modifiers] item, ... FROM`.
    let from = top_level(toks, "FROM")?;
    let stars: Vec<usize> = (1..from)
        .filter(|&k| toks[k].is_op("*") && (toks[k - 1].is_kw("SELECT") || toks[k - 1].is_op(",") || is_modifier(&toks[k - 1])) && toks.get(k + 1).is_some_and(|n| n.is_op(",") || n.is_kw("FROM")))
        .collect();
    if stars.is_empty() {
        return None;
    }
    let cols = chain_columns(toks, from + 1, resolver)?;
    let list: Vec<String> = cols.iter().map(|c| format!("{}.{}", quote(&c.qual), quote(&c.name))).collect();
    let mut out = String::with_capacity(sql.len() + list.len() * 16);
    let mut at = 0;
    for k in stars {
        out.push_str(&sql[at..toks[k].start]);
        out.push_str(&list.join(", "));
        at = toks[k].end;
    }
    out.push_str(&sql[at..]);
    Some(out)
}

fn is_modifier(t: &Token) -> bool {
    ["DISTINCT", "ALL", "DISTINCTROW", "STRAIGHT_JOIN", "SQL_NO_CACHE", "SQL_CACHE", "SQL_CALC_FOUND_ROWS", "HIGH_PRIORITY"].iter().any(|m| t.is_kw(m))
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// The first `word` outside parentheses.
fn top_level(toks: &[Token], word: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.checked_sub(1)?;
        } else if depth == 0 && t.is_kw(word) {
            return Some(i);
        }
    }
    None
}

/// Parentheses around joins this pass reads at most (deeper: left alone).
const MAX_NESTING: usize = 32;

/// The result columns of the FROM clause starting at token `i`, in MySQL's
/// order; None unless it is made of named tables, joins of them and
/// parenthesised joins, with a NATURAL or USING join in it.
fn chain_columns(toks: &[Token], i: usize, resolver: &dyn Resolver) -> Option<Vec<Col>> {
    let mut tables = 0;
    let (cols, end, special) = join_list(toks, i, resolver, 0, &mut tables)?;
    let ends_from = toks.get(end).is_none_or(|t| t.is_op(";") || CLAUSES.iter().any(|w| t.is_kw(w)));
    (special && ends_from).then_some(cols)
}

/// What ends a FROM clause.
const CLAUSES: &[&str] = &["WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "WINDOW", "FOR", "LOCK", "INTO", "UNION", "EXCEPT", "INTERSECT"];

/// `chain, chain, ...` at token `i` (a comma binds less than JOIN): the
/// columns, the token after, and whether a NATURAL or USING join was seen.
fn join_list(toks: &[Token], mut i: usize, resolver: &dyn Resolver, depth: usize, tables: &mut usize) -> Option<(Vec<Col>, usize, bool)> {
    let (mut cols, mut end, mut special) = join_chain(toks, i, resolver, depth, tables)?;
    while toks.get(end).is_some_and(|t| t.is_op(",")) {
        i = end + 1;
        let (more, next, s) = join_chain(toks, i, resolver, depth, tables)?;
        cols.extend(more);
        special |= s;
        end = next;
    }
    Some((cols, end, special))
}

/// One operand and the joins after it, up to a comma, a `)` or the end of
/// the FROM clause.
fn join_chain(toks: &[Token], mut i: usize, resolver: &dyn Resolver, depth: usize, tables: &mut usize) -> Option<(Vec<Col>, usize, bool)> {
    let (mut cols, next, mut special) = operand_at(toks, i, resolver, depth, tables)?;
    i = next;
    while let Some(t) = toks.get(i) {
        if t.is_op(";") || t.is_op(",") || t.is_op(")") || CLAUSES.iter().any(|w| t.is_kw(w)) {
            break;
        }
        let natural = t.is_kw("NATURAL");
        let mut k = i + natural as usize;
        let right = toks.get(k).is_some_and(|t| t.is_kw("RIGHT"));
        let left = toks.get(k).is_some_and(|t| t.is_kw("LEFT"));
        if right || left || toks.get(k).is_some_and(|t| t.is_kw("INNER") || t.is_kw("CROSS")) {
            k += 1;
            if toks.get(k).is_some_and(|t| t.is_kw("OUTER")) {
                k += 1;
            }
        }
        if !toks.get(k).is_some_and(|t| t.is_kw("JOIN")) {
            return None; // STRAIGHT_JOIN or anything else: not this pass's
        }
        let (right_cols, after, s) = operand_at(toks, k + 1, resolver, depth, tables)?;
        special |= s;
        let (link, end) = if natural {
            (Link::Natural { right }, after)
        } else if toks.get(after).is_some_and(|t| t.is_kw("USING")) {
            let (names, end) = using_list(toks, after + 1)?;
            (Link::Using { right, cols: names }, end)
        } else if toks.get(after).is_some_and(|t| t.is_kw("ON")) {
            (Link::Other, on_end(toks, after + 1))
        } else {
            (Link::Other, after)
        };
        cols = match link {
            Link::Other => cols.into_iter().chain(right_cols).collect(),
            Link::Natural { right } => {
                special = true;
                // In the order of the side whose rows are all kept.
                let (kept, other) = if right { (&right_cols, &cols) } else { (&cols, &right_cols) };
                let common: Vec<String> = kept.iter().filter(|c| other.iter().any(|r| r.name.eq_ignore_ascii_case(&c.name))).map(|c| c.name.clone()).collect();
                merge(cols, right_cols, &common, right)
            }
            Link::Using { right, cols: names } => {
                special = true;
                merge(cols, right_cols, &names, right)
            }
        };
        i = end;
    }
    Some((cols, i, special))
}

/// A named table, or a parenthesised list of joins (not a derived table),
/// at token `i`: its columns, the token after it, and whether a NATURAL or
/// USING join was seen inside.
fn operand_at(toks: &[Token], i: usize, resolver: &dyn Resolver, depth: usize, tables: &mut usize) -> Option<(Vec<Col>, usize, bool)> {
    if toks.get(i)?.is_op("(") {
        if depth >= MAX_NESTING || toks.get(i + 1).is_some_and(|t| t.is_kw("SELECT") || t.is_kw("WITH") || t.is_op("(")) && starts_query(toks, i + 1) {
            return None;
        }
        let (cols, end, special) = join_list(toks, i + 1, resolver, depth + 1, tables)?;
        return toks.get(end).is_some_and(|t| t.is_op(")")).then_some((cols, end + 1, special));
    }
    *tables += 1;
    if *tables > MAX_TABLES {
        return None;
    }
    let (cols, next) = table_at(toks, i, resolver)?;
    Some((cols, next, false))
}

/// Does a query (`SELECT`, `WITH`, or one in more parentheses) start at `i`?
fn starts_query(toks: &[Token], i: usize) -> bool {
    let opens = toks[i..].iter().take_while(|t| t.is_op("(")).count();
    toks.get(i + opens).is_some_and(|t| t.is_kw("SELECT") || t.is_kw("WITH"))
}

/// The columns of `left JOIN right` on the common columns `common`: those
/// once (from the side whose rows are all kept), then the kept side's
/// others, then the other side's. None of it when a common column is
/// missing from a side (the join's own error then comes from SQLite).
fn merge(left: Vec<Col>, right: Vec<Col>, common: &[String], right_join: bool) -> Vec<Col> {
    let (first, second) = if right_join { (right, left) } else { (left, right) };
    let is_common = |c: &Col| common.iter().any(|n| n.eq_ignore_ascii_case(&c.name));
    let mut out: Vec<Col> = Vec::with_capacity(first.len() + second.len());
    // Common columns in the kept side's order (NATURAL) or the USING list's.
    for n in common {
        if let Some(c) = first.iter().find(|c| c.name.eq_ignore_ascii_case(n)) {
            out.push(c.clone());
        }
    }
    out.extend(first.iter().filter(|c| !is_common(c)).cloned());
    out.extend(second.into_iter().filter(|c| !is_common(c)));
    out
}

/// A named table at token `i` with its optional alias: its columns and the
/// token after it.
fn table_at(toks: &[Token], i: usize, resolver: &dyn Resolver) -> Option<(Vec<Col>, usize)> {
    let first = toks.get(i)?.ident()?;
    if !matches!(toks[i].tok, Tok::Word(_) | Tok::Quoted(_)) {
        return None;
    }
    let (db, name, mut k) = if toks.get(i + 1).is_some_and(|t| t.is_op(".")) { (Some(first), toks.get(i + 2)?.ident()?, i + 3) } else { (None, first, i + 1) };
    let def = resolver.table(db, name)?;
    if def.view.is_some() {
        return None;
    }
    let mut qual = def.name.clone();
    if toks.get(k).is_some_and(|t| t.is_kw("AS")) {
        qual = toks.get(k + 1)?.ident()?.to_string();
        k += 2;
    } else if let Some(alias) = toks.get(k).filter(|t| matches!(t.tok, Tok::Quoted(_)) || matches!(&t.tok, Tok::Word(w) if !is_join_word(w))).and_then(|t| t.ident()) {
        qual = alias.to_string();
        k += 1;
    } else if db.is_some() {
        // `db.t` without an alias: qualified by its name, which the
        // statement may also spell `db.t.c`; `t.c` reads it as well.
        qual = def.name.clone();
    }
    Some((def.columns.iter().map(|c| Col { qual: qual.clone(), name: c.name.clone() }).collect(), k))
}

/// A word that ends a table reference rather than naming its alias (the
/// list the engine's other FROM readers use).
fn is_join_word(w: &str) -> bool {
    turnstile_sqltext::clause::NOT_TABLE_ALIAS.iter().any(|k| w.eq_ignore_ascii_case(k))
}

/// `(a, b)` at token `i`: the names and the token after `)`.
fn using_list(toks: &[Token], i: usize) -> Option<(Vec<String>, usize)> {
    if !toks.get(i)?.is_op("(") {
        return None;
    }
    let mut names = Vec::new();
    let mut k = i + 1;
    loop {
        names.push(toks.get(k)?.ident()?.to_string());
        k += 1;
        if toks.get(k)?.is_op(")") {
            return Some((names, k + 1));
        }
        if !toks[k].is_op(",") {
            return None;
        }
        k += 1;
    }
}

/// The token after an ON condition starting at `i`: the next join word or
/// clause outside parentheses.
fn on_end(toks: &[Token], i: usize) -> usize {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(i) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            if depth == 0 {
                return k;
            }
            depth -= 1;
        } else if depth == 0
            && (t.is_op(";")
                || matches!(&t.tok, Tok::Word(w) if ["NATURAL", "LEFT", "RIGHT", "INNER", "CROSS", "JOIN", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "WINDOW", "FOR", "LOCK", "INTO", "UNION", "EXCEPT", "INTERSECT", "STRAIGHT_JOIN"].iter().any(|x| w.eq_ignore_ascii_case(x))))
        {
            return k;
        }
    }
    toks.len()
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{table_def, TestResolver};
    use super::*;
    use std::sync::Arc;

    fn resolver() -> TestResolver {
        TestResolver(vec![Arc::new(table_def("CREATE TABLE t1 (a INT, b INT, c INT)")), Arc::new(table_def("CREATE TABLE t2 (c INT, d INT, b INT)"))])
    }

    fn star(sql: &str) -> Option<String> {
        let toks = turnstile_sqltext::lex::tokenize(sql).unwrap();
        rewrite(sql, &toks, &resolver())
    }

    #[test]
    fn natural_and_using_columns_in_mysqls_order() {
        assert_eq!(star("SELECT * FROM t1 NATURAL JOIN t2").as_deref(), Some("SELECT `t1`.`b`, `t1`.`c`, `t1`.`a`, `t2`.`d` FROM t1 NATURAL JOIN t2"));
        assert_eq!(star("SELECT * FROM t1 NATURAL RIGHT JOIN t2").as_deref(), Some("SELECT `t2`.`c`, `t2`.`b`, `t2`.`d`, `t1`.`a` FROM t1 NATURAL RIGHT JOIN t2"));
        assert_eq!(
            star("SELECT DISTINCT * FROM t1 x LEFT JOIN t2 AS y USING (c) WHERE a > 1").as_deref(),
            Some("SELECT DISTINCT `x`.`c`, `x`.`a`, `x`.`b`, `y`.`d`, `y`.`b` FROM t1 x LEFT JOIN t2 AS y USING (c) WHERE a > 1")
        );
    }

    #[test]
    fn parenthesised_joins_and_comma_lists() {
        assert_eq!(star("SELECT * FROM (t1 NATURAL JOIN t2)").as_deref(), Some("SELECT `t1`.`b`, `t1`.`c`, `t1`.`a`, `t2`.`d` FROM (t1 NATURAL JOIN t2)"));
        // A comma binds less than JOIN: t1, (t2 NATURAL JOIN t1 AS u).
        assert_eq!(star("SELECT * FROM t1, t2 NATURAL JOIN t1 AS u").as_deref(), Some("SELECT `t1`.`a`, `t1`.`b`, `t1`.`c`, `t2`.`c`, `t2`.`b`, `t2`.`d`, `u`.`a` FROM t1, t2 NATURAL JOIN t1 AS u"));
        assert_eq!(
            star("SELECT * FROM (t1 NATURAL JOIN t2) NATURAL RIGHT JOIN (t2 AS x)").as_deref(),
            Some("SELECT `x`.`c`, `x`.`d`, `x`.`b`, `t1`.`a` FROM (t1 NATURAL JOIN t2) NATURAL RIGHT JOIN (t2 AS x)")
        );
        // Nesting past the limit is left alone, not refused.
        let deep = format!("SELECT * FROM {}t1 NATURAL JOIN t2{}", "(".repeat(40), ")".repeat(40));
        assert_eq!(star(&deep), None);
    }

    #[test]
    fn anything_else_is_left_alone() {
        for sql in [
            "SELECT * FROM t1 JOIN t2 ON t1.c = t2.c",
            "SELECT t1.* FROM t1 NATURAL JOIN t2",
            "SELECT * FROM ((SELECT 1 AS c) NATURAL JOIN t2)",
            "SELECT * FROM t1 NATURAL JOIN nosuch",
            "SELECT * FROM (SELECT 1 AS c) d NATURAL JOIN t2",
            "SELECT * FROM t1 JOIN t2 USING (",
            "SELECT * FROM t1 JOIN t2 USING",
            "INSERT INTO t1 SELECT * FROM t1 NATURAL JOIN t2",
        ] {
            assert_eq!(star(sql), None, "{}", sql);
        }
        // A chain past MariaDB's 61 tables is not expanded (nor refused here).
        let long = format!("SELECT * FROM t1{}", " NATURAL JOIN t2".repeat(70));
        assert_eq!(star(&long), None);
    }
}
