use super::*;

const HEADER: &str = "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 7\n\
    cmd:  ./bench\npart: 3\n\n\
    desc: I1 cache: 32768 B, 64 B, 8-way associative\n\
    desc: Timerange: Basic block 0 - 64235\n\
    desc: Trigger: Client Request: perfbench-2\n\npositions: line\n\
    events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\n";

fn file(summary: &str, tail: &str) -> String {
    format!("{HEADER}summary: {summary}\n\n\nfn=(1) main\n0 5 1\n{tail}")
}

#[test]
fn reads_the_header_and_fills_trailing_zeros() {
    let d = Dump::parse(&file("517 5 5 1 0 0 1 0 0 101 9", "totals: 508 2\n")).unwrap();
    assert_eq!(d.creator.as_deref(), Some("callgrind-3.19.0"));
    assert_eq!(d.part, Some(3));
    assert_eq!(d.trigger.as_deref(), Some("perfbench-2"));
    assert_eq!(d.get("Ir"), 517);
    assert_eq!(d.get("Bc"), 101);
    assert_eq!(d.get("Bcm"), 9);
    assert_eq!(d.get("Bim"), 0);
    assert_eq!(d.summary.len(), EVENTS.len());
    assert_eq!(counter("branches").unwrap().value(&d), 101.0);
    assert_eq!(counter("branch-misses").unwrap().value(&d), 9.0);
    // 517 + 5 + 5 + 4 x (1 + 0 + 0) + 30 x (1 + 0 + 0)
    assert_eq!(counter("estimated-cycles").unwrap().value(&d), 561.0);
}

#[test]
fn bad_files_are_clear_errors() {
    let cases: &[(String, &str)] = &[
        (String::new(), "empty"),
        ("  \n\n".to_owned(), "empty"),
        (
            file("1 2 3", "totals: 1\n").replace("version: 1", "version: 2"),
            "format version \"2\"",
        ),
        (
            file("1 2 3", "totals: 1\n").replace("creator: callgrind", "creator: cachegrind"),
            "not by Callgrind",
        ),
        (file("1 2 3", ""), "truncated"),
        (HEADER.to_owned(), "no `summary:`"),
        (
            file("1 2 3", "totals: 1\n").replace(" Bi Bim", ""),
            "unexpected events",
        ),
        (
            file("1 2 3", "totals: 1\n").replace("Bim", "Bim sysTime"),
            "unexpected events",
        ),
        (
            file("1 2 3", "totals: 1\n").replace("Bi Bim", "Bi Bim Ir"),
            "unexpected events",
        ),
        (file("1 x 3", "totals: 1\n"), "`x` is not a count"),
        (file("1 -2 3", "totals: 1\n"), "`-2` is not a count"),
        (
            file("1 2 3 4 5 6 7 8 9 10 11 12 13 14", "totals: 1\n"),
            "14 values for 13 events",
        ),
        (
            "version: 1\nsummary: 5\ntotals: 5\n".to_owned(),
            "no `events:`",
        ),
    ];
    for (text, wanted) in cases {
        let e = Dump::parse(text).unwrap_err().to_string();
        assert!(e.contains(wanted), "{text:?}: {e}");
    }
}

#[test]
fn valgrind_versions_are_checked() {
    assert_eq!(check_version("valgrind-3.19.0").unwrap(), "3.19.0");
    assert_eq!(check_version("valgrind-3.22.0.GIT").unwrap(), "3.22.0.GIT");
    assert_eq!(check_version("valgrind-4.0").unwrap(), "4.0");
    let old = check_version("valgrind-3.15.0").unwrap_err();
    assert!(
        old.contains("3.15.0 is too old") && old.contains("apt-get"),
        "{old}"
    );
    assert!(check_version("")
        .unwrap_err()
        .contains("not a Valgrind version"));
    assert!(check_version("bash: command not found")
        .unwrap_err()
        .contains("not a Valgrind version"));
}

#[test]
fn every_counter_names_known_events() {
    for c in COUNTERS {
        assert!(!c.terms.is_empty(), "{}", c.name);
        for (event, _) in c.terms {
            assert!(EVENTS.contains(event), "{}: {event}", c.name);
        }
    }
}

#[test]
fn requests_are_no_ops_outside_valgrind() {
    // The test runner is not under Valgrind: the requests answer 0 and do nothing.
    assert!(!running_on_valgrind());
    toggle_collect();
    toggle_collect();
    zero_stats();
    dump_stats_at(c"perfbench-test");
}
