//! User variables assigned inside a statement the engine runs:
//! `SELECT @n := @n + 1, a FROM t`, `UPDATE t SET b = (@x := @x + 1)`,
//! `INSERT ... SELECT c + (@row := @row - 1) * 10, d - @row FROM t2`.
//!
//! The SQL front writes a variable's value into the text as a literal, which
//! is right for one that is only read; one the statement assigns changes from
//! row to row, so the front leaves it as `@name` and hands the engine its
//! value before the statement (`EngineSession::load_user_variables`), reading
//! the new values back after it. Here, MySQL text to MySQL text, `@v := rhs`
//! becomes `ts_uv_set('v', rhs)` and every other `@v` becomes
//! `ts_uv_get('v')`, functions (functions/user_vars.rs) that read and write
//! the session's values as SQLite evaluates each row, in MySQL's order: left
//! to right in a row, row after row.
//!
//! `:=` binds more loosely than any operator (`@a := @b + 1 AND 0` assigns
//! `@b + 1 AND 0`): the right-hand side runs to the next `,`, `)`, clause
//! word or alias at its depth.

use turnstile_sqltext::lex::{self, Tok, Token};

/// Assignments nested in one another's right-hand side (`@a := @b := 1`)
/// rewritten at most; deeper ones are left as they are and refused.
const MAX_NESTING: usize = 32;

/// Words that end an assignment's right-hand side at its depth.
const ENDS: [&str; 27] = [
    "FROM",
    "WHERE",
    "GROUP",
    "HAVING",
    "ORDER",
    "LIMIT",
    "INTO",
    "UNION",
    "EXCEPT",
    "INTERSECT",
    "WINDOW",
    "FOR",
    "LOCK",
    "ON",
    "USING",
    "JOIN",
    "INNER",
    "LEFT",
    "RIGHT",
    "CROSS",
    "AS",
    "THEN",
    "WHEN",
    "ELSE",
    "END",
    "SET",
    "VALUES",
];

/// The statement with its user variables as calls, or None when it assigns
/// none (then the front wrote every variable as a literal already).
pub(super) fn rewrite(sql: &str, toks: &[Token]) -> Option<String> {
    if !assigns(toks) {
        return None;
    }
    Some(calls(sql, toks, 0))
}

/// Does the statement assign a user variable (`@v :=`)?
fn assigns(toks: &[Token]) -> bool {
    toks.windows(2).any(|w| matches!(w[0].tok, Tok::UserVar(_)) && w[1].is_op(":="))
}

/// `sql` with every `@v := rhs` and `@v` written as calls.
fn calls(sql: &str, toks: &[Token], nesting: usize) -> String {
    let mut out = String::with_capacity(sql.len() + 32);
    let mut at = 0;
    let mut i = 0;
    while i < toks.len() {
        let Tok::UserVar(name) = &toks[i].tok else {
            i += 1;
            continue;
        };
        out.push_str(&sql[at..toks[i].start]);
        let quoted = quote(name);
        if toks.get(i + 1).is_some_and(|n| n.is_op(":=")) && i + 2 < toks.len() && nesting < MAX_NESTING {
            let end = rhs_end(toks, i + 2);
            let rhs_text = &sql[toks[i + 2].start..toks[end - 1].end];
            let rhs = match lex::tokenize(rhs_text) {
                Ok(rt) => calls(rhs_text, &rt, nesting + 1),
                Err(_) => rhs_text.to_string(),
            };
            out.push_str(&format!("ts_uv_set({}, {})", quoted, rhs));
            at = toks[end - 1].end;
            i = end;
        } else {
            out.push_str(&format!("ts_uv_get({})", quoted));
            at = toks[i].end;
            i += 1;
        }
    }
    out.push_str(&sql[at..]);
    out
}

/// The name as a hex literal: nothing in it can end the string, under any
/// sql_mode (the functions take the bytes).
fn quote(name: &str) -> String {
    let hex: String = name.bytes().map(|b| format!("{:02X}", b)).collect();
    format!("X'{}'", hex)
}

/// Words that take an operand: a word after them is no alias.
fn is_operator_word(t: &Token) -> bool {
    ["AND", "OR", "XOR", "NOT", "DIV", "MOD", "IS", "IN", "LIKE", "RLIKE", "REGEXP", "BETWEEN", "COLLATE", "ESCAPE", "SOUNDS", "NULL", "TRUE", "FALSE", "INTERVAL", "BINARY", "CASE", "DESC", "ASC"]
        .iter()
        .any(|k| t.is_kw(k))
}

/// The token after the right-hand side starting at `from` (at least one
/// token long).
fn rhs_end(toks: &[Token], from: usize) -> usize {
    let mut depth = 0usize;
    for j in from..toks.len() {
        let t = &toks[j];
        if t.is_op("(") {
            depth += 1;
            continue;
        }
        if t.is_op(")") {
            if depth == 0 {
                return j.max(from + 1);
            }
            depth -= 1;
            continue;
        }
        if depth > 0 || j == from {
            continue;
        }
        if t.is_op(",") || t.is_op(";") || ENDS.iter().any(|k| t.is_kw(k)) {
            return j;
        }
        // `expr alias`: a name right after a value.
        if matches!(t.tok, Tok::Word(_) | Tok::Quoted(_)) && !is_operator_word(t) && super::select::is_value_end(&toks[j - 1]) {
            return j;
        }
    }
    toks.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(sql: &str) -> Option<String> {
        rewrite(sql, &lex::tokenize(sql).unwrap())
    }

    #[test]
    fn assignments_and_reads_become_calls() {
        assert_eq!(run("SELECT @a FROM t"), None);
        assert_eq!(run("SELECT @n := @n + 1, a FROM t").as_deref(), Some("SELECT ts_uv_set(X'6E', ts_uv_get(X'6E') + 1), a FROM t"));
        assert_eq!(run("SELECT @n := a x, @n FROM t").as_deref(), Some("SELECT ts_uv_set(X'6E', a) x, ts_uv_get(X'6E') FROM t"));
        assert_eq!(run("UPDATE t SET b = (@x := @x + 1) ORDER BY a").as_deref(), Some("UPDATE t SET b = (ts_uv_set(X'78', ts_uv_get(X'78') + 1)) ORDER BY a"));
        assert_eq!(run("SELECT @a := @b := 1").as_deref(), Some("SELECT ts_uv_set(X'61', ts_uv_set(X'62', 1))"));
        assert_eq!(run("SELECT @a := 1 AND 0 AS z").as_deref(), Some("SELECT ts_uv_set(X'61', 1 AND 0) AS z"));
    }

    #[test]
    fn a_dangling_assignment_is_left_to_fail() {
        assert_eq!(run("SELECT @a :=").as_deref(), Some("SELECT ts_uv_get(X'61') :="));
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let sql = format!("SELECT {}1", "@a := ".repeat(10_000));
        let out = run(&sql).unwrap();
        assert!(out.contains(":="));
    }
}
