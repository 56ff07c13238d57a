//! Literals: strings as SQLite string literals, floats SQLite would round
//! wrongly, and hex and bit literals (`0x41`, `b'1'`), which MySQL reads as
//! bytes or as a number by context.
//!
//! A hybrid literal is the string of its bytes (TEXT, as binary columns
//! store it), or its number in numeric context: `numeric_context` decides
//! which operator the literal is an operand of by MySQL's operator
//! precedence, and whether that makes it a number.

use super::translator::Translator;
use crate::schema::TableDef;
use std::sync::Arc;
use turnstile_sqltext::lex::{self, Tok, Token};

impl Translator<'_> {
    /// The string literal `s` at token `i`, with the string literals right
    /// after it (MySQL concatenates adjacent literals). Returns the index
    /// after the last.
    pub(super) fn emit_string(&mut self, i: usize, to: usize, s: &[u8]) -> usize {
        let toks = self.toks;
        let mut bytes = s.to_vec();
        let mut j = i + 1;
        while j < to {
            if let Tok::Str(more) = &toks[j].tok {
                bytes.extend_from_slice(more);
                j += 1;
            } else {
                break;
            }
        }
        match self.arithmetic_reading(i, j) {
            Some(what) if turnstile_sqltext::num_text::rest(&bytes) != turnstile_sqltext::int_text::Rest::Nothing => {
                self.push(&toks[i], &format!("ts_strnum({}, '{}')", str_literal(&bytes), what));
            }
            _ => self.push(&toks[i], &str_literal(&bytes)),
        }
        if j > i + 1 {
            self.last_end = Some(toks[j - 1].end);
        }
        j
    }

    /// The type MariaDB reads the string literal at tokens `i..j` as when
    /// it is an operand of an arithmetic operator (the adjacent operator
    /// that binds tighter): DOUBLE for `+ - * / % MOD` and a sign, DECIMAL
    /// for DIV and the bit operators. None elsewhere (a comparison, a
    /// function argument), and next to INTERVAL (`'2001-01-01' + INTERVAL
    /// 1 DAY` is date arithmetic). A literal that is no clean number is
    /// written through `ts_strnum`, which warns as MariaDB does each time
    /// it is read; every other literal is left as it was.
    fn arithmetic_reading(&self, i: usize, j: usize) -> Option<&'static str> {
        let toks = self.toks;
        let before = i.checked_sub(1).map(|k| &toks[k]);
        let after = toks.get(j);
        let op = match (before.and_then(precedence), after.and_then(precedence)) {
            (Some(b), a) if a.is_none_or(|a| b >= a) => before?,
            (_, Some(_)) => after?,
            _ => return None,
        };
        let near_interval = toks[i.saturating_sub(4)..(j + 3).min(toks.len())].iter().any(|t| t.is_kw("INTERVAL"));
        if near_interval {
            return None;
        }
        match &op.tok {
            Tok::Op("+" | "-" | "*" | "/" | "%") => Some("DOUBLE"),
            Tok::Op("<<" | ">>" | "&" | "|" | "^") => Some("DECIMAL"),
            Tok::Word(w) if w.eq_ignore_ascii_case("MOD") => Some("DOUBLE"),
            Tok::Word(w) if w.eq_ignore_ascii_case("DIV") => Some("DECIMAL"),
            _ => None,
        }
    }

    /// SQLite text for the hybrid literal (`0x..`, `b'..'`) at token `i`:
    /// its number in numeric context, else the string of its bytes (TEXT,
    /// as binary columns store them, so `b = 0x41` compares bytes).
    pub(super) fn hybrid_literal(&self, i: usize, b: &[u8]) -> String {
        if self.numeric_context(i) {
            hybrid_number(b)
        } else {
            str_literal(b)
        }
    }

    /// MySQL's numeric context for the operand at token `i`: an operand of
    /// an arithmetic, bit or logical operator, of a comparison with a
    /// number or a numeric column, an argument of a numeric function or of
    /// CAST to a number. The operator it belongs to is the adjacent one
    /// that binds tighter (`b = 0x41 AND ...` compares b with 0x41).
    fn numeric_context(&self, i: usize) -> bool {
        let toks = self.toks;
        let before = i.checked_sub(1).and_then(|k| precedence(&toks[k]));
        let after = toks.get(i + 1).and_then(precedence);
        let next = toks.get(i + 1);
        match (before, after) {
            (Some(b), a) if a.is_none_or(|a| b >= a) => return if b == COMPARISON { i >= 2 && self.numeric_operand(i - 2, false) } else { true },
            (_, Some(a)) => return if a == COMPARISON { self.numeric_operand(i + 2, true) } else { true },
            _ => {}
        }
        match self.parens.last().map(String::as_str) {
            Some(f) if NUMERIC_FUNCTIONS.contains(&f) => true,
            Some("CAST" | "CONVERT") => next.is_some_and(|n| n.is_kw("AS") || n.is_op(",")) && toks.get(i + 2).is_some_and(|t| NUMERIC_TYPES.iter().any(|k| t.is_kw(k))),
            _ => false,
        }
    }

    /// Is the operand ending (or, `forward`, starting) at token `k` a number:
    /// a numeric literal, or a column of a numeric type of a table the
    /// statement names (`c`, `t.c`)?
    fn numeric_operand(&self, k: usize, forward: bool) -> bool {
        let toks = self.toks;
        let Some(t) = toks.get(k) else { return false };
        match &t.tok {
            Tok::Number(n) => lex::hybrid_bytes(n).is_none(),
            Tok::Word(_) | Tok::Quoted(_) => {
                // `t.c`: the column is the last part.
                let col = if forward && self.op_at(k + 1, ".") { toks.get(k + 2).and_then(Token::ident) } else { t.ident() };
                col.is_some_and(|c| self.statement_tables().iter().any(|d| d.column(c).is_some_and(|cd| cd.base.is_numeric())))
            }
            _ => false,
        }
    }

    /// Definitions of the tables the statement names anywhere.
    fn statement_tables(&self) -> Vec<Arc<TableDef>> {
        let toks = self.toks;
        let mut out: Vec<Arc<TableDef>> = Vec::new();
        for (k, t) in toks.iter().enumerate() {
            let Some(w) = t.ident() else { continue };
            let def = match toks.get(k + 2).and_then(Token::ident) {
                Some(next) if self.op_at(k + 1, ".") => self.resolver.table(Some(w), next).or_else(|| self.resolver.table(None, w)),
                _ => self.resolver.table(None, w),
            };
            if let Some(d) = def {
                if !out.iter().any(|o| Arc::ptr_eq(o, &d)) {
                    out.push(d);
                }
            }
        }
        out
    }
}

