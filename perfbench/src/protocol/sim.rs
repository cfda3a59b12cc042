//! The Callgrind child: a benchmark binary run under Callgrind with `--perfbench-simulated DIR`
//! runs the one benchmark its filter selects and writes one [`Result`] to `DIR/result.json`
//! ([`FILE`]) beside its dumps, which the tool's `--simulate` driver reads
//! ([`crate::runner::sim_child`]).

use super::json::{push_list, push_opt_str, push_throughput};
use crate::harness::entry::Throughput;
use crate::harness::raw::Outcome;
use crate::harness::simulate::{Region, SimSample};

/// The version of the child's result.
pub const VERSION: u32 = 3;

/// The child's account of its run, next to its dumps.
pub const FILE: &str = "result.json";

/// What the child ran: how it ended, the throughput its body set, the threads of a threaded
/// body, and its samples' regions.
#[derive(Clone, Debug, PartialEq)]
pub struct Result {
    /// How the benchmark ended.
    pub outcome: Outcome,
    /// The message of a panicked or failed benchmark.
    pub error: Option<String>,
    /// The throughput its attribute or body set.
    pub throughput: Option<Throughput>,
    /// The thread count of an `iter_threads` body (see
    /// [`RawBenchmark::threads`](crate::harness::raw::RawBenchmark::threads)).
    pub threads: Option<u32>,
    /// The samples: each a pair of regions of the body and a pair of the empty calibration.
    pub samples: Vec<SimSample>,
}

impl Result {
    /// The file's text: `{"perfbench_sim": 3, "outcome": ..., "error": ..., "throughput":
    /// ..., "threads": N (a threaded body only), "samples": [{"n": N, "per_pair": B, "body": [REGION, REGION], "empty": [REGION,
    /// REGION]}, ...]}`, each region `{"dump": D, "iterations": N, "pairs": P, "allocs":
    /// [ALLOCS, BYTES, DEALLOCS, REALLOCS, PEAK] or null}`.
    pub fn encode(&self) -> String {
        let region = |r: &Region| {
            let allocs = match r.allocs {
                Some([a, b, d, r, p]) => format!("[{a},{b},{d},{r},{p}]"),
                None => "null".to_owned(),
            };
            format!(
                "{{\"dump\":{},\"iterations\":{},\"pairs\":{},\"allocs\":{allocs}}}",
                r.dump, r.iterations, r.pairs
            )
        };
        let mut out = format!(
            "{{\"perfbench_sim\":{VERSION},\"outcome\":\"{}\",\"error\":",
            self.outcome.as_str()
        );
        push_opt_str(&mut out, self.error.as_deref());
        out.push_str(",\"throughput\":");
        push_throughput(&mut out, self.throughput);
        if let Some(n) = self.threads {
            out.push_str(",\"threads\":");
            out.push_str(&n.to_string());
        }
        out.push_str(",\"samples\":[");
        push_list(&mut out, &self.samples, |out, s| {
            out.push_str(&format!(
                "{{\"n\":{},\"per_pair\":{},\"body\":[{},{}],\"empty\":[{},{}]}}",
                s.n,
                s.per_pair,
                region(&s.body[0]),
                region(&s.body[1]),
                region(&s.empty[0]),
                region(&s.empty[1])
            ));
        });
        out.push_str("]}");
        out
    }

    /// Reads the file's text, strictly, of this version only.
    #[cfg(feature = "serde")]
    pub fn decode(text: &str) -> std::result::Result<Result, super::DecodeError> {
        #[derive(serde_derive::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Wire {
            perfbench_sim: u32,
            outcome: Outcome,
            error: Option<String>,
            throughput: Option<Throughput>,
            #[serde(default)]
            threads: Option<u32>,
            samples: Vec<SimSample>,
        }
        const WHAT: &str = "the simulated run's result";
        let w: Wire = super::decode(WHAT, text)?;
        if w.perfbench_sim != VERSION {
            return Err(super::DecodeError {
                what: WHAT,
                problem: format!(
                    "it is of version {}, this perfbench reads version {VERSION}",
                    w.perfbench_sim
                ),
            });
        }
        Ok(Result {
            outcome: w.outcome,
            error: w.error,
            throughput: w.throughput,
            threads: w.threads,
            samples: w.samples,
        })
    }
}
