//! The date functions that read a date or a time from their arguments
//! (YEAR, DAYOFYEAR, HOUR, DATE_FORMAT, DATE_ADD, TIMESTAMPDIFF, EXTRACT,
//! ...), reading them as MariaDB 10.11 does (turnstile-sqltext's
//! `time_read`: `'98-02-03'`, `980303`, `'1997-03-03 garbage'`) and raising
//! its 1292 warnings (`Incorrect datetime value: '0000-00-00'` where a
//! function needs a real day, `Truncated incorrect time value` where a value
//! was cut or clipped to 838:59:59).
//!
//! Also here: INTERVAL values as MariaDB reads them (`'1:1' MINUTE_SECOND`
//! is 61 seconds, `'1 1' YEAR_MONTH` 13 months, fewer parts than the unit
//! has are the last ones), and DATE_FORMAT's specifiers (`%x-%v`, `%U`,
//! NULL for `%M` of a month 0).
//!
//! Each function is registered with the connection's `Counters`, which take
//! the warnings to the statement.

use super::{need, Counters, Dt, DAYS, MONTHS};
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::Connection;
use std::sync::Arc;
use turnstile_engine::Level;
use turnstile_sqltext::civil::{civil_from_days, days_in_month};
use turnstile_sqltext::time_read::{read_datetime, read_time, read_time_as, DateRule, Input, Kind, Read, TimeText, Tm};

type FC<T = SV> = fn(&Context<'_>, &Counters) -> rusqlite::Result<T>;

fn reg<T: rusqlite::ToSql + 'static>(db: &Connection, c: &Arc<Counters>, name: &str, n: i32, f: FC<T>) -> rusqlite::Result<()> {
    let c = c.clone();
    db.create_scalar_function(name, n, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |ctx| f(ctx, &c))
}

/// `reader` applied to argument `i` (None for NULL), its warning raised.
pub(super) fn read_arg(ctx: &Context<'_>, i: usize, c: &Counters, reader: impl FnOnce(Input<'_>) -> Read) -> Option<Tm> {
    let r = match ctx.get_raw(i) {
        ValueRef::Null => return None,
        ValueRef::Integer(n) => reader(Input::Int(n)),
        ValueRef::Real(f) => reader(Input::Real(f)),
        ValueRef::Text(t) | ValueRef::Blob(t) => reader(Input::Text(&String::from_utf8_lossy(t))),
    };
    if let Some(w) = r.warning {
        c.raise(Level::Warning, 1292, w);
    }
    r.tm
}

/// Argument `i` as a date or datetime (`rule`: which dates it refuses).
fn date_arg(ctx: &Context<'_>, i: usize, c: &Counters, rule: DateRule) -> Option<Tm> {
    read_arg(ctx, i, c, |v| read_datetime(v, rule))
}

/// Argument `i` as a time (a datetime gives its time of day).
fn time_arg(ctx: &Context<'_>, i: usize, c: &Counters) -> Option<Tm> {
    read_arg(ctx, i, c, read_time)
}

fn dt_of(t: &Tm) -> Dt {
    let i = i64::from;
    Dt { y: i(t.year), mo: i(t.month), d: i(t.day), h: i(t.hour), mi: i(t.minute), s: i(t.second), us: i(t.micro) }
}

/// MariaDB's day number (days since year 0; 0000-00-00 is 0), defined for a
/// zero month or day too, as DATE_FORMAT's `%W` of `2024-00-05` needs.
pub(super) fn daynr(y: i64, m: i64, d: i64) -> i64 {
    if y == 0 && m == 0 {
        return 0;
    }
    let mut delsum = 365 * y + 31 * (m - 1) + d;
    let y = if m <= 2 {
        y - 1
    } else {
        delsum -= (m * 4 + 23) / 10;
        y
    };
    // Division toward zero, as MariaDB's (year 0 has 365 days).
    delsum + y / 4 - ((y / 100 + 1) * 3) / 4
}

/// MariaDB's day numbers of 0001-01-01 and 9999-12-31: date arithmetic
/// outside them is NULL.
const FIRST_DAYNR: i64 = 366;
pub(super) const LAST_DAYNR: i64 = 3_652_424;

/// 0 = Monday.
fn weekday(t: &Tm) -> i64 {
    (daynr(i64::from(t.year), i64::from(t.month), i64::from(t.day)) + 5).rem_euclid(7)
}

fn int_of(t: Option<Tm>, f: impl FnOnce(&Tm) -> i64) -> SV {
    t.map_or(SV::Null, |t| SV::Integer(f(&t)))
}

fn mode_arg(ctx: &Context<'_>, i: usize) -> i64 {
    if ctx.len() > i {
        super::int(&ctx.get_raw(i)).unwrap_or(0)
    } else {
        0
    }
}

pub(super) fn register(db: &Connection, c: &Arc<Counters>) -> rusqlite::Result<()> {
    parts(db, c)?;
    days(db, c)?;
    reg(db, c, "date_format", 2, |ctx, c| {
        let Some(t) = date_arg(ctx, 0, c, DateRule::ANY) else { return Ok(SV::Null) };
        let Some(f) = super::targ(ctx, 1) else { return Ok(SV::Null) };
        Ok(formatted(c, "date_format", format(&t, &f, false)))
    })?;
    reg(db, c, "time_format", 2, |ctx, c| {
        let Some(t) = time_arg(ctx, 0, c) else { return Ok(SV::Null) };
        let Some(f) = super::targ(ctx, 1) else { return Ok(SV::Null) };
        let t = Tm { year: 0, month: 0, day: 0, kind: Kind::Time, ..t };
        Ok(formatted(c, "time_format", format(&t, &f, true).map(|r| r.map(|s| if t.neg { format!("-{}", s) } else { s }))))
    })?;
    intervals(db, c)?;
    reg(db, c, "sec_to_time", 1, sec_to_time)?;
    reg(db, c, "maketime", 3, maketime)?;
    reg(db, c, "ts_tcanon", 3, |ctx, c| {
        let fsp = super::int(&ctx.get_raw(2)).unwrap_or(0).clamp(0, 6) as usize;
        let base = super::targ(ctx, 1).unwrap_or_default();
        let Some(t) = compared_arg(ctx, c, base == "time") else { return Ok(SV::Null) };
        Ok(SV::Text(match base.as_str() {
            "time" => canonical_time(&t, fsp),
            "date" => {
                let midnight = clock_secs(&t) == 0 && t.micro == 0;
                show(&t, midnight, fraction_shown(t.micro, fsp))
            }
            _ => show(&t, false, fraction_shown(t.micro, fsp)),
        }))
    })?;
    reg(db, c, "ts_tcmp", 3, |ctx, c| {
        let as_time = super::int(&ctx.get_raw(2)) == Some(1);
        let mode_time = super::targ(ctx, 1).as_deref() == Some("time");
        let Some(t) = compared_arg(ctx, c, mode_time || as_time) else { return Ok(SV::Null) };
        let clock = (i64::from(t.hour) * 3600 + i64::from(t.minute) * 60 + i64::from(t.second)) * 1_000_000 + i64::from(t.micro);
        let signed = if t.neg && t.kind == Kind::Time { -clock } else { clock };
        Ok(SV::Integer(if mode_time {
            signed
        } else if as_time {
            // A TIME compared with a date: today at that time.
            (super::local_now_micros().div_euclid(86_400_000_000) + 719_528) * 86_400_000_000 + signed
        } else {
            civil_days(&t) * 86_400_000_000 + clock
        }))
    })?;
    db.create_scalar_function("ts_tnum", 1, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, |ctx| Ok(temporal_number(ctx.get_raw(0)).map_or(super::Out::Arg(0), super::Out::Val)))?;
    Ok(())
}

