//! MySQL's logical XOR, which SQLite lacks: `a XOR b` becomes
//! `((NOT (a)) <> (NOT (b)))`, NULL when either side is NULL and true when
//! exactly one side is true, as MySQL defines it (NOT reads a string as a
//! number, as MySQL's truth test does).
//!
//! XOR binds looser than AND and NOT and tighter than OR (MySQL's operator
//! precedence), so each operand reaches back and forward, at its own depth
//! of parentheses and CASE ... END, to the nearest OR, `||`, comma, opening
//! parenthesis, assignment or clause keyword. One XOR is written per pass,
//! the leftmost, so `a XOR b XOR c` groups to the left as in MySQL; a
//! statement with more than `MAX_XORS` is left as it is (the translator
//! refuses XOR: 1235).

use super::splice;
use turnstile_sqltext::lex::{Tok, Token};

/// XORs one statement may hold (each is one more pass over the text).
pub(super) const MAX_XORS: usize = 64;

/// Words an operand does not reach back over.
const LEFT_STOPS: [&str; 20] = ["OR", "XOR", "SELECT", "WHERE", "ON", "HAVING", "WHEN", "THEN", "ELSE", "SET", "RETURN", "BY", "DISTINCT", "ALL", "VALUES", "VALUE", "DO", "IF", "WHILE", "UNTIL"];

/// Words an operand does not reach forward over.
const RIGHT_STOPS: [&str; 30] = [
    "OR",
    "XOR",
    "FROM",
    "WHERE",
    "GROUP",
    "ORDER",
    "HAVING",
    "LIMIT",
    "THEN",
    "ELSE",
    "END",
    "WHEN",
    "AS",
    "UNION",
    "EXCEPT",
    "INTERSECT",
    "INTO",
    "FOR",
    "LOCK",
    "WINDOW",
    "ON",
    "USING",
    "JOIN",
    "INNER",
    "LEFT",
    "RIGHT",
    "CROSS",
    "NATURAL",
    "STRAIGHT_JOIN",
    "RETURNING",
];

/// The statement with its leftmost XOR written out, or None (none, too
/// many, or an operand missing: left to the translator's error).
pub(super) fn rewrite(sql: &str, toks: &[Token]) -> Option<String> {
    let xors: Vec<usize> = toks.iter().enumerate().filter(|(_, t)| t.is_kw("XOR")).map(|(i, _)| i).collect();
    let &x = xors.first().filter(|_| xors.len() <= MAX_XORS)?;
    let start = left_start(toks, x);
    let end = right_end(toks, x);
    if start >= x || end <= x + 1 {
        return None;
    }
    let left = &sql[toks[start].start..toks[x - 1].end];
    let right = &sql[toks[x + 1].start..toks[end - 1].end];
    splice(sql, vec![(toks[start].start, toks[end - 1].end, format!("((NOT ({})) <> (NOT ({})))", left, right))])
}

/// Index of the first token of the left operand of the XOR at `x`.
fn left_start(toks: &[Token], x: usize) -> usize {
    let assignment_statement = toks.first().is_some_and(|t| t.is_kw("UPDATE") || t.is_kw("SET") || t.is_kw("INSERT") || t.is_kw("REPLACE"));
    let mut depth = 0usize;
    let mut k = x;
    while k > 0 {
        let t = &toks[k - 1];
        if t.is_op(")") || t.is_kw("END") {
            depth += 1;
        } else if t.is_op("(") || t.is_kw("CASE") {
            if depth == 0 {
                return k;
            }
            depth -= 1;
        } else if depth == 0 {
            let stop = t.is_op(",") || t.is_op(";") || t.is_op("||") || t.is_op(":=") || LEFT_STOPS.iter().any(|w| t.is_kw(w));
            // `SET c = a XOR b`: the first `=` after SET or a comma assigns.
            let assigns = assignment_statement && t.is_op("=") && k >= 2 && assignment_target(toks, k - 1);
            if stop || assigns {
                return k;
            }
        }
        k -= 1;
    }
    0
}

/// Whether the `=` at `eq` follows a (qualified) column or variable that
/// follows SET, UPDATE (ON DUPLICATE KEY UPDATE) or a comma.
fn assignment_target(toks: &[Token], eq: usize) -> bool {
    if eq == 0 || !(toks[eq - 1].ident().is_some() || matches!(toks[eq - 1].tok, Tok::UserVar(_))) {
        return false;
    }
    let mut k = eq - 1;
    while k >= 2 && toks[k - 1].is_op(".") && toks[k - 2].ident().is_some() {
        k -= 2;
    }
    k > 0 && (toks[k - 1].is_kw("SET") || toks[k - 1].is_kw("UPDATE") || toks[k - 1].is_op(","))
}

/// Index just past the last token of the right operand of the XOR at `x`.
fn right_end(toks: &[Token], x: usize) -> usize {
    let mut depth = 0usize;
    let mut k = x + 1;
    while k < toks.len() {
        let t = &toks[k];
        if t.is_op("(") || t.is_kw("CASE") {
            depth += 1;
        } else if t.is_op(")") || t.is_kw("END") {
            if depth == 0 {
                return k;
            }
            depth -= 1;
        } else if depth == 0 && (t.is_op(",") || t.is_op(";") || t.is_op("||") || RIGHT_STOPS.iter().any(|w| t.is_kw(w))) {
            return k;
        }
        k += 1;
    }
    toks.len()
}

#[cfg(test)]
mod tests {
    use super::rewrite;
    use turnstile_sqltext::lex::tokenize;

    fn xor(sql: &str) -> Option<String> {
        rewrite(sql, &tokenize(sql).unwrap())
    }

    #[test]
    fn operands_by_precedence() {
        assert_eq!(xor("SELECT * FROM t WHERE a XOR b").unwrap(), "SELECT * FROM t WHERE ((NOT (a)) <> (NOT (b)))");
        // AND and NOT bind tighter, OR looser.
        assert_eq!(xor("SELECT 1 FROM t WHERE a AND b XOR NOT c OR d").unwrap(), "SELECT 1 FROM t WHERE ((NOT (a AND b)) <> (NOT (NOT c))) OR d");
        // Left to right, one per pass.
        let once = xor("SELECT a XOR b XOR c FROM t").unwrap();
        assert_eq!(once, "SELECT ((NOT (a)) <> (NOT (b))) XOR c FROM t");
        assert_eq!(xor(&once).unwrap(), "SELECT ((NOT (((NOT (a)) <> (NOT (b))))) <> (NOT (c))) FROM t");
        // Inside parentheses, a CASE and a function's arguments.
        assert_eq!(xor("SELECT f(x, a = 1 XOR b), CASE WHEN p XOR q THEN 1 END FROM t").unwrap(), "SELECT f(x, ((NOT (a = 1)) <> (NOT (b)))), CASE WHEN p XOR q THEN 1 END FROM t");
        // SET's `=` assigns.
        assert_eq!(xor("UPDATE t SET c = a XOR b WHERE id = 1").unwrap(), "UPDATE t SET c = ((NOT (a)) <> (NOT (b))) WHERE id = 1");
        assert_eq!(xor("SELECT @v := a XOR b").unwrap(), "SELECT @v := ((NOT (a)) <> (NOT (b)))");
        // No operand: left to the translator's error.
        assert_eq!(xor("SELECT XOR b"), None);
        assert_eq!(xor("SELECT 'a XOR b'"), None);
        let many = format!("SELECT 1{}", " XOR 1".repeat(super::MAX_XORS + 1));
        assert_eq!(xor(&many), None);
    }
}
