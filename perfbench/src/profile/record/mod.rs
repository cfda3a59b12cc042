//! Records of a sampling ring buffer, as the kernel writes them and perf.data stores them:
//! the `perf_event_header`, then a body whose layout depends on the record's type and, for
//! samples, on the event's `sample_type`, `read_format` and `branch_sample_type`.
//!
//! [`parse`] decodes one whole record into a [`Record`]; [`split`] walks a buffer of
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

use std::fmt;
use std::iter::FusedIterator;

use super::branch::{BranchEntry, BranchStack};
use crate::sys::{self, raw};

/// Size of `struct perf_event_header`.
pub const HEADER_SIZE: usize = 8;

/// Size of the `build_id` array of a `PERF_RECORD_MMAP2` with `PERF_RECORD_MISC_MMAP_BUILD_ID`.
pub const BUILD_ID_MAX: usize = 20;

/// `sample_type` bits whose layout this decoder knows (all below `PERF_SAMPLE_MAX`).
const KNOWN_SAMPLE_TYPE: u64 = raw::PERF_SAMPLE_MAX as u64 - 1;

/// `read_format` bits whose layout this decoder knows (all below `PERF_FORMAT_MAX`).
const KNOWN_READ_FORMAT: u64 = raw::PERF_FORMAT_MAX as u64 - 1;

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

    fn u16(self, b: [u8; 2]) -> u16 {
        match self {
            ByteOrder::Little => u16::from_le_bytes(b),
            ByteOrder::Big => u16::from_be_bytes(b),
        }
    }

    fn u32(self, b: [u8; 4]) -> u32 {
        match self {
            ByteOrder::Little => u32::from_le_bytes(b),
            ByteOrder::Big => u32::from_be_bytes(b),
        }
    }

    fn u64(self, b: [u8; 8]) -> u64 {
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

    fn sample(&self, flag: u32) -> bool {
        self.sample_type & u64::from(flag) != 0
    }

    fn read(&self, flag: u32) -> bool {
        self.read_format & u64::from(flag) != 0
    }

    fn branch(&self, flag: u32) -> bool {
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

/// One decoded record. Every variant but [`Record::Sample`] and [`Record::Other`] carries the
/// [`SampleId`] trailer when the event has `sample_id_all`.
#[derive(Clone, Debug, PartialEq, Eq)]
// A record is decoded, looked at and dropped one at a time; boxing the large sample would cost
// an allocation per sample for nothing.
#[allow(clippy::large_enum_variant)]
pub enum Record<'a> {
    /// `PERF_RECORD_SAMPLE`.
    Sample(Sample<'a>),
    /// `PERF_RECORD_MMAP`: an executable mapping.
    Mmap(Mmap<'a>),
    /// `PERF_RECORD_MMAP2`: a mapping with its file's identity.
    Mmap2(Mmap2<'a>),
    /// `PERF_RECORD_COMM`: a thread's name (set by `exec` when `misc` has
    /// `PERF_RECORD_MISC_COMM_EXEC`).
    Comm(Comm<'a>),
    /// `PERF_RECORD_FORK`: a new thread or process.
    Fork(Task),
    /// `PERF_RECORD_EXIT`: a thread or process ended.
    Exit(Task),
    /// `PERF_RECORD_LOST`: records dropped because the ring buffer was full.
    Lost(Lost),
    /// `PERF_RECORD_THROTTLE`: the kernel throttled sampling (too many interrupts).
    Throttle(Throttle),
    /// `PERF_RECORD_UNTHROTTLE`: sampling resumed.
    Unthrottle(Throttle),
    /// Any other type, undecoded.
    Other {
        /// The record type (`PERF_RECORD_*`, or 64 and up for perf's own records in perf.data).
        kind: u32,
        /// The header's `misc` bits.
        misc: u16,
        /// Everything after the header, a kernel record's [`SampleId`] trailer included.
        body: &'a [u8],
    },
}

impl Record<'_> {
    /// The [`SampleId`] trailer of a non-sample record, when the event has `sample_id_all`.
    ///
    /// A `PERF_RECORD_LOST` of an event with `sample_id_all` and `PERF_SAMPLE_TID`:
    ///
    /// ```
    /// use perfbench::profile::record::{parse, Record, SampleFormat, SampleId};
    /// use perfbench::sys::raw;
    ///
    /// let mut bytes = Vec::new();
    /// bytes.extend_from_slice(&raw::PERF_RECORD_LOST.to_ne_bytes());
    /// bytes.extend_from_slice(&0u16.to_ne_bytes()); // misc
    /// bytes.extend_from_slice(&32u16.to_ne_bytes()); // size
    /// bytes.extend_from_slice(&7u64.to_ne_bytes()); // id
    /// bytes.extend_from_slice(&3u64.to_ne_bytes()); // lost
    /// bytes.extend_from_slice(&100u32.to_ne_bytes()); // sample_id: pid
    /// bytes.extend_from_slice(&101u32.to_ne_bytes()); // sample_id: tid
    /// let format = SampleFormat {
    ///     sample_type: raw::PERF_SAMPLE_TID.into(),
    ///     sample_id_all: true,
    ///     ..SampleFormat::default()
    /// };
    /// let record = parse(&format, &bytes)?;
    /// assert!(matches!(record, Record::Lost(ref l) if (l.id, l.lost) == (7, 3)));
    /// let want = SampleId { pid: Some(100), tid: Some(101), ..SampleId::default() };
    /// assert_eq!(record.sample_id(), Some(&want));
    /// # Ok::<(), perfbench::profile::record::RecordError>(())
    /// ```
    pub fn sample_id(&self) -> Option<&SampleId> {
        match self {
            Record::Mmap(m) => m.sample_id.as_ref(),
            Record::Mmap2(m) => m.sample_id.as_ref(),
            Record::Comm(c) => c.sample_id.as_ref(),
            Record::Fork(t) | Record::Exit(t) => t.sample_id.as_ref(),
            Record::Lost(l) => l.sample_id.as_ref(),
            Record::Throttle(t) | Record::Unthrottle(t) => t.sample_id.as_ref(),
            Record::Sample(_) | Record::Other { .. } => None,
        }
    }
}

/// `struct sample_id`: where and when a non-sample record happened, in kernel order. A field is
/// present when `sample_type` has its bit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SampleId {
    /// Process id (`PERF_SAMPLE_TID`).
    pub pid: Option<u32>,
    /// Thread id (`PERF_SAMPLE_TID`).
    pub tid: Option<u32>,
    /// Timestamp, ns of the event's clock (`PERF_SAMPLE_TIME`).
    pub time: Option<u64>,
    /// Event id (`PERF_SAMPLE_ID`).
    pub id: Option<u64>,
    /// Id of the event the inherited one came from (`PERF_SAMPLE_STREAM_ID`).
    pub stream_id: Option<u64>,
    /// CPU (`PERF_SAMPLE_CPU`; its reserved word is skipped).
    pub cpu: Option<u32>,
    /// Event id again, at a fixed place: the record's last word (`PERF_SAMPLE_IDENTIFIER`).
    pub identifier: Option<u64>,
}

/// `PERF_RECORD_SAMPLE`: one field per `sample_type` bit, `None` when the bit is clear.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sample<'a> {
    /// The header's `misc`: the CPU mode (`misc & PERF_RECORD_MISC_CPUMODE_MASK`) and
    /// `PERF_RECORD_MISC_EXACT_IP`.
    pub misc: u16,
    /// Event id, first so that it is found without knowing the format (`IDENTIFIER`).
    pub identifier: Option<u64>,
    /// Instruction pointer (`IP`).
    pub ip: Option<u64>,
    /// Process id (`TID`).
    pub pid: Option<u32>,
    /// Thread id (`TID`).
    pub tid: Option<u32>,
    /// Timestamp (`TIME`).
    pub time: Option<u64>,
    /// Data address of a memory event (`ADDR`).
    pub addr: Option<u64>,
    /// Event id (`ID`).
    pub id: Option<u64>,
    /// Id of the event the inherited one came from (`STREAM_ID`).
    pub stream_id: Option<u64>,
    /// CPU (`CPU`; its reserved word is skipped).
    pub cpu: Option<u32>,
    /// Sampling period (`PERIOD`).
    pub period: Option<u64>,
    /// Counter values (`READ`).
    pub read: Option<Read>,
    /// Call chain, innermost first, with the kernel's `PERF_CONTEXT_*` markers (`CALLCHAIN`).
    pub callchain: Option<Vec<u64>>,
    /// Tracepoint or PMU raw data, without its padding (`RAW`).
    pub raw: Option<&'a [u8]>,
    /// Last-branch records (`BRANCH_STACK`).
    pub branch_stack: Option<BranchStack>,
    /// User-space registers at the sample (`REGS_USER`).
    pub regs_user: Option<Regs>,
    /// A copy of the user stack (`STACK_USER`).
    pub stack_user: Option<StackUser<'a>>,
    /// Cost of the sampled operation (`WEIGHT` or `WEIGHT_STRUCT`).
    pub weight: Option<Weight>,
    /// Memory hierarchy source of `addr`, `union perf_mem_data_src` (`DATA_SRC`).
    pub data_src: Option<u64>,
    /// Transactional memory abort flags, `PERF_TXN_*` (`TRANSACTION`).
    pub transaction: Option<u64>,
    /// Registers at the interrupt (`REGS_INTR`).
    pub regs_intr: Option<Regs>,
    /// Physical address of `addr` (`PHYS_ADDR`).
    pub phys_addr: Option<u64>,
    /// Cgroup id (`CGROUP`).
    pub cgroup: Option<u64>,
    /// Page size of `addr` (`DATA_PAGE_SIZE`).
    pub data_page_size: Option<u64>,
    /// Page size of `ip` (`CODE_PAGE_SIZE`).
    pub code_page_size: Option<u64>,
    /// A snapshot of the AUX area (`AUX`).
    pub aux: Option<&'a [u8]>,
}

/// The `PERF_SAMPLE_READ` field: `struct read_format`. A single read has one value; a
/// `PERF_FORMAT_GROUP` read has one per group member, leader first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Read {
    /// `PERF_FORMAT_TOTAL_TIME_ENABLED`.
    pub time_enabled: Option<u64>,
    /// `PERF_FORMAT_TOTAL_TIME_RUNNING`.
    pub time_running: Option<u64>,
    /// The counters' values.
    pub values: Vec<ReadValue>,
}

/// One counter of a [`Read`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ReadValue {
    /// The count.
    pub value: u64,
    /// The event id (`PERF_FORMAT_ID`).
    pub id: Option<u64>,
    /// Samples lost (`PERF_FORMAT_LOST`).
    pub lost: Option<u64>,
}

