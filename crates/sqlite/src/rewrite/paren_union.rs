//! Parenthesised query members: `(SELECT ...) UNION (SELECT ... LIMIT 1)`,
//! `SELECT 1 UNION (SELECT 2)`, `(SELECT ... LIMIT 3) ORDER BY b`. MySQL
//! allows a member of UNION / INTERSECT / EXCEPT, or a whole query, in
//! parentheses, each with its own ORDER BY and LIMIT; SQLite allows neither.
//! Each parenthesised member at the top level becomes `SELECT * FROM (...)`,
//! a derived table SQLite reads, so its ORDER BY and LIMIT stay its own. The
//! text is rewritten before the translation, which then sees plain SQL; an
//! INSERT's query (`unwrap_insert`) as a SELECT. `member_texts` gives each
//! member's own text, to type the query's result columns from all of them.

use turnstile_sqltext::lex::{self, Token};

/// Parentheses nested deeper than this around one member are left as they are
/// (SQLite then refuses the statement: ERR 1064); the depth limit of every
/// recursive routine here.
const MAX_NESTING: usize = 32;

/// `sql` with its parenthesised top-level members as derived tables, or None
/// when it has none (the common case costs one token scan).
pub(super) fn unwrap(sql: &str, toks: &[Token]) -> Option<String> {
    // After a WITH clause (`WITH c AS (...) (SELECT ...) UNION (SELECT ...)`)
    // the query is unwrapped, the CTEs kept before it.
    let query = after_with(toks)?;
    unwrap_at(sql, &toks[query..], 0)
}

/// Where the query after a leading WITH clause starts (0 without one); None
/// when the clause does not read as one.
fn after_with(toks: &[Token]) -> Option<usize> {
    if !toks.first().is_some_and(|t| t.is_kw("WITH")) {
        return Some(0);
    }
    let mut i = 1 + usize::from(toks.get(1).is_some_and(|t| t.is_kw("RECURSIVE")));
    loop {
        toks.get(i)?.ident()?;
        i += 1;
        if toks.get(i)?.is_op("(") {
            i = turnstile_sqltext::parens::closing(toks, i)? + 1;
        }
        if !toks.get(i)?.is_kw("AS") || !toks.get(i + 1)?.is_op("(") {
            return None;
        }
        i = turnstile_sqltext::parens::closing(toks, i + 1)? + 1;
        if !toks.get(i)?.is_op(",") {
            return Some(i);
        }
        i += 1;
    }
}

fn unwrap_at(sql: &str, toks: &[Token], nesting: usize) -> Option<String> {
    if nesting > MAX_NESTING || toks.is_empty() {
        return None;
    }
    let members = top_level_members(toks, &|i| turnstile_sqltext::parens::closing(toks, i))?;
    if !members.iter().any(|m| m.paren.is_some()) {
        return None;
    }
    let mut out = String::with_capacity(sql.len() + 32);
    let mut at = toks[0].start;
    out.push_str(&sql[..at]);
    for m in &members {
        let Some((open, close)) = m.paren else { continue };
        out.push_str(&sql[at..toks[open].start]);
        let inner = &toks[open + 1..close];
        let inner_text = inner.first().map_or("", |f| &sql[f.start..toks[close - 1].end]);
        let inner_toks = lex::tokenize(inner_text).ok()?;
        let unwrapped = after_with(&inner_toks).and_then(|q| unwrap_at(inner_text, &inner_toks[q..], nesting + 1));
        out.push_str("SELECT * FROM (");
        out.push_str(unwrapped.as_deref().unwrap_or(inner_text));
        out.push(')');
        at = toks[close].end;
    }
    out.push_str(&sql[at..]);
    Some(out)
}

/// An INSERT / REPLACE whose query has parenthesised members (`INSERT INTO
/// t (SELECT a FROM u) UNION (SELECT b FROM v) LIMIT 2`, and so CREATE TABLE
/// ... SELECT of such a query, which inserts it): its query unwrapped as
/// `unwrap` does; None when it has none. The query starts at the first
/// `SELECT`, `WITH` or `(SELECT` at depth 0 (a column list is skipped); a
/// VALUES or SET form, or an ON DUPLICATE KEY UPDATE, is left alone.
pub(super) fn unwrap_insert(sql: &str, toks: &[Token]) -> Option<String> {
    let mut i = 0;
    let start = loop {
        let t = toks.get(i)?;
        if t.is_kw("VALUES") || t.is_kw("VALUE") || t.is_kw("SET") {
            return None;
        }
        if t.is_kw("SELECT") || t.is_kw("WITH") {
            break i;
        }
        if t.is_op("(") {
            if toks.get(i + 1).is_some_and(|n| n.is_kw("SELECT") || n.is_kw("WITH") || n.is_op("(")) {
                break i;
            }
            i = turnstile_sqltext::parens::closing(toks, i)?;
        }
        i += 1;
    };
    if toks[start..].iter().any(|t| t.is_kw("DUPLICATE")) {
        return None;
    }
    let query = &sql[toks[start].start..];
    let query_toks = lex::tokenize(query).ok()?;
    let unwrapped = unwrap(query, &query_toks)?;
    Some(format!("{}{}", &sql[..toks[start].start], unwrapped))
}

