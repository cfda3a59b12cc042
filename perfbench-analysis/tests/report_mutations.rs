//! A bounded, deterministic property test of the report reader: thousands of mutants of a
//! realistic report (byte flips, truncations, spliced spans, structural characters, values of
//! the wrong type or range, swapped values and keys, deep nesting, bad escapes and bad UTF-8).
//!
//! For every mutant, `from_json` must return (a panic fails the test), an error must say
//! something, and a report it accepts must write a document that reads back and writes the same
//! text again: `to_json(from_json(to_json(r))) == to_json(r)`.

use perfbench::rng::Rng;
use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::time::Instant;

use perfbench_analysis::model::json::{from_json, to_json};
use perfbench_analysis::model::{
    Benchmark, Change, Config, CounterResult, Derived, Machine, Method, Outcome, Report, Sampling,
    Simulator, Source, Throughput, Verdict,
};
use perfbench_analysis::stats::{estimate, StatsConfig};

/// How many mutants to check (deterministic: the same ones every run).
const MUTANTS: usize = 4000;
/// The seed of the mutation generator.
const SEED: u64 = 0x5eed_0f7e_9027_a1b3;

/// A report with every shape of the document: a measured benchmark with several counters (one
/// multiplexed, one without samples, one with a comparison), a derived metric, NaN among the
/// raw values, throughput of both kinds, and a panicked and a failed benchmark.
fn realistic_report() -> Report {
    let cfg = StatsConfig {
        resamples: 50,
        ..StatsConfig::default()
    };
    let counter = |name: &str, unit: &str, source, values: Vec<f64>| {
        let iterations: Vec<u64> = (1..=values.len() as u64).map(|i| i * 100).collect();
        CounterResult {
            name: name.to_owned(),
            unit: unit.to_owned(),
            source,
            multiplexed: name == "cycles",
            estimate: estimate(&values, Some(&iterations), &cfg),
            rounds: vec![4, 4],
            per_iteration: values,
            iterations,
            overhead: 41.5,
            change: None,
        }
    };
    let mut wall: Vec<f64> = (0..8).map(|i| 1200.0 + f64::from(i % 5) * 10.25).collect();
    wall[3] = 5000.0;
    let instructions = vec![4523.0; 8];
    let cycles: Vec<f64> = (0..8).map(|i| 3800.0 + f64::from(i % 3)).collect();
    let ipc: Vec<f64> = instructions
        .iter()
        .zip(&cycles)
        .map(|(i, c)| i / c)
        .collect();
    let mut misses = vec![0.25; 8];
    misses[5] = f64::NAN;
    let mut instr = counter("instructions", "count", Source::Rdpmc, instructions);
    instr.change = Some(Change {
        baseline: 4500.0,
        ratio: Some(1.0051),
        ci_low: Some(1.001),
        ci_high: None,
        p_value: 0.03,
        threshold: 0.01,
        verdict: Verdict::Unchanged,
        method: Method::Separate,
    });
    let fib = Benchmark {
        counters: vec![
            counter("wall-time", "ns", Source::Clock, wall.clone()),
            instr,
            counter("cycles", "count", Source::Rdpmc, cycles),
            counter("branch-misses", "count", Source::Read, misses),
            CounterResult {
                name: "page-faults".into(),
                unit: "count".into(),
                source: Source::Read,
                multiplexed: false,
                per_iteration: vec![],
                iterations: vec![],
                rounds: vec![],
                overhead: f64::NAN,
                estimate: None,
                change: None,
            },
        ],
        derived: vec![Derived {
            name: "ipc".into(),
            estimate: estimate(&ipc, None, &cfg),
            per_sample: ipc,
        }],
        ..Benchmark::new("math/fib_20", "math", "fib_20", None, Outcome::Measured)
    };
    let sum = Benchmark {
        throughput: Some(Throughput::Bytes(32768)),
        counters: vec![counter("wall-time", "ns", Source::Clock, wall)],
        ..Benchmark::new(
            "math/sum/4096",
            "math",
            "sum",
            Some("4096"),
            Outcome::Measured,
        )
    };
    let boom = Benchmark {
        throughput: Some(Throughput::Elements(10)),
        error: Some("index out of bounds: \"len\" is 3 \u{e9}\u{1f600}".into()),
        ..Benchmark::new("io/boom", "io", "boom", None, Outcome::Panicked)
    };
    let failed = Benchmark {
        error: Some("counter `cycles` failed: ENODEV".into()),
        ..Benchmark::new("io/gone", "io", "gone", None, Outcome::Failed)
    };
    Report::new(
        "mutations",
        Machine {
            cpu: "Test CPU @ 3.0GHz".into(),
            arch: "x86_64".into(),
            kernel: "6.1.0-test".into(),
            cpus: 2,
            pmus: vec!["cpu".into(), "software".into()],
            core_pmus: vec!["cpu".into()],
            paranoid: Some(-1),
            sources: vec![
                ("wall-time".into(), Source::Clock),
                ("instructions".into(), Source::Rdpmc),
                ("branch-misses".into(), Source::Read),
            ],
            simulator: Some(Simulator {
                tool: "callgrind".into(),
                version: "3.19.0".into(),
                cache: "I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64".into(),
            }),
        },
        Config {
            sample_size: 8,
            warm_up_time: 0.3,
            measurement_time: 1.5,
            sampling: Sampling::Linear,
            counters: vec!["wall-time".into(), "instructions".into()],
            confidence: 0.95,
            resamples: 50,
            rounds: 2,
            precision: None,
        },
        vec![fib, sum, boom, failed],
    )
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// A string that is an object key.
    Key,
    /// A string value.
    Str,
    Number,
    /// `true`, `false`, `null`.
    Literal,
    /// `{` or `[` (its value ends at the matching close).
    Open,
    Other,
}

