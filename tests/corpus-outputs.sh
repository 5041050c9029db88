#!/bin/sh
# corpus-outputs.sh POLC OUTDIR - every output polc writes for the project's
# policies, to compare two builds byte for byte (diff -r OUTDIR1 OUTDIR2)
# before landing a change meant to keep outputs identical. Not a test: a
# tool for refactors of the compiler, importers and backends.
#
# Inputs: every policy of every .pol file under rules/, examples/,
# profiles/, tests/ and /work/shared/peers (or $PEERS), each library rule as
# a one-line policy using it, imports of every JSON/YAML peer and import
# corpus file (several --arch/--kernel/--caps settings), the imported
# policies, and generated policies (1,000 mixed statements; 4,500 argument
# conditions on 3 syscalls, split with --allow-split). Outputs: each
# (policy, target, format) build's stdout, stderr and exit status in one
# file; imports alike; split pieces as written.
set -u
POLC=$(realpath "$1")
OUT=$2
SRC=$(cd "$(dirname "$0")/.." && pwd)
PEERS=${PEERS:-/work/shared/peers}
JOBS=${JOBS:-2}
mkdir -p "$OUT/in" "$OUT/out"
OUT=$(realpath "$OUT")
# paths in messages must not name OUT or the tree: everything is read as
# src/... and in/... from OUT
ln -sfn "$SRC" "$OUT/src"
ln -sfn "$PEERS" "$OUT/peers"
cd "$OUT"

# one line per job: KEY<TAB>command words (run by sh -c with output captured)
JOBLIST=$OUT/jobs
: >"$JOBLIST"
job() {  # job KEY ARGS...   (ARGS appended to polc)
	key=$1; shift
	printf '%s\t%s\n' "$key" "$*" >>"$JOBLIST"
}

FORMATS="seccomp:bpf seccomp:pfc seccomp:oci seccomp:spo seccomp:k8s apparmor:profile apparmor:spo apparmor:k8s bpf:bundle bpf:json landlock:json"

# imports first (their outputs are inputs below): run now, serially
imp() {  # imp KEY ARGS...
	key=$1; shift
	"$POLC" import "$@" -o "in/$key.pol" >"out/import.$key" 2>&1
	echo "rc=$?" >>"out/import.$key"
	[ -s "in/$key.pol" ] && cp "in/$key.pol" "out/import.$key.pol"
}
n=0
for f in peers/*.json src/tests/fuzz/corpus/import/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	case $f in
	*.yaml|*.yml) imp "v$n" --from varmor "$f"; imp "v${n}p" --from varmor --allow-partial "$f" ;;
	*) imp "j$n" "$f"; imp "j${n}a" "$f" --arch x86_64; imp "j${n}b" "$f" --arch x86_64,i386,x32 --kernel 6.1
	   imp "j${n}c" "$f" --kernel 5.10 --caps CAP_SYS_ADMIN,CAP_NET_ADMIN ;;
	esac
done
for f in peers/varmor/*.yaml peers/spo/*.yaml; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	imp "v$n" --from varmor "$f"; imp "v${n}p" --from varmor --allow-partial "$f"
done

# library rules as policies
for r in $(sed -n 's/^rule \([A-Za-z0-9_-]*\).*/\1/p' src/rules/*.pol | sort -u); do
	printf 'policy r {\n  use %s;\n}\n' "$r" >"in/rule-$r.pol"
done

# generated
awk 'BEGIN { print "policy gen {"; for (i = 0; i < 1000; i++) { k = i % 10
	if (k < 7) printf "  deny file \"/srv/gen/d%d/**\" write;\n", i
	else if (k < 8) printf "  deny network tcp port %d;\n", 1024 + i
	else if (k < 9) printf "  deny exec \"/opt/gen/bin%d\";\n", i
	else printf "  deny syscall %s if arg0 == %d;\n", (i % 3 ? "close" : "fchdir"), i }
	print "}" }' >in/gen1k.pol
awk 'BEGIN { print "policy big {"; split("close fchdir fsync", s, " ")
	for (j = 1; j <= 3; j++) for (i = 0; i < 1500; i++)
		printf "  deny errno EACCES syscall %s if arg0 == %d;\n", s[j], 5000 * j + i
	print "}" }' >split-in.pol   # only split: libseccomp's formats take minutes on it

for f in $(find src/rules src/examples src/profiles src/tests peers/ in -name '*.pol' | sort); do
	k=$(echo "$f" | sed "s|[/ ]|_|g")
	pols=$(sed -n 's/^policy \([A-Za-z0-9_-]*\).*/\1/p' "$f" | sort -u)   # one job a key
	for tf in $FORMATS; do
		t=${tf%%:*} fm=${tf#*:}
		job "$k.$t.$fm" build "$f" --target "$t" --format "$fm" --allow-partial
		for p in $pols; do
			job "$k.$p.$t.$fm" build "$f" --target "$t" --format "$fm" --policy "$p" --allow-partial
		done
	done
done
mkdir -p split
job split.big build split-in.pol --target seccomp --allow-split -o split/big.bpf

# run the builds, JOBS at a time
export POLC
tr '\t' ' ' <"$JOBLIST" | xargs -P "$JOBS" -L 1 sh -c '
	key=$0; "$POLC" "$@" >"out/$key" 2>&1; echo "rc=$?" >>"out/$key"'
echo "$(ls out | wc -l) outputs, $(ls split | wc -l) split pieces in $OUT"
