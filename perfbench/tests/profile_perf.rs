//! Profile mode against the real `perf` (Debian's linux-perf; `.ci/run` installs it): live
//! cpu-clock sampling of a hot function on this thread, written to a perf.data file here, then
//! opened by `perf script`, `perf report` and `perf report --header-only`, and read back by
//! perfbench's own reader.
//!
//! Without `perf` on PATH each test prints why and passes, except where `CI` is set (a missing
//! perf then fails it).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use perfbench::profile::perfdata::{self, Features, PerfData, Writer};
use perfbench::profile::{Period, Sampler, SamplingOptions};

fn perf_here() -> bool {
    let ok = Command::new("perf")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "perf is not installed, and CI must install it (.ci/run: apt-get install linux-perf)"
        );
        eprintln!("skipped: perf is not installed here (apt-get install linux-perf)");
    }
    ok
}

/// The function the samples must land in: xorshift steps for `d`, written without calls (no
/// iterator, no `wrapping_*`) so that even an unoptimised build spends its time in this frame.
#[inline(never)]
fn perfbench_profile_hot_loop(d: Duration) -> u64 {
    let start = Instant::now();
    let mut x = black_box(88_172_645_463_325_252u64);
    while start.elapsed() < d {
        let mut i = 0u32;
        while i < 200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            i += 1;
        }
    }
    x
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("perfbench-profile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Samples the hot loop for `d` and writes `path`; returns the samples seen.
fn record(path: &Path, d: Duration) -> u64 {
    let mut sampler = Sampler::open(&SamplingOptions {
        period: Period::Every(100_000),
        ..SamplingOptions::default()
    })
    .expect("cpu-clock sampling opens here");
    let mut w = Writer::create(path, vec![sampler.event_desc("demo/hot_loop")]).unwrap();
    let maps = w.this_process().unwrap();
    let mut buf = Vec::new();
    sampler.enable().unwrap();
    black_box(perfbench_profile_hot_loop(d));
    sampler.disable().unwrap();
    sampler.drain(&mut buf).unwrap();
    w.records(&buf).unwrap();
    w.finished_round().unwrap();
    let features = Features {
        build_ids: perfdata::build_ids(&maps),
        ..Features::of_this_machine()
    };
    w.finish(&features).unwrap();
    sampler.stats().samples
}

fn perf(args: &[&str]) -> String {
    let out = Command::new("perf").args(args).output().expect("run perf");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "perf {args:?} failed:\n{text}");
    text
}

