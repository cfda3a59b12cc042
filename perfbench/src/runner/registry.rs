//! Which benchmarks a suite has: the `#[perfbench]` functions of the binary, each type and
//! argument a [`Job`], or the list a front end registers ([`register`], [`register_driven`]: a
//! suite whose code defines its benchmarks when run, as criterion's do), and the bodies to run
//! ([`for_each_body`]).

use super::*;

/// One benchmark to run: an entry and, with `types`, one of its types and, with `args`, one of
/// its arguments.
#[derive(Clone, Debug)]
pub struct Job {
    /// The registered function.
    pub entry: &'static Entry,
    /// With `types`: the type (`u8`, `Vec<u8>`).
    pub type_name: Option<&'static str>,
    /// Runs it (the type's runner with `types`, else the entry's).
    pub run: fn(&mut Bencher, usize),
    /// Which argument (0 without `args`).
    pub arg: usize,
    /// `group/name[/params]`.
    pub id: String,
    /// The group.
    pub group: String,
    /// What follows the name in the id: the argument's text (`64`), the type (`u8`), or both
    /// (`u8/64`); `None` without `args` and `types`.
    pub params: Option<String>,
}

/// Every registered benchmark, expanded per type then per argument (`sort/u8/64`,
/// `sort/u8/1024`, `sort/u64/64`, ...), in registration order.
///
/// ```
/// use perfbench::{perfbench, runner::jobs, Bencher};
///
/// #[perfbench(args = [8, 64])]
/// fn fill(b: &mut Bencher, n: usize) {
///     b.iter(|| vec![0u8; n]);
/// }
///
/// #[perfbench(group = "hashing", types = [u32, u64])]
/// fn hash<T: Default + std::hash::Hash>() -> u64 {
///     use std::hash::{BuildHasher, RandomState};
///     RandomState::new().hash_one(T::default())
/// }
/// # fn main() {
/// let ids: Vec<String> = jobs("suite").into_iter().map(|p| p.id).collect();
/// assert_eq!(ids, ["suite/fill/8", "suite/fill/64", "hashing/hash/u32", "hashing/hash/u64"]);
/// # }
/// ```
pub fn jobs(suite: &str) -> Vec<Job> {
    if let Some((registered, _)) = REGISTERED.get() {
        return registered.clone();
    }
    let mut out = Vec::new();
    for e in entry::registered() {
        let group = e
            .group
            .map(str::to_owned)
            .unwrap_or_else(|| default_group(e.module_path, suite));
        // `None`: not generic, one benchmark per argument.
        let types: Vec<Option<&'static EntryType>> = if e.types.is_empty() {
            vec![None]
        } else {
            e.types.iter().map(Some).collect()
        };
        // `None`: no `args`, one benchmark per type.
        let args: Vec<Option<String>> = if e.has_args() {
            e.arg_texts().into_iter().map(Some).collect()
        } else {
            vec![None]
        };
        for ty in types {
            let (type_name, run) = match ty {
                Some(t) => (Some(t.name), t.run),
                None => (None, e.run),
            };
            for (i, a) in args.iter().enumerate() {
                let params = match (type_name, a) {
                    (Some(t), Some(a)) => Some(format!("{t}/{a}")),
                    (Some(t), None) => Some(t.to_owned()),
                    (None, a) => a.clone(),
                };
                let id = match &params {
                    Some(p) => format!("{group}/{}/{p}", e.name),
                    None => format!("{group}/{}", e.name),
                };
                out.push(Job {
                    entry: e,
                    type_name,
                    run,
                    arg: i,
                    id,
                    group: group.clone(),
                    params,
                });
            }
        }
    }
    out
}

/// Benchmarks registered at run time, which [`jobs`] returns instead of the `#[perfbench]`
/// functions once set ([`register`], [`register_driven`]), and the suite's driver if it has one.
pub(super) static REGISTERED: std::sync::OnceLock<(Vec<Job>, Option<Drive>)> =
    std::sync::OnceLock::new();

