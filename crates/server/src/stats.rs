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
    /// Connections accepted, by listener (`Listener`); Connections is their sum.
    pub accepted: [Striped; 3],
    /// Refused with 1040, by listener: max_connections reached.
    pub refused: [Striped; 3],
    /// Statements ended, by command (0: COM_QUERY, 1: COM_STMT_EXECUTE) and
    /// outcome (0: OK or a result, 1: an error).
    pub statements: [[Striped; 2]; 2],
    /// Statements that failed, by error code.
    pub errors: ErrorCounts,
    /// From accept to the login's OK (`metrics_port` set only).
    pub connect_seconds: Histogram,
    /// From a statement's start to its last packet (`metrics_port` set only).
    pub statement_seconds: Histogram,
}

/// Which listener a connection came from: TCP, the Unix socket, the admin port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listener {
    Tcp = 0,
    Socket = 1,
    Admin = 2,
}

impl Listener {
    pub const ALL: [Listener; 3] = [Listener::Tcp, Listener::Socket, Listener::Admin];

    pub fn of(admin_port: bool, tcp: bool) -> Listener {
        match (admin_port, tcp) {
            (true, _) => Listener::Admin,
            (false, true) => Listener::Tcp,
            (false, false) => Listener::Socket,
        }
    }

    pub fn name(self) -> &'static str {
        ["tcp", "socket", "admin"][self as usize]
    }
}

/// Upper bounds of the latency histograms' buckets, in seconds (and +Inf):
/// from 50 µs, where a point select or a local connect lies, to 10 s.
pub const BUCKETS_S: [f64; 17] = [0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];
const BUCKETS_NS: [u64; 17] = {
    let mut ns = [0u64; 17];
    let mut i = 0;
    while i < 17 {
        ns[i] = (BUCKETS_S[i] * 1e9) as u64;
        i += 1;
    }
    ns
};

/// A latency histogram, striped like `Striped`: a thread adds to its own
/// stripe's buckets (not cumulative), count and sum; a scrape adds them up.
#[derive(Default)]
pub struct Histogram {
    stripes: [CachePadded<HistogramStripe>; STRIPES],
}

#[derive(Default)]
struct HistogramStripe {
    /// One per bound, then +Inf.
    buckets: [AtomicU64; 18],
    sum_ns: AtomicU64,
}

impl Histogram {
    pub fn observe_ns(&self, ns: u64) {
        let s = &self.stripes[stripe()];
        let i = BUCKETS_NS.iter().position(|&b| ns <= b).unwrap_or(BUCKETS_NS.len());
        s.buckets[i].fetch_add(1, Ordering::Relaxed);
        s.sum_ns.fetch_add(ns, Ordering::Relaxed);
    }

    /// (sum in seconds, count, the count of each bucket by its upper bound;
    /// not cumulative: the encoder adds them up as Prometheus has them; the
    /// last, +Inf, is f64::MAX as the encoder expects).
    pub fn snapshot(&self) -> (f64, u64, Vec<(f64, u64)>) {
        let mut counts = [0u64; 18];
        let mut sum_ns = 0u64;
        for s in &self.stripes {
            for (c, b) in counts.iter_mut().zip(&s.buckets) {
                *c += b.load(Ordering::Relaxed);
            }
            sum_ns = sum_ns.wrapping_add(s.sum_ns.load(Ordering::Relaxed));
        }
        let buckets: Vec<(f64, u64)> = counts.iter().enumerate().map(|(i, c)| (BUCKETS_S.get(i).copied().unwrap_or(f64::MAX), *c)).collect();
        (sum_ns as f64 / 1e9, counts.iter().sum(), buckets)
    }
}

/// Statements that failed, by error code: a map per stripe behind its own
/// lock (errors are not the hot path, and a thread takes only its own).
/// Bounded: codes are u16, so a stripe holds at most 65,536 of them.
#[derive(Default)]
pub struct ErrorCounts {
    stripes: [CachePadded<std::sync::Mutex<std::collections::HashMap<u16, u64>>>; STRIPES],
}

impl ErrorCounts {
    pub fn inc(&self, code: u16) {
        let mut m = self.stripes[stripe()].lock().unwrap_or_else(|e| e.into_inner());
        *m.entry(code).or_insert(0) += 1;
    }

    /// (code, count), by code.
    pub fn snapshot(&self) -> Vec<(u16, u64)> {
        let mut all = std::collections::BTreeMap::new();
        for s in &self.stripes {
            for (code, n) in s.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                *all.entry(*code).or_insert(0) += n;
            }
        }
        all.into_iter().collect()
    }
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
