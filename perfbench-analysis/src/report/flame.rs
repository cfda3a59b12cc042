//! Flame graphs of a simulated benchmark ([`Flame`]): one SVG picture per counter, drawn by
//! inferno from the flame's folded stacks. A frame's width is the function's exact inclusive
//! count on its call path; its tooltip gives that count per iteration and its share of the
//! whole. Colours come from a hash of the function's name, so the same build gives the same
//! bytes every time. Names are text: inferno escapes them.

use inferno::flamegraph::{self, Options};

use crate::model::Flame;

/// The SVG flame graph of `counter` in `flame`, or `None` when the flame has no such counter.
///
/// ```
/// use perfbench_analysis::model::{Flame, FlameStack};
/// use perfbench_analysis::report::flame::svg;
///
/// let flame = Flame {
///     iterations: 2,
///     counters: vec!["instructions".into()],
///     frames: vec!["suite/bench".into(), "work".into()],
///     stacks: vec![
///         FlameStack { frames: vec![0], counts: vec![2] },
///         FlameStack { frames: vec![0, 1], counts: vec![2000] },
///     ],
/// };
/// let picture = svg(&flame, "instructions").unwrap();
/// // Counts per iteration: the body 1,001 instructions, 1,000 of them in `work`.
/// assert!(picture.contains("<title>suite/bench (1,001 instructions, 100.00%)</title>"));
/// assert!(picture.contains("<title>work (1,000 instructions, 99.90%)</title>"));
/// assert!(svg(&flame, "branches").is_none());
/// ```
pub fn svg(flame: &Flame, counter: &str) -> Option<String> {
    let folded = flame.folded(counter)?;
    let root = flame.frames.first().map_or("", String::as_str);
    let mut options = Options::default();
    options.title = format!("{root}: {counter}");
    options.subtitle = Some(format!(
        "exact inclusive {counter} per iteration and call path, simulated by Callgrind \
         ({} iterations)",
        flame.iterations
    ));
    options.count_name = counter.to_owned();
    options.factor = 1.0 / flame.iterations.max(1) as f64;
    // Colour by name, not at random: the same bytes every run.
    options.hash = true;
    let mut out = Vec::new();
    flamegraph::from_lines(&mut options, folded.lines(), &mut out).ok()?;
    String::from_utf8(out).ok()
}

/// How [`folded_svg`] titles a flame graph.
#[derive(Clone, Debug)]
pub struct FoldedTitle<'a> {
    /// The title (a profiled benchmark's id, say).
    pub title: &'a str,
    /// The line under it: what the widths are.
    pub subtitle: Option<&'a str>,
    /// What a count is, in the tooltips (`samples`).
    pub count_name: &'a str,
}

/// The SVG flame graph of folded stacks (`frame;frame;frame COUNT` lines, what
/// `target/perfbench/profile/ID/stacks.folded` holds), each frame as wide as its samples; or why
/// not: a line that is not `STACK COUNT` (named by its number), or no stack at all. Blank lines
/// are skipped. Names are text, escaped in the picture.
///
/// ```
/// use perfbench_analysis::report::flame::{folded_svg, FoldedTitle};
///
/// let title = FoldedTitle {
///     title: "suite/parse",
///     subtitle: Some("4 samples of cpu-clock in the measured region"),
///     count_name: "samples",
/// };
/// let picture = folded_svg("suite/parse;lex 3\nsuite/parse 1\n", &title).unwrap();
/// assert!(picture.contains("<title>lex (3 samples, 75.00%)</title>"), "{picture}");
/// let e = folded_svg("suite/parse;lex 3\nsuite/parse many\n", &title).unwrap_err();
/// assert_eq!(e, "line 2: `suite/parse many` is not `STACK COUNT` (COUNT a whole number)");
/// ```
pub fn folded_svg(folded: &str, title: &FoldedTitle<'_>) -> Result<String, String> {
    let mut lines = Vec::new();
    for (i, line) in folded.lines().enumerate() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            continue;
        }
        let well_formed = line
            .rsplit_once(' ')
            .is_some_and(|(stack, n)| !stack.trim().is_empty() && n.parse::<u64>().is_ok());
        if !well_formed {
            let shown: String = line.chars().take(80).collect();
            return Err(format!(
                "line {}: `{shown}` is not `STACK COUNT` (COUNT a whole number)",
                i + 1
            ));
        }
        lines.push(line);
    }
    if lines.is_empty() {
        return Err("no stacks to draw (the file has no `STACK COUNT` line)".to_owned());
    }
    let mut options = Options::default();
    options.title = title.title.to_owned();
    options.subtitle = title.subtitle.map(str::to_owned);
    options.count_name = title.count_name.to_owned();
    // Colour by name, not at random: the same bytes every run.
    options.hash = true;
    let mut out = Vec::new();
    flamegraph::from_lines(&mut options, lines, &mut out)
        .map_err(|e| format!("cannot draw the flame graph: {e}"))?;
    String::from_utf8(out).map_err(|e| format!("cannot draw the flame graph: {e}"))
}

