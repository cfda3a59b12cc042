//! `Group::slow_reads` flags every bracket a read off the hot path disturbed: every other one
//! reads the same count.

use perfbench::counters::Reading;
use perfbench::events::Sysfs;
use perfbench::Source;

use crate::bodies::empty;
use crate::checks::{section, Checks};
use crate::group::{bracket_floor, open_group, parse_all};

/// `Group::slow_reads` flags every disturbed bracket. Now and then the kernel updates a
/// counter's page during a read (at times this test does not choose), the read runs
/// again and its bracket counts the discarded attempt; the harness leaves a reading out of
/// its exactness test on the strength of this counter (see `phase_suite`'s empty
/// `iter_batched`). Many `Group::read_counts` brackets of the empty body on
/// `instructions,cycles` (the suite's group): every bracket during which `slow_reads` did
/// not move must read the same count. Those it flagged are printed (expected to differ).
pub(crate) fn phase_slow_reads(c: &mut Checks, sysfs: &Sysfs) {
    section("slow reads: Group::slow_reads flags every disturbed bracket");
    const BRACKETS: usize = 1_000_000;
    let names = ["instructions".to_owned(), "cycles".to_owned()];
    let Some(events) = parse_all(c, &names, sysfs) else {
        return;
    };
    let Some(mut g) = open_group(c, &events, &names) else {
        return;
    };
    let (mut a, mut b) = (Reading::with_len(2), Reading::with_len(2));
    g.reset().expect("reset");
    g.enable().expect("enable");
    // Unflagged brackets' instruction counts (count -> brackets), and the flagged ones.
    let mut plain: std::collections::BTreeMap<u64, usize> = Default::default();
    let mut flagged: Vec<u64> = Vec::new();
    let mut failed = 0usize;
    for _ in 0..BRACKETS {
        let before = g.slow_reads();
        if !bracket_floor(&mut g, empty, 1, &mut a, &mut b) {
            failed += 1;
            continue;
        }
        let d = b.values[0].wrapping_sub(a.values[0]);
        if g.slow_reads() == before {
            *plain.entry(d).or_default() += 1;
        } else {
            flagged.push(d);
        }
    }
    g.disable().expect("disable");
    let mode = plain.iter().max_by_key(|(_, n)| **n).map(|(d, _)| *d);
    let off: usize = plain
        .iter()
        .filter(|(d, _)| Some(**d) != mode)
        .map(|(_, n)| n)
        .sum();
    println!(
        "{BRACKETS} brackets: {} flagged by slow_reads, reading {:?}{}",
        flagged.len(),
        &flagged[..flagged.len().min(20)],
        if flagged.is_empty() {
            " (no read went off the hot path in this boot: nothing flagged to compare)"
        } else {
            ""
        }
    );
    c.check(
        failed == 0 && g.source() == Source::Mrs && mode.is_some() && off == 0,
        format_args!(
            "every bracket slow_reads did not flag read the same count via {}: {mode:?} \
             instructions ({off} did not; unflagged counts {plain:?}; {failed} reads failed)",
            g.source()
        ),
    );
}
