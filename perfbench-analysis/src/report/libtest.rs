//! libtest's benchmark lines, as `cargo bench -- --output-format bencher` prints them:
//!
//! ```text
//! test quickstart/fib_20 ... bench:      25,673 ns/iter (+/- 41)
//! ```
//!
//! The same lines criterion prints with that flag, and what github-action-benchmark's `cargo`
//! tool and Bencher's `rust_bench` adapter parse. The figure is the wall-time headline
//! ([`Estimate::point`](crate::model::Estimate::point)) rounded to whole nanoseconds with
//! thousands separators; the `+/-` is its MAD (scaled to estimate a standard deviation: robust
//! to the descheduled samples a shared machine produces, where criterion prints the standard
//! deviation). Only wall time fits the format; every counter is in the JSON report and in
//! `perfbench export --format bmf`.

use crate::model::{Benchmark, Outcome};

/// `1234567.8` -> `1,234,568`; negative and non-finite values as `0` (a time cannot be either).
///
/// ```
/// use perfbench_analysis::report::libtest::integer;
///
/// assert_eq!(integer(1_234_567.8), "1,234,568");
/// assert_eq!(integer(-3.0), "0");
/// ```
pub fn integer(x: f64) -> String {
    let n = if x.is_finite() && x > 0.0 {
        x.round() as u64
    } else {
        0
    };
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// The benchmark's line, ending with a newline: its wall time, `FAILED` for one that panicked
/// or failed, `ok` for a smoke test, and nothing for one measured without wall time.
///
/// ```
/// use perfbench_analysis::model::{Benchmark, Outcome};
/// use perfbench_analysis::report::libtest::line;
///
/// let mut b = Benchmark::new("g/parse", "g", "parse", None, Outcome::Tested);
/// assert_eq!(line(&b), "test g/parse ... ok\n");
/// b.outcome = Outcome::Panicked;
/// assert_eq!(line(&b), "test g/parse ... FAILED\n");
/// ```
pub fn line(b: &Benchmark) -> String {
    match b.outcome {
        Outcome::Panicked | Outcome::Failed => format!("test {} ... FAILED\n", b.id),
        Outcome::Tested => format!("test {} ... ok\n", b.id),
        Outcome::Measured => match b.counter("wall-time").and_then(|c| c.estimate) {
            Some(e) => format!(
                "test {} ... bench: {:>11} ns/iter (+/- {})\n",
                b.id,
                integer(e.point),
                integer(e.mad)
            ),
            None => String::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::synthetic_report;

    #[test]
    fn integers_have_thousands_separators() {
        for (x, s) in [
            (0.0, "0"),
            (0.4, "0"),
            (999.5, "1,000"),
            (25673.2, "25,673"),
            (1234567.0, "1,234,567"),
            (-3.0, "0"),
            (f64::NAN, "0"),
        ] {
            assert_eq!(integer(x), s, "{x}");
        }
    }

    #[test]
    fn lines_are_what_libtest_and_criterion_print() {
        let r = synthetic_report();
        assert_eq!(
            line(&r.benchmarks[0]),
            "test math/fib_20 ... bench:       1,223 ns/iter (+/- 15)\n"
        );
        assert_eq!(line(&r.benchmarks[2]), "test io/boom ... FAILED\n");
        // The pattern github-action-benchmark's cargo tool matches.
        let l = line(&r.benchmarks[1]);
        let rest = l.strip_prefix("test math/sum/4096 ... bench:").unwrap();
        let fields: Vec<&str> = rest.split_whitespace().collect();
        assert_eq!(fields[1], "ns/iter");
        assert!(fields[0].chars().all(|c| c.is_ascii_digit() || c == ','));
        assert!(fields[2] == "(+/-" && fields[3].ends_with(')'));
    }
}
