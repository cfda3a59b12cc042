//! How a criterion suite becomes perfbench benchmarks.
//!
//! criterion defines a benchmark by calling `bench_function` with a closure that borrows the
//! target function's locals, so the closure lives only while the target function runs, and
//! suites count on their group functions running once per process (a global subscriber or
//! logger set with `.expect(..)`). The two meet here:
//! - [`main`] learns the benchmarks from a child process (this binary again, with
//!   [`DISCOVER_VAR`] set), in which every group runs in discovery mode: each `bench_function`
//!   records its id and settings and runs nothing. The ids and settings come back on the
//!   child's standard output ([`Found::line`]).
//! - They are registered with perfbench's runner as a driven suite
//!   ([`perfbench::runner::register_driven`]); the runner filters, lists, and then calls
//!   [`drive`] once, which runs every group in run mode: each `bench_function` hands its
//!   closure to the runner's visitor, which measures the benchmark there and then, in all its
//!   rounds. The visitor travels through a thread-local ([`Scoped`]), as a target function
//!   takes nothing but a `Criterion`.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::io::Read;
use std::process::{Command, ExitCode, Stdio};
use std::ptr::NonNull;
use std::sync::OnceLock;
use std::time::Duration;

use perfbench::harness::entry::{Entry, Options};
use perfbench::protocol::worker::{from_hex, to_hex};
use perfbench::runner::{Job, Visit};

use crate::{Bencher, BenchmarkId, Criterion, Throughput};

/// Set in the child process [`main`] starts to learn the suite's benchmarks.
pub const DISCOVER_VAR: &str = "PERFBENCH_CRITERION_DISCOVER";

/// What begins each benchmark's line on the discovery child's standard output.
const LINE_TAG: &str = "perfbench-criterion-benchmark";

/// The settings of a `Criterion` or a group that perfbench uses; `None`: the run's default.
#[derive(Clone, Debug, Default)]
pub(crate) struct Config {
    pub(crate) sample_size: Option<u32>,
    pub(crate) warm_up_time: Option<f64>,
    pub(crate) measurement_time: Option<f64>,
    pub(crate) throughput: Option<Throughput>,
}

impl Config {
    /// These settings with those `over` sets in their place.
    pub(crate) fn overridden_by(&self, over: &Config) -> Config {
        Config {
            sample_size: over.sample_size.or(self.sample_size),
            warm_up_time: over.warm_up_time.or(self.warm_up_time),
            measurement_time: over.measurement_time.or(self.measurement_time),
            throughput: over.throughput.or(self.throughput),
        }
    }
}

/// A `sample_size` as perfbench takes it (criterion refuses fewer than 10; perfbench takes any
/// number from 1).
pub(crate) fn sample_size(n: usize) -> u32 {
    u32::try_from(n.max(1)).unwrap_or(u32::MAX)
}

/// criterion's default warm-up and measurement times, in seconds, against which a suite's
/// settings are read.
const CRITERION_WARM_UP_TIME: f64 = 3.0;
const CRITERION_MEASUREMENT_TIME: f64 = 5.0;

/// A suite's `warm_up_time` as perfbench takes it: its ratio to criterion's default, applied to
/// perfbench's. A suite's times were chosen for criterion's way of sampling (its default spends
/// 8 s on a benchmark, perfbench's 1.8 s); what they say is "this benchmark needs more (or
/// less) than the default".
pub(crate) fn warm_up_time(dur: Duration) -> f64 {
    dur.as_secs_f64() / CRITERION_WARM_UP_TIME * perfbench::runner::DEFAULT_WARM_UP_TIME
}

/// A suite's `measurement_time` as perfbench takes it, as [`warm_up_time`] does.
pub(crate) fn measurement_time(dur: Duration) -> f64 {
    dur.as_secs_f64() / CRITERION_MEASUREMENT_TIME * perfbench::runner::DEFAULT_MEASUREMENT_TIME
}

/// A benchmark's id as criterion forms it: `group/function/parameter`, each part optional but
/// one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Identity {
    group: Option<String>,
    id: BenchmarkId,
}

