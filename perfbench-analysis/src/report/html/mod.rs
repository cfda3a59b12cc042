//! The HTML report, which the tool renders for every run: an
//! index of every suite and a page per benchmark with a plot per counter. The pieces of the
//! pages ([`document`], [`bench_page`], [`machine_line`], ...) are public: the `perfbench` tool
//! builds the pages of a comparison of two runs (`perfbench compare BASE NEW --html DIR`) from
//! them.
//!
//! Every `cargo bench` run writes `target/perfbench/report/`: `index.html` (every suite whose
//! latest report is in `target/perfbench/`, what regressed and improved first),
//! `SUITE/NNN-ID.html` per benchmark and, for a simulated benchmark, its flame graphs
//! `SUITE/flame/NNN-ID.COUNTER.svg` ([`flame_file`], drawn by [`report::flame`](crate::report::flame)).
//! `perfbench report RESULT.json... --html DIR` renders the same pages from reports.
//!
//! The pages are self-contained but for the flame graphs beside them: the style sheet is inline,
//! the plots are inline SVG ([`plot`]), and a `Content-Security-Policy` forbids scripts and every
//! fetch but of those pictures (images from the report's own place), so they read the same from
//! a CI artifact with no server. Every name is HTML-escaped. Colours follow
//! the browser's light or dark preference (`prefers-color-scheme`).
//!
//! Like the rest of [`report`](crate::report), this module renders what it is given: it
//! computes no statistics beyond the density curves drawn in the plots, and it measures nothing.
//!
//! Its parts: `index` (the site's front page: every suite's table, machine and settings),
//! `group` (the index's summary plots of each group: changes, counters against the argument,
//! functions side by side) and `bench` (a benchmark's page: each counter's figures, plots and
//! change); this module has the pages' frame, the site and the files.

pub mod plot;

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use super::threads_note;
use crate::model::{file, Benchmark, CounterResult, Outcome, Report, Sampling, Throughput};
use crate::report::flame::{self, Graph};
use crate::stats::{headline_samples, Change, Estimate, Method, Verdict};

use perfbench::units::{format_change_interval, format_estimate, format_value};

mod bench;
mod group;
mod index;

pub use bench::*;
pub use index::*;

/// One file of a rendered report: its path below the report's directory, and its contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// Relative to the report's directory (`index.html`, `quickstart/000-sum.html`,
    /// `quickstart/flame/000-sum.instructions.svg`).
    pub path: PathBuf,
    /// The HTML document, or the flame graph's SVG picture.
    pub html: String,
}

/// A flame graph of a benchmark page: its counter, its file from the page ([`flame_file`],
/// [`flame_change_file`]), and for the graph of a change, the baseline's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlameLink {
    /// The counter it draws.
    pub counter: String,
    /// Its path from the benchmark's page.
    pub href: String,
    /// The baseline a differential graph compares with; `None` for the run's own graph.
    pub against: Option<String>,
}

/// The pages of a report, written together with [`Site::write`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Site {
    /// Every page; the first is the index.
    pub pages: Vec<Page>,
}

