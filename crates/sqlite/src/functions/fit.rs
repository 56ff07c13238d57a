//! What a lenient write stores: `ts_fit`, the value written to a column
//! when the statement does not fail on a value that does not fit (sql_mode
//! without STRICT_TRANS_TABLES/STRICT_ALL_TABLES, or INSERT/UPDATE IGNORE);
//! and the other conditions a statement raises as it runs: `ts_nz` (a
//! division by zero, 1365) and `ts_dup` (a duplicate key INSERT IGNORE
//! skips, 1062).
//!
//! Why functions: a strict write needs nothing (the table's CHECK
//! constraints refuse what does not fit, with MySQL's errors), so only a
//! lenient statement's translation wraps its values (rewrite/store.rs), and
//! the per-row path of an ordinary strict INSERT is what it was. `ts_fit`
//! turns a value into one the column's constraints accept, as MariaDB 10.11
//! stores it, and raises MariaDB's condition for what it changed into the
//! connection's `Counters` (the statement takes them when it ends):
//! - numbers into an integer, FLOAT/DOUBLE, DECIMAL, YEAR or BIT column out
//!   of range are clipped to the range (Warning 1264); a string is read by
//!   its number at the start (a fraction rounds half away from zero, a
//!   double rounds half to even), Warning 1265 for other text after it,
//!   Note 1265 for blanks after it, Warning 1366 ("Incorrect integer value:
//!   'x12' for column `db`.`t`.`i` at row 1") and 0 when nothing numeric
//!   starts it;
//! - a string too long for CHAR/VARCHAR/TEXT/BINARY/BLOB is cut (Warning
//!   1265; cut blanks: nothing for CHAR, Note 1265 for VARCHAR and TEXT);
//! - a date or time that is none is the zero value (Warning 1265), one
//!   with text after a valid value keeps the value (Warning 1265, a DATE
//!   given a time Note 1265), a TIMESTAMP outside its range is zero and a
//!   TIME past 838:59:59 is clipped (Warning 1264);
//! - SET members that are not the column's are dropped (Warning 1265);
//! - NULL into a NOT NULL column is its implicit default (Warning 1048)
//!   where MariaDB allows that (multi-row INSERT, INSERT ... SELECT, UPDATE,
//!   IGNORE).
//!
//! "at row N" is the VALUES row the rewriter numbered, or (INSERT ...
//! SELECT, UPDATE) the count of values stored into that column so far.

use super::{bytes, temporal_ok, user_err, Counters};
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::Connection;
use std::sync::Arc;
use turnstile_engine::Level;
use turnstile_sqltext::decimal::{Decimal, MAX_SCALE};
use turnstile_sqltext::temporal_cast::{cast_temporal, CastFrom};
use turnstile_sqltext::types::Base;

/// What `ts_fit` knows of a column a lenient statement writes. The
/// rewriter describes each such column once (rewrite/store.rs) and the
/// statement installs the table of them on its connection when it runs
/// (`Counters::install_fits`); a call names its column by index, which
/// keeps the translation of a large multi-row INSERT (a dump's) short.
#[derive(Debug, Clone, PartialEq)]
pub struct FitColumn {
    /// 'i' integer in [a, b]; 'u' BIGINT UNSIGNED; 'f'/'F' FLOAT (a = 1)
    /// or DOUBLE, 'F' unsigned; 'c' characters, at most a (b = 1: CHAR);
    /// 'x' bytes, at most a; 't' temporal (a: 0 DATE, 1 DATETIME, 2
    /// TIMESTAMP, 3 TIME; b: fractional digits); 'y' YEAR; 'b' BIT(a);
    /// 'd'/'D' DECIMAL(a, b), 'D' unsigned; 's' SET of `members`.
    pub kind: u8,
    pub a: i64,
    pub b: i64,
    /// The column, as 1264/1265/1048 name it (`c`), and as 1366 does
    /// (`` `db`.`t`.`c` ``).
    pub col: String,
    pub qualified: String,
    /// NULL into this NOT NULL column stores this (its zero) with Warning
    /// 1048; None: NULL goes on (the write's error 1048, or a NULL column).
    pub null_as: Option<SV>,
    pub members: Vec<Vec<u8>>,
}

/// A call's second argument: the column's index in the statement's table,
/// plus its VALUES row (1-based; 0: counted per column) times `ROW_UNIT`.
pub const ROW_UNIT: i64 = 1 << 16;

/// A condition `ts_fit` raises, before its row number is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Raise {
    OutOfRange,
    Truncated,
    /// Blanks cut: MariaDB's Note 1265.
    BlanksCut,
    /// No number at all: 1366 with the type's name in the message.
    Incorrect(&'static str),
}

/// A string read as a number the way MariaDB reads one it stores into a
/// numeric column: blanks, sign, digits with at most one point, an
/// exponent, then whatever follows.
#[derive(Debug, Clone, PartialEq)]
struct Numeric<'t> {
    /// The number's text (sign, digits, point, exponent); None when no
    /// digit starts the string.
    number: Option<&'t str>,
    /// What follows the number.
    tail: Tail,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tail {
    Nothing,
    Blanks,
    Other,
}

fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

