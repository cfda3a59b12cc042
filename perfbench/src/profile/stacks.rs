//! The samples' call stacks, folded for flame graphs: each distinct call chain counted once
//! ([`Chains`]), then named, cut below the harness and written as folded stacks (Brendan
//! Gregg's `root;caller;callee COUNT` lines, what flame graph tools read).
//!
//! A chain comes from the kernel innermost first: the sample's own instruction pointer, then
//! the return address of each caller (user space only, walked by frame pointer), with
//! `PERF_CONTEXT_*` markers between the kernel's and user space's parts ([`frames`] drops
//! them). [`fold`] names each address (a return address at `addr - 1`: a call that ends its
//! function returns to the next one's first byte), finds the innermost frame of perfbench's own
//! measuring code ([`is_harness`]) and keeps what is below it, under a root named after the
//! benchmark. What the harness itself spent in the measured region (its loop, and the body's
//! code inlined into it) is the root's own count. A chain with no harness frame in it (a
//! frame without a frame pointer broke the walk) keeps its sample's own function only, under
//! [`NO_HARNESS_FRAME`], and is counted in [`Folded::broken`].

use std::collections::{BTreeMap, HashMap};

/// Identical call chains (markers dropped, innermost first) with the samples that had each.
pub type Chains = HashMap<Vec<u64>, u64>;

/// The least of the kernel's `PERF_CONTEXT_*` markers (`PERF_CONTEXT_MAX`, -4095): the words of
/// a chain from here up are markers, not addresses.
pub const PERF_CONTEXT_MAX: u64 = u64::MAX - 4094;

/// The frame under the root for samples whose chain reaches no harness frame.
pub const NO_HARNESS_FRAME: &str = "[call chain without the harness: no frame pointers?]";

/// What replaces `;` in a name, where `;` separates frames (a Rust name can hold one:
/// `<[u8; 4] as Trait>::f`): the full-width semicolon, as in the simulated flame graphs.
pub const FOLDED_SEMICOLON: char = '\u{ff1b}';

/// The addresses of a raw call chain, innermost first: the `PERF_CONTEXT_*` markers and zero
/// words dropped.
///
/// ```
/// use perfbench::profile::stacks::{frames, PERF_CONTEXT_MAX};
///
/// let perf_context_user = u64::MAX - 511; // (u64)-512
/// assert_eq!(frames(&[perf_context_user, 0x1010, 0x2020, 0]), vec![0x1010, 0x2020]);
/// assert_eq!(frames(&[PERF_CONTEXT_MAX, u64::MAX]), Vec::<u64>::new());
/// ```
pub fn frames(chain: &[u64]) -> Vec<u64> {
    chain
        .iter()
        .copied()
        .filter(|&a| a != 0 && a < PERF_CONTEXT_MAX)
        .collect()
}

/// Whether `name` (demangled, without the hash) is a frame of perfbench's measuring code: the
/// harness (the sampling loop, the `Bencher::iter` closures, a body's `run`), the runner, the
/// counters and system calls of the measured bracket, and the criterion adapter's routines.
///
/// ```
/// use perfbench::profile::stacks::is_harness;
///
/// assert!(is_harness("perfbench::harness::bencher::Bencher::iter::{{closure}}"));
/// assert!(is_harness("<perfbench::harness::raw::Batched as core::ops::Drop>::drop"));
/// assert!(is_harness("perfbench::runner::main"));
/// assert!(!is_harness("my_suite::parse"));
/// assert!(!is_harness("<my_suite::Parser as perfbench::Body>::run_twice")); // the user's impl
/// ```
pub fn is_harness(name: &str) -> bool {
    const OWN: [&str; 6] = [
        "perfbench::harness::",
        "perfbench::runner::",
        "perfbench::counters::",
        "perfbench::sys::",
        "perfbench::profile::",
        "perfbench_criterion::",
    ];
    let name = name.strip_prefix('<').unwrap_or(name);
    OWN.iter().any(|p| name.starts_with(p))
}

