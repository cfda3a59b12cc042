//! Fuzzes the record decoder of the profile mode, `perfbench::profile::record::{split, parse}`.
//!
//! The first 32 bytes choose the [`SampleFormat`]; the rest is a buffer of records, walked with
//! `split` (in both byte orders), each record it yields decoded with `parse` in both byte orders,
//! and the whole buffer also decoded as one record.
//!
//! The contract: nothing panics, loops or allocates beyond the input, whatever the bytes and the
//! format; every error names a field and has a message; and `split` yields records that each
//! start with a header whose size is the record's length.

#![no_main]

use libfuzzer_sys::fuzz_target;
use perfbench::profile::record::{
    header_in, parse_in, split_in, ByteOrder, RecordError, SampleFormat,
};

const FORMAT_BYTES: usize = 32;

/// `PERF_SAMPLE_*` bits the kernel defines, and one more (unknown) so that its error is reached.
const SAMPLE_TYPE_MASK: u32 = (1 << 26) - 1;

fn format(b: &[u8]) -> SampleFormat {
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    SampleFormat {
        sample_type: u64::from(u32::from_le_bytes(b[0..4].try_into().unwrap()) & SAMPLE_TYPE_MASK),
        read_format: u64::from(b[4] & 0x3f),
        branch_sample_type: u64::from(u32::from_le_bytes(b[8..12].try_into().unwrap())),
        sample_regs_user: word(16),
        sample_regs_intr: word(24),
        sample_id_all: b[5] & 1 != 0,
        group_members: usize::from(b[6] % 5),
    }
}

fn check(e: &RecordError) {
    assert!(!e.field.is_empty(), "error without a field: {e:?}");
    assert!(!e.to_string().trim().is_empty(), "empty message: {e:?}");
}

fuzz_target!(|data: &[u8]| {
    if data.len() < FORMAT_BYTES {
        return;
    }
    let (head, buf) = data.split_at(FORMAT_BYTES);
    let f = format(head);
    for order in [ByteOrder::Little, ByteOrder::Big] {
        if let Err(e) = parse_in(&f, buf, order) {
            check(&e);
        }
        for record in split_in(buf, order) {
            let record = match record {
                Ok(record) => record,
                Err(e) => {
                    check(&e);
                    break;
                }
            };
            let h = header_in(record, order).expect("split yielded a record without a header");
            assert_eq!(usize::from(h.size), record.len());
            for parse_order in [order, order.swapped()] {
                if let Err(e) = parse_in(&f, record, parse_order) {
                    check(&e);
                }
            }
        }
    }
});
