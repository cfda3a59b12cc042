//! Counting allocations: collecting into a `Vec` with and without reserving its capacity, and
//! building a `String` with `format!` against `push_str` into a reused buffer.
//!
//! It shows:
//! - the one line that installs perfbench's counting allocator (around the system allocator
//!   here; `CountingAlloc::new(mimalloc::MiMalloc)` wraps any other), after which every
//!   benchmark reports `alloc-count`, `alloc-bytes`, `dealloc-count`, `realloc-count` and
//!   `alloc-peak-bytes` per iteration beside its other counters;
//! - that these counts are exact: the same in every sample and on every machine, with or
//!   without a PMU, so a CI gate on "one allocation more" works anywhere.
//!
//! ```sh
//! cargo run --release --example allocations -- --bench
//! ```
//!
//! What to look for: `collect/grow` reallocates as the vector doubles (about log2(n)
//! reallocations, and a peak near twice the final size while the old buffer is copied), where
//! `collect/reserved` allocates once; `text/format` allocates a new `String` every iteration,
//! `text/reused` none at all.

use std::fmt::Write as _;
use std::hint::black_box;

use perfbench::{perfbench, Bencher};

#[global_allocator]
static ALLOC: perfbench::CountingAlloc = perfbench::CountingAlloc::system();

/// Pushes `n` values into a vector that starts empty: it grows by doubling.
#[perfbench(group = "collect", args = [1000])]
fn grow(n: u64) -> Vec<u64> {
    let mut v = Vec::new();
    for i in 0..black_box(n) {
        v.push(i);
    }
    v
}

/// The same with the capacity reserved first: one allocation.
#[perfbench(group = "collect", args = [1000])]
fn reserved(n: u64) -> Vec<u64> {
    let mut v = Vec::with_capacity(n as usize);
    for i in 0..black_box(n) {
        v.push(i);
    }
    v
}

/// A new `String` per iteration.
#[perfbench(group = "text")]
fn format() -> usize {
    format!("{}-{}", black_box(12345), black_box("abc")).len()
}

/// The same text written into a buffer kept across iterations: no allocation.
#[perfbench(group = "text")]
fn reused(b: &mut Bencher) {
    let mut s = String::with_capacity(64);
    b.iter(|| {
        s.clear();
        write!(s, "{}-{}", black_box(12345), black_box("abc")).unwrap();
        s.len()
    });
}

perfbench::main!();
