//! Fuzz target: the SQLite engine's DDL parser and generator
//! (crates/sqlite/src/ddl/): a statement text through `ddl::parse`, and a
//! CREATE TABLE's definition through the SQLite CREATE TABLE it becomes and
//! the SHOW CREATE TABLE text it is shown as. CHECK constraints and DEFAULT
//! expressions go through `ddl/expr_text.rs` and `rewrite::expression`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use turnstile_fuzz::{on_server_stack, sql_text};
use turnstile_sqlite::ddl::{parse, sqlite_create_table, Ddl};

fn check(data: &[u8]) {
    let sql = sql_text(data);
    if let Ok(Some(Ddl::CreateTable { def, .. })) = parse(&sql) {
        let create = sqlite_create_table(&def, "main", &def.name);
        assert!(create.ends_with("STRICT"));
        let shown = def.show_create(None);
        assert!(shown.starts_with("CREATE TABLE"));
    }
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
