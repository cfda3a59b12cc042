//! The HTML pages of a comparison (`perfbench compare ... --html DIR`), built
//! from the pieces of the library's HTML report
//! ([`perfbench_analysis::report::html`]): the same style, benchmark pages and plots.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use perfbench::units::{format_change, format_point};
use perfbench_analysis::model::{CounterResult, Report, Verdict};
use perfbench_analysis::report::html::{
    bench_file, bench_flames, bench_page, document, escape, machine_line, suite_dir, verdict_cell,
    Page, Site,
};

use perfbench_analysis::verdict::{
    BenchComparison, Comparison, CounterComparison, Figure, Presence,
};

use super::Side;

/// The pages of `perfbench compare BASE NEW --html DIR`: an index with the warnings, the
/// summary, what regressed and improved, the rest folded away; and a page per benchmark on
/// both sides with each counter's two distributions overlaid.
/// `base` is `None` for a comparison a report recorded as it ran (`perfbench compare REPORT`):
/// its pages show NEW alone with the recorded changes.
pub fn comparison_site(cmp: &Comparison, base: Option<&Side>, new: &Side) -> Site {
    let mut body = String::new();
    let s = &cmp.summary;
    let _ = write!(
        body,
        "<h1>perfbench compare</h1>\n<p class=\"facts\">BASE <code>{}</code> · NEW <code>{}</code></p>\n",
        escape(&cmp.base),
        escape(&cmp.new)
    );
    for w in &cmp.warnings {
        let _ = writeln!(body, "<p class=\"warning\">{}</p>", escape(w));
    }
    let _ = writeln!(
        body,
        "<p><span class=\"{}\">{} regressed</span>, <span class=\"{}\">{} improved</span>, \
         {} unchanged; {} added, {} removed, {} not comparable.</p>",
        if s.regressed > 0 {
            "regressed"
        } else {
            "muted"
        },
        s.regressed,
        if s.improved > 0 { "improved" } else { "muted" },
        s.improved,
        s.unchanged,
        s.added,
        s.removed,
        s.not_comparable
    );
    let report_of = |side: &Side, suite: &str| -> Option<Report> {
        side.reports
            .iter()
            .find(|(_, r)| r.suite == suite)
            .map(|(_, r)| r.clone())
    };
    let mut pages: Vec<Page> = Vec::new();
    for suite in &cmp.suites {
        let dir = suite_dir(&suite.suite);
        let new_report = report_of(new, &suite.suite);
        let base_report = base.and_then(|b| report_of(b, &suite.suite));
        let _ = writeln!(
            body,
            "<section id=\"suite-{dir}\">\n<h2>Suite {}</h2>",
            escape(&suite.suite)
        );
        if let Some(r) = &new_report {
            let _ = writeln!(
                body,
                "<p class=\"facts\">NEW ran on {}.</p>",
                machine_line(r)
            );
        }
        if let Some(r) = &base_report {
            let _ = writeln!(
                body,
                "<p class=\"facts\">BASE ran on {}.</p>",
                machine_line(r)
            );
        }
        // A page per benchmark on both sides.
        let mut links: Vec<(String, String)> = Vec::new();
        if let Some(nr) = &new_report {
            for (i, bc) in suite.benchmarks.iter().enumerate() {
                let Some(nb) = nr.bench(&bc.id) else {
                    continue;
                };
                let bb = base_report.as_ref().and_then(|br| br.bench(&bc.id));
                let file = bench_file(i, &bc.id);
                // The comparison's change of each counter.
                let change_of = |name: &str| {
                    bc.counters
                        .iter()
                        .find(|cc| cc.name == name)
                        .and_then(|cc| cc.change)
                };
                let lookup = |c: &CounterResult| change_of(&c.name);
                // Its flame graphs (a simulated run's), and against BASE a differential one
                // for each counter the comparison found changed.
                let changed = |c: &str| change_of(c).is_some_and(|ch| ch.verdict.is_change());
                let (flames, flame_links) =
                    bench_flames(&dir, i, nb, bb.map(|bb| ("BASE", bb)), &changed);
                pages.push(Page {
                    path: Path::new(&dir).join(&file),
                    html: bench_page(
                        nr,
                        nb,
                        bb.map(|bb| ("BASE", bb)),
                        &lookup,
                        "../index.html",
                        &flame_links,
                    ),
                });
                pages.extend(flames);
                links.push((bc.id.clone(), format!("{dir}/{file}")));
            }
        }
        let link = |id: &str| match links.iter().find(|(i, _)| i == id) {
            Some((_, href)) => format!("<a href=\"{href}\">{}</a>", escape(id)),
            None => escape(id),
        };
        for verdict in [Verdict::Regressed, Verdict::Improved] {
            let rows: Vec<(&BenchComparison, &CounterComparison)> = suite
                .benchmarks
                .iter()
                .flat_map(|b| b.counters.iter().map(move |c| (b, c)))
                .filter(|(_, c)| c.verdict() == Some(verdict))
                .collect();
            if rows.is_empty() {
                continue;
            }
            let _ = writeln!(
                body,
                "<h3 class=\"{0}\">{0} ({1})</h3>",
                verdict.as_str(),
                rows.len()
            );
            comparison_table(&mut body, &rows, &link);
        }
        let unchanged: Vec<(&BenchComparison, &CounterComparison)> = suite
            .benchmarks
            .iter()
            .flat_map(|b| b.counters.iter().map(move |c| (b, c)))
            .filter(|(_, c)| c.verdict() == Some(Verdict::Unchanged))
            .collect();
        if !unchanged.is_empty() {
            let _ = writeln!(
                body,
                "<details>\n<summary>{} unchanged</summary>",
                unchanged.len()
            );
            comparison_table(&mut body, &unchanged, &link);
            body.push_str("</details>\n");
        }
        let others: Vec<&BenchComparison> = suite
            .benchmarks
            .iter()
            .filter(|b| b.presence != Presence::Compared)
            .collect();
        if !others.is_empty() {
            body.push_str("<h3>Added, removed, not comparable</h3>\n<ul>\n");
            for b in others {
                let what = match b.presence {
                    Presence::Added => "added (only in NEW)".to_owned(),
                    Presence::Removed => "removed (only in BASE)".to_owned(),
                    Presence::NotComparable => format!(
                        "not comparable: {}",
                        b.reason.as_deref().unwrap_or("no reason given")
                    ),
                    Presence::Compared => String::new(),
                };
                let _ = writeln!(
                    body,
                    "<li><code>{}</code>: {}</li>",
                    escape(&b.id),
                    escape(&what)
                );
            }
            body.push_str("</ul>\n");
        }
        body.push_str("</section>\n");
    }
    let mut all = vec![Page {
        path: PathBuf::from("index.html"),
        html: document("perfbench compare", &body),
    }];
    all.extend(pages);
    Site { pages: all }
}

