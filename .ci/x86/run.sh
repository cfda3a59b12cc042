#!/usr/bin/env bash
# The x86 hardware check: proves perfbench's x86 fast path (`rdpmc` through the kernel's user
# page) on any x86_64 machine with a CPU PMU (bare metal, a VM with a virtual PMU, a larger CI
# runner), as .ci/arm64/run.sh does for arm64 under QEMU.
#
#   bash .ci/x86/run.sh
#
# 1. Builds the check (.ci/x86/check.rs), which asks whether there is anything to prove: on a
#    machine that is not x86_64 or has no CPU PMU it prints one line saying so and the script
#    exits 3 (not a failure: CI runs it so on its PMU-less VM).
# 2. Runs the library's tests that need a PMU (`#[ignore]`d elsewhere): a group counting a
#    loop, the fast path against read(2), more events than counters split into groups, pinned
#    groups that cannot all fit (and, as root with tracefs, the tracepoint test).
# 3. Runs the suite (.ci/x86/suite.rs: bodies of exactly k = 0, 3, 37, 1001, 4099
#    instructions, a loop over a captured n, batched routines of 37 with a costly setup)
#    through the perfbench tool built from this checkout, and checks its reports: exactly k
#    through rdpmc; as root, again with /sys/bus/event_source/devices/cpu*/rdpmc set to 0
#    (read(2)), restored after; more groups than counters multiplexed, flagged and scaled;
#    the bracket's cost in instructions and cycles. FIGURE lines carry the figures.
#
# Exit: 0 all passed, 1 a check failed, 3 nothing to prove here, other: a build failed.
set -euo pipefail
cd "$(dirname "$0")/../.."

cargo build --release -q -p perfbench-suites --example x86_check --example x86_suite
cargo build --release -q -p perfbench-cli --bin perfbench
check=target/release/examples/x86_check
set +e
"$check" --probe
probe=$?
set -e
[ "$probe" = 0 ] || exit "$probe"

echo "== the library's hardware tests"
skip=()
if [ "$(id -u)" != 0 ] || ! mountpoint -q /sys/kernel/tracing 2>/dev/null; then
  skip=(--skip a_tracepoint_counts_exactly)
fi
cargo test --release -q -p perfbench --lib -- --ignored "${skip[@]}"

echo "== the suite"
PERFBENCH_TOOL=$PWD/target/release/perfbench "$check" target/release/examples/x86_suite