/// `sql` with every query inside parentheses (a derived table, a subquery)
/// whose members are parenthesised unwrapped as `unwrap` does at the top
/// level: `FROM ((SELECT a FROM t LIMIT 1) UNION (SELECT b FROM u)) q`,
/// `EXISTS ((SELECT 1) UNION (SELECT 2))`. None when there is none.
pub(super) fn unwrap_nested(sql: &str, toks: &[Token]) -> Option<String> {
    let pairs = closings(toks)?;
    let mut out = String::new();
    let mut at = 0;
    let mut i = 0;
    while i < toks.len() {
        if !toks[i].is_op("(") || !toks.get(i + 1).is_some_and(|n| n.is_op("(") || n.is_kw("SELECT") || n.is_kw("VALUES") || n.is_kw("WITH")) {
            i += 1;
            continue;
        }
        let close = pairs.close_at[i];
        let inner = &toks[i + 1..close];
        let base = i + 1;
        // A member in parentheses first (not the only thing inside: `((...))`
        // is looked into at the next pair), or a set operator at this depth.
        let wrapper = inner.first().is_some_and(|t| t.is_op("(")) && pairs.close_at[base] + 1 == close;
        let candidate = (inner.first().is_some_and(|t| t.is_op("(")) && !wrapper) || pairs.set_operator[i];
        if !candidate || !has_parenthesised_member(inner, &|k| Some(pairs.close_at[base + k] - base)) {
            i += 1;
            continue;
        }
        let inner_text = &sql[inner[0].start..inner[inner.len() - 1].end];
        let inner_toks = lex::tokenize(inner_text).ok()?;
        let Some(unwrapped) = unwrap_at(inner_text, &inner_toks, 0) else {
            i += 1;
            continue;
        };
        out.push_str(&sql[at..inner[0].start]);
        out.push_str(&unwrapped);
        at = inner[inner.len() - 1].end;
        i = close + 1;
    }
    if at == 0 {
        return None;
    }
    out.push_str(&sql[at..]);
    Some(out)
}

/// For each `(` token, the index of its `)` (other entries unused); None
/// when the parentheses do not balance. One pass, so that looking into
/// every pair of a deeply nested statement stays linear.
fn closings(toks: &[Token]) -> Option<Pairs> {
    let mut pairs = Pairs { close_at: vec![0; toks.len()], set_operator: vec![false; toks.len()] };
    let mut open: Vec<usize> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            open.push(i);
        } else if t.is_op(")") {
            pairs.close_at[open.pop()?] = i;
        } else if is_set_operator(t) {
            if let Some(&o) = open.last() {
                pairs.set_operator[o] = true;
            }
        }
    }
    open.is_empty().then_some(pairs)
}

/// Parenthesis pairs of a statement, indexed by the `(` token.
struct Pairs {
    close_at: Vec<usize>,
    /// Does a UNION / INTERSECT / EXCEPT stand directly inside the pair?
    set_operator: Vec<bool>,
}

/// Is `inner` a query with a parenthesised member that SQLite would refuse:
/// two or more members, or one followed by the query's ORDER BY or LIMIT
/// (`((SELECT 1))` alone is a subquery SQLite reads as it is)?
fn has_parenthesised_member(inner: &[Token], closing: &dyn Fn(usize) -> Option<usize>) -> bool {
    let Some(members) = top_level_members(inner, closing) else { return false };
    members.iter().any(|m| m.paren.is_some()) && (members.len() > 1 || members.last().and_then(|m| m.paren).is_some_and(|(_, c)| c + 1 < inner.len()))
}

/// One member of a query: its parenthesis pair (token indexes) when it is
/// `( ... )`; its tokens `[start, end)` up to the next set operator when not.
struct Member {
    paren: Option<(usize, usize)>,
    span: (usize, usize),
}

