//! Human-readable numbers for the terminal: a value and its unit, scaled to three significant
//! digits (`1.23 µs`, `45.2 K`, `1.21 GiB/s`).
//!
//! Units understood (anything else is scaled like a count and keeps its name as a suffix):
//! - `ns`: time, shown in `ns`, `µs`, `ms` or `s`.
//! - `count` (or empty): counts, shown plain below 1000, then `K`, `M`, `G`, `T`.
//! - `bytes`: sizes in binary multiples (`B`, `KiB`, `MiB`, `GiB`, `TiB`).
//! - `B/s`: byte throughput in binary multiples (`B/s`, `KiB/s`, `MiB/s`, `GiB/s`, `TiB/s`).
//! - `elem/s`: element throughput (`elem/s`, `Kelem/s`, `Melem/s`, `Gelem/s`, `Telem/s`).
//! - `%`: a fraction shown as a percentage (`0.0123` -> `1.23%`).
//!
//! Rules, in order:
//! - NaN and infinities are `n/a`; zero is `0`.
//! - Integral values print exactly (`12`, not `12.0`), and whole counts below a million are not
//!   scaled (`4523`, not `4.52 K`): an instruction count that is exactly 4523 per iteration says
//!   so, as `perf stat` would.
//! - Values of magnitude 1 or more (after scaling) get three significant digits (`1.23`, `12.3`,
//!   `123`), and a value that rounds up to 1000 moves to the next unit (`999.96 ns` is
//!   `1.00 µs`, not `1000 ns`).
//! - Values below 1 in the base unit get two significant digits (`0.25`, `-0.30 ns`, `0.031`),
//!   and below 0.001 scientific notation (`1.2e-5`).
//! - Negative values (a bracket overhead subtracted from a near-empty body) keep their sign.
//!
//! Nothing here panics.

/// Whole values below this print in full, unscaled (counts only: time and rates always scale).
const EXACT_BELOW: f64 = 1e6;

/// How a unit scales: the divisor between steps and the names of the steps.
struct Ladder {
    step: f64,
    names: &'static [&'static str],
    /// Put a space between the number and the name (`1.2 µs`, but `1.2%`).
    space: bool,
}

const TIME: Ladder = Ladder {
    step: 1000.0,
    names: &["ns", "µs", "ms", "s"],
    space: true,
};
const COUNT: Ladder = Ladder {
    step: 1000.0,
    names: &["", "K", "M", "G", "T"],
    space: true,
};
const BYTES: Ladder = Ladder {
    step: 1024.0,
    names: &["B", "KiB", "MiB", "GiB", "TiB"],
    space: true,
};
const BYTES_PER_SEC: Ladder = Ladder {
    step: 1024.0,
    names: &["B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"],
    space: true,
};
const ELEMS_PER_SEC: Ladder = Ladder {
    step: 1000.0,
    names: &["elem/s", "Kelem/s", "Melem/s", "Gelem/s", "Telem/s"],
    space: true,
};
const PERCENT: Ladder = Ladder {
    step: f64::INFINITY,
    names: &["%"],
    space: false,
};

fn ladder(unit: &str) -> (&'static Ladder, f64) {
    match unit {
        "ns" => (&TIME, 1.0),
        "bytes" => (&BYTES, 1.0),
        "B/s" => (&BYTES_PER_SEC, 1.0),
        "elem/s" => (&ELEMS_PER_SEC, 1.0),
        "%" => (&PERCENT, 100.0),
        _ => (&COUNT, 1.0),
    }
}

/// A chosen step of a unit's ladder: the divisor and the name to print.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Scale {
    divisor: f64,
    name: &'static str,
    space: bool,
}

impl Scale {
    /// The step that shows `value` (already multiplied by the unit's factor) with at most three
    /// integer digits, moving up one more step when rounding would reach 1000.
    fn pick(ladder: &'static Ladder, value: f64) -> Scale {
        if std::ptr::eq(ladder, &COUNT) && value.fract() == 0.0 && value.abs() < EXACT_BELOW {
            // A whole count prints in full: an exact PMU's 4523 instructions per iteration.
            return Scale {
                divisor: 1.0,
                name: ladder.names[0],
                space: ladder.space,
            };
        }
        let mut i = 0;
        let mut divisor = 1.0;
        let magnitude = value.abs();
        while i + 1 < ladder.names.len() {
            let scaled = magnitude / divisor;
            // Compare the value as it would print, so `999.96` (-> `1000`) moves up.
            if round_to(scaled, decimals_for(scaled)) < 1000.0 {
                break;
            }
            divisor *= ladder.step;
            i += 1;
        }
        Scale {
            divisor,
            name: ladder.names[i],
            space: ladder.space,
        }
    }

