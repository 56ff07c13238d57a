//! ADDTIME, SUBTIME and TIMEDIFF as MariaDB 10.11 computes them.
//!
//! ADDTIME(a, b): `a` is read as a date, datetime or time (`'10:00:00'`,
//! `100000`, `20010101` a date, `'2001-01-01 10:00:00'`); `b` as an
//! interval of days to seconds, whose hours may pass 838 (`2001010100` is
//! 200101:01:00) but which is no date (`'2001-01-01 00:00:00'`,
//! `200101010000`: NULL, "Incorrect INTERVAL DAY TO SECOND value"). A
//! datetime plus it is a datetime (NULL outside years 0 to 9999); a time
//! plus it a time, clipped to ±838:59:59 with "Truncated incorrect time
//! value: '<the unclipped sum>'". The fraction shown: the arguments'
//! digits (an integer none, a number its decimals); a string's as many as
//! the value needs (none or 6), as MariaDB's string-typed ADDTIME shows it.
//!
//! TIMEDIFF(a, b): both read as ADDTIME's `a`; a date beside a time is
//! NULL; the difference clipped to ±838:59:59 with the same warning.
//!
//! UNIX_TIMESTAMP(d): `d` read as a date that names a day, with MariaDB's
//! 1292 for one that is none.
//!
//! Why a module: the old ADDTIME read numbers as seconds (ADDTIME(100000,
//! 10000) was 838:00:00, MariaDB's 11:00:00) and clipped hours alone
//! (`-838:00:00` for MariaDB's `-838:59:59`); the readers and their
//! warnings are dates.rs's (turnstile-sqltext's `time_read`).

use super::dates::{daynr, read_arg, show_time, LAST_DAYNR, TIME_MAX_SECS};
use super::Counters;
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::Connection;
use std::sync::Arc;
use turnstile_engine::Level;
use turnstile_sqltext::civil::{civil_from_days, days_from_civil};
use turnstile_sqltext::time_read::{micros_of, read_datetime, read_time, shown, DateRule, Input, Kind, Read, Tm};

const DAY_US: i128 = 86_400_000_000;
/// MariaDB's day number of 1970-01-01 (civil day 0).
const DAYNR_1970: i64 = 719_528;

pub(super) fn register(db: &Connection, c: &Arc<Counters>) -> rusqlite::Result<()> {
    for (name, sub) in [("addtime", false), ("subtime", true)] {
        // A third argument (rewrite/temporal_numbers.rs): the fraction
        // digits of the first, a DATE, DATETIME or TIME.
        for n in [2, 3] {
            let c = c.clone();
            db.create_scalar_function(name, n, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |ctx| Ok(add_time(ctx, &c, sub)))?;
        }
    }
    let c2 = c.clone();
    db.create_scalar_function("timediff", 2, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |ctx| Ok(time_diff(ctx, &c2)))?;
    let c3 = c.clone();
    db.create_scalar_function("from_unixtime", 1, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |ctx| Ok(from_unixtime(ctx, &c3)))?;
    let c = c.clone();
    db.create_scalar_function("unix_timestamp", -1, FunctionFlags::SQLITE_UTF8, move |ctx| Ok(unix_timestamp(ctx, &c)))
}

/// FROM_UNIXTIME(n): the datetime `n` seconds after 1970-01-01 00:00:00
/// UTC in the session's time zone; past TIMESTAMP's range NULL with
/// MariaDB's "Truncated incorrect unixtime value" (before 1970: NULL).
fn from_unixtime(ctx: &Context<'_>, c: &Counters) -> SV {
    let v = ctx.get_raw(0);
    let Some(t) = super::num(&v) else { return SV::Null };
    if t >= 2_147_483_648.0 || t.is_nan() {
        let input = match v {
            ValueRef::Integer(n) => Input::Int(n),
            ValueRef::Real(f) => Input::Real(f),
            _ => Input::Real(t),
        };
        c.raise(Level::Warning, 1292, format!("Truncated incorrect unixtime value: '{}'", shown(input)));
        return SV::Null;
    }
    if t < 0.0 {
        return SV::Null;
    }
    let dt = super::Dt::from_epoch_micros((t * 1e6) as i64 + super::zone_offset_micros());
    SV::Text(dt.fmt_datetime(if t.fract() != 0.0 { 6 } else { 0 }))
}