impl Identity {
    /// `Criterion::bench_function(id, ..)`: the id as written.
    pub(crate) fn top(id: String) -> Identity {
        Identity {
            group: None,
            id: BenchmarkId {
                function: Some(id),
                parameter: None,
            },
        }
    }

    /// A [`BenchmarkId`] in `group` (`None`: `Criterion::bench_with_input`).
    pub(crate) fn of_id(group: Option<String>, id: BenchmarkId) -> Identity {
        Identity { group, id }
    }

    /// criterion 0.3's id of a benchmark definition's routine: `group/function/parameter`, or
    /// `group` alone when it has neither (then shown as a benchmark of that name).
    pub(crate) fn of_parts(
        group: &str,
        function: Option<String>,
        parameter: Option<String>,
    ) -> Identity {
        if function.is_none() && parameter.is_none() {
            return Identity::top(group.to_owned());
        }
        Identity::of_id(
            Some(group.to_owned()),
            BenchmarkId {
                function,
                parameter,
            },
        )
    }

    /// The id criterion would give it.
    fn id(&self) -> String {
        match &self.group {
            Some(g) => format!("{g}/{}", self.id),
            None => self.id.to_string(),
        }
    }

    /// perfbench's group, name and parameters: the group (the suite's name for a benchmark
    /// defined on `Criterion` itself), the function (else the group), and the parameter.
    fn parts(&self, suite: &str) -> (String, String, Option<String>) {
        let group = self.group.clone().unwrap_or_else(|| suite.to_owned());
        let name = self.id.function.clone().unwrap_or_else(|| group.clone());
        (group, name, self.id.parameter.clone())
    }
}

/// A benchmark found in discovery: its id and the settings perfbench uses.
#[derive(Clone, Debug, PartialEq)]
struct Found {
    identity: Identity,
    sample_size: Option<u32>,
    warm_up_time: Option<f64>,
    measurement_time: Option<f64>,
    throughput: Option<perfbench::Throughput>,
}

impl Found {
    fn new(identity: Identity, config: &Config) -> Found {
        Found {
            identity,
            sample_size: config.sample_size,
            warm_up_time: config.warm_up_time,
            measurement_time: config.measurement_time,
            throughput: config.throughput.map(Throughput::to_perfbench),
        }
    }

    /// The benchmark as a line of the discovery child's output: [`LINE_TAG`] and tab-separated
    /// fields, `-` for none and `=HEX` for a value (its UTF-8 in hex, as the paired worker's
    /// requests carry text: [`to_hex`]).
    fn line(&self) -> String {
        let text = |v: Option<&str>| match v {
            Some(v) => format!("={}", to_hex(v)),
            None => "-".to_owned(),
        };
        let throughput = self.throughput.map(|t| match t {
            perfbench::Throughput::Bytes(n) => format!("bytes {n}"),
            perfbench::Throughput::Elements(n) => format!("elements {n}"),
        });
        let fields = [
            text(self.identity.group.as_deref()),
            text(self.identity.id.function.as_deref()),
            text(self.identity.id.parameter.as_deref()),
            text(self.sample_size.map(|n| n.to_string()).as_deref()),
            text(self.warm_up_time.map(|t| t.to_string()).as_deref()),
            text(self.measurement_time.map(|t| t.to_string()).as_deref()),
            text(throughput.as_deref()),
        ];
        format!("{LINE_TAG}\t{}", fields.join("\t"))
    }

    /// The benchmark of a [`Found::line`]; `None` for any other line.
    fn parse(line: &str) -> Option<Found> {
        let fields = line.strip_prefix(LINE_TAG)?.strip_prefix('\t')?;
        let fields: Vec<Option<String>> = fields
            .split('\t')
            .map(|f| match f {
                "-" => Some(None),
                f => f.strip_prefix('=').and_then(from_hex).map(Some),
            })
            .collect::<Option<_>>()?;
        let [group, function, parameter, sample_size, warm_up, measurement, throughput] =
            <[Option<String>; 7]>::try_from(fields).ok()?;
        let throughput = match throughput.as_deref().map(|t| t.split_once(' ')) {
            None => None,
            Some(Some(("bytes", n))) => Some(perfbench::Throughput::Bytes(n.parse().ok()?)),
            Some(Some(("elements", n))) => Some(perfbench::Throughput::Elements(n.parse().ok()?)),
            Some(_) => return None,
        };
        Some(Found {
            identity: Identity {
                group,
                id: BenchmarkId {
                    function,
                    parameter,
                },
            },
            sample_size: parsed(sample_size)?,
            warm_up_time: parsed(warm_up)?,
            measurement_time: parsed(measurement)?,
            throughput,
        })
    }

