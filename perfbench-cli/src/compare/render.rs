//! A [`Comparison`] for people and for CI: [`text`] for a terminal, [`markdown`] for a pull
//! request comment or `$GITHUB_STEP_SUMMARY`, [`json`] for tools
//! (`perfbench-analysis/schema/compare-v1.schema.json`).
//!
//! Regressions come first, then improvements; the unchanged are one count line in text and a
//! folded `<details>` block in Markdown. Warnings (machines that differ) open every format.
//!
//! ```text
//! perfbench compare: target/perfbench/baselines/main -> target/perfbench
//!
//! quickstart
//!   regressed
//!     quickstart/fib_20  wall-time  25.7 µs -> 31.2 µs  +21.4%  [+18.0% +24.9%]  > 5%
//!   added: quickstart/fib_25
//!   11 unchanged
//!
//! 1 regressed, 0 improved, 11 unchanged, 1 added, 0 removed
//! ```

use std::fmt::Write as _;

use perfbench::units::{format_change as percent, format_point};
use perfbench_analysis::model::Verdict;
use perfbench_analysis::verdict::{
    BenchComparison, Comparison, CounterComparison, Figure, Presence, SuiteComparison,
};

/// `1.214 (+21.4%)`; `n/a` when undefined.
fn ratio(c: &CounterComparison) -> String {
    match c.change.and_then(|ch| ch.ratio) {
        Some(r) if r.is_finite() => format!("{r:.3} ({})", percent(Some(r))),
        _ => "n/a".to_owned(),
    }
}

fn interval(c: &CounterComparison) -> String {
    match c.change.map(|ch| (ch.ci_low, ch.ci_high)) {
        Some((Some(lo), Some(hi))) => format!("[{} {}]", percent(Some(lo)), percent(Some(hi))),
        _ => String::new(),
    }
}

/// `25%`, or `none` for a counter never flagged (an infinite or unknown threshold).
fn threshold(c: &CounterComparison) -> String {
    match c.change.map(|ch| ch.threshold) {
        Some(t) if t.is_finite() => format!("{}%", trim_float(t * 100.0)),
        Some(_) => "none".to_owned(),
        None => String::new(),
    }
}

fn trim_float(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn value(c: &CounterComparison, side: Option<Figure>) -> String {
    side.map_or_else(|| "-".to_owned(), |f| format_point(f.point, &c.unit))
}

/// One row per compared counter with a verdict, in `(suite, benchmark, counter)` order.
struct Row<'a> {
    suite: &'a SuiteComparison,
    bench: &'a BenchComparison,
    counter: &'a CounterComparison,
}

fn rows<'a>(suite: &'a SuiteComparison, verdict: Verdict) -> Vec<Row<'a>> {
    suite
        .benchmarks
        .iter()
        .flat_map(|bench| {
            bench
                .counters
                .iter()
                .filter(move |c| c.verdict() == Some(verdict))
                .map(move |counter| Row {
                    suite,
                    bench,
                    counter,
                })
        })
        .collect()
}

fn ids(suite: &SuiteComparison, presence: Presence) -> Vec<&str> {
    suite
        .benchmarks
        .iter()
        .filter(|b| b.presence == presence)
        .map(|b| b.id.as_str())
        .collect()
}

/// `(what, why)` for every benchmark or counter on both sides that could not be compared.
fn not_comparable(suite: &SuiteComparison) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for b in &suite.benchmarks {
        if b.presence == Presence::NotComparable {
            out.push((b.id.clone(), b.reason.clone().unwrap_or_default()));
        }
        for c in &b.counters {
            if c.presence == Presence::NotComparable {
                out.push((
                    format!("{} {}", b.id, c.name),
                    c.reason.clone().unwrap_or_default(),
                ));
            }
            if matches!(c.presence, Presence::Added | Presence::Removed) {
                let side = if c.presence == Presence::Added {
                    "only in NEW"
                } else {
                    "only in BASE"
                };
                out.push((format!("{} {}", b.id, c.name), side.to_owned()));
            }
        }
    }
    out
}

fn unchanged(suite: &SuiteComparison) -> usize {
    rows(suite, Verdict::Unchanged).len()
}

