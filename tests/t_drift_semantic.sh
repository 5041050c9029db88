#!/bin/sh
# t_drift_semantic.sh - the drift gate judges by meaning: `polc build
# --check A` exits 0 when A is equal in effect to the build (a policy
# reordered and regrouped), 1 with the differences - the same lines as
# `polc diff A B` - when not, for OCI profiles (read back through the OCI
# importer and compared with ir_diff) and AppArmor profiles (their sets of
# rules); `polc diff` on two artifacts compares them so; a diagnostic on a
# very long source line (a minified JSON profile checked as policy text)
# shows a window around the column, not the whole line.
set -u
: "${POLC:?}"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cd "$T" || exit 3
cat >a.pol <<'P'
policy app {
  default deny syscall;
  allow syscall read, write, close;
  allow syscall openat;
  deny syscall keyctl;
  allow file "/etc/**" read;
  deny file "/etc/shadow" read;
  allow exec "/bin/true";
  allow capability chown;
}
P
cat >same.pol <<'P'
# a.pol reordered and regrouped
policy app {
  allow capability chown;
  allow exec "/bin/true";
  deny file "/etc/shadow" read;
  allow syscall openat, close;
  deny syscall keyctl;
  allow syscall write;
  allow file "/etc/**" read;
  allow syscall read;
  default deny syscall;
}
P
sed 's/allow syscall openat;/allow syscall openat, mmap;/; s|deny file "/etc/shadow" read;|deny file "/etc/shadow" read;\n  deny file "/etc/passwd" read;|' a.pol >drift.pol

for t in "seccomp --format oci" apparmor; do
	set -- $t; tg=$1
	"$POLC" build a.pol --target $t --allow-partial -o a.$tg 2>/dev/null || bad "$tg: build a.pol"
	"$POLC" build same.pol --target $t --allow-partial -o same.$tg 2>/dev/null
	"$POLC" build drift.pol --target $t --allow-partial -o drift.$tg 2>/dev/null
	cmp -s a.$tg same.$tg && bad "$tg: the reordered policy builds the same bytes (the test proves nothing)"
	"$POLC" build same.pol --target $t --allow-partial --check a.$tg >out 2>err; rc=$?
	[ $rc = 0 ] && grep -q "is equal in effect" err && [ ! -s out ] ||
		bad "$tg: --check on a reordered policy: exit $rc: $(cat out err)"
	"$POLC" build drift.pol --target $t --allow-partial --check a.$tg >out 2>err; rc=$?
	[ $rc = 1 ] && grep -q "differs in effect" err || bad "$tg: --check on drift: exit $rc: $(cat err)"
	"$POLC" diff a.$tg drift.$tg >dout 2>derr; rc=$?
	[ $rc = 1 ] || bad "$tg: polc diff on drift: exit $rc: $(cat derr)"
	sed 's/(built now)/drift.'$tg'/' out >out2
	cmp -s out2 dout || bad "$tg: --check and polc diff print different lines: $(cat out2) vs $(cat dout)"
	"$POLC" diff a.$tg same.$tg >dout 2>derr; rc=$?
	[ $rc = 0 ] && [ ! -s dout ] || bad "$tg: polc diff on the reordered build: exit $rc: $(cat dout)"
done
"$POLC" diff a.seccomp drift.seccomp 2>/dev/null | grep -q '^widened  syscall mmap (x86_64): old deny EPERM' ||
	bad "OCI diff does not name the widened mmap"
"$POLC" diff a.apparmor drift.apparmor 2>/dev/null | grep -q '^+ deny "/etc/passwd{,/}" r,$' ||
	bad "AppArmor diff does not name the new deny: $("$POLC" diff a.apparmor drift.apparmor 2>&1)"
"$POLC" diff a.seccomp a.apparmor >/dev/null 2>err; rc=$?
[ $rc = 2 ] && grep -q "a.seccomp is an OCI seccomp profile, a.apparmor an AppArmor profile" err ||
	bad "OCI against AppArmor: exit $rc: $(cat err)"
"$POLC" build a.pol --target bpf --allow-partial -o a.bpfpol 2>/dev/null
"$POLC" diff a.bpfpol a.bpfpol >/dev/null 2>err; rc=$?
[ $rc = 2 ] && grep -q "cannot be compared by meaning" err || bad "two bundles: exit $rc: $(cat err)"

# a long line: the diagnostic shows a window around the column
python3 -c 'import json; print(json.dumps({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["n%d" % i for i in range(600)], "action": "SCMP_ACT_ERRNO"}]}))' >min.json
"$POLC" check min.json 2>err; rc=$?
[ $rc = 1 ] || bad "check min.json: exit $rc"
w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' err)
[ "$w" -le 240 ] || bad "a diagnostic line of $w columns"
last=$(grep -n 'unexpected' err | tail -1 | cut -d: -f1)
src=$(sed -n "$((last + 1))p" err) car=$(sed -n "$((last + 2))p" err)
case $src in "  ..."*) ;; *) bad "the window is not marked as cut: $src" ;; esac
# the caret is under the reported character
col=$(sed -n "${last}p" err | cut -d: -f3)
ch=$(cut -c"$col" min.json)
pos=$(( ${#car} ))
[ "$(printf '%s' "$src" | cut -c"$pos")" = "$ch" ] || bad "caret at $pos is not under '$ch': $src / $car"
[ $fail = 0 ] && echo ok
exit $fail