impl Numeric<'_> {
    fn read(t: &[u8]) -> Numeric<'_> {
        let start = t.iter().position(|&c| !is_blank(c)).unwrap_or(t.len());
        let mut i = start;
        if matches!(t.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let int_digits = t[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += int_digits;
        let mut frac_digits = 0;
        if t.get(i) == Some(&b'.') {
            frac_digits = t[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if int_digits + frac_digits > 0 {
                i += 1 + frac_digits;
            }
        }
        if int_digits + frac_digits == 0 {
            return Numeric { number: None, tail: Tail::Other };
        }
        if matches!(t.get(i), Some(b'e' | b'E')) {
            let mut j = i + 1;
            if matches!(t.get(j), Some(b'-' | b'+')) {
                j += 1;
            }
            let exp_digits = t[j.min(t.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
            if exp_digits > 0 {
                i = j + exp_digits;
            }
        }
        let rest = &t[i..];
        let tail = if rest.is_empty() {
            Tail::Nothing
        } else if rest.iter().all(|&c| is_blank(c)) {
            Tail::Blanks
        } else {
            Tail::Other
        };
        // The number is ASCII, so this cannot fail.
        Numeric { number: std::str::from_utf8(&t[start..i]).ok(), tail }
    }

    /// The condition the text after the number raises.
    fn tail_raise(&self) -> Option<Raise> {
        match self.tail {
            Tail::Nothing => None,
            Tail::Blanks => Some(Raise::BlanksCut),
            Tail::Other => Some(Raise::Truncated),
        }
    }
}

/// The integer a number's text rounds to (half away from zero), or its
/// sign when it has more than 20 integer digits (out of any range).
fn round_text(number: &str) -> Result<i128, bool> {
    let b = number.as_bytes();
    let neg = b.first() == Some(&b'-');
    let body = number.trim_start_matches(['-', '+']);
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(p) => (&body[..p], body[p + 1..].parse::<i64>().unwrap_or(if body[p + 1..].starts_with('-') { i64::MIN / 2 } else { i64::MAX / 2 })),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|c| c - b'0').collect();
    let lead = digits.iter().take_while(|&&d| d == 0).count();
    let digits = &digits[lead..];
    if digits.is_empty() {
        return Ok(0);
    }
    // Digits before the point once the exponent is applied.
    let point = (int.len() as i64 - lead as i64).saturating_add(exp);
    if point > 20 {
        return Err(neg);
    }
    let mut v: i128 = 0;
    for k in 0..point.max(0) {
        v = v * 10 + i128::from(*digits.get(k as usize).unwrap_or(&0));
    }
    let next = if point >= 0 { digits.get(point as usize).copied().unwrap_or(0) } else { 0 };
    if next >= 5 {
        v += 1;
    }
    Ok(if neg { -v } else { v })
}

/// Is a number's text a non-zero value below what a double holds (MariaDB
/// reads it as 0 and says it cut it)?
fn underflows(number: &str) -> bool {
    let nonzero = number.bytes().take_while(|c| !matches!(c, b'e' | b'E')).any(|c| (b'1'..=b'9').contains(&c));
    nonzero && number.parse::<f64>().is_ok_and(|f| f == 0.0)
}

/// Clip `v` to [lo, hi].
fn clip(v: i128, lo: i64, hi: i64) -> (i64, Option<Raise>) {
    if v < i128::from(lo) {
        (lo, Some(Raise::OutOfRange))
    } else if v > i128::from(hi) {
        (hi, Some(Raise::OutOfRange))
    } else {
        (v as i64, None)
    }
}

/// A double to an integer column: rounded half to even (MariaDB's rint), clipped.
fn int_of_real(f: f64, lo: i64, hi: i64) -> (i64, Option<Raise>) {
    let r = f.round_ties_even();
    if r.is_nan() {
        (0, Some(Raise::OutOfRange))
    } else if r < lo as f64 {
        (lo, Some(Raise::OutOfRange))
    } else if r >= hi as f64 + 1.0 {
        // (For i64::MAX: hi as f64 is 2^63, already out of range.)
        (hi, Some(Raise::OutOfRange))
    } else {
        (r as i64, None)
    }
}

/// A value for an integer column of range [lo, hi].
fn fit_int(v: ValueRef<'_>, lo: i64, hi: i64, raised: &mut Vec<Raise>) -> SV {
    let (n, r) = match v {
        ValueRef::Integer(i) => clip(i128::from(i), lo, hi),
        ValueRef::Real(f) => int_of_real(f, lo, hi),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let num = Numeric::read(t);
            let Some(number) = num.number else {
                raised.push(Raise::Incorrect("integer"));
                return SV::Integer(lo.max(0).min(hi));
            };
            match round_text(number) {
                // A number too small for a double ('1e-999999999999'): 0, cut.
                Ok(0) if underflows(number) => (0i64.clamp(lo, hi), Some(Raise::Truncated)),
                Ok(v) => {
                    let (n, r) = clip(v, lo, hi);
                    (n, r.or(num.tail_raise()))
                }
                Err(neg) => (if neg { lo } else { hi }, Some(Raise::OutOfRange)),
            }
        }
        ValueRef::Null => return SV::Null,
    };
    raised.extend(r);
    SV::Integer(n)
}

/// BIGINT UNSIGNED: negatives are 0, what is above 2^64-1 is 2^64-1 (as
/// text, the column's form for it); what is between 2^63 and 2^64-1 passes
/// as it is, to `ts_u64` (functions/unsigned.rs), which stores it as text.
fn fit_unsigned_bigint(v: ValueRef<'_>, raised: &mut Vec<Raise>) -> Option<SV> {
    let negative = match v {
        ValueRef::Integer(i) => i < 0,
        ValueRef::Real(f) => f.round_ties_even() < 0.0,
        ValueRef::Text(t) | ValueRef::Blob(t) => match Numeric::read(t).number {
            Some(n) => round_text(n).map_or_else(|neg| neg, |v| v < 0),
            None => false,
        },
        ValueRef::Null => false,
    };
    if negative {
        raised.push(Raise::OutOfRange);
        return Some(SV::Integer(0));
    }
    let small = match v {
        ValueRef::Real(f) => f.round_ties_even() <= i64::MAX as f64,
        ValueRef::Text(t) | ValueRef::Blob(t) => Numeric::read(t).number.is_none_or(|n| round_text(n).is_ok_and(|v| v <= i128::from(i64::MAX))),
        _ => true,
    };
    // Past 2^64-1: clipped to it, as text (the column's form for values
    // past 2^63-1, functions/unsigned.rs); up to it, the column's own.
    let past_max = match v {
        // u64::MAX as f64 is 2^64.
        ValueRef::Real(f) => f.round_ties_even() >= u64::MAX as f64,
        ValueRef::Text(t) | ValueRef::Blob(t) => Numeric::read(t).number.is_some_and(|n| round_text(n).map_or(true, |v| v > i128::from(u64::MAX))),
        _ => false,
    };
    if past_max {
        raised.push(Raise::OutOfRange);
        return Some(SV::Text(u64::MAX.to_string()));
    }
    small.then(|| fit_int(v, 0, i64::MAX, raised))
}

/// FLOAT (`single`) or DOUBLE, `unsigned` or not.
fn fit_float(v: ValueRef<'_>, single: bool, unsigned: bool, raised: &mut Vec<Raise>) -> SV {
    let max = if single { f32::MAX as f64 } else { f64::MAX };
    let f = match v {
        ValueRef::Integer(i) => i as f64,
        ValueRef::Real(f) => f,
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let num = Numeric::read(t);
            let Some(number) = num.number else {
                raised.push(Raise::Incorrect("double"));
                return SV::Real(0.0);
            };
            let f = number.parse::<f64>().unwrap_or(0.0);
            if f.is_infinite() && single {
                // MariaDB raises it twice here (as a double, then as a float).
                raised.push(Raise::OutOfRange);
            }
            raised.extend(num.tail_raise().filter(|_| f.is_finite()));
            f
        }
        ValueRef::Null => return SV::Null,
    };
    if f.is_nan() {
        raised.push(Raise::OutOfRange);
        return SV::Real(0.0);
    }
    if unsigned && f < 0.0 {
        raised.push(Raise::OutOfRange);
        return SV::Real(0.0);
    }
    if f.abs() > max {
        raised.push(Raise::OutOfRange);
        return SV::Real(max.copysign(f));
    }
    SV::Real(f)
}

