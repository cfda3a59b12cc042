//! The [`Report`] as JSON text: [`to_json`] writes it, [`from_json`] reads it back.
//!
//! Written with serde_json, pretty-printed with two-space indentation except that arrays of
//! plain values (the samples, the counter names) stay on one line, so a report of 100 samples
//! per counter stays readable. Read in two steps: the document's `schema_version` first (a
//! newer one is [`ReportError::UnsupportedVersion`] whatever else the file holds), then the
//! whole [`Report`], with the path of a bad field and its line and column in the error.
//! Nothing here panics on any input.

use std::fmt;
use std::io;

use serde_derive::Deserialize;
use serde_json::error::Category;
use serde_json::ser::{CompactFormatter, Formatter};

use super::{Report, SCHEMA_VERSION};

/// The report as pretty-printed JSON, without a trailing newline. Always valid JSON, whatever
/// the floats hold (non-finite ones are `null`).
///
/// ```
/// use perfbench_analysis::model::json::{from_json, to_json};
/// # use perfbench_analysis::model::{Benchmark, Config, CounterResult, Machine, Outcome, Report, Source};
/// # use perfbench_analysis::stats::{estimate, StatsConfig};
/// # fn wall(values: &[f64]) -> CounterResult {
/// #     CounterResult {
/// #         name: "wall-time".into(), unit: "ns".into(), source: Source::Clock,
/// #         multiplexed: false, per_iteration: values.to_vec(), iterations: vec![1000; values.len()],
/// #         rounds: Vec::new(), overhead: 0.0,
/// #         estimate: estimate(values, None, &StatsConfig::default()), change: None,
/// #     }
/// # }
/// # let mut fib = Benchmark::new("quickstart/fib", "quickstart", "fib", None, Outcome::Measured);
/// # fib.counters.push(wall(&[10.0, 10.5, 9.5, 10.0]));
/// # let report = Report::new("quickstart", Machine::default(), Config::default(), vec![fib]);
/// let text = to_json(&report);
/// assert!(text.starts_with("{\n  \"schema_version\": 1,"));
/// assert!(text.contains(r#""per_iteration": [10.0, 10.5, 9.5, 10.0]"#)); // samples on one line
/// assert_eq!(from_json(&text).unwrap(), report);
/// ```
pub fn to_json(report: &Report) -> String {
    to_pretty(report)
}

/// Any serializable value in the layout of [`to_json`]: objects indented, arrays of plain values
/// on one line. For the documents perfbench writes (reports, comparisons, BMF).
///
/// ```
/// use perfbench_analysis::model::json::to_pretty;
///
/// let text = to_pretty(&serde_json::json!({"ids": ["a", "b"], "nested": {"n": f64::NAN}}));
/// assert_eq!(text, "{\n  \"ids\": [\"a\", \"b\"],\n  \"nested\": {\n    \"n\": null\n  }\n}");
/// ```
pub fn to_pretty<T: serde::Serialize + ?Sized>(value: &T) -> String {
    write(value, Layout::default())
}

/// Any serializable value as compact JSON on one line (what `serde_json::to_string` writes),
/// for the messages between processes.
///
/// Written through the same serializer type as [`to_pretty`] (with a layout that leaves out the
/// whitespace), so that a type written both ways is compiled once.
///
/// ```
/// use perfbench_analysis::model::json::to_compact;
///
/// let value = serde_json::json!({"ids": ["a", "b"], "n": f64::INFINITY});
/// assert_eq!(to_compact(&value), r#"{"ids":["a","b"],"n":null}"#);
/// ```
pub fn to_compact<T: serde::Serialize + ?Sized>(value: &T) -> String {
    write(
        value,
        Layout {
            compact: true,
            ..Layout::default()
        },
    )
}

fn write<T: serde::Serialize + ?Sized>(value: &T, layout: Layout) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, layout);
    // Serializing perfbench's types into memory cannot fail: every map key is a string and
    // the writer is a Vec.
    value
        .serialize(&mut ser)
        .expect("perfbench's documents always serialize");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// A pretty layout that keeps arrays without objects or arrays in them on one line.
///
/// serde_json tells the formatter that an array element begins before it says what the element
/// is; the separator is written once the element's first token shows whether it is a container
/// (a new line and indentation) or a plain value (`, ` on the same line).
///
/// `compact`: no whitespace at all, as serde_json's `CompactFormatter` writes.
#[derive(Default)]
struct Layout {
    compact: bool,
    indent: usize,
    /// Per open array: whether it has had a container element (then `]` goes on its own line).
    arrays: Vec<bool>,
    /// Per open object: whether it has had a member.
    objects: Vec<bool>,
    /// An array element has begun (`Some(first)`) and nothing of it is written yet.
    pending: Option<bool>,
}

