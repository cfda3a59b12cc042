//! Change verdicts of exact counts through the suite's own flags: k against a saved baseline
//! of k, and k + 1, compared with the baseline (`--baseline`) and paired (`--paired`).

use std::time::Instant;

use perfbench::Source;
use perfbench_analysis::model::{CounterResult, Report, Verdict};

use crate::checks::{figure, section, Checks};

/// The benchmarks `arm64/add_<k>` of the verdict phase: k = 0 (a floor of 0: no ratio, the
/// difference of the floors and the Mann-Whitney test on the rounds decide), 4 and 37 (one
/// more instruction is beyond the exact counters' relative threshold, 0.5%), and 1001 (it
/// is not, 0.1%: only the step rule, `CompareConfig::min_step`, sees it).
const VERDICT_KS: [u64; 4] = [0, 4, 37, 1001];
/// `CARGO_TARGET_DIR` of the verdict phase's runs (reports, baselines): no earlier run.
const VERDICT_DIR: &str = "/tmp/verdicts";
/// The suite's variable naming the benchmarks that get one more instruction per iteration.
const EXTRA: &str = "ARM64_SUITE_EXTRA";
/// The rounds `--quick` gives (`perfbench::runner::QUICK_ROUNDS`); at least 3 for the
/// rounds rule of `compare_rounds` to apply.
const VERDICT_ROUNDS: u32 = 5;

/// One run of the suite's `VERDICT_KS` benchmarks (`instructions` only, `--quick` with
/// fewer samples) with `flags`, and with `ARM64_SUITE_EXTRA=extra` or without it: the exit
/// code and the JSON report (`VERDICT_DIR/<what>.json`).
fn run_verdict_suite(
    path: &str,
    what: &str,
    flags: &[&str],
    extra: Option<&str>,
) -> Result<(Option<i32>, Report), String> {
    let json = format!("{VERDICT_DIR}/{what}.json");
    let mut args: Vec<String> = [
        "--bench",
        "--quick",
        "--counters",
        "instructions",
        "--sample-size",
        "10",
        "--warm-up-time",
        "0.005",
        "--measurement-time",
        "0.02",
        "--format",
        "terse",
        "--json",
        &json,
    ]
    .iter()
    .chain(flags)
    .map(|s| s.to_string())
    .collect();
    args.push("--exact".into());
    args.extend(VERDICT_KS.iter().map(|k| format!("arm64/add_{k}")));
    let mut cmd = std::process::Command::new(path);
    cmd.args(&args)
        .env("CARGO_TARGET_DIR", VERDICT_DIR)
        .env("NO_COLOR", "1");
    match extra {
        Some(names) => cmd.env(EXTRA, names),
        None => cmd.env_remove(EXTRA),
    };
    let prefix = extra.map(|e| format!("{EXTRA}={e} ")).unwrap_or_default();
    println!("$ {prefix}{path} {}", args.join(" "));
    let out = cmd.output().map_err(|e| format!("run {path}: {e}"))?;
    print!("{}", String::from_utf8_lossy(&out.stdout));
    print!("{}", String::from_utf8_lossy(&out.stderr));
    let report = std::fs::read_to_string(&json)
        .map_err(|e| e.to_string())
        .and_then(|t| perfbench_analysis::model::json::from_json(&t).map_err(|e| e.to_string()))
        .map_err(|e| format!("{what}: the JSON report {json}: {e}"))?;
    Ok((out.status.code(), report))
}

/// The `instructions` counter of `arm64/add_<k>` in `report`, checked to read exactly
/// `want` per iteration in every sample, in `VERDICT_ROUNDS` rounds, via `mrs`.
fn verdict_counter<'r>(
    c: &mut Checks,
    report: &'r Report,
    what: &str,
    k: u64,
    want: u64,
) -> Option<&'r CounterResult> {
    let id = format!("arm64/add_{k}");
    let r = report.bench(&id).and_then(|b| b.counter("instructions"));
    let Some(r) = r else {
        c.check(
            false,
            format_args!("{what}: the report has {id} instructions"),
        );
        return None;
    };
    let rounds = r.round_values();
    c.check(
        r.source == Source::Mrs
            && !r.per_iteration.is_empty()
            && r.per_iteration.iter().all(|&v| v == want as f64)
            && rounds.len() == VERDICT_ROUNDS as usize,
        format_args!(
            "{what}: {id} instructions exactly {want} per iteration in all {} samples \
             ({} rounds, via {})",
            r.per_iteration.len(),
            rounds.len(),
            r.source,
        ),
    );
    Some(r)
}

