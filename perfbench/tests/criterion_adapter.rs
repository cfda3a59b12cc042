//! The criterion adapter as a criterion user runs it: criterion 0.8 drives the benchmarks and
//! perfbench's counters measure them. A workload that touches K fresh pages reads exactly K
//! page-faults per iteration in criterion's own estimates, and criterion prints the unit.

use std::path::PathBuf;
use std::time::Duration;

use perfbench::criterion::criterion::{BatchSize, Criterion, Throughput};
use perfbench::criterion::{AdapterError, PerfMeasurement};
use perfbench::sys::AnonMapping;

fn out_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("criterion-adapter-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// criterion's mean estimate of `id`, from its `estimates.json`.
fn mean(dir: &std::path::Path, id: &str) -> f64 {
    let path = dir.join(id).join("new/estimates.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["mean"]["point_estimate"].as_f64().unwrap()
}

#[test]
fn k_fresh_pages_read_k_page_faults_per_iteration_through_criterion() {
    let m = PerfMeasurement::new("page-faults").expect("page-faults open everywhere");
    assert_eq!(
        m.source(),
        perfbench::Source::Read,
        "a software event is read with read(2)"
    );
    let dir = out_dir("pages");
    let mut c = Criterion::default()
        .with_measurement(m)
        .output_directory(&dir)
        .without_plots()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(50))
        .measurement_time(Duration::from_millis(300));
    for k in [1usize, 16, 64] {
        let mut group = c.benchmark_group("touch");
        group.throughput(Throughput::Bytes((k * perfbench::sys::page_size()) as u64));
        group.bench_function(format!("{k}"), |b| {
            b.iter_batched(
                || AnonMapping::new(k).unwrap(),
                |mut m| {
                    m.touch_every_page();
                    m
                },
                BatchSize::PerIteration,
            )
        });
        group.finish();
    }
    for k in [1usize, 16, 64] {
        let got = mean(&dir, &format!("touch/{k}"));
        // Exactly k, but for a stray fault the kernel may take in one of the hundreds of
        // iterations (a page migrated under the process), which moves the mean by a hundredth.
        assert!(
            (got - k as f64).abs() < 0.02,
            "touch/{k}: {got} page-faults per iteration"
        );
    }
}

#[test]
fn units_are_the_counters_and_bad_names_say_why() {
    use perfbench::criterion::criterion::measurement::Measurement;
    let m = PerfMeasurement::new("page-faults").unwrap();
    let f = m.formatter();
    assert_eq!(f.format_value(3.0).trim(), "3.0000 faults");
    assert!(f.format_value(2_500_000.0).trim().ends_with("Mfaults"));
    let t = f.format_throughput(&Throughput::Bytes(4096), 8192.0);
    assert!(t.trim().ends_with("faults/B"), "{t}");
    // Counts add up and scale like criterion's own values.
    assert_eq!(m.add(&2.0, &3.0), 5.0);
    assert_eq!(m.to_f64(&m.zero()), 0.0);
    let start = m.start();
    let mut mapping = AnonMapping::new(8).unwrap();
    mapping.touch_every_page();
    assert_eq!(m.end(start), 8.0);
    let g = PerfMeasurement::group(&["page-faults", "task-clock"], "task-clock").unwrap();
    assert!(g.formatter().format_value(1.0).contains("events"));
    assert!(matches!(
        PerfMeasurement::new("wall-time"),
        Err(AdapterError::WallTime)
    ));
    let e = PerfMeasurement::new("no-such-event")
        .unwrap_err()
        .to_string();
    assert!(e.contains("no-such-event"), "{e}");
    let e = PerfMeasurement::group(&["page-faults"], "cycles")
        .unwrap_err()
        .to_string();
    assert!(e.contains("not one of the group's counters"), "{e}");
}
