//! How a criterion suite becomes perfbench benchmarks.
//!
//! criterion defines a benchmark by calling `bench_function` with a closure that borrows the
//! target function's locals, so the closure cannot be kept; perfbench's runner measures a
//! benchmark in rounds interleaved with the others', calling it once per round. The two meet
//! here: [`main`] calls every group once in discovery mode, where each `bench_function` records
//! its id, settings and position (group, target, ordinal) and runs nothing; each benchmark is
//! then registered with perfbench's runner, whose body ([`run_found`]) calls the benchmark's
//! target function again in run mode, where only the benchmark at that position runs its
//! closure, with the runner's `Bencher`. The mode, the position and the runner's `Bencher`
//! travel through a thread-local, as the target function takes nothing but a `Criterion`.

use std::cell::RefCell;
use std::collections::HashSet;
use std::process::ExitCode;
use std::sync::OnceLock;

use perfbench::harness::entry::{Entry, Options};
use perfbench::runner::Planned;

use crate::{Bencher, BenchmarkId, Criterion, Throughput};

/// The settings of a `Criterion` or a group that perfbench uses; `None`: the run's default.
#[derive(Clone, Debug, Default)]
pub(crate) struct Config {
    pub(crate) sample_size: Option<u32>,
    pub(crate) warm_up_time: Option<f64>,
    pub(crate) measurement_time: Option<f64>,
    pub(crate) throughput: Option<Throughput>,
}

/// A `sample_size` as perfbench takes it (criterion refuses fewer than 10; perfbench takes any
/// number from 1).
pub(crate) fn sample_size(n: usize) -> u32 {
    u32::try_from(n.max(1)).unwrap_or(u32::MAX)
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

/// A benchmark found in discovery: where it is defined, its id and settings.
#[derive(Debug)]
struct Found {
    /// Index of its `criterion_group!` function in `criterion_main!`.
    group_fn: usize,
    /// Index of its target function in the group.
    target: usize,
    /// How many benchmarks the target function defined before it.
    ordinal: usize,
    identity: Identity,
    config: Config,
}

impl Found {
    /// The benchmark as perfbench's runner takes it; `k` is its index in [`FOUND`].
    fn planned(&self, k: usize, suite: &str) -> Planned {
        let (group, name, params) = self.identity.parts(suite);
        let options = Options {
            sample_size: self.config.sample_size,
            warm_up_time: self.config.warm_up_time,
            measurement_time: self.config.measurement_time,
            throughput: self.config.throughput.map(Throughput::to_perfbench),
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
            run: run_found,
        }));
        Planned {
            entry,
            type_name: None,
            run: run_found,
            arg: k,
            id: self.identity.id(),
            group,
            params,
        }
    }
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

/// What `bench_function` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Outside `criterion_main!`'s main: nothing.
    Idle,
    /// Records each benchmark.
    Discover,
    /// Runs the benchmark `ordinal` of target `target`.
    Run { target: usize, ordinal: usize },
}

/// The thread's state between `criterion_main!`'s main, the group and target functions and
/// `bench_function`.
struct State {
    mode: Mode,
    /// In discovery: the group function and the target being called.
    group_fn: usize,
    target: usize,
    /// Benchmarks the current target defined so far.
    ordinal: usize,
    found: Vec<Found>,
    /// In run mode: the runner's bencher, until the benchmark takes it.
    bencher: Option<perfbench::Bencher>,
    /// In run mode: whether the benchmark ran.
    ran: bool,
    /// Groups a hand-written `main` called, to run at `final_summary`.
    recorded: Vec<fn()>,
}

thread_local! {
    static STATE: RefCell<State> = const {
        RefCell::new(State {
            mode: Mode::Idle,
            group_fn: 0,
            target: 0,
            ordinal: 0,
            found: Vec::new(),
            bencher: None,
            ran: false,
            recorded: Vec::new(),
        })
    };
}

/// The `criterion_group!` functions, as `criterion_main!` gave them.
static GROUPS: OnceLock<Vec<fn()>> = OnceLock::new();

/// The benchmarks discovery found, in order; a benchmark's `Planned::arg` indexes it.
static FOUND: OnceLock<Vec<Found>> = OnceLock::new();

