//! [`Bencher`]: what a benchmark body drives. (The measuring runner lands with the harness;
//! until then a `Bencher` runs each routine once, as `--test` mode will.)

use std::hint::black_box;

/// Drives the code under measurement. A benchmark function that takes `&mut Bencher` calls one
/// of its `iter*` methods exactly once.
#[derive(Debug, Default)]
pub struct Bencher {
    iterations_run: u64,
}

impl Bencher {
    /// A bencher that runs each routine once (smoke-test mode).
    #[doc(hidden)]
    pub fn smoke_test() -> Bencher {
        Bencher::default()
    }

    /// Measures `routine`: every counter is read around batches of calls, the result is passed
    /// through [`black_box`] so the call is not optimised away.
    pub fn iter<O, R>(&mut self, mut routine: R)
    where
        R: FnMut() -> O,
    {
        black_box(routine());
        self.iterations_run += 1;
    }

    /// Measures `routine` on fresh inputs from `setup`; neither `setup` nor dropping the output
    /// is counted.
    pub fn iter_batched<I, O, S, R>(&mut self, mut setup: S, mut routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        let input = setup();
        black_box(routine(black_box(input)));
        self.iterations_run += 1;
    }

    /// How many iterations have run so far (for tests).
    #[doc(hidden)]
    pub fn iterations_run(&self) -> u64 {
        self.iterations_run
    }
}
