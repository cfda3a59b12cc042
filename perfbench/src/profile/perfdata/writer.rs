//! [`Writer`]: a `perf.data` file written as the profile is taken: the header and attributes,
//! the records, and the feature sections at the end.

use super::*;

/// Writes a perf.data file: [`Writer::create`], records, then [`Writer::finish`].
#[derive(Debug)]
pub struct Writer {
    pub(super) path: PathBuf,
    pub(super) tmp: PathBuf,
    pub(super) out: io::BufWriter<std::fs::File>,
    pub(super) events: Vec<EventDesc>,
    pub(super) data_start: u64,
    pub(super) data_len: u64,
}

/// The layout before the data: the ids, then the attrs.
pub(super) fn prelude(events: &[EventDesc]) -> (Vec<u8>, Vec<u8>) {
    let mut ids = Vec::new();
    let mut attrs = Vec::new();
    let ids_start = HEADER_SIZE;
    let mut id_at = ids_start;
    for e in events {
        for &id in &e.ids {
            put_u64(&mut ids, id);
        }
        attrs.extend_from_slice(&attr_bytes(&e.attr));
        put_u64(&mut attrs, id_at);
        put_u64(&mut attrs, 8 * e.ids.len() as u64);
        id_at += 8 * e.ids.len() as u64;
    }
    (ids, attrs)
}

pub(super) fn attr_size(events: &[EventDesc]) -> u64 {
    events.first().map_or(u64::from(MAX_ATTR_SIZE), |e| {
        u64::from(e.attr.size.min(MAX_ATTR_SIZE))
    })
}

impl Writer {
    /// Starts `path` (written under a temporary name until [`finish`](Writer::finish)) for
    /// `events`, which must all have the same `attr.size` and, when there are several, sample
    /// `PERF_SAMPLE_IDENTIFIER`.
    ///
    /// A file with one event and no samples, read back:
    ///
    /// ```
    /// use perfbench::profile::perfdata::{EventDesc, Features, PerfData, Writer, MAX_ATTR_SIZE};
    /// use perfbench::sys::{new_attr, raw};
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-perfdata-create-{}", std::process::id()));
    /// let mut attr = new_attr();
    /// attr.size = MAX_ATTR_SIZE; // what perf 6.1 still reads
    /// attr.type_ = raw::PERF_TYPE_SOFTWARE;
    /// attr.config = raw::PERF_COUNT_SW_CPU_CLOCK as u64;
    /// attr.sample_type = u64::from(raw::PERF_SAMPLE_IP | raw::PERF_SAMPLE_TID);
    /// let event = EventDesc { attr, ids: vec![42], name: "demo/fib".into() };
    /// let path = dir.join("fib/perf.data"); // parent directories are created
    /// let writer = Writer::create(&path, vec![event.clone()])?;
    /// assert!(!path.exists(), "written under a temporary name until finished");
    /// writer.finish(&Features::default())?;
    /// let data = PerfData::read(&path)?;
    /// assert_eq!(data.event_names, [("demo/fib".to_owned(), vec![42])]);
    /// assert_eq!(data.attrs[0].0.len(), MAX_ATTR_SIZE as usize);
    ///
    /// let none = Writer::create(&path, Vec::new()).unwrap_err();
    /// assert_eq!(none.kind(), std::io::ErrorKind::InvalidInput);
    /// let mut other = event.clone();
    /// other.attr.sample_type = u64::from(raw::PERF_SAMPLE_IP);
    /// // Several events need PERF_SAMPLE_IDENTIFIER to tell their samples apart.
    /// assert!(Writer::create(&path, vec![event, other]).is_err());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create(path: &Path, events: Vec<EventDesc>) -> io::Result<Writer> {
        let invalid = |m: &str| io::Error::new(io::ErrorKind::InvalidInput, m.to_owned());
        if events.is_empty() {
            return Err(invalid("a perf.data file needs at least one event"));
        }
        let size = events[0].attr.size.min(MAX_ATTR_SIZE);
        if events
            .iter()
            .any(|e| e.attr.size.min(MAX_ATTR_SIZE) != size)
        {
            return Err(invalid(
                "every event of a perf.data file must have the same attr size",
            ));
        }
        if events.len() > 1
            && events
                .iter()
                .any(|e| e.attr.sample_type & u64::from(raw::PERF_SAMPLE_IDENTIFIER) == 0)
        {
            return Err(invalid(
                "with several events every attr must sample PERF_SAMPLE_IDENTIFIER",
            ));
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let name = path
            .file_name()
            .ok_or_else(|| invalid("the perf.data path does not name a file"))?;
        let tmp = path.with_file_name(format!(
            ".{}.tmp-{}",
            name.to_string_lossy(),
            std::process::id()
        ));
        let mut out = io::BufWriter::new(std::fs::File::create(&tmp)?);
        let (ids, attrs) = prelude(&events);
        out.write_all(&[0u8; HEADER_SIZE as usize])?;
        out.write_all(&ids)?;
        out.write_all(&attrs)?;
        let data_start = HEADER_SIZE + ids.len() as u64 + attrs.len() as u64;
        Ok(Writer {
            path: path.to_path_buf(),
            tmp,
            out,
            events,
            data_start,
            data_len: 0,
        })
    }

