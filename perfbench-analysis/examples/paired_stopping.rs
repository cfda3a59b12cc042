//! How a paired run's rounds end, simulated: for rounds whose changes (the log of each round's
//! new/base ratio) are drawn around `ln(1 + change)` with a spread between rounds, three rules
//! for when to stop, each judged with the real `compare_paired_rounds` at the wall-time
//! threshold (0.5%):
//!
//! - `plan`: the planned 20 rounds;
//! - `open`: more rounds, one at a time up to 80, while the interval holds an edge of the
//!   threshold (`stats::paired::undecided`);
//! - `open, not futile`: the same, but stopping as soon as even 80 rounds would leave the
//!   interval holding both edges (`stats::paired::futile`): what `perfbench ab` does;
//! - `... at 99% past the plan`: the same, with the looks after the planned rounds judged at
//!   99% confidence (and p < 0.01) instead of 95%: not what `perfbench ab` does, a candidate
//!   against the false alarms that looking again adds.
//!
//! For each spread and change it prints how often the verdict was `regressed`, how often any
//! verdict but `unchanged`, and the mean rounds taken. Two kinds of spread: normal, and normal
//! with one round in ten disturbed three times as much (a neighbour's burst). The spreads of
//! the project's VM: a percent or less on a quiet hour, 2 to 4% for the memory scan on a noisy
//! one (docs/validation.md, "Paired runs").
//!
//! `cargo run --release -p perfbench-analysis --example paired_stopping [TRIALS]`
use perfbench::rng::Rng;
use perfbench_analysis::stats::{compare_paired_rounds, paired, CompareConfig, Verdict};

const PLAN: usize = 20;
const MOST: usize = 80;

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut Rng) -> f64 {
    let uniform = |rng: &mut Rng| ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    let (u, v) = (uniform(rng), uniform(rng));
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// The verdict and the rounds taken under `rule` for the rounds' log changes `d` (`MOST` of
/// them drawn up front; a rule uses as many as it takes).
fn judge(d: &[f64], rule: usize, cfg: &CompareConfig) -> (Verdict, usize) {
    let base: Vec<[f64; 1]> = vec![[100.0]; d.len()];
    let new: Vec<[f64; 1]> = d.iter().map(|x| [100.0 * x.exp()]).collect();
    let change = |n: usize, cfg: &CompareConfig| {
        let b: Vec<&[f64]> = base[..n].iter().map(|r| &r[..]).collect();
        let w: Vec<&[f64]> = new[..n].iter().map(|r| &r[..]).collect();
        compare_paired_rounds(&b, &w, cfg)
    };
    let strict = CompareConfig {
        confidence: 0.99,
        significance: 0.01,
        ..*cfg
    };
    let mut n = PLAN;
    loop {
        let cfg = if rule == 3 && n > PLAN { &strict } else { cfg };
        let c = change(n, cfg);
        let go_on = match rule {
            0 => false,
            1 => paired::undecided(&c),
            _ => paired::undecided(&c) && !paired::futile(&c, n, MOST, cfg.confidence),
        };
        if !go_on || n == MOST {
            return (c.verdict, n);
        }
        n += 1;
    }
}

fn main() {
    let trials: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    let cfg = CompareConfig::for_counter("wall-time");
    let rules = [
        "plan",
        "open",
        "open, not futile",
        "... at 99% past the plan",
    ];
    println!("{trials} trials per row; cells: regressed % / any flag % · mean rounds\n");
    println!("| spread between rounds | change | {} |", rules.join(" | "));
    println!("| --- | ---: |{}", " ---: |".repeat(rules.len()));
    for burst in [false, true] {
        for sigma in [0.005, 0.01, 0.02, 0.03, 0.04] {
            for change in [0.0, 0.02] {
                let mut rng = Rng::new(0x5EED ^ (sigma * 1e6) as u64 ^ u64::from(burst));
                let mut cells = vec![(0usize, 0usize, 0usize); rules.len()];
                for _ in 0..trials {
                    let d: Vec<f64> = (0..MOST)
                        .map(|_| {
                            let k = if burst && rng.below(10) == 0 {
                                3.0
                            } else {
                                1.0
                            };
                            (1.0f64 + change).ln() + k * sigma * normal(&mut rng)
                        })
                        .collect();
                    for (rule, cell) in cells.iter_mut().enumerate() {
                        let (verdict, n) = judge(&d, rule, &cfg);
                        cell.0 += usize::from(verdict == Verdict::Regressed);
                        cell.1 += usize::from(verdict != Verdict::Unchanged);
                        cell.2 += n;
                    }
                }
                let pct = |k: usize| 100.0 * k as f64 / trials as f64;
                let shown: Vec<String> = cells
                    .iter()
                    .map(|&(r, f, n)| {
                        format!(
                            "{:.1} / {:.1} · {:.1}",
                            pct(r),
                            pct(f),
                            n as f64 / trials as f64
                        )
                    })
                    .collect();
                let kind = if burst { ", 1 in 10 rounds x3" } else { "" };
                println!(
                    "| {:.1}%{kind} | {:.0}% | {} |",
                    sigma * 100.0,
                    change * 100.0,
                    shown.join(" | ")
                );
            }
        }
    }
}