    /// Appends the step's name and, for a unit outside the ladders, the unit's own name
    /// (`1.2 K bytes`).
    fn suffix(&self, out: &mut String, own_name: &str) {
        for part in [self.name, own_name] {
            if !part.is_empty() {
                if self.space {
                    out.push(' ');
                }
                out.push_str(part);
            }
        }
    }
}

/// Decimals that give three significant digits for `x >= 1`, two for `x < 1`.
fn decimals_for(x: f64) -> usize {
    let a = x.abs();
    if a == 0.0 || !a.is_finite() || a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        // 0.25 -> 2 decimals, 0.031 -> 3; `a` is at least 1e-3 here (smaller is scientific).
        let exp = a.log10().floor();
        (1.0 - exp).clamp(2.0, 4.0) as usize
    }
}

fn round_to(x: f64, decimals: usize) -> f64 {
    let p = 10f64.powi(decimals as i32);
    (x * p).round() / p
}

/// The number alone, in a given scale.
fn number(value: f64, divisor: f64) -> String {
    if !value.is_finite() {
        return "n/a".to_owned();
    }
    if value == 0.0 {
        return "0".to_owned();
    }
    let x = value / divisor;
    if divisor == 1.0 && x.fract() == 0.0 && x.abs() < EXACT_BELOW {
        return format!("{x:.0}");
    }
    if x.abs() < 1e-3 {
        // Two significant digits in scientific notation: `1.2e-5`.
        return format!("{x:.1e}");
    }
    if x.abs() >= 1e6 {
        // Beyond the largest step (a million seconds): `3.16e7 s`.
        return format!("{x:.2e}");
    }
    let mut d = decimals_for(x);
    // `9.996` rounds to `10.00`: show it as `10.0`, keeping the significant digits.
    let rounded = round_to(x, d);
    if decimals_for(rounded) < d {
        d = decimals_for(rounded);
    }
    format!("{x:.d$}")
}

/// The scale for `value`, the unit's factor (100 for `%`) and, for a unit outside the
/// ladders, its name to print after the step's.
fn scale_for(value: f64, unit: &str) -> (Scale, f64, &str) {
    let (ladder_, factor) = ladder(unit);
    let scale = Scale::pick(ladder_, value * factor);
    let known = !std::ptr::eq(ladder_, &COUNT) || unit.is_empty() || unit == "count";
    (scale, factor, if known { "" } else { unit })
}

/// A ratio `new / base` as a relative change: `+21.4%`, `-3.0%`, `+250%` (no decimal from
/// 100% on); `n/a` when undefined.
///
/// ```
/// use perfbench::units::format_change;
///
/// assert_eq!(format_change(Some(1.214)), "+21.4%");
/// assert_eq!(format_change(Some(0.97)), "-3.0%");
/// assert_eq!(format_change(Some(3.5)), "+250%");
/// assert_eq!(format_change(None), "n/a");
/// ```
pub fn format_change(ratio: Option<f64>) -> String {
    match ratio {
        Some(r) if r.is_finite() => {
            let p = (r - 1.0) * 100.0;
            let digits = if p.abs() >= 100.0 { 0 } else { 1 };
            format!("{p:+.digits$}%")
        }
        _ => "n/a".to_owned(),
    }
}

/// A ratio `new / base` as a relative change and its interval: `+21.4% [+18.0% +24.9%]`; the
/// interval is left out when unknown.
///
/// ```
/// use perfbench::units::format_change_interval;
///
/// let text = format_change_interval(Some(1.214), Some(1.18), Some(1.249));
/// assert_eq!(text, "+21.4% [+18.0% +24.9%]");
/// assert_eq!(format_change_interval(Some(1.214), None, None), "+21.4%");
/// ```
pub fn format_change_interval(ratio: Option<f64>, low: Option<f64>, high: Option<f64>) -> String {
    let mut out = format_change(ratio);
    if let (Some(l), Some(h)) = (low, high) {
        out.push_str(&format!(
            " [{} {}]",
            format_change(Some(l)),
            format_change(Some(h))
        ));
    }
    out
}