/// The change verdict of exact counts through the bench binary's own flags: the suite's
/// `VERDICT_KS` benchmarks saved as baseline `k`, compared with that baseline with
/// `--fail-on-regression` (every `instructions` change `unchanged`, exit 0), then with one
/// more instruction per iteration in one benchmark at a time (that one `regressed` with
/// ratio exactly (k + 1) / k, the others `unchanged`, exit 1).
pub(crate) fn phase_verdicts(c: &mut Checks, path: &str) {
    section("change verdicts of exact counts: k against a saved baseline of k, and k + 1");
    let started = Instant::now();
    let _ = std::fs::remove_dir_all(VERDICT_DIR);
    if let Err(e) = std::fs::create_dir_all(VERDICT_DIR) {
        c.check(false, format_args!("create {VERDICT_DIR}: {e}"));
        return;
    }

    // 1. The baseline.
    let base = match run_verdict_suite(path, "base", &["--save-baseline", "k"], None) {
        Ok(r) => r,
        Err(e) => {
            c.check(false, e);
            return;
        }
    };
    c.check(
        base.0 == Some(0) && base.1.baseline.is_none(),
        format_args!(
            "baseline run: exits 0 (got {:?}), compared with nothing",
            base.0
        ),
    );
    c.check(
        base.1.config.rounds == VERDICT_ROUNDS,
        format_args!(
            "baseline run: --quick gives {} rounds (got {})",
            VERDICT_ROUNDS, base.1.config.rounds
        ),
    );
    for k in VERDICT_KS {
        verdict_counter(c, &base.1, "baseline run", k, k);
    }
    // The baseline holds the run (what --json wrote) and the fresh process a first save adds.
    let saved = format!("{VERDICT_DIR}/perfbench/baselines/k/{}.json", base.1.suite);
    let kept = std::fs::read_to_string(&saved)
        .ok()
        .and_then(|t| perfbench_analysis::model::json::from_json(&t).ok());
    c.check(
        kept.as_ref()
            .is_some_and(|k| k.benchmarks == base.1.benchmarks && k.runs() == 2),
        format_args!(
            "--save-baseline k wrote {saved}: the run --json wrote, and a second process (runs: {:?})",
            kept.as_ref().map(Report::runs)
        ),
    );

    // 2. The same code against it, then one more instruction in each benchmark in turn.
    let mut cases: Vec<(String, Option<u64>)> = vec![("same".into(), None)];
    cases.extend(VERDICT_KS.iter().map(|&k| (format!("add_{k}+1"), Some(k))));
    for (what, plus) in cases {
        let extra = plus.map(|k| format!("add_{k}"));
        let run = run_verdict_suite(
            path,
            &what,
            &["--baseline", "k", "--fail-on-regression"],
            extra.as_deref(),
        );
        let (code, report) = match run {
            Ok(r) => r,
            Err(e) => {
                c.check(false, e);
                continue;
            }
        };
        let want_code = if plus.is_some() { 1 } else { 0 };
        c.check(
            code == Some(want_code),
            format_args!(
                "{what}: exits {want_code} with --baseline k --fail-on-regression (got {code:?})"
            ),
        );
        c.check(
            report.baseline.as_ref().is_some_and(|b| b.name == "k"),
            format_args!("{what}: the report was compared with baseline `k`"),
        );
        let code_text = code.map_or_else(|| "killed".to_owned(), |c| c.to_string());
        let mut facts = vec![format!("exit {code_text}")];
        for k in VERDICT_KS {
            let now = k + u64::from(plus == Some(k));
            let Some(r) = verdict_counter(c, &report, &what, k, now) else {
                facts.push(format!("add_{k} missing"));
                continue;
            };
            let Some(ch) = r.change else {
                c.check(
                    false,
                    format_args!("{what}: arm64/add_{k} instructions has a change"),
                );
                facts.push(format!("add_{k} no change"));
                continue;
            };
            let (want, ratio) = if now > k {
                (Verdict::Regressed, (k > 0).then(|| now as f64 / k as f64))
            } else {
                (Verdict::Unchanged, (k > 0).then_some(1.0))
            };
            // Identical counts: every round figure tied, p = 1. One more instruction: the
            // rounds separate completely (p far below 0.05 with 5 + 5 rounds).
            let p_ok = if now > k {
                ch.p_value < 0.05
            } else {
                ch.p_value == 1.0
            };
            c.check(
                ch.verdict == want && ch.ratio == ratio && ch.baseline == k as f64 && p_ok,
                format_args!(
                    "{what}: arm64/add_{k} instructions {k} -> {now}: {} (want {want}, \
                     ratio {ratio:?}); change {ch:?}",
                    ch.verdict
                ),
            );
            let ratio_text = ch
                .ratio
                .map_or_else(|| "no ratio".to_owned(), |r| format!("ratio {r}"));
            // The floors compared: the baseline's (in the change) and this run's.
            let floor = r
                .per_iteration
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min);
            facts.push(format!(
                "add_{k} {} -> {floor} {} ({ratio_text})",
                ch.baseline, ch.verdict
            ));
        }
        figure(format_args!("verdict {what}"), facts.join(", "));
    }
    println!(
        "verdict phase: {} runs of the suite, {:.1} s (guest clock)",
        2 + VERDICT_KS.len(),
        started.elapsed().as_secs_f64()
    );
}

