//! The user-page fast path: reading a counter group without a system call. Where an event's user
//! page allows it (`cap_user_rdpmc`, `index != 0`; `perf_event_open(2)`, "MMAP layout"), the count
//! is `offset + sign_extend(hardware_counter[index - 1], pmc_width)`, read inside a seqlock retry
//! loop on the page's `lock`. [`FastReader`] does that for a whole group in one retry loop,
//! extrapolating `time_enabled`/`time_running` (with `cap_user_time`) only when the group was
//! multiplexed or the caller asks ([`FastReader::read_times`]); its straight-line hot path serves
//! [`Group::read`](crate::counters::Group::read) and, without any time,
//! [`Group::read_counts`](crate::counters::Group::read_counts). [`reference`](mod@reference) is the
//! minimal read its cost is held against. The reader is generic over [`PageView`] and
//! [`Registers`]: production uses `FastReader<MappedPage, arch::Native>`, the tests and benchmarks
//! [`sim`]'s simulated page. Opening events, mapping pages and the `read(2)` fallback belong to the
//! group code; the instructions live in [`arch`](super::arch).

use std::hint;
use std::sync::atomic::{compiler_fence, Ordering};

use crate::sys::{cap, MappedPage, PageRef};

/// Read access to the fields of a user page that the fast path uses.
///
/// The accessors mirror those of [`MappedPage`]. Implementations must load the current value on
/// every call (volatile or atomic loads): the reader calls them repeatedly inside a seqlock loop
/// and relies on the loads happening in program order, between its reads of `lock`.
pub trait PageView {
    /// The seqlock: the kernel increments it before and after every update of the page.
    fn lock(&self) -> u32;
    /// The hardware counter's index + 1, or 0 when user space may not read it right now.
    fn index(&self) -> u32;
    /// What to add to the sign-extended hardware counter to obtain the count.
    fn offset(&self) -> i64;
    /// `time_enabled` at the kernel's last update of the page.
    fn time_enabled(&self) -> u64;
    /// `time_running` at the kernel's last update of the page.
    fn time_running(&self) -> u64;
    /// Width in bits of the hardware counter.
    fn pmc_width(&self) -> u16;
    /// Shift of the timestamp-to-nanoseconds conversion.
    fn time_shift(&self) -> u16;
    /// Multiplier of the timestamp-to-nanoseconds conversion.
    fn time_mult(&self) -> u32;
    /// Offset of the timestamp-to-nanoseconds conversion.
    fn time_offset(&self) -> u64;
    /// Base timestamp for `cap_user_time_short`.
    fn time_cycles(&self) -> u64;
    /// Valid timestamp bits for `cap_user_time_short`.
    fn time_mask(&self) -> u64;
    /// The capabilities word; see [`sys::cap`](crate::sys::cap).
    fn capabilities(&self) -> u64;

    /// `true` when the page's writer only ever runs on the CPU of the thread that reads it,
    /// between two of its instructions, so the reader can never see `lock` odd (an update in
    /// progress): the kernel's page of a self-monitoring event, which it updates on the
    /// event's CPU with preemption disabled or in an interrupt there. The reader then skips
    /// the odd test, as the kernel's reference loop does; the final re-check of `lock` still
    /// catches every update. `false` (the default) for a writer on another CPU, like the
    /// simulated page's.
    const WRITER_ON_READER_CPU: bool = false;

    /// A copyable view of the same page, as [`by_ref`](Self::by_ref) returns it.
    type Ref<'a>: PageView + Copy
    where
        Self: 'a;

    /// A copyable view of this page, which the reader takes once per member and read: a value
    /// the compiler keeps in a register, where `&self` may point at memory that the seqlock's
    /// compiler fences make it load again after every fence (the address of a
    /// [`MappedPage`] in the reader's heap slice). [`MappedPage`] gives its
    /// [`PageRef`]; a page that is its own handle gives `&Self`.
    fn by_ref(&self) -> Self::Ref<'_>;
}

macro_rules! forward_page_ref {
    ($($name:ident: $ty:ty),* $(,)?) => {
        $(
            #[inline(always)]
            fn $name(&self) -> $ty {
                PageRef::$name(*self)
            }
        )*
    };
}

macro_rules! forward_page_view {
    ($($name:ident: $ty:ty),* $(,)?) => {
        $(
            #[inline(always)]
            fn $name(&self) -> $ty {
                (**self).$name()
            }
        )*
    };
}

impl PageView for MappedPage {
    const WRITER_ON_READER_CPU: bool = true;

    type Ref<'a> = PageRef<'a>;

    #[inline(always)]
    fn by_ref(&self) -> PageRef<'_> {
        self.page_ref()
    }

    #[inline(always)]
    fn lock(&self) -> u32 {
        MappedPage::lock(self)
    }
    #[inline(always)]
    fn index(&self) -> u32 {
        MappedPage::index(self)
    }
    #[inline(always)]
    fn offset(&self) -> i64 {
        MappedPage::offset(self)
    }
    #[inline(always)]
    fn time_enabled(&self) -> u64 {
        MappedPage::time_enabled(self)
    }
    #[inline(always)]
    fn time_running(&self) -> u64 {
        MappedPage::time_running(self)
    }
    #[inline(always)]
    fn pmc_width(&self) -> u16 {
        MappedPage::pmc_width(self)
    }
    #[inline(always)]
    fn time_shift(&self) -> u16 {
        MappedPage::time_shift(self)
    }
    #[inline(always)]
    fn time_mult(&self) -> u32 {
        MappedPage::time_mult(self)
    }
    #[inline(always)]
    fn time_offset(&self) -> u64 {
        MappedPage::time_offset(self)
    }
    #[inline(always)]
    fn time_cycles(&self) -> u64 {
        MappedPage::time_cycles(self)
    }
    #[inline(always)]
    fn time_mask(&self) -> u64 {
        MappedPage::time_mask(self)
    }
    #[inline(always)]
    fn capabilities(&self) -> u64 {
        MappedPage::capabilities(self)
    }
}

/// The handle of a [`MappedPage`]: the same page, the same loads.
impl<'p> PageView for PageRef<'p> {
    const WRITER_ON_READER_CPU: bool = true;

    type Ref<'a>
        = PageRef<'p>
    where
        Self: 'a;

    #[inline(always)]
    fn by_ref(&self) -> PageRef<'p> {
        *self
    }

    forward_page_ref!(
        lock: u32,
        index: u32,
        offset: i64,
        time_enabled: u64,
        time_running: u64,
        pmc_width: u16,
        time_shift: u16,
        time_mult: u32,
        time_offset: u64,
        time_cycles: u64,
        time_mask: u64,
        capabilities: u64,
    );
}

impl<P: PageView + ?Sized> PageView for &P {
    const WRITER_ON_READER_CPU: bool = P::WRITER_ON_READER_CPU;

    type Ref<'a>
        = P::Ref<'a>
    where
        Self: 'a;

    #[inline(always)]
    fn by_ref(&self) -> P::Ref<'_> {
        (**self).by_ref()
    }

    forward_page_view!(
        lock: u32,
        index: u32,
        offset: i64,
        time_enabled: u64,
        time_running: u64,
        pmc_width: u16,
        time_shift: u16,
        time_mult: u32,
        time_offset: u64,
        time_cycles: u64,
        time_mask: u64,
        capabilities: u64,
    );
}

/// Reads hardware counters and the timestamp counter of the current CPU.
///
/// Real implementations are in [`arch`](super::arch) (`Rdpmc`, `Mrs`); [`sim::SimRegisters`]
/// simulates them.
pub trait Registers {
    /// The raw value of the counter that a user page with this `index` describes. `index` is the
    /// page's value as is (1-based, the kernel's hardware index + 1); the implementation maps it
    /// to its instruction (x86: `rdpmc` with ECX = `index - 1`; arm64: the register
    /// [`aarch64_counter_register`](super::arch::aarch64_counter_register) names).
    ///
    /// `None` for index 0 (the page's "no user read right now", which the reader relies on this
    /// method to decline: it does not test `index` itself) and for any index this
    /// implementation cannot read (for example arm64's index 33, the FEAT_PMUv3_ICNTR
    /// instruction counter); the reader then falls back.
    fn read_counter(&self, index: u32) -> Option<u64>;

