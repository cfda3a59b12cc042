//! The plots of a group of benchmarks, which the index shows per group: each counter against
//! the argument with a line per function ([`over_arguments`]), the distributions of functions
//! without arguments side by side ([`side_by_side`]), and the change of each benchmark against
//! the baseline ([`changes`]).
//!
//! A logarithmic axis (where the values span a decade or more) has its ticks at the powers of
//! ten, each labelled in its unit (`100 ns`, `10.0 µs`); a linear one is scaled as the other
//! plots are ([`units::axis_scale`]). Names on an axis are cut at [`NAME_CHARS`] characters
//! (the plot's `<title>` has them whole); plotters escapes the text it draws.

use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::*;
use crate::stats::{headline_samples, Change, Verdict};

mod bars;
mod boxes;
mod lines;

pub use bars::changes;
pub use boxes::side_by_side;
pub use lines::over_arguments;

/// The most characters of a name drawn on an axis or in a legend.
pub const NAME_CHARS: usize = 28;

/// The functions' colours, one per line: they read on a light and a dark page.
const PALETTE: [RGBColor; 8] = [
    NEW,
    BASE,
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x17, 0xbe, 0xcf),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
];
/// A regression's bar: the page's `--bad`, which its style sheet restyles in dark mode.
pub const REGRESSED: RGBColor = RGBColor(0xc6, 0x28, 0x28);
/// An improvement's bar: the page's `--good`, restyled in dark mode.
pub const IMPROVED: RGBColor = RGBColor(0x2e, 0x7d, 0x32);
/// An unchanged benchmark's bar: the page's `--muted`, restyled in dark mode.
pub const UNCHANGED: RGBColor = RGBColor(0x5f, 0x63, 0x68);

/// One function's line in [`over_arguments`]: its estimate with its interval at each argument.
pub struct Line<'a> {
    /// The function (and its type parameters, if any).
    pub name: &'a str,
    /// `(x, estimate)`: x is the argument's value, or its position among the categories.
    pub points: Vec<(f64, Marked)>,
}

/// One function's samples in [`side_by_side`].
pub struct Spread<'a> {
    /// The function.
    pub name: &'a str,
    /// Its per-iteration values (the severe outliers that the estimate leaves out are left out
    /// of the whiskers too).
    pub values: &'a [f64],
    /// Its estimate with its interval.
    pub marked: Option<Marked>,
}

/// One benchmark's change in [`changes`].
pub struct Bar<'a> {
    /// The benchmark.
    pub name: &'a str,
    /// Its change against the baseline: ratio, interval and verdict.
    pub change: Change,
}

/// A name as an axis or a legend shows it: at most [`NAME_CHARS`] characters.
fn short(name: &str) -> String {
    if name.chars().count() <= NAME_CHARS {
        name.to_owned()
    } else {
        let mut s: String = name.chars().take(NAME_CHARS - 1).collect();
        s.push('…');
        s
    }
}

/// Tick labels of an axis.
type Ticks = Box<dyn Fn(&f64) -> String>;

/// A row of [`changes`]: the benchmark, its change in percent and its interval's.
type BarRow<'b, 'a> = (&'b Bar<'a>, f64, Option<(f64, f64)>);

/// An axis: linear, or logarithmic (base 10) between positive bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Axis {
    Linear(f64, f64),
    Log(f64, f64),
}

impl Axis {
    /// The axis of values from `lo` to `hi` (finite): logarithmic where both are positive and
    /// `hi` is ten times `lo` or more, with room around them.
    fn over(lo: f64, hi: f64, share: f64) -> Axis {
        if lo > 0.0 && hi / lo >= 10.0 {
            let f = (hi / lo).powf(share);
            Axis::Log(lo / f, hi * f)
        } else {
            let (l, h) = padded(lo, hi, share);
            Axis::Linear(l, h)
        }
    }

    fn is_log(self) -> bool {
        matches!(self, Axis::Log(..))
    }
}

