//! The longest value a function builds: max_allowed_packet.
//!
//! Why in turnstile-engine: the limit is one for the whole server, set once
//! at start-up by the engine that is opened (the SQLite engine, from its
//! options), and read both by that engine's SQL functions and by the SQL
//! front, which evaluates CONCAT, REPEAT, HEX, ... without a table and must
//! answer NULL past the same limit.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Longest string a function builds: max_allowed_packet, as in MySQL, which
/// answers NULL past it (`set_max_result_bytes`, at start-up; 64 MiB, its
/// default, until then). A function checks the size of its result before it
/// builds it, so a statement cannot make one far larger first.
static MAX_RESULT_BYTES: AtomicUsize = AtomicUsize::new(64 << 20);

pub fn max_result_bytes() -> usize {
    MAX_RESULT_BYTES.load(Ordering::Relaxed)
}

/// Set the limit (at least 1 MiB).
pub fn set_max_result_bytes(n: usize) {
    MAX_RESULT_BYTES.store(n.max(1 << 20), Ordering::Relaxed);
}

/// Does a result of `len` bytes fit?
pub fn fits(len: usize) -> bool {
    len <= max_result_bytes()
}
