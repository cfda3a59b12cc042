//! Which of them a run selects: the filters, `--exact`, `--ignored` and `--include-ignored`
//! (or the ids a front end resolved, [`Args::select`]).

use super::*;

pub(super) fn selected(p: &Job, args: &Args) -> bool {
    selected_id(&p.id, p.entry.options.ignore, args)
}

/// Whether the benchmark `id` (marked `ignore` or not) is selected by the filters (or by
/// [`Args::select`], which replaces them) and the `--ignored` / `--include-ignored` flags.
#[doc(hidden)]
pub fn selected_id(id: &str, ignore: bool, args: &Args) -> bool {
    let name_ok = if let Some(select) = &args.select {
        select.iter().any(|s| s == id)
    } else {
        args.filters.is_empty()
            || args.filters.iter().any(|f| {
                if args.exact {
                    id == f
                } else {
                    id.contains(f.as_str())
                }
            })
    };
    let ignore_ok = if args.ignored {
        ignore
    } else {
        args.include_ignored || !ignore
    };
    let only_ok = args
        .only
        .as_ref()
        .is_none_or(|only| only.iter().any(|s| s == id));
    name_ok && ignore_ok && only_ok
}
