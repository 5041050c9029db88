#!/bin/sh
# redis-hooks-icount.sh POLC WORK N NAME=POLICY|NAME=none|NAME=owncg ...
#   In the icount lab (one guest ns = one guest instruction): for each
#   configuration, redis-server started as polc bench's redis.sh starts it
#   (POLICY: under `polc run --target bpf --allow-partial POLICY`; none: no
#   enforcer, in the client's cgroup; owncg: no enforcer, in a cgroup of
#   its own beside the client's), a warm-up redis-benchmark of 2,000, then
#   one `redis-benchmark -c 50 -n N -t get,set -q` from a cgroup of its own,
#   with the polc_ programs' bpf_stats (run_cnt, run_time_ns) read before
#   and after it. Prints "rps NAME TEST: ..." and "hook NAME PROGRAM calls C
#   ns/call X calls/req Y ns/req Z" (a request: one GET or SET; both the
#   server's and the client's program runs count). Run as
#     VM_ICOUNT=0 sh tests/vm/run-in-vm.sh --timeout 1800 --share D -- \
#       sh bench/raw/redis-hooks-icount.sh $PWD/build/polc D 10000 \
#       none=none owncg=owncg aa=D/aa.pol rd=D/rd.pol ep=D/ep.pol
#   (aa.pol: `policy p { use always-allow; }`, rd.pol runtime-default,
#   ep.pol enhance-protect). bpf_stats stays on: the figures include its
#   own small cost.
#   The "guest NAME ns/req" lines (date around the run) are not per request:
#   the kept outputs (redis-hooks-before/after.txt) leave them out.
set -u
POLC=$1 WORK=$2 N=$3
shift 3
CGROOT=/sys/fs/cgroup/unified
[ -d "$CGROOT" ] || CGROOT=/sys/fs/cgroup
. "$(dirname "$0")/../bpf-stats.sh"   # snapshot
delta() {
	awk -v req="$3" 'FILENAME == ARGV[1] { c1[$1] = $3; t1[$1] = $4; next }
	     ($1 in c1) { n = $3 - c1[$1]; t = $4 - t1[$1]
		if (n > 0) printf "%s calls %d ns/call %.1f calls/req %.3f ns/req %.1f\n", $2, n, t / n, n / req, t / req }' "$1" "$2"
}
sysctl -qw kernel.bpf_stats_enabled=1
ccg=$CGROOT/netlab-client.$$ scg=$CGROOT/netlab-server.$$
mkdir "$ccg" "$scg"
echo $$ >"$ccg/cgroup.procs"
port=6390
for spec in "$@"; do
	scen=${spec%%=*} pol=${spec#*=}
	port=$((port + 1))
	case $pol in
	none) redis-server --port $port --bind 127.0.0.1 --dir "$WORK" --save '' --appendonly no --logfile '' >/dev/null 2>&1 & ;;
	owncg) sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$scg" redis-server --port $port --bind 127.0.0.1 --dir "$WORK" --save '' --appendonly no --logfile '' >/dev/null 2>&1 & ;;
	*) "$POLC" run --target bpf --allow-partial "$pol" -- redis-server --port $port --bind 127.0.0.1 --dir "$WORK" --save '' --appendonly no --logfile '' >"$WORK/srv.$scen" 2>&1 & ;;
	esac
	w=$!
	i=0
	until redis-cli -h 127.0.0.1 -p $port ping >/dev/null 2>&1; do i=$((i+1)); [ $i -gt 600 ] && { echo "no server $scen"; cat "$WORK/srv.$scen"; break; }; sleep 0.05; done
	redis-benchmark -h 127.0.0.1 -p $port -c 50 -n 2000 -t get,set -q >/dev/null 2>&1   # warm
	snapshot >"$WORK/s1"
	t0=$(date +%s%N)
	redis-benchmark -h 127.0.0.1 -p $port -c 50 -n "$N" -t get,set -q 2>/dev/null | tr '\r' '\n' | grep "per second" | sed "s/^/rps $scen /"
	t1=$(date +%s%N)
	snapshot >"$WORK/s2"
	echo "guest $scen ns/req $(( (t1 - t0) / (2 * N) ))"
	delta "$WORK/s1" "$WORK/s2" $((2 * N)) | sed "s/^/hook $scen /"
	redis-cli -h 127.0.0.1 -p $port shutdown nosave >/dev/null 2>&1
	wait $w
	"$POLC" unload --target bpf >/dev/null 2>&1
done
echo $$ >"$CGROOT/cgroup.procs"
rmdir "$ccg" "$scg"
echo done
