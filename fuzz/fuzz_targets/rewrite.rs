//! Fuzz target: the SQLite engine's dialect rewriter
//! (crates/sqlite/src/rewrite/).
//!
//! Input: a statement text. Like `SqliteSession::dml`, the statement's first
//! keyword picks the kind (SELECT/WITH/TABLE, INSERT/REPLACE, UPDATE, DELETE;
//! other statements never reach the rewriter), and `rewrite` runs against
//! `StubSchema` (databases `fz` and `other`, tables `sbtest1`, `t`, `tmp1`).
//! Column DEFAULT expressions go through `expression`, so that runs too, and
//! a recursive CTE's reordering (cte_anchor.rs) runs first as it does in
//! the engine, its output rewritten as well.
#![no_main]

use libfuzzer_sys::fuzz_target;
use turnstile_fuzz::{on_server_stack, sql_text, StubSchema};
use turnstile_sqlite::cte_anchor::anchors_first;
use turnstile_sqlite::rewrite::{expression, rewrite, Kind};
use turnstile_sqltext::scan::first_keyword;

thread_local! {
    static SCHEMA: StubSchema = StubSchema::new();
}

fn check(data: &[u8]) {
    let sql = sql_text(data);
    let kind = match first_keyword(&sql).as_str() {
        "SELECT" | "WITH" | "TABLE" => Kind::Select,
        "INSERT" | "REPLACE" => Kind::Insert,
        "UPDATE" => Kind::Update,
        "DELETE" => Kind::Delete,
        _ => {
            let _ = expression(&sql);
            return;
        }
    };
    let anchored = anchors_first(&sql);
    SCHEMA.with(|schema| {
        for text in std::iter::once(sql.as_str()).chain(anchored.as_deref()) {
            if let Ok(rw) = rewrite(text, kind, schema) {
                assert!(!rw.sql.is_empty());
            }
        }
    });
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