/// Each path's count of `counter` in `flame` per iteration, as `(numerator, iterations)`; `None`
/// when the flame has no such counter or no iterations.
fn per_path(flame: &Flame, counter: &str) -> Option<(Vec<(String, u64)>, u64)> {
    let k = flame.counters.iter().position(|c| c == counter)?;
    if flame.iterations == 0 {
        return None;
    }
    let counts = flame
        .stacks
        .iter()
        .filter_map(|s| Some((flame.path(s)?, *s.counts.get(k)?)))
        .collect();
    Some((counts, flame.iterations))
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The differential flame graph of `counter` from flame `base` (the baseline's) to `new` (this
/// run's), or `None` when either has no such counter. Frames are as wide as in `new`; a frame
/// whose own count grew is red, one whose own count shrank blue, deeper the more it changed,
/// and one that did not change is white, its tooltip saying by how much (a share of the whole).
/// A function that is gone has no width in `new` and does not show. Counts are per iteration
/// where every count of both sides divides by its iterations (deterministic code), else over a
/// number of iterations common to both, which the tooltips name.
///
/// ```
/// use perfbench_analysis::model::{Flame, FlameStack};
/// use perfbench_analysis::report::flame::differential_svg;
///
/// let flame = |leaf: u64, iterations: u64| Flame {
///     iterations,
///     counters: vec!["instructions".into()],
///     frames: vec!["suite/bench".into(), "work".into(), "leaf".into()],
///     stacks: vec![
///         FlameStack { frames: vec![0, 1], counts: vec![10 * iterations] },
///         FlameStack { frames: vec![0, 1, 2], counts: vec![leaf * iterations] },
///     ],
/// };
/// // The leaf one instruction longer, measured over other iterations.
/// let picture = differential_svg(&flame(90, 64), &flame(91, 128), "instructions", "main").unwrap();
/// assert!(picture.contains("<title>leaf (91 instructions, 90.10%; +0.99%)</title>"));
/// assert!(picture.contains("<title>work (101 instructions, 100.00%; 0.00%)</title>"));
/// ```
pub fn differential_svg(base: &Flame, new: &Flame, counter: &str, against: &str) -> Option<String> {
    let (before, base_iterations) = per_path(base, counter)?;
    let (after, new_iterations) = per_path(new, counter)?;
    let divides =
        |counts: &[(String, u64)], iterations: u64| counts.iter().all(|(_, c)| c % iterations == 0);
    // Per iteration, or over the least common multiple of the two sides' iterations.
    let (scale, before_scale, after_scale) =
        if divides(&before, base_iterations) && divides(&after, new_iterations) {
            (1, 0, 0)
        } else {
            let lcm = base_iterations / gcd(base_iterations, new_iterations) * new_iterations;
            (lcm, lcm / base_iterations, lcm / new_iterations)
        };
    let scaled = |c: u64, iterations: u64, by: u64| {
        if scale == 1 {
            Some(c / iterations)
        } else {
            c.checked_mul(by)
        }
    };
    let mut lines: std::collections::BTreeMap<String, (u64, u64)> = Default::default();
    for (path, c) in &before {
        lines.entry(path.clone()).or_default().0 = scaled(*c, base_iterations, before_scale)?;
    }
    for (path, c) in &after {
        lines.entry(path.clone()).or_default().1 = scaled(*c, new_iterations, after_scale)?;
    }
    let folded: Vec<String> = lines
        .iter()
        .filter(|(_, &(b, n))| b > 0 || n > 0)
        .map(|(path, (b, n))| format!("{path} {b} {n}"))
        .collect();
    let root = new.frames.first().map_or("", String::as_str);
    let mut options = Options::default();
    options.title = format!("{root}: {counter} against {against}");
    options.subtitle = Some(format!(
        "widths: this run's exact inclusive {counter}; red: a function's own count grew since \
         {against}, blue: it shrank"
    ));
    options.count_name = if scale == 1 {
        counter.to_owned()
    } else {
        format!("{counter} in {scale} iterations")
    };
    options.hash = true;
    let mut out = Vec::new();
    flamegraph::from_lines(&mut options, folded.iter().map(String::as_str), &mut out).ok()?;
    String::from_utf8(out).ok()
}

/// A flame graph to draw.
#[derive(Clone, Copy, Debug)]
pub enum Graph<'a> {
    /// A counter of a flame: [`svg`].
    Of(&'a Flame, &'a str),
    /// A counter from a baseline's flame to this run's: [`differential_svg`].
    Change {
        /// The baseline's flame.
        base: &'a Flame,
        /// This run's.
        new: &'a Flame,
        /// The counter.
        counter: &'a str,
        /// The baseline's name.
        against: &'a str,
    },
}

impl Graph<'_> {
    /// The SVG picture, or `None` where the flames have no such counter.
    pub fn draw(&self) -> Option<String> {
        match *self {
            Graph::Of(flame, counter) => svg(flame, counter),
            Graph::Change {
                base,
                new,
                counter,
                against,
            } => differential_svg(base, new, counter, against),
        }
    }
}