    /// The benchmark as perfbench's runner takes it; `k` is its index in [`FOUND`].
    fn job(&self, k: usize, suite: &str) -> Job {
        let (group, name, params) = self.identity.parts(suite);
        let options = Options {
            sample_size: self.sample_size,
            warm_up_time: self.warm_up_time,
            measurement_time: self.measurement_time,
            throughput: self.throughput,
            ..Options::DEFAULT
        };
        // Leaked: the runner takes `&'static` entries, one per benchmark, for the whole run.
        let entry: &'static Entry = Box::leak(Box::new(Entry {
            name: leak(&name),
            group: Some(leak(&group)),
            module_path: leak(suite),
            file: "",
            line: 0,
            args: &[],
            arg_names: None,
            types: &[],
            options,
            run: never_called,
        }));
        Job {
            entry,
            type_name: None,
            run: never_called,
            arg: k,
            id: self.identity.id(),
            group,
            params,
        }
    }
}

/// A field of a [`Found::line`] as a number: `Some(None)` when it has none, `None` when it is
/// not a number.
fn parsed<T: std::str::FromStr>(field: Option<String>) -> Option<Option<T>> {
    field.map(|v| v.parse()).transpose().ok()
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

/// [`Job::run`] of a driven suite's benchmark, which the runner never calls.
fn never_called(_: &mut perfbench::Bencher, k: usize) {
    unreachable!("perfbench-criterion: benchmark {k} is run through `drive`")
}

/// What `bench_function` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Outside `criterion_main!`'s main: nothing (a group function records itself).
    Idle,
    /// Records each benchmark.
    Discover,
    /// Hands each benchmark to the runner's visitor.
    Run,
}

/// The thread's state between `criterion_main!`'s main, the group and target functions and
/// `bench_function`.
struct State {
    mode: Mode,
    found: Vec<Found>,
    /// Groups a hand-written `main` called, to run at `final_summary`.
    recorded: Vec<fn()>,
}

thread_local! {
    static STATE: RefCell<State> = const {
        RefCell::new(State {
            mode: Mode::Idle,
            found: Vec::new(),
            recorded: Vec::new(),
        })
    };
}

/// The `criterion_group!` functions, as `criterion_main!` gave them.
static GROUPS: OnceLock<Vec<fn()>> = OnceLock::new();

/// The benchmarks discovery found, by id: a benchmark's `Job::arg` is its index.
static FOUND: OnceLock<HashMap<String, usize>> = OnceLock::new();