/// UNIX_TIMESTAMP([d]): seconds since 1970-01-01 00:00:00 UTC of `d` in the
/// session's time zone; NULL outside TIMESTAMP's range, for the zero date,
/// and (with MariaDB's "Incorrect datetime value" warning) for what is no
/// date or names no day (`'2015-06-00'`, `'2001-02-30'`).
fn unix_timestamp(ctx: &Context<'_>, c: &Counters) -> SV {
    if ctx.is_empty() {
        return SV::Integer(super::now_micros() / 1_000_000);
    }
    let rule = DateRule { no_zero_date: false, no_zero_in_date: true, invalid_dates: false };
    let read = |input: Input<'_>| {
        let r = read_datetime(input, rule);
        // The zero date is NULL without a word.
        let zero = read_datetime(input, DateRule::ANY).tm.is_some_and(|t| t.is_zero());
        if zero {
            Read { tm: None, warning: None }
        } else {
            r
        }
    };
    let Some(t) = read_arg(ctx, 0, c, read) else { return SV::Null };
    let day = days_from_civil(i64::from(t.year), i64::from(t.month), i64::from(t.day));
    let us = (day * 86_400 + i64::from(t.hour) * 3600 + i64::from(t.minute) * 60 + i64::from(t.second)) * 1_000_000 + i64::from(t.micro) - super::zone_offset_micros();
    if !(0..2_147_483_648_000_000).contains(&us) {
        return SV::Null;
    }
    if us % 1_000_000 != 0 {
        SV::Real(us as f64 / 1e6)
    } else {
        SV::Integer(us / 1_000_000)
    }
}

/// The fraction digits argument `v` brings: an integer none, a number 6
/// (the result column's type cuts them to its decimals), a string its own
/// or, `auto`, None (as many as the value needs: ADDTIME of a string).
fn arg_digits(v: ValueRef<'_>, auto: bool) -> Option<u32> {
    match v {
        ValueRef::Integer(_) | ValueRef::Null => Some(0),
        ValueRef::Real(_) => Some(6),
        ValueRef::Text(_) | ValueRef::Blob(_) if auto => None,
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(u32::from(turnstile_sqltext::temporal_cast::fraction_digits(&String::from_utf8_lossy(t)).min(6))),
    }
}

fn shown_digits(digits: Option<u32>, micro: u32) -> u32 {
    digits.unwrap_or(if micro > 0 { 6 } else { 0 })
}

/// A time's signed microseconds (a datetime: its time of day).
fn time_us(t: &Tm) -> i128 {
    let us = (i128::from(t.hour) * 3600 + i128::from(t.minute) * 60 + i128::from(t.second)) * 1_000_000 + i128::from(t.micro);
    if t.neg && t.kind == Kind::Time {
        -us
    } else {
        us
    }
}

/// A datetime's microseconds since MariaDB's day 0.
fn datetime_us(t: &Tm) -> i128 {
    i128::from(daynr(i64::from(t.year), i64::from(t.month), i64::from(t.day))) * DAY_US + time_us(t)
}

/// `[-]h:m[:s][.f]`, `[-]D h:m[:s][.f]` or `[-]HHMMSS[.f]` of at most 11
/// digits, its hours not limited: (negative, microseconds). None for any
/// other form (a date among them).
fn plain_interval(s: &str) -> Option<(bool, i128)> {
    let s = s.trim();
    let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r.trim_start()));
    let (days, body) = match s.split_once(' ') {
        Some((d, rest)) if !d.is_empty() && d.len() <= 6 && d.bytes().all(|b| b.is_ascii_digit()) && rest.contains(':') => (d.parse::<i128>().ok()?, rest.trim()),
        Some(_) => return None,
        None => (0, s),
    };
    let (main, frac) = body.split_once('.').unwrap_or((body, ""));
    if frac.len() > 6 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let micro = if frac.is_empty() { 0 } else { format!("{:0<6}", frac).parse::<i128>().ok()? };
    let digits = |p: &str, max: usize| !p.is_empty() && p.len() <= max && p.bytes().all(|b| b.is_ascii_digit());
    let secs = if main.contains(':') {
        let parts: Vec<&str> = main.split(':').collect();
        if parts.len() > 3 || !digits(parts[0], 9) || parts[1..].iter().any(|p| !digits(p, 2)) {
            return None;
        }
        let n = |k: usize| parts.get(k).map_or(Some(0), |p| p.parse::<i128>().ok());
        let (h, m, sec) = (n(0)?, n(1)?, n(2)?);
        if m > 59 || sec > 59 {
            return None;
        }
        h * 3600 + m * 60 + sec
    } else {
        if days > 0 || !digits(main, 11) {
            return None;
        }
        hhmmss(main.parse::<i128>().ok()?)?
    };
    Some((neg, (days * 86_400 + secs) * 1_000_000 + micro))
}

/// Most hours an interval may have (MariaDB's TIME_MAX_INTERVAL_HOUR).
const INTERVAL_MAX_HOURS: i128 = 87_649_415;

