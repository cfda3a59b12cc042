//! A bounded, deterministic property test of the Callgrind dump reader (`--simulate`):
//! thousands of mutants of a real dump's text (truncations, deleted, repeated and swapped
//! lines, byte flips, values replaced by huge, negative or non-numeric ones, events renamed).
//!
//! For every mutant, `Dump::parse` must return (a panic fails the test), an error must say
//! something, and a dump it accepts must hold one value per expected event, and the values of
//! the summary line as written: never a count the file does not say.

use perfbench::rng::Rng;
use std::panic::{self, AssertUnwindSafe};

use perfbench::counters::callgrind::{Dump, EVENTS};

const MUTANTS: usize = 5000;
const SEED: u64 = 0xca11_9e1d_d0d0_5eed;

/// A dump as Callgrind 3.19 writes it for one region (`--cache-sim=yes --branch-sim=yes`).
const SEED_DUMP: &str = "# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 29030
cmd:  ./target/release/deps/quickstart-b6421d04a5905dc7 --bench --perfbench-simulated d
part: 3


desc: I1 cache: 32768 B, 64 B, 8-way associative
desc: D1 cache: 32768 B, 64 B, 8-way associative
desc: LL cache: 8388608 B, 64 B, 16-way associative

desc: Timerange: Basic block 65364 - 65593
desc: Trigger: Client Request: perfbench-3

positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim
summary: 517 5 5 1 0 0 1 0 0 101 9


ob=(1) /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
fl=(1) ???
fn=(0) 0x000000000001ab70
cob=(6) /tmp/cgx/target/release/cgx
cfi=(140) ???
cfn=(778) (below main)
calls=1 0
0 517 5 5 1 0 0 1 0 0 101 9

fl=(212) /rustc/library/core/src/cmp.rs
fn=(1178) cgx::body
1916 1
772 1 0 0 0 0 0 0 0 0 1
0 1

totals: 508 2 2 0 0 0 0 0 0 101 9
";

const VALUES: &[&str] = &[
    "0",
    "-1",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "1e3",
    "0x10",
    "+5",
    "NaN",
    "",
    "  ",
    "\u{0}",
    "１２",
];

/// One mutant of `text`.
fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    match rng.below(9) {
        // Truncated anywhere (on a character boundary).
        0 => {
            let mut cut = rng.below(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            return text[..cut].to_owned();
        }
        // A line deleted.
        1 => {
            let i = rng.below(lines.len());
            lines.remove(i);
        }
        // A line repeated.
        2 => {
            let i = rng.below(lines.len());
            let l = lines[i].clone();
            lines.insert(rng.below(lines.len()), l);
        }
        // Two lines swapped.
        3 => {
            let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
            lines.swap(i, j);
        }
        // A word of a line replaced by an odd value.
        4 | 5 => {
            let i = rng.below(lines.len());
            let mut words: Vec<String> = lines[i].split(' ').map(str::to_owned).collect();
            let w = rng.below(words.len());
            words[w] = VALUES[rng.below(VALUES.len())].to_owned();
            lines[i] = words.join(" ");
        }
        // A byte flipped (kept as text: the reader gets `&str`).
        6 => {
            let mut bytes = text.as_bytes().to_vec();
            let i = rng.below(bytes.len());
            bytes[i] ^= 1 << rng.below(7);
            return String::from_utf8_lossy(&bytes).into_owned();
        }
        // An event renamed, added or dropped.
        7 => {
            let i = lines.iter().position(|l| l.starts_with("events:")).unwrap();
            let mut events: Vec<&str> = EVENTS.to_vec();
            match rng.below(3) {
                0 => {
                    let k = rng.below(events.len());
                    events[k] = "sysTime";
                }
                1 => events.push("Ge"),
                _ => {
                    events.remove(rng.below(events.len()));
                }
            }
            lines[i] = format!("events: {}", events.join(" "));
        }
        // Keys without values, or values without keys.
        _ => {
            let i = rng.below(lines.len());
            lines[i] = match lines[i].split_once(':') {
                Some((k, _)) => format!("{k}:"),
                None => format!(": {}", lines[i]),
            };
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// The values the summary line of `text` gives, if it has exactly one well-formed one.
fn summary_of(text: &str) -> Option<Vec<u64>> {
    let lines: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("summary:"))
        .collect();
    match lines.as_slice() {
        [one] => one
            .split_whitespace()
            .map(|w| w.parse::<u64>().ok())
            .collect(),
        _ => None,
    }
}

#[test]
fn mutated_dumps_never_panic_and_what_reads_is_what_the_file_says() {
    let seed = Dump::parse(SEED_DUMP).expect("the seed dump reads");
    assert_eq!(seed.get("Ir"), 517);
    let mut rng = Rng::new(SEED);
    let (mut accepted, mut rejected) = (0, 0);
    for i in 0..MUTANTS {
        let mutant = mutate(&mut rng, SEED_DUMP);
        let result = panic::catch_unwind(AssertUnwindSafe(|| Dump::parse(&mutant)));
        let Ok(result) = result else {
            panic!("mutant {i} panicked the reader:\n{mutant}");
        };
        match result {
            Err(e) => {
                assert!(!e.to_string().trim().is_empty(), "mutant {i}: empty error");
                rejected += 1;
            }
            Ok(d) => {
                accepted += 1;
                assert_eq!(d.events.len(), EVENTS.len(), "mutant {i}");
                assert_eq!(d.summary.len(), EVENTS.len(), "mutant {i}");
                // Every value read is the file's (trailing zeros filled in), in order.
                if let Some(mut want) = summary_of(&mutant) {
                    want.resize(EVENTS.len(), 0);
                    // A repeated `events:` line (same names) or summary line is read as the last.
                    if mutant.matches("summary:").count() == 1 {
                        let order: Vec<u64> = EVENTS
                            .iter()
                            .map(|e| {
                                let k = d.events.iter().position(|x| x == e).unwrap();
                                want[k]
                            })
                            .collect();
                        let got: Vec<u64> = EVENTS.iter().map(|e| d.get(e)).collect();
                        assert_eq!(got, order, "mutant {i}:\n{mutant}");
                    }
                }
            }
        }
    }
    // Both outcomes occur: the mutants exercise the reader, not only its first check.
    assert!(
        accepted > 100 && rejected > 100,
        "{accepted} accepted, {rejected} rejected"
    );
}
