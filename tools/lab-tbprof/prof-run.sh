#!/bin/sh
# prof-run.sh POLC TARGET POLICY MICRO TEST T OUTDIR - inside the lab: save
# the guest's kallsyms in OUTDIR (from inside the run: the enforcer's
# JIT'd programs are there only while it is loaded), then run MICRO's TEST (bench/micro.c,
# -t T) under `polc run --target TARGET --allow-partial POLICY` (TARGET
# none: unconfined, in a fresh cgroup as polc run's own). Any enforcer:
# with two runs of different T, diff.py gives what one operation costs.
# CONTAINER=1: MICRO runs in a root of its own (bench/container.sh, as
# polc bench --container runs the rule-count series).
set -u
P=$1 TGT=$2 POL=$3 MICRO=$4 TEST=$5 T=$6 OUT=$7
# from the guest's tmpfs, as polc bench runs it: an exec over 9p waits on
# the host, and an idle guest's icount clock jumps ahead
cp "$MICRO" /tmp/tbprof-micro || exit 3
RUN=/tmp/tbprof-run.sh
CT=
[ "${CONTAINER:-0}" = 1 ] && CT="sh $(cd "$(dirname "$0")/../.." && pwd)/bench/container.sh"
echo 'cat /proc/kallsyms >"$1/kallsyms.txt" && exec '"$CT"' /tmp/tbprof-micro -t "$2" "$3"' >$RUN
if [ "$TGT" = none ]; then
	CGROOT=/sys/fs/cgroup/unified
	[ -d "$CGROOT" ] || CGROOT=/sys/fs/cgroup
	mkdir "$CGROOT/polc-tbprof" || exit 3
	sh -c 'echo $$ >"$1/cgroup.procs" && exec sh "$0" "$2" "$3" "$4"' "$RUN" "$CGROOT/polc-tbprof" "$OUT" "$T" "$TEST"
else
	"$P" run --target "$TGT" --allow-partial "$POL" -- sh "$RUN" "$OUT" "$T" "$TEST"
fi
