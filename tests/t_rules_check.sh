#!/bin/sh
# t_rules_check.sh - the rule library and the examples compile cleanly
# (`polc check`, no warnings), and the generated library files are what
# their generators make from today's inputs.
set -u
: "${POLC:?}" "${SRC:?}"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$SRC" || exit 1

for f in rules/*.pol examples/*.pol; do
	if ! "$POLC" check "$f" > "$tmp/out" 2>&1; then
		bad "polc check $f"; cat "$tmp/out"
	elif grep -v "warning: policy 'runtime-default' denies files but leaves usermode-helper settings writable (/sys/fs/cgroup/release_agent, /sys/fs/cgroup/memory/release_agent)" "$tmp/out" |
	     grep -q 'warning:'; then
		# (runtime-default is Docker's default, which leaves cgroup v1's
		# release_agent to the runtime's read-only cgroup mount: expected)
		bad "polc check $f warns"; cat "$tmp/out"
	fi
done
# All at once too: no rule is defined twice across the library files.
"$POLC" check rules/*.pol > "$tmp/out" 2>&1 || { bad "polc check rules/*.pol together"; cat "$tmp/out"; }

# A broken rule file must be refused (so the loop above can fail).
printf 'rule broken {\n  deny capability not_a_cap;\n}\n' > "$tmp/broken.pol"
"$POLC" check "$tmp/broken.pol" > /dev/null 2>&1 && bad "polc check accepted an unknown capability"

# Generated files are up to date.
sh tools/gen-capabilities.sh > "$tmp/caps.pol" || bad "gen-capabilities.sh failed"
cmp -s "$tmp/caps.pol" rules/capabilities.pol ||
	bad "rules/capabilities.pol is stale: run sh tools/gen-capabilities.sh > rules/capabilities.pol"
if [ -r "${DOCKER_SECCOMP:-/work/shared/peers/docker-default-seccomp.json}" ]; then
	sh tools/gen-runtime-default.sh --check || bad "runtime-default syscall part is stale"
else
	echo "note: Docker's seccomp profile not found; generator check skipped"
fi
exit $fail
