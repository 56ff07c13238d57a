//! Account statements (CREATE/ALTER/DROP USER, GRANT, REVOKE, SET PASSWORD,
//! SHOW GRANTS), parsed by `account_sql` and applied by the server; SHOW
//! GRANTS answers with its lines.

use super::{ok_rows, Call};
use crate::account_sql::AccountStmt;
use turnstile_engine::{Column, Outcome, RowSink, SqlError, Value};

/// Apply an account statement; SHOW GRANTS returns its lines as rows.
pub(super) fn account_statement(call: &mut Call<'_, '_>, stmt: AccountStmt, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let grants_for = match &stmt {
        AccountStmt::ShowGrants { user } => Some(match user {
            Some(u) if !u.user.is_empty() => format!("{}@{}", u.user, u.host),
            _ => format!("{}@{}", call.sess.account_user, call.sess.account_host),
        }),
        _ => None,
    };
    let lines = call.ops.account(call.sess, stmt)?;
    match grants_for {
        Some(who) => {
            sink.columns(&[Column::varchar(&format!("Grants for {}", who))])?;
            for line in lines {
                sink.row(&[Value::str(&line)])?;
            }
            Ok(Outcome::Rows)
        }
        None => Ok(ok_rows(0)),
    }
}
