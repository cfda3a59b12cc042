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

/// Each function's figure of a counter against the argument, one line per function with its
/// interval as a band (a dot with a whisker, for a function at one argument). Numeric arguments (`categories` `None`)
/// are drawn on a logarithmic axis where they span a decade or more; the values too. With
/// `categories`, each point's x is its argument's position among them, in their order.
/// `None` when there is no finite point.
///
/// ```
/// use perfbench_analysis::report::html::plot::{over_arguments, Line, Marked, Subject};
///
/// let at = |x: f64, v: f64| (x, Marked { point: v, low: v * 0.98, high: v * 1.02 });
/// let lines = [
///     Line { name: "sort", points: vec![at(10.0, 50.0), at(1000.0, 9000.0), at(100000.0, 2e6)] },
///     Line { name: "sort_unstable", points: vec![at(10.0, 40.0), at(1000.0, 7000.0)] },
/// ];
/// let subject = Subject { id: "g-sorting-0", counter: "wall-time", unit: "ns" };
/// let svg = over_arguments(&subject, "sorting", &lines, None).unwrap();
/// assert!(svg.starts_with("<svg") && svg.contains("logarithmic") && svg.contains("sort_unstable"));
/// ```
pub fn over_arguments(
    subject: &Subject<'_>,
    group: &str,
    lines: &[Line<'_>],
    categories: Option<&[String]>,
) -> Option<String> {
    let finite = |m: &Marked| m.point.is_finite();
    let points = || {
        lines
            .iter()
            .flat_map(|l| &l.points)
            .filter(|(_, m)| finite(m))
    };
    let (xlo, xhi) = points().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), (x, _)| {
        (l.min(*x), h.max(*x))
    });
    if !xlo.is_finite() {
        return None;
    }
    let (ylo, yhi) = points().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), (_, m)| {
        let low = if m.low.is_finite() { m.low } else { m.point };
        let high = if m.high.is_finite() { m.high } else { m.point };
        (l.min(low.min(m.point)), h.max(high.max(m.point)))
    });
    let x = match categories {
        Some(c) => Axis::Linear(-0.5, c.len().max(1) as f64 - 0.5),
        None => Axis::over(xlo, xhi, 0.06),
    };
    // Room above the lines for the legend, a row per function.
    let share = ((16.0 * lines.len() as f64 + 14.0) / 230.0).min(0.6);
    let y = match Axis::over(ylo, yhi, 0.05) {
        Axis::Log(l, h) => Axis::Log(l, h * (h / l).powf(share / (1.0 - share))),
        Axis::Linear(l, h) => {
            let l = if ylo >= 0.0 { 0.0 } else { l };
            Axis::Linear(l, h + (h - l) * share / (1.0 - share))
        }
    };
    let (mult, log_fmt, y_desc) = value_axis(
        y,
        yhi.abs().max(ylo.abs()),
        subject.counter,
        subject.unit,
        "",
    );
    let y_desc = y_desc.replace("  ", " ").trim().to_owned();
    let names: Vec<&str> = lines.iter().map(|l| l.name).collect();
    let logs = match (x.is_log(), y.is_log()) {
        (true, true) => ", both axes logarithmic",
        (true, false) => ", the argument's axis logarithmic",
        (false, true) => ", the values' axis logarithmic",
        (false, false) => "",
    };
    let args = match categories {
        Some(c) => format!("the arguments {}", c.join(", ")),
        None => format!(
            "the arguments from {} to {}",
            argument_label(xlo),
            argument_label(xhi)
        ),
    };
    let title = format!(
        "{} of the functions of group {group} against their argument ({args}{logs}): one line \
         per function ({}), with its interval as a band.",
        subject.counter,
        names.join(", ")
    );
    let body = Lines {
        lines,
        mult,
        y_fmt: if y.is_log() {
            log_fmt
        } else {
            let (l, h) = match y {
                Axis::Linear(l, h) | Axis::Log(l, h) => (l, h),
            };
            linear_ticks((h - l) * mult)
        },
        categories,
        x_log: x.is_log(),
        y_desc,
    };
    let y_mult = |a: Axis| match a {
        Axis::Linear(l, h) => Axis::Linear(l * mult, h * mult),
        log => log,
    };
    Some(svg(subject, &title, |root| {
        let mut builder = ChartBuilder::on(root);
        builder
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(64);
        on_axes(root, &mut builder, x, y_mult(y), &body)
    }))
}

