//! A select-list alias named inside a subquery of the same select list:
//! MariaDB reads it as that item's value when the item comes before
//! (`SELECT 1 AS a, (SELECT a + a) AS b`), and refuses a reference to its own
//! or a later item (1247, "forward reference in item list"). SQLite knows no
//! such name: the statement fails with "no such column" (1054). On that
//! error, and only then (every table in scope lacks the column), the
//! statement is written again with each such reference as the item's
//! expression in parentheses (exec/compile.rs compiles it once more, the
//! result columns keeping the client's names).
//!
//! A name straight in the select list (`SELECT 1 AS a, a + 1`) stays 1054,
//! as in MariaDB. Bounded: statements of more than `MAX_SELECTS` SELECTs or
//! `MAX_REFERENCES` references, or items longer than `MAX_ITEM_BYTES`, are
//! left as they are (the scan is then linear in the statement's length).

use turnstile_engine::SqlError;
use turnstile_sqltext::lex::{self, Tok, Token};

const MAX_SELECTS: usize = 256;
const MAX_REFERENCES: usize = 256;
const MAX_ITEM_BYTES: usize = 4096;

/// Words that end a select list (at its depth).
const LIST_ENDS: [&str; 11] = ["FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "INTO", "FOR", "LOCK", "WINDOW"];

/// Words before a name that make it no alias (`NOT a`, `BINARY a`, ...).
const NOT_BEFORE_ALIAS: [&str; 8] = ["NOT", "BINARY", "DISTINCT", "INTERVAL", "SELECT", "ALL", "NULL", "CASE"];

/// One SELECT: where its select list's items are, and how far it reaches.
struct Select {
    /// Each item: its token range and its alias (lower case).
    items: Vec<(usize, usize, Option<String>)>,
    /// Its tokens: from its SELECT to the `)` around it (or the end).
    span: (usize, usize),
    /// Whether it reads tables (a FROM after its select list).
    has_from: bool,
}

/// `sql` with its references to `column` as an earlier item's alias written
/// as that item's expression; ERR 1247 for a reference to its own or a later
/// item; None when no subquery of a select list names such an alias.
pub fn alias_references(sql: &str, column: &str) -> Option<Result<String, SqlError>> {
    let toks = lex::tokenize(sql).ok()?;
    let close = closings(&toks)?;
    let selects = selects(&toks, &close)?;
    let mut edits = Vec::new();
    let mut seen = 0usize;
    for (o, t) in toks.iter().enumerate() {
        if !t.ident().is_some_and(|n| n.eq_ignore_ascii_case(column)) || o.checked_sub(1).is_some_and(|p| toks[p].is_op(".")) || toks.get(o + 1).is_some_and(|n| n.is_op(".") || n.is_op("(")) {
            continue;
        }
        seen += 1;
        if seen > MAX_REFERENCES {
            return None;
        }
        // The innermost SELECT around the name, and the innermost one whose
        // select list holds it under an item aliased `column`.
        let innermost = selects.iter().filter(|s| s.span.0 < o && o <= s.span.1).max_by_key(|s| s.span.0)?;
        let holder = selects
            .iter()
            .filter(|s| s.span.0 < innermost.span.0 || std::ptr::eq(*s, innermost))
            .filter(|s| s.items.iter().any(|(a, b, _)| *a <= o && o < *b))
            .filter(|s| s.items.iter().any(|(_, _, al)| al.as_deref().is_some_and(|al| al.eq_ignore_ascii_case(column))))
            .max_by_key(|s| s.span.0);
        let Some(holder) = holder else { continue };
        if std::ptr::eq(holder, innermost) {
            // Straight in the select list: MariaDB's 1054 too.
            continue;
        }
        let j = holder.items.iter().position(|(a, b, _)| *a <= o && o < *b)?;
        let k = holder.items.iter().position(|(_, _, al)| al.as_deref().is_some_and(|al| al.eq_ignore_ascii_case(column)))?;
        if k >= j {
            return Some(Err(SqlError::new(1247, "42S22", format!("Reference '{}' not supported (forward reference in item list)", column))));
        }
        let (a, b, _) = holder.items[k];
        let expr_end = alias_start(&toks, a, b);
        // The SELECTs between the holder and the reference: with no FROM
        // among them, no table there could take an unqualified column.
        let no_tables = selects.iter().filter(|s| s.span.0 > holder.span.0 && s.span.0 < o && o <= s.span.1).all(|s| !s.has_from);
        if !keeps_meaning(&toks[a..expr_end], &toks[holder.items[j].0..holder.items[j].1], no_tables) {
            // Its columns could be read as the subquery's own there.
            return None;
        }
        let text = &sql[toks[a].start..toks[expr_end - 1].end];
        if text.len() > MAX_ITEM_BYTES {
            return None;
        }
        edits.push((t.start, t.end, format!("({})", text)));
    }
    super::splice(sql, edits).map(Ok)
}

/// Words of an expression that name no column.
const NOT_COLUMNS: [&str; 25] = [
    "NULL", "TRUE", "FALSE", "AND", "OR", "NOT", "XOR", "IS", "CASE", "WHEN", "THEN", "ELSE", "END", "AS", "BETWEEN", "LIKE", "IN", "DIV", "MOD", "INTERVAL", "DISTINCT", "BINARY", "COLLATE",
    "UNKNOWN", "SELECT",
];

/// Does the expression `expr` mean the same written inside `at` (the item
/// holding the reference)? Each column it names must be qualified by a name
/// `at` gives no table (an unqualified one could be a column of a table of
/// the subquery there), or be unqualified where `no_tables` (no SELECT in
/// between reads a table).
fn keeps_meaning(expr: &[Token], at: &[Token], no_tables: bool) -> bool {
    expr.iter().enumerate().all(|(k, t)| {
        let Some(name) = t.ident() else { return true };
        let after_dot = k > 0 && expr[k - 1].is_op(".");
        let qualifier = expr.get(k + 1).is_some_and(|n| n.is_op("."));
        let call = expr.get(k + 1).is_some_and(|n| n.is_op("("));
        let after_name = k > 0 && (expr[k - 1].is_kw("AS") || expr[k - 1].is_kw("COLLATE"));
        let keyword = matches!(t.tok, Tok::Word(_)) && NOT_COLUMNS.iter().any(|w| name.eq_ignore_ascii_case(w));
        if after_dot || call || after_name || keyword {
            return true;
        }
        if !qualifier {
            return no_tables;
        }
        // `q.c`: q names no table where the expression goes.
        !at.iter().enumerate().any(|(i, u)| u.ident().is_some_and(|n| n.eq_ignore_ascii_case(name)) && !at.get(i + 1).is_some_and(|n| n.is_op(".")))
    })
}

/// The `)` closing each `(` (by index), or None when they do not pair.
pub(super) fn closings(toks: &[Token]) -> Option<Vec<usize>> {
    let mut close = vec![toks.len(); toks.len()];
    let mut open = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            open.push(i);
        } else if t.is_op(")") {
            close[open.pop()?] = i;
        }
    }
    open.is_empty().then_some(close)
}