/// What `criterion_main!` expands to: finds the benchmarks of `groups`, registers them with
/// perfbench's runner and runs it.
pub fn main(groups: &[fn()]) -> ExitCode {
    if GROUPS.set(groups.to_vec()).is_err() {
        eprintln!("error: criterion_main! ran twice in one process");
        return ExitCode::from(2);
    }
    with_state(|s| s.mode = Mode::Discover);
    for (i, group) in groups.iter().enumerate() {
        with_state(|s| s.group_fn = i);
        group();
    }
    let found = with_state(|s| {
        s.mode = Mode::Idle;
        std::mem::take(&mut s.found)
    });
    let mut ids = HashSet::new();
    for f in &found {
        let id = f.identity.id();
        if !ids.insert(id.clone()) {
            eprintln!(
                "error: two benchmarks have the id `{id}`: give each bench_function and \
                 bench_with_input of a group its own id"
            );
            return ExitCode::from(2);
        }
    }
    let suite = perfbench::runner::suite_name();
    let planned = found
        .iter()
        .enumerate()
        .map(|(k, f)| f.planned(k, &suite))
        .collect();
    // `GROUPS` was unset above, so `FOUND` is too.
    let _ = FOUND.set(found);
    perfbench::runner::register(planned);
    perfbench::runner::main()
}

/// What a `criterion_group!` function (`this`) does: calls its targets with a `Criterion` made
/// by `config` (each target with its own, as criterion's settings are per call). Called by a
/// hand-written `main` rather than `criterion_main!`'s, it only records itself: the groups
/// recorded run when the `main` calls `Criterion::final_summary`, as criterion's own `main`
/// does.
pub fn group<M>(this: fn(), config: impl Fn() -> Criterion<M>, targets: &[fn(&mut Criterion<M>)]) {
    match with_state(|s| s.mode) {
        Mode::Discover => {
            for (t, target) in targets.iter().enumerate() {
                with_state(|s| {
                    s.target = t;
                    s.ordinal = 0;
                });
                target(&mut config());
            }
        }
        Mode::Run { target, .. } => {
            with_state(|s| s.ordinal = 0);
            if let Some(target) = targets.get(target) {
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
/// mode, run `f` if this is the benchmark to run.
pub(crate) fn bench<M>(
    identity: Identity,
    config: &Config,
    f: &mut dyn FnMut(&mut Bencher<'_, M>),
) {
    let bencher = with_state(|s| {
        let ordinal = s.ordinal;
        s.ordinal += 1;
        match s.mode {
            Mode::Discover => {
                let found = Found {
                    group_fn: s.group_fn,
                    target: s.target,
                    ordinal,
                    identity,
                    config: config.clone(),
                };
                s.found.push(found);
                None
            }
            Mode::Run {
                ordinal: wanted, ..
            } if wanted == ordinal => s.bencher.take(),
            Mode::Run { .. } | Mode::Idle => None,
        }
    });
    let Some(bencher) = bencher else { return };
    // Back into the state when `f` returns or panics, where `run_found` takes it.
    let mut back = GiveBack(Some(bencher));
    if let Some(inner) = back.0.as_mut() {
        f(&mut Bencher::new(inner));
    }
    with_state(|s| s.ran = true);
}

/// Puts the runner's bencher back into the state when dropped.
struct GiveBack(Option<perfbench::Bencher>);

impl Drop for GiveBack {
    fn drop(&mut self) {
        if let Some(b) = self.0.take() {
            with_state(|s| s.bencher = Some(b));
        }
    }
}

/// Puts the runner's bencher back where the runner gave it, and ends run mode, when dropped.
struct Restore<'a>(&'a mut perfbench::Bencher);

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        if let Some(b) = with_state(|s| {
            s.mode = Mode::Idle;
            s.bencher.take()
        }) {
            *self.0 = b;
        }
    }
}

/// The body of every benchmark the runner measures: calls the target function of benchmark
/// `k` in run mode, where that benchmark runs its closure with `b`.
fn run_found(b: &mut perfbench::Bencher, k: usize) {
    let (Some(groups), Some(found)) = (GROUPS.get(), FOUND.get().and_then(|f| f.get(k))) else {
        panic!("perfbench-criterion: benchmark {k} was not found by criterion_main!");
    };
    let real = std::mem::replace(b, perfbench::Bencher::smoke_test());
    with_state(|s| {
        s.mode = Mode::Run {
            target: found.target,
            ordinal: found.ordinal,
        };
        s.bencher = Some(real);
        s.ran = false;
    });
    let restore = Restore(b);
    groups[found.group_fn]();
    let ran = with_state(|s| s.ran);
    drop(restore);
    assert!(
        ran,
        "{}: its target function did not define it again where it did before: a target \
         function must define the same benchmarks in the same order every time it runs",
        found.identity.id()
    );
}

fn with_state<T>(f: impl FnOnce(&mut State) -> T) -> T {
    STATE.with(|s| f(&mut s.borrow_mut()))
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
    fn sample_sizes_are_at_least_one() {
        assert_eq!(sample_size(0), 1);
        assert_eq!(sample_size(10), 10);
        assert_eq!(sample_size(usize::MAX), u32::MAX);
    }
}