/// The members of the query `toks` at depth 0, split at UNION / INTERSECT /
/// EXCEPT; None when the statement is not a query of that shape (a member
/// starts with something else than SELECT, VALUES or `(`, or parentheses do
/// not balance).
fn top_level_members(toks: &[Token], closing: &dyn Fn(usize) -> Option<usize>) -> Option<Vec<Member>> {
    let mut members = Vec::new();
    let mut i = 0;
    loop {
        let t = toks.get(i)?;
        if t.is_op("(") {
            let close = closing(i)?;
            // `(SELECT ...) AS x` or `(...) + 1` is no member: leave the statement alone.
            if !inner_is_query(&toks[i + 1..close]) {
                return None;
            }
            members.push(Member { paren: Some((i, close)), span: (i + 1, close) });
            i = close + 1;
            // What may follow a member: a set operator, the query's ORDER BY / LIMIT, or its end.
            if toks.get(i).is_some_and(|t| !(is_set_operator(t) || t.is_kw("ORDER") || t.is_kw("LIMIT") || t.is_kw("FOR") || t.is_kw("LOCK"))) {
                return None;
            }
        } else if t.is_kw("SELECT") || t.is_kw("VALUES") {
            let start = i;
            i = next_set_operator(toks, i)?;
            members.push(Member { paren: None, span: (start, i) });
        } else {
            return None;
        }
        match toks.get(i) {
            Some(op) if is_set_operator(op) => {
                i += 1;
                while toks.get(i).is_some_and(|t| t.is_kw("ALL") || t.is_kw("DISTINCT")) {
                    i += 1;
                }
            }
            // ORDER BY / LIMIT of the whole query, or its end.
            _ => return Some(members),
        }
    }
}

/// The text of each member of the query `sql` when it is a UNION /
/// INTERSECT / EXCEPT at the top level (None otherwise): a parenthesised
/// member without its parentheses, a plain one without the query's own
/// ORDER BY, LIMIT and locking clause. Each is a query of its own, whose
/// result columns are described to type the whole query's (exec/results.rs).
pub fn member_texts(sql: &str) -> Option<Vec<String>> {
    let toks = lex::tokenize(sql).ok()?;
    let mut end = toks.len();
    while end > 0 && toks[end - 1].is_op(";") {
        end -= 1;
    }
    let toks = &toks[..end];
    let members = top_level_members(toks, &|i| turnstile_sqltext::parens::closing(toks, i))?;
    if members.len() < 2 {
        return None;
    }
    let mut texts = Vec::with_capacity(members.len());
    for m in &members {
        let (start, mut stop) = m.span;
        if m.paren.is_none() {
            stop = query_clauses_at(toks, start, stop);
        }
        if stop <= start {
            return None;
        }
        texts.push(sql[toks[start].start..toks[stop - 1].end].to_string());
    }
    Some(texts)
}

/// Where the whole query's ORDER BY, LIMIT, INTO or locking clause starts in
/// the plain member `[start, stop)` (its end when it has none).
fn query_clauses_at(toks: &[Token], start: usize, stop: usize) -> usize {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().take(stop).skip(start) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && ["ORDER", "LIMIT", "INTO", "FOR", "LOCK", "PROCEDURE"].iter().any(|w| t.is_kw(w)) {
            return k;
        }
    }
    stop
}

fn is_set_operator(t: &Token) -> bool {
    t.is_kw("UNION") || t.is_kw("INTERSECT") || t.is_kw("EXCEPT")
}

/// Does `inner` (the tokens inside a pair of parentheses) hold a query?
fn inner_is_query(inner: &[Token]) -> bool {
    let first = inner.iter().find(|t| !t.is_op("("));
    first.is_some_and(|t| t.is_kw("SELECT") || t.is_kw("VALUES") || t.is_kw("WITH"))
}

