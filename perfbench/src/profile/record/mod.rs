//! Records of a sampling ring buffer, as the kernel writes them and perf.data stores them:
//! the `perf_event_header`, then a body whose layout depends on the record's type and, for
//! samples, on the event's `sample_type`, `read_format` and `branch_sample_type`.
//!
//! [`parse`] decodes one whole record into a [`Record`]; [`split()`] walks a buffer of
//! back-to-back records. Both take untrusted bytes: a size or count that does not fit, a
//! header size below 8, or bytes left over after the last field is a [`RecordError`] naming the
//! field, never a panic, a loop or an allocation larger than the record. Byte payloads (`RAW`,
//! the user stack, `AUX`, file names) are borrowed from the input.
//!
//! The ring buffer holds records in the machine's byte order; a perf.data file may come from a
//! machine of the other one, so every entry point has an `_in` form taking a [`ByteOrder`].
//!
//! Layouts: `perf_event_open(2)` and `include/uapi/linux/perf_event.h`, with the sample field
//! order of the kernel's `perf_output_sample` (the uapi comment omits `CGROUP` and places `AUX`
//! too early).
//!
//! Its parts: `format` (byte order, the event's sample format, the record header), `records`
//! (the decoded records), `split` (a buffer cut into records), `decode` (each record's fields,
//! checked against its size) and `error` ([`RecordError`]); this module decodes one record.

use std::fmt;
use std::iter::FusedIterator;

use super::branch::{BranchEntry, BranchStack};

use crate::sys::{self, raw};

mod decode;
mod error;
mod format;
mod records;
mod split;

use decode::*;
pub use error::*;
pub use format::*;
pub use records::*;
pub use split::*;

/// Size of `struct perf_event_header`.
pub const HEADER_SIZE: usize = 8;

/// Size of the `build_id` array of a `PERF_RECORD_MMAP2` with `PERF_RECORD_MISC_MMAP_BUILD_ID`.
pub const BUILD_ID_MAX: usize = 20;

/// Decodes one whole record (header included, nothing after it) in this machine's byte order.
///
/// A sample of `sample_type` `IP | TID | TIME`, then the same sample cut short:
///
/// ```
/// use perfbench::profile::record::{parse, Problem, Record, SampleFormat};
/// use perfbench::sys::raw;
///
/// let sample_type = raw::PERF_SAMPLE_IP | raw::PERF_SAMPLE_TID | raw::PERF_SAMPLE_TIME;
/// let format = SampleFormat { sample_type: sample_type.into(), ..SampleFormat::default() };
/// let mut bytes = Vec::new();
/// bytes.extend_from_slice(&raw::PERF_RECORD_SAMPLE.to_ne_bytes());
/// bytes.extend_from_slice(&(raw::PERF_RECORD_MISC_USER as u16).to_ne_bytes());
/// bytes.extend_from_slice(&32u16.to_ne_bytes()); // size
/// bytes.extend_from_slice(&0x40_1234u64.to_ne_bytes()); // ip
/// bytes.extend_from_slice(&100u32.to_ne_bytes()); // pid
/// bytes.extend_from_slice(&101u32.to_ne_bytes()); // tid
/// bytes.extend_from_slice(&5_000u64.to_ne_bytes()); // time
///
/// let Record::Sample(s) = parse(&format, &bytes)? else { panic!("a sample") };
/// assert_eq!((s.ip, s.pid, s.tid, s.time), (Some(0x40_1234), Some(100), Some(101), Some(5_000)));
/// assert_eq!((s.period, s.callchain), (None, None)); // not in this sample_type
///
/// bytes.truncate(24);
/// bytes[6..8].copy_from_slice(&24u16.to_ne_bytes());
/// let e = parse(&format, &bytes).unwrap_err();
/// assert_eq!((e.field, e.offset), ("sample.time", 24));
/// assert_eq!(e.problem, Problem::Truncated { needed: 8, left: 0 });
/// let text = "bad perf record: `sample.time` at byte 24: needs 8 bytes but only 0 are left";
/// assert_eq!(e.to_string(), text);
/// # Ok::<(), perfbench::profile::record::RecordError>(())
/// ```
pub fn parse<'a>(format: &SampleFormat, record: &'a [u8]) -> Result<Record<'a>, RecordError> {
    parse_in(format, record, ByteOrder::NATIVE)
}

/// [`parse`] for a record in `order`.
///
/// A sample recorded on a machine of the other byte order (`sample_type` `IP`):
///
/// ```
/// use perfbench::profile::record::{parse_in, ByteOrder, Record, SampleFormat};
/// use perfbench::sys::raw;
///
/// # // Words in `order`.
/// # let put = |out: &mut Vec<u8>, order: ByteOrder, bytes: &[u8]| match order {
/// #     ByteOrder::Little => out.extend(bytes.iter().rev()),
/// #     ByteOrder::Big => out.extend(bytes.iter()),
/// # };
/// let order = ByteOrder::NATIVE.swapped();
/// let mut bytes = Vec::new();
/// put(&mut bytes, order, &raw::PERF_RECORD_SAMPLE.to_be_bytes());
/// put(&mut bytes, order, &0u16.to_be_bytes()); // misc
/// put(&mut bytes, order, &16u16.to_be_bytes()); // size
/// put(&mut bytes, order, &0x40_1234u64.to_be_bytes()); // ip
/// let format = SampleFormat { sample_type: raw::PERF_SAMPLE_IP.into(), ..Default::default() };
/// let Record::Sample(s) = parse_in(&format, &bytes, order)? else { panic!("a sample") };
/// assert_eq!(s.ip, Some(0x40_1234));
/// # Ok::<(), perfbench::profile::record::RecordError>(())
/// ```
pub fn parse_in<'a>(
    format: &SampleFormat,
    record: &'a [u8],
    order: ByteOrder,
) -> Result<Record<'a>, RecordError> {
    let h = header_in(record, order)?;
    let size = usize::from(h.size);
    if record.len() < size {
        let problem = Problem::Truncated {
            needed: size as u64,
            left: record.len(),
        };
        return Err(RecordError::new("header.size", 6, problem));
    }
    if record.len() > size {
        let problem = Problem::Trailing {
            bytes: record.len() - size,
        };
        return Err(RecordError::new("header.size", 6, problem));
    }
    let mut r = Reader::new(record, order);
    r.pos = HEADER_SIZE;
    let f = format;
    Ok(match h.kind {
        raw::PERF_RECORD_SAMPLE => Record::Sample(sample(&mut r, f, h.misc)?),
        raw::PERF_RECORD_MMAP => Record::Mmap(mmap(&mut r, f, h.misc)?),
        raw::PERF_RECORD_MMAP2 => Record::Mmap2(mmap2(&mut r, f, h.misc)?),
        raw::PERF_RECORD_COMM => Record::Comm(comm(&mut r, f, h.misc)?),
        raw::PERF_RECORD_FORK => Record::Fork(task(&mut r, f, &FORK)?),
        raw::PERF_RECORD_EXIT => Record::Exit(task(&mut r, f, &EXIT)?),
        raw::PERF_RECORD_LOST => Record::Lost(lost(&mut r, f)?),
        raw::PERF_RECORD_THROTTLE => Record::Throttle(throttle(&mut r, f, &THROTTLE)?),
        raw::PERF_RECORD_UNTHROTTLE => Record::Unthrottle(throttle(&mut r, f, &UNTHROTTLE)?),
        kind => Record::Other {
            kind,
            misc: h.misc,
            body: &record[HEADER_SIZE..],
        },
    })
}

#[cfg(test)]
mod tests;
