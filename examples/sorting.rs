//! The standard library's sorts across input sizes and input shapes: `slice::sort` (stable, a
//! merge sort that finds runs) against `slice::sort_unstable` (pattern-defeating quicksort), on
//! random, already sorted, reversed and few-distinct-values inputs of 100, 10,000 and 1,000,000
//! `u64`s.
//!
//! It shows:
//! - `args` from a function (`args = inputs()`) whose values are a type of your own, shown in the
//!   ids through its `Display` (`sorting/unstable/random/10000`);
//! - a throughput that follows the argument (`throughput = elements(input.len)`), so the report
//!   shows elements per second and the sizes compare at a glance;
//! - `iter_batched`: every iteration sorts a fresh copy of the input (sorting the same vector
//!   again would measure the already-sorted case); making and dropping the copies is not
//!   measured.
//!
//! ```sh
//! cargo run --release --example sorting -- --bench            # measure everything (a minute or two)
//! cargo run --release --example sorting -- --bench /random/   # only the random inputs
//! cargo run --release --example sorting -- --list             # the ids
//! ```
//!
//! What to look for: both sorts finish a sorted or reversed input in linear time (they detect
//! the run), so those rows show many times the elements per second of the random ones; on random
//! input `sort_unstable` is usually faster than `sort`, which also allocates a buffer of half the
//! input; with few distinct values `sort_unstable` groups equal elements and gains again.

use std::fmt;

use perfbench::{perfbench, Bencher};

/// The order an input comes in.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// Uniformly random values.
    Random,
    /// Already in ascending order.
    Sorted,
    /// In descending order.
    Reversed,
    /// Random, but only 16 distinct values.
    FewUnique,
}

/// One input of a benchmark: its shape and its length.
#[derive(Clone, Copy, Debug)]
struct Input {
    shape: Shape,
    len: usize,
}

/// The id shows an input as `SHAPE/LEN`: `random/10000`.
impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = match self.shape {
            Shape::Random => "random",
            Shape::Sorted => "sorted",
            Shape::Reversed => "reversed",
            Shape::FewUnique => "few_unique",
        };
        write!(f, "{shape}/{}", self.len)
    }
}

impl Input {
    /// The input's values: the same on every call (a fixed seed), so every sample sorts the
    /// same data.
    fn values(self) -> Vec<u64> {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || {
            // xorshift64*: fast, and good enough to defeat a sort's pattern detection.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_F491_4F6C_DD1D)
        };
        let len = self.len as u64;
        match self.shape {
            Shape::Random => (0..len).map(|_| next()).collect(),
            Shape::Sorted => (0..len).collect(),
            Shape::Reversed => (0..len).rev().collect(),
            Shape::FewUnique => (0..len).map(|_| next() % 16).collect(),
        }
    }
}

/// Every shape at every size: 100 elements (800 bytes, in L1), 10,000 (80 KB, about L2) and
/// 1,000,000 (8 MB, in or beyond the last-level cache).
fn inputs() -> Vec<Input> {
    let shapes = [
        Shape::Random,
        Shape::Sorted,
        Shape::Reversed,
        Shape::FewUnique,
    ];
    [100, 10_000, 1_000_000]
        .into_iter()
        .flat_map(|len| shapes.map(|shape| Input { shape, len }))
        .collect()
}

/// `slice::sort`: stable, allocates a scratch buffer.
#[perfbench(args = inputs(), throughput = elements(input.len))]
fn stable(b: &mut Bencher, input: Input) {
    let values = input.values(); // made once, cloned for each iteration outside the measurement
    b.iter_batched(
        || values.clone(),
        |mut v| {
            v.sort();
            v // returned, so it is dropped outside the measurement too
        },
    );
}

/// `slice::sort_unstable`: in place, no allocation.
#[perfbench(args = inputs(), throughput = elements(input.len))]
fn unstable(b: &mut Bencher, input: Input) {
    let values = input.values();
    b.iter_batched(
        || values.clone(),
        |mut v| {
            v.sort_unstable();
            v
        },
    );
}

/// Sorting records by a key (`sort_unstable_by_key`), the common case in real code: 10,000
/// `(u32, String)` pairs by their number. Moving 32-byte records costs more than moving `u64`s.
#[perfbench(throughput = elements(10_000))]
fn records_by_key(b: &mut Bencher) {
    let records: Vec<(u32, String)> = Input {
        shape: Shape::Random,
        len: 10_000,
    }
    .values()
    .into_iter()
    .map(|x| (x as u32, format!("record {x:x}")))
    .collect();
    b.iter_batched_ref(
        || records.clone(),
        |v| v.sort_unstable_by_key(|(key, _)| *key),
    );
}

perfbench::main!();