/// The `PERF_SAMPLE_REGS_USER` or `PERF_SAMPLE_REGS_INTR` field.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Regs {
    /// `PERF_SAMPLE_REGS_ABI_*`; `NONE` (0) when there were no registers to take (a kernel
    /// thread), and then `values` is empty.
    pub abi: u64,
    /// The attr's register mask (`sample_regs_user` or `sample_regs_intr`).
    pub mask: u64,
    /// One value per set bit of `mask`, lowest register number first.
    pub values: Vec<u64>,
}

impl Regs {
    /// The value of register `reg` (a `PERF_REG_<arch>_*` number), if it was taken.
    ///
    /// ```
    /// use perfbench::profile::record::Regs;
    ///
    /// // Registers 3 and 6 were asked for (`sample_regs_user` = 0b100_1000), lowest first.
    /// let regs = Regs { abi: 2, mask: 0b100_1000, values: vec![0x33, 0x66] };
    /// assert_eq!((regs.get(3), regs.get(6)), (Some(0x33), Some(0x66)));
    /// assert_eq!((regs.get(4), regs.get(64)), (None, None));
    /// // A kernel thread: no registers (ABI NONE).
    /// assert_eq!(Regs { abi: 0, mask: 0b100_1000, values: vec![] }.get(3), None);
    /// ```
    pub fn get(&self, reg: u32) -> Option<u64> {
        if reg >= 64 || self.mask & (1 << reg) == 0 {
            return None;
        }
        let below = (self.mask & ((1 << reg) - 1)).count_ones() as usize;
        self.values.get(below).copied()
    }
}

