//! More of MySQL's function library on a SQLite connection: JSON helpers
//! SQLite lacks or answers differently, strings, numbers, dates and times,
//! network addresses, regular expressions, and the STD/VARIANCE aggregates.
//!
//! Why a separate file: functions.rs holds the core set the hot paths and
//! the type system depend on (collation, CONCAT, dates as stored); these are
//! the long tail applications call. Each follows MySQL's documented result
//! for NULL and bad input (NULL, not an error, unless MySQL errors).

use super::bytes::{barg, need};
use super::{dt_arg, int, num, reg, targ, text, user_err, Dt, F};
use rusqlite::functions::{Aggregate, Context, FunctionFlags};
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::Connection;
use std::sync::atomic::{AtomicU64, Ordering};
use turnstile_sqltext::civil::{civil_from_days, days_from_civil, days_in_month};

pub fn register(db: &Connection) -> rusqlite::Result<()> {
    json(db)?;
    strings(db)?;
    numbers(db)?;
    dates(db)?;
    network(db)?;
    regexps(db)?;
    aggregates(db)
}

// ---------------------------------------------------------------- JSON

/// JSON_UNQUOTE (the other JSON functions are json_path.rs and json_doc.rs).
fn json(db: &Connection) -> rusqlite::Result<()> {
    reg(db, "json_unquote", 1, true, |ctx| {
        let Some(s) = targ(ctx, 0) else { return Ok(SV::Null) };
        if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
            return match serde_json::from_str::<String>(&s) {
                Ok(u) => Ok(SV::Text(u)),
                Err(_) => Err(user_err("ts:3141:Invalid JSON text in argument 1 to function json_unquote.".into())),
            };
        }
        Ok(SV::Text(s))
    })?;
    Ok(())
}

// ---------------------------------------------------------------- strings

fn strings(db: &Connection) -> rusqlite::Result<()> {
    reg(db, "ascii", 1, true, |ctx| Ok(targ(ctx, 0).map_or(SV::Null, |s| SV::Integer(s.bytes().next().map_or(0, i64::from)))))?;
    reg(db, "ord", 1, true, |ctx| {
        Ok(targ(ctx, 0).map_or(SV::Null, |s| {
            SV::Integer(s.chars().next().map_or(0, |c| {
                let mut buf = [0u8; 4];
                c.encode_utf8(&mut buf).bytes().fold(0i64, |acc, b| acc * 256 + i64::from(b))
            }))
        }))
    })?;
    reg(db, "strcmp", 2, true, |ctx| {
        let (Some(a), Some(b)) = (targ(ctx, 0), targ(ctx, 1)) else { return Ok(SV::Null) };
        Ok(SV::Integer(super::ci_compare(a.as_bytes(), b.as_bytes()) as i64))
    })?;
    reg(db, "bit_length", 1, true, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => SV::Null,
            ValueRef::Text(t) | ValueRef::Blob(t) => SV::Integer(t.len() as i64 * 8),
            v => SV::Integer(text(&v).map_or(0, |t| t.len() as i64 * 8)),
        })
    })?;
    // What the front (sql/collation_of.rs) could not tell from the text:
    // strings are utf8mb4 with the default collation here, blobs and
    // numbers binary; a string is a column's (implicit, 2), a number 5.
    fn binary(v: ValueRef<'_>) -> bool {
        matches!(v, ValueRef::Blob(_) | ValueRef::Integer(_) | ValueRef::Real(_))
    }
    reg(db, "charset", 1, true, |ctx| Ok(SV::Text(if binary(ctx.get_raw(0)) { "binary" } else { "utf8mb4" }.into())))?;
    reg(db, "collation", 1, true, |ctx| Ok(SV::Text(if binary(ctx.get_raw(0)) { "binary" } else { "utf8mb4_general_ci" }.into())))?;
    reg(db, "coercibility", 1, true, |ctx| Ok(SV::Integer(if matches!(ctx.get_raw(0), ValueRef::Integer(_) | ValueRef::Real(_)) { 5 } else { 2 })))?;
    reg(db, "make_set", -1, true, |ctx| {
        need(ctx, 1, "make_set")?;
        let Some(bits) = int(&ctx.get_raw(0)) else { return Ok(SV::Null) };
        let parts: Vec<String> = (1..ctx.len()).filter(|i| *i <= 64 && bits as u64 >> (i - 1) & 1 == 1).filter_map(|i| targ(ctx, i)).collect();
        if !super::fits(parts.iter().map(|p| p.len() + 1).sum()) {
            return Ok(SV::Null);
        }
        Ok(SV::Text(parts.join(",")))
    })?;
    Ok(())
}