/// What `criterion_main!` expands to: learns the benchmarks of `groups` (see the module's
/// documentation), registers them with perfbench's runner and runs it. In the discovery
/// child, prints the benchmarks instead.
pub fn main(groups: &[fn()]) -> ExitCode {
    if GROUPS.set(groups.to_vec()).is_err() {
        eprintln!("error: criterion_main! ran twice in one process");
        return ExitCode::from(2);
    }
    if std::env::var_os(DISCOVER_VAR).is_some() {
        for f in discover(groups) {
            println!("{}", f.line());
        }
        return ExitCode::SUCCESS;
    }
    let found = match discover_in_child() {
        Ok(found) => found,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let ids: Vec<String> = found.iter().map(|f| f.identity.id()).collect();
    let mut by_id = HashMap::with_capacity(found.len());
    for (k, id) in ids.iter().enumerate() {
        if by_id.contains_key(id) {
            eprintln!(
                "error: two benchmarks have the id `{id}`: give each bench_function and \
                 bench_with_input of a group its own id"
            );
            return ExitCode::from(2);
        }
        by_id.insert(id.clone(), k);
    }
    let suite = perfbench::runner::suite_name();
    let planned = found
        .iter()
        .enumerate()
        .map(|(k, f)| f.job(k, &suite))
        .collect();
    // `GROUPS` was unset above, so `FOUND` is too.
    let _ = FOUND.set(by_id);
    let args = match crate::args::parse(&suite, &ids) {
        Ok(args) => args,
        Err(code) => return code,
    };
    perfbench::runner::register_driven(planned, drive);
    perfbench::runner::run(&suite, &args)
}

/// Every group in discovery mode: the benchmarks they define, in order.
fn discover(groups: &[fn()]) -> Vec<Found> {
    with_state(|s| s.mode = Mode::Discover);
    let _idle = Idle;
    for group in groups {
        group();
    }
    with_state(|s| std::mem::take(&mut s.found))
}

/// The benchmarks this binary defines, from a child process of it in discovery mode (so that
/// the groups run once in this process, when measured).
fn discover_in_child() -> Result<Vec<Found>, String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find this benchmark binary's path: {e}"))?;
    let mut child = Command::new(&exe)
        .env(DISCOVER_VAR, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {} to list its benchmarks: {e}", exe.display()))?;
    // Standard error is read on a thread of its own, so that neither pipe fills while the
    // other is read.
    let mut stderr = child.stderr.take();
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(e) = stderr.as_mut() {
            let _ = e.read_to_string(&mut text);
        }
        text
    });
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_string(&mut out);
    }
    let status = child
        .wait()
        .map_err(|e| format!("cannot wait for the process listing the benchmarks: {e}"))?;
    let errors = errors.join().unwrap_or_default();
    if !status.success() {
        return Err(format!(
            "the suite failed while its benchmarks were being listed ({status}): its groups \
             ran with every benchmark's closure unrun, and failed outside them:\n{}",
            errors.trim_end()
        ));
    }
    Ok(out.lines().filter_map(Found::parse).collect())
}

/// Puts the thread back in idle mode when dropped (also when a group panics).
struct Idle;

impl Drop for Idle {
    fn drop(&mut self) {
        with_state(|s| s.mode = Mode::Idle);
    }
}

/// The driver perfbench's runner calls ([`perfbench::runner::Drive`]): every group, once, in
/// run mode, each benchmark handed to `visit` where it is defined.
fn drive(visit: &mut Visit<'_>) {
    let Some(groups) = GROUPS.get() else { return };
    VISITOR.with(|slot| {
        slot.set(visit, || {
            with_state(|s| s.mode = Mode::Run);
            let _idle = Idle;
            for group in groups {
                group();
            }
        })
    });
}

/// What a `criterion_group!` function (`this`) does: calls its targets with a `Criterion` made
/// by `config` (each target with its own, as criterion's settings are per call). Called by a
/// hand-written `main` rather than `criterion_main!`'s, it only records itself: the groups
/// recorded run when the `main` calls `Criterion::final_summary`, as criterion's own `main`
/// does.
pub fn group<M>(this: fn(), config: impl Fn() -> Criterion<M>, targets: &[fn(&mut Criterion<M>)]) {
    match with_state(|s| s.mode) {
        Mode::Discover | Mode::Run => {
            for target in targets {
                target(&mut config());
            }
        }
        Mode::Idle => with_state(|s| s.recorded.push(this)),
    }
}

/// What `Criterion::final_summary` does: runs the groups a hand-written `main` called (see
/// [`group`]) as `criterion_main!` would, and ends the process with the run's exit code;
/// nothing when none was recorded (`criterion_main!`'s own run, or a second call).
pub(crate) fn run_recorded() {
    let recorded = with_state(|s| std::mem::take(&mut s.recorded));
    if recorded.is_empty() || GROUPS.get().is_some() {
        return;
    }
    let code = main(&recorded);
    std::process::exit(exit_status(code));
}

