//! A simulated user page and simulated registers, for tests and benchmarks.
//!
//! [`SimPage`] implements [`PageView`] with atomic fields and a writer,
//! [`SimPage::update`], that follows the kernel's seqlock protocol; [`SimRegisters`]
//! implements [`Registers`] with counters of a configurable width and a settable
//! timestamp. Together they exercise [`FastReader`](super::FastReader) exactly as a real
//! page would, on machines without a PMU, and let benchmarks measure the reader's own cost.
//!
//! Unlike the kernel, the simulated writer may run on another thread. The page therefore
//! loads every field with `Acquire` and the writer publishes with `Release`, which makes the
//! reader's seqlock correct across CPUs too (the real page needs only compiler fences, see
//! [`FastReader::read`](super::FastReader::read)). There must be one writer per page at a
//! time.

use std::sync::atomic::{
    fence, AtomicI64, AtomicU16, AtomicU32, AtomicU64, Ordering::Acquire, Ordering::Relaxed,
    Ordering::Release,
};

use super::{PageView, Registers};
use crate::sys::cap;

/// The values of a simulated page's fields (everything but `lock`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageFields {
    /// Hardware index + 1; 0 = no user read right now.
    pub index: u32,
    /// Added to the sign-extended raw counter.
    pub offset: i64,
    /// `time_enabled` at the last update.
    pub time_enabled: u64,
    /// `time_running` at the last update.
    pub time_running: u64,
    /// Counter width in bits.
    pub pmc_width: u16,
    /// Timestamp conversion shift.
    pub time_shift: u16,
    /// Timestamp conversion multiplier.
    pub time_mult: u32,
    /// Timestamp conversion offset.
    pub time_offset: u64,
    /// Base timestamp for `cap_user_time_short`.
    pub time_cycles: u64,
    /// Timestamp mask for `cap_user_time_short`.
    pub time_mask: u64,
    /// The capabilities word ([`sys::cap`](crate::sys::cap) bits).
    pub capabilities: u64,
}

impl Default for PageFields {
    /// A page that allows the fast path on counter index 1 (`cap_bit0_is_deprecated |
    /// cap_user_rdpmc`, `pmc_width` 48, offset 0) and offers no time conversion.
    fn default() -> Self {
        PageFields {
            index: 1,
            offset: 0,
            time_enabled: 0,
            time_running: 0,
            pmc_width: 48,
            time_shift: 0,
            time_mult: 0,
            time_offset: 0,
            time_cycles: 0,
            time_mask: 0,
            capabilities: cap::BIT0_IS_DEPRECATED | cap::USER_RDPMC,
        }
    }
}

/// A simulated `perf_event_mmap_page`.
#[derive(Debug, Default)]
pub struct SimPage {
    lock: AtomicU32,
    index: AtomicU32,
    offset: AtomicI64,
    time_enabled: AtomicU64,
    time_running: AtomicU64,
    pmc_width: AtomicU16,
    time_shift: AtomicU16,
    time_mult: AtomicU32,
    time_offset: AtomicU64,
    time_cycles: AtomicU64,
    time_mask: AtomicU64,
    capabilities: AtomicU64,
}

impl SimPage {
    /// A page holding `fields`, with `lock` 0.
    ///
    /// ```
    /// use perfbench::counters::userpage::sim::{PageFields, SimPage};
    ///
    /// let page = SimPage::new(PageFields { offset: 7, ..PageFields::default() });
    /// assert_eq!((page.fields().offset, page.lock_value()), (7, 0));
    /// page.update(|f| f.offset = 9); // as the kernel updates it: lock odd, fields, lock even
    /// assert_eq!((page.fields().offset, page.lock_value()), (9, 2));
    /// ```
    pub fn new(fields: PageFields) -> SimPage {
        let page = SimPage::default();
        page.store(&fields);
        page
    }