/// The `PERF_SAMPLE_STACK_USER` field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StackUser<'a> {
    /// The dump, starting at the user stack pointer: as many bytes as were asked for (or fit);
    /// empty when there was no user stack.
    pub data: &'a [u8],
    /// How many bytes of `data` were really copied (`dyn_size`); `None` when `data` is empty.
    pub dyn_size: Option<u64>,
}

impl<'a> StackUser<'a> {
    /// The bytes that were really copied: `data[..dyn_size]`.
    ///
    /// ```
    /// use perfbench::profile::record::StackUser;
    ///
    /// let dump = [1u8, 2, 3, 4, 5, 6, 7, 8];
    /// let stack = StackUser { data: &dump, dyn_size: Some(3) }; // 8 bytes asked for, 3 copied
    /// assert_eq!(stack.dumped(), &[1, 2, 3]);
    /// assert!(StackUser::default().dumped().is_empty());
    /// ```
    pub fn dumped(&self) -> &'a [u8] {
        let n = self.dyn_size.unwrap_or(0).min(self.data.len() as u64) as usize;
        &self.data[..n]
    }
}

/// The `PERF_SAMPLE_WEIGHT` / `PERF_SAMPLE_WEIGHT_STRUCT` field, `union perf_sample_weight`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Weight {
    /// `PERF_SAMPLE_WEIGHT`: one number (`full`).
    Full(u64),
    /// `PERF_SAMPLE_WEIGHT_STRUCT`: three (on Intel: latency, instruction latency, retire
    /// latency).
    Struct {
        /// The low 32 bits (`var1_dw`).
        var1_dw: u32,
        /// Bits 32..48 (`var2_w`).
        var2_w: u16,
        /// Bits 48..64 (`var3_w`).
        var3_w: u16,
    },
}

/// `PERF_RECORD_MMAP`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mmap<'a> {
    /// The header's `misc`: CPU mode, `PERF_RECORD_MISC_MMAP_DATA` for a data mapping.
    pub misc: u16,
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Start address.
    pub addr: u64,
    /// Length in bytes.
    pub len: u64,
    /// Offset in the file.
    pub pgoff: u64,
    /// The path, without its NUL and padding.
    pub filename: &'a [u8],
    /// The trailer, with `sample_id_all`.
    pub sample_id: Option<SampleId>,
}

/// `PERF_RECORD_MMAP2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mmap2<'a> {
    /// The header's `misc`: CPU mode, `PERF_RECORD_MISC_MMAP_DATA`,
    /// `PERF_RECORD_MISC_MMAP_BUILD_ID`.
    pub misc: u16,
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Start address.
    pub addr: u64,
    /// Length in bytes.
    pub len: u64,
    /// Offset in the file.
    pub pgoff: u64,
    /// Which file: device and inode, or build id.
    pub file: FileId<'a>,
    /// `PROT_*` bits.
    pub prot: u32,
    /// `MAP_*` bits.
    pub flags: u32,
    /// The path, without its NUL and padding.
    pub filename: &'a [u8],
    /// The trailer, with `sample_id_all`.
    pub sample_id: Option<SampleId>,
}

