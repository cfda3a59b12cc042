//! The index's summary of each group of a suite ([`group_section`]): its benchmarks'
//! change against the baseline, each counter against the argument with a line per function,
//! and the functions without arguments side by side. A group of one benchmark, or a part with
//! fewer than two things to set side by side, gets no plot: its benchmark's page has them.
//!
//! Of a benchmark's parameters (`args`, `types` or both: `64`, `u8`, `u8/64`), a number after
//! the last `/` is the argument and what comes before it belongs to the function's line
//! (`sort/u8`) when every benchmark of the function has one; else the parameters are the
//! argument (which may have a `/` of its own). The arguments are numeric when every one reads
//! as a number, else categories in the order they first come.

use super::plot::{self, Bar, Line, Marked, Spread, Subject};
use super::*;

/// The measured benchmarks of `r` by group, in the order each group first comes.
fn groups(r: &Report) -> Vec<(&str, Vec<&Benchmark>)> {
    let mut out: Vec<(&str, Vec<&Benchmark>)> = Vec::new();
    for b in r
        .benchmarks
        .iter()
        .filter(|b| b.outcome == Outcome::Measured && !b.counters.is_empty())
    {
        match out.iter_mut().find(|(g, _)| *g == b.group) {
            Some((_, v)) => v.push(b),
            None => out.push((&b.group, vec![b])),
        }
    }
    out
}

fn marked(e: Option<&Estimate>) -> Option<Marked> {
    let e = e?;
    Some(Marked {
        point: point(e),
        low: e.ci_low,
        high: e.ci_high,
    })
}

