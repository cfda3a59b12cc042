//! perfbench measuring itself: what calibration leaves of an empty body, and exact software
//! counts. `cargo bench --bench accuracy`
//!
//! Expected: `empty` reads 0 page-faults and within 1 ns of 0 wall time per iteration;
//! `touch_pages/K` reads exactly K page-faults per iteration with zero variance.
use perfbench::sys::AnonMapping;
use perfbench::{perfbench, Bencher};

/// Nothing at all.
#[perfbench(counters = ["wall-time", "page-faults", "context-switches"])]
fn empty(b: &mut Bencher) {
    b.iter(|| ());
}

/// Touches K fresh pages per iteration; mapping and unmapping are not measured.
#[perfbench(args = [1, 16, 256], counters = ["page-faults", "wall-time"], sample_size = 30)]
fn touch_pages(b: &mut Bencher, pages: usize) {
    b.iter_batched(
        || AnonMapping::new(pages).expect("mmap"),
        |mut m| {
            m.touch_every_page();
            m
        },
    );
}

perfbench::main!();
