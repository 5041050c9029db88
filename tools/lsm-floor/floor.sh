#!/bin/sh
# floor.sh POLC MICRO ENFORCER_OBJ FLOOR_RUN ROUNDS [RULE] - inside the lab
#   (icount): what polc's BPF LSM enforcer, AppArmor, and the floor under any
#   BPF LSM enforcer (floor-run's allow-at-once programs on the hooks of the
#   enforcer's programs, read off its object ENFORCER_OBJ) cost
#   the micro tests and redis-benchmark, against no enforcer, for one
#   scenario (a preset RULE of rules/presets.pol, runtime-default unless
#   given, or a policy file RULE such as rules1.pol). The floor attaches
#   exactly the programs polc's enforcer attaches for the scenario's policy
#   (read off its pinned links once, first).
#   Each round runs every configuration once, starting at a different one,
#   each in a fresh cgroup one level below the root, as polc bench places
#   them (bench/run.c) and as polc run --target bpf places its command: a
#   workload one level deeper pays more for its cgroup (memcg charges walk
#   every level), which would be counted as the enforcer's cost.
# Prints "hooks NAME,..." then one line per measurement:
#   "micro ROUND CONFIG TEST NS_PER_OP" and "redis ROUND CONFIG GET|SET REQ_PER_S";
#   summary.py turns them into ratios. Leaves no cgroup or policy behind.
set -u
P=$1 MICRO=$2 OBJ=$3 FR=$4 R=$5 RULE=${6:-runtime-default}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
SECS=${FLOOR_SECS:-0.1} REDIS_N=${FLOOR_REDIS_N:-10000}
TESTS="getppid openat fork execl spawn"
CGROOT=/sys/fs/cgroup/unified
[ -d "$CGROOT" ] || CGROOT=/sys/fs/cgroup
# the guest's tmpfs: an exec over 9p waits on the host and moves the
# guest's clock (prof.sh)
W=$(mktemp -d /tmp/polc-floor.XXXXXX) || exit 3
base=$CGROOT/polc-floor-$$   # the cgroups: $base-probe, $base-1, $base-2...
seq=0
# every process of a test with the same layout in every round, as polc
# bench has it in the lab (bench/run.c, aslr_off)
aslr=$(cat /proc/sys/kernel/randomize_va_space)
cleanup() {
	echo "$aslr" >/proc/sys/kernel/randomize_va_space
	"$P" unload --target bpf >/dev/null 2>&1
	for d in "$base"-*; do [ -d "$d" ] && rmdir "$d"; done 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 143' INT TERM
echo 0 >/proc/sys/kernel/randomize_va_space || exit 3
cp "$MICRO" "$W/micro" || exit 3
if [ -f "$RULE" ]; then   # a policy file (the rule-count series': rules1.pol)
	cp "$RULE" "$W/s.pol" || exit 3
else
	printf 'policy floor_scenario { use %s; }\n' "$RULE" >"$W/s.pol"
fi
"$P" build --target bpf --allow-partial "$W/s.pol" -o "$W/s.bundle" 2>/dev/null || exit 3

# The programs the scenario's enforcer attaches: its pinned links.
mkdir "$base-probe" || exit 3
"$P" load "$W/s.bundle" --cgroup "$base-probe" >/dev/null || exit 3
hooks=$(ls /sys/fs/bpf/polc | sed -n 's/^link_polc_//p' | sort | paste -sd, -)
"$P" unload --target bpf >/dev/null 2>&1
rmdir "$base-probe"
[ -n "$hooks" ] || { echo "floor: $RULE attaches no program" >&2; exit 3; }
echo "hooks $hooks"

wrap() {   # the configuration's wrapper words
	case $1 in
	none) ;;
	floor) echo "$FR $OBJ $hooks --" ;;
	bpf | apparmor) echo "$P run --target $1 --allow-partial $W/s.pol --" ;;
	esac
}
placed() {   # CMD... in a fresh cgroup
	seq=$((seq + 1))
	mkdir "$base-$seq" || return 3
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$base-$seq" "$@"
	rc=$?
	rmdir "$base-$seq" 2>/dev/null
	return $rc
}
micro() {   # ROUND CONFIG
	# shellcheck disable=SC2046
	placed $(wrap "$2") "$W/micro" -t "$SECS" $TESTS >"$W/m.out" ||
		{ echo "floor: micro under $2 failed" >&2; exit 3; }
	awk -v r="$1" -v c="$2" 'NF == 3 { print "micro", r, c, $1, $2 }' "$W/m.out"
}
redis() {   # ROUND CONFIG: the server in a cgroup of its own (bench/redis.sh)
	seq=$((seq + 1))
	srv=$base-$seq
	mkdir "$srv" && mkdir -p "$W/redis" || exit 3
	# shellcheck disable=SC2046
	REDIS_SERVER_CGROUP=$srv placed sh "$SRC/bench/redis.sh" $((6379 + seq)) \
		"$REDIS_N" 50 "$W/redis" $(wrap "$2") >"$W/r.out" ||
		{ echo "floor: redis under $2 failed" >&2; exit 3; }
	"$P" unload --target bpf >/dev/null 2>&1
	rmdir "$srv" 2>/dev/null
	awk -v r="$1" -v c="$2" '$1 == "GET" || $1 == "SET" { print "redis", r, c, $1, $2 }' "$W/r.out"
}

set -- none floor bpf apparmor
for r in $(seq 1 "$R"); do
	for k in 0 1 2 3; do
		i=$(( (k + r - 1) % 4 + 1 ))
		eval c=\${$i}
		micro "$r" "$c"
		"$P" unload --target bpf >/dev/null 2>&1
		redis "$r" "$c"
	done
done
echo "exit 0"
