//! Contention: a counter behind a `Mutex` against an `AtomicU64`, each on 1, 2 and 4 threads and
//! on every core the machine has (`0`), and a sharded counter whose threads touch cache lines of
//! their own.
//!
//! It shows:
//! - `threads = [1, 2, 4, 0]`: one benchmark per thread count, the id ending in the count
//!   (`threads/mutex/4`); every sample runs the body on that many threads started together;
//! - how to read the figures: each counter is per iteration summed over the threads (4 threads
//!   doing one call each are one iteration's 4 calls), and `wall-time` is one thread's time per
//!   call while the others run too, as divan reports it.
//!
//! ```sh
//! cargo run --release --example threads -- --bench
//! ```
//!
//! What to look for: on one thread the mutex costs a few times the atomic add; as threads are
//! added, both slow down per call (the cache line holding the counter moves between cores),
//! the mutex most, as threads wait for it and `context-switches` appear; the sharded counter
//! stays flat, since no two threads write the same line. On a machine with fewer cores than
//! threads, the threads also take turns on the cores.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use perfbench::perfbench;

static LOCKED: Mutex<u64> = Mutex::new(0);
static ATOMIC: AtomicU64 = AtomicU64::new(0);

/// A cache line of its own for each shard.
#[repr(align(128))]
struct Shard(AtomicU64);

static SHARDS: [Shard; 64] = [const { Shard(AtomicU64::new(0)) }; 64];

std::thread_local! {
    /// This thread's shard.
    static MINE: usize = {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        NEXT.fetch_add(1, Ordering::Relaxed) as usize % SHARDS.len()
    };
}

/// Increments a counter behind a lock.
#[perfbench(threads = [1, 2, 4, 0])]
fn mutex() {
    *LOCKED.lock().unwrap() += 1;
}

/// Increments an atomic counter.
#[perfbench(threads = [1, 2, 4, 0])]
fn atomic() -> u64 {
    ATOMIC.fetch_add(1, Ordering::Relaxed)
}

/// Increments this thread's shard of a counter.
#[perfbench(threads = [1, 2, 4, 0])]
fn sharded() -> u64 {
    MINE.with(|&i| SHARDS[i].0.fetch_add(1, Ordering::Relaxed))
}

perfbench::main!();
