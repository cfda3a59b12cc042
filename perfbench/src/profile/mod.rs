//! Profile mode (feature `profile`): sampling the measured region of a benchmark, and the
//! perf.data files that the real `perf` opens.
//!
//! - [`ring`]: the sampling ring buffer, drained record by record.
//! - [`record`]: the records the kernel writes into it (every `PERF_SAMPLE_*` field), decoded
//!   from borrowed bytes in either byte order.
//! - [`branch`]: branch-stack filters (`perf record -j` names) and entries.
//! - [`perfdata`]: perf.data files, written and read.
//! - [`symbols`]: naming sampled addresses from the binaries' symbol tables.
//! - [`stacks`]: the samples' call chains counted, named, cut below the harness and folded
//!   for flame graphs.
//! - [`Sampler`]: one sampling event on the calling thread, opened disabled, switched on and
//!   off around what is to be profiled, drained into a [`perfdata::Writer`].
//!
//! This module sits beside [`counters`](crate::counters), above [`sys`](mod@crate::sys) and
//! [`events`](crate::events); it imports nothing from the harness, the runner or the reports.

pub mod branch;
pub mod perfdata;
pub mod record;
pub mod ring;
pub mod stacks;
pub mod symbols;

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::events::{Event, EventKind};
use crate::sys::{self, raw, EventFd, Scope};

/// What a [`Sampler`] samples and how often.
#[derive(Clone, Debug)]
pub struct SamplingOptions {
    /// The event that triggers a sample: `cpu-clock` when `None` (the clock of the CPU the
    /// thread runs on, in ns; works without a PMU), else a perf event such as `cycles`.
    pub event: Option<Event>,
    /// How often.
    pub period: Period,
    /// Record the call chain of each sample (`PERF_SAMPLE_CALLCHAIN`, user space only; frame
    /// pointers make it complete, see docs/profile.md).
    pub callchain: bool,
    /// `branch_sample_type` bits: sample branch stacks (LBR, BRBE) when not 0.
    pub branch_sample_type: u64,
    /// Data pages of the ring buffer (a power of two).
    pub data_pages: usize,
}

impl Default for SamplingOptions {
    fn default() -> Self {
        SamplingOptions {
            event: None,
            period: Period::Frequency(4000),
            callchain: true,
            branch_sample_type: 0,
            data_pages: 256,
        }
    }
}

/// How often a sampling event fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Period {
    /// Every N events (for `cpu-clock`: every N ns).
    Every(u64),
    /// About N times a second (the kernel adjusts the period).
    Frequency(u64),
}

/// The `sample_type` a [`Sampler`] records.
///
/// ```
/// use perfbench::profile::{sample_type, SamplingOptions};
/// use perfbench::sys::raw;
///
/// let t = sample_type(&SamplingOptions::default());
/// for bit in [raw::PERF_SAMPLE_IDENTIFIER, raw::PERF_SAMPLE_IP, raw::PERF_SAMPLE_CALLCHAIN] {
///     assert_ne!(t & u64::from(bit), 0);
/// }
/// assert_eq!(t & u64::from(raw::PERF_SAMPLE_BRANCH_STACK), 0); // no branch filter asked for
/// let flat = sample_type(&SamplingOptions { callchain: false, ..SamplingOptions::default() });
/// assert_eq!(flat, t & !u64::from(raw::PERF_SAMPLE_CALLCHAIN));
/// ```
pub fn sample_type(options: &SamplingOptions) -> u64 {
    let mut t = raw::PERF_SAMPLE_IDENTIFIER
        | raw::PERF_SAMPLE_IP
        | raw::PERF_SAMPLE_TID
        | raw::PERF_SAMPLE_TIME
        | raw::PERF_SAMPLE_PERIOD;
    if options.callchain {
        t |= raw::PERF_SAMPLE_CALLCHAIN;
    }
    if options.branch_sample_type != 0 {
        t |= raw::PERF_SAMPLE_BRANCH_STACK;
    }
    u64::from(t)
}