/// From a plain member starting at `from`: the index of the next set operator
/// at depth 0, or the end; None when parentheses do not balance.
fn next_set_operator(toks: &[Token], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(from) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.checked_sub(1)?;
        } else if depth == 0 && is_set_operator(t) {
            return Some(k);
        }
    }
    Some(toks.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(sql: &str) -> Option<String> {
        unwrap(sql, &lex::tokenize(sql).unwrap())
    }

    #[test]
    fn members_become_derived_tables() {
        assert_eq!(run("SELECT a FROM t UNION SELECT b FROM u"), None);
        assert_eq!(run("SELECT (SELECT 1) AS x"), None);
        assert_eq!(run("(SELECT 1) UNION (SELECT 2)").as_deref(), Some("SELECT * FROM (SELECT 1) UNION SELECT * FROM (SELECT 2)"));
        assert_eq!(run("SELECT 1 UNION ALL (SELECT 2 LIMIT 1) ORDER BY 1").as_deref(), Some("SELECT 1 UNION ALL SELECT * FROM (SELECT 2 LIMIT 1) ORDER BY 1"));
        assert_eq!(run("(SELECT a FROM t LIMIT 2) ORDER BY a DESC").as_deref(), Some("SELECT * FROM (SELECT a FROM t LIMIT 2) ORDER BY a DESC"));
        assert_eq!(run("((SELECT 1)) UNION DISTINCT (SELECT 2)").as_deref(), Some("SELECT * FROM (SELECT * FROM (SELECT 1)) UNION DISTINCT SELECT * FROM (SELECT 2)"));
        assert_eq!(run("(SELECT 1) + 1"), None);
    }

    #[test]
    fn members_after_a_with_clause() {
        assert_eq!(
            run("WITH c AS (SELECT a FROM t), d(x) AS (SELECT 1) (SELECT a FROM c) UNION (SELECT x FROM d)").as_deref(),
            Some("WITH c AS (SELECT a FROM t), d(x) AS (SELECT 1) SELECT * FROM (SELECT a FROM c) UNION SELECT * FROM (SELECT x FROM d)")
        );
        assert_eq!(run("WITH RECURSIVE c AS (SELECT 1) (SELECT * FROM c)").as_deref(), Some("WITH RECURSIVE c AS (SELECT 1) SELECT * FROM (SELECT * FROM c)"));
        assert_eq!(run("WITH c AS (SELECT 1) SELECT * FROM c"), None);
        assert_eq!(run("WITH c AS"), None);
    }

    #[test]
    fn insert_queries_unwrapped() {
        let ins = |s: &str| unwrap_insert(s, &lex::tokenize(s).unwrap());
        assert_eq!(
            ins("INSERT INTO t (a, b) (SELECT a, b FROM u) UNION (SELECT 1, 2) LIMIT 2").as_deref(),
            Some("INSERT INTO t (a, b) SELECT * FROM (SELECT a, b FROM u) UNION SELECT * FROM (SELECT 1, 2) LIMIT 2")
        );
        assert_eq!(ins("INSERT INTO t SELECT 1 UNION (SELECT 2)").as_deref(), Some("INSERT INTO t SELECT 1 UNION SELECT * FROM (SELECT 2)"));
        assert_eq!(ins("INSERT INTO t SELECT a FROM u UNION SELECT 2"), None);
        assert_eq!(ins("INSERT INTO t VALUES ((SELECT 1))"), None);
        assert_eq!(ins("INSERT INTO t (a) SET a = 1"), None);
        assert_eq!(ins("INSERT INTO t (SELECT 1) UNION (SELECT 2) ON DUPLICATE KEY UPDATE a = 1"), None);
    }

    #[test]
    fn member_texts_without_the_query_clauses() {
        let texts = |s: &str| member_texts(s).map(|v| v.join(" | "));
        assert_eq!(texts("SELECT 1"), None);
        assert_eq!(texts("SELECT a FROM t UNION ALL SELECT 'x' ORDER BY 1 LIMIT 2;").as_deref(), Some("SELECT a FROM t | SELECT 'x'"));
        assert_eq!(texts("(SELECT a FROM t LIMIT 1) UNION (SELECT b FROM u ORDER BY b) ORDER BY 1").as_deref(), Some("SELECT a FROM t LIMIT 1 | SELECT b FROM u ORDER BY b"));
        assert_eq!(texts("SELECT sum(a) OVER (ORDER BY a) FROM t EXCEPT SELECT 1 FOR UPDATE").as_deref(), Some("SELECT sum(a) OVER (ORDER BY a) FROM t | SELECT 1"));
        assert_eq!(texts("WITH c AS (SELECT 1) SELECT * FROM c UNION SELECT 2"), None);
    }

    fn nested(sql: &str) -> Option<String> {
        unwrap_nested(sql, &lex::tokenize(sql).unwrap())
    }

    #[test]
    fn members_inside_parentheses_become_derived_tables() {
        assert_eq!(nested("SELECT * FROM ((SELECT 1 a) UNION SELECT 1 a) q").as_deref(), Some("SELECT * FROM (SELECT * FROM (SELECT 1 a) UNION SELECT 1 a) q"));
        assert_eq!(nested("SELECT 1 WHERE EXISTS ((SELECT 1) UNION (SELECT 2))").as_deref(), Some("SELECT 1 WHERE EXISTS (SELECT * FROM (SELECT 1) UNION SELECT * FROM (SELECT 2))"));
        assert_eq!(nested("SELECT * FROM ((SELECT a FROM t) ORDER BY a LIMIT 1) q").as_deref(), Some("SELECT * FROM (SELECT * FROM (SELECT a FROM t) ORDER BY a LIMIT 1) q"));
        assert_eq!(nested("SELECT a FROM t WHERE a IN ((SELECT 1))"), None);
        assert_eq!(nested("SELECT a FROM t WHERE (a, b) IN ((1, 2), (3, 4))"), None);
        assert_eq!(nested("SELECT (SELECT 1 UNION SELECT 2 LIMIT 1)"), None);
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let sql = format!("{}SELECT 1{}", "(".repeat(10_000), ")".repeat(10_000));
        let out = run(&sql).unwrap();
        assert!(out.len() < sql.len() * 3);
    }
}
