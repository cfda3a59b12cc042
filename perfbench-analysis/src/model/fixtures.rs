//! Reports for tests, made by code: a synthetic report with every shape of the document, and
//! the documents earlier versions of perfbench wrote, rebuilt from it.

use super::json::to_json;
use super::*;
use crate::stats::{self, StatsConfig};

/// A report exercising every shape of the document: a measured benchmark with five counters
/// (one multiplexed, one without samples) and `ipc`, linear sampling, a parameterised one with
/// throughput on 4 threads and a flame (as a simulated run has; its function names have `<`,
/// `&` and `;`), a panicked and a failed one, and NaN in the raw values.
pub fn synthetic_report() -> Report {
    let cfg = StatsConfig {
        resamples: 100,
        ..StatsConfig::default()
    };
    let counter = |name: &str, unit: &str, source, values: Vec<f64>| {
        let iterations: Vec<u64> = (1..=values.len() as u64).map(|i| i * 100).collect();
        CounterResult {
            name: name.to_owned(),
            unit: unit.to_owned(),
            source,
            multiplexed: name == "cycles",
            estimate: stats::estimate(&values, Some(&iterations), &cfg),
            rounds: vec![10, 10],
            per_iteration: values,
            iterations,
            overhead: 41.0,
            change: None,
        }
    };
    let wall: Vec<f64> = (0..20).map(|i| 1200.0 + f64::from(i % 5) * 10.0).collect();
    let mut wall_outlier = wall.clone();
    wall_outlier[3] = 5000.0;
    let instructions = vec![4523.0; 20];
    let cycles: Vec<f64> = (0..20).map(|i| 3800.0 + f64::from(i % 3)).collect();
    let ipc: Vec<f64> = instructions
        .iter()
        .zip(&cycles)
        .map(|(i, c)| i / c)
        .collect();
    let mut misses = vec![0.25; 20];
    misses[7] = f64::NAN;
    let fib = Benchmark {
        counters: vec![
            counter("wall-time", "ns", Source::Clock, wall_outlier),
            counter("instructions", "count", Source::Rdpmc, instructions),
            counter("cycles", "count", Source::Rdpmc, cycles),
            counter("branch-misses", "count", Source::Read, misses),
            CounterResult {
                name: "page-faults".into(),
                unit: "count".into(),
                source: Source::Read,
                multiplexed: false,
                per_iteration: vec![],
                iterations: vec![],
                rounds: vec![],
                overhead: f64::NAN,
                estimate: None,
                change: None,
            },
        ],
        derived: vec![Derived {
            name: "ipc".into(),
            estimate: stats::estimate(&ipc, None, &cfg),
            per_sample: ipc,
        }],
        ..Benchmark::new("math/fib_20", "math", "fib_20", None, Outcome::Measured)
    };
    let stack = |frames: Vec<u32>, counts: Vec<u64>| FlameStack { frames, counts };
    let sum = Benchmark {
        throughput: Some(Throughput::Bytes(4096 * 8)),
        threads: Some(4),
        counters: vec![counter("wall-time", "ns", Source::Clock, wall)],
        flame: Some(Flame {
            iterations: 40,
            counters: vec!["instructions".into(), "branches".into()],
            frames: vec![
                "math/sum/4096".into(),
                "<&[u64; 4] as core::iter::Sum>::sum".into(),
                "core::ops::Add::add".into(),
            ],
            stacks: vec![
                stack(vec![0], vec![80, 0]),
                stack(vec![0, 1], vec![163_840, 40_960]),
                stack(vec![0, 1, 2], vec![327_680, 0]),
            ],
        }),
        ..Benchmark::new(
            "math/sum/4096",
            "math",
            "sum",
            Some("4096"),
            Outcome::Measured,
        )
    };
    let boom = Benchmark {
        throughput: Some(Throughput::Elements(10)),
        error: Some("index out of bounds: \"len\" is 3".into()),
        ..Benchmark::new("io/boom", "io", "boom", None, Outcome::Panicked)
    };
    let failed = Benchmark {
        error: Some("counter `cycles` failed: ENODEV".into()),
        ..Benchmark::new("io/gone", "io", "gone", None, Outcome::Failed)
    };
    Report {
        perfbench_version: "0.1.0".into(),
        ..Report::new(
            "demo",
            Machine {
                cpu: "Test CPU @ 3.0GHz".into(),
                arch: "x86_64".into(),
                kernel: "6.1.0-test".into(),
                cpus: 2,
                pmus: vec!["cpu".into(), "software".into()],
                core_pmus: vec!["cpu".into()],
                paranoid: Some(2),
                sources: vec![
                    ("wall-time".into(), Source::Clock),
                    ("instructions".into(), Source::Rdpmc),
                    ("branch-misses".into(), Source::Read),
                ],
                simulator: None,
            },
            Config {
                sample_size: 20,
                warm_up_time: 0.3,
                measurement_time: 1.5,
                sampling: Sampling::Linear,
                counters: vec!["wall-time".into(), "instructions".into()],
                confidence: 0.95,
                resamples: 100,
                rounds: 2,
                precision: None,
            },
            vec![fib, sum, boom, failed],
        )
    }
}

/// `report` as the first perfbench (commit 43453b4, schema version 1) wrote it: the estimate
/// had neither `point` nor `excluded` (both came with 6eaf29e), and a benchmark had no
/// `threads`. Everything else had the shape and order it has today.
pub fn written_by_43453b4(report: &Report) -> String {
    // Today's layout has one estimate member per line, `point` first and `excluded` last, and
    // `threads` on a line of its own between `throughput` and `outcome`.
    let text = to_json(report);
    let mut out: Vec<&str> = Vec::new();
    for line in text.lines() {
        let member = line.trim_start();
        if member.starts_with("\"point\": ") || member.starts_with("\"threads\": ") {
            continue;
        }
        if member.starts_with("\"excluded\": ") {
            // The member before it (`outliers`) loses its comma.
            if let Some(prev) = out.pop() {
                out.push(prev.strip_suffix(',').unwrap_or(prev));
            }
            continue;
        }
        out.push(line);
    }
    out.join("\n")
}
