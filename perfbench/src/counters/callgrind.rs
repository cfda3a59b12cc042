//! Simulated counts: Valgrind's Callgrind as a counter source (`--simulate`).
//!
//! Two halves:
//! - **Client requests** ([`running_on_valgrind`], [`toggle_collect`], [`dump_stats_at`]): the
//!   magic instruction sequences by which a program under Valgrind talks to it. perfbench
//!   starts Callgrind with collection off and turns it on exactly around the measured code.
//!   Outside Valgrind each request is a few register rotations that cancel out and a no-op
//!   exchange (x86_64: `rol rdi` by 3, 13, 61, 51 then `xchg rbx, rbx`; aarch64: `ror x12` by
//!   3, 13, 51, 61 then `orr x10, x10, x10`), plus the stores of the argument block: nothing
//!   else changes. Written here, from Valgrind's documented protocol (`valgrind.h`), so that
//!   building perfbench needs no C compiler and no Valgrind headers.
//! - **Dump files** ([`Dump::parse`]): each `DUMP_STATS_AT` request makes Callgrind write one
//!   text file (its "callgrind format", version 1). perfbench reads its header: the `events:`
//!   line, the `summary:` line (the part's cost, every event) and, as a check that the file is
//!   whole, the closing `totals:` line. The `summary:` is used: it is the cost of the collected
//!   region including the few instructions of the closing request, a constant that the
//!   harness's calibration subtracts like any other bracket cost (`totals:` leaves those out).
//!
//! [`COUNTERS`] maps the dump's events to perf-style counter names.

use std::ffi::CStr;
use std::fmt;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Callgrind's client request codes (`callgrind.h`): `VG_USERREQ_TOOL_BASE('C', 'T')` + k.
const CALLGRIND_BASE: u64 = ((b'C' as u64) << 24) | ((b'T' as u64) << 16);
/// `VG_USERREQ__ZERO_STATS`.
const ZERO_STATS: u64 = CALLGRIND_BASE + 1;
/// `VG_USERREQ__TOGGLE_COLLECT`.
const TOGGLE_COLLECT: u64 = CALLGRIND_BASE + 2;
/// `VG_USERREQ__DUMP_STATS_AT`.
const DUMP_STATS_AT: u64 = CALLGRIND_BASE + 3;
/// `VG_USERREQ__RUNNING_ON_VALGRIND` (core request).
const RUNNING_ON_VALGRIND: u64 = 0x1001;

/// Sends a client request: `request` with argument `arg` (the other four are 0). Returns
/// Valgrind's answer, or 0 when the program is not running under Valgrind.
#[inline(always)]
fn client_request(request: u64, arg: u64) -> u64 {
    let args: [u64; 6] = [request, arg, 0, 0, 0, 0];
    request_block(&args)
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn request_block(args: &[u64; 6]) -> u64 {
    let mut result: u64 = 0;
    // SAFETY: the four rotations of rdi add up to 128 bits, so rdi ends as it started (it is
    // declared clobbered all the same), and `xchg rbx, rbx` changes nothing: natively the
    // sequence only changes flags (clobbered by default in `asm!`). Under Valgrind it is the
    // client-request marker: Valgrind reads the six-word block at rax (valid for reads for the
    // duration of the asm: it borrows `args`) and writes its answer to rdx. The default
    // `asm!` memory semantics keep the block's stores before the sequence.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") result,
            in("rax") args.as_ptr(),
            out("rdi") _,
            options(nostack),
        );
    }
    result
}

