//! The pass's arithmetic on made-up readings (exactness, probes, batches, overhead) and on
//! real software counters (page faults of fresh pages).

use super::*;
use crate::harness::sampler::meter::tests::{faults, software_groups};
use crate::sys::AnonMapping;

/// A pass of `samples` samples at `n[i]` iterations of a body whose column 0 is exact:
/// `k` per iteration, `c` once per sample, a bracket of `o0 + o1 * n` (the empty body's
/// loop); column 1 has noise. `probes` readings at `probe_iterations(n)` follow (flat
/// plans).
fn pass(n: &[u64], k: f64, c: f64, probes: usize) -> PassState {
    let bracket = |n: u64| 62.0 + 3.0 * n as f64;
    let mut state = PassState::default();
    for i in 0..CALIBRATION_RUNS.saturating_sub(n.len()) {
        let m = n[i % n.len()];
        state
            .calibration
            .push((m, vec![bracket(m), 100.0 + i as f64]));
    }
    for (i, &m) in n.iter().enumerate() {
        state
            .calibration
            .push((m, vec![bracket(m), 90.0 + i as f64]));
        let total = bracket(m) + k * m as f64 + c;
        state
            .totals
            .push((vec![total, 5000.0 * m as f64 + i as f64], 1));
    }
    state.multiplexed = vec![false, false];
    for _ in 0..probes {
        let m = probe_iterations(n[0]);
        let total = bracket(m) + k * m as f64 + c;
        state.probes.push(Probe {
            n: m,
            calibration: (vec![bracket(m), 7.0], false),
            totals: (vec![total, 1.0], false),
            pairs: 1,
        });
    }
    state
}

#[test]
fn an_exact_counter_reads_its_slope_whatever_is_done_once_per_sample() {
    let flat = [1000u64; 10];
    // Without a second iteration count the constant shows: 21 + 3/1000.
    let (values, _, _) = pass(&flat, 21.0, 3.0, 0).finish(&flat, false, 2);
    assert!(values.iter().all(|v| v[0] == 21.003), "{values:?}");
    // With the probes at a second count it cancels: exactly 21 in every sample.
    let state = pass(&flat, 21.0, 3.0, PROBES);
    assert!(state.exact_points(0, false).is_some());
    assert!(
        state.exact_points(1, false).is_none(),
        "a noisy column is not exact"
    );
    let (values, _, _) = state.finish(&flat, false, 2);
    assert!(values.iter().all(|v| v[0] == 21.0), "{values:?}");
    // The noisy column keeps the calibrated per-sample values.
    assert!(values.iter().any(|v| v[1] != values[0][1]));
    // Linear sampling: the samples' own counts suffice.
    let linear: Vec<u64> = (1..=10).map(|i| i * 100).collect();
    let (values, _, _) = pass(&linear, 21.0, 3.0, 0).finish(&linear, false, 2);
    assert!(values.iter().all(|v| v[0] == 21.0), "{values:?}");
    // Fractional slopes are kept as they are.
    let (values, _, _) = pass(&flat, 2.5, 1.0, PROBES).finish(&flat, false, 2);
    assert!(values.iter().all(|v| v[0] == 2.5), "{values:?}");
}

/// A flat pass of a batched body: `batch` inputs per bracket, whose loop costs `l` per
/// iteration and `p` per batch more than the calibration body's; the routine `k`.
fn batched_pass(n: u64, batch: u64, k: f64, l: f64, p: f64) -> PassState {
    let bracket = 62.0;
    let batches = n.div_ceil(batch) as f64;
    let mut state = PassState {
        multiplexed: vec![false],
        ..PassState::default()
    };
    for _ in 0..10 {
        state.calibration.push((n, vec![bracket * batches]));
        let total = bracket * batches + (k + l) * n as f64 + p * batches;
        state.totals.push((vec![total], 1));
    }
    // The flat pass's probes at a quarter, batched too.
    let m = probe_iterations(n);
    let quarter = m.div_ceil(batch) as f64;
    for _ in 0..PROBES {
        state.probes.push(Probe {
            n: m,
            calibration: (vec![bracket * quarter], false),
            totals: (
                vec![bracket * quarter + (k + l) * m as f64 + p * quarter],
                false,
            ),
            pairs: 1,
        });
    }
    state
}

