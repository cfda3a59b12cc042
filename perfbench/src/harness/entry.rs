//! Registration: every `#[perfbench]` function becomes one static [`Entry`] in the
//! distributed slice `BENCHMARKS`, collected at link time (no hand-written list, stable Rust).
//!
//! The attribute macro generates these items; users never write them by hand.

use super::Bencher;

/// Work done per iteration, for throughput figures (`throughput = bytes(N) | elements(N)`).
/// In JSON: `{"bytes": N}` or `{"elements": N}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde_derive::Serialize, serde_derive::Deserialize),
    serde(rename_all = "lowercase")
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Throughput {
    /// Bytes processed per iteration.
    Bytes(u64),
    /// Elements processed per iteration.
    Elements(u64),
}

/// The options given in `#[perfbench(...)]`; `None` means "the run's default".
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// `counters = ["instructions", ...]`.
    pub counters: Option<&'static [&'static str]>,
    /// `sample_size = N`.
    pub sample_size: Option<u32>,
    /// `warm_up_time = SECONDS` (a float or integer literal).
    pub warm_up_time: Option<f64>,
    /// `measurement_time = SECONDS`.
    pub measurement_time: Option<f64>,
    /// `throughput = bytes(N)` or `elements(N)`.
    pub throughput: Option<Throughput>,
    /// `thresholds = ["COUNTER=PCT", ...]`: per-counter change thresholds (fractions) for the
    /// comparison with a baseline; `--threshold` on the command line wins over them.
    pub thresholds: Option<&'static [(&'static str, f64)]>,
    /// `ignore`: registered and listed, but skipped unless selected with `--include-ignored`.
    pub ignore: bool,
}

impl Options {
    /// No options given.
    pub const DEFAULT: Options = Options {
        counters: None,
        sample_size: None,
        warm_up_time: None,
        measurement_time: None,
        throughput: None,
        thresholds: None,
        ignore: false,
    };
}

impl Default for Options {
    fn default() -> Self {
        Options::DEFAULT
    }
}

/// One registered benchmark function (with `args` and `types`, one function standing for
/// several benchmarks: one per type and argument).
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// The benchmark's name: the function's name, or `name = "..."`.
    pub name: &'static str,
    /// `group = "..."`, if given. Without it the runner groups by module.
    pub group: Option<&'static str>,
    /// `module_path!()` where the function is defined.
    pub module_path: &'static str,
    /// `file!()` of the definition.
    pub file: &'static str,
    /// `line!()` of the definition.
    pub line: u32,
    /// The `args = [...]` values as written (`stringify!`), one benchmark each; empty without
    /// `args` and with `args = EXPR`.
    pub args: &'static [&'static str],
    /// With `args = EXPR` (not a literal list): the values' `Display`, computed at run time.
    pub arg_names: Option<fn() -> Vec<String>>,
    /// With `types = [...]` (a generic function): each type, in the order written, with its
    /// own runner; empty otherwise.
    pub types: &'static [EntryType],
    /// The attribute's options.
    pub options: Options,
    /// Runs the benchmark for argument number `arg` (0 without `args`); with `types`, for the
    /// first type (each type's runner is in [`Entry::types`]).
    pub run: fn(&mut Bencher, usize),
}

/// One type of a generic benchmark (`types = [u8, Vec<u8>]`).
#[derive(Clone, Copy, Debug)]
pub struct EntryType {
    /// The type as rustc prints it, without spaces inside angle brackets (`Vec<u8>`,
    /// `&'static str`); the benchmark id names it (`group/name/Vec<u8>`).
    pub name: &'static str,
    /// Runs the benchmark with this type, for argument number `arg` (0 without `args`).
    pub run: fn(&mut Bencher, usize),
}