    /// The timestamp counter that the page's `time_*` conversion applies to (x86 TSC, arm64
    /// `CNTVCT_EL0`).
    fn read_timestamp(&self) -> u64;
}

impl<R: Registers + ?Sized> Registers for &R {
    #[inline(always)]
    fn read_counter(&self, index: u32) -> Option<u64> {
        (**self).read_counter(index)
    }

    #[inline(always)]
    fn read_timestamp(&self) -> u64 {
        (**self).read_timestamp()
    }
}

/// Sign-extends the low `width` bits of a raw hardware counter value:
/// `((raw << (64 - width)) as i64) >> (64 - width)`.
///
/// The kernel programs counters with negative start values (`-period`) and subtracts the
/// 64-bit sign-extended start value in `offset`. A 48-bit counter therefore reads, say,
/// `0xFFFF_FFFF_FFF0` for -16; adding it to `offset` without sign extension is off by exactly
/// 2^48, a known bug in public implementations.
///
/// The shift is `(64 - width) mod 64`, which is what the shift instructions of both targets
/// compute from a register anyway, so this is two shifts and a negation, no branch: `width` 64
/// and `width` 0 (a page that does not fill in `pmc_width`) both mean no shift, the raw value
/// as is. A width above 64, which no kernel reports (`pmc_width` is the width of a counter of
/// at most 64 bits), gives a defined but meaningless value, never a panic.
///
/// ```
/// use perfbench::counters::userpage::sign_extend;
///
/// assert_eq!(sign_extend(0xFFFF_FFFF_FFF0, 48), -16); // a 48-bit counter programmed at -16
/// assert_eq!(sign_extend(0x7FFF_FFFF_FFFF, 48), 0x7FFF_FFFF_FFFF);
/// assert_eq!(sign_extend(u64::MAX, 64), -1);
/// ```
#[inline(always)]
pub const fn sign_extend(raw: u64, width: u16) -> i64 {
    let shift = 64u32.wrapping_sub(width as u32);
    (raw.wrapping_shl(shift) as i64).wrapping_shr(shift)
}

/// How many times a read discards a torn snapshot and starts over before giving up.
///
/// With the kernel as the writer a retry only happens when an interrupt or a context switch
/// updated a page in the middle of a read, so a handful is already extreme; giving up sends
/// the caller to `read(2)` instead of spinning.
pub const MAX_RETRIES: u32 = 1000;

/// The group's enabled and running times, in nanoseconds, as of a fast-path read.
///
/// `running < enabled` means the group was multiplexed: its counts cover only part of the time
/// it was enabled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Times {
    /// Time the group has been enabled.
    pub enabled: u64,
    /// Time the group has been on the PMU.
    pub running: u64,
    /// `true` when both were extrapolated to the moment of the read (the page has
    /// `cap_user_time`, and the group was multiplexed or the caller asked for the times).
    /// `false` means they are the page's values as of the kernel's last update (usually the
    /// last time the group was scheduled in). While `enabled == running` on the page the
    /// group is on the PMU now and has never been off it, so the extrapolation would add the
    /// same amount to both: differences of two readings, and whether the group was
    /// multiplexed between them, are right either way. Use
    /// [`FastReader::read_times`] or `read(2)` when the times themselves matter.
    pub extrapolated: bool,
}

/// Diagnostics of one [`FastReader::read_with_stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Snapshots discarded because a page changed (or was being changed) during the read.
    /// A read that gave up returns `MAX_RETRIES + 1` here.
    pub retries: u32,
}

/// Whether the fast path can serve a group, and if not, why.
///
/// [`FastReader::capability`] checks every member and reports the first member that fails
/// the most permanent check: the ABI, then `cap_user_rdpmc`, then `index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capability {
    /// Every member allows user-space reads and sits on a hardware counter right now.
    Usable,
    /// The reader has no pages.
    NoMembers,
    /// `cap_bit0_is_deprecated` is clear: the page uses the pre-3.12 ABI, where bit 0 meant
    /// both "user rdpmc" and "user time" and was set wrongly on some kernels. perfbench does not
    /// trust it and uses `read(2)`.
    DeprecatedAbi {
        /// Position of the member in the group.
        member: usize,
    },
    /// `cap_user_rdpmc` is clear: the kernel does not allow user-space counter reads for this
    /// event (x86: `/sys/bus/event_source/devices/cpu/rdpmc` is 0, or the event is not a
    /// hardware event; arm64: `kernel.perf_user_access` is 0 or the event was opened without
    /// `config1` bit 1).
    NoUserRdpmc {
        /// Position of the member in the group.
        member: usize,
    },
    /// The page allows user reads but `index` is 0: the event is not on a hardware counter right
    /// now. Expected before the group is enabled and while it is multiplexed out; on arm64,
    /// also how `kernel.perf_user_access=0` shows. Probe only while the group is enabled.
    IndexZero {
        /// Position of the member in the group.
        member: usize,
    },
    /// The page changed during every one of [`MAX_RETRIES`] + 1 attempts to read it.
    Unstable {
        /// Position of the member in the group.
        member: usize,
    },
}

impl Capability {
    /// `true` for [`Capability::Usable`].
    ///
    /// ```
    /// use perfbench::counters::userpage::Capability;
    ///
    /// assert!(Capability::Usable.is_usable());
    /// assert!(!Capability::NoUserRdpmc { member: 0 }.is_usable());
    /// ```
    pub fn is_usable(self) -> bool {
        self == Capability::Usable
    }
}

impl std::fmt::Display for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Capability::Usable => f.write_str("user-space counter reads are allowed"),
            Capability::NoMembers => f.write_str("no events to read"),
            Capability::DeprecatedAbi { member } => write!(
                f,
                "member {member}: the user page uses the pre-3.12 capability ABI \
                 (cap_bit0_is_deprecated is clear)"
            ),
            Capability::NoUserRdpmc { member } => write!(
                f,
                "member {member}: the kernel does not allow user-space counter reads \
                 (cap_user_rdpmc is clear)"
            ),
            Capability::IndexZero { member } => write!(
                f,
                "member {member}: the event is not on a hardware counter right now (index 0)"
            ),
            Capability::Unstable { member } => write!(
                f,
                "member {member}: the user page kept changing while being read"
            ),
        }
    }
}

/// Nanoseconds since the kernel's last update of `page` (the leader's), from its time
/// conversion as `perf_event.h` documents it, or `None` when the page lacks `cap_user_time`.
/// Called inside the seqlock section, only when the times are needed; and only once every
/// member's `index != 0` was seen, so the group is running and `running` advances like
/// `enabled`.
#[cold]
#[inline(never)]
fn since_update<P: PageView, R: Registers>(page: &P, regs: &R) -> Option<u64> {
    let caps = page.capabilities();
    if caps & cap::USER_TIME == 0 {
        return None;
    }
    let short = caps & cap::USER_TIME_SHORT != 0;
    let (cycles, mask) = if short {
        (page.time_cycles(), page.time_mask())
    } else {
        (0, 0)
    };
    Some(time_delta(
        regs.read_timestamp(),
        short,
        cycles,
        mask,
        page.time_shift(),
        page.time_mult(),
        page.time_offset(),
    ))
}

impl Times {
    /// The page's times, plus `delta` nanoseconds since its last update when known.
    #[inline(always)]
    fn at(enabled: u64, running: u64, delta: Option<u64>) -> Times {
        match delta {
            Some(d) => Times {
                enabled: enabled.wrapping_add(d),
                running: running.wrapping_add(d),
                extrapolated: true,
            },
            None => Times {
                enabled,
                running,
                extrapolated: false,
            },
        }
    }
}

