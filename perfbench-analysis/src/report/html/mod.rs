//! The HTML report, which the tool renders for every run: an
//! index of every suite and a page per benchmark with a plot per counter. The pieces of the
//! pages ([`document`], [`bench_page`], [`machine_line`], ...) are public: the `perfbench` tool
//! builds the pages of a comparison of two runs (`perfbench compare BASE NEW --html DIR`) from
//! them.
//!
//! Every `cargo bench` run writes `target/perfbench/report/`: `index.html` (every suite whose
//! latest report is in `target/perfbench/`, what regressed and improved first) and
//! `SUITE/NNN-ID.html` per benchmark. `perfbench report RESULT.json... --html DIR` renders the
//! same pages from reports.
//!
//! The pages are self-contained: the style sheet is inline, the plots are inline SVG
//! ([`plot`]), and a `Content-Security-Policy` forbids scripts and every network fetch, so they
//! read the same from a CI artifact with no server. Every name is HTML-escaped. Colours follow
//! the browser's light or dark preference (`prefers-color-scheme`).
//!
//! Like the rest of [`report`](crate::report), this module renders what it is given: it
//! computes no statistics beyond the density curves drawn in the plots, and it measures nothing.

pub mod plot;

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use crate::model::{file, Benchmark, CounterResult, Outcome, Report, Sampling, Throughput};
use crate::stats::{headline_samples, Change, Estimate, Method, Verdict};
use perfbench::units::{format_change_interval, format_estimate, format_value};

/// One file of a rendered report: its path below the report's directory, and its contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// Relative to the report's directory (`index.html`, `quickstart/000-sum.html`).
    pub path: PathBuf,
    /// The HTML document.
    pub html: String,
}

/// The pages of a report, written together with [`Site::write`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Site {
    /// Every page; the first is the index.
    pub pages: Vec<Page>,
}

impl Site {
    /// Writes every page under `dir` (created when missing), each atomically. Afterwards each
    /// suite directory holds only the pages of this site: pages of benchmarks that no longer
    /// exist are removed.
    ///
    /// ```
    /// use perfbench_analysis::report::html::{site, SuiteInput};
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
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-html-{}", std::process::id()));
    /// site(&[SuiteInput { report: &report, baseline: None }]).write(&dir)?;
    /// assert!(dir.join("index.html").is_file());
    /// assert!(dir.join("quickstart/000-quickstart_fib.html").is_file());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn write(&self, dir: &Path) -> io::Result<()> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        for page in &self.pages {
            let path = dir.join(&page.path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
                if parent != dir && !dirs.iter().any(|d| d == parent) {
                    dirs.push(parent.to_path_buf());
                }
            }
            file::write_atomic(&path, page.html.as_bytes())?;
        }
        for d in dirs {
            for entry in std::fs::read_dir(&d)?.flatten() {
                let p = entry.path();
                let ours = self.pages.iter().any(|pg| dir.join(&pg.path) == p);
                if !ours && p.extension().is_some_and(|x| x == "html") {
                    std::fs::remove_file(&p)?;
                }
            }
        }
        Ok(())
    }
}

/// A suite's report and, when the run was compared with a baseline, the baseline's report
/// (its samples are overlaid on the plots).
#[derive(Clone, Copy, Debug)]
pub struct SuiteInput<'a> {
    /// The run.
    pub report: &'a Report,
    /// What it was compared with, when that report is at hand.
    pub baseline: Option<&'a Report>,
}

/// `text` with `&`, `<`, `>`, `"` and `'` replaced by entities: safe in element content and
/// in quoted attribute values.
///
/// ```
/// use perfbench_analysis::report::html::escape;
///
/// assert_eq!(escape("<script>alert('x')</script>"), "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
/// ```
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A suite's directory name: its name with anything but ASCII letters, digits, `-` and `_`
/// replaced by `_`.
///
/// ```
/// use perfbench_analysis::report::html::suite_dir;
///
/// assert_eq!(suite_dir("my suite/v2"), "my_suite_v2");
/// ```
pub fn suite_dir(suite: &str) -> String {
    let s: String = suite
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "_".to_owned()
    } else {
        s
    }
}