// ---------------------------------------------------------------- numbers

fn numbers(db: &Connection) -> rusqlite::Result<()> {
    for (name, f) in [("asin", f64::asin as fn(f64) -> f64), ("acos", f64::acos)] {
        db.create_scalar_function(name, 1, FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC, move |ctx| {
            Ok(num(&ctx.get_raw(0)).map(f).filter(|r| r.is_finite()).map_or(SV::Null, SV::Real))
        })?;
    }
    let atan: F = |ctx| {
        need(ctx, 1, "atan")?;
        Ok(match ctx.len() {
            1 => num(&ctx.get_raw(0)).map_or(SV::Null, |x| SV::Real(x.atan())),
            _ => match (num(&ctx.get_raw(0)), num(&ctx.get_raw(1))) {
                (Some(y), Some(x)) => SV::Real(y.atan2(x)),
                _ => SV::Null,
            },
        })
    };
    reg(db, "atan", -1, true, atan)?;
    // INTERVAL(n, n1, n2, ...) (ts_interval, rewrite/interval.rs): how many
    // of n1, n2, ... before the first one above n (a NULL one is not above
    // it); -1 when n is NULL. As MariaDB answers for a sorted list.
    reg(db, "ts_interval", -1, true, |ctx| {
        need(ctx, 2, "interval")?;
        let Some(n) = num(&ctx.get_raw(0)) else { return Ok(SV::Integer(-1)) };
        let above = (1..ctx.len()).find(|&i| num(&ctx.get_raw(i)).is_some_and(|x| x > n));
        Ok(SV::Integer(above.unwrap_or(ctx.len()) as i64 - 1))
    })?;
    reg(db, "atan2", 2, true, atan)?;
    reg(db, "bit_count", 1, true, |ctx| Ok(int(&ctx.get_raw(0)).map_or(SV::Null, |n| SV::Integer(i64::from(n.count_ones())))))?;
    reg(db, "bin", 1, true, |ctx| Ok(int(&ctx.get_raw(0)).map_or(SV::Null, |n| SV::Text(format!("{:b}", n as u64)))))?;
    reg(db, "oct", 1, true, |ctx| Ok(int(&ctx.get_raw(0)).map_or(SV::Null, |n| SV::Text(format!("{:o}", n as u64)))))?;
    reg(db, "conv", 3, true, |ctx| {
        let (Some(s), Some(from), Some(to)) = (targ(ctx, 0), int(&ctx.get_raw(1)), int(&ctx.get_raw(2))) else { return Ok(SV::Null) };
        let (fb, tb) = (from.unsigned_abs() as u32, to.unsigned_abs() as u32);
        if !(2..=36).contains(&fb) || !(2..=36).contains(&tb) {
            return Ok(SV::Null);
        }
        let s = s.trim();
        let (neg, digits) = match s.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, s),
        };
        // MySQL reads the longest valid prefix.
        let valid: String = digits.chars().take_while(|c| c.is_digit(fb)).collect();
        let v = u64::from_str_radix(if valid.is_empty() { "0" } else { &valid }, fb).unwrap_or(u64::MAX);
        let v = if neg { v.wrapping_neg() } else { v };
        let (mut n, neg_out) = if to < 0 && (v as i64) < 0 { ((v as i64).unsigned_abs(), true) } else { (v, false) };
        let mut out = Vec::new();
        loop {
            out.push(std::char::from_digit((n % u64::from(tb)) as u32, tb).unwrap_or('0').to_ascii_uppercase());
            n /= u64::from(tb);
            if n == 0 {
                break;
            }
        }
        if neg_out {
            out.push('-');
        }
        Ok(SV::Text(out.iter().rev().collect()))
    })?;
    Ok(())
}

