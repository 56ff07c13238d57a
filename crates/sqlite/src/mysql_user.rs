//! `mysql.user` for administrators, read-only, as tools read it (PyMySQL's
//! tests, admin scripts: `SELECT plugin FROM mysql.user WHERE ...`).
//!
//! Turnstile's accounts live in the server (crates/server accounts.rs), not
//! in any engine, so the table is built the way information_schema.PROCESSLIST
//! is: the front hands the rows over through `Access::accounts` (only to an
//! administrator: anyone else gets none), and they are written into the
//! connection's in-memory information_schema as a table named `user`, before
//! each statement that reads it (`show::refresh_info_schema`). A SELECT that
//! names `mysql.user` (or `user` after FROM/JOIN while `USE mysql` is in
//! effect) reads that table instead: its text is redirected before it is
//! translated. The authorizer counts the table as `mysql`.`user` with the
//! SELECT privilege, so a session without privileges on `mysql` gets MariaDB's
//! ERR 1142 on every execution (a compiled statement is checked again for
//! each session), and the rows are filled only for an administrator, so no
//! password hash reaches anyone else by any path. Writes to it are not
//! redirected (1146, as before).
//!
//! Columns: MariaDB 10.11's `mysql.user` view, in its order; privileges as
//! 'Y'/'N' from the account's global bits (the administrative ones from ALL
//! ON *.*).

use turnstile_engine::access::{privs, AccountRow};
use turnstile_sqltext::lex::{self, Tok, Token};

/// The table as information_schema holds it (MariaDB's column names).
pub const CREATE: &str = "CREATE TABLE IF NOT EXISTS information_schema.user (Host CHAR(255), User CHAR(128), Password TEXT, \
Select_priv TEXT, Insert_priv TEXT, Update_priv TEXT, Delete_priv TEXT, Create_priv TEXT, Drop_priv TEXT, Reload_priv TEXT, \
Shutdown_priv TEXT, Process_priv TEXT, File_priv TEXT, Grant_priv TEXT, References_priv TEXT, Index_priv TEXT, Alter_priv TEXT, \
Show_db_priv TEXT, Super_priv TEXT, Create_tmp_table_priv TEXT, Lock_tables_priv TEXT, Execute_priv TEXT, Repl_slave_priv TEXT, \
Repl_client_priv TEXT, Create_view_priv TEXT, Show_view_priv TEXT, Create_routine_priv TEXT, Alter_routine_priv TEXT, \
Create_user_priv TEXT, Event_priv TEXT, Trigger_priv TEXT, Create_tablespace_priv TEXT, Delete_history_priv TEXT, ssl_type TEXT, \
ssl_cipher TEXT, x509_issuer TEXT, x509_subject TEXT, max_questions INTEGER, max_updates INTEGER, max_connections INTEGER, \
max_user_connections INTEGER, plugin TEXT, authentication_string TEXT, password_expired TEXT, is_role TEXT, default_role TEXT, \
max_statement_time TEXT);";

/// Columns of `CREATE`.
pub const COLUMNS: usize = 47;

/// The *_priv columns in order, each with the privilege bits it shows.
const PRIV_COLUMNS: [u32; 30] = [
    privs::SELECT,
    privs::INSERT,
    privs::UPDATE,
    privs::DELETE,
    privs::CREATE,
    privs::DROP,
    privs::ADMIN, // Reload
    privs::ADMIN, // Shutdown
    privs::ADMIN, // Process
    privs::ADMIN, // File
    privs::GRANT_OPTION,
    privs::REFERENCES,
    privs::INDEX,
    privs::ALTER,
    privs::ADMIN, // Show_db
    privs::ADMIN, // Super
    privs::CREATE_TMP_TABLE,
    privs::LOCK_TABLES,
    privs::ADMIN, // Execute
    privs::ADMIN, // Repl_slave
    privs::ADMIN, // Repl_client
    privs::ADMIN, // Create_view
    privs::ADMIN, // Show_view
    privs::ADMIN, // Create_routine
    privs::ADMIN, // Alter_routine
    privs::ADMIN, // Create_user
    privs::ADMIN, // Event
    privs::ADMIN, // Trigger
    privs::ADMIN, // Create_tablespace
    privs::ADMIN, // Delete_history
];