/// Argument 0 as a comparison reads it (`ts_tcanon`, `ts_tcmp`): a value
/// that is none is the zero value, with "Truncated incorrect ... value"
/// (MariaDB's wording there); a day past its month's end is taken. None
/// for NULL.
fn compared_arg(ctx: &Context<'_>, c: &Counters, time: bool) -> Option<Tm> {
    let compared = |r: Read| Read { tm: r.tm, warning: r.warning.map(|w| w.replacen("Incorrect ", "Truncated incorrect ", 1)) };
    let t = if time { read_arg(ctx, 0, c, |v| compared(read_time(v))) } else { read_arg(ctx, 0, c, |v| compared(read_datetime(v, DateRule::COMPARED))) };
    if matches!(ctx.get_raw(0), ValueRef::Null) {
        return None;
    }
    Some(t.unwrap_or(Tm { neg: false, year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, micro: 0, kind: if time { Kind::Time } else { Kind::DateTime } }))
}

/// The fractional digits a value compared with a column of `fsp` digits
/// shows: the column's, or more when the value has more.
fn fraction_shown(micro: u32, fsp: usize) -> usize {
    let significant = if micro == 0 { 0 } else { 6 - (0..6).take_while(|k| micro.is_multiple_of(10u32.pow(k + 1))).count() };
    significant.max(fsp)
}

/// A TIME as a TIME column stores it (a datetime: its time of day; one of
/// a zero year and month: its days as hours, '0000-00-01 10:00:00' is 34:00:00).
fn canonical_time(t: &Tm, fsp: usize) -> String {
    let hours = if t.kind != Kind::Time && t.year == 0 && t.month == 0 { u64::from(t.day) * 24 + u64::from(t.hour) } else { u64::from(t.hour) };
    let secs = hours * 3600 + u64::from(t.minute) * 60 + u64::from(t.second);
    show_time(t.neg && t.kind == Kind::Time && (secs > 0 || t.micro > 0), secs, t.micro, fraction_shown(t.micro, fsp) as u32)
}

/// Seconds in 838:59:59, the largest TIME.
pub(super) const TIME_MAX_SECS: u64 = 838 * 3600 + 59 * 60 + 59;

/// `[-]h:mm:ss[.f]` with `digits` fractional digits.
pub(super) fn show_time(neg: bool, secs: u64, micro: u32, digits: u32) -> String {
    let mut s = format!("{}{:02}:{:02}:{:02}", if neg { "-" } else { "" }, secs / 3600, secs / 60 % 60, secs % 60);
    if digits > 0 {
        s.push_str(&format!(".{:06}", micro)[..digits.min(6) as usize + 1]);
    }
    s
}

/// The fractional digits a number argument shows: an integer none, a real
/// as many as it prints (at most 6), a text 6.
fn number_digits(v: ValueRef<'_>) -> u32 {
    match v {
        ValueRef::Integer(_) | ValueRef::Null => 0,
        ValueRef::Real(f) => turnstile_wire::value::format_float(f).split_once('.').map_or(0, |(_, d)| d.len().min(6) as u32),
        _ => 6,
    }
}

/// A time of `neg`, `secs` seconds and `micro` past 838:59:59 is clipped
/// to it, with the most microseconds `digits` show (None: not past it).
fn clip_time(secs: u64, micro: u32, digits: u32) -> Option<(u64, u32)> {
    let max = turnstile_sqltext::time_read::max_micros(digits);
    (secs > TIME_MAX_SECS || (secs == TIME_MAX_SECS && micro > max)).then_some((TIME_MAX_SECS, max))
}

/// A number argument as (negative, whole, micros), with MariaDB's warning
/// for a text that is no number; None for NULL.
fn seconds_arg(ctx: &Context<'_>, i: usize, c: &Counters) -> Option<(bool, f64, String)> {
    let v = ctx.get_raw(i);
    let (f, shown) = match v {
        ValueRef::Null => return None,
        ValueRef::Integer(n) => (n as f64, n.to_string()),
        ValueRef::Real(f) if f.abs() >= 1e15 => (f, turnstile_wire::value::format_float(f)),
        ValueRef::Real(f) => (f, format!("{:.6}", f)),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let s = String::from_utf8_lossy(t);
            let n = turnstile_wire::value::parse_number_prefix(t);
            if n.is_none() || s.trim().parse::<f64>().is_err() {
                c.raise(Level::Warning, 1292, format!("Truncated incorrect DECIMAL value: '{}'", turnstile_sqltext::time_read::shown_text(&s)));
            }
            let f = n.unwrap_or(0.0);
            (f, format!("{:.6}", f))
        }
    };
    Some((f < 0.0, f.abs(), shown))
}

/// SEC_TO_TIME(x): clipped to ±838:59:59 with a warning.
fn sec_to_time(ctx: &Context<'_>, c: &Counters) -> rusqlite::Result<SV> {
    let Some((neg, a, shown)) = seconds_arg(ctx, 0, c) else { return Ok(SV::Null) };
    let digits = number_digits(ctx.get_raw(0));
    let (mut secs, mut micro) = if a >= 1e15 { (u64::MAX, 0) } else { (a.trunc() as u64, turnstile_sqltext::time_read::micros_of(a.fract())) };
    micro = micro - micro % 10u32.pow(6 - digits);
    if let Some((s, m)) = clip_time(secs, micro, digits) {
        c.raise(Level::Warning, 1292, format!("Truncated incorrect seconds value: '{}'", shown));
        (secs, micro) = (s, m);
    }
    Ok(SV::Text(show_time(neg && (secs > 0 || micro > 0), secs, micro, digits)))
}