/// The identity of a mapped file in `PERF_RECORD_MMAP2`: a union chosen by
/// `PERF_RECORD_MISC_MMAP_BUILD_ID`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileId<'a> {
    /// Device and inode.
    Inode {
        /// Device major number.
        maj: u32,
        /// Device minor number.
        min: u32,
        /// Inode number.
        ino: u64,
        /// Inode generation.
        ino_generation: u64,
    },
    /// The file's build id (`build_id_size` bytes, at most [`BUILD_ID_MAX`]).
    BuildId(&'a [u8]),
}

/// `PERF_RECORD_COMM`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Comm<'a> {
    /// The header's `misc`: `PERF_RECORD_MISC_COMM_EXEC` when the name changed by `exec`.
    pub misc: u16,
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// The thread's name, without its NUL and padding.
    pub comm: &'a [u8],
    /// The trailer, with `sample_id_all`.
    pub sample_id: Option<SampleId>,
}

/// `PERF_RECORD_FORK` and `PERF_RECORD_EXIT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Task {
    /// Process id.
    pub pid: u32,
    /// Parent process id.
    pub ppid: u32,
    /// Thread id.
    pub tid: u32,
    /// Parent thread id.
    pub ptid: u32,
    /// Timestamp.
    pub time: u64,
    /// The trailer, with `sample_id_all`.
    pub sample_id: Option<SampleId>,
}

/// `PERF_RECORD_LOST`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lost {
    /// Id of the event whose records were lost.
    pub id: u64,
    /// How many records were lost.
    pub lost: u64,
    /// The trailer, with `sample_id_all`.
    pub sample_id: Option<SampleId>,
}

/// `PERF_RECORD_THROTTLE` and `PERF_RECORD_UNTHROTTLE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Throttle {
    /// Timestamp.
    pub time: u64,
    /// Event id.
    pub id: u64,
    /// Stream id.
    pub stream_id: u64,
    /// The trailer, with `sample_id_all`.
    pub sample_id: Option<SampleId>,
}

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

/// [`split`] for records in `order`.
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

/// The iterator of [`split`].
#[derive(Clone, Debug)]
pub struct Split<'a> {
    buf: &'a [u8],
    pos: usize,
    order: ByteOrder,
    failed: bool,
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

    fn next_record(&mut self) -> Result<&'a [u8], RecordError> {
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

/// A record that could not be decoded: which field, where, and what was wrong with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// The field, named as in the kernel's layout (`"sample.callchain.nr"`, `"mmap2.filename"`,
    /// `"header.size"`); `"format.*"` for a [`SampleFormat`] the decoder cannot follow.
    pub field: &'static str,
    /// Byte offset of the field from the start of the record ([`parse`]) or of the buffer
    /// ([`split`]).
    pub offset: usize,
    /// What was wrong.
    pub problem: Problem,
}

/// What was wrong with a field; see [`RecordError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The field needs more bytes than are left.
    Truncated {
        /// Bytes the field needs (a size or count times entry size, saturated).
        needed: u64,
        /// Bytes left in the record (or buffer).
        left: usize,
    },
    /// `header.size` is below the 8 bytes of the header itself (0 would never advance).
    SizeBelowHeader {
        /// The size found.
        size: u16,
    },
    /// Bytes left over after the last field.
    Trailing {
        /// How many.
        bytes: usize,
    },
    /// A count that disagrees with the event's format.
    Count {
        /// The count found.
        found: u64,
        /// The count the format says.
        expected: u64,
    },
    /// A value no kernel writes.
    Implausible {
        /// The value found.
        value: u64,
        /// Why it cannot be.
        why: &'static str,
    },
    /// A string without its terminating NUL.
    Unterminated,
    /// Format bits whose layout this decoder does not know.
    UnknownBits {
        /// The unknown bits.
        bits: u64,
    },
}

impl RecordError {
    fn new(field: &'static str, offset: usize, problem: Problem) -> RecordError {
        RecordError {
            field,
            offset,
            problem,
        }
    }

    fn shifted(mut self, by: usize) -> RecordError {
        self.offset += by;
        self
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad perf record: `{}` at byte {}: {}",
            self.field, self.offset, self.problem
        )
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Truncated { needed, left } => {
                write!(f, "needs {needed} bytes but only {left} are left")
            }
            Problem::SizeBelowHeader { size } => {
                write!(
                    f,
                    "size {size} is below the {HEADER_SIZE}-byte header itself"
                )
            }
            Problem::Trailing { bytes } => write!(f, "{bytes} bytes left over after it"),
            Problem::Count { found, expected } => {
                write!(f, "count {found} where the format says {expected}")
            }
            Problem::Implausible { value, why } => write!(f, "{value} cannot be: {why}"),
            Problem::Unterminated => f.write_str("string without its terminating NUL"),
            Problem::UnknownBits { bits } => {
                write!(
                    f,
                    "bits {bits:#x} are unknown here, so the layout is unknown"
                )
            }
        }
    }
}

impl std::error::Error for RecordError {}

