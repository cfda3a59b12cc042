//! The measured region's own costs per call path, from Callgrind's dumps: what a simulated
//! benchmark's flame graphs draw ([`Flame`]).
//!
//! Callgrind runs with `--separate-callers=`[`SEPARATE_CALLERS`]: it keeps a function's costs
//! apart for each chain of its callers (a *context*, named `f'caller'caller's caller'...`, up
//! to that many callers), so a context's own cost lines in a dump are exactly what that
//! function spent on that call path. [`Paths`] turns each context into a path from the
//! benchmark down: the frames from the innermost of perfbench's harness frames (the sampling
//! loop, `perfbench::harness::...`) outwards are cut, and what the harness frames spent
//! themselves (the loop, and the body's code inlined into it) goes to the root, named by the
//! benchmark's id. [`flame`] takes each path's counts through the regions as a sample takes
//! the dumps' totals (`(body(2n) - empty(2n)) - (body(n) - empty(n))`), summed over the rounds,
//! so that the empty body's region (the calibration) cancels and the root's inclusive count is
//! the counter's.
//!
//! Limits (docs/simulate.md): Callgrind names the second and deeper levels of a recursive
//! function `f'2` and leaves them out of its callees' contexts, so they are merged into the
//! first level, whose inclusive count holds them all; a function more than
//! [`SEPARATE_CALLERS`] calls below the harness, and code of threads the body starts, reach no
//! harness frame and hang from the root under [`DEEPER_FRAME`] and [`ELSEWHERE_FRAME`].
//!
//! This module reads only the cost lines and the function names of a dump whose header
//! [`Dump::parse`](perfbench::counters::callgrind::Dump::parse) has checked.

use std::collections::HashMap;

use crate::model::{Flame, FlameStack};
use perfbench::counters::callgrind::{Simulated, EVENTS};
use perfbench::harness::simulate::SimSample;

/// The callers Callgrind keeps apart per function (`--separate-callers`): how far below the
/// harness a call path is exact.
pub(crate) const SEPARATE_CALLERS: usize = 100;

/// The frame under which hang the functions more than [`SEPARATE_CALLERS`] calls deep, whose
/// contexts do not reach the harness.
pub(crate) const DEEPER_FRAME: &str = "[more than 100 calls below the benchmark]";

/// The frame under which hangs code whose call stack does not pass through the harness (a
/// thread the body started).
pub(crate) const ELSEWHERE_FRAME: &str = "[outside the benchmark's call stack]";

/// Whether `frame` is one of perfbench's own frames around the body: the sampling loop and the
/// criterion adapter's routines.
fn is_harness(frame: &str) -> bool {
    [
        "perfbench::harness::",
        "<perfbench::harness::",
        "perfbench_criterion::",
        "<perfbench_criterion::",
    ]
    .iter()
    .any(|p| frame.starts_with(p))
}

/// `name` demangled, where Callgrind left it mangled (a Rust symbol of the legacy or the v0
/// scheme), without the hash; else as it is.
fn demangled(name: &str) -> String {
    match rustc_demangle::try_demangle(name) {
        Ok(d) if name.starts_with("_ZN") || name.starts_with("_R") => format!("{d:#}"),
        _ => name.to_owned(),
    }
}

/// The frames of Callgrind context `context` below the harness, outermost first (see the
/// [module documentation](self)).
fn frames_of(context: &str) -> Vec<String> {
    // Innermost first. A piece of digits is the recursion level of the function before it.
    let mut chain: Vec<&str> = Vec::new();
    for piece in context.split('\'') {
        let level = !piece.is_empty() && piece.bytes().all(|b| b.is_ascii_digit());
        if !level || chain.is_empty() {
            chain.push(piece);
        }
    }
    let (cut, label) = match chain.iter().position(|f| is_harness(f)) {
        Some(i) => (i, None),
        None if chain.len() > SEPARATE_CALLERS => (chain.len(), Some(DEEPER_FRAME)),
        None => (chain.len(), Some(ELSEWHERE_FRAME)),
    };
    let mut frames: Vec<String> = label.into_iter().map(str::to_owned).collect();
    for f in chain[..cut].iter().rev() {
        let f = demangled(f);
        // A recursion's levels, merged.
        if frames.last() != Some(&f) {
            frames.push(f);
        }
    }
    frames
}

