//! `perf_user_access` = 0: the page shows index 0, the fast reader declines, `mrs` traps with
//! SIGILL, `read(2)` still counts exactly.

use perfbench::counters::arch::{self, Mrs};
use perfbench::counters::userpage::{Capability, Registers};
use perfbench::sys::raw;

use crate::bodies::{empty, loop_k, N, SAMPLES};
use crate::checks::{all_equal, figure, section, spread, Checks};
use crate::raw_group::{bracket_syscall, hw_attr, ArmBits, RawGroup};

/// Runs `f` in a child process and returns the signal that ended it, if any.
fn signal_of_child(f: impl FnOnce()) -> Option<i32> {
    // SAFETY: the guest test is single-threaded, so the child may run arbitrary code.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        f();
        // SAFETY: leaving the child without running the parent's destructors.
        unsafe { libc::_exit(0) };
    }
    let mut status = 0;
    // SAFETY: waiting for the child just created.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status))
}

/// perf_user_access = 0: the page shows index 0, the fast reader declines, `mrs` traps,
/// `read(2)` counts exactly.
pub(crate) fn phase_user_access_off(c: &mut Checks, bits: &ArmBits) {
    section("perf_user_access = 0");
    let g = match RawGroup::open(
        &[(
            "instructions",
            hw_attr(raw::PERF_COUNT_HW_INSTRUCTIONS, bits.rdpmc),
        )],
        false,
    ) {
        Ok(g) => g,
        Err(e) => {
            c.check(false, e);
            return;
        }
    };
    g.start();
    let page = &g.fast.pages()[0];
    println!(
        "page: capabilities={:#x} index={} pmc_width={}",
        page.capabilities(),
        page.index(),
        page.pmc_width()
    );
    c.check(
        page.index() == 0,
        "the enabled event's page shows index == 0",
    );
    let capability = g.fast.capability();
    c.check(
        matches!(
            capability,
            Capability::IndexZero { member: 0 } | Capability::NoUserRdpmc { member: 0 }
        ),
        format_args!("FastReader::capability() declines: {capability}"),
    );
    let mut out = [0u64; 1];
    c.check(
        g.fast.read(&mut out).is_none(),
        "FastReader::read() returns None (caller falls back to read(2))",
    );
    // The fallback counts exactly too: read(2) brackets around k-loops.
    let base: Vec<u64> = (0..SAMPLES)
        .map(|_| bracket_syscall(&g, empty, 1))
        .collect();
    c.check(
        all_equal(&base),
        format_args!("read(2) bracket overhead constant: {:?}", &base[..3]),
    );
    for k in [2u64, 16] {
        let d: Vec<u64> = (0..SAMPLES)
            .map(|_| bracket_syscall(&g, loop_k(k), N))
            .collect();
        let per = (d[0] - base[0]) as f64 / N as f64;
        c.check(
            all_equal(&d) && d[0] - base[0] == k * N,
            format_args!(
                "read(2) path: k={k}: {per} instructions per iteration, spread {}",
                spread(&d)
            ),
        );
        figure(format_args!("read_path k={k} delta"), d[0]);
    }
    figure("read_path bracket", base[0]);
    g.stop();

    // Without user access the register read itself must trap (SIGILL), which is why the
    // reader checks the page first.
    let index = 1;
    let sig = signal_of_child(|| {
        let v = Mrs.read_counter(index);
        println!("child: mrs returned {v:?} (should have trapped)");
    });
    c.check(
        sig == Some(libc::SIGILL),
        format_args!(
            "mrs of {} without user access ends in SIGILL (got {sig:?})",
            arch::aarch64_counter_register(index).unwrap()
        ),
    );
}
