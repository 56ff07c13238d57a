//! Which select expressions yield a binary string (character set `binary`).
//!
//! MySQL describes a binary string column with charset 63 and the BINARY
//! flag, and drivers return such a column as bytes instead of decoding it as
//! UTF-8 (PyMySQL, Connector/J, mysqli all do). Values carry no character
//! set here: the SQL front evaluates `Value`s and SQLite stores binary and
//! character strings alike as TEXT. So the character set of an expression
//! column is decided from the expression's text, by MySQL's rules, once per
//! statement: a hex or bit literal (`0x41`, `X'41'`, `b'1'`), a `_binary`
//! string, `BINARY x`, `CAST(x AS BINARY)`, `CONVERT(x, BINARY)`,
//! `CONVERT(x USING binary)`, functions that return bytes (UNHEX, ...), and
//! string functions (CONCAT, IFNULL, SUBSTRING, ...) of which an argument is
//! one of these or a binary column. Shared by the front (SELECT without a
//! table) and the SQLite engine, so both describe the same expression alike.

use turnstile_sqltext::lex::{self, Tok, Token};

/// Functions whose result is always a binary string.
const BYTE_FUNCTIONS: &[&str] = &[
    "UNHEX",
    "FROM_BASE64",
    "AES_ENCRYPT",
    "AES_DECRYPT",
    "DES_ENCRYPT",
    "DES_DECRYPT",
    "COMPRESS",
    "UNCOMPRESS",
    "RANDOM_BYTES",
    "ENCODE",
    "DECODE",
    "INET6_ATON",
    "WEIGHT_STRING",
    "ST_ASBINARY",
    "ST_ASWKB",
];

/// String functions whose result is binary when one of their string
/// arguments is.
const PASS_FUNCTIONS: &[&str] = &[
    "CONCAT",
    "CONCAT_WS",
    "IFNULL",
    "COALESCE",
    "NVL",
    "NULLIF",
    "GREATEST",
    "LEAST",
    "LEFT",
    "RIGHT",
    "SUBSTRING",
    "SUBSTR",
    "MID",
    "LOWER",
    "UPPER",
    "LCASE",
    "UCASE",
    "REVERSE",
    "REPEAT",
    "LPAD",
    "RPAD",
    "TRIM",
    "LTRIM",
    "RTRIM",
    "REPLACE",
    "INSERT",
    "SUBSTRING_INDEX",
    "MIN",
    "MAX",
    "ANY_VALUE",
    "GROUP_CONCAT",
    "ELT",
];

/// True if the expression `toks` (one select item, without its alias) of
/// statement `sql` yields a binary string. `column` tells whether a column
/// name (`c`, `t.c`: its last part) is a binary column.
pub fn is_binary_expr(sql: &str, toks: &[Token], column: &dyn Fn(&str) -> bool) -> bool {
    let toks = strip_parens(toks);
    match toks {
        [] => false,
        [t] => match &t.tok {
            Tok::Number(n) => lex::hybrid_bytes(n).is_some(),
            Tok::Str(_) => lex::is_binary_string(sql, t),
            Tok::Word(w) | Tok::Quoted(w) => column(w),
            _ => false,
        },
        [first, ..] if first.is_kw("BINARY") => true,
        [first, dot, rest @ ..] if first.ident().is_some() && dot.is_op(".") && rest.iter().all(|t| t.ident().is_some() || t.is_op(".")) => rest.last().and_then(Token::ident).is_some_and(column),
        [name, open, .., close]
            if name.ident().is_some() && matches!(name.tok, Tok::Word(_)) && open.is_op("(") && close.is_op(")") && turnstile_sqltext::parens::closing(toks, 1) == Some(toks.len() - 1) =>
        {
            call_is_binary(sql, &name.ident().unwrap_or_default().to_ascii_uppercase(), &toks[2..toks.len() - 1], column)
        }
        _ => false,
    }
}

