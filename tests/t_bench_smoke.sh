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
# micro's output in $1 has its 8 tests, each a name and two positive numbers
eight_tests() {
	[ "$(awk 'NF == 3 && $2 > 0 && $3 > 0' "$1" | wc -l)" = 8 ] || { cat "$1"; fail "$2: not 8 tests"; }
}

"$MICRO" -t 0.005 all >"$T/micro.out" || fail "micro exited $?"
eight_tests "$T/micro.out" micro
"$MICRO" -t 0.005 nosuch 2>/dev/null && fail "micro accepted an unknown test"
# --container's layout (bench/container.sh): micro runs from a tmpfs root
# put in place by pivot_root
sh bench/container.sh "$MICRO" -t 0.005 all >"$T/ct.out" || fail "container.sh exited $?"
eight_tests "$T/ct.out" "micro in container.sh"

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
grep -q "| native | seccomp | SET-P16 |" "$T/r.md" || fail "no pipelined redis row"
grep -q "AppArmor: n/a here\|AppArmor: measured" "$T/r.md" || fail "AppArmor neither measured nor n/a"
# every configuration in a fresh cgroup (or the report says why not); when
# placed, NoProtect in the bench's own cgroup is measured too
grep -q "^\*\*Cgroup placement (native)\.\*\* " "$T/r.md" || fail "no cgroup placement note"
if grep -q "^\*\*Cgroup placement (native)\.\*\* Every configuration" "$T/r.md"; then
	grep -A4 "^\*\*Cgroup placement" "$T/r.md" | grep -q "^| [0-9.]* \[" || fail "no cgroup cost row"
fi
python3 - "$T/r.json" <<'PY' || fail "JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["series"]
micro = [x for x in s if x["section"] == "micro"]
assert {x["metric"] for x in micro} == {"getppid", "openat", "stat", "read4k", "pipe", "fork", "execl", "spawn"}
assert any(x["scenario"] == "NoProtect" and x["backend"] == "-" for x in micro)
assert all(len(x["values"]) == 1 and x["values"][0] > 0 for x in micro)
assert any("cost_ratio" in x for x in micro if x["scenario"] == "EnhanceProtect")
redis = [x for x in s if x["section"] == "redis"]
assert {x["metric"] for x in redis} == {"GET", "SET", "GET-P16", "SET-P16"}, {x["metric"] for x in redis}
assert all(x["unit"] == "req/s" and x["values"][0] > 0 for x in redis)
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
# the lab's enforcer soak renders from its rows; tables merge with a list of them
{
	echo "polc-bench-raw 1"
	printf 'N\tlab\tsoak.minutes\t10\nN\tlab\tsoak.requests_per_run\t2000\n'
	for w in 1m end; do
		for kv in "denied 50" "allowed 50" "wrong 0" "counter 50" "other 0" "drops 0" "events 50"; do
			set -- $kv
			printf 'S\tlab\tsoak\tbpf\tredis profile\t%s_%s\tcount\t%s\n' "$1" "$w" "$2"
		done
	done
	for kv in "requests 4000" "rb_runs 2" "rb_failed 0" "error_replies 0" "rejected_connections 0" \
		"exit 0" "seconds 600"; do
		set -- $kv
		printf 'S\tlab\tsoak\tbpf\tredis profile\t%s\tcount\t%s\n' "$1" "$2"
	done
} >"$T/soak.raw"
"$POLC" bench --report-from "$T/r.raw" --report-from "$T/soak.raw" -o "$T/m.md" 2>/dev/null ||
	fail "--report-from two tables"
