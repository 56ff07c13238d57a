//! Query text that is not valid UTF-8.
//!
//! Drivers that interpolate parameters on the client (PyMySQL, PHP PDO's
//! emulated prepares, go-sql-driver with interpolateParams) send binary values
//! as escaped string literals holding raw bytes, e.g. `_binary'\0\xff...'`.
//! MySQL accepts them; the rest of our pipeline works on `&str`. So a query
//! that is not UTF-8 is rewritten once: every string literal whose bytes are
//! not UTF-8 becomes a hex literal `X'..'` (a binary string, as MySQL treats
//! `_binary'..'`), dropping a `_binary` introducer in front of it. Anything
//! else that is not UTF-8 (outside a string literal) is still an error.
//!
//! `non_ascii_text`: whether a query carries text that is not ASCII (bytes
//! outside `_binary` literals): what a client whose character set is not
//! UTF-8 (SET NAMES latin1) may not send, since Turnstile does not convert.

/// The query with non-UTF-8 string literals as hex literals, or None if bytes
/// outside string literals are not UTF-8.
pub fn hex_encode_binary_literals(sql: &[u8]) -> Option<String> {
    let mut out: Vec<u8> = Vec::with_capacity(sql.len() * 2);
    let mut i = 0;
    while i < sql.len() {
        let b = sql[i];
        match b {
            b'\'' | b'"' => {
                let (content, end) = string_literal(sql, i)?;
                if std::str::from_utf8(&content).is_ok() {
                    out.extend_from_slice(&sql[i..end]);
                } else {
                    drop_binary_introducer(&mut out);
                    out.extend_from_slice(b"X'");
                    for byte in content {
                        out.extend_from_slice(format!("{:02X}", byte).as_bytes());
                    }
                    out.push(b'\'');
                }
                i = end;
            }
            b'`' => {
                let end = sql[i + 1..].iter().position(|&c| c == b'`').map(|p| i + 1 + p + 1).unwrap_or(sql.len());
                out.extend_from_slice(&sql[i..end]);
                i = end;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The unescaped bytes of the string literal starting at `start` (a quote) and
/// the index just past its closing quote. MySQL's escapes: `\0 \b \n \r \t \Z`,
/// `\%` and `\_` keep their backslash, any other `\x` is `x`; a doubled quote
/// is one quote; under NO_BACKSLASH_ESCAPES (the lexer's rule for this
/// thread) a backslash is a character. None if the literal is not closed.
fn string_literal(sql: &[u8], start: usize) -> Option<(Vec<u8>, usize)> {
    let quote = sql[start];
    let escapes = turnstile_sqltext::lex::backslash_escapes();
    let mut content = Vec::new();
    let mut i = start + 1;
    while i < sql.len() {
        let b = sql[i];
        if b == b'\\' && escapes && i + 1 < sql.len() {
            let e = sql[i + 1];
            match e {
                b'0' => content.push(0),
                b'b' => content.push(8),
                b'n' => content.push(b'\n'),
                b'r' => content.push(b'\r'),
                b't' => content.push(b'\t'),
                b'Z' => content.push(26),
                b'%' | b'_' => content.extend_from_slice(&[b'\\', e]),
                other => content.push(other),
            }
            i += 2;
        } else if b == quote {
            if sql.get(i + 1) == Some(&quote) {
                content.push(quote);
                i += 2;
            } else {
                return Some((content, i + 1));
            }
        } else {
            content.push(b);
            i += 1;
        }
    }
    None
}

/// Remove a trailing `_binary` introducer (and the blanks after it) from `out`.
fn drop_binary_introducer(out: &mut Vec<u8>) {
    if let Some(before) = binary_introducer_start(out) {
        out.truncate(before);
    }
}

/// Where a `_binary` introducer (followed only by blanks) that ends `text` starts.
fn binary_introducer_start(text: &[u8]) -> Option<usize> {
    let trimmed = text.iter().rposition(|c| !c.is_ascii_whitespace()).map_or(0, |p| p + 1);
    const INTRO: &[u8] = b"_binary";
    if trimmed >= INTRO.len() && text[trimmed - INTRO.len()..trimmed].eq_ignore_ascii_case(INTRO) {
        let before = trimmed - INTRO.len();
        let word_start = before == 0 || !(text[before - 1].is_ascii_alphanumeric() || text[before - 1] == b'_' || text[before - 1] == b'$');
        if word_start {
            return Some(before);
        }
    }
    None
}

/// Does `sql` hold a byte that is not ASCII other than inside a `_binary`
/// string literal (an identifier, a comment, a character string)?
pub fn non_ascii_text(sql: &[u8]) -> bool {
    let mut i = 0;
    while i < sql.len() {
        match sql[i] {
            b'\'' | b'"' => {
                let Some((_, end)) = string_literal(sql, i) else { return !sql[i..].is_ascii() };
                if !sql[i..end].is_ascii() && binary_introducer_start(&sql[..i]).is_none() {
                    return true;
                }
                i = end;
            }
            b if !b.is_ascii() => return true,
            _ => i += 1,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_backslash_escapes_ends_strings_at_the_quote() {
        let _nbe = turnstile_sqltext::lex::lexing_mode(true);
        let q = b"SELECT 'a\\', '\xff\\'";
        assert_eq!(hex_encode_binary_literals(q).unwrap(), "SELECT 'a\\', X'FF5C'");
        assert!(non_ascii_text(b"SELECT 'a\\', '\xe9'"));
    }

    #[test]
    fn non_ascii_text_outside_binary_literals() {
        assert!(!non_ascii_text(b"SELECT 'abc', `t`"));
        assert!(!non_ascii_text(b"INSERT INTO t VALUES (_binary'\xe9\xff', _BINARY  '\x80')"));
        assert!(non_ascii_text(b"INSERT INTO t VALUES ('\xe9')"));
        assert!(non_ascii_text(b"SELECT 1 FROM `caf\xe9`"));
        assert!(non_ascii_text(b"SELECT x_binary'\xe9'"));
        assert!(non_ascii_text(b"SELECT '\xe9"));
    }

    #[test]
    fn binary_literal_becomes_hex() {
        let q = b"INSERT INTO t VALUES (1, _binary'a\\0\xff\\'b''c')";
        assert_eq!(hex_encode_binary_literals(q).unwrap(), "INSERT INTO t VALUES (1, X'6100FF27622763')");
    }

    #[test]
    fn utf8_literals_and_identifiers_are_untouched() {
        let q = "SELECT 'h\u{e9}llo', `we\u{ee}rd` FROM t WHERE x = \"a\\\"b\"".as_bytes();
        assert_eq!(hex_encode_binary_literals(q).unwrap(), std::str::from_utf8(q).unwrap());
    }

    #[test]
    fn escapes_follow_mysql() {
        let q = b"SELECT '\xfe\\%\\_\\n\\Z\\q'";
        assert_eq!(hex_encode_binary_literals(q).unwrap(), "SELECT X'FE5C255C5F0A1A71'");
    }

    #[test]
    fn other_invalid_bytes_are_refused() {
        assert!(hex_encode_binary_literals(b"SELECT \xff").is_none());
        assert!(hex_encode_binary_literals(b"SELECT '\xff").is_none());
    }

    #[test]
    fn only_a_whole_word_introducer_is_dropped() {
        assert_eq!(hex_encode_binary_literals(b"SELECT x_binary '\xff'").unwrap(), "SELECT x_binary X'FF'");
        assert_eq!(hex_encode_binary_literals(b"SELECT _BINARY  '\xff'").unwrap(), "SELECT X'FF'");
    }
}
