//! The HTML report's plots, drawn by plotters' SVG backend into strings that the pages inline.
//!
//! Every plot is an `<svg role="img">` whose `<title>` says in words what it shows (a text
//! alternative for screen readers and a tooltip for everyone). Axes and text are drawn in black
//! and the legend's box in white, which the page's style sheet turns light-on-dark when the
//! browser prefers a dark scheme (`prefers-color-scheme`); the series colours read on both.
//! Values are scaled as the terminal scales them ([`units::axis_scale`]).

use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::escape;
use crate::stats::kde;
use crate::stats::univariate::Sample;
use perfbench::units;

mod group;

pub use group::*;

/// The new run's (or NEW's) colour.
const NEW: RGBColor = RGBColor(0x1f, 0x6f, 0xc5);
/// The baseline's colour.
const BASE: RGBColor = RGBColor(0xe0, 0x7b, 0x00);
/// Samples left out of the headline figure.
const LEFT_OUT: RGBColor = RGBColor(0xd6, 0x27, 0x28);
/// Axes, text and grid (restyled by the page in dark mode).
const FG: RGBColor = RGBColor(0, 0, 0);
/// The legend's background (restyled by the page in dark mode).
const PAPER: RGBColor = RGBColor(0xff, 0xff, 0xff);

const WIDTH: u32 = 640;
const HEIGHT: u32 = 300;
/// Points on a density curve.
const DENSITY_STEPS: usize = 160;

/// What a plot is of, for its axis labels and its text alternative.
pub struct Subject<'a> {
    /// The id of the `<title>` element (unique within the page).
    pub id: &'a str,
    /// The counter's name.
    pub counter: &'a str,
    /// Its unit (`ns`, `count`, ...).
    pub unit: &'a str,
}

/// The estimate marked on a distribution: the headline figure and its interval.
#[derive(Clone, Copy)]
pub struct Marked {
    /// The point estimate.
    pub point: f64,
    /// The interval's lower bound.
    pub low: f64,
    /// Its upper bound.
    pub high: f64,
}

type Drawn = Result<(), String>;

/// Draws into an SVG string with the page's conventions, and gives it its title.
fn svg(
    subject: &Subject<'_>,
    title: &str,
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Drawn,
) -> String {
    svg_sized(subject, title, (WIDTH, HEIGHT), draw)
}

/// [`svg`] of another size than the usual (a plot with a row per benchmark grows with them).
fn svg_sized(
    subject: &Subject<'_>,
    title: &str,
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Drawn,
) -> String {
    let mut out = String::new();
    let result = {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        draw(&root).and_then(|()| root.present().map_err(|e| e.to_string()))
    };
    if let Err(e) = result {
        return format!(
            "<p class=\"plot-error\">plot not drawn ({}): {}</p>",
            escape(&e),
            escape(title)
        );
    }
    let out = compact(&out);
    // `<svg width=.. height=.. viewBox=..>`: the page sizes it; role and title added.
    let Some(open_end) = out.find('>') else {
        return String::new();
    };
    let tag = &out[..open_end];
    let tag = tag.replacen("<svg ", "<svg class=\"plot\" role=\"img\" ", 1);
    let id = escape(subject.id);
    format!(
        "{tag} aria-labelledby=\"{id}\"><title id=\"{id}\">{}</title>{}",
        escape(title),
        &out[open_end + 1..]
    )
}

