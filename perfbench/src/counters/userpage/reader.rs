//! [`FastReader`]: a whole group read in one seqlock retry loop, its times extrapolated when it
//! was multiplexed or asked for, what it can do on this page ([`Capability`]) and what its
//! reads cost ([`ReadStats`]).

use super::*;

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
pub(super) fn since_update<P: PageView, R: Registers>(page: &P, regs: &R) -> Option<u64> {
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
    pub(super) fn at(enabled: u64, running: u64, delta: Option<u64>) -> Times {
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
pub(super) fn time_delta(
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
/// mapped pages (in group order) and [`arch::native()`](crate::counters::arch::native); it checks
/// [`capability`](Self::capability) after enabling the group and falls back to `read(2)`
/// whenever [`read`](Self::read) returns `None`.
#[derive(Debug)]
pub struct FastReader<P: PageView, R: Registers> {
    /// Fixed for the reader's life: a boxed slice (its pointer doubles as `Option`'s niche, so
    /// an `Option<FastReader>` is tested with one load).
    pub(super) pages: Box<[P]>,
    pub(super) regs: R,
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
    pub(super) fn read_inner(&self, out: &mut [u64], retries: &mut u32) -> Option<Times> {
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
    pub(super) fn read_extrapolating(
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
