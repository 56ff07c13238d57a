//! Fuzz target: the SQL front's expression parser and evaluator
//! (crates/sql/src/expr/).
//!
//! Input: an expression list as in `SELECT expr, expr` without a table or
//! `SET @x = expr` (a leading SELECT or SET keyword is skipped; a first input
//! byte that is odd makes bare words values, as SET does). Each expression is
//! parsed with `Parser::expr` and evaluated against `StubEnv`, and its value
//! rendered as text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use turnstile_fuzz::{on_server_stack, sql_text, StubEnv};
use turnstile_sql::expr::{eval, Parser};
use turnstile_sqltext::lex::tokenize;

fn check(data: &[u8]) {
    let words_are_values = data.first().is_some_and(|b| b & 1 == 1);
    let sql = sql_text(data);
    let Ok(toks) = tokenize(&sql) else { return };
    let mut p = Parser::new(&sql, &toks);
    if !p.eat_kw("SELECT") {
        p.eat_kw("SET");
    }
    let mut env = StubEnv::new(words_are_values);
    while !p.exhausted() {
        let Ok(e) = p.expr() else { return };
        if let Ok(v) = eval(&e, &mut env) {
            let _ = v.to_text();
        }
        if !(p.eat_op(",") || p.eat_op("=") || p.eat_op(":=") || p.eat_kw("AS")) {
            return;
        }
    }
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