/// Why sampling could not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileError {
    /// What failed.
    pub what: String,
    /// Why, for this machine.
    pub reason: String,
    /// What to do about it.
    pub fix: String,
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} ({})", self.what, self.reason, self.fix)
    }
}

impl std::error::Error for ProfileError {}

/// One sampling event on the calling thread, with its ring buffer.
#[derive(Debug)]
pub struct Sampler {
    fd: Arc<EventFd>,
    ring: ring::Ring,
    attr: sys::Attr,
    id: u64,
    name: String,
}

impl Sampler {
    /// Opens the sampling event on the calling thread (any CPU), disabled, and maps its ring.
    ///
    /// ```
    /// use perfbench::events::Event;
    /// use perfbench::profile::branch::BranchFilter;
    /// use perfbench::profile::{Period, Sampler, SamplingOptions};
    ///
    /// # use std::time::{Duration, Instant};
    /// # // Runs on this thread's CPU, draining `sampler`, until it has seen a sample (30 s at most).
    /// # fn until_sampled(sampler: &mut Sampler, records: &mut Vec<u8>) {
    /// #     let deadline = Instant::now() + Duration::from_secs(30);
    /// #     while sampler.stats().samples == 0 && Instant::now() < deadline {
    /// #         std::hint::black_box((0..100_000u64).sum::<u64>());
    /// #         sampler.drain(records).unwrap();
    /// #     }
    /// # }
    /// // cpu-clock (the default event) every millisecond of this thread's CPU time, into 8 pages.
    /// let options = SamplingOptions {
    ///     period: Period::Every(1_000_000),
    ///     data_pages: 8,
    ///     ..SamplingOptions::default()
    /// };
    /// let mut sampler = Sampler::open(&options)?; // opened disabled: nothing sampled yet
    /// let mut records = Vec::new();
    /// assert_eq!(sampler.drain(&mut records)?, 0);
    /// sampler.enable().unwrap();
    /// until_sampled(&mut sampler, &mut records);
    /// sampler.disable().unwrap();
    /// assert!(sampler.stats().samples > 0);
    ///
    /// // What cannot be sampled is refused with the reason and the fix.
    /// let wall = SamplingOptions { event: Some(Event::wall_time()), ..options.clone() };
    /// assert_eq!(Sampler::open(&wall).unwrap_err().what, "sampling on wall-time");
    /// let branches = SamplingOptions {
    ///     branch_sample_type: BranchFilter::ANY.bits(),
    ///     ..SamplingOptions::default()
    /// };
    /// let e = Sampler::open(&branches).unwrap_err();
    /// assert!(e.what.starts_with("cannot sample branch stacks on cpu-clock"), "{e}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(options: &SamplingOptions) -> Result<Sampler, ProfileError> {
        let mut attr = sys::new_attr();
        // perf 6.1 refuses perf.data files whose attr is larger than 128 bytes; the fields
        // past it (config3) are not used here.
        attr.size = perfdata::MAX_ATTR_SIZE;
        let (name, event) = match &options.event {
            None => ("cpu-clock".to_owned(), None),
            Some(e) => (e.name.clone(), Some(e)),
        };
        if options.branch_sample_type != 0 && !event.is_some_and(|e| e.needs_pmu()) {
            return Err(ProfileError {
                what: format!("cannot sample branch stacks on {name}"),
                reason: format!(
                    "branch stacks come from the CPU's branch record (LBR on x86, BRBE on \
                     arm64) and the kernel takes them only with a hardware event; {name} is \
                     a software event{}",
                    if crate::machine::Machine::cached().has_cpu_pmu() {
                        ""
                    } else {
                        ", and this machine has no CPU PMU at all"
                    }
                ),
                fix: "drop --branch-filter here; on a machine with LBR or BRBE, sample a \
                      hardware event (--profile-counter cycles)"
                    .into(),
            });
        }
        match event.map(|e| &e.kind) {
            None => {
                attr.type_ = raw::PERF_TYPE_SOFTWARE;
                attr.config = u64::from(raw::PERF_COUNT_SW_CPU_CLOCK);
                attr.set_exclude_kernel(1);
                attr.set_exclude_hv(1);
            }
            Some(EventKind::Perf(p)) => {
                attr.type_ = p.type_;
                attr.config = p.config;
                attr.__bindgen_anon_3.config1 = p.config1;
                attr.__bindgen_anon_4.config2 = p.config2;
                attr.set_exclude_user(u64::from(!p.user));
                attr.set_exclude_kernel(u64::from(!p.kernel));
                attr.set_exclude_hv(u64::from(!p.hypervisor));
                attr.set_precise_ip(u64::from(p.precise_ip));
            }
            Some(EventKind::WallTime | EventKind::Alloc(_)) => {
                let name = event.map_or("", |e| e.name.as_str());
                return Err(ProfileError {
                    what: format!("sampling on {name}"),
                    reason: format!(
                        "{name} is read by perfbench itself, not a perf event, so it cannot sample"
                    ),
                    fix: "sample on cpu-clock (the default) or a hardware event such as cycles"
                        .into(),
                });
            }
        }
        match options.period {
            Period::Every(n) => attr.__bindgen_anon_1.sample_period = n.max(1),
            Period::Frequency(hz) => {
                attr.set_freq(1);
                attr.__bindgen_anon_1.sample_freq = hz.max(1);
            }
        }
        attr.sample_type = sample_type(options);
        attr.branch_sample_type = options.branch_sample_type;
        attr.set_disabled(1);
        attr.set_exclude_callchain_kernel(1);
        attr.set_sample_id_all(0);
        attr.__bindgen_anon_2.wakeup_events = 0;
        let fd = EventFd::open(&mut attr, 0, -1, None).map_err(|failure| {
            let event = options.event.clone().unwrap_or_else(|| Event {
                name: name.clone(),
                kind: EventKind::WallTime,
            });
            let e = crate::machine::explain_open_failure(&event, &failure);
            let branch_refused = options.branch_sample_type != 0
                && matches!(failure.errno.0, libc::EOPNOTSUPP | libc::EINVAL);
            if branch_refused {
                return ProfileError {
                    what: format!("cannot sample branch stacks on {name} ({})", failure.errno),
                    reason: "this CPU's PMU offers no branch record (LBR on x86, BRBE on arm64), \
                             or a VM hides it, or it does not take this filter"
                        .into(),
                    fix: "drop --branch-filter, or try a simpler filter (any,u)".into(),
                };
            }
            ProfileError {
                what: format!("cannot sample on {name} ({})", failure.errno),
                reason: e.reason,
                fix: e.fix,
            }
        })?;
        let id = fd.id().map_err(|e| ProfileError {
            what: format!("cannot read the id of the {name} sampling event"),
            reason: format!("PERF_EVENT_IOC_ID failed: {e}"),
            fix: "this kernel is too old for profile mode (Linux 3.12 or newer)".into(),
        })?;
        let ring = ring::Ring::new(&fd, options.data_pages).map_err(|e| ProfileError {
            what: format!("cannot map {} pages of sampling buffer", options.data_pages),
            reason: format!("mmap failed: {e}"),
            fix: "use fewer pages, or raise /proc/sys/kernel/perf_event_mlock_kb".into(),
        })?;
        Ok(Sampler {
            fd: Arc::new(fd),
            ring,
            attr,
            id,
            name,
        })
    }

    /// Starts sampling.
    ///
    /// ```
    /// use perfbench::profile::{Period, Sampler, SamplingOptions};
    ///
    /// # use std::time::{Duration, Instant};
    /// # // Runs on this thread's CPU, draining `sampler`, until it has seen a sample (30 s at most).
    /// # fn until_sampled(sampler: &mut Sampler, records: &mut Vec<u8>) {
    /// #     let deadline = Instant::now() + Duration::from_secs(30);
    /// #     while sampler.stats().samples == 0 && Instant::now() < deadline {
    /// #         std::hint::black_box((0..100_000u64).sum::<u64>());
    /// #         sampler.drain(records).unwrap();
    /// #     }
    /// # }
    /// # let options = SamplingOptions {
    /// #     period: Period::Every(1_000_000),
    /// #     data_pages: 8,
    /// #     ..SamplingOptions::default()
    /// # };
    /// let mut sampler = Sampler::open(&options)?;
    /// let mut records = Vec::new();
    /// sampler.enable().unwrap();
    /// until_sampled(&mut sampler, &mut records);
    /// sampler.disable().unwrap();
    /// assert!(!records.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn enable(&self) -> Result<(), sys::Errno> {
        self.fd.enable(Scope::Event)
    }

    /// Stops sampling.
    ///
    /// ```
    /// use perfbench::profile::{Period, Sampler, SamplingOptions};
    ///
    /// # use std::time::{Duration, Instant};
    /// # // Runs on this thread's CPU, draining `sampler`, until it has seen a sample (30 s at most).
    /// # fn until_sampled(sampler: &mut Sampler, records: &mut Vec<u8>) {
    /// #     let deadline = Instant::now() + Duration::from_secs(30);
    /// #     while sampler.stats().samples == 0 && Instant::now() < deadline {
    /// #         std::hint::black_box((0..100_000u64).sum::<u64>());
    /// #         sampler.drain(records).unwrap();
    /// #     }
    /// # }
    /// # let options = SamplingOptions {
    /// #     period: Period::Every(1_000_000),
    /// #     data_pages: 8,
    /// #     ..SamplingOptions::default()
    /// # };
    /// let mut sampler = Sampler::open(&options)?;
    /// let mut records = Vec::new();
    /// sampler.enable().unwrap();
    /// until_sampled(&mut sampler, &mut records);
    /// sampler.disable().unwrap();
    /// sampler.drain(&mut records)?;
    /// // Switched off: however long this thread runs now, no record comes.
    /// std::hint::black_box((0..1_000_000u64).sum::<u64>());
    /// assert_eq!(sampler.drain(&mut records)?, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn disable(&self) -> Result<(), sys::Errno> {
        self.fd.disable(Scope::Event)
    }

    /// Moves the records now in the ring buffer to the end of `out`.
    ///
    /// The records drained are this thread's samples, decoded with the sampler's attr:
    ///
    /// ```
    /// use perfbench::profile::record::{parse, split, Record, SampleFormat};
    /// use perfbench::profile::{Period, Sampler, SamplingOptions};
    /// use perfbench::sys::gettid;
    ///
    /// # use std::time::{Duration, Instant};
    /// # // Runs on this thread's CPU, draining `sampler`, until it has seen a sample (30 s at most).
    /// # fn until_sampled(sampler: &mut Sampler, records: &mut Vec<u8>) {
    /// #     let deadline = Instant::now() + Duration::from_secs(30);
    /// #     while sampler.stats().samples == 0 && Instant::now() < deadline {
    /// #         std::hint::black_box((0..100_000u64).sum::<u64>());
    /// #         sampler.drain(records).unwrap();
    /// #     }
    /// # }
    /// # let options = SamplingOptions {
    /// #     period: Period::Every(1_000_000),
    /// #     data_pages: 8,
    /// #     ..SamplingOptions::default()
    /// # };
    /// let mut sampler = Sampler::open(&options)?;
    /// let mut records = Vec::new();
    /// sampler.enable().unwrap();
    /// until_sampled(&mut sampler, &mut records);
    /// sampler.disable().unwrap();
    /// let format = SampleFormat::from_attr(sampler.attr(), 1);
    /// let mut samples = 0;
    /// for record in split(&records) {
    ///     if let Record::Sample(s) = parse(&format, record?)? {
    ///         assert_eq!(s.tid, Some(gettid() as u32));
    ///         assert!(s.ip.is_some() && s.callchain.is_some());
    ///         samples += 1;
    ///     }
    /// }
    /// assert_eq!(samples, sampler.stats().samples);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn drain(&mut self, out: &mut Vec<u8>) -> Result<usize, ring::RingError> {
        self.ring.drain(out)
    }

    /// What the drains have seen (samples, lost, throttling).
    ///
    /// ```
    /// use perfbench::profile::{Period, Sampler, SamplingOptions};
    ///
    /// # use std::time::{Duration, Instant};
    /// # // Runs on this thread's CPU, draining `sampler`, until it has seen a sample (30 s at most).
    /// # fn until_sampled(sampler: &mut Sampler, records: &mut Vec<u8>) {
    /// #     let deadline = Instant::now() + Duration::from_secs(30);
    /// #     while sampler.stats().samples == 0 && Instant::now() < deadline {
    /// #         std::hint::black_box((0..100_000u64).sum::<u64>());
    /// #         sampler.drain(records).unwrap();
    /// #     }
    /// # }
    /// # let options = SamplingOptions {
    /// #     period: Period::Every(1_000_000),
    /// #     data_pages: 8,
    /// #     ..SamplingOptions::default()
    /// # };
    /// let mut sampler = Sampler::open(&options)?;
    /// let mut records = Vec::new();
    /// sampler.enable().unwrap();
    /// until_sampled(&mut sampler, &mut records);
    /// sampler.disable().unwrap();
    /// let s = sampler.stats();
    /// assert!(s.samples > 0);
    /// assert_eq!(s.bytes, records.len() as u64);
    /// // Samples, and what the kernel says about them: nothing else is asked for.
    /// assert_eq!(s.records, s.samples + s.lost_records + s.throttled + s.unthrottled);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stats(&self) -> ring::DrainStats {
        self.ring.stats()
    }

    /// The event as a perf.data file describes it, under `name` (perf shows it as the event's
    /// name: the benchmark's id, say).
    ///
    /// ```
    /// use perfbench::profile::{sample_type, Sampler, SamplingOptions};
    ///
    /// let options = SamplingOptions { data_pages: 1, ..SamplingOptions::default() };
    /// let sampler = Sampler::open(&options)?;
    /// let desc = sampler.event_desc("quickstart/fib");
    /// assert_eq!((desc.name.as_str(), desc.ids.len()), ("quickstart/fib", 1));
    /// assert_eq!(desc.attr.sample_type, sample_type(&options));
    /// # Ok::<(), perfbench::profile::ProfileError>(())
    /// ```
    pub fn event_desc(&self, name: &str) -> perfdata::EventDesc {
        perfdata::EventDesc {
            attr: self.attr,
            ids: vec![self.id],
            name: name.to_owned(),
        }
    }

    /// The name of the event that samples (`cpu-clock`, `cycles`).
    ///
    /// ```
    /// use perfbench::events::{parse, Sysfs};
    /// use perfbench::profile::{Sampler, SamplingOptions};
    ///
    /// let options = SamplingOptions { data_pages: 1, ..SamplingOptions::default() };
    /// assert_eq!(Sampler::open(&options)?.event_name(), "cpu-clock");
    /// let task_clock = parse("task-clock", &Sysfs::new("/nonexistent"))?;
    /// let options = SamplingOptions { event: Some(task_clock), ..options };
    /// assert_eq!(Sampler::open(&options)?.event_name(), "task-clock");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn event_name(&self) -> &str {
        &self.name
    }

    /// The attr the event was opened with (its `size` cut to [`perfdata::MAX_ATTR_SIZE`], as
    /// perf.data files carry it).
    ///
    /// ```
    /// use perfbench::profile::perfdata::MAX_ATTR_SIZE;
    /// use perfbench::profile::{sample_type, Period, Sampler, SamplingOptions};
    ///
    /// let options = SamplingOptions {
    ///     period: Period::Every(250_000),
    ///     data_pages: 1,
    ///     ..SamplingOptions::default()
    /// };
    /// let sampler = Sampler::open(&options)?;
    /// let attr = sampler.attr();
    /// assert_eq!(attr.sample_type, sample_type(&options));
    /// assert_eq!(attr.size, MAX_ATTR_SIZE); // what perf.data files carry
    /// assert_eq!((attr.disabled(), attr.freq()), (1, 0)); // a period, not a frequency
    /// # Ok::<(), perfbench::profile::ProfileError>(())
    /// ```
    pub fn attr(&self) -> &sys::Attr {
        &self.attr
    }
}