// ---------------------------------------------------------------- dates and times

/// MySQL's week number of `dt` for WEEK(date, mode), and the year the week
/// belongs to (YEARWEEK). `mode` as the user gives it (0..7); `year_mode`
/// forces week-of-its-own-year numbering as YEARWEEK does.
pub(super) fn week(dt: &Dt, mode: i64, year_mode: bool) -> (i64, i64) {
    // MySQL's week_mode(): bit 0 Monday first, bit 1 week year, bit 2 "first
    // weekday" rule, flipped when the week starts on Sunday.
    let mut behaviour = mode & 7;
    if behaviour & 1 == 0 {
        behaviour ^= 4;
    }
    if year_mode {
        behaviour |= 2;
    }
    let monday_first = behaviour & 1 != 0;
    let mut week_year = behaviour & 2 != 0;
    let first_weekday = behaviour & 4 != 0;
    let weekday_of = |daynr: i64| {
        let monday0 = (daynr + 3).rem_euclid(7);
        if monday_first {
            monday0
        } else {
            (monday0 + 1) % 7
        }
    };
    let days_in_year = |y: i64| days_from_civil(y + 1, 1, 1) - days_from_civil(y, 1, 1);
    let daynr = days_from_civil(dt.y, dt.mo, dt.d);
    let mut first = days_from_civil(dt.y, 1, 1);
    let mut weekday = weekday_of(first);
    let mut year = dt.y;
    let counts_as_first = |wd: i64| (first_weekday && wd != 0) || (!first_weekday && wd >= 4);
    if dt.mo == 1 && dt.d <= 7 - weekday {
        if !week_year && counts_as_first(weekday) {
            return (year, 0);
        }
        week_year = true;
        year -= 1;
        let n = days_in_year(year);
        first -= n;
        weekday = (weekday + 53 * 7 - n) % 7;
    }
    let days = if counts_as_first(weekday) { daynr - (first + (7 - weekday)) } else { daynr - (first - weekday) };
    if week_year && days >= 52 * 7 {
        let wd = (weekday + days_in_year(year)) % 7;
        if (!first_weekday && wd < 4) || (first_weekday && wd == 0) {
            return (year + 1, 1);
        }
    }
    (year, days / 7 + 1)
}

/// Seconds of a TIME or DATETIME text ('[-][D ]HH:MM:SS[.f]').
fn time_seconds(s: &str) -> Option<f64> {
    let s = s.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (days, t) = match body.split_once(' ') {
        // a DATETIME: its time of day
        Some((d, t)) if d.contains('-') => (0.0, t),
        // 'D HH:MM:SS'
        Some((d, t)) => (d.parse::<f64>().ok()?, t),
        None => (0.0, body),
    };
    let (_, h, m, sec, us) = turnstile_sqltext::temporal::parse_time(t)?;
    let v = days * 86400.0 + (h as f64) * 3600.0 + (m as f64) * 60.0 + sec as f64 + us as f64 / 1e6;
    Some(if neg { -v } else { v })
}

