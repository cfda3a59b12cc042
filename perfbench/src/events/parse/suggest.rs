//! What a misspelt event name was probably meant to be: the closest known names.

use super::*;

/// Most suggestions an [`EventError`] carries.
pub(super) const MAX_SUGGESTIONS: usize = 3;

/// The error for a name nothing matched, with the closest known names.
pub(super) fn unknown_event(
    input: &str,
    base: &str,
    mods: Option<&str>,
    sysfs: &Sysfs,
) -> EventError {
    let suffix = mods.map(|m| format!(":{m}")).unwrap_or_default();
    let suggestions = closest(base, known_names(sysfs))
        .into_iter()
        .map(|name| {
            if name.ends_with('/') {
                format!("{name}{}", mods.unwrap_or_default())
            } else {
                format!("{name}{suffix}")
            }
        })
        .collect();
    EventError::new(
        input,
        format!("unknown counter `{input}` (`perfbench list` shows the known ones)"),
    )
    .suggesting(suggestions)
}

/// Up to [`MAX_SUGGESTIONS`] candidates close to `input` by edit distance, ignoring case (so a
/// wrongly cased name is always suggested), closest first. A `pmu/event/` candidate is also
/// compared by its bare event name. "Close" means within a third of the input's length.
pub(super) fn closest(input: &str, candidates: Vec<String>) -> Vec<String> {
    let lower = input.to_lowercase();
    let input_len = input.chars().count();
    let limit = (input_len / 3).max(1);
    // Ranked by distance, then whole-name matches before bare-event matches, then by the
    // case-sensitive distance, then by name.
    let mut scored: Vec<(usize, bool, usize, String)> = candidates
        .into_iter()
        .filter(|c| c != input)
        .filter_map(|candidate| {
            let bare = candidate
                .strip_suffix('/')
                .and_then(|c| c.split_once('/'))
                .map(|(_, event)| event);
            let keys =
                std::iter::once((false, candidate.as_str())).chain(bare.map(|event| (true, event)));
            let (distance, via_bare, cased) = keys
                // Lengths further apart than the limit cannot be within it.
                .filter(|(_, key)| key.chars().count().abs_diff(input_len) <= limit)
                .map(|(via_bare, key)| {
                    (
                        edit_distance(&lower, &key.to_lowercase()),
                        via_bare,
                        edit_distance(input, key),
                    )
                })
                .min()?;
            (distance <= limit).then_some((distance, via_bare, cased, candidate))
        })
        .collect();
    crate::sorting::sort_by(&mut scored, Ord::cmp);
    let mut out: Vec<String> = Vec::new();
    for (_, _, _, candidate) in scored {
        if !out.contains(&candidate) {
            out.push(candidate);
        }
    }
    out.truncate(MAX_SUGGESTIONS);
    out
}

/// The optimal-string-alignment distance between `a` and `b`: insertions, deletions,
/// substitutions and swaps of two adjacent characters each cost 1.
pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Rows i-2, i-1 and i of the distance matrix.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            current[j] = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                current[j] = current[j].min(before[j - 2] + 1);
            }
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}