impl Sampler {
    /// Hands the ring buffer to a thread that drains it every `every` into `writer` (each
    /// drain's records, then a FINISHED_ROUND), and returns the event, for the measuring
    /// thread to switch on and off, with the [`Recording`] to finish.
    ///
    /// Profiling a region into a perf.data file, drained every 10 ms on another thread:
    ///
    /// ```
    /// use perfbench::profile::perfdata::{Features, PerfData, Writer};
    /// use perfbench::profile::{Period, Sampler, SamplingOptions};
    /// use perfbench::sys::Scope;
    /// use std::time::Duration;
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-record-{}", std::process::id()));
    /// # let options = SamplingOptions {
    /// #     period: Period::Every(1_000_000),
    /// #     data_pages: 8,
    /// #     ..SamplingOptions::default()
    /// # };
    /// let sampler = Sampler::open(&options)?;
    /// let path = dir.join("perf.data");
    /// let mut writer = Writer::create(&path, vec![sampler.event_desc("demo/sum")])?;
    /// writer.this_process()?;
    /// let (event, recording) = sampler.record(writer, Duration::from_millis(10));
    ///
    /// event.enable(Scope::Event).unwrap();
    /// // About 20 ms of CPU or more in an unoptimised build: plenty of 1 ms samples.
    /// std::hint::black_box((0..5_000_000u64).map(std::hint::black_box).sum::<u64>());
    /// event.disable(Scope::Event).unwrap();
    ///
    /// let recorded = recording.finish()?;
    /// assert!(recorded.stats.samples > 0);
    /// assert_eq!(recorded.ips.len() as u64, recorded.stats.samples);
    /// let (first, last) = recorded.time.unwrap();
    /// assert!(first <= last);
    /// let features = Features { sample_time: recorded.time, ..Features::of_this_machine() };
    /// recorded.writer.finish(&features)?;
    ///
    /// let data = PerfData::read(&path)?;
    /// assert_eq!(data.event_names[0].0, "demo/sum");
    /// assert_eq!(data.features.sample_time, Some((first, last)));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn record(
        mut self,
        mut writer: perfdata::Writer,
        every: Duration,
    ) -> (Arc<EventFd>, Recording) {
        let gate = Arc::clone(&self.fd);
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut buf = Vec::new();
            let mut seen = Seen::new(&self.attr);
            let mut pass = |s: &mut Sampler, w: &mut perfdata::Writer| -> Result<(), String> {
                buf.clear();
                s.drain(&mut buf).map_err(|e| e.to_string())?;
                if !buf.is_empty() {
                    seen.scan(&buf);
                    w.records(&buf)
                        .map_err(|e| format!("cannot write the profile: {e}"))?;
                    w.finished_round()
                        .map_err(|e| format!("cannot write the profile: {e}"))?;
                }
                Ok(())
            };
            while !stopping.load(Ordering::Acquire) {
                std::thread::park_timeout(every);
                pass(&mut self, &mut writer)?;
            }
            pass(&mut self, &mut writer)?;
            Ok(Recorded {
                writer,
                stats: self.stats(),
                time: seen.first.zip(seen.last),
                branches: most_first(seen.branches),
                mispredicted: most_first(seen.mispredicted),
                ips: seen.ips,
                chains: seen.chains,
            })
        });
        (
            gate,
            Recording {
                stop,
                thread: Some(thread),
            },
        )
    }
}

