//! CAST(x AS DATE / DATETIME / TIME) and the TIME() and DATE() functions, as
//! MariaDB 10.11 evaluates them: a value of any kind (integer, real, text)
//! to a typed temporal `Value`, or `None` where MySQL gives NULL.
//!
//! Why here: the SQL front (a SELECT without a table) and the SQLite engine
//! (a SQL function the CAST is rewritten to) must give the same answers, and
//! the rules are pure text and number handling.
//!
//! The rules, each checked against MariaDB 10.11:
//! - to TIME: a datetime text or a 12/14-digit number gives its time of day
//!   (`'2024-01-02 03:04:05'` → 03:04:05); `[-][D ]h:m[:s][.f]` is read as
//!   a time; otherwise the number at the start is `[-]HHMMSS[.f]`
//!   (`'123'` → 00:01:23); the result is clipped to ±838:59:59. A
//!   `YYYY-MM-DD` text is midnight, as a DATE column casts (MariaDB reads
//!   such a string literal as the number 2024: 00:20:24).
//! - to DATE/DATETIME: `Y-M-D[ h:m:s[.f]]` (any punctuation between the
//!   date's parts, a `T` before the time) or the digits `YYMMDD`,
//!   `YYYYMMDD`, `YYMMDDhhmmss`, `YYYYMMDDhhmmss` (a number: fewer digits
//!   are padded on the left, 101 → 2000-01-01). A zero month or day is
//!   kept (`2024-00-01`), a day past the month's end or an hour past 23 is
//!   NULL, and a time alone is NULL.
//! - fractions are cut (not rounded) to the target's digits, as MariaDB does.

use crate::civil::days_in_month;
use crate::temporal::parse_time;
use crate::types::Base;
use turnstile_wire::value::Value;

/// The value being converted.
#[derive(Debug, Clone, Copy)]
pub enum CastFrom<'a> {
    Int(i64),
    Real(f64),
    Text(&'a str),
}

/// Largest TIME MySQL holds, in seconds (838:59:59).
const TIME_MAX_S: u64 = 838 * 3600 + 59 * 60 + 59;

/// CAST(`from` AS `target`(`fsp`)): `target` is Date, DateTime or Time; the
/// fraction is cut to `fsp` digits (0..=6).
pub fn cast_temporal(from: CastFrom<'_>, target: Base, fsp: u8) -> Option<Value> {
    assert!(fsp <= 6, "fractional digits are 0..=6");
    let v = match target {
        Base::Time => to_time(from)?,
        Base::Date => match to_datetime(from)? {
            Value::DateTime { year, month, day, .. } => Value::Date { year, month, day },
            other => other,
        },
        _ => to_datetime(from)?,
    };
    Some(cut_fraction(v, fsp))
}

/// The fractional digits a text shows (`'12:30:45.5'` → 1), at most 6: the
/// precision TIME(x) and DATE(x) of a string take.
pub fn fraction_digits(s: &str) -> u8 {
    s.trim().rsplit_once('.').map_or(0, |(_, f)| f.bytes().take_while(u8::is_ascii_digit).count().min(6) as u8)
}

fn cut_fraction(v: Value, fsp: u8) -> Value {
    let unit = 10u32.pow(6 - fsp as u32);
    match v {
        Value::DateTime { year, month, day, hour, minute, second, micro } => Value::DateTime { year, month, day, hour, minute, second, micro: micro / unit * unit },
        Value::Time { negative, days, hour, minute, second, micro } => {
            let micro = micro / unit * unit;
            let zero = days == 0 && hour == 0 && minute == 0 && second == 0 && micro == 0;
            Value::Time { negative: negative && !zero, days, hour, minute, second, micro }
        }
        other => other,
    }
}

fn to_time(from: CastFrom<'_>) -> Option<Value> {
    match from {
        CastFrom::Int(n) => number_to_time(n < 0, n.unsigned_abs(), 0),
        CastFrom::Real(f) if f.is_finite() => {
            let a = f.abs();
            number_to_time(f < 0.0, a.trunc() as u64, crate::time_read::micros_of(a - a.trunc()))
        }
        CastFrom::Real(_) => None,
        CastFrom::Text(s) => text_to_time(s.trim()),
    }
}

