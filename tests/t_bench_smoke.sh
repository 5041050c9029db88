#!/bin/sh
# polc bench's pieces run and write well-formed output (not a timing test:
# one round of tiny sizes). The micro program prints one line per test;
# polc bench --smoke over micro, redis, the filter cost model and the
# compiler writes markdown with its sections, JSON that parses and holds
# per-round values, ratios and the filter rows, an SVG that parses as XML
# with bars, and a raw table that renders the same report again; bad
# options are usage errors.
set -eu
cd "$SRC"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
MICRO=$SRC/$BUILD/bench/micro

"$MICRO" -t 0.005 all >"$T/micro.out" || fail "micro exited $?"
[ "$(awk 'NF == 3 && $2 > 0 && $3 > 0' "$T/micro.out" | wc -l)" = 8 ] || { cat "$T/micro.out"; fail "micro: not 8 tests"; }
"$MICRO" -t 0.005 nosuch 2>/dev/null && fail "micro accepted an unknown test"

"$POLC" help bench | grep -q -- "--quick" || fail "no usage text"
for bad in "--only nosuch" "--reps 0" "--soak x" "stray"; do
	# shellcheck disable=SC2086
	rc=0; "$POLC" bench $bad >/dev/null 2>&1 || rc=$?
	[ $rc = 2 ] || fail "'polc bench $bad' exited $rc, not 2"
done

TMPDIR=$T "$POLC" bench --smoke --only micro,redis,filter,compile -o "$T/r.md" --json "$T/r.json" \
	--chart "$T/r.svg" --raw "$T/r.raw" 2>"$T/err" || { tail -n 20 "$T/err"; fail "polc bench --smoke"; }
for h in "# polc bench" "## Where the figures come from" "## Summary" "## Scenarios" \
	"## Micro benchmarks" "## Macro: redis-benchmark" "## seccomp filter cost model" "## Compiler cost"; do
	grep -q "^$h" "$T/r.md" || fail "report lacks '$h'"
done
grep -q "| native | seccomp | getppid |" "$T/r.md" || fail "no seccomp micro row"
grep -q "AppArmor: n/a here\|AppArmor: measured" "$T/r.md" || fail "AppArmor neither measured nor n/a"
python3 - "$T/r.json" <<'PY' || fail "JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["series"]
micro = [x for x in s if x["section"] == "micro"]
assert {x["metric"] for x in micro} == {"getppid", "openat", "stat", "read4k", "pipe", "fork", "execl", "spawn"}
assert any(x["scenario"] == "NoProtect" and x["backend"] == "-" for x in micro)
assert all(len(x["values"]) == 1 and x["values"][0] > 0 for x in micro)
assert any("cost_ratio" in x for x in micro if x["scenario"] == "EnhanceProtect")
assert any(x["section"] == "redis" and x["metric"] == "GET" and x["unit"] == "req/s" for x in s)
f = {(x["backend"], x["scenario"], x["metric"]): x["median"] for x in s if x["section"] == "filter"}
assert f[("polc", "EnhanceProtect", "mean")] > 0
assert f[("polc profiled", "EnhanceProtect", "mean")] <= f[("polc", "EnhanceProtect", "mean")]
assert any(x["section"] == "compile" and x["scenario"] == "generated 1000" for x in s)
assert "native" in d["environments"] and "kernel" in d["environments"]["native"]
PY
python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); assert r.tag.endswith("svg"); assert len(r.findall(".//{http://www.w3.org/2000/svg}rect")) > 10' "$T/r.svg" ||
	fail "SVG does not parse or has no bars"
head -n 1 "$T/r.raw" | grep -qx "polc-bench-raw 1" || fail "raw table header"
"$POLC" bench --report-from "$T/r.raw" -o "$T/again.md" 2>/dev/null || fail "--report-from"
cmp -s "$T/r.md" "$T/again.md" || fail "the report from the raw table differs"
[ -z "$(ls "$T" | grep polc-bench-)" ] || fail "scratch directory left behind"
echo "polc bench --smoke: $(grep -c . "$T/r.md") report lines, $(grep -c '"env"' "$T/r.json") series"
