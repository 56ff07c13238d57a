//! Fuzz target: the statement digest's normalizer
//! (crates/sqltext/src/digest.rs), which runs on every statement any client
//! sends while performance_schema is ON.
//!
//! Input: a statement text and a length limit (the first byte). Besides not
//! panicking: the text is never longer than the limit plus its `...`, no
//! literal survives (a digit or quote outside back-quoted names), and
//! normalizing the normalized text changes nothing when it was not cut:
//! two statements with the same digest text must stay the same digest.
#![no_main]

use libfuzzer_sys::fuzz_target;
use turnstile_fuzz::{on_server_stack, sql_text};
use turnstile_sqltext::digest::normalize;

fn check(data: &[u8]) {
    let Some((&limit, rest)) = data.split_first() else { return };
    let max_len = 16 + limit as usize * 4;
    let sql = sql_text(rest);
    let mut out = String::new();
    normalize(&sql, max_len, &mut out);
    assert!(out.len() <= max_len + 3, "{} bytes past the limit {}", out.len(), max_len);
    if out.ends_with("...") {
        return;
    }
    let mut again = String::new();
    normalize(&out, max_len, &mut again);
    assert_eq!(again, out, "normalizing a digest text changed it");
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
