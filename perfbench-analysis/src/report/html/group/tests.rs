//! The index's group summaries ([`group_section`](super::group_section)): their plots, their
//! size, and hostile names in them.

use super::*;
use crate::model::fixtures::synthetic_report;
use crate::report::html::tests::{compared_with, count, with_change};
use crate::report::html::{index, Outcome};
use crate::stats::Verdict;

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
        build: None,
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
