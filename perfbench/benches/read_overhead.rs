//! perfbench's own read overhead, measured side by side in one run.
//!
//! 1. One read of a 3-counter software group (page-faults, task-clock, context-switches) through
//!    `Group::read` against a bare `libc::read` of the same group descriptor.
//! 2. The fast-path reader (seqlock loop over 3 user pages) against a simulated page, next to
//!    `clock_gettime(CLOCK_MONOTONIC)` for scale. The real `rdpmc`/`mrs` instruction is not
//!    part of this figure (this machine has no PMU): it measures perfbench's own code.
//!
//! 3. The bracket of `iter_batched` with one input per bracket: the loop of
//!    `Bencher::iter_batched_with(.., BatchSize::PerIteration)` (setup, `Meter::start`, the
//!    routine, `Meter::stop`, drop) with an empty routine, through the harness's own `Meter`
//!    over the 3-counter software group (`read(2)`: this machine has no PMU, so this is the
//!    fallback a hardware group takes without the fast path) against the same loop with a
//!    meter over no counters (an empty `iter_batched`). The difference is the bracket's
//!    wall-time cost per iteration. (Its instruction count with the fast path is a figure of
//!    the arm64 guest, `bash .ci/arm64/run.sh`: `suite iter_batched bracket per iteration`.)
//!
//! Blocks of each variant alternate, in alternating order, for many rounds; the figure is the
//! median of the per-round ratios, so drift of the shared machine cancels out.
//!
//! Run: `cargo bench -p perfbench --bench read_overhead` (`-- --quick` for a short run).

use std::hint::black_box;
use std::os::fd::AsRawFd;
use std::time::Instant;

use perfbench::counters::userpage::{sim, FastReader};
use perfbench::counters::{Group, GroupOptions, Reading};
use perfbench::events::{parse_list, Sysfs};
use perfbench::harness::Meter;

fn ns_per_op(iters: u32, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..iters {
        f();
    }
    t.elapsed().as_nanos() as f64 / f64::from(iters)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn quartiles(v: &mut [f64]) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    (v[n / 4], v[(3 * n) / 4])
}

/// Runs `a` and `b` in alternating blocks and returns (median ns of a, median ns of b, ratios).
fn side_by_side(
    rounds: usize,
    iters: u32,
    mut a: impl FnMut(),
    mut b: impl FnMut(),
) -> (f64, f64, Vec<f64>) {
    // Warm up both.
    ns_per_op(iters, &mut a);
    ns_per_op(iters, &mut b);
    let (mut ta, mut tb, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (x, y) = if round % 2 == 0 {
            let x = ns_per_op(iters, &mut a);
            (x, ns_per_op(iters, &mut b))
        } else {
            let y = ns_per_op(iters, &mut b);
            (ns_per_op(iters, &mut a), y)
        };
        ta.push(x);
        tb.push(y);
        ratios.push(x / y);
    }
    (median(&mut ta), median(&mut tb), ratios)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (rounds, iters) = if quick { (11, 2_000) } else { (61, 20_000) };

    let events = parse_list("page-faults,task-clock,context-switches", &Sysfs::system())
        .expect("software events parse");
    let mut group = Group::open(&events, &GroupOptions::default()).expect("software group opens");
    group.enable().expect("enable");
    let fd = group.as_raw_fd();
    let mut reading = Reading::with_len(events.len());
    let mut bare = [0u64; 3 + 2 * 3];

    println!("read overhead ({rounds} rounds x {iters} reads, alternating blocks)\n");
    let (pb, raw, mut ratios) = side_by_side(
        rounds,
        iters,
        || {
            group.read(&mut reading).expect("read");
            black_box(&reading);
        },
        || {
            // SAFETY: reading into a local buffer of the size passed, from a live descriptor.
            let n =
                unsafe { libc::read(fd, bare.as_mut_ptr().cast(), std::mem::size_of_val(&bare)) };
            black_box((n, &bare));
        },
    );
    let ratio = median(&mut ratios);
    let (q1, q3) = quartiles(&mut ratios);
    println!("3-counter software group, read(2) path:");
    println!("  perfbench Group::read   {pb:8.1} ns/read");
    println!("  bare libc::read         {raw:8.1} ns/read");
    println!(
        "  ratio (median of rounds) {ratio:.3}  (quartiles {q1:.3}..{q3:.3}; target <= 1.10)\n"
    );

    let pages: Vec<sim::SimPage> = (1..=3)
        .map(|index| {
            sim::SimPage::new(sim::PageFields {
                index,
                ..sim::PageFields::default()
            })
        })
        .collect();
    let fast = FastReader::new(pages, sim::SimRegisters::new(3, 48));
    let mut out = [0u64; 3];
    let (fast_ns, clock_ns, mut fratios) = side_by_side(
        rounds,
        iters * 10,
        || {
            black_box(fast.read(&mut out));
        },
        || {
            black_box(perfbench::sys::monotonic_ns());
        },
    );
    let fratio = median(&mut fratios);
    println!("fast-path reader, 3 members, simulated page (no rdpmc/mrs instruction):");
    println!("  FastReader::read        {fast_ns:8.1} ns/read");
    println!("  clock_gettime           {clock_ns:8.1} ns/call");
    println!("  ratio (median of rounds) {fratio:.3}\n");

    // iter_batched, one input per bracket, empty routine: the body of the harness's batched
    // loop with a meter over the software group and with a meter over nothing.
    #[inline(never)]
    fn batched_per_iteration(meter: &mut Meter<'_>, n: u32) {
        for _ in 0..n {
            let input = black_box(0u8);
            meter.start();
            let output = black_box(input);
            meter.stop();
            black_box(output);
        }
    }
    let mut groups = [group];
    let mut counted = Meter::over_groups(&mut groups);
    let mut nothing = Meter::over_groups(&mut []);
    let batch = 100;
    let (with_ns, empty_ns, _) = side_by_side(
        rounds,
        iters / batch,
        || batched_per_iteration(&mut counted, batch),
        || batched_per_iteration(&mut nothing, batch),
    );
    let (with_ns, empty_ns) = (with_ns / f64::from(batch), empty_ns / f64::from(batch));
    println!("iter_batched, one input per bracket, empty routine (per iteration):");
    println!("  bracket of the 3-counter software group (read(2)) {with_ns:8.1} ns");
    println!("  empty iter_batched (a meter over no counters)     {empty_ns:8.1} ns");
    println!(
        "  the bracket's cost                                {:8.1} ns",
        with_ns - empty_ns
    );
}
