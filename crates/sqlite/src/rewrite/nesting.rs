//! The nesting limits, checked on the tokens before any translation.
//!
//! SQLite compiles a statement recursively on the session thread's stack,
//! once per derived table or subquery and per CTE that reads the one before
//! it, and neither counts toward its expression depth limit: a statement
//! nested deeply enough overflows the stack. MariaDB's limits (and errors)
//! keep every statement within what the stack holds.

use turnstile_engine::SqlError;
use turnstile_sqltext::lex::Token;

/// SELECTs nested inside one another, counting the outermost (MariaDB
/// 10.11's limit: 64 levels work, 65 are 1473).
pub const MAX_SELECT_NESTING: usize = 64;
/// Elements of one WITH clause (MariaDB's limit; 65 is 4003).
pub const MAX_WITH_ELEMENTS: usize = 64;
/// Joins nested in parentheses, `a JOIN (b JOIN (c ...))`: SQLite compiles
/// each level recursively (sqlite3SrcListAssignCursors and more), 100,000
/// levels overflowed the stack and took the server down. Every level adds a
/// table, so past SQLite's 64 tables in a join the statement could not run
/// anyway: ERR 1116, as for too many tables (MariaDB's limit is 61).
pub const MAX_JOIN_NESTING: usize = 64;

/// Refuse statements nested deeper than SQLite can compile on a thread's
/// stack: SQLite recurses once per derived table or subquery and per CTE
/// that reads the one before it, and neither counts toward its expression
/// depth limit (3,000 nested derived tables overflowed 1 MiB). The limits
/// are MariaDB's, with its errors.
pub(super) fn check_nesting(toks: &[Token]) -> Result<(), SqlError> {
    // Per open parenthesis: does it open a subquery; and per level, a WITH
    // list being read and its elements so far.
    let mut parens: Vec<bool> = Vec::new();
    let mut subqueries = 0usize;
    // Per open parenthesis: does it hold a join nested in a join?
    let mut join_parens: Vec<bool> = Vec::new();
    let mut joins = 0usize;
    let mut with: Vec<Option<usize>> = vec![None];
    for (i, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            let sub = toks.get(i + 1).is_some_and(|n| n.is_kw("SELECT") || n.is_kw("WITH"));
            let prev = i.checked_sub(1).map(|p| &toks[p]);
            let nested_join = prev.is_some_and(|p| p.is_kw("JOIN") || p.is_kw("STRAIGHT_JOIN")) || (prev.is_some_and(|p| p.is_op("(")) && join_parens.last() == Some(&true));
            join_parens.push(nested_join);
            if nested_join {
                joins += 1;
                if joins > MAX_JOIN_NESTING {
                    return Err(SqlError::new(1116, "HY000", "Too many tables; MySQL can only use 64 tables in a join"));
                }
            }
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
            if join_parens.pop() == Some(true) {
                joins -= 1;
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

#[cfg(test)]
mod tests {
    use super::super::test_support::resolver;
    use super::super::{rewrite, Kind};

    #[test]
    fn nesting_limits_are_mariadbs() {
        let nest = |n: usize| format!("SELECT * FROM {}(SELECT 1 AS x) d{}", "(SELECT * FROM ".repeat(n), ") d".repeat(n));
        // As MariaDB: 62 derived tables inside the outermost SELECT and around the innermost work.
        assert!(rewrite(&nest(62), Kind::Select, &resolver()).is_ok());
        assert_eq!(rewrite(&nest(63), Kind::Select, &resolver()).unwrap_err().code, 1473);
        assert_eq!(rewrite(&nest(3000), Kind::Select, &resolver()).unwrap_err().code, 1473);
        let chain = |n: usize| {
            format!(
                "WITH {} SELECT * FROM c{}",
                (0..n).map(|i| if i == 0 { "c0 AS (SELECT 1 AS x)".to_string() } else { format!("c{} AS (SELECT x FROM c{})", i, i - 1) }).collect::<Vec<_>>().join(", "),
                n - 1
            )
        };
        // Joins nested in parentheses: 64 levels, then 1116 (100,000 overflowed the stack).
        let joins = |n: usize| format!("SELECT * FROM t j0{}{}", (1..=n).map(|k| format!(" JOIN (t j{}", k)).collect::<String>(), ")".repeat(n));
        assert!(rewrite(&joins(64), Kind::Select, &resolver()).is_ok());
        assert_eq!(rewrite(&joins(65), Kind::Select, &resolver()).unwrap_err().code, 1116);
        assert_eq!(rewrite(&joins(100_000), Kind::Select, &resolver()).unwrap_err().code, 1116);
        assert!(rewrite(&chain(64), Kind::Select, &resolver()).is_ok());
        assert_eq!(rewrite(&chain(65), Kind::Select, &resolver()).unwrap_err().code, 4003);
        // Inside a derived table too.
        assert_eq!(rewrite(&format!("SELECT * FROM ({}) q", chain(3000)), Kind::Select, &resolver()).unwrap_err().code, 4003);
    }
}
