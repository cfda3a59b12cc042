use super::*;
use perfbench::counters::callgrind::counter;
use perfbench::harness::simulate::Region;

/// The sampling loop's frame, and the frames above it, as Callgrind names them.
const LOOP: &str = "perfbench::harness::bencher::<impl perfbench::harness::sampler::body::Body for T>::run_simulated'perfbench::harness::simulate::Simulation::sample'perfbench::harness::sampler::Sampler::run'suite::_::__perfbench_run'perfbench::runner::main'main'(below main)";

/// A context: `f` called by `callers` (innermost first), called by the loop.
fn ctx(f: &str, callers: &[&str]) -> String {
    let mut s = f.to_owned();
    for c in callers {
        s.push('\'');
        s.push_str(c);
    }
    s.push('\'');
    s.push_str(LOOP);
    s
}

#[test]
fn contexts_become_paths_below_the_harness() {
    assert_eq!(frames_of(LOOP), Vec::<String>::new());
    assert_eq!(frames_of(&ctx("leaf", &["parent"])), ["parent", "leaf"]);
    // Recursion: `fib'2` is fib's second and deeper levels, merged into the first.
    assert_eq!(
        frames_of(&ctx("fib'2", &["fib", "bench"])),
        ["bench", "fib"]
    );
    assert_eq!(frames_of(&ctx("fib'2", &["bench"])), ["bench", "fib"]);
    // The innermost harness frame is the cut: a harness function called from the loop is the
    // root's own cost too.
    let special = format!("perfbench::harness::sampler::meter::Meter::stop_special'{LOOP}");
    assert_eq!(frames_of(&special), Vec::<String>::new());
    // Another thread's code never passes through the harness.
    assert_eq!(
        frames_of("work'std::thread::spawn::{{closure}}'start_thread'clone3"),
        [
            ELSEWHERE_FRAME,
            "clone3",
            "start_thread",
            "std::thread::spawn::{{closure}}",
            "work"
        ]
    );
    // A context of as many callers as Callgrind keeps, none of them the harness: too deep.
    let deep: Vec<String> = (0..=SEPARATE_CALLERS).map(|i| format!("f{i}")).collect();
    let frames = frames_of(&deep.join("'"));
    assert_eq!(frames[0], DEEPER_FRAME);
    assert_eq!(frames[1], format!("f{SEPARATE_CALLERS}"));
    assert_eq!(frames.len(), SEPARATE_CALLERS + 2);
    assert!(DEEPER_FRAME.contains(&SEPARATE_CALLERS.to_string()));
    // Names Callgrind left mangled are demangled, without their hash.
    assert_eq!(
        frames_of(&ctx("_ZN5suite4leaf17h0123456789abcdefE", &[])),
        ["suite::leaf"]
    );
    assert_eq!(
        frames_of(&ctx("_RNvCs1234_5suite4leaf", &[])),
        ["suite::leaf"]
    );
    assert_eq!(frames_of(&ctx("_Z3foov", &[])), ["_Z3foov"]); // C++: as Callgrind left it
                                                              // The criterion adapter's routines are the harness's too.
    assert_eq!(
        frames_of(
            "user::work'user::bench::{{closure}}'perfbench_criterion::bencher::Bencher<M>::iter'x"
        ),
        ["user::bench::{{closure}}", "user::work"]
    );
}

/// A dump of the regions' events, with `(context, Ir, Bc)` own costs, each context's name given
/// the first time, a call arc whose inclusive cost must not count, and compressed positions.
fn dump(costs: &[(&str, u64, u64)]) -> String {
    let mut s = format!(
        "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npositions: line\n\
         events: {}\nsummary: 1\n\n",
        EVENTS.join(" ")
    );
    let mut named: Vec<String> = Vec::new();
    let mut id = |key: &str| match named.iter().position(|n| n == key) {
        Some(i) => format!("({})", i + 1),
        None => {
            named.push(key.to_owned());
            format!("({}) {key}", named.len())
        }
    };
    for &(c, ir, bc) in costs {
        let (f, callee) = (id(c), id("callee'somewhere"));
        // Bc is the tenth event; the second line's position is relative, the arc's the same.
        s.push_str(&format!(
            "fn={f}\n12 {ir}\n+2 0 0 0 0 0 0 0 0 0 {bc}\ncfn={callee}\ncalls=3 40\n\
             * 999999 0 0 0 0 0 0 0 0 999999\n"
        ));
    }
    s.push_str("totals: 1\n");
    s
}

#[test]
fn a_dump_reads_as_own_costs_per_path() {
    let mut paths = Paths::new("suite/bench");
    let a = ctx("a", &[]);
    let b = ctx("b", &["a"]);
    let text = dump(&[(LOOP, 10, 1), (&a, 100, 5), (&b, 7, 0), (&a, 3, 0)]);
    let costs = parse(&text, &mut paths).unwrap();
    let ir = EVENTS.iter().position(|e| *e == "Ir").unwrap();
    let bc = EVENTS.iter().position(|e| *e == "Bc").unwrap();
    let own = |frames: &[&str]| {
        let p = paths
            .paths
            .iter()
            .position(|p| {
                p.iter()
                    .map(|&f| paths.frames[f as usize].as_str())
                    .collect::<Vec<_>>()
                    == frames
            })
            .unwrap_or_else(|| panic!("no path {frames:?}"));
        costs[&(p as u32)].clone()
    };
    // The call arcs' inclusive costs (999999) are left out; a context seen twice adds up.
    assert_eq!(own(&["suite/bench"])[ir], 10);
    assert_eq!(own(&["suite/bench", "a"])[ir], 103);
    assert_eq!(own(&["suite/bench", "a"])[bc], 5);
    assert_eq!(own(&["suite/bench", "a", "b"])[ir], 7);
    // The callee named only by a call arc has no cost of its own here.
    assert_eq!(costs.len(), 3);
    // What does not read.
    let bad = |text: &str| parse(text, &mut Paths::new("x")).unwrap_err();
    let head = format!("events: {}\n", EVENTS.join(" "));
    assert!(bad(&format!("{head}0 5\n")).contains("before any function"));
    assert!(bad(&format!("{head}fn=(1) f\n0 5x\n")).contains("`5x` is not a count"));
    assert!(bad(&format!("{head}fn=(1) f\n0 {}\n", "1 ".repeat(14))).contains("more values"));
    assert!(bad(&format!("{head}fn=(7)\n0 5\n")).contains("(7) was never named"));
    assert!(bad(&format!("{head}fn=(7 f\n")).contains("not a function name"));
}

