//! Allocation counters: [`CountingAlloc`], a global allocator around any other that counts,
//! per thread, the allocations, bytes, deallocations and reallocations the measured code makes,
//! and the most bytes it held at once.
//!
//! A suite installs it in one line:
//!
//! ```
//! #[global_allocator]
//! static ALLOC: perfbench::CountingAlloc = perfbench::CountingAlloc::system();
//! # fn main() {}
//! ```
//!
//! (or `CountingAlloc::new(mimalloc::MiMalloc)`, around any [`GlobalAlloc`]). The counters are
//! then on by default, like any other: [`AllocCounter`] names them (`alloc-count`,
//! `alloc-bytes`, `dealloc-count`, `realloc-count`, `alloc-peak-bytes`). They are exact and the
//! same on every machine, with or without a PMU.
//!
//! Each thread counts its own allocations in thread-local cells (no atomic operation, no lock);
//! the harness reads the measuring thread's at each bracket, so allocations made on other
//! threads are not in a benchmark's counts. Until a run asks for the counters in a thread
//! ([`set_counting`]), the allocator only forwards there, after one test of a thread-local flag.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

pub use crate::events::AllocCounter;

/// A global allocator that counts what passes through it to `A`, per thread (see the
/// [module](self)).
///
/// ```
/// use perfbench::counters::alloc::{set_counting, snapshot, CountingAlloc};
///
/// #[global_allocator]
/// static ALLOC: CountingAlloc = CountingAlloc::system();
///
/// # fn main() {
/// set_counting(true);
/// let before = snapshot();
/// let v = std::hint::black_box(vec![0u8; 100]);
/// let after = snapshot();
/// assert_eq!((after.allocs - before.allocs, after.bytes - before.bytes), (1, 100));
/// drop(v);
/// assert_eq!(snapshot().deallocs - before.deallocs, 1);
/// # }
/// ```
#[derive(Debug, Default)]
pub struct CountingAlloc<A = System> {
    inner: A,
}

impl CountingAlloc<System> {
    /// Counting around the system allocator ([`System`]).
    ///
    /// See [`CountingAlloc`] for an example.
    pub const fn system() -> CountingAlloc<System> {
        CountingAlloc { inner: System }
    }
}

impl<A> CountingAlloc<A> {
    /// Counting around `inner` (`CountingAlloc::new(mimalloc::MiMalloc)`).
    ///
    /// ```
    /// use perfbench::counters::alloc::CountingAlloc;
    ///
    /// #[global_allocator]
    /// static ALLOC: CountingAlloc<std::alloc::System> = CountingAlloc::new(std::alloc::System);
    /// # fn main() {}
    /// ```
    pub const fn new(inner: A) -> CountingAlloc<A> {
        CountingAlloc { inner }
    }
}

/// Turns counting on or off for this thread. Off (each thread's start), a [`CountingAlloc`]
/// only forwards to the allocator it wraps; the harness turns it on in the thread that
/// measures when a run asks for an allocation counter.
///
/// See [`CountingAlloc`] for an example.
pub fn set_counting(on: bool) {
    let _ = CELLS.try_with(|c| c.on.set(on));
}

/// Whether this thread counts ([`set_counting`]).
///
/// ```
/// use perfbench::counters::alloc::{counting, set_counting};
///
/// set_counting(true);
/// assert!(counting());
/// std::thread::spawn(|| assert!(!counting())).join().unwrap(); // per thread
/// ```
pub fn counting() -> bool {
    CELLS.try_with(|c| c.on.get()).unwrap_or(false)
}

/// One thread's counts. Plain cells: only their own thread touches them.
struct Cells {
    /// Whether this thread counts ([`set_counting`]).
    on: Cell<bool>,
    allocs: Cell<u64>,
    bytes: Cell<u64>,
    deallocs: Cell<u64>,
    reallocs: Cell<u64>,
    /// Bytes allocated less bytes freed by this thread (wrapping: a thread may free what
    /// another allocated).
    live: Cell<u64>,
    /// The most `live` reached since [`reset_peak`].
    peak: Cell<u64>,
}

