//! The site's front page ([`index()`]): for every suite its machine, settings and sources, and a
//! table of every benchmark's counters, derived metrics, throughput and change.

use super::*;

/// The machine a report ran on, in one line (escaped).
///
/// ```
/// use perfbench_analysis::report::html::machine_line;
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
/// assert!(machine_line(&report).contains("Test CPU"));
/// ```
pub fn machine_line(r: &Report) -> String {
    let m = &r.machine;
    let mut parts = vec![
        escape(&m.cpu),
        escape(&m.arch),
        format!("Linux {}", escape(&m.kernel)),
        format!("{} CPUs", m.cpus),
        match m.core_pmus.as_slice() {
            [] => "no hardware PMU".to_owned(),
            p => format!("PMU {}", escape(&p.join(", "))),
        },
    ];
    if let Some(p) = m.paranoid {
        parts.push(format!("perf_event_paranoid {p}"));
    }
    if let Some(s) = &m.simulator {
        parts.push(format!(
            "simulated by {} {} ({})",
            escape(&s.tool),
            escape(&s.version),
            escape(&s.cache)
        ));
    }
    parts.join(" · ")
}

pub(super) fn config_line(r: &Report) -> String {
    let c = &r.config;
    format!(
        "{} samples in {} round{} per benchmark, {} sampling, {}% intervals ({} resamples)",
        c.sample_size,
        c.rounds,
        if c.rounds == 1 { "" } else { "s" },
        match c.sampling {
            Sampling::Flat => "flat",
            Sampling::Linear => "linear",
        },
        c.confidence * 100.0,
        c.resamples
    )
}