/// STR_TO_DATE(s, fmt): the value MySQL would build, as DATE, TIME or DATETIME text.
fn str_to_date(s: &str, fmt: &str) -> Option<String> {
    let (mut y, mut mo, mut d, mut h, mut mi, mut sec, mut us) = (0i64, 0i64, 0i64, 0i64, 0i64, 0i64, 0i64);
    let (mut has_date, mut has_time, mut pm) = (false, false, None);
    let b = s.as_bytes();
    let mut i = 0;
    let num = |i: &mut usize, max: usize| -> Option<i64> {
        let start = *i;
        while *i < b.len() && *i - start < max && b[*i].is_ascii_digit() {
            *i += 1;
        }
        if *i == start {
            return None;
        }
        s[start..*i].parse().ok()
    };
    let word = |i: &mut usize, names: &[&str], short: bool| -> Option<i64> {
        for (k, n) in names.iter().enumerate() {
            let cand = if short { &n[..3] } else { n };
            if b.get(*i..*i + cand.len()).is_some_and(|w| w.eq_ignore_ascii_case(cand.as_bytes())) {
                *i += cand.len();
                return Some(k as i64);
            }
        }
        None
    };
    let mut it = fmt.chars().peekable();
    while let Some(c) = it.next() {
        if c != '%' {
            if c.is_whitespace() {
                while i < b.len() && b[i].is_ascii_whitespace() {
                    i += 1;
                }
            } else {
                if i >= b.len() || b[i] as char != c {
                    return None;
                }
                i += 1;
            }
            continue;
        }
        match it.next()? {
            'Y' => {
                y = num(&mut i, 4)?;
                has_date = true;
            }
            'y' => {
                let v = num(&mut i, 2)?;
                y = if v < 70 { 2000 + v } else { 1900 + v };
                has_date = true;
            }
            'm' | 'c' => {
                mo = num(&mut i, 2)?;
                has_date = true;
            }
            'd' | 'e' => {
                d = num(&mut i, 2)?;
                has_date = true;
            }
            'H' | 'k' => {
                h = num(&mut i, 2)?;
                has_time = true;
            }
            'h' | 'I' | 'l' => {
                h = num(&mut i, 2)?;
                has_time = true;
            }
            'i' => {
                mi = num(&mut i, 2)?;
                has_time = true;
            }
            's' | 'S' => {
                sec = num(&mut i, 2)?;
                has_time = true;
            }
            'f' => {
                let start = i;
                let v = num(&mut i, 6)?;
                us = v * 10i64.pow(6 - (i - start) as u32);
                has_time = true;
            }
            'p' => {
                pm = Some(word(&mut i, &["AM", "PM"], false)? == 1);
            }
            'M' => {
                mo = word(&mut i, &super::MONTHS, false)? + 1;
                has_date = true;
            }
            'b' => {
                mo = word(&mut i, &super::MONTHS, true)? + 1;
                has_date = true;
            }
            'W' => {
                word(&mut i, &super::DAYS, false)?;
            }
            'a' => {
                word(&mut i, &super::DAYS, true)?;
            }
            'T' => {
                h = num(&mut i, 2)?;
                (b.get(i) == Some(&b':')).then_some(())?;
                i += 1;
                mi = num(&mut i, 2)?;
                (b.get(i) == Some(&b':')).then_some(())?;
                i += 1;
                sec = num(&mut i, 2)?;
                has_time = true;
            }
            '%' => {
                (b.get(i) == Some(&b'%')).then_some(())?;
                i += 1;
            }
            _ => return None,
        }
    }
    if let Some(p) = pm {
        if !(1..=12).contains(&h) {
            return None;
        }
        h = h % 12 + if p { 12 } else { 0 };
    }
    if mo > 12 || d > 31 || h > 23 || mi > 59 || sec > 59 || (mo > 0 && d > days_in_month(y, mo)) {
        return None;
    }
    let date = format!("{:04}-{:02}-{:02}", y, mo, d);
    let mut time = format!("{:02}:{:02}:{:02}", h, mi, sec);
    if us > 0 {
        time.push_str(&format!(".{:06}", us));
    }
    Some(match (has_date, has_time) {
        (true, true) => format!("{} {}", date, time),
        (false, true) => time,
        _ => date,
    })
}

fn tz_offset_secs(tz: &str) -> Option<i64> {
    let t = tz.trim();
    if t.eq_ignore_ascii_case("UTC") || t.eq_ignore_ascii_case("GMT") || t.eq_ignore_ascii_case("SYSTEM") {
        // The server runs in UTC (time_zone = SYSTEM = UTC here).
        return Some(0);
    }
    let (sign, rest) = match t.as_bytes().first()? {
        b'+' => (1, &t[1..]),
        b'-' => (-1, &t[1..]),
        _ => return None,
    };
    let (h, m) = rest.split_once(':')?;
    let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    if h > 14 || m > 59 {
        return None;
    }
    Some(sign * (h * 3600 + m * 60))
}

