//! Events as raw `perf_event_attr`s and a raw counter group (`perfbench::sys` + `FastReader`),
//! and the measured reads through it: the brackets around a body through its fast read and
//! through `read(2)`, a fast read then the group's stop, and a run of reads in chunks.
//!
//! The reads stay beside the group they read: the instructions between two reads are what
//! the `FIGURE` lines hold, and the code generated for these functions depends on what is
//! compiled beside them (`fast_then_stop` and `read_chunks` in the overflow phase's module
//! read 1 and 3 instructions fewer in `fast-then-stop constant` and `chunk loop overhead`).

use perfbench::counters::arch::{self, Mrs};
use perfbench::counters::userpage::FastReader;
use perfbench::events::{self, Event, Pmu};
use perfbench::sys::{self, raw, EventFd, MappedPage, Scope};

/// Where the arm64 PMU wants its user-access and 64-bit bits (sysfs `format/rdpmc`,
/// `format/long`), as `config1` values.
pub(crate) struct ArmBits {
    pub(crate) rdpmc: u64,
    pub(crate) long: u64,
}

pub(crate) fn config1_bit(pmu: &Pmu, name: &str, fallback: u64) -> u64 {
    match pmu.format(name) {
        Some(f) if f.target == events::ConfigWord::Config1 => f.place(1).unwrap_or(fallback),
        _ => fallback,
    }
}

pub(crate) fn hw_attr(config: u32, config1: u64) -> sys::Attr {
    let mut a = sys::new_attr();
    a.type_ = raw::PERF_TYPE_HARDWARE;
    a.config = u64::from(config);
    a.config1 = config1;
    a.set_exclude_kernel(1);
    a.set_exclude_hv(1);
    a
}

pub(crate) fn event_attr(event: &Event, config1: u64) -> sys::Attr {
    let p = event.perf().expect("a perf event");
    let mut a = sys::new_attr();
    a.type_ = p.type_;
    a.config = p.config;
    a.config1 = p.config1 | config1;
    a.config2 = p.config2;
    a.config3 = p.config3;
    a.set_exclude_user(u64::from(!p.user));
    a.set_exclude_kernel(u64::from(!p.kernel));
    a.set_exclude_hv(u64::from(!p.hypervisor));
    a
}

pub(crate) struct RawGroup {
    pub(crate) names: Vec<String>,
    pub(crate) fds: Vec<EventFd>,
    ids: Vec<u64>,
    pub(crate) fast: FastReader<MappedPage, Mrs>,
}

impl RawGroup {
    /// Opens `specs` as one group (leader first, disabled), maps every member's page.
    /// `members_disabled`: members start disabled too (to enable them one by one).
    pub(crate) fn open(
        specs: &[(&str, sys::Attr)],
        members_disabled: bool,
    ) -> Result<RawGroup, String> {
        let mut fds: Vec<EventFd> = Vec::new();
        for (i, (name, attr)) in specs.iter().enumerate() {
            let mut a = *attr;
            a.read_format = sys::GROUP_READ_FORMAT;
            a.set_disabled(u64::from(i == 0 || members_disabled));
            let fd = EventFd::open(&mut a, 0, -1, fds.first())
                .map_err(|e| format!("open {name}: {:?}", e))?;
            fds.push(fd);
        }
        let ids = fds
            .iter()
            .map(|f| f.id().map_err(|e| format!("PERF_EVENT_IOC_ID: {e:?}")))
            .collect::<Result<Vec<_>, _>>()?;
        let pages = fds
            .iter()
            .map(|f| f.map_user_page().map_err(|e| format!("mmap: {e:?}")))
            .collect::<Result<Vec<_>, _>>()?;
        let regs = arch::native().expect("aarch64 has a register reader");
        Ok(RawGroup {
            names: specs.iter().map(|s| s.0.to_owned()).collect(),
            fds,
            ids,
            fast: FastReader::new(pages, regs),
        })
    }

    pub(crate) fn leader(&self) -> &EventFd {
        &self.fds[0]
    }

    pub(crate) fn len(&self) -> usize {
        self.fds.len()
    }