/// plotters' SVG with what changes nothing in the picture taken out: `opacity="1"`, the
/// digits of a font size past the first decimal, and the line breaks around a text.
fn compact(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    const SIZE: &str = "font-size=\"";
    while let Some(at) = rest.find(SIZE) {
        let (head, tail) = rest.split_at(at + SIZE.len());
        out.push_str(head);
        let end = tail.find('"').unwrap_or(tail.len());
        let value = &tail[..end];
        match value.find('.') {
            Some(dot) if value.len() > dot + 2 => out.push_str(&value[..dot + 2]),
            _ => out.push_str(value),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    let out = out
        .replace(" opacity=\"1\"", "")
        .replace("\n</text>", "</text>");
    // The break after each `<text ...>`.
    let mut compacted = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(at) = rest.find("<text ") {
        let (head, tail) = rest.split_at(at);
        compacted.push_str(head);
        let end = tail.find('>').map_or(tail.len(), |e| e + 1);
        compacted.push_str(&tail[..end]);
        rest = tail[end..].strip_prefix('\n').unwrap_or(&tail[end..]);
    }
    compacted.push_str(rest);
    compacted
}

/// Tick labels with as many decimals as the axis span needs.
fn ticks(span: f64) -> impl Fn(&f64) -> String {
    let decimals = if span > 0.0 && span.is_finite() {
        (1.0 - span.log10().floor()).clamp(0.0, 6.0) as usize
    } else {
        2
    };
    move |v: &f64| {
        let v = if v.abs() < 1e-12 { 0.0 } else { *v };
        format!("{v:.decimals$}")
    }
}

/// A range with room around it; never empty. A range of one value gets 1% of it on each side,
/// and a range of zero alone -1 to 1 (not a span of nanounits, whose ticks read `-0.000000`).
fn padded(low: f64, high: f64, share: f64) -> (f64, f64) {
    let span = high - low;
    let pad = if span > 0.0 {
        span * share
    } else if low == 0.0 {
        1.0
    } else {
        (low.abs() * 0.01).max(1e-9)
    };
    (low - pad, high + pad)
}

fn axis_label(counter: &str, scale: &str, what: &str) -> String {
    match scale {
        "" => format!("{counter} {what}"),
        s => format!("{counter} {what} ({s})"),
    }
}

/// The axes, text and grid every plot shares (the colours the page restyles in dark mode).
fn styled<'m, 'a, 'b, X, Y, DB>(
    mesh: &'m mut MeshStyle<'a, 'b, X, Y, DB>,
) -> &'m mut MeshStyle<'a, 'b, X, Y, DB>
where
    X: plotters::coord::ranged1d::Ranged<ValueType = f64>,
    Y: plotters::coord::ranged1d::Ranged<ValueType = f64>,
    DB: DrawingBackend,
{
    mesh.axis_desc_style(("sans-serif", 14).into_font().color(&FG))
        .label_style(("sans-serif", 12).into_font().color(&FG))
        .bold_line_style(FG.mix(0.12))
        .light_line_style(TRANSPARENT)
        .axis_style(FG.mix(0.6))
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// The distribution of per-iteration values as a density curve (Gaussian kernel), with the
/// estimate and its interval marked, and the baseline's distribution overlaid when given.
/// `None` when there is no finite value to plot.
///
/// ```
/// use perfbench_analysis::report::html::plot::distribution;
/// use perfbench_analysis::report::html::plot::{Marked, Subject};
///
/// let subject = Subject { id: "fib-wall-time", counter: "wall-time", unit: "ns" };
/// let new = [1230.0, 1240.0, 1220.0, 1235.0];
/// let marked = Marked { point: 1231.0, low: 1224.0, high: 1238.0 };
/// let svg = distribution(&subject, &new, Some(marked), Some(("main", &[1000.0, 1010.0][..]))).unwrap();
/// assert!(svg.starts_with("<svg") && svg.contains("µs") && svg.contains("main"));
/// assert!(distribution(&subject, &[f64::NAN], None, None).is_none());
/// ```
pub fn distribution(
    subject: &Subject<'_>,
    new: &[f64],
    marked: Option<Marked>,
    base: Option<(&str, &[f64])>,
) -> Option<String> {
    let new: Vec<f64> = new.iter().copied().filter(|v| v.is_finite()).collect();
    let base_values: Option<Vec<f64>> =
        base.map(|(_, v)| v.iter().copied().filter(|v| v.is_finite()).collect());
    let all = new.iter().chain(base_values.iter().flatten());
    let magnitude = all.clone().fold(0.0f64, |m, v| m.max(v.abs()));
    let (mult, scale) = units::axis_scale(magnitude, subject.unit);
    let new: Vec<f64> = new.iter().map(|v| v * mult).collect();
    let base_values: Option<Vec<f64>> = base_values.map(|b| b.iter().map(|v| v * mult).collect());
    let new_sample = Sample::new(&new)?;
    let base_sample = base_values.as_deref().and_then(Sample::new);
    let sides = || {
        [Some(&new_sample), base_sample.as_ref()]
            .into_iter()
            .flatten()
    };
    let (lo, hi) = sides().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, u), s| {
        (l.min(s.min()), u.max(s.max()))
    });
    // The grid covers both sides and three bandwidths around them. Where every value is the
    // same (an exact counter), a narrow bump on an axis of a few units around it.
    let (lo, hi, fixed) = if hi > lo {
        // Three bandwidths, and at least 5% of the span: a narrow side far from the other
        // (a large change) stays clear of the frame.
        let h = sides().map(kde::bandwidth).fold(0.0f64, f64::max);
        let pad = (3.0 * h).max((hi - lo) * 0.05);
        (lo - pad, hi + pad, None)
    } else {
        let pad = (lo.abs() * 0.005).max(2.0);
        (lo - pad, hi + pad, Some(pad / 20.0))
    };
    let curve = |s: &Sample<'_>| match fixed {
        Some(h) => kde::density_with(s, h, lo, hi, DENSITY_STEPS),
        None => kde::density(s, lo, hi, DENSITY_STEPS),
    };
    // Each curve is scaled to a peak of 1: a narrow side far from a wide one (a large change)
    // stays as visible as the other. The y axis has no scale to read.
    let peaked = |mut d: kde::Density| {
        let peak = d.points.iter().fold(0.0f64, |m, p| m.max(p.1));
        if peak > 0.0 && peak.is_finite() {
            for p in &mut d.points {
                p.1 /= peak;
            }
        }
        d
    };
    let new_density = peaked(curve(&new_sample));
    let base_density = base_sample.map(|s| peaked(curve(&s)));
    let top = new_density
        .points
        .iter()
        .chain(base_density.iter().flat_map(|d| d.points.iter()))
        .fold(0.0f64, |m, p| m.max(p.1))
        * 1.45;
    let top = if top > 0.0 && top.is_finite() {
        top
    } else {
        1.0
    };
    // The legend goes in the upper corner where the curves are lower.
    let height_within = |from: f64, to: f64| {
        new_density
            .points
            .iter()
            .chain(base_density.iter().flat_map(|d| d.points.iter()))
            .filter(|p| p.0 >= from && p.0 <= to)
            .fold(0.0f64, |m, p| m.max(p.1))
    };
    let third = (hi - lo) / 3.0;
    let corner = if height_within(hi - third, hi) > height_within(lo, lo + third) {
        SeriesLabelPosition::UpperLeft
    } else {
        SeriesLabelPosition::UpperRight
    };
    let new_label = if base.is_some() { "new" } else { "samples" };
    let mut title = format!(
        "Distribution of {} per-iteration {} values",
        new.len(),
        subject.counter
    );
    if let Some(m) = marked {
        title.push_str(&format!(
            "; estimate {} {}",
            units::format_value(m.point, subject.unit),
            units::format_interval(m.low, m.high, subject.unit)
        ));
    }
    if let Some((name, b)) = base {
        title.push_str(&format!(
            "; overlaid with {} values of {name}",
            b.iter().filter(|v| v.is_finite()).count()
        ));
    }
    title.push('.');
    Some(svg(subject, &title, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(30)
            .build_cartesian_2d(lo..hi, 0.0..top)
            .map_err(err)?;
        let fmt = ticks(hi - lo);
        let x_desc = axis_label(subject.counter, &scale, "per iteration");
        styled(&mut chart.configure_mesh())
            .disable_y_mesh()
            .y_labels(0)
            .x_labels(7)
            .x_label_formatter(&fmt)
            .x_desc(x_desc)
            .y_desc("relative density")
            .draw()
            .map_err(err)?;
        if let Some(m) = marked {
            let (l, u, p) = (m.low * mult, m.high * mult, m.point * mult);
            // Up to just above the curves: the legend sits in the headroom above them.
            let mark = top / 1.45 * 1.05;
            if l.is_finite() && u.is_finite() {
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(l, 0.0), (u, mark)],
                        NEW.mix(0.18).filled(),
                    )))
                    .map_err(err)?
                    .label("interval")
                    .legend(|(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 14, y + 5)], NEW.mix(0.18).filled())
                    });
            }
            if p.is_finite() {
                chart
                    .draw_series(LineSeries::new([(p, 0.0), (p, mark)], NEW.stroke_width(2)))
                    .map_err(err)?
                    .label("estimate")
                    .legend(|(x, y)| PathElement::new([(x, y), (x + 14, y)], NEW.stroke_width(2)));
            }
        }
        if let (Some(d), Some((name, _))) = (&base_density, base) {
            chart
                .draw_series(
                    AreaSeries::new(d.points.iter().copied(), 0.0, BASE.mix(0.15))
                        .border_style(BASE.stroke_width(2)),
                )
                .map_err(err)?
                .label(name.to_owned())
                .legend(|(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 14, y + 5)], BASE.mix(0.5).filled())
                });
        }
        chart
            .draw_series(
                AreaSeries::new(new_density.points.iter().copied(), 0.0, NEW.mix(0.12))
                    .border_style(NEW.stroke_width(2)),
            )
            .map_err(err)?
            .label(new_label)
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], NEW.mix(0.5).filled()));
        legend_at(&mut chart, corner)
    }))
}

