//! k-instruction loops through the fast path: exactly k per iteration, zero variance, no
//! seqlock retries.

use perfbench::counters::arch;
use perfbench::sys::{cap, raw};

use crate::bodies::{empty, LOOPS, N, SAMPLES};
use crate::checks::{all_equal, figure, section, spread, Checks};
use crate::raw_group::{hw_attr, ArmBits, RawGroup};
use crate::steady::{fast_steady, RETAKEN};

/// k-instruction loops through the fast path: exactly k per iteration, zero variance.
/// Returns the fast bracket's overhead (empty body) for later phases.
pub(crate) fn phase_exact_loops(c: &mut Checks, bits: &ArmBits) -> u64 {
    section("exact instructions per iteration (fast path)");
    let g = match RawGroup::open(
        &[(
            "instructions",
            hw_attr(raw::PERF_COUNT_HW_INSTRUCTIONS, bits.rdpmc),
        )],
        false,
    ) {
        Ok(g) => g,
        Err(e) => {
            c.check(false, e);
            return 0;
        }
    };
    g.start();
    let capability = g.fast.capability();
    c.check(
        capability.is_usable(),
        format_args!("FastReader::capability() with user access: {capability}"),
    );
    let page = &g.fast.pages()[0];
    println!(
        "page: capabilities={:#x} index={} pmc_width={} offset={}",
        page.capabilities(),
        page.index(),
        page.pmc_width(),
        page.offset()
    );
    c.check(
        page.capabilities() & (cap::USER_RDPMC | cap::BIT0_IS_DEPRECATED)
            == cap::USER_RDPMC | cap::BIT0_IS_DEPRECATED,
        "page: cap_bit0_is_deprecated and cap_user_rdpmc set",
    );
    figure("instructions page index", page.index());
    figure("instructions pmc_width", page.pmc_width());
    c.check(
        arch::SOURCE == Some(perfbench::Source::Mrs),
        format_args!("counters::arch::SOURCE is mrs ({:?})", arch::SOURCE),
    );

    let mut retries = 0;
    let mut sample = |body: fn(u64), n: u64| -> Vec<u64> {
        (0..SAMPLES)
            .map(|_| {
                let b = fast_steady(&g, body, n).expect("fast read declined");
                retries += b.retries.0 + b.retries.1;
                b.deltas[0]
            })
            .collect()
    };
    let base = sample(empty, 1);
    c.check(
        all_equal(&base),
        format_args!(
            "empty-body bracket (calibration) constant: {} instructions, spread {}",
            base[0],
            spread(&base)
        ),
    );
    figure("fast bracket overhead", base[0]);
    for &(k, body) in LOOPS {
        let d1 = sample(body, N);
        let d2 = sample(body, 2 * N);
        let calibrated = d1[0].wrapping_sub(base[0]);
        let two_point = d2[0].wrapping_sub(d1[0]);
        c.check(
            all_equal(&d1) && all_equal(&d2),
            format_args!(
                "k={k}: zero variance over {SAMPLES} samples (spread {} / {})",
                spread(&d1),
                spread(&d2)
            ),
        );
        c.check(
            calibrated == k * N && two_point == k * N,
            format_args!(
                "k={k}: (delta(N) - overhead) / N = {} and (delta(2N) - delta(N)) / N = {} (N={N})",
                calibrated as f64 / N as f64,
                two_point as f64 / N as f64
            ),
        );
        figure(
            format_args!("k={k} per_iteration"),
            calibrated as f64 / N as f64,
        );
        figure(format_args!("k={k} delta(N)"), d1[0]);
    }
    c.check(
        retries == 0,
        format_args!(
            "no seqlock retries in the brackets kept ({retries}; {} taken again so far)",
            RETAKEN.load(std::sync::atomic::Ordering::Relaxed)
        ),
    );
    g.stop();
    base[0]
}
