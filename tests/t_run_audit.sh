#!/bin/sh
# Complain mode and learning from it, natively with seccomp: an allow-list
# that misses what /bin/ls and /bin/sh need (getdents64, ioctl, statfs,
# wait4, ...) kills or breaks the command when enforced; `polc run --mode
# audit` runs it to completion and logs what the policy would have refused;
# `polc gen --update` folds that into the profile (showing the diff, writing
# atomically); enforced again the command runs the same, and a second audit
# run logs 0 refusals. The workload is the system's ls under sh (a fork and
# an exec in the audited tree), not a program of ours.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$T/dir" && touch "$T/dir/a" "$T/dir/b"
cat > "$T/p.pol" <<'POL'
policy al {
  default deny syscall;
  # enough for a dynamically linked program to start and print, no more
  allow syscall execve, brk, arch_prctl, mmap, munmap, mprotect, openat, read,
    write, close, fstat, newfstatat, exit_group, access, pread64,
    set_tid_address, set_robust_list, rseq, prlimit64, getrandom;
}
POL
cp "$T/p.pol" "$T/orig.pol"
run() { "$POLC" run --target seccomp "$@" -- /bin/sh -c "ls -l '$T/dir'; ls '$T/dir'"; }

run "$T/p.pol" > "$T/enf1.out" 2>&1 && fail "the short allow-list should break ls (see $T/enf1.out)"

run --mode audit -o "$T/log1.trace" "$T/p.pol" > "$T/aud1.out" 2>"$T/aud1.err" ||
	fail "audit run: exit $? ($(cat "$T/aud1.err"))"
grep -q '^a$' "$T/aud1.out" && grep -q '^b$' "$T/aud1.out" ||
	fail "the audited command did not run to the end: $(cat "$T/aud1.out")"
grep -q '^meta tracer "seccomp-notify" 1$' "$T/log1.trace" || fail "log: $(cat "$T/log1.trace")"
for sc in getdents64 wait4; do
	grep -q "^syscall x86_64 $sc " "$T/log1.trace" || fail "log lacks $sc: $(cat "$T/log1.trace")"
done
grep -q '^syscall x86_64 \(openat\|read\|execve\) ' "$T/log1.trace" &&
	fail "an allowed call was logged as refused"

# A malformed log changes nothing.
printf 'polc-trace 1\nsyscall x86_64\n' > "$T/bad.trace"
"$POLC" gen --update "$T/p.pol" "$T/bad.trace" > /dev/null 2>&1 && fail "a bad log was accepted"
cmp -s "$T/p.pol" "$T/orig.pol" || fail "a failed update wrote the profile"

"$POLC" gen --update "$T/p.pol" "$T/log1.trace" > "$T/diff" || fail "gen --update: exit $?"
grep -q '^+    getdents64, ' "$T/diff" || fail "the diff lacks getdents64: $(cat "$T/diff")"
grep -q '^+  # Added by polc gen --update' "$T/diff" || fail "diff: $(cat "$T/diff")"
[ "$(head -n 6 "$T/p.pol")" = "$(head -n 6 "$T/orig.pol")" ] || fail "the profile's own lines changed"

run "$T/p.pol" > "$T/enf2.out" 2>&1 || fail "enforcing the updated profile: exit $? ($(cat "$T/enf2.out"))"
cmp -s "$T/enf2.out" "$T/aud1.out" || fail "the enforced run's output differs from the audited one's"
run --mode audit -o "$T/log2.trace" "$T/p.pol" > /dev/null 2>&1 || fail "second audit run"
n=$(grep -c '^syscall ' "$T/log2.trace")
[ "$n" = 0 ] || fail "the updated profile still refuses $n call(s): $(cat "$T/log2.trace")"
"$POLC" gen --update "$T/p.pol" "$T/log1.trace" > "$T/diff2" 2>&1 || fail "second update"
grep -q 'nothing to add' "$T/diff2" || fail "a second update of the same log changed the profile"
echo "ok: audit -> gen --update -> enforce: $(grep -c '^syscall ' "$T/log1.trace") refused call kinds logged, 0 after"
