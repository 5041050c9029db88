#!/bin/sh
# polc diff on the drift fixtures: exit codes and the messages that name the
# changed fact with file:line of both sides.
set -u
D=$SRC/tests/fixtures/drift
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; cat "$T/out" "$T/err" 2>/dev/null; exit 1; }
# expect RC ARGS...: run polc diff, check its exit code
expect() {
	want=$1; shift
	"$POLC" diff "$@" >"$T/out" 2>"$T/err"; rc=$?
	[ "$rc" = "$want" ] || fail "polc diff $* exited $rc, expected $want"
}
has() { grep -qF -- "$1" "$T/out" || fail "output lacks: $1"; }

expect 0 "$D/base.pol" "$D/reordered.pol"
grep -q "equal in effect" "$T/err" || fail "no 'equal in effect'"
[ -s "$T/out" ] && fail "reordered-but-equal printed differences"
expect 0 "$D/base.pol" "$D/base.pol"

expect 1 "$D/base.pol" "$D/syscall.pol"
has "widened  syscall ptrace (x86_64): old deny EPERM (default of $D/base.pol:2:8), new allow ($D/syscall.pol:4:2)"
[ "$(wc -l <"$T/out")" = 1 ] || fail "one change, several lines"

expect 1 "$D/base.pol" "$D/glob.pol"
has "widened  file \"/var/lib/redis/x/y\" write: old deny EPERM (default of $D/base.pol:2:8), new allow ($D/glob.pol:6:2)"
grep -q '"/var/lib/redis/x"' "$T/out" && fail "a path both globs match was reported"

expect 1 "$D/base.pol" "$D/port.pol"
has "widened  network bind inet stream protocol 0 to 127.0.0.1 port 16379"
grep -q "port 6379" "$T/out" && fail "the unchanged port was reported"

expect 1 "$D/base.pol" "$D/argcond.pol"
has "narrowed syscall clone arg0=0x40000000 (x86_64): old allow ($D/base.pol:5:2), new deny EPERM"

# the other direction narrows
expect 1 "$D/syscall.pol" "$D/base.pol"
has "narrowed syscall ptrace"

# the soak gate: fails only when NEW permits more than the committed profile
for f in syscall glob port; do
	expect 1 --against "$D/base.pol" "$D/$f.pol"
	grep -q "permits .* that .* does not" "$T/err" || fail "--against $f: no reason given"
done
expect 0 --against "$D/base.pol" "$D/argcond.pol"
expect 0 --against "$D/base.pol" "$D/reordered.pol"

# JSON
expect 1 --json "$D/base.pol" "$D/syscall.pol"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["equal"] is False; x=d["differences"][0]; assert x["kind"]=="widened" and x["subject"].startswith("syscall ptrace") and x["new"]["at"].endswith("syscall.pol:4:2"), x' "$T/out" || fail "json"
expect 0 --json "$D/base.pol" "$D/reordered.pol"
grep -q '"equal":true' "$T/out" || fail "json equal"

# a changed default is one item, not one per syscall
sed 's/default deny syscall, file, network;/default deny file, network;/' "$D/base.pol" >"$T/def.pol"
expect 1 "$D/base.pol" "$T/def.pol"
has "widened  default syscall: old deny EPERM"
[ "$(wc -l <"$T/out")" = 1 ] || fail "default change listed per syscall"

# errors: 2 for a policy that does not compile, 3 for a missing file, 2 for usage
printf 'policy p { allow syscall nosuchcall; }\n' >"$T/bad.pol"
expect 2 "$D/base.pol" "$T/bad.pol"
grep -q "bad.pol:1:" "$T/err" || fail "no location for the compile error"
expect 3 "$D/base.pol" "$T/missing.pol"
expect 2 "$D/base.pol"
echo ok