    /// Appends records (whole records, back to back, as [`Ring::drain`](super::ring::Ring::drain)
    /// gives them or as the `*_record` functions make them).
    ///
    /// ```
    /// use perfbench::profile::perfdata::{comm_record, Features, PerfData, Writer};
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-perfdata-records-{}", std::process::id()));
    /// # let mut attr = perfbench::sys::new_attr();
    /// # attr.size = perfbench::profile::perfdata::MAX_ATTR_SIZE;
    /// # attr.sample_type = u64::from(perfbench::sys::raw::PERF_SAMPLE_IP);
    /// # let event = perfbench::profile::perfdata::EventDesc { attr, ids: vec![42], name: "demo/fib".into() };
    /// let path = dir.join("perf.data");
    /// let mut writer = Writer::create(&path, vec![event])?;
    /// let comm = comm_record(7, 7, "bench");
    /// writer.records(&comm)?;
    /// assert_eq!(writer.data_len(), comm.len() as u64);
    /// writer.finish(&Features::default())?;
    /// assert_eq!(PerfData::read(&path)?.data, comm);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn records(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)?;
        self.data_len += bytes.len() as u64;
        Ok(())
    }

    /// Appends a `FINISHED_ROUND` (after each drain: perf may sort and flush what came before).
    ///
    /// ```
    /// use perfbench::profile::perfdata::{Features, PerfData, Writer, RECORD_FINISHED_ROUND};
    /// use perfbench::profile::record::header;
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-perfdata-round-{}", std::process::id()));
    /// # let mut attr = perfbench::sys::new_attr();
    /// # attr.size = perfbench::profile::perfdata::MAX_ATTR_SIZE;
    /// # attr.sample_type = u64::from(perfbench::sys::raw::PERF_SAMPLE_IP);
    /// # let event = perfbench::profile::perfdata::EventDesc { attr, ids: vec![42], name: "demo/fib".into() };
    /// let path = dir.join("perf.data");
    /// let mut writer = Writer::create(&path, vec![event])?;
    /// writer.finished_round()?;
    /// assert_eq!(writer.data_len(), 8); // a bare header
    /// writer.finish(&Features::default())?;
    /// assert_eq!(header(&PerfData::read(&path)?.data)?.kind, RECORD_FINISHED_ROUND);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finished_round(&mut self) -> io::Result<()> {
        let mut r = Vec::with_capacity(8);
        put_header(&mut r, RECORD_FINISHED_ROUND, 0, 8);
        self.records(&r)
    }

    /// Appends COMM for this thread and MMAP2 for every executable mapping of this process:
    /// what `perf report` needs to name the code the samples hit.
    ///
    /// ```
    /// use perfbench::profile::perfdata::{Features, PerfData, Writer};
    /// use perfbench::profile::record::{header, split};
    /// use perfbench::sys::raw;
    /// use std::path::Path;
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-perfdata-process-{}", std::process::id()));
    /// # let mut attr = perfbench::sys::new_attr();
    /// # attr.size = perfbench::profile::perfdata::MAX_ATTR_SIZE;
    /// # attr.sample_type = u64::from(perfbench::sys::raw::PERF_SAMPLE_IP);
    /// # let event = perfbench::profile::perfdata::EventDesc { attr, ids: vec![42], name: "demo/fib".into() };
    /// let path = dir.join("perf.data");
    /// let mut writer = Writer::create(&path, vec![event])?;
    /// let maps = writer.this_process()?;
    /// let me = std::env::current_exe()?;
    /// assert!(maps.iter().any(|m| Path::new(&m.path) == me), "this program's code is mapped");
    /// writer.finish(&Features::default())?;
    /// let data = PerfData::read(&path)?.data;
    /// let kinds: Vec<u32> = split(&data).map(|r| header(r.unwrap()).unwrap().kind).collect();
    /// assert_eq!(kinds[0], raw::PERF_RECORD_COMM);
    /// assert_eq!(kinds[1..], vec![raw::PERF_RECORD_MMAP2; maps.len()]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn this_process(&mut self) -> io::Result<Vec<Mapping>> {
        let pid = std::process::id();
        let tid = sys::gettid() as u32;
        let comm =
            sys::read_text(Path::new("/proc/self/comm")).unwrap_or_else(|| "perfbench".into());
        self.records(&comm_record(pid, tid, &comm))?;
        let maps = executable_mappings(&std::fs::read_to_string("/proc/self/maps")?);
        for m in &maps {
            self.records(&mmap2_record(pid, pid, m))?;
        }
        Ok(maps)
    }

    /// Bytes of records written so far.
    ///
    /// See [`Writer::records`] for an example.
    pub fn data_len(&self) -> u64 {
        self.data_len
    }

    /// Writes the features and the header, syncs, and renames the file into place.
    ///
    /// ```
    /// use perfbench::profile::perfdata::{Features, PerfData, Writer};
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-perfdata-finish-{}", std::process::id()));
    /// # let mut attr = perfbench::sys::new_attr();
    /// # attr.size = perfbench::profile::perfdata::MAX_ATTR_SIZE;
    /// # attr.sample_type = u64::from(perfbench::sys::raw::PERF_SAMPLE_IP);
    /// # let event = perfbench::profile::perfdata::EventDesc { attr, ids: vec![42], name: "demo/fib".into() };
    /// let path = dir.join("perf.data");
    /// let features = Features {
    ///     hostname: Some("bench-host".into()),
    ///     nr_cpus: Some((16, 8)),
    ///     sample_time: Some((1_000, 9_000)),
    ///     ..Features::default()
    /// };
    /// assert_eq!(Writer::create(&path, vec![event])?.finish(&features)?, path);
    /// assert_eq!(std::fs::read_dir(&dir)?.count(), 1, "no temporary file left");
    /// let data = PerfData::read(&path)?;
    /// assert_eq!(data.features, features);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finish(mut self, features: &Features) -> io::Result<PathBuf> {
        let sections = feature_payloads(features, &self.events);
        let table_at = self.data_start + self.data_len;
        let mut at = table_at + 16 * sections.len() as u64;
        let mut table = Vec::new();
        for (_, payload) in &sections {
            put_u64(&mut table, at);
            put_u64(&mut table, payload.len() as u64);
            at += payload.len() as u64;
        }
        self.out.write_all(&table)?;
        for (_, payload) in &sections {
            self.out.write_all(payload)?;
        }
        let mut bits = [0u64; 4];
        for (bit, _) in &sections {
            bits[(*bit / 64) as usize] |= 1 << (bit % 64);
        }
        let (ids, attrs) = prelude(&self.events);
        let mut header = Vec::with_capacity(HEADER_SIZE as usize);
        put_u64(&mut header, MAGIC);
        put_u64(&mut header, HEADER_SIZE);
        put_u64(&mut header, attr_size(&self.events) + 16);
        put_u64(&mut header, HEADER_SIZE + ids.len() as u64);
        put_u64(&mut header, attrs.len() as u64);
        put_u64(&mut header, self.data_start);
        put_u64(&mut header, self.data_len);
        put_u64(&mut header, 0);
        put_u64(&mut header, 0);
        for b in bits {
            put_u64(&mut header, b);
        }
        self.out.flush()?;
        let file = self.out.get_mut();
        use std::io::Seek;
        file.seek(io::SeekFrom::Start(0))?;
        file.write_all(&header)?;
        file.sync_all()?;
        std::fs::rename(&self.tmp, &self.path)?;
        Ok(self.path.clone())
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        // Unfinished: the temporary file goes (after `finish` it has been renamed away).
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// The features' payloads, by bit, ascending.
pub(super) fn feature_payloads(f: &Features, events: &[EventDesc]) -> Vec<(u32, Vec<u8>)> {
    let mut out: Vec<(u32, Vec<u8>)> = Vec::new();
    if !f.build_ids.is_empty() {
        let mut p = Vec::new();
        for b in &f.build_ids {
            let name_len = (b.path.len() + 1).div_ceil(NAME_ALIGN) * NAME_ALIGN;
            let size = 8 + 4 + 24 + name_len;
            put_header(
                &mut p,
                0,
                raw::PERF_RECORD_MISC_USER as u16 | MISC_BUILD_ID_SIZE,
                size,
            );
            p.extend_from_slice(&(-1i32).to_ne_bytes());
            let mut id = [0u8; 24];
            let n = b.id.len().min(20);
            id[..n].copy_from_slice(&b.id[..n]);
            id[20] = n as u8;
            p.extend_from_slice(&id);
            p.extend_from_slice(b.path.as_bytes());
            p.resize(p.len() + name_len - b.path.len(), 0);
        }
        out.push((feature::BUILD_ID, p));
    }
    let strings = [
        (feature::HOSTNAME, &f.hostname),
        (feature::OSRELEASE, &f.osrelease),
        (feature::VERSION, &f.version),
        (feature::ARCH, &f.arch),
    ];
    for (bit, s) in strings {
        if let Some(s) = s {
            let mut p = Vec::new();
            put_string(&mut p, s);
            out.push((bit, p));
        }
    }
    if let Some((avail, online)) = f.nr_cpus {
        let mut p = Vec::new();
        put_u32(&mut p, avail);
        put_u32(&mut p, online);
        out.push((feature::NRCPUS, p));
    }
    for (bit, s) in [(feature::CPUDESC, &f.cpudesc), (feature::CPUID, &f.cpuid)] {
        if let Some(s) = s {
            let mut p = Vec::new();
            put_string(&mut p, s);
            out.push((bit, p));
        }
    }
    if let Some(kb) = f.total_mem_kb {
        let mut p = Vec::new();
        put_u64(&mut p, kb);
        out.push((feature::TOTAL_MEM, p));
    }
    if let Some(args) = &f.cmdline {
        let mut p = Vec::new();
        put_u32(&mut p, args.len() as u32);
        for a in args {
            put_string(&mut p, a);
        }
        out.push((feature::CMDLINE, p));
    }
    let mut p = Vec::new();
    put_u32(&mut p, events.len() as u32);
    put_u32(&mut p, attr_size(events) as u32);
    for e in events {
        p.extend_from_slice(&attr_bytes(&e.attr));
        put_u32(&mut p, e.ids.len() as u32);
        put_string(&mut p, &e.name);
        for &id in &e.ids {
            put_u64(&mut p, id);
        }
    }
    out.push((feature::EVENT_DESC, p));
    if f.branch_stack {
        out.push((feature::BRANCH_STACK, Vec::new()));
    }
    if let Some((first, last)) = f.sample_time {
        let mut p = Vec::new();
        put_u64(&mut p, first);
        put_u64(&mut p, last);
        out.push((feature::SAMPLE_TIME, p));
    }
    out
}
