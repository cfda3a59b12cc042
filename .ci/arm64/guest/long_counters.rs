//! 64-bit counters (`config1` bit 0): used with FEAT_PMUv3p5, refused with EOPNOTSUPP without.

use perfbench::sys::raw;

use crate::bodies::{empty, loop16, N};
use crate::checks::{figure, section, Checks};
use crate::raw_group::{hw_attr, ArmBits, RawGroup};
use crate::steady::fast_steady;

/// `config1` bit 0 asks for 64-bit counters: fine with FEAT_PMUv3p5, EOPNOTSUPP without.
pub(crate) fn phase_long_counters(c: &mut Checks, bits: &ArmBits, expect: Option<&str>) {
    section("64-bit counters (config1 bit 0)");
    let attr = hw_attr(raw::PERF_COUNT_HW_INSTRUCTIONS, bits.rdpmc | bits.long);
    match RawGroup::open(&[("instructions/long", attr)], false) {
        Ok(g) => {
            g.start();
            let width = g.fast.pages()[0].pmc_width();
            let base = fast_steady(&g, empty, 1).map(|b| b.deltas[0]);
            let d = fast_steady(&g, loop16, N).map(|b| b.deltas[0]);
            println!("opened; pmc_width {width}, empty {base:?}, k=16 {d:?}");
            c.check(
                expect != Some("eopnotsupp"),
                format_args!("64-bit counters: expected {expect:?}, they opened"),
            );
            figure(
                "long counters",
                format_args!("supported, pmc_width {width}"),
            );
            c.check(
                width == 64,
                format_args!("64-bit counter: pmc_width {width}"),
            );
            c.check(
                matches!((base, d), (Some(b), Some(d)) if d - b == 16 * N),
                "64-bit counter: k=16 exact through the fast path",
            );
            g.stop();
        }
        Err(e) => {
            println!("open with config1 bit 0: {e}");
            figure("long counters", &e);
            c.check(
                expect != Some("supported"),
                format_args!("64-bit counters: expected {expect:?}, refused"),
            );
            c.check(
                e.contains("EOPNOTSUPP"),
                "64-bit counters refused with EOPNOTSUPP (no FEAT_PMUv3p5)",
            );
        }
    }
}