#[cfg(target_arch = "aarch64")]
#[inline(always)]
fn request_block(args: &[u64; 6]) -> u64 {
    let mut result: u64 = 0;
    // SAFETY: the four rotations of x12 add up to 128 bits, so x12 ends as it started (it is
    // declared clobbered all the same), and `orr x10, x10, x10` changes nothing: natively the
    // sequence changes no state. Under Valgrind it is the client-request marker: Valgrind reads
    // the six-word block at x4 (valid for reads during the asm: it borrows `args`) and writes
    // its answer to x3 (which holds the default answer, 0, on entry).
    unsafe {
        std::arch::asm!(
            "ror x12, x12, #3",
            "ror x12, x12, #13",
            "ror x12, x12, #51",
            "ror x12, x12, #61",
            "orr x10, x10, x10",
            inout("x3") result,
            in("x4") args.as_ptr(),
            out("x12") _,
            options(nostack),
        );
    }
    result
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
#[inline(always)]
fn request_block(_args: &[u64; 6]) -> u64 {
    0
}

/// Whether client requests exist for this target (x86_64 and aarch64): `--simulate` needs them.
pub const SUPPORTED: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// Whether this program runs under Valgrind (any tool).
///
/// ```
/// use perfbench::counters::callgrind::{running_on_valgrind, SUPPORTED};
///
/// // Valgrind starts its client with its preload library in LD_PRELOAD.
/// let preloaded = std::env::var("LD_PRELOAD").is_ok_and(|p| p.contains("vgpreload"));
/// assert_eq!(running_on_valgrind(), SUPPORTED && preloaded);
/// ```
pub fn running_on_valgrind() -> bool {
    client_request(RUNNING_ON_VALGRIND, 0) != 0
}

/// The argument block of `TOGGLE_COLLECT`: constant, so it is a static, and the request is one
/// `asm!` block of a fixed length (no stores the compiler could schedule differently from one
/// bracket to the next: the instructions of the request inside a collected region are the same
/// in every body).
static TOGGLE_ARGS: [u64; 6] = [TOGGLE_COLLECT, 0, 0, 0, 0, 0];

/// Turns Callgrind's cost collection on if it is off, off if it is on. A no-op outside
/// Valgrind: a fixed sequence that changes nothing but scratch registers and flags (x86_64:
/// `lea`, `xor`, four `rol`, `xchg`; aarch64: `adrp`, `add`, `mov`, four `ror`, `orr`).
///
/// Callgrind started with `--collect-atstart=no` counts only between two toggles:
///
/// ```
/// use perfbench::counters::callgrind::toggle_collect;
/// use std::hint::black_box;
///
/// let sum = |n: u64| (1..=n).map(black_box).sum::<u64>();
/// toggle_collect(); // on
/// let measured = sum(1_000);
/// toggle_collect(); // off
/// // Natively the requests change nothing the program can see.
/// assert_eq!(measured, 500_500);
/// assert_eq!(measured, sum(1_000));
/// ```
#[inline(always)]
pub fn toggle_collect() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: as `request_block`: the rotations restore rdi, `xchg rbx, rbx` is a no-op, and
    // natively only rax, rdx, rdi (declared) and flags change. Under Valgrind it reads the
    // static block TOGGLE_ARGS (valid forever, never written) and writes its answer to rdx.
    unsafe {
        std::arch::asm!(
            "lea rax, [rip + {args}]",
            "xor edx, edx",
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            args = sym TOGGLE_ARGS,
            out("rax") _,
            out("rdx") _,
            out("rdi") _,
            options(nostack),
        );
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: as `request_block`: the rotations restore x12 and `orr x10, x10, x10` is a no-op;
    // natively only x3, x4 and x12 (declared) change. Under Valgrind it reads the static block
    // TOGGLE_ARGS (valid forever, never written) and writes its answer to x3.
    unsafe {
        std::arch::asm!(
            "adrp x4, {args}",
            "add x4, x4, :lo12:{args}",
            "mov x3, #0",
            "ror x12, x12, #3",
            "ror x12, x12, #13",
            "ror x12, x12, #51",
            "ror x12, x12, #61",
            "orr x10, x10, x10",
            args = sym TOGGLE_ARGS,
            out("x3") _,
            out("x4") _,
            out("x12") _,
            options(nostack),
        );
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = &TOGGLE_ARGS;
}

/// Zeroes Callgrind's costs collected since the last dump (what a warm-up region collected).
/// A no-op outside Valgrind.
///
/// ```
/// use perfbench::counters::callgrind::{dump_stats_at, toggle_collect, zero_stats};
/// use std::hint::black_box;
///
/// let work = || (1..=1_000u64).map(black_box).sum::<u64>();
/// toggle_collect();
/// let warm_up = work(); // collected, then thrown away
/// zero_stats();
/// let measured = work(); // what the next dump holds
/// toggle_collect();
/// dump_stats_at(c"doc-zero-stats");
/// assert_eq!(warm_up, measured);
/// ```
pub fn zero_stats() {
    client_request(ZERO_STATS, 0);
}

/// Makes Callgrind write the costs collected since the last dump to a new dump file whose
/// trigger is `name`, and zero them. A no-op outside Valgrind.
///
/// Under Callgrind this writes a dump whose `desc: Trigger: Client Request:` line holds the
/// name ([`Dump::trigger`]), where `--callgrind-out-file` says; natively nothing happens:
///
/// ```
/// use perfbench::counters::callgrind::{dump_stats_at, running_on_valgrind};
///
/// let dumps = || {
///     let entries = std::fs::read_dir(".").unwrap().filter_map(Result::ok);
///     entries.filter(|e| e.file_name().to_string_lossy().starts_with("callgrind.out")).count()
/// };
/// let before = dumps();
/// dump_stats_at(c"perfbench-doc");
/// let after = dumps();
/// if running_on_valgrind() {
///     // Under Callgrind with the default --callgrind-out-file, one more dump here; under
///     // another tool, or with the dumps written elsewhere, none.
///     assert!(after == before || after == before + 1);
/// } else {
///     assert_eq!(after, before);
/// }
/// ```
pub fn dump_stats_at(name: &CStr) {
    client_request(DUMP_STATS_AT, name.as_ptr() as u64);
}

/// The oldest Valgrind `--simulate` accepts (3.19 is the version it is tested with).
pub const MIN_VERSION: (u32, u32) = (3, 16);

/// A Valgrind found on `PATH`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Valgrind {
    /// Its path.
    pub path: PathBuf,
    /// Its version (`3.19.0`).
    pub version: String,
}

/// How to install Valgrind, for messages.
pub const INSTALL_HINT: &str =
    "install it (`apt-get install valgrind` on Debian and Ubuntu, `dnf install valgrind` on Fedora)";

/// Finds Valgrind on `PATH` and checks that it is at least [`MIN_VERSION`].
///
/// ```
/// use perfbench::counters::callgrind::{find_valgrind, which, INSTALL_HINT, MIN_VERSION};
///
/// match find_valgrind() {
///     Ok(valgrind) => {
///         assert_eq!(which("valgrind").as_ref(), Some(&valgrind.path));
///         let mut parts = valgrind.version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
///         let (major, minor) = (parts.next().unwrap(), parts.next().unwrap());
///         assert!((major, minor) >= MIN_VERSION, "{}", valgrind.version);
///     }
///     // Not installed, too old, or not answering: the message says which, and how to fix it.
///     Err(message) => assert!(
///         which("valgrind").is_some() || message.ends_with(INSTALL_HINT),
///         "{message}"
///     ),
/// }
/// ```
pub fn find_valgrind() -> Result<Valgrind, String> {
    let path =
        which("valgrind").ok_or_else(|| format!("Valgrind is not on PATH: {INSTALL_HINT}"))?;
    let out = Command::new(&path)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {} --version: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let version = check_version(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Valgrind { path, version })
}

/// The version in `valgrind --version`'s answer (`valgrind-3.19.0` gives `3.19.0`), if it is at
/// least [`MIN_VERSION`].
fn check_version(answer: &str) -> Result<String, String> {
    let version = answer
        .strip_prefix("valgrind-")
        .unwrap_or(answer)
        .to_owned();
    let mut parts = version.split(|c: char| !c.is_ascii_digit());
    let number = |p: Option<&str>| p.and_then(|p| p.parse::<u32>().ok());
    match (number(parts.next()), number(parts.next())) {
        (Some(major), Some(minor)) if (major, minor) >= MIN_VERSION => Ok(version),
        (Some(_), Some(_)) => Err(format!(
            "Valgrind {version} is too old: --simulate needs {}.{} or newer; {INSTALL_HINT}",
            MIN_VERSION.0, MIN_VERSION.1
        )),
        _ => Err(format!(
            "`--version` answered {answer:?}, not a Valgrind version"
        )),
    }
}

/// The executable `name` on `PATH`.
///
/// ```
/// use perfbench::counters::callgrind::which;
///
/// let sh = which("sh").expect("every Linux has a shell on PATH");
/// assert!(sh.ends_with("sh") && sh.is_file());
/// assert_eq!(which("perfbench-no-such-program"), None);
/// ```
pub fn which(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// The events perfbench asks Callgrind for (`--cache-sim=yes --branch-sim=yes`), in the order
/// Callgrind lists them: instructions; data reads and writes; L1 instruction, data-read and
/// data-write misses; last-level instruction, data-read and data-write misses; conditional
/// branches and their mispredictions; indirect branches and theirs.
pub const EVENTS: &[&str] = &[
    "Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim",
];

/// How one simulated counter is computed from a dump's events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Simulated {
    /// The perf-style name (`instructions`, `branch-misses`, ...).
    pub name: &'static str,
    /// The formula in Callgrind's event names, for documentation (`Bc + Bi`).
    pub formula: &'static str,
    /// Measured by default with `--simulate`.
    pub default: bool,
    /// `(event, weight)` terms, summed.
    terms: &'static [(&'static str, i64)],
}

