//! One measurement pass of a round: its calibration runs, its samples and, for counters whose
//! readings repeat exactly, the probes from which they are read as a slope ([`PassState`]),
//! and the overhead each counter's samples have subtracted ([`Overhead`]).

use super::body::Body;
use super::meter::Meter;
use super::plan::CALIBRATION_RUNS;
use crate::counters::{CounterError, Group};
use crate::events::AllocCounter;
use crate::sys::EventFd;

pub(super) type PassValues = (Vec<Vec<f64>>, Vec<bool>, Vec<f64>);

/// One pass of a round: its calibration runs, samples and (for exact counters) probes, and
/// whether the body timed itself ([`Meter::elapsed`]). In the `first_round`, one discarded
/// reading of each body through the pass's meter comes first (see [`prime`]).
pub(super) fn run_pass(
    groups: &mut [Group],
    gate: Option<&EventFd>,
    (wall, allocs): (bool, &[AllocCounter]),
    (body, empty): (&mut dyn Body, &mut dyn Body),
    iterations: &[u64],
    first_round: bool,
    progress: &mut dyn FnMut(usize),
) -> Result<(PassValues, bool), CounterError> {
    let mut meter = Meter::new(groups, wall).counting_allocs(allocs).gated(gate);
    let columns = meter.acc.len() + usize::from(wall) + allocs.len();
    let mut state = PassState::default();
    if first_round {
        prime(&mut meter, body, empty);
    }
    // Calibration runs are interleaved with the samples (one before each, plus a few up
    // front), so drift of the machine affects both alike.
    let extra = CALIBRATION_RUNS.saturating_sub(iterations.len());
    for i in 0..extra {
        state.calibrate(&mut meter, empty, iterations[i % iterations.len().max(1)]);
    }
    for (i, &n) in iterations.iter().enumerate() {
        state.sample(&mut meter, body, empty, n);
        progress(i + 1);
    }
    let per_pair = empty.per_pair();
    let any_exact =
        |state: &PassState| (0..columns).any(|c| state.exact_points(c, per_pair).is_some());
    // A batched body's exact counters take their slope from readings of one input per bracket
    // (see `Body::single` and the module docs), at two iteration counts, flat or linear.
    let batched = iterations.iter().any(|&n| body.batch_at(n) > 1);
    if batched && any_exact(&state) {
        body.single(true);
        empty.single(true);
        for m in SINGLE_PROBE_ITERATIONS {
            for _ in 0..PROBES {
                state.probe_single(&mut meter, body, empty, m);
            }
        }
        body.single(false);
        empty.single(false);
    }
    // A flat plan has one iteration count: exact counters need a second one (see the module
    // docs, 7). Two readings, which must agree; and two at `n` again when every sample's
    // reading was left out (a round of one sample whose bracket read retried).
    let flat = iterations.windows(2).all(|w| w[0] == w[1]);
    if let (false, true, Some(&n)) = (batched, flat, iterations.first()) {
        if any_exact(&state) {
            let again = state.irregular.samples.len() == state.totals.len();
            let counts = [probe_iterations(n), n];
            for &m in &counts[..1 + usize::from(again)] {
                for _ in 0..PROBES {
                    state.probe(&mut meter, body, empty, m);
                }
            }
        }
    }
    if let Some(e) = meter.error.take() {
        return Err(e);
    }
    Ok((
        state.finish(iterations, per_pair, columns),
        meter.self_timed,
    ))
}

/// One discarded reading of one iteration of the empty body and of the body, through `meter`.
///
/// The warm-up runs the body without counters, so the first reading through a meter with
/// groups is the first time the bracket's code inlined into the body runs at all: where that
/// code sits on a page of the executable not touched before, the first sample pays a page fault
/// for it (seen once in CI: one page fault in the first of 50 samples of an empty body, in a
/// debug build). Exact counters must not see such one-time costs, so the first round of every
/// pass takes them here. The cost is one iteration of each body per pass, once per benchmark.
pub(super) fn prime(meter: &mut Meter<'_>, body: &mut dyn Body, empty: &mut dyn Body) {
    meter.clear();
    empty.run(1, meter);
    meter.totals(1);
    meter.clear();
    body.run(1, meter);
    meter.totals(1);
}

/// Readings a flat pass takes at a second iteration count ([`probe_iterations`]) when a
/// counter is exact, to derive its slope (and a batched body's pass at each of
/// [`SINGLE_PROBE_ITERATIONS`]).
pub(super) const PROBES: usize = 2;

/// The iteration counts of a batched body's readings of one input per bracket
/// (`Body::single`): two, for a slope; small, so that a costly setup or bracket costs little.
pub(super) const SINGLE_PROBE_ITERATIONS: [u64; 2] = [4, 8];