fn legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
) -> Drawn {
    legend_at(chart, SeriesLabelPosition::UpperRight)
}

fn legend_at<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> Drawn {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(PAPER.mix(0.85))
        .border_style(FG.mix(0.3))
        .label_font(("sans-serif", 12).into_font().color(&FG))
        .draw()
        .map_err(err)
}

/// The per-iteration values in the order the samples were taken, the ones left out of the
/// headline figure (severe outliers) marked, and the rounds' boundaries drawn. `None` when
/// there is no finite value.
///
/// ```
/// use perfbench_analysis::report::html::plot::samples;
/// use perfbench_analysis::report::html::plot::{Marked, Subject};
///
/// let subject = Subject { id: "fib-wall-time", counter: "wall-time", unit: "ns" };
/// let values = [1230.0, 1240.0, 9000.0, 1235.0];
/// let svg = samples(&subject, &values, &[false, false, true, false], &[2, 2]).unwrap();
/// assert!(svg.starts_with("<svg") && svg.contains("<title"));
/// ```
pub fn samples(
    subject: &Subject<'_>,
    values: &[f64],
    left_out: &[bool],
    round_sizes: &[u32],
) -> Option<String> {
    let finite = values.iter().filter(|v| v.is_finite());
    let magnitude = finite.clone().fold(0.0f64, |m, v| m.max(v.abs()));
    let (lo, hi) = finite
        .clone()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, u), &v| {
            (l.min(v), u.max(v))
        });
    if !lo.is_finite() {
        return None;
    }
    let (mult, scale) = units::axis_scale(magnitude, subject.unit);
    let (lo, hi) = padded(lo * mult, hi * mult, 0.08);
    // Headroom for the legend in the upper right corner.
    let hi = hi + (hi - lo) * 0.3;
    let n = values.len();
    let out_count = left_out.iter().filter(|&&o| o).count();
    let mut title = format!(
        "The {n} per-iteration {} values in the order they were taken",
        subject.counter
    );
    if out_count > 0 {
        title.push_str(&format!(
            "; {out_count} severe outliers, left out of the estimate, are marked with crosses"
        ));
    }
    if round_sizes.len() > 1 {
        title.push_str(&format!(
            "; vertical lines separate the {} rounds",
            round_sizes.len()
        ));
    }
    title.push('.');
    Some(svg(subject, &title, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(64)
            .build_cartesian_2d(-0.5..(n as f64 - 0.5).max(0.5), lo..hi)
            .map_err(err)?;
        let fmt = ticks(hi - lo);
        let y_desc = axis_label(subject.counter, &scale, "per iteration");
        styled(&mut chart.configure_mesh())
            .x_labels(8)
            .y_labels(6)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&fmt)
            .x_desc("sample (in the order taken)")
            .y_desc(y_desc)
            .draw()
            .map_err(err)?;
        if round_sizes.len() > 1 {
            let mut at = 0u64;
            for &size in &round_sizes[..round_sizes.len() - 1] {
                at += u64::from(size);
                let x = at as f64 - 0.5;
                chart
                    .draw_series(LineSeries::new([(x, lo), (x, hi)], FG.mix(0.25)))
                    .map_err(err)?;
            }
        }
        let kept = values
            .iter()
            .enumerate()
            .filter(|&(i, v)| v.is_finite() && !left_out.get(i).copied().unwrap_or(false));
        chart
            .draw_series(kept.map(|(i, v)| Circle::new((i as f64, v * mult), 3, NEW.filled())))
            .map_err(err)?
            .label("sample")
            .legend(|(x, y)| Circle::new((x + 7, y), 3, NEW.filled()));
        if out_count > 0 {
            let out = values
                .iter()
                .enumerate()
                .filter(|&(i, v)| v.is_finite() && left_out.get(i).copied().unwrap_or(false));
            chart
                .draw_series(
                    out.map(|(i, v)| Cross::new((i as f64, v * mult), 5, LEFT_OUT.stroke_width(2))),
                )
                .map_err(err)?
                .label("left out (severe outlier)")
                .legend(|(x, y)| Cross::new((x + 7, y), 5, LEFT_OUT.stroke_width(2)));
        }
        legend(&mut chart)
    }))
}

