use super::*;

#[test]
fn a_protocol_mismatch_names_the_one_command_that_fixes_it() {
    let mut builds = Builds {
        base: "target/perfbench/baselines/main/quickstart.exe".into(),
        new: "target/release/deps/quickstart-0123".into(),
        base_name: "main".into(),
        write_latest: true,
        suite: Some("quickstart".into()),
    };
    let fix = protocol_fix(&builds);
    assert!(
        fix.ends_with("`cargo bench --bench quickstart -- --save-baseline main`"),
        "{fix}"
    );
    assert!(fix.contains(env!("CARGO_PKG_VERSION")), "{fix}");
    // `perfbench ab`: two executables, rebuilt.
    builds.write_latest = false;
    builds.suite = None;
    assert!(protocol_fix(&builds).contains("rebuild both executables"));
}

fn counter(rounds: &[&[f64]]) -> CounterResult {
    CounterResult {
        name: "wall-time".into(),
        unit: "ns".into(),
        source: perfbench::counters::Source::Clock,
        multiplexed: false,
        per_iteration: rounds.concat(),
        iterations: vec![100; rounds.iter().map(|r| r.len()).sum()],
        rounds: rounds.iter().map(|r| r.len() as u32).collect(),
        overhead: 0.0,
        estimate: None,
        change: None,
    }
}

#[test]
fn the_null_control_refuses_when_the_build_differs_from_itself() {
    let settings = stats::CompareConfig::for_counter("wall-time");
    let steady: Vec<f64> = (0..5).map(|i| 100.0 + f64::from(i % 2) * 0.1).collect();
    let slower: Vec<f64> = steady.iter().map(|x| x * 1.2).collect();
    let new = counter(&[steady.as_slice(); 5]);
    // The second copy measured alike: no objection.
    assert_eq!(
        null_refusal(&new, &counter(&[steady.as_slice(); 5]), &settings),
        None
    );
    // The second copy 20% slower in the same run: the machine cannot judge now.
    let refused = null_refusal(&new, &counter(&[slower.as_slice(); 5]), &settings);
    let ratio = refused.expect("refused").expect("a ratio");
    assert!((ratio - 1.2).abs() < 1e-9, "{ratio}");
}

#[test]
fn rounds_merge_in_order() {
    let mut all = Vec::new();
    merge(&mut all, vec![counter(&[&[1.0, 2.0]])]);
    merge(&mut all, vec![counter(&[&[3.0]])]);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].per_iteration, vec![1.0, 2.0, 3.0]);
    assert_eq!(all[0].rounds, vec![2, 1]);
    assert_eq!(all[0].iterations.len(), 3);
}

#[test]
fn failures_are_read_from_answers() {
    let read = |line: &str| Answer::decode(line).unwrap();
    assert_eq!(failure(&read(r#"{"ready": 3.0}"#)), None);
    assert_eq!(
        failure(&read(r#"{"error": "boom", "outcome": "panicked"}"#)),
        Some((Outcome::Panicked, "boom".to_owned()))
    );
    assert_eq!(
        failure(&read(r#"{"error": "x", "outcome": "failed"}"#)),
        Some((Outcome::Failed, "x".to_owned()))
    );
    // An error without its outcome is not an answer of this protocol.
    assert!(Answer::decode(r#"{"error": "x"}"#).is_err());
}