impl Simulated {
    /// The counter's value in `dump`: its terms summed (0 for an event the dump lacks).
    ///
    /// ```
    /// use perfbench::counters::callgrind::{counter, Dump};
    ///
    /// # let text = r"# callgrind format
    /// # version: 1
    /// # creator: callgrind-3.19.0
    /// # pid: 4242
    /// # cmd:  ./bench
    /// # part: 2
    /// #
    /// # desc: I1 cache: 32768 B, 64 B, 8-way associative
    /// # desc: Timerange: Basic block 0 - 64235
    /// # desc: Trigger: Client Request: perfbench-1
    /// #
    /// # positions: line
    /// # events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim
    /// # summary: 517 5 5 1 0 0 1 0 0 101 9
    /// #
    /// # fn=(1) main
    /// # 0 5 1
    /// # totals: 508 2
    /// # ";
    /// let dump = Dump::parse(text)?;
    /// assert_eq!(counter("instructions").unwrap().value(&dump), 517.0); // Ir
    /// assert_eq!(counter("branches").unwrap().value(&dump), 101.0); // Bc + Bi
    /// assert_eq!(counter("branch-misses").unwrap().value(&dump), 9.0); // Bcm + Bim
    /// // Ir + Dr + Dw + 4 x (I1mr + D1mr + D1mw) + 30 x (ILmr + DLmr + DLmw)
    /// assert_eq!(counter("estimated-cycles").unwrap().value(&dump), 561.0);
    /// # Ok::<(), perfbench::counters::callgrind::DumpError>(())
    /// ```
    pub fn value(&self, dump: &Dump) -> f64 {
        self.terms
            .iter()
            .map(|&(event, w)| w as f64 * dump.get(event) as f64)
            .sum()
    }

