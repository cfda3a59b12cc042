//! The HTML report's cost: rendering (and writing) the pages of a suite of 50 benchmarks with 6
//! counters each, 100 samples per counter, compared with a baseline whose samples are overlaid
//! (the heaviest page: two density curves per counter). Issue 11 asks for under 2 seconds.
//!
//! Run: `cargo bench -p perfbench-analysis --bench html_render` (`-- --quick` for a
//! short run). The figures are perfbench's own wall-time estimates of one whole render (and
//! render + write).

use perfbench::{black_box, perfbench, Bencher};
use perfbench_analysis::model::{
    Benchmark, Config, CounterResult, Machine, Outcome, Report, Sampling, Source,
};
use perfbench_analysis::report::html::{self, SuiteInput};
use perfbench_analysis::stats::{estimate, StatsConfig};

const BENCHMARKS: usize = 50;
const COUNTERS: [(&str, &str, Source); 6] = [
    ("wall-time", "ns", Source::Clock),
    ("instructions", "count", Source::Rdpmc),
    ("cycles", "count", Source::Rdpmc),
    ("branch-misses", "count", Source::Rdpmc),
    ("cache-misses", "count", Source::Rdpmc),
    ("task-clock", "ns", Source::Read),
];
const SAMPLES: usize = 100;

fn suite(seed: u64, scale: f64) -> Report {
    let mut rng = perfbench::rng::Rng::new(seed); // reproducible noise
    let cfg = StatsConfig {
        resamples: 100,
        ..StatsConfig::default()
    };
    let benchmarks = (0..BENCHMARKS)
        .map(|i| {
            let counters = COUNTERS
                .iter()
                .enumerate()
                .map(|(k, &(name, unit, source))| {
                    let centre = (1000.0 + 37.0 * i as f64) * (k + 1) as f64 * scale;
                    let values: Vec<f64> = (0..SAMPLES)
                        .map(|_| centre * (1.0 + 0.05 * rng.unit()))
                        .collect();
                    CounterResult {
                        name: name.into(),
                        unit: unit.into(),
                        source,
                        multiplexed: false,
                        estimate: estimate(&values, None, &cfg),
                        iterations: vec![1000; SAMPLES],
                        rounds: vec![20; SAMPLES / 20],
                        per_iteration: values,
                        overhead: 40.0,
                        change: None,
                    }
                })
                .collect();
            let name = format!("case_{i}");
            Benchmark {
                counters,
                ..Benchmark::new(
                    &format!("render/{name}"),
                    "render",
                    &name,
                    None,
                    Outcome::Measured,
                )
            }
        })
        .collect();
    Report::new(
        "render",
        Machine::default(),
        Config {
            sampling: Sampling::Flat,
            ..Config::default()
        },
        benchmarks,
    )
}

/// 50 benchmarks x 6 counters rendered to strings (301 pages, 900 plots).
#[perfbench(sample_size = 10, warm_up_time = 0.5, measurement_time = 10)]
fn render_50x6(b: &mut Bencher) {
    let (new, base) = (suite(1, 1.0), suite(2, 1.02));
    b.iter(|| {
        html::site(&[SuiteInput {
            report: black_box(&new),
            baseline: Some(&base),
        }])
    });
}

/// The same, written to disk (each page atomically, as a run writes them).
#[perfbench(sample_size = 10, warm_up_time = 0.5, measurement_time = 10)]
fn render_and_write_50x6(b: &mut Bencher) {
    let (new, base) = (suite(1, 1.0), suite(2, 1.02));
    let dir = std::env::temp_dir().join(format!("perfbench-html-render-{}", std::process::id()));
    b.iter(|| {
        html::site(&[SuiteInput {
            report: black_box(&new),
            baseline: Some(&base),
        }])
        .write(&dir)
        .unwrap()
    });
    let _ = std::fs::remove_dir_all(&dir);
}

perfbench::main!();
