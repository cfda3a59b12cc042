//! Terminal output: a table per group (`pretty`), one line per benchmark (`terse`), or nothing
//! until the end and then the JSON report (`json`). The runner prints each benchmark as it
//! finishes, through a [`TerminalReporter`]: [`bench_done`](TerminalReporter::bench_done) returns
//! the benchmark's block (after a group header when the group changes) and
//! [`finish`](TerminalReporter::finish) the closing summary; [`render`] does a whole suite at once
//! and [`render_line`] one benchmark without a header. Each counter shows its estimate
//! ([`Estimate::point`]), its interval in the same scale and its source; ANSI colour appears only
//! when [`Style::color`] is set ([`color_wanted`]). The guide's docs/reading-results.md shows and
//! explains the output.

use std::fmt::Write as _;

use crate::model::{Benchmark, CounterResult, Estimate, Outcome, Report, Throughput, Verdict};
use perfbench::units::{format_change_interval, format_estimate, format_value};

pub use perfbench::options::Format;

/// How to print results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// Table, line or JSON.
    pub format: Format,
    /// Use ANSI colour codes.
    pub color: bool,
}

/// Whether to colour standard output: it is a terminal and `NO_COLOR` is unset or empty
/// (<https://no-color.org>).
///
/// ```
/// std::env::set_var("NO_COLOR", "1");
/// assert!(!perfbench_analysis::report::terminal::color_wanted());
/// ```
pub fn color_wanted() -> bool {
    use std::io::IsTerminal;
    color_allowed(
        std::io::stdout().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
    )
}

fn color_allowed(tty: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    tty && no_color.is_none_or(|v| v.is_empty())
}

