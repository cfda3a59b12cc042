//! Fuzzes the report reader, `perfbench_analysis::model::json::from_json`.
//!
//! The contract: it never panics, whatever the input; an error has a message; and a report it
//! accepts writes (`to_json`) a document that reads back and writes the same text again:
//! `to_json(from_json(to_json(r))) == to_json(r)`.
//!
//! Bytes that are not UTF-8 go in with U+FFFD in place of the bad sequences (`from_json` takes
//! text; `perfbench_analysis::model::file::load` refuses such files before parsing, which its unit tests
//! cover), so the fuzzer's byte-level mutations still reach the parser.

#![no_main]

use libfuzzer_sys::fuzz_target;
use perfbench_analysis::model::json::{from_json, to_json};

fuzz_target!(|data: &[u8]| {
    let lossy;
    let text = match std::str::from_utf8(data) {
        Ok(text) => text,
        Err(_) => {
            lossy = String::from_utf8_lossy(data);
            &*lossy
        }
    };
    match from_json(text) {
        Err(e) => assert!(
            !e.to_string().trim().is_empty(),
            "empty error message: {e:?}"
        ),
        Ok(report) => {
            let first = to_json(&report);
            let again = match from_json(&first) {
                Ok(again) => again,
                Err(e) => panic!("accepted, but its to_json does not read back: {e}\n{first}"),
            };
            let second = to_json(&again);
            assert!(
                first == second,
                "to_json is not stable:\n--- first ---\n{first}\n--- second ---\n{second}"
            );
        }
    }
});