/// `us` when its whole hours are at most INTERVAL_MAX_HOURS.
fn within_interval(us: i128) -> Option<i128> {
    (us / 3_600_000_000 <= INTERVAL_MAX_HOURS).then_some(us)
}

/// A number `HHMMSS` as seconds (None when its minutes or seconds pass 59).
fn hhmmss(n: i128) -> Option<i128> {
    let (h, m, s) = (n / 10_000, n / 100 % 100, n % 100);
    (m <= 59 && s <= 59).then_some(h * 3600 + m * 60 + s)
}

/// ADDTIME's second argument as signed microseconds; None (NULL) for NULL
/// or what is no interval (with MariaDB's warning).
fn interval_arg(ctx: &Context<'_>, c: &Counters) -> Option<i128> {
    let v = ctx.get_raw(1);
    let bad = |input: Input<'_>| {
        c.raise(Level::Warning, 1292, format!("Incorrect INTERVAL DAY TO SECOND value: '{}'", shown(input)));
        None
    };
    // A number of 8 digits or more that is a datetime (`200101010000`)
    // is none; others are hhmmss.
    let number = |neg: bool, whole: u64, micro: u32| -> Option<i128> {
        if whole > 9_999_999 && !neg && i64::try_from(whole).is_ok_and(|n| read_datetime(Input::Int(n), DateRule::ANY).tm.is_some()) {
            return None;
        }
        let secs = hhmmss(i128::from(whole))?;
        let us = within_interval(secs * 1_000_000 + i128::from(micro))?;
        Some(if neg { -us } else { us })
    };
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(n) => number(n < 0, n.unsigned_abs(), 0).or_else(|| bad(Input::Int(n))),
        ValueRef::Real(f) if f.is_finite() && f.abs() < 1e15 => {
            let a = f.abs();
            number(f < 0.0, a.trunc() as u64, micros_of(a.fract())).or_else(|| bad(Input::Real(f)))
        }
        ValueRef::Real(f) => bad(Input::Real(f)),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let s = String::from_utf8_lossy(t);
            if let Some((neg, us)) = plain_interval(&s) {
                return match within_interval(us) {
                    Some(us) => Some(if neg { -us } else { us }),
                    None => bad(Input::Text(&s)),
                };
            }
            // Other forms as a time is read (a truncated tail warned); a
            // date is no interval.
            let r = read_time(Input::Text(&s));
            match r.tm {
                Some(tm) if tm.kind == Kind::Time => {
                    if let Some(w) = r.warning {
                        c.raise(Level::Warning, 1292, w);
                    }
                    Some(time_us(&tm))
                }
                _ => bad(Input::Text(&s)),
            }
        }
    }
}

/// A time of `us` microseconds as MariaDB shows it with `digits` (None: as
/// the value needs), clipped to ±838:59:59 with its warning.
fn clipped_time(us: i128, digits: Option<u32>, c: &Counters) -> SV {
    let a = us.unsigned_abs();
    let (secs, micro) = ((a / 1_000_000) as u64, (a % 1_000_000) as u32);
    let d = shown_digits(digits, micro);
    let max = turnstile_sqltext::time_read::max_micros(d.max(u32::from(digits.is_none()) * 6));
    if secs > TIME_MAX_SECS || (secs == TIME_MAX_SECS && micro > max) {
        let whole = a / 1_000_000;
        let mut w = format!("{}{}:{:02}:{:02}", if us < 0 { "-" } else { "" }, whole / 3600, whole / 60 % 60, whole % 60);
        if micro > 0 {
            w.push_str(&format!(".{:06}", micro));
        }
        c.raise(Level::Warning, 1292, format!("Truncated incorrect time value: '{}'", w));
        let d = digits.unwrap_or(6);
        return SV::Text(show_time(us < 0, TIME_MAX_SECS, turnstile_sqltext::time_read::max_micros(d), d));
    }
    SV::Text(show_time(us < 0 && a > 0, secs, micro, d))
}