/// DECIMAL(precision, scale): the number as text (`ts_dec` then rounds it
/// to the scale), clipped to the largest the column holds.
fn fit_decimal(v: ValueRef<'_>, precision: i64, scale: i64, unsigned: bool, raised: &mut Vec<Raise>) -> SV {
    let precision = precision.clamp(1, 65) as u32;
    let scale = (scale.clamp(0, MAX_SCALE as i64) as u32).min(precision);
    let d = match v {
        ValueRef::Integer(i) => Decimal::from_i64(i),
        ValueRef::Real(f) => match Decimal::from_f64(f) {
            Some(d) => d,
            None => {
                raised.push(Raise::OutOfRange);
                return SV::Text(max_decimal(precision, scale, f < 0.0 && !unsigned));
            }
        },
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let num = Numeric::read(t);
            let Some(number) = num.number else {
                raised.push(Raise::Incorrect("decimal"));
                return SV::Text("0".into());
            };
            match Decimal::parse(number.as_bytes()).filter(|d| d.int_digits() <= 66) {
                Some(d) => {
                    raised.extend(num.tail_raise().filter(|r| *r == Raise::Truncated));
                    if underflows(number) {
                        // MariaDB's Note for the digits rounded away.
                        raised.push(Raise::BlanksCut);
                    }
                    d
                }
                None => {
                    // An exponent no DECIMAL holds.
                    let neg = number.starts_with('-');
                    let tiny = number.contains("e-") || number.contains("E-");
                    if tiny {
                        return SV::Text("0".into());
                    }
                    raised.push(Raise::OutOfRange);
                    return SV::Text(if unsigned && neg { "0".into() } else { max_decimal(precision, scale, neg) });
                }
            }
        }
        ValueRef::Null => return SV::Null,
    };
    let rounded = d.round(scale);
    if unsigned && rounded.is_negative() {
        raised.push(Raise::OutOfRange);
        return SV::Text("0".into());
    }
    if rounded.int_digits() > precision - scale {
        raised.push(Raise::OutOfRange);
        return SV::Text(max_decimal(precision, scale, d.is_negative()));
    }
    SV::Text(d.to_string())
}

/// ±(10^(p-s) - 10^-s): the largest DECIMAL(p, s) value.
fn max_decimal(precision: u32, scale: u32, negative: bool) -> String {
    let int = "9".repeat((precision - scale) as usize);
    let int = if int.is_empty() { "0".to_string() } else { int };
    let frac = "9".repeat(scale as usize);
    let sign = if negative { "-" } else { "" };
    if scale == 0 {
        format!("{}{}", sign, int)
    } else {
        format!("{}{}.{}", sign, int, frac)
    }
}

/// A value's text as a string column stores it.
fn text_of(v: ValueRef<'_>) -> Option<std::borrow::Cow<'_, [u8]>> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i.to_string().into_bytes().into()),
        ValueRef::Real(f) => Some(turnstile_wire::value::format_float(f).into_bytes().into()),
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(t.into()),
    }
}

/// CHAR/VARCHAR/TEXT: at most `max` characters (`char_column`: cut
/// blanks are silent, as CHAR drops trailing blanks anyway).
fn fit_chars(v: ValueRef<'_>, max: i64, char_column: bool, raised: &mut Vec<Raise>) -> Option<Vec<u8>> {
    let t = text_of(v)?;
    let max = usize::try_from(max.max(0)).unwrap_or(usize::MAX);
    if t.len() <= max {
        // No more characters than bytes.
        return None;
    }
    let units = bytes::units(&t);
    if units.len() <= max {
        return None;
    }
    let keep: usize = units[..max].iter().map(|u| u.len()).sum();
    if t[keep..].iter().all(|&c| c == b' ') {
        if !char_column {
            raised.push(Raise::BlanksCut);
        }
    } else {
        raised.push(Raise::Truncated);
    }
    Some(t[..keep].to_vec())
}

/// BINARY/VARBINARY/BLOB: at most `max` bytes.
fn fit_bytes(v: ValueRef<'_>, max: i64, raised: &mut Vec<Raise>) -> Option<Vec<u8>> {
    let t = text_of(v)?;
    let max = usize::try_from(max.max(0)).unwrap_or(usize::MAX);
    if t.len() <= max {
        return None;
    }
    raised.push(Raise::Truncated);
    Some(t[..max].to_vec())
}