struct Lines<'l, 'a> {
    lines: &'l [Line<'a>],
    mult: f64,
    y_fmt: Ticks,
    categories: Option<&'l [String]>,
    x_log: bool,
    y_desc: String,
}

impl Body for Lines<'_, '_> {
    fn draw<'c, DB, X, Y>(
        &self,
        _root: &DrawingArea<DB, Shift>,
        chart: &mut ChartContext<'c, DB, Cartesian2d<X, Y>>,
    ) -> Drawn
    where
        DB: DrawingBackend + 'c,
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let cats = self.categories;
        let x_fmt = |v: &f64| match cats {
            Some(c) => {
                let i = v.round();
                if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < c.len() {
                    let name = &c[i as usize];
                    let mut s: String = name.chars().take(12).collect();
                    if name.chars().count() > 12 {
                        s.push('…');
                    }
                    s
                } else {
                    String::new()
                }
            }
            None => argument_label(*v),
        };
        let x_labels = match cats {
            Some(c) => c.len().clamp(1, 12),
            None => 7,
        };
        let x_desc = if self.x_log {
            "argument (log scale)"
        } else {
            "argument"
        };
        styled(&mut chart.configure_mesh())
            .x_labels(x_labels)
            .y_labels(6)
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&*self.y_fmt)
            .x_desc(x_desc)
            .y_desc(self.y_desc.as_str())
            .draw()
            .map_err(err)?;
        let m = self.mult;
        for (i, line) in self.lines.iter().enumerate() {
            let colour = PALETTE[i % PALETTE.len()];
            let pts: Vec<(f64, Marked)> = line
                .points
                .iter()
                .copied()
                .filter(|(_, p)| p.point.is_finite())
                .collect();
            let bounded: Vec<(f64, f64, f64)> = pts
                .iter()
                .filter(|(_, p)| p.low.is_finite() && p.high.is_finite())
                .map(|&(x, p)| (x, p.low * m, p.high * m))
                .collect();
            if bounded.len() >= 2 {
                let band: Vec<(f64, f64)> = bounded
                    .iter()
                    .map(|&(x, l, _)| (x, l))
                    .chain(bounded.iter().rev().map(|&(x, _, h)| (x, h)))
                    .collect();
                chart
                    .draw_series(std::iter::once(Polygon::new(band, colour.mix(0.18))))
                    .map_err(err)?;
            }
            // A function at one argument has no band: its interval is a whisker.
            if bounded.len() == 1 {
                let (x, l, h) = bounded[0];
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        [(x, l), (x, h)],
                        colour.stroke_width(2),
                    )))
                    .map_err(err)?;
            }
            chart
                .draw_series(LineSeries::new(
                    pts.iter().map(|&(x, p)| (x, p.point * m)),
                    colour.stroke_width(2),
                ))
                .map_err(err)?
                .label(short(line.name))
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 14, y)], colour.stroke_width(2))
                });
            // A function at one argument is a dot; a line's vertices show where it was measured.
            if let [(x, p)] = pts.as_slice() {
                chart
                    .draw_series(std::iter::once(Circle::new(
                        (*x, p.point * m),
                        3,
                        colour.filled(),
                    )))
                    .map_err(err)?;
            }
        }
        legend_at(chart, SeriesLabelPosition::UpperLeft)
    }
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

