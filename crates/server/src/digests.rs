//! Statement digests: what performance_schema.events_statements_summary_by_digest
//! shows, counted per (schema, normalized text) as statements end.
//!
//! Written to on every statement while `performance_schema` is ON, so
//! nothing here is global on that path: the table is 16 shards, each behind
//! its own mutex, and a thread always writes to the same one (chosen once,
//! round robin), so the lock is uncontended but for a reader. A reader (a
//! SELECT from the table, or TRUNCATE) takes the shards one at a time and
//! adds up the rows for the same digest.
//!
//! Bounded: a shard keeps at most `performance_schema_digests_size` digests;
//! past that, a statement with a new digest is counted in the shard's
//! overflow row, shown with DIGEST and DIGEST_TEXT NULL as in MySQL. The
//! normalized text is cut at `performance_schema_max_digest_length` bytes.

use std::collections::HashMap;
use std::hash::Hasher;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Instant, SystemTime};
pub use turnstile_engine::DigestRow;

const SHARDS: usize = 16;

/// What one statement's end adds to its digest.
#[derive(Debug, Clone, Copy, Default)]
pub struct Measure {
    pub elapsed_ps: u64,
    pub error: bool,
    pub warnings: u64,
    pub rows_affected: u64,
    pub rows_sent: u64,
}

/// A shard's rows by key. The map's own hasher is std's, seeded per
/// process, so no client can choose texts whose keys share a bucket.
#[derive(Debug, Default)]
struct Shard {
    rows: HashMap<u64, Entry>,
    overflow: Option<Entry>,
}

#[derive(Debug, Clone)]
struct Entry {
    schema: Option<Box<str>>,
    text: Box<str>,
    count: u64,
    sum_ps: u64,
    min_ps: u64,
    max_ps: u64,
    errors: u64,
    warnings: u64,
    rows_affected: u64,
    rows_sent: u64,
    first_seen_us: u64,
    last_seen_us: u64,
}

impl Entry {
    fn new(schema: Option<&str>, text: &str, now_us: u64) -> Entry {
        Entry {
            schema: schema.map(Into::into),
            text: text.into(),
            count: 0,
            sum_ps: 0,
            min_ps: u64::MAX,
            max_ps: 0,
            errors: 0,
            warnings: 0,
            rows_affected: 0,
            rows_sent: 0,
            first_seen_us: now_us,
            last_seen_us: now_us,
        }
    }

    fn add(&mut self, m: &Measure, now_us: u64) {
        self.count += 1;
        self.sum_ps = self.sum_ps.saturating_add(m.elapsed_ps);
        self.min_ps = self.min_ps.min(m.elapsed_ps);
        self.max_ps = self.max_ps.max(m.elapsed_ps);
        self.errors += u64::from(m.error);
        self.warnings += m.warnings;
        self.rows_affected = self.rows_affected.saturating_add(m.rows_affected);
        self.rows_sent = self.rows_sent.saturating_add(m.rows_sent);
        self.last_seen_us = self.last_seen_us.max(now_us);
    }

    fn merge(&mut self, o: &Entry) {
        self.count += o.count;
        self.sum_ps = self.sum_ps.saturating_add(o.sum_ps);
        self.min_ps = self.min_ps.min(o.min_ps);
        self.max_ps = self.max_ps.max(o.max_ps);
        self.errors += o.errors;
        self.warnings += o.warnings;
        self.rows_affected = self.rows_affected.saturating_add(o.rows_affected);
        self.rows_sent = self.rows_sent.saturating_add(o.rows_sent);
        self.first_seen_us = self.first_seen_us.min(o.first_seen_us);
        self.last_seen_us = self.last_seen_us.max(o.last_seen_us);
    }
}