/// A number, as an argument on a numeric axis.
fn number(arg: &str) -> Option<f64> {
    arg.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// A benchmark's function line and argument: `("sort/u8", "64")` for `sort` with `u8/64`
/// where `split` (every benchmark of the function has a number after its last `/`), else the
/// function and its whole parameters (an argument may have a `/` of its own).
fn line_and_argument(b: &Benchmark, split: bool) -> Option<(String, &str)> {
    let p = b.params.as_deref()?;
    Some(match p.rsplit_once('/').filter(|_| split) {
        Some((types, arg)) => (format!("{}/{types}", b.name), arg),
        None => (b.name.clone(), p),
    })
}

/// Whether the parameters of function `name` of `benches` are types then a number.
fn typed_numbers(benches: &[&Benchmark], name: &str) -> bool {
    benches
        .iter()
        .filter(|b| b.name == name)
        .filter_map(|b| b.params.as_deref())
        .all(|p| p.rsplit_once('/').is_some_and(|(_, a)| number(a).is_some()))
}

/// Throughput against the wall time's estimate, in `B/s` or `elem/s`: the rate and its
/// interval (a longer time is a lower rate: the bounds swap).
fn rate(b: &Benchmark) -> Option<(&'static str, Marked)> {
    let (amount, unit) = match b.throughput? {
        Throughput::Bytes(n) => (n as f64, "B/s"),
        Throughput::Elements(n) => (n as f64, "elem/s"),
    };
    let wall = b.counter("wall-time")?.estimate.as_ref()?;
    let p = point(wall);
    if p.is_nan() || p <= 0.0 {
        return None;
    }
    let per = |ns: f64| amount / (ns * 1e-9);
    Some((
        unit,
        Marked {
            point: per(p),
            low: per(wall.ci_high),
            high: per(wall.ci_low),
        },
    ))
}

/// The plots of the functions of `benches` (of one group) over their arguments: one per counter
/// that counted something and one of throughput where they have one; none when there are
/// fewer than two arguments.
fn argument_plots(id: &str, group: &str, benches: &[&Benchmark]) -> Vec<String> {
    let with: Vec<(String, &str, &Benchmark)> = benches
        .iter()
        .filter_map(|b| {
            let (line, arg) = line_and_argument(b, typed_numbers(benches, &b.name))?;
            Some((line, arg, *b))
        })
        .collect();
    let mut args: Vec<&str> = Vec::new();
    let mut lines: Vec<&str> = Vec::new();
    for (line, arg, _) in &with {
        if !args.contains(arg) {
            args.push(arg);
        }
        if !lines.contains(&line.as_str()) {
            lines.push(line);
        }
    }
    if args.len() < 2 {
        return Vec::new();
    }
    let numbers: Option<Vec<f64>> = args.iter().map(|a| number(a)).collect();
    let categories: Option<Vec<String>> = match numbers {
        Some(_) => None,
        None => Some(args.iter().map(|a| (*a).to_owned()).collect()),
    };
    let x = |arg: &str| match &numbers {
        Some(v) => v[args.iter().position(|a| *a == arg).unwrap_or(0)],
        None => args.iter().position(|a| *a == arg).unwrap_or(0) as f64,
    };
    let mut counters: Vec<(&str, &str)> = Vec::new();
    for (_, _, b) in &with {
        for c in &b.counters {
            if !counters.iter().any(|(n, _)| *n == c.name) {
                counters.push((&c.name, &c.unit));
            }
        }
    }
    let series = |value: &dyn Fn(&Benchmark) -> Option<Marked>| -> Vec<Line<'_>> {
        lines
            .iter()
            .map(|&name| Line {
                name,
                points: with
                    .iter()
                    .filter(|(l, _, _)| l == name)
                    .filter_map(|(_, arg, b)| Some((x(arg), value(b)?)))
                    .collect(),
            })
            .filter(|l| !l.points.is_empty())
            .collect()
    };
    let mut out = Vec::new();
    for (k, &(counter, unit)) in counters.iter().enumerate() {
        let lines = series(&|b| marked(b.counter(counter)?.estimate.as_ref()));
        // A counter that counted nothing anywhere (page faults of a loop) draws flat lines.
        let zero = |m: &Marked| m.point == 0.0 && m.low == 0.0 && m.high == 0.0;
        if lines.iter().flat_map(|l| &l.points).all(|(_, m)| zero(m)) {
            continue;
        }
        let subject = Subject {
            id: &format!("{id}-arg-{k}"),
            counter,
            unit,
        };
        if let Some(svg) = plot::over_arguments(&subject, group, &lines, categories.as_deref()) {
            out.push(svg);
        }
    }
    // Throughput, of the benchmarks whose kind (bytes or elements) the first one has.
    if let Some(unit) = with.iter().find_map(|(_, _, b)| rate(b)).map(|(u, _)| u) {
        let lines = series(&|b| rate(b).filter(|(u, _)| *u == unit).map(|(_, m)| m));
        let subject = Subject {
            id: &format!("{id}-arg-rate"),
            counter: "throughput",
            unit,
        };
        if let Some(svg) = plot::over_arguments(&subject, group, &lines, categories.as_deref()) {
            out.push(svg);
        }
    }
    out
}

/// The functions of `benches` without arguments side by side, by the first one's first
/// counter; `None` for fewer than two.
fn distributions_plot(id: &str, group: &str, benches: &[&Benchmark]) -> Option<String> {
    let plain: Vec<&Benchmark> = benches
        .iter()
        .copied()
        .filter(|b| b.params.is_none())
        .collect();
    let headline = plain.first()?.counters.first()?;
    let spreads: Vec<Spread<'_>> = plain
        .iter()
        .filter_map(|b| {
            let c = b.counter(&headline.name)?;
            c.per_iteration
                .iter()
                .any(|v| v.is_finite())
                .then(|| Spread {
                    name: &b.name,
                    values: &c.per_iteration,
                    marked: marked(c.estimate.as_ref()),
                })
        })
        .collect();
    if spreads.len() < 2 {
        return None;
    }
    let subject = Subject {
        id: &format!("{id}-spread"),
        counter: &headline.name,
        unit: &headline.unit,
    };
    plot::side_by_side(&subject, group, &spreads)
}

