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
//!
//! Its parts: `records` (the records a profile writes: `COMM`, `MMAP2`, build ids, and the
//! mappings they describe), `writer` (the file, written as the ring buffer is drained) and
//! `reader` (the file read back, as tests and `perf report` read it).

use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::sys::{self, raw};

mod reader;
mod records;
mod writer;

pub use reader::*;
pub use records::*;
pub use writer::*;

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

#[cfg(test)]
mod tests;