/// Linear sampling: each sample's total against its iteration count, with the least-squares
/// line through the origin whose slope is the per-iteration estimate.
///
/// ```
/// use perfbench_analysis::report::html::plot::regression;
/// use perfbench_analysis::report::html::plot::{Marked, Subject};
///
/// let subject = Subject { id: "fib-wall-time", counter: "wall-time", unit: "ns" };
/// let iterations = [100, 200, 300, 400];
/// let svg = regression(&subject, &[12.0, 12.1, 11.9, 12.0], &iterations, 12.0, Some(0.999)).unwrap();
/// assert!(svg.starts_with("<svg"));
/// ```
pub fn regression(
    subject: &Subject<'_>,
    values: &[f64],
    iterations: &[u64],
    slope: f64,
    r_squared: Option<f64>,
) -> Option<String> {
    let points: Vec<(f64, f64)> = values
        .iter()
        .zip(iterations)
        .filter(|(v, _)| v.is_finite())
        .map(|(&v, &n)| (n as f64, v * n as f64))
        .collect();
    let x_max = points.iter().fold(0.0f64, |m, p| m.max(p.0));
    if points.is_empty() || x_max <= 0.0 || !slope.is_finite() {
        return None;
    }
    let y_max = points.iter().fold(slope * x_max, |m, p| m.max(p.1));
    let y_min = points.iter().fold(0.0f64, |m, p| m.min(p.1));
    let (mult, scale) = units::axis_scale(y_max.abs().max(y_min.abs()), subject.unit);
    let (x_mult, x_scale) = units::axis_scale(x_max, "count");
    let (ylo, yhi) = padded(y_min * mult, y_max * mult, 0.05);
    let mut title = format!(
        "Linear sampling: the total {} of each of the {} samples against its iterations, and \
         the least-squares line through the origin (slope {} per iteration",
        subject.counter,
        points.len(),
        units::format_value(slope, subject.unit)
    );
    if let Some(r2) = r_squared {
        title.push_str(&format!(", R² {r2:.4}"));
    }
    title.push_str(").");
    Some(svg(subject, &title, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(64)
            .build_cartesian_2d(0.0..x_max * x_mult * 1.04, ylo..yhi)
            .map_err(err)?;
        let fmt = ticks(yhi - ylo);
        let xfmt = ticks(x_max * x_mult);
        let x_desc = match x_scale.as_str() {
            "" => "iterations".to_owned(),
            s => format!("iterations ({s})"),
        };
        styled(&mut chart.configure_mesh())
            .x_labels(7)
            .y_labels(6)
            .x_label_formatter(&xfmt)
            .y_label_formatter(&fmt)
            .x_desc(x_desc)
            .y_desc(axis_label(subject.counter, &scale, "total"))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(
                points
                    .iter()
                    .map(|&(x, y)| Circle::new((x * x_mult, y * mult), 3, NEW.filled())),
            )
            .map_err(err)?
            .label("sample")
            .legend(|(x, y)| Circle::new((x + 7, y), 3, NEW.filled()));
        chart
            .draw_series(LineSeries::new(
                [(0.0, 0.0), (x_max * x_mult, slope * x_max * mult)],
                BASE.stroke_width(2),
            ))
            .map_err(err)?
            .label("least-squares fit")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 14, y)], BASE.stroke_width(2)));
        // The line rises from the origin: the upper left corner is empty.
        legend_at(&mut chart, SeriesLabelPosition::UpperLeft)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_of_one_value_is_padded_to_something_its_ticks_can_say() {
        assert_eq!(padded(0.0, 0.0, 0.05), (-1.0, 1.0));
        assert_eq!(padded(200.0, 200.0, 0.05), (198.0, 202.0));
        assert_eq!(padded(10.0, 20.0, 0.1), (9.0, 21.0));
        let (lo, hi) = padded(0.0, 0.0, 0.05);
        let label = ticks(hi - lo);
        assert_eq!(
            (label(&lo), label(&0.0), label(&hi)),
            ("-1.0".into(), "0.0".into(), "1.0".into())
        );
    }
}
