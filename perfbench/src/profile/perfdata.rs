//! perf.data files (the "file mode" format `perf record -o` writes), written ([`Writer`]) and read
//! ([`PerfData::read`], either byte order). The layout, in native byte order (which the magic
//! encodes): a 104-byte header ("PERFILE2", the attrs and data sections, the feature bitmap); each
//! event's sample ids; per event a `perf_event_attr` of at most 128 bytes (perf 6.1 refuses 136)
//! and its ids section; the data: synthesized COMM and MMAP2 records (from /proc/self/maps), then
//! what the ring buffer gave, FINISHED_ROUND after each drain; the feature index and payloads
//! ([`Features`]: HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CPUDESC, CPUID, TOTAL_MEM, CMDLINE,
//! EVENT_DESC, SAMPLE_TIME, BUILD_ID from the mapped binaries' `.note.gnu.build-id`, never made
//! up, and BRANCH_STACK when branches were sampled). The file is written to a temporary name
//! beside the target, synced and renamed into place: a crash leaves the previous file alone.

use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::sys::{self, raw};

/// `"PERFILE2"` as the u64 perf compares (its byte order tells the file's).
pub const MAGIC: u64 = 0x3245_4c49_4652_4550;
/// The size of the file header.
pub const HEADER_SIZE: u64 = 104;
/// The largest `attr.size` written: perf 6.1 refuses files with 136.
pub const MAX_ATTR_SIZE: u32 = raw::PERF_ATTR_SIZE_VER7;
/// perf's string alignment (`NAME_ALIGN`).
const NAME_ALIGN: usize = 64;
/// `PERF_RECORD_FINISHED_ROUND` (a user-space record type of perf's).
pub const RECORD_FINISHED_ROUND: u32 = 68;
/// `PERF_RECORD_MISC_BUILD_ID_SIZE`: byte 20 of a build-id entry holds the id's length.
const MISC_BUILD_ID_SIZE: u16 = 1 << 15;

/// Feature bits (`HEADER_*` of perf's `util/header.h`).
pub mod feature {
    /// Build ids of the mapped binaries.
    pub const BUILD_ID: u32 = 2;
    /// `uname -n`.
    pub const HOSTNAME: u32 = 3;
    /// `uname -r`.
    pub const OSRELEASE: u32 = 4;
    /// The writer's version.
    pub const VERSION: u32 = 5;
    /// `uname -m`.
    pub const ARCH: u32 = 6;
    /// CPUs available and online.
    pub const NRCPUS: u32 = 7;
    /// The CPU's model name.
    pub const CPUDESC: u32 = 8;
    /// The CPU's identification (`vendor,family,model,stepping` on x86, MIDR on arm64).
    pub const CPUID: u32 = 9;
    /// Memory in kB.
    pub const TOTAL_MEM: u32 = 10;
    /// The command line.
    pub const CMDLINE: u32 = 11;
    /// Each event's attr, name and ids.
    pub const EVENT_DESC: u32 = 12;
    /// Branch stacks were sampled (switches `perf report` to branch mode).
    pub const BRANCH_STACK: u32 = 15;
    /// The first and last sample's time.
    pub const SAMPLE_TIME: u32 = 21;
}

/// One event of the file: its attr, the sample ids the kernel gave it, and a name.
#[derive(Clone, Debug)]
pub struct EventDesc {
    /// Its attr (written with `size` at most [`MAX_ATTR_SIZE`]).
    pub attr: sys::Attr,
    /// Its ids (`PERF_EVENT_IOC_ID` of each fd).
    pub ids: Vec<u64>,
    /// Its name (perf shows it as the event's name).
    pub name: String,
}

/// A build id of a mapped binary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildId {
    /// The binary's path.
    pub path: String,
    /// The id's bytes (usually 20: SHA-1), at most 20.
    pub id: Vec<u8>,
}

