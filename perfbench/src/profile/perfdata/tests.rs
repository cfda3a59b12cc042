//! perf.data files written and read back without sampling: every feature, several events,
//! the other byte order, a file from the real `perf record`, and bad input.

use super::*;

fn event(name: &str, ids: &[u64]) -> EventDesc {
    let mut attr = sys::new_attr();
    attr.type_ = raw::PERF_TYPE_SOFTWARE;
    attr.config = u64::from(raw::PERF_COUNT_SW_CPU_CLOCK);
    attr.sample_type = u64::from(raw::PERF_SAMPLE_IDENTIFIER | raw::PERF_SAMPLE_IP);
    attr.__bindgen_anon_1.sample_period = 100_000;
    EventDesc {
        attr,
        ids: ids.to_vec(),
        name: name.to_owned(),
    }
}

fn features() -> Features {
    Features {
        hostname: Some("host".into()),
        osrelease: Some("6.1.0-test".into()),
        version: Some("perfbench 0.1.0".into()),
        arch: Some("x86_64".into()),
        nr_cpus: Some((4, 2)),
        cpudesc: Some("Test CPU".into()),
        cpuid: Some("GenuineIntel,6,85,7".into()),
        total_mem_kb: Some(1 << 20),
        cmdline: Some(vec!["bench".into(), "--profile".into(), "a b".into()]),
        sample_time: Some((10, 20)),
        build_ids: vec![BuildId {
            path: "/usr/bin/x".into(),
            id: (0..20).collect(),
        }],
        branch_stack: true,
    }
}

