#!/bin/sh
# Endurance of the BPF LSM enforcer (polc bench --soak MINUTES, in the lab:
# BPF LSM runs only there). redis-server on 127.0.0.1:PORT confined by
# `polc run --target bpf` with PROFILE (profiles/redis.pol) plus one
# statement `deny file "D/denied/*" read`, while an unconfined
# redis-benchmark runs in a loop for MINUTES. Beside the server, in the same
# cgroup, a loop opens D/denied/secret (must fail with EPERM) and
# D/allowed/file (must succeed) ten times each per second and keeps the
# tally; `polc status --follow` drains the enforcer's ring buffer. At 1
# minute and at the end the loop is paused so that its tally and the
# enforcer's counters (`polc status`) are read at one instant: the deny
# statement's counter must equal the number of denied opens, no other
# statement may count anything, the ring buffer must have dropped nothing
# and the drained log must hold one record per denial.
#   sh bench/soak-bpf.sh POLC MINUTES PORT DIR PROFILE [REQUESTS]
# Prints key value lines: denied_1m allowed_1m counter_1m other_1m drops_1m
# events_1m, the same with _end, wrong (denied opens that succeeded,
# allowed ones that failed, denials that were not EPERM), requests,
# rb_runs (redis-benchmark runs), rb_failed (runs that did not report both
# tests or exited non-zero), error_replies (redis INFO total_error_replies),
# rejected_connections, exit (polc run's status), seconds.
set -u
POLC=$1 MIN=$2 PORT=$3 D=$4 PROFILE=$5 N=${6:-2000}
run= fol=
stop() { redis-cli -h 127.0.0.1 -p "$PORT" shutdown nosave >/dev/null 2>&1 || true; }
trap 'touch "$D/stop"; rm -f "$D/pause"; stop; kill ${run:-} ${fol:-} 2>/dev/null' EXIT
trap 'exit 1' INT TERM
mkdir -p "$D/denied" "$D/allowed" "$D/redis"
rm -f "$D/stop" "$D/pause" "$D/paused" "$D/tally"
echo secret >"$D/denied/secret"
echo fine >"$D/allowed/file"
cat "$D/denied/secret" >/dev/null || { echo "soak-bpf.sh: $D/denied/secret unreadable unconfined" >&2; exit 1; }
# the profile plus the deny statement, as the last statement of the policy;
# its file and exec domains open again (the profile's allow-lists are Redis's,
# and the harness runs sh and its loop in the same cgroup)
sed -e 's/^  default deny syscall, file, exec;$/  default deny syscall;/' \
	-e '$ s|^}$|  deny file "'"$D"'/denied/*" read;\n}|' "$PROFILE" >"$D/soak.pol"
line=$(grep -n 'deny file "' "$D/soak.pol" | tail -n 1 | cut -d: -f1)
[ -n "$line" ] || { echo "soak-bpf.sh: no deny statement in $D/soak.pol" >&2; exit 1; }
where="$D/soak.pol:$line:"

# The confined half: the server in the background, the open loop in front.
cat >"$D/inner.sh" <<'EOF'
D=$1 PORT=$2
redis-server --port "$PORT" --bind 127.0.0.1 --dir "$D/redis" --save '' \
	--appendonly no --daemonize no --logfile '' >"$D/soak-server.out" 2>&1 &
srv=$!
k=0 a=0 wrong=0
# the first denial's message, to see that it is EPERM
{ true <"$D/denied/secret"; } 2>"$D/first-denial" && wrong=$((wrong + 1))
k=1
grep -q 'not permitted' "$D/first-denial" || wrong=$((wrong + 1))
while [ ! -e "$D/stop" ]; do
	if [ -e "$D/pause" ]; then
		echo "$k $a $wrong" >"$D/tally"
		: >"$D/paused"
		while [ -e "$D/pause" ] && [ ! -e "$D/stop" ]; do sleep 0.2; done
		rm -f "$D/paused"
		continue
	fi
	for i in 1 2 3 4 5 6 7 8 9 10; do
		{ true <"$D/denied/secret"; } 2>/dev/null && wrong=$((wrong + 1))
		k=$((k + 1))
		{ true <"$D/allowed/file"; } 2>/dev/null || wrong=$((wrong + 1))
		a=$((a + 1))
	done
	sleep 1
