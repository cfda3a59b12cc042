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

fn count(haystack: &str, needle: &str) -> usize {
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

fn with_change(c: &mut CounterResult, ratio: f64, verdict: Verdict) {
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

/// A suite of 50 benchmarks with 6 counters of 100 samples each, as `benches/html_render.rs`
/// renders, compared (a change on every counter, the times of every seventh regressed and of
/// the next improved): all in one group without arguments, or (`args`) five functions over
/// ten arguments from 1 to 30000 with throughput.
fn fifty(args: bool) -> Report {
    let cfg = crate::stats::StatsConfig {
        resamples: 100,
        ..crate::stats::StatsConfig::default()
    };
    let names = [
        "wall-time",
        "instructions",
        "cycles",
        "branch-misses",
        "cache-misses",
        "task-clock",
    ];
    let arguments = [1u64, 3, 10, 30, 100, 300, 1000, 3000, 10000, 30000];
    let benchmarks = (0..50)
        .map(|i| {
            let (name, params) = if args {
                (
                    format!("fn_{}", i / 10),
                    Some(arguments[i % 10].to_string()),
                )
            } else {
                (format!("case_{i}"), None)
            };
            let size = params.as_deref().map_or(1.0, |p| p.parse::<f64>().unwrap());
            let counters = names
                .iter()
                .enumerate()
                .map(|(k, name)| {
                    let centre = (100.0 + 37.0 * i as f64) * (k + 1) as f64 * size;
                    let values: Vec<f64> = (0..100)
                        .map(|s| {
                            centre * (1.0 + 0.05 * f64::from((s * 37 + i as u32) % 100) / 100.0)
                        })
                        .collect();
                    let mut c = CounterResult {
                        name: (*name).into(),
                        unit: if k == 0 || k == 5 { "ns" } else { "count" }.into(),
                        source: crate::model::Source::Clock,
                        multiplexed: false,
                        estimate: crate::stats::estimate(&values, None, &cfg),
                        iterations: vec![1000; 100],
                        rounds: vec![20; 5],
                        per_iteration: values,
                        overhead: 40.0,
                        change: None,
                    };
                    // The times move (wall-time and task-clock), the counts do not.
                    let verdict = match (i % 7, k) {
                        (0, 0 | 5) => Verdict::Regressed,
                        (1, 0 | 5) => Verdict::Improved,
                        _ => Verdict::Unchanged,
                    };
                    let ratio = match verdict {
                        Verdict::Regressed => 1.2,
                        Verdict::Improved => 0.85,
                        _ => 1.0,
                    };
                    with_change(&mut c, ratio, verdict);
                    c
                })
                .collect();
            let id = match &params {
                Some(p) => format!("render/{name}/{p}"),
                None => format!("render/{name}"),
            };
            Benchmark {
                counters,
                throughput: params
                    .as_deref()
                    .map(|p| Throughput::Elements(p.parse().unwrap())),
                ..Benchmark::new(&id, "render", &name, params.as_deref(), Outcome::Measured)
            }
        })
        .collect();
    let mut r = Report::new(
        "render",
        crate::model::Machine::default(),
        crate::model::Config::default(),
        benchmarks,
    );
    compared_with(&mut r, "main");
    r
}

/// The group summaries of an index: from `<h3>Groups</h3>` to the table of every benchmark.
fn groups_part(index: &str) -> &str {
    match (
        index.find("<h3>Groups</h3>"),
        index.find("<h3>All benchmarks</h3>"),
    ) {
        (Some(a), Some(b)) => &index[a..b],
        _ => "",
    }
}

/// Each `<svg>` of `html`, whole.
fn svgs(html: &str) -> Vec<&str> {
    html.match_indices("<svg ")
        .map(|(at, _)| {
            let end = html[at..].find("</svg>").expect("a closed svg") + at + 6;
            &html[at..end]
        })
        .collect()
}

#[test]
fn a_fifty_benchmark_index_stays_small() {
    for (args, plots) in [(false, 3), (true, 9)] {
        let r = fifty(args);
        let page = index(&[&r]);
        let groups = groups_part(&page.html).len();
        let tables = page.html.len() - groups;
        eprintln!(
            "args {args}: index {} bytes, of which the tables {tables} and the group plots \
             {groups}",
            page.html.len()
        );
        // Wall-time and task-clock changed: their change plots, and the functions side by
        // side (or 6 counters and the throughput against the argument).
        assert_eq!(count(&page.html, "<svg "), plots);
        assert!(
            groups < tables * 3 / 2,
            "{groups} bytes of plots for {tables} of tables"
        );
    }
}

/// A benchmark of group `group` with wall time and instructions around `centre`.
fn bench_of(group: &str, name: &str, params: Option<&str>, centre: f64) -> Benchmark {
    let cfg = crate::stats::StatsConfig {
        resamples: 100,
        ..crate::stats::StatsConfig::default()
    };
    let counter = |name: &str, unit: &str, scale: f64| {
        let values: Vec<f64> = (0..20)
            .map(|i| centre * scale * (1.0 + 0.01 * f64::from(i % 5)))
            .collect();
        CounterResult {
            name: name.into(),
            unit: unit.into(),
            source: crate::model::Source::Clock,
            multiplexed: false,
            estimate: crate::stats::estimate(&values, None, &cfg),
            iterations: vec![100; 20],
            rounds: Vec::new(),
            per_iteration: values,
            overhead: 0.0,
            change: None,
        }
    };
    let id = match params {
        Some(p) => format!("{group}/{name}/{p}"),
        None => format!("{group}/{name}"),
    };
    Benchmark {
        counters: vec![
            counter("wall-time", "ns", 1.0),
            counter("instructions", "count", 3.0),
        ],
        ..Benchmark::new(&id, group, name, params, Outcome::Measured)
    }
}

/// Marks `r` as compared with a baseline called `name` (one run, same machine, no warnings).
fn compared_with(r: &mut Report, name: &str) {
    r.baseline = Some(crate::model::BaselineRef {
        name: name.into(),
        perfbench_version: "0.1.0".into(),
        machine: r.machine.clone(),
        warnings: vec![],
        runs: 1,
    });
}

fn report_of(benchmarks: Vec<Benchmark>) -> Report {
    Report::new(
        "groups",
        crate::model::Machine::default(),
        crate::model::Config::default(),
        benchmarks,
    )
}

#[test]
fn a_group_over_arguments_gets_a_line_per_function_on_a_log_axis() {
    let mut benches = Vec::new();
    for n in [1u64, 10, 100, 1000, 10000] {
        let p = n.to_string();
        let mut a = bench_of("sizes", "linear", Some(&p), 50.0 * n as f64);
        a.throughput = Some(Throughput::Bytes(n));
        benches.push(a);
        benches.push(bench_of(
            "sizes",
            "quadratic",
            Some(&p),
            5.0 * (n * n) as f64,
        ));
    }
    let index = index(&[&report_of(benches)]).html;
    let part = groups_part(&index);
    assert!(
        part.contains("<h4>Group <code>sizes</code> (10 benchmarks)</h4>"),
        "{index}"
    );
    // One plot per counter and one of throughput (only `linear` has one).
    let plots = svgs(part);
    assert_eq!(plots.len(), 3, "{part}");
    assert_eq!(count(&index, "<svg "), 3);
    let wall = plots[0];
    assert!(wall.contains(
        "<title id=\"g-groups-0-arg-0\">wall-time of the functions of group sizes against their \
         argument (the arguments from 1 to 10000, both axes logarithmic): one line per function \
         (linear, quadratic), with its interval as a band.</title>"
    ), "{wall}");
    // A line (and a band) per function, in its colour, and the legend names both.
    assert_eq!(
        count(
            wall,
            "<polyline fill=\"none\" stroke=\"#1F6FC5\" stroke-width=\"2\""
        ),
        2,
        "{wall}"
    );
    assert_eq!(
        count(
            wall,
            "<polyline fill=\"none\" stroke=\"#E07B00\" stroke-width=\"2\""
        ),
        2
    );
    assert_eq!(count(wall, "<polygon"), 2);
    assert_eq!(
        count(wall, "<circle"),
        0,
        "no dots where the lines have vertices"
    );
    assert!(wall.contains(">linear</text>") && wall.contains(">quadratic</text>"));
    // The decades are the ticks, the values in their unit.
    for tick in [
        ">1</text>",
        ">10</text>",
        ">100</text>",
        ">1000</text>",
        ">10000</text>",
    ] {
        assert!(wall.contains(tick), "{tick}: {wall}");
    }
    assert!(wall.contains(">1.00 µs</text>"), "{wall}");
    assert!(plots[1].contains("instructions of the functions"));
    assert!(plots[2].contains("throughput of the functions") && plots[2].contains("(linear)"));
    assert!(
        plots[2].contains(">throughput (MiB/s)</text>"),
        "{}",
        plots[2]
    );

    // Arguments that are not numbers are categories, in their order, on a linear axis.
    let benches = ["small", "large"]
        .iter()
        .flat_map(|p| {
            [
                bench_of("words", "upper", Some(p), 10.0),
                bench_of("words", "lower", Some(p), 12.0),
            ]
        })
        .collect();
    let index = super::index(&[&report_of(benches)]).html;
    let wall = svgs(groups_part(&index))[0];
    assert!(wall.contains("(the arguments small, large)"), "{wall}");
    assert!(wall.contains(">small</text>") && wall.contains(">large</text>"));
    assert!(!wall.contains("logarithmic"));

    // Types then a number: a line per type; an argument with a `/` of its own stays whole.
    let benches = vec![
        bench_of("sort", "sort", Some("u8/64"), 10.0),
        bench_of("sort", "sort", Some("u8/4096"), 900.0),
        bench_of("sort", "sort", Some("u64/64"), 20.0),
        bench_of("sort", "sort", Some("u64/4096"), 1800.0),
        bench_of("sort", "path", Some("a/b"), 5.0),
        bench_of("sort", "path", Some("c"), 6.0),
    ];
    let index = super::index(&[&report_of(benches)]).html;
    let wall = svgs(groups_part(&index))[0];
    assert!(
        wall.contains("(the arguments 64, 4096, a/b, c, ")
            && wall.contains("one line per function (sort/u8, sort/u64, path)"),
        "{wall}"
    );
}

#[test]
fn a_group_without_arguments_gets_its_functions_side_by_side() {
    let benches = vec![
        bench_of("parse", "json", None, 1000.0),
        bench_of("parse", "toml", None, 1500.0),
        bench_of("parse", "yaml", None, 2500.0),
    ];
    let index = index(&[&report_of(benches)]).html;
    let plots = svgs(groups_part(&index));
    assert_eq!(plots.len(), 1, "{index}");
    let spread = plots[0];
    assert!(spread.contains(
        "The per-iteration wall-time values of the 3 functions of group parse side by side"
    ));
    assert!(spread.contains(" toml: median 1.53 µs"), "{spread}");
    // A box and an estimate per function, each named on its row.
    assert_eq!(count(spread, "<rect"), 3, "{spread}");
    assert_eq!(count(spread, "<circle"), 3);
    for name in ["json", "toml", "yaml"] {
        assert!(
            spread.contains(&format!(">{name}\u{2002}</text>")),
            "{name}"
        );
    }
}

#[test]
fn a_compared_group_gets_a_bar_per_benchmark_with_its_verdict() {
    let mut benches = vec![
        bench_of("parse", "json", None, 1000.0),
        bench_of("parse", "toml", None, 1500.0),
        bench_of("parse", "yaml", None, 2500.0),
    ];
    with_change(&mut benches[0].counters[0], 1.2, Verdict::Regressed);
    with_change(&mut benches[1].counters[0], 0.8, Verdict::Improved);
    with_change(&mut benches[2].counters[0], 1.0, Verdict::Unchanged);
    // Instructions did not change: no plot of them.
    for b in &mut benches {
        with_change(&mut b.counters[1], 1.0, Verdict::Unchanged);
    }
    let mut r = report_of(benches);
    compared_with(&mut r, "main");
    let index = index(&[&r]).html;
    let part = groups_part(&index);
    let plots = svgs(part);
    assert_eq!(
        plots.len(),
        2,
        "the change of wall-time, then the functions: {part}"
    );
    let bars = plots[0];
    assert!(bars.contains(
        "The change of wall-time of each of the 3 benchmarks of group parse against main"
    ));
    assert!(
        bars.contains(" json: +20.0% [+19.0% +21.0%] regressed."),
        "{bars}"
    );
    // A bar per benchmark in its verdict's colour (restyled in dark mode), its words beside.
    for (colour, words) in [
        ("#C62828", ">+20.0% regressed</text>"),
        ("#2E7D32", ">-20.0% improved</text>"),
        ("#5F6368", ">+0.0% unchanged</text>"),
    ] {
        assert_eq!(
            count(bars, &format!("fill=\"{colour}\" stroke=\"none\"")),
            1,
            "{colour}: {bars}"
        );
        assert!(bars.contains(words), "{words}: {bars}");
    }
    assert!(
        part.contains(
            "<figcaption>wall-time: <span class=\"regressed\">1 regressed</span>, <span \
         class=\"improved\">1 improved</span>, <span class=\"unchanged\">1 unchanged</span>.\
         </figcaption>"
        ),
        "{part}"
    );
    assert!(index.contains("svg.plot [fill=\"#C62828\"] { fill: var(--bad); }"));
}

#[test]
fn a_group_of_one_or_of_nothing_to_compare_gets_no_plot() {
    // One benchmark per group: its page has the plots.
    let mut alone = report_of(vec![
        bench_of("a", "one", None, 10.0),
        bench_of("b", "two", Some("64"), 10.0),
    ]);
    with_change(
        &mut alone.benchmarks[0].counters[0],
        1.5,
        Verdict::Regressed,
    );
    alone.baseline = Some(crate::model::BaselineRef {
        name: "main".into(),
        perfbench_version: "0.1.0".into(),
        machine: alone.machine.clone(),
        warnings: vec![],
        runs: 1,
    });
    let index = index(&[&alone]).html;
    assert!(!index.contains("<h3>Groups</h3>"));
    assert_eq!(count(&index, "<svg "), 0);
    // Two benchmarks, but one function at one argument and one without: nothing side by
    // side, nothing over arguments (the synthetic report's `math` is such a group).
    let r = synthetic_report();
    let index = super::index(&[&r]).html;
    assert!(!index.contains("<h3>Groups</h3>"));
    assert_eq!(count(&index, "<svg "), 0);
}

#[test]
fn hostile_names_in_group_plots_stay_text() {
    let evil = "<script>alert(1)</script>";
    let mut benches = vec![
        bench_of(evil, evil, Some("1"), 10.0),
        bench_of(evil, evil, Some("100"), 900.0),
        bench_of(evil, "x\"y'&z", None, 10.0),
        bench_of(evil, "<img src=x onerror=alert(2)>", None, 12.0),
    ];
    for b in &mut benches {
        with_change(&mut b.counters[0], 1.3, Verdict::Regressed);
    }
    let mut r = report_of(benches);
    compared_with(&mut r, "<b>main</b>");
    let index = index(&[&r]).html;
    let part = groups_part(&index);
    // The change, wall-time and instructions against the argument, the two side by side.
    assert_eq!(svgs(part).len(), 4, "{part}");
    let lower = index.to_ascii_lowercase();
    assert!(!lower.contains("<script"));
    assert!(!lower.contains("<img"));
    assert!(!lower.contains("<b>main"));
    assert!(part.contains("<h4>Group <code>&lt;script&gt;alert(1)&lt;/script&gt;</code>"));
    // In the titles, the legend and the axes, as text.
    assert!(part.contains("of group &lt;script&gt;alert(1)&lt;/script&gt; against &lt;b&gt;main"));
    assert!(
        part.contains(">&lt;script&gt;alert(1)&lt;/script&gt;</text>"),
        "{part}"
    );
    assert!(
        part.contains(">x&quot;y&apos;&amp;z\u{2002}</text>"),
        "{part}"
    );
}
