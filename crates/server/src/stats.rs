//! Server counters for SHOW STATUS, cheap to bump from many threads.
//!
//! Hot counters are striped: each thread adds to its own cache-line-padded
//! slot (chosen by a thread-local index), and readers sum the stripes. So
//! counting a statement or a connection never makes all cores fight over one
//! cache line. Reads are rare (SHOW STATUS) and may be a moment stale.

use crossbeam_utils::CachePadded;
use std::cell::Cell;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};

const STRIPES: usize = 16;

/// A sum of per-thread stripes. Works as a counter or, with negative adds, a gauge.
#[derive(Default)]
pub struct Striped {
    cells: [CachePadded<AtomicI64>; STRIPES],
}

thread_local! {
    static STRIPE: Cell<usize> = const { Cell::new(usize::MAX) };
}

static NEXT_STRIPE: AtomicUsize = AtomicUsize::new(0);

fn stripe() -> usize {
    STRIPE.with(|s| {
        let mut v = s.get();
        if v == usize::MAX {
            v = NEXT_STRIPE.fetch_add(1, Ordering::Relaxed) % STRIPES;
            s.set(v);
        }
        v
    })
}

impl Striped {
    pub fn add(&self, n: i64) {
        self.cells[stripe()].fetch_add(n, Ordering::Relaxed);
    }
    pub fn inc(&self) {
        self.add(1)
    }
    pub fn dec(&self) {
        self.add(-1)
    }
    pub fn get(&self) -> i64 {
        self.cells.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }
}

/// All of the server's status counters.
#[derive(Default)]
pub struct Stats {
    /// Connection attempts (MySQL's Connections).
    pub connections: Striped,
    pub aborted_connects: Striped,
    pub aborted_clients: Striped,
    pub questions: Striped,
    /// Statements that ran longer than long_query_time (Slow_queries).
    pub slow_queries: Striped,
    pub threads_created: Striped,
    pub threads_running: Striped,
    pub bytes_received: Striped,
    pub bytes_sent: Striped,
    pub com_stmt_prepare: Striped,
    pub com_stmt_execute: Striped,
    pub connection_errors_max_connections: Striped,
    /// Logins in progress closed to make way for a newer one past
    /// max_handshakes (Handshakes_evicted).
    pub handshakes_evicted: Striped,
    /// Highest number of simultaneous client connections.
    pub max_used_connections: AtomicU64,
}

impl Stats {
    /// Record a new high-water mark. Loads first, so the shared line is only
    /// written when the mark actually rises.
    pub fn note_connected(&self, now: u64) {
        if now > self.max_used_connections.load(Ordering::Relaxed) {
            self.max_used_connections.fetch_max(now, Ordering::Relaxed);
        }
    }
}
