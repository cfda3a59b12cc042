//! Each counter against the argument, a line per function ([`over_arguments`]).

use super::*;

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