/// A benchmark page's file name in its suite's directory: its position in the suite (unique)
/// and its id made safe (`001-group_name_64.html`).
///
/// ```
/// use perfbench_analysis::report::html::bench_file;
///
/// assert_eq!(bench_file(1, "group/name/64"), "001-group_name_64.html");
/// ```
pub fn bench_file(index: usize, id: &str) -> String {
    let mut slug: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    if slug.is_empty() {
        slug.push('_');
    }
    format!("{index:03}-{slug}.html")
}

const STYLE: &str = r##"
:root { color-scheme: light dark; --fg: #1b1b1b; --bg: #ffffff; --muted: #5f6368;
  --rule: #d9d9d9; --head: #f3f4f6; --bad: #c62828; --good: #2e7d32; --warn-bg: #fff4e5; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e6e6; --bg: #16181c; --muted: #a0a4aa; --rule: #3a3d42; --head: #22252a;
    --bad: #ff6b6b; --good: #69db7c; --warn-bg: #3a2a12; }
  svg.plot text { fill: var(--fg); }
  svg.plot [stroke="#000000"] { stroke: var(--fg); }
  svg.plot [fill="#000000"] { fill: var(--fg); }
  svg.plot [fill="#FFFFFF"] { fill: var(--bg); }
}
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
  background: var(--bg); margin: 0 auto; padding: 1.2em 2em 3em; max-width: 76em; }
h1 { font-size: 1.6em; margin: 0.2em 0 0.4em; word-break: break-word; }
h2 { font-size: 1.3em; margin: 1.6em 0 0.4em; border-bottom: 1px solid var(--rule); word-break: break-word; }
h3 { font-size: 1.1em; margin: 1.2em 0 0.3em; }
a { color: #1f6fc5; } @media (prefers-color-scheme: dark) { a { color: #74b0f4; } }
table { border-collapse: collapse; margin: 0.4em 0 1em; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--rule); padding: 0.25em 0.7em; text-align: left; vertical-align: top; }
th { background: var(--head); font-weight: 600; }
td.num { text-align: right; white-space: nowrap; }
.regressed { color: var(--bad); font-weight: 600; }
.improved { color: var(--good); font-weight: 600; }
.unchanged, .muted, .derived td { color: var(--muted); }
.warning { background: var(--warn-bg); border-left: 4px solid #e07b00; padding: 0.4em 0.8em; margin: 0.6em 0; }
.facts { color: var(--muted); margin: 0.2em 0; }
.counter { display: grid; grid-template-columns: minmax(16em, 24em) minmax(0, 1fr); gap: 0 2em; align-items: start; }
.counter table { width: 100%; } .counter td.num { white-space: normal; }
@media (max-width: 64em) { .counter { grid-template-columns: minmax(0, 1fr); } }
.plots { display: flex; flex-direction: column; gap: 0.8em; }
svg.plot { width: 100%; max-width: 640px; height: auto; }
.plot-error { color: var(--bad); }
nav { margin-bottom: 0.6em; }
code { font-size: 0.95em; }
"##;

/// A whole HTML document: `body` under `title` (escaped here), with the report's style sheet
/// and its `Content-Security-Policy`.
///
/// ```
/// use perfbench_analysis::report::html::document;
///
/// let page = document("<b>bold</b> title", "<p>body</p>");
/// assert!(page.starts_with("<!DOCTYPE html>"));
/// assert!(page.contains("&lt;b&gt;bold&lt;/b&gt; title") && page.contains("<p>body</p>"));
/// assert!(page.contains("Content-Security-Policy"));
/// ```
pub fn document(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'\">\n\
         <meta name=\"generator\" content=\"perfbench {}\">\n<title>{}</title>\n\
         <style>{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        env!("CARGO_PKG_VERSION"),
        escape(title)
    )
}

