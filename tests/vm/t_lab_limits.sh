#!/bin/sh
# The lab's slower edges (make vmtest only): --timeout while CMD runs is 124
# with a message and CMD's output so far; a cwd the guest cannot see is 125
# with a message; --mem sizes the guest; the guest kernel's own modules load.
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN="sh $SRC/tests/vm/run-in-vm.sh"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# --mem and modprobe, in one boot.
$RUN --mem 640 -- sh -c '
	awk "/^MemTotal/ { print \"mem=\" int(\$2 / 1024) }" /proc/meminfo
	modprobe dummy && [ -d /sys/module/dummy ] && echo modprobe-ok
	# the kernel loads veth itself, through kernel.modprobe
	ip link add va type veth peer name vb && [ -d /sys/module/veth ] && echo autoload-ok' >"$t/out" 2>&1
rc=$?; cat "$t/out"
[ $rc = 0 ] || fail "mem/modprobe run: exit $rc"
mem=$(sed -n 's/^mem=//p' "$t/out")
[ -n "$mem" ] && [ "$mem" -gt 450 ] && [ "$mem" -le 640 ] || fail "MemTotal ${mem}MB for --mem 640"
grep -qx modprobe-ok "$t/out" || fail "modprobe dummy inside the guest"
grep -qx autoload-ok "$t/out" || fail "module autoload (veth) inside the guest"

# A cwd under the host's /tmp is hidden by the guest's tmpfs /tmp.
(cd "$t" && $RUN -- true) >"$t/out" 2>&1
rc=$?; cat "$t/out"
[ $rc = 125 ] || fail "hidden cwd: exit $rc, want 125"
grep -q 'not visible in the guest' "$t/out" || fail "hidden cwd: no message"

# Timeout: longer than a boot, shorter than CMD.
$RUN --timeout 60 -- sh -c 'echo started; sleep 600' >"$t/out" 2>&1
rc=$?; cat "$t/out"
[ $rc = 124 ] || fail "timeout: exit $rc, want 124"
grep -q 'timed out after 60s' "$t/out" || fail "timeout: no message"
grep -qx started "$t/out" || fail "timeout: CMD's output so far was lost"
echo "PASS: timeout, hidden cwd, --mem, modprobe"
