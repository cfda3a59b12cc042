//! Fuzzes the Callgrind dump reader of `--simulate`,
//! `perfbench::counters::callgrind::Dump::parse`.
//!
//! The contract: it never panics, whatever the input; an error has a message; and a dump it
//! accepts has one summary value per expected event, each the file's own (`get` of every event
//! answers without panicking).

#![no_main]

use libfuzzer_sys::fuzz_target;
use perfbench::counters::callgrind::{Dump, EVENTS};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match Dump::parse(&text) {
        Err(e) => assert!(!e.to_string().trim().is_empty(), "empty error message"),
        Ok(d) => {
            assert_eq!(d.events.len(), EVENTS.len());
            assert_eq!(d.summary.len(), EVENTS.len());
            for e in EVENTS {
                let _ = d.get(e);
            }
        }
    }
});
