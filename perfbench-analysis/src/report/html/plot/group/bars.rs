//! The change of each benchmark of a group against the baseline ([`changes`]).

use super::*;

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