    /// The current field values (a plain snapshot, not seqlock-protected; meant for the
    /// page's single writer).
    ///
    /// See [`SimPage::new`] for an example.
    pub fn fields(&self) -> PageFields {
        PageFields {
            index: self.index.load(Relaxed),
            offset: self.offset.load(Relaxed),
            time_enabled: self.time_enabled.load(Relaxed),
            time_running: self.time_running.load(Relaxed),
            pmc_width: self.pmc_width.load(Relaxed),
            time_shift: self.time_shift.load(Relaxed),
            time_mult: self.time_mult.load(Relaxed),
            time_offset: self.time_offset.load(Relaxed),
            time_cycles: self.time_cycles.load(Relaxed),
            time_mask: self.time_mask.load(Relaxed),
            capabilities: self.capabilities.load(Relaxed),
        }
    }

    /// Updates the page as the kernel's `perf_event_update_userpage()` does: `lock++`
    /// (odd: update in progress), fence, `change` the fields, store them, fence, `lock++`.
    ///
    /// Anything `change` does happens inside the update, so a test can also change a
    /// [`SimRegisters`] counter there to model the kernel reprogramming a counter.
    ///
    /// See [`SimPage::new`] for an example.
    pub fn update(&self, change: impl FnOnce(&mut PageFields)) {
        self.lock.fetch_add(1, Relaxed);
        // Orders the odd `lock` before the field stores for a reader on another CPU: a
        // reader whose `Acquire` load sees a new field value also sees the odd `lock`.
        fence(Release);
        let mut fields = self.fields();
        change(&mut fields);
        self.store(&fields);
        // `Release`: a reader that sees the new `lock` sees every store above.
        self.lock.fetch_add(1, Release);
    }

    /// The current `lock` value.
    ///
    /// See [`SimPage::new`] for an example.
    pub fn lock_value(&self) -> u32 {
        self.lock.load(Relaxed)
    }

    #[cfg(test)]
    pub(super) fn set_lock(&self, value: u32) {
        self.lock.store(value, Release);
    }

    fn store(&self, f: &PageFields) {
        self.index.store(f.index, Relaxed);
        self.offset.store(f.offset, Relaxed);
        self.time_enabled.store(f.time_enabled, Relaxed);
        self.time_running.store(f.time_running, Relaxed);
        self.pmc_width.store(f.pmc_width, Relaxed);
        self.time_shift.store(f.time_shift, Relaxed);
        self.time_mult.store(f.time_mult, Relaxed);
        self.time_offset.store(f.time_offset, Relaxed);
        self.time_cycles.store(f.time_cycles, Relaxed);
        self.time_mask.store(f.time_mask, Relaxed);
        self.capabilities.store(f.capabilities, Relaxed);
    }
}

// Every load is `Acquire` so that a reader on another CPU cannot see the loads out of
// program order (see the module docs).
impl PageView for SimPage {
    type Ref<'a> = &'a SimPage;

    #[inline(always)]
    fn by_ref(&self) -> &SimPage {
        self
    }

    #[inline(always)]
    fn lock(&self) -> u32 {
        self.lock.load(Acquire)
    }
    #[inline(always)]
    fn index(&self) -> u32 {
        self.index.load(Acquire)
    }
    #[inline(always)]
    fn offset(&self) -> i64 {
        self.offset.load(Acquire)
    }
    #[inline(always)]
    fn time_enabled(&self) -> u64 {
        self.time_enabled.load(Acquire)
    }
    #[inline(always)]
    fn time_running(&self) -> u64 {
        self.time_running.load(Acquire)
    }
    #[inline(always)]
    fn pmc_width(&self) -> u16 {
        self.pmc_width.load(Acquire)
    }
    #[inline(always)]
    fn time_shift(&self) -> u16 {
        self.time_shift.load(Acquire)
    }
    #[inline(always)]
    fn time_mult(&self) -> u32 {
        self.time_mult.load(Acquire)
    }
    #[inline(always)]
    fn time_offset(&self) -> u64 {
        self.time_offset.load(Acquire)
    }
    #[inline(always)]
    fn time_cycles(&self) -> u64 {
        self.time_cycles.load(Acquire)
    }
    #[inline(always)]
    fn time_mask(&self) -> u64 {
        self.time_mask.load(Acquire)
    }
    #[inline(always)]
    fn capabilities(&self) -> u64 {
        self.capabilities.load(Acquire)
    }
}

