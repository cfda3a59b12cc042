//! The x86 hardware check (`bash .ci/x86/run.sh`): proves perfbench's x86 fast path (`rdpmc`
//! through the kernel's user page) on a machine with a CPU PMU, as the arm64 rig does under
//! QEMU. Prints `FIGURE` lines (the figures README quotes) and `ok`/`FAIL` lines; exits 0 when
//! every check passed, 1 when one failed, and 3 (with one line saying why) on a machine with no
//! CPU PMU or that is not x86_64: nothing to prove there, which is not a failure.
//!
//! `x86_check --probe` only answers whether there is something to prove (exit 0 or 3).
//! `x86_check SUITE` runs the suite (`.ci/x86/suite.rs`) and checks its reports:
//! 1. every body of exactly k `add` instructions (k = 0, 3, 37, 1001, 4099) reads exactly k
//!    instructions per iteration in every sample, through `rdpmc`; a loop over a captured `n`
//!    reads a whole number, `2n + c`, 20 apart for n = 10 and 20; each batched routine of
//!    exactly 37 instructions (every `BatchSize`, and `iter_batched_ref`) reads exactly 37 with
//!    a setup of 4,097 not counted;
//! 2. as root, where `/sys/bus/event_source/devices/cpu*/rdpmc` exists: the same with it set to
//!    0 (`read(2)`), restored afterwards;
//! 3. more `instructions` groups than the PMU has counters: each is multiplexed (flagged) and
//!    its scaled count within 5% of a loop of known length;
//! 4. the bracket's own cost in instructions and cycles per iteration (an empty body's
//!    calibration) through `rdpmc` and through `read(2)`.

use std::process::ExitCode;

/// Exit code: nothing to prove on this machine.
const NOTHING_TO_PROVE: u8 = 3;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(why) = provable() {
        println!(
            "x86-hw: {why}: the x86 fast path cannot be proven here (exit {NOTHING_TO_PROVE})"
        );
        return ExitCode::from(NOTHING_TO_PROVE);
    }
    match args.first().map(String::as_str) {
        Some("--probe") => {
            println!("x86-hw: this machine has an x86 CPU PMU");
            ExitCode::SUCCESS
        }
        Some(suite) => run(suite),
        None => {
            eprintln!("usage: x86_check --probe | x86_check SUITE_EXECUTABLE");
            ExitCode::from(2)
        }
    }
}

/// Whether this machine has something to prove: x86_64 with a CPU PMU that counts
/// `instructions`; else why not.
fn provable() -> Result<(), String> {
    if std::env::consts::ARCH != "x86_64" {
        return Err(format!("this is {}, not x86_64", std::env::consts::ARCH));
    }
    let machine = perfbench::machine::Machine::probe();
    if !machine.has_cpu_pmu() {
        return Err("no CPU PMU (`perfbench doctor` explains)".to_owned());
    }
    let sysfs = perfbench::events::Sysfs::system();
    let events = perfbench::events::parse_list("instructions:u", &sysfs)
        .map_err(|e| format!("`instructions:u` is not an event here: {e}"))?;
    perfbench::counters::Counters::open(&events, &Default::default())
        .map(drop)
        .map_err(|e| format!("`instructions:u` cannot be opened: {e}"))
}

/// The checks' tally.
#[derive(Default)]
struct Checks {
    passed: u32,
    failed: u32,
}

impl Checks {
    fn check(&mut self, ok: bool, what: impl std::fmt::Display) -> bool {
        if ok {
            self.passed += 1;
            println!("ok   {what}");
        } else {
            self.failed += 1;
            println!("FAIL {what}");
        }
        ok
    }
}

fn figure(key: impl std::fmt::Display, value: impl std::fmt::Display) {
    println!("FIGURE {key} = {value}");
}

