#!/bin/sh
# run-fuzz.sh TARGET... - run each libFuzzer target for $FUZZ_SECONDS with
# its corpus; a crash is saved under tests/fuzz/crashes/ and fails the run
# (add the input to tests/fuzz/corpus/TARGET/ once fixed: it becomes a test).
set -u
# FUZZ_SEED: libFuzzer's -seed (CI's default 1 makes a run repeatable; 0 =
# a new random seed each run, for long local hunts).
# -timeout is wall-clock time: on a shared host under load, an input the
# release build compiles in 0.14 s CPU (a 4,096-alternative glob through the
# BPF DFA builder) took 41 s wall in the instrumented build (~40x slower,
# run twice for leak checks, 6 runnable jobs per core). 120 s still
# catches a hang; run-time cost is bench's business.
B=${FUZZ_BUILD:-build-fuzz}; S=${FUZZ_SECONDS:-60}; SEED=${FUZZ_SEED:-1}
# FUZZ_JOBS targets run side by side (default: one per CPU). Each libFuzzer
# run is one process on one core, so each target still gets its FUZZ_SECONDS
# of a whole core; CI's four 60 s runs take 120 s of wall time on 2 cores.
J=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
mkdir -p tests/fuzz/crashes

# fuzz_one TARGET: one run; its verdict line (and the log's tail on a
# failure) goes to $B/fuzz/TARGET.result, its status to TARGET.rc.
fuzz_one() {
	t=$1 work=$B/fuzz/corpus-$1 log=$B/fuzz/$1.log
	mkdir -p "$work"
	"$B/fuzz/fuzz_$t" -max_total_time="$S" -seed="$SEED" -max_len=65536 -timeout=120 -rss_limit_mb=2048 \
		-artifact_prefix=tests/fuzz/crashes/$t- "$work" tests/fuzz/corpus/$t > "$log" 2>&1
	rc=$?
	execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
	[ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')
	if [ $rc = 0 ]; then
		echo "PASS fuzz_$t: ${execs:-?} executions in ${S}s, 0 crashes"
	else
		echo "FAIL fuzz_$t (exit $rc): see $log and tests/fuzz/crashes/"; tail -n 30 "$log"
	fi > "$B/fuzz/$t.result"
	echo $rc > "$B/fuzz/$t.rc"
}

mkdir -p "$B/fuzz"
running=0
for t in "$@"; do
	rm -f "$B/fuzz/$t.rc"
	fuzz_one "$t" &
	running=$((running + 1))
	[ $running -ge "$J" ] && { wait; running=0; }
done
wait
fail=0
for t in "$@"; do
	cat "$B/fuzz/$t.result" 2>/dev/null || echo "FAIL fuzz_$t: no result"
	[ "$(cat "$B/fuzz/$t.rc" 2>/dev/null)" = 0 ] || fail=1
done
exit $fail
