//! Names in ORDER BY and HAVING checked against the select list, for the
//! refusals MariaDB gives there and SQLite does not:
//!
//! - ORDER BY naming two select items that are different columns under the
//!   same name (`SELECT col1 AS col, col FROM t1 ORDER BY col`, `SELECT p.a
//!   AS val, q.a AS val ... ORDER BY val`): 1052 "Column 'col' in ORDER BY
//!   is ambiguous" (SQLite takes the first).
//! - HAVING naming a column that is neither a select item (its alias or its
//!   column) nor a column of the GROUP BY list, outside an aggregate
//!   (`SELECT COUNT(*) FROM t1 GROUP BY b HAVING a = 10`): 1054 "Unknown
//!   column 'a' in 'HAVING'" (SQLite reads the table's column).
//!
//! Text-level and conservative: a name that could be anything else (a
//! keyword, a qualified name, a name in a subquery, a select list with `*`,
//! a HAVING that could see an outer query's columns) is left alone. Runs only
//! on statements with ORDER or HAVING; at most `MAX_SELECTS` SELECTs, each
//! scanning its own clauses (parentheses of subqueries skipped by their
//! closing index), so the cost stays linear in the statement's length.

use super::having::AGGREGATES;
use super::select_alias::{alias_start, closings, items};
use turnstile_engine::SqlError;
use turnstile_sqltext::keywords::is_keyword;
use turnstile_sqltext::lex::{Tok, Token};

const MAX_SELECTS: usize = 256;

/// Words that end a clause of a SELECT (at its depth).
const CLAUSE_ENDS: [&str; 12] = ["GROUP", "HAVING", "ORDER", "LIMIT", "WINDOW", "UNION", "EXCEPT", "INTERSECT", "FOR", "LOCK", "INTO", "PROCEDURE"];

/// 1052 or 1054 for an ORDER BY or HAVING name MariaDB refuses, else Ok.
pub(super) fn check(toks: &[Token]) -> Result<(), SqlError> {
    if !toks.iter().any(|t| t.is_kw("ORDER") || t.is_kw("HAVING")) {
        return Ok(());
    }
    if toks.iter().filter(|t| t.is_kw("SELECT")).count() > MAX_SELECTS {
        return Ok(());
    }
    let Some(close) = closings(toks) else { return Ok(()) };
    let mut around: Vec<usize> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            around.push(i);
        } else if t.is_op(")") {
            around.pop();
        } else if t.is_kw("SELECT") {
            let end = around.last().map_or(toks.len(), |&p| close[p]);
            // HAVING sees no outer query's columns at the top or in a derived table.
            let alone = around.last().is_none_or(|&p| p > 0 && (toks[p - 1].is_kw("FROM") || toks[p - 1].is_kw("JOIN")));
            one_select(toks, &close, i, end, alone)?;
        }
    }
    Ok(())
}

/// A select item that is a column (`c`, `t.c`, `d.t.c`, with or without an
/// alias): its table qualifier and column (lower case).
struct Field {
    table: Option<String>,
    column: String,
}

/// The column `toks[a..e]` names, if it is one.
fn field(toks: &[Token], a: usize, e: usize) -> Option<Field> {
    let name = |t: &Token| match &t.tok {
        Tok::Quoted(w) => Some(w.as_str().to_ascii_lowercase()),
        Tok::Word(w) => Some(w.as_str().to_ascii_lowercase()),
        _ => None,
    };
    match e.checked_sub(a)? {
        1 => {
            // A bare keyword (NULL, TRUE, CURRENT_DATE) is no column here.
            if matches!(&toks[a].tok, Tok::Word(w) if is_keyword(w.as_str())) {
                return None;
            }
            Some(Field { table: None, column: name(&toks[a])? })
        }
        3 | 5 if toks[e - 2].is_op(".") && (e - a == 3 || toks[a + 1].is_op(".")) => {
            name(&toks[e - 3])?;
            Some(Field { table: name(&toks[e - 3]), column: name(&toks[e - 1])? })
        }
        _ => None,
    }
}

/// Are two column items different columns? One without a qualifier may be
/// the other's: not told apart.
fn differ(x: &Field, y: &Field) -> bool {
    x.column != y.column || matches!((&x.table, &y.table), (Some(a), Some(b)) if a != b)
}

/// The name token at `k` that could be an unqualified column: not a
/// keyword, a function, a qualifier or a name after `.`, AS, COLLATE, ...
fn column_name(toks: &[Token], k: usize) -> Option<&str> {
    let t = &toks[k];
    let name = t.ident()?;
    if matches!(&t.tok, Tok::Word(w) if is_keyword(w.as_str()) || (w.starts_with('_') && toks.get(k + 1).is_some_and(|n| matches!(n.tok, Tok::Str(_))))) {
        return None;
    }
    if toks.get(k + 1).is_some_and(|n| n.is_op(".") || n.is_op("(")) {
        return None;
    }
    let prev = k.checked_sub(1).map(|p| &toks[p]);
    if prev.is_some_and(|p| p.is_op(".") || ["AS", "COLLATE", "SET", "CHARSET"].iter().any(|w| p.is_kw(w))) {
        return None;
    }
    Some(name)
}

