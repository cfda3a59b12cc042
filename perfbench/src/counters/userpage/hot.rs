//! The hot path: [`Hot`] holds a fast-path group's page handles by member count and reads
//! them straight-line, one seqlock attempt, for groups of up to [`STRAIGHT_MAX`] members.

use super::*;

/// The largest group whose members [`Hot`] reads straight-line, one after the other: larger
/// groups take the general loop of [`FastReader::read`].
pub(crate) const STRAIGHT_MAX: usize = 7;

/// The page handles of a fast-path group as the hot paths of `Group::read` and
/// `Group::read_counts` want them: inline, one slot per member count, so that a read finds its
/// straight-line read ([`read_once`], [`read_counts_once`]) and
/// the members' handles with the same loads, one test per member count below its own (a
/// handle is never null, so an empty slot is tested with one compare with zero). The group code
/// keeps one beside its [`FastReader`] and sends every read this one declines to that reader.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hot<H> {
    pub(super) one: Option<[H; 1]>,
    pub(super) two: Option<[H; 2]>,
    pub(super) three: Option<[H; 3]>,
    pub(super) four: Option<[H; 4]>,
    pub(super) five: Option<[H; 5]>,
    pub(super) six: Option<[H; 6]>,
    pub(super) seven: Option<[H; 7]>,
}

impl<H: PageView + Copy> Hot<H> {
    /// The hot path of the group whose page handles are `handles` (leader first): its slot
    /// filled, the others empty. No handles, or more than [`STRAIGHT_MAX`]: every slot empty,
    /// a hot path that declines every read.
    pub(crate) fn new(handles: &[H]) -> Hot<H> {
        Hot {
            one: handles.try_into().ok(),
            two: handles.try_into().ok(),
            three: handles.try_into().ok(),
            four: handles.try_into().ok(),
            five: handles.try_into().ok(),
            six: handles.try_into().ok(),
            seven: handles.try_into().ok(),
        }
    }

    /// One seqlock attempt over every member, straight-line (see [`read_once`]): the counts in
    /// `out` and the page's times, or `None` for a group of no or more than [`STRAIGHT_MAX`]
    /// members, an `out` of another length (`out` untouched), a group the page shows
    /// multiplexed, a torn snapshot or a member whose index `regs` cannot read now (`out`
    /// holds garbage).
    #[inline(always)]
    pub(crate) fn read<R: Registers>(&self, regs: &R, out: &mut [u64]) -> Option<Times> {
        by_slot!(self, pages => read_once(pages, regs, out), None)
    }

    /// One seqlock attempt over every member, straight-line, for the counts only (see
    /// [`read_counts_once`]): `true` with the counts in `out`; `false` for a group of no or
    /// more than [`STRAIGHT_MAX`] members, an `out` of another length (`out` untouched), a torn
    /// snapshot or a member whose index `regs` cannot read now (`out` holds garbage). It reads
    /// no times, so it does not see multiplexing: a multiplexed group's raw counts are read.
    #[inline(always)]
    pub(crate) fn read_counts<R: Registers>(&self, regs: &R, out: &mut [u64]) -> bool {
        by_slot!(self, pages => read_counts_once(pages, regs, out), false)
    }
}

/// One seqlock attempt over the `N` members whose page handles are `pages` (leader first),
/// member after member with no loop: for each, `seq = lock; barrier; index, pmc_width, offset,
/// counter; barrier`; then the leader's `time_enabled` and `time_running`; then every `lock`
/// again, each compared with its member's `seq`, together with the times (equal: not
/// multiplexed). The counts are in `out` and the page's times returned when all of that holds.
/// `None` for a torn snapshot, a group the page shows multiplexed and a member whose `index`
/// `regs` cannot read now (0 included), `out` holding garbage; and, with `out` untouched, for
/// an `out` of another length than `N`: the caller reads again out of line, where a torn
/// snapshot is retried and a multiplexed group's times are extrapolated.
///
/// The same protocol as [`FastReader::read`]'s, minus the retries and the extrapolation, and
/// the same per-member work as [`reference::read`](mod@reference): what the hot path adds to
/// the reference is the times and the length test, per read, not per member.
#[inline(always)]
pub(crate) fn read_once<P: PageView + Copy, R: Registers, const N: usize>(
    pages: [P; N],
    regs: &R,
    out: &mut [u64],
) -> Option<Times> {
    let (enabled, running) = straight_line::<P, R, N, true>(pages, regs, out)?;
    Some(Times {
        enabled,
        running,
        extrapolated: false,
    })
}

/// [`read_once`] without the times: the same seqlock attempt over the `N` members, with no
/// load of `time_enabled`/`time_running` and so no multiplexing test. `true` with the counts
/// in `out`; `false` for a torn snapshot or a member whose `index` `regs` cannot read now
/// (`out` holding garbage), and for an `out` of another length than `N` (`out` untouched).
/// What [`Group::read_counts`](crate::counters::Group::read_counts) serves its hot path with:
/// beside the reference's per-member work it adds the length test only.
#[inline(always)]
pub(crate) fn read_counts_once<P: PageView + Copy, R: Registers, const N: usize>(
    pages: [P; N],
    regs: &R,
    out: &mut [u64],
) -> bool {
    straight_line::<P, R, N, false>(pages, regs, out).is_some()
}

/// The attempt of [`read_once`] (`TIMES`: the leader's times are loaded inside its section
/// and returned, `None` when they differ) and of [`read_counts_once`] (no times: `(0, 0)`).
#[inline(always)]
pub(super) fn straight_line<P: PageView + Copy, R: Registers, const N: usize, const TIMES: bool>(
    pages: [P; N],
    regs: &R,
    out: &mut [u64],
) -> Option<(u64, u64)> {
    let leader = *pages.first()?;
    let out: &mut [u64; N] = out.try_into().ok()?;
    let mut seqs = [0u32; N];
    unrolled!(i < N => {
        let seq = pages[i].lock();
        compiler_fence(Ordering::SeqCst);
        if !P::WRITER_ON_READER_CPU && seq & 1 != 0 {
            return None;
        }
        seqs[i] = seq;
        out[i] = member_value(&pages[i], regs)?;
        compiler_fence(Ordering::SeqCst);
    });
    // The group's times are the leader's, read inside its section (as in `seqlock_read`).
    let times = if TIMES {
        (leader.time_enabled(), leader.time_running())
    } else {
        (0, 0)
    };
    compiler_fence(Ordering::SeqCst);
    unrolled!(i < N => {
        if pages[i].lock() != seqs[i] {
            return None;
        }
    });
    if TIMES && times.0 != times.1 {
        return None;
    }
    Some(times)
}
