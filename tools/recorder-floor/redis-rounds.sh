#!/bin/sh
# redis-rounds.sh ROUNDS N [MODE...]: bench/redis.sh (redis-benchmark -c 50,
# GET and SET, N requests each, twice) with redis-server under each
# mechanism of floor.bpf.c, in interleaved rounds (the order rotates each
# round). Modes: nocg (untraced, the caller's cgroup), none (a fresh
# cgroup, no program), PROG[,PROG] (floor.bpf.c's programs), polc-floor
# (polc record with POLC_TRACE_FLOOR=1), polc-ebpf (polc record). Raw
# lines go to $OUT/all ("mode metric value"); prints per mode and metric
# the median ratio to nocg [min-max of the per-round ratios].
# Needs build.sh's output in $RF (default /tmp/rf) and POLC.
set -u
R=$1 N=$2
shift 2
RF=${RF:-/tmp/rf} POLC=${POLC:-polc} SRC=$(cd "$(dirname "$0")/../.." && pwd)
MODES=${*:-nocg none btf_enter btf_enter,btf_exit raw_enter,raw_exit tp_enter,tp_exit cnt_enter polc-floor polc-ebpf}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT/d"
nm=$(echo $MODES | wc -w)
port=$((20000 + $$ % 10000))
r=0
while [ $r -lt "$R" ]; do
	i=0
	for m in $MODES $MODES; do
		i=$((i + 1))
		[ $i -gt $((r % nm)) ] && [ $i -le $((r % nm + nm)) ] || continue
		case $m in
		nocg) set -- ;;
		polc-floor) set -- env POLC_TRACE_FLOOR=1 "$POLC" record --tracer ebpf --no-status -o "$OUT/t" -- ;;
		polc-ebpf) set -- "$POLC" record --tracer ebpf --no-status -o "$OUT/t" -- ;;
		*) set -- "$RF/recorder-floor" "$RF/floor.bpf.o" "$m" -- ;;
		esac
		port=$((port + 1))
		sh "$SRC/bench/redis.sh" $port "$N" 50 "$OUT/d" "$@" >"$OUT/one" 2>"$OUT/err" ||
			{ echo "round $r $m failed: $(tail -2 "$OUT/err")" >&2; continue; }
		grep -q '^exit 0$' "$OUT/one" || echo "round $r $m: $(grep '^exit' "$OUT/one")" >&2
		if [ "$m" = polc-ebpf ] && grep -q "^meta lost" "$OUT/t"; then
			echo "round $r $m: lost events: $(grep '^meta lost' "$OUT/t")" >&2
		fi
		awk -v m="$m" -v r=$r '{ print r, m, $1, $2 }' "$OUT/one" >>"$OUT/all"
	done
	r=$((r + 1))
done
# per round, the ratio to that round's nocg (cost ratios inverted: a
# throughput or requests-per-CPU-second ratio, 1.0 = untraced)
awk '$2 == "nocg" { b[$1 " " $3] = $4 } { v[NR] = $0 }
	END { for (i = 1; i <= NR; i++) { split(v[i], f, " "); k = f[1] " " f[3];
		if (f[3] != "exit" && (k in b) && b[k] > 0) print f[2], f[3], f[4] / b[k] } }' "$OUT/all" |
sort -k1,1 -k2,2 -k3,3n | awk '{ k = $1 " " $2; n[k]++; a[k, n[k]] = $3 }
	END { for (k in n) { m = a[k, int((n[k] + 1) / 2)]; printf "%-24s %-7s %.3f [%.3f-%.3f] n=%d\n", substr(k, 1, index(k, " ") - 1), substr(k, index(k, " ") + 1), m, a[k, 1], a[k, n[k]], n[k] } }' | sort
echo "raw: $OUT/all"
