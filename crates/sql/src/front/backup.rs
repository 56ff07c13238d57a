//! BACKUP DATA TO 'dir': Turnstile's own statement (no MySQL or MariaDB
//! statement does this; MariaDB's BACKUP STAGE and BACKUP LOCK are something
//! else and stay unknown here) that makes the server write a copy of its
//! whole data directory, every database taken at one point in time, into a
//! directory on the server's host. `turnstile backup --to DIR` sends it;
//! the server does the work (`ServerOps::backup`, turnstile-server's
//! backup.rs). It needs the administrator privilege (1227 otherwise, naming
//! SUPER as other administration statements do), commits an open transaction
//! first as DDL does (the backup waits for every writer, the session's own
//! transaction included), and answers one row: the directory written, the
//! databases copied and the bytes written.

use super::access::require;
use super::lex_or_syntax;
use super::Call;
use crate::privs;
use turnstile_engine::{Outcome, RowSink, SqlError, Value};
use turnstile_sqltext::lex::{Tok, Token};
use turnstile_wire::consts::coltype;
use turnstile_wire::response::Column;

/// Is this statement BACKUP DATA (first keyword `kw`)?
pub(super) fn handles(kw: &str, sql: &str) -> bool {
    kw == "BACKUP" && lex_or_syntax(sql).ok().is_some_and(|t| t.get(1).is_some_and(|w| w.is_kw("DATA")))
}

/// The target directory of `BACKUP DATA TO 'dir' [;]`.
pub fn parse(sql: &str) -> Result<String, SqlError> {
    let mut toks: Vec<Token> = lex_or_syntax(sql)?;
    if toks.last().is_some_and(|t| t.is_op(";")) {
        toks.pop();
    }
    let near = |i: usize| SqlError::syntax(toks.get(i).map_or("", |t| &sql[t.start..]));
    for (i, word) in ["BACKUP", "DATA", "TO"].iter().enumerate() {
        if !toks.get(i).is_some_and(|t| t.is_kw(word)) {
            return Err(near(i));
        }
    }
    let Some(Tok::Str(bytes)) = toks.get(3).map(|t| &t.tok) else { return Err(near(3)) };
    if toks.len() > 4 {
        return Err(near(4));
    }
    String::from_utf8(bytes.clone()).map_err(|_| SqlError::new(1210, "HY000", "Incorrect arguments to BACKUP DATA: the target directory is not valid UTF-8"))
}

/// Run BACKUP DATA.
pub(super) fn statement(call: &mut Call<'_, '_>, sql: &str, sink: &mut dyn RowSink) -> Result<Outcome, SqlError> {
    let target = parse(sql)?;
    require(call, None, privs::ADMIN, "SUPER")?;
    if call.engine.in_transaction() {
        call.engine.commit(call.ctx)?;
    }
    let (dir, copied) = call.ops.backup(&target, call.ctx)?;
    sink.columns(&[Column::varchar("Directory"), Column::computed("Databases", coltype::LONGLONG), Column::computed("Bytes", coltype::LONGLONG)])?;
    sink.row(&[Value::str(&dir), Value::UInt(copied.databases), Value::UInt(copied.bytes)])?;
    Ok(Outcome::Rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_target() {
        assert_eq!(parse("BACKUP DATA TO '/tmp/x'").unwrap(), "/tmp/x");
        assert_eq!(parse("backup data to '/tmp/it''s';").unwrap(), "/tmp/it's");
        for bad in ["BACKUP DATA", "BACKUP DATA TO", "BACKUP DATA TO x", "BACKUP DATA TO '/a' '/b'", "BACKUP DATA INTO '/a'", "BACKUP DATA TO 1"] {
            assert_eq!(parse(bad).unwrap_err().code, 1064, "{}", bad);
        }
        assert!(handles("BACKUP", "BACKUP DATA TO '/x'"));
        assert!(!handles("BACKUP", "BACKUP STAGE START"));
    }
}
