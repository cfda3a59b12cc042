//! The records perfbench writes into a `perf.data` beside the samples: `COMM`, `MMAP2` for each
//! executable mapping of the process, and the build ids of the mapped files.

use super::*;

/// (nodename, release, machine) of `uname(2)`.
pub(super) fn uname() -> Option<(String, String, String)> {
    let text = |p: &str| sys::read_text(Path::new(p));
    let host = text("/proc/sys/kernel/hostname")?;
    let release = text("/proc/sys/kernel/osrelease")?;
    Some((host, release, std::env::consts::ARCH.to_owned()))
}

/// An `attr` as bytes, `size` bytes of it (at most [`MAX_ATTR_SIZE`], with `size` set to that).
pub(super) fn attr_bytes(attr: &sys::Attr) -> Vec<u8> {
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
pub(super) fn put_string(out: &mut Vec<u8>, s: &str) {
    let len = (s.len() + 1).div_ceil(NAME_ALIGN) * NAME_ALIGN;
    out.extend_from_slice(&(len as u32).to_ne_bytes());
    out.extend_from_slice(s.as_bytes());
    out.resize(out.len() + len - s.len(), 0);
}

pub(super) fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_ne_bytes());
}

pub(super) fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_ne_bytes());
}

pub(super) fn put_header(out: &mut Vec<u8>, kind: u32, misc: u16, size: usize) {
    put_u32(out, kind);
    out.extend_from_slice(&misc.to_ne_bytes());
    out.extend_from_slice(&(size as u16).to_ne_bytes());
}

/// `bytes` NUL-terminated and padded to a multiple of 8.
pub(super) fn put_padded_name(out: &mut Vec<u8>, name: &str) {
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