/// The closing count line: `1 regressed, 0 improved, 11 unchanged, 1 added, 0 removed`, and
/// `(paired run)` when the changes come from one.
pub fn summary_line(cmp: &Comparison) -> String {
    let s = &cmp.summary;
    let mut line = format!(
        "{} regressed, {} improved, {} unchanged, {} added, {} removed",
        s.regressed, s.improved, s.unchanged, s.added, s.removed
    );
    if s.not_comparable > 0 {
        let _ = write!(line, ", {} not comparable", s.not_comparable);
    }
    let paired = cmp
        .suites
        .iter()
        .flat_map(|s| &s.benchmarks)
        .flat_map(|b| &b.counters)
        .any(|c| {
            c.change
                .is_some_and(|ch| ch.method == perfbench_analysis::model::Method::Paired)
        });
    if paired {
        line.push_str(" (paired run)");
    }
    line
}

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

fn paint(color: bool, code: &str, text: &str) -> String {
    if color {
        format!("{code}{text}{RESET}")
    } else {
        text.to_owned()
    }
}

/// Lines of cells as a left-aligned table with two spaces between columns, indented.
fn table(out: &mut String, indent: &str, lines: &[Vec<String>], color: Option<&str>) {
    let columns = lines.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            lines
                .iter()
                .filter_map(|l| l.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for line in lines {
        let mut text = String::new();
        for (i, cell) in line.iter().enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            text.push_str(cell);
            if i + 1 < line.len() {
                for _ in cell.chars().count()..widths[i] {
                    text.push(' ');
                }
            }
        }
        out.push_str(indent);
        match color {
            Some(code) => out.push_str(&paint(true, code, text.trim_end())),
            None => out.push_str(text.trim_end()),
        }
        out.push('\n');
    }
}

/// The comparison for a terminal: warnings, then per suite the regressions, the improvements,
/// what was added, removed or not comparable, and a count of the unchanged; then the summary.
/// ANSI colour (regressions red, improvements green, warnings yellow) only with `color`.
pub fn text(cmp: &Comparison, color: bool) -> String {
    let mut out = format!("perfbench compare: {} -> {}\n", cmp.base, cmp.new);
    for w in &cmp.warnings {
        out.push_str(&paint(color, YELLOW, &format!("warning: {w}")));
        out.push('\n');
    }
    for suite in &cmp.suites {
        out.push('\n');
        out.push_str(&paint(color, BOLD, &suite.suite));
        match suite.presence {
            Presence::Added => out.push_str(" (only in NEW)"),
            Presence::Removed => out.push_str(" (only in BASE)"),
            _ => {}
        }
        out.push('\n');
        if let Some(runs) = runs_note(suite) {
            let _ = writeln!(out, "  {runs}");
        }
        for (verdict, code) in [(Verdict::Regressed, RED), (Verdict::Improved, GREEN)] {
            let rows = rows(suite, verdict);
            if rows.is_empty() {
                continue;
            }
            let _ = writeln!(out, "  {verdict}");
            let lines: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    let c = r.counter;
                    vec![
                        r.bench.id.clone(),
                        c.name.clone(),
                        format!("{} -> {}", value(c, c.base), value(c, c.new)),
                        percent(c.change.and_then(|ch| ch.ratio)),
                        interval(c),
                        format!("threshold {}", threshold(c)),
                    ]
                })
                .collect();
            table(&mut out, "    ", &lines, color.then_some(code));
        }
        for (presence, label) in [(Presence::Added, "added"), (Presence::Removed, "removed")] {
            let ids = ids(suite, presence);
            if !ids.is_empty() {
                let _ = writeln!(out, "  {label}: {}", ids.join(", "));
            }
        }
        for (what, why) in not_comparable(suite) {
            let _ = writeln!(out, "  not compared: {what}: {why}");
        }
        let n = unchanged(suite);
        if n > 0 {
            let _ = writeln!(out, "  {n} unchanged");
        }
    }
    out.push('\n');
    out.push_str(&summary_line(cmp));
    out.push('\n');
    out
}

/// `BASE: 5 runs of one build (floor: the fastest), NEW: 1 run` where a side of a compared
/// suite holds several runs; nothing otherwise.
fn runs_note(suite: &SuiteComparison) -> Option<String> {
    let several = suite.base_runs > 1 || suite.new_runs > 1;
    if suite.presence != Presence::Compared || !several {
        return None;
    }
    let side = |n: usize| match n {
        1 => "1 run".to_owned(),
        n => format!("{n} runs of one build (floor: the fastest)"),
    };
    Some(format!(
        "BASE: {}, NEW: {}",
        side(suite.base_runs),
        side(suite.new_runs)
    ))
}