/// Nanoseconds since the page's last update, from a timestamp:
///
/// ```text
/// if short { cyc = time_cycles + ((cyc - time_cycles) & time_mask) }
/// quot  = cyc >> time_shift
/// rem   = cyc & ((1 << time_shift) - 1)
/// delta = time_offset + quot * time_mult + ((rem * time_mult) >> time_shift)
/// ```
///
/// Splitting `cyc` into `quot` and `rem` keeps `rem * time_mult` from overflowing. A shift of
/// 64 or more (never reported) gives `quot = 0`, `rem = cyc`, `>> shift = 0`.
#[inline(always)]
fn time_delta(
    timestamp: u64,
    short: bool,
    cycles: u64,
    mask: u64,
    shift: u16,
    mult: u32,
    offset: u64,
) -> u64 {
    let mut cyc = timestamp;
    if short {
        cyc = cycles.wrapping_add(cyc.wrapping_sub(cycles) & mask);
    }
    let shift = u32::from(shift);
    let mult = u64::from(mult);
    let quot = cyc.checked_shr(shift).unwrap_or(0);
    let rem = cyc & 1u64.checked_shl(shift).map_or(u64::MAX, |b| b - 1);
    offset
        .wrapping_add(quot.wrapping_mul(mult))
        .wrapping_add(rem.wrapping_mul(mult).checked_shr(shift).unwrap_or(0))
}

/// Reads a counter group through its members' user pages.
///
/// `pages[0]` is the group leader (its times are the group's); `out[i]` of a read is the count
/// of `pages[i]`. A read allocates nothing and makes no system call.
///
/// Reads must happen on the thread the events count (perf_event_open with `pid = 0`): the page
/// describes the hardware counter of the CPU that thread runs on.
///
/// The group code holds a `FastReader<MappedPage, arch::Native>` built from the members'
/// mapped pages (in group order) and [`arch::native()`](super::arch::native); it checks
/// [`capability`](Self::capability) after enabling the group and falls back to `read(2)`
/// whenever [`read`](Self::read) returns `None`.
#[derive(Debug)]
pub struct FastReader<P: PageView, R: Registers> {
    /// Fixed for the reader's life: a boxed slice (its pointer doubles as `Option`'s niche, so
    /// an `Option<FastReader>` is tested with one load).
    pages: Box<[P]>,
    regs: R,
}

impl<P: PageView, R: Registers> FastReader<P, R> {
    /// A reader of the group whose user pages are `pages`, leader first.
    ///
    /// ```
    /// use perfbench::counters::userpage::sim::{PageFields, SimPage, SimRegisters};
    /// use perfbench::counters::userpage::FastReader;
    ///
    /// // A simulated user page for hardware counter 1 (48 bits wide), as the tests use.
    /// let regs = SimRegisters::new(1, 48);
    /// let page = SimPage::new(PageFields { index: 1, offset: 1000, ..PageFields::default() });
    /// regs.set_counter(1, 234);
    /// let reader = FastReader::new(vec![&page], &regs);
    /// let mut out = [0];
    /// assert!(reader.read(&mut out).is_some());
    /// assert_eq!(out[0], 1234); // offset + sign-extended raw counter
    /// assert_eq!((reader.len(), reader.is_empty()), (1, false));
    /// ```
    pub fn new(pages: Vec<P>, regs: R) -> Self {
        FastReader {
            pages: pages.into_boxed_slice(),
            regs,
        }
    }

    /// Number of members.
    ///
    /// See [`FastReader::new`] for an example.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    /// `true` when the group has no members.
    ///
    /// See [`FastReader::new`] for an example.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// The members' pages, leader first.
    ///
    /// ```
    /// use perfbench::counters::userpage::sim::{PageFields, SimPage, SimRegisters};
    /// use perfbench::counters::userpage::FastReader;
    ///
    /// // A simulated user page for hardware counter 1 (48 bits wide), as the tests use.
    /// let regs = SimRegisters::new(1, 48);
    /// let page = SimPage::new(PageFields { index: 1, offset: 1000, ..PageFields::default() });
    /// regs.set_counter(1, 234);
    /// let reader = FastReader::new(vec![&page], &regs);
    /// assert_eq!(reader.pages()[0].fields().offset, 1000);
    /// assert_eq!(reader.registers().counter(1), 234);
    /// let (pages, _regs) = reader.into_parts();
    /// assert_eq!(pages.len(), 1);
    /// ```
    pub fn pages(&self) -> &[P] {
        &self.pages
    }

    /// The register reader.
    ///
    /// See [`FastReader::pages`] for an example.
    pub fn registers(&self) -> &R {
        &self.regs
    }

    /// Gives the pages and the register reader back.
    ///
    /// See [`FastReader::pages`] for an example.
    pub fn into_parts(self) -> (Vec<P>, R) {
        (self.pages.into_vec(), self.regs)
    }

    /// Whether the fast path can serve this group right now.
    ///
    /// For each member, in order of permanence: `cap_bit0_is_deprecated` must be set (else the
    /// page uses the old ABI, which perfbench does not trust: [`Capability::DeprecatedAbi`]),
    /// then `cap_user_rdpmc` ([`Capability::NoUserRdpmc`]), then `index != 0`
    /// ([`Capability::IndexZero`]). `index` is 0 whenever the event is not on a counter, in
    /// particular before the group is enabled, so probe while it is enabled. Even a usable group
    /// can see `index == 0` later (multiplexing); [`read`](Self::read) checks on every call.
    ///
    /// ```
    /// use perfbench::counters::userpage::sim::{PageFields, SimPage, SimRegisters};
    /// use perfbench::counters::userpage::FastReader;
    ///
    /// // A simulated user page for hardware counter 1 (48 bits wide), as the tests use.
    /// let regs = SimRegisters::new(1, 48);
    /// let page = SimPage::new(PageFields { index: 1, offset: 1000, ..PageFields::default() });
    /// regs.set_counter(1, 234);
    /// let reader = FastReader::new(vec![&page], &regs);
    /// use perfbench::counters::userpage::Capability;
    ///
    /// assert_eq!(reader.capability(), Capability::Usable);
    /// page.update(|f| f.index = 0); // the event left the hardware counter
    /// assert!(!reader.capability().is_usable());
    /// ```
    pub fn capability(&self) -> Capability {
        if self.pages.is_empty() {
            return Capability::NoMembers;
        }
        let mut first_index_zero = None;
        for (member, page) in self.pages.iter().enumerate() {
            let Some((caps, index)) = stable_caps_and_index(page) else {
                return Capability::Unstable { member };
            };
            if caps & cap::BIT0_IS_DEPRECATED == 0 {
                return Capability::DeprecatedAbi { member };
            }
            if caps & cap::USER_RDPMC == 0 {
                return Capability::NoUserRdpmc { member };
            }
            if index == 0 && first_index_zero.is_none() {
                first_index_zero = Some(member);
            }
        }
        match first_index_zero {
            Some(member) => Capability::IndexZero { member },
            None => Capability::Usable,
        }
    }

    /// Reads every member's count into `out` (`out[i]` for `pages[i]`) and returns the group's
    /// times, or `None` when the caller must fall back to `read(2)`: some member has
    /// `index == 0` or an index the register reader cannot read, the reader has no members, or
    /// the pages kept changing for [`MAX_RETRIES`] + 1 attempts. After `None`, `out` holds
    /// garbage.
    ///
    /// One seqlock section covers all members, and the leader's times are read inside it, so
    /// the counts and times are one consistent snapshot: for each member
    /// `seq = lock; barrier; index, pmc_width, offset, counter; barrier`, then the leader's
    /// times, then every member's `lock` is read again and the whole group is re-read if any
    /// moved. The times are extrapolated to now only when the page shows the group multiplexed
    /// (`time_enabled != time_running`, as in the reference loop of `perf_event.h`); otherwise
    /// they are the page's (see [`Times::extrapolated`]), and [`read_times`](Self::read_times)
    /// always extrapolates.
    ///
    /// `index` alone decides whether a member may be read now: the capability bits are not
    /// re-read on every read. The kernel gives a page a non-zero `index` only for an event whose
    /// counter user space may read (`cap_user_rdpmc` and `index` come from the same flag, on
    /// x86 and arm64 alike, on every kernel with `cap_bit0_is_deprecated`), and the ABI bits do
    /// not change over the page's life. Check [`capability`](Self::capability) once after
    /// enabling the group, as the group code does, to rule out the pre-3.12 ABI and to learn
    /// why a group cannot use the fast path.
    ///
    /// The barriers are compiler fences only, as in the kernel's reference loop: the kernel
    /// updates a self-monitoring event's page on the CPU the reading thread runs on (at a
    /// context switch or in an interrupt, with preemption disabled), so the reader observes the
    /// update in program order and only needs the compiler to keep its loads, and the counter
    /// read, between the two loads of `lock`.
    ///
    /// # Panics
    ///
    /// If `out.len()` differs from the number of members.
    ///
    /// ```
    /// use perfbench::counters::userpage::sim::{PageFields, SimPage, SimRegisters};
    /// use perfbench::counters::userpage::FastReader;
    ///
    /// // A simulated user page for hardware counter 1 (48 bits wide), as the tests use.
    /// let regs = SimRegisters::new(1, 48);
    /// let page = SimPage::new(PageFields { index: 1, offset: 1000, ..PageFields::default() });
    /// regs.set_counter(1, 234);
    /// let reader = FastReader::new(vec![&page], &regs);
    /// let mut out = [0];
    /// regs.add_counter(1, 100);
    /// let times = reader.read(&mut out).unwrap();
    /// assert_eq!(out[0], 1334);
    /// assert_eq!(times.enabled, times.running); // not multiplexed
    /// page.update(|f| f.index = 0);
    /// assert!(reader.read(&mut out).is_none()); // the caller falls back to read(2)
    /// ```
    #[inline(always)]
    pub fn read(&self, out: &mut [u64]) -> Option<Times> {
        let mut retries = 0;
        self.read_inner(out, &mut retries)
    }

