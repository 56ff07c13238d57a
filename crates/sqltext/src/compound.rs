//! Where a statement with a compound body ends in a multi-statement text.
//!
//! `CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END; SELECT 3` is two
//! statements: the `;` inside BEGIN ... END belong to the routine's body.
//! The mysql CLI sends such a definition (after DELIMITER //) as one query
//! with CLIENT_MULTI_STATEMENTS on, so the server, not the client, must
//! find its end, as MariaDB's parser does. This counts the body's blocks
//! (BEGIN, IF, CASE, WHILE, REPEAT, LOOP against END) over the lexer's
//! tokens; nothing else needs it, so other statements split at their first
//! `;` as before.

use crate::lex::Token;

/// Keywords that open a block when they start a statement inside a body.
const OPENERS: [&str; 5] = ["IF", "WHILE", "REPEAT", "LOOP", "FOR"];
/// Tokens after which a statement starts inside a body.
const STARTS: [&str; 7] = ["BEGIN", "THEN", "ELSE", "DO", "LOOP", "REPEAT", "ATOMIC"];

/// Does this statement define a routine, trigger or event, or is it an
/// anonymous block (whose body may hold `;`)?
pub fn defines_body(toks: &[Token]) -> bool {
    let at = |i: usize, k: &str| toks.get(i).is_some_and(|t| t.is_kw(k));
    // MariaDB's anonymous block: BEGIN NOT ATOMIC ... END.
    if at(0, "BEGIN") && at(1, "NOT") && at(2, "ATOMIC") {
        return true;
    }
    if is_compound_start(toks) {
        return true;
    }
    toks.first().is_some_and(|t| t.is_kw("CREATE")) && toks.iter().take(16).take_while(|t| !t.is_op("(")).any(|t| t.is_kw("PROCEDURE") || t.is_kw("FUNCTION") || t.is_kw("TRIGGER") || t.is_kw("EVENT"))
}

/// Is this a compound statement outside any routine (MariaDB runs IF, CASE,
/// WHILE, REPEAT, LOOP and FOR as statements of their own)? `IF` must not be
/// followed by THEN somewhere, `FOR` must be `FOR x IN`.
pub fn is_compound_start(toks: &[Token]) -> bool {
    let at = |i: usize, k: &str| toks.get(i).is_some_and(|t| t.is_kw(k));
    match toks.first() {
        Some(t) if t.is_kw("FOR") => at(2, "IN"),
        Some(t) if t.is_kw("IF") || t.is_kw("CASE") => toks.iter().any(|t| t.is_kw("THEN")),
        Some(t) => ["WHILE", "REPEAT", "LOOP"].iter().any(|k| t.is_kw(k)),
        None => false,
    }
}

/// The index of the `;` token that ends the first statement of `toks`
/// (a routine definition), or None when it runs to the end.
pub fn statement_end(toks: &[Token]) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = 0;
    // Whether the previous token began a statement: `DO IF(a, 1, 2)` is
    // the DO statement calling IF(), not a block opened after WHILE's DO.
    let mut prev_at_start = false;
    while i < toks.len() {
        let t = &toks[i];
        let prev = i.checked_sub(1).map(|p| &toks[p]);
        let after_opener = prev.is_some_and(|p| STARTS.iter().any(|k| p.is_kw(k)) && !(p.is_kw("DO") && prev_at_start));
        let at_start = i == 0 || prev.is_some_and(|p| p.is_op(";") || p.is_op(":")) || after_opener;
        prev_at_start = at_start;
        if t.is_op(";") && depth == 0 {
            return Some(i);
        }
        if t.is_kw("END") && depth > 0 {
            depth -= 1;
            // END IF, END WHILE, ...: the keyword closes, it does not open.
            if toks.get(i + 1).is_some_and(|n| n.is_kw("CASE") || OPENERS.iter().any(|k| n.is_kw(k))) {
                i += 1;
            }
        } else if t.is_kw("BEGIN") && !toks.get(i + 1).is_some_and(|n| n.is_kw("WORK")) || t.is_kw("CASE") || (at_start && OPENERS.iter().any(|k| t.is_kw(k))) {
            depth += 1;
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lex::tokenize;

    fn end(sql: &str) -> Option<String> {
        let t = tokenize(sql).unwrap();
        assert!(defines_body(&t));
        statement_end(&t).map(|i| sql[..t[i].start].trim().to_string())
    }

    #[test]
    fn bodies_keep_their_semicolons() {
        assert_eq!(end("CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END; SELECT 3").as_deref(), Some("CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END"));
        assert_eq!(end("CREATE PROCEDURE p() SELECT 1; SELECT 3").as_deref(), Some("CREATE PROCEDURE p() SELECT 1"));
        // Compound statements outside a routine.
        assert_eq!(end("FOR i IN 1..3 DO INSERT INTO t VALUES (i); END FOR; SELECT 3").as_deref(), Some("FOR i IN 1..3 DO INSERT INTO t VALUES (i); END FOR"));
        assert_eq!(end("IF 1 THEN SELECT 1; ELSE SELECT 2; END IF; SELECT 3").as_deref(), Some("IF 1 THEN SELECT 1; ELSE SELECT 2; END IF"));
        assert_eq!(end("WHILE 0 DO SELECT 1; END WHILE; SELECT 3").as_deref(), Some("WHILE 0 DO SELECT 1; END WHILE"));
        let s = "CREATE FUNCTION f(a INT) RETURNS INT BEGIN IF a > 0 THEN RETURN IF(a, 1, 2); END IF; l: LOOP LEAVE l; END LOOP l; RETURN CASE WHEN a THEN 1 END; END";
        assert_eq!(end(&format!("{}; SELECT 1", s)).as_deref(), Some(s));
        // The DO statement, also calling IF() and as a loop's first statement.
        let s = "CREATE PROCEDURE p() BEGIN DO 1; DO IF(1, 2, 3); WHILE 0 DO DO IF(1, 2, 3); END WHILE; END";
        assert_eq!(end(&format!("{}; SELECT 1", s)).as_deref(), Some(s));
        assert_eq!(end("CREATE PROCEDURE p() BEGIN WHILE 1 DO REPEAT SELECT 1; UNTIL 1 END REPEAT; END WHILE; END").as_deref(), None);
    }
}
