//! The database a SQL prepared statement belongs to (PREPARE ... FROM): as in
//! MariaDB, its unqualified names are resolved in the database current at
//! PREPARE, whatever the database at EXECUTE, and PREPARE without a current
//! database refuses a statement that names a table without one (1046).

use crate::front::Call;
use turnstile_engine::SqlError;
use turnstile_sqltext::cursor::TokenCursor;
use turnstile_sqltext::lex;

/// Does `text` (a statement to prepare) name a table without its database
/// in a form the engine does not compile at PREPARE: table DDL, the table
/// maintenance statements, SHOW TABLES / SHOW TABLE STATUS without FROM?
/// (SELECT, INSERT, UPDATE, DELETE are compiled there, which asks for the
/// database itself.) Reads a bounded prefix: each name list is walked once.
pub fn names_table_without_database(text: &str) -> bool {
    let Ok(toks) = lex::tokenize(text) else { return false };
    let mut c = TokenCursor::new(text, &toks);
    let list = |c: &mut TokenCursor<'_>, pairs: bool| -> bool {
        loop {
            match c.qualified() {
                Ok((None, _)) => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
            if pairs && c.eat_kw("TO") {
                continue;
            }
            if !c.eat_op(",") {
                return false;
            }
        }
    };
    if c.eat_kw("CREATE") {
        c.eat_kws(&["OR", "REPLACE"]);
        c.eat_kw("TEMPORARY");
        if !c.eat_kw("TABLE") {
            return false;
        }
        c.eat_kws(&["IF", "NOT", "EXISTS"]);
        return list(&mut c, false);
    }
    if c.eat_kw("ALTER") {
        c.eat_kw("ONLINE");
        c.eat_kw("IGNORE");
        return c.eat_kw("TABLE") && list(&mut c, false);
    }
    if c.eat_kw("DROP") {
        c.eat_kw("TEMPORARY");
        if !c.eat_kw("TABLE") && !c.eat_kw("TABLES") {
            return false;
        }
        c.eat_kws(&["IF", "EXISTS"]);
        return list(&mut c, false);
    }
    if c.eat_kw("TRUNCATE") {
        c.eat_kw("TABLE");
        return list(&mut c, false);
    }
    if c.eat_kw("RENAME") {
        return c.eat_kw("TABLE") && list(&mut c, true);
    }
    if c.eat_kw("ANALYZE") || c.eat_kw("OPTIMIZE") || c.eat_kw("REPAIR") || c.eat_kw("CHECK") {
        c.eat_kw("NO_WRITE_TO_BINLOG");
        c.eat_kw("LOCAL");
        return (c.eat_kw("TABLE") || c.eat_kw("TABLES")) && list(&mut c, false);
    }
    if c.eat_kw("SHOW") {
        c.eat_kw("FULL");
        let tables = c.eat_kw("TABLES") || (c.eat_kw("TABLE") && c.eat_kw("STATUS"));
        return tables && !(c.is_kw("FROM") || c.is_kw("IN"));
    }
    false
}

/// Run `run` with `db` (the database current at PREPARE) as the current
/// database, as MariaDB runs a prepared statement, then go back to the
/// session's own. A database dropped since is the statement's error (1049);
/// when the session's own is gone afterwards (the statement dropped it) the
/// session has none. The switch skips USE's privilege check: the statement
/// was prepared there, and the engine checks each table it names.
pub(crate) fn in_database<R>(call: &mut Call<'_, '_>, db: Option<String>, run: impl FnOnce(&mut Call<'_, '_>) -> Result<R, SqlError>) -> Result<R, SqlError> {
    let own = call.sess.db.clone();
    let Some(db) = db.filter(|d| Some(d) != own.as_ref()) else { return run(call) };
    if !call.ops.engine().database_exists(&db) {
        return Err(SqlError::unknown_database(&db));
    }
    call.engine.set_database(Some(&db))?;
    call.sess.db = Some(db.clone());
    let out = run(call);
    // Back to the session's own, unless the statement moved elsewhere.
    if call.sess.db.as_deref() == Some(db.as_str()) {
        let back = own.filter(|d| call.ops.engine().database_exists(d));
        if call.engine.set_database(back.as_deref()).is_err() {
            let _ = call.engine.set_database(None);
            call.sess.db = None;
        } else {
            call.sess.db = back;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::names_table_without_database as needs;

    #[test]
    fn unqualified_table_names() {
        for sql in [
            "create table t1 (i int)",
            "CREATE TEMPORARY TABLE IF NOT EXISTS t (a int)",
            "alter table t1 add column (b int)",
            "drop table if exists d.a, b",
            "truncate table t1",
            "truncate t1",
            "rename table d.a to b",
            "analyze table t1",
            "optimize no_write_to_binlog table d.t, t1",
            "show tables like 't1'",
            "show full tables",
            "show table status",
        ] {
            assert!(needs(sql), "{sql}");
        }
        for sql in [
            "create table d.t1 (i int)",
            "drop table d.t",
            "rename table d.a to d.b",
            "show tables from d",
            "show table status in d",
            "select 1",
            "create database d",
            "show databases",
            "check table",
            "create table",
        ] {
            assert!(!needs(sql), "{sql}");
        }
    }
}