#[test]
fn a_batched_bodys_exact_counter_reads_the_slope_of_one_input_per_bracket() {
    let (n, batch, k) = (1000u64, 64u64, 37.0);
    // The batch's own code, not cancelled by the calibration: a fraction more per
    // iteration even through the slope (as on the arm64 rig: 37.7988...).
    let (values, _, _) = batched_pass(n, batch, k, 0.0, 51.0).finish(&[n; 10], false, 1);
    assert!(values.iter().all(|v| v[0] != k), "{values:?}");
    // With readings of one input per bracket (no loop inside it), the slope is the routine's.
    let mut state = batched_pass(n, batch, k, 2.0, 51.0);
    for m in SINGLE_PROBE_ITERATIONS {
        for _ in 0..PROBES {
            state.single.push(Probe {
                n: m,
                calibration: (vec![62.0 * m as f64], false),
                // Something once per reading too (a captured value loaded before the loop).
                totals: (vec![62.0 * m as f64 + k * m as f64 + 3.0], false),
                pairs: m,
            });
        }
    }
    let (values, _, _) = state.finish(&[n; 10], false, 1);
    assert!(values.iter().all(|v| v[0] == k), "{values:?}");
    // Single probes that disagree give no slope: the calibrated values stay.
    state = batched_pass(n, batch, k, 0.0, 51.0);
    for (m, extra) in [(4u64, 0.0), (4, 1.0), (8, 0.0)] {
        state.single.push(Probe {
            n: m,
            calibration: (vec![0.0], false),
            totals: (vec![k * m as f64 + extra], false),
            pairs: m,
        });
    }
    let (values, _, _) = state.finish(&[n; 10], false, 1);
    assert!(values.iter().all(|v| v[0] != k), "{values:?}");
}

#[test]
fn the_probes_take_another_count_at_a_quarter_of_the_cost() {
    for n in [1u64, 2, 3, 4, 5, 7, 1000, u64::MAX] {
        let m = probe_iterations(n);
        assert!(m >= 1 && m != n, "n {n}: probes at {m}");
        if n >= 4 {
            assert!(m <= n / 4, "n {n}: probes at {m}");
        }
    }
    // The slope comes out exact from the smallest plans too.
    for n in [1u64, 2, 3, 8] {
        let flat = [n; 10];
        let (values, _, _) = pass(&flat, 21.0, 3.0, PROBES).finish(&flat, false, 2);
        assert!(values.iter().all(|v| v[0] == 21.0), "n {n}: {values:?}");
    }
}

#[test]
fn readings_that_are_not_exact_keep_the_calibrated_values() {
    let flat = [1000u64; 10];
    let calibrated = |state: PassState| state.finish(&flat, false, 2).0[0][0];
    // Probes that disagree.
    let mut state = pass(&flat, 21.0, 3.0, PROBES);
    state.probes[1].totals.0[0] += 1.0;
    assert_eq!(calibrated(state), 21.003);
    // A sample that differs from the others at the same count.
    let mut state = pass(&flat, 21.0, 3.0, PROBES);
    state.totals[4].0[0] += 1.0;
    assert!(state.exact_points(0, false).is_none());
    // A calibration run that differs.
    let mut state = pass(&flat, 21.0, 3.0, PROBES);
    state.calibration[2].1[0] += 1.0;
    assert_eq!(calibrated(state), 21.003);
    // Not a whole number (a multiplexed group's scaled count, say), or multiplexed.
    let mut state = pass(&flat, 21.0, 3.0, PROBES);
    state.probes[0].totals.0[0] += 0.5;
    state.probes[1].totals.0[0] += 0.5;
    assert_eq!(calibrated(state), 21.003);
    let mut state = pass(&flat, 21.0, 3.0, PROBES);
    state.multiplexed[0] = true;
    assert_eq!(calibrated(state), 21.003);
    // Linear readings off the line by one count.
    let linear: Vec<u64> = (1..=10).map(|i| i * 100).collect();
    let mut state = pass(&linear, 21.0, 3.0, 0);
    state.totals[6].0[0] += 1.0;
    let values = state.finish(&linear, false, 2).0;
    assert_ne!(values[0][0], 21.0);
}