impl Site {
    /// Writes every page under `dir` (created when missing), each atomically. Afterwards each
    /// suite directory holds only the pages of this site, and its `flame` directory only its
    /// flame graphs: those of benchmarks that no longer exist (or are no longer simulated) are
    /// removed.
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
        // A suite's flame graphs go with its pages, even when it has none left.
        let flames: Vec<PathBuf> = dirs
            .iter()
            .map(|d| d.join(FLAME_DIR))
            .filter(|f| f.is_dir() && !dirs.contains(f))
            .collect();
        for d in dirs.into_iter().chain(flames) {
            for entry in std::fs::read_dir(&d)?.flatten() {
                let p = entry.path();
                let ours = self.pages.iter().any(|pg| dir.join(&pg.path) == p);
                if !ours && p.extension().is_some_and(|x| x == "html" || x == "svg") {
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

/// The directory of a suite's flame graphs, in its pages' directory.
pub const FLAME_DIR: &str = "flame";

/// The flame graph of `counter` of the benchmark at `index` in its suite, `id`: its path from
/// the suite's directory, beside the page's name ([`bench_file`]).
///
/// ```
/// use perfbench_analysis::report::html::flame_file;
///
/// assert_eq!(flame_file(1, "group/name/64", "instructions"), "flame/001-group_name_64.instructions.svg");
/// ```
pub fn flame_file(index: usize, id: &str, counter: &str) -> String {
    let page = bench_file(index, id);
    let stem = page.strip_suffix(".html").unwrap_or(&page);
    let counter: String = counter
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{FLAME_DIR}/{stem}.{counter}.svg")
}

/// The differential flame graph of `counter` of the benchmark at `index` in its suite, `id`,
/// against the baseline: its path from the suite's directory.
///
/// ```
/// use perfbench_analysis::report::html::flame_change_file;
///
/// assert_eq!(flame_change_file(1, "group/name", "instructions"), "flame/001-group_name.instructions.change.svg");
/// ```
pub fn flame_change_file(index: usize, id: &str, counter: &str) -> String {
    let plain = flame_file(index, id, counter);
    let stem = plain.strip_suffix(".svg").unwrap_or(&plain);
    format!("{stem}.change.svg")
}

/// The counters of `b` that get a differential flame graph against `base`, the baseline's run
/// of it: those that regressed or improved, where both have a flame with the counter.
pub fn changed_flames<'a>(b: &'a Benchmark, base: &Benchmark) -> Vec<&'a str> {
    changed_flames_where(b, base, &|c| {
        b.counter(c)
            .and_then(|r| r.change)
            .is_some_and(|ch| ch.verdict.is_change())
    })
}

/// [`changed_flames`] with the changes judged elsewhere (by `perfbench compare`, say): the
/// counters of `b`'s flame that `base`'s has too and `changed` names.
pub fn changed_flames_where<'a>(
    b: &'a Benchmark,
    base: &Benchmark,
    changed: &dyn Fn(&str) -> bool,
) -> Vec<&'a str> {
    let (Some(after), Some(before)) = (&b.flame, &base.flame) else {
        return Vec::new();
    };
    after
        .counters
        .iter()
        .filter(|c| before.counters.contains(c) && changed(c))
        .map(String::as_str)
        .collect()
}

/// What to draw for benchmark `b`, number `i` of its suite: a graph per counter its flame has
/// and, against `base` (the baseline's name and its run of `b`), one per counter in `changed`.
fn flame_jobs<'a>(
    i: usize,
    b: &'a Benchmark,
    base: Option<(&'a str, &'a Benchmark)>,
    changed: &[&'a str],
) -> Vec<(Graph<'a>, FlameLink)> {
    let Some(f) = &b.flame else {
        return Vec::new();
    };
    let mut jobs = Vec::new();
    for c in &f.counters {
        let link = FlameLink {
            counter: c.clone(),
            href: flame_file(i, &b.id, c),
            against: None,
        };
        jobs.push((Graph::Of(f, c), link));
    }
    let Some((name, Some(before))) = base.map(|(name, bb)| (name, bb.flame.as_ref())) else {
        return jobs;
    };
    for &c in changed {
        let graph = Graph::Change {
            base: before,
            new: f,
            counter: c,
            against: name,
        };
        let link = FlameLink {
            counter: c.to_owned(),
            href: flame_change_file(i, &b.id, c),
            against: Some(name.to_owned()),
        };
        jobs.push((graph, link));
    }
    jobs
}