fn dates(db: &Connection) -> rusqlite::Result<()> {
    reg(db, "str_to_date", 2, true, |ctx| {
        let (Some(s), Some(f)) = (targ(ctx, 0), targ(ctx, 1)) else { return Ok(SV::Null) };
        Ok(str_to_date(&s, &f).map_or(SV::Null, SV::Text))
    })?;
    reg(db, "from_days", 1, true, |ctx| {
        Ok(int(&ctx.get_raw(0)).map_or(SV::Null, |n| {
            if n < 366 {
                return SV::Text("0000-00-00".into());
            }
            let (y, m, d) = civil_from_days(n - 719528);
            SV::Text(format!("{:04}-{:02}-{:02}", y, m, d))
        }))
    })?;
    reg(db, "makedate", 2, true, |ctx| {
        let (Some(y), Some(doy)) = (int(&ctx.get_raw(0)), int(&ctx.get_raw(1))) else { return Ok(SV::Null) };
        // Past year 9999 either way: NULL (and no overflow on the way).
        if doy < 1 || !(0..=9999).contains(&y) || doy > 3_660_000 {
            return Ok(SV::Null);
        }
        let y = if (0..70).contains(&y) {
            y + 2000
        } else if (70..100).contains(&y) {
            y + 1900
        } else {
            y
        };
        let (yy, m, d) = civil_from_days(days_from_civil(y, 1, 1) + doy - 1);
        Ok(if yy > 9999 { SV::Null } else { SV::Text(format!("{:04}-{:02}-{:02}", yy, m, d)) })
    })?;
    reg(db, "period_diff", 2, true, |ctx| {
        let (Some(a), Some(b)) = (int(&ctx.get_raw(0)), int(&ctx.get_raw(1))) else { return Ok(SV::Null) };
        // In i128: no overflow for any BIGINT period (the result wraps as MySQL's does).
        let months = |p: i64| {
            let (y, m) = ((p / 100) as i128, (p % 100) as i128);
            let y = if y < 70 {
                y + 2000
            } else if y < 100 {
                y + 1900
            } else {
                y
            };
            y * 12 + m - 1
        };
        Ok(SV::Integer((months(a) - months(b)) as i64))
    })?;
    reg(db, "period_add", 2, true, |ctx| {
        let (Some(p), Some(n)) = (int(&ctx.get_raw(0)), int(&ctx.get_raw(1))) else { return Ok(SV::Null) };
        let (y, m) = ((p / 100) as i128, (p % 100) as i128);
        let y = if y < 70 {
            y + 2000
        } else if y < 100 {
            y + 1900
        } else {
            y
        };
        let t = y * 12 + m - 1 + n as i128;
        Ok(SV::Integer((t.div_euclid(12) * 100 + t.rem_euclid(12) + 1) as i64))
    })?;
    reg(db, "timestamp", -1, true, |ctx| {
        need(ctx, 1, "timestamp")?;
        let Some(dt) = dt_arg(ctx, 0) else { return Ok(SV::Null) };
        let add = if ctx.len() > 1 { targ(ctx, 1).and_then(|t| time_seconds(&t)).unwrap_or(0.0) } else { 0.0 };
        let r = Dt::from_epoch_micros(dt.epoch_micros() + (add * 1e6).round() as i64);
        Ok(SV::Text(r.fmt_datetime(if r.us > 0 { 6 } else { 0 })))
    })?;
    reg(db, "convert_tz", 3, true, |ctx| {
        let (Some(dt), Some(from), Some(to)) = (dt_arg(ctx, 0), targ(ctx, 1), targ(ctx, 2)) else { return Ok(SV::Null) };
        // Named zones need MySQL's time zone tables; like MySQL without them, NULL.
        let (Some(f), Some(t)) = (tz_offset_secs(&from), tz_offset_secs(&to)) else { return Ok(SV::Null) };
        let r = Dt::from_epoch_micros(dt.epoch_micros() + (t - f) * 1_000_000);
        Ok(SV::Text(r.fmt_datetime(if r.us > 0 { 6 } else { 0 })))
    })?;
    Ok(())
}

// ---------------------------------------------------------------- network, ids

