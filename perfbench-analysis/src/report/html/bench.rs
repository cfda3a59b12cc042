//! A benchmark's page ([`bench_page()`]): each counter's estimate, distribution, samples and
//! change against the baseline, with its plots, and a simulated benchmark's flame graphs.

use super::*;

/// A benchmark's page: for each counter its figures and its plots (distribution, with the
/// baseline's overlaid when `base` is given; the samples in order; the regression with linear
/// sampling). `changes` gives a counter's change when the page shows a comparison (else each
/// counter's recorded `change` is shown). `up` is the index's address from the page; `flames`
/// are the benchmark's flame graphs, shown (the first) and linked (all) when there are any.
///
/// ```
/// use perfbench_analysis::report::html::bench_page;
/// # use perfbench_analysis::model::{Benchmark, Config, CounterResult, Machine, Outcome, Report, Source};
/// # use perfbench_analysis::stats::{estimate, StatsConfig};
/// # let values = [1230.0, 1240.0, 1220.0, 1230.0];
/// # let mut fib = Benchmark::new("quickstart/fib", "quickstart", "fib", None, Outcome::Measured);
/// # fib.counters.push(CounterResult {
/// #     name: "wall-time".into(), unit: "ns".into(), source: Source::Clock, multiplexed: false,
/// #     per_iteration: values.to_vec(), iterations: vec![1000; 4], rounds: Vec::new(), overhead: 0.0,
/// #     estimate: estimate(&values, None, &StatsConfig::default()), change: None,
/// # });
/// # let machine = Machine { cpu: "Test CPU".into(), arch: "x86_64".into(), ..Machine::default() };
/// # let report = Report::new("quickstart", machine, Config::default(), vec![fib]);
/// let b = &report.benchmarks[0];
/// let html = bench_page(&report, b, Some(("main", b)), &|c| c.change, "../index.html", &[]);
/// assert!(html.contains("quickstart/fib") && html.contains("<svg") && html.contains("main"));
///
/// use perfbench_analysis::report::html::FlameLink;
/// let flames = [FlameLink {
///     counter: "instructions".into(),
///     href: "flame/000-fib.instructions.svg".into(),
///     against: None,
/// }];
/// let html = bench_page(&report, b, None, &|c| c.change, "../index.html", &flames);
/// assert!(html.contains(r#"<img class="flame" src="flame/000-fib.instructions.svg""#));
/// ```
pub fn bench_page(
    r: &Report,
    b: &Benchmark,
    base: Option<(&str, &Benchmark)>,
    changes: &dyn Fn(&CounterResult) -> Option<Change>,
    up: &str,
    flames: &[FlameLink],
) -> String {
    let mut body = String::new();
    let _ = write!(
        body,
        "<nav><a href=\"{up}#suite-{}\">← suite {}</a></nav>\n<h1>{}</h1>\n",
        suite_dir(&r.suite),
        escape(&r.suite),
        escape(&b.id)
    );
    let mut facts = vec![
        format!("group <code>{}</code>", escape(&b.group)),
        format!("function <code>{}</code>", escape(&b.name)),
    ];
    if let Some(p) = &b.params {
        facts.push(format!("parameters <code>{}</code>", escape(p)));
    }
    match b.throughput {
        Some(Throughput::Bytes(n)) => facts.push(format!("{n} bytes per iteration")),
        Some(Throughput::Elements(n)) => facts.push(format!("{n} elements per iteration")),
        None => {}
    }
    if let Some(note) = threads_note(b) {
        facts.push(escape(&note));
    }
    let _ = writeln!(body, "<p class=\"facts\">{}</p>", facts.join(" · "));
    let _ = writeln!(
        body,
        "<p class=\"facts\">Ran on {}.</p>\n<p class=\"facts\">{}.</p>",
        machine_line(r),
        config_line(r)
    );
    if let Some((name, _)) = base {
        let _ = writeln!(
            body,
            "<p>Compared with <strong>{}</strong>: its distribution is drawn in orange.</p>",
            escape(name)
        );
    }
    if let Some(f) = b.failure() {
        let _ = writeln!(body, "<p class=\"warning\">{}</p>", escape(&f));
    }
    if b.outcome == Outcome::Tested {
        body.push_str("<p class=\"muted\">Tested: ran once as a smoke test, not measured.</p>\n");
    }
    let linear = r.config.sampling == Sampling::Linear;
    for (k, c) in b.counters.iter().enumerate() {
        let differential = flames
            .iter()
            .find(|f| f.against.is_some() && f.counter == c.name);
        counter_section(&mut body, k, c, base, changes(c), differential, linear);
    }
    if !b.derived.is_empty() {
        body.push_str(
            "<h2>Derived metrics</h2>\n<table>\n<tr><th>metric</th><th>estimate</th>\
             <th>interval</th></tr>\n",
        );
        for d in &b.derived {
            let (value, interval) = estimate_cells(d.estimate.as_ref(), derived_unit(&d.name));
            let _ = writeln!(
                body,
                "<tr><td>{}</td><td class=\"num\">{value}</td><td class=\"num\">{interval}</td></tr>",
                escape(&d.name)
            );
        }
        body.push_str("</table>\n");
    }
    flame_section(&mut body, flames);
    document(&format!("{} · perfbench", b.id), &body)
}

