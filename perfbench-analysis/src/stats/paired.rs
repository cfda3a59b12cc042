//! The verdict of a **paired** run: the baseline build and the new build measured alternately in
//! one run, sample `k` of one side right beside sample `k` of the other ([`crate::runner::paired`]
//! takes them). [`compare_paired_rounds`] judges rounds of pairs, [`compare_paired`] one round.
//!
//! Each pair gives `ln(new / base)` (a difference where a value is not positive); each round's
//! change is the Hodges-Lehmann estimate of its pairs ([`hodges_lehmann`]); over rounds, the
//! estimate, interval and p-value are Yuen's trimmed-mean t-test's ([`ROUND_TRIM`] trimmed from
//! each end), and with fewer than three rounds the pairs' own, with the signed-rank interval and
//! test ([`signed_rank_interval`], [`signed_rank_p`]). `regressed` needs the p-value below
//! [`CompareConfig::significance`] and the whole interval above `1 +`
//! [`CompareConfig::paired_threshold`]. The guide's docs/measuring.md ("Paired runs") explains why.

use super::change::{Change, CompareConfig, Method, Verdict};
use super::rounds::MIN_ROUNDS;
use super::univariate::median_in_place;

/// Compares `new` with `base`, sample `k` of one paired with sample `k` of the other (extra
/// samples on one side are ignored; pairs with a non-finite value are dropped). See the
/// [module documentation](self).
///
/// ```
/// use perfbench_analysis::stats::{compare_paired, CompareConfig, Method, Verdict};
///
/// // The machine drifts by 20% over the run; the two builds alternate, so each pair shares it.
/// let drift = |i: usize| 1.0 + 0.2 * i as f64 / 60.0;
/// let base: Vec<f64> = (0..60).map(|i| 100.0 * drift(i) + (i % 3) as f64).collect();
/// let new: Vec<f64> = (0..60).map(|i| 103.0 * drift(i) + ((i + 1) % 3) as f64).collect();
/// let change = compare_paired(&base, &new, &CompareConfig::for_counter("wall-time"));
/// assert_eq!((change.verdict, change.method), (Verdict::Regressed, Method::Paired));
/// assert!((change.ratio.unwrap() - 1.03).abs() < 0.01);
/// ```
pub fn compare_paired(base: &[f64], new: &[f64], cfg: &CompareConfig) -> Change {
    compare_paired_rounds(&[base], &[new], cfg)
}

