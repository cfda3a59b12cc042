//! Every counter register (`PMEVCNTR0..5_EL0`, `PMCCNTR_EL0`) read as its own member, and a
//! disabled group's page offsets equal to `read(2)`.

use perfbench::counters::arch;
use perfbench::sys::{raw, Scope};

use crate::bodies::loop256;
use crate::checks::{figure, section, Checks};
use crate::raw_group::{hw_attr, ArmBits, RawGroup};

/// Six `instructions` events and `cycles` occupy every counter (PMEVCNTR0..5_EL0 and
/// PMCCNTR_EL0). Members are enabled one by one, so every counter holds a different
/// count, and each fast-path value must match its own `read(2)` value: a register table
/// with swapped entries would read another member's count.
pub(crate) fn phase_every_register(c: &mut Checks, bits: &ArmBits) {
    section("every counter register, group disabled: page offset == read(2)");
    let insn = hw_attr(raw::PERF_COUNT_HW_INSTRUCTIONS, bits.rdpmc);
    let cyc = hw_attr(raw::PERF_COUNT_HW_CPU_CYCLES, bits.rdpmc);
    let specs = [
        ("instructions#0", insn),
        ("instructions#1", insn),
        ("cycles", cyc),
        ("instructions#2", insn),
        ("instructions#3", insn),
        ("instructions#4", insn),
        ("instructions#5", insn),
    ];
    let g = match RawGroup::open(&specs, true) {
        Ok(g) => g,
        Err(e) => {
            c.check(false, e);
            return;
        }
    };
    g.leader().reset(Scope::Group).unwrap();
    g.leader().enable(Scope::Event).unwrap();
    for fd in &g.fds[1..] {
        loop256(1000); // 256000 instructions between two members' starts
        fd.enable(Scope::Event).unwrap();
    }
    loop256(1000);
    let indices = g.indices();
    let mut fast = vec![0u64; g.len()];
    let times = g.fast.read(&mut fast);
    g.stop();
    let (read, enabled, running) = g.read_syscall();
    let mut offsets = vec![0u64; g.len()];
    let offsets_ok = g.fast.page_offsets(&mut offsets);

    println!("member          index  register        fast (mrs)    read(2)       page offset");
    for i in 0..g.len() {
        println!(
            "{:<15} {:>5}  {:<15} {:>12}  {:>12}  {:>12}",
            g.names[i],
            indices[i],
            arch::aarch64_counter_register(indices[i]).unwrap_or("-"),
            fast[i],
            read[i],
            offsets[i]
        );
    }
    let mut sorted = indices.clone();
    sorted.sort_unstable();
    c.check(
        sorted == [1, 2, 3, 4, 5, 6, 32],
        format_args!("the group occupies indices 1..=6 and 32 (PMCCNTR_EL0): {indices:?}"),
    );
    figure("every-register indices", format_args!("{indices:?}"));
    c.check(times.is_some(), "fast read of the 7-member group served");
    c.check(
        running == enabled,
        format_args!("not multiplexed (enabled {enabled}, running {running})"),
    );
    // Each member's fast value was taken a few hundred instructions before the disable.
    let close: Vec<u64> = fast
        .iter()
        .zip(&read)
        .map(|(f, r)| r.wrapping_sub(*f))
        .collect();
    c.check(
        close.iter().all(|&d| d < 2000),
        format_args!("every member: read(2) - mrs value is small and non-negative: {close:?}"),
    );
    figure("every-register read-mrs", format_args!("{close:?}"));
    let mut distinct = read.clone();
    distinct.sort_unstable();
    c.check(
        distinct.windows(2).all(|w| w[1] - w[0] > 100_000),
        "members' counts differ by > 100000 (a swapped register would be caught)",
    );
    c.check(
        offsets_ok && offsets == read,
        "disabled group: every member's page offset equals its read(2) value exactly",
    );
    figure("every-register read(2)", format_args!("{read:?}"));
    c.check(
        g.indices().iter().all(|&i| i == 0),
        format_args!(
            "disabled group: every page shows index 0: {:?}",
            g.indices()
        ),
    );
    c.check(
        g.fast.read(&mut fast).is_none(),
        "disabled group: FastReader::read() declines",
    );
}
