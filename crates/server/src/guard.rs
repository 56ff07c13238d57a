//! Defences against password guessing and handshake floods, kept per
//! client: MySQL's connection_control (after
//! `connection_control_failed_connections_threshold` failed logins of one
//! user from one host in a row, each further attempt of theirs waits, one
//! more second per failure, between `connection_control_min_connection_delay`
//! and `_max_connection_delay` ms, whether its password is right or not; a
//! login that succeeds ends the series), and MariaDB's `max_connect_errors`
//! (a host whose connections broke off before a login that many times in a
//! row is refused with 1129 until FLUSH HOSTS or a successful login).
//!
//! The wait itself is not here: the session asks `delay_ms`, and the
//! connection's driver holds the login's answer until then (`Want::Sleep`:
//! the pool's timer wakes it, no worker waits).
//!
//! Cost on the connect path: nothing while both tables are empty (one
//! atomic load each); otherwise one shard's mutex. Each table holds at most
//! `connection_control_max_tracked` entries: when full, entries that delay no
//! one are dropped, and if it is still full a newcomer is treated as at the
//! threshold (a flood of new names is slowed, not remembered).
//!
//! Locks: `Table::shards[i]` (a Mutex each), taken alone, never while
//! another lock is held (docs/architecture.md, the lock table).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const SHARDS: usize = 16;

/// Failure counts by key, sharded.
struct Table {
    shards: [Mutex<HashMap<String, u64>>; SHARDS],
    /// Entries in all shards (read without a lock: 0 means nothing to look up).
    len: AtomicUsize,
}

impl Table {
    fn new() -> Table {
        Table { shards: std::array::from_fn(|_| Mutex::new(HashMap::new())), len: AtomicUsize::new(0) }
    }

    fn shard(&self, key: &str) -> std::sync::MutexGuard<'_, HashMap<String, u64>> {
        let h = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
        self.shards[h as usize % SHARDS].lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, key: &str) -> Option<u64> {
        if self.len.load(Ordering::Relaxed) == 0 {
            return None;
        }
        self.shard(key).get(key).copied()
    }

    /// Add one failure; false if the table is full (the key is not remembered).
    fn bump(&self, key: &str, max_entries: usize, keep_at_least: u64) -> bool {
        let mut s = self.shard(key);
        if let Some(n) = s.get_mut(key) {
            *n += 1;
            return true;
        }
        if self.len.load(Ordering::Relaxed) >= max_entries {
            // Full: make room in this shard from entries that delay no one yet.
            let before = s.len();
            s.retain(|_, n| *n >= keep_at_least);
            self.len.fetch_sub(before - s.len(), Ordering::Relaxed);
            if self.len.load(Ordering::Relaxed) >= max_entries {
                return false;
            }
        }
        s.insert(key.to_string(), 1);
        self.len.fetch_add(1, Ordering::Relaxed);
        true
    }

    fn forget(&self, key: &str) {
        if self.len.load(Ordering::Relaxed) == 0 {
            return;
        }
        if self.shard(key).remove(key).is_some() {
            self.len.fetch_sub(1, Ordering::Relaxed);
        }
    }

    fn clear(&self) {
        for s in &self.shards {
            let mut s = s.lock().unwrap_or_else(|e| e.into_inner());
            self.len.fetch_sub(s.len(), Ordering::Relaxed);
            s.clear();
        }
    }
}

/// The settings read per decision (the dynamic globals, loaded by the caller).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub threshold: u64,
    pub min_delay_ms: u64,
    pub max_delay_ms: u64,
    pub max_connect_errors: u64,
    pub max_tracked: usize,
}

pub struct Guard {
    /// Failed logins in a row, by "user@host".
    logins: Table,
    /// Connections broken off before a login, in a row, by host.
    hosts: Table,
    /// Logins that were made to wait (Connection_control_delay_generated).
    pub delays: crate::stats::Striped,
    /// Logins refused for a wrong password, an unknown user or REQUIRE SSL (Access_denied_errors).
    pub denied: crate::stats::Striped,
}

impl Default for Guard {
    fn default() -> Guard {
        Guard { logins: Table::new(), hosts: Table::new(), delays: Default::default(), denied: Default::default() }
    }
}

