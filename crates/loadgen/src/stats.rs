//! Latency histograms and error counts, merged across threads and printed as JSON.

use std::collections::BTreeMap;

use hdrhistogram::Histogram;
use serde_json::{json, Value};

/// Latencies in microseconds, 1 µs .. 1 hour, 3 significant digits.
pub fn new_hist() -> Histogram<u64> {
    Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).expect("histogram bounds are valid")
}

#[derive(Default)]
pub struct Errors(pub BTreeMap<String, u64>);

impl Errors {
    pub fn add(&mut self, kind: impl Into<String>) {
        *self.0.entry(kind.into()).or_insert(0) += 1;
    }

    pub fn merge(&mut self, other: &Errors) {
        for (k, v) in &other.0 {
            *self.0.entry(k.clone()).or_insert(0) += v;
        }
    }

    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }

    pub fn to_json(&self) -> Value {
        json!(self.0)
    }
}

/// p50/p90/p99/p99.9/max/mean in milliseconds.
pub fn hist_json(h: &Histogram<u64>) -> Value {
    if h.is_empty() {
        return json!({"count": 0});
    }
    let ms = |v: u64| (v as f64) / 1000.0;
    json!({
        "count": h.len(),
        "p50_ms": ms(h.value_at_quantile(0.50)),
        "p90_ms": ms(h.value_at_quantile(0.90)),
        "p99_ms": ms(h.value_at_quantile(0.99)),
        "p999_ms": ms(h.value_at_quantile(0.999)),
        "max_ms": ms(h.max()),
        "mean_ms": h.mean() / 1000.0,
    })
}

pub fn record(h: &mut Histogram<u64>, us: u64) {
    // saturate instead of failing on an out-of-range value
    let v = us.clamp(1, 3_600_000_000);
    let _ = h.record(v);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_merge() {
        let mut h = new_hist();
        for v in 1..=1000u64 {
            record(&mut h, v * 1000);
        }
        let j = hist_json(&h);
        assert_eq!(j["count"], 1000);
        let p50 = j["p50_ms"].as_f64().unwrap();
        assert!((p50 - 500.0).abs() < 2.0, "{p50}");
        let p999 = j["p999_ms"].as_f64().unwrap();
        assert!((p999 - 999.0).abs() < 2.0, "{p999}");
        let mut e = Errors::default();
        e.add("ERR 1040");
        let mut f = Errors::default();
        f.add("ERR 1040");
        f.add("ECONNRESET");
        e.merge(&f);
        assert_eq!(e.0["ERR 1040"], 2);
        assert_eq!(e.total(), 3);
        record(&mut h, 0); // clamped, not a panic
    }
}