/// One benchmark's call paths: every frame name once, and every path as frame indices from the
/// root (index 0, the benchmark), each once.
#[derive(Debug)]
pub(crate) struct Paths {
    frames: Vec<String>,
    frame_index: HashMap<String, u32>,
    paths: Vec<Vec<u32>>,
    path_index: HashMap<Vec<u32>, u32>,
    /// Each context seen, and its path.
    contexts: HashMap<String, u32>,
}

impl Paths {
    /// No path yet but the root, named `root`.
    pub(crate) fn new(root: &str) -> Paths {
        Paths {
            frames: vec![root.to_owned()],
            frame_index: HashMap::from([(root.to_owned(), 0)]),
            paths: vec![vec![0]],
            path_index: HashMap::from([(vec![0], 0)]),
            contexts: HashMap::new(),
        }
    }

    /// The path of Callgrind context `context`.
    fn of_context(&mut self, context: &str) -> u32 {
        if let Some(&p) = self.contexts.get(context) {
            return p;
        }
        let mut path = vec![0];
        for name in frames_of(context) {
            let f = match self.frame_index.get(&name) {
                Some(&f) => f,
                None => {
                    let f = self.frames.len() as u32;
                    self.frame_index.insert(name.clone(), f);
                    self.frames.push(name);
                    f
                }
            };
            path.push(f);
        }
        let p = match self.path_index.get(&path) {
            Some(&p) => p,
            None => {
                let p = self.paths.len() as u32;
                self.path_index.insert(path.clone(), p);
                self.paths.push(path);
                p
            }
        };
        self.contexts.insert(context.to_owned(), p);
        p
    }
}

/// One dump's own costs per path of [`Paths`], each of the events in [`EVENTS`]' order.
pub(crate) type PathCosts = HashMap<u32, Vec<u64>>;

/// The function name of a `fn=` or `cfn=` line's value: `(id) name` (which names id), `(id)`
/// (an id named before) or `name` (Callgrind's `--compress-strings=no`).
fn function_name<'a>(
    spec: &'a str,
    names: &mut HashMap<&'a str, &'a str>,
    line: usize,
) -> Result<&'a str, String> {
    let Some(rest) = spec.strip_prefix('(') else {
        return Ok(spec.trim_end());
    };
    let Some((id, name)) = rest.split_once(')') else {
        return Err(format!("line {line}: `{spec}` is not a function name"));
    };
    let name = name.trim();
    if name.is_empty() {
        names
            .get(id)
            .copied()
            .ok_or_else(|| format!("line {line}: function ({id}) was never named"))
    } else {
        names.insert(id, name);
        Ok(name)
    }
}

/// The own costs of every function context in dump `text`, their paths added to `paths`.
/// Errors on a cost line before any function, a value that is not a count, or more values
/// than events.
pub(crate) fn parse(text: &str, paths: &mut Paths) -> Result<PathCosts, String> {
    let mut columns: Vec<Option<usize>> = Vec::new();
    let mut positions = 1;
    let mut names: HashMap<&str, &str> = HashMap::new();
    let mut current: Option<u32> = None;
    let mut inclusive_next = false;
    let mut costs = PathCosts::new();
    for (i, line) in text.lines().enumerate() {
        let Some(&first) = line.as_bytes().first() else {
            continue;
        };
        if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'*') {
            // The line after `calls=` is the call's inclusive cost: the callee's own are
            // under its own context.
            if std::mem::take(&mut inclusive_next) {
                continue;
            }
            let Some(p) = current else {
                return Err(format!("line {}: a cost before any function", i + 1));
            };
            let own = costs.entry(p).or_insert_with(|| vec![0; EVENTS.len()]);
            for (k, word) in line.split_ascii_whitespace().skip(positions).enumerate() {
                let value: u64 = word
                    .parse()
                    .map_err(|_| format!("line {}: `{word}` is not a count", i + 1))?;
                match columns.get(k) {
                    Some(Some(e)) => own[*e] = own[*e].saturating_add(value),
                    Some(None) => {}
                    None => return Err(format!("line {}: more values than events", i + 1)),
                }
            }
        } else if let Some(v) = line.strip_prefix("positions:") {
            positions = v.split_whitespace().count().max(1);
        } else if let Some(v) = line.strip_prefix("events:") {
            columns = v
                .split_whitespace()
                .map(|e| EVENTS.iter().position(|x| *x == e))
                .collect();
        } else if let Some(v) = line.strip_prefix("fn=") {
            current = Some(paths.of_context(function_name(v, &mut names, i + 1)?));
            inclusive_next = false;
        } else if let Some(v) = line.strip_prefix("cfn=") {
            function_name(v, &mut names, i + 1)?;
        } else if line.starts_with("calls=") {
            inclusive_next = true;
        }
    }
    Ok(costs)
}