/// Each of `graphs` drawn ([`Graph::draw`]), in order, on as many threads as there are cores (a
/// suite's graphs are independent, and each takes milliseconds).
///
/// ```
/// use perfbench_analysis::model::{Flame, FlameStack};
/// use perfbench_analysis::report::flame::{draw_all, svg, Graph};
///
/// let flame = Flame {
///     iterations: 1,
///     counters: vec!["instructions".into()],
///     frames: vec!["suite/bench".into()],
///     stacks: vec![FlameStack { frames: vec![0], counts: vec![5] }],
/// };
/// let drawn = draw_all(&[Graph::Of(&flame, "instructions"), Graph::Of(&flame, "branches")]);
/// assert_eq!(drawn, [svg(&flame, "instructions"), None]);
/// ```
pub fn draw_all(graphs: &[Graph<'_>]) -> Vec<Option<String>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, graphs.len().max(1));
    if threads == 1 {
        return graphs.iter().map(Graph::draw).collect();
    }
    let next = AtomicUsize::new(0);
    let mut drawn: Vec<Option<String>> = vec![None; graphs.len()];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(graph) = graphs.get(i) else {
                            return mine;
                        };
                        mine.push((i, graph.draw()));
                    }
                })
            })
            .collect();
        for w in workers {
            // A worker that panicked leaves its graphs undrawn.
            for (i, picture) in w.join().unwrap_or_default() {
                drawn[i] = picture;
            }
        }
    });
    drawn
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FlameStack;

    #[test]
    fn hostile_names_stay_text() {
        let hostile = "<script>alert(\"x&y\")</script>'; <![CDATA[ ]]>";
        let flame = Flame {
            iterations: 1,
            counters: vec!["instructions".into()],
            frames: vec!["suite/<b>&\"".into(), hostile.into()],
            stacks: vec![
                FlameStack {
                    frames: vec![0],
                    counts: vec![1],
                },
                FlameStack {
                    frames: vec![0, 1],
                    counts: vec![9],
                },
            ],
        };
        let picture = svg(&flame, "instructions").unwrap();
        // Escaped wherever the names appear: the title, the frames' tooltips and labels.
        assert!(!picture.contains("<script>alert"), "{picture}");
        assert!(!picture.contains("<b>"), "{picture}");
        assert!(
            picture.contains("&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;"),
            "{picture}"
        );
        assert!(
            picture.contains("suite/&lt;b&gt;&amp;&quot;: instructions"),
            "{picture}"
        );
        // The `;` inside a name does not split it into two frames (it is a full-width one).
        assert!(picture.contains("\u{ff1b} &lt;!"), "{picture}");
        // Still one well-formed document: every element that opens closes, in order.
        let scripts = picture.matches("<script").count();
        assert_eq!(scripts, picture.matches("</script>").count());
        assert_eq!(scripts, 1, "inferno's own script only");
    }

    #[test]
    fn folded_stacks_draw_with_hostile_names_as_text_and_refuse_malformed_lines() {
        let title = FoldedTitle {
            title: "s/<b>",
            subtitle: Some("samples of cpu-clock in the measured region"),
            count_name: "samples",
        };
        let picture = folded_svg("s/<b>;<script>alert(1)</script> 3\n\ns/<b> 1\n", &title).unwrap();
        assert!(!picture.contains("<script>alert"), "{picture}");
        assert!(
            picture.contains("<title>&lt;script&gt;alert(1)&lt;/script&gt; (3 samples, 75.00%)"),
            "{picture}"
        );
        assert!(picture.contains("samples of cpu-clock in the measured region"));
        for bad in [
            "s/b 3\nno-count\n",
            "s/b -1\n",
            "s/b 1.5\n",
            " 4\n",
            "s/b;x 99999999999999999999\n",
        ] {
            let e = folded_svg(bad, &title).unwrap_err();
            assert!(e.starts_with("line "), "{bad:?}: {e}");
        }
        assert!(folded_svg("\n \n", &title)
            .unwrap_err()
            .contains("no stacks"));
    }

    #[test]
    fn the_same_flame_draws_the_same_bytes() {
        let flame = |order: &[usize]| {
            let stacks = [
                (vec![0], 3),
                (vec![0, 1], 30),
                (vec![0, 1, 2], 300),
                (vec![0, 2], 7),
            ];
            Flame {
                iterations: 1,
                counters: vec!["instructions".into()],
                frames: vec!["s/b".into(), "a".into(), "b".into()],
                stacks: order
                    .iter()
                    .map(|&i| FlameStack {
                        frames: stacks[i].0.clone(),
                        counts: vec![stacks[i].1],
                    })
                    .collect(),
            }
        };
        let one = svg(&flame(&[0, 1, 2, 3]), "instructions").unwrap();
        // Drawn again (the colours come from the names, not a generator that moves on), and
        // from the stacks in another order.
        assert_eq!(one, svg(&flame(&[0, 1, 2, 3]), "instructions").unwrap());
        assert_eq!(one, svg(&flame(&[3, 2, 1, 0]), "instructions").unwrap());
    }

    /// A flame of one counter from `(path, count per iteration)` over `iterations`.
    fn flame(paths: &[(&[u32], u64)], iterations: u64) -> Flame {
        Flame {
            iterations,
            counters: vec!["instructions".into()],
            frames: vec!["s/b".into(), "parent".into(), "a".into(), "b".into()],
            stacks: paths
                .iter()
                .map(|(frames, c)| FlameStack {
                    frames: frames.to_vec(),
                    counts: vec![c * iterations],
                })
                .collect(),
        }
    }

    /// Each frame's tooltip in `svg`, by the frame's name: the text after the name.
    fn titles(svg: &str) -> Vec<(String, String)> {
        svg.split("<title>")
            .skip(1)
            .filter_map(|t| {
                let t = &t[..t.find("</title>")?];
                let (name, rest) = t.split_once(" (")?;
                Some((name.to_owned(), rest.to_owned()))
            })
            .collect()
    }

    #[test]
    fn a_differential_graph_colours_only_the_function_that_changed() {
        let before = flame(
            &[
                (&[0], 1),
                (&[0, 1], 18),
                (&[0, 1, 2], 103),
                (&[0, 1, 3], 201),
            ],
            64,
        );
        // One instruction more per call in `a`, over twice the iterations.
        let after = flame(
            &[
                (&[0], 1),
                (&[0, 1], 18),
                (&[0, 1, 2], 104),
                (&[0, 1, 3], 201),
            ],
            128,
        );
        let picture = differential_svg(&before, &after, "instructions", "main").unwrap();
        let t = titles(&picture);
        let of = |name: &str| {
            t.iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("no {name} in {t:?}"))
                .1
                .clone()
        };
        // Widths are this run's, per iteration; only `a` has a change of its own.
        assert_eq!(of("a"), "104 instructions, 32.10%; +0.31%)");
        assert_eq!(of("parent"), "323 instructions, 99.69%; 0.00%)");
        assert_eq!(of("b"), "201 instructions, 62.04%; 0.00%)");
        assert_eq!(of("s/b"), "324 instructions, 100.00%; 0.00%)");
        assert!(picture.contains("main"), "{picture}");
        // The grown frame red, the unchanged white, inferno's `all` at the bottom with them
        // (inferno's differential colours).
        assert_eq!(count_fill(&picture, "rgb(250,250,250)"), 4, "{picture}");
        assert_eq!(count_fill(&picture, "rgb(255,100,100)"), 1, "{picture}");
        // Shrunk: blue, and the same graph both ways round is the other colour.
        let back = differential_svg(&after, &before, "instructions", "main").unwrap();
        assert_eq!(count_fill(&back, "rgb(100,100,255)"), 1, "{back}");
        assert!(
            back.contains("<title>a (103 instructions, 31.89%; -0.31%)</title>"),
            "{back}"
        );
        // The same flame against itself: nothing coloured.
        let same = differential_svg(&before, &before, "instructions", "main").unwrap();
        assert_eq!(count_fill(&same, "rgb(250,250,250)"), 5, "{same}");
        // A counter one side lacks: no graph.
        assert!(differential_svg(&before, &after, "branches", "main").is_none());
    }

    fn count_fill(svg: &str, colour: &str) -> usize {
        svg.matches(&format!("fill=\"{colour}\"")).count()
    }

    #[test]
    fn counts_that_do_not_divide_are_compared_over_common_iterations() {
        let mut before = flame(&[(&[0], 3)], 4);
        before.stacks[0].counts = vec![13]; // 3.25 per iteration
        let after = flame(&[(&[0], 3)], 6); // 3 per iteration
        let picture = differential_svg(&before, &after, "instructions", "main").unwrap();
        // Over 12 iterations: 39 before, 36 now.
        assert!(
            picture
                .contains("<title>s/b (36 instructions in 12 iterations, 100.00%; -8.33%)</title>"),
            "{picture}"
        );
    }
}