fn network(db: &Connection) -> rusqlite::Result<()> {
    use std::net::{Ipv4Addr, Ipv6Addr};
    reg(db, "inet_aton", 1, true, |ctx| {
        let Some(s) = targ(ctx, 0) else { return Ok(SV::Null) };
        Ok(s.trim().parse::<Ipv4Addr>().map_or(SV::Null, |a| SV::Integer(i64::from(u32::from(a)))))
    })?;
    reg(db, "inet_ntoa", 1, true, |ctx| Ok(int(&ctx.get_raw(0)).filter(|n| (0..=u32::MAX as i64).contains(n)).map_or(SV::Null, |n| SV::Text(Ipv4Addr::from(n as u32).to_string()))))?;
    reg(db, "is_ipv4", 1, true, |ctx| Ok(SV::Integer(targ(ctx, 0).is_some_and(|s| s.parse::<Ipv4Addr>().is_ok()) as i64)))?;
    reg(db, "is_ipv6", 1, true, |ctx| Ok(SV::Integer(targ(ctx, 0).is_some_and(|s| s.parse::<Ipv6Addr>().is_ok()) as i64)))?;
    reg(db, "inet6_aton", 1, true, |ctx| {
        let Some(s) = targ(ctx, 0) else { return Ok(SV::Null) };
        Ok(if let Ok(a) = s.parse::<Ipv4Addr>() {
            SV::Blob(a.octets().to_vec())
        } else if let Ok(a) = s.parse::<Ipv6Addr>() {
            SV::Blob(a.octets().to_vec())
        } else {
            SV::Null
        })
    })?;
    reg(db, "inet6_ntoa", 1, true, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Blob(b) | ValueRef::Text(b) if b.len() == 4 => SV::Text(Ipv4Addr::new(b[0], b[1], b[2], b[3]).to_string()),
            ValueRef::Blob(b) | ValueRef::Text(b) if b.len() == 16 => {
                let mut o = [0u8; 16];
                o.copy_from_slice(b);
                SV::Text(Ipv6Addr::from(o).to_string())
            }
            _ => SV::Null,
        })
    })?;
    reg(db, "is_uuid", 1, true, |ctx| {
        Ok(targ(ctx, 0).map_or(SV::Null, |s| {
            let t = s.trim_start_matches('{').trim_end_matches('}');
            let hex: String = t.chars().filter(|c| *c != '-').collect();
            let dashed_ok = !t.contains('-') || t.split('-').map(str::len).eq([8, 4, 4, 4, 12]);
            SV::Integer((hex.len() == 32 && hex.chars().all(|c| c.is_ascii_hexdigit()) && dashed_ok) as i64)
        }))
    })?;
    // UUID_SHORT(): (server_id & 255) << 56 | start-up seconds << 24, plus a counter (MySQL's scheme).
    static SHORT: AtomicU64 = AtomicU64::new(0);
    let _ = SHORT.compare_exchange(0, (turnstile_engine::clock::system_now_micros() as u64 / 1_000_000) << 24, Ordering::Relaxed, Ordering::Relaxed);
    reg(db, "uuid_short", 0, false, |_| Ok(SV::Integer((SHORT.fetch_add(1, Ordering::Relaxed) & (i64::MAX as u64)) as i64)))?;
    Ok(())
}

// ---------------------------------------------------------------- regular expressions

fn regex_arg(ctx: &Context<'_>, pat_at: usize, flags_at: Option<usize>) -> rusqlite::Result<Option<std::sync::Arc<regex::Regex>>> {
    let Some(pat) = targ(ctx, pat_at) else { return Ok(None) };
    let mut ci = true;
    if let Some(f) = flags_at.filter(|f| ctx.len() > *f).and_then(|f| targ(ctx, f)) {
        for c in f.chars() {
            match c {
                'c' => ci = false,
                'i' => ci = true,
                'm' | 'n' | 'u' => {}
                _ => return Err(user_err("ts:3685:Illegal argument to a regular expression.".into())),
            }
        }
    }
    let re = ctx.get_or_create_aux(pat_at as std::os::raw::c_int, |_| {
        regex::RegexBuilder::new(&pat).case_insensitive(ci).size_limit(1 << 20).build().map_err(|e| user_err(format!("ts:3685:Illegal argument to a regular expression: {}", e)))
    })?;
    Ok(Some(re))
}

