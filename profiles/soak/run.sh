#!/bin/sh
# `make profiles`: run every soak workload under `polc record` and generate
# its profile. Traces are kept in profiles/traces/ so the profiles can be
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
for p in redis postgresql; do
	"$POLC" check "$p.pol"
	echo "profiles/$p.pol: $(grep -c '^    [a-z0-9_]*[,;]' "$p.pol") syscalls"
done