/// The header features of a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// `uname -n`.
    pub hostname: Option<String>,
    /// `uname -r`.
    pub osrelease: Option<String>,
    /// The writer (`perfbench 0.1.0`).
    pub version: Option<String>,
    /// `uname -m`.
    pub arch: Option<String>,
    /// (available, online) CPUs.
    pub nr_cpus: Option<(u32, u32)>,
    /// The CPU's model name.
    pub cpudesc: Option<String>,
    /// The CPU's identification.
    pub cpuid: Option<String>,
    /// Memory in kB.
    pub total_mem_kb: Option<u64>,
    /// The command line.
    pub cmdline: Option<Vec<String>>,
    /// The first and last sample's time (`PERF_SAMPLE_TIME` clock, ns).
    pub sample_time: Option<(u64, u64)>,
    /// Build ids of the mapped binaries that have one.
    pub build_ids: Vec<BuildId>,
    /// Whether branch stacks were sampled.
    pub branch_stack: bool,
}

impl Features {
    /// What this machine and process say about themselves (everything but `sample_time`,
    /// `build_ids` and `branch_stack`).
    ///
    /// ```
    /// use perfbench::profile::perfdata::Features;
    ///
    /// let here = Features::of_this_machine();
    /// assert_eq!(here.version, Some(format!("perfbench {}", env!("CARGO_PKG_VERSION"))));
    /// assert_eq!(here.arch.as_deref(), Some(std::env::consts::ARCH));
    /// let (available, online) = here.nr_cpus.unwrap();
    /// assert!(online >= 1 && available >= online);
    /// assert_eq!(here.cmdline, Some(std::env::args().collect()));
    /// // What only a recording knows is left for it to fill in.
    /// assert_eq!((here.sample_time, here.build_ids.len(), here.branch_stack), (None, 0, false));
    /// ```
    pub fn of_this_machine() -> Features {
        let uname = uname();
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let field = |name: &str| {
            cpuinfo.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == name).then(|| v.trim().to_owned())
            })
        };
        let cpuid = match (
            field("vendor_id"),
            field("cpu family"),
            field("model"),
            field("stepping"),
        ) {
            (Some(v), Some(f), Some(m), Some(s)) => Some(format!("{v},{f},{m},{s}")),
            _ => sys::read_text(Path::new(
                "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
            )),
        };
        let online = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        let possible = sys::read_text(Path::new("/sys/devices/system/cpu/present"))
            .and_then(|t| {
                t.split(',')
                    .map(|r| {
                        r.rsplit('-')
                            .next()
                            .and_then(|n| n.trim().parse::<u32>().ok())
                    })
                    .max()
                    .flatten()
                    .map(|n| n + 1)
            })
            .unwrap_or(online);
        let mem = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        });
        Features {
            hostname: uname.as_ref().map(|u| u.0.clone()),
            osrelease: uname.as_ref().map(|u| u.1.clone()),
            version: Some(format!("perfbench {}", env!("CARGO_PKG_VERSION"))),
            arch: uname.map(|u| u.2),
            nr_cpus: Some((possible.max(online), online)),
            cpudesc: field("model name").or_else(|| field("Hardware")),
            cpuid,
            total_mem_kb: mem,
            cmdline: Some(std::env::args().collect()),
            sample_time: None,
            build_ids: Vec::new(),
            branch_stack: false,
        }
    }
}

/// (nodename, release, machine) of `uname(2)`.
fn uname() -> Option<(String, String, String)> {
    let text = |p: &str| sys::read_text(Path::new(p));
    let host = text("/proc/sys/kernel/hostname")?;
    let release = text("/proc/sys/kernel/osrelease")?;
    Some((host, release, std::env::consts::ARCH.to_owned()))
}

/// An `attr` as bytes, `size` bytes of it (at most [`MAX_ATTR_SIZE`], with `size` set to that).
fn attr_bytes(attr: &sys::Attr) -> Vec<u8> {
    let mut a = *attr;
    a.size = a.size.min(MAX_ATTR_SIZE);
    let n = a.size as usize;
    // SAFETY: `Attr` is a `repr(C)` plain-old-data struct that perfbench always builds from
    // `Attr::default()` (zeroed, so no uninitialised padding); viewing its first `n <=
    // size_of::<Attr>()` bytes is sound.
    let bytes = unsafe {
        std::slice::from_raw_parts(
            (&a as *const sys::Attr).cast::<u8>(),
            size_of::<sys::Attr>(),
        )
    };
    bytes[..n].to_vec()
}

/// perf's string: `u32` length, then the bytes NUL-terminated and padded to 64.
fn put_string(out: &mut Vec<u8>, s: &str) {
    let len = (s.len() + 1).div_ceil(NAME_ALIGN) * NAME_ALIGN;
    out.extend_from_slice(&(len as u32).to_ne_bytes());
    out.extend_from_slice(s.as_bytes());
    out.resize(out.len() + len - s.len(), 0);
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_ne_bytes());
}

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_ne_bytes());
}