fn scratch(test: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("perfbench-perfdata-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn written(test: &str) -> (PathBuf, Vec<u8>) {
    let dir = scratch(test);
    let path = dir.join("perf.data");
    let mut w = Writer::create(&path, vec![event("a/b", &[7, 8]), event("c", &[9])]).unwrap();
    w.records(&comm_record(1, 2, "bench")).unwrap();
    let m = Mapping {
        start: 0x1000,
        len: 0x2000,
        pgoff: 0,
        dev: (8, 1),
        inode: 42,
        prot: 5,
        path: "/usr/bin/x".into(),
    };
    w.records(&mmap2_record(1, 2, &m)).unwrap();
    w.finished_round().unwrap();
    w.finish(&features()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (dir, bytes)
}

#[test]
fn every_feature_and_event_reads_back() {
    let (dir, bytes) = written("roundtrip");
    let d = PerfData::parse(&bytes).unwrap();
    assert!(!d.swapped);
    assert_eq!(d.features, features());
    assert_eq!(
        d.event_names,
        vec![("a/b".to_owned(), vec![7, 8]), ("c".to_owned(), vec![9])]
    );
    assert_eq!(d.attrs.len(), 2);
    assert_eq!(d.attrs[0].1, vec![7, 8]);
    assert_eq!(d.attrs[1].1, vec![9]);
    assert_eq!(d.attrs[0].0.len(), MAX_ATTR_SIZE as usize);
    assert_eq!(
        d.feature_bits,
        vec![2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 21],
        "in ascending bit order"
    );
    // COMM (8 + 8 + 8), MMAP2 (8 + 64 + 16), FINISHED_ROUND (8).
    assert_eq!(d.data.len(), 24 + 88 + 8);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn several_events_need_an_identifier_and_one_attr_size() {
    let dir = scratch("several");
    let mut no_id = event("x", &[1]);
    no_id.attr.sample_type = u64::from(raw::PERF_SAMPLE_IP);
    let e = Writer::create(&dir.join("p"), vec![event("a", &[1]), no_id]).unwrap_err();
    assert!(e.to_string().contains("PERF_SAMPLE_IDENTIFIER"), "{e}");
    let e = Writer::create(&dir.join("p"), vec![]).unwrap_err();
    assert!(e.to_string().contains("at least one event"), "{e}");
    let mut small = event("s", &[2]);
    small.attr.size = raw::PERF_ATTR_SIZE_VER5;
    let e = Writer::create(&dir.join("p"), vec![event("a", &[1]), small]).unwrap_err();
    assert!(e.to_string().contains("same attr size"), "{e}");
    // One event: no identifier needed; an attr larger than 128 is written as 128.
    let mut big = event("big", &[3]);
    big.attr.sample_type = u64::from(raw::PERF_SAMPLE_IP);
    assert!(big.attr.size > MAX_ATTR_SIZE);
    let w = Writer::create(&dir.join("p"), vec![big]).unwrap();
    w.finish(&Features::default()).unwrap();
    let d = PerfData::read(&dir.join("p")).unwrap();
    assert_eq!(d.attrs[0].0.len(), 128);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The file of [`written`] in the other byte order: every field this writer writes, swapped
/// (attrs and records are copied as they are: the reader hands them out raw).
fn swapped(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let u64_at = |b: &[u8], at: usize| u64::from_ne_bytes(b[at..at + 8].try_into().unwrap());
    let u32_at = |b: &[u8], at: usize| u32::from_ne_bytes(b[at..at + 4].try_into().unwrap());
    let swap64 = |o: &mut Vec<u8>, at: usize| {
        let v = u64_at(o, at).swap_bytes();
        o[at..at + 8].copy_from_slice(&v.to_ne_bytes());
    };
    let swap32 = |o: &mut Vec<u8>, at: usize| {
        let v = u32_at(o, at).swap_bytes();
        o[at..at + 4].copy_from_slice(&v.to_ne_bytes());
    };
    let d = PerfData::parse(bytes).unwrap();
    let attr_size = u64_at(bytes, 16) as usize;
    let (attrs_at, attrs_len) = (u64_at(bytes, 24) as usize, u64_at(bytes, 32) as usize);
    let (data_at, data_len) = (u64_at(bytes, 40) as usize, u64_at(bytes, 48) as usize);
    for i in 0..attrs_len / attr_size {
        let at = attrs_at + i * attr_size;
        let (ids_at, ids_len) = (
            u64_at(bytes, at + attr_size - 16) as usize,
            u64_at(bytes, at + attr_size - 8) as usize,
        );
        for k in 0..ids_len / 8 {
            swap64(&mut out, ids_at + 8 * k);
        }
        swap64(&mut out, at + attr_size - 16);
        swap64(&mut out, at + attr_size - 8);
    }
    let table = data_at + data_len;
    let string = |o: &mut Vec<u8>, at: usize| -> usize {
        let len = u32_at(bytes, at) as usize;
        swap32(o, at);
        4 + len
    };
    for (k, &bit) in d.feature_bits.iter().enumerate() {
        let entry = table + 16 * k;
        let (at, len) = (
            u64_at(bytes, entry) as usize,
            u64_at(bytes, entry + 8) as usize,
        );
        swap64(&mut out, entry);
        swap64(&mut out, entry + 8);
        match bit {
            feature::HOSTNAME
            | feature::OSRELEASE
            | feature::VERSION
            | feature::ARCH
            | feature::CPUDESC
            | feature::CPUID => {
                string(&mut out, at);
            }
            feature::NRCPUS => {
                swap32(&mut out, at);
                swap32(&mut out, at + 4);
            }
            feature::TOTAL_MEM => swap64(&mut out, at),
            feature::SAMPLE_TIME => {
                swap64(&mut out, at);
                swap64(&mut out, at + 8);
            }
            feature::CMDLINE => {
                let n = u32_at(bytes, at) as usize;
                swap32(&mut out, at);
                let mut p = at + 4;
                for _ in 0..n {
                    p += string(&mut out, p);
                }
            }
            feature::EVENT_DESC => {
                let n = u32_at(bytes, at) as usize;
                let size = u32_at(bytes, at + 4) as usize;
                swap32(&mut out, at);
                swap32(&mut out, at + 4);
                let mut p = at + 8;
                for _ in 0..n {
                    p += size;
                    let nr = u32_at(bytes, p) as usize;
                    swap32(&mut out, p);
                    p += 4;
                    p += string(&mut out, p);
                    for k in 0..nr {
                        swap64(&mut out, p + 8 * k);
                    }
                    p += 8 * nr;
                }
            }
            feature::BUILD_ID => {
                let mut p = at;
                while p < at + len {
                    let size = u16::from_ne_bytes(bytes[p + 6..p + 8].try_into().unwrap()) as usize;
                    out[p + 6..p + 8].copy_from_slice(&(size as u16).swap_bytes().to_ne_bytes());
                    p += size;
                }
            }
            _ => {}
        }
    }
    for at in (0..9).map(|i| 8 * i) {
        swap64(&mut out, at);
    }
    for w in 0..4 {
        swap64(&mut out, 72 + 8 * w);
    }
    out
}

#[test]
fn a_file_of_the_other_byte_order_reads() {
    let (dir, bytes) = written("swapped");
    let other = swapped(&bytes);
    assert_ne!(other, bytes);
    let d = PerfData::parse(&other).unwrap();
    assert!(d.swapped);
    assert_eq!(d.features, features());
    assert_eq!(
        d.event_names,
        vec![("a/b".to_owned(), vec![7, 8]), ("c".to_owned(), vec![9])]
    );
    assert_eq!(d.attrs[0].1, vec![7, 8]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_files_are_errors_that_say_where() {
    let (dir, bytes) = written("bad");
    let err = |b: &[u8]| PerfData::parse(b).unwrap_err().to_string();
    assert!(err(b"").contains("shorter than a perf.data header"));
    assert!(err(b"PERFILE1xxxxxxxxxxxxxxxx").contains("no PERFILE2 magic"));
    assert!(
        err(&bytes[..60]).contains("runs past the end"),
        "{}",
        err(&bytes[..60])
    );
    let mut huge = bytes.clone();
    huge[16..24].copy_from_slice(&1_000_000u64.to_ne_bytes());
    assert!(err(&huge).contains("attr_size 1000000 is implausible"));
    let mut past = bytes.clone();
    past[48..56].copy_from_slice(&(1u64 << 40).to_ne_bytes());
    assert!(err(&past).contains("the data section"), "{}", err(&past));
    // Every truncation and a thousand single-byte changes: an error or a file, never a panic.
    for n in (0..bytes.len()).step_by(7) {
        let _ = PerfData::parse(&bytes[..n]);
    }
    let mut rng = crate::rng::Rng::new(0x9e37_79b9_7f4a_7c15);
    for _ in 0..1000 {
        let mut m = bytes.clone();
        let at = rng.below(m.len());
        m[at] = rng.next_u64() as u8;
        let _ = PerfData::parse(&m);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_from_perf_record_reads() {
    let dir = scratch("perf-record");
    let path = dir.join("perf.data");
    let Ok(out) = std::process::Command::new("perf")
        .args(["record", "-q", "-e", "cpu-clock", "-c", "100000", "-o"])
        .arg(&path)
        .args([
            "--",
            "sh",
            "-c",
            "i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done",
        ])
        .output()
    else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install linux-perf"
        );
        eprintln!("skipped: perf is not installed here");
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let d = PerfData::read(&path).unwrap();
    let here = Features::of_this_machine();
    assert_eq!(d.features.hostname, here.hostname);
    assert_eq!(d.features.osrelease, here.osrelease);
    assert_eq!(d.features.nr_cpus.map(|n| n.1), here.nr_cpus.map(|n| n.1));
    assert!(d.features.version.is_some());
    assert_eq!(d.event_names[0].0, "cpu-clock");
    assert_eq!(d.event_names[0].1, d.attrs[0].1);
    assert!(d.feature_bits.contains(&feature::BUILD_ID));
    assert!(!d.data.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}