/// The functions of a group side by side, a row each: the quartiles of its per-iteration values
/// as a box with the median, whiskers to the smallest and largest value that the estimate keeps
/// (severe outliers left out), and the estimate as an orange dot (its interval is in the
/// plot's title). The value axis is
/// logarithmic where the values span a decade or more. `None` when no function has a finite
/// value.
///
/// ```
/// use perfbench_analysis::report::html::plot::{side_by_side, Marked, Spread, Subject};
///
/// let fast = [10.0, 11.0, 10.5, 10.2];
/// let slow = [20.0, 21.0, 20.5, 22.0];
/// let spreads = [
///     Spread { name: "fast", values: &fast, marked: Some(Marked { point: 10.4, low: 10.1, high: 10.8 }) },
///     Spread { name: "slow", values: &slow, marked: None },
/// ];
/// let subject = Subject { id: "g-parsing-0", counter: "wall-time", unit: "ns" };
/// let svg = side_by_side(&subject, "parsing", &spreads).unwrap();
/// assert!(svg.starts_with("<svg") && svg.contains(">fast\u{2002}<") && svg.contains(">slow\u{2002}<"));
/// ```
pub fn side_by_side(subject: &Subject<'_>, group: &str, spreads: &[Spread<'_>]) -> Option<String> {
    let rows: Vec<Row> = spreads
        .iter()
        .filter_map(|s| {
            let kept: Vec<f64> = headline_samples(s.values)
                .into_iter()
                .map(|i| s.values[i])
                .collect();
            let p = Sample::new(&kept)?.percentiles();
            let (q1, median, q3) = p.quartiles();
            Some(Row {
                name: s.name.to_owned(),
                whiskers: (p.at(0.0), p.at(100.0)),
                quartiles: (q1, median, q3),
                marked: s.marked.filter(|m| m.point.is_finite()),
            })
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    let (lo, hi) = rows
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), r| {
            let (mut l, mut h) = (l.min(r.whiskers.0), h.max(r.whiskers.1));
            if let Some(m) = r.marked {
                for v in [m.point, m.low, m.high]
                    .into_iter()
                    .filter(|v| v.is_finite())
                {
                    l = l.min(v);
                    h = h.max(v);
                }
            }
            (l, h)
        });
    let x = Axis::over(lo, hi, 0.05);
    let (mult, log_fmt, x_desc) = value_axis(
        x,
        hi.abs().max(lo.abs()),
        subject.counter,
        subject.unit,
        "per iteration",
    );
    let x = match x {
        Axis::Linear(l, h) => Axis::Linear(l * mult, h * mult),
        log => log,
    };
    let x_fmt = match x {
        Axis::Linear(l, h) => linear_ticks(h - l),
        Axis::Log(..) => log_fmt,
    };
    let mut title = format!(
        "The per-iteration {} values of the {} functions of group {group} side by side{}: per \
         function the quartiles as a box with the median, whiskers to the smallest and largest \
         value kept (severe outliers left out), and the estimate as an orange dot.",
        subject.counter,
        rows.len(),
        if x.is_log() {
            " (logarithmic axis)"
        } else {
            ""
        }
    );
    for r in &rows {
        let (q1, m, q3) = r.quartiles;
        title.push_str(&format!(
            " {}: median {}, quartiles {}",
            r.name,
            units::format_value(m, subject.unit),
            units::format_interval(q1, q3, subject.unit)
        ));
        if let Some(e) = r.marked {
            title.push_str(&format!(
                ", estimate {} {}",
                units::format_value(e.point, subject.unit),
                units::format_interval(e.low, e.high, subject.unit)
            ));
        }
        title.push('.');
    }
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    let width = names_width(&names);
    let height = 20 + 42 + 26 * rows.len() as u32;
    let body = Boxes {
        rows: &rows,
        mult,
        x_fmt,
        x_desc,
    };
    let n = rows.len() as f64;
    Some(svg_sized(subject, &title, (WIDTH, height), |root| {
        let mut builder = ChartBuilder::on(root);
        builder
            .margin(10)
            .x_label_area_size(42)
            .y_label_area_size(width);
        on_axes(root, &mut builder, x, Axis::Linear(-0.5, n - 0.5), &body)
    }))
}

struct Row {
    name: String,
    whiskers: (f64, f64),
    quartiles: (f64, f64, f64),
    marked: Option<Marked>,
}

struct Boxes<'r> {
    rows: &'r [Row],
    mult: f64,
    x_fmt: Ticks,
    x_desc: String,
}