/// Simulated hardware counters (user page indices `1..=n`) of one width, and a timestamp
/// counter.
#[derive(Debug)]
pub struct SimRegisters {
    counters: Box<[AtomicU64]>,
    width: u16,
    timestamp: AtomicU64,
}

impl SimRegisters {
    /// `counters` counters, readable at user page indices `1..=counters`, each `width`
    /// bits wide (0 or 64 and more: 64 bits), all 0; timestamp 0.
    ///
    /// ```
    /// use perfbench::counters::userpage::sim::SimRegisters;
    ///
    /// let regs = SimRegisters::new(2, 32);
    /// assert_eq!((regs.width(), regs.mask()), (32, 0xFFFF_FFFF));
    /// regs.set_counter(2, 0xFFFF_FFFF);
    /// regs.add_counter(2, 3); // wraps at 32 bits, as hardware does
    /// assert_eq!(regs.counter(2), 2);
    /// regs.set_timestamp(5);
    /// ```
    pub fn new(counters: usize, width: u16) -> SimRegisters {
        SimRegisters {
            counters: (0..counters).map(|_| AtomicU64::new(0)).collect(),
            width,
            timestamp: AtomicU64::new(0),
        }
    }

    /// The counters' width in bits.
    ///
    /// See [`SimRegisters::new`] for an example.
    pub fn width(&self) -> u16 {
        self.width
    }

    /// The mask of a counter's valid bits.
    ///
    /// See [`SimRegisters::new`] for an example.
    pub fn mask(&self) -> u64 {
        if self.width == 0 || self.width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }

    /// Sets the counter at user page `index` to `raw`, truncated to the width as hardware
    /// would.
    ///
    /// # Panics
    ///
    /// If `index` is not in `1..=counters`.
    ///
    /// See [`SimRegisters::new`] for an example.
    pub fn set_counter(&self, index: u32, raw: u64) {
        self.slot(index).store(raw & self.mask(), Relaxed);
    }

    /// Advances the counter at `index` by `delta`, wrapping at its width as hardware does.
    ///
    /// # Panics
    ///
    /// If `index` is not in `1..=counters`.
    ///
    /// See [`SimRegisters::new`] for an example.
    pub fn add_counter(&self, index: u32, delta: u64) {
        let slot = self.slot(index);
        let raw = slot.load(Relaxed).wrapping_add(delta) & self.mask();
        slot.store(raw, Release);
    }

    /// The raw value of the counter at `index`.
    ///
    /// # Panics
    ///
    /// If `index` is not in `1..=counters`.
    ///
    /// See [`SimRegisters::new`] for an example.
    pub fn counter(&self, index: u32) -> u64 {
        self.slot(index).load(Acquire)
    }

    /// Sets the timestamp counter.
    ///
    /// See [`SimRegisters::new`] for an example.
    pub fn set_timestamp(&self, value: u64) {
        self.timestamp.store(value, Release);
    }

    fn slot(&self, index: u32) -> &AtomicU64 {
        index
            .checked_sub(1)
            .and_then(|i| self.counters.get(i as usize))
            .unwrap_or_else(|| {
                panic!(
                    "SimRegisters: index {index} outside 1..={}",
                    self.counters.len()
                )
            })
    }
}

impl Registers for SimRegisters {
    /// `None` for an index with no simulated counter.
    #[inline(always)]
    fn read_counter(&self, index: u32) -> Option<u64> {
        let i = index.checked_sub(1)?;
        Some(self.counters.get(i as usize)?.load(Acquire))
    }

    #[inline(always)]
    fn read_timestamp(&self) -> u64 {
        self.timestamp.load(Acquire)
    }
}