/// The second iteration count of a flat pass whose samples take `n`: a quarter of it (at least
/// 1, and never `n` itself). Any other count gives an exact counter's slope alike; a smaller
/// one keeps the probes' cost to half a sample's time (at `2n`, the two probes of each round
/// added four samples' time to its ten on the default plan).
pub(super) fn probe_iterations(n: u64) -> u64 {
    if n >= 2 {
        (n / 4).max(1)
    } else {
        2
    }
}

/// A pass's readings so far: the calibration runs and the samples' totals.
#[derive(Default)]
pub(super) struct PassState {
    /// (iterations, totals) of each calibration run.
    pub(super) calibration: Vec<(u64, Vec<f64>)>,
    /// Each sample's totals and its start/stop pairs.
    pub(super) totals: Vec<(Vec<f64>, u64)>,
    /// The indices in `calibration` and in `totals` of the readings a bracket read of which
    /// went off the fast path's hot path ([`Group::slow_reads`]): left out of the exactness
    /// test (see the module docs).
    pub(super) irregular: Irregular,
    /// Per column: whether its group was multiplexed in any sample.
    pub(super) multiplexed: Vec<bool>,
    /// Readings at a second iteration count, for exact counters only. Not samples.
    pub(super) probes: Vec<Probe>,
    /// A batched body's readings of one input per bracket (`Body::single`), for exact
    /// counters only: when there are any, an exact counter's slope is theirs.
    pub(super) single: Vec<Probe>,
}

/// The readings of a [`PassState`] left out of its exactness test.
#[derive(Default)]
pub(super) struct Irregular {
    /// Indices in [`PassState::calibration`].
    pub(super) calibration: Vec<usize>,
    /// Indices in [`PassState::totals`].
    pub(super) samples: Vec<usize>,
}

/// One reading of a flat pass for its exactness test, apart from the samples: at its second
/// iteration count ([`probe_iterations`]), or at its own when every sample was left out.
pub(super) struct Probe {
    /// Its iteration count.
    pub(super) n: u64,
    /// The empty body's totals, and whether a bracket read went off the hot path.
    pub(super) calibration: (Vec<f64>, bool),
    /// The body's totals, and whether a bracket read went off the hot path.
    pub(super) totals: (Vec<f64>, bool),
    /// The body's start/stop pairs.
    pub(super) pairs: u64,
}

/// Below 2^53: every such whole number is an exact f64, and so is a difference.
pub(super) fn whole(x: f64) -> bool {
    x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0
}

impl PassState {
    /// One calibration run: the empty body through the same bracket, `n` iterations.
    pub(super) fn calibrate(&mut self, meter: &mut Meter<'_>, empty: &mut dyn Body, n: u64) {
        meter.clear();
        empty.run(n, meter);
        let (t, _) = meter.totals(n);
        if meter.irregular {
            self.irregular.calibration.push(self.calibration.len());
        }
        self.calibration.push((n, t));
    }

    /// One sample of `n` iterations, after a calibration run of its own.
    pub(super) fn sample(
        &mut self,
        meter: &mut Meter<'_>,
        body: &mut dyn Body,
        empty: &mut dyn Body,
        n: u64,
    ) {
        self.calibrate(meter, empty, n);
        meter.clear();
        body.run(n, meter);
        let (t, mux) = meter.totals(n);
        if self.multiplexed.len() < mux.len() {
            self.multiplexed.resize(mux.len(), false);
        }
        for (any, now) in self.multiplexed.iter_mut().zip(mux) {
            *any |= now;
        }
        if meter.irregular {
            self.irregular.samples.push(self.totals.len());
        }
        self.totals.push((t, meter.calibrated_pairs()));
    }

    /// One reading at `n` iterations for the exactness derivation: the empty body, then the
    /// body, kept apart from the samples.
    pub(super) fn probe(
        &mut self,
        meter: &mut Meter<'_>,
        body: &mut dyn Body,
        empty: &mut dyn Body,
        n: u64,
    ) {
        let p = self.reading(meter, body, empty, n);
        self.probes.push(p);
    }

    /// A reading of `n` iterations of a batched body made to take one input per bracket
    /// ([`Body::single`]), after the same of the empty body.
    pub(super) fn probe_single(
        &mut self,
        meter: &mut Meter<'_>,
        body: &mut dyn Body,
        empty: &mut dyn Body,
        n: u64,
    ) {
        let p = self.reading(meter, body, empty, n);
        self.single.push(p);
    }