/// Escapes what Markdown tables and inline code cannot hold as it is.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn code(text: &str) -> String {
    format!("`{}`", cell(text).replace('`', "'"))
}

fn markdown_rows(out: &mut String, rows: &[Row<'_>], with_suite: bool) {
    out.push_str(if with_suite {
        "| Suite | Benchmark | Counter | Baseline | New | Ratio | Interval | Threshold | Verdict |\n|---|---|---|---:|---:|---:|---|---:|---|\n"
    } else {
        "| Benchmark | Counter | Baseline | New | Ratio | Interval | Threshold | Verdict |\n|---|---|---:|---:|---:|---|---:|---|\n"
    });
    for r in rows {
        let c = r.counter;
        let verdict = match c.verdict() {
            Some(Verdict::Regressed) => "**regressed**".to_owned(),
            Some(v) => v.to_string(),
            None => String::new(),
        };
        if with_suite {
            let _ = write!(out, "| {} ", cell(&r.suite.suite));
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {verdict} |",
            code(&r.bench.id),
            cell(&c.name),
            value(c, c.base),
            value(c, c.new),
            ratio(c),
            interval(c),
            threshold(c),
        );
    }
}

/// The comparison for a pull request comment or `$GITHUB_STEP_SUMMARY`: a summary line,
/// warnings, a table of the regressions and improvements (benchmarks by counters, with
/// baseline, new, change, interval, threshold and verdict), what was added, removed or not
/// compared, and the unchanged in a folded `<details>` block.
pub fn markdown(cmp: &Comparison) -> String {
    let s = &cmp.summary;
    let headline = if s.regressed > 0 {
        format!(
            ":x: {} regression{}",
            s.regressed,
            if s.regressed == 1 { "" } else { "s" }
        )
    } else {
        ":white_check_mark: no regression".to_owned()
    };
    let mut out = format!(
        "### perfbench: {headline}\n\n{} (`{}` -> `{}`)\n",
        summary_line(cmp),
        cell(&cmp.base),
        cell(&cmp.new)
    );
    for w in &cmp.warnings {
        let _ = write!(out, "\n> [!WARNING]\n> {}\n", cell(w));
    }
    let with_suite = cmp.suites.len() > 1;
    let collect = |v: Verdict| -> Vec<Row<'_>> {
        cmp.suites.iter().flat_map(|suite| rows(suite, v)).collect()
    };
    let changed: Vec<Row<'_>> = collect(Verdict::Regressed)
        .into_iter()
        .chain(collect(Verdict::Improved))
        .collect();
    if !changed.is_empty() {
        out.push('\n');
        markdown_rows(&mut out, &changed, with_suite);
    }
    let mut notes: Vec<String> = Vec::new();
    for suite in &cmp.suites {
        let prefix = if with_suite {
            format!("{}: ", suite.suite)
        } else {
            String::new()
        };
        if let Some(runs) = runs_note(suite) {
            notes.push(format!("{prefix}{runs}."));
        }
        for (presence, label) in [(Presence::Added, "Added"), (Presence::Removed, "Removed")] {
            let ids = ids(suite, presence);
            if !ids.is_empty() {
                let list: Vec<String> = ids.iter().map(|i| code(i)).collect();
                notes.push(format!("{prefix}{label}: {}.", list.join(", ")));
            }
        }
        for (what, why) in not_comparable(suite) {
            notes.push(format!(
                "{prefix}Not compared: {}: {}.",
                code(&what),
                cell(&why)
            ));
        }
    }
    if !notes.is_empty() {
        out.push('\n');
        for n in notes {
            let _ = writeln!(out, "- {n}");
        }
    }
    let same = collect(Verdict::Unchanged);
    if !same.is_empty() {
        let _ = write!(
            out,
            "\n<details><summary>{} unchanged</summary>\n\n",
            same.len()
        );
        markdown_rows(&mut out, &same, with_suite);
        out.push_str("\n</details>\n");
    }
    out
}

/// The comparison as JSON (the [`Comparison`] type), pretty-printed, ending in a newline.
pub fn json(cmp: &Comparison) -> String {
    perfbench_analysis::model::json::to_pretty(cmp) + "\n"
}