/// A hybrid literal's number: its last eight bytes, as SQLite integer text
/// (above i64::MAX SQLite reads the digits as a REAL).
pub(super) fn hybrid_number(b: &[u8]) -> String {
    lex::hybrid_u64(b).to_string()
}

/// MySQL's operator precedence (higher binds tighter), for the operators
/// a literal can be an operand of; comparisons are `COMPARISON`.
fn precedence(t: &Token) -> Option<u8> {
    const COMPARISON_OPS: &[&str] = &["=", "<>", "!=", "<", ">", "<=", ">=", "<=>"];
    Some(match &t.tok {
        Tok::Op("~" | "!") => 10,
        Tok::Op("^") => 9,
        Tok::Op("*" | "/" | "%") => 8,
        Tok::Op("+" | "-") => 7,
        Tok::Op("<<" | ">>") => 6,
        Tok::Op("&") => 5,
        Tok::Op("|") => 4,
        Tok::Op(o) if COMPARISON_OPS.contains(o) => COMPARISON,
        Tok::Op("&&") => 1,
        Tok::Op("||") => 0,
        Tok::Word(w) => match w.to_ascii_uppercase().as_str() {
            "DIV" | "MOD" => 8,
            "NOT" => 2,
            "AND" => 1,
            "XOR" | "OR" => 0,
            _ => return None,
        },
        _ => return None,
    })
}

const COMPARISON: u8 = 3;