/// A cursor over one record (or buffer). Offsets count from the record's first byte, which the
/// kernel aligns to 8.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    order: ByteOrder,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], order: ByteOrder) -> Reader<'a> {
        Reader {
            bytes,
            pos: 0,
            order,
        }
    }

    fn left(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn error(&self, field: &'static str, problem: Problem) -> RecordError {
        RecordError::new(field, self.pos, problem)
    }

    /// The next `n` bytes.
    fn take(&mut self, n: u64, field: &'static str) -> Result<&'a [u8], RecordError> {
        let left = self.left();
        if n > left as u64 {
            return Err(self.error(field, Problem::Truncated { needed: n, left }));
        }
        let taken = &self.bytes[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], RecordError> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N as u64, field)?);
        Ok(a)
    }

    fn u16(&mut self, field: &'static str) -> Result<u16, RecordError> {
        Ok(self.order.u16(self.array(field)?))
    }

    fn u32(&mut self, field: &'static str) -> Result<u32, RecordError> {
        Ok(self.order.u32(self.array(field)?))
    }

    fn u64(&mut self, field: &'static str) -> Result<u64, RecordError> {
        Ok(self.order.u64(self.array(field)?))
    }

    fn u64_if(&mut self, present: bool, field: &'static str) -> Result<Option<u64>, RecordError> {
        present.then(|| self.u64(field)).transpose()
    }

    /// `n` words. The caller has not necessarily checked that they fit: `take` does, before
    /// anything is allocated.
    fn words(&mut self, n: u64, field: &'static str) -> Result<Vec<u64>, RecordError> {
        let bytes = self.take(n.saturating_mul(8), field)?;
        let order = self.order;
        Ok(bytes
            .chunks_exact(8)
            .map(|w| {
                let mut a = [0; 8];
                a.copy_from_slice(w);
                order.u64(a)
            })
            .collect())
    }

    /// A `u64` count of entries of `entry` bytes each, after `after` more bytes, checked to fit
    /// in what is left of the record.
    fn count(&mut self, field: &'static str, after: u64, entry: u64) -> Result<u64, RecordError> {
        let at = self.pos;
        let n = self.u64(field)?;
        let needed = n.saturating_mul(entry).saturating_add(after);
        let left = self.left();
        if needed > left as u64 {
            return Err(RecordError::new(
                field,
                at,
                Problem::Truncated { needed, left },
            ));
        }
        Ok(n)
    }

    /// Skips the padding up to the next multiple of 8.
    fn align8(&mut self, field: &'static str) -> Result<(), RecordError> {
        let pad = self.pos.wrapping_neg() % 8;
        self.take(pad as u64, field).map(|_| ())
    }

    fn finish(&self, field: &'static str) -> Result<(), RecordError> {
        match self.left() {
            0 => Ok(()),
            bytes => Err(self.error(field, Problem::Trailing { bytes })),
        }
    }
}

fn check_bits(field: &'static str, bits: u64, known: u64) -> Result<(), RecordError> {
    match bits & !known {
        0 => Ok(()),
        bits => Err(RecordError::new(field, 0, Problem::UnknownBits { bits })),
    }
}

fn sample<'a>(r: &mut Reader<'a>, f: &SampleFormat, misc: u16) -> Result<Sample<'a>, RecordError> {
    check_bits("format.sample_type", f.sample_type, KNOWN_SAMPLE_TYPE)?;
    let mut s = Sample {
        misc,
        ..Sample::default()
    };
    sample_head(r, f, &mut s)?;
    sample_middle(r, f, &mut s)?;
    sample_tail(r, f, &mut s)?;
    r.finish("sample")?;
    Ok(s)
}

/// The fixed words, `IDENTIFIER` to `PERIOD`.
fn sample_head(
    r: &mut Reader<'_>,
    f: &SampleFormat,
    s: &mut Sample<'_>,
) -> Result<(), RecordError> {
    s.identifier = r.u64_if(f.sample(raw::PERF_SAMPLE_IDENTIFIER), "sample.identifier")?;
    s.ip = r.u64_if(f.sample(raw::PERF_SAMPLE_IP), "sample.ip")?;
    if f.sample(raw::PERF_SAMPLE_TID) {
        s.pid = Some(r.u32("sample.pid")?);
        s.tid = Some(r.u32("sample.tid")?);
    }
    s.time = r.u64_if(f.sample(raw::PERF_SAMPLE_TIME), "sample.time")?;
    s.addr = r.u64_if(f.sample(raw::PERF_SAMPLE_ADDR), "sample.addr")?;
    s.id = r.u64_if(f.sample(raw::PERF_SAMPLE_ID), "sample.id")?;
    s.stream_id = r.u64_if(f.sample(raw::PERF_SAMPLE_STREAM_ID), "sample.stream_id")?;
    if f.sample(raw::PERF_SAMPLE_CPU) {
        s.cpu = Some(r.u32("sample.cpu")?);
        r.u32("sample.res")?;
    }
    s.period = r.u64_if(f.sample(raw::PERF_SAMPLE_PERIOD), "sample.period")?;
    Ok(())
}