/// MAKETIME(h, m, s): NULL for a minute or second out of 0..59, clipped to
/// ±838:59:59 with a warning.
fn maketime(ctx: &Context<'_>, c: &Counters) -> rusqlite::Result<SV> {
    let (Some(h), Some(m)) = (super::int(&ctx.get_raw(0)), super::int(&ctx.get_raw(1))) else { return Ok(SV::Null) };
    let Some((sneg, s, shown)) = seconds_arg(ctx, 2, c) else { return Ok(SV::Null) };
    if !(0..60).contains(&m) || sneg {
        return Ok(SV::Null);
    }
    if s >= 60.0 {
        if s >= 4_294_967_296.0 {
            c.raise(Level::Warning, 1292, format!("Truncated incorrect seconds value: '{}'", shown.trim_end_matches(".000000")));
        }
        return Ok(SV::Null);
    }
    let digits = number_digits(ctx.get_raw(2));
    let micro = turnstile_sqltext::time_read::micros_of(s.fract());
    let micro = micro - micro % 10u32.pow(6 - digits);
    let hours = h.unsigned_abs();
    let mut secs = hours.saturating_mul(3600).saturating_add(m as u64 * 60).saturating_add(s.trunc() as u64);
    let mut micro = micro;
    if let Some((cs, cm)) = clip_time(secs, micro, digits) {
        c.raise(Level::Warning, 1292, format!("Truncated incorrect time value: '{}{}:{:02}:{:02}'", if h < 0 { "-" } else { "" }, hours, m, s.trunc() as u64));
        (secs, micro) = (cs, cm);
    }
    Ok(SV::Text(show_time(h < 0, secs, micro, digits)))
}

/// A date or time value as the number MariaDB reads it as (`ts_tnum`,
/// rewrite/temporal_numbers.rs): `2001-01-02` is 20010102, `2001-01-02
/// 10:20:30` 20010102102030, `-02:30:01.5` -23001.5. Anything else (NULL, a
/// number, a text of no such form) is passed on as it is (None).
fn temporal_number(v: ValueRef<'_>) -> Option<SV> {
    let ValueRef::Text(t) = v else { return None };
    let s = std::str::from_utf8(t).ok()?.trim();
    let (neg, body) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let (main, frac) = body.split_once('.').unwrap_or((body, ""));
    let b = main.as_bytes();
    let shape = |pat: &str| pat.len() == b.len() && pat.bytes().zip(b).all(|(p, c)| if p == b'9' { c.is_ascii_digit() } else { p == *c });
    let is_time = main.split(':').count() == 3 && main.split(':').enumerate().all(|(i, p)| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()) && (i == 0 || p.len() == 2));
    let ok = (!neg && (shape("9999-99-99") || shape("9999-99-99 99:99:99"))) || is_time;
    if !ok || !frac.bytes().all(|c| c.is_ascii_digit()) || frac.len() > 6 {
        return None;
    }
    let digits: String = main.bytes().filter(u8::is_ascii_digit).map(char::from).collect();
    let whole = digits.parse::<i64>().ok()?;
    let sign = if neg { -1 } else { 1 };
    if frac.is_empty() {
        return Some(SV::Integer(sign * whole));
    }
    let f: f64 = format!("{}.{}", whole, frac).parse().ok()?;
    Some(SV::Real(sign as f64 * f))
}

/// YEAR, MONTH, ..., HOUR, MINUTE: one part of a date or a time.
fn parts(db: &Connection, c: &Arc<Counters>) -> rusqlite::Result<()> {
    reg(db, c, "year", 1, |ctx, c| Ok(int_of(date_arg(ctx, 0, c, DateRule::ANY), |t| i64::from(t.year))))?;
    reg(db, c, "month", 1, |ctx, c| Ok(int_of(date_arg(ctx, 0, c, DateRule::ANY), |t| i64::from(t.month))))?;
    for name in ["day", "dayofmonth"] {
        reg(db, c, name, 1, |ctx, c| Ok(int_of(date_arg(ctx, 0, c, DateRule::ANY), |t| i64::from(t.day))))?;
    }
    reg(db, c, "quarter", 1, |ctx, c| Ok(int_of(date_arg(ctx, 0, c, DateRule::ANY), |t| (i64::from(t.month) + 2) / 3)))?;
    reg(db, c, "hour", 1, |ctx, c| Ok(int_of(time_arg(ctx, 0, c), |t| i64::from(t.hour))))?;
    reg(db, c, "minute", 1, |ctx, c| Ok(int_of(time_arg(ctx, 0, c), |t| i64::from(t.minute))))?;
    reg(db, c, "second", 1, |ctx, c| Ok(int_of(time_arg(ctx, 0, c), |t| i64::from(t.second))))?;
    reg(db, c, "microsecond", 1, |ctx, c| Ok(int_of(time_arg(ctx, 0, c), |t| i64::from(t.micro))))?;
    reg(db, c, "time_to_sec", 1, |ctx, c| {
        let digits = match ctx.get_raw(0) {
            ValueRef::Text(t) | ValueRef::Blob(t) => u32::from(turnstile_sqltext::temporal_cast::fraction_digits(&String::from_utf8_lossy(t))),
            v => number_digits(v),
        };
        Ok(time_arg(ctx, 0, c).map(|t| Tm { micro: t.micro - t.micro % 10u32.pow(6 - digits), ..t }).map_or(SV::Null, |t| {
            let secs = i64::from(t.hour) * 3600 + i64::from(t.minute) * 60 + i64::from(t.second);
            let sign = if t.neg { -1 } else { 1 };
            if t.micro == 0 {
                SV::Integer(sign * secs)
            } else {
                SV::Real(sign as f64 * (secs as f64 + f64::from(t.micro) / 1e6))
            }
        }))
    })?;
    Ok(())
}

