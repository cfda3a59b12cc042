//! The decoded records ([`Record`]): samples with their fields, and the `MMAP`, `MMAP2`, `COMM`,
//! `FORK`/`EXIT`, `LOST` and `THROTTLE` records, borrowing from the buffer.

use super::*;

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
