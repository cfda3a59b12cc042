//! Brackets taken again when one of their reads went off the fast path's hot path (the kernel
//! updated a counter's page during the read), and how many were.

use perfbench::counters::Group;

use crate::raw_group::{bracket_fast, Bracket, RawGroup};

/// How many more times a bracket one of whose reads went off the hot path is taken before
/// it is kept as it is.
const RETAKES: usize = 3;
/// Brackets taken again so far (the summary prints it).
pub(crate) static RETAKEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Takes `bracket` until one of its brackets comes back with no read off the hot path (its
/// second value), at most `RETAKES` more times, and keeps that one (or the last). Now and
/// then the kernel updates a counter's page during a read (at times no test chooses; a
/// few times a second here), and the read runs again, counting the discarded attempt in
/// that bracket: a fact of the fast path, which the harness handles
/// (`Group::slow_reads`), not a variance of the code under test.
fn steady<T>(mut bracket: impl FnMut() -> (T, bool)) -> T {
    let mut taken = bracket();
    for _ in 0..RETAKES {
        if !taken.1 {
            break;
        }
        RETAKEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        taken = bracket();
    }
    taken.0
}

/// A `Group` bracket through [`steady`]: off the hot path when `Group::slow_reads` moved.
pub(crate) fn on_hot_path<T>(g: &mut Group, mut bracket: impl FnMut(&mut Group) -> T) -> T {
    steady(|| {
        let before = g.slow_reads();
        let taken = bracket(g);
        (taken, g.slow_reads() != before)
    })
}

/// [`bracket_fast`] through [`steady`]: off the hot path when a read retried.
pub(crate) fn fast_steady(g: &RawGroup, body: fn(u64), n: u64) -> Option<Bracket> {
    steady(|| {
        let b = bracket_fast(g, body, n);
        let retried = b.as_ref().is_some_and(|b| b.retries != (0, 0));
        (b, retried)
    })
}
