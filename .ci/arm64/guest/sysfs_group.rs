//! A group of `instructions`, `cycles` and events named through sysfs (`<pmu>/inst_retired/`,
//! `<pmu>/event=0x08/`): consistent, exact, page offsets equal to `read(2)` once disabled.

use perfbench::events::{self, Pmu, Sysfs};

use crate::bodies::{empty, loop_k, N, SAMPLES};
use crate::checks::{figure, section, Checks};
use crate::raw_group::{event_attr, ArmBits, RawGroup};
use crate::steady::fast_steady;

/// `instructions`, `cycles` and `<pmu>/inst_retired/` (parsed by perfbench::events from
/// sysfs) in one group.
pub(crate) fn phase_sysfs_group(c: &mut Checks, bits: &ArmBits, pmu: &Pmu, sysfs: &Sysfs) {
    section("group: instructions, cycles, sysfs-named event");
    let names = [
        "instructions".to_owned(),
        "cycles".to_owned(),
        format!("{}/inst_retired/", pmu.name),
        format!("{}/event=0x08/", pmu.name),
    ];
    let mut specs = Vec::new();
    for name in &names {
        match events::parse(name, sysfs) {
            Ok(e) => {
                println!("parsed {name}: {:?}", e.perf());
                specs.push((name.as_str(), event_attr(&e, bits.rdpmc)));
            }
            Err(e) => {
                c.check(false, format_args!("events::parse({name}): {e}"));
                return;
            }
        }
    }
    let sysfs_type = specs[2].1.type_;
    c.check(
        sysfs_type == pmu.type_ && specs[2].1.config == 8 && specs[3].1.config == 8,
        format_args!(
            "{} parses to type {} (the PMU's), config 0x08",
            names[2], sysfs_type
        ),
    );
    let g = match RawGroup::open(&specs, false) {
        Ok(g) => g,
        Err(e) => {
            c.check(false, e);
            return;
        }
    };
    g.start();
    c.check(
        g.fast.capability().is_usable(),
        format_args!("fast path usable for the group: {}", g.fast.capability()),
    );
    println!("indices: {:?}", g.indices());
    let base: Vec<Vec<u64>> = (0..SAMPLES)
        .map(|_| fast_steady(&g, empty, 1).expect("fast read").deltas)
        .collect();
    for k in [4u64, 16] {
        let d: Vec<Vec<u64>> = (0..SAMPLES)
            .map(|_| fast_steady(&g, loop_k(k), N).expect("fast read").deltas)
            .collect();
        let stable = d.windows(2).all(|w| w[0] == w[1]) && base.windows(2).all(|w| w[0] == w[1]);
        c.check(
            stable,
            format_args!("k={k}: zero variance for every member"),
        );
        let per: Vec<f64> = (0..g.len())
            .map(|m| d[0][m].wrapping_sub(base[0][m]) as f64 / N as f64)
            .collect();
        println!(
            "k={k}: per iteration {:?}",
            names.iter().zip(&per).collect::<Vec<_>>()
        );
        for m in [0, 2, 3] {
            c.check(
                d[0][m].wrapping_sub(base[0][m]) == k * N,
                format_args!("k={k}: {} = {} per iteration", names[m], per[m]),
            );
        }
        c.check(
            d[0][0] == d[0][2] && d[0][0] == d[0][3],
            format_args!(
                "k={k}: instructions, inst_retired and event=0x08 deltas equal ({}, {}, {})",
                d[0][0], d[0][2], d[0][3]
            ),
        );
        c.check(
            per[1] > 0.0,
            format_args!("k={k}: cycles advance ({} per iteration)", per[1]),
        );
        figure(
            format_args!("group k={k} deltas"),
            format_args!("{:?}", d[0]),
        );
    }
    g.stop();
    let (read, _, _) = g.read_syscall();
    let mut offsets = vec![0u64; g.len()];
    c.check(
        g.fast.page_offsets(&mut offsets) && offsets == read,
        format_args!("disabled group: page offsets {offsets:?} == read(2) {read:?}"),
    );
}
