#!/bin/sh
# Soak workload for profiles/redis.pol: redis-server on loopback under
# `polc record`, driven by redis-benchmark (GET, SET, LPUSH, LPOP, plain and
# pipelined), a BGSAVE and a SAVE, then SHUTDOWN. Writes OUT/redis.trace.
#   sh profiles/soak/redis.sh POLC OUTDIR [TRACER] [REQUESTS]
set -eu
POLC=$1 OUT=$2 TRACER=${3:-ebpf} N=${4:-100000}
PORT=${REDIS_PORT:-6390}
D=${REDIS_DIR:-/var/lib/redis}
mkdir -p "$D"
trap 'redis-cli -p $PORT shutdown nosave >/dev/null 2>&1 || true' EXIT
mkdir -p "$OUT"
"$POLC" record --tracer "$TRACER" --no-status -o "$OUT/redis.trace" -- \
	redis-server --port "$PORT" --bind 127.0.0.1 --dir "$D" --save "" \
	--appendonly no --daemonize no --logfile "" >/dev/null &
rec=$!
i=0
until redis-cli -p "$PORT" ping >/dev/null 2>&1; do
	i=$((i + 1)); [ $i -lt 200 ] || { echo "redis did not start" >&2; exit 1; }
	sleep 0.05
done
redis-benchmark -p "$PORT" -t get,set,lpush,lpop -n "$N" -q | tr "\r" "\n" | grep "per second"
redis-benchmark -p "$PORT" -t get,set,lpush,lpop -n "$N" -P 16 -q | tr "\r" "\n" | grep "per second"
redis-cli -p "$PORT" bgsave >/dev/null
sleep 1
redis-cli -p "$PORT" save >/dev/null
redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1 || true
wait $rec
