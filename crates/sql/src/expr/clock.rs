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

/// The current UTC date/time (Turnstile runs with time_zone = SYSTEM = UTC).
pub fn now_value(date_only: bool) -> Value {
    let secs = unix_now();
    let days = (secs / 86400) as i64;
    let rem = secs % 86400;
    let (y, m, d) = civil_from_days(days);
    if date_only {
        Value::Date { year: y as u16, month: m as u8, day: d as u8 }
    } else {
        Value::DateTime { year: y as u16, month: m as u8, day: d as u8, hour: (rem / 3600) as u8, minute: (rem / 60 % 60) as u8, second: (rem % 60) as u8, micro: 0 }
    }
}