/// `value` in `unit`, scaled: `1.23 µs`, `45.2 K`, `0.25`, `-0.30 ns`, `1.21 GiB/s`, `n/a`.
///
/// See the [module documentation](self) for the units and rules.
///
/// ```
/// use perfbench::units::format_value;
///
/// assert_eq!(format_value(1234.0, "ns"), "1.23 µs");
/// assert_eq!(format_value(45_200_000.0, "count"), "45.2 M");
/// assert_eq!(format_value(4523.0, "count"), "4523"); // whole counts below a million: exact
/// assert_eq!(format_value(1536.0, "bytes"), "1.50 KiB");
/// assert_eq!(format_value(1.3e9, "B/s"), "1.21 GiB/s");
/// assert_eq!(format_value(0.0123, "%"), "1.23%");
/// assert_eq!(format_value(f64::NAN, "ns"), "n/a");
/// ```
pub fn format_value(value: f64, unit: &str) -> String {
    if !value.is_finite() {
        return "n/a".to_owned();
    }
    let (scale, factor, own_name) = scale_for(value, unit);
    let mut out = number(value * factor, scale.divisor);
    scale.suffix(&mut out, own_name);
    out
}

/// The scale a plot's axis uses for values up to `magnitude` in `unit`, as the terminal would
/// scale `magnitude`: `(multiplier, label)` where a value times `multiplier` is in `label`
/// (`(0.001, "µs")` for 1234 ns, `(1e-3, "K")` for 45,200 counts, `(100.0, "%")` for a
/// fraction, `(1.0, "")` for plain counts).
///
/// ```
/// use perfbench::units::axis_scale;
///
/// let (multiplier, label) = axis_scale(1234.0, "ns");
/// assert_eq!((multiplier, label.as_str()), (0.001, "µs"));
/// assert_eq!(axis_scale(0.25, "%"), (100.0, "%".to_string()));
/// ```
pub fn axis_scale(magnitude: f64, unit: &str) -> (f64, String) {
    let magnitude = if magnitude.is_finite() {
        magnitude.abs()
    } else {
        0.0
    };
    let (ladder_, factor) = ladder(unit);
    // A count axis scales even when its largest value is a whole number below a million.
    let scale = Scale::pick(ladder_, magnitude * factor + 0.5);
    let (_, _, own_name) = scale_for(magnitude, unit);
    let mut label = String::new();
    scale.suffix(&mut label, own_name);
    (factor / scale.divisor, label.trim_start().to_owned())
}

/// A confidence interval with each bound scaled on its own: `[1.20 µs 1.26 µs]`. A non-finite
/// bound is `n/a`.
///
/// ```
/// use perfbench::units::format_interval;
///
/// assert_eq!(format_interval(1200.0, 1260.0, "ns"), "[1.20 µs 1.26 µs]");
/// assert_eq!(format_interval(f64::NAN, 5.0, "ns"), "[n/a 5 ns]");
/// ```
pub fn format_interval(low: f64, high: f64, unit: &str) -> String {
    format!("[{} {}]", format_value(low, unit), format_value(high, unit))
}

/// What a report shows for a value below zero that calibration made (the body cost less than
/// the empty body it is calibrated against, by less than the noise of either).
pub const BELOW_RESOLUTION: &str = "(below resolution)";

/// A per-iteration figure as reports show it: [`format_value`], except that a value below zero,
/// which only calibration can make (a body that costs less than the subtraction can resolve),
/// reads as zero and says so.
///
/// ```
/// use perfbench::units::format_point;
///
/// assert_eq!(format_point(12.34, "ns"), "12.3 ns");
/// assert_eq!(format_point(-0.0055, "ns"), "0 ns (below resolution)");
/// assert_eq!(format_point(-0.02, "count"), "0 (below resolution)");
/// assert_eq!(format_point(f64::NAN, "ns"), "n/a");
/// ```
pub fn format_point(value: f64, unit: &str) -> String {
    if value < 0.0 {
        format!("{} {BELOW_RESOLUTION}", format_value(0.0, unit))
    } else {
        format_value(value, unit)
    }
}

