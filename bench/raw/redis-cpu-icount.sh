#!/bin/sh
# redis-cpu-icount.sh N REPS CFG... (CFG: np | aard | bpfrd | aaep | bpfep)
# In the icount lab (redis-cpu-icount.txt has the command and the figures);
# POLC: the polc to run (default /work/build-n/polc: the enforcer of
# a381cc9, which RESULTS.md's lab rows measured), D: a directory shared
# with the guest holding rd.pol (`policy polc_bench_2 { use
# runtime-default; }`) and ep.pol (enhance-protect).
# For each configuration: redis-server in a fresh cgroup (as polc bench's
# redis.sh with REDIS_SERVER_CGROUP), under polc run for aa*/bpf*; client
# (this shell) in a cgroup of its own; warm-up 2000 get,set; then REPS x
# (GET test, SET test) of N requests each, -c 50, with server/client
# counters read just before and after each test.
# Output line: R cfg test rep rps srv_us cli_us sched_ns reads writes syscr syscw vcsw nvcsw
set -u
N=$1 REPS=$2
shift 2
D=${D:-/work/notes/redis-cpu}
POLC=${POLC:-/work/build-n/polc}
W=/tmp/rdw; mkdir -p $W
CGROOT=/sys/fs/cgroup/unified
[ -d "$CGROOT" ] || CGROOT=/sys/fs/cgroup
ccg=$CGROOT/rc-client.$$
mkdir "$ccg"; echo $$ >"$ccg/cgroup.procs"
uname -r; cat /sys/kernel/security/lsm; echo
port=6400
srvinfo() { # port pid -> "srv_us reads writes sched_ns syscr syscw vcsw nvcsw"
	redis-cli -h 127.0.0.1 -p $1 info all 2>/dev/null | tr -d '\r' | awk -F: '
		/^used_cpu_(sys|user):/ { s += $2 }
		/^total_reads_processed:/ { r = $2 } /^total_writes_processed:/ { w = $2 }
		END { printf "%.0f %s %s", s * 1e6, r, w }'
	awk '{ printf " %s", $1 }' /proc/$2/schedstat
	awk '/^syscr:|^syscw:/ { printf " %s", $2 }' /proc/$2/io
	awk '/^voluntary_ctxt_switches:|^nonvoluntary_ctxt_switches:/ { printf " %s", $2 }' /proc/$2/status
	echo
}
kidcpu() { awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m");
	sub("s", "", a[2]); t += a[1] * 60 + a[2] } printf "%.0f", t * 1e6 }' "$W/times"; }
for cfg in "$@"; do
	port=$((port + 1))
	scg=$CGROOT/rc-srv-$cfg.$$; mkdir "$scg"
	case $cfg in
	np) wrap= ;;
	aard) wrap="$POLC run --target apparmor --allow-partial $D/rd.pol --" ;;
	aaep) wrap="$POLC run --target apparmor --allow-partial $D/ep.pol --" ;;
	bpfrd) wrap="$POLC run --target bpf --allow-partial $D/rd.pol --" ;;
	bpfep) wrap="$POLC run --target bpf --allow-partial $D/ep.pol --" ;;
	esac
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$scg" $wrap redis-server --port $port --bind 127.0.0.1 --dir $W --save '' --appendonly no --daemonize no --logfile '' >"$W/srv.$cfg" 2>&1 &
	w=$!
	i=0
	until redis-cli -h 127.0.0.1 -p $port ping >/dev/null 2>&1; do i=$((i+1)); [ $i -gt 600 ] && { echo "no server $cfg"; cat "$W/srv.$cfg"; break; }; sleep 0.05; done
	spid=$(redis-cli -h 127.0.0.1 -p $port info server | tr -d '\r' | awk -F: '/^process_id:/ { print $2 }')
	echo "cfg $cfg pid $spid cgroup $(cat /proc/$spid/cgroup) attr $(cat /proc/$spid/attr/current 2>/dev/null)"
	[ "${cfg#bpf}" != "$cfg" ] && $POLC status 2>&1 | head -5
	redis-benchmark -h 127.0.0.1 -p $port -c 50 -n 2000 -t get,set -q >/dev/null 2>&1   # warm
	rep=0
	while [ $rep -lt $REPS ]; do
		rep=$((rep + 1))
		for t in get set; do
			times >"$W/times"; k0=$(kidcpu); s0=$(srvinfo $port $spid)
			redis-benchmark -h 127.0.0.1 -p $port -c 50 -n $N -t $t -q >"$W/rb" 2>/dev/null &
			b=$!; wait $b
			times >"$W/times"; k1=$(kidcpu); s1=$(srvinfo $port $spid)
			rps=$(tr '\r' '\n' <"$W/rb" | awk '/requests per second/ { print $2 }' | tail -1)
			echo "$s0 | $s1" | awk -v c=$cfg -v t=$t -v r=$rep -v rps=$rps -v cli=$((k1 - k0)) '{
				# fields: 1 srv_us 2 reads 3 writes 4 sched 5 syscr 6 syscw 7 vcsw 8 nvcsw | 10..17
				printf "R %s %s %d %s %d %d %d %d %d %d %d %d %d\n", c, t, r, rps, $10-$1, cli, $13-$4, $11-$2, $12-$3, $14-$5, $15-$6, $16-$7, $17-$8 }'
		done
	done
	redis-cli -h 127.0.0.1 -p $port shutdown nosave >/dev/null 2>&1
	wait $w
	[ "${cfg#bpf}" != "$cfg" ] && $POLC unload --target bpf >/dev/null 2>&1
	rmdir "$scg" 2>/dev/null
done
echo $$ >"$CGROOT/cgroup.procs"
rmdir "$ccg"
echo done