impl Layout {
    fn newline<W: ?Sized + io::Write>(&self, w: &mut W) -> io::Result<()> {
        if self.compact {
            return Ok(());
        }
        w.write_all(b"\n")?;
        for _ in 0..self.indent {
            w.write_all(b"  ")?;
        }
        Ok(())
    }

    /// Writes the separator of a pending array element, now that its kind is known.
    fn element<W: ?Sized + io::Write>(&mut self, w: &mut W, container: bool) -> io::Result<()> {
        let Some(first) = self.pending.take() else {
            return Ok(());
        };
        if container {
            if let Some(has) = self.arrays.last_mut() {
                *has = true;
            }
            if !first {
                w.write_all(b",")?;
            }
            self.newline(w)
        } else if first {
            Ok(())
        } else if self.compact {
            w.write_all(b",")
        } else {
            w.write_all(b", ")
        }
    }
}

macro_rules! scalar {
    ($($name:ident($t:ty)),* $(,)?) => {$(
        fn $name<W: ?Sized + io::Write>(&mut self, w: &mut W, v: $t) -> io::Result<()> {
            self.element(w, false)?;
            CompactFormatter.$name(w, v)
        }
    )*};
}

impl Formatter for Layout {
    scalar!(
        write_bool(bool),
        write_i8(i8),
        write_i16(i16),
        write_i32(i32),
        write_i64(i64),
        write_i128(i128),
        write_u8(u8),
        write_u16(u16),
        write_u32(u32),
        write_u64(u64),
        write_u128(u128),
        write_f32(f32),
        write_f64(f64),
        write_number_str(&str),
    );

    fn write_null<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.element(w, false)?;
        w.write_all(b"null")
    }

    fn begin_string<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.element(w, false)?;
        w.write_all(b"\"")
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.element(w, true)?;
        self.indent += 1;
        self.arrays.push(false);
        w.write_all(b"[")
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.indent -= 1;
        if self.arrays.pop() == Some(true) {
            self.newline(w)?;
        }
        w.write_all(b"]")
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        _: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.pending = Some(first);
        Ok(())
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        Ok(())
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.element(w, true)?;
        self.indent += 1;
        self.objects.push(false);
        w.write_all(b"{")
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.indent -= 1;
        if self.objects.pop() == Some(true) {
            self.newline(w)?;
        }
        w.write_all(b"}")
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if let Some(has) = self.objects.last_mut() {
            *has = true;
        }
        if !first {
            w.write_all(b",")?;
        }
        self.newline(w)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(if self.compact { b":" } else { b": " })
    }
}

/// Why a report could not be read. The message names the problem and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportError {
    /// The text is not JSON (truncated, nested too deeply, or not a report at all).
    Syntax {
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column (in bytes).
        column: usize,
        /// What was expected or found.
        message: String,
    },
    /// The document is JSON but not an object (`found`: `an array`, `a string`, ...).
    NotAReport {
        /// What the document is.
        found: &'static str,
    },
    /// `schema_version` is missing, not a version number, or newer than [`SCHEMA_VERSION`].
    UnsupportedVersion {
        /// The `schema_version` found, as written (`missing` when there is none).
        found: String,
    },
    /// A field is missing or has the wrong type.
    Field {
        /// Where, e.g. `benchmarks[2].counters.cycles.estimate`.
        path: String,
        /// What is wrong, e.g. ``missing field `mean` ``.
        message: String,
        /// 1-based line where it was found.
        line: usize,
        /// 1-based column.
        column: usize,
    },
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportError::Syntax {
                line,
                column,
                message,
            } => write!(
                f,
                "not valid JSON (line {line}, column {column}): {message}"
            ),
            ReportError::NotAReport { found } => write!(
                f,
                "expected a JSON object (a perfbench report), found {found}"
            ),
            ReportError::UnsupportedVersion { found } if found == "missing" => write!(
                f,
                "missing field `schema_version`: not a perfbench report (every report has one)"
            ),
            ReportError::UnsupportedVersion { found } => write!(
                f,
                "unsupported report schema_version {found}: this perfbench ({}) reads {}; \
                 re-run the benchmarks with it, or use the perfbench that wrote the report",
                env!("CARGO_PKG_VERSION"),
                match SCHEMA_VERSION {
                    1 => "version 1".to_owned(),
                    n => format!("versions 1 to {n}"),
                }
            ),
            ReportError::Field {
                path,
                message,
                line,
                column,
            } => {
                if path.is_empty() || path == "." {
                    write!(f, "{message} (line {line}, column {column})")
                } else {
                    write!(f, "{path}: {message} (line {line}, column {column})")
                }
            }
        }
    }
}

impl std::error::Error for ReportError {}

/// serde_json's message without its ` at line L column C` tail (the error says where itself).
fn bare_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let tail = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&tail).unwrap_or(&text).to_owned()
}

fn syntax(e: &serde_json::Error) -> ReportError {
    let message = bare_message(e);
    ReportError::Syntax {
        line: e.line(),
        column: e.column(),
        message: if e.classify() == Category::Eof {
            format!("truncated: {message}")
        } else {
            message
        },
    }
}