/// A point estimate and its interval sharing the point's scale, for tables: (`1.23 µs`,
/// `[1.20 1.26]`). When the point is not finite the interval is scaled on its own; a point
/// below zero reads as [`format_point`] shows it, its interval as it is.
///
/// ```
/// use perfbench::units::format_estimate;
///
/// let (point, interval) = format_estimate(1234.0, 1200.0, 1260.0, "ns");
/// assert_eq!((point.as_str(), interval.as_str()), ("1.23 µs", "[1.20 1.26]"));
/// let (point, interval) = format_estimate(-0.0055, -0.0102, 0.0021, "ns");
/// assert_eq!((point.as_str(), interval.as_str()), ("0 ns (below resolution)", "[-0.010 0.0021]"));
/// ```
pub fn format_estimate(point: f64, low: f64, high: f64, unit: &str) -> (String, String) {
    if !point.is_finite() {
        return (
            "n/a".to_owned(),
            format!("[{} {}]", format_value(low, unit), format_value(high, unit)),
        );
    }
    let (scale, factor, own_name) = scale_for(point, unit);
    let mut value = number(point * factor, scale.divisor);
    scale.suffix(&mut value, own_name);
    if point < 0.0 {
        value = format_point(point, unit);
    }
    let interval = format!(
        "[{} {}]",
        number(low * factor, scale.divisor),
        number(high * factor, scale.divisor)
    );
    (value, interval)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_scales_follow_the_terminal() {
        assert_eq!(axis_scale(1234.0, "ns"), (0.001, "µs".to_owned()));
        assert_eq!(axis_scale(12.0, "ns"), (1.0, "ns".to_owned()));
        assert_eq!(axis_scale(45_200.0, "count"), (0.001, "K".to_owned()));
        assert_eq!(axis_scale(45.0, "count"), (1.0, String::new()));
        assert_eq!(axis_scale(0.5, "%"), (100.0, "%".to_owned()));
        assert_eq!(axis_scale(f64::NAN, "ns"), (1.0, "ns".to_owned()));
    }

    #[test]
    fn time() {
        assert_eq!(format_value(0.0, "ns"), "0 ns");
        assert_eq!(format_value(12.0, "ns"), "12 ns");
        assert_eq!(format_value(12.34, "ns"), "12.3 ns");
        assert_eq!(format_value(1234.0, "ns"), "1.23 µs");
        assert_eq!(format_value(12_345.0, "ns"), "12.3 µs");
        assert_eq!(format_value(123_456.0, "ns"), "123 µs");
        assert_eq!(format_value(1.5e6, "ns"), "1.50 ms");
        assert_eq!(format_value(2.5e9, "ns"), "2.50 s");
        assert_eq!(format_value(1e12, "ns"), "1000 s");
        assert_eq!(format_value(3.6e12, "ns"), "3600 s");
    }

    #[test]
    fn small_and_negative() {
        assert_eq!(format_value(-0.3, "ns"), "-0.30 ns");
        assert_eq!(format_value(0.25, "count"), "0.25");
        assert_eq!(format_value(0.3, "count"), "0.30");
        assert_eq!(format_value(0.0312, "count"), "0.031");
        assert_eq!(format_value(0.001, "count"), "0.0010");
        assert_eq!(format_value(1.23e-5, "count"), "1.2e-5");
        assert_eq!(format_value(-1234.0, "ns"), "-1.23 µs");
        assert_eq!(format_value(-0.0, "ns"), "0 ns");
    }

    #[test]
    fn rounding_boundaries() {
        assert_eq!(format_value(999.0, "ns"), "999 ns");
        assert_eq!(format_value(999.4, "ns"), "999 ns");
        assert_eq!(format_value(999.9, "ns"), "1.00 µs");
        assert_eq!(format_value(999_999.6, "count"), "1.00 M");
        assert_eq!(format_value(9.996, "ns"), "10.0 ns");
        assert_eq!(format_value(99.96, "ns"), "100 ns");
        assert_eq!(format_value(0.9996, "count"), "1.00");
        assert_eq!(format_value(1000.0, "count"), "1000");
        assert_eq!(format_value(1000.2, "count"), "1.00 K");
    }

    #[test]
    fn counts() {
        assert_eq!(format_value(0.0, "count"), "0");
        assert_eq!(format_value(7.0, "count"), "7");
        assert_eq!(format_value(4523.0, "count"), "4523");
        assert_eq!(format_value(999_999.0, "count"), "999999");
        assert_eq!(format_value(4523.5, "count"), "4.52 K");
        assert_eq!(format_value(45_230.4, "count"), "45.2 K");
        assert_eq!(format_value(1_000_000.0, "count"), "1.00 M");
        assert_eq!(format_value(4523.0, "ns"), "4.52 µs", "time always scales");
        assert_eq!(format_value(1.2e9, "count"), "1.20 G");
        assert_eq!(format_value(1e12, "count"), "1.00 T");
        assert_eq!(format_value(3.25, ""), "3.25");
        assert_eq!(format_value(2048.0, "widgets"), "2048 widgets");
        assert_eq!(format_value(2048.5, "widgets"), "2.05 K widgets");
        assert_eq!(format_value(2048.0, "bytes"), "2.00 KiB");
        assert_eq!(format_value(48.0, "bytes"), "48 B");
        assert_eq!(format_value(5.0, "furlongs"), "5 furlongs");
        assert_eq!(format_value(0.0999, "count"), "0.10");
        assert_eq!(format_value(3.16e16, "ns"), "3.16e7 s");
    }

    #[test]
    fn throughput_and_percent() {
        assert_eq!(format_value(1.3e9, "B/s"), "1.21 GiB/s");
        assert_eq!(format_value(512.0, "B/s"), "512 B/s");
        assert_eq!(format_value(1023.9, "B/s"), "1.00 KiB/s");
        assert_eq!(format_value(3.4e6, "elem/s"), "3.40 Melem/s");
        assert_eq!(format_value(0.0123, "%"), "1.23%");
        assert_eq!(format_value(0.5, "%"), "50%");
    }

    #[test]
    fn not_a_number() {
        for unit in ["ns", "count", "B/s", "%", "x"] {
            assert_eq!(format_value(f64::NAN, unit), "n/a");
            assert_eq!(format_value(f64::INFINITY, unit), "n/a");
        }
        assert_eq!(format_interval(f64::NAN, 1.0, "ns"), "[n/a 1 ns]");
        assert_eq!(
            format_estimate(f64::NAN, 1.0, 2.0, "ns"),
            ("n/a".to_owned(), "[1 ns 2 ns]".to_owned())
        );
        assert_eq!(
            format_estimate(1500.0, f64::NAN, 1600.0, "ns"),
            ("1.50 µs".to_owned(), "[n/a 1.60]".to_owned())
        );
    }

    #[test]
    fn intervals() {
        assert_eq!(format_interval(1200.0, 1260.0, "ns"), "[1.20 µs 1.26 µs]");
        assert_eq!(format_interval(990.0, 1010.0, "ns"), "[990 ns 1.01 µs]");
        assert_eq!(
            format_estimate(1234.0, 1200.0, 1260.0, "ns"),
            ("1.23 µs".to_owned(), "[1.20 1.26]".to_owned())
        );
        // Bounds in the point's scale, each with its own significant digits.
        assert_eq!(
            format_estimate(1010.0, 990.0, 1030.0, "ns"),
            ("1.01 µs".to_owned(), "[0.99 1.03]".to_owned())
        );
        assert_eq!(
            format_estimate(12.0, 12.0, 12.0, "count"),
            ("12".to_owned(), "[12 12]".to_owned())
        );
        assert_eq!(
            format_estimate(-0.3, -0.5, 0.1, "ns"),
            (
                "0 ns (below resolution)".to_owned(),
                "[-0.50 0.10]".to_owned()
            )
        );
    }

    #[test]
    fn never_panics_on_extremes() {
        for x in [
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            1e300,
        ] {
            for unit in ["ns", "count", "B/s", "elem/s", "%", "?"] {
                let s = format_value(x, unit);
                assert!(!s.is_empty());
                let _ = format_estimate(x, -x, x, unit);
            }
        }
    }
}