impl Entry {
    /// The text of each argument (`args` as written, or each value of `args = EXPR` through its
    /// `Display`); empty without `args`.
    ///
    /// ```
    /// use perfbench::perfbench;
    ///
    /// const SIZES: [usize; 2] = [8, 64];
    ///
    /// #[perfbench(args = SIZES)]
    /// fn zeroed(n: usize) -> Vec<u8> {
    ///     vec![0; n]
    /// }
    /// # fn main() {
    /// let e = perfbench::harness::entry::registered().into_iter().find(|e| e.name == "zeroed").unwrap();
    /// assert!(e.has_args());
    /// assert_eq!(e.arg_texts(), ["8", "64"]);
    /// assert!(e.type_names().is_empty());
    /// # }
    /// ```
    pub fn arg_texts(&self) -> Vec<String> {
        match self.arg_names {
            Some(names) => names(),
            None => self.args.iter().map(|a| (*a).to_owned()).collect(),
        }
    }

    /// Whether the function takes `args` (a literal list or an expression).
    ///
    /// See [`Entry::arg_texts`].
    pub fn has_args(&self) -> bool {
        !self.args.is_empty() || self.arg_names.is_some()
    }

    /// The type names of a generic benchmark (`types`), in the order written; empty for others.
    ///
    /// ```
    /// use perfbench::perfbench;
    ///
    /// #[perfbench(types = [u8, Vec<u8>])]
    /// fn default_of<T: Default>() -> T {
    ///     T::default()
    /// }
    /// # fn main() {
    /// let e = perfbench::harness::entry::registered().into_iter().find(|e| e.name == "default_of").unwrap();
    /// assert_eq!(e.type_names(), ["u8", "Vec<u8>"]);
    /// # }
    /// ```
    pub fn type_names(&self) -> Vec<&'static str> {
        self.types.iter().map(|t| t.name).collect()
    }
}

/// A throughput count computed from a benchmark's argument (`throughput = bytes(len)`): any
/// unsigned integer, or a reference to one (the macro binds the parameter to a reference).
#[diagnostic::on_unimplemented(
    message = "a throughput count is a whole number (`u64`, `usize`, ...), not `{Self}`",
    label = "`bytes(N)` / `elements(N)` count"
)]
pub trait ThroughputCount {
    /// The count as a `u64`.
    fn count(self) -> u64;
}

macro_rules! throughput_counts {
    ($($t:ty),*) => {$(
        impl ThroughputCount for $t {
            fn count(self) -> u64 {
                self as u64
            }
        }
        impl ThroughputCount for &$t {
            fn count(self) -> u64 {
                *self as u64
            }
        }
    )*};
}

throughput_counts!(u8, u16, u32, u64, usize);

/// What the macro's generated code calls: the count of `throughput = bytes(EXPR)`.
///
/// ```
/// use perfbench::harness::entry::throughput_count;
///
/// let len: usize = 4096;
/// assert_eq!(throughput_count(len), 4096);
/// assert_eq!(throughput_count(&7u32), 7); // `bytes(len)` binds the argument by reference
/// ```
pub fn throughput_count(n: impl ThroughputCount) -> u64 {
    n.count()
}

/// Every benchmark registered with `#[perfbench]` in the program.
#[linkme::distributed_slice]
#[linkme(crate = crate::__private::linkme)]
pub static BENCHMARKS: [Entry];

/// The registered benchmarks, in a stable order (module path, file, source line, then name for
/// functions generated on one line by a macro).
///
/// ```
/// use perfbench::perfbench;
///
/// #[perfbench]
/// fn second() {}
///
/// #[perfbench]
/// fn first() {}
/// # fn main() {
/// let names: Vec<&str> = perfbench::harness::entry::registered().iter().map(|e| e.name).collect();
/// assert_eq!(names, ["second", "first"]); // source order within a file
/// # }
/// ```
pub fn registered() -> Vec<&'static Entry> {
    let mut v: Vec<&'static Entry> = BENCHMARKS.iter().collect();
    crate::sorting::sort_by(&mut v, |a, b| {
        (a.module_path, a.file, a.line, a.name).cmp(&(b.module_path, b.file, b.line, b.name))
    });
    v
}
