//! A buffer of records cut into one record's bytes at a time ([`split()`], [`Split`]).

use super::*;

/// Walks `buf`, a run of back-to-back records, yielding each whole record (header included) in
/// this machine's byte order. It stops after the first error: a header cut short, a size below
/// 8, or a size that runs past the buffer. Error offsets count from the start of `buf`.
///
/// ```
/// use perfbench::profile::perfdata::{comm_record, executable_mappings, mmap2_record};
/// use perfbench::profile::record::{header, split};
/// use perfbench::sys::raw;
///
/// let maps = executable_mappings("55d0c0000000-55d0c0010000 r-xp 00001000 fd:01 42 /bin/bench");
/// let mut buf = comm_record(42, 42, "bench");
/// buf.extend(mmap2_record(42, 42, &maps[0]));
/// let kinds: Vec<u32> = split(&buf).map(|r| header(r.unwrap()).unwrap().kind).collect();
/// assert_eq!(kinds, [raw::PERF_RECORD_COMM, raw::PERF_RECORD_MMAP2]);
///
/// // Cut short: the whole records, then one error, then nothing.
/// let mut records = split(&buf[..buf.len() - 8]);
/// assert!(records.next().unwrap().is_ok());
/// let e = records.next().unwrap().unwrap_err();
/// assert_eq!((e.field, e.offset), ("header.size", comm_record(42, 42, "bench").len() + 6));
/// assert!(records.next().is_none());
/// ```
pub fn split(buf: &[u8]) -> Split<'_> {
    split_in(buf, ByteOrder::NATIVE)
}

/// [`split()`] for records in `order`.
///
/// ```
/// use perfbench::profile::record::{header_in, split_in, ByteOrder};
///
/// # // Words in `order`.
/// # let put = |out: &mut Vec<u8>, order: ByteOrder, bytes: &[u8]| match order {
/// #     ByteOrder::Little => out.extend(bytes.iter().rev()),
/// #     ByteOrder::Big => out.extend(bytes.iter()),
/// # };
/// // Two bare records (type 68, perf's FINISHED_ROUND) in the other byte order.
/// let order = ByteOrder::NATIVE.swapped();
/// let mut buf = Vec::new();
/// for _ in 0..2 {
///     put(&mut buf, order, &68u32.to_be_bytes());
///     put(&mut buf, order, &0u16.to_be_bytes());
///     put(&mut buf, order, &8u16.to_be_bytes());
/// }
/// let records: Vec<&[u8]> = split_in(&buf, order).collect::<Result<_, _>>()?;
/// assert_eq!(records.len(), 2);
/// assert_eq!(header_in(records[1], order)?.kind, 68);
/// # Ok::<(), perfbench::profile::record::RecordError>(())
/// ```
pub fn split_in(buf: &[u8], order: ByteOrder) -> Split<'_> {
    Split {
        buf,
        pos: 0,
        order,
        failed: false,
    }
}

/// The iterator of [`split()`].
#[derive(Clone, Debug)]
pub struct Split<'a> {
    pub(super) buf: &'a [u8],
    pub(super) pos: usize,
    pub(super) order: ByteOrder,
    pub(super) failed: bool,
}

impl<'a> Split<'a> {
    /// Where the next record starts in the buffer (its length once every record was yielded).
    ///
    /// ```
    /// use perfbench::profile::perfdata::comm_record;
    /// use perfbench::profile::record::split;
    ///
    /// let mut buf = comm_record(1, 1, "a");
    /// buf.extend(comm_record(1, 1, "b"));
    /// let mut records = split(&buf);
    /// assert_eq!(records.offset(), 0);
    /// records.next();
    /// assert_eq!(records.offset(), buf.len() / 2);
    /// records.next();
    /// assert_eq!(records.offset(), buf.len());
    /// ```
    pub fn offset(&self) -> usize {
        self.pos
    }

    pub(super) fn next_record(&mut self) -> Result<&'a [u8], RecordError> {
        let rest = &self.buf[self.pos..];
        let h = header_in(rest, self.order).map_err(|e| e.shifted(self.pos))?;
        let size = usize::from(h.size);
        if size > rest.len() {
            let problem = Problem::Truncated {
                needed: size as u64,
                left: rest.len(),
            };
            return Err(RecordError::new("header.size", self.pos + 6, problem));
        }
        self.pos += size;
        Ok(&rest[..size])
    }
}

impl<'a> Iterator for Split<'a> {
    type Item = Result<&'a [u8], RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.buf.len() {
            return None;
        }
        let next = self.next_record();
        self.failed = next.is_err();
        Some(next)
    }
}

impl FusedIterator for Split<'_> {}
