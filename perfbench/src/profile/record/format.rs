//! What a record's bytes mean before its fields: the byte order, the event's sample format
//! ([`SampleFormat`], from its `perf_event_attr`) and the record header.

use super::*;

/// `sample_type` bits whose layout this decoder knows (all below `PERF_SAMPLE_MAX`).
pub(super) const KNOWN_SAMPLE_TYPE: u64 = raw::PERF_SAMPLE_MAX as u64 - 1;

/// `read_format` bits whose layout this decoder knows (all below `PERF_FORMAT_MAX`).
pub(super) const KNOWN_READ_FORMAT: u64 = raw::PERF_FORMAT_MAX as u64 - 1;

/// The byte order of records: the machine's own in a ring buffer, the recording machine's in a
/// perf.data file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ByteOrder {
    /// Least significant byte first (x86, arm64, ...).
    Little,
    /// Most significant byte first (s390x, big-endian powerpc, ...).
    Big,
}

impl ByteOrder {
    /// The byte order of this machine.
    pub const NATIVE: ByteOrder = if cfg!(target_endian = "big") {
        ByteOrder::Big
    } else {
        ByteOrder::Little
    };

    /// The other byte order.
    ///
    /// ```
    /// use perfbench::profile::record::ByteOrder;
    ///
    /// let other = ByteOrder::NATIVE.swapped();
    /// assert_ne!(other, ByteOrder::NATIVE);
    /// assert_eq!(other.swapped(), ByteOrder::NATIVE);
    /// assert_eq!(ByteOrder::Little.swapped(), ByteOrder::Big);
    /// ```
    pub fn swapped(self) -> ByteOrder {
        match self {
            ByteOrder::Little => ByteOrder::Big,
            ByteOrder::Big => ByteOrder::Little,
        }
    }

    pub(super) fn u16(self, b: [u8; 2]) -> u16 {
        match self {
            ByteOrder::Little => u16::from_le_bytes(b),
            ByteOrder::Big => u16::from_be_bytes(b),
        }
    }

    pub(super) fn u32(self, b: [u8; 4]) -> u32 {
        match self {
            ByteOrder::Little => u32::from_le_bytes(b),
            ByteOrder::Big => u32::from_be_bytes(b),
        }
    }

    pub(super) fn u64(self, b: [u8; 8]) -> u64 {
        match self {
            ByteOrder::Little => u64::from_le_bytes(b),
            ByteOrder::Big => u64::from_be_bytes(b),
        }
    }
}

/// What the decoder needs to know about the event that wrote a record: the attr's fields that
/// shape the layout, and the size of its group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SampleFormat {
    /// `attr.sample_type`: which `PERF_SAMPLE_*` fields a sample has.
    pub sample_type: u64,
    /// `attr.read_format`: the layout of the `PERF_SAMPLE_READ` field.
    pub read_format: u64,
    /// `attr.branch_sample_type`: `PERF_SAMPLE_BRANCH_HW_INDEX` and
    /// `PERF_SAMPLE_BRANCH_COUNTERS` change the branch stack's layout.
    pub branch_sample_type: u64,
    /// `attr.sample_regs_user`: one word per set bit in `PERF_SAMPLE_REGS_USER`.
    pub sample_regs_user: u64,
    /// `attr.sample_regs_intr`: one word per set bit in `PERF_SAMPLE_REGS_INTR`.
    pub sample_regs_intr: u64,
    /// `attr.sample_id_all`: whether non-sample records end with a [`SampleId`].
    pub sample_id_all: bool,
    /// How many `{value, id, lost}` entries a `PERF_FORMAT_GROUP` read carries: the group's
    /// leader and siblings. A read whose `nr` differs is an error; 0 means not known, and then
    /// any `nr` that fits in the record is accepted.
    pub group_members: usize,
}

impl SampleFormat {
    /// The format of records written by an event opened with `attr`, in a group of
    /// `group_members` events (1 for an event alone, 0 if not known).
    ///
    /// ```
    /// use perfbench::profile::record::SampleFormat;
    /// use perfbench::sys::{new_attr, raw};
    ///
    /// let mut attr = new_attr();
    /// let sample_type = raw::PERF_SAMPLE_IP | raw::PERF_SAMPLE_TID | raw::PERF_SAMPLE_READ;
    /// attr.sample_type = sample_type.into();
    /// attr.read_format = u64::from(raw::PERF_FORMAT_GROUP | raw::PERF_FORMAT_ID);
    /// attr.set_sample_id_all(1);
    /// let format = SampleFormat::from_attr(&attr, 3); // a leader and two siblings
    /// assert_eq!((format.sample_type, format.read_format), (attr.sample_type, attr.read_format));
    /// assert!(format.sample_id_all);
    /// assert_eq!(format.group_members, 3);
    /// ```
    pub fn from_attr(attr: &sys::Attr, group_members: usize) -> SampleFormat {
        SampleFormat {
            sample_type: attr.sample_type,
            read_format: attr.read_format,
            branch_sample_type: attr.branch_sample_type,
            sample_regs_user: attr.sample_regs_user,
            sample_regs_intr: attr.sample_regs_intr,
            sample_id_all: attr.sample_id_all() != 0,
            group_members,
        }
    }