/// A token of the seed document: its kind and byte span, and for a value the end of the whole
/// value (the matching bracket for a container).
#[derive(Clone, Copy)]
struct Token {
    kind: Kind,
    start: usize,
    end: usize,
    value_end: usize,
}

/// The tokens of a valid JSON document (the seed; mutants are never tokenized).
fn tokens(text: &[u8]) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let start = i;
        let kind = match text[i] {
            b'"' => {
                i += 1;
                while text[i] != b'"' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                let mut j = i;
                while text[j].is_ascii_whitespace() {
                    j += 1;
                }
                if text[j] == b':' {
                    Kind::Key
                } else {
                    Kind::Str
                }
            }
            b'-' | b'0'..=b'9' => {
                while i < text.len()
                    && matches!(text[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                Kind::Number
            }
            b't' | b'f' | b'n' => {
                while i < text.len() && text[i].is_ascii_alphabetic() {
                    i += 1;
                }
                Kind::Literal
            }
            b'{' | b'[' => {
                i += 1;
                open.push(out.len());
                Kind::Open
            }
            b'}' | b']' => {
                i += 1;
                let o = open.pop().expect("balanced seed");
                out[o].value_end = i;
                Kind::Other
            }
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            _ => {
                i += 1;
                Kind::Other
            }
        };
        out.push(Token {
            kind,
            start,
            end: i,
            value_end: i,
        });
    }
    out
}

/// Values the reader must refuse or accept without trouble, in place of any value.
const REPLACEMENTS: &[&str] = &[
    "null",
    "true",
    "false",
    "0",
    "-0",
    "-1",
    "-0.0",
    "1.5",
    "-2.5e3",
    "1e308",
    "1e309",
    "-1e400",
    "1e-400",
    "5e-324",
    "2.2250738585072011e-308",
    "1.7976931348623157e308",
    "255",
    "256",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "9007199254740993",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "0.1000000000000000055511151231257827",
    "1E2",
    "1e+2",
    "01",
    "1.",
    ".5",
    "+1",
    "1e",
    "--1",
    "NaN",
    "Infinity",
    "-Infinity",
    "nul",
    "\"\"",
    "\"1\"",
    "\"null\"",
    "\"measured\"",
    "\"bytes\"",
    "\"\\ud800\"",
    "\"\\udc00\\ud800\"",
    "\"\\ud83d\\ude00\"",
    "\"\\u0000\"",
    "{}",
    "[]",
    "[null]",
    "[1, 2, 3]",
    "[-1]",
    "[1.5]",
    "{\"bytes\": 1}",
    "{\"elements\": 1, \"bytes\": 2}",
    "{\"x\": 1}",
    "{\"mean\": 1}",
    "[[]]",
    "\"\u{1f600}\"",
    "",
];