fn put_header(out: &mut Vec<u8>, kind: u32, misc: u16, size: usize) {
    put_u32(out, kind);
    out.extend_from_slice(&misc.to_ne_bytes());
    out.extend_from_slice(&(size as u16).to_ne_bytes());
}

/// `bytes` NUL-terminated and padded to a multiple of 8.
fn put_padded_name(out: &mut Vec<u8>, name: &str) {
    let len = (name.len() + 1).div_ceil(8) * 8;
    out.extend_from_slice(name.as_bytes());
    out.resize(out.len() + len - name.len(), 0);
}

/// A `PERF_RECORD_COMM` record (no sample id: the attrs written here have `sample_id_all`
/// off).
///
/// ```
/// use perfbench::profile::perfdata::comm_record;
/// use perfbench::profile::record::{parse, Record, SampleFormat};
///
/// let bytes = comm_record(42, 43, "a-rather-long-thread-name");
/// assert_eq!(bytes.len() % 8, 0);
/// let Record::Comm(c) = parse(&SampleFormat::default(), &bytes)? else { panic!("a COMM") };
/// assert_eq!((c.pid, c.tid, c.sample_id), (42, 43, None));
/// assert_eq!(c.comm, b"a-rather-long-t"); // the kernel's 15 characters at most
/// # Ok::<(), perfbench::profile::record::RecordError>(())
/// ```
pub fn comm_record(pid: u32, tid: u32, name: &str) -> Vec<u8> {
    let name: String = name.chars().take(15).collect();
    let size = 8 + 8 + (name.len() + 1).div_ceil(8) * 8;
    let mut out = Vec::with_capacity(size);
    put_header(&mut out, raw::PERF_RECORD_COMM, 0, size);
    put_u32(&mut out, pid);
    put_u32(&mut out, tid);
    put_padded_name(&mut out, &name);
    out
}

/// An executable mapping of the process, as `/proc/PID/maps` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// Start address.
    pub start: u64,
    /// Length in bytes.
    pub len: u64,
    /// Offset in the file.
    pub pgoff: u64,
    /// Device major and minor.
    pub dev: (u32, u32),
    /// Inode.
    pub inode: u64,
    /// `PROT_*` bits.
    pub prot: u32,
    /// The file's path, or a pseudo name (`[vdso]`).
    pub path: String,
}

/// The executable mappings with a name in a `/proc/PID/maps` text.
///
/// ```
/// use perfbench::profile::perfdata::{executable_mappings, Mapping};
///
/// let maps = "\
/// 55d0c0000000-55d0c0001000 r--p 00000000 fd:01 1234 /usr/bin/bench
/// 55d0c0001000-55d0c0009000 r-xp 00001000 fd:01 1234 /usr/bin/bench
/// 55d0c0009000-55d0c000a000 rw-p 00009000 fd:01 1234 /usr/bin/bench
/// 7ffd5e1f0000-7ffd5e1f2000 r-xp 00000000 00:00 0    [vdso]
/// 7f0000000000-7f0000001000 r-xp 00000000 00:00 0
/// ";
/// let exec = executable_mappings(maps);
/// assert_eq!(exec.len(), 2); // executable and named: the text segment and the vDSO
/// assert_eq!(
///     exec[0],
///     Mapping {
///         start: 0x55d0_c000_1000,
///         len: 0x8000,
///         pgoff: 0x1000,
///         dev: (0xfd, 0x01),
///         inode: 1234,
///         prot: (libc::PROT_READ | libc::PROT_EXEC) as u32,
///         path: "/usr/bin/bench".into(),
///     }
/// );
/// assert_eq!(exec[1].path, "[vdso]");
/// ```
pub fn executable_mappings(maps: &str) -> Vec<Mapping> {
    maps.lines()
        .filter_map(|line| {
            let mut f = line.split_ascii_whitespace();
            let range = f.next()?;
            let perms = f.next()?;
            let offset = f.next()?;
            let dev = f.next()?;
            let inode = f.next()?;
            let path = f.collect::<Vec<_>>().join(" ");
            if !perms.contains('x') || path.is_empty() {
                return None;
            }
            let (s, e) = range.split_once('-')?;
            let (start, end) = (
                u64::from_str_radix(s, 16).ok()?,
                u64::from_str_radix(e, 16).ok()?,
            );
            let (maj, min) = dev.split_once(':')?;
            let mut prot = 0;
            for (c, bit) in [
                ('r', libc::PROT_READ),
                ('w', libc::PROT_WRITE),
                ('x', libc::PROT_EXEC),
            ] {
                if perms.contains(c) {
                    prot |= bit as u32;
                }
            }
            Some(Mapping {
                start,
                len: end.checked_sub(start)?,
                pgoff: u64::from_str_radix(offset, 16).ok()?,
                dev: (
                    u32::from_str_radix(maj, 16).ok()?,
                    u32::from_str_radix(min, 16).ok()?,
                ),
                inode: inode.parse().ok()?,
                prot,
                path,
            })
        })
        .collect()
}

