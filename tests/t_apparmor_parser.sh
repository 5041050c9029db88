#!/bin/sh
# t_apparmor_parser.sh - apparmor_parser accepts every profile polc writes:
# each policy in examples/*.pol and one policy per rule in rules/*.pol
# (`policy RULE { use RULE; }`), built with --target apparmor
# --allow-partial. The parser runs offline (-Q -K) against the abi 3.0
# feature set (-M), so that mount, ptrace, signal and network rules are
# compiled too rather than skipped for want of a kernel; any parser warning
# fails the test, except one that only a kernel with fine-grained af_unix
# mediation (not upstream Linux) would act on.
# Also: a profile the parser must reject is rejected (so this test can fail).
set -u
: "${POLC:?}" "${SRC:?}"
cd "$SRC" || exit 1
command -v apparmor_parser >/dev/null || PATH=$PATH:/usr/sbin:/sbin
FEAT=/etc/apparmor.d/abi/3.0
[ -r "$FEAT" ] || { echo "FAIL: $FEAT missing (apt-get install apparmor)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
bad() { echo "FAIL: $*"; fail=1; }

parse() { # profile
	apparmor_parser -Q -K -M "$FEAT" --warn all "$1" > "$tmp/parse.out" 2>&1
	rc=$?
	grep -v -e '^Cache read/write disabled' \
		-e "deny unix socket rule not enforced, can't be downgraded" \
		-e '^$' "$tmp/parse.out" > "$tmp/parse.msg"
	[ $rc = 0 ] && [ ! -s "$tmp/parse.msg" ]
}

check() { # file policy
	out="$tmp/$2.profile"
	if ! "$POLC" build "$1" --target apparmor --allow-partial --policy "$2" \
		-o "$out" > "$tmp/build.out" 2>&1; then
		bad "polc build $1 --policy $2"; cat "$tmp/build.out"; return
	fi
	n=$((n + 1))
	parse "$out" || { bad "apparmor_parser rejects $1 ($2):"; cat "$tmp/parse.msg"; }
}

for f in examples/*.pol; do
	[ -f "$f" ] || continue
	for pol in $(sed -n 's/^[[:space:]]*policy[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_-]*\).*/\1/p' "$f"); do
		check "$f" "$pol"
	done
done
for r in $(sed -n 's/^[[:space:]]*rule[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_-]*\).*/\1/p' rules/*.pol | sort -u); do
	printf 'policy %s {\n  use %s;\n}\n' "$r" "$r" > "$tmp/$r.pol"
	check "$tmp/$r.pol" "$r"
done
# Every domain, both defaults, odd globs.
cat > "$tmp/all.pol" <<'EOF'
policy open_all {
  default allow;
  deny file "/a/[^x]*/{b,c{d,}}/\*" read, write, append, mmap, link, lock, exec;
  audit file "/var/@{HOME}/sp ace/\"q\"" read;
  deny exec "/usr/bin/{nc,socat}";
  deny capability all;
  deny mount fstype proc, sysfs on "/proc/**";
  deny umount on "/mnt/*";
  deny pivot_root;
  deny network inet6 udp;
  deny network unix;
  deny network netlink raw;
  deny ptrace read;
  deny signal to "other-*";
}
policy closed_all {
  mode audit;
  default deny file, exec, capability, mount, network, ptrace, signal;
  allow file "/usr/**" read, mmap, exec;
  allow exec "/usr/bin/*";
  allow capability net_bind_service, chown;
  allow mount fstype tmpfs on "/tmp/x";
  allow umount;
  allow network inet tcp;
  allow network packet;
  allow ptrace trace;
  allow signal to "closed_all";
}
EOF
check "$tmp/all.pol" open_all
check "$tmp/all.pol" closed_all

# The parser must be able to say no.
printf 'abi <abi/3.0>,\nprofile broken {\n  "/x" wa,\n}\n' > "$tmp/broken.profile"
parse "$tmp/broken.profile" && bad "apparmor_parser accepted a profile with w and a together"

[ "$n" -ge 3 ] || bad "only $n profiles checked"
echo "$n profiles checked"
exit $fail