/// The functions of a real day (a zero date, month or day is NULL with a warning).
fn days(db: &Connection, c: &Arc<Counters>) -> rusqlite::Result<()> {
    reg(db, c, "dayofyear", 1, |ctx, c| Ok(int_of(date_arg(ctx, 0, c, DateRule::REAL), |t| civil_days(t) - daynr(i64::from(t.year), 1, 1) + 1)))?;
    reg(db, c, "weekday", 1, |ctx, c| Ok(int_of(date_arg(ctx, 0, c, DateRule::REAL), weekday)))?;
    reg(db, c, "dayofweek", 1, |ctx, c| Ok(int_of(date_arg(ctx, 0, c, DateRule::REAL), |t| (weekday(t) + 1) % 7 + 1)))?;
    reg(db, c, "dayname", 1, |ctx, c| Ok(date_arg(ctx, 0, c, DateRule::REAL).map_or(SV::Null, |t| SV::Text(DAYS[weekday(&t) as usize].into()))))?;
    reg(db, c, "to_days", 1, |ctx, c| Ok(int_of(date_arg(ctx, 0, c, DateRule::REAL), civil_days)))?;
    reg(db, c, "to_seconds", 1, |ctx, c| Ok(int_of(date_arg(ctx, 0, c, DateRule::REAL), |t| civil_days(t) * 86_400 + clock_secs(t))))?;
    reg(db, c, "datediff", 2, |ctx, c| {
        let a = date_arg(ctx, 0, c, DateRule::REAL);
        let b = date_arg(ctx, 1, c, DateRule::REAL);
        Ok(match (a, b) {
            (Some(a), Some(b)) => SV::Integer(civil_days(&a) - civil_days(&b)),
            _ => SV::Null,
        })
    })?;
    reg(db, c, "monthname", 1, |ctx, c| Ok(date_arg(ctx, 0, c, DateRule::ANY).filter(|t| t.month > 0).map_or(SV::Null, |t| SV::Text(MONTHS[t.month as usize - 1].into()))))?;
    reg(db, c, "last_day", 1, |ctx, c| {
        Ok(date_arg(ctx, 0, c, DateRule::ANY).filter(|t| t.month > 0).map_or(SV::Null, |t| {
            let (y, m) = (i64::from(t.year), i64::from(t.month));
            SV::Text(format!("{:04}-{:02}-{:02}", y, m, days_in_month(y, m)))
        }))
    })?;
    reg(db, c, "week", -1, |ctx, c| {
        need(ctx, 1, "week")?;
        let mode = mode_arg(ctx, 1);
        Ok(int_of(date_arg(ctx, 0, c, DateRule::REAL), |t| super::ext::week(&dt_of(t), mode, false).1))
    })?;
    reg(db, c, "weekofyear", 1, |ctx, c| Ok(int_of(date_arg(ctx, 0, c, DateRule::REAL), |t| super::ext::week(&dt_of(t), 3, false).1)))?;
    reg(db, c, "yearweek", -1, |ctx, c| {
        need(ctx, 1, "yearweek")?;
        let mode = mode_arg(ctx, 1);
        Ok(int_of(date_arg(ctx, 0, c, DateRule::REAL), |t| {
            let (y, w) = super::ext::week(&dt_of(t), mode, true);
            y * 100 + w
        }))
    })?;
    Ok(())
}

/// MariaDB's day number of `t` (TO_DAYS).
fn civil_days(t: &Tm) -> i64 {
    daynr(i64::from(t.year), i64::from(t.month), i64::from(t.day))
}

fn clock_secs(t: &Tm) -> i64 {
    i64::from(t.hour) * 3600 + i64::from(t.minute) * 60 + i64::from(t.second)
}

/// The result of DATE_FORMAT / TIME_FORMAT: NULL where a part is lacking,
/// NULL with MariaDB's 1301 past max_allowed_packet.
fn formatted(c: &Counters, name: &str, r: Result<Option<String>, TooLong>) -> SV {
    match r {
        Ok(Some(s)) => SV::Text(s),
        Ok(None) => SV::Null,
        Err(TooLong) => {
            let max = turnstile_engine::limits::max_result_bytes();
            c.raise(Level::Warning, 1301, format!("Result of {}() was larger than max_allowed_packet ({}) - truncated", name, max));
            SV::Null
        }
    }
}

/// A result past max_allowed_packet (`turnstile_engine::limits`).
struct TooLong;

/// DATE_FORMAT / TIME_FORMAT of `t`; None (NULL) where a specifier needs a
/// part the value lacks (`%M` of month 0, `%W` of a time). The text grows
/// by at most a day's name per step, and stops past the result limit.
fn format(t: &Tm, fmt: &str, is_time: bool) -> Result<Option<String>, TooLong> {
    use std::fmt::Write;
    let mut o = String::new();
    let mut it = fmt.chars();
    let (y, mo, d, h) = (i64::from(t.year), i64::from(t.month), i64::from(t.day), i64::from(t.hour));
    let h12 = if h % 12 == 0 { 12 } else { h % 12 };
    let ampm = if h % 24 < 12 { "AM" } else { "PM" };
    let no_date = is_time || (t.month == 0 && t.year == 0);
    let week = |mode: i64, year_mode: bool| super::ext::week(&dt_of(t), mode, year_mode);
    while let Some(ch) = it.next() {
        if !turnstile_engine::limits::fits(o.len()) {
            return Err(TooLong);
        }
        if ch != '%' {
            o.push(ch);
            continue;
        }
        let Some(f) = it.next() else { break };
        let _ = match f {
            'Y' => write!(o, "{:04}", y),
            'y' => write!(o, "{:02}", y % 100),
            'm' => write!(o, "{:02}", mo),
            'c' => write!(o, "{}", mo),
            'd' => write!(o, "{:02}", d),
            'e' => write!(o, "{}", d),
            'H' => write!(o, "{:02}", h),
            'k' => write!(o, "{}", h),
            'h' | 'I' => write!(o, "{:02}", h12),
            'l' => write!(o, "{}", h12),
            'i' => write!(o, "{:02}", t.minute),
            's' | 'S' => write!(o, "{:02}", t.second),
            'f' => write!(o, "{:06}", t.micro),
            'p' => write!(o, "{}", ampm),
            'T' => write!(o, "{:02}:{:02}:{:02}", h, t.minute, t.second),
            'r' => write!(o, "{:02}:{:02}:{:02} {}", h12, t.minute, t.second, ampm),
            'M' | 'b' if t.month == 0 => return Ok(None),
            'M' => write!(o, "{}", MONTHS[t.month as usize - 1]),
            'b' => write!(o, "{}", &MONTHS[t.month as usize - 1][..3]),
            'W' | 'a' | 'w' if no_date => return Ok(None),
            'W' => write!(o, "{}", DAYS[weekday(t) as usize]),
            'a' => write!(o, "{}", &DAYS[weekday(t) as usize][..3]),
            'w' => write!(o, "{}", (weekday(t) + 1) % 7),
            'D' | 'j' | 'U' | 'u' | 'V' | 'v' | 'X' | 'x' if is_time => return Ok(None),
            'j' if t.month == 0 || t.year == 0 => return Ok(None),
            'D' => write!(o, "{}{}", d, ordinal(d)),
            'j' => write!(o, "{:03}", daynr(y, mo, d) - daynr(y, 1, 1) + 1),
            'U' => write!(o, "{:02}", week(0, false).1),
            'u' => write!(o, "{:02}", week(1, false).1),
            'V' => write!(o, "{:02}", week(2, false).1),
            'v' => write!(o, "{:02}", week(3, false).1),
            'X' => write!(o, "{:04}", week(2, true).0),
            'x' => write!(o, "{:04}", week(3, true).0),
            other => write!(o, "{}", other),
        };
    }
    if !turnstile_engine::limits::fits(o.len()) {
        return Err(TooLong);
    }
    Ok(Some(o))
}

