//! The current date and time, for NOW(), CURDATE(), UNIX_TIMESTAMP() and
//! @@timestamp: UTC from the statement's clock (turnstile_engine::clock::now_micros), turned into a civil date by
//! turnstile-sqltext's `civil` (the SQLite engine's date functions use the
//! same arithmetic).

use turnstile_engine::Value;
use turnstile_sqltext::civil::civil_from_days;

/// Seconds since the epoch as the statement sees them (SET timestamp, or the system clock).
pub fn unix_now() -> u64 {
    (turnstile_engine::clock::now_micros().max(0) / 1_000_000) as u64
}

/// The current date/time in the session's time zone (`SET time_zone`; UTC
/// by default: Turnstile's system zone).
pub fn now_value(date_only: bool) -> Value {
    civil_value(turnstile_engine::clock::local_now_micros(), date_only)
}

/// The current UTC date/time (UTC_TIMESTAMP, UTC_DATE).
pub fn utc_now_value(date_only: bool) -> Value {
    civil_value(turnstile_engine::clock::now_micros(), date_only)
}

fn civil_value(micros: i64, date_only: bool) -> Value {
    let secs = (micros.max(0) / 1_000_000) as u64;
    let days = (secs / 86400) as i64;
    let rem = secs % 86400;
    let (y, m, d) = civil_from_days(days);
    if date_only {
        Value::Date { year: y as u16, month: m as u8, day: d as u8 }
    } else {
        Value::DateTime { year: y as u16, month: m as u8, day: d as u8, hour: (rem / 3600) as u8, minute: (rem / 60 % 60) as u8, second: (rem % 60) as u8, micro: 0 }
    }
}
