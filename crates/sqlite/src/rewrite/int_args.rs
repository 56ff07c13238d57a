//! An integer literal beyond BIGINT's range where a string function reads an
//! integer (`LEFT('hello', 18446744073709551616)`, `SPACE(-18446744073709551616)`):
//! MariaDB reads it as BIGINT's nearest end with Warning 1916 ("Got overflow
//! when converting ... to INT"), once or twice by the function (twice where
//! it reads a constant argument also to size its result). Written
//! `ts_int_arg('literal', reads)` (functions/warned.rs) by the DECIMAL pass,
//! which sees such literals first (it would otherwise make one a double).
//!
//! Only a whole argument that is a literal, with or without its minus: an
//! expression that overflows is MariaDB's DECIMAL arithmetic, not this.

use super::decimal::Pass;
use turnstile_sqltext::lex::Tok;

/// The functions that read an integer argument, its places (0-based), and
/// how many times MariaDB reads a constant one.
const INT_ARGS: [(&str, &[usize], u8); 10] = [
    ("LEFT", &[1], 2),
    ("RIGHT", &[1], 2),
    ("SUBSTRING", &[1, 2], 2),
    ("SUBSTR", &[1, 2], 2),
    ("MID", &[1, 2], 2),
    ("REPEAT", &[1], 2),
    ("SPACE", &[0], 2),
    ("LPAD", &[1], 2),
    ("RPAD", &[1], 2),
    ("LOCATE", &[2], 1),
];

/// INSERT(s, pos, len, new) reads pos and len once each.
const INSERT_ARGS: &[usize] = &[1, 2];

impl Pass<'_> {
    /// The literal at token `i` (with its minus) rewritten as `ts_int_arg`
    /// when it is an integer argument beyond BIGINT; the token after it.
    pub(super) fn int_arg_overflow(&mut self, i: usize) -> Option<usize> {
        let toks = self.toks;
        let neg = toks[i].is_op("-");
        let lit = if neg { i + 1 } else { i };
        let Tok::Number(n) = &toks.get(lit)?.tok else { return None };
        if !n.bytes().all(|b| b.is_ascii_digit()) || !overflows(n, neg) {
            return None;
        }
        let before = toks.get(i.checked_sub(1)?)?;
        let after = toks.get(lit + 1)?;
        if !(before.is_op("(") || before.is_op(",")) || !(after.is_op(",") || after.is_op(")")) {
            return None;
        }
        let (name, place) = self.enclosing_call(i)?;
        let reads = match INT_ARGS.iter().find(|(f, _, _)| name.eq_ignore_ascii_case(f)) {
            Some((_, places, reads)) if places.contains(&place) => *reads,
            None if name.eq_ignore_ascii_case("INSERT") && INSERT_ARGS.contains(&place) => 1,
            _ => return None,
        };
        let text = format!("{}{}", if neg { "-" } else { "" }, n);
        self.edit(i, lit + 1, format!("ts_int_arg('{}', {})", text, reads));
        Some(lit + 1)
    }

    /// The function whose argument list holds token `i` directly, and the
    /// argument's place in it.
    fn enclosing_call(&self, i: usize) -> Option<(&str, usize)> {
        let toks = self.toks;
        let (mut depth, mut commas) = (0usize, 0usize);
        for k in (0..i).rev() {
            let t = &toks[k];
            if t.is_op(")") {
                depth += 1;
            } else if t.is_op("(") {
                if depth == 0 {
                    let name = toks.get(k.checked_sub(1)?)?;
                    return match &name.tok {
                        Tok::Word(w) => Some((w.as_str(), commas)),
                        _ => None,
                    };
                }
                depth -= 1;
            } else if depth == 0 && t.is_op(",") {
                commas += 1;
            }
        }
        None
    }
}

/// Is the integer literal `digits` (negated: `neg`) beyond BIGINT's range as
/// MariaDB reads it (BIGINT UNSIGNED for a positive one)?
fn overflows(digits: &str, neg: bool) -> bool {
    if neg {
        format!("-{}", digits).parse::<i64>().is_err()
    } else {
        digits.parse::<u64>().is_err()
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::rewrite_select;

    #[test]
    fn overflowing_integer_arguments() {
        assert_eq!(
            rewrite_select("SELECT left('hello', 18446744073709551616), space(-18446744073709551616) FROM t"),
            "SELECT ts_left('hello', ts_int_arg('18446744073709551616', 2)) AS \"left('hello', 18446744073709551616)\", space(ts_int_arg('-18446744073709551616', 2)) AS \"space(-18446744073709551616)\" FROM t"
        );
        assert_eq!(
            rewrite_select("SELECT locate('a', 'b', -9223372036854775809), insert('a', 1, 18446744073709551616, 'b') FROM t"),
            "SELECT locate('a', 'b', ts_int_arg('-9223372036854775809', 1)) AS \"locate('a', 'b', -9223372036854775809)\", ts_insert('a', 1, ts_int_arg('18446744073709551616', 1), 'b') AS \"insert('a', 1, 18446744073709551616, 'b')\" FROM t"
        );
        // In range (BIGINT UNSIGNED's top), a string argument, an expression: as before.
        assert!(!rewrite_select("SELECT left('hello', 18446744073709551615) FROM t").contains("ts_int_arg"));
        assert!(!rewrite_select("SELECT left(18446744073709551616, 3) FROM t").contains("ts_int_arg"));
        assert!(!rewrite_select("SELECT left('a', 18446744073709551616 + 1) FROM t").contains("ts_int_arg"));
    }
}