fn ordinal(d: i64) -> &'static str {
    match (d % 10, d % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    }
}

// ---------------------------------------------------------------- intervals

/// An INTERVAL as MariaDB holds it: months, and (micro)seconds, with a sign.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Interval {
    neg: bool,
    months: u64,
    micros: u128,
}

/// The parts of a compound unit, largest first, and whether the last is
/// a fraction of a second (its digits are scaled to microseconds).
fn unit_parts(unit: &str) -> Option<(&'static [u64], bool)> {
    // Each part's size in microseconds (months are counted apart: 0 here).
    const US: u64 = 1;
    const S: u64 = 1_000_000;
    const MI: u64 = 60 * S;
    const H: u64 = 60 * MI;
    const D: u64 = 24 * H;
    Some(match unit {
        "YEAR_MONTH" => (&[0, 0], false),
        "DAY_HOUR" => (&[D, H], false),
        "DAY_MINUTE" => (&[D, H, MI], false),
        "DAY_SECOND" => (&[D, H, MI, S], false),
        "DAY_MICROSECOND" => (&[D, H, MI, S, US], true),
        "HOUR_MINUTE" => (&[H, MI], false),
        "HOUR_SECOND" => (&[H, MI, S], false),
        "HOUR_MICROSECOND" => (&[H, MI, S, US], true),
        "MINUTE_SECOND" => (&[MI, S], false),
        "MINUTE_MICROSECOND" => (&[MI, S, US], true),
        "SECOND_MICROSECOND" => (&[S, US], true),
        _ => return None,
    })
}

/// The numbers of a compound interval's text (`'1 1:1:1'`, `'-10000 99:99'`):
/// any non-digits separate them; fewer than `n` are the last ones. None for
/// a text with something after its last number, or a number past u64.
fn interval_numbers(s: &str, n: usize, fraction_last: bool) -> Option<(bool, Vec<u64>)> {
    let b = s.trim_start().as_bytes();
    let (neg, b) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    let mut i = 0;
    while i < b.len() && !b[i].is_ascii_digit() {
        i += 1;
    }
    let mut vals = Vec::with_capacity(n);
    let mut last_digits = 0;
    while vals.len() < n {
        let from = i;
        let mut v: u64 = 0;
        while i < b.len() && b[i].is_ascii_digit() {
            v = v.checked_mul(10)?.checked_add(u64::from(b[i] - b'0'))?;
            i += 1;
        }
        last_digits = i - from;
        vals.push(v);
        while i < b.len() && !b[i].is_ascii_digit() {
            i += 1;
        }
        if i == b.len() {
            break;
        }
    }
    if i != b.len() {
        return None;
    }
    let mut out = vec![0; n - vals.len()];
    out.extend(vals);
    if fraction_last && last_digits > 0 && last_digits < 6 {
        out[n - 1] = out[n - 1].checked_mul(10u64.pow(6 - last_digits as u32))?;
    }
    Some((neg, out))
}

/// INTERVAL `v` `unit` (None: a value MariaDB refuses, the result is NULL).
fn interval(v: ValueRef<'_>, unit: &str, c: &Counters) -> Option<Interval> {
    let unit = unit.strip_prefix("SQL_TSI_").unwrap_or(unit);
    if let Some((parts, fraction)) = unit_parts(unit) {
        let text = match v {
            ValueRef::Null => return None,
            ValueRef::Integer(i) => i.to_string(),
            ValueRef::Real(f) => turnstile_wire::value::format_float(f),
            ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        };
        let (neg, nums) = interval_numbers(&text, parts.len(), fraction)?;
        if unit == "YEAR_MONTH" {
            return Some(Interval { neg, months: nums[0].checked_mul(12)?.checked_add(nums[1])?, micros: 0 });
        }
        let micros = parts.iter().zip(&nums).map(|(p, n)| u128::from(*p) * u128::from(*n)).sum();
        return Some(Interval { neg, months: 0, micros });
    }
    // A simple unit: an integer (rounded), SECOND keeps a fraction.
    let (neg, whole, frac_us) = match v {
        ValueRef::Null => return None,
        ValueRef::Integer(i) => (i < 0, u128::from(i.unsigned_abs()), 0u128),
        ValueRef::Real(f) if f.is_finite() => {
            let a = f.abs();
            if unit == "SECOND" {
                let us = (a * 1e6).round();
                if us >= 1e30 {
                    return None;
                }
                (f < 0.0, us as u128 / 1_000_000, us as u128 % 1_000_000)
            } else {
                let r = a.round();
                if r >= 1e30 {
                    return None;
                }
                (f < 0.0, r as u128, 0)
            }
        }
        ValueRef::Real(_) => return None,
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let s = String::from_utf8_lossy(t);
            let n = turnstile_wire::value::parse_number_prefix(s.as_bytes());
            if n.is_none() || s.trim() != s.trim_end_matches(|ch: char| !ch.is_ascii_digit() && ch != '.') {
                c.raise(Level::Warning, 1292, format!("Truncated incorrect INTEGER value: '{}'", turnstile_sqltext::time_read::shown_text(&s)));
            }
            let f = n.unwrap_or(0.0);
            return interval(ValueRef::Real(if unit == "SECOND" { f } else { f.trunc() }), unit, c);
        }
    };
    let (months, per_us): (u128, u128) = match unit {
        "MICROSECOND" => (0, 1),
        "SECOND" => (0, 1_000_000),
        "MINUTE" => (0, 60_000_000),
        "HOUR" => (0, 3_600_000_000),
        "DAY" => (0, 86_400_000_000),
        "WEEK" => (0, 7 * 86_400_000_000),
        "MONTH" => (1, 0),
        "QUARTER" => (3, 0),
        "YEAR" => (12, 0),
        _ => return None,
    };
    if months > 0 {
        let m = whole.checked_mul(months)?;
        return Some(Interval { neg, months: u64::try_from(m).ok()?, micros: 0 });
    }
    Some(Interval { neg, months: 0, micros: whole.checked_mul(per_us)?.checked_add(frac_us)? })
}

/// Whether a unit moves only whole days or months (a DATE stays a DATE).
fn date_only(unit: &str) -> bool {
    matches!(unit.strip_prefix("SQL_TSI_").unwrap_or(unit), "DAY" | "WEEK" | "MONTH" | "QUARTER" | "YEAR" | "YEAR_MONTH")
}