/// The flame graphs: the run's own (the first shown, each linked), then those of the changes
/// against the baseline (the same).
fn flame_section(body: &mut String, flames: &[FlameLink]) {
    let (changes, own): (Vec<&FlameLink>, Vec<&FlameLink>) =
        flames.iter().partition(|f| f.against.is_some());
    if own.is_empty() && changes.is_empty() {
        return;
    }
    body.push_str(
        "<section id=\"flames\">\n<h2>Flame graphs</h2>\n<p class=\"facts\">Exact inclusive counts per \
         call path, per iteration, as Callgrind simulated them: the benchmark's body at the \
         root (with what was inlined into it), each function above its caller, as wide as \
         its count; perfbench's own frames are left out. Open a graph to zoom into a frame or \
         search for a function.</p>\n",
    );
    let links = |body: &mut String, graphs: &[&FlameLink]| {
        for (k, f) in graphs.iter().enumerate() {
            let sep = if k == 0 { "" } else { " · " };
            let _ = write!(
                body,
                "{sep}<a href=\"{}\">{}</a>",
                escape(&f.href),
                escape(&f.counter)
            );
        }
    };
    let picture = |body: &mut String, f: &FlameLink, what: &str| {
        let _ = writeln!(
            body,
            "<p><a href=\"{0}\"><img class=\"flame\" src=\"{0}\" alt=\"{what} {1}\"></a></p>",
            escape(&f.href),
            escape(&f.counter)
        );
    };
    if let Some(first) = own.first() {
        body.push_str("<p>");
        links(body, &own);
        body.push_str("</p>\n");
        picture(body, first, "flame graph of");
    }
    if let Some(first) = changes.first() {
        let _ = write!(
            body,
            "<h3>What changed against {}</h3>\n<p class=\"facts\">A differential flame graph \
             of each counter that regressed or improved: widths are this run's counts, a \
             function whose own count grew is red, one whose own count shrank blue, the others \
             white; a function that is gone does not show.</p>\n<p>",
            escape(first.against.as_deref().unwrap_or_default())
        );
        links(body, &changes);
        body.push_str("</p>\n");
        picture(body, first, "differential flame graph of");
    }
    body.push_str("</section>\n");
}

