//! Fuzzes the perf.data reader of the profile mode, `perfbench::profile::perfdata::PerfData`,
//! and the records of a file it accepts.
//!
//! The contract: no input panics, loops or allocates beyond a bound; an error has a message;
//! a file it accepts has attrs whose ids lie in the file, and its data section's records walk
//! and decode (with the first attr's `sample_type`) to records or errors, never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use perfbench::profile::perfdata::PerfData;
use perfbench::profile::record::{self, ByteOrder, SampleFormat};

fuzz_target!(|data: &[u8]| {
    let file = match PerfData::parse(data) {
        Ok(f) => f,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    let order = if file.swapped {
        ByteOrder::NATIVE.swapped()
    } else {
        ByteOrder::NATIVE
    };
    let sample_type = file
        .attrs
        .first()
        .and_then(|(attr, _)| attr.get(24..32))
        .map(|b| {
            let w = u64::from_ne_bytes(b.try_into().unwrap());
            if file.swapped {
                w.swap_bytes()
            } else {
                w
            }
        })
        .unwrap_or(0);
    let format = SampleFormat {
        sample_type,
        ..SampleFormat::default()
    };
    for r in record::split_in(&file.data, order).flatten() {
        let _ = record::parse_in(&format, r, order);
    }
});
