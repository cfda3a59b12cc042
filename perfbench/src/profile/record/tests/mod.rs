//! Tests of [`parse`](super::parse) and [`split()`](super::split) on records synthesized here,
//! field by field, in both byte orders; malformed records; and a bounded run of mutants.
//!
//! This module holds what the tests share: [`Bytes`], which writes a record in either byte
//! order, and the formats and records built with it. The tests are in one module per thing
//! tested: the sample's fields (`fixed_fields`, `read_values`, `variable_fields`,
//! `branch_stack`, `whole_sample`), `SampleFormat`'s own methods (`sample_format`), the other
//! record types (`non_sample_records`), the header (`headers`), `split` and the mutants.

use super::*;
use crate::profile::branch::BranchEntry;

mod branch_stack;
mod fixed_fields;
mod headers;
mod mutants;
mod non_sample_records;
mod read_values;
mod sample_format;
mod split;
mod variable_fields;
mod whole_sample;

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

fn read_format(bits: u32) -> SampleFormat {
    SampleFormat {
        read_format: u64::from(bits),
        ..format(raw::PERF_SAMPLE_READ)
    }
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

fn native(f: impl FnOnce(&mut Bytes)) -> Vec<u8> {
    let mut b = Bytes::sample(ByteOrder::NATIVE);
    f(&mut b);
    b.build()
}