#[test]
fn the_flame_is_the_regions_difference_per_path() {
    let mut paths = Paths::new("suite/bench");
    let (parent, a, b) = (
        ctx("parent", &[]),
        ctx("a", &["parent"]),
        ctx("b", &["parent"]),
    );
    // Per iteration: the loop's own 4 (the body inlined: 1 more than the empty loop's 3),
    // parent 18 and one branch, a 101, b 201; per region a bracket of 50 in the loop and a
    // constant 9 in b (a drop after the loop, say), which the difference cancels.
    let body = |n: u64| {
        dump(&[
            (LOOP, 50 + 4 * n, 0),
            (&parent, 18 * n, n),
            (&a, 101 * n, 0),
            (&b, 9 + 201 * n, 0),
        ])
    };
    let empty = |n: u64| dump(&[(LOOP, 50 + 3 * n, 0)]);
    let region = |dump, iterations| Region {
        dump,
        iterations,
        pairs: 1,
        allocs: None,
    };
    let sample = |k: u32, n: u64| SimSample {
        n,
        per_pair: false,
        body: [region(k, n), region(k + 1, 2 * n)],
        empty: [region(k + 2, n), region(k + 3, 2 * n)],
    };
    let samples = [sample(1, 8), sample(5, 8)];
    let mut dumps = HashMap::new();
    for k in [1, 5] {
        dumps.insert(k, parse(&body(8), &mut paths).unwrap());
        dumps.insert(k + 1, parse(&body(16), &mut paths).unwrap());
        dumps.insert(k + 2, parse(&empty(8), &mut paths).unwrap());
        dumps.insert(k + 3, parse(&empty(16), &mut paths).unwrap());
    }
    let counters = [
        counter("instructions").unwrap(),
        counter("branches").unwrap(),
        counter("branch-misses").unwrap(),
    ];
    let flame = flame(&samples, &dumps, &counters, &paths).unwrap();
    assert_eq!(flame.iterations, 16);
    // No branch misses anywhere: that counter has no graph.
    assert_eq!(flame.counters, ["instructions", "branches"]);
    assert_eq!(
        flame.folded("instructions").unwrap(),
        "suite/bench 16\nsuite/bench;parent 288\nsuite/bench;parent;a 1616\nsuite/bench;parent;b 3216\n"
    );
    assert_eq!(flame.folded("branches").unwrap(), "suite/bench;parent 16\n");
    // The root's inclusive count is the counter's sample: 1 + 18 + 101 + 201 per iteration.
    assert_eq!(flame.total("instructions"), Some(321 * 16));
    assert_eq!(flame.frames[0], "suite/bench");

    // A path whose difference is negative (its count moved to another path between the
    // regions): no graph of that counter rather than a wrong one.
    let mut moved = dumps.clone();
    let shifted = dump(&[
        (LOOP, 50 + 4 * 16, 0),
        (&parent, 18 * 16 + 1000, 16),
        (&a, 0, 0),
        (&b, 9 + 201 * 16, 0),
    ]);
    for k in [2, 6] {
        moved.insert(k, parse(&shifted, &mut paths).unwrap());
    }
    let f = super::flame(&samples, &moved, &counters, &paths).unwrap();
    assert_eq!(f.counters, ["branches"]);
    // Nothing counted at all: no flame.
    assert_eq!(
        super::flame(&samples, &HashMap::new(), &counters, &paths),
        None
    );
}

#[test]
fn a_per_pair_sample_subtracts_one_bracket_per_pair_on_each_path() {
    // iter_custom: the body made `pairs` brackets, each costing the loop 12 and the body's
    // function 5 per iteration.
    let mut paths = Paths::new("suite/custom");
    let work = ctx("work", &[]);
    let region = |dump, iterations, pairs| Region {
        dump,
        iterations,
        pairs,
        allocs: None,
    };
    let s = SimSample {
        n: 4,
        per_pair: true,
        body: [region(1, 4, 4), region(2, 8, 8)],
        empty: [region(3, 4, 1), region(4, 8, 1)],
    };
    let mut dumps = HashMap::new();
    dumps.insert(
        1,
        parse(&dump(&[(LOOP, 12 * 4, 0), (&work, 5 * 4, 0)]), &mut paths).unwrap(),
    );
    dumps.insert(
        2,
        parse(&dump(&[(LOOP, 12 * 8, 0), (&work, 5 * 8, 0)]), &mut paths).unwrap(),
    );
    dumps.insert(3, parse(&dump(&[(LOOP, 12, 0)]), &mut paths).unwrap());
    dumps.insert(4, parse(&dump(&[(LOOP, 12, 0)]), &mut paths).unwrap());
    let f = flame(&[s], &dumps, &[counter("instructions").unwrap()], &paths).unwrap();
    assert_eq!(f.folded("instructions").unwrap(), "suite/custom;work 20\n");
}