/// The change of every benchmark of `benches` against `against`: a plot of the first counter,
/// and one of each other counter where a benchmark regressed or improved; with the verdicts
/// counted in words beneath each. Nothing for fewer than two compared benchmarks.
fn change_plots(id: &str, group: &str, against: &str, benches: &[&Benchmark]) -> Vec<String> {
    let mut counters: Vec<(&str, &str)> = Vec::new();
    for b in benches {
        for c in b.counters.iter().filter(|c| c.change.is_some()) {
            if !counters.iter().any(|(n, _)| *n == c.name) {
                counters.push((&c.name, &c.unit));
            }
        }
    }
    // Each benchmark by its id within the group.
    let names: Vec<&str> = benches
        .iter()
        .map(|b| {
            b.id.strip_prefix(group)
                .and_then(|rest| rest.strip_prefix('/'))
                .filter(|rest| !rest.is_empty())
                .unwrap_or(&b.id)
        })
        .collect();
    let mut out = Vec::new();
    for (k, &(counter, unit)) in counters.iter().enumerate() {
        let bars: Vec<Bar<'_>> = benches
            .iter()
            .zip(&names)
            .filter_map(|(b, &name)| {
                let change = b.counter(counter)?.change?;
                change.ratio.is_some().then_some(Bar { name, change })
            })
            .collect();
        let changed = bars.iter().any(|b| b.change.verdict.is_change());
        if bars.len() < 2 || (k > 0 && !changed) {
            continue;
        }
        let subject = Subject {
            id: &format!("{id}-change-{k}"),
            counter,
            unit,
        };
        let Some(svg) = plot::changes(&subject, group, against, &bars) else {
            continue;
        };
        let mut words: Vec<String> = Vec::new();
        for v in [Verdict::Regressed, Verdict::Improved, Verdict::Unchanged] {
            let n = bars.iter().filter(|b| b.change.verdict == v).count();
            if n > 0 {
                words.push(format!("<span class=\"{0}\">{n} {0}</span>", v.as_str()));
            }
        }
        let others = bars.len()
            - bars
                .iter()
                .filter(|b| {
                    matches!(
                        b.change.verdict,
                        Verdict::Regressed | Verdict::Improved | Verdict::Unchanged
                    )
                })
                .count();
        if others > 0 {
            words.push(format!("{others} other"));
        }
        out.push(format!(
            "<figure>{svg}<figcaption>{}: {}.</figcaption></figure>",
            escape(counter),
            words.join(", ")
        ));
    }
    out
}

/// The summary plots of each group of `r` with two benchmarks or more, under a heading each;
/// nothing when no group has a plot. The section of the suite's group number `G` (counting
/// from 0 in the order they first come) has the id `g-SUITE-G` (the suite's directory name),
/// and the ids of its plots' titles start with it.
pub(super) fn group_section(body: &mut String, r: &Report) {
    let dir = suite_dir(&r.suite);
    let against = r
        .baseline
        .as_ref()
        .map(|b| b.name.as_str())
        .unwrap_or("baseline");
    let mut out = String::new();
    for (g, (group, benches)) in groups(r).into_iter().enumerate() {
        if benches.len() < 2 {
            continue;
        }
        let id = format!("g-{dir}-{g}");
        let changes = if r.baseline.is_some() {
            change_plots(&id, group, against, &benches)
        } else {
            Vec::new()
        };
        let args = argument_plots(&id, group, &benches);
        let spread = distributions_plot(&id, group, &benches);
        if changes.is_empty() && args.is_empty() && spread.is_none() {
            continue;
        }
        let _ = write!(
            out,
            "<section class=\"group\" id=\"{id}\">\n<h4>Group <code>{}</code> ({} benchmarks)</h4>\n\
             <div class=\"group-plots\">\n",
            escape(group),
            benches.len()
        );
        for c in changes {
            let _ = writeln!(out, "{c}");
        }
        let mut args = args.into_iter();
        if let Some(first) = args.next() {
            let _ = writeln!(
                out,
                "<figure>{first}<figcaption>Each function against its argument; the band is \
                 the interval.</figcaption></figure>"
            );
        }
        for more in args {
            let _ = writeln!(out, "<figure>{more}</figure>");
        }
        if let Some(s) = spread {
            let _ = writeln!(
                out,
                "<figure>{s}<figcaption>Box: quartiles and median; whiskers: the values kept \
                 (severe outliers left out); orange dot: the estimate.\
                 </figcaption></figure>"
            );
        }
        out.push_str("</div>\n</section>\n");
    }
    if !out.is_empty() {
        body.push_str("<h3>Groups</h3>\n");
        body.push_str(&out);
    }
}

#[cfg(test)]
mod tests;