/// Stacks folded by [`fold`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Folded {
    /// Each stack (`root;outer;...;inner`) and its samples, in the stacks' order.
    pub stacks: BTreeMap<String, u64>,
    /// All the samples.
    pub samples: u64,
    /// The samples whose chain reaches no harness frame (under [`NO_HARNESS_FRAME`]).
    pub broken: u64,
}

impl Folded {
    /// The folded stacks as text: a `stack COUNT` line each, sorted by stack (the same
    /// samples, the same bytes).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (stack, n) in &self.stacks {
            out.push_str(stack);
            out.push(' ');
            out.push_str(&n.to_string());
            out.push('\n');
        }
        out
    }
}

/// `name` made one frame of a folded stack: `;` replaced by [`FOLDED_SEMICOLON`], line breaks
/// by spaces.
fn frame_text(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            ';' => FOLDED_SEMICOLON,
            '\n' | '\r' => ' ',
            c => c,
        })
        .collect()
}

/// Folds `chains` (innermost first, markers dropped: [`frames`]) into stacks from `root` (the
/// benchmark's id) down, naming addresses with `name` (a return address, every one but a
/// chain's first, looked up at `addr - 1`); see the [module documentation](self).
///
/// ```
/// use perfbench::profile::stacks::{fold, Chains};
///
/// let names = |a: u64| match a {
///     0x100..=0x1ff => "suite::leaf",
///     0x200..=0x2ff => "suite::bench::{{closure}}",
///     0x300..=0x3ff => "perfbench::harness::bencher::Bencher::iter",
///     _ => "main",
/// };
/// // The sample in `leaf`, called by the body's closure, called by the harness, from main.
/// let chains = Chains::from([
///     (vec![0x110, 0x201, 0x301, 0x401], 3),
///     (vec![0x220, 0x301, 0x401], 1),
///     (vec![0x330, 0x401], 2), // in the harness itself
/// ]);
/// let folded = fold("suite/bench", &chains, |a| names(a).to_owned());
/// assert_eq!(
///     folded.text(),
///     "suite/bench 2\n\
///      suite/bench;suite::bench::{{closure}} 1\n\
///      suite/bench;suite::bench::{{closure}};suite::leaf 3\n"
/// );
/// assert_eq!((folded.samples, folded.broken), (6, 0));
/// ```
pub fn fold(root: &str, chains: &Chains, mut name: impl FnMut(u64) -> String) -> Folded {
    let root = frame_text(root);
    let mut names: HashMap<u64, String> = HashMap::new();
    let mut folded = Folded::default();
    for (chain, &n) in chains {
        folded.samples += n;
        // A caller's frame holds the address its call returns to: the call is the byte before.
        let at = |(i, &a): (usize, &u64)| if i == 0 { a } else { a.saturating_sub(1) };
        for a in chain.iter().enumerate().map(at) {
            names.entry(a).or_insert_with(|| frame_text(&name(a)));
        }
        let named: Vec<&str> = chain
            .iter()
            .enumerate()
            .map(|f| names[&at(f)].as_str())
            .collect();
        let mut stack = root.clone();
        match named.iter().position(|f| is_harness(f)) {
            Some(cut) => {
                for f in named[..cut].iter().rev() {
                    stack.push(';');
                    stack.push_str(f);
                }
            }
            None => {
                folded.broken += n;
                stack.push(';');
                stack.push_str(NO_HARNESS_FRAME);
                if let Some(leaf) = named.first() {
                    stack.push(';');
                    stack.push_str(leaf);
                }
            }
        }
        *folded.stacks.entry(stack).or_default() += n;
    }
    folded
}