/// Compares `new` with `base` measured in rounds of pairs: round `r` of one side paired with
/// round `r` of the other, sample by sample. With at least [`MIN_ROUNDS`] rounds holding a
/// pair, each round's change (the Hodges-Lehmann estimate of its pairs) is one observation,
/// and the estimate, interval and p-value are a t-test's over the rounds: what differs between
/// rounds (a fresh call of the benchmark, fresh allocations, another stretch of the run) is
/// then part of the noise the verdict is held against, not a bias it can mistake for a change.
/// With fewer rounds every pair is an observation. See the [module documentation](self).
///
/// ```
/// use perfbench_analysis::stats::{compare_paired_rounds, CompareConfig, Verdict};
///
/// let base: Vec<Vec<f64>> = (0..5).map(|r| vec![100.0 + f64::from(r); 10]).collect();
/// let new: Vec<Vec<f64>> = base.iter().map(|round| round.iter().map(|x| x * 1.1).collect()).collect();
/// let (b, n): (Vec<&[f64]>, Vec<&[f64]>) =
///     (base.iter().map(Vec::as_slice).collect(), new.iter().map(Vec::as_slice).collect());
/// let change = compare_paired_rounds(&b, &n, &CompareConfig::for_counter("wall-time"));
/// assert_eq!(change.verdict, Verdict::Regressed);
/// ```
pub fn compare_paired_rounds(base: &[&[f64]], new: &[&[f64]], cfg: &CompareConfig) -> Change {
    let rounds: Vec<Vec<(f64, f64)>> = base
        .iter()
        .zip(new)
        .map(|(a, b)| {
            a.iter()
                .zip(b.iter())
                .map(|(&a, &b)| (a, b))
                .filter(|(a, b)| a.is_finite() && b.is_finite())
                .collect::<Vec<_>>()
        })
        .filter(|r| !r.is_empty())
        .collect();
    let pairs: Vec<(f64, f64)> = rounds.iter().flatten().copied().collect();
    let mut level: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let baseline = if level.is_empty() {
        0.0
    } else {
        median_in_place(&mut level)
    };
    let threshold = cfg.paired_threshold;
    let unchanged = Change {
        baseline,
        ratio: None,
        ci_low: None,
        ci_high: None,
        p_value: 1.0,
        threshold,
        verdict: Verdict::Unchanged,
        method: Method::Paired,
    };
    if pairs.len() < 2 {
        return unchanged;
    }
    let positive = pairs.iter().all(|&(a, b)| a > 0.0 && b > 0.0);
    let change = |(a, b): (f64, f64)| if positive { (b / a).ln() } else { b - a };
    // The observations: one per round when there are enough rounds, else one per pair.
    let (d, steps): (Vec<f64>, Vec<f64>) = if rounds.len() >= MIN_ROUNDS {
        rounds
            .iter()
            .map(|r| {
                let d: Vec<f64> = r.iter().map(|&p| change(p)).collect();
                let s: Vec<f64> = r.iter().map(|(a, b)| b - a).collect();
                (hodges_lehmann(&d), hodges_lehmann(&s))
            })
            .unzip()
    } else {
        pairs.iter().map(|&p| (change(p), p.1 - p.0)).unzip()
    };
    let to_ratio = |x: f64| -> Option<f64> {
        if positive {
            Some(x.exp())
        } else {
            (baseline > 0.0).then(|| 1.0 + x / baseline)
        }
    };
    let by_rounds = rounds.len() >= MIN_ROUNDS;
    let (centre, step, p_value, (low, high)) = if by_rounds {
        let (centre, p, interval) = trimmed_t_statistics(&d, cfg.confidence);
        (centre, trimmed_mean(&steps), p, interval)
    } else {
        (
            hodges_lehmann(&d),
            hodges_lehmann(&steps),
            signed_rank_p(&d),
            signed_rank_interval(&d, cfg.confidence),
        )
    };
    let ratio = to_ratio(centre);
    let (ci_low, ci_high) = match (to_ratio(low), to_ratio(high)) {
        (Some(l), Some(h)) => (Some(l), Some(h)),
        _ => (None, None),
    };
    let significant = p_value < cfg.significance;
    let stepped = significant && cfg.min_step.is_finite() && step.abs() >= cfg.min_step;
    let verdict = if !threshold.is_finite() || !significant {
        Verdict::Unchanged
    } else if let (Some(l), Some(h)) = (ci_low, ci_high) {
        if l > 1.0 + threshold || (stepped && step > 0.0) {
            Verdict::Regressed
        } else if h < 1.0 - threshold || (stepped && step < 0.0) {
            Verdict::Improved
        } else {
            Verdict::Unchanged
        }
    } else {
        // No ratio (the baseline reads 0 or less): the sign of a significant step.
        super::rounds::step_verdict(step, cfg)
    };
    Change {
        ratio,
        ci_low,
        ci_high,
        p_value,
        verdict,
        ..unchanged
    }
}