/// The longest start of `s` (at most 26 bytes, a value's longest
/// spelling) that is a valid value of `kind` (canonical), and what follows it.
fn valid_prefix(s: &str, kind: i64) -> Option<(String, &str)> {
    let name = temporal_name(kind);
    // A start that ends inside a run of digits is no value ('2024-02-3' of '2024-02-30').
    let splits_number = |end: usize| end < s.len() && s.as_bytes()[end].is_ascii_digit() && s.as_bytes()[end - 1].is_ascii_digit();
    let shortest = if kind == 3 { 3 } else { 8 };
    (shortest..=s.len().min(26)).rev().filter(|&end| s.is_char_boundary(end) && !splits_number(end)).find_map(|end| {
        // A time needs its minutes ('12:30:' is 12:30, '12:' nothing).
        let head = s[..end].trim_end_matches(':');
        if kind == 3 && !head.contains(':') {
            return None;
        }
        let canonical = turnstile_sqltext::temporal::normalize_temporal(head, name).unwrap_or_else(|| head.to_string());
        temporal_ok(&canonical, name).then_some((canonical, &s[end..]))
    })
}

/// Does `rest` (after a date) start a time of day, one that made the whole
/// value invalid (`2024-01-15 25:00:00`: MariaDB stores zero)?
fn looks_like_time(rest: &str) -> bool {
    let b = rest.as_bytes();
    matches!(b.first(), Some(b' ' | b'T')) && b.get(1).is_some_and(u8::is_ascii_digit)
}

/// Is `s` a date followed by a time (which a DATE column drops, with a Note)?
fn date_given_time(s: &str) -> bool {
    let s = s.trim();
    s.len() > 10 && s.as_bytes()[10] == b' ' && turnstile_sqltext::temporal::parse_time(s[11..].trim()).is_some()
}

/// A converted temporal value's text.
fn shown_temporal(v: Option<turnstile_engine::Value>) -> Option<String> {
    v.and_then(|c| c.to_text().map(|t| String::from_utf8_lossy(&t).into_owned()))
}

/// The zero value of a temporal kind (a: 0 DATE, 1 DATETIME, 2 TIMESTAMP, 3 TIME).
fn zero_temporal(kind: i64) -> &'static str {
    match kind {
        0 => "0000-00-00",
        3 => "00:00:00",
        _ => "0000-00-00 00:00:00",
    }
}

fn temporal_name(kind: i64) -> &'static str {
    match kind {
        0 => "date",
        2 => "timestamp",
        3 => "time",
        _ => "datetime",
    }
}

/// A DATE, DATETIME, TIMESTAMP or TIME value (after `ts_tnorm`).
fn fit_temporal(v: ValueRef<'_>, kind: i64, fsp: i64, raised: &mut Vec<Raise>) -> Option<SV> {
    let name = temporal_name(kind);
    let base = match kind {
        0 => Base::Date,
        3 => Base::Time,
        _ => Base::DateTime,
    };
    let fsp = fsp.clamp(0, 6) as u8;
    let shown = shown_temporal;
    let (text, number) = match v {
        ValueRef::Null => return None,
        ValueRef::Integer(0) => return Some(SV::Text(zero_temporal(kind).into())),
        ValueRef::Real(0.0) => return Some(SV::Text(zero_temporal(kind).into())),
        ValueRef::Integer(i) => (shown(cast_temporal(CastFrom::Int(i), base, fsp)), i as f64),
        ValueRef::Real(f) if f.fract() == 0.0 || kind == 3 => (shown(cast_temporal(CastFrom::Real(f), base, fsp)), f),
        ValueRef::Real(f) => (None, f),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let s = String::from_utf8_lossy(t);
            // What ts_tnorm does for a strict write (the canonical form), from
            // the text the client wrote (a DATE given a time is MariaDB's Note).
            let kind_fsp = if kind == 0 { name.to_string() } else { format!("{}({})", name, fsp) };
            let normal = turnstile_sqltext::temporal::normalize_temporal(&s, &kind_fsp);
            let canonical = normal.as_deref().unwrap_or(&s);
            if temporal_ok(canonical, name) {
                if kind == 0 && date_given_time(&s) {
                    raised.push(Raise::BlanksCut);
                }
                return normal.map(SV::Text);
            }
            return Some(SV::Text(salvage_temporal(&s, kind, fsp, raised)));
        }
    };
    match text {
        // A TIME number past ±838:59:59 is clipped to it.
        Some(t) if kind == 3 && number.abs() > 8385959.0 => {
            raised.push(Raise::OutOfRange);
            Some(SV::Text(t))
        }
        Some(t) if temporal_ok(&t, name) => Some(SV::Text(t)),
        _ => {
            raised.push(Raise::Truncated);
            Some(SV::Text(zero_temporal(kind).into()))
        }
    }
}

/// A temporal text that is no valid value of its kind: the valid value it
/// starts with (what follows is cut), a TIME clipped to ±838:59:59, a
/// TIMESTAMP outside its range as zero (1264), else the zero value (1265).
fn salvage_temporal(s: &str, kind: i64, fsp: u8, raised: &mut Vec<Raise>) -> String {
    let name = temporal_name(kind);
    let s = s.trim_matches(|c: char| c.is_ascii_whitespace());
    if kind == 3 {
        if let Some((head, _)) = valid_prefix(s, kind) {
            // A time followed by other text ('12:30:aa' is 12:30).
            raised.push(Raise::Truncated);
            return head;
        }
        if let Some(t) = shown_temporal(cast_temporal(CastFrom::Text(s), Base::Time, fsp)) {
            let clipped = t.trim_start_matches('-').starts_with("838:59:59") && !s.trim_start_matches('-').starts_with("838:59:59");
            raised.push(if clipped { Raise::OutOfRange } else { Raise::Truncated });
            return t;
        }
        raised.push(Raise::Truncated);
        return zero_temporal(kind).into();
    }
    if kind == 2 && valid_prefix(s, 1).is_some_and(|(head, _)| !temporal_ok(&head, "timestamp")) {
        // A datetime outside TIMESTAMP's range.
        raised.push(Raise::OutOfRange);
        return zero_temporal(kind).into();
    }
    if let Some((head, rest)) = valid_prefix(s, kind).filter(|(head, rest)| !(kind != 0 && head.ends_with("00:00:00") && looks_like_time(rest))) {
        // A DATE given a time, or digits of a second past the sixth: MariaDB's Note.
        let fraction = kind != 0 && s.get(19..).is_some_and(|f| f.len() > 1 && f.starts_with('.') && f[1..].bytes().all(|c| c.is_ascii_digit()));
        raised.push(if (kind == 0 && date_given_time(s)) || fraction { Raise::BlanksCut } else { Raise::Truncated });
        let _ = rest;
        let kind_fsp = format!("{}({})", name, fsp);
        return turnstile_sqltext::temporal::normalize_temporal(&head, &kind_fsp).unwrap_or(head);
    }
    // Another spelling of a valid value (digits only, other punctuation).
    let base = if kind == 0 { Base::Date } else { Base::DateTime };
    if let Some(t) = shown_temporal(cast_temporal(CastFrom::Text(s), base, fsp)).filter(|t| temporal_ok(t, name)) {
        return t;
    }
    raised.push(Raise::Truncated);
    zero_temporal(kind).into()
}

