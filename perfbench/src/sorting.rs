//! Sorting, compiled once for the whole crate, and percentiles of sorted data.
//!
//! Every `sort_by` with its own closure, and every element type sorted, compiles the standard
//! library's sort again: 2,000 to 3,000 lines of LLVM IR each, which every downstream build of
//! a benchmark suite pays for. So perfbench sorts through two functions only: [`sort_f64`] for
//! numbers (the statistics), and [`sort_by`] for everything else (names, files, registrations),
//! which orders indices with one comparator behind `dyn` and then moves the elements into
//! place.
//!
//! This module sits below every other: it knows nothing of perfbench's types.

use std::cmp::Ordering;

/// Sorts `values` ascending in [`f64::total_cmp`] order (`-NaN` < `-inf` < ... < `-0` < `+0`
/// < ... < `+inf` < `NaN`). Values equal in that order are identical, so the sort is as good
/// as stable.
pub fn sort_f64(values: &mut [f64]) {
    values.sort_unstable_by(f64::total_cmp);
}

/// The `p`th percentile (0 to 100; NaN reads as 0) of `sorted` (ascending, as [`sort_f64`]
/// leaves it) by linear interpolation between the two nearest ranks; 0 for no values. The one
/// definition of a percentile in the workspace: the stopping rule's fences and the analysis's
/// quartiles, fences and medians read their data through it.
///
/// ```
/// use perfbench::sorting::percentile_of_sorted;
///
/// let v = [1.0, 2.0, 3.0, 4.0, 5.0];
/// assert_eq!(percentile_of_sorted(&v, 25.0), 2.0);
/// assert_eq!(percentile_of_sorted(&v, 50.0), 3.0);
/// assert_eq!(percentile_of_sorted(&v, 62.5), 3.5);
/// assert_eq!(percentile_of_sorted(&v, 100.0), 5.0);
/// assert_eq!(percentile_of_sorted(&[], 50.0), 0.0);
/// ```
pub fn percentile_of_sorted(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return 0.0;
    }
    let p = if p.is_nan() { 0.0 } else { p.clamp(0.0, 100.0) };
    let rank = p / 100.0 * (n - 1) as f64;
    let below = (rank.floor() as usize).min(n - 1);
    let above = (below + 1).min(n - 1);
    let (lo, hi) = (sorted[below], sorted[above]);
    let frac = rank - below as f64;
    (lo + (hi - lo) * frac).clamp(lo, hi)
}

/// Sorts `v` by `cmp`, stably (elements that compare equal keep their order), like
/// [`slice::sort_by`]. For cold paths: each comparison is a dynamic call.
pub fn sort_by<T>(v: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    let order = stable_order(v.len(), &|i, j| cmp(&v[i], &v[j]));
    permute(v, order);
}

/// The indices `0..n` in the order `cmp` (which compares the elements at two indices) puts
/// them, ties in index order.
fn stable_order(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by(|&i, &j| cmp(i, j).then(i.cmp(&j)));
    order
}

/// Rearranges `v` so that its element `k` is the one that was at `order[k]`, where `order` is a
/// permutation of `0..v.len()`. In place, with swaps only (so the code per element type is a
/// few lines).
fn permute<T>(v: &mut [T], order: Vec<usize>) {
    debug_assert_eq!(order.len(), v.len());
    for i in 0..v.len() {
        // The element that was at `order[i]` moved, if that index is before `i`, to where the
        // element wanted at that index was; follow the moves to where it is now.
        let mut j = order[i];
        while j < i {
            j = order[j];
        }
        v.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_by_is_stable_and_sorted() {
        // Keys with ties, tagged by their original position.
        let keys = [5, 3, 5, 1, 3, 3, 0, 5, 2, 1, 4, 4, 0];
        let mut v: Vec<(i32, usize)> = keys.iter().copied().zip(0..).collect();
        let mut want = v.clone();
        want.sort_by_key(|e| e.0);
        sort_by(&mut v, |a, b| a.0.cmp(&b.0));
        assert_eq!(v, want);
    }

    #[test]
    fn every_permutation_of_small_inputs_sorts() {
        // All 720 orders of 6 distinct values, and a reversed run of strings.
        let mut perm: Vec<u32> = (0..6).collect();
        let mut count = 0;
        loop {
            let mut v = perm.clone();
            sort_by(&mut v, |a, b| a.cmp(b));
            assert_eq!(v, (0..6).collect::<Vec<u32>>());
            count += 1;
            // The next permutation in lexicographic order.
            let Some(i) = (0..5).rev().find(|&i| perm[i] < perm[i + 1]) else {
                break;
            };
            let j = (i + 1..6).rev().find(|&j| perm[j] > perm[i]).unwrap();
            perm.swap(i, j);
            perm[i + 1..].reverse();
        }
        assert_eq!(count, 720);
        let mut names: Vec<String> = (0..50).rev().map(|i| format!("n{i:02}")).collect();
        sort_by(&mut names, |a, b| a.cmp(b));
        assert!(names.windows(2).all(|w| w[0] < w[1]));
        sort_by(&mut Vec::<String>::new(), |a, b| a.cmp(b));
    }

    #[test]
    fn sort_f64_is_total_cmp_order() {
        let mut v = [
            3.0,
            f64::NAN,
            -0.0,
            0.0,
            f64::NEG_INFINITY,
            -1.5,
            f64::INFINITY,
        ];
        sort_f64(&mut v);
        let bits: Vec<u64> = v.iter().map(|x| x.to_bits()).collect();
        let want: Vec<u64> = [
            f64::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            3.0,
            f64::INFINITY,
            f64::NAN,
        ]
        .iter()
        .map(|x| x.to_bits())
        .collect();
        assert_eq!(bits, want);
    }
}
