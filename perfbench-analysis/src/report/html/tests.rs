//! The HTML pages rendered from reports made by code: what each page holds, escaping, the
//! plots per counter, compared runs, and writing to disk.

use super::*;
use crate::model::fixtures::synthetic_report;
use crate::stats::Verdict;

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("perfbench-html-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn page<'a>(site: &'a Site, name_part: &str) -> &'a str {
    &site
        .pages
        .iter()
        .find(|p| p.path.to_string_lossy().contains(name_part))
        .unwrap_or_else(|| panic!("no page with {name_part}"))
        .html
}

pub(super) fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

fn is_html(p: &Page) -> bool {
    p.path.extension().is_some_and(|x| x == "html")
}

#[test]
fn every_counter_with_samples_gets_its_plots() {
    let r = synthetic_report();
    let site = site(&[SuiteInput {
        report: &r,
        baseline: None,
    }]);
    // The index, then one page per benchmark, in the suite's directory, and sum's two flame
    // graphs after its page.
    assert_eq!(site.pages.len(), 1 + r.benchmarks.len() + 2);
    assert_eq!(site.pages[0].path, Path::new("index.html"));
    assert_eq!(site.pages[1].path, Path::new("demo/000-math_fib_20.html"));
    assert_eq!(
        site.pages[3].path,
        Path::new("demo/flame/001-math_sum_4096.instructions.svg")
    );
    assert_eq!(
        site.pages[4].path,
        Path::new("demo/flame/001-math_sum_4096.branches.svg")
    );
    // fib: four counters with samples, linear sampling: distribution, samples and regression
    // each; page-faults has none.
    let fib = page(&site, "fib_20");
    assert_eq!(count(fib, "<svg "), 12, "{fib}");
    assert_eq!(count(fib, "<title id="), 12);
    assert_eq!(count(fib, "role=\"img\""), 12);
    assert!(fib.contains("No finite sample to plot."));
    assert!(
        fib.contains("<strong>multiplexed</strong>"),
        "cycles is multiplexed"
    );
    assert!(fib.contains("Read via rdpmc"));
    // The left-out outlier (wall-time's 5000 ns) is marked and said in the plot's title.
    assert!(fib.contains("1 severe outliers, left out of the estimate, are marked"));
    assert!(fib.contains("vertical lines separate the 2 rounds"));
    assert!(fib.contains("Linear sampling: the total wall-time"));
    // Derived metrics are listed.
    assert!(fib.contains("<h2>Derived metrics</h2>"));
    let sum = page(&site, "sum_4096");
    assert_eq!(count(sum, "<svg "), 3);
    assert!(sum.contains("32768 bytes per iteration"));
    // sum ran on 4 threads: its page says what its figures are; fib's does not.
    let threads = "on 4 threads (counters summed over the threads; wall-time per thread)";
    assert_eq!(count(sum, threads), 1, "{sum}");
    assert!(!fib.contains("threads"));
    let boom = page(&site, "boom");
    assert_eq!(count(boom, "<svg "), 0);
    assert!(boom.contains("panicked: index out of bounds"));
}

#[test]
fn the_index_lists_every_benchmark_by_counter_with_links() {
    let r = synthetic_report();
    let site = site(&[SuiteInput {
        report: &r,
        baseline: None,
    }]);
    let index = &site.pages[0].html;
    for (i, b) in r.benchmarks.iter().enumerate() {
        let href = format!("href=\"demo/{}\"", bench_file(i, &b.id));
        assert!(index.contains(&href), "{href}");
    }
    assert!(index.contains("<h3>All benchmarks</h3>"));
    // fib's five counters and ipc, the throughput of sum, the failures.
    assert!(index.contains("<td>ipc</td>"));
    assert!(index.contains("<td>throughput</td>"));
    // Beside sum's link, once: it ran on 4 threads.
    assert_eq!(
        count(
            index,
            "</a><br><span class=\"muted\">on 4 threads (counters summed over the threads; \
             wall-time per thread)</span></td>"
        ),
        1,
        "{index}"
    );
    assert!(index.contains("panicked: index out of bounds"));
    assert!(index.contains("<h3 class=\"regressed\">Failed</h3>"));
    assert!(index.contains("Test CPU @ 3.0GHz"));
    assert!(index.contains("wall-time via clock"));
    // Not compared: no change columns.
    assert!(!index.contains("change [interval]"));
}