    /// The empty body's reading of `n` iterations, then the body's (its multiplexing noted).
    pub(super) fn reading(
        &mut self,
        meter: &mut Meter<'_>,
        body: &mut dyn Body,
        empty: &mut dyn Body,
        n: u64,
    ) -> Probe {
        meter.clear();
        empty.run(n, meter);
        let calibration = (meter.totals(n).0, meter.irregular);
        meter.clear();
        body.run(n, meter);
        let (totals, mux) = meter.totals(n);
        for (any, now) in self.multiplexed.iter_mut().zip(mux) {
            *any |= now;
        }
        Probe {
            n,
            calibration,
            totals: (totals, meter.irregular),
            pairs: meter.calibrated_pairs(),
        }
    }

    /// Column `c`'s `(iterations, total - overhead)` at each iteration count of the single
    /// probes ([`PassState::single`]), when every regular one is a whole number and all at one
    /// count read the same; `None` otherwise.
    pub(super) fn single_points(&self, c: usize) -> Option<Vec<(u64, f64)>> {
        let mut points: Vec<(u64, f64)> = Vec::new();
        for p in self
            .single
            .iter()
            .filter(|p| !p.calibration.1 && !p.totals.1)
        {
            let (t, o) = (
                p.totals.0.get(c).copied()?,
                p.calibration.0.get(c).copied()?,
            );
            if !(whole(t) && whole(o)) {
                return None;
            }
            let d = t - o;
            match points.iter().find(|q| q.0 == p.n) {
                Some(q) if q.1 != d => return None,
                Some(_) => {}
                None => points.push((p.n, d)),
            }
        }
        Some(points)
    }

    /// Column `c`'s `(iterations, total - overhead)` at each iteration count of the pass
    /// (samples and probes) when all its regular readings are exact: whole numbers, not
    /// multiplexed, and at each iteration count every regular calibration run reads the same,
    /// and every regular reading of the body too (for a per-pair calibration, every regular
    /// calibration run reads the same). A reading is regular when none of its bracket reads
    /// went off the hot path ([`PassState::irregular`]); a body reading at an iteration count
    /// no regular calibration run had is left out too (so the points may be none). `None`
    /// otherwise.
    pub(super) fn exact_points(&self, c: usize, per_pair: bool) -> Option<Vec<(u64, f64)>> {
        if self.multiplexed.get(c).copied().unwrap_or(false) {
            return None;
        }
        let calibrations = self
            .calibration
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.irregular.calibration.contains(i))
            .map(|(_, (n, v))| (*n, v.get(c).copied()))
            .chain(
                self.probes
                    .iter()
                    .filter(|p| !p.calibration.1)
                    .map(|p| (p.n, p.calibration.0.get(c).copied())),
            );
        // (iterations, calibration reading), one per iteration count (per pair: one in all).
        let mut overheads: Vec<(u64, f64)> = Vec::new();
        for (n, v) in calibrations {
            let v = v.filter(|v| whole(*v))?;
            let n = if per_pair { 0 } else { n };
            match overheads.iter().find(|o| o.0 == n) {
                Some(o) if o.1 != v => return None,
                Some(_) => {}
                None => overheads.push((n, v)),
            }
        }
        let readings = self
            .totals
            .iter()
            .zip(self.calibration_counts())
            .enumerate()
            .filter(|(i, _)| !self.irregular.samples.contains(i))
            .map(|(_, ((t, pairs), n))| (n, t.get(c).copied(), *pairs))
            .chain(
                self.probes
                    .iter()
                    .filter(|p| !p.totals.1)
                    .map(|p| (p.n, p.totals.0.get(c).copied(), p.pairs)),
            );
        let mut points: Vec<(u64, f64)> = Vec::new();
        for (n, t, pairs) in readings {
            let t = t.filter(|t| whole(*t))?;
            let key = if per_pair { 0 } else { n };
            let Some(&(_, o)) = overheads.iter().find(|o| o.0 == key) else {
                continue;
            };
            let d = if per_pair {
                t - o * pairs as f64
            } else {
                t - o
            };
            match points.iter().find(|p| p.0 == n) {
                Some(p) if p.1 != d => return None,
                Some(_) => {}
                None => points.push((n, d)),
            }
        }
        Some(points)
    }

    /// The iteration count of each sample, in order: each sample's own calibration run (the
    /// last calibration before it) used it.
    pub(super) fn calibration_counts(&self) -> impl Iterator<Item = u64> + '_ {
        // The samples' calibration runs are the last `totals.len()` of `calibration`, one per
        // sample, in order.
        let first = self.calibration.len() - self.totals.len();
        self.calibration[first..].iter().map(|(n, _)| *n)
    }

    /// The slope in the iteration count of a column's exact points ([`PassState::exact_points`])
    /// when they lie at two or more iteration counts, all on one line exactly: the
    /// per-iteration count with every per-sample constant cancelled.
    pub(super) fn exact_slope(points: &[(u64, f64)]) -> Option<f64> {
        let (&(n0, d0), &(n1, d1)) = (points.first()?, points.get(1)?);
        // Whole numbers below 2^53 (see `exact_points`): exact as i128.
        let (dn, dd) = (i128::from(n1) - i128::from(n0), d1 as i128 - d0 as i128);
        let on_line = points
            .iter()
            .all(|&(n, d)| (d as i128 - d0 as i128) * dn == dd * (i128::from(n) - i128::from(n0)));
        on_line.then(|| dd as f64 / dn as f64)
    }

    /// Per sample and column, `(total - overhead) / n` (for an exact column, its slope: see the
    /// module docs; for one without a slope, a sample left out of its exactness test reads
    /// the regular readings' common value at its iteration count); the multiplexing flags; and
    /// each column's overhead at the first sample's iteration count.
    pub(super) fn finish(
        mut self,
        iterations: &[u64],
        per_pair: bool,
        columns: usize,
    ) -> PassValues {
        self.multiplexed.resize(columns, false);
        let overhead = Overhead::fit(&self.calibration, columns);
        let points: Vec<Option<Vec<(u64, f64)>>> = (0..columns)
            .map(|c| self.exact_points(c, per_pair))
            .collect();
        // A batched body's exact counter: its slope from the single probes (see `Body::single`).
        let slopes: Vec<Option<f64>> = points
            .iter()
            .enumerate()
            .map(|(c, p)| match (p, self.single.is_empty()) {
                (Some(p), true) => Self::exact_slope(p),
                (Some(_), false) => self.single_points(c).as_deref().and_then(Self::exact_slope),
                (None, _) => None,
            })
            .collect();
        let values = iterations
            .iter()
            .zip(&self.totals)
            .enumerate()
            .map(|(i, (&n, (t, pairs)))| {
                let left_out = self.irregular.samples.contains(&i);
                t.iter()
                    .enumerate()
                    .map(|(c, &x)| {
                        if let Some(k) = slopes[c] {
                            return k;
                        }
                        // An exact column with no slope (its readings at one iteration count: a
                        // paired worker's, or probes left out): a sample left out of the test
                        // reads its regular readings' common `total - overhead` at that count.
                        let regular = points[c].as_ref().filter(|_| left_out);
                        if let Some(&(_, d)) = regular.and_then(|p| p.iter().find(|p| p.0 == n)) {
                            return d / n as f64;
                        }
                        let o = if per_pair {
                            overhead.at(c, 1) * *pairs as f64
                        } else {
                            overhead.at(c, n)
                        };
                        (x - o) / n as f64
                    })
                    .collect()
            })
            .collect();
        let reported = (0..columns)
            .map(|c| overhead.at(c, iterations.first().copied().unwrap_or(1)))
            .collect();
        (values, self.multiplexed, reported)
    }
}

