//! The GitHub Actions recipe of `docs/ci.md`, run for real.
//!
//! The workflow's steps marked `# e2e: baseline` and `# e2e: pull-request` are taken from the
//! document and run verbatim, each with `bash -e -o pipefail -c` as GitHub runs a `run:` step,
//! in a throwaway downstream crate that depends on this checkout's `perfbench`: the baseline
//! steps on its "main" version, then the pull-request steps on that same version (nothing
//! changed: the job must pass) and on a "branch" version whose `changed` benchmark does five
//! times the work (the job summary must mark it regressed and leave `unchanged` alone, and the
//! gate must fail the job with exit status 1). What the skipped `uses:` steps would do is done
//! here: the cache save and restore copy the directory their `path:` names; the toolchain is
//! this one; the `cargo install perfbench-cli` step is replaced by this checkout's tool on `PATH`.
//!
//! Robustness on a shared 2-core VM (this one runs other jobs' builds next to the tests):
//! - The slowdown is 5x, far beyond the 25% wall-time threshold and any drift of the machine.
//! - The throwaway benchmarks measure wall-time, task-clock and page-faults on every machine
//!   (the defaults depend on the PMU). Context switches, which count the neighbours' load (an
//!   unchanged benchmark's rate moved between 0.03x and 4.5x from run to run here), are left
//!   out: `compare` does not judge them by default, but nothing here needs them.
//! - The steps run at the highest priority the test may set (`nice -n -20`, as root): a
//!   GitHub-hosted runner runs nothing else, and at normal priority here the same code's wall
//!   time moved by +52% from a run on a quiet machine to one next to a neighbour's build.
//! - The doc's gate takes no extra flags (no `--noise-threshold` to widen for the test), so a
//!   verdict that noise can explain (a false alarm without a change, or `unchanged` flagged next
//!   to the slowdown) retries the whole scenario, baseline included, up to 3 times; one that it
//!   cannot explain (the slowdown not flagged, a step erroring, a missing summary) fails at once.
//!
//! The crate's `target` is `target/ci-workflow` of this workspace (a symlink, and
//! `CARGO_TARGET_DIR`), the same path in every run so that builds are incremental after the
//! first, which compiles perfbench's dependencies in the bench profile. (A target directory per
//! run would rebuild them all: their dep-info records the build scripts' `OUT_DIR` paths.) A lock
//! file there serialises test processes, which would otherwise overwrite each other's bench
//! binary and reports.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

// The tool and `PATH` only: the rest is for the tests that share their crate's builds.
#[allow(dead_code)]
mod throwaway;

const WORKSPACE: &str = env!("CARGO_MANIFEST_DIR");
const BASELINE: &str = "baseline";
const PULL_REQUEST: &str = "pull-request";
const ATTEMPTS: usize = 3;

/// One step of a workflow job, as far as this test needs it.
#[derive(Clone, Debug, Default)]
struct Step {
    job: String,
    /// From a `# e2e: STAGE` comment right before the step.
    stage: Option<String>,
    name: Option<String>,
    uses: Option<String>,
    run: Option<String>,
    /// The `with:` inputs of an action.
    with: Vec<(String, String)>,
    /// The step's first line in docs/ci.md, for messages.
    line: usize,
}

impl Step {
    fn label(&self) -> String {
        let what = self.name.as_deref().or(self.uses.as_deref()).unwrap_or("?");
        format!(
            "job `{}`, step `{what}` (docs/ci.md:{})",
            self.job, self.line
        )
    }

