#!/bin/busybox sh
# shellcheck shell=dash
# PID 1 of the perfbench arm64 guest, packed into the initramfs by .ci/arm64/run.sh.
#
# Mounts proc, sys and devtmpfs, prints what the host log needs to explain a failure (kernel,
# PMUs, perf_user_access), runs the test program, prints the success marker with its exit
# status, and powers off.
#
# The kernel passes unknown `name=value` words of its command line to init as environment
# variables:
#   perfbench_nonce        makes the marker unique to this boot
#   perfbench_prog         program under /bin to run (default guest-test: .ci/arm64/guest/)
#   perfbench_args         its arguments (word-split)
#   perfbench_user_access  value to write to kernel.perf_user_access first (default: leave the
#                          kernel's 0; the guest test toggles it itself to check both settings)

/bin/busybox mkdir -p /proc /sys /dev /tmp
/bin/busybox mount -t devtmpfs devtmpfs /dev
# The initramfs may have no /dev/console node (built without root): take the console now.
exec 0</dev/console 1>/dev/console 2>&1
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs tmpfs /tmp
# tracefs, for the tracepoint unit test (syscalls:sys_enter_getpid).
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null \
  || echo "guest: tracefs could not be mounted"

echo "guest: $(uname -srm), $(grep -c '^processor' /proc/cpuinfo) cpu(s)"
echo "guest: PMUs: $(cd /sys/bus/event_source/devices && echo *)"
echo "guest: kernel.perf_user_access=$(cat /proc/sys/kernel/perf_user_access 2>/dev/null || echo missing)" \
  "kernel.perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo missing)"

if [ -n "${perfbench_user_access:-}" ]; then
  echo "$perfbench_user_access" >/proc/sys/kernel/perf_user_access
  echo "guest: kernel.perf_user_access set to $(cat /proc/sys/kernel/perf_user_access)"
fi

# The perfbench tool that the suite hands its runs to (run.sh packs it: the guest has no
# compiler to build one).
if [ -x /bin/perfbench ]; then
  export PERFBENCH_TOOL=/bin/perfbench PERFBENCH_BUILD_TOOL=0
fi

cd /tmp || exit 1
# shellcheck disable=SC2086 # perfbench_args is a word list on purpose
"/bin/${perfbench_prog:-guest-test}" ${perfbench_args:-}
rc=$?
echo "PERFBENCH-ARM64-EXIT ${perfbench_nonce:-no-nonce} rc=$rc"
sync
poweroff -f
# Not reached; if poweroff fails, exiting PID 1 panics the kernel and panic=-1 ends QEMU.
sleep 5
exit "$rc"
