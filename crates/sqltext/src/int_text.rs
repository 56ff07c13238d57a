//! A string read as an integer by CAST(x AS SIGNED / UNSIGNED), as MariaDB
//! reads it (its `strtoll10`): blanks and tabs skipped, a sign, the longest
//! run of ASCII digits; whatever follows is cut with Warning 1292 (a Note
//! when only blanks follow). Before, the engine read the whole string as a
//! number or took 0 (`CAST('12abc' AS SIGNED)` was 0, MariaDB's 12) and
//! read exponents (`'1e3'` was 1000, MariaDB's 1), and raised nothing.
//!
//! Pure text handling, shared by the SQLite engine's `ts_scast`/`ts_ucast`
//! and the front's evaluator, so the two agree.

/// What follows the digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rest {
    /// Nothing: the whole string was the number.
    Nothing,
    /// Only white space (MariaDB's Note 1292).
    Blanks,
    /// Anything else, or no digits at all (Warning 1292).
    Garbage,
}

/// The integer a string holds, as 64 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntText {
    /// The value's bits: a negative number's two's complement, a number
    /// beyond 2^64-1 as 2^64-1, one below -2^63 as -2^63.
    pub bits: u64,
    /// Written with a minus sign (and not zero).
    pub negative: bool,
    /// Beyond the 64 bits (Warning 1292).
    pub overflow: bool,
    pub rest: Rest,
}

impl IntText {
    /// The Warning (true) or Note (false) 1292 this reading raises, if any.
    pub fn truncation_is_warning(&self) -> Option<bool> {
        match (self.overflow, self.rest) {
            (true, _) | (_, Rest::Garbage) => Some(true),
            (false, Rest::Blanks) => Some(false),
            (false, Rest::Nothing) => None,
        }
    }

    /// CAST AS SIGNED of a positive number above 2^63-1 read without
    /// overflow: MariaDB's Note 1105 "... to it's negative complement".
    pub fn signed_complement(&self) -> bool {
        !self.negative && !self.overflow && self.bits > i64::MAX as u64
    }

    /// CAST AS UNSIGNED of a negative number: Note 1105 "... to it's
    /// positive complement".
    pub fn unsigned_complement(&self) -> bool {
        self.negative
    }
}

/// MariaDB's message for a string cut by CAST AS SIGNED/UNSIGNED.
pub fn truncated_message(text: &[u8]) -> String {
    format!("Truncated incorrect INTEGER value: '{}'", shown(text))
}

/// Note 1105 of CAST AS SIGNED (`signed`) or AS UNSIGNED, as MariaDB words it.
pub fn complement_message(signed: bool) -> &'static str {
    if signed {
        "Cast to signed converted positive out-of-range integer to it's negative complement"
    } else {
        "Cast to unsigned converted negative integer to it's positive complement"
    }
}

/// A value in a message: its UTF-8 text, each byte that is not UTF-8
/// written `\xFF` (MariaDB's ErrConvString).
pub fn shown(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len());
    for chunk in b.utf8_chunks() {
        out.push_str(chunk.valid());
        for x in chunk.invalid() {
            out.push_str(&format!("\\x{:02X}", x));
        }
    }
    out
}

/// Read `text` as CAST(text AS SIGNED/UNSIGNED) does. Linear in its length.
pub fn read(text: &[u8]) -> IntText {
    let mut i = text.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
    let negative = text.get(i) == Some(&b'-');
    if matches!(text.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let digits_at = i;
    let mut magnitude: u64 = 0;
    let mut overflow = false;
    while let Some(d) = text.get(i).filter(|c| c.is_ascii_digit()) {
        match magnitude.checked_mul(10).and_then(|m| m.checked_add(u64::from(d - b'0'))) {
            Some(m) => magnitude = m,
            None => overflow = true,
        }
        i += 1;
    }
    let rest = if i == digits_at {
        Rest::Garbage
    } else if i == text.len() {
        Rest::Nothing
    } else if text[i..].iter().all(u8::is_ascii_whitespace) {
        Rest::Blanks
    } else {
        Rest::Garbage
    };
    let bits = if negative {
        // Below -2^63: -2^63, out of range.
        if overflow || magnitude > 1u64 << 63 {
            overflow = true;
            1u64 << 63
        } else {
            magnitude.wrapping_neg()
        }
    } else if overflow {
        u64::MAX
    } else {
        magnitude
    };
    IntText { bits, negative: negative && bits != 0, overflow, rest }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signed(s: &str) -> (i64, Option<bool>, bool) {
        let r = read(s.as_bytes());
        (r.bits as i64, r.truncation_is_warning(), r.signed_complement())
    }

    #[test]
    fn reads_as_mariadb() {
        // Value, Warning (true) / Note (false) 1292, Note 1105: checked on MariaDB 10.11.
        assert_eq!(signed("12abc"), (12, Some(true), false));
        assert_eq!(signed("abc"), (0, Some(true), false));
        assert_eq!(signed(""), (0, Some(true), false));
        assert_eq!(signed("   "), (0, Some(true), false));
        assert_eq!(signed("-"), (0, Some(true), false));
        assert_eq!(signed("1.5"), (1, Some(true), false));
        assert_eq!(signed("1e3"), (1, Some(true), false));
        assert_eq!(signed("0x10"), (0, Some(true), false));
        assert_eq!(signed("+5"), (5, None, false));
        assert_eq!(signed(" 12"), (12, None, false));
        assert_eq!(signed("12 "), (12, Some(false), false));
        assert_eq!(signed("\t7\n"), (7, Some(false), false));
        assert_eq!(signed(" 5 x"), (5, Some(true), false));
        assert_eq!(signed("00012"), (12, None, false));
        assert_eq!(signed("-12x"), (-12, Some(true), false));
        assert_eq!(signed("9223372036854775808"), (i64::MIN, None, true));
        assert_eq!(signed("18446744073709551615"), (-1, None, true));
        assert_eq!(signed("99999999999999999999"), (-1, Some(true), false));
        assert_eq!(signed("-9223372036854775808"), (i64::MIN, None, false));
        assert_eq!(signed("-9223372036854775809"), (i64::MIN, Some(true), false));
        assert_eq!(signed("-99999999999999999999"), (i64::MIN, Some(true), false));
        assert_eq!(signed("５"), (0, Some(true), false));
        let u = read(b"-1");
        assert_eq!((u.bits, u.unsigned_complement()), (u64::MAX, true));
        let u = read(b"-0");
        assert_eq!((u.bits, u.unsigned_complement()), (0, false));
        let u = read(b"-99999999999999999999");
        assert_eq!((u.bits, u.unsigned_complement(), u.overflow), (1 << 63, true, true));
        assert_eq!(truncated_message(b"\xff1"), "Truncated incorrect INTEGER value: '\\xFF1'");
    }

    #[test]
    fn long_input_is_linear() {
        let long = "9".repeat(1 << 20);
        assert!(read(long.as_bytes()).overflow);
    }
}