#[test]
fn names_are_escaped_everywhere() {
    let mut r = synthetic_report();
    r.suite = "s\"uite".into();
    r.benchmarks[0].id = "<script>alert(1)</script>".into();
    r.benchmarks[0].counters[0].name = "<b>wall</b>".into();
    r.benchmarks[1].params = Some("<img src=x onerror=alert(2)>".into());
    r.benchmarks[2].error = Some("</td><script>alert(3)</script>".into());
    r.machine.cpu = "<i>cpu</i>".into();
    let site = site(&[SuiteInput {
        report: &r,
        baseline: None,
    }]);
    for p in site.pages.iter().filter(|p| is_html(p)) {
        let lower = p.html.to_ascii_lowercase();
        assert!(!lower.contains("<script"), "{}", p.path.display());
        // No image but a flame graph of the suite's own.
        assert_eq!(
            count(&lower, "<img"),
            count(&lower, "<img class=\"flame\" src=\"flame/"),
            "{}",
            p.path.display()
        );
        assert!(!lower.contains("<b>wall"), "{}", p.path.display());
        assert!(!lower.contains("<i>cpu"), "{}", p.path.display());
        assert!(!p.html.contains("s\"uite"), "{}", p.path.display());
    }
    assert!(site.pages[0]
        .html
        .contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    // The file names are made safe too, and the suite's directory.
    assert!(site.pages.iter().all(|p| p
        .path
        .to_string_lossy()
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))));
}

#[test]
fn pages_are_self_contained() {
    let r = synthetic_report();
    let site = site(&[SuiteInput {
        report: &r,
        baseline: None,
    }]);
    for p in site.pages.iter().filter(|p| is_html(p)) {
        assert!(p.html.contains(
            "Content-Security-Policy\" content=\"default-src 'none'; \
             style-src 'unsafe-inline'; img-src 'self'\""
        ));
        assert!(p.html.contains("prefers-color-scheme: dark"));
        assert!(p.html.starts_with("<!DOCTYPE html>"));
        // No fetch but of the suite's own flame graphs: no other src attribute, no link to
        // the network (the SVG namespace is a name, not a fetch).
        assert_eq!(
            count(&p.html, " src="),
            count(&p.html, " src=\"flame/"),
            "{}",
            p.path.display()
        );
        assert!(!p.html.contains("href=\"http"));
        assert!(!p.html.contains("<link"));
    }
}

pub(super) fn with_change(c: &mut CounterResult, ratio: f64, verdict: Verdict) {
    c.change = Some(Change {
        baseline: 100.0,
        ratio: Some(ratio),
        ci_low: Some(ratio - 0.01),
        ci_high: Some(ratio + 0.01),
        p_value: 0.001,
        threshold: 0.05,
        verdict,
        method: Method::Separate,
    });
}

#[test]
fn a_compared_run_shows_regressions_then_improvements_then_everything() {
    let mut r = synthetic_report();
    let base = synthetic_report();
    r.baseline = Some(crate::model::BaselineRef {
        name: "main".into(),
        perfbench_version: "0.1.0".into(),
        machine: r.machine.clone(),
        warnings: vec!["kernel: \"6.1\" vs \"6.2\"".into()],
        runs: 3,
        build: None,
    });
    with_change(&mut r.benchmarks[1].counters[0], 0.8, Verdict::Improved);
    with_change(&mut r.benchmarks[0].counters[1], 1.5, Verdict::Regressed);
    with_change(&mut r.benchmarks[0].counters[0], 1.01, Verdict::Unchanged);
    let site = site(&[SuiteInput {
        report: &r,
        baseline: Some(&base),
    }]);
    let index = &site.pages[0].html;
    let at = |s: &str| {
        index
            .find(s)
            .unwrap_or_else(|| panic!("{s} not in the index"))
    };
    assert!(at("1 counter regressed") < at(">Regressed (1)<"));
    assert!(at(">Regressed (1)<") < at(">Improved (1)<"));
    assert!(at(">Improved (1)<") < at("<h3>All benchmarks</h3>"));
    assert!(index.contains("+50.0% [+49.0% +51.0%]"));
    assert!(index.contains(
        "Compared with <strong>main</strong> (perfbench 0.1.0, 3 runs of one build: its floor is \
         the fastest of them)."
    ));
    assert!(index.contains("The machines differ: kernel: &quot;6.1&quot;"));
    // The benchmark page overlays the baseline's samples.
    let fib = page(&site, "fib_20");
    assert!(fib.contains("Compared with <strong>main</strong>"));
    assert!(fib.contains("overlaid with 20 values of main"));
    assert!(fib.contains("+50.0% [+49.0% +51.0%] regressed"));
}

