//! The process's panic hook: one short line per place, at most once a minute.
//!
//! A panic is a bug, but one a client may be able to trigger again and again.
//! The SQLite engine runs each statement under `catch_unwind` (`execute`,
//! `prepare`), and rusqlite catches a panic in one of our SQL functions, so
//! the client gets an error and the server goes on; a panic anywhere else
//! in a command ends only that connection (`Session::guarded`). Rust's default hook
//! would still write the message and, with RUST_BACKTRACE set, a backtrace of
//! several KB to stderr on every one, so any account able to trigger one
//! could fill the log's disk. This hook writes one line: the location, the
//! message cut to `MESSAGE_MAX_BYTES`, and how many panics at that location
//! were not logged since the last line; at most once per `INTERVAL` per
//! location. At most `MAX_PLACES` locations are remembered; past that, panics
//! at new locations are counted in one shared entry.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// A location logs at most once per this interval.
pub const INTERVAL: Duration = Duration::from_secs(60);
/// Locations remembered (the code has far fewer; a bound all the same).
pub const MAX_PLACES: usize = 1024;
/// The panic message is cut to this many bytes (it may hold client data).
pub const MESSAGE_MAX_BYTES: usize = 200;

const OTHER_PLACES: &str = "<other locations>";

struct Place {
    last: Instant,
    suppressed: u64,
}

#[derive(Default)]
pub struct Limiter {
    places: Mutex<HashMap<String, Place>>,
}

impl Limiter {
    /// Whether a panic at `loc` at `now` is logged: Some(panics at `loc`
    /// not logged since its last line), or None to stay quiet.
    pub fn admit(&self, loc: &str, now: Instant) -> Option<u64> {
        let mut places = self.places.lock().unwrap_or_else(|e| e.into_inner());
        let key = if places.contains_key(loc) || places.len() < MAX_PLACES - 1 { loc } else { OTHER_PLACES };
        match places.get_mut(key) {
            Some(p) if now.duration_since(p.last) < INTERVAL => {
                p.suppressed += 1;
                None
            }
            Some(p) => {
                p.last = now;
                Some(std::mem::take(&mut p.suppressed))
            }
            None => {
                places.insert(key.to_string(), Place { last: now, suppressed: 0 });
                Some(0)
            }
        }
    }
}

/// The line logged for a panic.
pub fn report_line(loc: &str, message: &str, suppressed: u64) -> String {
    let mut cut = message.len().min(MESSAGE_MAX_BYTES);
    while !message.is_char_boundary(cut) {
        cut -= 1;
    }
    let more = if cut < message.len() { "..." } else { "" };
    format!("panic at {}: {:?}{} (caught; {} more at this location not logged in the last {} s; no backtrace)", loc, &message[..cut], more, suppressed, INTERVAL.as_secs())
}

fn limiter() -> &'static Limiter {
    static L: OnceLock<Limiter> = OnceLock::new();
    L.get_or_init(Limiter::default)
}

/// Replace the default panic hook (call once at start-up, after logging is set up).
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let loc = info.location().map_or_else(|| "<unknown>".to_string(), |l| format!("{}:{}", l.file(), l.line()));
        let Some(suppressed) = limiter().admit(&loc, Instant::now()) else {
            return;
        };
        let payload = info.payload();
        let message = payload.downcast_ref::<&str>().copied().or_else(|| payload.downcast_ref::<String>().map(String::as_str)).unwrap_or("");
        tracing::error!("{}", report_line(&loc, message, suppressed));
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_per_interval_per_location() {
        let l = Limiter::default();
        let t0 = Instant::now();
        assert_eq!(l.admit("a.rs:1", t0), Some(0));
        for k in 1..=500 {
            assert_eq!(l.admit("a.rs:1", t0 + Duration::from_millis(k)), None);
        }
        // another location has its own allowance
        assert_eq!(l.admit("b.rs:2", t0), Some(0));
        assert_eq!(l.admit("a.rs:1", t0 + INTERVAL), Some(500));
        assert_eq!(l.admit("a.rs:1", t0 + INTERVAL + Duration::from_secs(1)), None);
        assert_eq!(l.admit("a.rs:1", t0 + INTERVAL * 2), Some(1));
    }

    #[test]
    fn locations_are_bounded() {
        let l = Limiter::default();
        let t0 = Instant::now();
        for k in 0..MAX_PLACES * 3 {
            l.admit(&format!("x.rs:{}", k), t0);
        }
        assert!(l.places.lock().unwrap().len() <= MAX_PLACES);
        // the overflow shares one entry: one line per interval for all of them
        assert_eq!(l.admit("new.rs:1", t0 + INTERVAL), Some(MAX_PLACES as u64 * 2));
    }

    #[test]
    fn the_installed_hook_goes_through_the_limiter() {
        install();
        for _ in 0..3 {
            let r = std::panic::catch_unwind(|| panic!("boom"));
            assert!(r.is_err());
        }
        drop(std::panic::take_hook());
        let places = limiter().places.lock().unwrap();
        let (_, p) = places.iter().find(|(loc, _)| loc.contains("panics.rs")).expect("panic recorded");
        assert_eq!(p.suppressed, 2);
    }

    #[test]
    fn one_short_line() {
        let long = "\u{e9}".repeat(1000) + "\n\x1b[31m";
        let line = report_line("f.rs:9", &long, 3);
        assert!(line.len() < 2 * MESSAGE_MAX_BYTES + 200, "{}", line.len());
        assert!(!line.contains('\n') && !line.contains('\x1b'));
        assert!(line.starts_with("panic at f.rs:9: ") && line.contains("3 more"));
    }
}
