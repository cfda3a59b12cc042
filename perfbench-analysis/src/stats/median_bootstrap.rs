//! The bootstrap distribution of the median, exactly ([`median_distribution`]): what
//! infinitely many resamples would give, computed from binomial probabilities instead of drawn.
//!
//! A resample draws `n` of the sample's `n` positions with replacement. Sorted, the sample is
//! `x[1] <= ... <= x[n]`, and the count of draws at or below position `i` is binomial with
//! `n` trials and probability `i / n`. So the resample's `a`-th smallest value is `x[i]` with
//! probability `P(Bin(n, i/n) >= a) - P(Bin(n, (i-1)/n) >= a)`: for odd `n`, the median is that
//! order statistic with `a = (n + 1) / 2`. For even `n` it is the mean of the `a`-th and the
//! `a + 1`-th (`a = n / 2`), which sit at positions `i < k` when exactly `a` draws fall at or
//! below `i`, at least one of them at `i`, none between `i` and `k`, and at least one at `k`:
//!
//! ```text
//! P(i, k) = [C(n,a) (i/n)^a (1 - i/n)^(n-a) - C(n,a) ((i-1)/n)^a (1 - i/n)^(n-a)]
//!         * [((n-k+1)/(n-i))^(n-a) - ((n-k)/(n-i))^(n-a)]
//! ```
//!
//! (the second factor: the other `n - a` draws fall uniformly above `i`), and both at position
//! `i` with what is left of the `a`-th's probability there. Only positions within a few standard
//! deviations of the middle, and gaps `k - i` of a few dozen, carry any probability worth a
//! double's precision, so the work grows about as the sample does; a million resamples of a
//! sample of 100 cost what this costs for a sample of about a million.

/// Samples larger than this take the Monte Carlo bootstrap instead (the table of logarithms
/// of factorials would cost more memory than it saves time).
pub const MAX_EXACT: usize = 1 << 20;

/// Probabilities below this (relative to 1) are dropped: their sum stays far below what a
/// percentile of the distribution can notice.
const NEGLIGIBLE: f64 = 1e-18;

/// The exact bootstrap distribution of the median of `sorted` (ascending, finite, at most
/// [`MAX_EXACT`] values): `(value, probability)` pairs sorted by value, the probabilities adding
/// up to 1 (up to rounding and the dropped terms below `1e-18`). Empty for an empty sample.
///
/// ```
/// use perfbench_analysis::stats::median_bootstrap::median_distribution;
///
/// // Two values: both draws the first (1/4), one of each (1/2), both the second (1/4).
/// let d = median_distribution(&[1.0, 3.0]);
/// let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
/// assert_eq!(d.len(), 3);
/// assert!(close(d[0].0, 1.0) && close(d[0].1, 0.25));
/// assert!(close(d[1].0, 2.0) && close(d[1].1, 0.5));
/// assert!(close(d[2].0, 3.0) && close(d[2].1, 0.25));
/// ```
pub fn median_distribution(sorted: &[f64]) -> Vec<(f64, f64)> {
    let n = sorted.len();
    if n == 0 {
        return Vec::new();
    }
    let binomial = Binomial::new(n);
    // `x(i)` for a 1-based position.
    let x = |i: usize| sorted[i - 1];
    let (low, high) = window(n);
    let mut atoms: Vec<(f64, f64)> = Vec::new();
    // The a-th smallest draw: the median for odd `n`, the lower of the two middle ones for even.
    let a = n.div_ceil(2);
    let rest = (n - a) as i32;
    let mut below = binomial.tail(a, low - 1);
    for i in low..=high {
        let upto = binomial.tail(a, i);
        // P(the a-th smallest draw is at position i).
        let at_i = (upto - below).max(0.0);
        below = upto;
        if n % 2 == 1 {
            push(&mut atoms, x(i), at_i);
            continue;
        }
        if at_i < NEGLIGIBLE {
            continue;
        }
        // P(exactly a draws at or below i, at least one at i).
        let first = (binomial.pmf(a, i as f64 / n as f64) - binomial.pmf_at_edge(a, i)).max(0.0);
        let span = (n - i) as f64;
        // P(the other n - a draws all above i land at k or above): k = i + 1 first.
        let mut from_k = 1.0;
        let mut paired = 0.0;
        for k in i + 1..=n {
            let above_k = ((n - k) as f64 / span).powi(rest);
            // None between i and k, at least one at k.
            let second = from_k - above_k;
            from_k = above_k;
            let p = first * second;
            paired += p;
            push(&mut atoms, 0.5 * (x(i) + x(k)), p);
            if second < NEGLIGIBLE {
                break;
            }
        }
        // Both middle draws at position i.
        push(&mut atoms, x(i), (at_i - paired).max(0.0));
    }
    // A hot path (thousands of atoms): the slice's sort, in `perfbench::sorting`'s order.
    atoms.sort_unstable_by(|p, q| p.0.total_cmp(&q.0));
    // Equal values (ties in the data, or pairs with the same mean) as one atom.
    let mut merged: Vec<(f64, f64)> = Vec::with_capacity(atoms.len());
    for (v, p) in atoms {
        match merged.last_mut() {
            Some(last) if last.0 == v => last.1 += p,
            _ => merged.push((v, p)),
        }
    }
    merged
}

