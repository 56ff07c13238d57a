//! CAST to DATE, DATETIME and TIME and the TIME() and DATE() functions, as
//! SQL functions: `ts_cast_temporal(x, 'date'|'datetime'|'time', fsp)` (the
//! rewriter's form of `CAST(x AS TIME(fsp))`), and `time(x)`, `date(x)`, which
//! replace SQLite's own (SQLite's give NULL for `'25:00:00'` or `20240102`
//! and do not read MySQL's forms). The rules are turnstile-sqltext's
//! `temporal_cast`, shared with the SQL front; the result is the value's
//! text with exactly the target's fractional digits, which the result
//! column's type (exec/results.rs) turns into a typed wire value.
//! Also the rewriter's helpers for conversions its types decide:
//! `ts_time_dt(t)` (a TIME as a datetime on the current day) and
//! `ts_ycanon(lit)` (a literal compared with a YEAR as the year it names).
//! And the values written to a date or time column: `ts_tnorm`'s canonical
//! form (`temporal_norm`), the zero dates a mode refuses (`zero_refused`),
//! which texts are values of the column (`temporal_ok`).

use super::bytes::Out;
use super::{days_in_month, parse_date, parse_time, reg, targ, zone_offset_micros, Dt};
use rusqlite::functions::Context;
use rusqlite::types::{Value as SV, ValueRef};
use rusqlite::Connection;
use turnstile_sqltext::temporal::normalize_temporal;
use turnstile_sqltext::temporal_cast::{cast_temporal, fraction_digits, CastFrom};
use turnstile_sqltext::types::Base;

pub(super) fn register(db: &Connection) -> rusqlite::Result<()> {
    reg(db, "ts_cast_temporal", 3, true, |ctx| {
        let base = match ctx.get_raw(1) {
            ValueRef::Text(b"date") => Base::Date,
            ValueRef::Text(b"datetime") => Base::DateTime,
            _ => Base::Time,
        };
        let fsp = match ctx.get_raw(2) {
            ValueRef::Integer(n) => n.clamp(0, 6) as u8,
            _ => 0,
        };
        Ok(cast(ctx.get_raw(0), base, Some(fsp)))
    })?;
    reg(db, "time", 1, true, |ctx| Ok(cast(ctx.get_raw(0), Base::Time, None)))?;
    reg(db, "date", 1, true, |ctx| Ok(cast(ctx.get_raw(0), Base::Date, None)))?;
    // A TIME made a datetime (rewrite/temporal_numbers.rs): that time on the current day.
    reg(db, "ts_time_dt", 1, false, |ctx| {
        let v = ctx.get_raw(0);
        let today = super::local_now_micros().div_euclid(86_400_000_000);
        Ok(match v {
            ValueRef::Text(t) => std::str::from_utf8(t).ok().and_then(|s| time_on_day(s, today)).map_or_else(|| same(v), SV::Text),
            _ => same(v),
        })
    })?;
    reg(db, "ts_ycanon", 1, true, |ctx| Ok(year_compared(ctx.get_raw(0))))?;
    Ok(())
}

/// The TIME text `s` (`[-]h:mm:ss[.f]`) as a datetime text: that long after
/// (or before) the midnight that starts day `day` (days since 1970-01-01),
/// its fraction as written. None when `s` is no TIME or the day leaves
/// years 0..=9999.
fn time_on_day(s: &str, day: i64) -> Option<String> {
    let (neg, h, m, sec, _) = turnstile_sqltext::temporal::parse_time(s.trim())?;
    let secs = i64::from(h) * 3600 + i64::from(m) * 60 + i64::from(sec);
    let frac = s.trim().split_once('.').map(|(_, f)| f);
    // A negative time with a fraction borrows a second (-00:00:00.25 is 23:59:59.75 the day before).
    let (mut total, frac) = match frac.filter(|f| neg && f.bytes().any(|b| b != b'0')) {
        Some(f) => {
            let scale = 10u64.pow(f.len() as u32);
            let n: u64 = f.parse().ok()?;
            (-(secs + 1), Some(format!("{:0w$}", scale - n, w = f.len())))
        }
        None => (if neg { -secs } else { secs }, frac.map(str::to_string)),
    };
    total += day * 86_400;
    let (days, rem) = (total.div_euclid(86_400), total.rem_euclid(86_400));
    let (y, mo, d) = turnstile_sqltext::civil::civil_from_days(days);
    if !(0..=9999).contains(&y) {
        return None;
    }
    let mut o = format!("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", y, mo, d, rem / 3600, rem / 60 % 60, rem % 60);
    if let Some(f) = frac {
        o.push('.');
        o.push_str(&f);
    }
    Some(o)
}