/// Whether a paired `change` is still open: its interval holds an edge of the threshold
/// (`1 + threshold` or `1 - threshold`), so more rounds could still move the verdict either
/// way. A paired run measures such a benchmark in more rounds, up to its cap
/// ([`crate::runner::paired`]); an interval wholly inside or wholly beyond the threshold, a
/// counter never judged (an infinite threshold) and a change without a ratio are settled.
///
/// ```
/// use perfbench_analysis::stats::{compare_paired_rounds, paired, CompareConfig};
///
/// let cfg = CompareConfig::for_counter("wall-time"); // paired threshold 0.5%
/// // Five rounds of four pairs, each round's new build `by[r]` times the base.
/// let judge = |by: [f64; 5]| {
///     let base: Vec<Vec<f64>> = (0..5).map(|_| vec![100.0, 101.0, 99.0, 100.0]).collect();
///     let new: Vec<Vec<f64>> =
///         base.iter().zip(by).map(|(r, k)| r.iter().map(|x| x * k).collect()).collect();
///     let (b, n): (Vec<&[f64]>, Vec<&[f64]>) =
///         (base.iter().map(Vec::as_slice).collect(), new.iter().map(Vec::as_slice).collect());
///     compare_paired_rounds(&b, &n, &cfg)
/// };
/// // 5% slower in every round: regressed, settled.
/// assert!(!paired::undecided(&judge([1.05, 1.051, 1.049, 1.05, 1.05])));
/// // Unchanged, the rounds a percent or two apart: the interval still holds 1.005.
/// assert!(paired::undecided(&judge([1.02, 0.99, 1.0, 0.98, 1.01])));
/// // Unchanged, the rounds within 0.1%: settled.
/// assert!(!paired::undecided(&judge([1.001, 0.999, 1.0, 1.0, 0.9995])));
/// ```
pub fn undecided(change: &Change) -> bool {
    let t = change.threshold;
    match (change.ci_low, change.ci_high) {
        (Some(low), Some(high)) if t.is_finite() => {
            let holds = |edge: f64| low <= edge && edge <= high;
            holds(1.0 + t) || holds(1.0 - t)
        }
        _ => false,
    }
}

