//! Exact counts across 32-bit counter overflow: a region of more than 2^32 instructions read
//! in chunks, and a sampling event with a short period.

use std::time::Instant;

use perfbench::sys::{self, raw};

use crate::bodies::{empty, loop256};
use crate::checks::{all_equal, figure, section, Checks};
use crate::raw_group::{bracket_fast, fast_then_stop, hw_attr, read_chunks, ArmBits, RawGroup};

/// Checks chunk deltas against `expect`: a delta is `expect` exactly when the read that
/// ended the chunk did not retry, and `expect + r * R` after `r` retries, with one constant
/// `R` (the instructions of one discarded attempt). Returns `R` (0 if nothing retried).
fn check_chunks(c: &mut Checks, what: &str, expect: u64, chunks: &[(u64, u32)]) -> u64 {
    let clean: Vec<u64> = chunks.iter().filter(|d| d.1 == 0).map(|d| d.0).collect();
    let retried: Vec<(u64, u32)> = chunks.iter().copied().filter(|d| d.1 != 0).collect();
    let r = retried
        .first()
        .map_or(0, |&(d, n)| d.wrapping_sub(expect) / u64::from(n));
    let bad: Vec<(u64, u32)> = chunks
        .iter()
        .copied()
        .filter(|&(d, n)| d != expect + u64::from(n) * r)
        .collect();
    c.check(
        bad.is_empty() && !clean.is_empty() && r < 1000,
        format_args!(
            "{what}: {} of {} chunks exactly {expect}, {} ended by a read that retried \
             exactly {expect} + {r} per retry{}",
            clean.len(),
            chunks.len(),
            retried.len(),
            if bad.is_empty() {
                String::new()
            } else {
                format!("; WRONG (delta, retries): {bad:?}")
            }
        ),
    );
    r
}

