//! Benchmarks defined in another file (and module) than the test that finds them.

use std::cell::Cell;

use perfbench::{perfbench, Bencher};

/// The line of `in_other_file`'s name.
pub const IN_OTHER_FILE_LINE: u32 = line!() + 2;
#[perfbench(group = "support")]
pub fn in_other_file(b: &mut Bencher) {
    b.iter(|| CALLS.set(CALLS.get() + 1));
}

thread_local! {
    /// How many times `in_other_file`'s routine ran on this thread.
    pub static CALLS: Cell<u64> = const { Cell::new(0) };
}

pub mod nested {
    use perfbench::perfbench;

    #[perfbench]
    pub(crate) fn deeper() -> &'static str {
        "deeper"
    }
}
