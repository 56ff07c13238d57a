//! An aggregate in ORDER BY of a query that otherwise does not aggregate
//! (`SELECT 1 FROM t ORDER BY COUNT(*)`): MariaDB makes the query an
//! aggregate one (one row, even over no rows); SQLite refuses ("misuse of
//! aggregate", ERR 1111 here). The outermost query gets `GROUP BY NULL`
//! before its ORDER BY: one group of all its rows, so SQLite aggregates too
//! (SQLite takes a HAVING only where the select list aggregates). Only
//! statements SQLite would refuse are touched. Difference: over no rows
//! this gives no row, where MariaDB gives one.

use super::having::AGGREGATES;
use turnstile_sqltext::lex::Token;

/// The outermost query with `GROUP BY NULL` added before its ORDER
/// BY, or None when it has no aggregate there, or one elsewhere, or a GROUP
/// BY, HAVING, UNION, window call or subquery in its ORDER BY.
pub(super) fn aggregate_by_order(sql: &str, toks: &[Token]) -> Option<String> {
    if !toks.first()?.is_kw("SELECT") || !toks.iter().any(|t| t.is_kw("ORDER")) {
        return None;
    }
    let mut depth = 0usize;
    let mut order = None;
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.checked_sub(1)?;
        } else if depth == 0 {
            if ["GROUP", "HAVING", "UNION", "EXCEPT", "INTERSECT", "WINDOW", "INTO"].iter().any(|k| t.is_kw(k)) {
                return None;
            }
            if t.is_kw("ORDER") && toks.get(i + 1).is_some_and(|n| n.is_kw("BY")) {
                order = Some(i);
                break;
            }
        }
    }
    let order = order?;
    // No aggregate before ORDER BY at this level (the select list, WHERE).
    if aggregate_calls(&toks[..order]).any(|d| d == 0) {
        return None;
    }
    let tail = &toks[order..];
    if tail.iter().any(|t| t.is_kw("SELECT") || t.is_kw("OVER")) || !aggregate_calls(tail).any(|_| true) {
        return None;
    }
    Some(format!("{} GROUP BY NULL {}", &sql[..toks[order].start], &sql[toks[order].start..]))
}

/// The depth (in parentheses, from the start of `toks`) of each aggregate
/// call in `toks`.
fn aggregate_calls(toks: &[Token]) -> impl Iterator<Item = usize> + '_ {
    let mut depth = 0usize;
    toks.iter().enumerate().filter_map(move |(i, t)| {
        let call = toks.get(i + 1).is_some_and(|n| n.is_op("(")) && t.ident().is_some_and(|w| AGGREGATES.iter().any(|a| w.eq_ignore_ascii_case(a)));
        let at = depth;
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        }
        call.then_some(at)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(sql: &str) -> Option<String> {
        aggregate_by_order(sql, &turnstile_sqltext::lex::tokenize(sql).unwrap())
    }

    #[test]
    fn an_aggregate_in_order_by_alone_makes_the_query_aggregate() {
        assert_eq!(rw("SELECT 1 FROM t1 ORDER BY COUNT(*)").as_deref(), Some("SELECT 1 FROM t1  GROUP BY NULL ORDER BY COUNT(*)"));
        assert!(rw("SELECT a FROM t1 WHERE a > 1 ORDER BY SUM(a) + 1, b").is_some());
        for sql in [
            "SELECT COUNT(*) FROM t1 ORDER BY COUNT(*)",
            "SELECT a FROM t1 GROUP BY a ORDER BY COUNT(*)",
            "SELECT a FROM t1 ORDER BY a",
            "SELECT a FROM t1 ORDER BY (SELECT COUNT(*) FROM t2)",
            "SELECT a FROM t1 ORDER BY COUNT(*) OVER ()",
            "SELECT a FROM t1 UNION SELECT a FROM t2 ORDER BY COUNT(*)",
            "SELECT a FROM t1 HAVING a > 1 ORDER BY COUNT(*)",
            "SELECT (SELECT COUNT(*) FROM t2) FROM t1 ORDER BY a",
        ] {
            assert_eq!(rw(sql), None, "{}", sql);
        }
    }
}