/// Does the `(` at `k` open a subquery?
fn subquery(toks: &[Token], k: usize) -> bool {
    toks[k].is_op("(") && toks.get(k + 1).is_some_and(|n| n.is_kw("SELECT") || n.is_kw("WITH") || n.is_op("("))
}

/// The SELECT at `sel` whose text ends at `end`.
fn one_select(toks: &[Token], close: &[usize], sel: usize, end: usize, alone: bool) -> Result<(), SqlError> {
    let list = items(toks, sel + 1, end);
    let Some(&(_, list_end, _)) = list.last() else { return Ok(()) };
    // Its clauses at its own depth: (keyword's index, start, end).
    let mut clauses: Vec<(usize, usize, usize)> = Vec::new();
    let mut in_union = sel > 0 && ["UNION", "EXCEPT", "INTERSECT", "ALL", "DISTINCT"].iter().any(|w| toks[sel - 1].is_kw(w));
    let mut k = list_end;
    while k < end {
        let t = &toks[k];
        if t.is_op("(") {
            k = close[k] + 1;
            continue;
        }
        if CLAUSE_ENDS.iter().any(|w| t.is_kw(w)) {
            if let Some(last) = clauses.last_mut() {
                last.2 = k;
            }
            if t.is_kw("UNION") || t.is_kw("EXCEPT") || t.is_kw("INTERSECT") {
                in_union = true;
                break;
            }
            let by = usize::from(toks.get(k + 1).is_some_and(|n| n.is_kw("BY")));
            clauses.push((k, k + 1 + by, end));
        }
        k += 1;
    }
    for &(kw, a, b) in &clauses {
        if toks[kw].is_kw("ORDER") && !in_union {
            order_by(toks, close, &list, a, b)?;
        }
        if toks[kw].is_kw("HAVING") && alone {
            let group = clauses.iter().find(|c| toks[c.0].is_kw("GROUP")).map(|c| (c.1, c.2));
            having(toks, close, &list, group, a, b)?;
        }
    }
    Ok(())
}

/// Each unqualified name in `toks[a..b]` outside subqueries (and, with
/// `skip_aggregates`, outside aggregates' arguments), to `each`.
fn names<'t>(toks: &'t [Token], close: &[usize], a: usize, b: usize, skip_aggregates: bool, mut each: impl FnMut(&'t str) -> Result<(), SqlError>) -> Result<(), SqlError> {
    let mut k = a;
    while k < b {
        if subquery(toks, k) {
            k = close[k] + 1;
            continue;
        }
        if skip_aggregates && toks.get(k + 1).is_some_and(|n| n.is_op("(")) && matches!(&toks[k].tok, Tok::Word(w) if AGGREGATES.iter().any(|g| w.eq_ignore_ascii_case(g))) {
            k = close[k + 1] + 1;
            continue;
        }
        if let Some(name) = column_name(toks, k) {
            each(name)?;
        }
        k += 1;
    }
    Ok(())
}

/// ORDER BY `toks[a..b]`: a name two column items of the list answer to, being different columns.
fn order_by(toks: &[Token], close: &[usize], list: &[(usize, usize, Option<String>)], a: usize, b: usize) -> Result<(), SqlError> {
    names(toks, close, a, b, false, |name| {
        let lower = name.to_ascii_lowercase();
        let mut found: Option<Field> = None;
        for &(x, y, ref alias) in list {
            let f = field(toks, x, alias_start(toks, x, y));
            let named = match (&f, alias) {
                (_, Some(al)) => *al == lower,
                (Some(f), None) => f.column == lower,
                (None, None) => false,
            };
            if !named {
                continue;
            }
            // An expression under that alias: MariaDB takes the first such, left alone.
            let Some(f) = f else { return Ok(()) };
            match &found {
                Some(g) if differ(g, &f) => return Err(SqlError::new(1052, "23000", format!("Column '{}' in ORDER BY is ambiguous", name))),
                Some(_) => {}
                None => found = Some(f),
            }
        }
        Ok(())
    })
}

