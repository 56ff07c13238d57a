//! Fuzz target: the SQLite engine's DDL parser and generator
//! (crates/sqlite/src/ddl/): a statement text through `ddl::parse`, and a
//! CREATE TABLE's definition through the SQLite CREATE TABLE it becomes and
//! the SHOW CREATE TABLE text it is shown as. CHECK constraints and DEFAULT
//! expressions go through `ddl/expr_text.rs` and `rewrite::expression`. An
//! ALTER TABLE's operations (IF [NOT] EXISTS, ORDER BY among them) are
//! applied to a fixed table with `ddl::apply_alter`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use turnstile_fuzz::{on_server_stack, sql_text};
use turnstile_sqlite::ddl::{apply_alter, parse, sqlite_create_table, Ddl};

fn check(data: &[u8]) {
    let sql = sql_text(data);
    match parse(&sql) {
        Ok(Some(Ddl::CreateTable { def, .. })) => {
            let create = sqlite_create_table(&def, "main", &def.name);
            assert!(create.ends_with("STRICT"));
            let shown = def.show_create(None);
            assert!(shown.starts_with("CREATE TABLE"));
        }
        Ok(Some(Ddl::Alter { ops, .. })) => {
            let base = "CREATE TABLE t1 (a INT PRIMARY KEY, b VARCHAR(10), e ENUM('x','y'), KEY kb (b), CONSTRAINT c1 CHECK (a > 0))";
            let Ok(Some(Ddl::CreateTable { def, .. })) = parse(base) else { unreachable!("the fixed table parses") };
            let mut def = *def;
            if apply_alter(&mut def, &ops).is_ok() {
                assert!(def.show_create(None).starts_with("CREATE TABLE"));
            }
        }
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