/// The variable-length fields, `READ` to `STACK_USER`.
fn sample_middle<'a>(
    r: &mut Reader<'a>,
    f: &SampleFormat,
    s: &mut Sample<'a>,
) -> Result<(), RecordError> {
    if f.sample(raw::PERF_SAMPLE_READ) {
        s.read = Some(read(r, f)?);
    }
    if f.sample(raw::PERF_SAMPLE_CALLCHAIN) {
        let nr = r.count("sample.callchain.nr", 0, 8)?;
        s.callchain = Some(r.words(nr, "sample.callchain.ips")?);
    }
    if f.sample(raw::PERF_SAMPLE_RAW) {
        let size = r.u32("sample.raw.size")?;
        s.raw = Some(r.take(u64::from(size), "sample.raw.data")?);
        r.align8("sample.raw.padding")?;
    }
    if f.sample(raw::PERF_SAMPLE_BRANCH_STACK) {
        s.branch_stack = Some(branch_stack(r, f)?);
    }
    if f.sample(raw::PERF_SAMPLE_REGS_USER) {
        s.regs_user = Some(regs(r, f.sample_regs_user, REGS_USER)?);
    }
    if f.sample(raw::PERF_SAMPLE_STACK_USER) {
        s.stack_user = Some(stack_user(r)?);
    }
    Ok(())
}

/// The fields after the user stack, `WEIGHT` to `AUX`, in `perf_output_sample`'s order.
fn sample_tail<'a>(
    r: &mut Reader<'a>,
    f: &SampleFormat,
    s: &mut Sample<'a>,
) -> Result<(), RecordError> {
    let weight_struct = f.sample(raw::PERF_SAMPLE_WEIGHT_STRUCT);
    if weight_struct || f.sample(raw::PERF_SAMPLE_WEIGHT) {
        s.weight = Some(weight(r.u64("sample.weight")?, weight_struct));
    }
    s.data_src = r.u64_if(f.sample(raw::PERF_SAMPLE_DATA_SRC), "sample.data_src")?;
    s.transaction = r.u64_if(f.sample(raw::PERF_SAMPLE_TRANSACTION), "sample.transaction")?;
    if f.sample(raw::PERF_SAMPLE_REGS_INTR) {
        s.regs_intr = Some(regs(r, f.sample_regs_intr, REGS_INTR)?);
    }
    s.phys_addr = r.u64_if(f.sample(raw::PERF_SAMPLE_PHYS_ADDR), "sample.phys_addr")?;
    s.cgroup = r.u64_if(f.sample(raw::PERF_SAMPLE_CGROUP), "sample.cgroup")?;
    let data_page = f.sample(raw::PERF_SAMPLE_DATA_PAGE_SIZE);
    s.data_page_size = r.u64_if(data_page, "sample.data_page_size")?;
    let code_page = f.sample(raw::PERF_SAMPLE_CODE_PAGE_SIZE);
    s.code_page_size = r.u64_if(code_page, "sample.code_page_size")?;
    if f.sample(raw::PERF_SAMPLE_AUX) {
        let size = r.u64("sample.aux.size")?;
        s.aux = Some(r.take(size, "sample.aux.data")?);
        r.align8("sample.aux.padding")?;
    }
    Ok(())
}

const REGS_USER: [&str; 2] = ["sample.regs_user.abi", "sample.regs_user.regs"];
const REGS_INTR: [&str; 2] = ["sample.regs_intr.abi", "sample.regs_intr.regs"];

fn read(r: &mut Reader<'_>, f: &SampleFormat) -> Result<Read, RecordError> {
    check_bits("format.read_format", f.read_format, KNOWN_READ_FORMAT)?;
    let has_id = f.read(raw::PERF_FORMAT_ID);
    let has_lost = f.read(raw::PERF_FORMAT_LOST);
    let enabled = f.read(raw::PERF_FORMAT_TOTAL_TIME_ENABLED);
    let running = f.read(raw::PERF_FORMAT_TOTAL_TIME_RUNNING);
    if !f.read(raw::PERF_FORMAT_GROUP) {
        let value = r.u64("sample.read.value")?;
        return Ok(Read {
            time_enabled: r.u64_if(enabled, "sample.read.time_enabled")?,
            time_running: r.u64_if(running, "sample.read.time_running")?,
            values: vec![ReadValue {
                value,
                id: r.u64_if(has_id, "sample.read.id")?,
                lost: r.u64_if(has_lost, "sample.read.lost")?,
            }],
        });
    }
    let at = r.pos;
    let times = 8 * (u64::from(enabled) + u64::from(running));
    let entry = 8 * (1 + u64::from(has_id) + u64::from(has_lost));
    let nr = r.count("sample.read.nr", times, entry)?;
    check_group_size(nr, f.group_members, at)?;
    let time_enabled = r.u64_if(enabled, "sample.read.time_enabled")?;
    let time_running = r.u64_if(running, "sample.read.time_running")?;
    let mut values = Vec::with_capacity(nr as usize);
    for _ in 0..nr {
        values.push(ReadValue {
            value: r.u64("sample.read.value")?,
            id: r.u64_if(has_id, "sample.read.id")?,
            lost: r.u64_if(has_lost, "sample.read.lost")?,
        });
    }
    Ok(Read {
        time_enabled,
        time_running,
        values,
    })
}

fn check_group_size(nr: u64, members: usize, at: usize) -> Result<(), RecordError> {
    let problem = if nr == 0 {
        Problem::Implausible {
            value: 0,
            why: "a group read has at least its leader",
        }
    } else if members != 0 && nr != members as u64 {
        Problem::Count {
            found: nr,
            expected: members as u64,
        }
    } else {
        return Ok(());
    };
    Err(RecordError::new("sample.read.nr", at, problem))
}

