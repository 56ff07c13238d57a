//! Statements the engine runs: session values substituted into the text,
//! the session's privileges and limits in the context, LAST_INSERT_ID() taken
//! back; and the engine's COM_STMT_PREPARE and COM_FIELD_LIST.

use super::access::session_access;
use super::deadline::session_int;
use super::Call;
use crate::{ServerOps, SessionState};
use turnstile_engine::{Done, EngineSession, Outcome, Prepared, RowSink, SqlError};

/// COM_STMT_PREPARE of a statement the engine runs: its description, or the
/// error MySQL gives at prepare (no privilege, no such table, bad syntax).
pub fn prepare(sess: &mut SessionState, engine: &mut dyn EngineSession, ops: &dyn ServerOps, sql: &str) -> Result<Prepared, SqlError> {
    crate::dialect::refuse_forged_marks(sql, sess.db.as_deref())?;
    let access = session_access(sess, ops);
    engine.prepare(&access, sql)
}

/// COM_FIELD_LIST: the columns of `table` in the current database.
pub fn field_list(sess: &mut SessionState, engine: &mut dyn EngineSession, ops: &dyn ServerOps, table: &str) -> Result<Vec<turnstile_engine::FieldListColumn>, SqlError> {
    let access = session_access(sess, ops);
    engine.field_list(&access, table)
}

/// Run `sql` in the engine after substituting the session's values into it
/// (@x, @@x, USER(), CONNECTION_ID(), ...).
pub(super) fn engine_statement(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    crate::dialect::refuse_forged_marks(sql, call.sess.db.as_deref())?;
    if defines_view(sql) {
        return engine_run(call, sql, sink);
    }
    let substituted = crate::dialect::substitute(call, sql)?;
    let assigned = assigned_here(call, sql);
    if assigned.is_empty() {
        return engine_run(call, substituted.as_deref().unwrap_or(sql), sink);
    }
    // `@n := @n + 1` row by row: the engine gets the values and gives back
    // what the statement assigned, also when it failed part way (MySQL keeps
    // assignments made before an error).
    let vars = assigned.iter().map(|n| (n.clone(), call.sess.user_vars.get(n).cloned().unwrap_or(turnstile_engine::Value::Null))).collect();
    call.engine.load_user_variables(vars);
    let out = engine_run(call, substituted.as_deref().unwrap_or(sql), sink);
    take_user_variables(call.sess, call.engine);
    out
}

/// The user variables `sql` assigns, when the engine evaluates them.
fn assigned_here(call: &Call<'_, '_>, sql: &str) -> Vec<String> {
    if !sql.contains(":=") || !call.engine.keeps_user_variables() {
        return Vec::new();
    }
    match turnstile_sqltext::lex::tokenize(sql) {
        Ok(toks) => crate::dialect::assigned_user_vars(&toks),
        Err(_) => Vec::new(),
    }
}

/// What the engine's statement (or the part of its result just sent)
/// assigned, into the session's user variables.
pub fn take_user_variables(sess: &mut SessionState, engine: &mut dyn EngineSession) {
    for (name, v) in engine.take_user_variables() {
        sess.decimal_vars.remove(&name);
        sess.user_vars.insert(name, v);
    }
}

/// CREATE/ALTER ... VIEW: its body is kept, not run, so session values are
/// not written into it (the engine refuses `@x` with 1351, as MariaDB, and
/// reads DEFINER=CURRENT_USER itself).
fn defines_view(sql: &str) -> bool {
    let kw = turnstile_sqltext::scan::first_keyword(sql);
    if !(kw.eq_ignore_ascii_case("CREATE") || kw.eq_ignore_ascii_case("ALTER")) {
        return false;
    }
    let Ok(toks) = turnstile_sqltext::lex::tokenize(sql) else { return false };
    // `DEFINER = CURRENT_USER()`'s parentheses are no column list.
    let head = toks.iter().enumerate().take_while(|(i, t)| !t.is_kw("AS") && !t.is_kw("TABLE") && !(t.is_op("(") && !(*i > 0 && toks[i - 1].is_kw("CURRENT_USER"))));
    head.take(32).any(|(_, t)| t.is_kw("VIEW"))
}

/// Run `sql` in the engine, which checks the session's privileges on every
/// table it names.
pub(super) fn engine_run(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let cte_depth = session_int(call.sess, call.ops, "cte_max_recursion_depth", &call.ops.globals().hot.cte_max_recursion_depth);
    let sql_mode = call.sess.sql_mode(call.ops.globals());
    let quote_show_create = super::deadline::session_bool(call.sess, call.ops, "sql_quote_show_create", true);
    let in_transaction = call.engine.in_transaction();
    let mut access = session_access(call.sess, call.ops);
    access.in_transaction = in_transaction;
    let mut ctx = call.ctx.with_access(&access);
    ctx.cte_max_recursion_depth = cte_depth.max(0) as u64;
    ctx.sql_mode = sql_mode;
    ctx.quote_show_create = quote_show_create;
    let out = call.engine.execute(&ctx, sql, call.params, sink)?;
    // LAST_INSERT_ID() changes only when a value was generated or set with
    // LAST_INSERT_ID(expr) (MySQL); an engine that keeps it knows both.
    match call.engine.last_insert_id() {
        Some(id) => call.sess.last_insert_id = id,
        None => {
            if let Outcome::Done(Done { generated_id: Some(id), .. }) = &out {
                call.sess.last_insert_id = *id;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::defines_view;

    #[test]
    fn view_definitions_are_recognised() {
        assert!(defines_view("CREATE VIEW v AS SELECT USER()"));
        assert!(defines_view("create definer = current_user() sql security invoker view v1 as select 1"));
        assert!(defines_view("ALTER ALGORITHM=MERGE VIEW v (a) AS SELECT 1"));
        assert!(!defines_view("CREATE TABLE t AS SELECT 1 AS view"));
        assert!(!defines_view("CREATE PROCEDURE p() SELECT 1 AS view"));
    }
}