fn regexps(db: &Connection) -> rusqlite::Result<()> {
    reg(db, "regexp_like", -1, true, |ctx| {
        need(ctx, 2, "regexp_like")?;
        let Some(s) = targ(ctx, 0) else { return Ok(SV::Null) };
        Ok(regex_arg(ctx, 1, Some(2))?.map_or(SV::Null, |re| SV::Integer(re.is_match(&s) as i64)))
    })?;
    reg(db, "regexp_instr", -1, true, |ctx| {
        need(ctx, 2, "regexp_instr")?;
        let Some(s) = targ(ctx, 0) else { return Ok(SV::Null) };
        Ok(regex_arg(ctx, 1, None)?.map_or(SV::Null, |re| SV::Integer(re.find(&s).map_or(0, |m| s[..m.start()].chars().count() as i64 + 1))))
    })?;
    reg(db, "regexp_substr", -1, true, |ctx| {
        need(ctx, 2, "regexp_substr")?;
        let Some(s) = targ(ctx, 0) else { return Ok(SV::Null) };
        Ok(regex_arg(ctx, 1, None)?.map_or(SV::Null, |re| re.find(&s).map_or(SV::Null, |m| SV::Text(m.as_str().to_string()))))
    })?;
    reg(db, "regexp_replace", -1, true, |ctx| {
        need(ctx, 3, "regexp_replace")?;
        let (Some(s), Some(r)) = (targ(ctx, 0), targ(ctx, 2)) else { return Ok(SV::Null) };
        // MySQL's $1 / \1 references: the regex crate reads ${1}.
        let r = r.replace('\\', "$");
        Ok(regex_arg(ctx, 1, None)?.map_or(SV::Null, |re| {
            // Built match by match, and given up (NULL) once past the limit.
            let mut out = String::new();
            let mut last = 0;
            for caps in re.captures_iter(&s) {
                let m = caps.get(0).expect("group 0 is the match");
                out.push_str(&s[last..m.start()]);
                caps.expand(&r, &mut out);
                last = m.end();
                if !super::fits(out.len()) {
                    return SV::Null;
                }
            }
            out.push_str(&s[last..]);
            if super::fits(out.len()) {
                SV::Text(out)
            } else {
                SV::Null
            }
        }))
    })?;
    Ok(())
}

// ---------------------------------------------------------------- aggregates

/// STD/STDDEV/STDDEV_POP/STDDEV_SAMP/VARIANCE/VAR_POP/VAR_SAMP (Welford's method).
struct Spread {
    sample: bool,
    sqrt: bool,
}

impl Aggregate<(u64, f64, f64), Option<f64>> for Spread {
    fn init(&self, _: &mut Context<'_>) -> rusqlite::Result<(u64, f64, f64)> {
        Ok((0, 0.0, 0.0))
    }
    fn step(&self, ctx: &mut Context<'_>, acc: &mut (u64, f64, f64)) -> rusqlite::Result<()> {
        if let Some(x) = num(&ctx.get_raw(0)) {
            acc.0 += 1;
            let d = x - acc.1;
            acc.1 += d / acc.0 as f64;
            acc.2 += d * (x - acc.1);
        }
        Ok(())
    }
    fn finalize(&self, _: &mut Context<'_>, acc: Option<(u64, f64, f64)>) -> rusqlite::Result<Option<f64>> {
        let Some((n, _, m2)) = acc else { return Ok(None) };
        let div = if self.sample { n.saturating_sub(1) } else { n };
        if div == 0 {
            return Ok(None);
        }
        let v = m2 / div as f64;
        Ok(Some(if self.sqrt { v.sqrt() } else { v }))
    }
}

/// GROUP_CONCAT(DISTINCT e SEPARATOR s) (rewrite.rs): distinct values in
/// arrival order (SQLite feeds them in the call's ORDER BY order).
struct ConcatDistinct;

type Distinct = (Vec<Vec<u8>>, Option<Vec<u8>>);

