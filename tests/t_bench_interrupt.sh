#!/bin/sh
# polc bench stopped by SIGTERM or SIGINT while the lab runs stops the lab
# too (its runner, whose trap stops qemu) and exits non-zero, writing what it
# has. A stand-in lab runner (POLC_SRC points at a tree holding it) starts a
# long child and stops it only when it is itself told to stop, as
# tests/vm/run-in-vm.sh stops its qemu; before the fix polc bench died at
# once and the child ran on.
set -eu
cd "$SRC"
T=$(mktemp -d)
cleanup() {
	if [ -f "$T/child.pid" ]; then kill "$(cat "$T/child.pid")" 2>/dev/null || :; fi
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$T/src/bench" "$T/src/tests/vm"
: >"$T/src/bench/redis.sh"
cat >"$T/src/tests/vm/run-in-vm.sh" <<'EOF'
#!/bin/sh
# stand-in for the lab's runner: a child that lives until we are stopped
dir=$(dirname "$0")
sleep 600 &
echo $! >"$dir/child.pid"
trap 'kill $! 2>/dev/null; exit 125' TERM INT
wait
EOF

for sig in TERM INT; do
	rm -f "$T/src/tests/vm/child.pid"
	POLC_SRC=$T/src POLC_BENCH_MICRO=$SRC/$BUILD/bench/micro \
		"$POLC" bench --vm-only --smoke --only micro -o "$T/r.md" 2>"$T/err" &
	bench=$!
	i=0
	while [ ! -s "$T/src/tests/vm/child.pid" ]; do
		i=$((i + 1)); [ $i -lt 100 ] || { cat "$T/err"; fail "the stand-in lab never started"; }
		sleep 0.1
	done
	child=$(cat "$T/src/tests/vm/child.pid")
	cp "$T/src/tests/vm/child.pid" "$T/child.pid"
	kill -"$sig" "$bench"
	rc=0; wait "$bench" || rc=$?
	[ "$rc" = 3 ] || { cat "$T/err"; fail "SIG$sig: polc bench exited $rc, not 3"; }
	i=0
	while kill -0 "$child" 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 50 ] || fail "SIG$sig: the lab's child is still running after polc bench exited"
		sleep 0.1
	done
	grep -q "interrupted" "$T/err" || { cat "$T/err"; fail "SIG$sig: no word of the interrupt"; }
	[ -s "$T/r.md" ] || fail "SIG$sig: no report written"
	echo "SIG$sig: polc bench exit $rc, the lab's child stopped"
done
echo "ok"