pub(super) fn sources_line(r: &Report) -> String {
    r.machine
        .sources
        .iter()
        .map(|(name, s)| format!("{} via {}", escape(name), s))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn counts(reports: &[&Report]) -> (usize, usize) {
    let mut regressed = 0;
    let mut improved = 0;
    for c in reports
        .iter()
        .flat_map(|r| &r.benchmarks)
        .flat_map(|b| &b.counters)
    {
        match c.change.map(|c| c.verdict) {
            Some(Verdict::Regressed) => regressed += 1,
            Some(Verdict::Improved) => improved += 1,
            _ => {}
        }
    }
    (regressed, improved)
}

/// The index of one or more suites: for each, the machine, what regressed and improved, and
/// every benchmark by counter with links to the benchmark pages.
///
/// ```
/// use perfbench_analysis::report::html::index;
/// # use perfbench_analysis::model::{Benchmark, Config, CounterResult, Machine, Outcome, Report, Source};
/// # use perfbench_analysis::stats::{estimate, StatsConfig};
/// # fn wall(values: &[f64]) -> CounterResult {
/// #     CounterResult {
/// #         name: "wall-time".into(), unit: "ns".into(), source: Source::Clock,
/// #         multiplexed: false, per_iteration: values.to_vec(), iterations: vec![1000; values.len()],
/// #         rounds: Vec::new(), overhead: 0.0,
/// #         estimate: estimate(values, None, &StatsConfig::default()), change: None,
/// #     }
/// # }
/// # let mut fib = Benchmark::new("quickstart/fib", "quickstart", "fib", None, Outcome::Measured);
/// # fib.counters.push(wall(&[1230.0, 1240.0, 1220.0, 1230.0]));
/// # let report = Report::new("quickstart", Machine::default(), Config::default(), vec![fib]);
/// let page = index(&[&report]);
/// assert_eq!(page.path, std::path::Path::new("index.html"));
/// assert!(page.html.starts_with("<!DOCTYPE html>") && page.html.contains("quickstart/fib"));
/// ```
pub fn index(reports: &[&Report]) -> Page {
    let mut body = String::new();
    let total: usize = reports.iter().map(|r| r.benchmarks.len()).sum();
    let (regressed, improved) = counts(reports);
    let _ = write!(
        body,
        "<h1>perfbench report</h1>\n<p class=\"facts\">{} suite{}, {total} benchmark{}",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        if total == 1 { "" } else { "s" },
    );
    if reports.iter().any(|r| r.baseline.is_some()) {
        let _ = write!(
            body,
            "; <span class=\"{}\">{regressed} counter{} regressed</span>, \
             <span class=\"{}\">{improved} improved</span>",
            if regressed > 0 { "regressed" } else { "muted" },
            if regressed == 1 { "" } else { "s" },
            if improved > 0 { "improved" } else { "muted" },
        );
    }
    body.push_str(".</p>\n");
    if reports.len() > 1 {
        body.push_str("<nav>Suites: ");
        let links: Vec<String> = reports
            .iter()
            .map(|r| {
                format!(
                    "<a href=\"#suite-{}\">{}</a>",
                    suite_dir(&r.suite),
                    escape(&r.suite)
                )
            })
            .collect();
        body.push_str(&links.join(" · "));
        body.push_str("</nav>\n");
    }
    for r in reports {
        suite_section(&mut body, r);
    }
    let title = match reports {
        [one] => format!("perfbench: {}", one.suite),
        _ => "perfbench report".to_owned(),
    };
    Page {
        path: PathBuf::from("index.html"),
        html: document(&title, &body),
    }
}

pub(super) fn suite_section(body: &mut String, r: &Report) {
    let dir = suite_dir(&r.suite);
    let _ = write!(
        body,
        "<section id=\"suite-{dir}\">\n<h2>Suite {}</h2>\n<p class=\"facts\">{}</p>\n\
         <p class=\"facts\">{}</p>\n",
        escape(&r.suite),
        machine_line(r),
        config_line(r)
    );
    let sources = sources_line(r);
    if !sources.is_empty() {
        let _ = writeln!(body, "<p class=\"facts\">Counters: {sources}</p>");
    }
    if let Some(b) = &r.baseline {
        let runs = if b.runs > 1 {
            format!(
                ", {} runs of one build: its floor is the fastest of them",
                b.runs
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            body,
            "<p>Compared with <strong>{}</strong> (perfbench {}{runs}).</p>",
            escape(&b.name),
            escape(&b.perfbench_version)
        );
        for w in &b.warnings {
            let _ = writeln!(
                body,
                "<p class=\"warning\">The machines differ: {}. Counts may differ for reasons \
                 other than the code.</p>",
                escape(w)
            );
        }
    }
    let failed: Vec<&Benchmark> = r
        .benchmarks
        .iter()
        .filter(|b| b.failure().is_some())
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(body, "<h3 class=\"regressed\">Failed</h3>\n<ul>");
        for b in failed {
            let _ = writeln!(
                body,
                "<li><code>{}</code>: {}</li>",
                escape(&b.id),
                escape(&b.failure().unwrap_or_default())
            );
        }
        body.push_str("</ul>\n");
    }
    for verdict in [Verdict::Regressed, Verdict::Improved] {
        let rows: Vec<(usize, &Benchmark, &CounterResult, Change)> = r
            .benchmarks
            .iter()
            .enumerate()
            .flat_map(|(i, b)| b.counters.iter().map(move |c| (i, b, c)))
            .filter_map(|(i, b, c)| {
                c.change
                    .filter(|ch| ch.verdict == verdict)
                    .map(|ch| (i, b, c, ch))
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let word = verdict.as_str();
        let _ = write!(
            body,
            "<h3 class=\"{word}\">{} ({})</h3>\n<table>\n<tr><th>benchmark</th><th>counter</th>\
             <th>baseline</th><th>new</th><th>change [interval]</th><th>verdict</th></tr>\n",
            if verdict == Verdict::Regressed {
                "Regressed"
            } else {
                "Improved"
            },
            rows.len()
        );
        for (i, b, c, ch) in rows {
            let new = c.estimate.as_ref().map(point).unwrap_or(f64::NAN);
            let _ = writeln!(
                body,
                "<tr><td><a href=\"{dir}/{}\">{}</a></td><td>{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td>{}</tr>",
                bench_file(i, &b.id),
                escape(&b.id),
                escape(&c.name),
                perfbench::units::format_point(ch.baseline, &c.unit),
                perfbench::units::format_point(new, &c.unit),
                escape(&change_text(&ch)),
                verdict_cell(Some(ch.verdict))
            );
        }
        body.push_str("</table>\n");
    }
    super::group::group_section(body, r);
    let compared = r.baseline.is_some();
    let _ = write!(
        body,
        "<h3>All benchmarks</h3>\n<table class=\"all\">\n<tr><th>benchmark</th><th>counter</th>\
         <th>estimate</th><th>interval</th><th>source</th>{}</tr>\n",
        if compared {
            "<th>change [interval]</th><th>verdict</th>"
        } else {
            ""
        }
    );
    let extra = if compared { 2 } else { 0 };
    for (i, b) in r.benchmarks.iter().enumerate() {
        let mut link = format!(
            "<a href=\"{dir}/{}\">{}</a>",
            bench_file(i, &b.id),
            escape(&b.id)
        );
        if let Some(note) = threads_note(b) {
            let _ = write!(link, "<br><span class=\"muted\">{}</span>", escape(&note));
        }
        if let Some(f) = b.failure() {
            let _ = writeln!(
                body,
                "<tr><td>{link}</td><td colspan=\"{}\" class=\"regressed\">{}</td></tr>",
                4 + extra,
                escape(&f)
            );
            continue;
        }
        let rows = b.counters.len() + b.derived.len() + usize::from(b.throughput.is_some());
        if rows == 0 {
            let _ = writeln!(
                body,
                "<tr><td>{link}</td><td colspan=\"{}\" class=\"muted\">{}</td></tr>",
                4 + extra,
                if b.outcome == Outcome::Tested {
                    "tested (ran once, not measured)"
                } else {
                    "no counters"
                }
            );
            continue;
        }
        let mut first = true;
        let mut lead = || {
            if std::mem::take(&mut first) {
                format!("<td rowspan=\"{rows}\">{link}</td>")
            } else {
                String::new()
            }
        };
        for c in &b.counters {
            let (value, interval) = estimate_cells(c.estimate.as_ref(), &c.unit);
            let _ = write!(
                body,
                "<tr>{}<td>{}</td><td class=\"num\">{value}</td><td class=\"num\">{interval}</td>\
                 <td>{}{}</td>",
                lead(),
                escape(&c.name),
                c.source,
                if c.multiplexed { " (multiplexed)" } else { "" }
            );
            if compared {
                match &c.change {
                    Some(ch) => {
                        let _ = write!(
                            body,
                            "<td class=\"num\">{}</td>{}",
                            escape(&change_text(ch)),
                            verdict_cell(Some(ch.verdict))
                        );
                    }
                    None => body.push_str("<td></td><td></td>"),
                }
            }
            body.push_str("</tr>\n");
        }
        if let Some(t) = throughput_cells(b) {
            let _ = write!(
                body,
                "<tr class=\"derived\">{}<td>throughput</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td>wall-time</td>",
                lead(),
                t.0,
                t.1
            );
            body.push_str(&"<td></td>".repeat(extra));
            body.push_str("</tr>\n");
        }
        for d in &b.derived {
            let unit = derived_unit(&d.name);
            let (value, interval) = estimate_cells(d.estimate.as_ref(), unit);
            let _ = write!(
                body,
                "<tr class=\"derived\">{}<td>{}</td><td class=\"num\">{value}</td>\
                 <td class=\"num\">{interval}</td><td>derived</td>",
                lead(),
                escape(&d.name)
            );
            body.push_str(&"<td></td>".repeat(extra));
            body.push_str("</tr>\n");
        }
    }
    body.push_str("</table>\n</section>\n");
}

/// Derived metrics: `*-rate` is a fraction shown as a percentage; `ipc` is plain.
pub(super) fn derived_unit(name: &str) -> &'static str {
    if name.ends_with("-rate") {
        "%"
    } else {
        ""
    }
}

pub(super) fn estimate_cells(e: Option<&Estimate>, unit: &str) -> (String, String) {
    match e {
        Some(e) => {
            let (v, i) = format_estimate(point(e), e.ci_low, e.ci_high, unit);
            (escape(&v), escape(&i))
        }
        None => ("n/a".to_owned(), String::new()),
    }
}

/// Throughput from the wall-time estimate: (`1.21 GiB/s`, `[1.19 1.23]`).
pub(super) fn throughput_cells(b: &Benchmark) -> Option<(String, String)> {
    let t = b.throughput?;
    let wall = b.counter("wall-time")?.estimate.as_ref()?;
    let (amount, unit) = match t {
        Throughput::Bytes(n) => (n as f64, "B/s"),
        Throughput::Elements(n) => (n as f64, "elem/s"),
    };
    let per = |ns: f64| amount / (ns * 1e-9);
    let p = point(wall);
    if p.is_nan() || p <= 0.0 {
        return None;
    }
    // A longer time is a lower rate: the interval's bounds swap.
    let (v, i) = format_estimate(per(p), per(wall.ci_high), per(wall.ci_low), unit);
    Some((escape(&v), escape(&i)))
}