pub(super) fn counter_section(
    body: &mut String,
    k: usize,
    c: &CounterResult,
    base: Option<(&str, &Benchmark)>,
    change: Option<Change>,
    differential: Option<&FlameLink>,
    linear: bool,
) {
    let _ = writeln!(body, "<section>\n<h2>{}</h2>", escape(&c.name));
    let _ = write!(body, "<p class=\"facts\">Read via {}", c.source);
    if c.multiplexed {
        body.push_str(
            "; <strong>multiplexed</strong>: the counter shared the PMU with others, so its \
             counts are scaled estimates",
        );
    }
    if let Some(r) = c.estimate.and_then(|e| e.runs) {
        let _ = write!(
            body,
            "; the interval includes how far the last {} runs of this build strayed from each \
             other ({:.1}% standard deviation)",
            r.runs,
            100.0 * r.spread
        );
    }
    body.push_str(".</p>\n<div class=\"counter\">\n<table>\n");
    let unit = c.unit.as_str();
    let row = |body: &mut String, what: &str, value: String| {
        let _ = writeln!(
            body,
            "<tr><th>{what}</th><td class=\"num\">{}</td></tr>",
            escape(&value)
        );
    };
    if let Some(e) = &c.estimate {
        row(
            body,
            "estimate",
            format!(
                "{} {}",
                perfbench::units::format_point(point(e), unit),
                perfbench::units::format_interval(e.ci_low, e.ci_high, unit)
            ),
        );
        row(body, "mean", format_value(e.mean, unit));
        row(body, "median", format_value(e.median, unit));
        row(body, "std. dev.", format_value(e.stddev, unit));
        row(body, "MAD", format_value(e.mad, unit));
        row(
            body,
            "min – max",
            format!(
                "{} – {}",
                format_value(e.min, unit),
                format_value(e.max, unit)
            ),
        );
        if let Some(s) = e.slope {
            let r2 = e
                .r_squared
                .map(|r| format!(" (R² {r:.4})"))
                .unwrap_or_default();
            row(body, "slope", format!("{}{r2}", format_value(s, unit)));
        }
        let o = &e.outliers;
        row(
            body,
            "outliers",
            format!(
                "{} low severe, {} low mild, {} high mild, {} high severe; {} left out",
                o.low_severe, o.low_mild, o.high_mild, o.high_severe, e.excluded
            ),
        );
        if e.disturbed_rounds > 0 {
            row(
                body,
                "disturbed rounds",
                format!(
                    "{} of {}, slower than the quiet rounds: left out of the estimate",
                    e.disturbed_rounds,
                    c.rounds.len()
                ),
            );
        }
    } else {
        row(body, "estimate", "n/a (no finite sample)".to_owned());
    }
    row(
        body,
        "bracket overhead",
        format!("{} per sample (subtracted)", format_value(c.overhead, unit)),
    );
    if let Some(ch) = change {
        let _ = writeln!(
            body,
            "<tr><th>change</th><td class=\"num {}\">{} {} (p = {:.3}){}</td></tr>",
            ch.verdict.as_str(),
            escape(&change_text(&ch)),
            ch.verdict.as_str(),
            ch.p_value,
            differential.map_or(String::new(), |f| format!(
                " · <a href=\"{}\">what changed, by function</a>",
                escape(&f.href)
            ))
        );
        row(
            body,
            "baseline",
            perfbench::units::format_point(ch.baseline, unit),
        );
    }
    body.push_str("</table>\n<div class=\"plots\">\n");
    let base_values = base.and_then(|(name, b)| {
        b.counter(&c.name)
            .map(|bc| (name, bc.per_iteration.as_slice()))
    });
    let marked = c.estimate.as_ref().map(|e| plot::Marked {
        point: point(e),
        low: e.ci_low,
        high: e.ci_high,
    });
    let id = |what: &str| format!("c{k}-{what}");
    let did = id("dist");
    let dist = plot::distribution(
        &plot::Subject {
            id: &did,
            counter: &c.name,
            unit,
        },
        &c.per_iteration,
        marked,
        base_values,
    );
    let kept = headline_samples(&c.per_iteration);
    let left_out: Vec<bool> = (0..c.per_iteration.len())
        .map(|i| c.per_iteration[i].is_finite() && kept.binary_search(&i).is_err())
        .collect();
    let sid = id("samples");
    let samples = plot::samples(
        &plot::Subject {
            id: &sid,
            counter: &c.name,
            unit,
        },
        &c.per_iteration,
        &left_out,
        &c.rounds,
    );
    let rid = id("regression");
    let regression = match (&c.estimate, linear) {
        (Some(e), true) => e.slope.and_then(|s| {
            plot::regression(
                &plot::Subject {
                    id: &rid,
                    counter: &c.name,
                    unit,
                },
                &c.per_iteration,
                &c.iterations,
                s,
                e.r_squared,
            )
        }),
        _ => None,
    };
    let drawn: Vec<String> = [dist, samples, regression].into_iter().flatten().collect();
    if drawn.is_empty() {
        body.push_str("<p class=\"muted\">No finite sample to plot.</p>\n");
    }
    for svg in drawn {
        body.push_str(&svg);
        body.push('\n');
    }
    body.push_str("</div>\n</div>\n</section>\n");
}