/// A `PERF_RECORD_MMAP2` record of `m` (timestamp-less, user space, `MAP_PRIVATE`).
///
/// ```
/// use perfbench::profile::perfdata::{executable_mappings, mmap2_record};
/// use perfbench::profile::record::{parse, FileId, Record, SampleFormat};
///
/// let maps = executable_mappings("55d0c0001000-55d0c0009000 r-xp 00001000 fd:01 1234 /bin/x");
/// let bytes = mmap2_record(42, 42, &maps[0]);
/// let Record::Mmap2(m) = parse(&SampleFormat::default(), &bytes)? else { panic!("an MMAP2") };
/// assert_eq!((m.pid, m.addr, m.len, m.pgoff), (42, 0x55d0_c000_1000, 0x8000, 0x1000));
/// assert_eq!(m.file, FileId::Inode { maj: 0xfd, min: 1, ino: 1234, ino_generation: 0 });
/// assert_eq!((m.prot, m.flags), (maps[0].prot, libc::MAP_PRIVATE as u32));
/// assert_eq!(m.filename, b"/bin/x");
/// # Ok::<(), perfbench::profile::record::RecordError>(())
/// ```
pub fn mmap2_record(pid: u32, tid: u32, m: &Mapping) -> Vec<u8> {
    let size = 8 + 8 + 8 * 3 + 4 * 2 + 8 * 2 + 4 * 2 + (m.path.len() + 1).div_ceil(8) * 8;
    let mut out = Vec::with_capacity(size);
    put_header(
        &mut out,
        raw::PERF_RECORD_MMAP2,
        raw::PERF_RECORD_MISC_USER as u16,
        size,
    );
    put_u32(&mut out, pid);
    put_u32(&mut out, tid);
    put_u64(&mut out, m.start);
    put_u64(&mut out, m.len);
    put_u64(&mut out, m.pgoff);
    put_u32(&mut out, m.dev.0);
    put_u32(&mut out, m.dev.1);
    put_u64(&mut out, m.inode);
    put_u64(&mut out, 0); // ino_generation
    put_u32(&mut out, m.prot);
    put_u32(&mut out, libc::MAP_PRIVATE as u32);
    put_padded_name(&mut out, &m.path);
    out
}

/// The GNU build id of an ELF file (its `NT_GNU_BUILD_ID` note, read with the `object`
/// crate). `None` when the file cannot be read, is not ELF, or has none: a build id is never
/// made up.
///
/// ```
/// use perfbench::profile::perfdata::elf_build_id;
/// use std::path::Path;
///
/// // This program has one when its linker was asked for it (the default of most distributions'
/// // compilers); then it is at most 20 bytes (a SHA-1).
/// if let Some(id) = elf_build_id(&std::env::current_exe()?) {
///     assert!(!id.is_empty() && id.len() <= 20);
/// }
/// assert_eq!(elf_build_id(Path::new("/nonexistent/bench")), None);
/// assert_eq!(elf_build_id(Path::new("/proc/self/status")), None); // not ELF
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn elf_build_id(path: &Path) -> Option<Vec<u8>> {
    use object::Object;
    let data = std::fs::read(path).ok()?;
    let file = object::File::parse(&*data).ok()?;
    let id = file.build_id().ok()??;
    (!id.is_empty() && id.len() <= 20).then(|| id.to_vec())
}