/// What the samples drained so far say: their instruction pointers, call chains, branches and
/// first and last times.
#[derive(Debug)]
struct Seen {
    format: record::SampleFormat,
    ips: Vec<u64>,
    /// Each distinct call chain (markers dropped; the ip alone without one) and its samples.
    chains: stacks::Chains,
    /// Taken branches of the samples' branch stacks, by (from, to).
    branches: std::collections::HashMap<(u64, u64), u64>,
    /// Mispredicted branches, by source.
    mispredicted: std::collections::HashMap<u64, u64>,
    first: Option<u64>,
    last: Option<u64>,
}

impl Seen {
    fn new(attr: &sys::Attr) -> Seen {
        Seen {
            format: record::SampleFormat::from_attr(attr, 0),
            ips: Vec::new(),
            chains: Default::default(),
            branches: Default::default(),
            mispredicted: Default::default(),
            first: None,
            last: None,
        }
    }

    /// Reads the samples of `records` (whole records, as a drain gives them). The drain has
    /// checked their sizes; a sample that does not decode is skipped (and stays in the file).
    fn scan(&mut self, records: &[u8]) {
        for r in record::split(records).flatten() {
            if let Ok(record::Record::Sample(s)) = record::parse(&self.format, r) {
                if let Some(ip) = s.ip {
                    self.ips.push(ip);
                }
                let mut chain = s
                    .callchain
                    .as_deref()
                    .map(stacks::frames)
                    .unwrap_or_default();
                if chain.is_empty() {
                    chain.extend(s.ip);
                }
                *self.chains.entry(chain).or_default() += 1;
                if let Some(t) = s.time {
                    self.first = Some(self.first.map_or(t, |f| f.min(t)));
                    self.last = Some(self.last.map_or(t, |l| l.max(t)));
                }
                for e in s.branch_stack.iter().flat_map(|b| &b.entries) {
                    *self.branches.entry((e.from, e.to)).or_default() += 1;
                    if e.mispredicted {
                        *self.mispredicted.entry(e.from).or_default() += 1;
                    }
                }
            }
        }
    }
}