    /// [`read`](Self::read), the times always extrapolated to the moment of the read when the
    /// page offers `cap_user_time` (a `rdtsc`/`CNTVCT_EL0` read and a few multiplications
    /// more), whether the group was multiplexed or not.
    ///
    /// ```
    /// use perfbench::counters::userpage::sim::{PageFields, SimPage, SimRegisters};
    /// use perfbench::counters::userpage::FastReader;
    ///
    /// // A simulated user page for hardware counter 1 (48 bits wide), as the tests use.
    /// let regs = SimRegisters::new(1, 48);
    /// let page = SimPage::new(PageFields { index: 1, offset: 1000, ..PageFields::default() });
    /// regs.set_counter(1, 234);
    /// let reader = FastReader::new(vec![&page], &regs);
    /// let mut out = [0];
    /// let times = reader.read_times(&mut out).unwrap();
    /// assert!(!times.extrapolated); // this page offers no time conversion (no cap_user_time)
    /// ```
    #[inline]
    pub fn read_times(&self, out: &mut [u64]) -> Option<Times> {
        self.read_extrapolating(out, 0, Extrapolate::Always).0
    }

    /// [`read`](Self::read), also reporting how many torn snapshots were discarded.
    ///
    /// ```
    /// use perfbench::counters::userpage::sim::{PageFields, SimPage, SimRegisters};
    /// use perfbench::counters::userpage::FastReader;
    ///
    /// // A simulated user page for hardware counter 1 (48 bits wide), as the tests use.
    /// let regs = SimRegisters::new(1, 48);
    /// let page = SimPage::new(PageFields { index: 1, offset: 1000, ..PageFields::default() });
    /// regs.set_counter(1, 234);
    /// let reader = FastReader::new(vec![&page], &regs);
    /// let mut out = [0];
    /// let (times, stats) = reader.read_with_stats(&mut out);
    /// assert!(times.is_some());
    /// assert_eq!(stats.retries, 0); // no writer changed the page during the read
    /// ```
    #[inline]
    pub fn read_with_stats(&self, out: &mut [u64]) -> (Option<Times>, ReadStats) {
        let mut stats = ReadStats::default();
        let times = self.read_inner(out, &mut stats.retries);
        (times, stats)
    }

    /// The hot path of [`read`](Self::read): the seqlock loop with the times as the page has
    /// them. A group the page shows multiplexed (`time_enabled != time_running`) is read again
    /// by [`read_extrapolating`](Self::read_extrapolating), out of line: its counts are
    /// estimates anyway, and the hot path keeps no timestamp read or time arithmetic.
    #[inline(always)]
    fn read_inner(&self, out: &mut [u64], retries: &mut u32) -> Option<Times> {
        match seqlock_read(&self.pages, &self.regs, out, retries, Extrapolate::Never) {
            Attempt::Read(times) => Some(times),
            Attempt::Declined => None,
            Attempt::Multiplexed => {
                let (times, total) =
                    self.read_extrapolating(out, *retries, Extrapolate::IfMultiplexed);
                *retries = total;
                times
            }
        }
    }

    /// The general read, out of line: the seqlock loop with the times extrapolated to now
    /// inside the section when `extrapolate` asks for it. Takes the retries so far (they
    /// count against [`MAX_RETRIES`]) and returns them with this read's added; by value, so
    /// that the hot path's count stays in a register.
    #[cold]
    #[inline(never)]
    fn read_extrapolating(
        &self,
        out: &mut [u64],
        mut retries: u32,
        extrapolate: Extrapolate,
    ) -> (Option<Times>, u32) {
        let times = match seqlock_read(&self.pages, &self.regs, out, &mut retries, extrapolate) {
            Attempt::Read(times) => Some(times),
            Attempt::Declined | Attempt::Multiplexed => None,
        };
        (times, retries)
    }

    /// Copies every member's `offset` into `out`, from one seqlock-consistent snapshot of all
    /// pages, without touching any counter register. Returns `false` when the pages kept
    /// changing for [`MAX_RETRIES`] + 1 attempts (then `out` holds garbage).
    ///
    /// This is the count of a stopped event: the kernel's `perf_event_update_userpage()` writes
    /// `offset = count` and subtracts the counter's raw start value only while the event is on
    /// a counter (`index != 0`). After the group is disabled (`index == 0`) and the page updated,
    /// `offset` therefore holds the full count that `read(2)` reports.
    ///
    /// # Panics
    ///
    /// If `out.len()` differs from the number of members.
    ///
    /// ```
    /// use perfbench::counters::userpage::sim::{PageFields, SimPage, SimRegisters};
    /// use perfbench::counters::userpage::FastReader;
    ///
    /// // A simulated user page for hardware counter 1 (48 bits wide), as the tests use.
    /// let regs = SimRegisters::new(1, 48);
    /// let page = SimPage::new(PageFields { index: 1, offset: 1000, ..PageFields::default() });
    /// regs.set_counter(1, 234);
    /// let reader = FastReader::new(vec![&page], &regs);
    /// let mut offsets = [0];
    /// assert!(reader.page_offsets(&mut offsets));
    /// assert_eq!(offsets, [1000]);
    /// ```
    #[must_use = "`false` means the offsets could not be read consistently"]
    pub fn page_offsets(&self, out: &mut [u64]) -> bool {
        assert_eq!(
            out.len(),
            self.pages.len(),
            "FastReader::page_offsets: `out` must have one slot per member"
        );
        'attempt: for _ in 0..=MAX_RETRIES {
            let mut seq_sum = 0u64;
            for (page, slot) in self.pages.iter().zip(out.iter_mut()) {
                let seq = page.lock();
                compiler_fence(Ordering::SeqCst);
                if seq & 1 != 0 {
                    hint::spin_loop();
                    continue 'attempt;
                }
                seq_sum += u64::from(seq);
                *slot = page.offset() as u64;
                compiler_fence(Ordering::SeqCst);
            }
            // Same re-check as in `read`.
            let now_sum: u64 = self.pages.iter().map(|p| u64::from(p.lock())).sum();
            if now_sum == seq_sum {
                return true;
            }
            hint::spin_loop();
        }
        false
    }
}

/// `$body` for `$i` = 0, 1, ... `$n - 1` (`$n` a constant of at most [`STRAIGHT_MAX`]), written
/// out one after the other: the compiler does not unroll every loop over a constant count whose
/// body is as large as a member's read, nor inline every closure such a body would be. The
/// body may `return` from the enclosing function.
macro_rules! unrolled {
    ($i:ident < $n:ident => $body:block) => {{
        const { assert!($n <= STRAIGHT_MAX, "more members than STRAIGHT_MAX") };
        unrolled!(@steps $i $n $body 0 1 2 3 4 5 6);
    }};
    (@steps $i:ident $n:ident $body:block $($k:literal)*) => {
        $(
            {
                let $i: usize = $k;
                if $i < $n $body
            }
        )*
    };
}