fn login_key(user: &str, host: &str) -> String {
    format!("{user}@{host}")
}

impl Guard {
    /// How long this login attempt must wait before its answer (0: none).
    pub fn delay_ms(&self, user: &str, host: &str, l: &Limits) -> u64 {
        if l.threshold == 0 || self.logins.len.load(Ordering::Relaxed) == 0 {
            return 0;
        }
        let failed = match self.logins.get(&login_key(user, host)) {
            Some(n) => n,
            // Not remembered: a newcomer while the table is full waits as one at the threshold.
            None if self.logins.len.load(Ordering::Relaxed) >= l.max_tracked => l.threshold,
            None => return 0,
        };
        if failed < l.threshold {
            return 0;
        }
        let steps = failed - l.threshold + 1;
        steps.saturating_mul(1000).clamp(l.min_delay_ms, l.max_delay_ms.max(l.min_delay_ms))
    }

    pub fn login_failed(&self, user: &str, host: &str, l: &Limits) {
        if l.threshold > 0 {
            self.logins.bump(&login_key(user, host), l.max_tracked, l.threshold);
        }
    }

    /// A login succeeded: its series of failures, and its host's broken connections, end.
    pub fn login_succeeded(&self, user: &str, host: &str) {
        self.logins.forget(&login_key(user, host));
        self.hosts.forget(host);
    }

    /// A connection from `host` broke off before its login (bad handshake,
    /// timeout, hang-up, failed TLS handshake; not a wrong password).
    pub fn connect_error(&self, host: &str, l: &Limits) {
        self.hosts.bump(host, l.max_tracked, l.max_connect_errors);
    }

    /// Is `host` blocked (max_connect_errors broken connections in a row)?
    pub fn host_blocked(&self, host: &str, l: &Limits) -> bool {
        self.hosts.get(host).is_some_and(|n| n >= l.max_connect_errors)
    }

    /// FLUSH HOSTS.
    pub fn flush_hosts(&self) {
        self.hosts.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const L: Limits = Limits { threshold: 3, min_delay_ms: 1000, max_delay_ms: 5000, max_connect_errors: 2, max_tracked: 4 };

    #[test]
    fn delays_grow_a_second_per_failure_past_the_threshold_up_to_the_max() {
        let g = Guard::default();
        let mut seen = Vec::new();
        for _ in 0..9 {
            seen.push(g.delay_ms("u", "h", &L));
            g.login_failed("u", "h", &L);
        }
        assert_eq!(seen, [0, 0, 0, 1000, 2000, 3000, 4000, 5000, 5000]);
        assert_eq!(g.delay_ms("u", "other", &L), 0);
        g.login_succeeded("u", "h");
        assert_eq!(g.delay_ms("u", "h", &L), 0);
    }

    #[test]
    fn a_full_table_slows_newcomers_instead_of_growing() {
        let g = Guard::default();
        for i in 0..10 {
            g.login_failed(&format!("u{i}"), "h", &L);
        }
        assert!(g.logins.len.load(Ordering::Relaxed) <= L.max_tracked);
        assert_eq!(g.delay_ms("never-seen", "h", &L), 1000);
        // Entries under the threshold made room for new ones when needed.
        for _ in 0..3 {
            g.login_failed("target", "h", &L);
        }
        assert!(g.delay_ms("target", "h", &L) >= 1000);
    }

    #[test]
    fn hosts_block_after_max_connect_errors_until_flushed_or_a_login() {
        let g = Guard::default();
        g.connect_error("10.0.0.1", &L);
        assert!(!g.host_blocked("10.0.0.1", &L));
        g.connect_error("10.0.0.1", &L);
        assert!(g.host_blocked("10.0.0.1", &L));
        assert!(!g.host_blocked("10.0.0.2", &L));
        g.flush_hosts();
        assert!(!g.host_blocked("10.0.0.1", &L));
        g.connect_error("10.0.0.1", &L);
        g.login_succeeded("u", "10.0.0.1");
        g.connect_error("10.0.0.1", &L);
        assert!(!g.host_blocked("10.0.0.1", &L));
    }
}
