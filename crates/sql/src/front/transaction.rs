//! Transaction control: BEGIN [WORK], START TRANSACTION [READ ONLY|READ
//! WRITE|WITH CONSISTENT SNAPSHOT], COMMIT and ROLLBACK [WORK] [AND [NO]
//! CHAIN] [[NO] RELEASE]. ROLLBACK TO SAVEPOINT is the engine's.

use super::engine::engine_statement;
use super::{lex_or_syntax, ok, Call};
use crate::expr::Parser;
use turnstile_engine::{Outcome, RowSink, SqlError};

/// The next transaction's access mode: what `SET TRANSACTION` said for it,
/// else the session's transaction_read_only.
fn session_read_only(call: &Call<'_, '_>) -> bool {
    call.sess.next_read_only.unwrap_or_else(|| call.sess.int_var(call.ops.globals(), "transaction_read_only") != 0)
}

/// Open a transaction with access mode `read_only`.
fn begin(call: &mut Call<'_, '_>, read_only: bool) -> Result<(), SqlError> {
    call.engine.begin(call.ctx, read_only)?;
    call.sess.txn_read_only = Some(read_only);
    Ok(())
}

/// A transaction ended: what `SET TRANSACTION` said for it is spent, and
/// the engine goes back to the session's access mode and isolation level.
fn spend_next_characteristics(call: &mut Call<'_, '_>) {
    if call.sess.next_read_only.take().is_some() {
        let v = call.sess.var(call.ops.globals(), crate::vars::lookup("transaction_read_only").expect("a variable"));
        call.engine.set_variable("transaction_read_only", &v);
    }
    if call.sess.next_isolation.take().is_some() {
        let v = call.sess.var(call.ops.globals(), crate::vars::lookup("transaction_isolation").expect("a variable"));
        call.engine.set_variable("transaction_isolation", &v);
    }
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
        begin(call, read_only)?;
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
        begin(call, read_only)?;
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
    let mut chain = false;
    if p.eat_kw("AND") {
        chain = !p.eat_kw("NO");
        p.expect_kw("CHAIN")?;
    }
    if p.eat_kw("NO") || p.peek().is_some_and(|t| t.is_kw("RELEASE")) {
        p.expect_kw("RELEASE")?;
    }
    p.eat_op(";");
    if !p.exhausted() {
        return Err(p.error().into());
    }
    let chained_read_only = call.sess.txn_read_only.take().unwrap_or_else(|| session_read_only(call));
    if commit {
        call.engine.commit(call.ctx)?;
    } else {
        call.engine.rollback(call.ctx)?;
    }
    spend_next_characteristics(call);
    if chain {
        // AND CHAIN: a new transaction at once, with the access mode of the
        // one that ended.
        begin(call, chained_read_only)?;
    }
    Ok(ok())
}