/// `t` moved by `iv`; None past 0000..9999 (MariaDB's 1441 "datetime field overflow").
fn add(t: &Tm, iv: &Interval) -> Option<Tm> {
    let y = i64::from(t.year);
    if iv.months > 0 {
        let months = i128::from(iv.months) * if iv.neg { -1 } else { 1 };
        let total = i128::from(y) * 12 + i128::from(t.month) - 1 + months;
        if !(0..=9999 * 12 + 11).contains(&total) {
            return None;
        }
        let (ny, nm) = ((total / 12) as i64, (total % 12 + 1) as i64);
        let day = i64::from(t.day).min(days_in_month(ny, nm));
        return Some(Tm { year: ny as u32, month: nm as u32, day: day as u32, ..*t });
    }
    let start = (i128::from(civil_days(t)) * 86_400 + i128::from(clock_secs(t))) * 1_000_000 + i128::from(t.micro);
    let delta = i128::try_from(iv.micros).ok()?;
    let us = if iv.neg { start.checked_sub(delta)? } else { start.checked_add(delta)? };
    let (days, rem) = (us.div_euclid(86_400_000_000), us.rem_euclid(86_400_000_000) as i64);
    if !(i128::from(FIRST_DAYNR)..=i128::from(LAST_DAYNR)).contains(&days) {
        return None;
    }
    let (ny, nm, nd) = civil_from_days(days as i64 - 719_528);
    Some(Tm {
        year: ny as u32,
        month: nm as u32,
        day: nd as u32,
        hour: (rem / 3_600_000_000) as u32,
        minute: (rem / 60_000_000 % 60) as u32,
        second: (rem / 1_000_000 % 60) as u32,
        micro: (rem % 1_000_000) as u32,
        ..*t
    })
}

/// Fractional digits an interval value shows (MariaDB's result decimals):
/// a text 6, a real as many as it prints, an integer none.
fn interval_digits(v: ValueRef<'_>, unit: &str) -> usize {
    let unit = unit.strip_prefix("SQL_TSI_").unwrap_or(unit);
    if unit == "MICROSECOND" || unit.ends_with("_MICROSECOND") {
        return 6;
    }
    if unit != "SECOND" {
        return 0;
    }
    match v {
        ValueRef::Real(f) => turnstile_wire::value::format_float(f).split_once('.').map_or(1, |(_, d)| d.len().min(6)),
        ValueRef::Text(_) | ValueRef::Blob(_) => 6,
        _ => 0,
    }
}

/// Fractional digits of a text argument (`'... 00:00:00.12'` → 2).
fn text_digits(v: ValueRef<'_>) -> usize {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => turnstile_sqltext::temporal_cast::fraction_digits(&String::from_utf8_lossy(t)) as usize,
        ValueRef::Real(_) => 6,
        _ => 0,
    }
}

fn show(t: &Tm, date: bool, digits: usize) -> String {
    let mut s = format!("{:04}-{:02}-{:02}", t.year, t.month, t.day);
    if !date {
        s.push_str(&format!(" {:02}:{:02}:{:02}", t.hour, t.minute, t.second));
        if digits > 0 {
            s.push_str(&format!(".{:06}", t.micro)[..digits + 1]);
        }
    }
    s
}

/// DATE_ADD(d, v, 'UNIT') and the like, `sign` -1 for DATE_SUB.
fn date_add(ctx: &Context<'_>, c: &Counters, d_at: usize, v_at: usize, unit: &str, sign: bool) -> SV {
    let Some(t) = date_arg(ctx, d_at, c, DateRule::REAL) else { return SV::Null };
    let Some(mut iv) = interval(ctx.get_raw(v_at), unit, c) else { return SV::Null };
    iv.neg ^= sign;
    let Some(r) = add(&t, &iv) else {
        c.raise(Level::Warning, 1441, "Datetime function: datetime field overflow".into());
        return SV::Null;
    };
    let date = t.kind == Kind::Date && date_only(unit) && r.hour == 0 && r.minute == 0 && r.second == 0 && r.micro == 0;
    let digits = text_digits(ctx.get_raw(d_at)).max(interval_digits(ctx.get_raw(v_at), unit)).min(6);
    SV::Text(show(&r, date, digits))
}

/// A TIME moved by an INTERVAL (`ts_time_add(t, n, 'UNIT')`): a TIME, NULL
/// with 1441 past ±838:59:59 or for a unit of months.
fn time_add(ctx: &Context<'_>, c: &Counters, sub: bool) -> SV {
    let unit = unit_arg(ctx, 2);
    let Some(t) = time_arg(ctx, 0, c) else { return SV::Null };
    let Some(mut iv) = interval(ctx.get_raw(1), &unit, c) else { return SV::Null };
    iv.neg ^= sub;
    let us = |t: &Tm| (i128::from(t.hour) * 3600 + i128::from(t.minute) * 60 + i128::from(t.second)) * 1_000_000 + i128::from(t.micro);
    let start = if t.neg && t.kind == Kind::Time { -us(&t) } else { us(&t) };
    let delta = i128::try_from(iv.micros).unwrap_or(i128::MAX);
    let total = if iv.neg { start.saturating_sub(delta) } else { start.saturating_add(delta) };
    let max = i128::from(TIME_MAX_SECS) * 1_000_000 + 999_999;
    if iv.months > 0 || total.abs() > max {
        c.raise(Level::Warning, 1441, "Datetime function: time field overflow".into());
        return SV::Null;
    }
    let a = total.unsigned_abs();
    let digits = text_digits(ctx.get_raw(0)).max(interval_digits(ctx.get_raw(1), &unit)).min(6) as u32;
    SV::Text(show_time(total < 0, (a / 1_000_000) as u64, (a % 1_000_000) as u32, digits))
}

fn unit_arg(ctx: &Context<'_>, i: usize) -> String {
    super::targ(ctx, i).unwrap_or_default().to_ascii_uppercase()
}

fn intervals(db: &Connection, c: &Arc<Counters>) -> rusqlite::Result<()> {
    for (name, sub) in [("date_add", false), ("adddate", false), ("date_sub", true), ("subdate", true)] {
        let c = c.clone();
        db.create_scalar_function(name, -1, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |ctx| {
            need(ctx, 2, name)?;
            let unit = if ctx.len() > 2 { unit_arg(ctx, 2) } else { "DAY".into() };
            Ok(date_add(ctx, &c, 0, 1, &unit, sub))
        })?;
    }
    for (name, sub) in [("ts_time_add", false), ("ts_time_sub", true)] {
        let c = c.clone();
        db.create_scalar_function(name, 3, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |ctx| Ok(time_add(ctx, &c, sub)))?;
    }
    reg(db, c, "timestampadd", 3, |ctx, c| Ok(date_add(ctx, c, 2, 1, &unit_arg(ctx, 0), false)))?;
    reg(db, c, "timestampdiff", 3, |ctx, c| {
        let unit = unit_arg(ctx, 0);
        let unit = unit.strip_prefix("SQL_TSI_").unwrap_or(&unit).to_string();
        let a = date_arg(ctx, 1, c, DateRule::REAL);
        let b = date_arg(ctx, 2, c, DateRule::REAL);
        let (Some(a), Some(b)) = (a, b) else { return Ok(SV::Null) };
        Ok(timestampdiff(&unit, &a, &b).map_or(SV::Null, SV::Integer))
    })?;
    reg(db, c, "ts_extract", 2, |ctx, c| {
        let unit = unit_arg(ctx, 0);
        Ok(extract(ctx, c, &unit))
    })?;
    Ok(())
}