/// Every SELECT of the statement with its select list (None past MAX_SELECTS).
fn selects(toks: &[Token], close: &[usize]) -> Option<Vec<Select>> {
    if toks.iter().filter(|t| t.is_kw("SELECT")).count() > MAX_SELECTS {
        return None;
    }
    let mut out = Vec::new();
    // The `(` around each token, as a stack.
    let mut around: Vec<usize> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            around.push(i);
            continue;
        }
        if t.is_op(")") {
            around.pop();
            continue;
        }
        if !t.is_kw("SELECT") {
            continue;
        }
        let end = around.last().map_or(toks.len(), |&p| close[p]);
        let items = items(toks, i + 1, end);
        let has_from = items.last().is_some_and(|&(_, b, _)| toks.get(b).is_some_and(|t| t.is_kw("FROM")));
        out.push(Select { items, span: (i, end), has_from });
    }
    Some(out)
}

/// The items of the select list starting at `from` (before `end`).
pub(super) fn items(toks: &[Token], mut from: usize, end: usize) -> Vec<(usize, usize, Option<String>)> {
    while from < end && ["DISTINCT", "ALL", "DISTINCTROW", "SQL_NO_CACHE", "SQL_CACHE", "SQL_CALC_FOUND_ROWS", "HIGH_PRIORITY", "STRAIGHT_JOIN"].iter().any(|k| toks[from].is_kw(k)) {
        from += 1;
    }
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = from;
    let mut k = from;
    while k < end {
        let t = &toks[k];
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && (t.is_op(",") || LIST_ENDS.iter().any(|w| t.is_kw(w))) {
            out.push((start, k, alias(toks, start, k)));
            if !t.is_op(",") {
                return out;
            }
            start = k + 1;
        }
        k += 1;
    }
    if start < end {
        out.push((start, end, alias(toks, start, end)));
    }
    out
}

/// Where an item's alias starts (its end when it has none).
pub(super) fn alias_start(toks: &[Token], a: usize, b: usize) -> usize {
    if alias(toks, a, b).is_none() {
        return b;
    }
    if b >= a + 3 && toks[b - 2].is_kw("AS") {
        b - 2
    } else {
        b - 1
    }
}