fn text_to_time(s: &str) -> Option<Value> {
    // A DATE as stored and shown (`YYYY-MM-DD`) is midnight: what a DATE
    // column casts to. (MariaDB reads a *string* of that form as the number
    // at its start, 2024 → 00:20:24; the engine cannot tell them apart.)
    let date_only = s.len() == 10 && s.as_bytes()[4] == b'-' && s.as_bytes()[7] == b'-';
    if let Some(Value::DateTime { hour, minute, second, micro, .. }) = text_to_datetime(s).filter(|_| date_only || s.contains([' ', 'T']) || s.len() >= 12) {
        return Some(Value::Time { negative: false, days: 0, hour, minute, second, micro });
    }
    if s.contains(':') {
        let (neg, body) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s),
        };
        // `D h:m:s`: days before the time.
        let (days, clock) = match body.split_once(' ') {
            Some((d, c)) if !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) => (d.parse::<u64>().ok()?, c.trim()),
            _ => (0, body),
        };
        let (_, h, m, sec, us) = parse_time(clock)?;
        let secs = days.checked_mul(86_400)? + h as u64 * 3600 + m as u64 * 60 + sec as u64;
        return Some(time_value(neg, secs, us));
    }
    // The number at the start: [-]digits[.digits].
    let (neg, body) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let int_len = body.bytes().take_while(u8::is_ascii_digit).count();
    if int_len == 0 {
        return None;
    }
    let whole: u64 = body[..int_len].parse().ok()?;
    let frac = body[int_len..].strip_prefix('.').map(|f| {
        let d: String = f.chars().take_while(char::is_ascii_digit).take(6).collect();
        if d.is_empty() {
            0
        } else {
            d.parse::<u32>().unwrap_or(0) * 10u32.pow(6 - d.len() as u32)
        }
    });
    number_to_time(neg, whole, frac.unwrap_or(0))
}

/// `[-]HHMMSS` (a 12/14-digit number is a datetime: its time of day).
fn number_to_time(neg: bool, n: u64, micro: u32) -> Option<Value> {
    if n >= 10_000_000_000 {
        let s = n.to_string();
        return match datetime_digits(&s)? {
            Value::DateTime { hour, minute, second, .. } => Some(Value::Time { negative: false, days: 0, hour, minute, second, micro }),
            _ => None,
        };
    }
    let (h, m, s) = (n / 10_000, n / 100 % 100, n % 100);
    if m > 59 || s > 59 {
        return None;
    }
    Some(time_value(neg, h * 3600 + m * 60 + s, micro))
}

/// A TIME of `secs` seconds, clipped to 838:59:59 as MySQL clips.
fn time_value(negative: bool, secs: u64, micro: u32) -> Value {
    let (secs, micro) = if secs > TIME_MAX_S { (TIME_MAX_S, 0) } else { (secs, micro) };
    let hours = secs / 3600;
    Value::Time { negative, days: (hours / 24) as u32, hour: (hours % 24) as u8, minute: (secs / 60 % 60) as u8, second: (secs % 60) as u8, micro }
}

fn to_datetime(from: CastFrom<'_>) -> Option<Value> {
    match from {
        CastFrom::Int(n) if n >= 0 => number_to_datetime(n as u64),
        CastFrom::Real(f) if f.is_finite() && f >= 0.0 => number_to_datetime(f.trunc() as u64),
        CastFrom::Text(s) => text_to_datetime(s.trim()),
        _ => None,
    }
}

/// A number as a date: 0 is the zero date, fewer than 6 digits are padded
/// to YYMMDD, 7 to YYYYMMDD, more than 8 and fewer than 12 to YYMMDDhhmmss.
fn number_to_datetime(n: u64) -> Option<Value> {
    if n == 0 {
        return Some(Value::DateTime { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, micro: 0 });
    }
    // MariaDB's gaps between the forms (my_time.c's number_to_datetime):
    // below 101, between YYMMDD 691231 and 700101, and so on, no date.
    let gap = |lo: u64, hi: u64| n > lo && n < hi;
    if n < 101 || gap(691_231, 700_101) || gap(991_231, 10_000_101) || gap(99_991_231, 101_000_000) || gap(691_231_235_959, 700_101_000_000) {
        return None;
    }
    let s = n.to_string();
    let width = match s.len() {
        0..=6 => 6,
        7 | 8 => 8,
        9..=12 => 12,
        13 | 14 => 14,
        _ => return None,
    };
    datetime_digits(&format!("{:0>width$}", s))
}