/// The build ids of the mapped files that have one (each path once).
///
/// ```
/// use perfbench::profile::perfdata::{build_ids, elf_build_id, executable_mappings};
/// use std::path::Path;
///
/// let maps = executable_mappings(&std::fs::read_to_string("/proc/self/maps")?);
/// let ids = build_ids(&maps);
/// for (i, b) in ids.iter().enumerate() {
///     assert!(b.path.starts_with('/'), "{}", b.path); // files only: no [vdso]
///     assert_eq!(Some(&b.id), elf_build_id(Path::new(&b.path)).as_ref());
///     assert!(ids[..i].iter().all(|other| other.path != b.path), "each path once");
/// }
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn build_ids(maps: &[Mapping]) -> Vec<BuildId> {
    let mut out: Vec<BuildId> = Vec::new();
    for m in maps {
        if !m.path.starts_with('/') || out.iter().any(|b| b.path == m.path) {
            continue;
        }
        if let Some(id) = elf_build_id(Path::new(&m.path)) {
            out.push(BuildId {
                path: m.path.clone(),
                id,
            });
        }
    }
    out
}

/// Writes a perf.data file: [`Writer::create`], records, then [`Writer::finish`].
#[derive(Debug)]
pub struct Writer {
    path: PathBuf,
    tmp: PathBuf,
    out: io::BufWriter<std::fs::File>,
    events: Vec<EventDesc>,
    data_start: u64,
    data_len: u64,
}

