//! Values of the command line that several layers share: the comparison thresholds
//! (`--threshold`, `--noise-threshold`), baseline names and the output format. They sit below
//! the harness so that the benchmark binary parses the whole command line, and the tool reads
//! it with the same code; the analysis re-exports them (`verdict::Settings`,
//! `baseline::valid_name`, `report::terminal::Format` in `perfbench-analysis`).
//!
//! It owns the values and their parsing only; what a threshold or a format does is the
//! analysis's.

/// Thresholds of a comparison: `--noise-threshold PCT` and `--threshold COUNTER=PCT`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// The relative change below which nothing is flagged, for every counter (0.05 for 5%)
    /// except those of the environment (`CounterKind::Environment`: context switches
    /// and migrations count the neighbours, not the code, and stay unflagged unless named in
    /// `thresholds`); `None`: each counter's default: with rounds
    /// (`CounterKind::threshold`) 0.5% for exact counts, 8% for time and cycles, 10%
    /// for misses; for reports without rounds (`CounterKind::samples_threshold`) 0.5%,
    /// 25% for time, 10% for cycles and misses.
    pub noise_threshold: Option<f64>,
    /// Per-counter thresholds by counter name, which win over `noise_threshold`. The last
    /// entry for a name wins. A threshold given either way is the whole rule for its counter:
    /// the one-count-per-iteration step of exact counters (`CompareConfig::min_step`) no
    /// longer applies.
    pub thresholds: Vec<(String, f64)>,
}

/// Parses a percentage as the command line gives it (`5`, `5%`, `0.5`) into a fraction.
///
/// ```
/// use perfbench::options::parse_percent;
///
/// assert_eq!(parse_percent("5"), Ok(0.05));
/// assert_eq!(parse_percent("5%"), Ok(0.05));
/// assert_eq!(parse_percent("0.5"), Ok(0.005));
/// assert!(parse_percent("five").is_err());
/// ```
pub fn parse_percent(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let t = t.strip_suffix('%').unwrap_or(t);
    match t.parse::<f64>() {
        Ok(p) if p.is_finite() && p >= 0.0 => Ok(p / 100.0),
        _ => Err(format!(
            "`{text}` is not a percentage (a number >= 0, like 5 or 2.5%)"
        )),
    }
}

/// Parses `COUNTER=PCT` (`--threshold wall-time=10`).
///
/// ```
/// use perfbench::options::parse_threshold;
///
/// assert_eq!(parse_threshold("wall-time=10"), Ok(("wall-time".to_string(), 0.10)));
/// assert!(parse_threshold("wall-time").is_err());
/// ```
pub fn parse_threshold(text: &str) -> Result<(String, f64), String> {
    match text.split_once('=') {
        Some((name, pct)) if !name.trim().is_empty() => {
            Ok((name.trim().to_owned(), parse_percent(pct)?))
        }
        _ => Err(format!(
            "`{text}` is not COUNTER=PCT (for example wall-time=10)"
        )),
    }
}

/// Whether `name` can be a baseline's directory name.
///
/// ```
/// use perfbench::options::valid_name;
///
/// assert!(valid_name("main") && valid_name("v1.2_rc-1"));
/// assert!(!valid_name("..") && !valid_name("a/b") && !valid_name(""));
/// ```
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Terminal output style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A table per group.
    Pretty,
    /// One line per benchmark.
    Terse,
    /// The JSON report on stdout.
    Json,
    /// libtest's `test ID ... bench: N ns/iter (+/- D)` lines, which `--format bencher`
    /// names (criterion's name for them); written by `perfbench_analysis::report::libtest`.
    Libtest,
}
