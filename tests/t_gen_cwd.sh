#!/bin/sh
# t_gen_cwd.sh - polc gen generalises the working directory a recorded run
# started in (issue 13): the files a command reaches there are its data, so
# a second run working on other files there must need nothing new. Run A is
# recorded (ptrace) in a directory; its profile, judged by `polc gen
# --update` (ir_decide) against a *different* recorded run B (other files,
# a new subdirectory, another output), must already allow all of B, while a
# file A only read stays unwritable and --literal-cwd keeps A's paths (then
# B needs its files added). A run started in / keeps its paths as recorded
# and says so.
set -u
: "${POLC:?}"
T=$(mktemp -d) || exit 3
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
W=$T/site
mkdir -p "$W/sub" "$W/sub2"
for f in a b c; do echo $f > "$W/$f.html"; done
echo d > "$W/sub/d.txt"; echo e > "$W/sub2/e.txt"
rec() { # name cwd command: a ptrace trace of sh -c command run in cwd
	(cd "$2" && "$POLC" record --tracer ptrace -o "$T/$1.trace" -- sh -c "$3") > "$T/$1.out" 2>&1 ||
		fail "record $1: $(cat "$T/$1.out")"
	grep -q '^meta exit "status 0" 1' "$T/$1.trace" || fail "run $1 failed: $(grep '^meta' "$T/$1.trace")"
}
rec A "$W" 'cat a.html b.html sub/d.txt > /dev/null && echo x > out.log'
rec B "$W" 'cat c.html sub2/e.txt > /dev/null && echo y > out2.log'
grep -q "^meta cwd \"$W\" 1" "$T/A.trace" || fail "no cwd in the trace: $(grep '^meta' "$T/A.trace")"
gen() { "$POLC" gen --name p --deny-default file,exec "$@"; }
gen -o "$T/A.pol" "$T/A.trace" || fail "gen: exit $?"
# mktemp's random name is generalised as any temporary name is: /tmp/tmp.*
G='"/tmp/[^"/]*/site'
grep -q "^  allow file $G/\*\*\" read, write;" "$T/A.pol" || fail "no site/** rule: $(grep file "$T/A.pol")"
grep -q "^  # Working directory \"$W\": the command's data" "$T/A.pol" || fail "no comment saying why"
grep -q "^  deny file $G/a.html\" write;" "$T/A.pol" || fail "a.html, only read, is not kept unwritable"
grep -q "site/a.html\" read" "$T/A.pol" && fail "a literal path under the working directory is left"
"$POLC" check "$T/A.pol" > "$T/check" 2>&1 || fail "polc check: $(cat "$T/check")"
# B, a run A never saw, needs nothing new
cp "$T/A.pol" "$T/A2.pol"
"$POLC" gen --update "$T/A2.pol" "$T/B.trace" > "$T/upd" 2>&1 || fail "gen --update: $(cat "$T/upd")"
grep -q "already allows everything" "$T/upd" || fail "run B needed more than A's profile: $(cat "$T/upd")"
cmp -s "$T/A.pol" "$T/A2.pol" || fail "the profile changed"
# the decision is real: writing a file A only read is refused
sed 's|^file "\([^"]*\)/c.html" read ok|file "\1/a.html" write ok|' "$T/B.trace" > "$T/Bw.trace"
grep -q "a.html\" write" "$T/Bw.trace" || fail "cannot make the write trace"
"$POLC" gen --update "$T/A2.pol" -o "$T/A3.pol" "$T/Bw.trace" > "$T/upd" 2>&1
grep -q "^+  allow file .*site/.*write;" "$T/upd" || fail "writing a.html was allowed: $(cat "$T/upd")"
# --literal-cwd: A's paths as recorded; B then needs its own
gen --literal-cwd -o "$T/L.pol" "$T/A.trace" || fail "gen --literal-cwd: exit $?"
grep -q "\*\*" "$T/L.pol" && fail "--literal-cwd generalised: $(grep '\*\*' "$T/L.pol")"
grep -q "^  # Working directory \"$W\": paths under it kept as recorded (--literal-cwd)" "$T/L.pol" ||
	fail "--literal-cwd not said"
"$POLC" gen --update "$T/L.pol" "$T/B.trace" > "$T/upd" 2>&1 || fail "gen --update L: $(cat "$T/upd")"
grep -q "^+  allow file .*site/.*read" "$T/upd" || fail "literal profile allowed c.html: $(cat "$T/upd")"
# a system directory as the working directory: kept, and said
rec R / 'cat etc/hostname > /dev/null'
gen -o "$T/R.pol" "$T/R.trace" || fail "gen R: exit $?"
grep -q '^  # Working directory "/": paths under it kept as recorded (a system directory' "$T/R.pol" ||
	fail "cwd / not said: $(grep '#' "$T/R.pol")"
grep -q '"/\*\*"' "$T/R.pol" && fail "/ generalised"
grep -q '^  allow file "/etc/hostname" read;' "$T/R.pol" || fail "R's read: $(grep file "$T/R.pol")"
echo "ok: run B in the working directory needs nothing new; a.html stays read-only; --literal-cwd and / keep paths"
