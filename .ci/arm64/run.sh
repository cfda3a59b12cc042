#!/usr/bin/env bash
# Proves perfbench's arm64 `mrs` fast path on QEMU's emulated PMUv3 (DESIGN.md 4.1).
#
#   bash .ci/arm64/run.sh            # from the repository root (or anywhere: paths are resolved)
#
# 1. installs the host tools it lacks (qemu-system-arm, gcc-aarch64-linux-gnu, cpio, ...);
# 2. fetches, with `apt-get download` + `dpkg -x` into a private cache (nothing is installed
#    system-wide), the Debian arm64 cloud kernel, busybox-static:arm64 and the rustc-web/cargo-web
#    toolchain with libstd-rust-web-dev:arm64;
# 3. cross-builds the static aarch64 examples `arm64_guest` (the test, .ci/arm64/guest/main.rs
#    and its modules) and `arm64_suite` (a perfbench::main!() suite the test runs,
#    .ci/arm64/suite.rs) from this workspace (both are `[[example]]` targets of the root
#    Cargo.toml);
# 4. packs an initramfs (busybox + .ci/arm64/init.sh + the two binaries);
# 5. boots `qemu-system-aarch64 -icount shift=0 -smp 1` (exact instruction counts) under a time
#    limit: `-cpu max` (PMUv3p5: 64-bit counters) twice, `-cpu cortex-a72` (PMUv3: 64-bit
#    counters refused) once, and exits with the test's status. Lines the guest prints starting
#    with `FIGURE ` must be identical on every boot of a CPU model (counts are deterministic).
# See .ci/arm64/README.md for what the guest test asserts.
#
# Environment:
#   PERFBENCH_ARM64_CACHE    cache dir (default ~/.cache/perfbench-arm64; outside the clone on
#                            purpose: CI clones fresh). Entries are keyed by package version.
#   PERFBENCH_ARM64_BOOTS    boots of a CPU model without its own count, compared with each
#                            other (default 2)
#   PERFBENCH_ARM64_VARIANTS `CPU|GUEST ARGS[|BOOTS]` items separated by `;` (default: max with
#                            --expect-long=supported, BOOTS times; cortex-a72 with
#                            --expect-long=eopnotsupp, once)
#   PERFBENCH_ARM64_TIMEOUT  seconds per boot before the guest counts as hung (default 600)
#   PERFBENCH_ARM64_ARGS     extra arguments passed to the guest test on every boot
#   PERFBENCH_ARM64_EXAMPLE  example to run in the guest (default arm64_guest)
#   PERFBENCH_ARM64_SUITE    perfbench::main!() example the guest test runs and checks through
#                            `--suite=` (default arm64_suite; empty: none)
#   PERFBENCH_ARM64_LIB_TESTS 1: also cross-build perfbench's unit tests and run them (with the
#                            #[ignore]d hardware tests) in one more boot, perf_user_access=1
#   PERFBENCH_ARM64_CLIPPY   1: also run Debian's clippy (rust-web-clippy, same version as rustc-web)
#                            on the workspace for aarch64, `--all-targets -D warnings`: the only
#                            lint of aarch64-only code (counters/arch/aarch64.rs, the guest test)
#   PERFBENCH_ARM64_KERNEL   kernel package (default: newest linux-image-*-cloud-arm64-unsigned)
#   PERFBENCH_ARM64_REFRESH  1: refresh the private package lists even if they are recent
#
# Exit status: the guest test's status; 2 the rig could not be set up (message says why);
# 3 the guest hung, panicked or ended without the marker; 4 boots disagreed on a FIGURE line.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RIG=$ROOT/.ci/arm64
CACHE=${PERFBENCH_ARM64_CACHE:-${HOME:-/root}/.cache/perfbench-arm64}
BOOTS=${PERFBENCH_ARM64_BOOTS:-2}
BOOT_TIMEOUT=${PERFBENCH_ARM64_TIMEOUT:-600}
GUEST_ARGS=${PERFBENCH_ARM64_ARGS:-}
EXAMPLE=${PERFBENCH_ARM64_EXAMPLE:-arm64_guest}
SUITE=${PERFBENCH_ARM64_SUITE-arm64_suite}
LIB_TESTS=${PERFBENCH_ARM64_LIB_TESTS:-0}
CLIPPY=${PERFBENCH_ARM64_CLIPPY:-0}
LIB_TEST_ARGS="--test-threads=1 --include-ignored counters:: sys:: events:: doctor::"
VARIANTS=${PERFBENCH_ARM64_VARIANTS:-"max,pauth-impdef=on|--expect-long=supported;cortex-a72|--expect-long=eopnotsupp|1"}
LISTS_MAX_AGE_MIN=$((7 * 24 * 60))
TARGET=aarch64-unknown-linux-gnu