/// A [`Sampler`]'s ring being drained on its own thread ([`Sampler::record`]).
#[derive(Debug)]
pub struct Recording {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<Recorded, String>>>,
}

/// What a finished [`Recording`] gives.
#[derive(Debug)]
pub struct Recorded {
    /// The writer, with every record written (finish it with the features).
    pub writer: perfdata::Writer,
    /// What the drains saw.
    pub stats: ring::DrainStats,
    /// Every sample's instruction pointer.
    pub ips: Vec<u64>,
    /// Each distinct call chain, innermost first ([`stacks::frames`]: the kernel's markers
    /// dropped; a sample without a chain has its ip alone), with the samples that had it: what
    /// [`stacks::fold`] folds.
    pub chains: stacks::Chains,
    /// The first and last sample's time.
    pub time: Option<(u64, u64)>,
    /// Taken branches of the samples' branch stacks, (from, to) with their count, most first.
    pub branches: Vec<((u64, u64), u64)>,
    /// Mispredicted branches by source address, with their count, most first.
    pub mispredicted: Vec<(u64, u64)>,
}

/// A count map as a list, most first (ties by key, so the order is stable).
fn most_first<K: Ord + Copy>(counts: std::collections::HashMap<K, u64>) -> Vec<(K, u64)> {
    let mut v: Vec<(K, u64)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

impl Recording {
    /// Drains what is left and stops the thread.
    ///
    /// A recording whose event was never switched on:
    ///
    /// ```
    /// use perfbench::profile::perfdata::Writer;
    /// use perfbench::profile::{Sampler, SamplingOptions};
    /// use std::time::Duration;
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-finish-{}", std::process::id()));
    /// let options = SamplingOptions { data_pages: 1, ..SamplingOptions::default() };
    /// let sampler = Sampler::open(&options)?;
    /// let writer = Writer::create(&dir.join("perf.data"), vec![sampler.event_desc("idle")])?;
    /// let (_event, recording) = sampler.record(writer, Duration::from_secs(3600));
    /// let recorded = recording.finish()?; // drains now and stops: no wait for the next drain
    /// assert_eq!((recorded.stats.samples, recorded.writer.data_len()), (0, 0));
    /// assert!(recorded.ips.is_empty() && recorded.time.is_none() && recorded.branches.is_empty());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finish(mut self) -> Result<Recorded, String> {
        self.stop.store(true, Ordering::Release);
        let thread = self.thread.take().expect("finished once");
        thread.thread().unpark();
        thread
            .join()
            .unwrap_or_else(|_| Err("the profile's drain thread panicked".to_owned()))
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            self.stop.store(true, Ordering::Release);
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::branch::BranchEntry;
    use super::record::ByteOrder;
    use super::*;

    /// A sample as a [`Sampler`] with branch stacks records it.
    fn sample(ip: u64, time: u64, entries: &[BranchEntry]) -> Vec<u8> {
        let size = 8 + 8 * 5 + 8 + 24 * entries.len();
        let mut r = Vec::with_capacity(size);
        r.extend_from_slice(&raw::PERF_RECORD_SAMPLE.to_ne_bytes());
        r.extend_from_slice(&0u16.to_ne_bytes());
        r.extend_from_slice(&(size as u16).to_ne_bytes());
        for w in [1, ip, 0, time, 1000, entries.len() as u64] {
            r.extend_from_slice(&w.to_ne_bytes());
        }
        for e in entries {
            for w in [e.from, e.to, e.flags(ByteOrder::NATIVE)] {
                r.extend_from_slice(&w.to_ne_bytes());
            }
        }
        r
    }

    #[test]
    fn the_drain_collects_ips_times_and_branches_most_first() {
        let options = SamplingOptions {
            callchain: false,
            branch_sample_type: branch::BranchFilter::ANY.bits(),
            ..SamplingOptions::default()
        };
        let mut attr = sys::new_attr();
        attr.sample_type = sample_type(&options);
        attr.branch_sample_type = options.branch_sample_type;
        let hot = BranchEntry {
            from: 0x10,
            to: 0x20,
            mispredicted: true,
            ..BranchEntry::default()
        };
        let cold = BranchEntry {
            from: 0x30,
            to: 0x40,
            predicted: true,
            ..BranchEntry::default()
        };
        let mut buf = Vec::new();
        buf.extend(sample(0x100, 7, &[hot, cold]));
        buf.extend(sample(0x200, 5, &[hot]));
        buf.extend(sample(0x100, 9, &[hot, hot]));
        let mut seen = Seen::new(&attr);
        seen.scan(&buf);
        assert_eq!(seen.ips, vec![0x100, 0x200, 0x100]);
        // No call chains asked for: each sample's ip alone.
        assert_eq!(
            seen.chains,
            stacks::Chains::from([(vec![0x100], 2), (vec![0x200], 1)])
        );
        assert_eq!((seen.first, seen.last), (Some(5), Some(9)));
        assert_eq!(
            most_first(seen.branches),
            vec![((0x10, 0x20), 4), ((0x30, 0x40), 1)]
        );
        assert_eq!(most_first(seen.mispredicted), vec![(0x10, 4)]);
    }
}
