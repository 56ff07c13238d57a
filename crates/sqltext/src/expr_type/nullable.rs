//! Whether a select item can never be NULL, as MariaDB marks its result
//! column NOT NULL: a literal (`12`, `'ab'`, `0x31`, TRUE), `+`, `-` and `*`
//! of such, COUNT(...), the current date and time, PI(), COALESCE or IFNULL
//! with one such argument. Clients see the flag in the metadata; CREATE TABLE ... SELECT makes such a column NOT NULL, and a
//! UNION's column is NOT NULL when every member's is (checked against
//! MariaDB 10.11). `/`, `%` and DIV can be NULL (a division by zero), a
//! CAST or a string function of a literal is NULL when it fails: not here.

use crate::lex::{self, Tok, Token};

/// Functions whose value is never NULL, whatever their arguments.
const NEVER_NULL_CALLS: [&str; 15] =
    ["COUNT", "INTERVAL", "NOW", "PI", "SYSDATE", "CURDATE", "CURTIME", "UTC_DATE", "UTC_TIME", "UTC_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP"];
/// Those of them also written without parentheses.
const NEVER_NULL_WORDS: [&str; 5] = ["CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP"];

/// Can select item `text` never be NULL (false when not sure)?
pub fn never_null(text: &str) -> bool {
    let Ok(toks) = lex::tokenize(text) else { return false };
    !toks.is_empty() && operands(&toks)
}

/// Are `toks` literals and calls of `NEVER_NULL_CALLS` joined by `+ - *`
/// and parentheses?
fn operands(toks: &[Token]) -> bool {
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        match &t.tok {
            Tok::Number(_) | Tok::Str(_) => {}
            Tok::Op(op) if matches!(*op, "+" | "-" | "*" | "(" | ")") => {}
            Tok::Word(_) if t.is_kw("TRUE") || t.is_kw("FALSE") => {}
            Tok::Word(_) if NEVER_NULL_CALLS.iter().any(|f| t.is_kw(f)) && toks.get(i + 1).is_some_and(|n| n.is_op("(")) => {
                // The call's arguments do not matter: skip to its `)`.
                let Some(close) = crate::parens::closing(toks, i + 1) else { return false };
                i = close;
            }
            Tok::Word(_) if NEVER_NULL_WORDS.iter().any(|f| t.is_kw(f)) => {}
            // COALESCE and IFNULL are never NULL when one argument never is.
            Tok::Word(_) if (t.is_kw("COALESCE") || t.is_kw("IFNULL") || t.is_kw("NVL")) && toks.get(i + 1).is_some_and(|n| n.is_op("(")) => {
                let Some(close) = crate::parens::closing(toks, i + 1) else { return false };
                if !arguments(&toks[i + 2..close]).iter().any(|a| !a.is_empty() && operands(a)) {
                    return false;
                }
                i = close;
            }
            _ => return false,
        }
        i += 1;
    }
    true
}

/// A call's argument tokens, split at the commas outside parentheses.
fn arguments(toks: &[Token]) -> Vec<&[Token]> {
    let mut args = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (k, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && t.is_op(",") {
            args.push(&toks[start..k]);
            start = k + 1;
        }
    }
    args.push(&toks[start..]);
    args
}

#[cfg(test)]
mod tests {
    use super::never_null;

    #[test]
    fn as_mariadb_flags_them() {
        for item in
            ["12", "'ab'", "-1", "1+1*2", "(1)", "count(*)", "count(a) + 1", "TRUE", "0x31", "now()", "- -1", "current_date", "curtime(3)", "COALESCE(-1,1)", "ifnull(a, 2)", "coalesce(null, (1))"]
        {
            assert!(never_null(item), "{item}");
        }
        for item in
            ["a", "1/1", "5 % 2", "1 div 1", "NULL", "concat('a','b')", "cast('10:00' as time)", "sum(1)", "@a", "?", "(select 1)", "count(*", "coalesce(a, b)", "coalesce(null)", "ifnull(a, 1/0)"]
        {
            assert!(!never_null(item), "{item}");
        }
    }
}
