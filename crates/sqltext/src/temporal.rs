//! MySQL date and time values as text: reading them (`parse_date`,
//! `parse_time`, `parse_temporal` for a wire value) and the canonical form a
//! value written to a temporal column takes (`normalize_temporal`).
//!
//! Why here: both the SQLite engine (result rows, stored values, the date
//! functions) and the SQL front (CAST without a table) read these texts, and
//! must read them alike; the front depends on no engine.

use crate::civil::{civil_from_days, days_from_civil};
use crate::types::Base;
use turnstile_wire::value::Value;

/// A value for a wire row from a MySQL date/time text (`None`: not parseable,
/// send the text as it is).
pub fn parse_temporal(base: Base, s: &[u8]) -> Option<Value> {
    let s = std::str::from_utf8(s).ok()?;
    match base {
        Base::Date => {
            let (y, m, d) = parse_date(s)?;
            Some(Value::Date { year: y, month: m, day: d })
        }
        Base::DateTime | Base::Timestamp => {
            let (date, time) = match s.split_once([' ', 'T']) {
                Some((a, b)) => (a, Some(b)),
                None => (s, None),
            };
            let (y, m, d) = parse_date(date)?;
            let (neg, h, mi, se, us) = match time {
                Some(t) => parse_time(t)?,
                None => (false, 0, 0, 0, 0),
            };
            if neg || h > 23 {
                return None;
            }
            Some(Value::DateTime { year: y, month: m, day: d, hour: h as u8, minute: mi, second: se, micro: us })
        }
        Base::Time => {
            let (neg, h, mi, se, us) = parse_time(s)?;
            Some(Value::Time { negative: neg, days: h / 24, hour: (h % 24) as u8, minute: mi, second: se, micro: us })
        }
        _ => None,
    }
}

/// `Y-M-D` → (year, month, day), the month up to 12 and the day up to 31
/// (whether the day exists in that month is for the caller).
pub fn parse_date(s: &str) -> Option<(u16, u8, u8)> {
    let mut it = s.split('-');
    let y: u16 = it.next()?.trim().parse().ok()?;
    let m: u8 = it.next()?.parse().ok()?;
    let d: u8 = it.next()?.parse().ok()?;
    if it.next().is_some() || m > 12 || d > 31 {
        return None;
    }
    Some((y, m, d))
}

/// A date/time text that MySQL accepts for a column of `kind` ("date", "datetime",
/// "timestamp", "time") in the canonical form the engine stores and compares:
/// `YYYY-MM-DD`, `YYYY-MM-DD hh:mm:ss[.f]`, `[-]hh:mm:ss[.f]` (fractions are kept as
/// written). Accepted: one-digit month, day, hour, minute, second (`2024-2-9 1:2:3`),
/// a `T` separator, a datetime for a DATE column and a date for a DATETIME column
/// (MySQL converts both), `YYYYMMDD[hhmmss]`, and TIME as `[-]D hh:mm:ss` (days).
/// `None`: already canonical, or not a value this recognises (the column's CHECK
/// then reports it).
///
/// `kind` may carry the column's fractional-second precision, `time(3)`: the
/// fraction is then rounded to that many digits and padded to them, as MySQL
/// stores it (`12:34:56.789000` into TIME(3) is `12:34:56.789`, `...59.5` into
/// DATETIME(0) is the next second).
pub fn normalize_temporal(s: &str, kind: &str) -> Option<String> {
    let (kind, fsp) = match kind.split_once('(') {
        Some((k, f)) => (k, f.trim_end_matches(')').parse::<usize>().ok().filter(|f| *f <= 6)),
        None => (kind, None),
    };
    let mut out = canonical_temporal(s, kind)?;
    if let Some(fsp) = fsp {
        if let Some(r) = round_fraction(&out, kind, fsp) {
            out = r;
        }
    }
    (out != s).then_some(out)
}

