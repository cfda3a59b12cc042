//! The library's own pieces with `perf_user_access` 0 and 1: `doctor`, `Group` (source, exact
//! k through `Group::read`, disabled page offsets == `read(2)`), `Counters`, and 64-bit counters
//! through `Group::open`.

use perfbench::counters::{CounterError, Counters, Group, GroupOptions, Reading};
use perfbench::events::{self, Pmu, Sysfs};
use perfbench::Source;
use perfbench_analysis::doctor::{self, Machine, Status};

use crate::bodies::{empty, loop16, LOOPS, N, SAMPLES};
use crate::checks::{figure, section, Checks};
use crate::group::{bracket_group, open_group, parse_all};
use crate::steady::on_hot_path;

/// The library's own pieces with `perf_user_access` = `ua`: doctor, `Group` (source,
/// exact k through `Group::read`, disabled page offsets == `read(2)`), `Counters`, and
/// 64-bit counters through `Group::open`.
pub(crate) fn phase_library(
    c: &mut Checks,
    pmu: &Pmu,
    sysfs: &Sysfs,
    ua: i32,
    expect_long: Option<&str>,
) {
    let want = if ua == 1 { Source::Mrs } else { Source::Read };
    section(&format!(
        "library with perf_user_access = {ua}: doctor, Group, Counters"
    ));

    // doctor
    let machine = Machine::probe();
    c.check(
        machine.perf_user_access == Some(ua),
        format_args!(
            "doctor Machine::probe().perf_user_access == Some({ua}) (got {:?})",
            machine.perf_user_access
        ),
    );
    let Some(doc_events) = parse_all(c, &["instructions".into(), "cycles".into()], sysfs) else {
        return;
    };
    let report = doctor::diagnose(&doc_events, machine);
    println!("{report}");
    for cs in &report.counters {
        let ok = match &cs.status {
            Status::Available {
                source,
                no_fast_path,
            } => {
                *source == want
                    && if ua == 0 {
                        no_fast_path
                            .as_deref()
                            .is_some_and(|w| w.contains("perf_user_access"))
                    } else {
                        no_fast_path.is_none()
                    }
            }
            Status::Unavailable { .. } => false,
        };
        c.check(
            ok,
            format_args!(
                "doctor: {} available through {want}, {:?}",
                cs.name, cs.status
            ),
        );
    }
    let text = report.to_string();
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("perf_user_access"));
    c.check(
        line.is_some_and(|l| {
            l.split_whitespace().nth(1) == Some(&*ua.to_string())
                && (ua == 1 || l.contains("sysctl -w kernel.perf_user_access=1"))
        }),
        format_args!("doctor report line: {line:?}"),
    );

    // Group: instructions, cycles, <pmu>/inst_retired/
    let names = vec![
        "instructions".to_owned(),
        "cycles".to_owned(),
        format!("{}/inst_retired/", pmu.name),
    ];
    let Some(evs) = parse_all(c, &names, sysfs) else {
        return;
    };
    let Some(mut g) = open_group(c, &evs, &names) else {
        return;
    };
    c.check(
        g.source() == want,
        format_args!("Group::source() is {want} (got {})", g.source()),
    );
    let (mut a, mut b) = (Reading::with_len(g.len()), Reading::with_len(g.len()));
    let mut sources = std::collections::BTreeSet::new();
    let mut sample = |g: &mut Group, body: fn(u64), n: u64| -> Vec<Vec<u64>> {
        (0..SAMPLES)
            .map(|_| {
                let (s0, s1) = on_hot_path(g, |g| bracket_group(g, body, n, &mut a, &mut b))
                    .expect("Group::read");
                sources.insert(s0);
                sources.insert(s1);
                a.values
                    .iter()
                    .zip(&b.values)
                    .map(|(x, y)| y.wrapping_sub(*x))
                    .collect()
            })
            .collect()
    };
    g.reset().expect("reset");
    g.enable().expect("enable");
    let base = sample(&mut g, empty, 1);
    let mut exact = true;
    let mut variance = true;
    let mut per_k = Vec::new();
    for &(k, body) in LOOPS {
        let d = sample(&mut g, body, N);
        variance &= d.windows(2).all(|w| w[0] == w[1]) && base.windows(2).all(|w| w[0] == w[1]);
        let per: Vec<u64> = (0..g.len())
            .map(|m| d[0][m].wrapping_sub(base[0][m]))
            .collect();
        exact &= per[0] == k * N && per[2] == k * N;
        per_k.push(format!(
            "k={k}: {:?}",
            per.iter().map(|p| *p as f64 / N as f64).collect::<Vec<_>>()
        ));
    }
    g.disable().expect("disable");
    println!("Group per iteration [instructions, cycles, inst_retired]: {per_k:?}");
    c.check(
        sources.iter().all(|s| *s == want),
        format_args!(
            "every Group::read returned {want}: {sources:?} ({} fast fallbacks)",
            g.fast_fallbacks()
        ),
    );
    c.check(
        variance,
        "Group::read: zero variance for every member and k",
    );
    c.check(
        exact,
        format_args!(
            "Group::read: instructions and {} exactly k per iteration for k in {:?}",
            names[2],
            LOOPS.iter().map(|l| l.0).collect::<Vec<_>>()
        ),
    );
    figure(
        format_args!("group(ua={ua}) bracket overhead"),
        format_args!("{:?}", base[0]),
    );
    figure(
        format_args!("group(ua={ua}) per iteration"),
        format_args!("{per_k:?}"),
    );
    let mut r = Reading::with_len(g.len());
    g.read_syscall(&mut r).expect("read_syscall");
    let mut offsets = vec![0u64; g.len()];
    match g.page_offsets(&mut offsets) {
        Some(()) => c.check(
            ua == 1 && offsets == r.values,
            format_args!(
                "disabled Group: page_offsets {offsets:?} == read_syscall {:?}",
                r.values
            ),
        ),
        None => c.check(ua == 0, "Group::page_offsets is None without the fast path"),
    };

    // Counters: the source of each counter of a mixed set.
    let list = format!(
        "instructions,cycles,{}/inst_retired/,wall-time,task-clock",
        pmu.name
    );
    match events::parse_list(&list, sysfs)
        .map_err(|e| e.to_string())
        .and_then(|evs| Counters::open(&evs, &GroupOptions::default()).map_err(|e| e.to_string()))
    {
        Ok(counters) => {
            let got: Vec<(String, Option<Source>)> = list
                .split(',')
                .map(|n| (n.to_owned(), counters.source_of(n)))
                .collect();
            c.check(
                got == [
                    ("instructions".to_owned(), Some(want)),
                    ("cycles".to_owned(), Some(want)),
                    (names[2].clone(), Some(want)),
                    ("wall-time".to_owned(), Some(Source::Clock)),
                    ("task-clock".to_owned(), Some(Source::Read)),
                ],
                format_args!("Counters::source_of: {got:?}"),
            );
        }
        Err(e) => {
            c.check(false, format_args!("Counters::open({list}): {e}"));
        }
    }

    // 64-bit counters through the library: `<pmu>/inst_retired,long/`.
    if ua == 1 {
        let name = format!("{}/inst_retired,long/", pmu.name);
        let Some(evs) = parse_all(c, std::slice::from_ref(&name), sysfs) else {
            return;
        };
        c.check(
            evs[0].perf().is_some_and(|p| p.config1 & 1 == 1),
            format_args!("{name} sets config1 bit 0"),
        );
        match Group::open(&evs, &GroupOptions::default()) {
            Ok(mut g) => {
                let mut a = Reading::with_len(1);
                let mut b = Reading::with_len(1);
                g.enable().expect("enable");
                let base = on_hot_path(&mut g, |g| bracket_group(g, empty, 1, &mut a, &mut b))
                    .map(|_| b.values[0] - a.values[0]);
                let d = on_hot_path(&mut g, |g| bracket_group(g, loop16, N, &mut a, &mut b))
                    .map(|s| (s, b.values[0] - a.values[0]));
                g.disable().expect("disable");
                println!(
                    "Group {name}: source {}, base {base:?}, k=16 {d:?}",
                    g.source()
                );
                c.check(
                    expect_long != Some("eopnotsupp")
                        && g.source() == Source::Mrs
                        && matches!((base, d), (Ok(b), Ok(((Source::Mrs, Source::Mrs), d))) if d - b == 16 * N),
                    format_args!("Group {name}: opens (expected {expect_long:?}), mrs, k=16 exact"),
                );
            }
            Err(e) => {
                let text = e.to_string();
                println!("Group::open({name}): {text}");
                c.check(
                    expect_long != Some("supported")
                        && matches!(&e, CounterError::Open { errno, .. } if errno.0 == libc::EOPNOTSUPP)
                        && text.contains("PMUv3p5")
                        && text.contains(&name),
                    format_args!("Group {name} refused with EOPNOTSUPP, explained (64-bit needs PMUv3p5), expected {expect_long:?}"),
                );
            }
        }
    }
}
