//! The MySQL type an expression item's text alone decides, for result
//! metadata: MariaDB types comparisons, logical operators, short integer
//! literals and a family of functions INT (MYSQL_TYPE_LONG) where the value
//! alone (an integer) would say BIGINT. Both the SQL front (SELECT without a
//! table) and the SQLite engine describe select items by it, so the two
//! agree (the differential runner, tests/outside/mtr_diff.py, counted 661
//! statements typed BIGINT here and INT by MariaDB).

/// Functions MariaDB types INT (its Item_long_func family, and CRC32 unsigned), with their display length.
const LONG_FUNCTIONS: &[(&str, u32)] = &[
    ("ASCII", 3),
    ("BENCHMARK", 1),
    ("CHARACTER_LENGTH", 10),
    ("CHAR_LENGTH", 10),
    ("COERCIBILITY", 1),
    ("CRC32", 10),
    ("CRC32C", 10),
    ("DAYOFMONTH", 2),
    ("DAYOFWEEK", 1),
    ("DAYOFYEAR", 3),
    ("DAY", 2),
    ("FIELD", 3),
    ("FIND_IN_SET", 3),
    ("HOUR", 2),
    ("INSTR", 11),
    ("INTERVAL", 2),
    ("ISNULL", 1),
    ("JSON_CONTAINS", 1),
    ("JSON_CONTAINS_PATH", 1),
    ("JSON_DEPTH", 10),
    ("JSON_EQUALS", 1),
    ("JSON_EXISTS", 1),
    ("JSON_LENGTH", 10),
    ("JSON_OVERLAPS", 1),
    ("JSON_VALID", 1),
    ("LENGTH", 10),
    ("LENGTHB", 10),
    ("LOCATE", 11),
    ("MINUTE", 2),
    ("MONTH", 2),
    ("OCTET_LENGTH", 10),
    ("ORD", 7),
    ("POSITION", 11),
    ("QUARTER", 1),
    ("SECOND", 2),
    ("SIGN", 2),
    ("STRCMP", 2),
    ("WEEK", 2),
    ("WEEKDAY", 1),
    ("YEAR", 4),
];

/// The display length and UNSIGNED of a function MariaDB types INT (`LONG_FUNCTIONS`), by its upper-case name.
pub fn long_function(name: &str) -> Option<(u32, bool)> {
    LONG_FUNCTIONS.iter().find(|(n, _)| *n == name).map(|(n, len)| (*len, is_crc(n)))
}

/// CRC32 and CRC32C are the unsigned members of `LONG_FUNCTIONS`.
fn is_crc(name: &str) -> bool {
    name == "CRC32" || name == "CRC32C"
}

/// Operators whose answer is 1, 0 or NULL (MariaDB types them INT(1)), at the top level of an item.
fn is_boolean_operator(t: &crate::lex::Token) -> bool {
    const OPS: &[&str] = &["=", "<>", "!=", "<", "<=", ">", ">=", "<=>", "!", "&&", "||"];
    const WORDS: &[&str] = &["AND", "OR", "XOR", "NOT", "IS", "IN", "LIKE", "BETWEEN", "REGEXP", "RLIKE", "EXISTS"];
    OPS.iter().any(|o| t.is_op(o)) || WORDS.iter().any(|w| t.is_kw(w))
}

/// The display length (and UNSIGNED) MariaDB gives a select item it types INT (LONG) rather than
/// BIGINT: a comparison or logical operator at the item's top level, a function of the
/// `LONG_FUNCTIONS` family around the whole item, or an integer literal of at most 9 characters.
/// None for anything else (the caller keeps BIGINT).
pub fn long_item(text: &str) -> Option<(u32, bool)> {
    use crate::lex::Tok;
    let toks = crate::lex::tokenize(text).ok()?;
    let mut depth = 0i32;
    let mut boolean = false;
    for t in &toks {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
        } else if depth == 0 && t.is_kw("CASE") {
            return None; // its WHEN conditions are not its value
        } else if depth == 0 && is_boolean_operator(t) {
            boolean = true;
        }
    }
    if boolean {
        return Some((1, false));
    }
    match &toks[..] {
        [f, open, .., close] if open.is_op("(") && close.is_op(")") && matches!(f.tok, Tok::Word(_)) && closes_at_end(&toks) => {
            let name = f.ident()?.to_ascii_uppercase();
            LONG_FUNCTIONS.iter().find(|(n, _)| *n == name).map(|(n, len)| (*len, is_crc(n)))
        }
        [num] | [_, num] if matches!(&num.tok, Tok::Number(n) if n.bytes().all(|b| b.is_ascii_digit())) => {
            let len = (num.end - num.start) as u32 + u32::from(toks.len() == 2);
            (len <= 9 && (toks.len() == 1 || toks[0].is_op("-"))).then_some((len, false))
        }
        _ => None,
    }
}

/// Does the `(` after the first token close at the last token (`f(a) + g(b)` does not)?
fn closes_at_end(toks: &[crate::lex::Token]) -> bool {
    let mut depth = 0i32;
    for (k, t) in toks.iter().enumerate().skip(1) {
        if t.is_op("(") {
            depth += 1;
        } else if t.is_op(")") {
            depth -= 1;
            if depth == 0 {
                return k == toks.len() - 1;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::long_item;

    #[test]
    fn as_mariadb_types_them() {
        assert_eq!(long_item("1"), Some((1, false)));
        assert_eq!(long_item("123456789"), Some((9, false)));
        assert_eq!(long_item("1234567890"), None);
        assert_eq!(long_item("-1"), Some((2, false)));
        assert_eq!(long_item("-123456789"), None);
        assert_eq!(long_item("a = 1"), Some((1, false)));
        assert_eq!(long_item("x IS NULL"), Some((1, false)));
        assert_eq!(long_item("a + (b = c)"), None);
        assert_eq!(long_item("CASE WHEN a = 1 THEN 12345678901 END"), None);
        assert_eq!(long_item("LENGTH(s)"), Some((10, false)));
        assert_eq!(long_item("length(s) + length(t)"), None);
        assert_eq!(long_item("CRC32('a')"), Some((10, true)));
        assert_eq!(long_item("COUNT(*)"), None);
        assert_eq!(long_item("((((((((((((1))))))))))))"), None);
    }
}
