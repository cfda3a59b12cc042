//! `--test` and `cargo test --benches`: every selected body once, as a smoke test.

use super::*;

/// `--test`: every selected body once, libtest-style lines and summary; with `--json PATH`, a
/// report of the outcomes (`tested` or `panicked`, no counters) there, and nowhere else (a smoke
/// test is not the suite's previous run).
pub(super) fn smoke_test(suite: &str, chosen: &[Job], args: &Args) -> ExitCode {
    println!("\nrunning {} benchmarks as tests", chosen.len());
    let (mut passed, mut failed_n) = (0, 0);
    let mut results = Vec::with_capacity(chosen.len());
    let mut failed = |p: &Job, outcome, message: String, results: &mut Vec<RawBenchmark>| {
        failed_n += 1;
        println!("test {} ... FAILED: {message}", p.id);
        results.push(RawBenchmark {
            error: Some(message),
            ..raw_result(p, outcome)
        });
    };
    let missing = for_each_body(chosen, &mut |p, body| {
        let mut b = Bencher::smoke_test();
        match catch_unwind(AssertUnwindSafe(|| body(&mut b))) {
            Ok(()) => {
                passed += 1;
                println!("test {} ... ok", p.id);
                results.push(RawBenchmark {
                    threads: b.threads_set(),
                    ..raw_result(p, Outcome::Tested)
                });
            }
            Err(payload) => failed(
                p,
                Outcome::Panicked,
                panic_message(payload.as_ref()),
                &mut results,
            ),
        }
    });
    for (p, why) in missing {
        failed(p, Outcome::Failed, why, &mut results);
    }
    if let Some(path) = &args.json {
        // The tool writes it (at `path`, from the command line it is given).
        if !stream::smoke_report(suite, args, chosen, &results) {
            let _ = path;
            return ExitCode::from(2);
        }
    }
    let verdict = if failed_n == 0 { "ok" } else { "FAILED" };
    println!(
        "\ntest result: {verdict}. {passed} passed; {failed_n} failed; 0 ignored; 0 measured; 0 filtered out\n"
    );
    if failed_n == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