/// Whether more rounds of a still-open paired `change` ([`undecided`]) would leave it open
/// however many were taken up to the cap: after `done` rounds of at most `most`, its interval,
/// narrowed as `most` rounds would narrow it around the same estimate (by `sqrt(done / most)`,
/// and by the fall of the t quantile at `confidence` as the rounds' degrees of freedom grow),
/// would still hold both edges of the threshold. A paired run stops such a benchmark at once,
/// unchanged, instead of spending the rounds up to the cap on it; a change beyond an edge keeps
/// its rounds (its narrowed interval leaves the far edge). False with fewer than
/// [`MIN_ROUNDS`] rounds (no interval over rounds), without an interval or a finite threshold,
/// or with no rounds left.
///
/// ```
/// use perfbench_analysis::stats::{compare_paired_rounds, paired, CompareConfig};
///
/// let cfg = CompareConfig::for_counter("wall-time"); // paired threshold 0.5%
/// // Twenty rounds of four pairs, the new build `by` times the base, the rounds 6% apart.
/// let judge = |by: f64| {
///     let base: Vec<Vec<f64>> = (0..20).map(|_| vec![100.0, 101.0, 99.0, 100.0]).collect();
///     let new: Vec<Vec<f64>> = (0..20)
///         .map(|r| {
///             let k = by * if r % 2 == 0 { 1.03 } else { 0.97 };
///             base[r].iter().map(|x| x * k).collect()
///         })
///         .collect();
///     let (b, n): (Vec<&[f64]>, Vec<&[f64]>) =
///         (base.iter().map(Vec::as_slice).collect(), new.iter().map(Vec::as_slice).collect());
///     compare_paired_rounds(&b, &n, &cfg)
/// };
/// // Unchanged: even eighty rounds would leave an interval around 1 wider than 0.5% each way.
/// let same = judge(1.0);
/// assert!(paired::undecided(&same) && paired::futile(&same, 20, 80, cfg.confidence));
/// // 2% slower: the interval holds 1.005 now, and eighty rounds could lift it clear.
/// let slower = judge(1.02);
/// assert!(paired::undecided(&slower) && !paired::futile(&slower, 20, 80, cfg.confidence));
/// ```
pub fn futile(change: &Change, done: usize, most: usize, confidence: f64) -> bool {
    let t = change.threshold;
    let (Some(r), Some(low), Some(high)) = (change.ratio, change.ci_low, change.ci_high) else {
        return false;
    };
    if !t.is_finite() || done < MIN_ROUNDS || most <= done {
        return false;
    }
    let quantile = |n: usize| super::dist::student_t_quantile_two_sided(confidence, trimmed_df(n));
    let narrow = (done as f64 / most as f64).sqrt() * quantile(most) / quantile(done);
    let (low, high) = (r - (r - low) * narrow, r + (high - r) * narrow);
    low <= 1.0 - t && 1.0 + t <= high
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// The share of the rounds' changes that [`compare_paired_rounds`] trims from each end before
/// averaging them (Yuen's trimmed-mean t-test): a fifth, the usual choice for a robust
/// location test, so one or two disturbed rounds in twenty cannot move the verdict.
pub const ROUND_TRIM: f64 = 0.2;

/// How many values [`ROUND_TRIM`] leaves out at each end of `n`: none below five.
fn trimmed_count(n: usize) -> usize {
    (ROUND_TRIM * n as f64).floor() as usize
}

/// The degrees of freedom of Yuen's test over `n` values: those kept after trimming, less one
/// (at least one).
fn trimmed_df(n: usize) -> f64 {
    ((n - 2 * trimmed_count(n)) as f64 - 1.0).max(1.0)
}

/// The [`ROUND_TRIM`] trimmed mean of `d` (the plain mean of fewer than five values).
fn trimmed_mean(d: &[f64]) -> f64 {
    let mut s = d.to_vec();
    perfbench::sorting::sort_f64(&mut s);
    let k = trimmed_count(s.len());
    mean(&s[k..s.len() - k])
}

/// Yuen's one-sample trimmed-mean t-test that the centre of `d` is 0 (`d` has at least two
/// values): the [`ROUND_TRIM`] trimmed mean, the two-sided p-value, and the interval at
/// `confidence`. With `k` values trimmed from each end of `n` and `h = n - 2k` kept, the
/// standard error is `sqrt((n - 1) * s_w^2 / (h * (h - 1)))`, `s_w^2` the variance of `d`
/// winsorized at the same points, with `h - 1` degrees of freedom; with `k = 0` that is
/// Student's t-test. Identical values give a point interval, and p = 0 unless they are 0.
fn trimmed_t_statistics(d: &[f64], confidence: f64) -> (f64, f64, (f64, f64)) {
    let mut s = d.to_vec();
    perfbench::sorting::sort_f64(&mut s);
    let n = s.len();
    let k = trimmed_count(n);
    let h = n - 2 * k;
    let m = mean(&s[k..n - k]);
    let (lo, hi) = (s[k], s[n - k - 1]);
    let winsorized: Vec<f64> = s.iter().map(|&x| x.clamp(lo, hi)).collect();
    let wm = mean(&winsorized);
    let sw2 =
        winsorized.iter().map(|x| (x - wm) * (x - wm)).sum::<f64>() / (n as f64 - 1.0).max(1.0);
    let se = ((n as f64 - 1.0) * sw2 / (h as f64 * (h as f64 - 1.0).max(1.0))).sqrt();
    t_statistics(m, se, trimmed_df(n), confidence)
}

/// The two-sided p-value of a t-test that the estimate `m`, of standard error `se` with `df`
/// degrees of freedom, is 0, and its interval at `confidence`. `se` of 0 gives a point
/// interval, and p = 0 unless `m` is 0.
fn t_statistics(m: f64, se: f64, df: f64, confidence: f64) -> (f64, f64, (f64, f64)) {
    if se == 0.0 || !se.is_finite() {
        let p = if m == 0.0 { 1.0 } else { 0.0 };
        return (m, p, (m, m));
    }
    let p = super::dist::student_t_two_sided(m / se, df);
    let t = super::dist::student_t_quantile_two_sided(confidence, df);
    (m, p, (m - t * se, m + t * se))
}

/// The pairwise averages `(d_i + d_j) / 2`, `i <= j`, sorted.
fn walsh_averages(d: &[f64]) -> Vec<f64> {
    let mut w = Vec::with_capacity(d.len() * (d.len() + 1) / 2);
    for (i, &x) in d.iter().enumerate() {
        for &y in &d[i..] {
            w.push(0.5 * x + 0.5 * y);
        }
    }
    perfbench::sorting::sort_f64(&mut w);
    w
}

/// The Hodges-Lehmann estimate of the centre of `d`: the median of its pairwise averages
/// (0 for an empty slice).
///
/// ```
/// use perfbench_analysis::stats::paired::hodges_lehmann;
///
/// // The median of the pairwise averages: robust to the one large difference, unlike the
/// // mean (7.5).
/// assert_eq!(hodges_lehmann(&[1.0, 2.0, 3.0, 24.0]), 2.75);
/// ```
pub fn hodges_lehmann(d: &[f64]) -> f64 {
    let w = walsh_averages(d);
    match w.len() {
        0 => 0.0,
        n if n % 2 == 1 => w[n / 2],
        n => 0.5 * w[n / 2 - 1] + 0.5 * w[n / 2],
    }
}

/// The distribution-free interval for the centre of `d` at `confidence` that goes with the
/// Wilcoxon signed-rank test: the pairwise averages of ranks `C + 1` and `M - C`, where `M` is
/// their number and `C` the test's critical count (normal approximation).
///
/// ```
/// use perfbench_analysis::stats::paired::signed_rank_interval;
///
/// let d: Vec<f64> = (0..40).map(|i| 3.0 + f64::from(i % 5) - 2.0).collect(); // centred on 3
/// let (low, high) = signed_rank_interval(&d, 0.95);
/// assert!(low <= 3.0 && 3.0 <= high && high - low < 2.0);
/// ```
pub fn signed_rank_interval(d: &[f64], confidence: f64) -> (f64, f64) {
    let w = walsh_averages(d);
    let Some(&last) = w.last() else {
        return (0.0, 0.0);
    };
    let n = d.len() as f64;
    let m = w.len() as f64;
    let z = super::dist::normal_quantile_two_sided(confidence);
    let sd = (n * (n + 1.0) * (2.0 * n + 1.0) / 24.0).sqrt();
    let c = (m / 2.0 - z * sd).floor().max(0.0) as usize;
    if c >= w.len() / 2 {
        // Too few pairs for an interval narrower than everything.
        return (w[0], last);
    }
    (w[c], w[w.len() - 1 - c])
}

/// The two-sided p-value of the Wilcoxon signed-rank test that the differences `d` are
/// centred on 0 (normal approximation with the correction for ties; zeros dropped). 1 when
/// every difference is 0.
///
/// ```
/// use perfbench_analysis::stats::paired::signed_rank_p;
///
/// let shifted: Vec<f64> = (0..30).map(|i| 1.0 + f64::from(i % 3) * 0.1).collect();
/// assert!(signed_rank_p(&shifted) < 0.001);
/// assert_eq!(signed_rank_p(&[0.0; 10]), 1.0);
/// ```
pub fn signed_rank_p(d: &[f64]) -> f64 {
    let mut nonzero: Vec<f64> = d.iter().copied().filter(|x| *x != 0.0).collect();
    if nonzero.is_empty() {
        return 1.0;
    }
    perfbench::sorting::sort_by(&mut nonzero, |a, b| a.abs().total_cmp(&b.abs()));
    let n = nonzero.len() as f64;
    let (mut w_plus, mut ties) = (0.0, 0.0);
    let mut i = 0;
    while i < nonzero.len() {
        let mut j = i;
        while j + 1 < nonzero.len() && nonzero[j + 1].abs() == nonzero[i].abs() {
            j += 1;
        }
        let t = (j - i + 1) as f64;
        let mid = (i + j) as f64 / 2.0 + 1.0;
        w_plus += mid * nonzero[i..=j].iter().filter(|x| **x > 0.0).count() as f64;
        ties += t * t * t - t;
        i = j + 1;
    }
    let mean = n * (n + 1.0) / 4.0;
    let var = n * (n + 1.0) * (2.0 * n + 1.0) / 24.0 - ties / 48.0;
    if var <= 0.0 {
        // Every |difference| tied and of one sign: as extreme as the test can see.
        return super::dist::erfc(n.sqrt() / std::f64::consts::SQRT_2).min(1.0);
    }
    let z = (w_plus - mean).abs() / var.sqrt();
    super::dist::erfc(z / std::f64::consts::SQRT_2).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::rng::Rng;
    use crate::stats::CounterKind;

    fn time() -> CompareConfig {
        CompareConfig::for_kind(CounterKind::Time)
    }

    #[test]
    fn hodges_lehmann_of_small_sets() {
        assert_eq!(hodges_lehmann(&[]), 0.0);
        assert_eq!(hodges_lehmann(&[3.0]), 3.0);
        // Walsh averages of 1, 2, 10: 1, 1.5, 2, 5.5, 6, 10 -> median 3.75.
        assert_eq!(hodges_lehmann(&[1.0, 2.0, 10.0]), 3.75);
        // Robust: one wild value barely moves it.
        let mut d = vec![1.0; 20];
        d[0] = 1e9;
        assert_eq!(hodges_lehmann(&d), 1.0);
    }

    #[test]
    fn signed_rank_p_values() {
        assert_eq!(signed_rank_p(&[0.0, 0.0]), 1.0);
        // Symmetric around 0: no evidence.
        assert!(signed_rank_p(&[-3.0, -2.0, -1.0, 1.0, 2.0, 3.0]) > 0.9);
        // 20 positive differences: far beyond chance.
        let d: Vec<f64> = (1..=20).map(f64::from).collect();
        assert!(signed_rank_p(&d) < 1e-3);
        // All tied and positive (an exact counter one count apart).
        assert!(signed_rank_p(&[1.0; 30]) < 1e-6);
    }

    #[test]
    fn interval_covers_the_centre() {
        let mut rng = Rng::new(7);
        let mut covered = 0;
        for _ in 0..200 {
            let d: Vec<f64> = (0..40).map(|_| 0.5 + rng.normal()).collect();
            let (l, h) = signed_rank_interval(&d, 0.95);
            assert!(l <= hodges_lehmann(&d) && hodges_lehmann(&d) <= h);
            covered += usize::from(l <= 0.5 && 0.5 <= h);
        }
        // 95% nominal: 190 of 200 expected, allow for chance.
        assert!((180..=200).contains(&covered), "{covered}");
        // Too few values: everything.
        assert_eq!(signed_rank_interval(&[1.0, 5.0], 0.95), (1.0, 5.0));
    }

    #[test]
    fn yuens_trimmed_t_test_by_hand() {
        // n = 10: two values trimmed from each end, h = 6 kept, 5 degrees of freedom.
        let d = [0.1, 0.2, 0.25, 0.3, -1.0, 0.22, 0.18, 0.21, 0.19, 0.5];
        let (m, p, (lo, hi)) = trimmed_t_statistics(&d, 0.95);
        assert!((m - 0.208_333_333).abs() < 1e-9, "{m}");
        // se = sqrt(9 * s_w^2 / (6 * 5)) = 0.016421530..., t(0.975, 5) = 2.570582
        assert!((lo - 0.166_120_44).abs() < 1e-6, "{lo}");
        assert!((hi - 0.250_546_22).abs() < 1e-6, "{hi}");
        assert!(p < 1e-4, "{p}");
        assert_eq!(trimmed_count(10), 2);
        // Fewer than five values: nothing trimmed, Student's t-test.
        assert_eq!(trimmed_count(4), 0);
        let (m, _, (lo, hi)) = trimmed_t_statistics(&[1.0, 2.0, 3.0, 4.0], 0.95);
        // mean 2.5, se = sqrt(5/3 / 4), t(0.975, 3) = 3.182446
        let half = 3.182_446 * (5.0_f64 / 3.0 / 4.0).sqrt();
        assert!(
            (m - 2.5).abs() < 1e-12
                && (lo - (2.5 - half)).abs() < 1e-5
                && (hi - (2.5 + half)).abs() < 1e-5
        );
        // Identical values: a point interval.
        assert_eq!(
            trimmed_t_statistics(&[0.3; 6], 0.95),
            (0.3, 0.0, (0.3, 0.3))
        );
        assert_eq!(trimmed_mean(&[5.0, 1.0, 2.0, 3.0, 100.0]), 10.0 / 3.0);
    }

    #[test]
    fn a_disturbed_round_does_not_hide_a_change() {
        // 20 rounds whose pairs read +2%, as measured here, except two in which one side's
        // process was disturbed throughout (-18% and -28%, as in bench-compare/paired.sh).
        let base: Vec<Vec<f64>> = (0..20)
            .map(|r| {
                (0..10)
                    .map(|i| 100.0 + f64::from((r * 7 + i) % 5) * 0.02)
                    .collect()
            })
            .collect();
        let new: Vec<Vec<f64>> = base
            .iter()
            .enumerate()
            .map(|(r, round)| {
                let factor = match r {
                    3 => 0.82,
                    11 => 0.72,
                    _ => 1.02 + 0.002 * ((r % 3) as f64 - 1.0),
                };
                round.iter().map(|x| x * factor).collect()
            })
            .collect();
        let (b, n): (Vec<&[f64]>, Vec<&[f64]>) = (
            base.iter().map(Vec::as_slice).collect(),
            new.iter().map(Vec::as_slice).collect(),
        );
        let c = compare_paired_rounds(&b, &n, &time());
        assert_eq!(c.verdict, Verdict::Regressed, "{c:?}");
        assert!((c.ratio.unwrap() - 1.02).abs() < 0.002, "{c:?}");
        // The plain mean over the same rounds is pulled below 1 + threshold: what the
        // trimming is for.
        let d: Vec<f64> = (0..20)
            .map(|r| match r {
                3 => 0.82_f64.ln(),
                11 => 0.72_f64.ln(),
                _ => (1.02 + 0.002 * ((r % 3) as f64 - 1.0)).ln(),
            })
            .collect();
        assert!(mean(&d).exp() < 1.005, "{}", mean(&d).exp());
    }

    /// Two sides with a common drift (each pair's samples scaled alike) and independent noise.
    fn drifting(rng: &mut Rng, k: usize, change: f64, noise: f64) -> (Vec<f64>, Vec<f64>) {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in 0..k {
            // The machine's speed wanders by +-20% over the run.
            let drift = 1.0 + 0.2 * (i as f64 / k as f64 * 6.0).sin();
            a.push(100.0 * drift * (1.0 + noise * rng.normal()).max(0.5));
            b.push(100.0 * change * drift * (1.0 + noise * rng.normal()).max(0.5));
        }
        (a, b)
    }

    #[test]
    fn drift_cancels_and_small_changes_show() {
        let mut rng = Rng::new(11);
        let cfg = time();
        let (mut false_alarms, mut caught) = (0, 0);
        for _ in 0..100 {
            let (a, b) = drifting(&mut rng, 100, 1.0, 0.01);
            false_alarms += usize::from(compare_paired(&a, &b, &cfg).verdict != Verdict::Unchanged);
            let (a, b) = drifting(&mut rng, 100, 1.02, 0.01);
            let c = compare_paired(&a, &b, &cfg);
            caught += usize::from(c.verdict == Verdict::Regressed);
            assert_eq!(c.method, Method::Paired);
        }
        assert!(false_alarms <= 5, "{false_alarms}");
        assert!(caught >= 95, "{caught}");
        // Improvements are symmetric.
        let (a, b) = drifting(&mut rng, 100, 0.95, 0.01);
        let c = compare_paired(&a, &b, &cfg);
        assert_eq!(c.verdict, Verdict::Improved);
        assert!((c.ratio.unwrap() - 0.95).abs() < 0.01, "{c:?}");
        assert!(c.ci_low.unwrap() < c.ratio.unwrap() && c.ratio.unwrap() < c.ci_high.unwrap());
    }

    #[test]
    fn within_the_threshold_is_unchanged_even_when_significant() {
        let a = vec![100.0; 50];
        let b: Vec<f64> = (0..50).map(|i| 100.3 + 0.01 * f64::from(i % 3)).collect();
        let c = compare_paired(&a, &b, &time());
        assert!(c.p_value < 0.001);
        assert_eq!(c.verdict, Verdict::Unchanged, "{c:?}");
    }

    #[test]
    fn exact_counters_flag_one_count() {
        let cfg = CompareConfig::for_kind(CounterKind::Exact);
        let a = vec![1000.0; 30];
        let b = vec![1001.0; 30];
        let c = compare_paired(&a, &b, &cfg);
        assert_eq!(c.verdict, Verdict::Regressed, "{c:?}");
        assert_eq!(compare_paired(&a, &a, &cfg).verdict, Verdict::Unchanged);
        // From 0 (no ratio): the step decides.
        let z = vec![0.0; 30];
        let one = vec![1.0; 30];
        let c = compare_paired(&z, &one, &cfg);
        assert_eq!((c.ratio, c.verdict), (None, Verdict::Regressed));
    }

    #[test]
    fn t_interval_matches_the_table() {
        // Ten values with mean 1 and standard error 1: t(0.975, 9) = 2.262.
        let d: Vec<f64> = [-2.0, 4.0, -2.0, 4.0, -2.0, 4.0, -2.0, 4.0, -2.0, 4.0]
            .iter()
            .map(|x| x * (10.0_f64 / 9.0).sqrt().recip() * (10.0_f64).sqrt() / 3.0)
            .collect();
        let m = mean(&d);
        let se = (d.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / 9.0 / 10.0).sqrt();
        let (_, _, (l, h)) = t_statistics(m, se, 9.0, 0.95);
        assert!(((h - m) / se - 2.262).abs() < 1e-3, "{}", (h - m) / se);
        assert!(((m - l) / se - 2.262).abs() < 1e-3);
        // No spread: a point, significant unless 0.
        assert_eq!(t_statistics(0.5, 0.0, 3.0, 0.95), (0.5, 0.0, (0.5, 0.5)));
        assert_eq!(t_statistics(0.0, 0.0, 3.0, 0.95).1, 1.0);
    }

    /// Rounds with a bias of their own (where a round's processes and allocations landed) and
    /// little noise within: pair by pair the bias of one round looks like a change; round by
    /// round it is noise.
    fn biased_rounds(rng: &mut Rng, rounds: usize, change: f64) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let bias_a = 1.0 + 0.03 * rng.normal();
            let bias_b = 1.0 + 0.03 * rng.normal();
            a.push(
                (0..10)
                    .map(|_| 100.0 * bias_a * (1.0 + 0.002 * rng.normal()))
                    .collect(),
            );
            b.push(
                (0..10)
                    .map(|_| 100.0 * change * bias_b * (1.0 + 0.002 * rng.normal()))
                    .collect(),
            );
        }
        (a, b)
    }

    fn slices(v: &[Vec<f64>]) -> Vec<&[f64]> {
        v.iter().map(Vec::as_slice).collect()
    }

    #[test]
    fn rounds_carry_their_own_bias_as_noise() {
        let mut rng = Rng::new(5);
        let cfg = time();
        let (mut by_pairs, mut by_rounds, mut caught) = (0, 0, 0);
        for _ in 0..100 {
            let (a, b) = biased_rounds(&mut rng, 10, 1.0);
            let flagged = |c: Change| usize::from(c.verdict != Verdict::Unchanged);
            by_pairs += flagged(compare_paired(&a.concat(), &b.concat(), &cfg));
            by_rounds += flagged(compare_paired_rounds(&slices(&a), &slices(&b), &cfg));
            let (a, b) = biased_rounds(&mut rng, 10, 1.10);
            let c = compare_paired_rounds(&slices(&a), &slices(&b), &cfg);
            caught += usize::from(c.verdict == Verdict::Regressed);
        }
        assert!(
            by_pairs >= 15,
            "pair by pair, round biases are flagged: {by_pairs}"
        );
        assert!(by_rounds <= 5, "round by round they are noise: {by_rounds}");
        assert!(caught >= 90, "{caught}");
        // Four rounds that agree are enough for a verdict (a rank test over rounds could not).
        let a = vec![vec![100.0; 3]; 4];
        let b = vec![vec![300.0; 3]; 4];
        let c = compare_paired_rounds(&slices(&a), &slices(&b), &cfg);
        assert_eq!(c.verdict, Verdict::Regressed, "{c:?}");
        assert!((c.ratio.unwrap() - 3.0).abs() < 1e-9);
    }

    #[test]
    fn degenerate_input() {
        let cfg = time();
        let c = compare_paired(&[], &[], &cfg);
        assert_eq!(
            (c.verdict, c.ratio, c.p_value),
            (Verdict::Unchanged, None, 1.0)
        );
        let c = compare_paired(&[1.0, f64::NAN, 2.0], &[f64::INFINITY, 3.0], &cfg);
        assert_eq!(c.verdict, Verdict::Unchanged);
        // A never-flagged counter.
        let env = CompareConfig::for_kind(CounterKind::Environment);
        let c = compare_paired(&[1.0; 20], &[9.0; 20], &env);
        assert_eq!(c.verdict, Verdict::Unchanged);
    }
}
