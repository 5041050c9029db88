#!/bin/sh
# prof.sh POLC POLICY MICRO TEST OUTDIR - inside the lab: load POLICY's BPF
# bundle for a fresh cgroup, save the guest's kallsyms and file_open's JIT
# image in OUTDIR, run MICRO's TEST (bench/micro.c) confined, unload.
# PROF_T: micro's -t (default 0.3). Two runs with different PROF_T give
# what one operation costs with the boot's share cancelled (agg.py --per).
set -u
P=$1 POL=$2 MICRO=$3 TEST=$4 OUT=$5
HERE=$(cd "$(dirname "$0")" && pwd)
CGROOT=/sys/fs/cgroup/unified
[ -d "$CGROOT" ] || CGROOT=/sys/fs/cgroup
cg=$CGROOT/polc-tbprof
mkdir "$cg" || exit 3
trap '"$P" unload --cgroup "$cg" >/dev/null 2>&1; rmdir "$cg"' EXIT
"$P" build --target bpf --allow-partial "$POL" -o /tmp/tbprof.bundle 2>/dev/null || exit 3
"$P" load /tmp/tbprof.bundle --cgroup "$cg" >/dev/null || exit 3
id=$(bpftool prog show | awk '/ name polc_file_open / { sub(":", "", $1); print $1 }')
[ -n "$id" ] && "$HERE/jited" "$id" "$OUT/jited.bin" >"$OUT/jited.txt"
cat /proc/kallsyms >"$OUT/kallsyms.txt"
# from the guest's tmpfs, as polc bench runs it: an exec over 9p waits on
# the host, and an idle guest's icount clock jumps ahead
cp "$MICRO" /tmp/tbprof-micro || exit 3
sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -t "$4" "$3"' sh "$cg" /tmp/tbprof-micro "$TEST" "${PROF_T:-0.3}"