/// Functions whose arguments are numbers.
const NUMERIC_FUNCTIONS: &[&str] = &[
    "ABS",
    "ROUND",
    "FLOOR",
    "CEIL",
    "CEILING",
    "TRUNCATE",
    "SIGN",
    "MOD",
    "POW",
    "POWER",
    "SQRT",
    "EXP",
    "LN",
    "LOG",
    "LOG2",
    "LOG10",
    "SIN",
    "COS",
    "TAN",
    "ASIN",
    "ACOS",
    "ATAN",
    "ATAN2",
    "COT",
    "DEGREES",
    "RADIANS",
    "BIT_COUNT",
    "BIN",
    "OCT",
    "FROM_UNIXTIME",
    "SUM",
    "AVG",
    "BIT_AND",
    "BIT_OR",
    "BIT_XOR",
    "INET_NTOA",
    // what rewrite/exact_calls.rs writes for CAST and the exact functions
    "TS_UCAST",
    "TS_SCAST",
    "TS_DCAST",
    "TS_DROUND",
];
const NUMERIC_TYPES: &[&str] = &["SIGNED", "UNSIGNED", "INTEGER", "INT", "DECIMAL", "NUMERIC", "DOUBLE", "FLOAT", "REAL"];

/// SQLite's text-to-double conversion is not correctly rounded for large
/// decimal exponents (1.0E-300 becomes 9.999999999999999e-301), and drivers
/// write doubles into SQL text in exponent form (Java's Double.toString does
/// below 1e-3 and from 1e7 up). Such literals, and those with more significant
/// digits than a double holds exactly, go through ts_f64(), which parses them
/// in Rust (correctly rounded).
pub(super) fn needs_exact_float(n: &str) -> bool {
    let b = n.as_bytes();
    if b.len() > 1 && b[0] == b'0' && matches!(b[1], b'x' | b'X' | b'b' | b'B') {
        return false;
    }
    let exp = b.iter().any(|&c| c == b'e' || c == b'E');
    let digits = n.split(['e', 'E']).next().unwrap_or("").bytes().filter(u8::is_ascii_digit).collect::<Vec<u8>>();
    let significant = digits.iter().skip_while(|&&d| d == b'0').count();
    (exp || (n.contains('.') && significant > 15)) && n.parse::<f64>().is_ok_and(|v| v.is_finite())
}

/// A SQLite string literal for MySQL string bytes.
pub fn str_literal(s: &[u8]) -> String {
    // SQLite ends the statement text at a NUL byte, so a literal holding one
    // (MySQL's '\0' escape, which drivers send for NUL) goes as hex too.
    match std::str::from_utf8(s) {
        Ok(t) if !s.contains(&0) => {
            let mut o = String::with_capacity(t.len() + 2);
            o.push('\'');
            for ch in t.chars() {
                if ch == '\'' {
                    o.push('\'');
                }
                o.push(ch);
            }
            o.push('\'');
            o
        }
        _ => {
            let hex: String = s.iter().map(|b| format!("{:02X}", b)).collect();
            format!("CAST(X'{}' AS TEXT)", hex)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::rewrite_select;

    #[test]
    fn strings_that_are_no_number_warn_in_arithmetic() {
        assert_eq!(rewrite_select("SELECT 'a'+0 FROM t"), "SELECT ts_strnum('a', 'DOUBLE')+0 AS \"'a'+0\" FROM t");
        assert_eq!(rewrite_select("SELECT -'' FROM t"), "SELECT -ts_strnum('', 'DOUBLE') AS \"-''\" FROM t");
        assert_eq!(rewrite_select("SELECT a DIV '2x' FROM t"), "SELECT a / ts_nz(ts_strnum('2x', 'DECIMAL'), 1) AS \"a DIV '2x'\" FROM t");
        // Clean numbers, comparisons, function arguments and date arithmetic stay as they are.
        assert_eq!(rewrite_select("SELECT '1.5'+0 FROM t WHERE a = 'x'"), "SELECT '1.5'+0 FROM t WHERE a = 'x'");
        assert_eq!(rewrite_select("SELECT 'x' = 1 + 2 FROM t"), "SELECT 'x' = 1 + 2 FROM t");
        assert!(!rewrite_select("SELECT '2001-01-01' + INTERVAL 1 DAY FROM t").contains("ts_strnum"));
    }
}
