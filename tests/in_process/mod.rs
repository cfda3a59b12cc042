//! A suite registered in the calling test binary, run in process as its benchmark binary runs
//! it (real command lines), with its output in a scratch directory, and its report read back.
//! For test binaries of one `#[test]`: [`Suite::new`] sets `CARGO_TARGET_DIR` for the process.

use std::path::PathBuf;
use std::process::ExitCode;

use perfbench::runner::{self, cli};
use perfbench_analysis::model::json::from_json;
use perfbench_analysis::model::{Benchmark, CounterResult, Report};

/// The suite `name` of this test binary, writing under a scratch directory removed on drop.
pub struct Suite {
    name: &'static str,
    out: PathBuf,
}

impl Suite {
    /// Points `CARGO_TARGET_DIR` at a fresh scratch directory. The binary must have one test,
    /// so that no other thread reads the environment meanwhile.
    pub fn new(name: &'static str) -> Suite {
        let out = std::env::temp_dir().join(format!("perfbench-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        std::env::set_var("CARGO_TARGET_DIR", &out);
        Suite { name, out }
    }

    /// Runs the suite with `args` as its benchmark binary would be run.
    pub fn run(&self, args: &[&str]) -> ExitCode {
        let parsed = cli::parse(
            self.name,
            std::iter::once(self.name).chain(args.iter().copied()),
        )
        .expect("valid command line");
        runner::run(self.name, &parsed)
    }

    /// Measures every benchmark (`--bench`), which must succeed, and reads the report.
    pub fn measure(&self) -> Report {
        let json = self.out.join(format!("{}-measured.json", self.name));
        assert_eq!(
            self.run(&["--bench", "--json", json.to_str().unwrap()]),
            ExitCode::SUCCESS
        );
        read(&json)
    }

    /// The report of the latest run (`target/perfbench/<suite>.json`).
    pub fn latest(&self) -> Report {
        read(&self.out.join(format!("perfbench/{}.json", self.name)))
    }
}

impl Drop for Suite {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.out);
    }
}

fn read(path: &PathBuf) -> Report {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("report {}: {e}", path.display()));
    from_json(&text).expect("report parses")
}

/// Checks that every sample of `counter` of `b` read exactly `expected` per iteration (and that
/// there are samples); returns the counter.
pub fn exact<'b>(b: &'b Benchmark, counter: &str, expected: f64) -> &'b CounterResult {
    let c = b
        .counter(counter)
        .unwrap_or_else(|| panic!("{}: {counter} measured", b.id));
    assert!(!c.per_iteration.is_empty(), "{}: {counter}", b.id);
    for (i, v) in c.per_iteration.iter().enumerate() {
        assert_eq!(
            *v, expected,
            "{}: {counter}, sample {i}: {:?}",
            b.id, c.per_iteration
        );
    }
    c
}