/// `<td class="VERDICT">verdict</td>`, or an empty cell.
///
/// ```
/// use perfbench_analysis::report::html::verdict_cell;
/// use perfbench_analysis::stats::Verdict;
///
/// assert!(verdict_cell(Some(Verdict::Regressed)).contains("regressed"));
/// assert!(!verdict_cell(None).contains("regressed"));
/// ```
pub fn verdict_cell(verdict: Option<Verdict>) -> String {
    match verdict {
        Some(v) => format!("<td class=\"{0}\">{0}</td>", v.as_str()),
        None => "<td></td>".to_owned(),
    }
}

fn change_text(c: &Change) -> String {
    let mut s = format_change_interval(c.ratio, c.ci_low, c.ci_high);
    if c.method == Method::Paired {
        s.push_str(" (paired)");
    }
    s
}

/// The headline point of an estimate (the mean for reports written before `point` existed).
fn point(e: &Estimate) -> f64 {
    if e.point.is_finite() {
        e.point
    } else {
        e.mean
    }
}

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

fn config_line(r: &Report) -> String {
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

fn sources_line(r: &Report) -> String {
    r.machine
        .sources
        .iter()
        .map(|(name, s)| format!("{} via {}", escape(name), s))
        .collect::<Vec<_>>()
        .join(", ")
}

fn counts(reports: &[&Report]) -> (usize, usize) {
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

fn suite_section(body: &mut String, r: &Report) {
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
        let link = format!(
            "<a href=\"{dir}/{}\">{}</a>",
            bench_file(i, &b.id),
            escape(&b.id)
        );
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
fn derived_unit(name: &str) -> &'static str {
    if name.ends_with("-rate") {
        "%"
    } else {
        ""
    }
}

fn estimate_cells(e: Option<&Estimate>, unit: &str) -> (String, String) {
    match e {
        Some(e) => {
            let (v, i) = format_estimate(point(e), e.ci_low, e.ci_high, unit);
            (escape(&v), escape(&i))
        }
        None => ("n/a".to_owned(), String::new()),
    }
}

/// Throughput from the wall-time estimate: (`1.21 GiB/s`, `[1.19 1.23]`).
fn throughput_cells(b: &Benchmark) -> Option<(String, String)> {
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

/// A benchmark's page: for each counter its figures and its plots (distribution, with the
/// baseline's overlaid when `base` is given; the samples in order; the regression with linear
/// sampling). `changes` gives a counter's change when the page shows a comparison (else each
/// counter's recorded `change` is shown). `up` is the index's address from the page.
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
/// let html = bench_page(&report, b, Some(("main", b)), &|c| c.change, "../index.html");
/// assert!(html.contains("quickstart/fib") && html.contains("<svg") && html.contains("main"));
/// ```
pub fn bench_page(
    r: &Report,
    b: &Benchmark,
    base: Option<(&str, &Benchmark)>,
    changes: &dyn Fn(&CounterResult) -> Option<Change>,
    up: &str,
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
        counter_section(&mut body, k, c, base, changes(c), linear);
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
    document(&format!("{} · perfbench", b.id), &body)
}

fn counter_section(
    body: &mut String,
    k: usize,
    c: &CounterResult,
    base: Option<(&str, &Benchmark)>,
    change: Option<Change>,
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
            "<tr><th>change</th><td class=\"num {}\">{} {} (p = {:.3})</td></tr>",
            ch.verdict.as_str(),
            escape(&change_text(&ch)),
            ch.verdict.as_str(),
            ch.p_value
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

/// The pages of one suite's benchmarks, in `SUITE/` below the report's directory.
///
/// ```
/// use perfbench_analysis::report::html::{suite_pages, SuiteInput};
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
/// let pages = suite_pages(SuiteInput { report: &report, baseline: None });
/// assert_eq!(pages.len(), 1);
/// assert!(pages[0].html.contains("<svg")); // the plots, inline
/// ```
pub fn suite_pages(input: SuiteInput<'_>) -> Vec<Page> {
    let r = input.report;
    let dir = suite_dir(&r.suite);
    let label = r
        .baseline
        .as_ref()
        .map(|b| b.name.as_str())
        .unwrap_or("baseline");
    r.benchmarks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let base = input
                .baseline
                .and_then(|base| base.bench(&b.id))
                .map(|bb| (label, bb));
            Page {
                path: Path::new(&dir).join(bench_file(i, &b.id)),
                html: bench_page(r, b, base, &|c| c.change, "../index.html"),
            }
        })
        .collect()
}

/// The index of `inputs` and every benchmark page of each.
///
/// ```
/// use perfbench_analysis::report::html::{site, SuiteInput};
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
/// let site = site(&[SuiteInput { report: &report, baseline: Some(&report) }]);
/// assert_eq!(site.pages.len(), 2); // the index, then one page per benchmark
/// ```
pub fn site(inputs: &[SuiteInput<'_>]) -> Site {
    let reports: Vec<&Report> = inputs.iter().map(|i| i.report).collect();
    let mut pages = vec![index(&reports)];
    for input in inputs {
        pages.extend(suite_pages(*input));
    }
    Site { pages }
}

/// The report of a run that has just finished, written to `dir` (`target/perfbench/report`):
/// the run's own benchmark pages, and an index of every suite whose latest report is a
/// `*.json` file directly in `reports_dir` (`target/perfbench`), with this run in place of
/// its suite's file. Unreadable files there are skipped.
///
/// ```
/// use perfbench_analysis::report::html::{write_run, SuiteInput};
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
/// # let dir = std::env::temp_dir().join(format!("perfbench-doc-run-{}", std::process::id()));
/// write_run(&dir.join("report"), &dir, SuiteInput { report: &report, baseline: None })?;
/// let index = std::fs::read_to_string(dir.join("report/index.html"))?;
/// assert!(index.contains("quickstart/fib"));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_run(dir: &Path, reports_dir: &Path, run: SuiteInput<'_>) -> io::Result<()> {
    let mut others: Vec<Report> = Vec::new();
    if let Ok(entries) = std::fs::read_dir(reports_dir) {
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
            .collect();
        perfbench::sorting::sort_by(&mut files, Ord::cmp);
        for f in files {
            if let Ok(r) = file::load(&f) {
                if r.suite != run.report.suite && !others.iter().any(|o| o.suite == r.suite) {
                    others.push(r);
                }
            }
        }
    }
    let mut reports: Vec<&Report> = others.iter().collect();
    reports.push(run.report);
    perfbench::sorting::sort_by(&mut reports, |a, b| a.suite.cmp(&b.suite));
    let mut pages = vec![index(&reports)];
    pages.extend(suite_pages(run));
    // Only this suite's directory is rewritten; the others keep the pages their runs wrote.
    Site { pages }.write(dir)
}

/// Looks up the baseline a report was compared with, when it was a saved baseline next to the
/// report (`DIR/baselines/NAME/SUITE.json` for a report in `DIR`): the previous run is
/// overwritten by the run itself, so its samples are gone.
///
/// ```
/// use perfbench_analysis::model::{json::to_json, BaselineRef};
/// use perfbench_analysis::baseline::Store;
/// use perfbench_analysis::report::html::find_baseline;
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
/// # let dir = std::env::temp_dir().join(format!("perfbench-doc-find-{}", std::process::id()));
/// let store = Store::new(&dir);
/// store.save_baseline("main", "quickstart", &to_json(&report))?;
/// let mut run = report.clone();
/// run.baseline = Some(BaselineRef {
///     name: "main".into(),
///     perfbench_version: run.perfbench_version.clone(),
///     machine: run.machine.clone(),
///     warnings: Vec::new(),
///     runs: 1,
/// });
/// assert_eq!(find_baseline(&store.latest_path("quickstart"), &run), Some(report));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn find_baseline(report_path: &Path, report: &Report) -> Option<Report> {
    let name = &report.baseline.as_ref()?.name;
    let dir = report_path.parent()?;
    let path = crate::baseline::Store::new(dir).baseline_path(name, &report.suite);
    file::load(&path).ok()
}

#[cfg(test)]
mod tests;