/// The hot taken branches and misprediction sites of the samples' branch stacks, one per line,
/// most first, named with `name_at` (`function+0xOFFSET`): what `branches.txt` holds.
///
/// ```
/// use perfbench::profile::stacks::branches_text;
///
/// let text = branches_text(&[((0x10, 0x20), 5)], &[(0x10, 2)], |a| format!("f+{a:#x}"));
/// assert!(text.contains("      5  f+0x10 -> f+0x20\n"), "{text}");
/// assert!(text.contains("      2  f+0x10\n"), "{text}");
/// ```
pub fn branches_text(
    taken: &[((u64, u64), u64)],
    mispredicted: &[(u64, u64)],
    mut name_at: impl FnMut(u64) -> String,
) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let total: u64 = taken.iter().map(|b| b.1).sum();
    let _ = writeln!(
        out,
        "# taken branches in the samples' branch stacks ({total}), most first: count  from -> to"
    );
    for ((from, to), n) in taken {
        let _ = writeln!(out, "{n:7}  {} -> {}", name_at(*from), name_at(*to));
    }
    let missed: u64 = mispredicted.iter().map(|b| b.1).sum();
    let _ = writeln!(
        out,
        "\n# mispredicted branches ({missed}), by source, most first: count  from"
    );
    for (from, n) in mispredicted {
        let _ = writeln!(out, "{n:7}  {}", name_at(*from));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake symbol table: functions at 0x1000 (size 0x100 each), in this order.
    const FUNCTIONS: [&str; 6] = [
        "main",
        "perfbench::runner::main",
        "perfbench::harness::bencher::Bencher::iter",
        "suite::bench::{{closure}}",
        "suite::light",
        "suite::heavy",
    ];

    fn name(addr: u64) -> String {
        match addr.checked_sub(0x1000).map(|o| (o / 0x100) as usize) {
            Some(i) if i < FUNCTIONS.len() => FUNCTIONS[i].to_owned(),
            _ => format!("{addr:#x}"),
        }
    }

    /// The address `at` bytes into function `f`.
    fn at(f: usize, at: u64) -> u64 {
        0x1000 + 0x100 * f as u64 + at
    }

    const CONTEXT_USER: u64 = u64::MAX - 511;

    #[test]
    fn markers_are_dropped_and_return_addresses_named_at_the_call() {
        // The body calls `light` as its last instruction: the return address is the first byte
        // of the next function (`light` itself), which is not the caller.
        let raw = [
            CONTEXT_USER,
            at(4, 0x10),
            at(4, 0),
            at(2, 0x20),
            at(1, 0x30),
            at(0, 0x40),
        ];
        let chain = frames(&raw);
        assert_eq!(chain.len(), 5);
        let mut asked = Vec::new();
        let folded = fold("s/b", &Chains::from([(chain, 4)]), |a| {
            asked.push(a);
            name(a)
        });
        assert_eq!(
            folded.text(),
            "s/b;suite::bench::{{closure}};suite::light 4\n"
        );
        // The sample's own ip as it is, every return address less one.
        assert_eq!(
            asked,
            vec![
                at(4, 0x10),
                at(3, 0xff),
                at(2, 0x1f),
                at(1, 0x2f),
                at(0, 0x3f)
            ]
        );
    }

    #[test]
    fn the_harness_is_cut_and_the_root_is_the_benchmark() {
        let chains = Chains::from([
            (vec![at(5, 8), at(3, 9), at(2, 9), at(1, 9), at(0, 9)], 30),
            (vec![at(4, 8), at(3, 9), at(2, 9), at(1, 9), at(0, 9)], 10),
            (vec![at(3, 8), at(2, 9), at(1, 9), at(0, 9)], 2),
            (vec![at(2, 8), at(1, 9), at(0, 9)], 1),
            // A sample in perfbench's own code called from the body (a counter read, say):
            // the innermost harness frame cuts it to the root.
            (vec![at(1, 8), at(3, 9), at(2, 9), at(1, 9), at(0, 9)], 5),
        ]);
        let folded = fold("suite/bench;x", &chains, name);
        assert_eq!(
            folded.text(),
            "suite/bench\u{ff1b}x 6\n\
             suite/bench\u{ff1b}x;suite::bench::{{closure}} 2\n\
             suite/bench\u{ff1b}x;suite::bench::{{closure}};suite::heavy 30\n\
             suite/bench\u{ff1b}x;suite::bench::{{closure}};suite::light 10\n"
        );
        assert_eq!((folded.samples, folded.broken), (48, 0));
        for line in folded.text().lines() {
            assert!(
                !line.contains("perfbench::") && !line.contains(";main"),
                "{line}"
            );
        }
    }

    #[test]
    fn a_chain_without_the_harness_keeps_its_leaf_under_its_own_frame() {
        let chains = Chains::from([
            (vec![at(5, 8), 0xdead_0000], 3),
            (vec![at(5, 8), at(3, 1), at(2, 1)], 1),
            (vec![], 1),
        ]);
        let folded = fold("s/b", &chains, name);
        assert_eq!(
            folded.text(),
            format!(
                "s/b;{NO_HARNESS_FRAME} 1\n\
                 s/b;{NO_HARNESS_FRAME};suite::heavy 3\n\
                 s/b;suite::bench::{{{{closure}}}};suite::heavy 1\n"
            )
        );
        assert_eq!((folded.samples, folded.broken), (5, 4));
    }

    #[test]
    fn the_same_samples_fold_to_the_same_bytes_whatever_the_order() {
        let chains: Vec<(Vec<u64>, u64)> = (0..200u64)
            .map(|i| (vec![at((i % 3) as usize + 3, i), at(3, 1), at(2, 1)], i + 1))
            .collect();
        let one = fold("s/b", &chains.iter().cloned().collect(), name).text();
        let other = fold("s/b", &chains.iter().rev().cloned().collect(), name).text();
        assert_eq!(one, other);
        let lines: Vec<&str> = one.lines().collect();
        let mut sorted = lines.clone();
        sorted.sort();
        assert_eq!(lines, sorted);
        assert_eq!(lines.len(), 3);
    }

    /// A sample as a [`Sampler`] with call chains records it (no branch stacks).
    fn sample_with_chain(ip: u64, chain: &[u64]) -> Vec<u8> {
        let size = 8 + 8 * 5 + 8 + 8 * chain.len();
        let mut r = Vec::with_capacity(size);
        r.extend_from_slice(&crate::sys::raw::PERF_RECORD_SAMPLE.to_ne_bytes());
        r.extend_from_slice(&0u16.to_ne_bytes());
        r.extend_from_slice(&(size as u16).to_ne_bytes());
        for w in [1, ip, 0, 1, 1000, chain.len() as u64] {
            r.extend_from_slice(&w.to_ne_bytes());
        }
        for w in chain {
            r.extend_from_slice(&w.to_ne_bytes());
        }
        r
    }

    #[test]
    fn the_drain_counts_identical_call_chains_without_the_markers() {
        let mut attr = crate::sys::new_attr();
        attr.sample_type = crate::profile::sample_type(&crate::profile::SamplingOptions::default());
        let user = u64::MAX - 511; // PERF_CONTEXT_USER
        let mut buf = Vec::new();
        buf.extend(sample_with_chain(0x100, &[user, 0x100, 0x205, 0x305]));
        buf.extend(sample_with_chain(0x100, &[user, 0x100, 0x205, 0x305]));
        buf.extend(sample_with_chain(0x110, &[user, 0x110, 0x205, 0x305]));
        buf.extend(sample_with_chain(0x120, &[user])); // a chain of markers only: the ip
        let mut seen = crate::profile::Seen::new(&attr);
        seen.scan(&buf);
        assert_eq!(
            seen.chains,
            Chains::from([
                (vec![0x100, 0x205, 0x305], 2),
                (vec![0x110, 0x205, 0x305], 1),
                (vec![0x120], 1),
            ])
        );
        assert_eq!(seen.ips, vec![0x100, 0x100, 0x110, 0x120]);
    }

    #[test]
    fn branches_are_listed_most_first_with_their_names() {
        let text = branches_text(
            &[((at(4, 1), at(5, 2)), 9), ((at(3, 0), at(4, 0)), 2)],
            &[(at(4, 1), 4)],
            |a| format!("{}+{:#x}", name(a), a & 0xff),
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "      9  suite::light+0x1 -> suite::heavy+0x2");
        assert_eq!(
            lines[2],
            "      2  suite::bench::{{closure}}+0x0 -> suite::light+0x0"
        );
        assert!(lines[0].contains("(11)"), "{text}");
        assert_eq!(lines.last(), Some(&"      4  suite::light+0x1"));
    }
}
