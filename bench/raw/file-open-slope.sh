#!/bin/sh
# file-open-slope.sh POLC MICRO: file_open guest instructions per confined
# openat (bench/micro.c's openat, its file under $TMPDIR) against the path's
# length, for AlwaysAllow, RuntimeDefault and EnhanceProtect, from the
# kernel's per-program bpf_stats (bench/bpf-stats.sh) in the icount lab:
#   VM_ICOUNT=0 sh tests/vm/run-in-vm.sh --timeout 900 -- \
#     sh bench/raw/file-open-slope.sh $PWD/build/polc $PWD/build/bench/micro
# One line per policy and $TMPDIR: len (the path's bytes), calls, per (guest
# instructions a call). bench/raw/file-open-slope.txt has runs of it.
set -u
POLC=$1 MICRO=$2
. "$(dirname "$0")/../bpf-stats.sh"
W=/tmp/slope; mkdir -p $W
cg=/sys/fs/cgroup/slope; mkdir -p $cg
old=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
trap '"$POLC" unload --cgroup $cg >/dev/null 2>&1; rmdir $cg; sysctl -qw kernel.bpf_stats_enabled=$old' EXIT
sysctl -qw kernel.bpf_stats_enabled=1
printf 'policy aa { use always-allow; }\n' > $W/aa.pol
printf 'policy rd { use runtime-default; }\n' > $W/rd.pol
printf 'policy ep { use enhance-protect; }\n' > $W/ep.pol
L40=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
mkdir -p /tmp/a /tmp/aaaaaaaaaaaaaaaaaaaa /tmp/a/b/c/d/e/f/g/h /tmp/$L40 /var/tmp/x
for p in aa rd ep; do
	$POLC build --target bpf --allow-partial $W/$p.pol -o $W/$p.bundle 2>/dev/null || { echo build fail; exit 1; }
	$POLC load $W/$p.bundle --cgroup $cg >/dev/null || { echo load fail; exit 1; }
	for td in /tmp /tmp/a /tmp/aaaaaaaaaaaaaaaaaaaa /tmp/a/b/c/d/e/f/g/h /tmp/$L40 /var/tmp/x /root; do
		snapshot > $W/s0; snapshot > $W/s1
		TMPDIR=$td sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -t 0.05 openat' sh $cg $MICRO >/dev/null
		snapshot > $W/s2
		awk -v p=$p -v td=$td 'FILENAME == ARGV[1] { c0[$1] = $3; t0[$1] = $4; next }
	     FILENAME == ARGV[2] { c1[$1] = $3; t1[$1] = $4; next }
	     ($1 in c1) && ($1 in c0) && $2 == "polc_file_open" {
		n = ($3 - c1[$1]) - (c1[$1] - c0[$1]); t = ($4 - t1[$1]) - (t1[$1] - t0[$1])
		if (n > 0) printf "%s %-30s len=%d calls=%d per=%.1f\n", p, td, length(td) + 20, n, t / n }' $W/s0 $W/s1 $W/s2
	done
	$POLC unload --cgroup $cg >/dev/null
done
echo done
