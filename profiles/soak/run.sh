#!/bin/sh
# `make profiles`: run every soak workload under `polc record` and generate
# its profile (redis, postgresql, nginx, memcached, mariadb). Traces are kept in profiles/traces/ so the profiles can be
# regenerated (or merged with more runs) without re-running the servers.
#   sh profiles/soak/run.sh POLC [TRACER]
set -eu
POLC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TRACER=${2:-ebpf}
cd "$(dirname "$0")/.."
mkdir -p traces
sh soak/redis.sh "$POLC" traces "$TRACER"
"$POLC" gen --name redis --deny-default file,exec -o redis.pol traces/redis.trace
sh soak/postgresql.sh "$POLC" traces "$TRACER"
"$POLC" gen --name postgresql --deny-default file,exec -o postgresql.pol traces/postgresql.trace
# nginx, memcached, mariadb: load a (the soak) and load b (a different
# legitimate use), each recorded; the profile is generated from both
# (tests/t_profiles_servers.sh re-runs both under it).
for s in nginx memcached mariadb; do
	sh "soak/$s.sh" "$POLC" record traces a "$TRACER" "${SOAK_SECS:-20}"
	sh "soak/$s.sh" "$POLC" record traces b "$TRACER" "${SOAK_B_SECS:-10}"
	"$POLC" gen --name "$s" --deny-default file,exec -o "$s.pol" traces/"$s".trace traces/"$s"-b*.trace
done
for p in redis postgresql nginx memcached mariadb; do
	"$POLC" check "$p.pol"
	echo "profiles/$p.pol: $(grep -c '^    [a-z0-9_]*[,;]' "$p.pol") syscalls"
done