/// `v` (canonical) with exactly `fsp` fractional digits, rounded half up.
fn round_fraction(v: &str, kind: &str, fsp: usize) -> Option<String> {
    if kind == "date" {
        return None;
    }
    let (main, frac) = v.split_once('.').unwrap_or((v, ""));
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut digits: Vec<u8> = frac.bytes().map(|b| b - b'0').collect();
    let mut carry = digits.len() > fsp && digits[fsp] >= 5;
    digits.resize(fsp, 0);
    for d in digits.iter_mut().rev() {
        if !carry {
            break;
        }
        if *d == 9 {
            *d = 0;
        } else {
            *d += 1;
            carry = false;
        }
    }
    let mut o = if carry { next_second(main, kind)? } else { main.to_string() };
    if fsp > 0 {
        o.push('.');
        o.extend(digits.iter().map(|d| (b'0' + d) as char));
    }
    Some(o)
}

/// A canonical `[-]hh:mm:ss` or `YYYY-MM-DD hh:mm:ss` one second further from zero.
fn next_second(main: &str, kind: &str) -> Option<String> {
    if kind == "time" {
        let (neg, rest) = main.strip_prefix('-').map_or((false, main), |r| (true, r));
        let mut p = rest.split(':').map(|x| x.parse::<u64>().ok());
        let (h, m, sec) = (p.next()??, p.next()??, p.next()??);
        let t = h * 3600 + m * 60 + sec + 1;
        return Some(format!("{}{:02}:{:02}:{:02}", if neg { "-" } else { "" }, t / 3600, t / 60 % 60, t % 60));
    }
    let (date, clock) = main.split_once(' ')?;
    let (y, mo, d) = parse_date(date)?;
    if y == 0 || mo == 0 || d == 0 {
        return None;
    }
    let mut p = clock.split(':').map(|x| x.parse::<i64>().ok());
    let (h, mi, sec) = (p.next()??, p.next()??, p.next()??);
    let mut days = days_from_civil(y as i64, mo as i64, d as i64);
    let mut t = h * 3600 + mi * 60 + sec + 1;
    if t >= 86400 {
        t -= 86400;
        days += 1;
    }
    let (y, mo, d) = civil_from_days(days);
    Some(format!("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", y, mo, d, t / 3600, t / 60 % 60, t % 60))
}

/// `normalize_temporal` without the precision: the canonical form of a value
/// this recognises (possibly `s` itself), None otherwise.
fn canonical_temporal(s: &str, kind: &str) -> Option<String> {
    let t = s.trim();
    let out = if kind == "time" {
        let (neg, rest) = match t.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, t),
        };
        if let Some(o) = (!neg).then(|| datetime_as_time(rest)).flatten() {
            return Some(o);
        }
        let (days, clock) = match rest.split_once(' ') {
            Some((d, c)) if !d.is_empty() && d.len() <= 2 && d.bytes().all(|b| b.is_ascii_digit()) => (d.parse::<u32>().ok()?, c.trim()),
            Some(_) => return None,
            None => (0, rest),
        };
        if !clock.contains(':') {
            return digits_as_time(t);
        }
        let (_, h, m, sec, _) = parse_time(clock)?;
        let frac = clock.split_once('.').map(|(_, f)| f);
        let hours = days.checked_mul(24)?.checked_add(h)?;
        let mut o = format!("{}{:02}:{:02}:{:02}", if neg { "-" } else { "" }, hours, m, sec);
        if let Some(f) = frac {
            o.push('.');
            o.push_str(f);
        }
        o
    } else {
        return plain_datetime(t, kind).or_else(|| delimited_datetime(t, kind));
    };
    Some(out)
}

