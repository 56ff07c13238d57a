//! Fuzz target: the account statements' parser (crates/sql/src/account_sql.rs:
//! CREATE/ALTER/DROP USER, SET PASSWORD, GRANT, REVOKE, SHOW GRANTS), which
//! any logged-in client reaches. Besides not panicking, checks what the
//! server relies on when it applies a grant: column lists are never empty
//! and only SELECT, INSERT, UPDATE and REFERENCES carry columns; a table
//! grant always names its database (the current one as "", filled in by the
//! front); REVOKE ALL ... GRANT OPTION takes no level.
//! Also BACKUP DATA TO 'dir', which any logged-in client reaches too (it is
//! parsed before its privilege is checked): its parser
//! (crates/sql/src/front/backup.rs) and the server's check of the target
//! (crates/server/src/backup.rs), which must only ever accept an absolute
//! path of plain parts, without NUL, of at most its length limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use turnstile_engine::privs;
use turnstile_fuzz::{on_server_stack, sql_text};
use turnstile_sql::account_sql::{parse, AccountStmt};
use turnstile_sql::expr::Parser;
use turnstile_sqltext::lex::tokenize;

fn columns_ok(columns: &[(u32, Vec<String>)]) {
    for (bits, cols) in columns {
        assert!(!cols.is_empty(), "an empty column list");
        assert!(*bits != 0 && bits & !privs::COLUMN_ALL == 0, "columns on privilege bits {:#x}", bits);
    }
}

fn check_backup(sql: &str) {
    let Ok(target) = turnstile_sql::front::parse_backup_target(sql) else { return };
    if let Ok(path) = turnstile_server::backup::check_target(&target) {
        use std::path::Component;
        assert!(path.is_absolute() && path.file_name().is_some(), "accepted {:?}", target);
        assert!(path.components().all(|c| matches!(c, Component::RootDir | Component::Normal(_))), "accepted {:?}", target);
        assert!(!target.contains('\0') && target.len() <= 3800, "accepted {:?}", target);
    }
}

fn check(data: &[u8]) {
    let sql = sql_text(data);
    check_backup(&sql);
    let Ok(toks) = tokenize(&sql) else { return };
    let mut p = Parser::new(&sql, &toks);
    match parse(&mut p) {
        Ok(Some(AccountStmt::Grant { db, table, columns, users, .. })) => {
            columns_ok(&columns);
            assert!(table.is_none() || db.is_some(), "a table grant without its database");
            assert!(!users.is_empty());
        }
        Ok(Some(AccountStmt::Revoke { db, table, columns, users, .. })) => {
            columns_ok(&columns);
            assert!(table.is_none() || db.is_some(), "a table revoke without its database");
            assert!(!users.is_empty());
        }
        Ok(Some(AccountStmt::RevokeAll { users })) => assert!(!users.is_empty()),
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