/// What the first token of a JSON document is, in words.
fn kind_of(text: &str) -> &'static str {
    match text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .bytes()
        .next()
    {
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// Where in `text` a data error `e` (not a syntax error: the first pass read the whole document)
/// was found, as a path like `benchmarks[2].counters.cycles.unit`; empty at the top level.
///
/// The document is scanned up to the error's line and column, keeping the open objects (with
/// the key being read) and arrays (with the element's index). A missing field is found where its
/// object ends, and the path names that object rather than the last key read in it.
fn path_at(text: &str, e: &serde_json::Error) -> String {
    enum Frame {
        Object { key: Option<String>, want_key: bool },
        Array { index: usize },
    }
    // serde_json's column is the number of bytes of the line read when the error was found.
    let line_start: usize = text
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum();
    let end = (line_start + e.column()).min(text.len());
    let missing = e.to_string().starts_with("missing field");
    let mut bytes = &text.as_bytes()[..end];
    if missing {
        // Found once the object's `}` was read: the object is still the one to name.
        bytes = bytes.trim_ascii_end();
        bytes = bytes.strip_suffix(b"}").unwrap_or(bytes);
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => stack.push(Frame::Object {
                key: None,
                want_key: true,
            }),
            b'[' => stack.push(Frame::Array { index: 0 }),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Object { want_key, .. }) => *want_key = true,
                Some(Frame::Array { index }) => *index += 1,
                None => {}
            },
            b'"' => {
                let start = i + 1;
                i = start;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if let Some(Frame::Object { key, want_key }) = stack.last_mut() {
                    if *want_key {
                        // Escapes decoded by serde_json; `get` (not indexing) as a guard against
                        // an offset inside a character.
                        let quoted = text.get(start - 1..(i + 1).min(text.len()));
                        *key = quoted.map(|q| {
                            serde_json::from_str::<String>(q)
                                .unwrap_or_else(|_| q.trim_matches('"').to_owned())
                        });
                        *want_key = false;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    if missing {
        if let Some(Frame::Object { key, .. }) = stack.last_mut() {
            *key = None;
        }
    }
    let mut path = String::new();
    for frame in &stack {
        match frame {
            Frame::Object { key: Some(k), .. } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
            }
            Frame::Object { key: None, .. } => {}
            Frame::Array { index } => path.push_str(&format!("[{index}]")),
        }
    }
    path
}

/// The first pass: only `schema_version`, everything else skipped unparsed.
#[derive(Deserialize)]
struct Probe {
    schema_version: Option<serde_json::Value>,
}

/// Reads a report written by [`to_json`] (or by any earlier perfbench).
///
/// A byte-order mark is skipped. Unknown members are ignored; members added after the first
/// version of the document may be missing. Never panics.
///
/// ```
/// use perfbench_analysis::model::json::{from_json, ReportError};
///
/// let newer = r#"{"schema_version": 99, "suite": "s"}"#;
/// assert_eq!(from_json(newer), Err(ReportError::UnsupportedVersion { found: "99".into() }));
///
/// let broken = "{\"schema_version\": 1, \"suite\": 5}";
/// let e = from_json(broken).unwrap_err();
/// assert!(matches!(&e, ReportError::Field { path, .. } if path == "suite"), "{e}");
/// ```
pub fn from_json(text: &str) -> Result<Report, ReportError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // JSON's own whitespace: a document of U+00A0 is not empty but invalid.
    let json_ws = [' ', '\t', '\n', '\r'];
    if text.trim_matches(json_ws).is_empty() {
        return Err(ReportError::Syntax {
            line: 1,
            column: 0,
            message: "truncated: the document is empty".to_owned(),
        });
    }
    if !text.trim_start_matches(json_ws).starts_with('{') {
        // serde would read a struct from an array too: say what the document is instead.
        return Err(match serde_json::from_str::<serde::de::IgnoredAny>(text) {
            Ok(_) => ReportError::NotAReport {
                found: kind_of(text),
            },
            Err(e) => syntax(&e),
        });
    }
    let probe: Probe = serde_json::from_str(text).map_err(|e| syntax(&e))?;
    match probe.schema_version {
        None => {
            return Err(ReportError::UnsupportedVersion {
                found: "missing".to_owned(),
            })
        }
        Some(v) => match v.as_u64() {
            Some(n) if (1..=SCHEMA_VERSION).contains(&n) => {}
            _ => {
                return Err(ReportError::UnsupportedVersion {
                    found: v.to_string(),
                })
            }
        },
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let report: Report =
        serde::Deserialize::deserialize(&mut de).map_err(|e| ReportError::Field {
            path: path_at(text, &e),
            message: bare_message(&e),
            line: e.line(),
            column: e.column(),
        })?;
    de.end().map_err(|e| syntax(&e))?;
    Ok(report)
}

#[cfg(test)]
mod tests;