impl Body for Boxes<'_> {
    fn draw<'c, DB, X, Y>(
        &self,
        _root: &DrawingArea<DB, Shift>,
        chart: &mut ChartContext<'c, DB, Cartesian2d<X, Y>>,
    ) -> Drawn
    where
        DB: DrawingBackend + 'c,
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let names: Vec<String> = self.rows.iter().map(|r| short(&r.name)).collect();
        let y_fmt = |v: &f64| row_label(&names, *v);
        styled(&mut chart.configure_mesh())
            .disable_y_mesh()
            .x_labels(7)
            .y_labels(self.rows.len())
            .x_label_formatter(&*self.x_fmt)
            .y_label_formatter(&y_fmt)
            .set_tick_mark_size(LabelAreaPosition::Left, 0)
            .x_desc(self.x_desc.as_str())
            .draw()
            .map_err(err)?;
        let m = self.mult;
        let n = self.rows.len();
        for (i, r) in self.rows.iter().enumerate() {
            let y = (n - 1 - i) as f64;
            let (q1, median, q3) = (r.quartiles.0 * m, r.quartiles.1 * m, r.quartiles.2 * m);
            let (w0, w1) = (r.whiskers.0 * m, r.whiskers.1 * m);
            let h = 0.28;
            let cap = h / 2.0;
            chart
                .draw_series([
                    PathElement::new(
                        [(w0, y - cap), (w0, y + cap), (w0, y), (q1, y)],
                        FG.mix(0.6),
                    ),
                    PathElement::new(
                        [(q3, y), (w1, y), (w1, y - cap), (w1, y + cap)],
                        FG.mix(0.6),
                    ),
                ])
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(q1, y - h), (q3, y + h)],
                    NEW.mix(0.35).filled(),
                )))
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    [(median, y - h), (median, y + h)],
                    NEW.stroke_width(2),
                )))
                .map_err(err)?;
            if let Some(e) = r.marked {
                chart
                    .draw_series(std::iter::once(Circle::new(
                        (e.point * m, y),
                        3,
                        BASE.filled(),
                    )))
                    .map_err(err)?;
            }
        }
        Ok(())
    }
}

/// The verdict's colour and its word.
fn verdict_style(v: Verdict) -> (RGBColor, &'static str) {
    match v {
        Verdict::Regressed => (REGRESSED, "regressed"),
        Verdict::Improved => (IMPROVED, "improved"),
        _ => (UNCHANGED, v.as_str()),
    }
}