/// The alias of the item `toks[a..b]` (`expr AS name`, `expr name`).
fn alias(toks: &[Token], a: usize, b: usize) -> Option<String> {
    if b < a + 2 {
        return None;
    }
    let name = match &toks[b - 1].tok {
        Tok::Word(w) | Tok::Quoted(w) => w.as_str().to_ascii_lowercase(),
        Tok::Str(s) if toks[b - 2].is_kw("AS") => String::from_utf8_lossy(s).to_ascii_lowercase(),
        _ => return None,
    };
    let prev = &toks[b - 2];
    if prev.is_kw("AS") {
        return (b >= a + 3).then_some(name);
    }
    let names_value =
        matches!(&prev.tok, Tok::Number(_) | Tok::Str(_) | Tok::Quoted(_)) || prev.is_op(")") || matches!(&prev.tok, Tok::Word(w) if !NOT_BEFORE_ALIAS.iter().any(|k| w.eq_ignore_ascii_case(k)));
    (names_value && matches!(toks[b - 1].tok, Tok::Word(_) | Tok::Quoted(_))).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::alias_references;

    fn run(sql: &str, column: &str) -> Option<Result<String, u16>> {
        alias_references(sql, column).map(|r| r.map_err(|e| e.code))
    }

    #[test]
    fn earlier_item_is_its_value() {
        assert_eq!(run("SELECT 1 as a,(SELECT a+a) b,(SELECT b)", "a"), Some(Ok("SELECT 1 as a,(SELECT (1)+(1)) b,(SELECT b)".into())));
        // One alias a time (exec/compile.rs tries again): `b`'s item names `a`,
        // written as its value on the next try.
        assert_eq!(run("SELECT 1 as a,(SELECT a+a) b,(SELECT b)", "b"), Some(Ok("SELECT 1 as a,(SELECT a+a) b,(SELECT ((SELECT a+a)))".into())));
        assert_eq!(run("SELECT 1 as a,(SELECT (1)+(1)) b,(SELECT b)", "b"), Some(Ok("SELECT 1 as a,(SELECT (1)+(1)) b,(SELECT ((SELECT (1)+(1))))".into())));
        assert_eq!(run("select 1 as xx, 1 = ALL (select 1 from t1 where 1 = xx )", "xx"), Some(Ok("select 1 as xx, 1 = ALL (select 1 from t1 where 1 = (1) )".into())));
        assert_eq!(run("SELECT * FROM (SELECT 1 as a,(SELECT a)) a", "a"), Some(Ok("SELECT * FROM (SELECT 1 as a,(SELECT (1))) a".into())));
        assert_eq!(run("SELECT t1.a x, (SELECT t.c FROM t2 AS t WHERE x=t.a) as test FROM t1", "x"), Some(Ok("SELECT t1.a x, (SELECT t.c FROM t2 AS t WHERE (t1.a)=t.a) as test FROM t1".into())));
        // The qualifier named in the subquery's FROM (even under an alias): left alone.
        assert_eq!(run("SELECT t1.a x, (SELECT t.c FROM t1 AS t WHERE x=t.a) as test FROM t1", "x"), None);
        // An unqualified column, or a qualifier the subquery names a table:
        // it could be read as the subquery's own, left as it is.
        assert_eq!(run("SELECT a x, (SELECT t.c FROM t1 AS t WHERE x=t.a) as test FROM t1", "x"), None);
        assert_eq!(run("SELECT t.a x, (SELECT c FROM t2 AS t WHERE x=1) FROM t1 t", "x"), None);
        // Unqualified where no SELECT in between reads a table: its value.
        assert_eq!(run("SELECT a as x, (select x) as y, (select y) as z FROM t1", "x"), Some(Ok("SELECT a as x, (select (a)) as y, (select y) as z FROM t1".into())));
        assert_eq!(run("SELECT a as x, (select (select x) from t2) as y FROM t1", "x"), None);
    }

    #[test]
    fn own_or_later_item_is_1247() {
        assert_eq!(run("SELECT (SELECT a) as a", "a"), Some(Err(1247)));
        assert_eq!(run("select 1 = ALL (select 1 from t1 where 1 = xx ), 1 as xx", "xx"), Some(Err(1247)));
        assert_eq!(run("select (select a from t1 where t1.a = a1) as a2, (select b from t2 where t2.b=a2) as a1", "a1"), Some(Err(1247)));
    }

    #[test]
    fn left_as_1054() {
        // Straight in the select list, in WHERE, qualified, no such alias.
        assert_eq!(run("SELECT 1 AS a, a + 1", "a"), None);
        assert_eq!(run("SELECT a AS out_a FROM t1 WHERE b > (SELECT MIN(b) FROM t1 WHERE a = out_a)", "out_a"), None);
        assert_eq!(run("SELECT 1 AS a, (SELECT t.a FROM t)", "a"), None);
        assert_eq!(run("SELECT 1 AS b, (SELECT a)", "a"), None);
        assert_eq!(run("SELECT (1", "a"), None);
    }

    #[test]
    fn bounded() {
        let many = format!("SELECT 1 AS a{}", ", (SELECT a)".repeat(1000));
        assert_eq!(run(&many, "a"), None);
    }
}