/// What a group plot draws once its axes are set: generic over their kinds.
trait Body {
    fn draw<'c, DB, X, Y>(
        &self,
        root: &DrawingArea<DB, Shift>,
        chart: &mut ChartContext<'c, DB, Cartesian2d<X, Y>>,
    ) -> Drawn
    where
        DB: DrawingBackend + 'c,
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>;
}

/// Builds the chart on `x` and `y` (each linear or logarithmic) and has `body` draw on it.
fn on_axes<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    builder: &mut ChartBuilder<'_, '_, DB>,
    x: Axis,
    y: Axis,
    body: &impl Body,
) -> Drawn {
    use plotters::coord::combinators::IntoLogRange;
    match (x, y) {
        (Axis::Linear(a, b), Axis::Linear(c, d)) => {
            let mut chart = builder.build_cartesian_2d(a..b, c..d).map_err(err)?;
            body.draw(root, &mut chart)
        }
        (Axis::Linear(a, b), Axis::Log(c, d)) => {
            let mut chart = builder
                .build_cartesian_2d(a..b, (c..d).log_scale())
                .map_err(err)?;
            body.draw(root, &mut chart)
        }
        (Axis::Log(a, b), Axis::Linear(c, d)) => {
            let mut chart = builder
                .build_cartesian_2d((a..b).log_scale(), c..d)
                .map_err(err)?;
            body.draw(root, &mut chart)
        }
        (Axis::Log(a, b), Axis::Log(c, d)) => {
            let mut chart = builder
                .build_cartesian_2d((a..b).log_scale(), (c..d).log_scale())
                .map_err(err)?;
            body.draw(root, &mut chart)
        }
    }
}

/// A value axis's scale: `(multiplier, tick labels, axis label)`. A logarithmic axis is
/// unscaled and labels each tick in its unit; a linear one is scaled as the other plots are.
fn value_axis(
    axis: Axis,
    magnitude: f64,
    counter: &str,
    unit: &str,
    what: &str,
) -> (f64, Ticks, String) {
    match axis {
        Axis::Log(..) => {
            let unit = unit.to_owned();
            let label = format!("{counter} {what} (log scale)");
            (
                1.0,
                Box::new(move |v: &f64| units::format_value(*v, &unit)),
                label,
            )
        }
        Axis::Linear(..) => {
            let (mult, scale) = units::axis_scale(magnitude, unit);
            (mult, Box::new(|_: &f64| String::new()), {
                axis_label(counter, &scale, what)
            })
        }
    }
}

/// Linear tick labels for a span, boxed beside the logarithmic ones.
fn linear_ticks(span: f64) -> Ticks {
    Box::new(ticks(span))
}

/// The label of an argument on a numeric axis: `64`, `4096`, `1.50 M`.
fn argument_label(v: f64) -> String {
    if v.abs() < 1e4 {
        let r = if v.fract().abs() < 1e-9 {
            format!("{v:.0}")
        } else {
            format!("{v}")
        };
        return r;
    }
    units::format_value(v, "count")
}

/// The width of the label area for `names` on a categorical axis, in pixels.
fn names_width(names: &[&str]) -> u32 {
    let longest = names
        .iter()
        .map(|n| n.chars().count().min(NAME_CHARS))
        .max()
        .unwrap_or(4);
    (longest as u32 * 7 + 14).clamp(48, 220)
}

/// The label of row `v` of `names` drawn top to bottom (row 0 at the top); empty between rows.
fn row_label(names: &[String], v: f64) -> String {
    let i = v.round();
    let n = names.len() as f64;
    if (v - i).abs() > 1e-6 || i < 0.0 || i >= n {
        return String::new();
    }
    // An en space, which SVG does not collapse, parts the name from the axis (the rows have no
    // tick marks: a tick per row would cost more than it tells).
    format!("{}\u{2002}", names[(n - 1.0 - i) as usize])
}