/// `$read` with `$pages` bound to the filled slot of the [`Hot`] `$hot` (its member count's
/// array of handles, tested in order of member count), `$none` when every slot is empty.
macro_rules! by_slot {
    ($hot:expr, $pages:ident => $read:expr, $none:expr) => {
        if let Some($pages) = $hot.one {
            $read
        } else if let Some($pages) = $hot.two {
            $read
        } else if let Some($pages) = $hot.three {
            $read
        } else if let Some($pages) = $hot.four {
            $read
        } else if let Some($pages) = $hot.five {
            $read
        } else if let Some($pages) = $hot.six {
            $read
        } else if let Some($pages) = $hot.seven {
            $read
        } else {
            $none
        }
    };
}

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
    one: Option<[H; 1]>,
    two: Option<[H; 2]>,
    three: Option<[H; 3]>,
    four: Option<[H; 4]>,
    five: Option<[H; 5]>,
    six: Option<[H; 6]>,
    seven: Option<[H; 7]>,
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
fn straight_line<P: PageView + Copy, R: Registers, const N: usize, const TIMES: bool>(
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

/// When [`seqlock_read`] extrapolates the times to the moment of the read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Extrapolate {
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
enum Attempt {
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
fn give_up(retries: &mut u32) -> bool {
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
fn seqlock_read<P: PageView, R: Registers>(
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
fn member_value<P: PageView, R: Registers>(page: &P, regs: &R) -> Option<u64> {
    let index = page.index();
    let width = page.pmc_width();
    let offset = page.offset();
    let raw = regs.read_counter(index)?;
    Some((offset as u64).wrapping_add(sign_extend(raw, width) as u64))
}

/// `(capabilities, index)` of one page from a seqlock-consistent snapshot, or `None` when the
/// page kept changing.
fn stable_caps_and_index<P: PageView>(page: &P) -> Option<(u64, u32)> {
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

#[doc(hidden)] // for tests and benchmarks of the reader
pub mod reference {
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
}

#[doc(hidden)] // for tests of the reader without a PMU
pub mod sim {
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
}

#[cfg(test)]
mod tests {
    use super::sim::{PageFields, SimPage, SimRegisters};
    use super::*;
    use std::cell::Cell;
    use std::sync::atomic::{AtomicBool, AtomicU64};
    use std::time::{Duration, Instant};

    const FAST: u64 = cap::BIT0_IS_DEPRECATED | cap::USER_RDPMC;

    fn page(index: u32, offset: i64, width: u16) -> SimPage {
        SimPage::new(PageFields {
            index,
            offset,
            pmc_width: width,
            ..PageFields::default()
        })
    }

    /// One member at index 1 with `raw` in a counter of `width` bits; returns the count read.
    fn read_one(width: u16, offset: i64, raw: u64) -> u64 {
        let regs = SimRegisters::new(1, width);
        regs.set_counter(1, raw);
        let reader = FastReader::new(vec![page(1, offset, width)], &regs);
        let mut out = [0];
        reader.read(&mut out).expect("fast path allowed");
        out[0]
    }

    #[test]
    fn sign_extend_widths() {
        assert_eq!(sign_extend(0x7FFF_FFFF, 32), 0x7FFF_FFFF);
        assert_eq!(sign_extend(0x8000_0000, 32), -0x8000_0000);
        assert_eq!(sign_extend(0xFFFF_FFFF, 32), -1);
        assert_eq!(sign_extend(0xFF_FFFF_FFFF, 40), -1);
        assert_eq!(sign_extend(0x80_0000_0000, 40), -(1 << 39));
        assert_eq!(sign_extend(0xFFFF_FFFF_FFF0, 48), -16);
        assert_eq!(sign_extend(0x7FFF_FFFF_FFFF, 48), (1 << 47) - 1);
        // Bits above the width are ignored.
        assert_eq!(sign_extend(0xABCD_0000_0000_0005, 48), 5);
        assert_eq!(sign_extend(u64::MAX, 64), -1);
        assert_eq!(sign_extend(5, 64), 5);
        // Width 0: the raw value as is (documented). Above 64 (never reported): no panic.
        assert_eq!(sign_extend(0xFFFF_FFFF_FFF0, 0), 0xFFFF_FFFF_FFF0);
        for width in [65, 1000, u16::MAX] {
            std::hint::black_box(sign_extend(std::hint::black_box(1 << 47), width));
        }
        // Every width of a real counter, against the definition with a branch for 64.
        for width in 1..=64u16 {
            for raw in [0, 1, 5, 1 << (width - 1), u64::MAX, 0x8000_0000_0000_0001] {
                let expect = if width == 64 {
                    raw as i64
                } else {
                    let shift = 64 - u32::from(width);
                    ((raw << shift) as i64) >> shift
                };
                assert_eq!(sign_extend(raw, width), expect, "{raw:#x} width {width}");
            }
        }
    }

    #[test]
    fn the_2_pow_48_trap() {
        // The kernel starts a counting x86 event at prev_count = -left and stores
        // offset = count - prev_count. Here count = 0x20 and left = 16: the 48-bit counter
        // holds 0xFFFF_FFFF_FFF0 and offset = 0x20 + 16 = 0x30.
        let raw = 0xFFFF_FFFF_FFF0u64;
        let offset = 0x30i64;
        let value = read_one(48, offset, raw);
        assert_eq!(value, 0x20);
        let without_sign_extension = (offset as u64).wrapping_add(raw);
        assert_eq!(without_sign_extension - value, 1 << 48);
    }

    #[test]
    fn counters_near_wrap_every_width() {
        for width in [32u16, 40, 48, 64] {
            let mask = if width == 64 {
                u64::MAX
            } else {
                (1 << width) - 1
            };
            // The kernel programs the counter to -left (here -5) with `count_at_start` events
            // already counted, so offset = count_at_start + 5.
            let count_at_start: u64 = 1_000_000_007;
            let start_raw = 5u64.wrapping_neg() & mask;
            let offset = count_at_start.wrapping_add(5) as i64;
            let regs = SimRegisters::new(1, width);
            regs.set_counter(1, start_raw);
            let reader = FastReader::new(vec![page(1, offset, width)], &regs);
            let mut out = [0];
            for counted in 0..12u64 {
                // Raw goes ...FFFB, ...FFFC, ..., ...FFFF, 0, 1, ... : across the wrap.
                assert!(reader.read(&mut out).is_some());
                assert_eq!(
                    out[0],
                    count_at_start + counted,
                    "width {width}, +{counted}"
                );
                regs.add_counter(1, 1);
            }
            assert_eq!(regs.counter(1), 7, "width {width}: counter wrapped");
        }
    }

    #[test]
    fn negative_offsets() {
        // A counter that started at a positive raw value: offset = count - raw_at_start < 0.
        for width in [32u16, 40, 48, 64] {
            let raw_at_start = 0x1234_5678u64;
            let count_at_start = 100u64;
            let offset = count_at_start as i64 - raw_at_start as i64;
            assert!(offset < 0);
            assert_eq!(read_one(width, offset, raw_at_start), count_at_start);
            assert_eq!(
                read_one(width, offset, raw_at_start + 50),
                count_at_start + 50
            );
        }
        // The largest positive 48-bit raw value with a matching negative offset.
        let raw = (1u64 << 47) - 1;
        assert_eq!(read_one(48, -(raw as i64) + 9, raw), 9);
    }

    #[test]
    fn values_wrap_as_u64() {
        // offset + counter overflowing u64 (the kernel's arithmetic is modular too).
        assert_eq!(read_one(64, -1, 1), 0);
        assert_eq!(read_one(64, i64::MAX, 1), 1 << 63);
    }

    #[test]
    fn index_zero_on_any_member_means_fallback() {
        let regs = SimRegisters::new(3, 48);
        for zero in 0..3usize {
            let pages: Vec<SimPage> = (1..=3u32)
                .map(|i| page(if i as usize - 1 == zero { 0 } else { i }, 0, 48))
                .collect();
            let reader = FastReader::new(pages, &regs);
            let mut out = [0; 3];
            assert_eq!(reader.read(&mut out), None, "member {zero} has index 0");
            assert_eq!(reader.capability(), Capability::IndexZero { member: zero });
        }
    }

    #[test]
    fn unreadable_index_means_fallback() {
        // Index 2 has no simulated counter, like arm64's index 33 for `Mrs`.
        let regs = SimRegisters::new(1, 48);
        let reader = FastReader::new(vec![page(1, 0, 48), page(2, 0, 48)], &regs);
        assert_eq!(reader.read(&mut [0; 2]), None);
    }

    #[test]
    fn capability_bits() {
        let regs = SimRegisters::new(2, 48);
        let with_caps = |caps: u64| {
            SimPage::new(PageFields {
                capabilities: caps,
                ..PageFields::default()
            })
        };
        let probe = |caps: u64| {
            let reader = FastReader::new(vec![with_caps(FAST), with_caps(caps)], &regs);
            reader.capability()
        };

        assert_eq!(probe(FAST), Capability::Usable);
        // Old ABI: bit 0 set (meant "rdpmc and time"), bit 1 clear -> not trusted.
        for caps in [cap::USER_RDPMC, cap::BIT0 | cap::USER_RDPMC, cap::BIT0] {
            assert_eq!(probe(caps), Capability::DeprecatedAbi { member: 1 });
        }
        assert_eq!(
            probe(cap::BIT0_IS_DEPRECATED | cap::USER_TIME),
            Capability::NoUserRdpmc { member: 1 }
        );
        assert!(!probe(0).is_usable());
        // `read` does not re-read the capability bits: `index` decides (the kernel never sets
        // it for an event user space may not read), and `capability` is checked once.
        let reader = FastReader::new(vec![with_caps(FAST), with_caps(0)], &regs);
        assert!(reader.read(&mut [0; 2]).is_some());

        // A permanent reason on a later member wins over a transient one on an earlier member.
        let reader = FastReader::new(
            vec![page(0, 0, 48), with_caps(cap::BIT0_IS_DEPRECATED)],
            &regs,
        );
        assert_eq!(reader.capability(), Capability::NoUserRdpmc { member: 1 });

        let empty: FastReader<SimPage, &SimRegisters> = FastReader::new(Vec::new(), &regs);
        assert_eq!(empty.capability(), Capability::NoMembers);
        assert_eq!(empty.read(&mut []), None);
        assert!(Capability::Usable.is_usable());
        assert_eq!(
            Capability::IndexZero { member: 2 }.to_string(),
            "member 2: the event is not on a hardware counter right now (index 0)"
        );
    }

    #[test]
    fn times_without_cap_user_time_are_raw_and_flagged() {
        let regs = SimRegisters::new(1, 48);
        regs.set_timestamp(123_456_789);
        let p = SimPage::new(PageFields {
            time_enabled: 1000,
            time_running: 900,
            time_shift: 10,
            time_mult: 3000,
            ..PageFields::default()
        });
        let reader = FastReader::new(vec![p], &regs);
        assert_eq!(
            reader.read(&mut [0]),
            Some(Times {
                enabled: 1000,
                running: 900,
                extrapolated: false
            })
        );
    }

    /// A page enabled for 10,000 ns, of which `running` on the PMU, with the time conversion
    /// `time_extrapolation` works through by hand.
    fn timed_page(running: u64) -> SimPage {
        SimPage::new(PageFields {
            time_enabled: 10_000,
            time_running: running,
            time_shift: 10,
            time_mult: 3000,
            time_offset: (-5_000_000i64) as u64,
            capabilities: FAST | cap::USER_TIME,
            ..PageFields::default()
        })
    }

    #[test]
    fn times_of_a_group_never_multiplexed_are_extrapolated_only_on_request() {
        let regs = SimRegisters::new(1, 48);
        regs.set_timestamp(2_049_000);
        let p = timed_page(10_000);
        let reader = FastReader::new(vec![p], &regs);
        let raw = Times {
            enabled: 10_000,
            running: 10_000,
            extrapolated: false,
        };
        assert_eq!(reader.read(&mut [0]), Some(raw));
        assert_eq!(reader.read_with_stats(&mut [0]).0, Some(raw));
        // The same delta as in `time_extrapolation` below, added to both.
        let now = Times {
            enabled: 10_000 + 1_002_929,
            running: 10_000 + 1_002_929,
            extrapolated: true,
        };
        assert_eq!(reader.read_times(&mut [0]), Some(now));
        // Differences of two readings and the multiplexing test agree either way.
        assert_eq!(now.enabled - now.running, raw.enabled - raw.running);
    }

    #[test]
    fn the_reference_reads_what_the_reader_reads() {
        for width in [32u16, 40, 48, 64] {
            let regs = SimRegisters::new(3, width);
            let pages: [SimPage; 3] =
                std::array::from_fn(|i| page(i as u32 + 1, 1_000_000 * (i as i64 + 1) - 7, width));
            let reader = FastReader::new(pages.iter().collect(), &regs);
            for raw in [0u64, 5, 5u64.wrapping_neg(), 1 << (width - 1), u64::MAX] {
                for i in 1..=3 {
                    regs.set_counter(i, raw.wrapping_add(u64::from(i)));
                }
                let (mut fast, mut minimal) = ([0u64; 3], [0u64; 3]);
                assert!(reader.read(&mut fast).is_some());
                assert!(reference::read(&pages, &regs, &mut minimal));
                assert_eq!(fast, minimal, "width {width} raw {raw:#x}");
            }
            pages[1].update(|f| f.index = 0);
            assert!(reader.read(&mut [0; 3]).is_none());
            assert!(!reference::read(&pages, &regs, &mut [0; 3]));
        }
    }

    #[test]
    fn time_extrapolation() {
        let regs = SimRegisters::new(1, 48);
        // cyc = 2_049_000 = 2000 * 1024 + 1000 with time_shift 10:
        //   quot = 2000, rem = 1000
        //   delta = time_offset + 2000 * 3000 + (1000 * 3000) >> 10
        //         = -5_000_000 + 6_000_000 + 2929 (3_000_000 / 1024 = 2929.69) = 1_002_929
        regs.set_timestamp(2_049_000);
        let p = timed_page(8_000);
        let reader = FastReader::new(vec![p], &regs);
        assert_eq!(
            reader.read(&mut [0]),
            Some(Times {
                enabled: 10_000 + 1_002_929,
                running: 8_000 + 1_002_929,
                extrapolated: true
            })
        );
    }

    #[test]
    fn time_extrapolation_short() {
        let regs = SimRegisters::new(1, 48);
        // cap_user_time_short with a 32-bit valid mask: the timestamp's high bits are
        // replaced by time_cycles'.
        //   cyc = 0x5_0000_0100 + ((0x7_0000_0307 - 0x5_0000_0100) & 0xFFFF_FFFF)
        //       = 0x5_0000_0100 + 0x207 = 0x5_0000_0307
        //   time_shift 4: quot = 0x5000_0030, rem = 7
        //   delta = 1000 + 0x5000_0030 * 5 + (7 * 5) >> 4 = 1000 + 6_710_886_640 + 2
        regs.set_timestamp(0x7_0000_0307);
        let fields = PageFields {
            time_enabled: 10_000,
            time_running: 8_000,
            time_shift: 4,
            time_mult: 5,
            time_offset: 1000,
            time_cycles: 0x5_0000_0100,
            time_mask: 0xFFFF_FFFF,
            capabilities: FAST | cap::USER_TIME | cap::USER_TIME_SHORT,
            ..PageFields::default()
        };
        let reader = FastReader::new(vec![SimPage::new(fields)], &regs);
        let delta = 6_710_887_642u64;
        assert_eq!(
            reader.read(&mut [0]),
            Some(Times {
                enabled: 10_000 + delta,
                running: 8_000 + delta,
                extrapolated: true
            })
        );
        // Without the short bit the full timestamp is used:
        //   0x7_0000_0307 >> 4 = 0x7000_0030; delta = 1000 + 0x7000_0030 * 5 + 2
        let reader = FastReader::new(
            vec![SimPage::new(PageFields {
                capabilities: FAST | cap::USER_TIME,
                ..fields
            })],
            &regs,
        );
        let delta = 1000 + 0x7000_0030u64 * 5 + 2;
        assert_eq!(delta, 9_395_242_202);
        assert_eq!(reader.read(&mut [0]).unwrap().enabled, 10_000 + delta);
    }

    #[test]
    fn time_delta_edge_cases() {
        // Shift 0: rem is always 0.
        assert_eq!(time_delta(7, false, 0, 0, 0, 3, 1), 22);
        // Shift >= 64 (never reported): quot = 0 and the rem term shifts out.
        assert_eq!(time_delta(u64::MAX, false, 0, 0, 64, 3, 1), 1);
        // Wrapping, never panicking.
        assert_eq!(
            time_delta(u64::MAX, false, 0, 0, 1, u32::MAX, u64::MAX),
            (u64::MAX >> 1)
                .wrapping_mul(u64::from(u32::MAX))
                .wrapping_add(u64::from(u32::MAX) >> 1)
                .wrapping_sub(1)
        );
    }

    #[test]
    fn page_offsets_of_a_stopped_group() {
        // A disabled event: index 0 and the full count in `offset`.
        let regs = SimRegisters::new(2, 48);
        let reader = FastReader::new(vec![page(0, 4242, 48), page(0, 17, 48)], &regs);
        let mut out = [0; 2];
        assert_eq!(reader.read(&mut out), None);
        assert!(reader.page_offsets(&mut out));
        assert_eq!(out, [4242, 17]);
    }

    #[test]
    fn gives_up_on_a_page_that_never_settles() {
        let regs = SimRegisters::new(1, 48);
        let p = page(1, 0, 48);
        p.set_lock(7); // a writer stuck mid-update
        let reader = FastReader::new(vec![p], &regs);
        let (times, stats) = reader.read_with_stats(&mut [0]);
        assert_eq!(times, None);
        assert_eq!(stats.retries, MAX_RETRIES + 1);
        assert!(!reader.page_offsets(&mut [0]));
        assert_eq!(reader.capability(), Capability::Unstable { member: 0 });
    }

    /// Registers whose `read_counter` runs a page update on its `fire_on`-th call, the way an
    /// interrupt that reprograms a counter lands in the middle of a read.
    struct Interrupting<'a> {
        regs: &'a SimRegisters,
        calls: Cell<u32>,
        fire_on: u32,
        interrupt: &'a dyn Fn(),
    }

    impl Registers for Interrupting<'_> {
        fn read_counter(&self, index: u32) -> Option<u64> {
            let value = self.regs.read_counter(index);
            self.calls.set(self.calls.get() + 1);
            if self.calls.get() == self.fire_on {
                (self.interrupt)();
            }
            value
        }

        fn read_timestamp(&self) -> u64 {
            self.regs.read_timestamp()
        }
    }

    #[test]
    fn an_update_during_the_read_forces_a_retry() {
        // Two members, both counting 1000. While a counter is being read, the kernel
        // reprograms member 0 (new raw start value, new offset, count now 1010). With
        // `fire_on` 2 the update lands while member 1 is read, after member 0 was read: only
        // the final re-check of *all* locks catches it.
        for fire_on in [1, 2] {
            let regs = SimRegisters::new(2, 48);
            regs.set_counter(1, 0xFFFF_FFFF_FF00); // -256
            regs.set_counter(2, 50);
            let pages = [page(1, 1256, 48), page(2, 950, 48)];
            let interrupt = || {
                pages[0].update(|f| {
                    regs.set_counter(1, 0xFFFF_FFFF_0000); // -65536
                    f.offset = 1010 + 65536;
                })
            };
            let interrupting = Interrupting {
                regs: &regs,
                calls: Cell::new(0),
                fire_on,
                interrupt: &interrupt,
            };
            let reader = FastReader::new(pages.iter().collect(), interrupting);
            let mut out = [0; 2];
            let (times, stats) = reader.read_with_stats(&mut out);
            assert!(times.is_some());
            assert_eq!(stats.retries, 1, "fire_on {fire_on}");
            assert_eq!(out, [1010, 1000], "fire_on {fire_on}");
            assert_eq!(pages[0].lock_value(), 2);
        }
    }

    #[test]
    fn the_hot_path_leaves_retries_and_multiplexed_groups_to_read() {
        // Torn during the one attempt: `None`, where `read` retries and succeeds.
        let regs = SimRegisters::new(2, 48);
        regs.set_counter(1, 10);
        regs.set_counter(2, 20);
        let pages = [page(1, 1000, 48), page(2, 2000, 48)];
        let interrupt = || pages[0].update(|f| f.offset = 1100);
        let torn = || Interrupting {
            regs: &regs,
            calls: Cell::new(0),
            fire_on: 2,
            interrupt: &interrupt,
        };
        let hot = Hot::new(&[&pages[0], &pages[1]]);
        let mut out = [0; 2];
        assert_eq!(hot.read(&torn(), &mut out), None);
        let reader = FastReader::new(pages.iter().collect(), torn());
        let (times, stats) = reader.read_with_stats(&mut out);
        assert!(times.is_some());
        assert_eq!((stats.retries, out), (1, [1110, 2020]));
        // Undisturbed: the same as `read`.
        assert!(hot.read(&regs, &mut out).is_some());
        assert_eq!(out, [1110, 2020]);
        // An `out` of another length: `None`, `out` untouched.
        let mut three = [7; 3];
        assert_eq!(hot.read(&regs, &mut three), None);
        assert_eq!(three, [7; 3]);
        // A member whose index cannot be read: `None`.
        pages[1].update(|f| f.index = 0);
        assert_eq!(hot.read(&regs, &mut out), None);
        // Multiplexed (enabled != running): `None`, where `read` extrapolates.
        let regs = SimRegisters::new(1, 48);
        let p = SimPage::new(PageFields {
            index: 1,
            time_enabled: 10_000,
            time_running: 8_000,
            time_shift: 10,
            time_mult: 3000,
            capabilities: FAST | cap::USER_TIME,
            ..PageFields::default()
        });
        assert_eq!(Hot::new(&[&p]).read(&regs, &mut [0]), None);
        let reader = FastReader::new(vec![&p], &regs);
        assert!(reader.read(&mut [0]).is_some_and(|t| t.extrapolated));
        // Not multiplexed: the page's times, as they are.
        p.update(|f| f.time_running = 10_000);
        let times = Hot::new(&[&p]).read(&regs, &mut [0]);
        assert_eq!(
            times,
            Some(Times {
                enabled: 10_000,
                running: 10_000,
                extrapolated: false
            })
        );
        // No members, or more than the straight-line reads cover: nothing to read.
        let empty: Hot<&SimPage> = Hot::new(&[]);
        assert_eq!(empty.read(&regs, &mut []), None);
        let many: Vec<SimPage> = (0..=STRAIGHT_MAX).map(|_| page(1, 0, 48)).collect();
        let many: Vec<&SimPage> = many.iter().collect();
        let mut out = vec![0; many.len()];
        assert_eq!(Hot::new(&many).read(&regs, &mut out), None);
    }

    #[test]
    fn both_hot_paths_read_what_the_reader_reads_for_every_member_count() {
        for width in [32u16, 48, 64] {
            for n in 1..=STRAIGHT_MAX {
                let regs = SimRegisters::new(n, width);
                let pages: Vec<SimPage> = (1..=n as u32)
                    .map(|i| page(i, 1_000_000 * i64::from(i) - 7, width))
                    .collect();
                let handles: Vec<&SimPage> = pages.iter().collect();
                let (hot, reader) = (Hot::new(&handles), FastReader::new(handles, &regs));
                for raw in [0u64, 5, 5u64.wrapping_neg(), 1 << (width - 1), u64::MAX] {
                    for i in 1..=n as u32 {
                        regs.set_counter(i, raw.wrapping_add(u64::from(i)));
                    }
                    let (mut fast, mut straight, mut counts) =
                        (vec![0u64; n], vec![0u64; n], vec![0u64; n]);
                    assert!(reader.read(&mut fast).is_some());
                    assert!(hot.read(&regs, &mut straight).is_some());
                    assert!(hot.read_counts(&regs, &mut counts));
                    assert_eq!(fast, straight, "{n} members, width {width}, raw {raw:#x}");
                    assert_eq!(fast, counts, "{n} members, width {width}, raw {raw:#x}");
                }
                // Multiplexed (enabled != running): the times-reading hot path declines, the
                // counts-only one reads the same raw counts as the reader, and no times.
                pages[0].update(|f| {
                    f.time_enabled = 10_000;
                    f.time_running = 4_000;
                });
                let (mut fast, mut counts) = (vec![0u64; n], vec![0u64; n]);
                assert!(reader.read(&mut fast).is_some());
                assert_eq!(hot.read(&regs, &mut vec![0u64; n]), None);
                assert!(
                    hot.read_counts(&regs, &mut counts),
                    "{n} members multiplexed"
                );
                assert_eq!(fast, counts, "{n} members multiplexed, width {width}");
            }
        }
    }

    #[test]
    fn the_counts_only_hot_path_declines_what_the_hot_path_declines() {
        for n in 1..=STRAIGHT_MAX {
            let regs = SimRegisters::new(n, 48);
            for i in 1..=n as u32 {
                regs.set_counter(i, 10 * u64::from(i));
            }
            let pages: Vec<SimPage> = (1..=n as u32)
                .map(|i| page(i, 1000 * i64::from(i), 48))
                .collect();
            let handles: Vec<&SimPage> = pages.iter().collect();
            let hot = Hot::new(&handles);
            let mut out = vec![0u64; n];
            // Torn during the one attempt (an update of the leader while the last member's
            // counter is read): declined, where the reader retries and succeeds.
            let interrupt = || pages[0].update(|f| f.offset += 100);
            let torn = Interrupting {
                regs: &regs,
                calls: Cell::new(0),
                fire_on: n as u32,
                interrupt: &interrupt,
            };
            assert!(!hot.read_counts(&torn, &mut out), "{n} members torn");
            let want: Vec<u64> = (1..=n as u64)
                .map(|i| 1000 * i + 10 * i + if i == 1 { 100 } else { 0 })
                .collect();
            assert!(hot.read_counts(&regs, &mut out));
            assert_eq!(out, want, "{n} members, after the update");
            // An `out` of another length: declined, `out` untouched.
            for len in [n - 1, n + 1] {
                let mut other = vec![7u64; len];
                assert!(
                    !hot.read_counts(&regs, &mut other),
                    "{n} members, out of {len}"
                );
                assert_eq!(other, vec![7u64; len]);
            }
            // A member whose index is 0 (the group is off the PMU): declined.
            pages[n - 1].update(|f| f.index = 0);
            assert!(!hot.read_counts(&regs, &mut out), "{n} members, index 0");
        }
        // No members, or more than the straight-line reads cover: nothing to read.
        let regs = SimRegisters::new(1, 48);
        let empty: Hot<&SimPage> = Hot::new(&[]);
        assert!(!empty.read_counts(&regs, &mut []));
        let many: Vec<SimPage> = (0..=STRAIGHT_MAX).map(|_| page(1, 0, 48)).collect();
        let many: Vec<&SimPage> = many.iter().collect();
        let mut out = vec![0; many.len()];
        assert!(!Hot::new(&many).read_counts(&regs, &mut out));
        assert!(FastReader::new(many, &regs).read(&mut out).is_some());
    }

    #[test]
    fn the_reference_reads_one_member_and_none() {
        let regs = SimRegisters::new(1, 48);
        regs.set_counter(1, 0xFFFF_FFFF_FFF0); // -16
        let pages = [page(1, 1016, 48)];
        let mut out = [0];
        assert!(reference::read(&pages, &regs, &mut out));
        assert_eq!(out, [1000]);
        assert!(reference::read::<SimPage, _, 0>(&[], &regs, &mut []));
    }

    /// Concurrent writer: the invariant a generation-`g` state satisfies, and how to build it.
    mod generations {
        use super::*;

        pub const WIDTH: u16 = 48;
        pub const MEMBERS: usize = 2;
        /// Counts are `g * TAG + member`: a torn read leaves the low bits wrong.
        pub const TAG: u64 = 1 << 20;

        /// A raw counter value spread over the whole 48-bit range, negative half included.
        pub fn raw(g: u64, member: usize) -> u64 {
            let x = (g ^ (member as u64) << 40).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            (x ^ x >> 29) & ((1 << WIDTH) - 1)
        }

        pub fn count(g: u64, member: usize) -> u64 {
            g * TAG + member as u64
        }

        pub fn offset(g: u64, member: usize) -> i64 {
            count(g, member).wrapping_sub(sign_extend(raw(g, member), WIDTH) as u64) as i64
        }

        /// The generation a value belongs to, or `None` for a value no generation produces.
        pub fn generation(value: u64, member: usize) -> Option<u64> {
            (value % TAG == member as u64).then_some(value / TAG)
        }

        /// What a reader computes from `offset` of one generation and `raw` of another.
        pub fn torn(offset_g: u64, raw_g: u64, member: usize) -> u64 {
            (offset(offset_g, member) as u64)
                .wrapping_add(sign_extend(raw(raw_g, member), WIDTH) as u64)
        }
    }

    #[test]
    fn torn_values_are_detectable() {
        use generations::*;
        for g in 0..10_000 {
            for m in 0..MEMBERS {
                assert_eq!(torn(g, g, m), count(g, m));
                assert_eq!(generation(count(g, m), m), Some(g));
                assert_eq!(generation(torn(g, g + 1, m), m), None, "g {g} m {m}");
                assert_eq!(generation(torn(g + 1, g, m), m), None, "g {g} m {m}");
            }
        }
    }

    #[test]
    fn seqlock_under_a_concurrent_writer() {
        use generations::*;
        const READS: u64 = 1_000_000;
        let regs = SimRegisters::new(MEMBERS, WIDTH);
        let pages: Vec<SimPage> = (0..MEMBERS)
            .map(|m| {
                regs.set_counter(m as u32 + 1, raw(0, m));
                page(m as u32 + 1, offset(0, m), WIDTH)
            })
            .collect();
        let stop = AtomicBool::new(false);
        let written = AtomicU64::new(0);

        std::thread::scope(|s| {
            s.spawn(|| {
                let mut g = 0;
                while !stop.load(Ordering::Relaxed) {
                    g += 1;
                    for (m, p) in pages.iter().enumerate() {
                        p.update(|f| {
                            regs.set_counter(m as u32 + 1, raw(g, m));
                            f.offset = offset(g, m);
                        });
                    }
                    written.store(g, Ordering::Relaxed);
                    // Leave the reader room to succeed between updates; the updates still
                    // land inside reads often enough.
                    for _ in 0..200 {
                        std::hint::spin_loop();
                    }
                }
            });

            // Stops the writer however the reader leaves this scope (a failed assertion
            // included), so a failure cannot hang the test.
            struct StopOnDrop<'a>(&'a AtomicBool);
            impl Drop for StopOnDrop<'_> {
                fn drop(&mut self) {
                    self.0.store(true, Ordering::Relaxed);
                }
            }
            let _stop_writer = StopOnDrop(&stop);

            let reader = FastReader::new(pages.iter().collect(), &regs);
            let mut out = [0; MEMBERS];
            let (mut reads, mut retries, mut gave_up) = (0u64, 0u64, 0u64);
            let mut last = [0u64; MEMBERS];
            let deadline = Instant::now() + Duration::from_secs(60);
            while reads < READS || retries == 0 {
                if Instant::now() > deadline {
                    break;
                }
                let (times, stats) = reader.read_with_stats(&mut out);
                retries += u64::from(stats.retries);
                if times.is_none() {
                    gave_up += 1;
                    continue;
                }
                reads += 1;
                let mut gens = [0u64; MEMBERS];
                for m in 0..MEMBERS {
                    gens[m] = generation(out[m], m)
                        .unwrap_or_else(|| panic!("torn read: member {m} = {:#x}", out[m]));
                    assert!(gens[m] >= last[m], "member {m} went back in time");
                }
                // Members are updated in order, so member 0 is at most one generation ahead.
                assert!(
                    gens[0] == gens[1] || gens[0] == gens[1] + 1,
                    "inconsistent group: generations {gens:?}"
                );
                last = gens;
            }
            eprintln!(
                "{reads} reads, {retries} retries, {gave_up} gave up, {} generations written",
                written.load(Ordering::Relaxed)
            );
            assert!(reads >= READS, "only {reads} successful reads in 60 s");
            assert!(retries > 0, "the writer never disturbed a read");
            assert!(last[0] > 0, "the reader never saw the writer's updates");
        });
    }
}