fn text_to_datetime(s: &str) -> Option<Value> {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return datetime_digits(s);
    }
    let (date, clock) = match s.split_once([' ', 'T']) {
        Some((d, c)) => (d, Some(c.trim())),
        None => (s, None),
    };
    let mut parts = date.split(|c: char| c.is_ascii_punctuation());
    let mut next = || parts.next().filter(|p| !p.is_empty() && p.len() <= 4 && p.bytes().all(|b| b.is_ascii_digit()));
    let (y, m, d) = (next()?, next()?, next()?);
    if parts.next().is_some() {
        return None;
    }
    let year = year_of(y)?;
    let (month, day): (u8, u8) = (m.parse().ok()?, d.parse().ok()?);
    let (hour, minute, second, micro) = match clock.filter(|c| !c.is_empty()) {
        Some(c) => {
            let (neg, h, mi, se, us) = parse_time(c)?;
            if neg {
                return None;
            }
            (h, mi, se, us)
        }
        None => (0, 0, 0, 0),
    };
    datetime_value(year, month, day, hour, minute, second, micro)
}

/// A two-digit year as MySQL reads one: 70-99 → 19xx, 00-69 → 20xx.
fn year_of(y: &str) -> Option<u16> {
    let n: u16 = y.parse().ok()?;
    Some(match y.len() {
        1 | 2 if n >= 70 => 1900 + n,
        1 | 2 => 2000 + n,
        _ => n,
    })
}

/// YYMMDD, YYYYMMDD, YYMMDDhhmmss or YYYYMMDDhhmmss.
fn datetime_digits(s: &str) -> Option<Value> {
    let ylen = match s.len() {
        6 | 12 => 2,
        8 | 14 => 4,
        _ => return None,
    };
    let num = |a: usize, b: usize| s.get(a..b).and_then(|p| p.parse::<u8>().ok());
    let year = year_of(&s[..ylen])?;
    let (month, day) = (num(ylen, ylen + 2)?, num(ylen + 2, ylen + 4)?);
    let (h, mi, se) = if s.len() > ylen + 4 { (num(ylen + 4, ylen + 6)?, num(ylen + 6, ylen + 8)?, num(ylen + 8, ylen + 10)?) } else { (0, 0, 0) };
    if mi > 59 || se > 59 {
        return None;
    }
    datetime_value(year, month, day, h as u32, mi, se, 0)
}

