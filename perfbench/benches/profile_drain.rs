//! Profile mode's own cost: draining sample records out of a ring buffer and writing them to a
//! perf.data file. Issue 12 asks for at least a million samples a second.
//!
//! The ring is a simulated one (anonymous memory laid out as the kernel's; `Ring::produce`
//! plays the kernel), so the figure is the reader's and the writer's alone, at a rate no live
//! event reaches here (cpu-clock tops out near 100 kHz). Each iteration fills a 256-page ring
//! with 120-byte samples (IDENTIFIER, IP, TID, TIME, PERIOD and an 8-deep call chain, what
//! `--profile` records), drains it and writes the records, then a FINISHED_ROUND (a new file
//! is started every 64 fills, so the disk does not fill up). The throughput line is samples
//! per second.
//!
//! Run: `cargo bench -p perfbench --features profile --bench profile_drain`.

use perfbench::profile::perfdata::{EventDesc, Writer};
use perfbench::profile::ring::Ring;
use perfbench::sys::{self, raw};
use perfbench::{perfbench, Bencher, Throughput};

const SAMPLE_BYTES: usize = 120;
const RING_PAGES: usize = 256;

/// One sample record as the kernel lays it out.
fn sample(i: u64) -> Vec<u8> {
    let mut r = Vec::with_capacity(SAMPLE_BYTES);
    r.extend_from_slice(&raw::PERF_RECORD_SAMPLE.to_ne_bytes());
    r.extend_from_slice(&(raw::PERF_RECORD_MISC_USER as u16).to_ne_bytes());
    r.extend_from_slice(&(SAMPLE_BYTES as u16).to_ne_bytes());
    for w in [
        7,
        0x5555_0000 + i,
        0x0000_1000_0000_1000,
        i * 1000,
        100_000,
        8,
    ] {
        r.extend_from_slice(&u64::to_ne_bytes(w));
    }
    for k in 0..8 {
        r.extend_from_slice(&(0x5555_0000u64 + k * 64).to_ne_bytes());
    }
    assert_eq!(r.len(), SAMPLE_BYTES);
    r
}

#[perfbench(sample_size = 20, measurement_time = 5)]
fn drain_and_write(b: &mut Bencher) {
    let mut ring = Ring::simulated(RING_PAGES).unwrap();
    let per_fill = ring.capacity() / SAMPLE_BYTES;
    let records: Vec<u8> = (0..per_fill as u64).flat_map(sample).collect();
    let dir = std::env::temp_dir().join(format!("perfbench-profile-drain-{}", std::process::id()));
    let mut attr = sys::new_attr();
    attr.sample_type = u64::from(
        raw::PERF_SAMPLE_IDENTIFIER
            | raw::PERF_SAMPLE_IP
            | raw::PERF_SAMPLE_TID
            | raw::PERF_SAMPLE_TIME
            | raw::PERF_SAMPLE_PERIOD
            | raw::PERF_SAMPLE_CALLCHAIN,
    );
    let event = EventDesc {
        attr,
        ids: vec![7],
        name: "drain".into(),
    };
    let path = dir.join("perf.data");
    let mut writer = Writer::create(&path, vec![event.clone()]).unwrap();
    let mut buf = Vec::with_capacity(ring.capacity());
    let mut fills = 0u32;
    b.throughput(Throughput::Elements(per_fill as u64));
    b.iter(|| {
        // A fresh file every 64 MiB (the unfinished one is removed): the disk does not fill.
        fills += 1;
        if fills % 64 == 0 {
            writer = Writer::create(&path, vec![event.clone()]).unwrap();
        }
        assert_eq!(ring.produce(&records), records.len());
        buf.clear();
        ring.drain(&mut buf).unwrap();
        writer.records(&buf).unwrap();
        writer.finished_round().unwrap();
    });
    drop(writer);
    let _ = std::fs::remove_dir_all(&dir);
}

perfbench::main!();