/// The flame of a benchmark whose samples are `samples`, from each region's dump's costs per
/// path (`dumps`, by dump number; a dump missing counts nothing), for each of `counters` whose
/// counts are positive in all and on no path negative; `None` when none is.
pub(crate) fn flame(
    samples: &[SimSample],
    dumps: &HashMap<u32, PathCosts>,
    counters: &[&Simulated],
    paths: &Paths,
) -> Option<Flame> {
    let mut names = Vec::new();
    let mut columns: Vec<Vec<u64>> = Vec::new();
    for c in counters {
        let terms: Vec<(usize, i128)> = c
            .terms()
            .iter()
            .filter_map(|&(e, w)| Some((EVENTS.iter().position(|x| *x == e)?, i128::from(w))))
            .collect();
        let value = |dump: u32, p: u32| -> i128 {
            let own = dumps.get(&dump).and_then(|d| d.get(&p));
            own.map_or(0, |own| {
                terms.iter().map(|&(e, w)| w * i128::from(own[e])).sum()
            })
        };
        let mut counts = vec![0i128; paths.paths.len()];
        for s in samples {
            for (p, count) in counts.iter_mut().enumerate() {
                let p = p as u32;
                let net = |i: usize| {
                    let overhead = if s.per_pair {
                        i128::from(s.body[i].pairs) * value(s.empty[0].dump, p)
                    } else {
                        value(s.empty[i].dump, p)
                    };
                    value(s.body[i].dump, p) - overhead
                };
                *count += net(1) - net(0);
            }
        }
        if counts.iter().any(|&n| n < 0) || counts.iter().sum::<i128>() <= 0 {
            continue;
        }
        names.push(c.name.to_owned());
        columns.push(
            counts
                .into_iter()
                .map(|n| u64::try_from(n).unwrap_or(u64::MAX))
                .collect(),
        );
    }
    if names.is_empty() {
        return None;
    }
    // The paths with a count, and their frames: the root first, the others by name.
    let used: Vec<usize> = (0..paths.paths.len())
        .filter(|&p| columns.iter().any(|col| col[p] > 0))
        .collect();
    let mut frames: Vec<u32> = used
        .iter()
        .flat_map(|&p| paths.paths[p].iter().copied())
        .filter(|&f| f != 0)
        .collect();
    perfbench::sorting::sort_by(&mut frames, |a, b| {
        paths.frames[*a as usize].cmp(&paths.frames[*b as usize])
    });
    frames.dedup();
    frames.insert(0, 0);
    let index: HashMap<u32, u32> = frames
        .iter()
        .enumerate()
        .map(|(i, &f)| (f, i as u32))
        .collect();
    let mut stacks: Vec<(Vec<&str>, FlameStack)> = used
        .iter()
        .map(|&p| {
            let path = &paths.paths[p];
            let stack = FlameStack {
                frames: path.iter().map(|f| index[f]).collect(),
                counts: columns.iter().map(|col| col[p]).collect(),
            };
            let names = path.iter().map(|&f| paths.frames[f as usize].as_str());
            (names.collect(), stack)
        })
        .collect();
    perfbench::sorting::sort_by(&mut stacks, |a, b| a.0.cmp(&b.0));
    Some(Flame {
        iterations: samples.iter().map(|s| s.n).sum(),
        counters: names,
        frames: frames
            .iter()
            .map(|&f| paths.frames[f as usize].clone())
            .collect(),
        stacks: stacks.into_iter().map(|(_, s)| s).collect(),
    })
}

#[cfg(test)]
mod tests;
