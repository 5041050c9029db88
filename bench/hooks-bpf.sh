#!/bin/sh
# hooks-bpf.sh POLC MICRO WORKDIR NAME=POLICY...
#   The BPF enforcer's cost per program invocation, from the kernel's own
#   per-program statistics (kernel.bpf_stats_enabled=1: run_cnt and
#   run_time_ns of each attached program). Lab only (BPF LSM must load).
#   For each policy: build its bundle, load it for a fresh cgroup, and run
#   each micro test once inside that cgroup and once outside it (the
#   enforcer's early exit for tasks it does not confine); the programs'
#   counters are read before and after each run with bpftool from outside
#   the cgroup (a confined task may not read them: self-protection).
# Prints "hook SCENARIO WHERE TEST PROGRAM CALLS NS_PER_CALL" lines, one per
#   program that ran, and "exit 0" at the end. Under the lab's icount clock
#   (VM_ICOUNT=0) one guest ns is one guest instruction, so the figures do
#   not depend on the host's load.
# HOOK_TESTS: the micro tests to run (default: getppid openat stat read4k
#   fork execl).
# Leaves no cgroup, policy or sysctl change behind (trap).
set -u
POLC=$1 MICRO=$2 WORK=$3
shift 3
TESTS=${HOOK_TESTS:-"getppid openat stat read4k fork execl"}
CGROOT=/sys/fs/cgroup/unified
[ -d "$CGROOT" ] || CGROOT=/sys/fs/cgroup
cg=$CGROOT/polc-bench-hooks.$$
old=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
cleanup() {
	"$POLC" unload --cgroup "$cg" >/dev/null 2>&1
	rmdir "$cg" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$old" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 143' INT TERM

. "$(dirname "$0")/bpf-stats.sh"   # snapshot

# What ran between snapshots s1 and s2, less what bpftool's own snapshot
# ran between s0 and s1 (it calls capable, bpf and bpf_map hooks itself;
# under icount that share is the same each time): "NAME CALLS NS_PER_CALL"
delta() {
	awk 'FILENAME == ARGV[1] { c0[$1] = $3; t0[$1] = $4; next }
	     FILENAME == ARGV[2] { c1[$1] = $3; t1[$1] = $4; next }
	     ($1 in c1) && ($1 in c0) {
		n = ($3 - c1[$1]) - (c1[$1] - c0[$1]); t = ($4 - t1[$1]) - (t1[$1] - t0[$1])
		if (n > 0) printf "%s %d %.1f\n", $2, n, t / n }' "$1" "$2" "$3"
}

sysctl -qw kernel.bpf_stats_enabled=1 || { echo "hooks: cannot enable bpf_stats" >&2; exit 3; }
mkdir "$cg" || exit 3
for spec in "$@"; do
	scen=${spec%%=*} pol=${spec#*=}
	"$POLC" build --target bpf --allow-partial "$pol" -o "$WORK/hooks.bundle" 2>/dev/null ||
		{ echo "hooks: polc build $pol failed" >&2; exit 3; }
	"$POLC" load "$WORK/hooks.bundle" --cgroup "$cg" >/dev/null ||
		{ echo "hooks: polc load failed" >&2; exit 3; }
	for where in confined unconfined; do
		for t in $TESTS; do
			snapshot >"$WORK/s0"
			snapshot >"$WORK/s1"
			if [ $where = confined ]; then
				sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -t 0.05 "$3"' sh "$cg" "$MICRO" "$t" >/dev/null
			else
				"$MICRO" -t 0.05 "$t" >/dev/null
			fi || { echo "hooks: micro $t ($scen, $where) failed" >&2; exit 3; }
			snapshot >"$WORK/s2"
			delta "$WORK/s0" "$WORK/s1" "$WORK/s2" | while read -r prog calls ns; do
				echo "hook $scen $where $t $prog $calls $ns"
			done
		done
	done
	"$POLC" unload --cgroup "$cg" >/dev/null
done
echo "exit 0"