fn timestampdiff(unit: &str, a: &Tm, b: &Tm) -> Option<i64> {
    let micros = |t: &Tm| (i128::from(civil_days(t)) * 86_400 + i128::from(clock_secs(t))) * 1_000_000 + i128::from(t.micro);
    let us = micros(b) - micros(a);
    let months = || {
        let (early, late, sign) = if us >= 0 { (a, b, 1) } else { (b, a, -1) };
        let mut m = (i64::from(late.year) - i64::from(early.year)) * 12 + i64::from(late.month) - i64::from(early.month);
        let rest = |t: &Tm| (t.day, t.hour, t.minute, t.second, t.micro);
        if rest(late) < rest(early) {
            m -= 1;
        }
        sign * m
    };
    let per = |d: i128| (us / d) as i64;
    Some(match unit {
        "MICROSECOND" => per(1),
        "SECOND" => per(1_000_000),
        "MINUTE" => per(60_000_000),
        "HOUR" => per(3_600_000_000),
        "DAY" => per(86_400_000_000),
        "WEEK" => per(7 * 86_400_000_000),
        "MONTH" => months(),
        "QUARTER" => months() / 3,
        "YEAR" => months() / 12,
        _ => return None,
    })
}

/// EXTRACT(unit FROM x): a time unit of a TIME keeps its days in the hours
/// (`DAY` of `'1 02:00:00'` is 1, `HOUR` 2).
fn extract(ctx: &Context<'_>, c: &Counters, unit: &str) -> SV {
    let date_unit = matches!(unit, "YEAR" | "QUARTER" | "MONTH" | "WEEK" | "YEAR_MONTH");
    let how = if unit.starts_with("DAY") { TimeText::DelimitedOrDigits } else { TimeText::Delimited };
    // A date unit of what is no date but a time (a TIME column's
    // '838:59:59') is 0, as of MariaDB's TIME.
    let date_or_time = |v: Input<'_>| match read_datetime(v, DateRule::ANY) {
        Read { tm: None, .. } if read_time(v).tm.is_some() => Read { tm: read_time(v).tm.map(|t| Tm { year: 0, month: 0, day: 0, kind: Kind::Time, ..t }), warning: None },
        r => r,
    };
    let t = if date_unit { read_arg(ctx, 1, c, date_or_time) } else { read_arg(ctx, 1, c, |v| read_time_as(v, how)) };
    let Some(t) = t else { return SV::Null };
    let (day, hour) = if t.kind == Kind::Time { (i64::from(t.hour) / 24, i64::from(t.hour) % 24) } else { (i64::from(t.day), i64::from(t.hour)) };
    let (mi, s, us) = (i64::from(t.minute), i64::from(t.second), i64::from(t.micro));
    let v = match unit {
        "YEAR" | "QUARTER" | "MONTH" | "YEAR_MONTH" if t.kind == Kind::Time => 0,
        "YEAR" => i64::from(t.year),
        "QUARTER" => (i64::from(t.month) + 2) / 3,
        "MONTH" => i64::from(t.month),
        "WEEK" if t.kind == Kind::Time => 0,
        "WEEK" => super::ext::week(&dt_of(&t), 0, false).1,
        "YEAR_MONTH" => i64::from(t.year) * 100 + i64::from(t.month),
        "DAY" => day,
        "HOUR" => hour,
        "MINUTE" => mi,
        "SECOND" => s,
        "MICROSECOND" => us,
        "DAY_HOUR" => day * 100 + hour,
        "DAY_MINUTE" => (day * 100 + hour) * 100 + mi,
        "DAY_SECOND" => ((day * 100 + hour) * 100 + mi) * 100 + s,
        "DAY_MICROSECOND" => (((day * 100 + hour) * 100 + mi) * 100 + s) * 1_000_000 + us,
        "HOUR_MINUTE" => hour * 100 + mi,
        "HOUR_SECOND" => (hour * 100 + mi) * 100 + s,
        "HOUR_MICROSECOND" => ((hour * 100 + mi) * 100 + s) * 1_000_000 + us,
        "MINUTE_SECOND" => mi * 100 + s,
        "MINUTE_MICROSECOND" => (mi * 100 + s) * 1_000_000 + us,
        "SECOND_MICROSECOND" => s * 1_000_000 + us,
        _ => return SV::Null,
    };
    SV::Integer(if t.neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(sql: &str) -> (Option<String>, Vec<String>) {
        let db = Connection::open_in_memory().unwrap();
        let c = Arc::new(Counters::default());
        super::super::register(&db, c.clone(), None).unwrap();
        let v: SV = db.query_row(sql, [], |r| r.get(0)).unwrap();
        let v = match v {
            SV::Null => None,
            SV::Integer(i) => Some(i.to_string()),
            SV::Real(f) => Some(f.to_string()),
            SV::Text(t) => Some(t),
            SV::Blob(_) => Some("blob".into()),
        };
        (v, c.take_notes().0.into_iter().map(|w| format!("{} {}", w.code, w.message)).collect())
    }

    #[test]
    fn parts_read_as_mariadb() {
        assert_eq!(q("SELECT year('98-02-03')").0.as_deref(), Some("1998"));
        assert_eq!(q("SELECT quarter(980303)").0.as_deref(), Some("1"));
        assert_eq!(q("SELECT second(230322)").0.as_deref(), Some("22"));
        assert_eq!(q("SELECT quarter('0000-00-00')").0.as_deref(), Some("0"));
        assert_eq!(q("SELECT dayofyear('0000-00-00')"), (None, vec!["1292 Incorrect datetime value: '0000-00-00'".to_string()]));
        assert_eq!(q("SELECT hour('900:00:00')"), (Some("838".into()), vec!["1292 Truncated incorrect time value: '900:00:00'".to_string()]));
        assert_eq!(q("SELECT time_to_sec('15:12:22.5')").0.as_deref(), Some("54742.5"));
        assert_eq!(q("SELECT monthname('2024-00-05')"), (None, vec![]));
        assert_eq!(q("SELECT last_day('2024-02-00')").0.as_deref(), Some("2024-02-29"));
    }

    #[test]
    fn formats_as_mariadb() {
        assert_eq!(q("SELECT date_format('1998-12-31','%x-%v')").0.as_deref(), Some("1998-53"));
        assert_eq!(q("SELECT date_format('1999-01-01','%X-%V %U %u')").0.as_deref(), Some("1998-52 00 00"));
        assert_eq!(q("SELECT date_format('0000-00-11', '%W')").0, None);
        assert_eq!(q("SELECT date_format('0000-00-11', '%Y %d')").0.as_deref(), Some("0000 11"));
        assert_eq!(q("SELECT time_format(010203,'%H|%I|%k|%l|%i|%p|%r|%S|%T')").0.as_deref(), Some("01|01|1|1|02|AM|01:02:03 AM|03|01:02:03"));
        assert_eq!(q("SELECT time_format('100:00:00','%H %k %h')").0.as_deref(), Some("100 100 04"));
    }

    #[test]
    fn intervals_as_mariadb() {
        let a = |s: &str| q(&format!("SELECT {}", s)).0;
        assert_eq!(a("date_add('1997-12-31 23:59:59', '1:1', 'MINUTE_SECOND')").as_deref(), Some("1998-01-01 00:01:00"));
        assert_eq!(a("date_add('1997-12-31 23:59:59', '-100 1', 'YEAR_MONTH')").as_deref(), Some("1897-11-30 23:59:59"));
        assert_eq!(a("date_add('1997-12-31 23:59:59', ' -10000 99:99', 'DAY_MINUTE')").as_deref(), Some("1970-08-11 19:20:59"));
        assert_eq!(a("date_add('1000-01-01 00:00:00', '1.02', 'DAY_MICROSECOND')").as_deref(), Some("1000-01-01 00:00:01.020000"));
        assert_eq!(a("date_add('1997-12-31', '1 1', 'YEAR_MONTH')").as_deref(), Some("1999-01-31"));
        assert_eq!(a("date_add('2001-01-01 00:00:00.1', 1, 'SECOND')").as_deref(), Some("2001-01-01 00:00:01.1"));
        assert_eq!(a("date_add('2001-01-01 00:00:00', -1.1, 'SECOND')").as_deref(), Some("2000-12-31 23:59:58.9"));
        assert_eq!(a("date_add('0000-01-01', '3652423:23:59:59', 'DAY_SECOND')").as_deref(), Some("9999-12-31 23:59:59"));
        assert_eq!(q("SELECT date_add('9999-12-31', 1, 'DAY')"), (None, vec!["1441 Datetime function: datetime field overflow".to_string()]));
        assert_eq!(a("timestampdiff('SQL_TSI_WEEK', '2001-02-01', '2001-05-01')").as_deref(), Some("12"));
        assert_eq!(a("timestampdiff('MONTH', '2001-05-01', '2001-02-01')").as_deref(), Some("-3"));
        assert_eq!(a("ts_extract('DAY_MINUTE', '02 10:11:12')").as_deref(), Some("21011"));
        assert_eq!(a("ts_extract('HOUR_SECOND', '10:11:12')").as_deref(), Some("101112"));
        assert_eq!(q("SELECT sec_to_time(3300000)"), (Some("838:59:59".into()), vec!["1292 Truncated incorrect seconds value: '3300000'".to_string()]));
        assert_eq!(a("sec_to_time(9001.1)").as_deref(), Some("02:30:01.1"));
        assert_eq!(a("sec_to_time('9001.1')").as_deref(), Some("02:30:01.100000"));
        assert_eq!(a("sec_to_time(-9001)").as_deref(), Some("-02:30:01"));
        assert_eq!(q("SELECT maketime(916,0,0)"), (Some("838:59:59".into()), vec!["1292 Truncated incorrect time value: '916:00:00'".to_string()]));
        assert_eq!(a("maketime(900,0,0.1)").as_deref(), Some("838:59:59.9"));
        assert_eq!(a("maketime(1,60,0)"), None);
        assert_eq!(a("time_to_sec('916:40:00')").as_deref(), Some("3020399"));
        assert_eq!(a("time_to_sec(15.5566778899)").as_deref(), Some("15.556677"));
        assert_eq!(a("ts_tnum('1997-12-31')").as_deref(), Some("19971231"));
        assert_eq!(a("ts_time_add('26:03:04', 2, 'DAY')").as_deref(), Some("74:03:04"));
        assert_eq!(a("ts_time_sub('-26:03:04', 9, 'MICROSECOND')").as_deref(), Some("-26:03:04.000009"));
        assert_eq!(a("ts_time_sub('10:00:00', 11, 'HOUR')").as_deref(), Some("-01:00:00"));
        assert_eq!(q("SELECT ts_time_add('838:00:00', 1, 'HOUR')"), (None, vec!["1441 Datetime function: time field overflow".to_string()]));
        assert_eq!(a("ts_tcanon('10:20:31.000', 'time', 0)").as_deref(), Some("10:20:31"));
        assert_eq!(a("ts_tcanon('0000-00-01 10:20:30', 'time', 0)").as_deref(), Some("34:20:30"));
        assert_eq!(a("ts_tcanon('01-01-01', 'date', 0)").as_deref(), Some("2001-01-01"));
        assert_eq!(q("SELECT ts_tcanon(70, 'date', 0)"), (Some("0000-00-00".into()), vec!["1292 Truncated incorrect datetime value: '70'".to_string()]));
        assert_eq!(q("SELECT ts_tcanon('garbage', 'time', 0)"), (Some("00:00:00".into()), vec!["1292 Truncated incorrect time value: 'garbage'".to_string()]));
        assert_eq!(q("SELECT ts_tcanon('2005-09-31', 'date', 0)"), (Some("2005-09-31".into()), vec![]));
        assert_eq!(a("ts_tcanon('2001-1-1 10:00', 'date', 0)").as_deref(), Some("2001-01-01 10:00:00"));
        assert_eq!(a("ts_tcanon('2001-01-01 10:20:31.5', 'datetime', 3)").as_deref(), Some("2001-01-01 10:20:31.500"));
        assert_eq!(a("ts_tcmp('100:55:50', 'time', 1) > ts_tcmp('24:00:00', 'time', 1)").as_deref(), Some("1"));
        assert_eq!(a("ts_tnum('2001-01-02 10:20:30')").as_deref(), Some("20010102102030"));
        assert_eq!(a("ts_tnum('-838:59:59')").as_deref(), Some("-8385959"));
        assert_eq!(a("ts_tnum('02:30:01.5')").as_deref(), Some("23001.5"));
        assert_eq!(a("ts_tnum('abc')").as_deref(), Some("abc"));
    }
}