/// Spliced into strings.
const ESCAPES: &[&str] = &[
    "\\ud800",
    "\\udbff",
    "\\udc00",
    "\\ud800\\u0041",
    "\\ud800\\ud800",
    "\\ud800\\udc00",
    "\\uDFFF\\uD800",
    "\\u00",
    "\\u",
    "\\uZZZZ",
    "\\x41",
    "\\",
    "\\\\",
    "\\\"",
    "\\/",
    "\\u0000",
    "\\u001f",
    "\\b\\f\\n\\r\\t",
    "\n",
    "\t",
    "\u{7f}",
    "\u{2028}",
    "\u{feff}",
];

/// Inserted anywhere.
const STRUCTURAL: &[&str] = &[
    "{", "}", "[", "]", ",", ":", "\"", "\\", " ", "\n", "{}", "[]", ",,", "::", "\"\"", "\"a\":",
    ",\"a\":1", "/", "/*", "//",
];

/// Raw bytes that are not UTF-8 (or not in the middle of a character).
const BAD_UTF8: &[&[u8]] = &[
    b"\xff",
    b"\xfe\xff",
    b"\xc0\x80",
    b"\xc3",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\x80",
    b"\xef\xbb\xbf",
    b"\x00",
];

/// The span of the seed that one member `"key": value` takes, with its trailing comma if any.
fn member_span(seed: &[u8], toks: &[Token], k: usize) -> (usize, usize) {
    let key = toks[k];
    let value = toks[k + 2];
    let mut end = value.value_end;
    let rest = &seed[end..];
    let ws = rest.iter().take_while(|c| c.is_ascii_whitespace()).count();
    if rest.get(ws) == Some(&b',') {
        end += ws + 1;
    }
    (key.start, end)
}

