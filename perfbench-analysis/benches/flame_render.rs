//! The flame graphs' cost: drawing the SVG flame graphs of a simulated suite of 50 benchmarks,
//! each with a graph per default simulated counter (9), each of 300 call paths up to 16 calls
//! deep with names as long as Rust's and counts spread as a profile's are (a few paths hold most
//! of the cost, many hold little): 450 graphs. Issue 36 asks for under 2 seconds.
//!
//! Run: `cargo bench -p perfbench-analysis --bench flame_render` (`-- --quick` for a short
//! run). The figures are perfbench's own wall-time estimates of one whole suite's graphs drawn
//! to strings on every core (and drawn and written, with the pages, as a run writes its HTML
//! report).

use perfbench::{black_box, perfbench, Bencher};
use perfbench_analysis::model::{
    Benchmark, Config, Flame, FlameStack, Machine, Outcome, Report, Sampling,
};
use perfbench_analysis::report::flame::{self, Graph};
use perfbench_analysis::report::html::{self, SuiteInput};

const BENCHMARKS: usize = 50;
/// The default simulated counters (docs/simulate.md).
const COUNTERS: [&str; 9] = [
    "instructions",
    "branches",
    "branch-misses",
    "L1-dcache-load-misses",
    "L1-dcache-store-misses",
    "L1-icache-load-misses",
    "LLC-load-misses",
    "LLC-store-misses",
    "estimated-cycles",
];
const PATHS: usize = 300;
const DEPTH: usize = 16;

/// A flame of `PATHS` call paths below `root`: each path a random walk down a tree of 200
/// functions with generic names, each with random counts, most of them small (`u^4`).
fn flame(root: &str, rng: &mut perfbench::rng::Rng) -> Flame {
    let mut frames = vec![root.to_owned()];
    frames.extend((0..200).map(|f| {
        format!(
            "<alloc::vec::Vec<T,A> as core::iter::traits::collect::Extend<&T>>::extend::\
             module_{}::function_{f}",
            f % 7
        )
    }));
    let mut stacks: Vec<FlameStack> = Vec::new();
    while stacks.len() < PATHS {
        let depth = 1 + (rng.unit() * DEPTH as f64) as usize;
        let mut path = vec![0u32];
        for d in 0..depth {
            // A narrow choice near the root, a wider one deeper: a tree, not a fan.
            let width = 2 + 12 * d;
            path.push(1 + ((rng.unit() * width as f64) as u32 + 7 * d as u32) % 200);
        }
        if stacks.iter().any(|s| s.frames == path) {
            continue;
        }
        let counts = COUNTERS
            .iter()
            .map(|_| (rng.unit().powi(4) * 1_000_000.0) as u64)
            .collect();
        stacks.push(FlameStack {
            frames: path,
            counts,
        });
    }
    Flame {
        iterations: 5 * 64,
        counters: COUNTERS.iter().map(|&c| c.to_owned()).collect(),
        frames,
        stacks,
    }
}

fn suite() -> Report {
    let mut rng = perfbench::rng::Rng::new(36); // reproducible
    let benchmarks = (0..BENCHMARKS)
        .map(|i| {
            let name = format!("case_{i}");
            let id = format!("flames/{name}");
            Benchmark {
                flame: Some(flame(&id, &mut rng)),
                ..Benchmark::new(&id, "flames", &name, None, Outcome::Measured)
            }
        })
        .collect();
    Report::new(
        "flames",
        Machine::default(),
        Config {
            sampling: Sampling::Flat,
            ..Config::default()
        },
        benchmarks,
    )
}

/// 50 benchmarks x 9 counters: 450 SVG flame graphs drawn to strings, as the HTML report
/// draws them (on every core).
#[perfbench(sample_size = 10, warm_up_time = 0.5, measurement_time = 10)]
fn draw_50x9(b: &mut Bencher) {
    let report = suite();
    let graphs: Vec<Graph> = report
        .benchmarks
        .iter()
        .flat_map(|b| {
            let f = b.flame.as_ref().unwrap();
            f.counters.iter().map(move |c| Graph::Of(f, c))
        })
        .collect();
    b.iter(|| flame::draw_all(black_box(&graphs)));
}

/// The same suite's HTML report, its 450 graphs with it, rendered and written to disk.
#[perfbench(sample_size = 10, warm_up_time = 0.5, measurement_time = 10)]
fn report_and_write_50x9(b: &mut Bencher) {
    let report = suite();
    let dir = std::env::temp_dir().join(format!("perfbench-flame-render-{}", std::process::id()));
    b.iter(|| {
        html::site(&[SuiteInput {
            report: black_box(&report),
            baseline: None,
        }])
        .write(&dir)
        .unwrap()
    });
    let _ = std::fs::remove_dir_all(&dir);
}

perfbench::main!();