/// A DATE or DATETIME text in the forms written most: `Y-M-D[ h:m:s[.f]]`
/// (or `T` between), `YYYYMMDD[hhmmss]`, `YYMMDD[hhmmss]`.
fn plain_datetime(t: &str, kind: &str) -> Option<String> {
    let digits = t.bytes().all(|b| b.is_ascii_digit());
    let (date, clock): (String, Option<String>) = if digits && matches!(t.len(), 6 | 8 | 12 | 14) {
        // YYYYMMDD[hhmmss], or YYMMDD[hhmmss] with a two-digit year.
        let y = if t.len().is_multiple_of(6) { 2 } else { 4 };
        let d = format!("{}-{}-{}", &t[..y], &t[y..y + 2], &t[y + 2..y + 4]);
        let c = (t.len() > y + 4).then(|| format!("{}:{}:{}", &t[y + 4..y + 6], &t[y + 6..y + 8], &t[y + 8..y + 10]));
        (d, c)
    } else {
        match t.split_once([' ', 'T']) {
            Some((d, c)) => (d.to_string(), Some(c.trim().to_string())),
            None => (t.to_string(), None),
        }
    };
    let year_digits = date.split('-').next().map_or(0, str::len);
    if date.bytes().filter(|&b| b == b'-').count() != 2 || !(1..=4).contains(&year_digits) {
        return None;
    }
    let (mut y, mo, d) = parse_date(&date)?;
    // A zero date stays zero ('00-00-00' is 0000-00-00, '00-00-00 01:00:00'
    // the year 2000): MariaDB widens the year only when some part is not zero.
    let zero = y == 0 && mo == 0 && d == 0 && clock.as_deref().is_none_or(|c| c.bytes().all(|b| !(b'1'..=b'9').contains(&b)));
    if year_digits == 2 && !zero {
        // MariaDB's two-digit years: 70-99 are 1970-1999, 00-69 2000-2069
        // ('01-01-01' is 2001-01-01; '1-1-1' stays the year 1).
        y += if y < 70 { 2000 } else { 1900 };
    }
    let day = format!("{:04}-{:02}-{:02}", y, mo, d);
    let clock = match clock {
        Some(c) => {
            if !c.contains(':') {
                return None;
            }
            let (neg, h, mi, sec, _) = parse_time(&c)?;
            if neg || h > 23 {
                return None;
            }
            let mut o = format!("{:02}:{:02}:{:02}", h, mi, sec);
            if let Some((_, f)) = c.split_once('.') {
                o.push('.');
                o.push_str(f);
            }
            Some(o)
        }
        None => None,
    };
    Some(match (kind, clock) {
        ("date", _) => day,
        (_, Some(c)) => format!("{} {}", day, c),
        (_, None) => format!("{} 00:00:00", day),
    })
}

/// MariaDB's reading of the other DATE and DATETIME texts it takes whole
/// (its str_to_datetime): digits only of any length, the year four of
/// them when there are 4, 8 or 14 and more (`00101000000` is
/// 2000-10-10), else two; a `T` after the day (`20030102T131415`); any
/// punctuation between parts (`2003/01/02 13.14.15`), a space only
/// between the date and the time; at least year, month and day. None
/// when a part is out of range or text is left over (MariaDB cuts those
/// with a warning: the column's check and the lenient write take them).
/// One pass over the text.
fn delimited_datetime(t: &str, kind: &str) -> Option<String> {
    let b = t.as_bytes();
    if !b.first()?.is_ascii_digit() {
        return None;
    }
    let lead = b.iter().take_while(|c| c.is_ascii_digit() || **c == b'T').count();
    let fixed = lead == b.len() || b[lead] == b'.';
    let year_width = if matches!(lead, 4 | 8) || lead >= 14 { 4 } else { 2 };
    let (mut parts, mut widths) = ([0u32; 6], [0usize; 6]);
    let (mut n, mut pos, mut frac) = (0usize, 0usize, None);
    while n < 6 && pos < b.len() && b[pos].is_ascii_digit() {
        let start = pos;
        let width = match (fixed, n) {
            (false, _) => usize::MAX,
            (true, 0) => year_width,
            (true, _) => 2,
        };
        let mut v = 0u32;
        while pos < b.len() && b[pos].is_ascii_digit() && pos - start < width {
            v = v * 10 + u32::from(b[pos] - b'0');
            if v > 999_999 {
                return None;
            }
            pos += 1;
        }
        parts[n] = v;
        widths[n] = pos - start;
        n += 1;
        if pos == b.len() {
            break;
        }
        if n == 3 && b[pos] == b'T' {
            pos += 1;
            continue;
        }
        if n == 6 {
            if b[pos] == b'.' {
                let f = &t[pos + 1..];
                if f.is_empty() || !f.bytes().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                frac = Some(f);
                pos = b.len();
            }
            break;
        }
        while pos < b.len() && (b[pos].is_ascii_punctuation() || b[pos] == b' ') {
            if b[pos] == b' ' && n != 3 {
                return None;
            }
            pos += 1;
        }
    }
    if n < 3 || !t[pos..].trim().is_empty() {
        return None;
    }
    let [mut y, mo, d, h, mi, sec] = parts;
    if widths[0] == 2 && parts.iter().any(|&p| p != 0) {
        y += if y < 70 { 2000 } else { 1900 };
    }
    if y > 9999 || mo > 12 || d > 31 || h > 23 || mi > 59 || sec > 59 {
        return None;
    }
    let day = format!("{:04}-{:02}-{:02}", y, mo, d);
    if kind == "date" {
        return Some(day);
    }
    let mut o = format!("{} {:02}:{:02}:{:02}", day, h, mi, sec);
    if let Some(f) = frac {
        o.push('.');
        o.push_str(f);
    }
    Some(o)
}

