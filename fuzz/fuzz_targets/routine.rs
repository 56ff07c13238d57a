//! Fuzz target: the stored-routine parser (crates/sql/src/routine/parse.rs),
//! CREATE TRIGGER's checks (crates/sql/src/routine/trigger.rs) and the end
//! of a compound statement in a multi-statement text
//! (crates/sqltext/src/compound.rs), and what stored function calls
//! (crates/sql/src/routine/function.rs) do with text: CREATE FUNCTION's
//! check of the body, the calls found in a statement and a RETURN
//! expression with its parameters replaced by those calls' arguments.
//!
//! Input: a CREATE PROCEDURE / FUNCTION / TRIGGER statement (or anything).
//! The header is parsed with `parse_create`, its body with `parse_body` at
//! the default nesting limit, a trigger with `check_definition`, and the
//! text is split as a multi-statement query is.
#![no_main]

use libfuzzer_sys::fuzz_target;
use turnstile_fuzz::{on_server_stack, sql_text};
use turnstile_sql::routine::function;
use turnstile_sql::routine::parse::{parse_body, parse_create};

fn check(data: &[u8]) {
    let sql = sql_text(data);
    let _ = turnstile_sqltext::lex::next_statement(&sql);
    if let Ok(Some(h)) = parse_create(&sql) {
        if let Ok(body) = parse_body(&h.body, 500) {
            let _ = function::check_body(&body);
        }
        // The header's own name called in its body, as a statement calling it would be.
        if let Ok(calls) = function::call_spans(&h.body, &h.name) {
            for (span, args) in calls {
                assert!(span.end <= h.body.len() && span.start < span.end);
                let _ = function::substitute_params(&h.body, &h.params, &args, &h.returns);
            }
        }
    }
    let _ = parse_body(&sql, 500);
    let _ = turnstile_sql::routine::trigger::check_definition(&sql, 500);
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