/// A literal compared with a YEAR, as the year a YEAR column would store
/// for it: 1..=69 are 2001..2069, 70..=99 1970..1999, a fraction rounds,
/// the string '0' (or '00', '000') is 2000 where the number 0 and '0000'
/// are 0. A text that is no number is left as it is.
fn year_compared(v: ValueRef<'_>) -> SV {
    let widen = |n: i64| match n {
        1..=69 => n + 2000,
        70..=99 => n + 1900,
        _ => n,
    };
    match v {
        ValueRef::Integer(i) => SV::Integer(widen(i)),
        ValueRef::Real(f) if f.is_finite() && f.abs() < 1e15 => SV::Integer(widen(f.round() as i64)),
        ValueRef::Text(t) => {
            let s = std::str::from_utf8(t).unwrap_or("").trim();
            match s.parse::<f64>() {
                Ok(f) if f.is_finite() && f.abs() < 1e15 && !s.is_empty() => {
                    let n = f.round() as i64;
                    let digits = s.trim_start_matches(['+', '-']).split('.').next().map_or(0, str::len);
                    SV::Integer(if n == 0 && digits < 4 { 2000 } else { widen(n) })
                }
                _ => same(v),
            }
        }
        other => same(other),
    }
}

/// A value returned as it came (a text that is not UTF-8 keeps its bytes).
fn same(v: ValueRef<'_>) -> SV {
    match v {
        ValueRef::Text(t) => std::str::from_utf8(t).map_or_else(|_| SV::Blob(t.to_vec()), |s| SV::Text(s.to_string())),
        other => SV::from(other),
    }
}

/// A value written to a date or time column of `kind` (`date`,
/// `datetime(n)`, `timestamp(n)`, `time(n)`) in the canonical form the
/// column stores: `ts_tnorm(value, kind)`.
pub(super) fn temporal_norm(ctx: &Context<'_>) -> rusqlite::Result<Out> {
    if let ValueRef::Text(t) = ctx.get_raw(0) {
        if let Ok(s) = std::str::from_utf8(t) {
            let kind = targ(ctx, 1).unwrap_or_default();
            if let Some(n) = normalize_temporal(s, &kind) {
                return Ok(Out::Val(SV::Text(n)));
            }
        }
    }
    // A number as MariaDB reads one for a date or time (20240115, 123 as 00:01:23).
    if let Some(n) = number_as_temporal(ctx.get_raw(0), &targ(ctx, 1).unwrap_or_default()) {
        return Ok(Out::Val(SV::Text(n)));
    }
    // Anything else as it came: ts_temporal_ok refuses what is no date.
    Ok(Out::Arg(0))
}

/// Whether the stored text `v` of a `kind` column is one a strict write
/// refuses under `refuse` (bit 1: NO_ZERO_IN_DATE, a zero month or day;
/// bit 2: NO_ZERO_DATE, the zero date). A TIME given a datetime text is
/// judged by that text's date.
pub(super) fn zero_refused(v: &str, kind: &str, refuse: i64) -> bool {
    let date = v.trim().split([' ', 'T']).next().unwrap_or("");
    let Some((y, m, d)) = parse_date(date) else { return false };
    if kind.starts_with("time") && !kind.starts_with("timestamp") && !date.contains('-') {
        return false;
    }
    let zero = y == 0 && m == 0 && d == 0;
    (zero && refuse & 2 != 0) || (!zero && (m == 0 || d == 0) && refuse & 1 != 0)
}

/// Whether a TIMESTAMP's value (in the session's time zone) is in its range,
/// after 1970-01-01 00:00:00 up to 2038-01-19 03:14:07.999999 UTC.
fn timestamp_in_range(dt: &Dt) -> bool {
    (1..2_147_483_648_000_000).contains(&(dt.epoch_micros() - zone_offset_micros()))
}

/// Validate a value stored into a DATE/DATETIME/TIMESTAMP/TIME column.
/// A zero month or day is a DATE's and a DATETIME's value (`2024-00-00`,
/// `0000-00-01`): MariaDB refuses one only under NO_ZERO_IN_DATE, which
/// its default sql_mode has not. A TIMESTAMP names an instant: all zero
/// or a real day.
pub fn temporal_ok(v: &str, kind: &str) -> bool {
    // A real day, or (outside TIMESTAMP) one with a zero month or day.
    let day_ok = |y: i64, m: i64, d: i64| if m == 0 || d == 0 { kind != "timestamp" } else { d <= days_in_month(y, m) };
    match kind {
        "time" => parse_time(v).is_some_and(|(_, h, ..)| h <= 838),
        "date" => {
            if v == "0000-00-00" {
                return true;
            }
            match parse_date(v) {
                Some((y, m, d)) => v.len() == 10 && day_ok(y as i64, m as i64, d as i64),
                None => false,
            }
        }
        _ => {
            if v.starts_with("0000-00-00") {
                return true;
            }
            match Dt::parse(v) {
                Some(dt) => day_ok(dt.y, dt.mo, dt.d) && dt.h < 24 && (kind != "timestamp" || timestamp_in_range(&dt)),
                None => false,
            }
        }
    }
}