/// The change of each benchmark of a group against the baseline `against`, a row each: a bar
/// from zero to the change (new / baseline - 1) with its interval as a whisker, coloured by
/// its verdict (regressed red, improved green, unchanged grey), and the verdict in words at the
/// end of the row. Benchmarks without a ratio are left out; `None` when none has one.
///
/// ```
/// use perfbench_analysis::report::html::plot::{changes, Bar, Subject};
/// use perfbench_analysis::stats::{Change, Method, Verdict};
///
/// let change = |ratio: f64, verdict| Change {
///     baseline: 100.0, ratio: Some(ratio), ci_low: Some(ratio - 0.02), ci_high: Some(ratio + 0.02),
///     p_value: 0.01, threshold: 0.05, verdict, method: Method::Separate,
/// };
/// let bars = [
///     Bar { name: "parsing/json", change: change(1.3, Verdict::Regressed) },
///     Bar { name: "parsing/toml", change: change(0.99, Verdict::Unchanged) },
/// ];
/// let subject = Subject { id: "g-parsing-change", counter: "wall-time", unit: "ns" };
/// let svg = changes(&subject, "parsing", "main", &bars).unwrap();
/// assert!(svg.contains(">+30.0% regressed<") && svg.contains("unchanged"));
/// ```
pub fn changes(
    subject: &Subject<'_>,
    group: &str,
    against: &str,
    bars: &[Bar<'_>],
) -> Option<String> {
    let pct = |r: Option<f64>| r.filter(|r| r.is_finite()).map(|r| (r - 1.0) * 100.0);
    let rows: Vec<BarRow<'_, '_>> = bars
        .iter()
        .filter_map(|b| {
            let c = pct(b.change.ratio)?;
            let i = pct(b.change.ci_low).zip(pct(b.change.ci_high));
            Some((b, c, i))
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    let (lo, hi) = rows.iter().fold((0.0f64, 0.0f64), |(l, h), &(_, c, i)| {
        let (a, b) = i.unwrap_or((c, c));
        (l.min(c).min(a), h.max(c).max(b))
    });
    let (lo, hi) = if hi - lo < 2.0 {
        (lo - 1.0, hi + 1.0)
    } else {
        padded(lo, hi, 0.06)
    };
    let mut title = format!(
        "The change of {} of each of the {} benchmarks of group {group} against {against}: a \
         bar from zero to the change, its interval as a whisker, coloured by its verdict.",
        subject.counter,
        rows.len()
    );
    for (b, _, _) in &rows {
        let c = &b.change;
        title.push_str(&format!(
            " {}: {} {}.",
            b.name,
            units::format_change_interval(c.ratio, c.ci_low, c.ci_high),
            verdict_style(c.verdict).1
        ));
    }
    let names: Vec<&str> = rows.iter().map(|(b, _, _)| b.name).collect();
    let width = names_width(&names);
    let height = 20 + 42 + 24 * rows.len() as u32;
    let n = rows.len() as f64;
    let body = Bars { rows: &rows };
    Some(svg_sized(subject, &title, (WIDTH, height), |root| {
        let mut builder = ChartBuilder::on(root);
        builder
            .margin(10)
            .margin_right(130)
            .x_label_area_size(42)
            .y_label_area_size(width);
        on_axes(
            root,
            &mut builder,
            Axis::Linear(lo, hi),
            Axis::Linear(-0.5, n - 0.5),
            &body,
        )
    }))
}

struct Bars<'r, 'b, 'a> {
    rows: &'r [BarRow<'b, 'a>],
}

impl Body for Bars<'_, '_, '_> {
    fn draw<'c, DB, X, Y>(
        &self,
        root: &DrawingArea<DB, Shift>,
        chart: &mut ChartContext<'c, DB, Cartesian2d<X, Y>>,
    ) -> Drawn
    where
        DB: DrawingBackend + 'c,
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let names: Vec<String> = self.rows.iter().map(|(b, _, _)| short(b.name)).collect();
        let y_fmt = |v: &f64| row_label(&names, *v);
        let x_range = chart.x_range();
        styled(&mut chart.configure_mesh())
            .disable_y_mesh()
            .x_labels(7)
            .y_labels(self.rows.len())
            .x_label_formatter(&|v: &f64| {
                let v = if v.abs() < 1e-9 { 0.0 } else { *v };
                format!("{v:+.0}%")
            })
            .y_label_formatter(&y_fmt)
            .set_tick_mark_size(LabelAreaPosition::Left, 0)
            .x_desc("change against the baseline (%)")
            .draw()
            .map_err(err)?;
        let n = self.rows.len();
        let y_range = chart.y_range();
        chart
            .draw_series(std::iter::once(PathElement::new(
                [(0.0, y_range.start), (0.0, y_range.end)],
                FG.mix(0.6),
            )))
            .map_err(err)?;
        for (i, &(b, c, interval)) in self.rows.iter().enumerate() {
            let y = (n - 1 - i) as f64;
            let (colour, word) = verdict_style(b.change.verdict);
            let h = 0.3;
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, y - h), (c, y + h)],
                    colour.mix(0.75).filled(),
                )))
                .map_err(err)?;
            if let Some((l, u)) = interval {
                let cap = h / 2.0;
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        [
                            (l, y - cap),
                            (l, y + cap),
                            (l, y),
                            (u, y),
                            (u, y + cap),
                            (u, y - cap),
                        ],
                        FG.stroke_width(1),
                    )))
                    .map_err(err)?;
            }
            let (px, py) = chart.backend_coord(&(x_range.end, y));
            let text = format!("{} {word}", units::format_change(b.change.ratio));
            let style = ("sans-serif", 12)
                .into_font()
                .color(&colour)
                .pos(Pos::new(HPos::Left, VPos::Center));
            root.draw(&Text::new(text, (px + 8, py), style))
                .map_err(err)?;
        }
        Ok(())
    }
}