/// The number behind an `ExitCode` (which offers no getter): perfbench's runner exits 0, 1 or 2.
fn exit_status(code: ExitCode) -> i32 {
    if code == ExitCode::SUCCESS {
        0
    } else if code == ExitCode::from(2) {
        2
    } else {
        1
    }
}

/// What `bench_function` and `bench_with_input` do: in discovery, record the benchmark; in run
/// mode, hand `f` to the runner's visitor.
pub(crate) fn bench<M>(
    identity: Identity,
    config: &Config,
    f: &mut dyn FnMut(&mut Bencher<'_, M>),
) {
    match with_state(|s| s.mode) {
        Mode::Discover => with_state(|s| s.found.push(Found::new(identity, config))),
        Mode::Run => {
            let id = identity.id();
            let Some(&k) = FOUND.get().and_then(|found| found.get(&id)) else {
                eprintln!(
                    "note: `{id}` was not defined when the benchmarks were listed (an id that \
                     changes from run to run?): not run"
                );
                return;
            };
            VISITOR.with(|slot| slot.with(|visit| visit(k, &mut |b| f(&mut Bencher::new(b)))));
        }
        Mode::Idle => {}
    }
}

fn with_state<T>(f: impl FnOnce(&mut State) -> T) -> T {
    STATE.with(|s| f(&mut s.borrow_mut()))
}

thread_local! {
    /// The runner's visitor while [`drive`] runs.
    static VISITOR: Scoped = const { Scoped(Cell::new(None)) };
}

/// A thread's slot for the runner's visitor, a `&mut` borrowed only while [`drive`] runs.
/// The one place this crate uses `unsafe`: the visitor's lifetime is erased to keep it in a
/// thread-local, which only [`Scoped::set`]'s scope may read.
struct Scoped(Cell<Option<NonNull<Visit<'static>>>>);

impl Scoped {
    /// Makes `visit` the thread's visitor while `f` runs.
    fn set(&self, visit: &mut Visit<'_>, f: impl FnOnce()) {
        let ptr: NonNull<Visit<'_>> = NonNull::from(visit);
        // SAFETY: only the trait object's lifetime changes (same layout). The pointer is
        // dereferenced only by `with`, which runs inside `f` (the slot is emptied when this
        // function returns or unwinds, by `Reset`), while `visit`'s borrow, held by this frame,
        // is still alive.
        let ptr: NonNull<Visit<'static>> = unsafe { std::mem::transmute(ptr) };
        struct Reset<'a>(&'a Scoped, Option<NonNull<Visit<'static>>>);
        impl Drop for Reset<'_> {
            fn drop(&mut self) {
                self.0 .0.set(self.1);
            }
        }
        let _reset = Reset(self, self.0.replace(Some(ptr)));
        f();
    }

    /// Calls `f` with the thread's visitor; nothing when there is none (outside [`drive`], or
    /// from inside a benchmark the visitor is measuring).
    fn with(&self, f: impl FnOnce(&mut Visit<'_>)) {
        // Taken out while in use, so a second `&mut` to it never exists: a nested call finds
        // the slot empty.
        let Some(mut ptr) = self.0.take() else { return };
        struct PutBack<'a>(&'a Scoped, NonNull<Visit<'static>>);
        impl Drop for PutBack<'_> {
            fn drop(&mut self) {
                self.0 .0.set(Some(self.1));
            }
        }
        let _back = PutBack(self, ptr);
        // SAFETY: the pointer was put in the slot by `set`, whose scope we are in (the slot is
        // emptied when it ends), so the visitor it borrows is alive; it was taken out of the
        // slot, so this is the only reference to it until `PutBack` returns it.
        f(unsafe { ptr.as_mut() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_criterions_and_parts_are_perfbenchs() {
        let top = Identity::top("fib 20".into());
        assert_eq!(top.id(), "fib 20");
        assert_eq!(top.parts("suite"), ("suite".into(), "fib 20".into(), None));
        let both = Identity::of_id(Some("sort".into()), BenchmarkId::new("std", 1000));
        assert_eq!(both.id(), "sort/std/1000");
        assert_eq!(
            both.parts("suite"),
            ("sort".into(), "std".into(), Some("1000".into()))
        );
        let param = Identity::of_id(Some("sum".into()), BenchmarkId::from_parameter(64));
        assert_eq!(param.id(), "sum/64");
        assert_eq!(
            param.parts("suite"),
            ("sum".into(), "sum".into(), Some("64".into()))
        );
        let input = Identity::of_id(None, BenchmarkId::new("hash", "1 KiB"));
        assert_eq!(input.id(), "hash/1 KiB");
    }

    #[test]
    fn criterion_03s_ids() {
        let id = |f: Option<&str>, p: Option<&str>| {
            Identity::of_parts("g", f.map(str::to_owned), p.map(str::to_owned)).id()
        };
        assert_eq!(id(None, None), "g");
        assert_eq!(id(Some("f"), None), "g/f");
        assert_eq!(id(None, Some("8")), "g/8");
        assert_eq!(id(Some("f"), Some("8")), "g/f/8");
        let over = Config {
            sample_size: Some(10),
            ..Config::default()
        };
        let base = Config {
            sample_size: Some(50),
            measurement_time: Some(2.0),
            ..Config::default()
        };
        let merged = base.overridden_by(&over);
        assert_eq!(merged.sample_size, Some(10));
        assert_eq!(merged.measurement_time, Some(2.0));
    }

    #[test]
    fn a_found_benchmark_survives_its_line() {
        let plain = Found::new(Identity::top("fib 20".into()), &Config::default());
        let full = Found::new(
            Identity::of_id(
                Some("tab\there".into()),
                BenchmarkId::new("new\nline", "back\\slash=-"),
            ),
            &Config {
                sample_size: Some(10),
                warm_up_time: Some(0.1 + 0.2),
                measurement_time: Some(1e-9),
                throughput: Some(Throughput::BytesDecimal(4096)),
            },
        );
        for f in [plain, full] {
            let line = f.line();
            assert_eq!(line.lines().count(), 1, "{line}");
            assert_eq!(Found::parse(&line), Some(f), "{line}");
        }
        let elements = Found::new(
            Identity::top("e".into()),
            &Config {
                throughput: Some(Throughput::ElementsAndBytes {
                    elements: 3,
                    bytes: 24,
                }),
                ..Config::default()
            },
        );
        let back = Found::parse(&elements.line()).unwrap();
        assert_eq!(back.throughput, Some(perfbench::Throughput::Elements(3)));
        // Anything else the suite prints is not a benchmark.
        let (a, x) = (to_hex("a"), to_hex("x"));
        for other in [
            "",
            "hello",
            LINE_TAG,
            &format!("{LINE_TAG}\t-\t-"),
            // A sample size that is not a number.
            &format!("{LINE_TAG}\t-\t={a}\t-\t={x}\t-\t-\t-"),
            // A value that is not hex.
            &format!("{LINE_TAG}\t-\t=a\t-\t-\t-\t-\t-"),
        ] {
            assert_eq!(Found::parse(other), None, "{other}");
        }
    }

    #[test]
    fn a_suites_times_scale_perfbenchs_defaults() {
        use perfbench::runner::{DEFAULT_MEASUREMENT_TIME, DEFAULT_WARM_UP_TIME};
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(
            warm_up_time(Duration::from_secs(3)),
            DEFAULT_WARM_UP_TIME
        ));
        assert!(close(
            warm_up_time(Duration::from_secs(10)),
            DEFAULT_WARM_UP_TIME * 10.0 / 3.0
        ));
        assert!(close(
            measurement_time(Duration::from_secs(5)),
            DEFAULT_MEASUREMENT_TIME
        ));
        assert!(close(
            measurement_time(Duration::from_secs(10)),
            2.0 * DEFAULT_MEASUREMENT_TIME
        ));
        assert_eq!(measurement_time(Duration::ZERO), 0.0);
    }

    #[test]
    fn sample_sizes_are_at_least_one() {
        assert_eq!(sample_size(0), 1);
        assert_eq!(sample_size(10), 10);
        assert_eq!(sample_size(usize::MAX), u32::MAX);
    }
}
