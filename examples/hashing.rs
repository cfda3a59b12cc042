//! Three hash functions over byte strings of 8 bytes to 64 KiB, in bytes per second, and the
//! same three as a `HashMap`'s hasher:
//! - SipHash-1-3, the standard library's `DefaultHasher` (what `HashMap` uses by default: keyed,
//!   so that an attacker who picks the keys cannot force collisions);
//! - an FxHash-like hasher written below (rustc's own hash: eight bytes per step, one rotate,
//!   xor and multiply; fast, and not collision-resistant against chosen keys);
//! - FNV-1a (one xor and one multiply per byte: simple, and quick only on short inputs).
//!
//! It shows `args` with a throughput that follows the argument (`throughput = bytes(len)`:
//! the report's throughput row is bytes per second, so sizes compare directly) and `types`, one
//! benchmark per hasher for a generic function (`hashing/map_insert/RandomState`, ...). No crate
//! beyond perfbench is needed: the two fast hashers are a dozen lines each.
//!
//! ```sh
//! cargo run --release --example hashing -- --bench                 # measure everything
//! cargo run --release --example hashing -- --bench /65536          # only the 64 KiB inputs
//! cargo run --release --example hashing -- --bench map_insert      # only the HashMap benchmarks
//! ```
//!
//! What to look for: on short inputs (8 and 64 bytes, the size of most hash-map keys) the cost
//! of SipHash is mostly its fixed setup and finalisation rounds, and the Fx-like hasher is several
//! times faster: the reason rustc and many programs with small keys use FxHash. On long inputs
//! both are limited by a chain of dependent operations per 8 bytes and the gap narrows to well
//! under 2x. FNV-1a, one byte per step, is quick on 8 bytes and the slowest of the three from 64
//! bytes on. `map_insert` shows the short-key case inside a real `HashMap`.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher, Hasher, RandomState};
use std::hint::black_box;

use perfbench::{perfbench, Bencher};

/// The input sizes in bytes: a short key, a cache line, and larger buffers up to 64 KiB.
const SIZES: [usize; 5] = [8, 64, 512, 4096, 65536];

/// FxHash's scheme: fold eight bytes at a time with a rotate, an xor and a multiply.
#[derive(Default)]
struct FxLike(u64);

impl FxLike {
    /// rustc-hash's 64-bit multiplier.
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl Hasher for FxLike {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().unwrap()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// FNV-1a, 64 bits: per byte, xor it in and multiply by the FNV prime.
struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325) // the FNV offset basis
    }
}

impl Hasher for Fnv1a {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// `len` bytes of made-up data (the hashers do not look at the values' distribution).
fn data(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i.wrapping_mul(31) ^ (i >> 3)) as u8)
        .collect()
}

/// Hashes `bytes` with a fresh hasher of type `H`: what a hash table does for each key.
fn hash<H: Hasher + Default>(bytes: &[u8]) -> u64 {
    let mut hasher = H::default();
    hasher.write(bytes);
    hasher.finish()
}

/// SipHash-1-3 (`std::hash::DefaultHasher`).
#[perfbench(args = SIZES, throughput = bytes(len))]
fn siphash(b: &mut Bencher, len: usize) {
    let bytes = data(len);
    b.iter(|| hash::<DefaultHasher>(black_box(&bytes)));
}

/// The FxHash-like hasher above.
#[perfbench(args = SIZES, throughput = bytes(len))]
fn fx_like(b: &mut Bencher, len: usize) {
    let bytes = data(len);
    b.iter(|| hash::<FxLike>(black_box(&bytes)));
}

/// FNV-1a.
#[perfbench(args = SIZES, throughput = bytes(len))]
fn fnv1a(b: &mut Bencher, len: usize) {
    let bytes = data(len);
    b.iter(|| hash::<Fnv1a>(black_box(&bytes)));
}

/// 1,000 `u64` keys inserted into a fresh `HashMap` with each hasher: `RandomState` is the
/// default (SipHash-1-3 with random keys), the others are the hashers above.
#[perfbench(
    types = [RandomState, BuildHasherDefault<FxLike>, BuildHasherDefault<Fnv1a>],
    throughput = elements(1000)
)]
fn map_insert<S: BuildHasher + Default>(b: &mut Bencher) {
    let keys: Vec<u64> = (0..1000u64).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
    b.iter_batched(
        || HashMap::with_capacity_and_hasher(keys.len(), S::default()),
        |mut map| {
            for &k in &keys {
                map.insert(k, k);
            }
            map // dropped outside the measurement
        },
    );
}

perfbench::main!();
