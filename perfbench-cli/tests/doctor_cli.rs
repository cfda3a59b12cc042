//! `perfbench doctor` and `perfbench list` as a user runs them, as root and as `nobody`.

use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_perfbench");

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("run perfbench")
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn has_cpu_pmu() -> bool {
    !perfbench::events::Sysfs::system().core_pmus().is_empty()
}

/// Runs the tool as `nobody` through `setpriv` when this test runs as root; `None` otherwise
/// (an unprivileged test run is already the non-root case).
fn run_as_nobody(args: &[&str]) -> Option<Output> {
    if perfbench::sys::geteuid() != 0 {
        return None;
    }
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("setpriv (util-linux) is needed to test the unprivileged path as root");
    // The build tree may sit below a directory `nobody` cannot enter (CI clones anywhere):
    // run a world-readable copy.
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("perfbench-doctor-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let copy = dir.join("perfbench");
    std::fs::copy(BIN, &copy).unwrap();
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&copy)
        .args(args)
        .output()
        .expect("run perfbench as nobody");
    let _ = std::fs::remove_dir_all(&dir);
    Some(out)
}

fn check_doctor_output(out: &Output, privileged: bool) {
    assert!(out.status.success(), "doctor exits 0: {out:?}");
    let s = text(out);
    for counter in [
        "instructions",
        "cycles",
        "task-clock",
        "page-faults",
        "wall-time",
    ] {
        assert!(s.contains(counter), "doctor lists {counter}:\n{s}");
    }
    assert!(s.contains("wall-time          yes  via clock"), "{s}");
    // Whether --simulate works here, by whether Valgrind is on PATH.
    let valgrind = std::process::Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let simulation = if valgrind {
        "callgrind            yes  Valgrind "
    } else {
        "callgrind            no   Valgrind is not on PATH"
    };
    assert!(s.contains(simulation), "{s}");
    // Profile mode: cpu-clock samples in any VM; branch stacks need a PMU with a branch
    // record, and without a PMU the line says so.
    assert!(
        s.contains("\nprofiling (--profile, feature `profile`)\n"),
        "{s}"
    );
    assert!(s.contains("  cpu-clock sampling   yes  "), "{s}");
    let no_pmu = std::fs::read_dir("/sys/bus/event_source/devices")
        .map(|d| {
            !d.flatten().any(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                n == "cpu" || n.starts_with("cpu_") || n.starts_with("armv8")
            })
        })
        .unwrap_or(true);
    if no_pmu {
        assert!(
            s.contains("  branch stacks        no   no CPU PMU here, so no branch record (LBR on x86, BRBE on arm64)"),
            "{s}"
        );
    } else {
        assert!(s.contains("  branch stacks        "), "{s}");
    }
    assert!(s.contains("task-clock         yes  via read"), "{s}");
    let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .unwrap()
        .trim()
        .to_owned();
    assert!(
        s.contains(&format!("perf_event_paranoid  {paranoid}")),
        "{s}"
    );
    if privileged {
        assert!(s.contains("(root)"), "{s}");
    } else {
        assert!(s.contains("(unprivileged)"), "{s}");
    }
    if has_cpu_pmu() {
        assert!(!s.contains("no hardware counters here"), "{s}");
    } else {
        // The exact truth about a machine without a PMU: hardware counters fail, and the reason
        // names the missing PMU, whatever errno the kernel chose for this user.
        assert!(s.contains("CPU PMU              none"), "{s}");
        assert!(
            s.contains("instructions       no   ENOENT: no hardware PMU")
                || s.contains("instructions       no   EACCES"),
            "{s}"
        );
        assert!(s.contains("no hardware PMU"), "{s}");
        assert!(s.contains("no hardware counters here"), "{s}");
    }
}

#[test]
fn doctor_as_the_current_user() {
    let out = run(&["doctor"]);
    check_doctor_output(&out, perfbench::sys::geteuid() == 0);
}

#[test]
fn doctor_as_nobody() {
    match run_as_nobody(&["doctor"]) {
        Some(out) => check_doctor_output(&out, false),
        None => check_doctor_output(&run(&["doctor"]), false),
    }
}

#[test]
fn doctor_with_chosen_counters() {
    let out = run(&["doctor", "--counters", "page-faults,wall-time"]);
    assert!(out.status.success());
    let s = text(&out);
    assert!(
        s.contains("page-faults") && !s.contains("instructions"),
        "{s}"
    );
}

#[test]
fn unknown_counter_is_a_usage_error_with_suggestions() {
    let out = run(&["doctor", "--counters", "instrucions"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("instrucions"), "{err}");
    assert!(
        err.contains("instructions"),
        "suggests the right name: {err}"
    );
}

#[test]
fn unknown_subcommand_is_a_usage_error() {
    let out = run(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn list_shows_software_events_and_explains_missing_hardware() {
    let out = run(&["list"]);
    assert!(out.status.success());
    let s = text(&out);
    for name in ["task-clock", "page-faults", "context-switches", "wall-time"] {
        assert!(s.lines().any(|l| l == name), "list has {name}:\n{s}");
    }
    let err = String::from_utf8_lossy(&out.stderr);
    if has_cpu_pmu() {
        assert!(s.lines().any(|l| l == "instructions"));
    } else {
        assert!(!s.lines().any(|l| l == "instructions"), "{s}");
        assert!(err.contains("no CPU PMU"), "{err}");
        let all = text(&run(&["list", "--all"]));
        assert!(all.lines().any(|l| l == "instructions"));
        assert!(all.lines().any(|l| l == "L1-dcache-load-misses"));
    }
}
