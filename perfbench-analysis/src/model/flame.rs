//! A simulated benchmark's costs per call path ([`Flame`]), what its flame graphs draw: the
//! data only, kept in the JSON report and in baselines so that a graph, or a comparison of two,
//! can be drawn later and elsewhere. `report::flame` renders it; `runner::simulate` makes it
//! from Callgrind's dumps.

use serde_derive::{Deserialize, Serialize};

/// The exact costs of a `--simulate` benchmark's measured region per call path: for each
/// counter and each path from the benchmark's body down to a function, what that function
/// itself spent there (its exclusive count). A function's inclusive count on a path (a flame
/// graph's frame width) is its own plus every path below it.
///
/// Counts cover [`Flame::iterations`] iterations: every round's sample, each the difference of
/// the body run `2n` and `n` times less the same of the empty body, as the counters' samples
/// are; a count divided by `iterations` is per iteration, and the counts of all paths of a
/// counter add up to its mean sample times `iterations`. [`Flame::folded`] has an example.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Flame {
    /// The iterations the counts cover (the samples' `n`, summed over the rounds).
    pub iterations: u64,
    /// The counters, in the order of each stack's `counts`: those of the benchmark's simulated
    /// counters whose counts are positive in all and on no path negative.
    pub counters: Vec<String>,
    /// The functions' names (demangled); a stack names its frames by index here. The first is
    /// the root, the benchmark's id: the body, with what the harness inlined into its loop.
    pub frames: Vec<String>,
    /// Every call path with a count, in order of its frames' names.
    pub stacks: Vec<FlameStack>,
}

/// One call path of a [`Flame`] and the counts of its last function there.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct FlameStack {
    /// Indices into [`Flame::frames`], from the root (the benchmark) to the function that
    /// spent `counts`.
    pub frames: Vec<u32>,
    /// The function's own count of each of [`Flame::counters`] on this path, over
    /// [`Flame::iterations`].
    pub counts: Vec<u64>,
}

/// What replaces `;` in a function's name in folded stacks, where `;` separates frames (a Rust
/// name can hold one: `<[u8; 4] as Trait>::f`): the full-width semicolon.
pub const FOLDED_SEMICOLON: char = '\u{ff1b}';

impl Flame {
    /// The position of `counter` in [`Flame::counters`].
    fn column(&self, counter: &str) -> Option<usize> {
        self.counters.iter().position(|c| c == counter)
    }

    /// The counts of `counter` on every path, added up: its mean sample times `iterations`.
    /// `None` when the flame has no such counter. [`Flame::folded`] has an example.
    pub fn total(&self, counter: &str) -> Option<u64> {
        let k = self.column(counter)?;
        Some(self.stacks.iter().filter_map(|s| s.counts.get(k)).sum())
    }

    /// A path's frames joined as in folded stacks: names separated by `;` (a `;` inside a name
    /// is [`FOLDED_SEMICOLON`]); `None` when an index is out of range (a hand-edited document).
    pub fn path(&self, stack: &FlameStack) -> Option<String> {
        let mut out = String::new();
        for (i, &f) in stack.frames.iter().enumerate() {
            if i > 0 {
                out.push(';');
            }
            let name = self.frames.get(f as usize)?;
            out.extend(
                name.chars()
                    .map(|c| if c == ';' { FOLDED_SEMICOLON } else { c }),
            );
        }
        Some(out)
    }

    /// `counter`'s folded stacks (Brendan Gregg's format, one `frame;frame;frame COUNT` line per
    /// path with a count, in order), what flame graph tools read; `None` when the flame has no
    /// such counter. Paths whose frames do not resolve are left out.
    ///
    /// ```
    /// use perfbench_analysis::model::{Flame, FlameStack};
    ///
    /// let flame = Flame {
    ///     iterations: 4,
    ///     counters: vec!["instructions".into()],
    ///     frames: vec!["suite/bench".into(), "parent".into(), "leaf".into()],
    ///     stacks: vec![
    ///         FlameStack { frames: vec![0], counts: vec![4] },
    ///         FlameStack { frames: vec![0, 1], counts: vec![40] },
    ///         FlameStack { frames: vec![0, 1, 2], counts: vec![400] },
    ///     ],
    /// };
    /// assert_eq!(
    ///     flame.folded("instructions").unwrap(),
    ///     "suite/bench 4\nsuite/bench;parent 40\nsuite/bench;parent;leaf 400\n"
    /// );
    /// assert_eq!(flame.total("instructions"), Some(444));
    /// assert_eq!(flame.folded("branches"), None); // not a counter of this flame
    /// ```
    pub fn folded(&self, counter: &str) -> Option<String> {
        let k = self.column(counter)?;
        let mut out = String::new();
        for s in &self.stacks {
            match (s.counts.get(k), self.path(s)) {
                (Some(&n), Some(path)) if n > 0 => {
                    out.push_str(&path);
                    out.push(' ');
                    out.push_str(&n.to_string());
                    out.push('\n');
                }
                _ => {}
            }
        }
        Some(out)
    }
}