/// Paired runs of exact counts (issue 10, evidence 3): the suite saved as baseline `p`
/// (which keeps a copy of the executable), then `--paired p` against it: the same code
/// (every `instructions` change `unchanged`, exit 0) and, with `ARM64_SUITE_EXTRA_IN`
/// naming the running executable, one more instruction per iteration in one benchmark at a
/// time in the new build only (that one `regressed` by exactly (k + 1) / k, exit 1). Each
/// round runs in fresh worker processes of both builds.
pub(crate) fn phase_paired(c: &mut Checks, path: &str) {
    section("paired runs of exact counts: k against k, and k + 1, in one run");
    let started = Instant::now();
    let base = run_verdict_suite(path, "paired-base", &["--save-baseline", "p"], None);
    if let Err(e) = base {
        c.check(false, e);
        return;
    }
    let exe = format!("{VERDICT_DIR}/perfbench/baselines/p/arm64_suite.exe");
    c.check(
        std::path::Path::new(&exe).is_file(),
        format_args!("--save-baseline p kept the executable at {exe}"),
    );
    let mut cases: Vec<(String, Option<u64>)> = vec![("paired same".into(), None)];
    cases.extend(
        VERDICT_KS
            .iter()
            .map(|&k| (format!("paired add_{k}+1"), Some(k))),
    );
    std::env::set_var("ARM64_SUITE_EXTRA_IN", path);
    for (what, plus) in cases {
        let extra = plus.map(|k| format!("add_{k}"));
        let run = run_verdict_suite(
            path,
            &what.replace(' ', "-"),
            // Paired runs take twice the rounds by default; `verdict_counter` wants 5.
            &["--paired", "p", "--fail-on-regression", "--rounds", "5"],
            extra.as_deref(),
        );
        let (code, report) = match run {
            Ok(r) => r,
            Err(e) => {
                c.check(false, e);
                continue;
            }
        };
        let want_code = if plus.is_some() { 1 } else { 0 };
        c.check(
            code == Some(want_code),
            format_args!("{what}: exits {want_code} with --paired p (got {code:?})"),
        );
        let mut facts = vec![format!(
            "exit {}",
            code.map_or_else(|| "killed".to_owned(), |c| c.to_string())
        )];
        for k in VERDICT_KS {
            let now = k + u64::from(plus == Some(k));
            let Some(r) = verdict_counter(c, &report, &what, k, now) else {
                facts.push(format!("add_{k} missing"));
                continue;
            };
            let Some(ch) = r.change else {
                c.check(
                    false,
                    format_args!("{what}: arm64/add_{k} has a paired change"),
                );
                continue;
            };
            let (want, ratio) = if now > k {
                (Verdict::Regressed, (k > 0).then(|| now as f64 / k as f64))
            } else {
                (Verdict::Unchanged, (k > 0).then_some(1.0))
            };
            let close = match (ch.ratio, ratio) {
                (Some(a), Some(b)) => (a - b).abs() < 1e-12,
                (None, None) => true,
                _ => false,
            };
            c.check(
                ch.method == perfbench_analysis::model::Method::Paired
                    && ch.verdict == want
                    && close,
                format_args!(
                    "{what}: arm64/add_{k} instructions {k} -> {now}: {} (want {want}, \
                     ratio {ratio:?}); change {ch:?}",
                    ch.verdict
                ),
            );
            facts.push(format!(
                "add_{k} {k} -> {now} {} ({})",
                ch.verdict,
                ch.ratio
                    .map_or_else(|| "no ratio".to_owned(), |r| format!("ratio {r}"))
            ));
        }
        figure(format_args!("verdict {what}"), facts.join(", "));
    }
    std::env::remove_var("ARM64_SUITE_EXTRA_IN");
    println!(
        "paired phase: {} paired runs, {:.1} s (guest clock)",
        1 + VERDICT_KS.len(),
        started.elapsed().as_secs_f64()
    );
}