/// `nr`, `hw_idx` with `PERF_SAMPLE_BRANCH_HW_INDEX`, the entries, then one counter word per
/// entry with `PERF_SAMPLE_BRANCH_COUNTERS`. Like perf, this always expects `hw_idx` when the
/// format has it; a kernel whose PMU supplied no stack for a sample writes a bare `nr = 0`
/// without it (`perf_output_sample`), and such a record then fails to decode rather than
/// decoding shifted.
fn branch_stack(r: &mut Reader<'_>, f: &SampleFormat) -> Result<BranchStack, RecordError> {
    let has_hw_idx = f.branch(raw::PERF_SAMPLE_BRANCH_HW_INDEX);
    let has_counters = f.branch(raw::PERF_SAMPLE_BRANCH_COUNTERS);
    let entry = 24 + 8 * u64::from(has_counters);
    let nr = r.count("sample.branch_stack.nr", 8 * u64::from(has_hw_idx), entry)?;
    let hw_idx = r.u64_if(has_hw_idx, "sample.branch_stack.hw_idx")?;
    let mut entries = Vec::with_capacity(nr as usize);
    for _ in 0..nr {
        let from = r.u64("sample.branch_stack.from")?;
        let to = r.u64("sample.branch_stack.to")?;
        let flags = r.u64("sample.branch_stack.flags")?;
        entries.push(BranchEntry::from_words(from, to, flags, r.order));
    }
    let counters = if has_counters {
        Some(r.words(nr, "sample.branch_stack.counters")?)
    } else {
        None
    };
    Ok(BranchStack {
        hw_idx,
        entries,
        counters,
    })
}

/// `abi`, then one word per bit of `mask` unless `abi` is `PERF_SAMPLE_REGS_ABI_NONE`.
/// The two names are those of the parts, for errors.
fn regs(
    r: &mut Reader<'_>,
    mask: u64,
    [abi_field, regs_field]: [&'static str; 2],
) -> Result<Regs, RecordError> {
    let abi = r.u64(abi_field)?;
    let values = if abi == u64::from(raw::PERF_SAMPLE_REGS_ABI_NONE) {
        Vec::new()
    } else {
        r.words(u64::from(mask.count_ones()), regs_field)?
    };
    Ok(Regs { abi, mask, values })
}

/// `size`, `data[size]`, then `dyn_size` unless `size` is 0.
fn stack_user<'a>(r: &mut Reader<'a>) -> Result<StackUser<'a>, RecordError> {
    let size = r.u64("sample.stack_user.size")?;
    let data = r.take(size, "sample.stack_user.data")?;
    r.align8("sample.stack_user.padding")?;
    if size == 0 {
        return Ok(StackUser {
            data,
            dyn_size: None,
        });
    }
    let dyn_size = r.u64("sample.stack_user.dyn_size")?;
    if dyn_size > size {
        let why = "more bytes copied than the dump holds";
        let at = r.pos - 8;
        let problem = Problem::Implausible {
            value: dyn_size,
            why,
        };
        return Err(RecordError::new("sample.stack_user.dyn_size", at, problem));
    }
    Ok(StackUser {
        data,
        dyn_size: Some(dyn_size),
    })
}

/// The union read as one word: the struct view's fields sit at the same bits of the word in
/// either byte order (its members are declared in reverse on big-endian machines).
fn weight(word: u64, as_struct: bool) -> Weight {
    if !as_struct {
        return Weight::Full(word);
    }
    Weight::Struct {
        var1_dw: word as u32,
        var2_w: (word >> 32) as u16,
        var3_w: (word >> 48) as u16,
    }
}

fn sample_id(r: &mut Reader<'_>, f: &SampleFormat) -> Result<Option<SampleId>, RecordError> {
    if !f.sample_id_all {
        return Ok(None);
    }
    let mut id = SampleId::default();
    if f.sample(raw::PERF_SAMPLE_TID) {
        id.pid = Some(r.u32("sample_id.pid")?);
        id.tid = Some(r.u32("sample_id.tid")?);
    }
    id.time = r.u64_if(f.sample(raw::PERF_SAMPLE_TIME), "sample_id.time")?;
    id.id = r.u64_if(f.sample(raw::PERF_SAMPLE_ID), "sample_id.id")?;
    id.stream_id = r.u64_if(f.sample(raw::PERF_SAMPLE_STREAM_ID), "sample_id.stream_id")?;
    if f.sample(raw::PERF_SAMPLE_CPU) {
        id.cpu = Some(r.u32("sample_id.cpu")?);
        r.u32("sample_id.res")?;
    }
    id.identifier = r.u64_if(
        f.sample(raw::PERF_SAMPLE_IDENTIFIER),
        "sample_id.identifier",
    )?;
    Ok(Some(id))
}

/// A NUL-terminated, padded string that fills the record up to the [`SampleId`] trailer.
fn string<'a>(
    r: &mut Reader<'a>,
    f: &SampleFormat,
    field: &'static str,
) -> Result<&'a [u8], RecordError> {
    let trailer = f.sample_id_size();
    let left = r.left();
    if left <= trailer {
        let problem = Problem::Truncated {
            needed: trailer as u64 + 1,
            left,
        };
        return Err(r.error(field, problem));
    }
    let at = r.pos;
    let region = r.take((left - trailer) as u64, field)?;
    match region.iter().position(|&b| b == 0) {
        Some(nul) => Ok(&region[..nul]),
        None => Err(RecordError::new(field, at, Problem::Unterminated)),
    }
}