    /// The `(event, weight)` terms whose sum is the counter.
    ///
    /// ```
    /// use perfbench::counters::callgrind::counter;
    ///
    /// assert_eq!(counter("branches").unwrap().terms(), [("Bc", 1), ("Bi", 1)]);
    /// ```
    pub fn terms(&self) -> &'static [(&'static str, i64)] {
        self.terms
    }
}

/// Every counter `--simulate` offers, with its formula. `estimated-cycles` is the usual
/// cycle estimate from simulated cache behaviour (L1 hits cost 1, last-level hits 5, memory
/// accesses 35): `L1 hits + 5 x LL hits + 35 x LL misses`, where L1 hits are `Ir + Dr + Dw - L1
/// misses` and LL hits are `L1 misses - LL misses`; it is a model of a generic CPU, not a
/// prediction of any real one.
pub const COUNTERS: &[Simulated] = &[
    Simulated {
        name: "instructions",
        formula: "Ir",
        default: true,
        terms: &[("Ir", 1)],
    },
    Simulated {
        name: "branches",
        formula: "Bc + Bi",
        default: true,
        terms: &[("Bc", 1), ("Bi", 1)],
    },
    Simulated {
        name: "branch-misses",
        formula: "Bcm + Bim",
        default: true,
        terms: &[("Bcm", 1), ("Bim", 1)],
    },
    Simulated {
        name: "L1-dcache-load-misses",
        formula: "D1mr",
        default: true,
        terms: &[("D1mr", 1)],
    },
    Simulated {
        name: "L1-dcache-store-misses",
        formula: "D1mw",
        default: true,
        terms: &[("D1mw", 1)],
    },
    Simulated {
        name: "L1-icache-load-misses",
        formula: "I1mr",
        default: true,
        terms: &[("I1mr", 1)],
    },
    Simulated {
        name: "LLC-load-misses",
        formula: "DLmr",
        default: true,
        terms: &[("DLmr", 1)],
    },
    Simulated {
        name: "LLC-store-misses",
        formula: "DLmw",
        default: true,
        terms: &[("DLmw", 1)],
    },
    Simulated {
        name: "estimated-cycles",
        formula: "Ir + Dr + Dw + 4 x (I1mr + D1mr + D1mw) + 30 x (ILmr + DLmr + DLmw)",
        default: true,
        terms: &[
            ("Ir", 1),
            ("Dr", 1),
            ("Dw", 1),
            ("I1mr", 4),
            ("D1mr", 4),
            ("D1mw", 4),
            ("ILmr", 30),
            ("DLmr", 30),
            ("DLmw", 30),
        ],
    },
    Simulated {
        name: "L1-dcache-loads",
        formula: "Dr",
        default: false,
        terms: &[("Dr", 1)],
    },
    Simulated {
        name: "L1-dcache-stores",
        formula: "Dw",
        default: false,
        terms: &[("Dw", 1)],
    },
];