#[test]
fn readings_whose_brackets_read_off_the_hot_path_are_left_out_of_the_exactness_test() {
    // A read that retried counts the discarded attempt's instructions: 12 more here.
    let flat = [1000u64; 10];
    let exact = |state: PassState| {
        let values = state.finish(&flat, false, 2).0;
        values.iter().all(|v| v[0] == 21.0)
    };
    // A sample, flagged: every sample (that one too) reads the slope.
    let mut state = pass(&flat, 21.0, 3.0, PROBES);
    state.totals[4].0[0] += 12.0;
    state.irregular.samples.push(4);
    assert!(exact(state));
    // The same reading, not flagged: not exact.
    let mut state = pass(&flat, 21.0, 3.0, PROBES);
    state.totals[4].0[0] += 12.0;
    assert!(state.exact_points(0, false).is_none());
    // A calibration run, and one probe's body and another's calibration.
    let mut state = pass(&flat, 21.0, 3.0, PROBES);
    state.calibration[2].1[0] += 12.0;
    state.irregular.calibration.push(2);
    state.probes[0].totals.0[0] += 12.0;
    state.probes[0].totals.1 = true;
    assert!(exact(state));
    // Both probes' calibrations flagged: no second iteration count is left, so the
    // constant shows again.
    let mut state = pass(&flat, 21.0, 3.0, PROBES);
    for p in &mut state.probes {
        p.calibration.0[0] += 12.0;
        p.calibration.1 = true;
    }
    assert_eq!(state.exact_points(0, false).map(|p| p.len()), Some(1));
    assert!(!exact(state));
    // A round of one sample, flagged: the two probes alone are one iteration count, so the
    // pass takes two more readings at the samples' count.
    let one = [1000u64];
    let mut state = pass(&one, 21.0, 3.0, PROBES);
    state.totals[0].0[0] += 30.0;
    state.irregular.samples.push(0);
    assert_eq!(state.exact_points(0, false).map(|p| p.len()), Some(1));
    let bracket = 62.0 + 3.0 * 1000.0;
    for _ in 0..PROBES {
        state.probes.push(Probe {
            n: 1000,
            calibration: (vec![bracket, 7.0], false),
            totals: (vec![bracket + 21.0 * 1000.0 + 3.0, 1.0], false),
            pairs: 1,
        });
    }
    assert_eq!(state.finish(&one, false, 2).0[0][0], 21.0);
    // No second iteration count (a paired worker takes no probes): the flagged sample reads
    // what the regular ones read, constant included.
    let mut state = pass(&flat, 21.0, 3.0, 0);
    state.totals[4].0[0] += 30.0;
    state.irregular.samples.push(4);
    let values = state.finish(&flat, false, 2).0;
    assert!(values.iter().all(|v| v[0] == 21.003), "{values:?}");
    // Unflagged, the same reading keeps its own value.
    let mut state = pass(&flat, 21.0, 3.0, 0);
    state.totals[4].0[0] += 30.0;
    assert_eq!(state.finish(&flat, false, 2).0[4][0], 21.033);
    // Linear sampling: a flagged sample off the line.
    let linear: Vec<u64> = (1..=10).map(|i| i * 100).collect();
    let mut state = pass(&linear, 21.0, 3.0, 0);
    state.totals[6].0[0] += 12.0;
    state.irregular.samples.push(6);
    let values = state.finish(&linear, false, 2).0;
    assert!(values.iter().all(|v| v[0] == 21.0), "{values:?}");
}

#[test]
fn flat_overhead_is_the_median() {
    let runs: Vec<(u64, Vec<f64>)> = [5.0, 1.0, 3.0, 100.0, 2.0]
        .iter()
        .map(|&v| (10, vec![v]))
        .collect();
    let o = Overhead::fit(&runs, 1);
    assert_eq!(o.at(0, 10), 3.0);
}

