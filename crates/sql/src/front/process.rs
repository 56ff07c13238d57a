//! The server's sessions seen from SQL: KILL [CONNECTION|QUERY] and
//! SHOW [FULL] PROCESSLIST, through the server's `ServerOps`.

use super::access::privileges;
use super::session_env::eval_in;
use super::{lex_or_syntax, ok, Call};
use crate::expr::Parser;
use crate::privs;
use turnstile_engine::{Column, Outcome, RowSink, SqlError, Value};
use turnstile_wire::consts::coltype;

/// KILL [CONNECTION | QUERY] id, done by the server. The session's own
/// query ends with ERR 1317; its own connection is marked (`kill_self`) for
/// the connection layer to close after the OK.
pub(super) fn kill(call: &mut Call<'_, '_>, sql: &str) -> Result<Outcome, SqlError> {
    let toks = lex_or_syntax(sql)?;
    let mut p = Parser::new(sql, &toks);
    p.expect_kw("KILL")?;
    let query_only = if p.eat_kw("QUERY") {
        true
    } else {
        p.eat_kw("CONNECTION");
        false
    };
    let e = p.expr()?;
    p.eat_op(";");
    if !p.exhausted() {
        return Err(p.error().into());
    }
    let id = eval_in(call, &e)?.as_i64().filter(|v| *v >= 0).ok_or_else(|| SqlError::wrong_arguments("KILL"))? as u64;
    call.ops.kill(call.sess, id, query_only)?;
    if id == call.sess.connection_id as u64 {
        if query_only {
            return Err(SqlError::query_interrupted());
        }
        call.sess.kill_self = true;
    }
    Ok(ok())
}

/// SHOW [FULL] PROCESSLIST: every session for an admin, else the user's own;
/// without FULL the statement text is cut to 100 characters.
/// The sessions a session may see, by id: every one for an administrator,
/// else those of its own user (SHOW PROCESSLIST and
/// information_schema.PROCESSLIST alike).
pub(super) fn visible_processes(sess: &crate::SessionState, ops: &dyn crate::ServerOps, admin: bool) -> Vec<crate::ProcessRow> {
    let mut rows = ops.processlist();
    rows.retain(|r| admin || r.user == sess.user);
    rows.sort_by_key(|r| r.id);
    rows
}

pub(super) fn show_processlist(call: &mut Call<'_, '_>, full: bool, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let admin = privileges(call.sess, call.ops, None) & privs::ADMIN != 0;
    // MariaDB's columns: Time an INT, and Progress (no statement reports any: 0.000).
    let cols: Vec<Column> = ["Id", "User", "Host", "db", "Command", "Time", "State", "Info", "Progress"]
        .iter()
        .map(|n| match *n {
            "Id" => Column::computed(n, coltype::LONGLONG),
            "Time" => Column::computed(n, coltype::LONG),
            "Progress" => {
                let mut c = Column::computed(n, coltype::DOUBLE);
                c.decimals = 3;
                c
            }
            _ => Column::varchar(n),
        })
        .collect();
    sink.columns(&cols)?;
    for row in visible_processes(call.sess, call.ops, admin) {
        let info = row.info.map(|i| if full { i } else { i.chars().take(100).collect() });
        sink.row(&[
            Value::UInt(row.id),
            Value::str(&row.user),
            Value::str(&row.host),
            row.db.as_deref().map_or(Value::Null, Value::str),
            Value::str(row.command),
            Value::UInt(row.time),
            Value::str(row.state),
            info.as_deref().map_or(Value::Null, Value::str),
            Value::str("0.000"),
        ])?;
    }
    Ok(Outcome::Rows)
}
