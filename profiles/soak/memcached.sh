#!/bin/sh
# Soak workloads for profiles/memcached.pol: memcached (as user memcache)
# on 127.0.0.1, 64 MB, 4 threads.
#   load a (recorded by `make profiles`): get/set from memcslap, several
#          concurrent clients, for SECONDS;
#   load b (a different legitimate use): what an operator does: `stats`
#          (memcstat), key dumps and flush (memcdump, memcflush), single
#          sets/gets/deletes (memccp, memccat, memcrm), then get/set again.
#   sh profiles/soak/memcached.sh POLC record OUTDIR a|b [TRACER] [SECONDS]
#        -> OUTDIR/memcached.trace (load a), OUTDIR/memcached-b.trace (load b)
#   sh profiles/soak/memcached.sh POLC run PROFILE a|b [SECONDS]   (polc run --target seccomp;
#        with AUDIT=LOG in the environment, --mode audit: what it would deny goes to LOG)
set -eu
. "$(dirname "$0")/lib.sh"
soak_args memcached "$@"
PORT=${MEMCACHED_PORT:-11291}
D=/var/lib/polc-soak/memcached
rm -rf "$D"
mkdir -p "$D"
chown memcache: "$D"
S=--servers=127.0.0.1:$PORT
$(soak_prefix) memcached -u memcache -l 127.0.0.1 -p "$PORT" -U 0 -m 64 -t 4 -c 256 -P "$D/memcached.pid" &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
i=0
until memcping "$S" >/dev/null 2>&1; do
	i=$((i + 1)); [ $i -lt 200 ] || { echo "memcached did not start" >&2; exit 1; }
	sleep 0.05
done
getset() {
	for t in set get; do
		memcslap "$S" --concurrency=4 --execute-number=2000 --test=$t >/dev/null ||
			{ echo "memcached: memcslap --test=$t failed" >&2; exit 1; }
	done
}
echo hello > "$D/key1"
ops() {
	memcstat "$S" | grep -q 'curr_connections' || { echo "memcached: no stats" >&2; exit 1; }
	memcstat --args=slabs "$S" >/dev/null 2>&1 || true
	(cd "$D" && memccp "$S" key1) || { echo "memcached: memccp failed" >&2; exit 1; }
	[ "$(memccat "$S" key1)" = hello ] || { echo "memcached: memccat failed" >&2; exit 1; }
	memcdump "$S" >/dev/null 2>&1 || true
	memcrm "$S" key1 || { echo "memcached: memcrm failed" >&2; exit 1; }
	memcflush "$S" || { echo "memcached: memcflush failed" >&2; exit 1; }
}
end=$(( $(date +%s) + SECS ))
n=0
while [ $n = 0 ] || [ "$(date +%s)" -lt $end ]; do
	[ "$LOAD" = a ] || ops
	getset
	n=$((n + 1))
done
echo "memcached load $LOAD: $n rounds in ${SECS}s"
# SIGTERM to memcached itself (not to polc record): its own shutdown path
kill "$(cat "$D/memcached.pid")"
wait $srv
trap - EXIT
exit 0
