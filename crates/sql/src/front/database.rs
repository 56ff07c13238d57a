//! Databases: USE (and COM_INIT_DB, CONNECT_WITH_DB), CREATE and DROP
//! DATABASE|SCHEMA, done by the front through the server's engine, with the
//! session's privileges on the database checked first.

use super::access::{privileges, sees_database};
use super::{lex_or_syntax, ok, Call};
use crate::expr::Parser;
use crate::{privs, ServerOps, SessionState};
use turnstile_engine::{Done, EngineSession, Outcome, SqlError};
use turnstile_sqltext::lex::Token;

/// USE / COM_INIT_DB / CONNECT_WITH_DB.
pub fn use_database(sess: &mut SessionState, engine: &mut dyn EngineSession, ops: &dyn ServerOps, db: &str) -> Result<(), SqlError> {
    if !sees_database(sess, ops, db) {
        return Err(SqlError::db_access_denied(&sess.user, &sess.host, db));
    }
    if !ops.engine().database_exists(db) {
        return Err(SqlError::unknown_database(db));
    }
    engine.set_database(Some(db))?;
    sess.db = Some(db.to_string());
    Ok(())
}

/// USE db: make `db` the session's current database.
pub(super) fn use_statement(call: &mut Call<'_, '_>, sql: &str) -> Result<Outcome, SqlError> {
    let toks = lex_or_syntax(sql)?;
    let mut p = Parser::new(sql, &toks);
    p.expect_kw("USE")?;
    let db = p.name()?;
    p.eat_op(";");
    if !p.exhausted() {
        return Err(p.error().into());
    }
    use_database(call.sess, call.engine, call.ops, &db)?;
    Ok(ok())
}

/// CREATE/DROP DATABASE|SCHEMA. `None` if the statement is something else.
pub(super) fn database_ddl(call: &mut Call<'_, '_>, sql: &str, toks: &[Token]) -> Result<Option<Outcome>, SqlError> {
    let mut p = Parser::new(sql, toks);
    let create = if p.eat_kw("CREATE") {
        true
    } else if p.eat_kw("DROP") {
        false
    } else {
        return Ok(None);
    };
    if !(p.eat_kw("DATABASE") || p.eat_kw("SCHEMA")) {
        return Ok(None);
    }
    let mut guard = false;
    if p.eat_kw("IF") {
        if create {
            p.expect_kw("NOT")?;
        }
        p.expect_kw("EXISTS")?;
        guard = true;
    }
    let name = p.name()?;
    // Character set and collation options are accepted; everything is utf8mb4.
    while let Some(t) = p.next() {
        if t.is_op(";") {
            break;
        }
    }
    let need = if create { privs::CREATE } else { privs::DROP };
    if privileges(call.sess, call.ops, Some(&name)) & need != need {
        return Err(SqlError::db_access_denied(&call.sess.user, &call.sess.host, &name));
    }
    let engine = call.ops.engine();
    if create {
        let created = engine.create_database(&name, guard)?;
        if !created {
            let e = SqlError::database_exists(&name);
            call.ctx.note(e.code, e.message);
        }
        Ok(Some(Outcome::Done(Done { affected_rows: created as u64, ..Default::default() })))
    } else {
        let dropped = engine.drop_database(&name, guard)?;
        let tables = dropped.unwrap_or(0);
        if call.sess.db.as_deref() == Some(name.as_str()) {
            call.sess.db = None;
            call.engine.set_database(None)?;
        }
        if dropped.is_none() {
            let e = SqlError::drop_missing_database(&name);
            call.ctx.note(e.code, e.message);
        }
        Ok(Some(Outcome::Done(Done { affected_rows: tables, ..Default::default() })))
    }
}