/// The value at which the distribution's cumulative probability first reaches `q` (in
/// `[0, 1]`) of its total: the inverse of its distribution function. `None` for an empty one.
///
/// ```
/// use perfbench_analysis::stats::median_bootstrap::quantile;
///
/// let d = [(1.0, 0.25), (2.0, 0.5), (3.0, 0.25)];
/// assert_eq!(quantile(&d, 0.2), Some(1.0));
/// assert_eq!(quantile(&d, 0.5), Some(2.0));
/// assert_eq!(quantile(&d, 0.9), Some(3.0));
/// ```
pub fn quantile(distribution: &[(f64, f64)], q: f64) -> Option<f64> {
    let total: f64 = distribution.iter().map(|a| a.1).sum();
    let target = q.clamp(0.0, 1.0) * total;
    let mut sum = 0.0;
    for &(v, p) in distribution {
        sum += p;
        if sum >= target {
            return Some(v);
        }
    }
    distribution.last().map(|a| a.0)
}

fn push(atoms: &mut Vec<(f64, f64)>, value: f64, probability: f64) {
    if probability >= NEGLIGIBLE {
        atoms.push((value, probability));
    }
}

/// The 1-based positions that can hold the median with more than negligible probability: the
/// middle, give or take twelve standard deviations of the count of draws below it.
fn window(n: usize) -> (usize, usize) {
    let spread = (12.0 * (n as f64).sqrt() / 2.0).ceil() as usize + 2;
    let middle = n / 2;
    (
        middle.saturating_sub(spread).max(1),
        (middle + spread + 1).min(n),
    )
}

/// Binomial probabilities of `n` draws, from a table of `ln(j!)`.
struct Binomial {
    n: usize,
    ln_factorial: Vec<f64>,
}

impl Binomial {
    fn new(n: usize) -> Binomial {
        let mut ln_factorial = Vec::with_capacity(n + 1);
        let mut sum = 0.0;
        ln_factorial.push(0.0);
        for j in 1..=n {
            sum += (j as f64).ln();
            ln_factorial.push(sum);
        }
        Binomial { n, ln_factorial }
    }

    fn ln_choose(&self, j: usize) -> f64 {
        self.ln_factorial[self.n] - self.ln_factorial[j] - self.ln_factorial[self.n - j]
    }

    /// `C(n, j) p^j (1-p)^(n-j)`.
    fn pmf(&self, j: usize, p: f64) -> f64 {
        self.weighted(j, p, 1.0 - p)
    }

    /// `C(n, j) ((i-1)/n)^j (1 - i/n)^(n-j)`: `j` draws below position `i`, none at it, the rest
    /// above it.
    fn pmf_at_edge(&self, j: usize, i: usize) -> f64 {
        let n = self.n as f64;
        self.weighted(j, (i - 1) as f64 / n, 1.0 - i as f64 / n)
    }

