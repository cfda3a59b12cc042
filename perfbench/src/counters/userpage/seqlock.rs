//! The general retry loop under the page's `lock` ([`seqlock_read`]): every read the
//! straight-line hot path declines, with its retry limit and the members' stable capabilities.

use super::*;

/// When [`seqlock_read`] extrapolates the times to the moment of the read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Extrapolate {
    /// Never: a group seen multiplexed is reported as [`Attempt::Multiplexed`] (the hot path,
    /// which hands such a group to the out-of-line read).
    Never,
    /// When the page shows the group multiplexed (`time_enabled != time_running`), as the
    /// reference loop of `perf_event.h` does.
    IfMultiplexed,
    /// Always ([`FastReader::read_times`]).
    Always,
}

/// How [`seqlock_read`] ended.
pub(super) enum Attempt {
    /// A consistent snapshot: the counts are in `out`.
    Read(Times),
    /// Fall back to `read(2)`: a member's `index` cannot be read now (0 included), the group
    /// has no members, or the pages kept changing for [`MAX_RETRIES`] + 1 attempts.
    Declined,
    /// A consistent snapshot of a multiplexed group, with [`Extrapolate::Never`]: the times
    /// must be extrapolated, so read again with [`Extrapolate::IfMultiplexed`].
    Multiplexed,
}

/// Counts one discarded snapshot; `true` when that was the last attempt allowed
/// ([`MAX_RETRIES`] + 1 in all, counting the retries `retries` already holds).
#[inline(always)]
pub(super) fn give_up(retries: &mut u32) -> bool {
    *retries += 1;
    *retries > MAX_RETRIES
}

/// The group read of [`FastReader::read`]: one seqlock section over every member, retried
/// until consistent (see there for the protocol).
///
/// Per attempt, for each member in order: `seq = lock; barrier; index, pmc_width, offset,
/// counter; barrier`; then the leader's `time_enabled` and `time_running` (and, when
/// `extrapolate` asks, the timestamp and the page's time conversion), still inside the
/// leader's section, which opened with the leader's `lock` at the start; then every `lock`
/// again, compared as a sum (see below). The retry limit lives on the retry edge only.
///
/// # Panics
///
/// If `out.len()` differs from `pages.len()`.
#[inline(always)]
pub(super) fn seqlock_read<P: PageView, R: Registers>(
    pages: &[P],
    regs: &R,
    out: &mut [u64],
    retries: &mut u32,
    extrapolate: Extrapolate,
) -> Attempt {
    assert_eq!(
        out.len(),
        pages.len(),
        "FastReader::read: `out` must have one slot per member"
    );
    // One length the compiler can see for both, so the member loop runs on one count.
    let out = &mut out[..pages.len()];
    // The leader's handle, taken once (see `PageView::by_ref`): its section opens and closes
    // every attempt, and its times are the group's.
    let Some(leader) = pages.first() else {
        return Attempt::Declined;
    };
    let leader = leader.by_ref();
    'attempt: loop {
        // The leader first, then the other members. `seq_sum` is the sum of the `lock` values
        // seen at the start of each member's section (see the re-check below for why a sum
        // suffices).
        let seq = leader.lock();
        compiler_fence(Ordering::SeqCst);
        if !P::WRITER_ON_READER_CPU && seq & 1 != 0 {
            // A writer is in the middle of an update (only possible with a writer on another
            // CPU, such as the simulated page's).
            if give_up(retries) {
                return Attempt::Declined;
            }
            hint::spin_loop();
            continue 'attempt;
        }
        let mut seq_sum = u64::from(seq);
        let Some(value) = member_value(&leader, regs) else {
            return Attempt::Declined;
        };
        out[0] = value;
        compiler_fence(Ordering::SeqCst);
        // By index: `out` has the length of `pages`, so neither index is checked.
        for i in 1..pages.len() {
            let page = pages[i].by_ref();
            let seq = page.lock();
            compiler_fence(Ordering::SeqCst);
            if !P::WRITER_ON_READER_CPU && seq & 1 != 0 {
                if give_up(retries) {
                    return Attempt::Declined;
                }
                hint::spin_loop();
                continue 'attempt;
            }
            seq_sum += u64::from(seq);
            let Some(value) = member_value(&page, regs) else {
                return Attempt::Declined;
            };
            out[i] = value;
            compiler_fence(Ordering::SeqCst);
        }
        // The group's times are the leader's, read inside its section (its `lock` is
        // re-checked below), after every member was seen with a readable `index`: the group
        // is on the PMU, so `running` advances like `enabled` from the page's values on.
        let (enabled, running) = (leader.time_enabled(), leader.time_running());
        let delta = match extrapolate {
            Extrapolate::Always => since_update(&leader, regs),
            Extrapolate::IfMultiplexed if enabled != running => since_update(&leader, regs),
            _ => None,
        };
        compiler_fence(Ordering::SeqCst);

        // Re-check: every `lock` must still hold the value seen at the start of its member's
        // section. The kernel only ever increments `lock`, so each page's current value is its
        // start value plus k >= 0 increments, and the sums are equal exactly when every k is
        // 0. (A u32 `lock` wrapping around would need 2^31 page updates during one read.)
        // Comparing sums keeps the hot path free of per-member storage.
        let mut now_sum = u64::from(leader.lock());
        for page in &pages[1..] {
            now_sum += u64::from(page.by_ref().lock());
        }
        // One test for the common case, consistent and not multiplexed (a compare and a
        // conditional compare on arm64); the others after it.
        if now_sum == seq_sum && (extrapolate != Extrapolate::Never || enabled == running) {
            return Attempt::Read(Times::at(enabled, running, delta));
        }
        if now_sum == seq_sum {
            return Attempt::Multiplexed;
        }
        if give_up(retries) {
            return Attempt::Declined;
        }
        hint::spin_loop();
    }
}

/// One member's count, from inside its seqlock section: `offset + sign_extend(counter, width)`,
/// or `None` (fall back) when `regs` cannot read the page's `index` now (0 included).
#[inline(always)]
pub(super) fn member_value<P: PageView, R: Registers>(page: &P, regs: &R) -> Option<u64> {
    let index = page.index();
    let width = page.pmc_width();
    let offset = page.offset();
    let raw = regs.read_counter(index)?;
    Some((offset as u64).wrapping_add(sign_extend(raw, width) as u64))
}

/// `(capabilities, index)` of one page from a seqlock-consistent snapshot, or `None` when the
/// page kept changing.
pub(super) fn stable_caps_and_index<P: PageView>(page: &P) -> Option<(u64, u32)> {
    for _ in 0..=MAX_RETRIES {
        let seq = page.lock();
        compiler_fence(Ordering::SeqCst);
        let caps = page.capabilities();
        let index = page.index();
        compiler_fence(Ordering::SeqCst);
        if seq & 1 == 0 && page.lock() == seq {
            return Some((caps, index));
        }
        hint::spin_loop();
    }
    None
}