/// A TIME column's value from a datetime text (`Y-M-D h:m:s[.f]`): its time
/// of day, or with year and month zero its days as hours too
/// (`0000-00-01 10:20:30` is 34:20:30), as MariaDB converts one.
fn datetime_as_time(s: &str) -> Option<String> {
    let (date, clock) = s.split_once(' ')?;
    if date.bytes().filter(|&b| b == b'-').count() != 2 {
        return None;
    }
    let (y, mo, d) = parse_date(date)?;
    let clock = clock.trim();
    let (neg, h, mi, sec, _) = parse_time(clock)?;
    if neg || h > 23 || !clock.contains(':') {
        return None;
    }
    let hours = if y == 0 && mo == 0 { u32::from(d) * 24 + h } else { h };
    let mut o = format!("{:02}:{:02}:{:02}", hours, mi, sec);
    if let Some((_, f)) = clock.split_once('.') {
        o.push('.');
        o.push_str(f);
    }
    Some(o)
}

/// A TIME column's value from a text without `:` that MariaDB reads whole
/// as `[-]HHMMSS[.f]` (`'1'` is 00:00:01, `'1230'` 00:12:30, `'10.22'`
/// 00:00:10.22); None when any of it is left over or out of range.
fn digits_as_time(s: &str) -> Option<String> {
    let (neg, body) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let (whole, frac) = body.split_once('.').map_or((body, None), |(w, f)| (w, Some(f)));
    if whole.is_empty() || whole.len() > 7 || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if frac.is_some_and(|f| f.is_empty() || f.len() > 6 || !f.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let n: u32 = whole.parse().ok()?;
    let (h, mi, sec) = (n / 10000, n / 100 % 100, n % 100);
    if mi > 59 || sec > 59 || h > 838 {
        return None;
    }
    let mut o = format!("{}{:02}:{:02}:{:02}", if neg { "-" } else { "" }, h, mi, sec);
    if let Some(f) = frac {
        o.push('.');
        o.push_str(f);
    }
    Some(o)
}

/// `[-]H:MM:SS[.ffffff]` → (negative, hours, minutes, seconds, micros).
pub fn parse_time(s: &str) -> Option<(bool, u32, u8, u8, u32)> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (main, frac) = match s.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    let mut it = main.split(':');
    let h: u32 = it.next()?.parse().ok()?;
    let m: u8 = it.next().unwrap_or("0").parse().ok()?;
    let sec: u8 = it.next().unwrap_or("0").parse().ok()?;
    if it.next().is_some() || m > 59 || sec > 59 {
        return None;
    }
    let us = match frac {
        Some(f) if !f.is_empty() && f.len() <= 6 && f.bytes().all(|b| b.is_ascii_digit()) => f.parse::<u32>().ok()? * 10u32.pow(6 - f.len() as u32),
        Some(_) => return None,
        None => 0,
    };
    Some((neg, h, m, sec, us))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_spellings_read_as_mariadb_does() {
        let n = |s: &str, k: &str| normalize_temporal(s, k);
        // Digits only: a four-digit year for 4, 8 or 14+ digits, else two (checked on MariaDB 10.11).
        assert_eq!(n("00101000000", "datetime").as_deref(), Some("2000-10-10 00:00:00"));
        assert_eq!(n("20030102131", "datetime").as_deref(), Some("2020-03-01 02:13:01"));
        assert_eq!(n("10000101000000", "datetime").as_deref(), Some("1000-01-01 00:00:00"));
        assert_eq!(n("00000101", "date").as_deref(), Some("0000-01-01"));
        assert_eq!(n("000101", "datetime").as_deref(), Some("2000-01-01 00:00:00"));
        // ISO 8601's T after the day, any punctuation between parts.
        assert_eq!(n("20030102T131415", "datetime").as_deref(), Some("2003-01-02 13:14:15"));
        assert_eq!(n("2001-1-1T1:01:01", "datetime").as_deref(), Some("2001-01-01 01:01:01"));
        assert_eq!(n("2003/01/02 13.14.15.5", "datetime").as_deref(), Some("2003-01-02 13:14:15.5"));
        assert_eq!(n("2003^01^02", "date").as_deref(), Some("2003-01-02"));
        // What MariaDB cuts (text left over, a part out of range, too few parts): left alone.
        assert_eq!(n("200301021314151", "datetime"), None);
        assert_eq!(n("2003-01-02 1314", "datetime"), None);
        assert_eq!(n("20030102 131415", "datetime"), None);
        assert_eq!(n("2003-01-02 03:04:60", "datetime"), None);
        assert_eq!(n("0101", "date"), None);
        assert_eq!(n("2003-01-01 00:00:00 some trailer", "datetime"), None);
    }

    #[test]
    fn temporal_normalising() {
        let n = |s: &str, k: &str| normalize_temporal(s, k);
        // Canonical values are left alone.
        assert_eq!(n("2024-02-29", "date"), None);
        assert_eq!(n("2024-02-29 13:45:59.5", "datetime"), None);
        assert_eq!(n("-838:59:59", "time"), None);
        // mysql-connector-python's C extension: unpadded dates.
        assert_eq!(n("2024-2-9", "date").as_deref(), Some("2024-02-09"));
        assert_eq!(n("2024-2-9 1:2:3.25", "datetime").as_deref(), Some("2024-02-09 01:02:03.25"));
        // A DATETIME into a DATE column (mysql_async binds NaiveDate as DATETIME) and back.
        assert_eq!(n("2024-02-29 00:00:00", "date").as_deref(), Some("2024-02-29"));
        assert_eq!(n("2024-02-29", "datetime").as_deref(), Some("2024-02-29 00:00:00"));
        assert_eq!(n("2024-02-29T10:11:12", "timestamp").as_deref(), Some("2024-02-29 10:11:12"));
        assert_eq!(n("20240229101112", "datetime").as_deref(), Some("2024-02-29 10:11:12"));
        assert_eq!(n("20240229", "date").as_deref(), Some("2024-02-29"));
        // mysqlclient: TIME as "D h:m:s".
        assert_eq!(n("34 22:59:59", "time").as_deref(), Some("838:59:59"));
        assert_eq!(n("0 1:0:0", "time").as_deref(), Some("01:00:00"));
        assert_eq!(n("-1 1:0:0.000005", "time").as_deref(), Some("-25:00:00.000005"));
        assert_eq!(n("1:2:3", "time").as_deref(), Some("01:02:03"));
        // Not temporal values: left for the CHECK to refuse.
        assert_eq!(n("garbage", "date"), None);
        assert_eq!(n("2024-02-29x", "date"), None);
        assert_eq!(n("12345-01-01", "date"), None);
        // Two-digit years as MariaDB reads them; a one-digit year is the year itself.
        assert_eq!(n("24-2-9", "date").as_deref(), Some("2024-02-09"));
        assert_eq!(n("70-01-02", "timestamp").as_deref(), Some("1970-01-02 00:00:00"));
        assert_eq!(n("98-12-31 10:11:12", "datetime").as_deref(), Some("1998-12-31 10:11:12"));
        assert_eq!(n("1-1-1", "date").as_deref(), Some("0001-01-01"));
        assert_eq!(n("010101", "date").as_deref(), Some("2001-01-01"));
        assert_eq!(n("981231101112", "datetime").as_deref(), Some("1998-12-31 10:11:12"));
        assert_eq!(n("0101010", "date").as_deref(), Some("2001-01-01"));
        assert_eq!(n("2024-02-29 25:00:00", "datetime"), None);
        assert_eq!(n("x 1:0:0", "time"), None);
        // Digits alone as MariaDB reads a TIME: [H]HMMSS[.f].
        assert_eq!(n("12", "time").as_deref(), Some("00:00:12"));
        assert_eq!(n("1230", "time").as_deref(), Some("00:12:30"));
        assert_eq!(n("10.22", "time").as_deref(), Some("00:00:10.22"));
        assert_eq!(n("1234559.99", "time").as_deref(), Some("123:45:59.99"));
        assert_eq!(n("1290", "time"), None);
        assert_eq!(n("12x", "time"), None);
        // A datetime's time of day; year and month zero add the days as hours.
        assert_eq!(n("1999-02-03 20:33:34", "time").as_deref(), Some("20:33:34"));
        assert_eq!(n("0000-00-01 10:20:30", "time").as_deref(), Some("34:20:30"));
        assert_eq!(n("0000-00-00 10:20:30.5", "time").as_deref(), Some("10:20:30.5"));
        // A zero month or day is kept; a zero two-digit date stays the year 0.
        assert_eq!(n("1000-0-0", "date").as_deref(), Some("1000-00-00"));
        assert_eq!(n("00-00-00", "datetime").as_deref(), Some("0000-00-00 00:00:00"));
        assert_eq!(n("00-00-00 01:00:00", "datetime").as_deref(), Some("2000-00-00 01:00:00"));
        assert_eq!(n("12-00-00", "datetime").as_deref(), Some("2012-00-00 00:00:00"));
    }

    #[test]
    fn temporal_fsp_rounding() {
        let n = |s: &str, k: &str| normalize_temporal(s, k);
        // Drivers send 6 digits; the column keeps its own precision.
        assert_eq!(n("12:34:56.789000", "time(3)").as_deref(), Some("12:34:56.789"));
        assert_eq!(n("12:34:56.789", "time(6)").as_deref(), Some("12:34:56.789000"));
        assert_eq!(n("12:34:56", "time(2)").as_deref(), Some("12:34:56.00"));
        assert_eq!(n("12:34:56.00", "time(2)"), None);
        assert_eq!(n("2024-02-29 13:45:56.000000", "datetime(0)").as_deref(), Some("2024-02-29 13:45:56"));
        // Rounded half up, carrying into the seconds and beyond.
        assert_eq!(n("12:34:56.7895", "time(3)").as_deref(), Some("12:34:56.790"));
        assert_eq!(n("-00:59:59.5", "time(0)").as_deref(), Some("-01:00:00"));
        assert_eq!(n("2024-02-29 23:59:59.999995", "datetime(5)").as_deref(), Some("2024-03-01 00:00:00.00000"));
        assert_eq!(n("1999-12-31 23:59:59.5", "timestamp(0)").as_deref(), Some("2000-01-01 00:00:00"));
        assert_eq!(n("2024-2-9 1:2:3.25", "datetime(1)").as_deref(), Some("2024-02-09 01:02:03.3"));
        assert_eq!(n("2024-02-29", "date"), None);
        assert_eq!(n("garbage", "time(3)"), None);
    }

    #[test]
    fn temporal_parsing() {
        assert_eq!(parse_temporal(Base::DateTime, b"2024-02-29 23:59:58.5"), Some(Value::DateTime { year: 2024, month: 2, day: 29, hour: 23, minute: 59, second: 58, micro: 500000 }));
        assert_eq!(parse_temporal(Base::Date, b"2024-01-02"), Some(Value::Date { year: 2024, month: 1, day: 2 }));
        assert_eq!(parse_temporal(Base::Time, b"-26:03:04"), Some(Value::Time { negative: true, days: 1, hour: 2, minute: 3, second: 4, micro: 0 }));
        assert_eq!(parse_temporal(Base::Date, b"garbage"), None);
    }
}
