#!/bin/sh
# t_profiles_second_load.sh - issue #13's "Done when" for the two servers
# without a shipped profile, sqlite3 and python's http.server (nginx,
# memcached and mariadb: t_profiles_servers): each recorded under load a
# and load b (profiles/soak/, eBPF recorder), profiles generated as `make
# profiles` does (profiles/soak/second-load.sh). The profile from load a
# alone and the one from both start under `polc run --target seccomp` as
# generated, refuse no syscall of either load (audit mode), and load b
# passes enforced. A control can fail: sqlite3's profile from load a without
# the syscall families (--no-families) refuses load b's mremap or ftruncate.
# Short loads (2 s each).
set -u
: "${POLC:?}" "${SRC:?}"
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (eBPF recorder, /var/lib/polc-soak)"; exit 0; }
T=$(mktemp -d) || exit 3
trap 'rm -rf "$T"' EXIT
if ! "$POLC" record --tracer ebpf -o "$T/probe.trace" -- true 2>/dev/null; then
	echo "SKIP: the eBPF recorder cannot run here"
	exit 0
fi
WORK=$T/w sh "$SRC/profiles/soak/second-load.sh" "$POLC" "${PROFILE_SECS:-2}" sqlite3 python-http \
	>"$T/table" 2>&1
cat "$T/table"
ran=0 control=0
while read -r s p sc fr ra rb eb; do
	case "$s $p" in
	"server profile"|work:*) continue ;;
	*": SKIP") echo "SKIP $s ($sc ...)"; continue ;;
	*:*) fail "$s $p $sc $fr $ra $rb $eb" ;;
	esac
	case $p in
	A|A+B)
		[ "$ra" = 0 ] || fail "$s: the profile from $p refuses under load a: $ra"
		[ "$rb" = 0 ] || fail "$s: the profile from $p refuses under load b: $rb"
		[ "$eb" = pass ] || fail "$s: load b enforced under the profile from $p: $eb"
		echo "ok   $s from $p: $sc syscalls, $fr file rules; 0 refused under a and b; load b enforced passes"
		ran=$((ran + 1)) ;;
	A-exact)
		[ "$ra" = 0 ] || fail "$s: the exact profile from load a refuses under load a: $ra"
		if [ "$s" = sqlite3 ]; then
			case $rb in
			*mremap*|*ftruncate*) control=1
				echo "ok   control: sqlite3 from load a without families refuses under load b: $rb" ;;
			*) fail "control: sqlite3's exact profile from load a refused under load b: $rb" ;;
			esac
		fi ;;
	esac
done <"$T/table"
[ $ran -gt 0 ] || { echo "SKIP: neither sqlite3 nor python3 with curl is installed"; exit 0; }
if grep -q '^sqlite3 ' "$T/table"; then [ $control = 1 ] || fail "control did not run"; fi
echo ok
