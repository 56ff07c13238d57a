//! Account statements (CREATE/ALTER/DROP USER, GRANT, REVOKE, SET PASSWORD,
//! SHOW GRANTS), parsed by `account_sql` and applied by the server; SHOW
//! GRANTS answers with its lines.
//!
//! What only a session knows is filled in here before the server applies a
//! statement: the current database of `ON *` and `ON t`, whether the
//! session's sql_mode lets GRANT create a missing account, and whether the
//! table of a table-level grant exists (MariaDB: 1146 otherwise).

use super::{ok_rows, Call};
use crate::account_sql::AccountStmt;
use turnstile_engine::{Column, Outcome, RowSink, SqlError, Unrestricted, Value};
use turnstile_sqltext::sql_mode::SqlMode;

/// Apply an account statement; SHOW GRANTS returns its lines as rows.
pub(super) fn account_statement(call: &mut Call<'_, '_>, mut stmt: AccountStmt, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let grants_for = match &stmt {
        AccountStmt::ShowGrants { user } => Some(match user {
            Some(u) if !u.user.is_empty() => format!("{}@{}", u.user, u.host),
            _ => format!("{}@{}", call.sess.account_user, call.sess.account_host),
        }),
        _ => None,
    };
    let no_auto_create = call.sess.sql_mode(call.ops.globals()).has(SqlMode::NO_AUTO_CREATE_USER);
    match &mut stmt {
        AccountStmt::Grant { db, table, create_missing, .. } => {
            *create_missing = !no_auto_create;
            resolve_level(call, db, table.as_deref())?;
        }
        AccountStmt::Revoke { db, table, .. } => resolve_level(call, db, table.as_deref())?,
        _ => {}
    }
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

/// Put the current database in for `ON *` / `ON t` (1046 without one), and
/// check that the table of a table-level grant exists (1146).
fn resolve_level(call: &mut Call<'_, '_>, db: &mut Option<String>, table: Option<&str>) -> Result<(), SqlError> {
    if let Some(d) = db.as_mut().filter(|d| d.is_empty()) {
        *d = call.sess.db.clone().ok_or_else(SqlError::no_database)?;
    }
    // information_schema is everyone's to read and no one's to be granted (MariaDB: 1044).
    if let Some(d) = db.as_deref().filter(|d| d.eq_ignore_ascii_case("information_schema")) {
        return Err(SqlError::db_access_denied(&call.sess.user, &call.sess.host, d));
    }
    match (db.as_deref(), table) {
        (Some(d), Some(t)) if !table_exists(call, d, t)? => Err(SqlError::no_such_table(d, t)),
        _ => Ok(()),
    }
}

/// Does `db`.`table` (a table or a view) exist? Asked of the engine with no
/// privilege check: the grantor's own right to grant is the server's check.
fn table_exists(call: &mut Call<'_, '_>, db: &str, table: &str) -> Result<bool, SqlError> {
    let escape = |s: &str| s.replace('\\', "\\\\").replace('\'', "''").replace('%', "\\%").replace('_', "\\_");
    let sql = format!("SHOW FULL TABLES FROM `{}` LIKE '{}'", db.replace('`', "``"), escape(table));
    let ctx = call.ctx.with_access(&Unrestricted);
    let mut found = Count(0);
    match call.engine.execute(&ctx, &sql, &[], &mut found) {
        Ok(_) => Ok(found.0 > 0),
        Err(e) if e.code == 1049 => Ok(false),
        Err(e) => Err(e),
    }
}

/// Counts the rows of a result.
struct Count(usize);

impl RowSink for Count {
    fn columns(&mut self, _: &[Column]) -> Result<(), SqlError> {
        Ok(())
    }
    fn row(&mut self, _: &[Value]) -> Result<(), SqlError> {
        self.0 += 1;
        Ok(())
    }
}
