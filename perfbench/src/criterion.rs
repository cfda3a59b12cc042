//! criterion 0.8 measurements that read perfbench counters (feature `criterion`).
//!
//! A criterion user keeps criterion (its API, its reports, its CLI) and swaps what it measures:
//! [`PerfMeasurement`] implements criterion's `Measurement` for any perf event perfbench can
//! open (`instructions`, `cycles:u`, `branch-misses`, `page-faults`, a sysfs PMU event, ...),
//! read through the same counter group as perfbench's own harness: the user-page fast path
//! (`rdpmc`, `mrs`) where the machine allows it, `read(2)` otherwise, multiplexing scaled.
//! Values are per-iteration counts, formatted with their unit and a K/M/G prefix in criterion's
//! output, and as counts per byte or element for throughput.
//!
//! ```no_run
//! use perfbench::criterion::{criterion::Criterion, PerfMeasurement};
//!
//! fn main() {
//!     let instructions = PerfMeasurement::new("instructions").expect("this machine counts instructions");
//!     let mut c = Criterion::default().with_measurement(instructions);
//!     c.bench_function("sum", |b| b.iter(|| (0..1000u64).sum::<u64>()));
//! }
//! ```
//!
//! Against criterion-perf-events (the usual answer so far): it opens one counter through
//! system calls (a `read(2)` per bracket) and is pinned to an old criterion; here a counter is
//! read in user space where the kernel allows it, several counters can be scheduled as one
//! group with one of them reported ([`PerfMeasurement::group`]), an event that cannot open
//! says why for this machine (the explanation `perfbench doctor` gives), and the crate follows
//! criterion 0.8.

use std::cell::RefCell;
use std::fmt;

pub use ::criterion;
use ::criterion::measurement::{Measurement, ValueFormatter};
use ::criterion::Throughput;

use crate::counters::{CounterError, Group, GroupOptions, Reading, Source};
use crate::events::{self, Sysfs};

/// Why a [`PerfMeasurement`] could not be made.
#[derive(Debug)]
pub enum AdapterError {
    /// A name is not an event perfbench knows.
    Event(String),
    /// `wall-time` is criterion's own measurement (`WallTime`), not a perf event.
    WallTime,
    /// The counters did not open here; the error says why and what to do.
    Open(CounterError),
}

