//! The reader against simulated pages: counts, widths, offsets, torn reads, retries,
//! multiplexing, capabilities and the hot path.

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