/// Makes `benchmarks` the suite's benchmarks in place of the `#[perfbench]` functions: for a
/// harness whose benchmarks are found by running code. Each [`Job::run`] is called with
/// its own [`Job::arg`]. The first call wins; `false` when the benchmarks were already set.
///
/// ```
/// use perfbench::harness::entry::{Entry, Options};
/// use perfbench::runner::{jobs, register, Job};
/// use perfbench::Bencher;
///
/// fn body(b: &mut Bencher, i: usize) {
///     b.iter(|| i * 2);
/// }
/// let entry: &'static Entry = Box::leak(Box::new(Entry {
///     name: "double", group: Some("found"), module_path: "suite", file: file!(), line: line!(),
///     args: &[], arg_names: None, types: &[], options: Options::DEFAULT, run: body,
/// }));
/// let p = Job {
///     entry, type_name: None, run: body, arg: 7,
///     id: "found/double".into(), group: "found".into(), params: None,
/// };
/// assert!(register(vec![p]));
/// let ids: Vec<String> = jobs("suite").into_iter().map(|p| p.id).collect();
/// assert_eq!(ids, ["found/double"]);
/// ```
#[doc(hidden)]
pub fn register(benchmarks: Vec<Job>) -> bool {
    REGISTERED.set((benchmarks, None)).is_ok()
}

/// What a driven suite's driver is given: called with a benchmark's [`Job::arg`] and its
/// body where the suite's code defines the benchmark, it measures the benchmark there (every
/// round of it), or does nothing when the run did not select it.
#[doc(hidden)]
pub type Visit<'a> = dyn FnMut(usize, &mut dyn FnMut(&mut Bencher)) + 'a;

/// A driven suite's driver: runs the suite's code once, calling the visitor for each benchmark
/// as the code defines it.
#[doc(hidden)]
pub type Drive = fn(&mut Visit<'_>);

/// Makes `benchmarks` the suite's benchmarks, measured where the suite's code defines them:
/// for a harness whose benchmarks are closures that live only while the code that defines them
/// runs, such as perfbench-criterion's (`criterion_main!` calls this and then [`main`]). The
/// runner calls `drive` once per process, and `drive` calls the visitor with each benchmark's
/// [`Job::arg`] and body; a benchmark is then measured in all its rounds at once, rather
/// than in rounds interleaved with the others'. [`Job::run`] is not called. A benchmark
/// `drive` does not visit is reported as failed. The first call wins; `false` when the
/// benchmarks were already set.
#[doc(hidden)]
pub fn register_driven(benchmarks: Vec<Job>, drive: Drive) -> bool {
    REGISTERED.set((benchmarks, Some(drive))).is_ok()
}

/// The driver of a suite registered with [`register_driven`].
pub(super) fn driver() -> Option<Drive> {
    REGISTERED.get().and_then(|(_, d)| *d)
}

/// What [`for_each_body`] calls with each benchmark and its body.
pub(super) type Each<'p, 'e> = dyn FnMut(&'p Job, &mut dyn FnMut(&mut Bencher)) + 'e;

/// Calls `each` with every benchmark of `chosen` and its body, in `chosen`'s order for a suite
/// of functions, where the code defines them for a driven suite ([`register_driven`]). Returns
/// the benchmarks of `chosen` a driven suite did not define, each with why.
pub(super) fn for_each_body<'p>(
    chosen: &'p [Job],
    each: &mut Each<'p, '_>,
) -> Vec<(&'p Job, String)> {
    let Some(drive) = driver() else {
        for p in chosen {
            let (run, arg) = (p.run, p.arg);
            each(p, &mut |b| run(b, arg));
        }
        return Vec::new();
    };
    let mut seen = vec![false; chosen.len()];
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        drive(&mut |arg, body| {
            let Some(i) = chosen.iter().position(|p| p.arg == arg) else {
                return;
            };
            if !std::mem::replace(&mut seen[i], true) {
                each(&chosen[i], body);
            }
        });
    }));
    // A panic ends the suite's code: what it had not defined yet, it never will (and what it
    // defined under another id is in the same case).
    let why = match outcome {
        Ok(()) => "the suite's code did not define it when run (it must define the same \
                   benchmarks every time it runs)"
            .to_owned(),
        Err(payload) => format!(
            "the suite's code did not define it when run; it panicked: {}",
            panic_message(payload.as_ref())
        ),
    };
    chosen
        .iter()
        .zip(seen)
        .filter(|(_, seen)| !seen)
        .map(|(p, _)| (p, why.clone()))
        .collect()
}

/// A function at the crate root is grouped under the suite's name; one in `crate::a::b`
/// under `a::b`.
pub(super) fn default_group(module_path: &str, suite: &str) -> String {
    match module_path.split_once("::") {
        Some((_, rest)) => rest.to_owned(),
        None => suite.to_owned(),
    }
}