fn mmap<'a>(r: &mut Reader<'a>, f: &SampleFormat, misc: u16) -> Result<Mmap<'a>, RecordError> {
    let m = Mmap {
        misc,
        pid: r.u32("mmap.pid")?,
        tid: r.u32("mmap.tid")?,
        addr: r.u64("mmap.addr")?,
        len: r.u64("mmap.len")?,
        pgoff: r.u64("mmap.pgoff")?,
        filename: string(r, f, "mmap.filename")?,
        sample_id: sample_id(r, f)?,
    };
    r.finish("mmap")?;
    Ok(m)
}

fn mmap2<'a>(r: &mut Reader<'a>, f: &SampleFormat, misc: u16) -> Result<Mmap2<'a>, RecordError> {
    let m = Mmap2 {
        misc,
        pid: r.u32("mmap2.pid")?,
        tid: r.u32("mmap2.tid")?,
        addr: r.u64("mmap2.addr")?,
        len: r.u64("mmap2.len")?,
        pgoff: r.u64("mmap2.pgoff")?,
        file: file_id(r, misc)?,
        prot: r.u32("mmap2.prot")?,
        flags: r.u32("mmap2.flags")?,
        filename: string(r, f, "mmap2.filename")?,
        sample_id: sample_id(r, f)?,
    };
    r.finish("mmap2")?;
    Ok(m)
}

fn file_id<'a>(r: &mut Reader<'a>, misc: u16) -> Result<FileId<'a>, RecordError> {
    if u32::from(misc) & raw::PERF_RECORD_MISC_MMAP_BUILD_ID == 0 {
        return Ok(FileId::Inode {
            maj: r.u32("mmap2.maj")?,
            min: r.u32("mmap2.min")?,
            ino: r.u64("mmap2.ino")?,
            ino_generation: r.u64("mmap2.ino_generation")?,
        });
    }
    let at = r.pos;
    let [size, _, _, _] = r.array::<4>("mmap2.build_id_size")?;
    let build_id = r.take(BUILD_ID_MAX as u64, "mmap2.build_id")?;
    if usize::from(size) > BUILD_ID_MAX {
        let why = "a build id has at most 20 bytes";
        let problem = Problem::Implausible {
            value: u64::from(size),
            why,
        };
        return Err(RecordError::new("mmap2.build_id_size", at, problem));
    }
    Ok(FileId::BuildId(&build_id[..usize::from(size)]))
}

fn comm<'a>(r: &mut Reader<'a>, f: &SampleFormat, misc: u16) -> Result<Comm<'a>, RecordError> {
    let c = Comm {
        misc,
        pid: r.u32("comm.pid")?,
        tid: r.u32("comm.tid")?,
        comm: string(r, f, "comm.comm")?,
        sample_id: sample_id(r, f)?,
    };
    r.finish("comm")?;
    Ok(c)
}

/// The field names of a record type whose layout another type shares.
struct Fields<const N: usize> {
    record: &'static str,
    names: [&'static str; N],
}

const FORK: Fields<5> = Fields {
    record: "fork",
    names: [
        "fork.pid",
        "fork.ppid",
        "fork.tid",
        "fork.ptid",
        "fork.time",
    ],
};
const EXIT: Fields<5> = Fields {
    record: "exit",
    names: [
        "exit.pid",
        "exit.ppid",
        "exit.tid",
        "exit.ptid",
        "exit.time",
    ],
};
const THROTTLE: Fields<3> = Fields {
    record: "throttle",
    names: ["throttle.time", "throttle.id", "throttle.stream_id"],
};
const UNTHROTTLE: Fields<3> = Fields {
    record: "unthrottle",
    names: ["unthrottle.time", "unthrottle.id", "unthrottle.stream_id"],
};

fn task(r: &mut Reader<'_>, f: &SampleFormat, fields: &Fields<5>) -> Result<Task, RecordError> {
    let [pid, ppid, tid, ptid, time] = fields.names;
    let t = Task {
        pid: r.u32(pid)?,
        ppid: r.u32(ppid)?,
        tid: r.u32(tid)?,
        ptid: r.u32(ptid)?,
        time: r.u64(time)?,
        sample_id: sample_id(r, f)?,
    };
    r.finish(fields.record)?;
    Ok(t)
}

fn lost(r: &mut Reader<'_>, f: &SampleFormat) -> Result<Lost, RecordError> {
    let l = Lost {
        id: r.u64("lost.id")?,
        lost: r.u64("lost.lost")?,
        sample_id: sample_id(r, f)?,
    };
    r.finish("lost")?;
    Ok(l)
}

fn throttle(
    r: &mut Reader<'_>,
    f: &SampleFormat,
    fields: &Fields<3>,
) -> Result<Throttle, RecordError> {
    let [time, id, stream_id] = fields.names;
    let t = Throttle {
        time: r.u64(time)?,
        id: r.u64(id)?,
        stream_id: r.u64(stream_id)?,
        sample_id: sample_id(r, f)?,
    };
    r.finish(fields.record)?;
    Ok(t)
}

#[cfg(test)]
mod tests;
