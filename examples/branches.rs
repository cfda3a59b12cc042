//! Branchy against branchless code, on random and on sorted data: the classic "why is
//! processing a sorted array faster" case. Both functions sum the bytes of a 64 KiB buffer that
//! are at least 128; `branchy` decides with an `if` per byte, `branchless` with arithmetic.
//!
//! On random bytes the `if` goes either way at random: the branch predictor guesses wrong about
//! half the time, and each wrong guess throws away the work of a dozen or more cycles. On sorted
//! bytes the same branch is taken in one long run and then not taken in another: it is almost
//! never mispredicted. The branchless version has no data-dependent branch at all, so its speed
//! does not depend on the order of the data.
//!
//! The benchmarks ask for `branches` and `branch-misses` (and `instructions`) next to wall time:
//! where the machine has a hardware PMU, `branchy/random` shows about one miss per two bytes
//! (tens of thousands per iteration) and `branchy/sorted` next to none, which is the explanation
//! of the wall-time difference. On a machine without one (most VMs and CI runners: `perfbench
//! doctor` says which you have) those counters are left out with a note saying why, and the
//! wall-time rows alone still show the difference: `branchy/random` several times slower than
//! `branchy/sorted`, and `branchless` the same on both.
//!
//! ```sh
//! cargo run --release --example branches -- --bench
//! cargo run --release --example branches -- --bench random           # the random inputs only
//! cargo run --release --example branches -- --bench --counters wall-time,branch-misses
//! ```
//!
//! (With `--counters`, every counter named must open, else the run stops with exit 2 and the
//! reason: a way to make sure a CI machine really measures branch misses.)

use std::fmt;
use std::hint::black_box;

use perfbench::{perfbench, Bencher};

/// Bytes per input.
const LEN: usize = 64 * 1024;

/// The inputs of each benchmark: `branchy/random`, `branchy/sorted`.
const ORDERS: [Order; 2] = [Order::Random, Order::Sorted];

/// The order of an input's bytes.
#[derive(Clone, Copy, Debug)]
enum Order {
    /// Uniformly random bytes.
    Random,
    /// The same bytes, sorted.
    Sorted,
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Order::Random => "random",
            Order::Sorted => "sorted",
        })
    }
}

/// `LEN` bytes in `order`: the same bytes for both orders (a fixed seed), so the sums agree.
fn input(order: Order) -> Vec<u8> {
    let mut state = 0x2545_F491_4F6C_DD1D_u64;
    let mut bytes: Vec<u8> = (0..LEN)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 56) as u8
        })
        .collect();
    if let Order::Sorted = order {
        bytes.sort_unstable();
    }
    bytes
}

/// Sums the bytes that are at least 128, deciding with a branch per byte.
///
/// The `black_box` inside the `if` is what keeps it a branch: for a body this small the
/// compiler would otherwise turn the `if` into a conditional move or vector code, which is
/// exactly the branchless version below.
fn sum_branchy(bytes: &[u8]) -> u64 {
    let mut sum = 0u64;
    for &b in bytes {
        if b >= 128 {
            sum += black_box(u64::from(b));
        }
    }
    sum
}

/// The same sum without a data-dependent branch: `b >= 128` becomes a mask of all ones or all
/// zeros, and every byte is added through it.
fn sum_branchless(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .map(|&b| {
            let mask = u64::from(b >= 128).wrapping_neg(); // 0 or 0xFFFF_FFFF_FFFF_FFFF
            u64::from(b) & mask
        })
        .sum()
}

#[perfbench(
    args = ORDERS,
    throughput = elements(LEN as u64),
    counters = ["wall-time", "instructions", "branches", "branch-misses"]
)]
fn branchy(b: &mut Bencher, order: Order) {
    let bytes = input(order);
    b.iter(|| sum_branchy(black_box(&bytes)));
}

#[perfbench(
    args = ORDERS,
    throughput = elements(LEN as u64),
    counters = ["wall-time", "instructions", "branches", "branch-misses"]
)]
fn branchless(b: &mut Bencher, order: Order) {
    let bytes = input(order);
    assert_eq!(
        sum_branchless(&bytes),
        sum_branchy(&bytes),
        "the two versions must compute the same sum"
    );
    b.iter(|| sum_branchless(black_box(&bytes)));
}

perfbench::main!();