thread_local! {
    // A constant initializer and no destructor: reachable from the allocator at any time,
    // without lazy initialization (which could allocate) or a registered destructor.
    static CELLS: Cells = const {
        Cells {
            on: Cell::new(false),
            allocs: Cell::new(0),
            bytes: Cell::new(0),
            deallocs: Cell::new(0),
            reallocs: Cell::new(0),
            live: Cell::new(0),
            peak: Cell::new(0),
        }
    };
}

#[inline(always)]
fn grow(cells: &Cells, bytes: u64) {
    cells.bytes.set(cells.bytes.get().wrapping_add(bytes));
    let live = cells.live.get().wrapping_add(bytes);
    cells.live.set(live);
    // `live` against `peak` as signed amounts: the peak is measured above the level at
    // `reset_peak`, which may be "negative" on a thread that frees others' allocations.
    let peak = cells.peak.get();
    cells.peak.set(if (live.wrapping_sub(peak) as i64) > 0 {
        live
    } else {
        peak
    });
}

#[inline(always)]
fn shrink(cells: &Cells, bytes: u64) {
    cells.live.set(cells.live.get().wrapping_sub(bytes));
}

#[inline(always)]
fn record(f: impl FnOnce(&Cells)) {
    // `try_with`: never fails for a constant-initialized cell without a destructor, but an
    // allocator must not panic.
    let _ = CELLS.try_with(|c| {
        if c.on.get() {
            f(c);
        }
    });
}

// SAFETY: every method forwards to `inner` with the caller's arguments unchanged and returns
// its result, so `inner`'s guarantees are this allocator's; the counting before it touches only
// this thread's cells and never allocates.
//
// The counts are taken before the call, so that the call is the method's last act (a tail
// call: with the counters off, the wrapper costs one load and one branch). An allocation that
// fails is counted all the same; a failed allocation ends the program in all but code that
// handles it with `std::alloc` directly.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAlloc<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(|c| {
            c.allocs.set(c.allocs.get() + 1);
            grow(c, layout.size() as u64);
        });
        // SAFETY: forwarded with the caller's layout, which meets `alloc`'s contract.
        unsafe { self.inner.alloc(layout) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(|c| {
            c.allocs.set(c.allocs.get() + 1);
            grow(c, layout.size() as u64);
        });
        // SAFETY: as in `alloc`.
        unsafe { self.inner.alloc_zeroed(layout) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        record(|c| {
            c.deallocs.set(c.deallocs.get() + 1);
            shrink(c, layout.size() as u64);
        });
        // SAFETY: forwarded: `ptr` was allocated by this allocator, that is by `inner`, with
        // `layout`, as `dealloc`'s contract requires of the caller.
        unsafe { self.inner.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(|c| {
            c.reallocs.set(c.reallocs.get() + 1);
            let (old, new) = (layout.size() as u64, new_size as u64);
            if new >= old {
                grow(c, new - old);
            } else {
                shrink(c, old - new);
            }
        });
        // SAFETY: forwarded with the caller's arguments, which meet `realloc`'s contract.
        unsafe { self.inner.realloc(ptr, layout, new_size) }
    }
}

/// A thread's counts at one moment ([`snapshot`]); differences of two are what happened
/// between them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocSnapshot {
    /// Allocations (`alloc` and `alloc_zeroed`).
    pub allocs: u64,
    /// Bytes allocated, and bytes a reallocation grew by.
    pub bytes: u64,
    /// Deallocations.
    pub deallocs: u64,
    /// Reallocations.
    pub reallocs: u64,
    /// Bytes live (allocated less freed, wrapping).
    pub live: u64,
    /// The most bytes live since [`reset_peak`].
    pub peak: u64,
}

/// This thread's counts now (all zero where no [`CountingAlloc`] is installed or counting is
/// off).
///
/// See [`CountingAlloc`] for an example.
#[inline(always)]
pub fn snapshot() -> AllocSnapshot {
    CELLS
        .try_with(|c| AllocSnapshot {
            allocs: c.allocs.get(),
            bytes: c.bytes.get(),
            deallocs: c.deallocs.get(),
            reallocs: c.reallocs.get(),
            live: c.live.get(),
            peak: c.peak.get(),
        })
        .unwrap_or_default()
}

