//! The coarse monotonic clock, shared by the engine and the server; and the
//! wall clock statements see (`now_micros`), which `SET timestamp` fixes,
//! and the session's time zone offset (`SET time_zone = '+03:00'`).
//!
//! Why: a vDSO read with no system call and a resolution of a few
//! milliseconds, plenty for timeouts counted in seconds, the pool's kick-up
//! timer and the engine's "log quiet for 20 ms". It is read on every queued
//! pool item, parked connection and commit, where `Instant::now` was a
//! measurable share of the cost.

/// Milliseconds on CLOCK_MONOTONIC_COARSE. Inlined: a call costs as much
/// as the arithmetic around the vDSO read (fat LTO stopped inlining it into
/// the pool's loop on its own).
#[inline]
pub fn coarse_ms() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: valid out-pointer; CLOCK_MONOTONIC_COARSE cannot fail on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

thread_local! {
    /// The session's `SET timestamp` while one of its statements runs on
    /// this thread (set by the SQL front for the statement's duration).
    static FIXED_NOW_MICROS: std::cell::Cell<Option<i64>> = const { std::cell::Cell::new(None) };
}

/// The wall clock as statements see it, in microseconds since the epoch:
/// the session's `SET timestamp` while its statement runs on this thread,
/// otherwise the system clock (UTC). NOW(), CURDATE(), UNIX_TIMESTAMP() and
/// DEFAULT CURRENT_TIMESTAMP read it, in the front and in the engine alike.
pub fn now_micros() -> i64 {
    FIXED_NOW_MICROS.with(|f| f.get()).unwrap_or_else(system_now_micros)
}

thread_local! {
    /// The session's `time_zone` as an offset from UTC, in seconds, while
    /// one of its statements runs on this thread (0: UTC, the system's zone).
    static ZONE_OFFSET_SECS: std::cell::Cell<i64> = const { std::cell::Cell::new(0) };
}

/// The session's time zone offset from UTC in microseconds (`SET time_zone =
/// '+03:00'`): what NOW(), CURDATE() and FROM_UNIXTIME() add to UTC, and
/// UNIX_TIMESTAMP(datetime) takes away.
pub fn zone_offset_micros() -> i64 {
    ZONE_OFFSET_SECS.with(|z| z.get()) * 1_000_000
}

/// The wall clock in the session's time zone (`now_micros` moved by
/// `zone_offset_micros`): NOW(), CURDATE(), CURTIME().
pub fn local_now_micros() -> i64 {
    now_micros() + zone_offset_micros()
}

/// While alive, `zone_offset_micros` on this thread answers `secs`;
/// dropping it restores what was there before.
#[must_use]
pub struct FixedZone(i64);

pub fn fix_zone(secs: i64) -> FixedZone {
    FixedZone(ZONE_OFFSET_SECS.with(|z| z.replace(secs)))
}

impl Drop for FixedZone {
    fn drop(&mut self) {
        ZONE_OFFSET_SECS.with(|z| z.set(self.0));
    }
}

/// A `time_zone` value as its offset from UTC in seconds: `'+03:00'`,
/// `'-6:00'`, `'+1:00'` (hours -12..=+14, minutes 0..=59); `SYSTEM`, `UTC`
/// and anything else (a named zone: no time zone tables here) are UTC.
pub fn zone_offset_of(tz: &str) -> i64 {
    let t = tz.trim();
    let (sign, rest) = match t.as_bytes().first() {
        Some(b'+') => (1, &t[1..]),
        Some(b'-') => (-1, &t[1..]),
        _ => return 0,
    };
    let Some((h, m)) = rest.split_once(':') else { return 0 };
    match (h.trim().parse::<i64>(), m.trim().parse::<i64>()) {
        (Ok(h), Ok(m)) if h <= 14 && m <= 59 && h >= 0 && m >= 0 => sign * (h * 3600 + m * 60),
        _ => 0,
    }
}

/// The system clock in microseconds since the epoch, whatever the session says.
pub fn system_now_micros() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_micros() as i64)
}

/// While alive, `now_micros` on this thread answers `micros` (None: the
/// system clock); dropping it restores what was there before (a statement
/// run by another, EXECUTE IMMEDIATE's, nests).
#[must_use]
pub struct FixedNow(Option<i64>);

pub fn fix_now(micros: Option<i64>) -> FixedNow {
    FixedNow(FIXED_NOW_MICROS.with(|f| f.replace(micros)))
}

impl Drop for FixedNow {
    fn drop(&mut self) {
        FIXED_NOW_MICROS.with(|f| f.set(self.0));
    }
}

#[cfg(test)]
mod fixed_now_tests {
    use super::*;

    #[test]
    fn zones_offset_the_local_clock() {
        assert_eq!((zone_offset_of("+03:00"), zone_offset_of("-6:00"), zone_offset_of("+1:00"), zone_offset_of("SYSTEM"), zone_offset_of("Europe/Moscow")), (10_800, -21_600, 3_600, 0, 0));
        let _n = fix_now(Some(1_000_000));
        {
            let _z = fix_zone(3_600);
            assert_eq!(local_now_micros(), 3_601_000_000);
            assert_eq!(zone_offset_micros(), 3_600_000_000);
        }
        assert_eq!(local_now_micros(), 1_000_000);
    }

    #[test]
    fn fixed_clock_nests_and_restores() {
        let real = now_micros();
        {
            let _a = fix_now(Some(1_000_000));
            assert_eq!(now_micros(), 1_000_000);
            {
                let _b = fix_now(Some(5));
                assert_eq!(now_micros(), 5);
            }
            assert_eq!(now_micros(), 1_000_000);
        }
        assert!(now_micros() >= real);
    }
}
