//! Bencher Metric Format: `perfbench export REPORT.json --format bmf`, the JSON that the
//! bencher.dev server (self-hosted or cloud) takes with `bencher run --adapter json`.
//!
//! ```json
//! {
//!   "quickstart/fib_20": {
//!     "latency": { "value": 25673.1, "lower_value": 25601.0, "upper_value": 25742.9 },
//!     "task-clock": { "value": 25650.2, "lower_value": 25590.7, "upper_value": 25711.3 },
//!     "page-faults": { "value": 0.0, "lower_value": 0.0, "upper_value": 0.0 }
//!   }
//! }
//! ```
//!
//! One benchmark per measured benchmark id, one measure per counter: the headline
//! ([`Estimate::point`](perfbench_analysis::model::Estimate::point)) and its confidence interval.
//! `wall-time` is Bencher's built-in `latency` measure (nanoseconds); every other counter is a
//! measure of its own name, which Bencher creates on first use. Benchmarks that panicked,
//! failed or were only tested, and counters without an estimate, are left out.

// The traits from `serde::ser`, the derive from `serde_derive`: `serde::Serialize` is also the
// derive macro when anything in the build enables serde's `derive` feature, and would clash.
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_derive::Serialize;

use perfbench_analysis::model::{Outcome, Report};

/// One metric of Bencher Metric Format.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Metric {
    /// The headline value.
    pub value: f64,
    /// The lower bound of its interval.
    pub lower_value: f64,
    /// The upper bound.
    pub upper_value: f64,
}

/// The measure name of a counter: `latency` for `wall-time`, the counter's name otherwise.
pub fn measure(counter: &str) -> &str {
    if counter == "wall-time" {
        "latency"
    } else {
        counter
    }
}

/// Each measured benchmark's metrics, in report order (the first of a repeated id).
pub fn metrics(report: &Report) -> Vec<(String, Vec<(String, Metric)>)> {
    let mut out: Vec<(String, Vec<(String, Metric)>)> = Vec::new();
    for b in &report.benchmarks {
        if b.outcome != Outcome::Measured || out.iter().any(|(id, _)| *id == b.id) {
            continue;
        }
        let metrics: Vec<(String, Metric)> = b
            .counters
            .iter()
            .filter_map(|c| {
                let e = c.estimate.filter(|e| e.point.is_finite())?;
                let m = Metric {
                    value: e.point,
                    lower_value: e.ci_low,
                    upper_value: e.ci_high,
                };
                Some((measure(&c.name).to_owned(), m))
            })
            .collect();
        if !metrics.is_empty() {
            out.push((b.id.clone(), metrics));
        }
    }
    out
}

/// The report as Bencher Metric Format JSON (pretty-printed, ending with a newline).
pub fn bmf(report: &Report) -> String {
    let doc = metrics(report);
    let nested: Vec<(&str, Ordered<'_, String, Metric>)> = doc
        .iter()
        .map(|(id, m)| (id.as_str(), Ordered(m)))
        .collect();
    perfbench_analysis::model::json::to_pretty(&Ordered(&nested)) + "\n"
}

/// `[(key, value)]` as a JSON object in the given order.
struct Ordered<'a, K, V>(&'a [(K, V)]);

impl<K: AsRef<str>, V: Serialize> Serialize for Ordered<'_, K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            map.serialize_entry(k.as_ref(), v)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfbench_analysis::model::fixtures::synthetic_report;

    #[test]
    fn one_measure_per_counter_in_report_order() {
        let report = synthetic_report();
        let text = bmf(&report);
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let obj = doc.as_object().unwrap();
        // Panicked and failed benchmarks are left out.
        let mut ids: Vec<&String> = obj.keys().collect();
        ids.sort();
        assert_eq!(ids, ["math/fib_20", "math/sum/4096"]);
        assert!(text.find("math/fib_20").unwrap() < text.find("math/sum/4096").unwrap());
        let fib = &doc["math/fib_20"];
        let wall = report.benchmarks[0]
            .counter("wall-time")
            .unwrap()
            .estimate
            .unwrap();
        assert_eq!(fib["latency"]["value"], wall.point);
        assert_eq!(fib["latency"]["lower_value"], wall.ci_low);
        assert_eq!(fib["latency"]["upper_value"], wall.ci_high);
        assert!(fib.get("wall-time").is_none());
        assert_eq!(fib["instructions"]["value"], 4523.0);
        // A counter without an estimate has no measure.
        assert!(fib.get("page-faults").is_none());
        // In counter order, wall time first as in the report.
        assert!(text.find("\"latency\"").unwrap() < text.find("\"instructions\"").unwrap());
        // Every measure has the three values Bencher's schema allows, all numbers.
        for m in obj.values().flat_map(|b| b.as_object().unwrap().values()) {
            let keys: Vec<&String> = m.as_object().unwrap().keys().collect();
            assert_eq!(keys.len(), 3);
            assert!(m["value"].is_number() && m["lower_value"].is_number());
        }
    }
}