fn run(suite: &str) -> ExitCode {
    let mut c = Checks::default();
    let machine = perfbench::machine::Machine::probe();
    println!("x86-hw: {} ({} CPUs)", machine.cpu_model, machine.cpus);
    figure("machine", &machine.cpu_model);
    figure(
        "kernel",
        std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .unwrap_or_default()
            .trim(),
    );
    suite_checks(&mut c, suite, perfbench::Source::Rdpmc);
    match rdpmc_files() {
        files if !files.is_empty() && is_root() => {
            let saved: Vec<(std::path::PathBuf, String)> = files
                .iter()
                .filter_map(|f| std::fs::read_to_string(f).ok().map(|v| (f.clone(), v)))
                .collect();
            let off = saved.iter().all(|(f, _)| std::fs::write(f, "0").is_ok());
            if c.check(
                off,
                "rdpmc turned off (/sys/bus/event_source/devices/cpu*/rdpmc = 0)",
            ) {
                suite_checks(&mut c, suite, perfbench::Source::Read);
            }
            for (f, v) in &saved {
                let back = std::fs::write(f, v.trim()).is_ok();
                c.check(
                    back,
                    format_args!("{} restored to {}", f.display(), v.trim()),
                );
            }
        }
        _ => println!("note: not root, or no rdpmc file: the read(2) pass is left out"),
    }
    multiplexing(&mut c);
    println!("\n{} passed, {} failed", c.passed, c.failed);
    if c.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The `rdpmc` settings of the CPU PMUs (`cpu`, or `cpu_core` and `cpu_atom` on a hybrid).
fn rdpmc_files() -> Vec<std::path::PathBuf> {
    let Ok(dir) = std::fs::read_dir("/sys/bus/event_source/devices") else {
        return Vec::new();
    };
    let mut files: Vec<std::path::PathBuf> = dir
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("cpu"))
        .map(|e| e.path().join("rdpmc"))
        .filter(|f| f.exists())
        .collect();
    files.sort();
    files
}

/// The bodies of `.ci/x86/suite.rs` of exactly k instructions.
const KS: [u64; 5] = [0, 3, 37, 1001, 4099];

/// The batched benchmarks of a 37-instruction routine.
const BATCHED_37: [&str; 7] = [
    "batched_37",
    "batched_small_37",
    "batched_large_37",
    "batched_one_37",
    "batched_four_37",
    "batched_three_37",
    "batched_ref_37",
];

/// Runs the suite and checks its report, every instruction count read via `want` (`rdpmc`
/// where the kernel grants it: with its setting 0, `read(2)`).
fn suite_checks(c: &mut Checks, suite: &str, want: perfbench::Source) {
    println!("\n== the suite, instructions via {want}");
    let dir = std::env::temp_dir().join(format!("perfbench-x86-{want}"));
    let json = dir.join("x86_suite.json");
    let out = std::process::Command::new(suite)
        .args([
            "--bench",
            "--counters",
            "instructions:u,cycles:u",
            "--sample-size",
            "10",
        ])
        .args([
            "--warm-up-time",
            "0.05",
            "--measurement-time",
            "0.2",
            "--format",
            "terse",
        ])
        .arg("--json")
        .arg(&json)
        .env("CARGO_TARGET_DIR", &dir)
        .env("NO_COLOR", "1")
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            c.check(false, format_args!("run {suite}: {e}"));
            return;
        }
    };
    print!("{}", String::from_utf8_lossy(&out.stdout));
    print!("{}", String::from_utf8_lossy(&out.stderr));
    if !c.check(
        out.status.success(),
        format_args!("the suite exits 0 ({})", out.status),
    ) {
        return;
    }
    let report = match std::fs::read_to_string(&json)
        .map_err(|e| e.to_string())
        .and_then(|t| perfbench_analysis::model::json::from_json(&t).map_err(|e| e.to_string()))
    {
        Ok(r) => r,
        Err(e) => {
            c.check(false, format_args!("read {}: {e}", json.display()));
            return;
        }
    };
    let counter = |id: &str, name: &str| report.bench(id).and_then(|b| b.counter(name)).cloned();
    let exactly = |c: &mut Checks, id: &str, k: f64| match counter(id, "instructions:u") {
        Some(r) => {
            c.check(
                r.source == want
                    && !r.multiplexed
                    && !r.per_iteration.is_empty()
                    && r.per_iteration.iter().all(|&v| v == k),
                format_args!(
                    "{id}: instructions exactly {k} per iteration in all {} samples via {} \
                         (first {:?})",
                    r.per_iteration.len(),
                    r.source,
                    r.per_iteration.first()
                ),
            );
            figure(
                format_args!("{id} instructions via {want}"),
                format_args!("{:?}", r.per_iteration.first()),
            );
        }
        None => {
            c.check(false, format_args!("the report has {id} instructions:u"));
        }
    };
    for k in KS {
        exactly(c, &format!("x86/add_{k}"), k as f64);
    }
    for name in BATCHED_37 {
        exactly(c, &format!("x86/{name}"), 37.0);
    }
    let whole = |id: &str| {
        counter(id, "instructions:u")
            .map(|r| r.per_iteration)
            .filter(|v| !v.is_empty() && v.iter().all(|x| *x == v[0] && x.fract() == 0.0))
            .map(|v| v[0])
    };
    let (a, b) = (whole("x86/captured_10"), whole("x86/captured_20"));
    c.check(
        matches!((a, b), (Some(a), Some(b)) if (20.0..=24.0).contains(&a) && b - a == 20.0),
        format_args!(
            "captured n: a whole number in every sample, 2n + c, 20 apart (n = 10: {a:?}; \
             n = 20: {b:?})"
        ),
    );
    // The bracket: the empty body's calibration per iteration.
    for name in ["instructions:u", "cycles:u"] {
        if let Some(r) = counter("x86/add_0", name) {
            let per = r.iterations.first().map(|&n| r.overhead / n as f64);
            figure(
                format_args!("bracket {name} per iteration via {want}"),
                format_args!("{per:?}"),
            );
        }
    }
}