grep -q "merges several raw tables" "$T/m.md" || fail "merged report does not list its tables"
grep -q "^2\. soak.raw: lab soak" "$T/m.md" || fail "merged report: no line for the second table"
grep -q "^### BPF LSM enforcer (lab)" "$T/m.md" || fail "no enforcer soak section"
grep -q "^| end | 50 | 50 | 50 | 0 | 0 | 50 | 0 | yes |" "$T/m.md" || fail "enforcer soak row"
# RESULTS.md merges more than 8 tables (the lab's micro and redis runs with
# the native ones): 16 are taken, a 17th is refused (usage, nothing written)
set --
for i in 1 2 3 4 5 6 7 8; do set -- "$@" --report-from "$T/r.raw" --report-from "$T/soak.raw"; done
"$POLC" bench "$@" -o "$T/m16.md" 2>"$T/m16.err" || fail "--report-from 16 tables: $(cat "$T/m16.err")"
grep -q "^16\. soak.raw: lab soak" "$T/m16.md" || fail "merged report: no line for the 16th table"
"$POLC" bench "$@" --report-from "$T/r.raw" -o "$T/m17.md" 2>/dev/null && fail "--report-from 17 tables taken"
[ ! -e "$T/m17.md" ] || fail "--report-from 17 tables wrote a report"
sed 's/counter_end\tcount\t50/counter_end\tcount\t49/' "$T/soak.raw" >"$T/soak2.raw"
"$POLC" bench --report-from "$T/soak2.raw" -o "$T/m2.md" 2>/dev/null || fail "--report-from soak"
grep -q "^| end | 50 | 50 | 49 | .* \*\*NO\*\* |" "$T/m2.md" || fail "an inconsistent counter is not flagged"
[ -z "$(ls "$T" | grep polc-bench-)" ] || fail "scratch directory left behind"
echo "polc bench --smoke: $(grep -c . "$T/r.md") report lines, $(grep -c '"env"' "$T/r.json") series"
# the lab's cells: a cell counts when every round's ratio is within ±2 % of
# the median (no †), else it is marked; the hooks rows become a table
{
	echo "polc-bench-raw 1"
	printf 'N\tlab\tkernel\tLinux 6.1\nN\tlab\tclock\tqemu -icount shift=0,sleep=off\n'
	printf 'S\tlab\tmicro\t-\tNoProtect\topenat\tns/op\t1000,1000,1000\n'
	printf 'S\tlab\tmicro\tbpf\tAlwaysAllow\topenat\tns/op\t1010,1011,1009\n'
	printf 'S\tlab\tmicro\tbpf\tEnhanceProtect\topenat\tns/op\t1100,1200,1150\n'
	printf 'S\tlab\thooks\tpolc_file_open\tEnhanceProtect\tconfined:openat\tns/call\t777\n'
	printf 'S\tlab\thooks\tpolc_file_open\tEnhanceProtect\tconfined:openat:calls\tcount\t4000\n'
	printf 'S\tlab\thooks\tpolc_capable\tEnhanceProtect\tconfined:openat\tns/call\t400\n'
	printf 'S\tlab\thooks\tpolc_capable\tEnhanceProtect\tconfined:openat:calls\tcount\t3\n'
} >"$T/cells.raw"
"$POLC" bench --report-from "$T/cells.raw" -o "$T/c.md" 2>/dev/null || fail "--report-from cells"
grep -q "^| lab (qemu TCG) | BPF LSM | openat | 1.010 \[1.009–1.011\] | n/a | 1.150 \[1.100–1.200\] † |" "$T/c.md" ||
	{ grep "BPF LSM | openat" "$T/c.md"; fail "±2 % rule: agreeing cell marked or disagreeing cell not"; }
grep -q "icount shift=0" "$T/c.md" || fail "the lab's clock is not reported"
grep -q "^| BPF LSM | EnhanceProtect | n/a | +150 |" "$T/c.md" || { grep "^| BPF LSM | Enh" "$T/c.md"; fail "added ns per operation"; }
grep -q "^| EnhanceProtect | confined | openat | polc_file_open | 4000 | 777 |" "$T/c.md" || fail "hooks row"
grep -q "polc_capable" "$T/c.md" && fail "a program called 3 times is listed"
# two enforcers the rule series measured, side by side, round by round:
# bold (and counted) only where every round finds the same one dearer;
# seccomp ran no rule series, so it is in no such table
{
	echo "polc-bench-raw 1"
	printf 'S\tlab\tmicro\t-\tNoProtect\texecl\tns/op\t1000,1300,1000\n'
	printf 'S\tlab\tmicro\tapparmor\tRuntimeDefault\texecl\tns/op\t1001,1301,1001\n'
	printf 'S\tlab\tmicro\tbpf\tRuntimeDefault\texecl\tns/op\t1003,1303,1003\n'
	printf 'S\tlab\tmicro\tseccomp\tRuntimeDefault\texecl\tns/op\t1500,1500,1500\n'
	printf 'S\tlab\tmicro\tapparmor\tEnhanceProtect\texecl\tns/op\t1000,1010,990\n'
	printf 'S\tlab\tmicro\tbpf\tEnhanceProtect\texecl\tns/op\t1005,1005,1005\n'
	printf 'S\tlab\trules\t-\tNoProtect\texecl\tns/op\t1000,1000,1000\n'
	printf 'S\tlab\trules\tapparmor\tRules1\texecl\tns/op\t1000,1000,1000\n'
	printf 'S\tlab\trules\tbpf\tRules1\texecl\tns/op\t990,995,999\n'
} >"$T/pairs.raw"
"$POLC" bench --report-from "$T/pairs.raw" -o "$T/p.md" 2>/dev/null || fail "--report-from pairs"
grep -q "^## BPF LSM against AppArmor (lab)" "$T/p.md" || fail "no BPF LSM against AppArmor table"
grep -q "against seccomp\|seccomp against" "$T/p.md" && fail "seccomp (no rule series) paired"
grep -q "^| micro execl | n/a | \*\*1.0020 \[1.0015–1.0020\]\*\* | 1.0050 \[0.9950–1.0152\] | \*\*0.9950 \[0.9900–0.9990\]\*\* |" "$T/p.md" ||
	{ grep "^| micro execl" "$T/p.md"; fail "pairs row: rounds paired, bold where all agree"; }
