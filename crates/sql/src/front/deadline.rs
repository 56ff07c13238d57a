//! The statement's time limit: MySQL's max_execution_time (and the
//! MAX_EXECUTION_TIME hint) for SELECT, MariaDB's max_statement_time for any
//! statement, whichever ends first, put in the statement's context and kept in
//! the session for the rest of a paused result. Also `session_int`, the
//! cheap read of an integer variable the server keeps in an atomic global
//! (the engine's cte_max_recursion_depth uses it too).

use super::Call;
use crate::{ServerOps, SessionState};
use turnstile_engine::{Interruption, Value};

/// The statement's time limit in milliseconds and what passing it is, if it
/// has one: for a SELECT its `/*+ MAX_EXECUTION_TIME(n) */` hint, else the
/// session's max_execution_time (MySQL applies both to SELECT only); for any
/// statement MariaDB's max_statement_time (seconds). The nearer one counts.
fn time_limit(sess: &SessionState, ops: &dyn ServerOps, sql: &str) -> Option<(u64, Interruption)> {
    let hot = &ops.globals().hot;
    let select_ms = if crate::dialect::is_select(sql) {
        crate::dialect::max_execution_time_hint(sql).unwrap_or_else(|| session_int(sess, ops, "max_execution_time", &hot.max_execution_time).max(0) as u64)
    } else {
        0
    };
    let statement_ms = match sess.vars.get("max_statement_time").filter(|_| !sess.vars.is_empty()) {
        Some(v) => (v.as_f64().unwrap_or(0.0) * 1000.0).round().max(0.0) as u64,
        None => hot.max_statement_time_ms.load(std::sync::atomic::Ordering::Relaxed).max(0) as u64,
    };
    match (select_ms, statement_ms) {
        (0, 0) => None,
        (select, statement) if select != 0 && (statement == 0 || select <= statement) => Some((select, Interruption::TimedOut)),
        (_, statement) => Some((statement, Interruption::StatementTimedOut)),
    }
}

/// An integer variable kept in an atomic global: the session's value if it
/// set one (no lookup when it set none), else the global.
pub(super) fn session_int(sess: &SessionState, _ops: &dyn ServerOps, name: &str, global: &std::sync::atomic::AtomicI64) -> i64 {
    match sess.vars.is_empty() {
        true => None,
        false => sess.vars.get(name).and_then(Value::as_i64),
    }
    .unwrap_or_else(|| global.load(std::sync::atomic::Ordering::Relaxed))
}

/// A boolean variable: the session's value if it set one, else the global
/// (`default` if neither reads as a number).
pub(super) fn session_bool(sess: &SessionState, ops: &dyn ServerOps, name: &str, default: bool) -> bool {
    let truth = |v: &Value| match v {
        Value::Bytes(b) if b.eq_ignore_ascii_case(b"ON") || b.eq_ignore_ascii_case(b"TRUE") => Some(true),
        Value::Bytes(b) if b.eq_ignore_ascii_case(b"OFF") || b.eq_ignore_ascii_case(b"FALSE") => Some(false),
        v => v.as_i64().map(|n| n != 0),
    };
    let session = if sess.vars.is_empty() { None } else { sess.vars.get(name).and_then(truth) };
    session.or_else(|| crate::vars::lookup(name).and_then(|d| truth(&ops.globals().get(d)))).unwrap_or(default)
}

/// Run `run` with the statement's time limit in its context (and remembered
/// in the session, for the rest of a paused result).
pub(super) fn time_limited<R>(call: &mut Call<'_, '_>, sql: &str, run: impl FnOnce(&mut Call<'_, '_>) -> R) -> R {
    let Some((limit_ms, kind)) = time_limit(call.sess, call.ops, sql) else {
        call.sess.deadline_ms = 0;
        return run(call);
    };
    let deadline = turnstile_engine::clock::coarse_ms() + limit_ms;
    call.sess.deadline_ms = deadline;
    call.sess.deadline_kind = kind;
    let ctx = call.ctx.with_deadline(deadline, kind);
    let mut limited = Call { sess: &mut *call.sess, engine: &mut *call.engine, ops: call.ops, ctx: &ctx, params: call.params };
    run(&mut limited)
}