/// One mutation of `doc` (a mutant or the seed); `seed`/`toks` describe the seed, and the
/// value-level mutations apply to the seed's spans when `doc` is still the seed.
fn mutate(rng: &mut Rng, doc: &mut Vec<u8>, seed: &[u8], toks: &[Token], what: &mut String) {
    let pristine = doc.as_slice() == seed;
    let values: Vec<&Token> = toks
        .iter()
        .filter(|t| t.kind != Kind::Key && t.kind != Kind::Other)
        .collect();
    let len = doc.len();
    let choice = rng.below(if pristine { 16 } else { 9 });
    match choice {
        0 => {
            // Flip a bit, or set a byte to something printable.
            if len == 0 {
                return;
            }
            let at = rng.below(len);
            if rng.below(2) == 0 {
                doc[at] ^= 1 << rng.below(8);
            } else {
                doc[at] = b' ' + rng.below(95) as u8;
            }
            let _ = write!(what, "byte@{at}; ");
        }
        1 => {
            let at = rng.upto(len);
            doc.truncate(at);
            let _ = write!(what, "truncate@{at}; ");
        }
        2 => {
            let a = rng.upto(len);
            let max = if rng.below(4) == 0 { 4096 } else { 16 };
            let n = rng.upto((len - a).min(max));
            doc.drain(a..a + n);
            let _ = write!(what, "delete {a}+{n}; ");
        }
        3 => {
            // Duplicate a span somewhere else.
            let a = rng.upto(len);
            let max = if rng.below(4) == 0 { 2048 } else { 32 };
            let n = rng.upto((len - a).min(max));
            let span = doc[a..a + n].to_vec();
            let at = rng.upto(len);
            doc.splice(at..at, span);
            let _ = write!(what, "dup {a}+{n}@{at}; ");
        }
        4 => {
            // Insert random bytes, mostly JSON's alphabet.
            const ALPHABET: &[u8] = b"{}[],:\"\\ 0123456789-+.eEtrufalsn\n";
            let at = rng.upto(len);
            let n = 1 + rng.below(8);
            let bytes: Vec<u8> = (0..n)
                .map(|_| {
                    if rng.below(8) == 0 {
                        rng.next_u64() as u8
                    } else {
                        ALPHABET[rng.below(ALPHABET.len())]
                    }
                })
                .collect();
            doc.splice(at..at, bytes);
            let _ = write!(what, "insert {n}@{at}; ");
        }
        5 => {
            let at = rng.upto(len);
            let s = rng.pick(STRUCTURAL);
            doc.splice(at..at, s.bytes());
            let _ = write!(what, "structural {s:?}@{at}; ");
        }
        6 => {
            // Move a span (delete it here, insert it there).
            let a = rng.upto(len);
            let n = rng.upto((len - a).min(64));
            let span: Vec<u8> = doc.drain(a..a + n).collect();
            let at = rng.upto(doc.len());
            doc.splice(at..at, span);
            let _ = write!(what, "move {a}+{n}@{at}; ");
        }
        7 => {
            let at = rng.upto(len);
            let b = rng.pick(BAD_UTF8);
            doc.splice(at..at, b.iter().copied());
            let _ = write!(what, "bad utf-8 {b:?}@{at}; ");
        }
        8 => {
            // Unbalanced deep nesting somewhere.
            let at = rng.upto(len);
            let depth = [2, 64, 127, 128, 129, 1000][rng.below(6)];
            let open = if rng.below(2) == 0 { b'[' } else { b'{' };
            doc.splice(at..at, std::iter::repeat_n(open, depth));
            let _ = write!(what, "open {depth}x{}@{at}; ", open as char);
        }
        9 => {
            // Replace a value with one of another type or range.
            let v = rng.pick(&values);
            let r = rng.pick(REPLACEMENTS);
            doc.splice(v.start..v.value_end, r.bytes());
            let _ = write!(what, "value {}..{} := {r:?}; ", v.start, v.value_end);
        }
        10 => {
            // Replace a number with a number of the wrong range.
            let nums: Vec<&Token> = toks.iter().filter(|t| t.kind == Kind::Number).collect();
            let v = rng.pick(&nums);
            let r = match rng.below(6) {
                0 => format!("{}", rng.next_u64()),
                1 => format!("-{}", rng.next_u64() >> rng.below(64)),
                2 => format!("{}.{}", rng.below(1000), rng.next_u64()),
                3 => format!("{}e{}", rng.below(10), rng.below(700) as i64 - 350),
                4 => format!("{}{}", rng.next_u64(), rng.next_u64()),
                _ => (*rng.pick(REPLACEMENTS)).to_owned(),
            };
            doc.splice(v.start..v.end, r.bytes());
            let _ = write!(what, "number {}..{} := {r:?}; ", v.start, v.end);
        }
        11 => {
            // Swap two values that do not overlap (from the end, so offsets stay valid).
            let a = *rng.pick(&values);
            let b = *rng.pick(&values);
            let (a, b) = if a.start < b.start { (a, b) } else { (b, a) };
            if a.value_end > b.start {
                return;
            }
            let va = seed[a.start..a.value_end].to_vec();
            let vb = seed[b.start..b.value_end].to_vec();
            doc.splice(b.start..b.value_end, va);
            doc.splice(a.start..a.value_end, vb);
            let _ = write!(
                what,
                "swap {}..{} <-> {}..{}; ",
                a.start, a.value_end, b.start, b.value_end
            );
        }
        12 => {
            // Rename a key to another key of the document (a repeated, unknown or missing
            // member), or to something else.
            let keys: Vec<&Token> = toks.iter().filter(|t| t.kind == Kind::Key).collect();
            let k = rng.pick(&keys);
            let new: Vec<u8> = match rng.below(4) {
                0 => b"\"\"".to_vec(),
                1 => b"\"x\\u0000y\"".to_vec(),
                _ => {
                    let o = rng.pick(&keys);
                    seed[o.start..o.end].to_vec()
                }
            };
            let shown = String::from_utf8_lossy(&new).into_owned();
            doc.splice(k.start..k.end, new);
            let _ = write!(what, "key {}..{} := {shown}; ", k.start, k.end);
        }
        13 => {
            // Delete or repeat a whole member.
            let keys: Vec<usize> = (0..toks.len())
                .filter(|&i| toks[i].kind == Kind::Key)
                .collect();
            let k = keys[rng.below(keys.len())];
            let (a, b) = member_span(seed, toks, k);
            if rng.below(2) == 0 {
                doc.drain(a..b);
                let _ = write!(what, "drop member {a}..{b}; ");
            } else {
                let mut span = seed[a..b].to_vec();
                if span.last() != Some(&b',') {
                    span.insert(0, b',');
                    doc.splice(b..b, span);
                } else {
                    doc.splice(a..a, span);
                }
                let _ = write!(what, "repeat member {a}..{b}; ");
            }
        }
        14 => {
            // Nest a value deeply, balanced.
            let v = rng.pick(&values);
            let depth = [1, 10, 126, 127, 128, 129, 500, 20_000][rng.below(8)];
            let inner = String::from_utf8_lossy(&seed[v.start..v.value_end]).into_owned();
            let nested = if rng.below(2) == 0 {
                format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
            } else {
                format!("{}{inner}{}", "{\"k\":".repeat(depth), "}".repeat(depth))
            };
            doc.splice(v.start..v.value_end, nested.bytes());
            let _ = write!(what, "nest {}..{} x{depth}; ", v.start, v.value_end);
        }
        _ => {
            // A bad escape inside a string.
            let strs: Vec<&Token> = toks
                .iter()
                .filter(|t| matches!(t.kind, Kind::Key | Kind::Str))
                .collect();
            let s = rng.pick(&strs);
            let at = s.start + 1 + rng.upto(s.end - s.start - 2);
            let e = rng.pick(ESCAPES);
            doc.splice(at..at, e.bytes());
            let _ = write!(what, "escape {e:?}@{at}; ");
        }
    }
}