fn call_is_binary(sql: &str, name: &str, inner: &[Token], column: &dyn Fn(&str) -> bool) -> bool {
    let args = split_args(inner);
    match name {
        "CAST" => top_level(inner, |t| t.is_kw("AS")).is_some_and(|k| inner.get(k + 1).is_some_and(|t| t.is_kw("BINARY"))),
        "CONVERT" => {
            (args.len() == 2 && args[1].first().is_some_and(|t| t.is_kw("BINARY"))) || top_level(inner, |t| t.is_kw("USING")).is_some_and(|k| inner.get(k + 1).is_some_and(|t| t.is_kw("BINARY")))
        }
        // CHAR(n, ...) without USING is a binary string.
        "CHAR" => top_level(inner, |t| t.is_kw("USING")).is_none(),
        "IF" => args.iter().skip(1).any(|a| is_binary_expr(sql, a, column)),
        _ if BYTE_FUNCTIONS.contains(&name) => true,
        _ if PASS_FUNCTIONS.contains(&name) => args.iter().any(|a| is_binary_expr(sql, trim_distinct(a), column)),
        _ => false,
    }
}

fn trim_distinct(toks: &[Token]) -> &[Token] {
    match toks {
        [d, rest @ ..] if d.is_kw("DISTINCT") => rest,
        _ => toks,
    }
}

/// `toks` without parentheses that enclose all of it.
fn strip_parens(mut toks: &[Token]) -> &[Token] {
    while toks.len() >= 2 && toks[0].is_op("(") && turnstile_sqltext::parens::closing(toks, 0) == Some(toks.len() - 1) {
        toks = &toks[1..toks.len() - 1];
    }
    toks
}

/// First top-level token (outside parentheses) matching `f`.
fn top_level(toks: &[Token], f: impl Fn(&Token) -> bool) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && f(t) {
            return Some(k);
        }
    }
    None
}

/// Top-level comma-separated arguments.
fn split_args(toks: &[Token]) -> Vec<&[Token]> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (k, t) in toks.iter().enumerate() {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && t.is_op(",") {
            out.push(&toks[start..k]);
            start = k + 1;
        }
    }
    if start < toks.len() {
        out.push(&toks[start..]);
    }
    out
}

/// `is_binary_expr` of a whole expression text (a select item as written).
pub fn is_binary_text(text: &str, column: &dyn Fn(&str) -> bool) -> bool {
    lex::tokenize(text).is_ok_and(|t| is_binary_expr(text, &t, column))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(text: &str) -> bool {
        is_binary_text(text, &|c| c.eq_ignore_ascii_case("b"))
    }

    #[test]
    fn literals() {
        for t in ["0x41", "X'41'", "x''", "b'1'", "0b1", "_binary'a'", "_binary 'a'", "(0x41)", "_BINARY'a'"] {
            assert!(bin(t), "{}", t);
        }
        for t in ["'a'", "_utf8mb4'a'", "N'a'", "65", "1.5", "NULL", "0x41 + 0", "0x41 = 'A'", "-0x41", "HEX(0x41)", "LENGTH(0x41)"] {
            assert!(!bin(t), "{}", t);
        }
    }

    #[test]
    fn casts_and_functions() {
        for t in [
            "CAST('a' AS BINARY)",
            "CAST('a' AS BINARY(4))",
            "CONVERT('a', BINARY)",
            "CONVERT('a' USING binary)",
            "BINARY 'a'",
            "UNHEX('41')",
            "unhex(replace(?, '-', ''))",
            "CONCAT('a', 0x41)",
            "CONCAT('a', b)",
            "IFNULL(NULL, X'00')",
            "SUBSTRING(t.b, 1, 2)",
            "MAX(DISTINCT b)",
            "IF(1, 'a', _binary'b')",
            "CHAR(65)",
        ] {
            assert!(bin(t), "{}", t);
        }
        for t in ["CAST(0x41 AS CHAR)", "CONVERT(0x41 USING utf8mb4)", "CONCAT('a', 'b')", "CONCAT('a', c)", "IF(0x41, 'a', 'b')", "CHAR(65 USING utf8mb4)", "b + 1", "LOWER(c)"] {
            assert!(!bin(t), "{}", t);
        }
        assert!(bin("b") && bin("t.b") && bin("`b`") && !bin("c"));
    }
}
