//! Tracepoints, looked up in a fake tracefs.

use super::*;

#[test]
pub(super) fn tracepoints_are_looked_up_in_tracefs_and_count_in_kernel_mode() {
    let fake = empty();
    fake.tracepoint("sched", "sched_switch", 321);
    fake.tracepoint("sched", "sched_wakeup", 322);
    fake.tracepoint("syscalls", "sys_enter_getpid", 309);
    let sysfs = fake.sysfs();
    let p = perf("sched:sched_switch", &sysfs);
    assert_eq!(
        p,
        PerfEvent {
            kernel: true,
            ..expect(raw::PERF_TYPE_TRACEPOINT, 321)
        }
    );
    assert!(p.happens_in_kernel());
    assert!(!parse("sched:sched_switch", &sysfs).unwrap().needs_pmu());
    // An explicit modifier is obeyed.
    let p = perf("syscalls:sys_enter_getpid:u", &sysfs);
    assert_eq!(p, expect(raw::PERF_TYPE_TRACEPOINT, 309));
    // Misspellings get the close names.
    let e = err("sched:sched_swich", &sysfs);
    assert_eq!(e.message, "no tracepoint `sched_swich` in system `sched`");
    assert_eq!(e.suggestions[0], "sched:sched_switch");
    let e = err("shed:sched_switch:k", &sysfs);
    assert_eq!(e.message, "no tracepoint system `shed` in tracefs");
    assert_eq!(e.suggestions, ["sched:sched_switch:k"]);
    // Path tricks never reach tracefs.
    for name in ["sched:..", "..:x", "sched:a/b", "a/b:c"] {
        let e = err(name, &sysfs);
        assert!(!e.message.contains("tracepoint"), "{name}: {e}");
    }
}

#[test]
pub(super) fn modified_events_are_not_tracepoints() {
    let fake = empty();
    fake.tracepoint("cycles", "u", 1);
    let sysfs = fake.sysfs();
    assert_eq!(perf("cycles:u", &sysfs).type_, raw::PERF_TYPE_HARDWARE);
    let e = err("cylces:u", &sysfs);
    assert!(e.message.starts_with("unknown counter `cylces:u`"), "{e}");
    assert_eq!(e.suggestions[0], "cycles:u");
    assert!(err("wall-time:u", &sysfs)
        .message
        .contains("takes no modifiers"));
}

#[test]
pub(super) fn a_tracepoint_without_tracefs_says_how_to_mount_it() {
    let fake = empty();
    let e = err("sched:sched_switch", &fake.sysfs());
    assert!(e.message.contains("no tracefs is mounted"), "{e}");
    assert!(
        e.message
            .contains("mount -t tracefs nodev /sys/kernel/tracing"),
        "{e}"
    );
}
