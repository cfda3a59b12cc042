//! Tests of [`parse`](super::parse) and [`split()`](super::split) on records synthesized here,
//! field by field, in both byte orders; malformed records; and a bounded run of mutants.

use super::*;
use crate::profile::branch::BranchEntry;

const LITTLE: ByteOrder = ByteOrder::Little;
const BIG: ByteOrder = ByteOrder::Big;
const ORDERS: [ByteOrder; 2] = [LITTLE, BIG];

/// Writes a record in one byte order; [`Bytes::build`] fills in `header.size`.
struct Bytes {
    buf: Vec<u8>,
    order: ByteOrder,
}

impl Bytes {
    fn record(kind: u32, misc: u16, order: ByteOrder) -> Bytes {
        let mut b = Bytes {
            buf: Vec::new(),
            order,
        };
        b.u32(kind).u16(misc).u16(0);
        b
    }

    fn sample(order: ByteOrder) -> Bytes {
        Bytes::record(raw::PERF_RECORD_SAMPLE, MISC, order)
    }

    fn u16(&mut self, v: u16) -> &mut Bytes {
        let b = match self.order {
            LITTLE => v.to_le_bytes(),
            BIG => v.to_be_bytes(),
        };
        self.bytes(&b)
    }

    fn u32(&mut self, v: u32) -> &mut Bytes {
        let b = match self.order {
            LITTLE => v.to_le_bytes(),
            BIG => v.to_be_bytes(),
        };
        self.bytes(&b)
    }

    fn u64(&mut self, v: u64) -> &mut Bytes {
        let b = match self.order {
            LITTLE => v.to_le_bytes(),
            BIG => v.to_be_bytes(),
        };
        self.bytes(&b)
    }

    fn u64s(&mut self, vs: &[u64]) -> &mut Bytes {
        for &v in vs {
            self.u64(v);
        }
        self
    }

    fn bytes(&mut self, b: &[u8]) -> &mut Bytes {
        self.buf.extend_from_slice(b);
        self
    }

    fn pad8(&mut self) -> &mut Bytes {
        while self.buf.len() % 8 != 0 {
            self.buf.push(0);
        }
        self
    }

    /// A NUL-terminated string padded to 8 bytes, as the kernel writes names.
    fn string(&mut self, s: &[u8]) -> &mut Bytes {
        self.bytes(s).bytes(&[0]).pad8()
    }

    fn build(&mut self) -> Vec<u8> {
        let size = u16::try_from(self.buf.len()).expect("test record over 64 KiB");
        let b = match self.order {
            LITTLE => size.to_le_bytes(),
            BIG => size.to_be_bytes(),
        };
        self.buf[6..8].copy_from_slice(&b);
        self.buf.clone()
    }
}

const MISC: u16 = raw::PERF_RECORD_MISC_USER as u16;

fn format(sample_type: u32) -> SampleFormat {
    SampleFormat {
        sample_type: u64::from(sample_type),
        ..SampleFormat::default()
    }
}

fn decoded<'a>(f: &SampleFormat, bytes: &'a [u8], order: ByteOrder) -> Sample<'a> {
    match parse_in(f, bytes, order) {
        Ok(Record::Sample(s)) => s,
        other => panic!("{order:?}: not a sample: {other:?}"),
    }
}

/// Writes the sample's body in both byte orders and checks that each decodes to `expected`.
fn check_sample(f: &SampleFormat, write: impl Fn(&mut Bytes), expected: &Sample<'_>) {
    for order in ORDERS {
        let mut b = Bytes::sample(order);
        write(&mut b);
        let bytes = b.build();
        assert_eq!(&decoded(f, &bytes, order), expected, "{order:?}");
    }
}

fn error_of(f: &SampleFormat, bytes: &[u8]) -> RecordError {
    match parse_in(f, bytes, LITTLE) {
        Err(e) => {
            assert!(e.to_string().contains(e.field), "{e}");
            e
        }
        Ok(r) => panic!("parsed: {r:?}"),
    }
}

fn base() -> Sample<'static> {
    Sample {
        misc: MISC,
        ..Sample::default()
    }
}

type Writer = fn(&mut Bytes);