fn comparison_table(
    body: &mut String,
    rows: &[(&BenchComparison, &CounterComparison)],
    link: &dyn Fn(&str) -> String,
) {
    body.push_str(
        "<table>\n<tr><th>benchmark</th><th>counter</th><th>BASE</th><th>NEW</th>\
         <th>change</th><th>interval</th><th>verdict</th></tr>\n",
    );
    for (b, c) in rows {
        let fig = |f: Option<Figure>| {
            f.map(|f| format_point(f.point, &c.unit))
                .unwrap_or_default()
        };
        let (change, interval) = match &c.change {
            Some(ch) => (
                format_change(ch.ratio),
                match (ch.ci_low, ch.ci_high) {
                    (Some(l), Some(h)) => {
                        format!("[{} {}]", format_change(Some(l)), format_change(Some(h)))
                    }
                    _ => String::new(),
                },
            ),
            None => (String::new(), String::new()),
        };
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td>{}</tr>",
            link(&b.id),
            escape(&c.name),
            escape(&fig(c.base)),
            escape(&fig(c.new)),
            escape(&change),
            escape(&interval),
            verdict_cell(c.verdict())
        );
    }
    body.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{compare, load_side};
    use perfbench_analysis::model::file;
    use perfbench_analysis::model::fixtures::synthetic_report;
    use perfbench_analysis::verdict::Settings;

    /// BASE and NEW as `perfbench compare` loads them, from `base` and `new` written in `dir`.
    fn sides(dir: &Path, base: &Report, new: &Report) -> (Side, Side) {
        let side = |name: &str, r: &Report| {
            let path = dir.join(name);
            file::write_atomic(
                &path,
                perfbench_analysis::model::json::to_json(r).as_bytes(),
            )
            .unwrap();
            load_side(&path).unwrap()
        };
        (side("base.json", base), side("new.json", new))
    }

    fn page<'a>(site: &'a Site, name_part: &str) -> &'a str {
        &site
            .pages
            .iter()
            .find(|p| p.path.to_string_lossy().contains(name_part))
            .unwrap_or_else(|| panic!("no page with {name_part}"))
            .html
    }

    #[test]
    fn a_comparison_has_its_own_pages() {
        let dir =
            std::env::temp_dir().join(format!("perfbench-html-comparison-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let base = synthetic_report();
        let mut new = synthetic_report();
        for v in &mut new.benchmarks[1].counters[0].per_iteration {
            *v *= 1.5;
        }
        let cfg = perfbench_analysis::stats::StatsConfig::default();
        let c = &mut new.benchmarks[1].counters[0];
        c.estimate =
            perfbench_analysis::stats::estimate(&c.per_iteration, Some(&c.iterations), &cfg);
        let (b, n) = sides(&dir, &base, &new);
        let cmp = compare(&b, &n, &Settings::default()).unwrap();
        assert!(cmp.regressed());
        let site = comparison_site(&cmp, Some(&b), &n);
        let index = &site.pages[0].html;
        let at = |s: &str| {
            index
                .find(s)
                .unwrap_or_else(|| panic!("{s} not in the index"))
        };
        assert!(at(">regressed (1)<") < at("unchanged</summary>"));
        assert!(index.contains("<details>"));
        assert!(index.contains("href=\"demo/001-math_sum_4096.html\""));
        let sum = page(&site, "sum_4096");
        assert!(sum.contains("Compared with <strong>BASE</strong>"));
        assert!(sum.contains("overlaid with 20 values of BASE"));
        assert!(sum.contains("regressed (p = "));
        // A recorded comparison (no BASE side): pages of NEW alone.
        let recorded = comparison_site(&cmp, None, &n);
        assert!(!page(&recorded, "sum_4096").contains("overlaid with"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_changed_simulated_counter_gets_a_differential_flame_graph() {
        use perfbench_analysis::model::{CounterResult, FlameStack};
        use perfbench_analysis::stats::{estimate, StatsConfig};
        let dir =
            std::env::temp_dir().join(format!("perfbench-html-flames-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // `math/sum/4096` with exact instruction counts beside its flame (40 iterations): the
        // new side's `core::ops::Add::add` costs 100 instructions more per iteration (0.8%,
        // beyond an exact counter's threshold).
        let with_instructions = |per_iteration: f64, add: u64| {
            let mut r = synthetic_report();
            let sum = &mut r.benchmarks[1];
            let values = vec![per_iteration; 10];
            sum.counters.push(CounterResult {
                name: "instructions".into(),
                unit: "instructions".into(),
                source: perfbench::counters::Source::Callgrind,
                multiplexed: false,
                estimate: estimate(&values, None, &StatsConfig::default()),
                rounds: vec![10],
                iterations: vec![40; 10],
                per_iteration: values,
                overhead: 0.0,
                change: None,
            });
            let flame = sum.flame.as_mut().unwrap();
            flame.stacks[2] = FlameStack {
                frames: vec![0, 1, 2],
                counts: vec![add, 0],
            };
            r
        };
        let base = with_instructions(12_290.0, 327_680);
        let new = with_instructions(12_390.0, 331_680);
        let (b, n) = sides(&dir, &base, &new);
        let cmp = compare(&b, &n, &Settings::default()).unwrap();
        assert!(cmp.regressed(), "100 instructions more per iteration");
        let site = comparison_site(&cmp, Some(&b), &n);
        let change = page(&site, "001-math_sum_4096.instructions.change.svg");
        assert!(
            change.starts_with("<?xml") || change.contains("<svg"),
            "{change}"
        );
        assert!(change.contains("core::ops::Add::add"));
        // The unchanged counter's graph is drawn plain, with no differential one.
        assert!(site
            .pages
            .iter()
            .any(|p| p.path.ends_with("flame/001-math_sum_4096.branches.svg")));
        assert!(!site
            .pages
            .iter()
            .any(|p| p.path.to_string_lossy().ends_with("branches.change.svg")));
        let sum = page(&site, "001-math_sum_4096.html");
        assert!(
            sum.contains("flame/001-math_sum_4096.instructions.change.svg"),
            "the benchmark's page links the differential graph"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