/// Each counter's bracket overhead as a function of the iteration count: the median of the
/// calibration runs when they all used one count (flat sampling), a least-squares line
/// `a + b * n` through them otherwise (linear sampling).
pub(super) struct Overhead {
    pub(super) lines: Vec<(f64, f64)>,
}

impl Overhead {
    pub(super) fn fit(runs: &[(u64, Vec<f64>)], columns: usize) -> Overhead {
        let flat = runs.windows(2).all(|w| w[0].0 == w[1].0);
        let lines = (0..columns)
            .map(|c| {
                let ys: Vec<f64> = runs.iter().map(|(_, v)| v[c]).collect();
                if flat {
                    return (median(ys), 0.0);
                }
                let xs: Vec<f64> = runs.iter().map(|(n, _)| *n as f64).collect();
                let k = xs.len() as f64;
                let (mx, my) = (xs.iter().sum::<f64>() / k, ys.iter().sum::<f64>() / k);
                let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
                let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
                let b = if sxx > 0.0 { sxy / sxx } else { 0.0 };
                (my - b * mx, b)
            })
            .collect();
        Overhead { lines }
    }

    pub(super) fn at(&self, column: usize, n: u64) -> f64 {
        let (a, b) = self.lines[column];
        a + b * n as f64
    }
}

/// The median of `v` ([`percentile_of_sorted`](crate::sorting::percentile_of_sorted), as the
/// statistics take it): of the calibration readings, and of a round's samples for the stopping
/// rule; 0 when there are none, or one is not finite.
pub(super) fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() || !v.iter().all(|x| x.is_finite()) {
        return 0.0;
    }
    crate::sorting::sort_f64(&mut v);
    crate::sorting::percentile_of_sorted(&v, 50.0)
}

#[cfg(test)]
#[cfg(test)]
mod tests;