/// Exact counts across 32-bit counter overflow: one region of more than 2^32 instructions
/// (the kernel starts a 32-bit counter 2^31 below its overflow, so it overflows at least
/// twice) read in chunks, and a sampling event with a short period (an overflow every 2^22
/// instructions).
///
/// Under QEMU the overflow interrupt becomes pending when the counter register is next
/// accessed, i.e. at the `mrs` of the read that follows the wrap, so that read sees the
/// kernel update the page and retries: the seqlock doing its job.
pub(crate) fn phase_overflow(c: &mut Checks, bits: &ArmBits, overhead: u64) {
    section("32-bit counter overflow");
    let open = |name: &str, attr: sys::Attr| match RawGroup::open(&[(name, attr)], false) {
        Ok(g) => Some(g),
        Err(e) => {
            println!("FAIL {e}");
            None
        }
    };
    let insn = hw_attr(raw::PERF_COUNT_HW_INSTRUCTIONS, bits.rdpmc);

    // The constant of fast_then_stop, on a region without overflow.
    let Some(g) = open("instructions", insn) else {
        c.check(false, "open instructions");
        return;
    };
    g.start();
    loop256(1000);
    let Some((fast, read)) = fast_then_stop(&g) else {
        c.check(false, "fast read declined");
        return;
    };
    let stop_cost = read - fast;
    figure("fast-then-stop constant", stop_cost);
    drop(g);

    const CHUNKS: usize = 17; // 17 * 2^28 > 2^32
    const CHUNK_ITERS: u64 = 1 << 20; // 2^28 instructions per chunk with k = 256
    let Some(g) = open("instructions", insn) else {
        c.check(false, "open instructions");
        return;
    };
    g.start();
    let width = g.fast.pages()[0].pmc_width();
    let t = Instant::now();
    let mut values = [0u64; CHUNKS + 1];
    let mut retries = [0u32; CHUNKS + 1];
    let mut offsets = [0i64; CHUNKS + 1];
    // Calibration: the same chunk loop with the empty body (no overflow in 4 chunks).
    let (mut cv, mut cr, mut co) = ([0u64; 5], [0u32; 5], [0i64; 5]);
    let declined_cal = read_chunks(&g, empty, 1, &mut cv, &mut cr, &mut co);
    let cal: Vec<u64> = cv.windows(2).map(|w| w[1].wrapping_sub(w[0])).collect();
    c.check(
        declined_cal == 0 && cr == [0; 5] && all_equal(&cal),
        format_args!("chunk loop overhead constant: {cal:?}"),
    );
    let chunk_overhead = cal[0];
    figure("chunk loop overhead", chunk_overhead);
    let declined = read_chunks(
        &g,
        loop256,
        CHUNK_ITERS,
        &mut values,
        &mut retries,
        &mut offsets,
    );
    let last = fast_then_stop(&g);
    let region = values[CHUNKS].wrapping_sub(values[0]);
    let mut distinct = offsets.to_vec();
    distinct.dedup();
    println!(
        "{CHUNKS} chunks of 2^28 instructions: region {region} instructions (2^32 = {}), \
         offsets {distinct:?}, retries {retries:?}, {:.1} s guest clock",
        1u64 << 32,
        t.elapsed().as_secs_f64()
    );
    c.check(
        declined == 0,
        format_args!("no fast read declined ({declined})"),
    );
    c.check(
        width == 32,
        format_args!("counter width is 32 bits (pmc_width {width})"),
    );
    c.check(
        region > 1u64 << 32,
        format_args!("region longer than 2^32 instructions: {region}"),
    );
    c.check(
        distinct.len() >= 3,
        format_args!(
            "the kernel handled >= 2 counter overflows ({} distinct offsets)",
            distinct.len()
        ),
    );
    let chunks: Vec<(u64, u32)> = (1..=CHUNKS)
        .map(|i| (values[i].wrapping_sub(values[i - 1]), retries[i]))
        .collect();
    let r = check_chunks(
        c,
        "long region",
        256 * CHUNK_ITERS + chunk_overhead,
        &chunks,
    );
    // Where the overflow interrupt lands relative to the reads depends on QEMU's timers,
    // so retries are not compared across boots; the counts net of retries are.
    let total_retries: u64 = retries[1..].iter().map(|&n| u64::from(n)).sum();
    println!("long region: {total_retries} retried reads, {r} instructions per retry");
    figure("overflow region net of retries", region - total_retries * r);
    c.check(
        matches!(last, Some((f, r)) if r - f == stop_cost),
        format_args!(
            "after the region, read(2) - fast value = {:?}, as without overflow ({stop_cost})",
            last.map(|(f, r)| r.wrapping_sub(f))
        ),
    );
    let mut off = [0u64];
    let read = g.read_syscall().0[0];
    c.check(
        g.fast.page_offsets(&mut off) && off[0] == read,
        format_args!("disabled: page offset {} == read(2) {read}", off[0]),
    );
    drop(g);

    // An overflow every 2^22 instructions: a sampling event (no ring buffer, so samples are
    // dropped) whose counter the kernel reprograms at -period after each overflow.
    let mut attr = insn;
    attr.__bindgen_anon_1.sample_period = 1 << 22;
    let Some(g) = open("instructions/period=2^22", attr) else {
        c.check(false, "open a sampling instructions event");
        return;
    };
    g.start();
    let page = &g.fast.pages()[0];
    let mut chunks = Vec::with_capacity(256);
    let mut offsets = Vec::with_capacity(256);
    for _ in 0..256 {
        // 2^20 instructions per bracket
        let Some(b) = bracket_fast(&g, loop256, 4096) else {
            c.check(false, "fast read declined (short period)");
            return;
        };
        chunks.push((b.deltas[0], b.retries.1));
        offsets.push(page.offset());
    }
    let last = fast_then_stop(&g);
    offsets.dedup();
    c.check(
        offsets.len() >= 60,
        format_args!(
            "period 2^22: {} distinct page offsets over 2^28 instructions",
            offsets.len()
        ),
    );
    let r = check_chunks(c, "period 2^22", 256 * 4096 + overhead, &chunks);
    figure("short-period offsets", offsets.len());
    println!(
        "period 2^22: {} retried reads, {r} instructions per retry",
        chunks.iter().filter(|d| d.1 != 0).count()
    );
    c.check(
        matches!(last, Some((f, r)) if r - f == stop_cost),
        format_args!(
            "period 2^22: read(2) - fast value = {:?} (expected {stop_cost})",
            last.map(|(f, r)| r.wrapping_sub(f))
        ),
    );
}
