#!/bin/sh
# Endurance of the recorder (polc bench --soak MINUTES): redis-server on
# 127.0.0.1:PORT under `polc record --tracer TRACER` while redis-benchmark
# runs in a loop for MINUTES; the recorder's resident memory is sampled at
# 1 minute and at the end (flat memory: no growth with events), and the
# trace must report no lost events.
#   sh bench/soak.sh POLC TRACER MINUTES PORT DIR
# Prints key value lines: rss_kb_1m hwm_kb_1m rss_kb_end hwm_kb_end
# requests events lost exit seconds.
set -u
POLC=$1 TRACER=$2 MIN=$3 PORT=$4 D=$5
stop() { redis-cli -h 127.0.0.1 -p "$PORT" shutdown nosave >/dev/null 2>&1 || true; }
trap 'stop; [ -z "${rec:-}" ] || kill "$rec" 2>/dev/null' EXIT
trap 'exit 1' INT TERM
"$POLC" record --tracer "$TRACER" --no-status -o "$D/soak.trace" -- \
	redis-server --port "$PORT" --bind 127.0.0.1 --dir "$D" --save '' \
	--appendonly no --daemonize no --logfile '' >"$D/soak-server.out" 2>&1 &
rec=$!
i=0
until redis-cli -h 127.0.0.1 -p "$PORT" ping >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 600 ] || ! kill -0 $rec 2>/dev/null; then
		echo "soak.sh: redis-server did not start under polc record:" >&2
		tail -n 5 "$D/soak-server.out" >&2
		exit 1
	fi
	sleep 0.05
done
mem() { awk -v k="$1" '$1 == k ":" { print $2 }' "/proc/$rec/status"; }
start=$(date +%s)
end=$((start + $(awk -v m="$MIN" 'BEGIN { printf "%d", m * 60 }')))
mark=$((start + 60))
req=0
rss1= hwm1=
while [ "$(date +%s)" -lt "$end" ]; do
	n=$(redis-benchmark -h 127.0.0.1 -p "$PORT" -c 50 -n 20000 -t get,set -q 2>/dev/null |
		tr '\r' '\n' | grep -c 'requests per second')
	req=$((req + n * 20000))
	if [ -z "$rss1" ] && [ "$(date +%s)" -ge "$mark" ]; then
		rss1=$(mem VmRSS) hwm1=$(mem VmHWM)
	fi
done
[ -n "$rss1" ] || { rss1=$(mem VmRSS); hwm1=$(mem VmHWM); }
rss2=$(mem VmRSS) hwm2=$(mem VmHWM)
stop
wait $rec
st=$?
rec=
echo "rss_kb_1m $rss1"
echo "hwm_kb_1m $hwm1"
echo "rss_kb_end $rss2"
echo "hwm_kb_end $hwm2"
echo "requests $req"
echo "events $(awk '$1 == "syscall" { s += $NF } END { printf "%d", s }' "$D/soak.trace")"
echo "lost $(awk '$1 == "meta" && $2 == "lost" { s += $NF } END { printf "%d", s }' "$D/soak.trace")"
echo "exit $st"
echo "seconds $(( $(date +%s) - start ))"
