#!/bin/sh
# One redis-benchmark measurement for polc bench: redis-server on
# 127.0.0.1:PORT started under WRAPPER (a scenario's `polc run ...  --`, a
# tracer, or nothing), GET and SET from redis-benchmark with CONNS
# connections (twice; the better of the two per test: other work on a
# shared machine only ever slows a run down), then SHUTDOWN and the
# wrapper's exit status.
#   sh bench/redis.sh PORT REQUESTS CONNS DIR [WRAPPER...]
# Prints "GET <req/s>", "SET <req/s>", "exit <status>", and the requests
# per CPU second of the server ("SRVEFF", from its INFO cpu: the cgroup a
# recorder watches) and of redis-benchmark ("CLIEFF", the shell's children
# times: a task outside it), which other load on a shared host hardly
# moves, unlike req/s; exit 1 when the server did not come up or the
# benchmark printed nothing.
# REDIS_PIPELINE=P (optional): then also GET and SET pipelined P deep
# (redis-benchmark -P P, as the Phoronix redis test runs it), 16 x REQUESTS
# each (redis-benchmark's elapsed time comes in 10 ms steps in the lab: a
# run of 4 x REQUESTS took ~3 s), printed as "GET-P<P> <req/s>" and
# "SET-P<P> <req/s>", after the SRVEFF/CLIEFF window.
# REDIS_SERVER_CGROUP (optional): a cgroup v2 directory the server starts
# in, the client staying where this script runs. polc run --target bpf
# moves its server into a cgroup of its own, and two cgroups cost more than
# one (lab, icount, no enforcer: 3 % fewer req/s with the server in a
# sibling of the client's cgroup), so polc bench puts every configuration's
# server apart from its client.
set -u
PORT=$1 N=$2 C=$3 D=$4
shift 4
if [ -n "${REDIS_SERVER_CGROUP:-}" ]; then
	set -- sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$REDIS_SERVER_CGROUP" "$@"
fi
stop() { redis-cli -h 127.0.0.1 -p "$PORT" shutdown nosave >/dev/null 2>&1 || true; }
trap 'stop; kill ${b:-} ${w:-} 2>/dev/null' EXIT
trap 'exit 1' INT TERM
"$@" redis-server --port "$PORT" --bind 127.0.0.1 --dir "$D" --save '' \
	--appendonly no --daemonize no --logfile '' >"$D/redis-server.out" 2>&1 &
w=$!
i=0
until redis-cli -h 127.0.0.1 -p "$PORT" ping >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 600 ] || ! kill -0 $w 2>/dev/null; then
		echo "redis.sh: redis-server did not start:" >&2
		tail -n 5 "$D/redis-server.out" >&2
		exit 1
	fi
	sleep 0.05
done
# In the background: a signal's trap runs at once during `wait`, not after
# a foreground command. -q: one "NAME: N requests per second" line per test.
srvcpu() { redis-cli -h 127.0.0.1 -p "$PORT" info cpu 2>/dev/null |
	awk -F: '/^used_cpu_(sys|user):/ { s += $2 } END { printf "%.3f", s }'; }
# reaped children's user + sys seconds: `times` in this shell (not in a
# $(...) subshell, whose children are its own); "XmY.YYYs" in dash and bash
kidcpu() { awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m");
	sub("s", "", a[2]); t += a[1] * 60 + a[2] } printf "%.3f", t }' "$D/times"; }
# bench N_REQ SUFFIX ARGS...: one redis-benchmark run, its lines tagged
# with SUFFIX ("" or "-P16") so that each test keeps its best pass
bench() {
	n=$1 sfx=$2
	shift 2
	redis-benchmark -h 127.0.0.1 -p "$PORT" -c "$C" -n "$n" -q "$@" >"$D/rb.one" 2>/dev/null &
	b=$!
	wait $b
	b=
	tr '\r' '\n' <"$D/rb.one" | sed -n "s/^\([A-Z]*\): /\1$sfx /p" >>"$D/rb.raw"
}
times >"$D/times"
s0=$(srvcpu) k0=$(kidcpu)
: >"$D/rb.raw"
for pass in 1 2; do
	bench "$N" "" -t get,set
done
times >"$D/times"
s1=$(srvcpu) k1=$(kidcpu)
P=${REDIS_PIPELINE:-}
if [ -n "$P" ]; then
	for pass in 1 2; do
		bench $((16 * N)) "-P$P" -t get,set -P "$P"
	done
fi
awk '/requests per second/ { if ($2 > best[$1]) best[$1] = $2 }
	END { for (k in best) print k, best[k] }' "$D/rb.raw" | sort >"$D/rb.out"
stop
wait $w
st=$?
w=
[ -s "$D/rb.out" ] || { echo "redis.sh: redis-benchmark printed nothing" >&2; exit 1; }
cat "$D/rb.out"
# 2 passes x (GET + SET) x N requests
awk -v n="$N" -v s="$s0 $s1" -v k="$k0 $k1" 'BEGIN { split(s, a, " "); split(k, b, " ");
	if (a[2] > a[1]) printf "SRVEFF %.0f\n", 4 * n / (a[2] - a[1]);
	if (b[2] > b[1]) printf "CLIEFF %.0f\n", 4 * n / (b[2] - b[1]) }'
echo "exit $st"