    fn input(&self, key: &str) -> Option<&str> {
        self.with
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// A plain scalar's value, without a trailing ` # comment`.
fn plain(value: &str) -> String {
    value.split(" #").next().unwrap_or("").trim().to_owned()
}

/// The steps of every job of a workflow, in order. A small reader for the shapes the guide uses
/// (block `run: |` scalars, plain scalars, `with:` maps), which panics on anything else in a step.
fn parse_steps(yaml: &str, first_line: usize) -> Vec<Step> {
    let lines: Vec<&str> = yaml.lines().collect();
    let mut steps = Vec::new();
    let mut top = "";
    let mut job = String::new();
    let mut steps_indent: Option<usize> = None;
    let mut stage: Option<(String, usize)> = None;
    let mut i = 0;
    while i < lines.len() {
        let (t, ind) = (lines[i].trim(), indent(lines[i]));
        let here = first_line + i;
        if t.is_empty() {
            i += 1;
            continue;
        }
        if let Some(s) = t.strip_prefix("# e2e:") {
            assert!(stage.is_none(), "docs/ci.md:{here}: two `# e2e:` comments");
            stage = Some((s.trim().to_owned(), here));
            i += 1;
            continue;
        }
        if t.starts_with('#') {
            i += 1;
            continue;
        }
        let item = steps_indent
            .filter(|&si| ind >= si)
            .and_then(|_| t.strip_prefix("- "));
        match item {
            Some(rest) => {
                // A step: its keys sit two columns right of the dash, the first on this line.
                let key_indent = ind + 2;
                let mut body = vec![format!("{}{rest}", " ".repeat(key_indent))];
                let mut j = i + 1;
                while j < lines.len()
                    && (lines[j].trim().is_empty() || indent(lines[j]) >= key_indent)
                {
                    body.push(lines[j].to_owned());
                    j += 1;
                }
                let mut step = Step {
                    job: job.clone(),
                    stage: stage.take().map(|(s, _)| s),
                    line: here,
                    ..Step::default()
                };
                parse_step(&body, key_indent, &mut step);
                steps.push(step);
                i = j;
                continue;
            }
            None => {
                if let Some((s, at)) = &stage {
                    panic!("docs/ci.md:{at}: `# e2e: {s}` is not followed by a step");
                }
            }
        }
        if ind == 0 {
            top = t;
            steps_indent = None;
        } else if top == "jobs:" && ind == 2 && t.ends_with(':') {
            job = t.trim_end_matches(':').to_owned();
            steps_indent = None;
        } else if t == "steps:" {
            steps_indent = Some(ind);
        }
        i += 1;
    }
    steps
}

/// Fills `step` from its lines (the dash replaced by a space); keys sit at `key_indent`.
fn parse_step(body: &[String], key_indent: usize, step: &mut Step) {
    let mut k = 0;
    while k < body.len() {
        let l = &body[k];
        k += 1;
        if l.trim().is_empty() || l.trim().starts_with('#') || indent(l) != key_indent {
            continue;
        }
        let (key, value) = l
            .trim()
            .split_once(':')
            .map(|(a, b)| (a.trim(), b.trim()))
            .unwrap_or_else(|| panic!("docs/ci.md:{}: not a `key: value` line: {l}", step.line));
        // The lines nested under this key.
        let nested: Vec<&String> = body[k..]
            .iter()
            .take_while(|n| n.trim().is_empty() || indent(n) > key_indent)
            .collect();
        match key {
            "name" => step.name = Some(plain(value)),
            "uses" => step.uses = Some(plain(value)),
            "run" if value == "|" => {
                let margin = nested
                    .iter()
                    .find(|n| !n.trim().is_empty())
                    .map(|n| indent(n))
                    .unwrap_or_else(|| panic!("docs/ci.md:{}: empty `run: |`", step.line));
                let script: Vec<&str> = nested
                    .iter()
                    .map(|n| n.get(margin..).unwrap_or(""))
                    .collect();
                step.run = Some(script.join("\n").trim_end().to_owned() + "\n");
            }
            "run" => {
                assert!(
                    !value.is_empty() && !value.starts_with(['|', '>', '"', '\'']),
                    "docs/ci.md:{}: write `run:` as a plain line or a `|` block",
                    step.line
                );
                step.run = Some(format!("{value}\n"));
            }
            "with" => {
                for n in nested.iter().filter(|n| !n.trim().is_empty()) {
                    let (a, b) = n.trim().split_once(':').unwrap_or_else(|| {
                        panic!("docs/ci.md:{}: not a `key: value` input: {n}", step.line)
                    });
                    step.with.push((a.trim().to_owned(), plain(b)));
                }
            }
            _ => {}
        }
        k += nested.len();
    }
}

/// What the test takes from the guide's workflow.
struct Workflow {
    baseline: Vec<Step>,
    pull_request: Vec<Step>,
    /// The `path:` that `actions/cache/save` stores and `actions/cache/restore` brings back.
    cache_path: String,
}

fn workflow() -> Workflow {
    let doc = fs::read_to_string(Path::new(WORKSPACE).join("docs/ci.md")).unwrap();
    let start = doc
        .find("```yaml\n")
        .expect("docs/ci.md has a ```yaml block")
        + "```yaml\n".len();
    let len = doc[start..].find("```").expect("the ```yaml block ends");
    let first_line = doc[..start].lines().count() + 1;
    let steps = parse_steps(&doc[start..start + len], first_line);

    for s in &steps {
        match s.stage.as_deref() {
            Some(BASELINE | PULL_REQUEST) => {
                assert!(
                    s.uses.is_none(),
                    "{}: a marked step must be a `run:` step",
                    s.label()
                );
                let run = s
                    .run
                    .as_deref()
                    .unwrap_or_else(|| panic!("{}: no `run:`", s.label()));
                assert!(
                    !run.contains("${{"),
                    "{}: an expression bash cannot run",
                    s.label()
                );
            }
            Some(other) => panic!("{}: unknown stage `# e2e: {other}`", s.label()),
            // Every other `run:` step must be the tool's installation, which this test replaces:
            // a new step the test would silently skip must be marked or handled here.
            None => {
                if let Some(run) = &s.run {
                    assert!(
                        run.trim_start().starts_with("cargo install perfbench"),
                        "{}: an unmarked `run:` step; mark it `# e2e: ...` or teach \
                         tests/ci_workflow.rs about it",
                        s.label()
                    );
                }
            }
        }
    }
    let staged = |stage: &str| -> Vec<&Step> {
        steps
            .iter()
            .filter(|s| s.stage.as_deref() == Some(stage))
            .collect()
    };
    let (base, pr) = (staged(BASELINE), staged(PULL_REQUEST));
    assert!(!base.is_empty() && !pr.is_empty(), "no `# e2e:` steps");
    let job_of = |group: &[&Step]| -> String {
        let job = group[0].job.clone();
        assert!(group.iter().all(|s| s.job == job), "marked steps span jobs");
        job
    };
    let (base_job, pr_job) = (job_of(&base), job_of(&pr));
    assert_ne!(base_job, pr_job);

    let position = |s: &Step| steps.iter().position(|x| std::ptr::eq(x, s)).unwrap();
    let action = |job: &str, prefix: &str| -> &Step {
        steps
            .iter()
            .find(|s| s.job == job && s.uses.as_deref().is_some_and(|u| u.starts_with(prefix)))
            .unwrap_or_else(|| panic!("job `{job}` has no `{prefix}` step"))
    };
    let save = action(&base_job, "actions/cache/save@");
    let restore = action(&pr_job, "actions/cache/restore@");
    assert!(
        position(save) > position(base[base.len() - 1]),
        "the cache is saved too early"
    );
    assert!(
        position(restore) < position(pr[0]),
        "the cache is restored too late"
    );
    let cache_path = save.input("path").expect("the cache save has a `path:`");
    assert_eq!(
        Some(cache_path),
        restore.input("path"),
        "save and restore paths differ"
    );
    let cache_path = cache_path.to_owned();

    let owned = |group: Vec<&Step>| -> Vec<Step> { group.into_iter().cloned().collect() };
    Workflow {
        baseline: owned(base),
        pull_request: owned(pr),
        cache_path,
    }
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.env("CARGO_TERM_COLOR", "never");
    c
}

/// The workspace's target directory (the parent of `CARGO_TARGET_TMPDIR`).
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

const MAIN_ROUNDS: u64 = 10_000;
const BRANCH_ROUNDS: u64 = 5 * MAIN_ROUNDS;

/// The throwaway crate's one bench target; ROUNDS is what the pull request changes.
const BENCH: &str = r#"//! Written by perfbench-suites' tests/ci_workflow.rs.
use perfbench::{black_box, perfbench};

const ROUNDS: u64 = @ROUNDS@;

fn mix(rounds: u64) -> u64 {
    let mut x = 0u64;
    for i in 0..rounds {
        x = black_box(x.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i));
    }
    x
}

// The same counters on every machine, whatever its PMU.
#[perfbench(counters = ["wall-time", "task-clock", "page-faults"])]
fn changed() -> u64 {
    mix(black_box(ROUNDS))
}

#[perfbench(counters = ["wall-time", "task-clock", "page-faults"])]
fn unchanged() -> u64 {
    mix(black_box(@MAIN_ROUNDS@))
}

perfbench::main!();
"#;

/// The throwaway downstream crate and the runner around it.
struct Downstream {
    /// `<temp>/perfbench-ci-workflow-<pid>`: the crate, the cache and the summaries.
    root: PathBuf,
    dir: PathBuf,
    /// The crate's target directory, shared across runs.
    target: PathBuf,
    /// `PATH` with the perfbench tool first.
    path: std::ffi::OsString,
    /// Whether `nice -n -20` is allowed here.
    nice: bool,
    jobs: usize,
}

impl Downstream {
    fn create(tool_dir: &Path, target: &Path) -> Downstream {
        let root =
            std::env::temp_dir().join(format!("perfbench-ci-workflow-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let dir = root.join("ci-demo");
        fs::create_dir_all(dir.join("benches")).unwrap();
        let perfbench = Path::new(WORKSPACE).join("perfbench");
        fs::write(
            dir.join("Cargo.toml"),
            format!(
                "[package]\nname = \"ci-demo\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
                 publish = false\n\n[dev-dependencies]\nperfbench = {{ path = {:?} }}\n\n\
                 [[bench]]\nname = \"ci_demo\"\nharness = false\n\n\
                 # Its own workspace, never a member of one around the temp dir.\n\
                 [workspace]\n",
                perfbench.display().to_string()
            ),
        )
        .unwrap();
        // The workspace's versions of every dependency, and no registry access.
        fs::copy(
            Path::new(WORKSPACE).join("Cargo.lock"),
            dir.join("Cargo.lock"),
        )
        .unwrap();
        // `target/perfbench` of the steps is where the bench binary writes: $CARGO_TARGET_DIR.
        std::os::unix::fs::symlink(target, dir.join("target")).unwrap();
        let path = throwaway::path_with(tool_dir);
        let nice = Command::new("nice")
            .args(["-n", "-20", "true"])
            .output()
            .is_ok_and(|o| o.status.success() && o.stderr.is_empty());
        Downstream {
            root,
            dir,
            target: target.to_path_buf(),
            path,
            nice,
            jobs: 0,
        }
    }

    fn set_rounds(&self, rounds: u64) {
        let source = BENCH
            .replace("@ROUNDS@", &rounds.to_string())
            .replace("@MAIN_ROUNDS@", &MAIN_ROUNDS.to_string());
        fs::write(self.dir.join("benches/ci_demo.rs"), source).unwrap();
    }

    fn env(&self, c: &mut Command) {
        c.current_dir(&self.dir)
            .env("PATH", &self.path)
            .env("CARGO_TARGET_DIR", &self.target)
            .env("CARGO_TERM_COLOR", "never")
            .env("CARGO_NET_OFFLINE", "true");
    }

    /// A fresh runner's `target/perfbench`: empty, or the restored cache.
    fn reset_reports(&self, cache_path: &str, restore: bool) {
        let _ = fs::remove_dir_all(self.target.join("perfbench"));
        if restore {
            copy_dir(&self.root.join("cache"), &self.dir.join(cache_path));
        }
    }

    /// Runs `steps` in order as a GitHub job does, each with bash, until one fails.
    fn job(&mut self, what: &str, steps: &[Step]) -> JobResult {
        self.jobs += 1;
        let summary = self.root.join(format!("summary-{}.md", self.jobs));
        fs::write(&summary, "").unwrap();
        let started = Instant::now();
        let mut log = String::new();
        let mut failed = None;
        for (i, step) in steps.iter().enumerate() {
            let mut c = if self.nice {
                let mut c = Command::new("nice");
                c.args(["-n", "-20", "bash"]);
                c
            } else {
                Command::new("bash")
            };
            c.args(["--noprofile", "--norc", "-e", "-o", "pipefail", "-c"])
                .arg(step.run.as_deref().unwrap())
                .env("GITHUB_STEP_SUMMARY", &summary);
            self.env(&mut c);
            let out = c.output().unwrap();
            log.push_str(&format!(
                "--- {} ({})\n{}{}",
                step.label(),
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
            if !out.status.success() {
                failed = Some((i, out.status.code().unwrap_or(-1)));
                break;
            }
        }
        eprintln!(
            "{what}: {:.1} s, {}",
            started.elapsed().as_secs_f64(),
            match failed {
                None => "passed".to_owned(),
                Some((i, code)) => format!("failed at step {} with {code}", i + 1),
            }
        );
        JobResult {
            failed,
            last_step: steps.len() - 1,
            summary: fs::read_to_string(&summary).unwrap(),
            log,
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            fs::copy(entry.path(), dest).unwrap();
        }
    }
}

struct JobResult {
    /// The failing step's index and exit status.
    failed: Option<(usize, i32)>,
    last_step: usize,
    summary: String,
    log: String,
}

impl JobResult {
    fn details(&self) -> String {
        format!("job summary:\n{}\nlog:\n{}", self.summary, self.log)
    }
}

/// `(benchmark, counter) -> verdict` for every row of the comparison's Markdown tables.
fn verdicts(markdown: &str) -> Vec<(String, String, String)> {
    markdown
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            (
                cells[0].trim_matches('`').to_owned(),
                cells[1].to_owned(),
                cells[cells.len() - 1].to_owned(),
            )
        })
        .collect()
}

fn verdict<'a>(
    rows: &'a [(String, String, String)],
    bench: &str,
    counter: &str,
) -> Option<&'a str> {
    rows.iter()
        .find(|(b, c, _)| b == bench && c == counter)
        .map(|(_, _, v)| v.as_str())
}

/// One run of the whole scenario. `Err` is an outcome the machine's noise can explain.
fn scenario(w: &Workflow, d: &mut Downstream) -> Result<(), String> {
    // Push to main: the baseline job, then actions/cache/save.
    d.set_rounds(MAIN_ROUNDS);
    d.reset_reports(&w.cache_path, false);
    let job = d.job("baseline job on main", &w.baseline);
    assert_eq!(
        job.failed,
        None,
        "the baseline job failed\n{}",
        job.details()
    );
    let saved = d.dir.join(&w.cache_path);
    assert!(
        saved.join("ci_demo.json").is_file(),
        "no ci_demo.json in {}",
        saved.display()
    );
    // The guide's five runs of one build, kept in the one baseline, and the fresh process the
    // first save added (a baseline is never saved from one process alone).
    let baseline = perfbench_analysis::model::json::from_json(
        &fs::read_to_string(saved.join("ci_demo.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(baseline.runs(), 6, "the baseline's runs\n{}", job.details());
    let _ = fs::remove_dir_all(d.root.join("cache"));
    copy_dir(&saved, &d.root.join("cache"));

    // A pull request that changes nothing: the job passes.
    d.reset_reports(&w.cache_path, true);
    let job = d.job("pull-request job, no change", &w.pull_request);
    assert!(
        job.summary.contains("### perfbench:"),
        "no comparison in the job summary\n{}",
        job.details()
    );
    match job.failed {
        None => assert!(
            job.summary.contains(":white_check_mark: no regression"),
            "the job passed but the summary says otherwise\n{}",
            job.details()
        ),
        Some((i, 1)) if i == job.last_step => {
            return Err(format!("a false alarm without a change\n{}", job.details()))
        }
        Some(_) => panic!(
            "the pull-request job errored without a change\n{}",
            job.details()
        ),
    }

    // A pull request that makes `changed` 5x slower: the summary says so, the gate fails the job.
    d.set_rounds(BRANCH_ROUNDS);
    d.reset_reports(&w.cache_path, true);
    let job = d.job("pull-request job, 5x slowdown", &w.pull_request);
    assert_eq!(
        job.failed,
        Some((job.last_step, 1)),
        "the gate (the last step) must fail the job with 1, after the others passed\n{}",
        job.details()
    );
    assert!(
        job.summary.contains("### perfbench: :x:"),
        "the job summary does not report the regression\n{}",
        job.details()
    );
    let rows = verdicts(&job.summary);
    assert_eq!(
        verdict(&rows, "ci_demo/changed", "wall-time"),
        Some("**regressed**"),
        "the 5x slowdown is not marked regressed\n{}",
        job.details()
    );
    // task-clock is left out where perf events cannot open; where it is measured, it regressed.
    assert!(
        matches!(
            verdict(&rows, "ci_demo/changed", "task-clock"),
            None | Some("**regressed**")
        ),
        "task-clock of the 5x slowdown\n{}",
        job.details()
    );
    assert!(
        verdict(&rows, "ci_demo/unchanged", "wall-time").is_some(),
        "no row for the unchanged benchmark\n{}",
        job.details()
    );
    if rows
        .iter()
        .any(|(b, _, v)| b == "ci_demo/unchanged" && v == "**regressed**")
    {
        return Err(format!(
            "the unchanged benchmark was flagged\n{}",
            job.details()
        ));
    }
    Ok(())
}

#[test]
fn the_ci_guide_gates_a_pull_request_on_a_regression() {
    let w = workflow();
    let shared = target_dir().join("ci-workflow");
    fs::create_dir_all(&shared).unwrap();
    // perfbench's own suite lock (a `flock` on `shared/.ci-workflow.lock`).
    let _lock = perfbench_analysis::baseline::Store::new(&shared)
        .lock("ci-workflow", |_| {})
        .unwrap();

    let started = Instant::now();
    let tool = throwaway::perfbench_tool_dir();
    eprintln!("perfbench tool: {:.1} s", started.elapsed().as_secs_f64());

    let mut d = Downstream::create(&tool, &shared);
    if !d.nice {
        eprintln!("note: `nice -n -20` is not allowed here; the steps run at normal priority");
    }
    // Compile perfbench and its dependencies at normal priority, outside the measured steps.
    d.set_rounds(MAIN_ROUNDS);
    let started = Instant::now();
    let mut c = cargo();
    d.env(&mut c);
    let out = c.args(["bench", "--no-run"]).output().unwrap();
    assert!(
        out.status.success(),
        "building the throwaway crate failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "throwaway crate build: {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let mut noise = Vec::new();
    for attempt in 1..=ATTEMPTS {
        match scenario(&w, &mut d) {
            Ok(()) => {
                let _ = fs::remove_dir_all(&d.root);
                return;
            }
            Err(why) => {
                eprintln!("attempt {attempt}: {}", why.lines().next().unwrap_or(""));
                noise.push(why);
            }
        }
    }
    panic!(
        "{ATTEMPTS} attempts, each with an outcome noise could explain (files kept in {}):\n\n{}",
        d.root.display(),
        noise.join("\n\n")
    );
}