    /// `C(n, j) p^j q^(n-j)`, with `0^0 = 1`.
    fn weighted(&self, j: usize, p: f64, q: f64) -> f64 {
        let term = |count: usize, base: f64| {
            if count == 0 {
                0.0
            } else {
                count as f64 * base.ln()
            }
        };
        (self.ln_choose(j) + term(j, p) + term(self.n - j, q)).exp()
    }

    /// `P(Bin(n, i/n) >= a)`: at least `a` draws at or below position `i` (0 for `i = 0`).
    fn tail(&self, a: usize, i: usize) -> f64 {
        let n = self.n;
        if i == 0 {
            return 0.0;
        }
        if i == n {
            return 1.0;
        }
        let p = i as f64 / n as f64;
        let ratio = p / (1.0 - p);
        // From the mode outwards: the terms fall off quickly on both sides.
        let mode = ((n as f64 + 1.0) * p).floor() as usize;
        let start = a.max(mode.min(n));
        let at_start = self.pmf(start, p);
        let mut sum = 0.0;
        let mut term = at_start;
        for j in start..=n {
            sum += term;
            if term < NEGLIGIBLE * sum || j == n {
                break;
            }
            term *= (n - j) as f64 / (j + 1) as f64 * ratio;
        }
        // Terms between `a` and the mode, going down.
        let mut term = at_start;
        for j in (a..start).rev() {
            term *= (j + 1) as f64 / (n - j) as f64 / ratio;
            sum += term;
            if term < NEGLIGIBLE * sum {
                break;
            }
        }
        sum.min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::bootstrap::distribution;
    use crate::stats::univariate::median_in_place;
    use crate::stats::Sample;

    /// The largest gap between the exact distribution function and that of `draws` resamples.
    fn gap_to_monte_carlo(data: &[f64], draws: usize) -> f64 {
        let mut sorted = data.to_vec();
        sorted.sort_by(f64::total_cmp);
        let exact = median_distribution(&sorted);
        let mut drawn = distribution(Sample::new(data).unwrap(), draws, 7, median_in_place);
        drawn.sort_by(f64::total_cmp);
        let mut cumulative = 0.0;
        let mut worst: f64 = 0.0;
        for &(v, p) in &exact {
            cumulative += p;
            let below = drawn.partition_point(|&d| d <= v) as f64 / draws as f64;
            worst = worst.max((cumulative - below).abs());
        }
        worst
    }

    fn sample(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                // Ties on purpose: 40 distinct values.
                (s % 40) as f64 + 100.0
            })
            .collect()
    }

    #[test]
    fn matches_many_resamples_for_odd_and_even_sizes() {
        // 200,000 resamples put the drawn distribution function within about 0.003 of the
        // true one; a wrong formula is off by far more.
        for n in [1, 2, 3, 4, 7, 10, 11, 40, 101] {
            let data = sample(n, 0x9e37_79b9 + n as u64);
            let gap = gap_to_monte_carlo(&data, 200_000);
            assert!(gap < 0.006, "n = {n}: {gap}");
        }
    }

    #[test]
    fn probabilities_add_up_to_one() {
        for n in [1, 2, 5, 10, 99, 100, 1_000, 5_000] {
            let mut data = sample(n, n as u64 + 1);
            data.sort_by(f64::total_cmp);
            let total: f64 = median_distribution(&data).iter().map(|a| a.1).sum();
            assert!((total - 1.0).abs() < 1e-9, "n = {n}: {total}");
        }
    }

    #[test]
    fn distinct_values_sorted_and_constant_data_is_one_atom() {
        let mut data = sample(60, 3);
        data.sort_by(f64::total_cmp);
        let d = median_distribution(&data);
        assert!(d.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(median_distribution(&[4.0; 9]), vec![(4.0, 1.0)]);
        assert!(median_distribution(&[]).is_empty());
    }

    #[test]
    fn the_binomial_tail_is_exact_for_small_cases() {
        // n = 4, p = 1/2: P(X >= 2) = 11/16, P(X >= 4) = 1/16.
        let b = Binomial::new(4);
        assert!((b.tail(2, 2) - 11.0 / 16.0).abs() < 1e-12);
        assert!((b.tail(4, 2) - 1.0 / 16.0).abs() < 1e-12);
        assert_eq!((b.tail(1, 0), b.tail(3, 4)), (0.0, 1.0));
    }
}
