//! Fuzz target: the statement digest's normalizer
//! (crates/sqltext/src/digest.rs), which runs on every statement any client
//! sends while performance_schema is ON.
//!
//! Input: a statement text and a length limit (the first byte). Besides not
//! panicking, under both lexing modes (NO_BACKSLASH_ESCAPES off and on): the
//! text is never longer than the limit plus its `...`, and no string literal
//! survives: outside back-quoted names the digest holds no `'` or `"` (every
//! string became `?`, so no client's literal is shown to the readers of
//! performance_schema). Normalizing a digest text again is not the same text
//! (`(...)` is three dots to the normalizer), only bounded as well.
#![no_main]

use libfuzzer_sys::fuzz_target;
use turnstile_fuzz::{on_server_stack, sql_text};
use turnstile_sqltext::digest::normalize;
use turnstile_sqltext::lex::lexing_mode;

fn check(data: &[u8]) {
    let Some((&limit, rest)) = data.split_first() else { return };
    let max_len = 16 + limit as usize * 4;
    let sql = sql_text(rest);
    for no_backslash_escapes in [false, true] {
        let _mode = lexing_mode(no_backslash_escapes);
        let mut out = String::new();
        normalize(&sql, max_len, &mut out);
        assert!(out.len() <= max_len + 3, "{} bytes past the limit {}", out.len(), max_len);
        assert!(!quote_outside_names(&out), "a quote survived: {out:?}");
        let mut again = String::new();
        normalize(&out, max_len, &mut again);
        assert!(again.len() <= max_len + 3);
    }
}

/// Is there a `'` or `"` outside back-quoted names?
fn quote_outside_names(text: &str) -> bool {
    let mut in_name = false;
    for c in text.chars() {
        match c {
            '`' => in_name = !in_name,
            '\'' | '"' if !in_name => return true,
            _ => {}
        }
    }
    false
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
