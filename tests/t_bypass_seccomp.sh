#!/bin/sh
# t_bypass_seccomp.sh - io_uring cannot bypass a seccomp deny (issue 12).
# Each attack program (tests/bypass/uring_*.c) does one operation as the
# direct syscall, then as the io_uring opcode that performs it. Under a
# policy that denies the syscall, the direct call must fail with EPERM and
# io_uring itself must be refused (exit 3; see tests/bypass/uring.h): the
# policy closes io_uring (ir_implied) and says so in its header. Before that
# meaning existed every io_uring form succeeded here (exit 0 with the direct
# call refused). A policy denying nothing io_uring performs leaves io_uring
# usable (the closure is not blanket). Children only; no traffic (a netlink
# and a UDP socket are created, never used).
set -u
: "${POLC:?}" "${BUILD:?}" "${SRC:?}"
B=$SRC/$BUILD/tests/bypass
for p in splice socket setsockopt openat; do
	[ -x "$B/uring_$p" ] || { echo "FAIL: $B/uring_$p missing (make test-bins)"; exit 1; }
done
T=$(mktemp -d) || exit 3
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 3
# io_uring may be off on this kernel: then there is nothing to bypass
if ! "$B/uring_splice" >probe.out 2>&1 && grep -q 'io_uring refused' probe.out; then
	echo "SKIP: io_uring is not available here: $(cat probe.out | tail -n 1)"
	exit 0
fi
nfail=0 n=0
# attack NAME WANT_RC POLICY_BODY PROG [ARG]
attack() {
	name=$1 want=$2 body=$3
	shift 3
	n=$((n + 1))
	printf 'policy p {\n  default allow;\n  %s\n}\n' "$body" >"$name.pol"
	"$POLC" run --target seccomp "$name.pol" -- "$@" >"$name.out" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		nfail=$((nfail + 1))
		echo "FAIL $name: exit $rc, want $want"
		sed 's/^/    /' "$name.out"
	else
		echo "ok   $name: $(tr '\n' ';' <"$name.out")"
	fi
}
attack splice 3 'deny syscall splice;' "$B/uring_splice"
attack netlink 3 'deny network netlink;' "$B/uring_socket"
attack setsockopt 3 'use disallow-load-bpf-via-setsockopt;' "$B/uring_setsockopt"
attack openat 3 'deny syscall openat if arg2 & 3 == O_WRONLY;' "$B/uring_openat" "$T/made"
[ -e "$T/made" ] && { echo "FAIL: openat: the file was created"; nfail=$((nfail + 1)); }
# the direct call refused with EPERM in each (not some other failure)
for f in splice netlink setsockopt openat; do
	grep -q '^direct .*: Operation not permitted$' "$f.out" ||
		{ echo "FAIL $f: the direct call was not refused with EPERM"; nfail=$((nfail + 1)); }
	grep -q '^io_uring .*: io_uring refused: Operation not permitted$' "$f.out" ||
		{ echo "FAIL $f: io_uring not refused with EPERM"; nfail=$((nfail + 1)); }
done
# control: nothing io_uring performs is denied, so io_uring stays open
attack control 4 'deny syscall keyctl;' "$B/uring_splice"
grep -q 'io_uring splice: ok' control.out || { echo "FAIL control: io_uring closed needlessly"; nfail=$((nfail + 1)); }
# the output header and polc rules say it
"$POLC" build splice.pol --target seccomp --format pfc -o splice.pfc 2>/dev/null &&
	grep -q '^# implied by splice.pol:3:3: io_uring closed' splice.pfc ||
	{ echo "FAIL: the pfc header does not say io_uring is closed"; nfail=$((nfail + 1)); }
"$POLC" rules disallow-load-bpf-via-setsockopt | grep -q '+ io_uring closed' ||
	{ echo "FAIL: polc rules does not say io_uring is closed"; nfail=$((nfail + 1)); }
echo "bypass (seccomp, io_uring): $n attempts, $nfail failed"
[ "$nfail" = 0 ]