/// YEAR: 0, 1901..2155, two digits as 19xx/20xx; anything else 0 (1264).
fn fit_year(v: ValueRef<'_>, raised: &mut Vec<Raise>) -> Option<SV> {
    let (n, from_text) = match v {
        ValueRef::Null => return None,
        ValueRef::Integer(i) => (i128::from(i), false),
        ValueRef::Real(f) => (f.round_ties_even().clamp(-1e30, 1e30) as i128, false),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let num = Numeric::read(t);
            let Some(number) = num.number else {
                raised.push(Raise::Incorrect("integer"));
                return Some(SV::Integer(0));
            };
            raised.extend(num.tail_raise().filter(|r| *r == Raise::Truncated));
            (round_text(number).unwrap_or(i128::MAX), true)
        }
    };
    let year = match n {
        // The string '0' (and '00') is 2000; the number 0 is 0000.
        0 if from_text => 2000,
        0 => 0,
        1..=69 => 2000 + n,
        70..=99 => 1900 + n,
        1901..=2155 => n,
        _ => {
            raised.push(Raise::OutOfRange);
            0
        }
    };
    Some(SV::Integer(year as i64))
}

/// BIT(bits): a number past the column's bits (or negative) is all ones.
fn fit_bit(v: ValueRef<'_>, bits: i64, raised: &mut Vec<Raise>) -> Option<SV> {
    // BIT(64) holds every value; BIT(63)'s largest is i64::MAX.
    if !(1..64).contains(&bits) {
        return None;
    }
    let max = ((1u64 << bits) - 1) as i64;
    let over = match v {
        ValueRef::Integer(i) => !(0..=max).contains(&i),
        ValueRef::Real(f) => !(0.0..=max as f64).contains(&f.round_ties_even()),
        ValueRef::Text(t) | ValueRef::Blob(t) => t.len() > 8 || t.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)) > max as u64,
        ValueRef::Null => false,
    };
    over.then(|| {
        raised.push(Raise::OutOfRange);
        SV::Integer(max)
    })
}

/// SET: the members of the value that are the column's (by the column's
/// spelling, any case), in the column's order; others dropped (1265).
fn fit_set(members: &[Vec<u8>], v: ValueRef<'_>, raised: &mut Vec<Raise>) -> Option<SV> {
    let chosen: Vec<bool> = match v {
        ValueRef::Null => return None,
        ValueRef::Integer(i) => {
            let bits = i as u64;
            if members.len() < 64 && bits >> members.len() != 0 {
                raised.push(Raise::Truncated);
            }
            (0..members.len()).map(|k| k < 64 && bits >> k & 1 == 1).collect()
        }
        ValueRef::Real(_) => return None,
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let mut chosen = vec![false; members.len()];
            for part in t.split(|&c| c == b',').filter(|p| !p.is_empty()) {
                match members.iter().position(|m| m.as_slice() == part).or_else(|| members.iter().position(|m| turnstile_sqltext::collate::ci_compare(m, part).is_eq())) {
                    Some(k) => chosen[k] = true,
                    None => raised.push(Raise::Truncated),
                }
            }
            raised.dedup();
            chosen
        }
    };
    let out: Vec<&[u8]> = members.iter().zip(&chosen).filter(|(_, c)| **c).map(|(m, _)| m.as_slice()).collect();
    Some(SV::Text(String::from_utf8_lossy(&out.join(&b","[..])).into_owned()))
}

/// What a value stored into an ENUM column is.
pub(crate) enum EnumValue {
    Null,
    /// The member at this index (0-based).
    Member(usize),
    /// None of them: MariaDB's '' (1265).
    NotMember,
}

/// ENUM: a member by its spelling (any case, trailing blanks ignored, as
/// MariaDB compares), else a number (or the text of one) as the member's
/// position from 1; a double rounds half away from zero first.
pub(crate) fn enum_member(members: &[Vec<u8>], v: ValueRef<'_>) -> EnumValue {
    let position = |n: f64| -> EnumValue {
        let k = n.round();
        if k >= 1.0 && k <= members.len() as f64 {
            EnumValue::Member(k as usize - 1)
        } else {
            EnumValue::NotMember
        }
    };
    match v {
        ValueRef::Null => EnumValue::Null,
        ValueRef::Integer(i) => position(i as f64),
        ValueRef::Real(r) => position(r),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let end = t.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1);
            let trimmed = &t[..end];
            let trim_member = |m: &[u8]| -> usize { m.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1) };
            // The exact spelling first: members of a binary collation may differ in case only.
            let exact = members.iter().position(|m| &m[..trim_member(m)] == trimmed);
            if let Some(k) = exact.or_else(|| members.iter().position(|m| turnstile_sqltext::collate::ci_compare(&m[..trim_member(m)], trimmed).is_eq())) {
                return EnumValue::Member(k);
            }
            match std::str::from_utf8(trimmed).ok().filter(|s| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit())).and_then(|s| s.parse::<u64>().ok()) {
                Some(n) => position(n as f64),
                None => EnumValue::NotMember,
            }
        }
    }
}

