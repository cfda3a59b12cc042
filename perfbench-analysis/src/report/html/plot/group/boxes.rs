//! The functions of a group without arguments side by side ([`side_by_side`]).

use super::*;

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
