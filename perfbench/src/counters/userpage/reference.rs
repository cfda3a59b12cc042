//! The minimal group read the fast path's cost is held against.
//!
//! [`read`] does the work every fast-path read of a group must do and nothing else, written
//! as tightly as Rust allows: per member one `lock` load, the `index`, `pmc_width` and
//! `offset` loads, the counter read (the same register dispatch as the reader, a `match`
//! over the index), the sign extension and the addition; then every `lock` again, compared
//! one by one with the value its member's section started with, and the whole group again
//! if one moved. It has no retry limit, no check for a writer in progress, no times (so no
//! multiplexing test) and no statistics: the kernel's own reference loop (`perf_event.h`),
//! extended to a group, minus its times.
//!
//! The member count is a constant (`N`, the length of the arrays it takes), so the compiler
//! lays the members out one after the other: no loop, no member count, no bounds, the page
//! addresses in registers. That is what a hand-written read of a known group looks like
//! (an earlier form, a loop over a slice of pages, cost 39 instructions for one member in
//! the guest's bracket and 27 per further member). It is not meant for use: the arm64 guest
//! (`bash .ci/arm64/run.sh`) brackets an empty body with it and with
//! [`Group::read_counts`](crate::counters::Group::read_counts) (the harness's bracket),
//! and prints both instruction counts and their ratio, for 1 to 7 members, with the
//! bracket of [`Group::read`](crate::counters::Group::read) (which reads the times too)
//! beside them.

use std::sync::atomic::{compiler_fence, Ordering};

use super::{sign_extend, PageView, Registers, STRAIGHT_MAX};

/// Reads every member of the group whose pages are `pages` into `out` (`out[i]` for
/// `pages[i]`). `false` when a member's page shows `index == 0` (or an index `regs` cannot
/// read). Retries for as long as the pages change. `N` is at most 7 (more does not
/// compile).
///
/// ```
/// use perfbench::counters::userpage::sim::{PageFields, SimPage, SimRegisters};
/// use perfbench::counters::userpage::reference;
///
/// // A simulated user page for hardware counter 1 (48 bits wide), as the tests use.
/// let regs = SimRegisters::new(1, 48);
/// let page = SimPage::new(PageFields { index: 1, offset: 1000, ..PageFields::default() });
/// regs.set_counter(1, 234);
/// let mut out = [0];
/// assert!(reference::read(&[&page], &regs, &mut out));
/// assert_eq!(out[0], 1234); // offset + sign-extended raw counter, as the reader reads it
/// page.update(|f| f.index = 0); // the event left the hardware counter
/// assert!(!reference::read(&[&page], &regs, &mut out));
/// ```
#[inline(always)]
pub fn read<P: PageView, R: Registers, const N: usize>(
    pages: &[P; N],
    regs: &R,
    out: &mut [u64; N],
) -> bool {
    // The page handles, taken once (see `PageView::by_ref`).
    let pages: [P::Ref<'_>; N] = std::array::from_fn(|i| pages[i].by_ref());
    loop {
        let mut seqs = [0u32; N];
        unrolled!(i < N => {
            seqs[i] = pages[i].lock();
            compiler_fence(Ordering::SeqCst);
            let Some(v) = value(&pages[i], regs) else {
                return false;
            };
            out[i] = v;
            compiler_fence(Ordering::SeqCst);
        });
        let mut same = true;
        unrolled!(i < N => {
            same &= pages[i].lock() == seqs[i];
        });
        if same {
            return true;
        }
    }
}

/// `offset + sign_extend(counter, pmc_width)` of one page, or `None` for an index `regs`
/// cannot read.
#[inline(always)]
fn value<P: PageView, R: Registers>(page: &P, regs: &R) -> Option<u64> {
    let index = page.index();
    let width = page.pmc_width();
    let offset = page.offset();
    let raw = regs.read_counter(index)?;
    Some((offset as u64).wrapping_add(sign_extend(raw, width) as u64))
}