/// Starts a new peak on this thread: from now, [`AllocSnapshot::peak`] is the most bytes live
/// since this call. Returns the bytes live now, the level the peak is measured above.
///
/// ```
/// use perfbench::counters::alloc::{reset_peak, set_counting, snapshot, CountingAlloc};
///
/// #[global_allocator]
/// static ALLOC: CountingAlloc = CountingAlloc::system();
///
/// # fn main() {
/// set_counting(true);
/// let level = reset_peak();
/// drop(std::hint::black_box(vec![0u8; 4096])); // 4 KiB held, then freed
/// let _kept = std::hint::black_box(vec![0u8; 1024]);
/// assert_eq!(snapshot().peak.wrapping_sub(level), 4096);
/// # }
/// ```
#[inline(always)]
pub fn reset_peak() -> u64 {
    CELLS
        .try_with(|c| {
            let live = c.live.get();
            c.peak.set(live);
            live
        })
        .unwrap_or(0)
}

/// Whether a [`CountingAlloc`] is this program's global allocator: with counting on, an
/// allocation on this thread is counted. Turns counting on for this thread.
///
/// ```
/// // A program without `#[global_allocator] static _: CountingAlloc`:
/// assert!(!perfbench::counters::alloc::installed());
/// ```
pub fn installed() -> bool {
    set_counting(true);
    let before = snapshot().allocs;
    drop(std::hint::black_box(Box::new(std::hint::black_box(1u8))));
    snapshot().allocs != before
}

/// One measured stretch's allocation counts on this thread: [`AllocBracket::start`] at its
/// start, [`AllocBracket::stop`] at its end, which adds them to a sample's sums.
///
/// ```
/// use perfbench::counters::alloc::{set_counting, AllocBracket, AllocCounter, CountingAlloc};
///
/// #[global_allocator]
/// static ALLOC: CountingAlloc = CountingAlloc::system();
///
/// # fn main() {
/// set_counting(true);
/// let counters = [AllocCounter::Allocs, AllocCounter::PeakBytes];
/// let (mut bracket, mut sums) = (AllocBracket::default(), [0u64; 2]);
/// for bytes in [100, 300, 200] {
///     bracket.start();
///     drop(std::hint::black_box(vec![0u8; bytes]));
///     bracket.stop(&counters, &mut sums);
/// }
/// assert_eq!(sums, [3, 300]); // allocations summed, the largest bracket's peak
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct AllocBracket {
    begin: AllocSnapshot,
    /// The bytes live at the start, which the bracket's peak is measured above.
    level: u64,
}

impl AllocBracket {
    /// Starts a stretch: this thread's counts now, and a new peak.
    #[inline(always)]
    pub fn start(&mut self) {
        self.begin = snapshot();
        self.level = reset_peak();
    }

    /// Ends the stretch: adds each of `counters`' difference since [`AllocBracket::start`] to
    /// its sum in `sums` (in the same order); for `alloc-peak-bytes`, keeps the stretch's peak
    /// above the start's level when it is the largest so far.
    #[inline(always)]
    pub fn stop(&self, counters: &[AllocCounter], sums: &mut [u64]) {
        let now = snapshot();
        for (counter, sum) in counters.iter().zip(sums) {
            if counter.is_peak() {
                // A thread that freed more than it allocated since the start (a "negative"
                // peak) held nothing more.
                let peak = (now.peak.wrapping_sub(self.level) as i64).max(0) as u64;
                *sum = (*sum).max(peak);
            } else {
                let d = value(*counter, &now).wrapping_sub(value(*counter, &self.begin));
                *sum = sum.wrapping_add(d);
            }
        }
    }
}

/// `counter`'s value in a snapshot (the peak: its level above nothing; [`AllocBracket`]
/// measures it above the stretch's start).
#[inline(always)]
fn value(counter: AllocCounter, s: &AllocSnapshot) -> u64 {
    match counter {
        AllocCounter::Allocs => s.allocs,
        AllocCounter::Bytes => s.bytes,
        AllocCounter::Deallocs => s.deallocs,
        AllocCounter::Reallocs => s.reallocs,
        AllocCounter::PeakBytes => s.peak,
    }
}

/// The line a suite adds to count allocations.
pub const INSTALL_LINE: &str =
    "#[global_allocator] static ALLOC: perfbench::CountingAlloc = perfbench::CountingAlloc::system();";