done
echo "$k $a $wrong" >"$D/tally"
wait $srv
EOF
start=$(date +%s)
"$POLC" run --target bpf --allow-partial "$D/soak.pol" -- sh "$D/inner.sh" "$D" "$PORT" \
	>"$D/run.out" 2>&1 &
run=$!
i=0
until redis-cli -h 127.0.0.1 -p "$PORT" ping >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 1200 ] || ! kill -0 $run 2>/dev/null; then
		echo "soak-bpf.sh: redis-server did not start under polc run --target bpf:" >&2
		tail -n 5 "$D/run.out" "$D/soak-server.out" >&2
		exit 1
	fi
	sleep 0.1
done
"$POLC" status --follow >"$D/events.out" 2>"$D/events.err" &
fol=$!

# counters of the policy now: "<deny statement's count> <all others> <drops>"
counters() {
	"$POLC" status 2>&1 | awk -v w="$where" '
		$1 ~ /^[0-9]+$/ && ($2 == "stmt" || $2 == "default") {
			if ($0 ~ / file deny / && index($0, w)) c += $1; else o += $1 }
		/log records dropped/ { d = $(NF - 3) }
		END { printf "%d %d %d\n", c, o, d }'
}
# pause the loop, read its tally and the counters, let the ring buffer
# drain into the follower, count the records it printed, resume
sample() {
	: >"$D/pause"
	j=0
	until [ -e "$D/paused" ] || [ $j -gt 600 ]; do sleep 0.1; j=$((j + 1)); done
	set -- $(cat "$D/tally" 2>/dev/null || echo "-1 -1 -1") $(counters)
	sleep 2
	ev=$(grep -c "deny file by stmt .*$D/denied/" "$D/events.out")
	echo "denied_$SUF $1"
	echo "allowed_$SUF $2"
	echo "wrong_$SUF $3"
	echo "counter_$SUF $4"
	echo "other_$SUF $5"
	echo "drops_$SUF $6"
	echo "events_$SUF $ev"
	rm -f "$D/pause"
}

end=$((start + $(awk -v m="$MIN" 'BEGIN { printf "%d", m * 60 }')))
mark=$((start + 60))
req=0 runs=0 failed=0 s1=
: >"$D/rb.all"
while [ "$(date +%s)" -lt "$end" ]; do
	redis-benchmark -h 127.0.0.1 -p "$PORT" -c 50 -n "$N" -t get,set -q >"$D/rb.out" 2>&1
	st=$?
	ok=$(tr '\r' '\n' <"$D/rb.out" | grep -c 'requests per second')
	runs=$((runs + 1))
	req=$((req + ok * N))
	[ "$st" = 0 ] && [ "$ok" = 2 ] || { failed=$((failed + 1)); cat "$D/rb.out" >>"$D/rb.all"; }
	if [ -z "$s1" ] && [ "$(date +%s)" -ge "$mark" ]; then
		s1=$(SUF=1m sample)
	fi
done
[ -n "$s1" ] || s1=$(SUF=1m sample)
s2=$(SUF=end sample)
info=$(redis-cli -h 127.0.0.1 -p "$PORT" info stats 2>/dev/null | tr -d '\r')
touch "$D/stop"
stop
wait $run
rc=$?
run=
kill $fol 2>/dev/null
wait $fol 2>/dev/null
fol=
echo "$s1"
echo "$s2"
echo "requests $req"
echo "rb_runs $runs"
echo "rb_failed $failed"
echo "error_replies $(echo "$info" | awk -F: '$1 == "total_error_replies" { print $2 }')"
echo "rejected_connections $(echo "$info" | awk -F: '$1 == "rejected_connections" { print $2 }')"
echo "exit $rc"
echo "seconds $(( $(date +%s) - start ))"
if [ -s "$D/rb.all" ]; then
	echo "soak-bpf.sh: redis-benchmark failures:" >&2
	tail -n 5 "$D/rb.all" >&2
fi
