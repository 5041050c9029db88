#!/bin/sh
# The kernel lab works: boots, and inside it AppArmor and BPF LSM enforce
# (tests/vm/smoke-guest.sh does the checks).  Skips only when qemu cannot
# run at all.
SRC=${SRC:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-build}
case "$BUILD" in /*) B=$BUILD ;; *) B=$SRC/$BUILD ;; esac
if ! qemu-system-x86_64 -version >/dev/null 2>&1; then
	echo "SKIP: qemu-system-x86_64 cannot run here"
	exit 0
fi
probe=$B/tests/vm/lsm_probe
[ -x "$probe" ] || { echo "FAIL: $probe not built (make test-bins)"; exit 1; }
out=$(VM_VERBOSE=1 sh "$SRC/tests/vm/run-in-vm.sh" --timeout 400 -- sh "$SRC/tests/vm/smoke-guest.sh" "$probe" 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] || { echo "FAIL: smoke-guest.sh exited $rc"; exit 1; }
# Every check must have reported, not just the exit status.
for c in lsm-apparmor lsm-bpf aa-load aa-deny aa-allow-sibling aa-unconfined-reads \
	aa-attr-exec bpf-load bpf-allow-outside-cgroup bpf-deny-in-cgroup \
	bpf-allow-sibling bpf-count bpf-detached; do
	echo "$out" | grep -qx "ok $c" || { echo "FAIL: check $c did not pass"; exit 1; }
done
echo "PASS: lab boots; AppArmor and cgroup-scoped BPF LSM enforce"
