#!/bin/sh
# polc run --target seccomp FILE -- CMD: the command runs under the filter
# (errnos as the policy says), the parent shell does not, and a policy with
# statements seccomp cannot enforce is refused unless --allow-partial.
set -eu
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
P=$SRC/$BUILD/tests/progs/sc_probe
fail() { echo "FAIL: $*"; exit 1; }
cat >"$T/p.pol" <<'POL'
policy probe {
  deny errno EACCES syscall getppid;
  deny errno EXDEV syscall dup if arg0 == 1;
  deny syscall unshare if arg0 & CLONE_NEWUSER == CLONE_NEWUSER;
}
POL
out=$("$POLC" run --target seccomp "$T/p.pol" -- "$P" getppid getpid dup1 uname unshare-user)
echo "$out"
want="getppid errno 13
getpid ok
dup1 errno 18
uname ok
unshare-user errno 1"
[ "$out" = "$want" ] || fail "confined results differ"
# unconfined, the same probe succeeds on getppid and dup
[ "$("$P" getppid dup1)" = "getppid ok
dup1 ok" ] || fail "probe itself is broken"
# a file statement is refused (no command run), accepted with --allow-partial
printf 'policy q {\n  deny errno EACCES syscall getppid;\n  deny file "/etc/shadow" read;\n}\n' >"$T/q.pol"
if "$POLC" run --target seccomp "$T/q.pol" -- "$P" getppid >"$T/o" 2>"$T/e"; then fail "not refused"; fi
[ ! -s "$T/o" ] || fail "command ran despite refusal"
grep -q 'q.pol:3:3: error' "$T/e" || { cat "$T/e"; fail "no located error"; }
[ "$("$POLC" run --target seccomp --allow-partial "$T/q.pol" -- "$P" getppid 2>/dev/null)" = "getppid errno 13" ] ||
	fail "--allow-partial run"
echo ok