/// HAVING `toks[a..b]`: a name no select item (alias or column) and no
/// column of the GROUP BY list (`group`) answers to.
fn having(toks: &[Token], close: &[usize], list: &[(usize, usize, Option<String>)], group: Option<(usize, usize)>, a: usize, b: usize) -> Result<(), SqlError> {
    // `*` in the list: every column is an item.
    if list.iter().any(|&(x, y, _)| toks[x..y].iter().any(|t| t.is_op("*")) && (y == x + 1 || toks[y - 2].is_op("."))) {
        return Ok(());
    }
    let mut known: Vec<String> = Vec::new();
    for &(x, y, ref alias) in list {
        if let Some(al) = alias {
            known.push(al.clone());
        }
        if let Some(f) = field(toks, x, alias_start(toks, x, y)) {
            known.push(f.column);
        }
    }
    if let Some((g, h)) = group {
        // Each item of the GROUP BY list that is a column (ASC/DESC after it).
        let mut start = g;
        let mut k = g;
        while k <= h {
            if k == h || toks[k].is_op(",") {
                let mut e = k;
                if e > start + 1 && (toks[e - 1].is_kw("ASC") || toks[e - 1].is_kw("DESC")) {
                    e -= 1;
                }
                if let Some(f) = field(toks, start, e) {
                    known.push(f.column);
                }
                start = k + 1;
            } else if toks[k].is_op("(") {
                k = close[k];
                continue;
            }
            k += 1;
        }
    }
    names(toks, close, a, b, true, |name| if known.iter().any(|n| n.eq_ignore_ascii_case(name)) { Ok(()) } else { Err(SqlError::unknown_column(name, "HAVING")) })
}

#[cfg(test)]
mod tests {
    use super::check;
    use turnstile_sqltext::lex;

    fn code(sql: &str) -> Option<u16> {
        check(&lex::tokenize(sql).unwrap()).err().map(|e| e.code)
    }

    #[test]
    fn order_by_two_columns_of_one_name() {
        assert_eq!(code("select col1 as col, col from t1 order by col"), Some(1052));
        assert_eq!(code("SELECT p.a AS val, q.a AS val FROM t1 p, t1 q ORDER BY val"), Some(1052));
        assert_eq!(code("SELECT p.a AS val, q.a AS val FROM t1 p, t1 q ORDER BY val > 1"), Some(1052));
        assert_eq!(code("select t1.a, t2.a from t1, t2 order by a"), Some(1052));
        let e = check(&lex::tokenize("select col1 as col, col from t1 order by col").unwrap()).unwrap_err();
        assert_eq!(e.message, "Column 'col' in ORDER BY is ambiguous");
    }

    #[test]
    fn order_by_left_alone() {
        assert_eq!(code("select a, a from t1 order by a"), None);
        assert_eq!(code("select a, t1.a from t1 order by a"), None);
        assert_eq!(code("select 1 as x, 2 as x from t1 order by x"), None);
        assert_eq!(code("select a as x, b as y from t1 order by x, y"), None);
        assert_eq!(code("select a as x, b as x from t1 order by t1.x"), None);
        assert_eq!(code("select a as x from t1 union select b as x from t2 order by x"), None);
        assert_eq!(code("select a as x, b as x from t1 order by (select x from t2)"), None);
        assert_eq!(code("select true as x, false as x order by x"), None);
    }

    #[test]
    fn having_unknown_column() {
        assert_eq!(code("select count(*) from t1 group by col2 having col1 = 10"), Some(1054));
        assert_eq!(code("SELECT 1 FROM t1 GROUP BY b HAVING a = 2"), Some(1054));
        assert_eq!(code("select a from t1 group by a+b having b=1"), Some(1054));
        assert_eq!(code("select a from (select a from t1 having `b`=1) d"), Some(1054));
        let e = check(&lex::tokenize("select a from t1 having b=1").unwrap()).unwrap_err();
        assert_eq!(e.message, "Unknown column 'b' in 'HAVING'");
    }

    #[test]
    fn having_left_alone() {
        assert_eq!(code("select a as z from t1 having a=1"), None);
        assert_eq!(code("select a as z from t1 having z=1"), None);
        assert_eq!(code("select x.a from t1 x having a>1"), None);
        assert_eq!(code("select a from t1 group by b having b=1 and sum(c) > 2"), None);
        assert_eq!(code("select * from t1 having b=1"), None);
        assert_eq!(code("select t.* from t1 t having b=1"), None);
        assert_eq!(code("select a from t1 having t1.b=1"), None);
        assert_eq!(code("select a from t1 having count(b) > 1 and a is not null"), None);
        assert_eq!(code("select a from t1 group by a having a = (select max(b) from t2)"), None);
        // A subquery's HAVING may name an outer column.
        assert_eq!(code("select a from t1 where a in (select c from t2 group by c having t1b = 1)"), None);
        assert_eq!(code("select a from t1 having a > date '2020-01-01' and a < now() - interval 1 day"), None);
        assert_eq!(code("select a from t1 having a = _latin1'x' collate latin1_bin"), None);
        assert_eq!(code("select concat(a, b) as c from t1 group by c having c like 'x%'"), None);
    }

    #[test]
    fn bounded() {
        let deep = format!("{}select a from t1 having b{}", "(".repeat(10_000), ")".repeat(10_000));
        let _ = code(&deep);
        let many = format!("select a from t1 {} order by a", "union select a from t1 ".repeat(1000));
        assert_eq!(code(&many), None);
    }
}