impl Aggregate<Distinct, Option<super::Out>> for ConcatDistinct {
    fn init(&self, _: &mut Context<'_>) -> rusqlite::Result<Distinct> {
        Ok((Vec::new(), None))
    }
    fn step(&self, ctx: &mut Context<'_>, acc: &mut Distinct) -> rusqlite::Result<()> {
        if acc.1.is_none() {
            acc.1 = Some(barg(ctx, 1).map(|s| s.into_owned()).unwrap_or_default());
        }
        if let Some(v) = barg(ctx, 0) {
            if !acc.0.iter().any(|s| super::ci_compare(s, &v) == std::cmp::Ordering::Equal) {
                acc.0.push(v.into_owned());
            }
        }
        Ok(())
    }
    fn finalize(&self, _: &mut Context<'_>, acc: Option<Distinct>) -> rusqlite::Result<Option<super::Out>> {
        Ok(acc.filter(|a| !a.0.is_empty()).map(|(v, sep)| super::Out::Bytes(v.join(sep.as_deref().unwrap_or(b",")))))
    }
}

/// `ts_one(v)`: the only value of a scalar subquery (rewrite/subquery.rs),
/// NULL for none; the second row fails with 1242 at once.
struct One;

impl Aggregate<Option<super::Out>, super::Out> for One {
    fn init(&self, _: &mut Context<'_>) -> rusqlite::Result<Option<super::Out>> {
        Ok(None)
    }
    fn step(&self, ctx: &mut Context<'_>, acc: &mut Option<super::Out>) -> rusqlite::Result<()> {
        if acc.is_some() {
            return Err(user_err("ts:1242:".to_string()));
        }
        // Text as its bytes: a binary column's value need not be UTF-8.
        *acc = Some(match ctx.get_raw(0) {
            ValueRef::Text(t) => super::Out::Bytes(t.to_vec()),
            other => super::Out::Val(other.into()),
        });
        Ok(())
    }
    fn finalize(&self, _: &mut Context<'_>, acc: Option<Option<super::Out>>) -> rusqlite::Result<super::Out> {
        Ok(acc.flatten().unwrap_or(super::Out::Val(SV::Null)))
    }
}

/// `ts_any(c)` / `ts_all(c)`: a quantified comparison's answer from its
/// comparisons with each row (rewrite/quantified.rs). ANY: TRUE when one is
/// TRUE, else NULL when one is NULL, else FALSE (no rows: FALSE); ALL: FALSE
/// when one is FALSE, else NULL when one is NULL, else TRUE (no rows: TRUE).
/// The state: (a deciding comparison seen, a NULL seen).
struct Quantified {
    all: bool,
}

impl Aggregate<(bool, bool), Option<i64>> for Quantified {
    fn init(&self, _: &mut Context<'_>) -> rusqlite::Result<(bool, bool)> {
        Ok((false, false))
    }
    fn step(&self, ctx: &mut Context<'_>, acc: &mut (bool, bool)) -> rusqlite::Result<()> {
        match ctx.get_raw(0) {
            ValueRef::Null => acc.1 = true,
            // The deciding answer: TRUE for ANY, FALSE for ALL.
            v => acc.0 |= (v.as_f64().map(|f| f != 0.0).or_else(|_| v.as_i64().map(|i| i != 0)).unwrap_or(false)) != self.all,
        }
        Ok(())
    }
    fn finalize(&self, _: &mut Context<'_>, acc: Option<(bool, bool)>) -> rusqlite::Result<Option<i64>> {
        let (decided, null) = acc.unwrap_or((false, false));
        Ok(match (decided, null) {
            (true, _) => Some(i64::from(!self.all)),
            (false, true) => None,
            (false, false) => Some(i64::from(self.all)),
        })
    }
}

fn aggregates(db: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    for (name, sample, sqrt) in
        [("std", false, true), ("stddev", false, true), ("stddev_pop", false, true), ("stddev_samp", true, true), ("variance", false, false), ("var_pop", false, false), ("var_samp", true, false)]
    {
        db.create_aggregate_function(name, 1, flags, Spread { sample, sqrt })?;
    }
    db.create_aggregate_function("ts_group_concat_distinct", 2, flags, ConcatDistinct)?;
    db.create_aggregate_function("ts_one", 1, flags, One)?;
    db.create_aggregate_function("ts_any", 1, flags, Quantified { all: false })?;
    db.create_aggregate_function("ts_all", 1, flags, Quantified { all: true })
}