/// The digest table: rows keyed by a hash of (schema, normalized text)
/// (`key_of`).
#[derive(Debug)]
pub struct Digests {
    shards: Vec<Mutex<Shard>>,
    per_shard: usize,
    pub max_text_bytes: usize,
    /// The wall clock and the monotonic clock read together at start, so
    /// that FIRST_SEEN and LAST_SEEN cost no clock read of their own.
    epoch_us: u64,
    epoch: Instant,
}

/// Where a statement's digest row is: its key, the shard, and whether the
/// row was in the table when the statement began.
#[derive(Debug, Clone, Copy)]
pub struct Slot {
    key: u64,
    shard: usize,
    in_table: bool,
}

static NEXT_SHARD: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static MY_SHARD: usize = NEXT_SHARD.fetch_add(1, Ordering::Relaxed) % SHARDS;
}

/// The identity of a digest: (schema, normalized text), hashed. A fixed
/// hash (SipHash with zero keys), so that a digest keeps its DIGEST value
/// from one start to the next.
pub fn key_of(schema: Option<&str>, text: &str) -> u64 {
    #[allow(deprecated)]
    let mut h = std::hash::SipHasher::new();
    h.write(schema.unwrap_or("").as_bytes());
    h.write_u8(0xff);
    h.write(text.as_bytes());
    h.finish()
}

/// DIGEST as 32 hex digits: the key and a second hash of the same text.
fn digest_hex(key: u64, text: &str) -> String {
    #[allow(deprecated)]
    let mut h = std::hash::SipHasher::new_with_keys(0x7475_726e_7374_696c, 0x6469_6765_7374_7321);
    h.write(text.as_bytes());
    format!("{:016x}{:016x}", key, h.finish())
}

impl Digests {
    pub fn new(per_shard: usize, max_text_bytes: usize) -> Digests {
        assert!(per_shard >= 1 && max_text_bytes >= 16, "checked at load");
        let epoch_us = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_micros() as u64);
        Digests { shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(), per_shard, max_text_bytes, epoch_us, epoch: Instant::now() }
    }

    fn wall_us(&self, at: Instant) -> u64 {
        self.epoch_us + at.saturating_duration_since(self.epoch).as_micros() as u64
    }

    /// A statement begins: find or make its digest's row in this thread's
    /// shard. What it returns goes to `end` (which may run on another
    /// thread, when a paused result is resumed there).
    pub fn begin(&self, schema: Option<&str>, text: &str) -> Slot {
        self.begin_keyed(key_of(schema, text), schema, text)
    }

    /// `begin` with the key already computed (a prepared statement's).
    pub fn begin_keyed(&self, key: u64, schema: Option<&str>, text: &str) -> Slot {
        let shard = MY_SHARD.with(|s| *s);
        let mut s = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        let mut in_table = s.rows.contains_key(&key);
        if !in_table && s.rows.len() < self.per_shard {
            let now_us = self.wall_us(Instant::now());
            s.rows.insert(key, Entry::new(schema, text, now_us));
            in_table = true;
        }
        Slot { key, shard, in_table }
    }

    /// The statement ended at `ended`: add it to its digest, or to the
    /// overflow row when the shard had no room for it. A row TRUNCATE
    /// removed while its statement ran is not made again: that statement
    /// began before the table was emptied and is not counted.
    pub fn end(&self, slot: Slot, m: &Measure, ended: Instant) {
        let now_us = self.wall_us(ended);
        let mut s = self.shards[slot.shard % SHARDS].lock().unwrap_or_else(|e| e.into_inner());
        match s.rows.get_mut(&slot.key) {
            Some(e) => e.add(m, now_us),
            None if slot.in_table => {}
            None => s.overflow.get_or_insert_with(|| Entry::new(None, "", now_us)).add(m, now_us),
        }
    }

    /// Every digest, added up across shards (TRUNCATE empties them).
    pub fn rows(&self) -> Vec<DigestRow> {
        let mut all: HashMap<u64, Entry> = HashMap::new();
        let mut overflow: Option<Entry> = None;
        for shard in &self.shards {
            let s = shard.lock().unwrap_or_else(|e| e.into_inner());
            // A row whose first statement has not ended yet is not shown.
            for (k, e) in s.rows.iter().filter(|(_, e)| e.count > 0) {
                all.entry(*k).and_modify(|a| a.merge(e)).or_insert_with(|| e.clone());
            }
            if let Some(o) = &s.overflow {
                overflow.get_or_insert_with(|| Entry::new(None, "", o.first_seen_us)).merge(o);
            }
        }
        let mut out: Vec<DigestRow> = all
            .into_values()
            .map(|e| {
                let key = key_of(e.schema.as_deref(), &e.text);
                row(e.schema.as_deref().map(str::to_string), Some(digest_hex(key, &e.text)), Some(e.text.to_string()), &e)
            })
            .collect();
        out.sort_by_key(|r| r.first_seen_us);
        if let Some(o) = overflow {
            out.push(row(None, None, None, &o));
        }
        out
    }

    /// TRUNCATE performance_schema.events_statements_summary_by_digest.
    pub fn clear(&self) {
        for shard in &self.shards {
            let mut s = shard.lock().unwrap_or_else(|e| e.into_inner());
            s.rows.clear();
            s.rows.shrink_to(64);
            s.overflow = None;
        }
    }
}

