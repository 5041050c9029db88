#!/bin/sh
# pgbench read-only (-S) for polc bench: a throw-away PostgreSQL cluster in
# DIR, owned by user postgres, listening on 127.0.0.1:PORT and a unix
# socket in DIR only.
#   sh bench/pgbench.sh init DIR PORT          initdb + pgbench -i -s 2 (unconfined)
#   sh bench/pgbench.sh run DIR PORT SECS [WRAPPER...]
#                                              postgres under WRAPPER, pgbench -S
#                                              -c 4 -j 2 -T SECS; prints "tps <N>"
#   sh bench/pgbench.sh clean DIR
# Exit 1 with a message when PostgreSQL is missing or does not start.
set -u
what=$1 D=$2
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$BIN" ] && [ -x "$BIN/postgres" ] || { echo "pgbench.sh: PostgreSQL is not installed" >&2; exit 1; }
command -v pgbench >/dev/null || { echo "pgbench.sh: pgbench is not installed" >&2; exit 1; }
as_pg() { setpriv --reuid postgres --regid postgres --init-groups -- "$@"; }
start() { # PORT WRAPPER...
	port=$1; shift
	"$@" setpriv --reuid postgres --regid postgres --init-groups -- \
		"$BIN/postgres" -D "$D/data" -p "$port" -k "$D" -c listen_addresses=127.0.0.1 \
		-c fsync=off >"$D/postgres.out" 2>&1 &
	w=$!
	i=0
	until as_pg "$BIN/pg_isready" -q -h 127.0.0.1 -p "$port"; do
		i=$((i + 1))
		if [ $i -gt 600 ] || ! kill -0 $w 2>/dev/null; then
			echo "pgbench.sh: postgres did not start:" >&2
			tail -n 5 "$D/postgres.out" >&2
			exit 1
		fi
		sleep 0.1
	done
}
stop() {
	[ -n "${w:-}" ] || return 0
	as_pg "$BIN/pg_ctl" -D "$D/data" stop -m fast >/dev/null 2>&1 || kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
	w=
}
trap 'kill ${b:-} 2>/dev/null; stop' EXIT
trap 'exit 1' INT TERM
case $what in
init)
	PORT=$3
	rm -rf "$D/data"
	mkdir -p "$D" && chown postgres: "$D" || exit 1
	as_pg "$BIN/initdb" -D "$D/data" -A trust -U postgres >"$D/initdb.out" 2>&1 ||
		{ tail -n 5 "$D/initdb.out" >&2; exit 1; }
	start "$PORT"
	as_pg pgbench -h 127.0.0.1 -p "$PORT" -U postgres -i -s 2 -q postgres >"$D/init.out" 2>&1 ||
		{ tail -n 5 "$D/init.out" >&2; exit 1; }
	stop ;;
run)
	PORT=$3 SECS=$4
	shift 4
	start "$PORT" "$@"
	# in the background, so that a signal's trap runs at once (see redis.sh)
	as_pg pgbench -h 127.0.0.1 -p "$PORT" -U postgres -S -c 4 -j 2 -T "$SECS" postgres \
		>"$D/pgbench.out" 2>"$D/pgbench.err" &
	b=$!
	wait $b
	b=
	awk '/^tps = / { print "tps", $3; exit }' "$D/pgbench.out" >"$D/tps.out"
	stop
	[ -s "$D/tps.out" ] || { echo "pgbench.sh: pgbench printed no tps:" >&2; tail -n 5 "$D/pgbench.err" >&2; exit 1; }
	cat "$D/tps.out" ;;
clean)
	rm -rf "$D" ;;
*)
	echo "usage: pgbench.sh init|run|clean DIR ..." >&2; exit 2 ;;
esac