#[test]
fn writing_replaces_a_suites_pages_and_indexes_every_suite() {
    let dir = scratch("write");
    let out = dir.join("report");
    let r = synthetic_report();
    let mut other = synthetic_report();
    other.suite = "other".into();
    file::write_atomic(
        &dir.join("other.json"),
        crate::model::json::to_json(&other).as_bytes(),
    )
    .unwrap();
    std::fs::write(dir.join("broken.json"), "{ not json").unwrap();
    // A page of a benchmark that no longer exists.
    std::fs::create_dir_all(out.join("demo")).unwrap();
    std::fs::write(out.join("demo/009-gone.html"), "old").unwrap();
    write_run(
        &out,
        &dir,
        SuiteInput {
            report: &r,
            baseline: None,
        },
    )
    .unwrap();
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        index.contains("Suite demo") && index.contains("Suite other"),
        "{index}"
    );
    assert!(index.contains("2 suites"));
    assert!(!out.join("demo/009-gone.html").exists());
    assert!(out.join("demo/000-math_fib_20.html").is_file());
    // The other suite's pages are its own run's business.
    assert!(!out.join("other").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_report_compared_with_a_saved_baseline_finds_it() {
    let dir = scratch("find");
    let mut r = synthetic_report();
    let base = synthetic_report();
    let store = crate::baseline::Store::new(&dir);
    store
        .save_baseline("main", "demo", &crate::model::json::to_json(&base))
        .unwrap();
    let path = dir.join("demo.json");
    assert!(find_baseline(&path, &r).is_none(), "not compared");
    compared_with(&mut r, "main");
    // (Reports hold NaN, which is not equal to itself: compare the JSON.)
    let found = find_baseline(&path, &r).expect("the saved baseline");
    assert_eq!(
        crate::model::json::to_json(&found),
        crate::model::json::to_json(&base)
    );
    r.baseline.as_mut().unwrap().name = "previous run".into();
    assert!(find_baseline(&path, &r).is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn constant_and_empty_counters_still_draw_or_say_why() {
    let subject = plot::Subject {
        id: "x",
        counter: "instructions",
        unit: "count",
    };
    let svg = plot::distribution(&subject, &[4523.0; 20], None, None).unwrap();
    assert!(svg.starts_with("<svg class=\"plot\" role=\"img\""));
    assert!(!svg.contains("NaN") && !svg.contains("inf"));
    assert!(plot::distribution(&subject, &[], None, None).is_none());
    assert!(plot::distribution(&subject, &[f64::NAN], None, None).is_none());
    assert!(plot::samples(&subject, &[f64::NAN; 3], &[false; 3], &[]).is_none());
    let zeros = plot::samples(&subject, &[0.0; 10], &[false; 10], &[5, 5]).unwrap();
    assert!(!zeros.contains("NaN"));
}

#[test]
fn rounds_left_out_of_the_estimate_are_named() {
    let mut r = synthetic_report();
    let site_of = |r: &Report| {
        site(&[SuiteInput {
            report: r,
            baseline: None,
        }])
    };
    assert!(!page(&site_of(&r), "fib_20").contains("disturbed rounds"));
    let wall = r.benchmarks[0]
        .counters
        .iter_mut()
        .find(|c| c.name == "wall-time")
        .unwrap();
    wall.rounds = vec![5; 4];
    wall.estimate.as_mut().unwrap().disturbed_rounds = 3;
    let site = site_of(&r);
    let page = page(&site, "fib_20");
    assert_eq!(
        count(
            page,
            "3 of 4, slower than the quiet rounds: left out of the estimate"
        ),
        1,
        "only wall-time left rounds out"
    );
}

#[test]
fn an_interval_widened_by_earlier_runs_says_so() {
    let mut r = synthetic_report();
    let fib = &mut r.benchmarks[0];
    let wall = fib
        .counters
        .iter_mut()
        .find(|c| c.name == "wall-time")
        .unwrap();
    let e = wall.estimate.as_mut().unwrap();
    e.runs = Some(crate::stats::RunSpread {
        runs: 4,
        spread: 0.031,
    });
    let site = site(&[SuiteInput {
        report: &r,
        baseline: None,
    }]);
    let page = page(&site, "fib_20");
    assert_eq!(
        count(
            page,
            "the interval includes how far the last 4 runs of this build strayed from each \
             other (3.1% standard deviation)"
        ),
        1,
        "only wall-time's interval was widened"
    );
}

#[test]
fn a_simulated_benchmark_shows_its_flame_graphs_beside_its_page() {
    let r = synthetic_report();
    let site = site(&[SuiteInput {
        report: &r,
        baseline: None,
    }]);
    // sum's page shows its first graph and links both; fib, without a flame, has none.
    let sum = page(&site, "001-math_sum_4096.html");
    assert!(sum.contains("<h2>Flame graphs</h2>"), "{sum}");
    assert!(sum.contains(
        "<a href=\"flame/001-math_sum_4096.instructions.svg\"><img class=\"flame\" \
         src=\"flame/001-math_sum_4096.instructions.svg\" alt=\"flame graph of instructions\">"
    ));
    assert!(sum.contains("<a href=\"flame/001-math_sum_4096.branches.svg\">branches</a>"));
    assert!(!page(&site, "fib_20.html").contains("Flame graphs"));
    // The graph's frames, with their inclusive counts per iteration (40 iterations), the
    // names escaped and the `;` of `[u64; 4]` not a frame separator.
    let svg = page(&site, "instructions.svg");
    assert!(svg.starts_with("<?xml"), "{svg}");
    for title in [
        "<title>math/sum/4096 (12,290 instructions, 100.00%)</title>",
        "<title>&lt;&amp;[u64\u{ff1b} 4] as core::iter::Sum&gt;::sum (12,288 instructions, 99.98%)</title>",
        "<title>core::ops::Add::add (8,192 instructions, 66.66%)</title>",
    ] {
        assert!(svg.contains(title), "{title}: {svg}");
    }
    let branches = page(&site, "branches.svg");
    assert!(
        branches.contains("(1,024 branches, 100.00%)</title>"),
        "{branches}"
    );

    // Written beside the pages; a later run whose benchmark has no flame any more leaves none.
    let dir = scratch("flame");
    site.write(&dir).unwrap();
    let file = dir.join("demo/flame/001-math_sum_4096.instructions.svg");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), svg);
    let mut counted = r.clone();
    counted.benchmarks[1].flame = None;
    super::site(&[SuiteInput {
        report: &counted,
        baseline: None,
    }])
    .write(&dir)
    .unwrap();
    assert!(!file.exists());
    assert!(dir.join("demo/001-math_sum_4096.html").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_compared_run_shows_what_changed_in_a_differential_flame_graph() {
    let base = synthetic_report();
    let mut r = synthetic_report();
    r.baseline = Some(crate::model::BaselineRef {
        name: "main".into(),
        perfbench_version: r.perfbench_version.clone(),
        machine: r.machine.clone(),
        warnings: Vec::new(),
        runs: 1,
        build: None,
    });
    // sum's `add` one instruction longer per iteration: instructions regressed, branches not.
    let sum = &mut r.benchmarks[1];
    let flame = sum.flame.as_mut().unwrap();
    flame.stacks[2].counts[0] += flame.iterations;
    let mut instructions = r.benchmarks[0].counters[1].clone();
    with_change(&mut instructions, 1.0001, Verdict::Regressed);
    let mut branches = instructions.clone();
    branches.name = "branches".into();
    with_change(&mut branches, 1.0, Verdict::Unchanged);
    r.benchmarks[1].counters.extend([instructions, branches]);
    let site = site(&[SuiteInput {
        report: &r,
        baseline: Some(&base),
    }]);
    let change = "demo/flame/001-math_sum_4096.instructions.change.svg";
    let paths: Vec<String> = site
        .pages
        .iter()
        .map(|p| p.path.to_string_lossy().into_owned())
        .collect();
    assert!(paths.iter().any(|p| p == change), "{paths:?}");
    // Only the counter that changed.
    assert!(
        !paths.iter().any(|p| p.ends_with("branches.change.svg")),
        "{paths:?}"
    );
    let picture = page(&site, "instructions.change.svg");
    assert!(
        picture.contains("<title>core::ops::Add::add (8,193 instructions, 66.66%; +0.01%)</title>"),
        "{picture}"
    );
    assert!(picture.contains("against main"), "{picture}");
    let sum = page(&site, "001-math_sum_4096.html");
    assert!(sum.contains("<h3>What changed against main</h3>"), "{sum}");
    assert!(sum
        .contains("<img class=\"flame\" src=\"flame/001-math_sum_4096.instructions.change.svg\""));
    // The change's row links its differential graph; a counter that did not change links none.
    assert!(sum.contains(
        "(p = 0.001) · <a href=\"flame/001-math_sum_4096.instructions.change.svg\">what changed, \
         by function</a>"
    ), "{sum}");
    assert_eq!(sum.matches("what changed, by function").count(), 1, "{sum}");
    // Without the baseline's report at hand, no differential graph.
    let alone = super::site(&[SuiteInput {
        report: &r,
        baseline: None,
    }]);
    assert!(!alone
        .pages
        .iter()
        .any(|p| p.path.to_string_lossy().contains(".change.")));
}

/// Marks `r` as compared with a baseline called `name` (one run, same machine, no warnings).
pub(super) fn compared_with(r: &mut Report, name: &str) {
    r.baseline = Some(crate::model::BaselineRef {
        name: name.into(),
        perfbench_version: "0.1.0".into(),
        machine: r.machine.clone(),
        warnings: vec![],
        runs: 1,
        build: None,
    });
}