/// The simulated counter called `name`.
///
/// ```
/// use perfbench::counters::callgrind::counter;
///
/// let misses = counter("L1-dcache-load-misses").unwrap();
/// assert_eq!((misses.formula, misses.default), ("D1mr", true));
/// assert!(!counter("L1-dcache-loads").unwrap().default); // offered, but not measured unless asked
/// assert_eq!(counter("cycles"), None); // a real CPU's cycles cannot be simulated
/// ```
pub fn counter(name: &str) -> Option<&'static Simulated> {
    COUNTERS.iter().find(|c| c.name == name)
}

/// What is wrong with a dump file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpError(String);

impl fmt::Display for DumpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DumpError {}

/// The header of one Callgrind dump file: what perfbench reads of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dump {
    /// `creator:` (`callgrind-3.19.0`), when given.
    pub creator: Option<String>,
    /// `part:`, the dump's number in its process (from 1), when given.
    pub part: Option<u64>,
    /// The name given to `DUMP_STATS_AT`, from `desc: Trigger: Client Request: NAME`.
    pub trigger: Option<String>,
    /// The `events:` line.
    pub events: Vec<String>,
    /// The `summary:` line, one value per event (Callgrind leaves out trailing zeros; they are
    /// filled in).
    pub summary: Vec<u64>,
}

/// The format version perfbench reads (`version:` line).
pub const FORMAT_VERSION: u64 = 1;

