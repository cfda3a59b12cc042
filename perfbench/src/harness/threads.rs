//! Threaded bodies: [`Bencher::iter_threads`] runs a routine on N threads started together for
//! every sample, to show contention and scaling (divan's `threads`).
//!
//! For each sample (and each calibration run) the other N - 1 threads are started, each opens
//! the counter groups of the measuring thread's pass for itself (`perf_event_open` counts the
//! calling thread) and waits at a barrier with the measuring thread; then each brackets its own
//! `n` iterations. Counters are summed over the threads, per iteration: an iteration of a body
//! on 4 threads is 4 calls, and its `instructions` are those of the 4. Wall time is the mean of
//! the threads' own brackets, per iteration, as divan reports it: how long one call takes
//! while N run at once. The calibration is the same shape with an empty routine, so each
//! thread's bracket cost is subtracted. Under Callgrind (`--simulate`) and in profile mode the
//! N shares run one after another on the measuring thread, in one bracket: the counts are the
//! same sum (Callgrind runs one thread at a time anyway), without the contention.
//!
//! The benchmark's result records the thread count (`threads` in the JSON report, for every
//! `iter_threads` body, 1 included), and the reports say what its figures mean.

use std::hint::black_box;
use std::sync::Barrier;

use super::sampler::{Body, Meter};
use super::Bencher;
use crate::counters::{Counters, GroupOptions};

impl Bencher {
    /// Measures `routine` on `threads` threads at once (0: the machine's available
    /// parallelism), each calling it `n` times per sample; counters are summed over the
    /// threads, wall time is each thread's mean (see the [module](self)). The report records
    /// the thread count and says so beside the benchmark.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use std::sync::Mutex;
    ///
    /// # let mut b = perfbench::Bencher::smoke_test();
    /// let counter = AtomicU64::new(0);
    /// b.iter_threads(2, || counter.fetch_add(1, Ordering::Relaxed));
    /// # let mut b = perfbench::Bencher::smoke_test();
    /// let locked = Mutex::new(0u64);
    /// b.iter_threads(2, || *locked.lock().unwrap() += 1);
    /// ```
    pub fn iter_threads<O, R>(&mut self, threads: usize, routine: R)
    where
        R: Fn() -> O + Sync,
    {
        let threads = resolve(threads);
        self.set_threads(threads);
        let mut body = Threaded {
            threads,
            routine: &routine,
        };
        let mut empty = Threaded {
            threads,
            routine: &|| (),
        };
        self.drive(&mut body, &mut empty, |body| {
            std::thread::scope(|s| {
                for _ in 0..body.threads {
                    s.spawn(|| {
                        black_box((body.routine)());
                    });
                }
            });
        });
    }
}

/// The thread count `threads` stands for: itself, or the machine's available parallelism for 0.
///
/// ```
/// use perfbench::harness::threads::resolve;
///
/// assert_eq!(resolve(3), 3);
/// assert!(resolve(0) >= 1);
/// ```
pub fn resolve(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// What the figures of a body on `threads` threads are, as the reports say it beside the
/// benchmark; `None` for one thread, whose figures read as any other body's.
///
/// ```
/// use perfbench::harness::threads::figures_note;
///
/// assert_eq!(
///     figures_note(4).as_deref(),
///     Some("on 4 threads (counters summed over the threads; wall-time per thread)")
/// );
/// assert_eq!(figures_note(1), None);
/// ```
pub fn figures_note(threads: u32) -> Option<String> {
    (threads > 1).then(|| {
        format!("on {threads} threads (counters summed over the threads; wall-time per thread)")
    })
}

/// `iter_threads`: the routine on `threads` threads, each bracketing its own iterations.
struct Threaded<'r, R> {
    threads: usize,
    routine: &'r R,
}

impl<O, R: Fn() -> O + Sync> Body for Threaded<'_, R> {
    fn run(&mut self, n: u64, meter: &mut Meter<'_>) {
        let routine = self.routine;
        let Some(setup) = meter.thread_setup() else {
            // Under Callgrind or a profile's gate: every thread's share on this thread, one
            // after another, inside one bracket. Callgrind runs one thread at a time anyway, and
            // a barrier inside the collected region would make the counts vary.
            meter.start();
            for _ in 0..n * self.threads as u64 {
                black_box(routine());
            }
            meter.stop();
            return;
        };
        let barrier = Barrier::new(self.threads);
        std::thread::scope(|s| {
            let others: Vec<_> = (1..self.threads)
                .map(|_| {
                    let (setup, barrier) = (&setup, &barrier);
                    s.spawn(move || {
                        let opened = Counters::open(&setup.events, &GroupOptions::default());
                        let mut counters = match opened {
                            Ok(c) => c,
                            Err(e) => {
                                barrier.wait();
                                return Err(e);
                            }
                        };
                        let groups = counters.groups_mut();
                        for g in groups.iter() {
                            if let Err(e) = g.reset().and_then(|()| g.enable()) {
                                barrier.wait();
                                return Err(e);
                            }
                        }
                        let mut own = Meter::for_thread(groups, setup);
                        own.clear();
                        barrier.wait();
                        own.start();
                        for _ in 0..n {
                            black_box(routine());
                        }
                        own.stop();
                        own.thread_totals(n)
                    })
                })
                .collect();
            barrier.wait();
            meter.start();
            for _ in 0..n {
                black_box(routine());
            }
            meter.stop();
            for h in others {
                match h.join() {
                    Ok(Ok(totals)) => meter.add_thread(&totals),
                    Ok(Err(e)) => meter.thread_error(e),
                    Err(payload) => std::panic::resume_unwind(payload),
                }
            }
        });
    }
}