fn add_time(ctx: &Context<'_>, c: &Counters, sub: bool) -> SV {
    let first = if ctx.len() > 2 { super::int(&ctx.get_raw(2)).map(|d| d.clamp(0, 6) as u32) } else { arg_digits(ctx.get_raw(0), true) };
    let digits = first.and_then(|d| Some(d.max(arg_digits(ctx.get_raw(1), false)?)));
    let Some(mut a) = read_arg(ctx, 0, c, read_time) else { return SV::Null };
    // A string clipped to 838:59:59 keeps the most microseconds its
    // digits (as many as the value needs: 6) show.
    if digits.is_none() && a.kind == Kind::Time && a.hour == 838 && a.minute == 59 && a.second == 59 && read_time(Input::Text(&super::targ(ctx, 0).unwrap_or_default())).warning.is_some() {
        a.micro = 999_999;
    }
    let Some(iv) = interval_arg(ctx, c) else { return SV::Null };
    let iv = if sub { -iv } else { iv };
    if a.kind == Kind::Time {
        return clipped_time(time_us(&a) + iv, digits, c);
    }
    let total = datetime_us(&a) + iv;
    let days = total.div_euclid(DAY_US);
    if total < 0 || days > i128::from(LAST_DAYNR) {
        return SV::Null;
    }
    let (y, m, d) = if days < 366 { (0, 0, 0) } else { civil_from_days(days as i64 - DAYNR_1970) };
    let rest = total.rem_euclid(DAY_US);
    let secs = (rest / 1_000_000) as u64;
    let micro = (rest % 1_000_000) as u32;
    let mut s = format!("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", y, m, d, secs / 3600, secs / 60 % 60, secs % 60);
    let shown_d = shown_digits(digits, micro).min(6) as usize;
    if shown_d > 0 {
        s.push_str(&format!(".{:06}", micro)[..shown_d + 1]);
    }
    SV::Text(s)
}

fn time_diff(ctx: &Context<'_>, c: &Counters) -> SV {
    let a = read_arg(ctx, 0, c, read_time);
    let b = read_arg(ctx, 1, c, read_time);
    let (Some(a), Some(b)) = (a, b) else { return SV::Null };
    let digits = arg_digits(ctx.get_raw(0), false).max(arg_digits(ctx.get_raw(1), false));
    match (a.kind == Kind::Time, b.kind == Kind::Time) {
        (true, true) => clipped_time(time_us(&a) - time_us(&b), digits, c),
        (false, false) => clipped_time(datetime_us(&a) - datetime_us(&b), digits, c),
        _ => SV::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_read_as_mariadb() {
        assert_eq!(plain_interval("1 01:00:00"), Some((false, 90_000_000_000)));
        assert_eq!(plain_interval("-01:00"), Some((true, 3_600_000_000)));
        assert_eq!(plain_interval("100"), Some((false, 60_000_000)));
        assert_eq!(plain_interval("2001010100"), Some((false, (200_101 * 3600 + 60) * 1_000_000)));
        assert_eq!(plain_interval("416:40:00.5"), Some((false, (416 * 3600 + 2400) * 1_000_000 + 500_000)));
        assert_eq!(plain_interval("2001-01-01 00:00:00"), None);
        assert_eq!(plain_interval("10:61:00"), None);
        assert_eq!(plain_interval("x"), None);
    }

    fn one(db: &Connection, sql: &str) -> Option<String> {
        db.query_row(sql, [], |r| r.get::<_, Option<String>>(0)).expect("query")
    }

    #[test]
    fn addtime_subtime_timediff_as_mariadb() {
        let db = Connection::open_in_memory().expect("db");
        let c = Arc::new(Counters::default());
        register(&db, &c).expect("register");
        for (sql, want) in [
            ("select addtime(100000, 10000)", Some("11:00:00")),
            ("select addtime(100000.5, 1)", Some("10:00:01.500000")),
            ("select addtime('10:00:00.5', '01:00:00')", Some("11:00:00.500000")),
            ("select addtime(20010101, 1.0e0)", Some("2001-01-01 00:00:01.000000")),
            ("select addtime(20010101000000, 8395959)", Some("2001-02-04 23:59:59")),
            ("select addtime(0, 8395959)", Some("838:59:59")),
            ("select addtime('500:00:00', '416:40:00')", Some("838:59:59.999999")),
            ("select subtime('-916:40:00', '416:40:00')", Some("-838:59:59.999999")),
            ("select addtime('10:00:00', '-2 00:00:00')", Some("-38:00:00")),
            ("select addtime('10:00:00', '2001-01-01 00:00:00')", None),
            ("select addtime('10:00:00', 200101010000)", None),
            ("select addtime('2001-01-01 00:00:00', '87649416:59:59')", None),
            ("select addtime('0001-01-01 00:00:00', 876494155959)", Some("9999-12-31 23:59:59")),
            ("select addtime('10:00:00', 2001010100)", Some("838:59:59.999999")),
            ("select subtime('0000-00-10 10:10:10', '30 10:00:00')", None),
            ("select addtime('9999-12-31 23:00:00', '02:00:00')", None),
            ("select timediff('2014-01-01 00:00:00', 20140101010000)", Some("-01:00:00")),
            ("select timediff('2014-01-01 00:00:00', '2014-03-02 01:00:00')", Some("-838:59:59")),
            ("select timediff('2014-01-01 00:00:00', '10:00:00')", None),
            ("select timediff('1000:00:00', '1:00:00')", Some("837:59:59")),
        ] {
            assert_eq!(one(&db, sql).as_deref(), want, "{}", sql);
        }
    }
}