/// The text of a value as MariaDB quotes it in 1366: up to 128 bytes, or
/// the characters of its first 125 bytes and `...`.
fn quoted_value(v: ValueRef<'_>) -> String {
    let t = text_of(v).unwrap_or_default();
    if t.len() <= 128 {
        return bytes::shown(&t);
    }
    let mut cut = 125;
    while cut > 0 && (t[cut] & 0xC0) == 0x80 {
        cut -= 1;
    }
    format!("{}...", bytes::shown(&t[..cut]))
}

/// Raise what `ts_fit` found into the statement's conditions, naming `row`.
fn raise_all(counters: &Counters, column: &FitColumn, row: u64, value: ValueRef<'_>, raised: &[Raise]) {
    let col = &column.col;
    for r in raised {
        let (level, code, message) = match r {
            Raise::OutOfRange => (Level::Warning, 1264, format!("Out of range value for column '{}' at row {}", col, row)),
            Raise::Truncated => (Level::Warning, 1265, format!("Data truncated for column '{}' at row {}", col, row)),
            Raise::BlanksCut => (Level::Note, 1265, format!("Data truncated for column '{}' at row {}", col, row)),
            Raise::Incorrect(what) => (Level::Warning, 1366, format!("Incorrect {} value: '{}' for column {} at row {}", what, quoted_value(value), column.qualified, row)),
        };
        counters.raise(level, code, message);
    }
}

/// The value `v` as `column` stores it (None: as it is), and what changing
/// it raises.
fn fitted(column: &FitColumn, v: ValueRef<'_>, raised: &mut Vec<Raise>) -> Option<bytes::Out> {
    let fitted = match column.kind {
        b'i' => Some(fit_int(v, column.a, column.b, raised)),
        b'u' => fit_unsigned_bigint(v, raised),
        b'f' | b'F' => Some(fit_float(v, column.a == 1, column.kind == b'F', raised)),
        b'd' | b'D' => Some(fit_decimal(v, column.a, column.b, column.kind == b'D', raised)),
        b'c' => fit_chars(v, column.a, column.b == 1, raised).map(SV::Blob),
        b'x' => fit_bytes(v, column.a, raised).map(SV::Blob),
        b't' => fit_temporal(v, column.a, column.b, raised),
        b'y' => fit_year(v, raised),
        b'b' => fit_bit(v, column.a, raised),
        b's' => fit_set(&column.members, v, raised),
        b'e' => match enum_member(&column.members, v) {
            EnumValue::Null => None,
            EnumValue::Member(k) => Some(SV::Text(String::from_utf8_lossy(&column.members[k]).into_owned())),
            EnumValue::NotMember => {
                raised.push(Raise::Truncated);
                Some(SV::Text(String::new()))
            }
        },
        _ => None,
    };
    fitted.map(|f| match f {
        // Bytes are stored as TEXT, as the column holds them.
        SV::Blob(b) => bytes::Out::Bytes(b),
        other => bytes::Out::Val(other),
    })
}

/// `ts_fit(value, column)` (see `FitColumn`, `ROW_UNIT`): the value the
/// column stores, its conditions raised when `loud` (`ts_fit_q`, a change
/// test's copy, raises none and counts no row).
fn fit(ctx: &Context<'_>, counters: &Counters, loud: bool) -> rusqlite::Result<bytes::Out> {
    bytes::need(ctx, 2, "ts_fit")?;
    let key = match ctx.get_raw(1) {
        ValueRef::Integer(k) if k >= 0 => k,
        _ => return Ok(bytes::Out::Arg(0)),
    };
    let (index, values_row) = ((key % ROW_UNIT) as usize, (key / ROW_UNIT) as u64);
    let mut notes = counters.notes.lock().unwrap_or_else(|e| e.into_inner());
    if index >= notes.fits.len() {
        // No table installed (a statement run some other way): as it is.
        return Ok(bytes::Out::Arg(0));
    }
    let fits = notes.fits.clone();
    let column = &fits[index];
    let row = match values_row {
        0 => {
            if notes.fit_rows.len() < fits.len() {
                notes.fit_rows.resize(fits.len(), 0);
            }
            let seen = &mut notes.fit_rows[index];
            if loud {
                *seen += 1;
                *seen
            } else {
                *seen + 1
            }
        }
        r => r,
    };
    drop(notes);
    let v = ctx.get_raw(0);
    let mut raised = Vec::new();
    let out = match (&column.null_as, v) {
        (Some(zero), ValueRef::Null) => {
            // NULL into NOT NULL: the column's zero, with MariaDB's 1048.
            if loud {
                counters.raise(Level::Warning, 1048, format!("Column '{}' cannot be null", column.col));
            }
            Some(bytes::Out::Val(zero.clone()))
        }
        (None, ValueRef::Null) => None,
        _ => fitted(column, v, &mut raised),
    };
    if loud && !raised.is_empty() {
        raise_all(counters, column, row, v, &raised);
    }
    Ok(out.unwrap_or(bytes::Out::Arg(0)))
}

