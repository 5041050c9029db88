#!/bin/sh
# t_bypass_seccomp.sh - io_uring, clone3 and the new mount API cannot bypass
# a seccomp deny (issue 12).
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
for p in uring_splice uring_socket uring_setsockopt uring_openat ns_via mount_via; do
	[ -x "$B/$p" ] || { echo "FAIL: $B/$p missing (make test-bins)"; exit 1; }
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

# route NAME WANT POLICY_BODY PROG ARGS: the program prints "ok" or an errno
# name; WANT is that line. Unconfined each route must succeed first (else
# the attempt proves nothing).
route() {
	name=$1 want=$2 body=$3
	shift 3
	n=$((n + 1))
	base=$("$@" 2>/dev/null | tail -n 1)
	if [ "$base" != ok ]; then
		nfail=$((nfail + 1))
		echo "FAIL $name: unconfined it gives '$base', not ok"
		return
	fi
	printf 'policy p {\n  default allow;\n  %s\n}\n' "$body" >"$name.pol"
	got=$("$POLC" run --target seccomp "$name.pol" -- "$@" 2>"$name.err" | tail -n 1)
	if [ "$got" = "$want" ]; then
		echo "ok   $name: $got"
	else
		nfail=$((nfail + 1))
		echo "FAIL $name: $got, want $want"
		sed 's/^/    /' "$name.err"
	fi
}
# clone3's flags sit in memory: a clone/unshare flag condition makes clone3
# ENOSYS (libc falls back to clone, whose flags are checked). Before that
# meaning, clone3(CLONE_NEWUSER) made the namespace here.
NU='deny syscall clone if arg0 & CLONE_NEWUSER == CLONE_NEWUSER;
  deny syscall unshare if arg0 & CLONE_NEWUSER == CLONE_NEWUSER;'
N=$SRC/$BUILD/tests/bypass/ns_via
M=$SRC/$BUILD/tests/bypass/mount_via
route clone3-newuser ENOSYS "$NU" "$N" clone3
route clone3-plain ENOSYS "$NU" "$N" clone3-none
route clone-newuser EPERM "$NU" "$N" clone
route unshare-newuser EPERM "$NU" "$N" unshare
route clone3-unrelated ok 'deny syscall keyctl;' "$N" clone3
# the whole mount API under `deny mount`; before, open_tree(OPEN_TREE_CLONE)
# made a detached copy here. open_tree without the flag is no mount.
for m in tree-clone fsopen fspick mount_setattr; do
	route "mount-api-$m" EPERM 'deny mount;' "$M" $m /
done
route mount-api-tree-plain ok 'deny mount;' "$M" tree-plain /
route mount-api-unrelated ok 'deny syscall keyctl;' "$M" tree-clone /
echo "bypass (seccomp, io_uring, clone3, mount API): $n attempts, $nfail failed"
[ "$nfail" = 0 ]
