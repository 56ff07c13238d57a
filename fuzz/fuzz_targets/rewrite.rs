//! Fuzz target: the SQLite engine's dialect rewriter
//! (crates/sqlite/src/rewrite/).
//!
//! Input: a statement text. Like `SqliteSession::dml`, the statement's first
//! keyword picks the kind (SELECT/WITH/TABLE, INSERT/REPLACE, UPDATE, DELETE;
//! other statements never reach the rewriter), and `rewrite` runs against
//! `StubSchema` (databases `fz` and `other`, tables `sbtest1`, `t`, `tmp1`).
//! Column DEFAULT expressions go through `expression`, so that runs too, and
//! the passes that run first in the engine run first here too, their output
//! rewritten as well: a recursive CTE's reordering (cte_anchor.rs), CTE
//! scopes (cte_scope.rs), mutually recursive CTEs (cte_mutual.rs) and the
//! window checks (windows.rs).
#![no_main]

use libfuzzer_sys::fuzz_target;
use turnstile_fuzz::{on_server_stack, sql_text, StubSchema};
use turnstile_sqlite::cte_anchor::anchors_first;
use turnstile_sqlite::rewrite::{expression, rewrite, Kind};
use turnstile_sqlite::{cte_mutual, cte_scope, windows};
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
    let _ = windows::check(&sql);
    let scoped = cte_scope::scope(&sql, Some("fz")).ok().and_then(|s| s.text);
    let combined = cte_mutual::combine(&sql);
    let anchored = anchors_first(&sql);
    SCHEMA.with(|schema| {
        for text in std::iter::once(sql.as_str()).chain(anchored.as_deref()).chain(scoped.as_deref()).chain(combined.as_deref()) {
            if let Ok(rw) = rewrite(text, kind, schema) {
                assert!(!rw.sql.is_empty());
            }
        }
    });
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