/// The layout before the data: the ids, then the attrs.
fn prelude(events: &[EventDesc]) -> (Vec<u8>, Vec<u8>) {
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

fn attr_size(events: &[EventDesc]) -> u64 {
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
fn feature_payloads(f: &Features, events: &[EventDesc]) -> Vec<(u32, Vec<u8>)> {
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

/// Why a perf.data file could not be read. Every message says where in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError(pub String);

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReadError {}

/// A perf.data file read into memory.
#[derive(Debug, Clone)]
pub struct PerfData {
    /// Whether the file is in the other byte order than this machine's.
    pub swapped: bool,
    /// Each attr's bytes (`attr_size - 16` of them, in the file's byte order) and ids.
    pub attrs: Vec<(Vec<u8>, Vec<u64>)>,
    /// The data section's records (in the file's byte order).
    pub data: Vec<u8>,
    /// The feature bits set, ascending.
    pub feature_bits: Vec<u32>,
    /// The features this reader knows, decoded.
    pub features: Features,
    /// The event names of `EVENT_DESC`, with their ids.
    pub event_names: Vec<(String, Vec<u64>)>,
}

/// A bounds-checked reader in the file's byte order.
struct Cursor<'a> {
    data: &'a [u8],
    swapped: bool,
}

impl Cursor<'_> {
    fn bytes(&self, at: u64, len: u64, what: &str) -> Result<&[u8], ReadError> {
        let end = at.checked_add(len);
        match end {
            Some(end) if end <= self.data.len() as u64 => Ok(&self.data[at as usize..end as usize]),
            _ => Err(ReadError(format!(
                "{what} at byte {at} ({len} bytes) runs past the end of the file ({} bytes)",
                self.data.len()
            ))),
        }
    }

    fn u64(&self, at: u64, what: &str) -> Result<u64, ReadError> {
        let b: [u8; 8] = self.bytes(at, 8, what)?.try_into().expect("8 bytes");
        let v = u64::from_ne_bytes(b);
        Ok(if self.swapped { v.swap_bytes() } else { v })
    }

    fn u32(&self, at: u64, what: &str) -> Result<u32, ReadError> {
        let b: [u8; 4] = self.bytes(at, 4, what)?.try_into().expect("4 bytes");
        let v = u32::from_ne_bytes(b);
        Ok(if self.swapped { v.swap_bytes() } else { v })
    }

    /// perf's string at `at`: (the text, the bytes it takes).
    fn string(&self, at: u64, what: &str) -> Result<(String, u64), ReadError> {
        let len = u64::from(self.u32(at, what)?);
        let raw = self.bytes(at + 4, len, what)?;
        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
        Ok((String::from_utf8_lossy(&raw[..end]).into_owned(), 4 + len))
    }
}

impl PerfData {
    /// Reads a whole perf.data file.
    ///
    /// ```
    /// use perfbench::profile::perfdata::{Features, PerfData, Writer};
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-perfdata-read-{}", std::process::id()));
    /// # let mut attr = perfbench::sys::new_attr();
    /// # attr.size = perfbench::profile::perfdata::MAX_ATTR_SIZE;
    /// # attr.sample_type = u64::from(perfbench::sys::raw::PERF_SAMPLE_IP);
    /// # let event = perfbench::profile::perfdata::EventDesc { attr, ids: vec![42], name: "demo/fib".into() };
    /// let path = dir.join("perf.data");
    /// Writer::create(&path, vec![event])?.finish(&Features::default())?;
    /// let data = PerfData::read(&path)?;
    /// assert!(!data.swapped);
    /// assert_eq!(data.attrs.len(), 1);
    /// assert!(data.data.is_empty());
    ///
    /// let missing = PerfData::read(&dir.join("missing.data")).unwrap_err();
    /// assert!(missing.to_string().contains("missing.data: cannot read"), "{missing}");
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read(path: &Path) -> Result<PerfData, ReadError> {
        let data = std::fs::read(path)
            .map_err(|e| ReadError(format!("{}: cannot read: {e}", path.display())))?;
        PerfData::parse(&data).map_err(|e| ReadError(format!("{}: {e}", path.display())))
    }

    /// Reads a perf.data file from its bytes.
    ///
    /// ```
    /// use perfbench::profile::perfdata::{feature, Features, PerfData, Writer};
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-perfdata-parse-{}", std::process::id()));
    /// # let mut attr = perfbench::sys::new_attr();
    /// # attr.size = perfbench::profile::perfdata::MAX_ATTR_SIZE;
    /// # attr.sample_type = u64::from(perfbench::sys::raw::PERF_SAMPLE_IP);
    /// # let event = perfbench::profile::perfdata::EventDesc { attr, ids: vec![42], name: "demo/fib".into() };
    /// let path = dir.join("perf.data");
    /// Writer::create(&path, vec![event])?.finish(&Features::default())?;
    /// let bytes = std::fs::read(&path)?;
    /// let data = PerfData::parse(&bytes)?;
    /// assert_eq!(data.feature_bits, [feature::EVENT_DESC]); // always written
    ///
    /// let e = PerfData::parse(b"#!/bin/sh\n").unwrap_err();
    /// assert!(e.to_string().starts_with("not a perf.data file"), "{e}");
    /// let e = PerfData::parse(&bytes[..bytes.len() - 1]).unwrap_err();
    /// assert!(e.to_string().contains("runs past the end of the file"), "{e}");
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(bytes: &[u8]) -> Result<PerfData, ReadError> {
        let magic = bytes
            .get(..8)
            .map(|b| u64::from_ne_bytes(b.try_into().expect("8 bytes")))
            .ok_or_else(|| ReadError("shorter than a perf.data header".into()))?;
        let swapped = if magic == MAGIC {
            false
        } else if magic.swap_bytes() == MAGIC {
            true
        } else {
            return Err(ReadError(
                "not a perf.data file (no PERFILE2 magic at byte 0; pipe-mode files are not \
                 read)"
                    .into(),
            ));
        };
        let c = Cursor {
            data: bytes,
            swapped,
        };
        let header_size = c.u64(8, "the header size")?;
        if header_size < HEADER_SIZE {
            return Err(ReadError(format!(
                "header size {header_size} is smaller than {HEADER_SIZE}"
            )));
        }
        let attr_size = c.u64(16, "attr_size")?;
        if !(16 + u64::from(raw::PERF_ATTR_SIZE_VER0)..=4096).contains(&attr_size) {
            return Err(ReadError(format!("attr_size {attr_size} is implausible")));
        }
        let (attrs_at, attrs_len) = (c.u64(24, "attrs")?, c.u64(32, "attrs")?);
        let (data_at, data_len) = (c.u64(40, "data")?, c.u64(48, "data")?);
        let mut bits = Vec::new();
        for w in 0..4u64 {
            let word = c.u64(72 + 8 * w, "the feature bitmap")?;
            for b in 0..64 {
                if word >> b & 1 == 1 {
                    bits.push((w * 64 + b) as u32);
                }
            }
        }
        c.bytes(attrs_at, attrs_len, "the attrs section")?;
        let mut attrs = Vec::new();
        for i in 0..attrs_len / attr_size {
            let at = attrs_at + i * attr_size;
            let attr = c.bytes(at, attr_size - 16, "an attr")?.to_vec();
            let ids_at = c.u64(at + attr_size - 16, "an attr's ids section")?;
            let ids_len = c.u64(at + attr_size - 8, "an attr's ids section")?;
            c.bytes(ids_at, ids_len, "an attr's ids")?;
            let ids = (0..ids_len / 8)
                .map(|k| c.u64(ids_at + 8 * k, "an id"))
                .collect::<Result<Vec<_>, _>>()?;
            attrs.push((attr, ids));
        }
        let data = c.bytes(data_at, data_len, "the data section")?.to_vec();
        let table = data_at + data_len;
        let mut features = Features::default();
        let mut event_names = Vec::new();
        for (k, &bit) in bits.iter().enumerate() {
            let entry = table + 16 * k as u64;
            let at = c.u64(entry, "the feature index")?;
            let len = c.u64(entry + 8, "the feature index")?;
            c.bytes(at, len, "a feature")?;
            let what = format!("feature {bit}");
            let string = || c.string(at, &what).map(|s| s.0);
            match bit {
                feature::HOSTNAME => features.hostname = Some(string()?),
                feature::OSRELEASE => features.osrelease = Some(string()?),
                feature::VERSION => features.version = Some(string()?),
                feature::ARCH => features.arch = Some(string()?),
                feature::CPUDESC => features.cpudesc = Some(string()?),
                feature::CPUID => features.cpuid = Some(string()?),
                feature::NRCPUS => {
                    features.nr_cpus = Some((c.u32(at, &what)?, c.u32(at + 4, &what)?));
                }
                feature::TOTAL_MEM => features.total_mem_kb = Some(c.u64(at, &what)?),
                feature::CMDLINE => {
                    let n = c.u32(at, &what)?;
                    let mut p = at + 4;
                    let mut args = Vec::new();
                    for _ in 0..n.min(65_536) {
                        let (s, used) = c.string(p, &what)?;
                        args.push(s);
                        p += used;
                    }
                    features.cmdline = Some(args);
                }
                feature::EVENT_DESC => {
                    let n = c.u32(at, &what)?;
                    let size = u64::from(c.u32(at + 4, &what)?);
                    let mut p = at + 8;
                    for _ in 0..n.min(65_536) {
                        c.bytes(p, size, &what)?;
                        p += size;
                        let nr_ids = u64::from(c.u32(p, &what)?);
                        let (name, used) = c.string(p + 4, &what)?;
                        p += 4 + used;
                        c.bytes(p, 8 * nr_ids, &what)?;
                        let ids = (0..nr_ids)
                            .map(|k| c.u64(p + 8 * k, &what))
                            .collect::<Result<Vec<_>, _>>()?;
                        p += 8 * nr_ids;
                        event_names.push((name, ids));
                    }
                }
                feature::SAMPLE_TIME => {
                    features.sample_time = Some((c.u64(at, &what)?, c.u64(at + 8, &what)?));
                }
                feature::BRANCH_STACK => features.branch_stack = true,
                feature::BUILD_ID => {
                    let mut p = at;
                    while p + 36 <= at + len {
                        let size = u64::from(u16::from_ne_bytes(
                            c.bytes(p + 6, 2, &what)?.try_into().expect("2 bytes"),
                        ));
                        let size = if swapped {
                            size.swap_bytes() >> 48
                        } else {
                            size
                        };
                        if size < 36 || p + size > at + len {
                            return Err(ReadError(format!(
                                "a build id entry of feature {bit} at byte {p} has size {size}"
                            )));
                        }
                        let id = c.bytes(p + 12, 24, &what)?;
                        let n = usize::from(id[20]).min(20);
                        let name = c.bytes(p + 36, size - 36, &what)?;
                        let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
                        features.build_ids.push(BuildId {
                            path: String::from_utf8_lossy(&name[..end]).into_owned(),
                            id: id[..if n == 0 { 20 } else { n }].to_vec(),
                        });
                        p += size;
                    }
                }
                _ => {}
            }
        }
        Ok(PerfData {
            swapped,
            attrs,
            data,
            feature_bits: bits,
            features,
            event_names,
        })
    }
}

#[cfg(test)]
mod tests;