/// What a division by zero does (`ts_nz(divisor, mode)`): mode 1 a
/// warning, 2 the statement's error (ERROR_FOR_DIVISION_BY_ZERO in a
/// strict INSERT or UPDATE); the quotient is NULL either way.
fn nonzero(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<bytes::Out> {
    bytes::need(ctx, 2, "ts_nz")?;
    let zero = match ctx.get_raw(0) {
        ValueRef::Integer(i) => i == 0,
        ValueRef::Real(f) => f == 0.0,
        ValueRef::Text(t) | ValueRef::Blob(t) => Numeric::read(t).number.is_none_or(|n| n.parse::<f64>().is_ok_and(|f| f == 0.0)),
        ValueRef::Null => false,
    };
    if !zero {
        return Ok(bytes::Out::Arg(0));
    }
    if matches!(ctx.get_raw(1), ValueRef::Integer(2)) {
        return Err(user_err("ts:1365:Division by 0".into()));
    }
    counters.raise(Level::Warning, 1365, "Division by 0".into());
    Ok(bytes::Out::Val(SV::Null))
}

/// `ts_dup(key, value)`: INSERT IGNORE met a duplicate (the upsert's WHERE,
/// rewrite/insert.rs): MariaDB's Warning 1062, and false, so the row is
/// skipped.
fn duplicate(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<SV> {
    bytes::need(ctx, 2, "ts_dup")?;
    let key = bytes::barg(ctx, 0).map(|k| bytes::shown(&k)).unwrap_or_default();
    let value = bytes::barg(ctx, 1).map(|k| bytes::shown(&k)).unwrap_or_default();
    counters.raise(Level::Warning, 1062, format!("Duplicate entry '{}' for key '{}'", value, key));
    // A row skipped (the OK packet's Records and Duplicates).
    counters.matched.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(SV::Integer(0))
}

/// `ts_fk(message)`: INSERT IGNORE skips a row whose parent is missing
/// (rewrite/insert.rs: `parent_tests`): MariaDB's Warning 1452, and false.
fn missing_parent(ctx: &Context<'_>, counters: &Counters) -> rusqlite::Result<SV> {
    let message = bytes::barg(ctx, 0).map(|m| String::from_utf8_lossy(&m).into_owned()).unwrap_or_default();
    counters.raise(Level::Warning, 1452, message);
    counters.matched.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(SV::Integer(0))
}

/// Register the functions on a new connection. None is deterministic:
/// each raises its conditions once per row.
pub(super) fn register(db: &Connection, counters: Arc<Counters>) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8;
    // A strict write into YEAR: a two-digit year is its four-digit year
    // (93 is 1993, '0' is 2000), as MariaDB reads it in every sql_mode; what
    // ts_fit would change with a warning stays as it is, for the column's
    // CHECK to refuse.
    db.create_scalar_function("ts_year2", 1, flags | FunctionFlags::SQLITE_DETERMINISTIC, |ctx| {
        let v = ctx.get_raw(0);
        let mut raised = Vec::new();
        // The argument as it came otherwise (a text that is not UTF-8 too).
        Ok(match fit_year(v, &mut raised) {
            Some(y) if raised.is_empty() => super::Out::Val(y),
            _ => super::Out::Arg(0),
        })
    })?;
    // A strict write of an expression into an integer column (`ts_int2(v,
    // lo, hi)`): a double rounds half to even, a number's text half away
    // from zero, as MariaDB stores them without a condition; what ts_fit
    // would change with one stays as it is, for the column's CHECK to
    // refuse with MariaDB's error.
    db.create_scalar_function("ts_int2", 3, flags | FunctionFlags::SQLITE_DETERMINISTIC, |ctx| {
        let v = ctx.get_raw(0);
        let (lo, hi) = (ctx.get::<i64>(1)?, ctx.get::<i64>(2)?);
        if !matches!(v, ValueRef::Real(_) | ValueRef::Text(_)) {
            return Ok(super::Out::Arg(0));
        }
        let mut raised = Vec::new();
        Ok(match fit_int(v, lo, hi, &mut raised) {
            n if raised.is_empty() => super::Out::Val(n),
            _ => super::Out::Arg(0),
        })
    })?;
    let c1 = counters.clone();
    db.create_scalar_function("ts_fit", 2, flags, move |ctx| fit(ctx, &c1, true))?;
    let c0 = counters.clone();
    db.create_scalar_function("ts_fit_q", 2, flags, move |ctx| fit(ctx, &c0, false))?;
    let c2 = counters.clone();
    db.create_scalar_function("ts_nz", 2, flags, move |ctx| nonzero(ctx, &c2))?;
    let c3 = counters.clone();
    db.create_scalar_function("ts_dup", 2, flags, move |ctx| duplicate(ctx, &c3))?;
    db.create_scalar_function("ts_fk", 1, flags, move |ctx| missing_parent(ctx, &counters))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enum_members_by_spelling_and_position() {
        let members: Vec<Vec<u8>> = vec![b"small".to_vec(), b"Large".to_vec(), b"".to_vec()];
        let at = |v: ValueRef<'_>| match enum_member(&members, v) {
            EnumValue::Member(k) => Some(k),
            EnumValue::NotMember => None,
            EnumValue::Null => Some(usize::MAX),
        };
        assert_eq!(at(ValueRef::Text(b"LARGE  ")), Some(1));
        assert_eq!(at(ValueRef::Text(b"")), Some(2));
        assert_eq!(at(ValueRef::Text(b"2")), Some(1));
        assert_eq!(at(ValueRef::Integer(3)), Some(2));
        assert_eq!(at(ValueRef::Real(1.5)), Some(1));
        assert_eq!(at(ValueRef::Null), Some(usize::MAX));
        for none in [
            ValueRef::Integer(0),
            ValueRef::Integer(4),
            ValueRef::Integer(i64::MIN),
            ValueRef::Real(f64::NAN),
            ValueRef::Real(1e300),
            ValueRef::Text(b"-1"),
            ValueRef::Text(b"99999999999999999999999"),
            ValueRef::Blob(&[0xff, 0xfe]),
        ] {
            assert_eq!(at(none), None, "{:?}", none);
        }
    }

    #[test]
    fn numbers_at_the_start_of_strings() {
        fn n(s: &str) -> Numeric<'_> {
            Numeric::read(s.as_bytes())
        }
        assert_eq!(n("  12  "), Numeric { number: Some("12"), tail: Tail::Blanks });
        assert_eq!(n("12x"), Numeric { number: Some("12"), tail: Tail::Other });
        assert_eq!(n("1e"), Numeric { number: Some("1"), tail: Tail::Other });
        assert_eq!(n("-1.5e3"), Numeric { number: Some("-1.5e3"), tail: Tail::Nothing });
        assert_eq!(n(".5"), Numeric { number: Some(".5"), tail: Tail::Nothing });
        assert_eq!(n("1."), Numeric { number: Some("1."), tail: Tail::Nothing });
        assert_eq!(n("0x1F"), Numeric { number: Some("0"), tail: Tail::Other });
        for none in ["", " ", "-", ".", "abc", "x12", "NaN", "inf", "+.e1"] {
            assert_eq!(n(none).number, None, "{:?}", none);
        }
    }

    #[test]
    fn rounding_as_mariadb() {
        assert_eq!(round_text("2.5"), Ok(3));
        assert_eq!(round_text("-2.5"), Ok(-3));
        assert_eq!(round_text("3.49"), Ok(3));
        assert_eq!(round_text(".5"), Ok(1));
        assert_eq!(round_text("1e3"), Ok(1000));
        assert_eq!(round_text("1.5e1"), Ok(15));
        assert_eq!(round_text("15e-1"), Ok(2));
        assert_eq!(round_text("0.0004e3"), Ok(0));
        assert_eq!(round_text("99999999999999999999999"), Err(false));
        assert_eq!(round_text("-1e300"), Err(true));
        assert_eq!(round_text("1e-999999999999999999999"), Ok(0));
        assert_eq!(round_text("1e999999999999999999999"), Err(false));
        assert!(underflows("-1e-999999999999999999") && !underflows("0e-999999") && !underflows("1e-5"));
        assert_eq!(int_of_real(2.5, -128, 127), (2, None));
        assert_eq!(int_of_real(127.5, -128, 127), (127, Some(Raise::OutOfRange)));
        assert_eq!(int_of_real(1e300, i64::MIN, i64::MAX), (i64::MAX, Some(Raise::OutOfRange)));
        assert_eq!(int_of_real(9_223_372_036_854_775_808.0, i64::MIN, i64::MAX).1, Some(Raise::OutOfRange));
    }

    #[test]
    fn values_fitted_to_columns() {
        let db = Connection::open_in_memory().unwrap();
        let counters = Arc::new(Counters::default());
        register(&db, counters.clone()).unwrap();
        let column = |kind: u8, a: i64, b: i64, col: &str| FitColumn { kind, a, b, col: col.into(), qualified: format!("`d`.`t`.`{}`", col), null_as: None, members: Vec::new() };
        counters.install_fits(Arc::new([
            column(b'i', -128, 127, "a"),
            column(b'i', i32::MIN.into(), i32::MAX.into(), "i"),
            column(b'c', 5, 1, "c"),
            FitColumn { null_as: Some(SV::Integer(0)), ..column(b'i', 0, 10, "n") },
            column(b't', 0, 0, "d"),
            column(b'd', 4, 1, "dc"),
            FitColumn { members: vec![b"x".to_vec(), b"y".to_vec()], ..column(b's', 0, 0, "s") },
        ]));
        let q = |sql: &str| -> String { db.query_row(sql, [], |r| r.get::<_, rusqlite::types::Value>(0)).map(|v| format!("{:?}", v)).unwrap_or_else(|e| format!("ERR {}", e)) };
        let at = |index: i64, row: i64| index + row * ROW_UNIT;
        assert_eq!(q(&format!("SELECT ts_fit(300, {})", at(0, 1))), "Integer(127)");
        assert_eq!(q(&format!("SELECT ts_fit('x12', {})", at(1, 2))), "Integer(0)");
        assert_eq!(q(&format!("SELECT ts_fit('abcdefg', {})", at(2, 1))), "Text(\"abcde\")");
        assert_eq!(q(&format!("SELECT ts_fit(NULL, {})", at(3, 1))), "Integer(0)");
        assert_eq!(q(&format!("SELECT ts_fit('2024-02-30', {})", at(4, 0))), "Text(\"0000-00-00\")");
        assert_eq!(q(&format!("SELECT ts_fit(12345.67, {})", at(5, 1))), "Text(\"999.9\")");
        assert_eq!(q(&format!("SELECT ts_fit('x,y,z', {})", at(6, 1))), "Text(\"x,y\")");
        // the quiet copy changes the value as well, and raises nothing
        assert_eq!(q(&format!("SELECT ts_fit_q(300, {})", at(0, 1))), "Integer(127)");
        let (raised, total) = counters.take_notes();
        let shown: Vec<(u16, String)> = raised.into_iter().map(|w| (w.code, w.message)).collect();
        assert_eq!(
            shown,
            [
                (1264, "Out of range value for column 'a' at row 1".to_string()),
                (1366, "Incorrect integer value: 'x12' for column `d`.`t`.`i` at row 2".to_string()),
                (1265, "Data truncated for column 'c' at row 1".to_string()),
                (1048, "Column 'n' cannot be null".to_string()),
                (1265, "Data truncated for column 'd' at row 1".to_string()),
                (1264, "Out of range value for column 'dc' at row 1".to_string()),
                (1265, "Data truncated for column 's' at row 1".to_string()),
            ]
        );
        assert_eq!(total, 7);
        assert_eq!(q("SELECT ts_nz(0, 1)"), "Null");
        assert_eq!(q("SELECT ts_nz('a', 1)"), "Null");
        assert_eq!(q("SELECT ts_nz(2, 2)"), "Integer(2)");
        assert!(q("SELECT ts_nz(0.0, 2)").contains("ts:1365"));
        // hostile arguments and columns: no panic
        counters.install_fits(Arc::new([column(b'd', 99, 99, "c"), column(b'b', 99, 0, "c"), column(b't', 9, 9, "c"), column(b'c', -1, 0, "c"), column(b'?', 0, 0, "c")]));
        for args in ["NULL, NULL", "1, 2", "x'ff', -1", "'1e99999999999', 0", "1, 1", "'-', 2", "'abc', 3", "1, 4", "1, 99", "1, 9223372036854775807"] {
            let _ = q(&format!("SELECT ts_fit({})", args));
        }
        assert!(q("SELECT ts_fit(1)").contains("wrong number of arguments"));
    }
}