grep -q "dearer than AppArmor in every round in 1 cells: execl RuntimeDefault; cheaper in every round in 1;" "$T/p.md" ||
	{ grep "every round" "$T/p.md"; fail "pairs count"; }
# --compare: two runs' cost-ratio medians, cell by cell; exit 0 when all
# are within --within (1 % by default), 1 when one is not, 3 unreadable
{
	echo "polc-bench-raw 1"
	printf 'S\tlab\tmicro\t-\tNoProtect\texecl\tns/op\t1000,2000,1000\n'
	printf 'S\tlab\tmicro\tbpf\tRuntimeDefault\texecl\tns/op\t1010,2020,1010\n'
	printf 'S\tlab\tmicro\tapparmor\tRuntimeDefault\texecl\tns/op\t1001,2002,1001\n'
	printf 'S\tlab\tredis\t-\tNoProtect\tGET\treq/s\t1000,1000\n'
	printf 'S\tlab\tredis\tbpf\tRuntimeDefault\tGET\treq/s\t990,990\n'
	printf 'S\tlab\thooks\tpolc_file_open\tRuntimeDefault\tconfined:openat\tns/call\t777\n'
} >"$T/runA.raw"
sed 's/1010,2020,1010/1012,2024,1012/; s/990,990/960,960/' "$T/runA.raw" >"$T/runB.raw"
"$POLC" bench --compare "$T/runA.raw" "$T/runA.raw" >"$T/cmp0.out" || fail "--compare of a table with itself: exit $?"
grep -q "^lab micro: 2 cells, largest difference 0.00 %" "$T/cmp0.out" || { cat "$T/cmp0.out"; fail "--compare: micro tally"; }
grep -q "^lab redis: 1 cells" "$T/cmp0.out" || fail "--compare: redis tally"
grep -q "hooks" "$T/cmp0.out" && fail "--compare: a cell with no baseline compared"
rc=0; "$POLC" bench --compare "$T/runA.raw" "$T/runB.raw" >"$T/cmp1.out" || rc=$?
[ $rc = 1 ] || fail "--compare: a cell 3 % apart, not exit 1 ($rc)"
grep -q "cells more than 1.00 % apart: 1$" "$T/cmp1.out" || { cat "$T/cmp1.out"; fail "--compare: count apart"; }
grep -q "^  lab redis: BPF LSM RuntimeDefault GET: 1.0101 against 1.0417 (3.13 %)" "$T/cmp1.out" ||
	{ cat "$T/cmp1.out"; fail "--compare: the cell apart"; }
grep -q "^lab micro: 2 cells, largest difference 0.20 % (BPF LSM RuntimeDefault execl: 1.0100 against 1.0120)" "$T/cmp1.out" ||
	{ cat "$T/cmp1.out"; fail "--compare: micro's largest"; }
"$POLC" bench --compare "$T/runA.raw" "$T/runB.raw" --within 5 >/dev/null || fail "--compare --within 5: exit $?"
rc=0; "$POLC" bench --compare "$T/runA.raw" "$T/nope.raw" >/dev/null 2>&1 || rc=$?
[ $rc = 3 ] || fail "--compare: a missing table, not exit 3 ($rc)"
rc=0; "$POLC" bench --compare "$T/runA.raw" >/dev/null 2>&1 || rc=$?
[ $rc = 2 ] || fail "--compare with one table, not a usage error ($rc)"
rc=0; "$POLC" bench --within 2 >/dev/null 2>&1 || rc=$?
[ $rc = 2 ] || fail "--within without --compare, not a usage error ($rc)"
echo "ok"