/// What one mutant did: `Ok(true)` read, `Ok(false)` refused, `Err` broke the contract.
fn check(text: &str) -> Result<bool, String> {
    match from_json(text) {
        Err(e) => {
            if e.to_string().trim().is_empty() {
                return Err(format!("an error with an empty message: {e:?}"));
            }
            Ok(false)
        }
        Ok(report) => {
            let first = to_json(&report);
            let again = match from_json(&first) {
                Ok(r) => r,
                Err(e) => {
                    return Err(format!(
                    "accepted, but its to_json does not read back: {e}\n--- to_json ---\n{first}"
                ))
                }
            };
            let second = to_json(&again);
            if second != first {
                let at = first
                    .bytes()
                    .zip(second.bytes())
                    .position(|(a, b)| a != b)
                    .unwrap_or(first.len().min(second.len()));
                let from = at.saturating_sub(80);
                return Err(format!(
                    "to_json is not stable: the texts differ at byte {at}:\n  first:  {:?}\n  second: {:?}",
                    &first[from..(at + 80).min(first.len())],
                    &second[from..(at + 80).min(second.len())],
                ));
            }
            Ok(true)
        }
    }
}

/// The mutant for a report, shortened for a failure message.
fn shown(text: &str) -> String {
    if text.len() <= 4000 {
        return text.to_owned();
    }
    let mut cut = 4000;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}... ({} bytes in all)", &text[..cut], text.len())
}

#[test]
fn mutated_reports_never_panic_and_what_reads_round_trips() {
    let started = Instant::now();
    let report = realistic_report();
    let seed_text = to_json(&report);
    // The seed itself round-trips.
    assert_eq!(check(&seed_text), Ok(true));
    let seed = seed_text.as_bytes();
    let toks = tokens(seed);

    let mut rng = Rng::new(SEED);
    let (mut ok, mut err, mut not_utf8) = (0usize, 0usize, 0usize);
    let mut failures: Vec<String> = Vec::new();
    for i in 0..MUTANTS {
        let mut doc = seed.to_vec();
        let mut what = String::new();
        let rounds = 1 + [0, 0, 0, 1, 1, 2][rng.below(6)];
        for _ in 0..rounds {
            mutate(&mut rng, &mut doc, seed, &toks, &mut what);
        }
        // from_json takes text: bytes that are not UTF-8 go in with U+FFFD in their place.
        let text = match String::from_utf8(doc) {
            Ok(text) => text,
            Err(e) => {
                not_utf8 += 1;
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            }
        };
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| check(&text))).unwrap_or_else(|p| {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(a non-string panic)".to_owned());
            Err(format!("panicked: {msg}"))
        });
        match outcome {
            Ok(true) => ok += 1,
            Ok(false) => err += 1,
            Err(why) => failures.push(format!(
                "mutant {i} ({what}): {why}\n--- input ---\n{}",
                shown(&text)
            )),
        }
    }
    let elapsed = started.elapsed();
    println!(
        "{MUTANTS} mutants: {ok} read (round trip checked), {err} refused with an error, \
         {} broke the contract ({not_utf8} had bytes that are not UTF-8); {:.2} s",
        failures.len(),
        elapsed.as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} of {MUTANTS} mutants broke the contract; the first:\n{}",
        failures.len(),
        failures[0]
    );
    // The mutations are not all fatal: some mutants must still read (unknown keys, values
    // swapped between fields of one type, ...), or the round trip would go unchecked.
    assert!(ok >= MUTANTS / 50, "only {ok} of {MUTANTS} mutants read");
}
