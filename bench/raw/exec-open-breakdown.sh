#!/bin/sh
# exec-open-breakdown.sh WORKTREE - inside the icount lab: an execl's and an
# openat's per-call file_open and bprm_check cost, for each of WORKTREE's
# builds build-p0 .. build-p5 (exec-open-breakdown.txt says how they are
# made); the lines behind exec-open-breakdown.txt
SRC=$1
echo 0 >/proc/sys/kernel/randomize_va_space
W=$(mktemp -d /tmp/hk.XXXXXX); cp "$SRC/build-p0/bench/micro" "$W/micro"
cp "$SRC/tools/lsm-floor/rules1.pol" "$W/rules1.pol"
for n in 0 1 2 3 4 5; do
	echo "variant $n"
	HOOK_TESTS="openat execl" sh "$SRC/bench/hooks-bpf.sh" "$SRC/build-p$n/polc" "$W/micro" "$W" \
		Rules1="$W/rules1.pol" | grep -E "confined (openat|execl) polc_(file_open|bprm)|exit"
done