#[allow(clippy::too_many_arguments)]
fn datetime_value(year: u16, month: u8, day: u8, hour: u32, minute: u8, second: u8, micro: u32) -> Option<Value> {
    let day_ok = month == 0 || day == 0 || i64::from(day) <= days_in_month(i64::from(year), i64::from(month));
    if year > 9999 || month > 12 || !day_ok || hour > 23 {
        return None;
    }
    Some(Value::DateTime { year, month, day, hour: hour as u8, minute, second, micro })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: Option<Value>, fsp: u8) -> Option<String> {
        v.and_then(|v| v.to_text_fsp(Some(fsp)).map(|t| String::from_utf8(t.into_owned()).unwrap()))
    }

    #[test]
    fn to_time_as_mariadb() {
        let t = |s: &str, fsp: u8| text(cast_temporal(CastFrom::Text(s), Base::Time, fsp), fsp);
        assert_eq!(t("2024-01-02 03:04:05", 0).as_deref(), Some("03:04:05"));
        assert_eq!(t("12:30", 0).as_deref(), Some("12:30:00"));
        assert_eq!(t("123", 0).as_deref(), Some("00:01:23"));
        assert_eq!(t("abc", 0), None);
        assert_eq!(t("", 0), None);
        assert_eq!(t("12:61", 0), None);
        assert_eq!(t("2024-01-02", 0).as_deref(), Some("00:00:00"));
        assert_eq!(t("2024", 0).as_deref(), Some("00:20:24"));
        assert_eq!(t("20240102030405", 0).as_deref(), Some("03:04:05"));
        assert_eq!(t("900:00:00", 0).as_deref(), Some("838:59:59"));
        assert_eq!(t("1 02:03:04", 0).as_deref(), Some("26:03:04"));
        assert_eq!(t("-12:30", 0).as_deref(), Some("-12:30:00"));
        assert_eq!(t("-838:59:59.5", 1).as_deref(), Some("-838:59:59.5"));
        assert_eq!(t("2024-01-02 03:04:05.123456", 2).as_deref(), Some("03:04:05.12"));
        assert_eq!(t("12:30:45.999", 0).as_deref(), Some("12:30:45"));
        assert_eq!(t("1.5", 1).as_deref(), Some("00:00:01.5"));
        let n = |f: CastFrom<'_>| text(cast_temporal(f, Base::Time, 0), 0);
        assert_eq!(n(CastFrom::Int(123)).as_deref(), Some("00:01:23"));
        assert_eq!(n(CastFrom::Int(-123)).as_deref(), Some("-00:01:23"));
        assert_eq!(n(CastFrom::Real(12.5)).as_deref(), Some("00:00:12"));
        assert_eq!(n(CastFrom::Int(20240102030405)).as_deref(), Some("03:04:05"));
    }

    #[test]
    fn numbers_between_date_forms_are_no_date() {
        // MariaDB 10.11: CAST(n AS DATE) for each.
        let d = |n: i64| text(cast_temporal(CastFrom::Int(n), Base::Date, 0), 0);
        for (n, want) in [
            (1, None),
            (100, None),
            (101, Some("2000-01-01")),
            (1231, Some("2000-12-31")),
            (690101, Some("2069-01-01")),
            (700000, None),
            (991231, Some("1999-12-31")),
            (1000000, None),
            (10000101, Some("1000-01-01")),
        ] {
            assert_eq!(d(n).as_deref(), want, "{}", n);
        }
    }

    #[test]
    fn to_date_as_mariadb() {
        let d = |s: &str| text(cast_temporal(CastFrom::Text(s), Base::Date, 0), 0);
        assert_eq!(d("2024-01-02 03:04:05.5").as_deref(), Some("2024-01-02"));
        assert_eq!(d("20240102").as_deref(), Some("2024-01-02"));
        assert_eq!(d("240102").as_deref(), Some("2024-01-02"));
        assert_eq!(d("2024/01/02").as_deref(), Some("2024-01-02"));
        assert_eq!(d("  2024-01-02  ").as_deref(), Some("2024-01-02"));
        assert_eq!(d("2024-00-01").as_deref(), Some("2024-00-01"));
        assert_eq!(d("0000-00-00").as_deref(), Some("0000-00-00"));
        assert_eq!(d("2024-13-01"), None);
        assert_eq!(d("2024-02-30"), None);
        assert_eq!(d("12:30"), None);
        let n = |i: i64| text(cast_temporal(CastFrom::Int(i), Base::Date, 0), 0);
        assert_eq!(n(20240102).as_deref(), Some("2024-01-02"));
        assert_eq!(n(240102).as_deref(), Some("2024-01-02"));
        assert_eq!(n(0).as_deref(), Some("0000-00-00"));
        assert_eq!(n(101).as_deref(), Some("2000-01-01"));
        let dt = |s: &str, fsp: u8| text(cast_temporal(CastFrom::Text(s), Base::DateTime, fsp), fsp);
        assert_eq!(dt("2024-01-02", 0).as_deref(), Some("2024-01-02 00:00:00"));
        assert_eq!(dt("2024-01-02T03:04:05", 0).as_deref(), Some("2024-01-02 03:04:05"));
        assert_eq!(dt("2024-01-00", 0).as_deref(), Some("2024-01-00 00:00:00"));
        assert_eq!(dt("2024-01-02 25:00:00", 0), None);
        assert_eq!(dt("12:30:00", 0), None);
        assert_eq!(dt("2024-01-02 03:04:05", 6).as_deref(), Some("2024-01-02 03:04:05.000000"));
        assert_eq!(text(cast_temporal(CastFrom::Int(20240102030405), Base::DateTime, 0), 0).as_deref(), Some("2024-01-02 03:04:05"));
    }

    #[test]
    fn fraction_digits_of_a_text() {
        assert_eq!((fraction_digits("12:30:45.5"), fraction_digits("12:30"), fraction_digits("1.1234567")), (1, 0, 6));
    }
}
