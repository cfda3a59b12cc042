//! The test: the environment's checks, then every phase in order, and the summary; and the
//! `kernel.perf_user_access` switch the phases toggle.

use std::time::Instant;

use perfbench::events::Sysfs;
use perfbench::sys;

use crate::checks::{figure, section, Checks};
use crate::every_register::phase_every_register;
use crate::exact_loops::phase_exact_loops;
use crate::floor::phase_floor;
use crate::library::phase_library;
use crate::long_counters::phase_long_counters;
use crate::overflow::phase_overflow;
use crate::raw_group::{config1_bit, ArmBits};
use crate::slow_reads::phase_slow_reads;
use crate::steady::RETAKEN;
use crate::suite_report::phase_suite;
use crate::sysfs_group::phase_sysfs_group;
use crate::user_access_off::phase_user_access_off;
use crate::verdicts::{phase_paired, phase_verdicts};

const USER_ACCESS: &str = "/proc/sys/kernel/perf_user_access";

pub(crate) fn set_user_access(c: &mut Checks, value: u8) {
    let ok = std::fs::write(USER_ACCESS, format!("{value}\n")).is_ok()
        && sys::read_text(USER_ACCESS.as_ref()).as_deref() == Some(&*value.to_string());
    c.check(ok, format_args!("kernel.perf_user_access set to {value}"));
}

pub(crate) fn run() -> i32 {
    let started = Instant::now();
    let mut c = Checks {
        passed: 0,
        failed: 0,
    };
    let sysfs = Sysfs::system();

    section("environment");
    let pmu = sysfs
        .core_pmus()
        .into_iter()
        .find(|p| p.name.starts_with("armv8_pmuv3"));
    if !c.check(pmu.is_some(), "an armv8_pmuv3 PMU is listed in sysfs") {
        println!(
            "PMUs: {:?}",
            sysfs.pmus().iter().map(|p| &p.name).collect::<Vec<_>>()
        );
        return 1;
    }
    let pmu = pmu.unwrap();
    figure("pmu", &pmu.name);
    let bits = ArmBits {
        rdpmc: config1_bit(&pmu, "rdpmc", 2),
        long: config1_bit(&pmu, "long", 1),
    };
    c.check(
        bits.rdpmc == 2 && bits.long == 1,
        format_args!(
            "sysfs format: rdpmc = config1 bit 1, long = config1 bit 0 (got {:#x}, {:#x})",
            bits.rdpmc, bits.long
        ),
    );
    let args: Vec<String> = std::env::args().skip(1).collect();
    println!("args: {args:?}");
    let expect_long = args
        .iter()
        .find_map(|a| a.strip_prefix("--expect-long="))
        .map(str::to_owned);
    let initial = sys::read_text(USER_ACCESS.as_ref());
    c.check(
        initial.as_deref() == Some("0"),
        format_args!("{USER_ACCESS} exists and boots as 0 (got {initial:?})"),
    );

    // Diagnosis: `--suite-only=N` runs the suite phase alone, N times (perf_user_access on).
    if let Some(n) = args.iter().find_map(|a| a.strip_prefix("--suite-only=")) {
        let n: usize = n.parse().unwrap_or(1);
        set_user_access(&mut c, 1);
        if let Some(path) = args.iter().find_map(|a| a.strip_prefix("--suite=")) {
            for i in 0..n {
                println!("\n== suite repeat {i}");
                phase_suite(&mut c, path);
            }
        }
        println!("{} passed, {} failed", c.passed, c.failed);
        return i32::from(c.failed != 0);
    }
    phase_user_access_off(&mut c, &bits);
    phase_library(&mut c, &pmu, &sysfs, 0, expect_long.as_deref());
    set_user_access(&mut c, 1);
    phase_library(&mut c, &pmu, &sysfs, 1, expect_long.as_deref());
    let overhead = phase_exact_loops(&mut c, &bits);
    phase_every_register(&mut c, &bits);
    phase_floor(&mut c, &bits, &sysfs);
    phase_slow_reads(&mut c, &sysfs);
    phase_sysfs_group(&mut c, &bits, &pmu, &sysfs);
    phase_overflow(&mut c, &bits, overhead);
    phase_long_counters(&mut c, &bits, expect_long.as_deref());
    match args.iter().find_map(|a| a.strip_prefix("--suite=")) {
        Some(path) => {
            phase_suite(&mut c, path);
            phase_verdicts(&mut c, path);
            phase_paired(&mut c, path);
        }
        None => println!("\n(no --suite=PATH: the perfbench::main!() suite is not run)"),
    }

    section("summary");
    println!(
        "{} brackets taken again after a read that went off the hot path",
        RETAKEN.load(std::sync::atomic::Ordering::Relaxed)
    );
    println!(
        "{} passed, {} failed, {:.1} s (guest clock)",
        c.passed,
        c.failed,
        started.elapsed().as_secs_f64()
    );
    i32::from(c.failed != 0)
}
