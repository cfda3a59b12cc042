//! Suggestions for misspelt names, and the edit distance behind them.

use super::*;

#[test]
pub(super) fn suggestions() {
    let fake = FakeSysfs::intel();
    let sysfs = fake.sysfs();
    let suggest = |name: &str| err(name, &sysfs).suggestions;
    let first = |name: &str| suggest(name).first().cloned().unwrap_or_default();
    // The generalized name first, then the PMU's own event of that name.
    assert_eq!(
        suggest("instrucions"),
        ["instructions", "cpu/instructions/"]
    );
    assert_eq!(
        suggest("intsructions"),
        ["instructions", "cpu/instructions/"]
    );
    assert_eq!(
        suggest("Instructions"),
        ["instructions", "cpu/instructions/"]
    );
    assert_eq!(suggest("cycle"), ["cycles"]);
    assert_eq!(suggest("cycle:u"), ["cycles:u"]);
    assert_eq!(
        suggest("cycles:x").len(),
        0,
        "a bad modifier is not an unknown name"
    );
    assert_eq!(first("llc-loads"), "LLC-loads");
    assert_eq!(first("l1-dcache-load-misses"), "L1-dcache-load-misses");
    assert_eq!(first("task_clock"), "task-clock");
    assert_eq!(first("mem-loads"), "cpu/mem-loads/");
    assert!(suggest("zzzzzzzz").is_empty());
    assert!(suggest("x").is_empty());
    assert!(suggest("cpu-cycles-please").len() <= MAX_SUGGESTIONS);
    let many = suggest("L1-dcache-load-miss-");
    assert!(
        !many.is_empty() && many.len() <= MAX_SUGGESTIONS,
        "{many:?}"
    );
    assert_eq!(many[0], "L1-dcache-load-misses");
}

#[test]
pub(super) fn edit_distances() {
    assert_eq!(edit_distance("", ""), 0);
    assert_eq!(edit_distance("abc", ""), 3);
    assert_eq!(edit_distance("", "abc"), 3);
    assert_eq!(edit_distance("cycle", "cycles"), 1);
    assert_eq!(edit_distance("instrucions", "instructions"), 1);
    assert_eq!(edit_distance("intsructions", "instructions"), 1);
    assert_eq!(edit_distance("kitten", "sitting"), 3);
    assert_eq!(edit_distance("ab", "ba"), 1);
    assert_eq!(edit_distance("ça", "ca"), 1);
}
