//! SHOW ... WHERE <condition>: the SHOW statement run without its WHERE, its
//! rows then filtered by the engine (`EngineSession::filter_rows`), which
//! evaluates the condition as a WHERE clause over the SHOW's columns, as
//! MariaDB does (SHOW KEYS ... WHERE Key_name = 'x', SHOW PROCEDURE STATUS
//! WHERE Db = 'test', SHOW TABLE STATUS WHERE Name IN (SELECT ...)).

use super::access::session_access;
use super::Call;
use turnstile_engine::{Outcome, RowSink, SqlError};
use turnstile_sqltext::lex;

/// The SHOW statement before its top-level WHERE, and the condition after
/// it; None when the statement has none.
pub(super) fn split(sql: &str) -> Option<(&str, &str)> {
    let toks = lex::tokenize(sql).ok()?;
    let mut depth = 0usize;
    for t in &toks {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && t.is_kw("WHERE") {
            let condition = sql[t.end..].trim().trim_end_matches(';').trim_end();
            return Some((sql[..t.start].trim_end(), condition));
        }
    }
    None
}

/// Whether `condition`'s parentheses pair up (the engine reads it inside
/// a pair of its own, so that it stays one expression: no `) UNION (`).
fn balanced(condition: &str) -> bool {
    let Ok(toks) = lex::tokenize(condition) else { return false };
    let mut depth = 0usize;
    for t in &toks {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            let Some(d) = depth.checked_sub(1) else { return false };
            depth = d;
        } else if t.is_op(";") {
            return false;
        }
    }
    depth == 0
}

/// A SHOW statement with a WHERE clause, answered as described above; None
/// for one without.
pub(super) fn show_where(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Option<Result<Outcome, SqlError>> {
    let (show, condition) = split(sql)?;
    if condition.is_empty() || !balanced(condition) {
        return Some(Err(SqlError::syntax(condition)));
    }
    let mut rows = turnstile_engine::CollectRows::default();
    if let Err(e) = super::statement_once(call, show, &mut rows) {
        return Some(Err(e));
    }
    let sql_mode = call.sess.sql_mode(call.ops.globals());
    let mut access = session_access(call.sess, call.ops);
    access.in_transaction = call.engine.in_transaction();
    let mut ctx = call.ctx.with_access(&access);
    ctx.sql_mode = sql_mode;
    Some(call.engine.filter_rows(&ctx, &rows.columns, rows.rows, condition, sink))
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn the_top_level_where_splits_the_statement() {
        assert_eq!(split("show keys from t3 where Key_name = \"a_data\""), Some(("show keys from t3", "Key_name = \"a_data\"")));
        assert_eq!(split("SHOW TABLE STATUS FROM test WHERE name IN (SELECT t FROM x WHERE y = 1);"), Some(("SHOW TABLE STATUS FROM test", "name IN (SELECT t FROM x WHERE y = 1)")));
        assert_eq!(split("show tables like 'where'"), None);
        assert_eq!(split("show processlist"), None);
    }

    #[test]
    fn a_condition_stays_one_expression() {
        assert!(super::balanced("a = (select 1) and (b or c)"));
        assert!(!super::balanced("1) union select (1"));
        assert!(!super::balanced("(1"));
        assert!(!super::balanced("1; drop table t"));
    }
}
