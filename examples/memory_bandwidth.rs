//! Sequential memory bandwidth by buffer size: reading, writing and copying buffers of 16 KiB
//! (inside a core's L1 data cache) to 64 MiB (beyond the last-level cache of most machines), in
//! bytes per second. As the buffer outgrows each cache level the rate drops: that staircase is
//! what this suite shows.
//!
//! It shows `args` of a type of your own (`Size`, shown as `16KiB` in the ids) and a throughput
//! computed from it (`throughput = bytes(size.bytes())`). Each benchmark allocates and touches
//! its buffers before measuring, so page faults are not part of what is measured, and the
//! buffers are warm in whichever cache holds them.
//!
//! ```sh
//! cargo run --release --example memory_bandwidth -- --bench          # every size
//! cargo run --release --example memory_bandwidth -- --bench read/    # reads only
//! lscpu | grep cache                                                 # this machine's cache sizes
//! ```
//!
//! What to look for: each row's throughput stays at tens of GB/s while the buffer fits in L1 or
//! L2 and falls by several times at the sizes beyond the last-level cache, where DRAM serves
//! every line; `write` and `copy` show the same staircase (`copy` counts each byte once, although
//! it is read once and written once). A `copy` row slower at a small size than at a larger one
//! is most likely the C library's `memcpy`, not the memory: glibc picks its copy method by size
//! (`rep movsb` for mid sizes, which some CPUs run slowly). This project's AMD EPYC VM copies 16
//! and 128 KiB at about 1 GiB/s and 512 KiB at about 10. A machine whose last-level cache is
//! larger than 64 MiB (some server parts) needs a larger last size in `SIZES` to show the DRAM
//! step. Counters that help explain the rows, where a PMU exists:
//! `--counters wall-time,cache-misses,instructions`.

use std::fmt;
use std::hint::black_box;

use perfbench::{perfbench, Bencher};

/// A buffer size in bytes, shown in ids as `16KiB` or `64MiB`.
#[derive(Clone, Copy, Debug)]
struct Size(usize);

impl Size {
    fn bytes(self) -> usize {
        self.0
    }

    /// The number of `u64` words in the buffer.
    fn words(self) -> usize {
        self.0 / std::mem::size_of::<u64>()
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 >= 1 << 20 {
            write!(f, "{}MiB", self.0 >> 20)
        } else {
            write!(f, "{}KiB", self.0 >> 10)
        }
    }
}

/// From L1 (tens of KiB per core) through L2 (hundreds of KiB to a few MiB) and the
/// last-level cache (a few to tens of MiB) to DRAM.
const SIZES: [Size; 7] = [
    Size(16 << 10),
    Size(128 << 10),
    Size(512 << 10),
    Size(2 << 20),
    Size(8 << 20),
    Size(32 << 20),
    Size(64 << 20),
];

/// A buffer of `size`, every page touched (written) before it is measured.
fn buffer(size: Size) -> Vec<u64> {
    (0..size.words() as u64).collect()
}

/// Reads every word once, summing them (the sum keeps the reads from being optimised away).
#[perfbench(args = SIZES, throughput = bytes(size.bytes()))]
fn read(b: &mut Bencher, size: Size) {
    let buf = buffer(size);
    b.iter(|| {
        black_box(&buf)
            .iter()
            .fold(0u64, |sum, &x| sum.wrapping_add(x))
    });
}

/// Writes every word once (a `fill`, which compiles to a `memset`-like loop).
#[perfbench(args = SIZES, throughput = bytes(size.bytes()))]
fn write(b: &mut Bencher, size: Size) {
    let mut buf = buffer(size);
    let value = black_box(0x5A5A_5A5A_5A5A_5A5A_u64);
    b.iter(|| {
        buf.fill(value);
        black_box(&mut buf); // the writes must happen: something may read them
    });
}

/// Copies one buffer into another (`copy_from_slice`, a `memcpy`): the bytes counted are the
/// buffer's size, although each is read once and written once.
#[perfbench(args = SIZES, throughput = bytes(size.bytes()))]
fn copy(b: &mut Bencher, size: Size) {
    let src = buffer(size);
    let mut dst = vec![0u64; size.words()];
    dst.fill(1); // touch every page of the destination before measuring
    b.iter(|| {
        dst.copy_from_slice(black_box(&src));
        black_box(&mut dst);
    });
}

perfbench::main!();