#[test]
fn linear_overhead_is_a_line_in_n() {
    let runs: Vec<(u64, Vec<f64>)> = (1..=5)
        .map(|n| (n * 10, vec![7.0 + 2.0 * (n * 10) as f64]))
        .collect();
    let o = Overhead::fit(&runs, 1);
    assert!((o.at(0, 0) - 7.0).abs() < 1e-9);
    assert!((o.at(0, 100) - 207.0).abs() < 1e-9);
}

#[test]
fn median_of_even_and_odd() {
    assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
    assert_eq!(median(vec![]), 0.0);
}

/// Touches `pages` fresh pages per iteration, one bracket per iteration.
struct Faulting {
    pages: usize,
}

impl Body for Faulting {
    fn run(&mut self, n: u64, meter: &mut Meter<'_>) {
        for _ in 0..n {
            faults(meter, self.pages);
        }
    }
}

/// A batched body of page faults: `pages` fresh pages per input, and in each batch's
/// bracket one fresh page more (the batch's own work, which its calibration body, with
/// `extra: false`, does not do); one input per bracket when made single.
struct BatchedFaults {
    pages: usize,
    extra: bool,
    single: bool,
    singles: u32,
}

impl Body for BatchedFaults {
    fn run(&mut self, n: u64, meter: &mut Meter<'_>) {
        let batch = self.batch_at(n);
        let mut left = n;
        while left > 0 {
            let k = batch.min(left) as usize;
            let mut maps: Vec<AnonMapping> = (0..k)
                .map(|_| AnonMapping::new(self.pages.max(1)).unwrap())
                .collect();
            let mut more = (self.extra && batch > 1).then(|| AnonMapping::new(1).unwrap());
            meter.start();
            if self.pages > 0 {
                for m in &mut maps {
                    m.touch_every_page();
                }
            }
            if let Some(m) = more.as_mut() {
                m.touch_every_page();
            }
            meter.stop();
            left -= k as u64;
        }
    }

    fn batch_at(&mut self, n: u64) -> u64 {
        if self.single {
            1
        } else {
            n.min(8)
        }
    }

    fn single(&mut self, on: bool) {
        self.single = on;
        self.singles += u32::from(on);
    }
}

#[test]
fn a_batched_pass_reads_exact_counts_through_one_input_per_bracket() {
    let mut groups = software_groups();
    let mut body = BatchedFaults {
        pages: 2,
        extra: true,
        single: false,
        singles: 0,
    };
    let mut empty = BatchedFaults {
        pages: 0,
        extra: false,
        single: false,
        singles: 0,
    };
    let iterations = [32u64; 4];
    let ((values, multiplexed, _), self_timed) = run_pass(
        &mut groups,
        None,
        (false, &[]),
        (&mut body, &mut empty),
        &iterations,
        true,
        &mut |_| {},
    )
    .unwrap();
    assert!(!self_timed);
    // Batched, each sample read 2 + 1/8 page faults per iteration; the slope of the
    // readings of one input per bracket is the routine's 2 exactly.
    assert!(values.iter().all(|v| v[0] == 2.0), "{values:?}");
    assert!(!multiplexed[0]);
    assert_eq!((body.singles, empty.singles), (1, 1));
    assert!(
        !body.single && !empty.single,
        "batches again after the probes"
    );
}

#[test]
fn a_pass_reads_exact_counts_through_counts_only_brackets() {
    let mut groups = software_groups();
    let mut meter = Meter::new(&mut groups, false);
    let mut state = PassState::default();
    let (mut body, mut empty) = (Faulting { pages: 4 }, Faulting { pages: 0 });
    faults(&mut meter, 0);
    for _ in 0..3 {
        state.sample(&mut meter, &mut body, &mut empty, 5);
    }
    assert!(meter.error.is_none());
    let (values, multiplexed, _) = state.finish(&[5, 5, 5], false, 3);
    assert!(values.iter().all(|v| v[0] == 4.0), "{values:?}");
    assert_eq!(multiplexed, [false; 3]);
}