fn row(schema: Option<String>, digest: Option<String>, text: Option<String>, e: &Entry) -> DigestRow {
    DigestRow {
        schema,
        digest,
        text,
        count: e.count,
        sum_ps: e.sum_ps,
        min_ps: if e.count == 0 { 0 } else { e.min_ps },
        max_ps: e.max_ps,
        errors: e.errors,
        warnings: e.warnings,
        rows_affected: e.rows_affected,
        rows_sent: e.rows_sent,
        first_seen_us: e.first_seen_us,
        last_seen_us: e.last_seen_us,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measure(ps: u64) -> Measure {
        Measure { elapsed_ps: ps, rows_sent: 1, ..Measure::default() }
    }

    #[test]
    fn statements_with_one_digest_add_up_across_threads() {
        let d = std::sync::Arc::new(Digests::new(100, 1024));
        let threads: Vec<_> = (0..4)
            .map(|i| {
                let d = d.clone();
                std::thread::spawn(move || {
                    let slot = d.begin(Some("db"), "SELECT ?");
                    d.end(slot, &measure(1000 * (i + 1)), Instant::now())
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        let rows = d.rows();
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!((r.count, r.sum_ps, r.min_ps, r.max_ps, r.rows_sent), (4, 10_000, 1000, 4000, 4));
        assert_eq!(r.digest.as_ref().unwrap().len(), 32);
        assert_eq!(r.schema.as_deref(), Some("db"));
        d.clear();
        assert!(d.rows().is_empty());
    }

    #[test]
    fn a_full_shard_counts_new_digests_in_the_overflow_row() {
        let d = Digests::new(2, 1024);
        for i in 0..5 {
            let text = format!("SELECT {i}");
            let slot = d.begin(None, &text);
            d.end(slot, &measure(10), Instant::now());
        }
        let rows = d.rows();
        assert_eq!(rows.len(), 3, "{rows:?}");
        let overflow = rows.last().unwrap();
        assert_eq!((overflow.digest.as_deref(), overflow.count), (None, 3));
        // Each statement once in the overflow's sums (10 ps each).
        assert_eq!((overflow.sum_ps, overflow.rows_sent, overflow.min_ps, overflow.max_ps), (30, 3, 10, 10));
    }

    #[test]
    fn a_statement_running_across_truncate_is_not_counted_as_overflow() {
        let d = Digests::new(10, 1024);
        let slot = d.begin(None, "SELECT ?");
        d.clear();
        d.end(slot, &measure(10), Instant::now());
        assert!(d.rows().is_empty(), "{:?}", d.rows());
    }
}