/// A number written to a date or time column (`ts_tnorm`'s `kind`:
/// `date`, `datetime(n)`, `timestamp(n)`, `time(n)`) as MariaDB reads it:
/// 20240115 is 2024-01-15, 123 is 00:01:23, 0 the zero value. None for
/// anything else (a text, NULL) or a number that is no date.
pub(super) fn number_as_temporal(v: ValueRef<'_>, kind: &str) -> Option<String> {
    let from = match v {
        ValueRef::Integer(i) => CastFrom::Int(i),
        ValueRef::Real(f) => CastFrom::Real(f),
        _ => return None,
    };
    let (name, fsp) = match kind.split_once('(') {
        Some((n, f)) => (n, f.trim_end_matches(')').parse::<u8>().unwrap_or(0).min(6)),
        None => (kind, 0),
    };
    let base = match name {
        "date" => Base::Date,
        "time" => Base::Time,
        _ => Base::DateTime,
    };
    if matches!(from, CastFrom::Int(0)) || matches!(from, CastFrom::Real(f) if f == 0.0) {
        return Some(
            match base {
                Base::Date => "0000-00-00",
                Base::Time => "00:00:00",
                _ => "0000-00-00 00:00:00",
            }
            .to_string(),
        );
    }
    let t = cast_temporal(from, base, fsp)?.to_text_fsp(Some(fsp))?.into_owned();
    String::from_utf8(t).ok()
}

/// `v` as `base` with `fsp` digits (None: as many as a text shows).
fn cast(v: ValueRef<'_>, base: Base, fsp: Option<u8>) -> SV {
    let lossy;
    let from = match v {
        ValueRef::Null => return SV::Null,
        ValueRef::Integer(i) => CastFrom::Int(i),
        ValueRef::Real(f) => CastFrom::Real(f),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            lossy = String::from_utf8_lossy(t);
            CastFrom::Text(&lossy)
        }
    };
    // TIME(x), DATE(x): a text's own digits; a number's all six (its
    // result column's type, TIME(2) of 230322.33, shows as many as it has).
    let fsp = fsp.unwrap_or(match from {
        CastFrom::Text(s) => fraction_digits(s),
        CastFrom::Real(f) if base != Base::Date && f.fract() != 0.0 => 6,
        _ => 0,
    });
    match cast_temporal(from, base, fsp).and_then(|v| v.to_text_fsp(Some(fsp)).map(|t| t.into_owned())) {
        Some(t) => SV::Text(String::from_utf8(t).unwrap_or_default()),
        None => SV::Null,
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    #[test]
    fn casts_and_time_date_replace_sqlites() {
        let db = Connection::open_in_memory().unwrap();
        super::register(&db).unwrap();
        let q = |sql: &str| db.query_row(sql, [], |r| r.get::<_, Option<String>>(0)).unwrap();
        assert_eq!(q("SELECT ts_cast_temporal('2024-01-02 03:04:05', 'time', 0)").as_deref(), Some("03:04:05"));
        assert_eq!(q("SELECT ts_cast_temporal('2024-01-02 03:04:05', 'time', 3)").as_deref(), Some("03:04:05.000"));
        assert_eq!(q("SELECT ts_cast_temporal(20240102, 'date', 0)").as_deref(), Some("2024-01-02"));
        // The fraction as written, not as the double holds it (.78, not .779999).
        assert_eq!(q("SELECT ts_cast_temporal(123456.78, 'time', 2)").as_deref(), Some("12:34:56.78"));
        assert_eq!(q("SELECT ts_cast_temporal('x', 'datetime', 0)"), None);
        assert_eq!(q("SELECT time('25:00:00')").as_deref(), Some("25:00:00"));
        assert_eq!(q("SELECT time('12:30:45.5')").as_deref(), Some("12:30:45.5"));
        assert_eq!(q("SELECT date('20240102')").as_deref(), Some("2024-01-02"));
        assert_eq!(q("SELECT time(NULL)"), None);
        assert_eq!(
            q("SELECT ts_ycanon(99) || ',' || ts_ycanon(5) || ',' || ts_ycanon('0') || ',' || ts_ycanon(0) || ',' || ts_ycanon(1998.9) || ',' || ts_ycanon('0000')").as_deref(),
            Some("1999,2005,2000,0,1999,0")
        );
        assert_eq!(q("SELECT ts_ycanon('test')").as_deref(), Some("test"));
    }

    #[test]
    fn a_time_on_a_day() {
        use super::time_on_day;
        // 2013-08-19 is day 15936.
        assert_eq!(time_on_day("10:20:30", 15936).as_deref(), Some("2013-08-19 10:20:30"));
        assert_eq!(time_on_day("800:20:30", 15936).as_deref(), Some("2013-09-21 08:20:30"));
        assert_eq!(time_on_day("-800:20:30", 15936).as_deref(), Some("2013-07-16 15:39:30"));
        assert_eq!(time_on_day("-00:00:00.25", 15936).as_deref(), Some("2013-08-18 23:59:59.75"));
        assert_eq!(time_on_day("00:00:00.000001", 15936).as_deref(), Some("2013-08-19 00:00:00.000001"));
        assert_eq!(time_on_day("x", 15936), None);
    }
}
