#!/bin/sh
# polc build --target seccomp --profile-from TRACE end to end: the laid-out
# filter is accepted by the kernel and runs a command, it is byte-identical
# across builds, it differs from the typical layout and is shorter per
# syscall on the trace's own mix (the summary line says so), and other targets and formats are refused. That
# it decides exactly as the plain filter is test_seccomp_exhaustive's job.
set -eu
cd "$SRC"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
LOAD=$SRC/$BUILD/tests/progs/load_bpf
# Not Redis: the typical layout is already weighted by a Redis mix, so Redis's
# own trace cannot make it cheaper (5.21 -> 5.21); PostgreSQL's mix differs.
TR=profiles/traces/postgresql.trace
fail() { echo "FAIL: $*"; exit 1; }
echo 'policy p { use runtime-default; }' >"$T/p.pol"

"$POLC" build "$T/p.pol" --target seccomp --allow-partial --profile-from $TR -o "$T/a.bpf" 2>"$T/err" ||
	{ cat "$T/err"; fail "profiled build"; }
grep -E '^polc: --profile-from .*: laid out for its mix of [1-9][0-9]* syscalls \([0-9]+ tested first\); [0-9.]+ -> [0-9.]+ instructions' "$T/err" >"$T/line" ||
	{ cat "$T/err"; fail "no summary line"; }
awk '{ for (i = 1; i <= NF; i++) if ($i == "->") { b = $(i - 1); a = $(i + 1) } } END { exit !(a + 0 < b + 0) }' "$T/line" ||
	fail "not cheaper on its own mix: $(cat "$T/line")"
"$POLC" build "$T/p.pol" --target seccomp --allow-partial --profile-from $TR -o "$T/b.bpf" 2>/dev/null
cmp -s "$T/a.bpf" "$T/b.bpf" || fail "profiled output not deterministic"
"$POLC" build "$T/p.pol" --target seccomp --allow-partial -o "$T/plain.bpf" 2>/dev/null
cmp -s "$T/a.bpf" "$T/plain.bpf" && fail "the trace changed nothing"
[ "$("$LOAD" "$T/a.bpf" sh -c 'echo ok')" = ok ] || fail "kernel refused or command failed"

for bad in "--target seccomp --format pfc" "--target seccomp --format oci" "--target apparmor"; do
	# shellcheck disable=SC2086
	if "$POLC" build "$T/p.pol" $bad --allow-partial --profile-from $TR -o "$T/x" 2>"$T/err"; then
		fail "$bad accepted --profile-from"
	fi
	grep -q "profile-from lays out a filter for a recorded syscall mix: --target seccomp --format bpf" "$T/err" || { cat "$T/err"; fail "$bad: message"; }
done
if "$POLC" build "$T/p.pol" --target seccomp --allow-partial --profile-from "$T/none.trace" -o "$T/x" 2>"$T/err"; then
	fail "missing trace accepted"
fi
grep -q "none.trace" "$T/err" || { cat "$T/err"; fail "missing trace: message"; }
echo "profiled layout: $(cat "$T/line")"