/// One account as a row of `CREATE`'s table.
pub fn row(a: &AccountRow) -> Vec<rusqlite::types::Value> {
    use rusqlite::types::Value as V;
    let t = |s: &str| V::Text(s.to_string());
    let native = a.plugin == "mysql_native_password";
    let mut r = vec![t(&a.host), t(&a.user), t(if native { &a.authentication_string } else { "" })];
    r.extend(PRIV_COLUMNS.iter().map(|&bits| t(if a.global_privs & bits == bits { "Y" } else { "N" })));
    r.extend([t(&a.ssl_type), t(&a.ssl_cipher), t(&a.x509_issuer), t(&a.x509_subject), V::Integer(0), V::Integer(0), V::Integer(0), V::Integer(0)]);
    r.extend([t(&a.plugin), t(&a.authentication_string), t("N"), t("N"), t(""), t("0.000000")]);
    debug_assert_eq!(r.len(), COLUMNS);
    r
}

fn ident_is(t: &Token, name: &str) -> bool {
    t.ident().is_some_and(|w| w.eq_ignore_ascii_case(name))
}

/// The text of a read that names `mysql.user` (or, `in_mysql`, a bare
/// `user` after FROM or JOIN) with the table redirected to
/// `information_schema.user`; None when there is nothing to redirect.
pub fn redirect(sql: &str, in_mysql: bool) -> Option<String> {
    let b = sql.as_bytes();
    if !b.windows(4).any(|w| w.eq_ignore_ascii_case(b"user")) {
        return None;
    }
    let toks = lex::tokenize(sql).ok()?;
    let first = toks.first()?;
    if !(first.is_kw("SELECT") || first.is_kw("WITH") || first.is_kw("TABLE") || first.is_op("(")) {
        return None;
    }
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let qualified = ident_is(t, "mysql") && toks.get(i + 1).is_some_and(|d| d.is_op(".")) && toks.get(i + 2).is_some_and(|u| ident_is(u, "user")) && !toks.get(i + 3).is_some_and(|d| d.is_op("."));
        if qualified && !(i > 0 && toks[i - 1].is_op(".")) {
            spans.push((t.start, toks[i + 2].end));
            continue;
        }
        let after_from = i > 0 && (toks[i - 1].is_kw("FROM") || toks[i - 1].is_kw("JOIN"));
        if in_mysql && after_from && ident_is(t, "user") && !toks.get(i + 1).is_some_and(|n| n.is_op("(") || n.is_op(".")) && !matches!(t.tok, Tok::Str(_)) {
            spans.push((t.start, t.end));
        }
    }
    if spans.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(sql.len() + 32);
    let mut at = 0;
    for (s, e) in spans {
        out.push_str(&sql[at..s]);
        out.push_str("information_schema.user");
        at = e;
    }
    out.push_str(&sql[at..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_reads_of_mysql_user_only() {
        assert_eq!(redirect("SELECT plugin FROM mysql.user WHERE User = 'x'", false).as_deref(), Some("SELECT plugin FROM information_schema.user WHERE User = 'x'"));
        assert_eq!(redirect("select * from `mysql`.`user`", false).as_deref(), Some("select * from information_schema.user"));
        assert_eq!(redirect("select * from user", true).as_deref(), Some("select * from information_schema.user"));
        assert_eq!(redirect("select * from user", false), None);
        assert_eq!(redirect("select user() from t", true), None);
        assert_eq!(redirect("DELETE FROM mysql.user", false), None);
        assert_eq!(redirect("SELECT 1", false), None);
    }

    #[test]
    fn a_row_has_every_column() {
        let a = AccountRow {
            user: "u".into(),
            host: "%".into(),
            plugin: "mysql_native_password".into(),
            authentication_string: "*AB".into(),
            ssl_type: "X509".into(),
            ssl_cipher: String::new(),
            x509_issuer: String::new(),
            x509_subject: String::new(),
            global_privs: privs::ALL,
            db_privs: Vec::new(),
            table_privs: Vec::new(),
        };
        let r = row(&a);
        assert_eq!(r.len(), COLUMNS);
        assert_eq!(CREATE.matches(',').count() + 1, COLUMNS);
    }
}