#[test]
fn perf_opens_a_file_written_from_live_sampling_and_names_the_hot_function() {
    if !perf_here() {
        return;
    }
    let dir = scratch("live");
    let path = dir.join("perf.data");
    let samples = record(&path, Duration::from_millis(300));
    // 300 ms at one sample per 100 us of CPU time: about 3,000 (fewer when descheduled).
    assert!(samples > 300, "only {samples} samples");
    let file = path.to_str().unwrap();

    let script = perf(&["script", "-i", file, "-F", "comm,tid,ip,sym", "-G"]);
    let lines = script.lines().filter(|l| !l.trim().is_empty()).count();
    assert!(
        lines as u64 >= samples / 2,
        "{lines} lines for {samples} samples:\n{script}"
    );
    let hot = script
        .lines()
        .filter(|l| l.contains("perfbench_profile_hot_loop"))
        .count();
    assert!(
        hot * 2 > lines,
        "only {hot} of {lines} samples in the hot loop:\n{}",
        &script[..script.len().min(3000)]
    );

    let report = perf(&[
        "report",
        "-i",
        file,
        "--stdio",
        "--no-children",
        "--sort",
        "sym",
    ]);
    let top = report
        .lines()
        .find(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .unwrap_or_default();
    assert!(
        top.contains("perfbench_profile_hot_loop"),
        "the top line of perf report is {top:?}:\n{report}"
    );
    assert!(
        report.contains("demo/hot_loop"),
        "the event's name:\n{report}"
    );

    let header = perf(&["report", "-i", file, "--header-only", "-I"]);
    for want in [
        "# hostname :",
        "# os release :",
        "# perf version : perfbench",
        "# arch :",
        "# nrcpus online :",
        "# cpudesc :",
        "# cpuid :",
        "# total memory :",
        "# cmdline :",
        "# event : name = demo/hot_loop",
    ] {
        assert!(header.contains(want), "{want:?} missing:\n{header}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_reader_reads_back_what_the_writer_wrote() {
    let dir = scratch("roundtrip");
    let path = dir.join("perf.data");
    let samples = record(&path, Duration::from_millis(50));
    let data = PerfData::read(&path).unwrap();
    assert!(!data.swapped);
    assert_eq!(data.attrs.len(), 1);
    assert_eq!(data.attrs[0].0.len(), 128, "attr.size is at most 128");
    assert_eq!(data.event_names.len(), 1);
    assert_eq!(data.event_names[0].0, "demo/hot_loop");
    assert_eq!(data.event_names[0].1, data.attrs[0].1);
    let f = &data.features;
    let here = Features::of_this_machine();
    assert_eq!(f.hostname, here.hostname);
    assert_eq!(f.osrelease, here.osrelease);
    assert_eq!(f.arch, here.arch);
    assert_eq!(f.cpudesc, here.cpudesc);
    assert_eq!(f.cpuid, here.cpuid);
    assert_eq!(f.nr_cpus, here.nr_cpus);
    assert_eq!(f.total_mem_kb, here.total_mem_kb);
    assert_eq!(f.cmdline, here.cmdline);
    assert!(f.version.as_deref().unwrap().starts_with("perfbench "));
    // This test binary has a GNU build id (rustc links with --build-id on Linux).
    let me = std::env::current_exe().unwrap();
    let mine = perfdata::elf_build_id(&me);
    if let Some(id) = mine {
        let entry = f.build_ids.iter().find(|b| Path::new(&b.path) == me);
        assert_eq!(entry.map(|b| &b.id), Some(&id), "{:?}", f.build_ids);
    }
    // The data: COMM, the MMAP2s, the samples, one FINISHED_ROUND.
    let mut kinds = Vec::new();
    let mut at = 0;
    while at + 8 <= data.data.len() {
        let kind = u32::from_ne_bytes(data.data[at..at + 4].try_into().unwrap());
        let size = u16::from_ne_bytes(data.data[at + 6..at + 8].try_into().unwrap()) as usize;
        assert!(size >= 8, "a record of size {size}");
        kinds.push(kind);
        at += size;
    }
    assert_eq!(at, data.data.len());
    assert_eq!(kinds[0], perfbench::sys::raw::PERF_RECORD_COMM);
    assert_eq!(*kinds.last().unwrap(), perfdata::RECORD_FINISHED_ROUND);
    let n = kinds
        .iter()
        .filter(|&&k| k == perfbench::sys::raw::PERF_RECORD_SAMPLE)
        .count();
    assert_eq!(n as u64, samples);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unfinished_file_leaves_nothing_behind() {
    let dir = scratch("unfinished");
    let path = dir.join("perf.data");
    std::fs::write(&path, b"the previous file").unwrap();
    {
        let sampler = Sampler::open(&SamplingOptions::default()).unwrap();
        let mut w = Writer::create(&path, vec![sampler.event_desc("x")]).unwrap();
        w.this_process().unwrap();
        // Dropped without finish: an error path of the caller.
    }
    assert_eq!(std::fs::read(&path).unwrap(), b"the previous file");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(left.len(), 1, "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Walks back-to-back records; returns (kind, size) of each, asserting they tile the buffer.
fn kinds(buf: &[u8]) -> Vec<(u32, usize)> {
    use perfbench::profile::record;
    record::split(buf)
        .map(|r| {
            let r = r.expect("whole records");
            let h = record::header(r).unwrap();
            assert_eq!(h.size as usize % 8, 0, "size {}", h.size);
            (h.kind, r.len())
        })
        .collect()
}

#[test]
fn a_one_page_buffer_wraps_and_a_slow_reader_loses_samples_for_real() {
    use perfbench::sys::raw;
    // Wrap-around: one data page, drained often while samples arrive every 20 us of CPU
    // time; records cross the end of the page many times and every drain is whole records.
    let mut s = Sampler::open(&SamplingOptions {
        period: Period::Every(20_000),
        data_pages: 1,
        ..SamplingOptions::default()
    })
    .unwrap();
    let page = perfbench::sys::page_size();
    let mut all = Vec::new();
    s.enable().unwrap();
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(100) {
        black_box(perfbench_profile_hot_loop(Duration::from_micros(500)));
        s.drain(&mut all).unwrap();
    }
    s.disable().unwrap();
    s.drain(&mut all).unwrap();
    let records = kinds(&all);
    let samples = records
        .iter()
        .filter(|r| r.0 == raw::PERF_RECORD_SAMPLE)
        .count();
    assert!(
        all.len() > 4 * page,
        "{} bytes through a {page}-byte buffer: it wrapped at least 4 times",
        all.len()
    );
    assert_eq!(samples as u64, s.stats().samples);

    // LOST: the same buffer, not drained while 50 ms of samples arrive.
    let mut slow = Sampler::open(&SamplingOptions {
        period: Period::Every(10_000),
        data_pages: 1,
        ..SamplingOptions::default()
    })
    .unwrap();
    // A busy machine gives this thread less CPU time (and the kernel may lower the sample
    // rate): keep trying, 50 ms at a time, for up to two seconds.
    let mut buf = Vec::new();
    for _ in 0..40 {
        buf.clear();
        slow.enable().unwrap();
        black_box(perfbench_profile_hot_loop(Duration::from_millis(50)));
        slow.disable().unwrap();
        slow.drain(&mut buf).unwrap();
        if slow.stats().lost > 0 {
            break;
        }
    }
    let st = slow.stats();
    assert!(st.lost_records >= 1 && st.lost > 0, "{st:?}");
    assert!(
        kinds(&buf).iter().any(|r| r.0 == raw::PERF_RECORD_LOST),
        "a LOST record"
    );
    assert!(buf.len() <= page, "never more than the buffer holds");
}

#[inline(never)]
fn perfbench_branch_source(x: u64) -> u64 {
    black_box(x).wrapping_mul(3)
}

#[inline(never)]
fn perfbench_branch_target(x: u64) -> u64 {
    black_box(x).wrapping_add(7)
}

/// A sample record with IDENTIFIER, IP, TID, TIME, PERIOD and a branch stack of `entries`.
fn branch_sample(
    id: u64,
    ip: u64,
    time: u64,
    entries: &[perfbench::profile::branch::BranchEntry],
) -> Vec<u8> {
    use perfbench::profile::record::ByteOrder;
    use perfbench::sys::raw;
    let size = 8 + 8 * 5 + 8 + 24 * entries.len();
    let mut r = Vec::with_capacity(size);
    r.extend_from_slice(&raw::PERF_RECORD_SAMPLE.to_ne_bytes());
    r.extend_from_slice(&(raw::PERF_RECORD_MISC_USER as u16).to_ne_bytes());
    r.extend_from_slice(&(size as u16).to_ne_bytes());
    let pid = std::process::id();
    let tid = perfbench::sys::gettid() as u32;
    r.extend_from_slice(&id.to_ne_bytes());
    r.extend_from_slice(&ip.to_ne_bytes());
    r.extend_from_slice(&pid.to_ne_bytes());
    r.extend_from_slice(&tid.to_ne_bytes());
    r.extend_from_slice(&time.to_ne_bytes());
    r.extend_from_slice(&1000u64.to_ne_bytes());
    r.extend_from_slice(&(entries.len() as u64).to_ne_bytes());
    for e in entries {
        r.extend_from_slice(&e.from.to_ne_bytes());
        r.extend_from_slice(&e.to.to_ne_bytes());
        r.extend_from_slice(&e.flags(ByteOrder::NATIVE).to_ne_bytes());
    }
    assert_eq!(r.len(), size);
    r
}

#[test]
fn a_branch_stack_file_shows_its_branches_and_flags_in_perf_script() {
    use perfbench::profile::branch::{BranchEntry, BranchFilter};
    use perfbench::sys::{self, raw};
    if !perf_here() {
        return;
    }
    black_box((perfbench_branch_source(1), perfbench_branch_target(2)));
    // Real instruction addresses of this test binary, so perf names them from its symbols.
    let source = perfbench_branch_source as *const () as u64;
    let target = perfbench_branch_target as *const () as u64;
    let filter = BranchFilter::parse("any,u").unwrap();
    let mut attr = sys::new_attr();
    attr.size = perfdata::MAX_ATTR_SIZE;
    attr.type_ = raw::PERF_TYPE_HARDWARE;
    attr.config = u64::from(raw::PERF_COUNT_HW_CPU_CYCLES);
    attr.__bindgen_anon_1.sample_period = 1000;
    attr.sample_type = u64::from(
        raw::PERF_SAMPLE_IDENTIFIER
            | raw::PERF_SAMPLE_IP
            | raw::PERF_SAMPLE_TID
            | raw::PERF_SAMPLE_TIME
            | raw::PERF_SAMPLE_PERIOD
            | raw::PERF_SAMPLE_BRANCH_STACK,
    );
    attr.branch_sample_type = filter.bits();
    attr.set_exclude_kernel(1);
    let dir = scratch("brstack");
    let path = dir.join("perf.data");
    let event = perfdata::EventDesc {
        attr,
        ids: vec![11],
        name: "branches".into(),
    };
    let mut w = Writer::create(&path, vec![event]).unwrap();
    let maps = w.this_process().unwrap();
    let taken = BranchEntry {
        from: source + 4,
        to: target,
        mispredicted: true,
        ..BranchEntry::default()
    };
    let back = BranchEntry {
        from: target + 8,
        to: source + 12,
        predicted: true,
        cycles: 9,
        ..BranchEntry::default()
    };
    for k in 0..5u64 {
        w.records(&branch_sample(11, source + 4, 1000 + k, &[taken, back]))
            .unwrap();
    }
    w.finished_round().unwrap();
    w.finish(&Features {
        branch_stack: true,
        sample_time: Some((1000, 1004)),
        build_ids: perfdata::build_ids(&maps),
        ..Features::of_this_machine()
    })
    .unwrap();
    let file = path.to_str().unwrap();
    let raw_out = perf(&["script", "-i", file, "-F", "brstack"]);
    let want_taken = format!("{:#x}/{:#x}/M/", source + 4, target);
    let want_back = format!("{:#x}/{:#x}/P/", target + 8, source + 12);
    assert_eq!(
        raw_out.matches(&want_taken).count(),
        5,
        "{want_taken}:\n{raw_out}"
    );
    assert_eq!(
        raw_out.matches(&want_back).count(),
        5,
        "{want_back}:\n{raw_out}"
    );
    let sym = perf(&["script", "-i", file, "-F", "brstacksym"]);
    let taken_sym =
        "profile_perf::perfbench_branch_source+0x4/profile_perf::perfbench_branch_target+0x0/M/";
    let back_sym =
        "profile_perf::perfbench_branch_target+0x8/profile_perf::perfbench_branch_source+0xc/P/";
    assert_eq!(sym.matches(taken_sym).count(), 5, "{sym}");
    assert_eq!(sym.matches(back_sym).count(), 5, "{sym}");
    let header = perf(&["report", "-i", file, "--header-only", "-I"]);
    assert!(
        !header.contains("missing features: TRACING_DATA BRANCH_STACK"),
        "{header}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
