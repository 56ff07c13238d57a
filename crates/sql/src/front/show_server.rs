//! SHOW statements about the server itself rather than its data: SHOW ENGINE
//! name {STATUS | LOGS | MUTEX}, SHOW PRIVILEGES, SHOW AUTHORS and SHOW
//! CONTRIBUTORS, with MariaDB 10.11's columns.

use super::Call;
use crate::expr::Parser;
use crate::privs;
use turnstile_engine::{Column, Outcome, RowSink, SqlError, Value};

/// The storage engine names MariaDB 10.11 knows by default (and their
/// aliases), plus ALL: SHOW ENGINE of any other name is 1286 there.
const ENGINE_NAMES: &[&str] = &["ALL", "ARIA", "CSV", "HEAP", "INNODB", "MEMORY", "MERGE", "MRG_MYISAM", "MYISAM", "PERFORMANCE_SCHEMA", "SEQUENCE"];

/// The privileges GRANT takes here, as SHOW PRIVILEGES names them, in its
/// order, with the context and comment MariaDB gives each.
const PRIVILEGES: &[(&str, &str, &str)] = &[
    ("Alter", "Tables", "To alter the table"),
    ("Alter routine", "Functions,Procedures", "To alter or drop stored functions/procedures"),
    ("Create", "Databases,Tables,Indexes", "To create new databases and tables"),
    ("Create routine", "Databases", "To use CREATE FUNCTION/PROCEDURE"),
    ("Create temporary tables", "Databases", "To use CREATE TEMPORARY TABLE"),
    ("Delete", "Tables", "To delete existing rows"),
    ("Drop", "Databases,Tables", "To drop databases, tables, and views"),
    ("Execute", "Functions,Procedures", "To execute stored routines"),
    ("Grant option", "Databases,Tables,Functions,Procedures", "To give to other users those privileges you possess"),
    ("Index", "Tables", "To create or drop indexes"),
    ("Insert", "Tables", "To insert data into tables"),
    ("Lock tables", "Databases", "To use LOCK TABLES (together with SELECT privilege)"),
    ("References", "Databases,Tables", "To have references on tables"),
    ("Select", "Tables", "To retrieve rows from table"),
    ("Trigger", "Tables", "To use triggers"),
    ("Update", "Tables", "To update existing rows"),
    ("Usage", "Server Admin", "No privileges - allow connect only"),
];

/// SHOW ENGINE / PRIVILEGES / AUTHORS / CONTRIBUTORS after SHOW; `None` for
/// any other SHOW (nothing consumed then).
pub(super) fn show(call: &mut Call<'_, '_>, p: &mut Parser<'_>, sink: &mut dyn RowSink) -> Result<Option<Outcome>, SqlError> {
    let columns = |names: [&str; 3]| names.map(Column::varchar);
    if p.is_kw("ENGINE") && p.peek_at(1).is_some_and(|t| t.ident().is_some()) {
        p.expect_kw("ENGINE")?;
        let name = p.name()?;
        // The name is resolved as the statement is read (MariaDB's parser):
        // an unknown engine is 1286 whoever asks.
        if !ENGINE_NAMES.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            return Err(SqlError::new(1286, "42000", format!("Unknown storage engine '{}'", name)));
        }
        if !(p.eat_kw("STATUS") || p.eat_kw("LOGS") || p.eat_kw("MUTEX")) {
            return Err(p.error().into());
        }
        super::show::expect_end(p)?;
        super::access::require(call, None, privs::ADMIN, "PROCESS")?;
        // The SQLite engine keeps none of these engines' monitors or logs.
        sink.columns(&columns(["Type", "Name", "Status"]))?;
        return Ok(Some(Outcome::Rows));
    }
    if p.eat_kw("PRIVILEGES") {
        super::show::expect_end(p)?;
        sink.columns(&columns(["Privilege", "Context", "Comment"]))?;
        for (name, context, comment) in PRIVILEGES {
            sink.row(&[Value::str(name), Value::str(context), Value::str(comment)])?;
        }
        return Ok(Some(Outcome::Rows));
    }
    if p.eat_kw("AUTHORS") || p.eat_kw("CONTRIBUTORS") {
        super::show::expect_end(p)?;
        // MariaDB lists its own people here; Turnstile carries no such list.
        sink.columns(&columns(["Name", "Location", "Comment"]))?;
        return Ok(Some(Outcome::Rows));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    #[test]
    fn privileges_cover_what_grant_takes() {
        for (_, name) in crate::privs::NAMES {
            assert!(super::PRIVILEGES.iter().any(|(n, _, _)| n.eq_ignore_ascii_case(name)), "{name}");
        }
        assert!(super::ENGINE_NAMES.windows(2).all(|w| w[0] < w[1]));
    }
}