T0=$SECONDS
log() { printf '[arm64 %3ds] %s\n' "$((SECONDS - T0))" "$*" >&2; }
die() {
  printf '[arm64] ERROR: %s\n' "$*" >&2
  exit 2
}

[ "$(uname -s)" = Linux ] || die "needs Linux (Debian/Ubuntu with apt), found $(uname -s)"
if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
  die "needs a Debian-based host (apt-get, dpkg)"
fi
HOST_ARCH=$(dpkg --print-architecture)
[ "$HOST_ARCH" = amd64 ] || die "host architecture $HOST_ARCH is not supported (amd64 only)"
HOST_LIBDIR=usr/lib/x86_64-linux-gnu
case $BOOTS in '' | *[!0-9]* | 0) die "PERFBENCH_ARM64_BOOTS must be a positive integer" ;; esac

if [ "$(id -u)" = 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  SUDO=(sudo -n)
else
  SUDO=(false)
fi

mkdir -p "$CACHE" || die "cannot create the cache dir $CACHE (set PERFBENCH_ARM64_CACHE)"
CACHE=$(cd "$CACHE" && pwd)
exec 9>"$CACHE/.lock"
flock -w 3600 9 || die "another run holds $CACHE/.lock"
TMP=$CACHE/tmp
rm -rf "$TMP"
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT

# ---------------------------------------------------------------------------------------------
# 1. Host tools, installed system-wide through apt (only the missing ones).
# ---------------------------------------------------------------------------------------------
HOST_PKGS=(qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu
  cpio gzip gcc libc6-dev ca-certificates util-linux coreutils)
missing=()
for p in "${HOST_PKGS[@]}"; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
    missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing host packages: ${missing[*]}"
  [ "${SUDO[0]:-}" != false ] || die "need root (or passwordless sudo) to install: ${missing[*]}"
  apt_install() {
    "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >"$TMP/apt-install.log" 2>&1
  }
  if ! apt_install; then
    log "apt-get install failed; running apt-get update and retrying"
    "${SUDO[@]}" apt-get update -q >"$TMP/apt-update.log" 2>&1 ||
      { cat "$TMP/apt-update.log" >&2; die "apt-get update failed"; }
    apt_install || { tail -n 30 "$TMP/apt-install.log" >&2; die "apt-get install ${missing[*]} failed"; }
  fi
fi
for c in qemu-system-aarch64 aarch64-linux-gnu-gcc aarch64-linux-gnu-strip aarch64-linux-gnu-readelf \
  cpio gzip timeout flock cc; do
  command -v "$c" >/dev/null || die "$c not found after installing ${HOST_PKGS[*]}"
done
log "host tools: $(qemu-system-aarch64 --version | head -n1)"

# ---------------------------------------------------------------------------------------------
# 2. Packages for the guest and the cross toolchain: a private apt state (own package lists with
#    arm64 added, own archive cache) so the host's dpkg architectures and lists are untouched.
# ---------------------------------------------------------------------------------------------
APT_DIR=$CACHE/apt
mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial"
APT=(apt-get -q -o "APT::Architecture=$HOST_ARCH" -o "APT::Architectures::=$HOST_ARCH"
  -o "APT::Architectures::=arm64" -o "Dir::State::Lists=$APT_DIR/lists"
  -o "Dir::Cache=$APT_DIR/cache" -o "Dir::Cache::pkgcache=$APT_DIR/cache/pkgcache.bin"
  -o "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false"
  -o "Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false")
APT_CACHE=(apt-cache "${APT[@]:1}")
[ "$(id -u)" = 0 ] && APT+=(-o APT::Sandbox::User=root)

UPDATED_THIS_RUN=0
apt_update() {
  log "refreshing the private package lists ($APT_DIR/lists)"
  "${APT[@]}" update >"$TMP/apt-update.log" 2>&1 ||
    { cat "$TMP/apt-update.log" >&2; die "apt-get update (private lists) failed"; }
  if grep -E '^(W|E): ' "$TMP/apt-update.log" >&2; then :; fi
  touch "$APT_DIR/updated"
  UPDATED_THIS_RUN=1
}
if [ "${PERFBENCH_ARM64_REFRESH:-0}" = 1 ] || [ ! -f "$APT_DIR/updated" ] ||
  [ -n "$(find "$APT_DIR/updated" -mmin +"$LISTS_MAX_AGE_MIN")" ]; then
  apt_update
fi

candidate() { # candidate PKG[:ARCH] -> version or empty
  "${APT_CACHE[@]}" policy "$1" 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" {print $2; exit}'
}
# fetch NAME:ARCH=VERSION...: downloads into $TMP/debs.
fetch() {
  mkdir -p "$TMP/debs"
  (cd "$TMP/debs" && "${APT[@]}" download "$@") >"$TMP/apt-download.log" 2>&1 || {
    cat "$TMP/apt-download.log" >&2
    return 1
  }
}

resolve() {
  RUST_V=$(candidate "rustc-web:$HOST_ARCH")
  CARGO_V=$(candidate "cargo-web:$HOST_ARCH")
  STD_HOST_V=$(candidate "libstd-rust-web-dev:$HOST_ARCH")
  STD_ARM_V=$(candidate libstd-rust-web-dev:arm64)
  BUSYBOX_V=$(candidate busybox-static:arm64)
  KERNEL_PKG=${PERFBENCH_ARM64_KERNEL:-$("${APT_CACHE[@]}" pkgnames linux-image- 2>/dev/null |
    grep -E '^linux-image-[0-9.]+-[0-9]+-cloud-arm64-unsigned$' | sort -V | tail -n1 || true)}
  KERNEL_V=
  [ -z "$KERNEL_PKG" ] || KERNEL_V=$(candidate "$KERNEL_PKG:arm64")
  local v
  for v in RUST_V CARGO_V STD_HOST_V STD_ARM_V BUSYBOX_V KERNEL_V; do
    [ -n "${!v}" ] || return 1
  done
  # rustc refuses a std built by another rustc: every piece must be the same upload.
  if [ "$STD_ARM_V" != "$RUST_V" ] || [ "$CARGO_V" != "$RUST_V" ] || [ "$STD_HOST_V" != "$RUST_V" ]; then
    if "${APT_CACHE[@]}" show "libstd-rust-web-dev:arm64=$RUST_V" "cargo-web:$HOST_ARCH=$RUST_V" \
      "libstd-rust-web-dev:$HOST_ARCH=$RUST_V" >/dev/null 2>&1; then
      STD_ARM_V=$RUST_V CARGO_V=$RUST_V STD_HOST_V=$RUST_V
    else
      die "rustc-web $RUST_V has no matching libstd-rust-web-dev:arm64 (candidate $STD_ARM_V)," \
        "cargo-web ($CARGO_V) or libstd-rust-web-dev:$HOST_ARCH ($STD_HOST_V); try PERFBENCH_ARM64_REFRESH=1"
    fi
  fi
}
if ! resolve; then
  [ $UPDATED_THIS_RUN = 1 ] || { apt_update && resolve; } ||
    die "cannot resolve rustc-web/cargo-web/libstd-rust-web-dev:arm64/busybox-static:arm64/" \
      "linux-image-*-cloud-arm64-unsigned from the apt sources (Debian bookworm + bookworm-security needed)"
fi
safe() { printf '%s' "$1" | tr ':~' '_-'; }
TC=$CACHE/toolchain/rust-web-$(safe "$RUST_V")
KDIR=$CACHE/kernel/$KERNEL_PKG-$(safe "$KERNEL_V")
BBDIR=$CACHE/busybox/$(safe "$BUSYBOX_V")
log "rustc-web $RUST_V (libstd-rust-web-dev:arm64 $STD_ARM_V), $KERNEL_PKG $KERNEL_V, busybox-static $BUSYBOX_V"

# with_retry CMD...: runs CMD; if it fails and the lists were not refreshed in this run (a
# mirror drops superseded versions), refreshes them once and retries.
with_retry() {
  "$@" && return 0
  [ $UPDATED_THIS_RUN = 0 ] || return 1
  apt_update
  resolve || return 1
  "$@"
}

# The host toolchain's closure: what `apt-get install` would add to this host, plus the rust
# packages themselves (in case the host already has them installed system-wide).
toolchain_closure() {
  local series=${RUST_V%%+*}
  series=${series%.*}
  "${APT[@]}" -s install --no-install-recommends "rustc-web=$RUST_V" "cargo-web=$RUST_V" \
    "libstd-rust-web-dev=$RUST_V" 2>"$TMP/apt-sim.log" |
    awk '$1 == "Inst" { v = $0; sub(/^[^(]*\(/, "", v); sub(/ .*/, "", v); print $2 "=" v }' >"$TMP/closure"
  [ -s "$TMP/closure" ] || { cat "$TMP/apt-sim.log" >&2; return 1; }
  {
    cat "$TMP/closure"
    printf '%s\n' "rustc-web=$RUST_V" "cargo-web=$RUST_V" "libstd-rust-web-dev=$RUST_V" \
      "libstd-rust-web-$series=$RUST_V"
  } | sort -u | grep -Ev '^(gcc|cpp|binutils|libc6-dev|libc-dev-bin|linux-libc-dev|libgcc-[0-9]+-dev|libc6|libgcc-s1)[-=]' || true
}
setup_toolchain() {
  rm -rf "$TMP/debs" "$TC.tmp"
  local pkgs
  pkgs=$(toolchain_closure) || return 1
  log "downloading the toolchain: $(tr '\n' ' ' <<<"$pkgs")libstd-rust-web-dev:arm64=$STD_ARM_V"
  # shellcheck disable=SC2086 # one word per package
  fetch $pkgs "libstd-rust-web-dev:arm64=$STD_ARM_V" || return 1
  mkdir -p "$TC.tmp"
  local f
  for f in "$TMP"/debs/*.deb; do dpkg -x "$f" "$TC.tmp" || return 1; done
  printf '%s\n' "$pkgs" "libstd-rust-web-dev:arm64=$STD_ARM_V" >"$TC.tmp/PACKAGES"
  rm -rf "$TMP/debs"
}
if [ ! -f "$TC/.complete" ]; then
  with_retry setup_toolchain || die "could not download the rust-web toolchain (see above)"
  ls "$TC.tmp/usr/lib/rustlib/$TARGET/lib/"libstd-*.rlib >/dev/null 2>&1 ||
    die "libstd-rust-web-dev:arm64 did not provide usr/lib/rustlib/$TARGET/lib/libstd-*.rlib"
  LD_LIBRARY_PATH=$TC.tmp/$HOST_LIBDIR "$TC.tmp/usr/bin/rustc" -vV >"$TMP/rustc-vV" 2>&1 ||
    { cat "$TMP/rustc-vV" >&2; die "the unpacked rustc does not run (missing library? see above)"; }
  LD_LIBRARY_PATH=$TC.tmp/$HOST_LIBDIR "$TC.tmp/usr/bin/cargo" -V >/dev/null 2>&1 ||
    die "the unpacked cargo does not run: LD_LIBRARY_PATH=$TC.tmp/$HOST_LIBDIR $TC.tmp/usr/bin/cargo -V"
  touch "$TC.tmp/.complete"
  rm -rf "$TC"
  mv "$TC.tmp" "$TC"
  for d in "$CACHE"/toolchain/*; do [ "$d" = "$TC" ] || rm -rf "$d"; done
fi

setup_clippy() {
  rm -rf "$TMP/debs" "$TMP/clippy"
  log "downloading rust-web-clippy $RUST_V"
  fetch "rust-web-clippy:$HOST_ARCH=$RUST_V" || return 1
  dpkg -x "$TMP"/debs/rust-web-clippy_*.deb "$TMP/clippy" || return 1
  cp -a "$TMP/clippy/." "$TC/"
  rm -rf "$TMP/debs" "$TMP/clippy"
}
if [ "$CLIPPY" = 1 ] && [ ! -x "$TC/usr/bin/clippy-driver" ]; then
  with_retry setup_clippy || die "could not download rust-web-clippy $RUST_V"
fi

setup_kernel() {
  rm -rf "$TMP/debs" "$TMP/kernel"
  log "downloading $KERNEL_PKG $KERNEL_V"
  fetch "$KERNEL_PKG:arm64=$KERNEL_V" || return 1
  dpkg -x "$TMP"/debs/"$KERNEL_PKG"_*.deb "$TMP/kernel" || return 1
  mkdir -p "$KDIR.tmp"
  cp "$TMP"/kernel/boot/vmlinuz-* "$KDIR.tmp/vmlinuz"
  cp "$TMP"/kernel/boot/config-* "$KDIR.tmp/config" 2>/dev/null || true
  rm -rf "$TMP/debs" "$TMP/kernel"
}
if [ ! -f "$KDIR/.complete" ]; then
  rm -rf "$KDIR.tmp"
  with_retry setup_kernel || die "could not download $KERNEL_PKG"
  [ -s "$KDIR.tmp/vmlinuz" ] || die "$KERNEL_PKG has no boot/vmlinuz-*"
  touch "$KDIR.tmp/.complete"
  mv "$KDIR.tmp" "$KDIR"
  for d in "$CACHE"/kernel/*; do [ "$d" = "$KDIR" ] || rm -rf "$d"; done
fi

setup_busybox() {
  rm -rf "$TMP/debs" "$TMP/busybox"
  log "downloading busybox-static:arm64 $BUSYBOX_V"
  fetch "busybox-static:arm64=$BUSYBOX_V" || return 1
  dpkg -x "$TMP"/debs/busybox-static_*.deb "$TMP/busybox" || return 1
  mkdir -p "$BBDIR.tmp"
  cp "$TMP/busybox/bin/busybox" "$BBDIR.tmp/busybox"
  rm -rf "$TMP/debs" "$TMP/busybox"
}
if [ ! -f "$BBDIR/.complete" ]; then
  rm -rf "$BBDIR.tmp"
  with_retry setup_busybox || die "could not download busybox-static:arm64"
  touch "$BBDIR.tmp/.complete"
  mv "$BBDIR.tmp" "$BBDIR"
  for d in "$CACHE"/busybox/*; do [ "$d" = "$BBDIR" ] || rm -rf "$d"; done
fi

# ---------------------------------------------------------------------------------------------
# 3. Cross-build the guest test with the private toolchain.
# ---------------------------------------------------------------------------------------------
log "building example $EXAMPLE for $TARGET"
cargo_web() {
  env -u RUSTC_WRAPPER -u RUSTC_WORKSPACE_WRAPPER -u RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS \
    -u CARGO_BUILD_RUSTFLAGS -u CARGO_BUILD_TARGET -u CARGO -u RUSTUP_TOOLCHAIN \
    PATH="$TC/usr/bin:$PATH" \
    LD_LIBRARY_PATH="$TC/$HOST_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    RUSTC="$TC/usr/bin/rustc" RUSTDOC="$TC/usr/bin/rustdoc" \
    CARGO_HOME="$CACHE/cargo-home" CARGO_TARGET_DIR="$CACHE/target" \
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS="-C target-feature=+crt-static" \
    CARGO_PROFILE_RELEASE_DEBUG=false \
    "$TC/usr/bin/cargo" "$@"
}
cd "$ROOT"
# Offline when every crate is cached (a warm run downloads nothing); online otherwise.
if ! cargo_web fetch --offline --target "$TARGET" >"$TMP/fetch.log" 2>&1; then
  log "fetching crates from the registry (CARGO_HOME=$CACHE/cargo-home)"
  cargo_web fetch --target "$TARGET" || die "cargo fetch failed (crates.io reachable?)"
fi
if [ "$CLIPPY" = 1 ]; then
  log "clippy for $TARGET (rust-web-clippy $RUST_V)"
  cargo_web clippy --offline --target "$TARGET" --workspace --all-targets -- -D warnings ||
    die "clippy for $TARGET found problems (see above)"
fi
examples=(--example "$EXAMPLE")
[ -z "$SUITE" ] || examples+=(--example "$SUITE")
cargo_web build --offline --release --target "$TARGET" -p perfbench-suites "${examples[@]}" ||
  die "cross build of ${examples[*]} failed"
if [ -n "$SUITE" ]; then
  # The suite hands its runs to the `perfbench` tool, as every benchmark binary does.
  cargo_web build --offline --release --target "$TARGET" -p perfbench-cli --bin perfbench ||
    die "cross build of the perfbench tool failed"
fi
for e in "$EXAMPLE" $SUITE; do
  bin=$CACHE/target/$TARGET/release/examples/$e
  [ -x "$bin" ] || die "build produced no $bin"
  aarch64-linux-gnu-readelf -h "$bin" | grep -q 'Machine:.*AArch64' || die "$bin is not an AArch64 ELF"
  if aarch64-linux-gnu-readelf -l "$bin" | grep -q 'INTERP'; then
    die "$bin is dynamically linked (crt-static not applied?)"
  fi
done
BIN=$CACHE/target/$TARGET/release/examples/$EXAMPLE
LIB_BIN=
if [ "$LIB_TESTS" = 1 ]; then
  log "building perfbench's unit tests for $TARGET"
  cargo_web test --offline --release --target "$TARGET" -p perfbench --lib --no-run \
    --message-format=json-render-diagnostics >"$TMP/libtests.json" ||
    die "cross build of perfbench's unit tests failed"
  LIB_BIN=$(grep -o '"executable":"[^"]*"' "$TMP/libtests.json" | tail -n1 | cut -d'"' -f4)
  [ -x "$LIB_BIN" ] || die "no unit test executable in cargo's output"
fi

# ---------------------------------------------------------------------------------------------
# 4. The initramfs: busybox, /init, the test.
# ---------------------------------------------------------------------------------------------
INITRD=$CACHE/work/initrd.gz
IR=$TMP/initramfs
mkdir -p "$IR"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp} "$CACHE/work"
cp "$BBDIR/busybox" "$IR/bin/busybox"
install -m 0755 "$RIG/init.sh" "$IR/init"
aarch64-linux-gnu-strip --strip-debug -o "$IR/bin/guest-test" "$BIN"
[ -z "$LIB_BIN" ] || aarch64-linux-gnu-strip --strip-debug -o "$IR/bin/lib-tests" "$LIB_BIN"
if [ -n "$SUITE" ]; then
  aarch64-linux-gnu-strip --strip-debug -o "$IR/bin/$SUITE" "$CACHE/target/$TARGET/release/examples/$SUITE"
  aarch64-linux-gnu-strip --strip-debug -o "$IR/bin/perfbench" "$CACHE/target/$TARGET/release/perfbench"
  GUEST_ARGS="--suite=/bin/$SUITE${GUEST_ARGS:+ $GUEST_ARGS}"
fi
if [ "$(id -u)" = 0 ]; then mknod -m 0600 "$IR/dev/console" c 5 1; fi
(cd "$IR" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) |
  gzip -1 >"$INITRD.tmp"
mv "$INITRD.tmp" "$INITRD"
log "initramfs $(du -k "$INITRD" | cut -f1) KiB (test binary $(du -k "$IR/bin/guest-test" | cut -f1) KiB)"

# ---------------------------------------------------------------------------------------------
# 5. Boot, run, compare boots.
# ---------------------------------------------------------------------------------------------
boot() { # boot ID CPU ARGS [EXTRA KERNEL ARGS] -> sets RC; log in $CACHE/work/boot-ID.log
  local id=$1 cpu=$2 args=$3 extra=${4:-} nonce logf status start marker
  nonce=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
  logf=$CACHE/work/boot-$id.log
  start=$SECONDS
  log "boot $id: -cpu $cpu, guest args '$args' (time limit ${BOOT_TIMEOUT}s)"
  set +e
  timeout -k 10 "$BOOT_TIMEOUT" qemu-system-aarch64 \
    -M virt -cpu "$cpu" -smp 1 -m 512 -nographic -no-reboot -nic none \
    -icount shift=0,sleep=off -kernel "$KDIR/vmlinuz" -initrd "$INITRD" \
    -append "console=ttyAMA0 panic=-1 cryptomgr.notests=1 quiet perfbench_nonce=$nonce perfbench_args=\"$args\"$extra" \
    </dev/null 2>&1 | stdbuf -oL tr -d '\r' | tee "$logf"
  status=${PIPESTATUS[0]}
  set -e
  marker=$(grep -a "^PERFBENCH-ARM64-EXIT $nonce rc=" "$logf" | tail -n1 || true)
  if [ -z "$marker" ]; then
    if [ "$status" = 124 ] || [ "$status" = 137 ]; then
      log "FAIL: boot $id hung: no result within ${BOOT_TIMEOUT}s (PERFBENCH_ARM64_TIMEOUT)"
    elif grep -aq 'Kernel panic' "$logf"; then
      log "FAIL: boot $id: the guest kernel panicked (see above)"
    else
      log "FAIL: boot $id: QEMU exited ($status) without the guest's result marker"
    fi
    exit 3
  fi
  RC=${marker##*rc=}
  log "boot $id: guest test exited $RC after $((SECONDS - start))s"
}
rm -f "$CACHE"/work/boot-*.log "$CACHE"/work/figures-*.txt
IFS=';' read -ra VARIANT_LIST <<<"$VARIANTS"
v=0
summary=()
for variant in "${VARIANT_LIST[@]}"; do
  v=$((v + 1))
  IFS='|' read -r cpu vargs vboots <<<"$variant"
  vboots=${vboots:-$BOOTS}
  case $vboots in *[!0-9]* | 0) die "variant '$variant': BOOTS must be a positive integer" ;; esac
  for n in $(seq 1 "$vboots"); do
    boot "$v.$n" "$cpu" "$vargs${GUEST_ARGS:+ $GUEST_ARGS}"
    [ "$RC" = 0 ] || { log "FAIL: the guest test failed on -cpu $cpu (exit $RC)"; exit "$RC"; }
    grep -a '^FIGURE ' "$CACHE/work/boot-$v.$n.log" >"$CACHE/work/figures-$v.$n.txt" || true
    if [ "$n" -gt 1 ] && ! diff -u "$CACHE/work/figures-$v.1.txt" "$CACHE/work/figures-$v.$n.txt" >&2; then
      log "FAIL: boot $v.$n printed different FIGURE lines from boot $v.1 (counts must be deterministic)"
      exit 4
    fi
  done
  summary+=("-cpu $cpu: $vboots boot(s), $(wc -l <"$CACHE/work/figures-$v.1.txt") identical FIGURE lines")
done
if [ -n "$LIB_BIN" ]; then
  cpu=${VARIANT_LIST[0]%%|*}
  boot lib "$cpu" "$LIB_TEST_ARGS" " perfbench_prog=lib-tests perfbench_user_access=1"
  [ "$RC" = 0 ] || { log "FAIL: perfbench's unit tests failed in the guest (exit $RC)"; exit "$RC"; }
  summary+=("unit tests passed")
fi
log "PASS: $(printf '%s; ' "${summary[@]}")total $((SECONDS - T0))s"
