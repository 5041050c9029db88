#!/bin/sh
# Soak workload for profiles/postgresql.pol: a fresh PostgreSQL cluster on
# loopback (TCP 127.0.0.1 and a unix socket in a temp dir) run as user
# postgres under `polc record`, loaded by pgbench -i and a pgbench run, then
# a fast shutdown. Writes OUT/postgresql.trace.
#   sh profiles/soak/postgresql.sh POLC OUTDIR [TRACER] [SECONDS]
set -eu
POLC=$1 OUT=$2 TRACER=${3:-ebpf} SECS=${4:-20}
PORT=${PG_PORT:-5439}
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
# Beside Debian's own clusters, never in them.
D=${PG_DIR:-/var/lib/postgresql/polc-soak}
rm -rf "$D"
mkdir -p "$D"
chown postgres: "$D"
as_pg() { setpriv --reuid postgres --regid postgres --init-groups -- "$@"; }
trap 'as_pg "$BIN/pg_ctl" -D "$D/data" stop -m immediate >/dev/null 2>&1 || true'  EXIT
mkdir -p "$OUT"
as_pg "$BIN/initdb" -D "$D/data" -A trust -U postgres >/dev/null
"$POLC" record --tracer "$TRACER" --no-status -o "$OUT/postgresql.trace" -- \
	setpriv --reuid postgres --regid postgres --init-groups -- \
	"$BIN/postgres" -D "$D/data" -p "$PORT" -k "$D" -c listen_addresses=127.0.0.1 &
rec=$!
i=0
until as_pg "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT"; do
	i=$((i + 1)); [ $i -lt 300 ] || { echo "postgres did not start" >&2; exit 1; }
	sleep 0.1
done
as_pg pgbench -h 127.0.0.1 -p "$PORT" -U postgres -i -s 5 postgres >/dev/null 2>&1
as_pg pgbench -h 127.0.0.1 -p "$PORT" -U postgres -c 4 -j 2 -T "$SECS" postgres | grep -E 'tps|failed'
as_pg pgbench -h "$D" -p "$PORT" -U postgres -c 2 -T 3 -S postgres | grep -E 'tps'
as_pg "$BIN/pg_ctl" -D "$D/data" stop -m fast >/dev/null
wait $rec
