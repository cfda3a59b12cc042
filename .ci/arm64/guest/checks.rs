//! Reporting: each check's `ok`/`FAIL` line and the tally, `FIGURE` lines (identical on every
//! boot: the rig diffs them), section titles, and the two helpers samples are judged by.

use std::fmt::Display;

pub(crate) struct Checks {
    pub(crate) passed: u32,
    pub(crate) failed: u32,
}

impl Checks {
    pub(crate) fn check(&mut self, ok: bool, what: impl Display) -> bool {
        if ok {
            self.passed += 1;
            println!("ok   {what}");
        } else {
            self.failed += 1;
            println!("FAIL {what}");
        }
        ok
    }
}

/// A value that must be identical on every boot (the rig diffs these lines).
pub(crate) fn figure(key: impl Display, value: impl Display) {
    println!("FIGURE {key} = {value}");
}

pub(crate) fn section(title: &str) {
    println!("\n== {title}");
}

pub(crate) fn all_equal(v: &[u64]) -> bool {
    v.windows(2).all(|w| w[0] == w[1])
}

pub(crate) fn spread(v: &[u64]) -> u64 {
    v.iter().max().unwrap_or(&0) - v.iter().min().unwrap_or(&0)
}
