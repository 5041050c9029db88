#!/bin/sh
# Tracer slowdown on Redis (a measurement, not a test): redis-benchmark
# requests/s against a loopback redis-server run plain, under
# `polc record --tracer ebpf`, `--tracer ptrace`, and `strace -f -c` (the
# reference), each the median of RUNS runs.
#   sh profiles/soak/bench-tracers.sh POLC [REQUESTS] [PIPELINE] [RUNS]
set -eu
POLC=$1 N=${2:-50000} PIPE=${3:-1} RUNS=${4:-3}
PORT=${REDIS_PORT:-6395}
D=$(mktemp -d)
trap 'redis-cli -p $PORT shutdown nosave >/dev/null 2>&1 || true; rm -rf "$D"' EXIT
server="redis-server --port $PORT --bind 127.0.0.1 --dir $D --save '' --appendonly no --logfile ''"
one() { # wrapper... : prints total requests/s of GET and SET
	sh -c "$* $server" >/dev/null 2>&1 &
	w=$!
	until redis-cli -p $PORT ping >/dev/null 2>&1; do sleep 0.05; done
	redis-benchmark -p $PORT -t get,set -n "$N" -P "$PIPE" -q 2>/dev/null | tr '\r' '\n' |
		awk '/requests per second/ { s += $2; n++ } END { printf "%.0f\n", s / n }'
	redis-cli -p $PORT shutdown nosave >/dev/null 2>&1 || true
	wait $w || true
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
base=
for mode in none ebpf ptrace strace; do
	case $mode in
	none) w="exec" ;;
	ebpf) w="exec $POLC record --tracer ebpf --no-status -o $D/e.trace --" ;;
	ptrace) w="exec $POLC record --tracer ptrace --no-status -o $D/p.trace --" ;;
	strace) w="exec strace -f -c -o $D/strace.out" ;;
	esac
	r=$(for i in $(seq "$RUNS"); do one "$w"; done | median)
	[ -n "$base" ] || base=$r
	echo "$mode: $r requests/s (GET+SET mean, -P $PIPE), slowdown x$(echo "$base $r" | awk '{ printf "%.2f", $1 / $2 }')"
done