impl Dump {
    /// Parses a dump file's text. Errors on an empty file, a `version:` other than 1, a file
    /// without `events:` or `summary:`, a truncated one (no closing `totals:` line), values
    /// that are not counts or outnumber the events, and on `events:` other than [`EVENTS`].
    ///
    /// ```
    /// use perfbench::counters::callgrind::{Dump, EVENTS};
    ///
    /// let text = r"# callgrind format
    /// version: 1
    /// creator: callgrind-3.19.0
    /// pid: 4242
    /// cmd:  ./bench
    /// part: 2
    ///
    /// desc: I1 cache: 32768 B, 64 B, 8-way associative
    /// desc: Timerange: Basic block 0 - 64235
    /// desc: Trigger: Client Request: perfbench-1
    ///
    /// positions: line
    /// events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim
    /// summary: 517 5 5 1 0 0 1 0 0 101 9
    ///
    /// fn=(1) main
    /// 0 5 1
    /// totals: 508 2
    /// ";
    /// let dump = Dump::parse(text)?;
    /// assert_eq!(dump.creator.as_deref(), Some("callgrind-3.19.0"));
    /// assert_eq!((dump.part, dump.trigger.as_deref()), (Some(2), Some("perfbench-1")));
    /// assert_eq!(dump.events, EVENTS);
    /// // Callgrind leaves out trailing zeros; they are filled in.
    /// assert_eq!(dump.summary, [517, 5, 5, 1, 0, 0, 1, 0, 0, 101, 9, 0, 0]);
    ///
    /// let cut = &text[..text.find("totals:").unwrap()];
    /// let e = Dump::parse(cut).unwrap_err();
    /// assert_eq!(e.to_string(), "the file is truncated (no closing `totals:` line)");
    /// let old = Dump::parse(&text.replace(" Bc Bcm Bi Bim", "")).unwrap_err();
    /// assert!(old.to_string().starts_with("unexpected events `Ir Dr Dw"), "{old}");
    /// # Ok::<(), perfbench::counters::callgrind::DumpError>(())
    /// ```
    pub fn parse(text: &str) -> Result<Dump, DumpError> {
        let err = |m: String| Err(DumpError(m));
        if text.trim().is_empty() {
            return err("the file is empty".to_owned());
        }
        let mut dump = Dump {
            creator: None,
            part: None,
            trigger: None,
            events: Vec::new(),
            summary: Vec::new(),
        };
        let (mut summary, mut totals) = (None, false);
        for (i, line) in text.lines().enumerate() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            match key {
                "version" => match value.parse::<u64>() {
                    Ok(FORMAT_VERSION) => {}
                    _ => {
                        return err(format!(
                            "format version {value:?} (perfbench reads version {FORMAT_VERSION})"
                        ))
                    }
                },
                "creator" => {
                    if !value.starts_with("callgrind") {
                        return err(format!("written by {value:?}, not by Callgrind"));
                    }
                    dump.creator = Some(value.to_owned());
                }
                "part" => dump.part = value.parse().ok(),
                "desc" => {
                    if let Some(name) = value.strip_prefix("Trigger: Client Request: ") {
                        dump.trigger = Some(name.to_owned());
                    }
                }
                "events" => dump.events = value.split_whitespace().map(str::to_owned).collect(),
                "summary" => summary = Some((i + 1, value.to_owned())),
                "totals" => totals = true,
                _ => {}
            }
        }
        if dump.events.is_empty() {
            return err("no `events:` line".to_owned());
        }
        let unexpected: Vec<&str> = dump
            .events
            .iter()
            .map(String::as_str)
            .filter(|e| !EVENTS.contains(e))
            .collect();
        let missing: Vec<&str> = EVENTS
            .iter()
            .copied()
            .filter(|e| !dump.events.iter().any(|d| d == e))
            .collect();
        let repeated = dump
            .events
            .iter()
            .enumerate()
            .any(|(i, e)| dump.events[..i].contains(e));
        if !unexpected.is_empty() || !missing.is_empty() || repeated {
            return err(format!(
                "unexpected events `{}` (perfbench runs Callgrind with --cache-sim=yes \
                 --branch-sim=yes, which lists `{}`)",
                dump.events.join(" "),
                EVENTS.join(" ")
            ));
        }
        let Some((line, summary)) = summary else {
            return err("no `summary:` line".to_owned());
        };
        if !totals {
            return err("the file is truncated (no closing `totals:` line)".to_owned());
        }
        for word in summary.split_whitespace() {
            match word.parse::<u64>() {
                Ok(v) => dump.summary.push(v),
                Err(_) => return err(format!("line {line}: `{word}` is not a count")),
            }
        }
        if dump.summary.len() > dump.events.len() {
            return err(format!(
                "line {line}: {} values for {} events",
                dump.summary.len(),
                dump.events.len()
            ));
        }
        dump.summary.resize(dump.events.len(), 0);
        Ok(dump)
    }

    /// The summary's value of `event` (0 when the dump lacks it).
    ///
    /// ```
    /// use perfbench::counters::callgrind::Dump;
    ///
    /// # let text = r"# callgrind format
    /// # version: 1
    /// # creator: callgrind-3.19.0
    /// # pid: 4242
    /// # cmd:  ./bench
    /// # part: 2
    /// #
    /// # desc: I1 cache: 32768 B, 64 B, 8-way associative
    /// # desc: Timerange: Basic block 0 - 64235
    /// # desc: Trigger: Client Request: perfbench-1
    /// #
    /// # positions: line
    /// # events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim
    /// # summary: 517 5 5 1 0 0 1 0 0 101 9
    /// #
    /// # fn=(1) main
    /// # 0 5 1
    /// # totals: 508 2
    /// # ";
    /// let dump = Dump::parse(text)?;
    /// assert_eq!((dump.get("Ir"), dump.get("Bc"), dump.get("Bim")), (517, 101, 0));
    /// assert_eq!(dump.get("sysTime"), 0); // not an event of the dump
    /// # Ok::<(), perfbench::counters::callgrind::DumpError>(())
    /// ```
    pub fn get(&self, event: &str) -> u64 {
        self.events
            .iter()
            .position(|e| e == event)
            .map_or(0, |i| self.summary[i])
    }

    /// The instructions (`Ir`, always the first event) of the dump file at `path`, from its
    /// closing `totals:` line, reading only the file's last [`TAIL_BYTES`] into a buffer on the
    /// stack.
    ///
    /// For the process being measured: the header holds the process id, whose length varies
    /// from run to run; reading or parsing it (or allocating a buffer its size) would make the
    /// process run different code from run to run, and that code trains the simulated branch
    /// predictor before the samples. The tail of a dump is the same in every run of the same
    /// code.
    ///
    /// ```
    /// use perfbench::counters::callgrind::Dump;
    ///
    /// let path = std::env::temp_dir().join(format!("perfbench-doc-tail-{}", std::process::id()));
    /// let text = format!("# callgrind format\npid: 4242\n{}fn=(1) main\n0 5 1\n\ntotals: 508 2\n", "x\n".repeat(400));
    /// std::fs::write(&path, text)?;
    /// assert_eq!(Dump::tail_instructions(&path), Ok(508));
    /// std::fs::write(&path, "# callgrind format\npid: 4242\nfn=(1) main\n")?;
    /// assert!(Dump::tail_instructions(&path).unwrap_err().contains("no closing `totals:`"));
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn tail_instructions(path: &std::path::Path) -> Result<u64, String> {
        use std::io::{Read, Seek, SeekFrom};
        let fail = |e: &dyn fmt::Display| format!("Callgrind's dump {}: {e}", path.display());
        let mut file = std::fs::File::open(path).map_err(|e| fail(&e))?;
        let len = file.metadata().map_err(|e| fail(&e))?.len();
        let mut buf = [0u8; TAIL_BYTES];
        let take = len.min(TAIL_BYTES as u64) as usize;
        file.seek(SeekFrom::Start(len - take as u64))
            .and_then(|_| file.read_exact(&mut buf[..take]))
            .map_err(|e| fail(&e))?;
        let tail = buf[..take].trim_ascii_end();
        let last = tail
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(tail, |i| &tail[i + 1..]);
        let values = last
            .strip_prefix(b"totals:")
            .ok_or_else(|| fail(&"no closing `totals:` line (truncated?)"))?;
        let first = values
            .trim_ascii()
            .split(|&b| b == b' ')
            .next()
            .unwrap_or_default();
        std::str::from_utf8(first)
            .ok()
            .and_then(|w| w.parse().ok())
            .ok_or_else(|| fail(&"the `totals:` line does not start with a count"))
    }
}

/// How much of a dump's end [`Dump::tail_instructions`] reads: its `totals:` line with room to
/// spare (13 counts of at most 20 digits).
pub const TAIL_BYTES: usize = 512;

#[cfg(test)]
mod tests;
