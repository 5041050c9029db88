#!/bin/sh
# polc build --target seccomp end to end: golden pfc/oci outputs, the raw
# bpf of examples/redis.pol accepted by a plain prctl loader, refusals.
# Regenerate the goldens (after an intended change, review the diff):
#   make BUILD=build-seccomp && REGEN=1 BUILD=build-seccomp sh tests/t_seccomp_build.sh
set -eu
cd "$SRC"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
G=tests/golden/seccomp
LOAD=$SRC/$BUILD/tests/progs/load_bpf
fail() { echo "FAIL: $*"; exit 1; }

for pol in $G/*.pol; do
	n=$(basename "$pol" .pol)
	"$POLC" build "$pol" --target seccomp --format pfc --allow-partial -o "$T/$n.pfc" 2>"$T/err" || { cat "$T/err"; fail "$n pfc"; }
	"$POLC" build "$pol" --target seccomp --format oci --allow-partial -o "$T/$n.json" 2>"$T/err" || { cat "$T/err"; fail "$n oci"; }
	"$POLC" build "$pol" --target seccomp --format bpf --allow-partial -o "$T/$n.bpf" 2>"$T/err" || { cat "$T/err"; fail "$n bpf"; }
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["defaultAction"] and d["syscalls"] is not None' "$T/$n.json" || fail "$n.json is not valid JSON"
	"$LOAD" "$T/$n.bpf" || fail "$n.bpf not accepted by prctl"
	if [ "${REGEN:-}" = 1 ]; then
		cp "$T/$n.pfc" "$T/$n.json" $G/
		echo "regenerated $G/$n.pfc $G/$n.json"
	else
		diff -u $G/$n.pfc "$T/$n.pfc" || fail "$n.pfc differs from golden"
		diff -u $G/$n.json "$T/$n.json" || fail "$n.json differs from golden"
	fi
done

# the same bytes twice (deterministic)
"$POLC" build $G/denylist.pol --target seccomp --format oci --allow-partial -o "$T/again.json" 2>/dev/null
cmp -s "$T/denylist.json" "$T/again.json" || fail "oci output not deterministic"

# examples/redis.pol (or our own fixture until it exists) through a plain loader
R=examples/redis.pol; [ -f "$R" ] || R=$G/allowlist.pol
"$POLC" build "$R" --target seccomp --format bpf --allow-partial -o "$T/r.bpf" 2>/dev/null || fail "redis bpf build"
sz=$(wc -c <"$T/r.bpf"); [ $((sz % 8)) = 0 ] && [ "$sz" -gt 0 ] || fail "r.bpf size $sz"
"$LOAD" "$T/r.bpf" || fail "r.bpf not accepted by prctl(PR_SET_SECCOMP)"
echo "redis: $((sz / 8)) instructions, loaded"

# without --allow-partial, a file statement is refused with its location
if "$POLC" build $G/allowlist.pol --target seccomp --format bpf -o "$T/x.bpf" 2>"$T/err"; then
	fail "file statement not refused"
fi
grep -q 'allowlist.pol:9:3: error: .*seccomp cannot see paths' "$T/err" || { cat "$T/err"; fail "refusal message"; }
[ ! -e "$T/x.bpf" ] || fail "output written despite refusal"

# a corrupt program is refused by the loader (the loader test can fail)
head -c 12 "$T/r.bpf" >"$T/bad.bpf"
if "$LOAD" "$T/bad.bpf" 2>/dev/null; then fail "loader accepted a 12-byte program"; fi
echo "ok"