#[test]
fn every_fixed_size_field_alone() {
    let cases: [(u32, Writer, Sample); 16] = [
        (
            raw::PERF_SAMPLE_IDENTIFIER,
            |b| {
                b.u64(7);
            },
            Sample {
                identifier: Some(7),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_IP,
            |b| {
                b.u64(0x4010);
            },
            Sample {
                ip: Some(0x4010),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_TID,
            |b| {
                b.u32(11).u32(12);
            },
            Sample {
                pid: Some(11),
                tid: Some(12),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_TIME,
            |b| {
                b.u64(99);
            },
            Sample {
                time: Some(99),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_ADDR,
            |b| {
                b.u64(0xdead);
            },
            Sample {
                addr: Some(0xdead),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_ID,
            |b| {
                b.u64(5);
            },
            Sample {
                id: Some(5),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_STREAM_ID,
            |b| {
                b.u64(6);
            },
            Sample {
                stream_id: Some(6),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_CPU,
            |b| {
                b.u32(3).u32(0);
            },
            Sample {
                cpu: Some(3),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_PERIOD,
            |b| {
                b.u64(1000);
            },
            Sample {
                period: Some(1000),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_DATA_SRC,
            |b| {
                b.u64(0x42);
            },
            Sample {
                data_src: Some(0x42),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_TRANSACTION,
            |b| {
                b.u64(1 << 32 | 2);
            },
            Sample {
                transaction: Some(1 << 32 | 2),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_PHYS_ADDR,
            |b| {
                b.u64(0x9000);
            },
            Sample {
                phys_addr: Some(0x9000),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_CGROUP,
            |b| {
                b.u64(77);
            },
            Sample {
                cgroup: Some(77),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_DATA_PAGE_SIZE,
            |b| {
                b.u64(4096);
            },
            Sample {
                data_page_size: Some(4096),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_CODE_PAGE_SIZE,
            |b| {
                b.u64(2 << 20);
            },
            Sample {
                code_page_size: Some(2 << 20),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_WEIGHT,
            |b| {
                b.u64(0x0003_0002_0000_0001);
            },
            Sample {
                weight: Some(Weight::Full(0x0003_0002_0000_0001)),
                ..base()
            },
        ),
    ];
    for (flag, write, expected) in cases {
        check_sample(&format(flag), write, &expected);
    }
}

#[test]
fn weight_struct_splits_the_word_in_either_byte_order() {
    let expected = Sample {
        weight: Some(Weight::Struct {
            var1_dw: 1,
            var2_w: 2,
            var3_w: 3,
        }),
        ..base()
    };
    let f = format(raw::PERF_SAMPLE_WEIGHT_STRUCT);
    check_sample(
        &f,
        |b| {
            b.u64(0x0003_0002_0000_0001);
        },
        &expected,
    );
    // The big-endian struct lists var3_w, var2_w, var1_dw in memory order.
    let mut b = Bytes::sample(BIG);
    let bytes = b.u16(3).u16(2).u32(1).build();
    assert_eq!(decoded(&f, &bytes, BIG), expected);
}

fn read_format(bits: u32) -> SampleFormat {
    SampleFormat {
        read_format: u64::from(bits),
        ..format(raw::PERF_SAMPLE_READ)
    }
}

/// Every combination of the four optional `read_format` bits.
fn read_bit_sets() -> impl Iterator<Item = (bool, bool, bool, bool, u32)> {
    (0..16u32).map(|i| {
        let (enabled, running, id, lost) = (i & 1 != 0, i & 2 != 0, i & 4 != 0, i & 8 != 0);
        let bits = [
            (enabled, raw::PERF_FORMAT_TOTAL_TIME_ENABLED),
            (running, raw::PERF_FORMAT_TOTAL_TIME_RUNNING),
            (id, raw::PERF_FORMAT_ID),
            (lost, raw::PERF_FORMAT_LOST),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .fold(0, |acc, (_, bit)| acc | bit);
        (enabled, running, id, lost, bits)
    })
}

#[test]
fn read_single_with_every_read_format() {
    for (enabled, running, id, lost, bits) in read_bit_sets() {
        let expected = Sample {
            read: Some(Read {
                time_enabled: enabled.then_some(200),
                time_running: running.then_some(150),
                values: vec![ReadValue {
                    value: 42,
                    id: id.then_some(9),
                    lost: lost.then_some(1),
                }],
            }),
            ..base()
        };
        let write = |b: &mut Bytes| {
            b.u64(42);
            [(enabled, 200), (running, 150), (id, 9), (lost, 1)]
                .iter()
                .filter(|(on, _)| *on)
                .for_each(|&(_, v)| {
                    b.u64(v);
                });
        };
        check_sample(&read_format(bits), write, &expected);
    }
}

#[test]
fn read_group_with_every_read_format() {
    for (enabled, running, id, lost, bits) in read_bit_sets() {
        let f = SampleFormat {
            group_members: 3,
            ..read_format(bits | raw::PERF_FORMAT_GROUP)
        };
        let values = (0..3)
            .map(|i| ReadValue {
                value: 100 + i,
                id: id.then_some(10 + i),
                lost: lost.then_some(i),
            })
            .collect();
        let expected = Sample {
            read: Some(Read {
                time_enabled: enabled.then_some(200),
                time_running: running.then_some(150),
                values,
            }),
            ..base()
        };
        let write = |b: &mut Bytes| {
            b.u64(3);
            [(enabled, 200), (running, 150)]
                .iter()
                .filter(|(on, _)| *on)
                .for_each(|&(_, v)| {
                    b.u64(v);
                });
            for i in 0..3 {
                b.u64(100 + i);
                [(id, 10 + i), (lost, i)]
                    .iter()
                    .filter(|(on, _)| *on)
                    .for_each(|&(_, v)| {
                        b.u64(v);
                    });
            }
        };
        check_sample(&f, write, &expected);
        // With the group size unknown, `nr` decides.
        check_sample(
            &SampleFormat {
                group_members: 0,
                ..f
            },
            write,
            &expected,
        );
    }
}

#[test]
fn read_group_nr_must_be_plausible() {
    let f = SampleFormat {
        group_members: 2,
        ..read_format(raw::PERF_FORMAT_GROUP | raw::PERF_FORMAT_ID)
    };
    let three = Bytes::sample(LITTLE)
        .u64(3)
        .u64s(&[1, 2, 3, 4, 5, 6])
        .build();
    let e = error_of(&f, &three);
    assert_eq!((e.field, e.offset), ("sample.read.nr", 8));
    assert_eq!(
        e.problem,
        Problem::Count {
            found: 3,
            expected: 2
        }
    );
    assert!(
        e.to_string().contains("count 3 where the format says 2"),
        "{e}"
    );

    let zero = Bytes::sample(LITTLE).u64(0).build();
    let e = error_of(&f, &zero);
    assert!(
        matches!(e.problem, Problem::Implausible { value: 0, .. }),
        "{e}"
    );

    let unknown = SampleFormat {
        group_members: 0,
        ..f
    };
    let huge = Bytes::sample(LITTLE).u64(u64::MAX).u64s(&[1, 2]).build();
    let e = error_of(&unknown, &huge);
    assert_eq!(e.field, "sample.read.nr");
    assert_eq!(
        e.problem,
        Problem::Truncated {
            needed: u64::MAX,
            left: 16
        }
    );
}

#[test]
fn unknown_read_format_bits_are_refused() {
    let f = read_format(raw::PERF_FORMAT_MAX);
    let e = error_of(&f, &Bytes::sample(LITTLE).u64(1).build());
    assert_eq!(e.field, "format.read_format");
    assert_eq!(
        e.problem,
        Problem::UnknownBits {
            bits: u64::from(raw::PERF_FORMAT_MAX)
        }
    );
}

#[test]
fn callchain_of_three_and_of_none() {
    let f = format(raw::PERF_SAMPLE_CALLCHAIN);
    let ips = [u64::MAX - 511, 0x4000, 0x4100]; // PERF_CONTEXT_USER, then two frames
    let expected = Sample {
        callchain: Some(ips.to_vec()),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u64(3).u64s(&[u64::MAX - 511, 0x4000, 0x4100]);
        },
        &expected,
    );
    let empty = Sample {
        callchain: Some(Vec::new()),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u64(0);
        },
        &empty,
    );
}

#[test]
fn raw_data_is_borrowed_without_its_padding() {
    let f = format(raw::PERF_SAMPLE_RAW);
    // u32 size + 4 bytes: exactly one word.
    let expected = Sample {
        raw: Some(&[1, 2, 3, 4]),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u32(4).bytes(&[1, 2, 3, 4]);
        },
        &expected,
    );
    // u32 size + 9 bytes, padded to 16.
    let nine = [9; 9];
    let expected = Sample {
        raw: Some(&nine),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u32(9).bytes(&[9; 9]).pad8();
        },
        &expected,
    );
    // What the kernel writes for an event without raw data: size 4, four zero bytes.
    let expected = Sample {
        raw: Some(&[0; 4]),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u32(4).u32(0);
        },
        &expected,
    );
    let e = error_of(&f, &Bytes::sample(LITTLE).u32(9).bytes(&[9; 9]).build());
    assert_eq!(e.field, "sample.raw.padding");
    let e = error_of(&f, &Bytes::sample(LITTLE).u32(u32::MAX).u32(0).build());
    assert_eq!(e.field, "sample.raw.data");
    assert_eq!(
        e.problem,
        Problem::Truncated {
            needed: u64::from(u32::MAX),
            left: 4
        }
    );
}

fn entries() -> Vec<BranchEntry> {
    vec![
        BranchEntry {
            from: 0x4000,
            to: 0x5000,
            mispredicted: true,
            cycles: 12,
            kind: raw::PERF_BR_CALL as u8,
            ..BranchEntry::default()
        },
        BranchEntry {
            from: 0x5010,
            to: 0x4004,
            predicted: true,
            cycles: 3,
            kind: raw::PERF_BR_RET as u8,
            ..BranchEntry::default()
        },
    ]
}

fn write_entries(b: &mut Bytes) {
    for e in entries() {
        let flags = e.flags(b.order);
        b.u64(e.from).u64(e.to).u64(flags);
    }
}

fn branch_format(bits: u32) -> SampleFormat {
    SampleFormat {
        branch_sample_type: u64::from(raw::PERF_SAMPLE_BRANCH_ANY | bits),
        ..format(raw::PERF_SAMPLE_BRANCH_STACK)
    }
}

#[test]
fn branch_stack_without_hw_index() {
    let expected = Sample {
        branch_stack: Some(BranchStack {
            hw_idx: None,
            entries: entries(),
            counters: None,
        }),
        ..base()
    };
    check_sample(&branch_format(0), |b| write_entries(b.u64(2)), &expected);
    let empty = Sample {
        branch_stack: Some(BranchStack::default()),
        ..base()
    };
    check_sample(
        &branch_format(0),
        |b| {
            b.u64(0);
        },
        &empty,
    );
}

#[test]
fn branch_stack_with_hw_index() {
    let f = branch_format(raw::PERF_SAMPLE_BRANCH_HW_INDEX);
    let expected = Sample {
        branch_stack: Some(BranchStack {
            hw_idx: Some(31),
            entries: entries(),
            counters: None,
        }),
        ..base()
    };
    check_sample(&f, |b| write_entries(b.u64(2).u64(31)), &expected);
}

#[test]
fn branch_stack_with_counters() {
    let f = branch_format(raw::PERF_SAMPLE_BRANCH_COUNTERS);
    let expected = Sample {
        branch_stack: Some(BranchStack {
            hw_idx: None,
            entries: entries(),
            counters: Some(vec![5, 6]),
        }),
        ..base()
    };
    let write = |b: &mut Bytes| {
        write_entries(b.u64(2));
        b.u64s(&[5, 6]);
    };
    check_sample(&f, write, &expected);
}

#[test]
fn branch_stack_counts_that_overrun() {
    let f = branch_format(raw::PERF_SAMPLE_BRANCH_HW_INDEX);
    let mut b = Bytes::sample(LITTLE);
    b.u64(3).u64(0);
    write_entries(&mut b);
    let e = error_of(&f, &b.build());
    assert_eq!((e.field, e.offset), ("sample.branch_stack.nr", 8));
    assert_eq!(
        e.problem,
        Problem::Truncated {
            needed: 8 + 3 * 24,
            left: 56
        }
    );
    let e = error_of(&f, &Bytes::sample(LITTLE).u64(u64::MAX / 2).u64(0).build());
    assert_eq!(
        e.problem,
        Problem::Truncated {
            needed: u64::MAX,
            left: 8
        }
    );
}

#[test]
fn regs_with_abi_none_and_with_a_mask() {
    for (flag, mask_of) in [
        (
            raw::PERF_SAMPLE_REGS_USER,
            (|f: &mut SampleFormat| &mut f.sample_regs_user) as fn(&mut SampleFormat) -> &mut u64,
        ),
        (raw::PERF_SAMPLE_REGS_INTR, |f: &mut SampleFormat| {
            &mut f.sample_regs_intr
        }),
    ] {
        let mut f = format(flag);
        *mask_of(&mut f) = 0b1011;
        let regs = |abi, values: &[u64]| Regs {
            abi,
            mask: 0b1011,
            values: values.to_vec(),
        };
        let set = |r: Regs| {
            if flag == raw::PERF_SAMPLE_REGS_USER {
                Sample {
                    regs_user: Some(r),
                    ..base()
                }
            } else {
                Sample {
                    regs_intr: Some(r),
                    ..base()
                }
            }
        };
        check_sample(
            &f,
            |b| {
                b.u64(0);
            },
            &set(regs(0, &[])),
        );
        let abi64 = u64::from(raw::PERF_SAMPLE_REGS_ABI_64);
        let expected = set(regs(abi64, &[10, 11, 13]));
        check_sample(
            &f,
            |b| {
                b.u64(2).u64s(&[10, 11, 13]);
            },
            &expected,
        );
        let r = regs(abi64, &[10, 11, 13]);
        assert_eq!(
            (r.get(0), r.get(1), r.get(2), r.get(3)),
            (Some(10), Some(11), None, Some(13))
        );
        assert_eq!((r.get(63), r.get(64)), (None, None));
        let e = error_of(&f, &Bytes::sample(LITTLE).u64(2).u64s(&[10, 11]).build());
        assert!(e.field.ends_with(".regs"), "{e}");
        assert_eq!(
            e.problem,
            Problem::Truncated {
                needed: 24,
                left: 16
            }
        );
    }
}

#[test]
fn stack_user_empty_and_full() {
    let f = format(raw::PERF_SAMPLE_STACK_USER);
    let empty = Sample {
        stack_user: Some(StackUser {
            data: &[],
            dyn_size: None,
        }),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u64(0);
        },
        &empty,
    );
    let data = [7u8; 16];
    let full = Sample {
        stack_user: Some(StackUser {
            data: &data,
            dyn_size: Some(8),
        }),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u64(16).bytes(&[7; 16]).u64(8);
        },
        &full,
    );
    assert_eq!(full.stack_user.unwrap().dumped(), &[7; 8]);

    let too_much = Bytes::sample(LITTLE)
        .u64(16)
        .bytes(&[7; 16])
        .u64(17)
        .build();
    let e = error_of(&f, &too_much);
    assert_eq!((e.field, e.offset), ("sample.stack_user.dyn_size", 32));
    let huge = Bytes::sample(LITTLE).u64(u64::MAX).u64(0).build();
    let e = error_of(&f, &huge);
    assert_eq!(e.field, "sample.stack_user.data");
    let no_dyn_size = Bytes::sample(LITTLE).u64(8).bytes(&[1; 8]).build();
    assert_eq!(
        error_of(&f, &no_dyn_size).field,
        "sample.stack_user.dyn_size"
    );
}

#[test]
fn aux_is_borrowed() {
    let f = format(raw::PERF_SAMPLE_AUX);
    let data = [0xa5u8; 16];
    let expected = Sample {
        aux: Some(&data),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u64(16).bytes(&[0xa5; 16]);
        },
        &expected,
    );
    let none = Sample {
        aux: Some(&[]),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u64(0);
        },
        &none,
    );
    let e = error_of(&f, &Bytes::sample(LITTLE).u64(17).bytes(&[0; 16]).build());
    assert_eq!(
        e.problem,
        Problem::Truncated {
            needed: 17,
            left: 16
        }
    );
}

/// Every `sample_type` bit the kernel defines.
fn every_sample_bit() -> u32 {
    raw::PERF_SAMPLE_MAX - 1
}

fn full_format() -> SampleFormat {
    SampleFormat {
        sample_type: u64::from(every_sample_bit() & !raw::PERF_SAMPLE_WEIGHT),
        read_format: u64::from(
            raw::PERF_FORMAT_GROUP
                | raw::PERF_FORMAT_ID
                | raw::PERF_FORMAT_TOTAL_TIME_ENABLED
                | raw::PERF_FORMAT_TOTAL_TIME_RUNNING
                | raw::PERF_FORMAT_LOST,
        ),
        branch_sample_type: u64::from(
            raw::PERF_SAMPLE_BRANCH_ANY
                | raw::PERF_SAMPLE_BRANCH_HW_INDEX
                | raw::PERF_SAMPLE_BRANCH_COUNTERS,
        ),
        sample_regs_user: 0b110,
        sample_regs_intr: 1 << 63 | 1,
        sample_id_all: true,
        group_members: 2,
    }
}

/// A sample with every field, written in the kernel's order.
fn write_full_sample(b: &mut Bytes) {
    b.u64(1)
        .u64(0x4010)
        .u32(100)
        .u32(101)
        .u64(5_000)
        .u64(0xbeef)
        .u64(1)
        .u64(2);
    b.u32(1).u32(0).u64(10_000);
    b.u64(2).u64(900).u64(800).u64s(&[50, 1, 0, 60, 2, 3]); // read group
    b.u64(2).u64s(&[u64::MAX - 511, 0x4010]); // callchain
    b.u32(5).bytes(b"hello").pad8(); // raw
    b.u64(2).u64(1); // branch stack: nr, hw_idx
    write_entries(b);
    b.u64s(&[7, 8]); // branch counters
    b.u64(2).u64s(&[20, 21]); // regs_user
    b.u64(16).bytes(&[3; 16]).u64(16); // stack_user
    b.u64(0x0003_0002_0000_0001).u64(0x1234).u64(0); // weight struct, data_src, txn
    b.u64(2).u64s(&[30, 31]); // regs_intr
    b.u64(0x9_0000).u64(33).u64(4096).u64(4096); // phys_addr, cgroup, page sizes
    b.u64(8).bytes(&[0xaa; 8]); // aux
}

fn full_sample() -> Sample<'static> {
    Sample {
        misc: MISC,
        identifier: Some(1),
        ip: Some(0x4010),
        pid: Some(100),
        tid: Some(101),
        time: Some(5_000),
        addr: Some(0xbeef),
        id: Some(1),
        stream_id: Some(2),
        cpu: Some(1),
        period: Some(10_000),
        read: Some(Read {
            time_enabled: Some(900),
            time_running: Some(800),
            values: vec![
                ReadValue {
                    value: 50,
                    id: Some(1),
                    lost: Some(0),
                },
                ReadValue {
                    value: 60,
                    id: Some(2),
                    lost: Some(3),
                },
            ],
        }),
        callchain: Some(vec![u64::MAX - 511, 0x4010]),
        raw: Some(b"hello"),
        branch_stack: Some(BranchStack {
            hw_idx: Some(1),
            entries: entries(),
            counters: Some(vec![7, 8]),
        }),
        regs_user: Some(Regs {
            abi: 2,
            mask: 0b110,
            values: vec![20, 21],
        }),
        stack_user: Some(StackUser {
            data: &[3; 16],
            dyn_size: Some(16),
        }),
        weight: Some(Weight::Struct {
            var1_dw: 1,
            var2_w: 2,
            var3_w: 3,
        }),
        data_src: Some(0x1234),
        transaction: Some(0),
        regs_intr: Some(Regs {
            abi: 2,
            mask: 1 << 63 | 1,
            values: vec![30, 31],
        }),
        phys_addr: Some(0x9_0000),
        cgroup: Some(33),
        data_page_size: Some(4096),
        code_page_size: Some(4096),
        aux: Some(&[0xaa; 8]),
    }
}

#[test]
fn every_field_at_once_in_either_byte_order() {
    check_sample(&full_format(), write_full_sample, &full_sample());
}

#[test]
fn a_record_read_in_the_wrong_byte_order_is_an_error_not_garbage() {
    let bytes = {
        let mut b = Bytes::sample(BIG);
        write_full_sample(&mut b);
        b.build()
    };
    assert!(parse_in(&full_format(), &bytes, LITTLE).is_err());
}

#[test]
fn sample_bytes_after_the_last_field_are_refused() {
    let f = format(raw::PERF_SAMPLE_IP);
    let e = error_of(&f, &Bytes::sample(LITTLE).u64(1).u64(0).build());
    assert_eq!((e.field, e.offset), ("sample", 16));
    assert_eq!(e.problem, Problem::Trailing { bytes: 8 });
}

#[test]
fn sample_cut_short_names_the_missing_field() {
    let f = full_format();
    let mut b = Bytes::sample(LITTLE);
    write_full_sample(&mut b);
    let whole = b.build();
    for len in (8..whole.len()).step_by(8) {
        let mut cut = whole[..len].to_vec();
        cut[6..8].copy_from_slice(&(len as u16).to_le_bytes());
        let e = error_of(&f, &cut);
        assert!(e.field.starts_with("sample."), "{len}: {e}");
        assert!(matches!(e.problem, Problem::Truncated { .. }), "{len}: {e}");
    }
}

#[test]
fn unknown_sample_type_bits_are_refused() {
    let f = format(raw::PERF_SAMPLE_MAX | raw::PERF_SAMPLE_IP);
    let e = error_of(&f, &Bytes::sample(LITTLE).u64(1).build());
    assert_eq!(e.field, "format.sample_type");
    assert!(e.to_string().contains("0x2000000"), "{e}");
}

fn id_format() -> SampleFormat {
    SampleFormat {
        sample_type: u64::from(
            raw::PERF_SAMPLE_IP
                | raw::PERF_SAMPLE_TID
                | raw::PERF_SAMPLE_TIME
                | raw::PERF_SAMPLE_ID
                | raw::PERF_SAMPLE_STREAM_ID
                | raw::PERF_SAMPLE_CPU
                | raw::PERF_SAMPLE_IDENTIFIER,
        ),
        sample_id_all: true,
        ..SampleFormat::default()
    }
}

fn write_sample_id(b: &mut Bytes) {
    b.u32(100)
        .u32(101)
        .u64(5_000)
        .u64(7)
        .u64(8)
        .u32(1)
        .u32(0)
        .u64(7);
}

fn sample_id_value() -> SampleId {
    SampleId {
        pid: Some(100),
        tid: Some(101),
        time: Some(5_000),
        id: Some(7),
        stream_id: Some(8),
        cpu: Some(1),
        identifier: Some(7),
    }
}

#[test]
fn sample_id_size_counts_the_trailer_words() {
    assert_eq!(id_format().sample_id_size(), 48);
    assert_eq!(
        SampleFormat {
            sample_id_all: false,
            ..id_format()
        }
        .sample_id_size(),
        0
    );
    assert_eq!(full_format().sample_id_size(), 48);
}

fn mmap2_bytes(order: ByteOrder, misc: u16, with_id: bool) -> Vec<u8> {
    let mut b = Bytes::record(raw::PERF_RECORD_MMAP2, misc, order);
    b.u32(100).u32(101).u64(0x40_0000).u64(0x1000).u64(0);
    if u32::from(misc) & raw::PERF_RECORD_MISC_MMAP_BUILD_ID != 0 {
        b.bytes(&[4, 0, 0, 0])
            .bytes(&[0xb1, 0xb2, 0xb3, 0xb4])
            .bytes(&[0; 16]);
    } else {
        b.u32(8).u32(1).u64(1234).u64(5);
    }
    b.u32(5).u32(2).string(b"/usr/bin/true");
    if with_id {
        write_sample_id(&mut b);
    }
    b.build()
}

#[test]
fn mmap2_with_inode_and_sample_id() {
    for order in ORDERS {
        let bytes = mmap2_bytes(order, MISC, true);
        let expected = Mmap2 {
            misc: MISC,
            pid: 100,
            tid: 101,
            addr: 0x40_0000,
            len: 0x1000,
            pgoff: 0,
            file: FileId::Inode {
                maj: 8,
                min: 1,
                ino: 1234,
                ino_generation: 5,
            },
            prot: 5,
            flags: 2,
            filename: b"/usr/bin/true",
            sample_id: Some(sample_id_value()),
        };
        let record = parse_in(&id_format(), &bytes, order).unwrap();
        assert_eq!(record.sample_id(), Some(&sample_id_value()));
        assert_eq!(record, Record::Mmap2(expected), "{order:?}");
    }
}

#[test]
fn mmap2_with_build_id_and_without_sample_id() {
    let misc = MISC | raw::PERF_RECORD_MISC_MMAP_BUILD_ID as u16;
    let f = SampleFormat {
        sample_id_all: false,
        ..id_format()
    };
    for order in ORDERS {
        let bytes = mmap2_bytes(order, misc, false);
        let Ok(Record::Mmap2(m)) = parse_in(&f, &bytes, order) else {
            panic!("{order:?}");
        };
        assert_eq!(m.file, FileId::BuildId(&[0xb1, 0xb2, 0xb3, 0xb4]));
        assert_eq!((m.filename, m.sample_id), (&b"/usr/bin/true"[..], None));
    }
    let mut bad = mmap2_bytes(LITTLE, misc, false);
    bad[40] = 21;
    let e = error_of(&f, &bad);
    assert_eq!((e.field, e.offset), ("mmap2.build_id_size", 40));
}

#[test]
fn mmap_with_and_without_sample_id() {
    for (f, with_id) in [(id_format(), true), (format(raw::PERF_SAMPLE_IP), false)] {
        let mut b = Bytes::record(raw::PERF_RECORD_MMAP, MISC, LITTLE);
        b.u32(1)
            .u32(2)
            .u64(0x1000)
            .u64(0x2000)
            .u64(0x10)
            .string(b"[vdso]");
        if with_id {
            write_sample_id(&mut b);
        }
        let bytes = b.build();
        let Ok(Record::Mmap(m)) = parse_in(&f, &bytes, LITTLE) else {
            panic!("mmap");
        };
        assert_eq!(
            (m.pid, m.tid, m.addr, m.len, m.pgoff),
            (1, 2, 0x1000, 0x2000, 0x10)
        );
        assert_eq!(m.filename, b"[vdso]");
        assert_eq!(m.sample_id, with_id.then(sample_id_value));
    }
}

fn comm_bytes(name: &[u8], order: ByteOrder) -> Vec<u8> {
    let mut b = Bytes::record(
        raw::PERF_RECORD_COMM,
        raw::PERF_RECORD_MISC_COMM_EXEC as u16,
        order,
    );
    b.u32(100).u32(101).string(name);
    write_sample_id(&mut b);
    b.build()
}

#[test]
fn comm_with_sample_id() {
    for order in ORDERS {
        // Eight bytes of name take a whole word of NUL padding.
        for name in [&b"bench"[..], b"12345678", b""] {
            let bytes = comm_bytes(name, order);
            let expected = Comm {
                misc: raw::PERF_RECORD_MISC_COMM_EXEC as u16,
                pid: 100,
                tid: 101,
                comm: name,
                sample_id: Some(sample_id_value()),
            };
            assert_eq!(
                parse_in(&id_format(), &bytes, order),
                Ok(Record::Comm(expected))
            );
        }
    }
}

#[test]
fn names_without_nul_or_room_for_the_trailer_are_refused() {
    let mut b = Bytes::record(raw::PERF_RECORD_COMM, 0, LITTLE);
    b.u32(1).u32(2).bytes(b"12345678");
    write_sample_id(&mut b);
    let e = error_of(&id_format(), &b.build());
    assert_eq!(
        (e.field, e.offset, e.problem),
        ("comm.comm", 16, Problem::Unterminated)
    );

    let mut b = Bytes::record(raw::PERF_RECORD_COMM, 0, LITTLE);
    b.u32(1).u32(2).u64s(&[0; 5]);
    let e = error_of(&id_format(), &b.build());
    assert_eq!(e.field, "comm.comm");
    assert_eq!(
        e.problem,
        Problem::Truncated {
            needed: 49,
            left: 40
        }
    );
}

#[test]
fn lost_with_and_without_sample_id() {
    for order in ORDERS {
        let mut b = Bytes::record(raw::PERF_RECORD_LOST, 0, order);
        b.u64(7).u64(12);
        write_sample_id(&mut b);
        let expected = Lost {
            id: 7,
            lost: 12,
            sample_id: Some(sample_id_value()),
        };
        assert_eq!(
            parse_in(&id_format(), &b.build(), order),
            Ok(Record::Lost(expected))
        );
    }
    let bare = Bytes::record(raw::PERF_RECORD_LOST, 0, LITTLE)
        .u64(7)
        .u64(12)
        .build();
    let expected = Lost {
        id: 7,
        lost: 12,
        sample_id: None,
    };
    assert_eq!(
        parse_in(&SampleFormat::default(), &bare, LITTLE),
        Ok(Record::Lost(expected))
    );
    // Without sample_id_all, the trailer is trailing garbage.
    let mut b = Bytes::record(raw::PERF_RECORD_LOST, 0, LITTLE);
    b.u64(7).u64(12);
    write_sample_id(&mut b);
    let e = error_of(&SampleFormat::default(), &b.build());
    assert_eq!(
        (e.field, e.problem),
        ("lost", Problem::Trailing { bytes: 48 })
    );
}

#[test]
fn fork_exit_throttle_unthrottle() {
    let f = id_format();
    for (kind, name) in [
        (raw::PERF_RECORD_FORK, "fork"),
        (raw::PERF_RECORD_EXIT, "exit"),
    ] {
        let mut b = Bytes::record(kind, 0, BIG);
        b.u32(10).u32(1).u32(11).u32(2).u64(77);
        write_sample_id(&mut b);
        let task = Task {
            pid: 10,
            ppid: 1,
            tid: 11,
            ptid: 2,
            time: 77,
            sample_id: Some(sample_id_value()),
        };
        let bytes = b.build();
        let record = parse_in(&f, &bytes, BIG).unwrap();
        match (name, record) {
            ("fork", Record::Fork(t)) | ("exit", Record::Exit(t)) => assert_eq!(t, task),
            (_, other) => panic!("{name}: {other:?}"),
        }
        let short = Bytes::record(kind, 0, LITTLE)
            .u32(10)
            .u32(1)
            .u32(11)
            .u32(2)
            .build();
        assert_eq!(error_of(&f, &short).field, format!("{name}.time"));
    }
    for kind in [raw::PERF_RECORD_THROTTLE, raw::PERF_RECORD_UNTHROTTLE] {
        let mut b = Bytes::record(kind, 0, LITTLE);
        b.u64(5).u64(6).u64(7);
        write_sample_id(&mut b);
        let t = Throttle {
            time: 5,
            id: 6,
            stream_id: 7,
            sample_id: Some(sample_id_value()),
        };
        let expected = if kind == raw::PERF_RECORD_THROTTLE {
            Record::Throttle(t)
        } else {
            Record::Unthrottle(t)
        };
        assert_eq!(parse_in(&f, &b.build(), LITTLE), Ok(expected));
    }
}

#[test]
fn other_records_keep_their_body() {
    let bytes = Bytes::record(raw::PERF_RECORD_SWITCH, 0x2000, LITTLE)
        .u64(42)
        .build();
    let expected = Record::Other {
        kind: raw::PERF_RECORD_SWITCH,
        misc: 0x2000,
        body: &bytes[8..],
    };
    assert_eq!(parse_in(&id_format(), &bytes, LITTLE), Ok(expected));
    let empty = Bytes::record(68, 0, LITTLE).build(); // perf's FINISHED_ROUND: a bare header
    assert_eq!(
        parse_in(&id_format(), &empty, LITTLE),
        Ok(Record::Other {
            kind: 68,
            misc: 0,
            body: &[]
        })
    );
}

#[test]
fn headers_of_bad_sizes() {
    assert_eq!(
        header_in(&[1, 0, 0, 0, 0, 0, 16, 0], LITTLE),
        Ok(Header {
            kind: 1,
            misc: 0,
            size: 16
        })
    );
    let e = header(&[1, 0, 0, 0]).unwrap_err();
    assert_eq!(
        (e.field, e.problem),
        ("header", Problem::Truncated { needed: 8, left: 4 })
    );
    for size in [0u16, 7] {
        let mut bytes = vec![9, 0, 0, 0, 0, 0, 0, 0];
        bytes[6..8].copy_from_slice(&size.to_le_bytes());
        let e = header_in(&bytes, LITTLE).unwrap_err();
        assert_eq!(
            (e.field, e.problem),
            ("header.size", Problem::SizeBelowHeader { size })
        );
        assert!(e.to_string().contains("below the 8-byte header"), "{e}");
        assert_eq!(
            error_of(&id_format(), &bytes).problem,
            Problem::SizeBelowHeader { size }
        );
    }
}

#[test]
fn a_record_and_its_header_size_must_agree() {
    let f = format(raw::PERF_SAMPLE_IP);
    let mut bytes = Bytes::sample(LITTLE).u64(1).build();
    bytes.extend_from_slice(&[0; 8]);
    let e = error_of(&f, &bytes);
    assert_eq!(
        (e.field, e.problem),
        ("header.size", Problem::Trailing { bytes: 8 })
    );
    let e = error_of(&f, &bytes[..12]);
    assert_eq!(
        e.problem,
        Problem::Truncated {
            needed: 16,
            left: 12
        }
    );
}

fn native(f: impl FnOnce(&mut Bytes)) -> Vec<u8> {
    let mut b = Bytes::sample(ByteOrder::NATIVE);
    f(&mut b);
    b.build()
}

#[test]
fn split_walks_back_to_back_records() {
    let a = native(|b| {
        b.u64(1);
    });
    let other = Bytes::record(68, 0, ByteOrder::NATIVE).build();
    let c = comm_bytes(b"x", ByteOrder::NATIVE);
    let buf = [a.clone(), other.clone(), c.clone()].concat();
    let records: Vec<&[u8]> = split(&buf).map(Result::unwrap).collect();
    assert_eq!(records, [&a[..], &other[..], &c[..]]);
    assert!(matches!(
        parse(&format(raw::PERF_SAMPLE_IP), records[0]),
        Ok(Record::Sample(_))
    ));
    assert!(matches!(
        parse(&id_format(), records[2]),
        Ok(Record::Comm(_))
    ));
    let mut it = split(&buf);
    it.next();
    assert_eq!(it.offset(), a.len());
    assert_eq!(split(&[]).count(), 0);
}

#[test]
fn split_stops_at_the_first_bad_size() {
    let good = native(|b| {
        b.u64(1);
    });
    for (size, problem) in [
        (0u16, Problem::SizeBelowHeader { size: 0 }),
        (4, Problem::SizeBelowHeader { size: 4 }),
        (
            64,
            Problem::Truncated {
                needed: 64,
                left: 32,
            },
        ),
    ] {
        let mut bad = good.clone();
        bad[6..8].copy_from_slice(&size.to_ne_bytes());
        let buf = [good.clone(), bad, good.clone()].concat();
        let items: Vec<_> = split(&buf).collect();
        assert_eq!(items.len(), 2, "size {size}");
        assert_eq!(items[0], Ok(&good[..]));
        let e = items[1].unwrap_err();
        assert_eq!(
            (e.field, e.offset, e.problem),
            ("header.size", 16 + 6, problem)
        );
    }
    let cut = [good.clone(), vec![1, 2, 3]].concat();
    let e = split(&cut).nth(1).unwrap().unwrap_err();
    assert_eq!((e.field, e.offset), ("header", 16));
    assert_eq!(e.problem, Problem::Truncated { needed: 8, left: 3 });
}

#[test]
fn split_in_the_other_byte_order() {
    let order = ByteOrder::NATIVE.swapped();
    let a = Bytes::record(raw::PERF_RECORD_LOST, 0, order)
        .u64(1)
        .u64(2)
        .build();
    let buf = [a.clone(), a.clone()].concat();
    let records: Vec<_> = split_in(&buf, order).collect::<Result<_, _>>().unwrap();
    assert_eq!(records.len(), 2);
    let lost = Lost {
        id: 1,
        lost: 2,
        sample_id: None,
    };
    assert_eq!(
        parse_in(&SampleFormat::default(), records[1], order),
        Ok(Record::Lost(lost))
    );
    // Read in the native order, the big size (a swapped 32) runs past the buffer.
    assert!(split(&buf).next().unwrap().is_err());
}

#[test]
fn from_attr_copies_the_layout_fields() {
    let mut attr = sys::new_attr();
    attr.sample_type = u64::from(raw::PERF_SAMPLE_IP | raw::PERF_SAMPLE_BRANCH_STACK);
    attr.read_format = u64::from(raw::PERF_FORMAT_GROUP);
    attr.branch_sample_type = u64::from(raw::PERF_SAMPLE_BRANCH_ANY);
    attr.sample_regs_user = 0xff;
    attr.sample_regs_intr = 0xf;
    attr.set_sample_id_all(1);
    let f = SampleFormat::from_attr(&attr, 3);
    assert_eq!(
        f,
        SampleFormat {
            sample_type: attr.sample_type,
            read_format: attr.read_format,
            branch_sample_type: attr.branch_sample_type,
            sample_regs_user: 0xff,
            sample_regs_intr: 0xf,
            sample_id_all: true,
            group_members: 3,
        }
    );
}

/// Valid records of every decoded type, native byte order, with their formats.
fn corpus() -> Vec<(SampleFormat, Vec<u8>)> {
    let order = ByteOrder::NATIVE;
    let full = native(write_full_sample);
    let mut lost = Bytes::record(raw::PERF_RECORD_LOST, 0, order);
    lost.u64(1).u64(2);
    write_sample_id(&mut lost);
    let mut fork = Bytes::record(raw::PERF_RECORD_FORK, 0, order);
    fork.u32(1).u32(2).u32(3).u32(4).u64(5);
    write_sample_id(&mut fork);
    let build_id = MISC | raw::PERF_RECORD_MISC_MMAP_BUILD_ID as u16;
    let branches = native(|b| write_entries(b.u64(2).u64(31)));
    vec![
        (full_format(), full),
        (id_format(), mmap2_bytes(order, MISC, true)),
        (id_format(), mmap2_bytes(order, build_id, true)),
        (id_format(), comm_bytes(b"benchmark", order)),
        (id_format(), lost.build()),
        (id_format(), fork.build()),
        (branch_format(raw::PERF_SAMPLE_BRANCH_HW_INDEX), branches),
        (
            SampleFormat {
                group_members: 3,
                ..read_format(raw::PERF_FORMAT_GROUP)
            },
            native(|b| {
                b.u64(3).u64s(&[1, 2, 3]);
            }),
        ),
    ]
}

fn mutate(rng: &mut crate::rng::Rng, f: &mut SampleFormat, bytes: &mut Vec<u8>) {
    let len = bytes.len();
    match rng.below(6) {
        0 => {
            for _ in 0..=rng.below(4) {
                let at = rng.below(len);
                bytes[at] ^= 1 << rng.below(8);
            }
        }
        1 => {
            bytes.truncate(rng.below(len));
            if bytes.len() >= 8 && rng.below(2) == 0 {
                let size = bytes.len() as u16;
                bytes[6..8].copy_from_slice(&size.to_ne_bytes());
            }
        }
        2 => {
            const HUGE: [u64; 6] = [u64::MAX, u64::MAX / 8, u64::MAX / 24, 1 << 32, 1 << 16, 255];
            let at = 8 * rng.below(len / 8);
            let v = if rng.below(4) == 0 {
                rng.next_u64()
            } else {
                HUGE[rng.below(HUGE.len())]
            };
            if rng.below(2) == 0 {
                bytes[at..at + 8].copy_from_slice(&v.to_ne_bytes());
            } else {
                bytes[at..at + 4].copy_from_slice(&(v as u32).to_ne_bytes());
            }
        }
        3 => {
            let sizes = [0, 7, 8, len as u16 - 8, len as u16 + 8, u16::MAX];
            let size = sizes[rng.below(sizes.len())];
            bytes[6..8].copy_from_slice(&size.to_ne_bytes());
        }
        4 => {
            for _ in 0..=rng.below(16) {
                bytes.push(rng.next_u64() as u8);
            }
            if rng.below(2) == 0 {
                let size = bytes.len() as u16;
                bytes[6..8].copy_from_slice(&size.to_ne_bytes());
            }
        }
        _ => match rng.below(4) {
            0 => f.sample_type ^= 1 << rng.below(26),
            1 => f.read_format ^= 1 << rng.below(6),
            2 => f.branch_sample_type ^= 1 << rng.below(20),
            _ => f.group_members = rng.below(4),
        },
    }
}

/// 20,000 mutants of valid records (flipped bits, cuts, huge sizes and counts, bad header
/// sizes, extra bytes, a mismatched format) through `parse` and `split`: errors, never panics.
#[test]
fn mutants_never_panic() {
    let corpus = corpus();
    let mut rng = crate::rng::Rng::new(0x7065_7266_6265_6e63);
    let (mut ok, mut failed) = (0, 0);
    for i in 0..20_000 {
        let (mut f, mut bytes) = corpus[i % corpus.len()].clone();
        mutate(&mut rng, &mut f, &mut bytes);
        for order in ORDERS {
            match parse_in(&f, &bytes, order) {
                Ok(_) => ok += 1,
                Err(e) => {
                    assert!(!e.to_string().is_empty());
                    failed += 1;
                }
            }
        }
        let buf = [bytes.clone(), corpus[0].1.clone(), bytes].concat();
        for record in split(&buf).flatten() {
            let _ = parse(&f, record);
        }
    }
    assert!(ok > 1_000 && failed > 10_000, "ok {ok}, failed {failed}");
}
