//! Each record's fields read in the order the sample format gives them, every length checked
//! against the record's size before it is read.

use super::*;

/// A cursor over one record (or buffer). Offsets count from the record's first byte, which the
/// kernel aligns to 8.
pub(super) struct Reader<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    pub(super) order: ByteOrder,
}

impl<'a> Reader<'a> {
    pub(super) fn new(bytes: &'a [u8], order: ByteOrder) -> Reader<'a> {
        Reader {
            bytes,
            pos: 0,
            order,
        }
    }

    pub(super) fn left(&self) -> usize {
        self.bytes.len() - self.pos
    }

    pub(super) fn error(&self, field: &'static str, problem: Problem) -> RecordError {
        RecordError::new(field, self.pos, problem)
    }

    /// The next `n` bytes.
    pub(super) fn take(&mut self, n: u64, field: &'static str) -> Result<&'a [u8], RecordError> {
        let left = self.left();
        if n > left as u64 {
            return Err(self.error(field, Problem::Truncated { needed: n, left }));
        }
        let taken = &self.bytes[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(taken)
    }

    pub(super) fn array<const N: usize>(
        &mut self,
        field: &'static str,
    ) -> Result<[u8; N], RecordError> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N as u64, field)?);
        Ok(a)
    }

    pub(super) fn u16(&mut self, field: &'static str) -> Result<u16, RecordError> {
        Ok(self.order.u16(self.array(field)?))
    }

    pub(super) fn u32(&mut self, field: &'static str) -> Result<u32, RecordError> {
        Ok(self.order.u32(self.array(field)?))
    }

    pub(super) fn u64(&mut self, field: &'static str) -> Result<u64, RecordError> {
        Ok(self.order.u64(self.array(field)?))
    }

    pub(super) fn u64_if(
        &mut self,
        present: bool,
        field: &'static str,
    ) -> Result<Option<u64>, RecordError> {
        present.then(|| self.u64(field)).transpose()
    }

    /// `n` words. The caller has not necessarily checked that they fit: `take` does, before
    /// anything is allocated.
    pub(super) fn words(&mut self, n: u64, field: &'static str) -> Result<Vec<u64>, RecordError> {
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
    pub(super) fn count(
        &mut self,
        field: &'static str,
        after: u64,
        entry: u64,
    ) -> Result<u64, RecordError> {
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
    pub(super) fn align8(&mut self, field: &'static str) -> Result<(), RecordError> {
        let pad = self.pos.wrapping_neg() % 8;
        self.take(pad as u64, field).map(|_| ())
    }

    pub(super) fn finish(&self, field: &'static str) -> Result<(), RecordError> {
        match self.left() {
            0 => Ok(()),
            bytes => Err(self.error(field, Problem::Trailing { bytes })),
        }
    }
}

pub(super) fn check_bits(field: &'static str, bits: u64, known: u64) -> Result<(), RecordError> {
    match bits & !known {
        0 => Ok(()),
        bits => Err(RecordError::new(field, 0, Problem::UnknownBits { bits })),
    }
}

pub(super) fn sample<'a>(
    r: &mut Reader<'a>,
    f: &SampleFormat,
    misc: u16,
) -> Result<Sample<'a>, RecordError> {
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
pub(super) fn sample_head(
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
pub(super) fn sample_middle<'a>(
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
pub(super) fn sample_tail<'a>(
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

pub(super) const REGS_USER: [&str; 2] = ["sample.regs_user.abi", "sample.regs_user.regs"];

pub(super) const REGS_INTR: [&str; 2] = ["sample.regs_intr.abi", "sample.regs_intr.regs"];

pub(super) fn read(r: &mut Reader<'_>, f: &SampleFormat) -> Result<Read, RecordError> {
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

pub(super) fn check_group_size(nr: u64, members: usize, at: usize) -> Result<(), RecordError> {
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
pub(super) fn branch_stack(
    r: &mut Reader<'_>,
    f: &SampleFormat,
) -> Result<BranchStack, RecordError> {
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
pub(super) fn regs(
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
pub(super) fn stack_user<'a>(r: &mut Reader<'a>) -> Result<StackUser<'a>, RecordError> {
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
pub(super) fn weight(word: u64, as_struct: bool) -> Weight {
    if !as_struct {
        return Weight::Full(word);
    }
    Weight::Struct {
        var1_dw: word as u32,
        var2_w: (word >> 32) as u16,
        var3_w: (word >> 48) as u16,
    }
}

pub(super) fn sample_id(
    r: &mut Reader<'_>,
    f: &SampleFormat,
) -> Result<Option<SampleId>, RecordError> {
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
pub(super) fn string<'a>(
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

pub(super) fn mmap<'a>(
    r: &mut Reader<'a>,
    f: &SampleFormat,
    misc: u16,
) -> Result<Mmap<'a>, RecordError> {
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

pub(super) fn mmap2<'a>(
    r: &mut Reader<'a>,
    f: &SampleFormat,
    misc: u16,
) -> Result<Mmap2<'a>, RecordError> {
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

pub(super) fn file_id<'a>(r: &mut Reader<'a>, misc: u16) -> Result<FileId<'a>, RecordError> {
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

pub(super) fn comm<'a>(
    r: &mut Reader<'a>,
    f: &SampleFormat,
    misc: u16,
) -> Result<Comm<'a>, RecordError> {
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
pub(super) struct Fields<const N: usize> {
    pub(super) record: &'static str,
    pub(super) names: [&'static str; N],
}

pub(super) const FORK: Fields<5> = Fields {
    record: "fork",
    names: [
        "fork.pid",
        "fork.ppid",
        "fork.tid",
        "fork.ptid",
        "fork.time",
    ],
};

pub(super) const EXIT: Fields<5> = Fields {
    record: "exit",
    names: [
        "exit.pid",
        "exit.ppid",
        "exit.tid",
        "exit.ptid",
        "exit.time",
    ],
};

pub(super) const THROTTLE: Fields<3> = Fields {
    record: "throttle",
    names: ["throttle.time", "throttle.id", "throttle.stream_id"],
};

pub(super) const UNTHROTTLE: Fields<3> = Fields {
    record: "unthrottle",
    names: ["unthrottle.time", "unthrottle.id", "unthrottle.stream_id"],
};

pub(super) fn task(
    r: &mut Reader<'_>,
    f: &SampleFormat,
    fields: &Fields<5>,
) -> Result<Task, RecordError> {
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

pub(super) fn lost(r: &mut Reader<'_>, f: &SampleFormat) -> Result<Lost, RecordError> {
    let l = Lost {
        id: r.u64("lost.id")?,
        lost: r.u64("lost.lost")?,
        sample_id: sample_id(r, f)?,
    };
    r.finish("lost")?;
    Ok(l)
}

pub(super) fn throttle(
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