/// More `instructions` groups than the PMU has counters, over a loop of known length: each is
/// multiplexed, flagged, and scaled to within 5%.
fn multiplexing(c: &mut Checks) {
    use perfbench::counters::{Group, GroupOptions, Reading};
    println!("\n== more groups than counters");
    let sysfs = perfbench::events::Sysfs::system();
    let Ok(events) = perfbench::events::parse_list("instructions:u", &sysfs) else {
        c.check(false, "instructions:u parses");
        return;
    };
    let groups: Result<Vec<Group>, _> = (0..24)
        .map(|_| Group::open(&events, &GroupOptions::default()))
        .collect();
    let mut groups = match groups {
        Ok(g) => g,
        Err(e) => {
            c.check(false, format_args!("24 groups of instructions:u open: {e}"));
            return;
        }
    };
    for g in &groups {
        let _ = g.reset();
        let _ = g.enable();
    }
    // About 2 x 200 million instructions: long enough for the kernel to rotate the groups.
    let n = 200_000_000u64;
    spin(n);
    for g in &groups {
        let _ = g.disable();
    }
    let mut multiplexed = 0;
    let mut worst: f64 = 0.0;
    for g in &mut groups {
        let mut r = Reading::with_len(1);
        if g.read(&mut r).is_err() {
            continue;
        }
        multiplexed += usize::from(r.multiplexed());
        if let Some(v) = r.scaled(0) {
            worst = worst.max((v / (2.0 * n as f64) - 1.0).abs());
        }
    }
    c.check(
        multiplexed > 0,
        format_args!("{multiplexed} of 24 groups multiplexed and flagged"),
    );
    c.check(
        worst < 0.05,
        format_args!(
            "every scaled count within 5% of the loop's 2n (worst {:.2}%)",
            worst * 100.0
        ),
    );
    figure(
        "multiplexed scaled worst error %",
        format_args!("{:.2}", worst * 100.0),
    );
}

/// Exactly `2n` instructions: `dec` and `jnz`, `n` times.
#[cfg(target_arch = "x86_64")]
fn spin(n: u64) {
    // SAFETY: register-only arithmetic; `n >= 1`.
    unsafe {
        std::arch::asm!("2:", "dec {n}", "jnz 2b", n = inout(reg) n => _, options(nostack));
    }
}

/// x86_64 only: [`provable`] refuses other machines before anything runs.
#[cfg(not(target_arch = "x86_64"))]
fn spin(_n: u64) {
    unreachable!("the x86 check runs on x86_64 only")
}
