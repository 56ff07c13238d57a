//! The value type carried by result rows and prepared-statement parameters,
//! with its text-protocol rendering.

use std::fmt::Write as _;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    UInt(u64),
    Float(f32),
    Double(f64),
    /// Strings, DECIMAL text and binary data alike.
    Bytes(Vec<u8>),
    Date {
        year: u16,
        month: u8,
        day: u8,
    },
    DateTime {
        year: u16,
        month: u8,
        day: u8,
        hour: u8,
        minute: u8,
        second: u8,
        micro: u32,
    },
    Time {
        negative: bool,
        days: u32,
        hour: u8,
        minute: u8,
        second: u8,
        micro: u32,
    },
}

impl Value {
    pub fn str(s: &str) -> Value {
        Value::Bytes(s.as_bytes().to_vec())
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Render as the text protocol does. `None` for NULL.
    pub fn to_text(&self) -> Option<std::borrow::Cow<'_, [u8]>> {
        self.to_text_fsp(None)
    }

    /// Like `to_text`, for a column with `fsp` fractional-second digits: a
    /// DATETIME/TIMESTAMP/TIME value shows exactly that many (MySQL prints
    /// `.000000` for DATETIME(6) and `.125` for DATETIME(3)). Without a column
    /// (None) the fraction is shown, as six digits, only when it is not zero.
    pub fn to_text_fsp(&self, fsp: Option<u8>) -> Option<std::borrow::Cow<'_, [u8]>> {
        use std::borrow::Cow;
        let mut s = String::new();
        match self {
            Value::Null => return None,
            Value::Bytes(b) => return Some(Cow::Borrowed(b)),
            Value::Int(v) => write!(s, "{}", v).ok()?,
            Value::UInt(v) => write!(s, "{}", v).ok()?,
            // The shortest text that reads back as the same 32-bit float (0.1, not 0.10000000149011612).
            Value::Float(v) => write!(s, "{}", format_f32(*v)).ok()?,
            Value::Double(v) => write!(s, "{}", format_float(*v)).ok()?,
            Value::Date { year, month, day } => write!(s, "{:04}-{:02}-{:02}", year, month, day).ok()?,
            Value::DateTime { year, month, day, hour, minute, second, micro } => {
                write!(s, "{:04}-{:02}-{:02} {:02}:{:02}:{:02}", year, month, day, hour, minute, second).ok()?;
                write_fraction(&mut s, *micro, fsp);
            }
            Value::Time { negative, days, hour, minute, second, micro } => {
                let hours = *days as u64 * 24 + *hour as u64;
                write!(s, "{}{:02}:{:02}:{:02}", if *negative { "-" } else { "" }, hours, minute, second).ok()?;
                write_fraction(&mut s, *micro, fsp);
            }
        }
        Some(Cow::Owned(s.into_bytes()))
    }

    /// Best-effort conversion to a signed integer (for binary encoding and evaluation).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            Value::UInt(v) => Some(*v as i64),
            Value::Float(v) => Some(*v as i64),
            Value::Double(v) => Some(*v as i64),
            Value::Bytes(b) => parse_number_prefix(b).map(|f| f as i64),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(v) => Some(*v as f64),
            Value::UInt(v) => Some(*v as f64),
            Value::Float(v) => Some(*v as f64),
            Value::Double(v) => Some(*v),
            Value::Bytes(b) => parse_number_prefix(b),
            _ => None,
        }
    }
}

/// MySQL renders doubles in the shortest form that round-trips, without a
/// trailing ".0" for integral values.
fn write_fraction(s: &mut String, micro: u32, fsp: Option<u8>) {
    match fsp {
        Some(0) => {}
        Some(d) => {
            let d = d.min(6) as u32;
            let _ = write!(s, ".{:0width$}", micro / 10u32.pow(6 - d), width = d as usize);
        }
        None if micro > 0 => {
            let _ = write!(s, ".{:06}", micro);
        }
        None => {}
    }
}

/// FLOAT as text: integral values without a fraction, others in the shortest
/// form that reads back as the same f32.
pub fn format_f32(v: f32) -> String {
    if v.is_finite() && (v.abs() >= 1e15 || (v != 0.0 && v.abs() < 1e-15)) {
        return format!("{:e}", v);
    }
    if v.is_finite() && v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{}", v)
    }
}

/// DOUBLE as text, as MySQL prints it: the shortest digits that read back as
/// the same double, in plain notation for decimal exponents -15..14 and as
/// `1e300` / `-2.5e-300` / `1.5e20` outside that range.
pub fn format_float(v: f64) -> String {
    if !v.is_finite() {
        return format!("{}", v);
    }
    if v == 0.0 {
        return "0".into();
    }
    let exp = v.abs().log10().floor() as i32;
    if !(-15..15).contains(&exp) {
        // Rust's `{:e}` is the shortest round-trip form: "1e300", "-2.5e-300".
        return format!("{:e}", v);
    }
    if v == v.trunc() {
        format!("{}", v as i64)
    } else {
        format!("{}", v)
    }
}

/// Parse the leading number of a string as MySQL does when a string is used in
/// numeric context ("12abc" is 12, "abc" is 0).
pub fn parse_number_prefix(b: &[u8]) -> Option<f64> {
    let s = std::str::from_utf8(b).ok()?.trim_start();
    let mut end = 0;
    let bytes = s.as_bytes();
    let mut seen_digit = false;
    let mut seen_dot = false;
    let mut seen_e = false;
    while end < bytes.len() {
        let c = bytes[end];
        if c.is_ascii_digit() {
            seen_digit = true;
        } else if (c == b'-' || c == b'+') && (end == 0 || matches!(bytes[end - 1], b'e' | b'E')) {
        } else if c == b'.' && !seen_dot && !seen_e {
            seen_dot = true;
        } else if (c == b'e' || c == b'E') && seen_digit && !seen_e {
            seen_e = true;
        } else {
            break;
        }
        end += 1;
    }
    let mut t = &s[..end];
    while !t.is_empty() && t.parse::<f64>().is_err() {
        t = &t[..t.len() - 1];
    }
    Some(t.parse::<f64>().unwrap_or(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_rendering() {
        assert_eq!(Value::Int(-5).to_text().unwrap().as_ref(), b"-5");
        assert_eq!(Value::Double(2.0).to_text().unwrap().as_ref(), b"2");
        assert_eq!(Value::Double(2.5).to_text().unwrap().as_ref(), b"2.5");
        assert!(Value::Null.to_text().is_none());
        let dt = Value::DateTime { year: 2024, month: 1, day: 2, hour: 3, minute: 4, second: 5, micro: 0 };
        assert_eq!(dt.to_text().unwrap().as_ref(), b"2024-01-02 03:04:05");
        let t = Value::Time { negative: true, days: 1, hour: 2, minute: 3, second: 4, micro: 5 };
        assert_eq!(t.to_text().unwrap().as_ref(), b"-26:03:04.000005");
    }

    #[test]
    fn numeric_prefix() {
        assert_eq!(parse_number_prefix(b"12abc"), Some(12.0));
        assert_eq!(parse_number_prefix(b"abc"), Some(0.0));
        assert_eq!(parse_number_prefix(b" -1.5e2x"), Some(-150.0));
        assert_eq!(parse_number_prefix(b"1e"), Some(1.0));
    }
}
