//! perfbench's counters inside a criterion benchmark (feature `criterion`): criterion drives the
//! run, its reports and its command line; a perfbench counter is what it measures.
//!
//! ```sh
//! cargo run --release --example criterion_adapter -- --bench          # instructions, or page-faults without a PMU
//! COUNTER=branch-misses cargo run --release --example criterion_adapter -- --bench
//! ```
use std::hint::black_box;

use perfbench::criterion::criterion::{BatchSize, Criterion, Throughput};
use perfbench::criterion::PerfMeasurement;

fn main() {
    let default = if perfbench::machine::Machine::cached().has_cpu_pmu() {
        "instructions"
    } else {
        "page-faults"
    };
    let counter = std::env::var("COUNTER").unwrap_or_else(|_| default.to_owned());
    let measurement = match PerfMeasurement::new(&counter) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    eprintln!("measuring {counter} via {}", measurement.source());
    let mut c = Criterion::default()
        .with_measurement(measurement)
        .configure_from_args();
    let mut group = c.benchmark_group("adapter");
    // 256 fresh pages, each written once: 256 page faults per iteration (the mapping is made
    // and dropped outside the measurement).
    group.throughput(Throughput::Bytes(256 * perfbench::sys::page_size() as u64));
    group.bench_function("touch_256_pages", |b| {
        b.iter_batched(
            || perfbench::sys::AnonMapping::new(256).expect("mmap"),
            |mut m| {
                m.touch_every_page();
                m
            },
            BatchSize::PerIteration,
        )
    });
    // Sorting touches no fresh page: only worth measuring with a hardware counter.
    if counter != "page-faults" {
        group.throughput(Throughput::Elements(1000));
        group.bench_function("sort_1000", |b| {
            b.iter_batched(
                || (0..1000u32).rev().collect::<Vec<_>>(),
                |mut v| {
                    v.sort_unstable();
                    black_box(v)
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
    c.final_summary();
}
