#!/usr/bin/env bash
# Makes the README's screenshots of the HTML report from a real run: the html-fixture suite
# (tests/fixtures/html_fixture.rs) saved as baseline `base`, then run again three times slower
# in `work` against it, then the index, work's page and the summary of group `scaling` shot by
# headless Chromium. Then `work` simulated under Callgrind (`--simulate`) as baseline `base`
# and again three times longer against it: its page's flame graphs, the differential one of
# the instructions that grew.
#
#   bash docs/html-screenshots.sh      # writes docs/images/html-index.png, html-bench.png,
#                                      # html-group.png, html-flame.png
set -euo pipefail
cd "$(dirname "$0")/.."
chrome=${PERFBENCH_CHROMIUM:-chromium}
cargo build --release --quiet --bin html-fixture
t=target/html-screenshots
rm -rf "$t"
CARGO_TARGET_DIR=$t target/release/html-fixture --bench --save-baseline base >/dev/null
HTML_FIXTURE_SLOW=1 CARGO_TARGET_DIR=$t target/release/html-fixture --bench --baseline base >/dev/null
shot() { # PAGE PNG HEIGHT [REPORT_DIR]
  "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --host-resolver-rules='MAP * ~NOTFOUND' --user-data-dir="$t/profile" \
    --virtual-time-budget=3000 \
    --window-size=1280,"$3" --screenshot="$2" "file://$PWD/${4:-$t/perfbench/report}/$1" 2>/dev/null
}
shot index.html docs/images/html-index.png 1000
shot html-fixture/000-html-fixture_work.html docs/images/html-bench.png 1150
# A group's summary, further down the index: a frame scrolled to its section (a screenshot of
# the index's own address with the section's #id comes out blank).
printf '%s\n' '<!DOCTYPE html><style>body{margin:0}iframe{border:0;width:100vw;height:100vh}</style>' \
  '<iframe src="index.html#g-html-fixture-1"></iframe>' >"$t/perfbench/report/group-shot.html"
shot group-shot.html docs/images/html-group.png 880
# The simulated run's flame graphs: the page scrolled to its section, as for the group. A
# simulated process has no environment, so the slower `work` is a build of its own
# (HTML_FIXTURE_SLOW read as it compiles), copied aside; then the plain build again.
s=$t/sim

HTML_FIXTURE_SLOW=1 cargo build --release --quiet --bin html-fixture
mkdir -p "$s/slow" && cp target/release/html-fixture "$s/slow/html-fixture" # (the suite is named after the file)
cargo build --release --quiet --bin html-fixture
CARGO_TARGET_DIR=$s target/release/html-fixture --bench --simulate work --save-baseline base >/dev/null
CARGO_TARGET_DIR=$s "$s/slow/html-fixture" --bench --simulate work --baseline base >/dev/null
page=$(cd "$s/perfbench/report" && ls html-fixture/*work.html)
printf '%s\n' '<!DOCTYPE html><style>body{margin:0}iframe{border:0;width:100vw;height:100vh}</style>' \
  "<iframe src=\"$page#flames\"></iframe>" >"$s/perfbench/report/flame-shot.html"
shot flame-shot.html docs/images/html-flame.png 1000 "$s/perfbench/report"
ls -l docs/images/html-index.png docs/images/html-bench.png docs/images/html-group.png \
  docs/images/html-flame.png
