//! Fuzz target: the shared SQL lexer (crates/sqltext/src/lex.rs) and the
//! first-keyword scan (crates/sqltext/src/scan.rs).
//!
//! Input: a statement text. Besides not panicking, checks what callers rely
//! on when they slice the text with the offsets the lexer returns (1064's
//! "near '...'" and the rewriter's copies): every token's `start..end` and a
//! `LexError`'s `at` lie inside the text on character boundaries, tokens come
//! in order, and the helpers (`split_statements`, `first_keyword`,
//! `count_params`) agree with `tokenize`: when the first token after opening
//! parentheses is a word, `first_keyword` is its leading letters, digits and
//! underscores (the two skip comments by the same rules, so a statement is
//! routed the way it is lexed). All of it under both lexing rules
//! (NO_BACKSLASH_ESCAPES off and on), and `next_statement` ends the first
//! statement where `tokenize` puts the first `;`: the statement splitter
//! and the lexer never disagree on where a string ends.
#![no_main]

use libfuzzer_sys::fuzz_target;
use turnstile_fuzz::{on_server_stack, sql_text};
use turnstile_sqltext::lex::{count_params, lexing_mode, next_statement, split_statements, tokenize, Tok};
use turnstile_sqltext::scan::first_keyword;

fn check(data: &[u8]) {
    let sql = sql_text(data);
    check_text(&sql);
    let _nbe = lexing_mode(true);
    check_text(&sql);
}

fn check_text(sql: &str) {
    let sql = sql.to_string();
    if let Ok(toks) = tokenize(&sql) {
        // The splitter's first statement ends at the lexer's first `;`.
        if let (Some(semi), Some((first, _))) = (toks.iter().find(|t| t.is_op(";")), next_statement(&sql)) {
            let before = sql[..semi.start].trim();
            if !before.is_empty() {
                assert_eq!(first, before, "next_statement disagrees with the lexer");
            }
        }
    }
    let keyword = first_keyword(&sql);
    let _ = split_statements(&sql);
    match tokenize(&sql) {
        Ok(toks) => {
            if let Some(Tok::Word(w)) = toks.iter().find(|t| !t.is_op("(")).map(|t| &t.tok) {
                let lead: String = w.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                assert_eq!(keyword, lead.to_ascii_uppercase(), "first_keyword disagrees with the lexer's first word {w:?}");
            }
            let mut prev_end = 0;
            for t in &toks {
                assert!(t.start <= t.end && t.end <= sql.len(), "token {t:?} outside the text");
                assert!(sql.is_char_boundary(t.start) && sql.is_char_boundary(t.end), "token {t:?} splits a character");
                assert!(t.start >= prev_end, "token {t:?} overlaps the previous one");
                prev_end = t.end;
                let _ = &sql[t.start..t.end];
            }
            let params = toks.iter().filter(|t| t.tok == Tok::Param).count();
            assert_eq!(count_params(&sql), Ok(params));
        }
        Err(e) => {
            assert!(e.at <= sql.len() && sql.is_char_boundary(e.at), "error offset {} not a character boundary", e.at);
            let _ = &sql[e.at..];
        }
    }
}

fuzz_target!(|data: &[u8]| on_server_stack(data, check));
