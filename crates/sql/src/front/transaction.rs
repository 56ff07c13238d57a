//! Transaction control: BEGIN [WORK], START TRANSACTION [READ ONLY|READ
//! WRITE|WITH CONSISTENT SNAPSHOT], COMMIT and ROLLBACK [WORK] [AND [NO]
//! CHAIN] [[NO] RELEASE]. ROLLBACK TO SAVEPOINT is the engine's.

use super::engine::engine_statement;
use super::{lex_or_syntax, ok, Call};
use crate::expr::Parser;
use turnstile_engine::{Outcome, RowSink, SqlError};

/// The session's transaction_read_only.
fn session_read_only(call: &Call<'_, '_>) -> bool {
    call.sess.int_var(call.ops.globals(), "transaction_read_only") != 0
}

/// BEGIN, START TRANSACTION, COMMIT, ROLLBACK.
pub(super) fn transaction(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let toks = lex_or_syntax(sql)?;
    let mut p = Parser::new(sql, &toks);
    if p.eat_kw("BEGIN") {
        p.eat_kw("WORK");
        p.eat_op(";");
        if !p.exhausted() {
            return Err(p.error().into());
        }
        let read_only = session_read_only(call);
        call.engine.begin(call.ctx, read_only)?;
        return Ok(ok());
    }
    if p.eat_kw("START") {
        p.expect_kw("TRANSACTION")?;
        // Unless it says, a transaction is as the session's transaction_read_only.
        let mut read_only = session_read_only(call);
        let mut access_said = false;
        loop {
            if access_said && p.peek().is_some_and(|t| t.is_kw("READ")) {
                // One access mode: a second is MariaDB's syntax error.
                return Err(p.error().into());
            }
            if p.eat_kw("READ") {
                access_said = true;
                if p.eat_kw("ONLY") {
                    read_only = true;
                } else {
                    p.expect_kw("WRITE")?;
                    read_only = false;
                }
            } else if p.eat_kw("WITH") {
                p.expect_kw("CONSISTENT")?;
                p.expect_kw("SNAPSHOT")?;
            } else {
                break;
            }
            if !p.eat_op(",") {
                break;
            }
        }
        p.eat_op(";");
        if !p.exhausted() {
            return Err(p.error().into());
        }
        call.engine.begin(call.ctx, read_only)?;
        return Ok(ok());
    }
    let commit = p.eat_kw("COMMIT");
    if !commit {
        p.expect_kw("ROLLBACK")?;
    }
    p.eat_kw("WORK");
    if !commit && p.peek().is_some_and(|t| t.is_kw("TO")) {
        // ROLLBACK TO SAVEPOINT belongs to the engine.
        return engine_statement(call, sql, sink);
    }
    if p.eat_kw("AND") {
        p.eat_kw("NO");
        p.expect_kw("CHAIN")?;
    }
    if p.eat_kw("NO") || p.peek().is_some_and(|t| t.is_kw("RELEASE")) {
        p.expect_kw("RELEASE")?;
    }
    p.eat_op(";");
    if !p.exhausted() {
        return Err(p.error().into());
    }
    if commit {
        call.engine.commit(call.ctx)?;
    } else {
        call.engine.rollback(call.ctx)?;
    }
    Ok(ok())
}