    /// Bytes of the [`SampleId`] trailer of every non-sample record (0 without
    /// `sample_id_all`): perf's `id_hdr_size`.
    ///
    /// ```
    /// use perfbench::profile::record::SampleFormat;
    /// use perfbench::sys::raw;
    ///
    /// let sample_type = raw::PERF_SAMPLE_IP | raw::PERF_SAMPLE_TID | raw::PERF_SAMPLE_TIME;
    /// let mut format = SampleFormat { sample_type: sample_type.into(), ..Default::default() };
    /// assert_eq!(format.sample_id_size(), 0);
    /// format.sample_id_all = true;
    /// assert_eq!(format.sample_id_size(), 16); // pid and tid, time (the IP is a sample's alone)
    /// ```
    pub fn sample_id_size(&self) -> usize {
        if !self.sample_id_all {
            return 0;
        }
        let ids = raw::PERF_SAMPLE_TID
            | raw::PERF_SAMPLE_TIME
            | raw::PERF_SAMPLE_ID
            | raw::PERF_SAMPLE_STREAM_ID
            | raw::PERF_SAMPLE_CPU
            | raw::PERF_SAMPLE_IDENTIFIER;
        8 * (self.sample_type & u64::from(ids)).count_ones() as usize
    }

    pub(super) fn sample(&self, flag: u32) -> bool {
        self.sample_type & u64::from(flag) != 0
    }

    pub(super) fn read(&self, flag: u32) -> bool {
        self.read_format & u64::from(flag) != 0
    }

    pub(super) fn branch(&self, flag: u32) -> bool {
        self.branch_sample_type & u64::from(flag) != 0
    }
}

/// `struct perf_event_header`: the 8 bytes that start every record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// The record type, a `PERF_RECORD_*` value (`type`).
    pub kind: u32,
    /// `PERF_RECORD_MISC_*` bits: the CPU mode of a sample, `MMAP_DATA`, `COMM_EXEC`, ...
    pub misc: u16,
    /// Bytes of the whole record, this header included.
    pub size: u16,
}

/// Reads the header at the start of `bytes`, in this machine's byte order.
///
/// ```
/// use perfbench::profile::perfdata::comm_record;
/// use perfbench::profile::record::{header, Header, Problem};
/// use perfbench::sys::raw;
///
/// let comm = comm_record(42, 42, "bench");
/// let h = header(&comm)?;
/// assert_eq!(h, Header { kind: raw::PERF_RECORD_COMM, misc: 0, size: comm.len() as u16 });
///
/// assert!(matches!(header(&comm[..5]).unwrap_err().problem, Problem::Truncated { .. }));
/// let zero = [0u8; 8]; // size 0: a reader would never advance past it
/// assert_eq!(header(&zero).unwrap_err().problem, Problem::SizeBelowHeader { size: 0 });
/// # Ok::<(), perfbench::profile::record::RecordError>(())
/// ```
pub fn header(bytes: &[u8]) -> Result<Header, RecordError> {
    header_in(bytes, ByteOrder::NATIVE)
}

/// [`header`] for records in `order`.
///
/// ```
/// use perfbench::profile::record::{header_in, ByteOrder};
///
/// // A big-endian machine's PERF_RECORD_SAMPLE (type 9) of 16 bytes, misc 2 (user space).
/// let bytes = [0, 0, 0, 9, 0, 2, 0, 16];
/// let h = header_in(&bytes, ByteOrder::Big)?;
/// assert_eq!((h.kind, h.misc, h.size), (9, 2, 16));
/// assert_eq!(header_in(&bytes, ByteOrder::Little)?.size, 16 << 8);
/// # Ok::<(), perfbench::profile::record::RecordError>(())
/// ```
pub fn header_in(bytes: &[u8], order: ByteOrder) -> Result<Header, RecordError> {
    let mut r = Reader::new(bytes, order);
    if bytes.len() < HEADER_SIZE {
        let problem = Problem::Truncated {
            needed: HEADER_SIZE as u64,
            left: bytes.len(),
        };
        return Err(r.error("header", problem));
    }
    let kind = r.u32("header.type")?;
    let misc = r.u16("header.misc")?;
    let size = r.u16("header.size")?;
    if usize::from(size) < HEADER_SIZE {
        return Err(RecordError::new(
            "header.size",
            6,
            Problem::SizeBelowHeader { size },
        ));
    }
    Ok(Header { kind, misc, size })
}