    pub(crate) fn start(&self) {
        self.leader().reset(Scope::Group).expect("reset");
        self.leader().enable(Scope::Group).expect("enable");
    }

    pub(crate) fn stop(&self) {
        self.leader().disable(Scope::Group).expect("disable");
    }

    /// `read(2)` of the group: values in member order, plus (enabled, running).
    pub(crate) fn read_syscall(&self) -> (Vec<u64>, u64, u64) {
        let mut buf = vec![0u64; sys::GROUP_HEADER_WORDS + 2 * self.len()];
        let n = self.leader().read_words(&mut buf).expect("read(2)");
        assert_eq!(n, buf.len() * 8, "read(2) returned {n} bytes");
        assert_eq!(buf[0] as usize, self.len(), "read(2): member count");
        let mut values = vec![0u64; self.len()];
        for pair in buf[sys::GROUP_HEADER_WORDS..].chunks(2) {
            let member = self.ids.iter().position(|&id| id == pair[1]);
            values[member.expect("read(2): unknown id")] = pair[0];
        }
        (values, buf[1], buf[2])
    }

    pub(crate) fn indices(&self) -> Vec<u32> {
        self.fast.pages().iter().map(|p| p.index()).collect()
    }
}

/// Fast read, `body(n)`, fast read: per-member deltas, or `None` if a read declined.
pub(crate) struct Bracket {
    pub(crate) deltas: Vec<u64>,
    /// Seqlock retries of the first and the second read. A retry of the second read moves
    /// its counter read one attempt later (the delta grows by that attempt's
    /// instructions); a retry of the first read changes nothing measured.
    pub(crate) retries: (u32, u32),
}

#[inline(never)]
pub(crate) fn bracket_fast(g: &RawGroup, body: fn(u64), n: u64) -> Option<Bracket> {
    let mut a = vec![0u64; g.len()];
    let mut b = vec![0u64; g.len()];
    let (t0, s0) = g.fast.read_with_stats(&mut a);
    t0?;
    body(n);
    let (t1, s1) = g.fast.read_with_stats(&mut b);
    t1?;
    Some(Bracket {
        deltas: a.iter().zip(&b).map(|(x, y)| y.wrapping_sub(*x)).collect(),
        retries: (s0.retries, s1.retries),
    })
}

/// `read(2)`, `body(n)`, `read(2)`: the leader's delta (the syscall path's bracket).
#[inline(never)]
pub(crate) fn bracket_syscall(g: &RawGroup, body: fn(u64), n: u64) -> u64 {
    let mut a = [0u64; 5];
    let mut b = [0u64; 5];
    g.leader().read_words(&mut a).expect("read");
    body(n);
    g.leader().read_words(&mut b).expect("read");
    b[3].wrapping_sub(a[3])
}

/// The fast-path value of a one-member group, then disable and `read(2)`: the difference
/// is a constant (the instructions from the `mrs` to the `ioctl`) whenever the fast value
/// is exact.
#[inline(never)]
pub(crate) fn fast_then_stop(g: &RawGroup) -> Option<(u64, u64)> {
    let mut v = [0u64];
    g.fast.read(&mut v)?;
    g.stop();
    let (read, _, _) = g.read_syscall();
    Some((v[0], read[0]))
}

/// Reads the one-member group `g` before the first and after every `body(n)` call, storing
/// each read's value, retries and the page's offset. Returns how many reads declined.
/// Between two reads there is only the call and the stores, a constant instruction count.
#[inline(never)]
pub(crate) fn read_chunks(
    g: &RawGroup,
    body: fn(u64),
    n: u64,
    values: &mut [u64],
    retries: &mut [u32],
    offsets: &mut [i64],
) -> u32 {
    let page = &g.fast.pages()[0];
    let mut declined = 0;
    for i in 0..values.len() {
        if i > 0 {
            body(n);
        }
        let mut v = [0u64];
        let (times, stats) = g.fast.read_with_stats(&mut v);
        declined += u32::from(times.is_none());
        values[i] = v[0];
        retries[i] = stats.retries;
        offsets[i] = page.offset();
    }
    declined
}