const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const YELLOW: &str = "\x1b[33m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const RESET: &str = "\x1b[0m";

/// The multiplexing mark and its footnote.
const MARK: &str = "*";
const MARK_NOTE: &str = "scaled: counter was multiplexed";

fn paint(out: &mut String, color: bool, code: &str, text: &str) {
    if color && !text.is_empty() {
        out.push_str(code);
        out.push_str(text);
        out.push_str(RESET);
    } else {
        out.push_str(text);
    }
}

fn width(s: &str) -> usize {
    s.chars().count()
}

fn pad(out: &mut String, used: usize, to: usize) {
    for _ in used..to {
        out.push(' ');
    }
}

/// Prints results benchmark by benchmark, with a header when the group changes.
#[derive(Clone, Debug)]
pub struct TerminalReporter {
    style: Style,
    group: Option<String>,
}

impl TerminalReporter {
    /// A reporter that has printed nothing yet.
    ///
    /// ```
    /// use perfbench_analysis::report::terminal::{Format, Style, TerminalReporter};
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
    /// let mut terminal = TerminalReporter::new(Style { format: Format::Terse, color: false });
    /// let line = terminal.bench_done(&report.benchmarks[0]);
    /// assert!(line.starts_with("quickstart/fib") && line.contains("1.23 µs"), "{line}");
    /// let summary = terminal.finish(&report);
    /// assert!(summary.contains('1'), "{summary}");
    /// ```
    pub fn new(style: Style) -> Self {
        TerminalReporter { style, group: None }
    }

    /// The text to print now that `bench` has finished: in `pretty`, a group header if its group
    /// differs from the previous benchmark's, then its block; in `terse`, its line; in `json`,
    /// nothing. Ends with a newline unless empty.
    ///
    /// See [`TerminalReporter::new`].
    pub fn bench_done(&mut self, bench: &Benchmark) -> String {
        let mut out = String::new();
        if self.style.format == Format::Pretty && self.group.as_deref() != Some(&bench.group) {
            out.push('\n');
            paint(&mut out, self.style.color, BOLD, &bench.group);
            out.push('\n');
            self.group = Some(bench.group.clone());
        }
        out.push_str(&render_line(bench, self.style));
        out
    }

    /// The text to print after the last benchmark: in `pretty` and `terse`, a summary line
    /// (how many were measured, and which panicked or failed); in `json`, the whole report; in
    /// `bencher`, nothing.
    ///
    /// See [`TerminalReporter::new`].
    pub fn finish(&mut self, suite: &Report) -> String {
        if self.style.format == Format::Json {
            let mut json = crate::model::json::to_json(suite);
            json.push('\n');
            return json;
        }
        if self.style.format == Format::Libtest {
            // libtest's lines stand alone: failures already said FAILED.
            return String::new();
        }
        summary(suite, self.style.color)
    }
}

/// A whole suite as [`TerminalReporter`] prints it: every benchmark, then the summary.
///
/// ```
/// use perfbench_analysis::report::terminal::{render, Format, Style};
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
/// let text = render(&report, Style { format: Format::Pretty, color: false });
/// assert!(text.contains("fib") && text.contains("wall-time") && !text.contains('\x1b'));
/// let json = render(&report, Style { format: Format::Json, color: false });
/// assert_eq!(perfbench_analysis::model::json::from_json(&json).unwrap(), report);
/// ```
pub fn render(suite: &Report, style: Style) -> String {
    let mut reporter = TerminalReporter::new(style);
    let mut out = String::new();
    for b in &suite.benchmarks {
        out.push_str(&reporter.bench_done(b));
    }
    out.push_str(&reporter.finish(suite));
    out
}

/// One benchmark without a group header: its pretty block or terse line (ending with a
/// newline), or nothing in `json`.
///
/// ```
/// use perfbench_analysis::report::terminal::{render_line, Format, Style};
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
/// let line = render_line(&report.benchmarks[0], Style { format: Format::Libtest, color: false });
/// assert_eq!(line, "test quickstart/fib ... bench:       1,230 ns/iter (+/- 7)\n");
/// ```
pub fn render_line(bench: &Benchmark, style: Style) -> String {
    match style.format {
        Format::Pretty => pretty_block(bench, style.color),
        Format::Terse => terse_line(bench, style.color),
        Format::Json => String::new(),
        Format::Libtest => super::libtest::line(bench),
    }
}

/// One row of a benchmark's table.
struct Row {
    name: String,
    mark: bool,
    value: String,
    interval: String,
    source: &'static str,
    /// The change since the baseline and its verdict, when compared.
    change: Option<(String, Verdict)>,
}

/// The per-iteration figure: the estimate's [`point`](Estimate::point) (the slope with linear
/// sampling, the mean otherwise, without severe outliers), or the plain mean if that is not
/// finite.
fn point(e: &Estimate) -> f64 {
    if e.point.is_finite() {
        e.point
    } else {
        e.mean
    }
}

fn counter_row(c: &CounterResult) -> Row {
    let (value, interval) = match &c.estimate {
        Some(e) => format_estimate(point(e), e.ci_low, e.ci_high, &c.unit),
        None => ("n/a".to_owned(), "(no samples)".to_owned()),
    };
    Row {
        name: c.name.clone(),
        mark: c.multiplexed,
        value,
        interval,
        source: c.source.as_str(),
        change: c.change.map(|ch| {
            (
                format_change_interval(ch.ratio, ch.ci_low, ch.ci_high),
                ch.verdict,
            )
        }),
    }
}

/// `+3.1% [+1.0% +5.2%] regressed`, red when regressed, green when improved, dim otherwise.
fn paint_change(out: &mut String, color: bool, (text, verdict): &(String, Verdict)) {
    let code = match verdict {
        Verdict::Regressed => RED,
        Verdict::Improved => GREEN,
        Verdict::Unchanged => DIM,
    };
    paint(out, color, code, &format!("{text} {verdict}"));
}

/// The event a counter name counts, without PMU or modifiers: `cpu_core/cycles/` and
/// `cycles:u` are both `cycles`.
fn base_event(name: &str) -> &str {
    let name = match name.split_once('/') {
        Some((_pmu, rest)) => rest.split(['/', ',']).next().unwrap_or(rest),
        None => name,
    };
    name.split(':').next().unwrap_or(name)
}

/// Derived metrics as rows: `ipc` plain, `*-rate` as a percentage. Without a derived `ipc`,
/// one is computed from the instructions and cycles estimates (a point, no interval).
fn derived_rows(b: &Benchmark) -> Vec<Row> {
    let mut rows: Vec<Row> = b
        .derived
        .iter()
        .map(|d| {
            let unit = if d.name.ends_with("-rate") { "%" } else { "" };
            let (value, interval) = match &d.estimate {
                Some(e) => format_estimate(point(e), e.ci_low, e.ci_high, unit),
                None => ("n/a".to_owned(), String::new()),
            };
            Row {
                name: d.name.clone(),
                mark: false,
                value,
                interval,
                source: "",
                change: None,
            }
        })
        .collect();
    if !b.derived.iter().any(|d| d.name == "ipc") {
        let find = |events: &[&str]| {
            b.counters
                .iter()
                .find(|c| events.contains(&base_event(&c.name)))
                .and_then(|c| c.estimate.as_ref())
                .map(point)
        };
        if let (Some(i), Some(c)) = (find(&["instructions"]), find(&["cycles", "cpu-cycles"])) {
            if c != 0.0 && (i / c).is_finite() {
                rows.push(Row {
                    name: "ipc".to_owned(),
                    mark: false,
                    value: format_value(i / c, ""),
                    interval: String::new(),
                    source: "",
                    change: None,
                });
            }
        }
    }
    rows
}

/// Throughput from the wall-time estimate: work per iteration over time per iteration. The
/// interval bounds swap (the fastest time is the highest throughput).
fn throughput_row(b: &Benchmark) -> Option<Row> {
    let (amount, unit) = match b.throughput? {
        Throughput::Bytes(n) => (n as f64, "B/s"),
        Throughput::Elements(n) => (n as f64, "elem/s"),
    };
    let e = b.counter("wall-time")?.estimate.as_ref()?;
    let per_sec = |ns: f64| {
        if ns > 0.0 {
            amount * 1e9 / ns
        } else {
            f64::NAN
        }
    };
    let (value, interval) = format_estimate(
        per_sec(point(e)),
        per_sec(e.ci_high),
        per_sec(e.ci_low),
        unit,
    );
    Some(Row {
        name: "throughput".to_owned(),
        mark: false,
        value,
        interval,
        source: "",
        change: None,
    })
}

/// `3 outliers among 100 samples of wall-time (2 high mild, 1 high severe)`, for wall-time (or
/// the first counter with an estimate); `None` without outliers.
fn outlier_note(b: &Benchmark) -> Option<String> {
    let c = b
        .counter("wall-time")
        .filter(|c| c.estimate.is_some())
        .or_else(|| b.counters.iter().find(|c| c.estimate.is_some()))?;
    let e = c.estimate.as_ref()?;
    let o = e.outliers;
    let n = o.outliers();
    if n == 0 {
        return None;
    }
    let parts: Vec<String> = [
        (o.low_severe, "low severe"),
        (o.low_mild, "low mild"),
        (o.high_mild, "high mild"),
        (o.high_severe, "high severe"),
    ]
    .into_iter()
    .filter(|(k, _)| *k > 0)
    .map(|(k, label)| format!("{k} {label}"))
    .collect();
    let left_out = match e.excluded {
        0 => String::new(),
        1 => "; the severe one is left out of the estimate".to_owned(),
        k => format!("; the {k} severe are left out of the estimate"),
    };
    Some(format!(
        "{n} outlier{} among {} samples of {} ({}{left_out})",
        if n == 1 { "" } else { "s" },
        o.total(),
        c.name,
        parts.join(", ")
    ))
}

/// `12 of 40 rounds of wall-time ran slower than its quiet rounds (a busy machine): left out of
/// the estimate`, for the first counter whose estimate left rounds out
/// ([`Estimate::disturbed_rounds`]); `None` when none did.
fn disturbed_note(b: &Benchmark) -> Option<String> {
    let c = b
        .counters
        .iter()
        .find(|c| c.estimate.is_some_and(|e| e.disturbed_rounds > 0))?;
    let k = c.estimate?.disturbed_rounds;
    Some(format!(
        "{k} of {} rounds of {} ran slower than its quiet rounds (a busy machine): left out of \
         the estimate",
        c.rounds.len(),
        c.name
    ))
}

fn pretty_block(b: &Benchmark, color: bool) -> String {
    let mut out = String::from("  ");
    paint(&mut out, color, BOLD, &b.id);
    if let Some(msg) = b.failure() {
        out.push_str("  ");
        // Continuation lines of a multi-line message line up under the id.
        paint(&mut out, color, RED, &msg.replace('\n', "\n    "));
        out.push('\n');
        return out;
    }
    if b.outcome == Outcome::Tested {
        out.push_str("  ok (ran once)\n");
        return out;
    }
    if b.counters.is_empty() {
        out.push_str("  (no counters)\n");
        return out;
    }
    if let Some(note) = super::threads_note(b) {
        out.push_str("  ");
        paint(&mut out, color, DIM, &note);
    }
    out.push('\n');
    let mut rows: Vec<Row> = b.counters.iter().map(counter_row).collect();
    rows.extend(derived_rows(b));
    rows.extend(throughput_row(b));
    let name_w = rows
        .iter()
        .map(|r| width(&r.name) + usize::from(r.mark))
        .max()
        .unwrap_or(0);
    let value_w = rows.iter().map(|r| width(&r.value)).max().unwrap_or(0);
    let interval_w = rows.iter().map(|r| width(&r.interval)).max().unwrap_or(0);
    let source_w = rows.iter().map(|r| r.source.len()).max().unwrap_or(0);
    for r in &rows {
        let mut line = String::from("    ");
        line.push_str(&r.name);
        if r.mark {
            paint(&mut line, color, YELLOW, MARK);
        }
        pad(&mut line, width(&r.name) + usize::from(r.mark), name_w + 2);
        line.push_str(&r.value);
        pad(&mut line, width(&r.value), value_w + 2);
        paint(&mut line, color, DIM, &r.interval);
        if !r.source.is_empty() || r.change.is_some() {
            pad(&mut line, width(&r.interval), interval_w + 2);
            line.push_str(r.source);
        }
        if let Some(change) = &r.change {
            pad(&mut line, r.source.len(), source_w + 2);
            paint_change(&mut line, color, change);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if let Some(note) = outlier_note(b) {
        let _ = writeln!(out, "    {note}");
    }
    if let Some(note) = disturbed_note(b) {
        let _ = writeln!(out, "    {note}");
    }
    if rows.iter().any(|r| r.mark) {
        out.push_str("    ");
        paint(&mut out, color, YELLOW, MARK);
        let _ = writeln!(out, " {MARK_NOTE}");
    }
    out
}

fn terse_line(b: &Benchmark, color: bool) -> String {
    let mut out = String::new();
    paint(&mut out, color, BOLD, &b.id);
    if let Some(msg) = b.failure() {
        out.push_str("  ");
        paint(&mut out, color, RED, &msg.replace('\n', " "));
        out.push('\n');
        return out;
    }
    if b.outcome == Outcome::Tested {
        out.push_str("  ok (ran once)\n");
        return out;
    }
    let mut rows: Vec<Row> = b.counters.iter().map(counter_row).collect();
    rows.extend(derived_rows(b));
    rows.extend(throughput_row(b));
    for r in &rows {
        out.push_str("  ");
        out.push_str(&r.name);
        if r.mark {
            paint(&mut out, color, YELLOW, MARK);
        }
        out.push(' ');
        out.push_str(&r.value);
        if !r.interval.is_empty() {
            out.push(' ');
            paint(&mut out, color, DIM, &r.interval);
        }
    }
    if let Some(note) = super::threads_note(b) {
        out.push_str("  ");
        paint(&mut out, color, DIM, &note);
    }
    out.push('\n');
    out
}

/// `4 benchmarks: 2 measured, 1 panicked (io/boom), 1 failed (io/gone)`.
fn summary(suite: &Report, color: bool) -> String {
    let count = |f: fn(&Outcome) -> bool| suite.benchmarks.iter().filter(move |b| f(&b.outcome));
    let measured = count(|o| *o == Outcome::Measured).count();
    let tested = count(|o| *o == Outcome::Tested).count();
    let panicked: Vec<&str> = count(|o| *o == Outcome::Panicked)
        .map(|b| b.id.as_str())
        .collect();
    let failed: Vec<&str> = count(|o| *o == Outcome::Failed)
        .map(|b| b.id.as_str())
        .collect();
    let total = suite.benchmarks.len();
    let mut out = format!(
        "\n{total} benchmark{}: {measured} measured",
        if total == 1 { "" } else { "s" }
    );
    if tested > 0 {
        let _ = write!(out, ", {tested} tested");
    }
    for (ids, label) in [(&panicked, "panicked"), (&failed, "failed")] {
        if !ids.is_empty() {
            out.push_str(", ");
            paint(
                &mut out,
                color,
                RED,
                &format!("{} {label} ({})", ids.len(), ids.join(", ")),
            );
        }
    }
    out.push('\n');
    if let Some(base) = &suite.baseline {
        out.push_str(&comparison_summary(suite, &base.name, base.runs, color));
        for w in &base.warnings {
            paint(
                &mut out,
                color,
                YELLOW,
                &format!(
                    "warning: {} ran on another machine: {w}",
                    reference_label(&base.name)
                ),
            );
            out.push('\n');
        }
    }
    out
}

/// `the previous run` or ``baseline `main` ``.
fn reference_label(name: &str) -> String {
    if name == "previous run" {
        "the previous run".to_owned()
    } else {
        format!("baseline `{name}`")
    }
}

/// `compared with the previous run: 1 regressed (math/fib_20 wall-time +75.1%), 0 improved,
/// 9 unchanged`; ``compared with baseline `main` (5 runs of one build): ...`` where the
/// reference holds several runs.
fn comparison_summary(suite: &Report, name: &str, runs: u32, color: bool) -> String {
    let mut regressed = Vec::new();
    let mut improved = Vec::new();
    let mut unchanged = 0;
    for b in &suite.benchmarks {
        for c in &b.counters {
            let Some(ch) = c.change else { continue };
            let what = || {
                // A counter that was 0 has no ratio: say where it came from.
                let change = match ch.ratio {
                    None if ch.baseline == 0.0 => "from 0".to_owned(),
                    ratio => perfbench::units::format_change(ratio),
                };
                format!("{} {} {change}", b.id, c.name)
            };
            match ch.verdict {
                Verdict::Regressed => regressed.push(what()),
                Verdict::Improved => improved.push(what()),
                Verdict::Unchanged => unchanged += 1,
            }
        }
    }
    let list = |v: &[String]| {
        if v.is_empty() {
            String::new()
        } else {
            format!(" ({})", v.join(", "))
        }
    };
    let runs = if runs > 1 {
        format!(" ({runs} runs of one build)")
    } else {
        String::new()
    };
    let mut out = format!("compared with {}{runs}: ", reference_label(name));
    let reg = format!("{} regressed{}", regressed.len(), list(&regressed));
    if regressed.is_empty() {
        out.push_str(&reg);
    } else {
        paint(&mut out, color, RED, &reg);
    }
    out.push_str(", ");
    let imp = format!("{} improved{}", improved.len(), list(&improved));
    if improved.is_empty() {
        out.push_str(&imp);
    } else {
        paint(&mut out, color, GREEN, &imp);
    }
    let _ = writeln!(out, ", {unchanged} unchanged");
    out
}

#[cfg(test)]
mod tests;
