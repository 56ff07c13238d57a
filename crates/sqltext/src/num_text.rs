//! A string read as a number by arithmetic (`'12abc' + 0`, `-''`), as
//! MariaDB reads it (`my_strntod`): blanks skipped, a sign, digits with an
//! optional fraction and exponent. Whatever follows is cut with Warning
//! 1292 "Truncated incorrect DOUBLE value" (a Note when only blanks
//! follow); a string with no digits at all warns too.
//!
//! Pure text handling: the rewriter asks it whether a string literal in
//! numeric context warns (only those are wrapped), the engine's
//! `ts_strnum` raises what it says as the statement runs.

use crate::int_text::Rest;

fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c')
}

/// What follows the number `text` starts with. Linear in its length.
pub fn rest(text: &[u8]) -> Rest {
    let mut i = text.iter().take_while(|&&c| is_blank(c)).count();
    if matches!(text.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let int_digits = text[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    i += int_digits;
    let mut frac_digits = 0;
    if text.get(i) == Some(&b'.') {
        frac_digits = text[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if int_digits + frac_digits > 0 {
            i += 1 + frac_digits;
        }
    }
    if int_digits + frac_digits == 0 {
        return Rest::Garbage;
    }
    if matches!(text.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(text.get(j), Some(b'-' | b'+')) {
            j += 1;
        }
        let exp_digits = text[j.min(text.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp_digits > 0 {
            i = j + exp_digits;
        }
    }
    let tail = &text[i..];
    if tail.is_empty() {
        Rest::Nothing
    } else if tail.iter().all(|&c| is_blank(c)) {
        Rest::Blanks
    } else {
        Rest::Garbage
    }
}

/// MariaDB's message for a string cut when read as a `what` (DOUBLE,
/// DECIMAL).
pub fn truncated_message(what: &str, text: &[u8]) -> String {
    format!("Truncated incorrect {} value: '{}'", what, crate::int_text::shown(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_leading_number() {
        assert_eq!(rest(b"12"), Rest::Nothing);
        assert_eq!(rest(b" -1.5e+3"), Rest::Nothing);
        assert_eq!(rest(b".5"), Rest::Nothing);
        assert_eq!(rest(b"1 "), Rest::Blanks);
        assert_eq!(rest(b" 0 "), Rest::Blanks);
        assert_eq!(rest(b""), Rest::Garbage);
        assert_eq!(rest(b"abc"), Rest::Garbage);
        assert_eq!(rest(b"12abc"), Rest::Garbage);
        assert_eq!(rest(b"0x8000000000000001"), Rest::Garbage);
        assert_eq!(rest(b"1e"), Rest::Garbage);
        assert_eq!(rest(b"-"), Rest::Garbage);
        assert_eq!(rest(b"."), Rest::Garbage);
        assert_eq!(truncated_message("DOUBLE", b"a\xff"), "Truncated incorrect DOUBLE value: 'a\\xFF'");
    }
}