/// The graphs of `jobs` drawn (in parallel), in order, as pages of the suite's directory `dir`
/// with their links; `None` for a graph with nothing to draw.
fn drawn(dir: &str, jobs: Vec<(Graph<'_>, FlameLink)>) -> Vec<(Option<Page>, FlameLink)> {
    let graphs: Vec<Graph<'_>> = jobs.iter().map(|(g, _)| *g).collect();
    jobs.into_iter()
        .zip(flame::draw_all(&graphs))
        .map(|((_, link), svg)| {
            let page = svg.map(|html| Page {
                path: Path::new(dir).join(&link.href),
                html,
            });
            (page, link)
        })
        .collect()
}

/// The flame graphs of benchmark `b`, number `index` of its suite, as pages of the suite's
/// directory `dir`, and their links from its page: one per counter its flame has and, against
/// `base` (a name and the baseline's run of `b`), a differential one per counter of both flames
/// that `changed` names (`perfbench compare --html` passes the comparison's verdicts).
pub fn bench_flames(
    dir: &str,
    index: usize,
    b: &Benchmark,
    base: Option<(&str, &Benchmark)>,
    changed: &dyn Fn(&str) -> bool,
) -> (Vec<Page>, Vec<FlameLink>) {
    let counters = match base {
        Some((_, bb)) => changed_flames_where(b, bb, changed),
        None => Vec::new(),
    };
    drawn(dir, flame_jobs(index, b, base, &counters))
        .into_iter()
        .filter_map(|(page, link)| Some((page?, link)))
        .unzip()
}

/// The flame graphs of each of `benchmarks` of a suite, as pages of the suite's directory
/// `dir`, and their links from its page: one per counter its flame has and, against `base`
/// (the baseline's name and report), one per counter that regressed or improved where both
/// have flames with it; drawn in parallel.
fn flame_pages(
    dir: &str,
    benchmarks: &[Benchmark],
    base: Option<(&str, &Report)>,
) -> Vec<(Vec<Page>, Vec<FlameLink>)> {
    let mut owners: Vec<usize> = Vec::new();
    let mut jobs: Vec<(Graph<'_>, FlameLink)> = Vec::new();
    for (i, b) in benchmarks.iter().enumerate() {
        let base_b = base.and_then(|(name, r)| Some((name, r.bench(&b.id)?)));
        let changed = base_b.map_or_else(Vec::new, |(_, bb)| changed_flames(b, bb));
        for job in flame_jobs(i, b, base_b, &changed) {
            owners.push(i);
            jobs.push(job);
        }
    }
    let mut out = vec![(Vec::new(), Vec::new()); benchmarks.len()];
    for (i, (page, link)) in owners.into_iter().zip(drawn(dir, jobs)) {
        if let Some(page) = page {
            let (pages, links) = &mut out[i];
            pages.push(page);
            links.push(link);
        }
    }
    out
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
  svg.plot [fill="#C62828"] { fill: var(--bad); } svg.plot [stroke="#C62828"] { stroke: var(--bad); }
  svg.plot [fill="#2E7D32"] { fill: var(--good); } svg.plot [stroke="#2E7D32"] { stroke: var(--good); }
  svg.plot [fill="#5F6368"] { fill: var(--muted); }
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
.group-plots { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 34em), 1fr)); gap: 0.6em 1.6em; align-items: start; }
.group-plots figure { margin: 0; } .group-plots figcaption { color: var(--muted); font-size: 0.9em; }
h4 { font-size: 1em; margin: 1em 0 0.3em; }
.plots { display: flex; flex-direction: column; gap: 0.8em; }
svg.plot { width: 100%; max-width: 640px; height: auto; }
img.flame { width: 100%; height: auto; border: 1px solid var(--rule); }
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
         style-src 'unsafe-inline'; img-src 'self'\">\n\
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

/// The pages of one suite's benchmarks, in `SUITE/` below the report's directory, and the
/// flame graphs of its simulated ones, in `SUITE/flame/`.
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
    let mut pages = Vec::new();
    let flames = flame_pages(
        &dir,
        &r.benchmarks,
        input.baseline.map(|base| (label, base)),
    );
    for (i, (b, (flames, links))) in r.benchmarks.iter().zip(flames).enumerate() {
        let base = input
            .baseline
            .and_then(|base| base.bench(&b.id))
            .map(|bb| (label, bb));
        pages.push(Page {
            path: Path::new(&dir).join(bench_file(i, &b.id)),
            html: bench_page(r, b, base, &|c| c.change, "../index.html", &links),
        });
        pages.extend(flames);
    }
    pages
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
///     build: None,
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
