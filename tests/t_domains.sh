#!/bin/sh
# t_domains.sh - support judged by effect, and the domains an artifact
# covers: an allow under an allow default is exact on every target (it
# changes no decision: the artifact with and without it is the same); the
# presets build on every target without --allow-partial, with one note
# naming what is left to the other enforcers (and the same line in the
# header); record -> gen -> `polc run --target seccomp` works without
# --allow-partial; what the user writes stays refused where the target
# cannot enforce it, unless --domains leaves that domain to others.
set -u
: "${POLC:?}"
SRC=${SRC:-$(cd "$(dirname "$0")/.." && pwd)}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cd "$T" || exit 3

# an allow under `default allow file` changes nothing: exact, same filter
printf 'policy a {\n  deny syscall keyctl;\n  allow file "/etc/**" read;\n  allow exec "/bin/true";\n}\n' >a.pol
printf 'policy a {\n  deny syscall keyctl;\n}\n' >b.pol
"$POLC" build a.pol --target seccomp --format bpf -o a.bpf 2>err || bad "allow under allow default refused: $(cat err)"
grep -q 'left to the other\|warning' err && bad "an exact allow reported: $(cat err)"
"$POLC" build b.pol --target seccomp --format bpf -o b.bpf 2>/dev/null
cmp -s a.bpf b.bpf || bad "the allow changed the seccomp filter"
# ... but not under `default deny file` (seccomp cannot see paths)
printf 'policy c {\n  default deny file;\n  allow file "/etc/**" read;\n}\n' >c.pol
"$POLC" build c.pol --target seccomp -o c.bpf 2>err; rc=$?
[ $rc = 1 ] && grep -q 'c.pol:3:3: error: target seccomp cannot enforce this statement' err ||
	bad "an allow-list of files on seccomp: exit $rc: $(cat err)"

# the presets, as examples/presets.pol's header says, on every target
for t in seccomp seccomp:oci apparmor bpf; do
	f=${t#*:}; [ "$f" = "$t" ] && f=; t=${t%%:*}
	for p in always-allow runtime-default enhance-protect; do
		"$POLC" build "$SRC/examples/presets.pol" --policy $p --target $t ${f:+--format $f} -o out 2>err ||
			{ bad "preset $p on $t: $(grep error err | head -3)"; continue; }
		n=$(grep -c 'note: .* artifact: left to the other enforcers:' err)
		[ "$n" -le 1 ] || bad "preset $p on $t: $n summaries"
		grep -q 'error\|warning' err && bad "preset $p on $t: $(cat err)"
		if [ "$n" = 1 ] && [ "$t$f" != seccomp ]; then   # the raw filter has no header
			grep -aq "left to the other enforcers: " out || bad "preset $p on $t: header lacks the summary"
		fi
	done
done
"$POLC" build "$SRC/examples/presets.pol" --policy runtime-default --target seccomp -o out 2>err
grep -q 'seccomp artifact: left to the other enforcers: file (11 statements)$' err ||
	bad "runtime-default on seccomp: $(cat err)"
"$POLC" build "$SRC/examples/presets.pol" --policy runtime-default --target apparmor -o out 2>err
# its file denies are partial: the preset does not deny CAP_SYS_ADMIN (detached mounts)
grep -q 'apparmor artifact: left to the other enforcers: syscall (308 statements, `default deny`), file (11 statements, 11 of them enforced here in part), mount (1 statement, 1 of them enforced here in part)$' err ||
	bad "runtime-default on apparmor: $(cat err)"

# --domains: exactly the domains named are this artifact's
printf 'policy d {\n  deny syscall keyctl;\n  deny file "/etc/shadow" read;\n}\n' >d.pol
"$POLC" build d.pol --target seccomp -o d.bpf 2>err; rc=$?
[ $rc = 1 ] && grep -q 'd.pol:3:3: error: target seccomp cannot enforce this statement' err ||
	bad "a user's file deny on seccomp without --domains: exit $rc"
"$POLC" build d.pol --target seccomp --domains syscall -o d.bpf 2>err ||
	bad "--domains syscall: $(cat err)"
grep -q 'left to the other enforcers: file (1 statement)' err || bad "--domains syscall: no summary: $(cat err)"
"$POLC" build d.pol --target seccomp --domains syscall,file -o d.bpf 2>err; rc=$?
[ $rc = 1 ] || bad "--domains syscall,file on seccomp: exit $rc"
"$POLC" build "$SRC/examples/presets.pol" --policy runtime-default --target seccomp --domains all -o out 2>err; rc=$?
[ $rc = 1 ] || bad "a preset with --domains all on seccomp is not refused: exit $rc"
"$POLC" build d.pol --target seccomp --domains sycall -o d.bpf 2>err; rc=$?
[ $rc = 2 ] && grep -q "domains 'sycall'" err || bad "--domains sycall: exit $rc"

# record -> gen -> run under seccomp, no --allow-partial
if "$POLC" record -o run.trace -- /bin/ls / >/dev/null 2>err; then
	"$POLC" gen run.trace --name app -o app.pol 2>err || bad "gen: $(cat err)"
	"$POLC" run --target seccomp app.pol -- /bin/ls / >ls.out 2>err || bad "run --target seccomp: $(cat err)"
	grep -q '^usr$' ls.out || bad "the confined ls printed: $(cat ls.out)"
else
	echo "SKIP record -> gen -> run: polc record cannot trace here: $(head -1 err)"
fi
[ $fail = 0 ] && echo ok
exit $fail
