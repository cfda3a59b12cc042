//! The user-page fast path: reading a counter group without a system call. Where an event's user
//! page allows it (`cap_user_rdpmc`, `index != 0`; `perf_event_open(2)`, "MMAP layout"), the count
//! is `offset + sign_extend(hardware_counter[index - 1], pmc_width)`, read inside a seqlock retry
//! loop on the page's `lock`. [`FastReader`] does that for a whole group in one retry loop,
//! extrapolating `time_enabled`/`time_running` (with `cap_user_time`) only when the group was
//! multiplexed or the caller asks ([`FastReader::read_times`]); its straight-line hot path serves
//! [`Group::read`](crate::counters::Group::read) and, without any time,
//! [`Group::read_counts`](crate::counters::Group::read_counts). [`reference`](mod@reference) is the
//! minimal read its cost is held against. The reader is generic over [`PageView`] and
//! [`Registers`]: production uses `FastReader<MappedPage, arch::Native>`, the tests and benchmarks
//! [`sim`]'s simulated page. Opening events, mapping pages and the `read(2)` fallback belong to the
//! group code; the instructions live in [`arch`](super::arch).
//!
//! Its parts: `page` ([`PageView`]), `registers` ([`Registers`]), `reader` ([`FastReader`]),
//! `seqlock` (its general retry loop), `hot` (the straight-line hot path), [`reference`](mod@reference)
//! and [`sim`]. It reads pages and registers and nothing else: no system call, no allocation
//! on a read.

use std::hint;
use std::sync::atomic::{compiler_fence, Ordering};

use crate::sys::{cap, MappedPage, PageRef};

/// `$body` for `$i` = 0, 1, ... `$n - 1` (`$n` a constant of at most [`STRAIGHT_MAX`]), written
/// out one after the other: the compiler does not unroll every loop over a constant count whose
/// body is as large as a member's read, nor inline every closure such a body would be. The
/// body may `return` from the enclosing function.
macro_rules! unrolled {
    ($i:ident < $n:ident => $body:block) => {{
        const { assert!($n <= STRAIGHT_MAX, "more members than STRAIGHT_MAX") };
        unrolled!(@steps $i $n $body 0 1 2 3 4 5 6);
    }};
    (@steps $i:ident $n:ident $body:block $($k:literal)*) => {
        $(
            {
                let $i: usize = $k;
                if $i < $n $body
            }
        )*
    };
}

/// `$read` with `$pages` bound to the filled slot of the [`Hot`] `$hot` (its member count's
/// array of handles, tested in order of member count), `$none` when every slot is empty.
macro_rules! by_slot {
    ($hot:expr, $pages:ident => $read:expr, $none:expr) => {
        if let Some($pages) = $hot.one {
            $read
        } else if let Some($pages) = $hot.two {
            $read
        } else if let Some($pages) = $hot.three {
            $read
        } else if let Some($pages) = $hot.four {
            $read
        } else if let Some($pages) = $hot.five {
            $read
        } else if let Some($pages) = $hot.six {
            $read
        } else if let Some($pages) = $hot.seven {
            $read
        } else {
            $none
        }
    };
}

mod hot;
mod page;
mod reader;
mod registers;
mod seqlock;

pub(crate) use hot::*;
pub use page::*;
pub use reader::*;
pub use registers::*;
use seqlock::*;

#[doc(hidden)] // for tests and benchmarks of the reader
pub mod reference;
pub mod sim;

#[cfg(test)]
mod tests;