impl fmt::Display for AdapterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdapterError::Event(e) => f.write_str(e),
            AdapterError::WallTime => f.write_str(
                "wall-time is not a perf event: use criterion's own WallTime measurement",
            ),
            AdapterError::Open(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for AdapterError {}

/// A criterion `Measurement` of one perfbench counter (possibly read as one of a group).
#[derive(Debug)]
pub struct PerfMeasurement {
    group: RefCell<Group>,
    end: RefCell<Reading>,
    index: usize,
    formatter: CountFormatter,
}

impl PerfMeasurement {
    /// Measures `counter` (a perf-style name, as `--counters` takes them).
    ///
    /// ```
    /// use perfbench::criterion::{criterion::measurement::Measurement, PerfMeasurement};
    ///
    /// // `page-faults` opens on every Linux machine (a software event).
    /// let faults = PerfMeasurement::new("page-faults").unwrap();
    /// let start = faults.start();
    /// let pages = vec![1u8; 64 << 12]; // 64 fresh pages, each touched once
    /// std::hint::black_box(&pages);
    /// let n = faults.to_f64(&faults.end(start));
    /// assert!(n >= 64.0, "{n}");
    /// assert!(PerfMeasurement::new("no-such-counter").is_err());
    /// ```
    pub fn new(counter: &str) -> Result<PerfMeasurement, AdapterError> {
        PerfMeasurement::group(&[counter], counter)
    }

    /// Opens `counters` as one group (the kernel schedules them together, as perfbench's own
    /// harness does) and reports `reported`, which must be one of them.
    ///
    /// ```
    /// use perfbench::criterion::PerfMeasurement;
    ///
    /// let faults = PerfMeasurement::group(&["page-faults", "task-clock"], "page-faults").unwrap();
    /// assert!(PerfMeasurement::group(&["page-faults"], "task-clock").is_err()); // not in the group
    /// # let _ = faults;
    /// ```
    pub fn group(counters: &[&str], reported: &str) -> Result<PerfMeasurement, AdapterError> {
        let sysfs = Sysfs::system();
        let events = counters
            .iter()
            .map(|name| events::parse(name, &sysfs).map_err(|e| AdapterError::Event(e.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        if events.iter().any(|e| e.perf().is_none()) {
            return Err(AdapterError::WallTime);
        }
        let index = counters
            .iter()
            .position(|&c| c == reported)
            .ok_or_else(|| {
                AdapterError::Event(format!("`{reported}` is not one of the group's counters"))
            })?;
        let group = Group::open(&events, &GroupOptions::default()).map_err(AdapterError::Open)?;
        group.enable().map_err(AdapterError::Open)?;
        let n = group.len();
        Ok(PerfMeasurement {
            group: RefCell::new(group),
            end: RefCell::new(Reading::with_len(n)),
            index,
            formatter: CountFormatter::for_event(reported),
        })
    }

    /// How the counter is read: `rdpmc`/`mrs` (the fast path) or `read`.
    ///
    /// ```
    /// use perfbench::criterion::PerfMeasurement;
    /// use perfbench::Source;
    ///
    /// // Software counters have no user-page fast path: they are read with read(2).
    /// assert_eq!(PerfMeasurement::new("page-faults").unwrap().source(), Source::Read);
    /// ```
    pub fn source(&self) -> Source {
        self.group.borrow().source()
    }

    fn read(&self, out: &mut Reading) {
        // A read error leaves the previous values: criterion's Measurement cannot fail, and
        // the error would repeat on every read (the group's fds are gone).
        let _ = self.group.borrow_mut().read(out);
    }
}

impl Measurement for PerfMeasurement {
    type Intermediate = Reading;
    type Value = f64;

    fn start(&self) -> Reading {
        let mut r = Reading::with_len(self.group.borrow().len());
        self.read(&mut r);
        r
    }

    fn end(&self, start: Reading) -> f64 {
        let mut end = self.end.borrow_mut();
        self.read(&mut end);
        let delta = end.values[self.index].wrapping_sub(start.values[self.index]) as f64;
        let enabled = end.time_enabled.wrapping_sub(start.time_enabled);
        let running = end.time_running.wrapping_sub(start.time_running);
        // Multiplexed: scale to the whole bracket, as perfbench's harness does.
        if running > 0 && running < enabled {
            delta * enabled as f64 / running as f64
        } else {
            delta
        }
    }

    fn add(&self, v1: &f64, v2: &f64) -> f64 {
        v1 + v2
    }

    fn zero(&self) -> f64 {
        0.0
    }

    fn to_f64(&self, value: &f64) -> f64 {
        *value
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        &self.formatter
    }
}

/// Counts with a unit and a K/M/G prefix (`1.23 Minstr`), per byte or element for throughput.
#[derive(Debug)]
struct CountFormatter {
    /// The unit with each prefix: "", K, M, G.
    prefixed: [&'static str; 4],
    per_byte: &'static str,
    per_element: &'static str,
}

impl CountFormatter {
    fn for_event(name: &str) -> CountFormatter {
        let base = name.split([':', '/']).next().unwrap_or(name);
        let unit = match base {
            "instructions" => "instr",
            "cycles" | "cpu-cycles" | "ref-cycles" | "bus-cycles" => "cycles",
            "branches" | "branch-instructions" => "branches",
            "branch-misses" | "cache-misses" | "L1-dcache-load-misses" | "LLC-load-misses" => {
                "misses"
            }
            "page-faults" | "faults" | "minor-faults" | "major-faults" => "faults",
            "context-switches" | "cs" => "switches",
            _ => "events",
        };
        // A handful of short strings per measurement, made once: criterion's formatter API
        // returns `&'static str`.
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        CountFormatter {
            prefixed: [
                leak(unit.to_owned()),
                leak(format!("K{unit}")),
                leak(format!("M{unit}")),
                leak(format!("G{unit}")),
            ],
            per_byte: leak(format!("{unit}/B")),
            per_element: leak(format!("{unit}/elem")),
        }
    }
}

impl ValueFormatter for CountFormatter {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (divisor, i) = match typical.abs() {
            t if t >= 1e9 => (1e9, 3),
            t if t >= 1e6 => (1e6, 2),
            t if t >= 1e3 => (1e3, 1),
            _ => (1.0, 0),
        };
        for v in values.iter_mut() {
            *v /= divisor;
        }
        self.prefixed[i]
    }

    fn scale_throughputs(
        &self,
        _typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let (per, unit) = match throughput {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) => (*n as f64, self.per_byte),
            Throughput::Elements(n) | Throughput::ElementsAndBytes { elements: n, .. } => {
                (*n as f64, self.per_element)
            }
            Throughput::Bits(n) => (*n as f64 / 8.0, self.per_byte),
        };
        for v in values.iter_mut() {
            *v /= per.max(1.0);
        }
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        self.prefixed[0]
    }
}
