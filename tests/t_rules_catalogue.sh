#!/bin/sh
# t_rules_catalogue.sh - `polc rules`: every rule of RULES.md is in the
# catalogue with per-backend support, `polc rules NAME` prints the rule's
# source, an unknown name fails with "did you mean", --json is valid.
set -u
: "${POLC:?}" "${SRC:?}"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# ---- the names RULES.md promises ----
# Derived from the design doc by grep (first column of its tables, the
# disable-cap-NAME family from <linux/capability.h>, and the
# block-access-to-{...}-metadata-service family). The embedded copy is the
# same grep's output, for checkouts without the design directory; when the
# doc is present the two must agree, so the copy cannot go stale.
RULES_MD=${RULES_MD:-$SRC/../shared/design/RULES.md}
CAP_H=${CAP_H:-/usr/include/linux/capability.h}
derive() {
	grep -o '^| `[^|]*|' "$RULES_MD" | grep -o '`[a-z0-9-]*`' | tr -d '`' |
		grep -v '^disable-cap-NAME$'
	sed -n 's/^#define[ \t]*CAP_\([A-Z_]*\)[ \t]\{1,\}[0-9]\{1,\}.*/\1/p' "$CAP_H" |
		tr 'A-Z_' 'a-z-' | sed 's/^/disable-cap-/'
	grep -o 'block-access-to-{[^}]*}-metadata-service' "$RULES_MD" |
		sed 's/.*{\(.*\)}.*/\1/; s/([^)]*)//g' | tr ',' '\n' |
		sed 's/.*/block-access-to-&-metadata-service/'
}
EMBEDDED="always-allow runtime-default enhance-protect disallow-write-core-pattern
disallow-mount-securityfs disallow-mount-procfs disallow-write-release-agent
disallow-mount-cgroupfs disallow-debug-disk-device disallow-mount-disk-device
disallow-mount disallow-umount disallow-insmod disallow-load-bpf-prog
disallow-access-procfs-root disallow-access-kallsyms disable-cap-all
disable-cap-all-except-net-bind-service disable-cap-privilege
disallow-abuse-user-ns disallow-create-user-ns disallow-load-all-bpf-prog
disallow-load-bpf-via-setsockopt disallow-userfaultfd-creation mitigate-sa-leak
mitigate-disk-device-number-leak mitigate-overlayfs-leak mitigate-host-ip-leak
disallow-metadata-service disable-write-etc disable-access-passwd
disable-access-shadow disable-access-ssh-dir disable-busybox disable-shell
disable-wget disable-curl disable-chmod disable-su-sudo disable-chmod-x-bit
disable-chmod-s-bit disable-network disable-inet disable-inet6
disable-unix-domain-socket disable-icmp disable-tcp disable-udp
block-access-to-container-runtime cgroups-lxcfs-escape-mitigation
runc-override-mitigation dirty-pipe-mitigation copy-fail-mitigation
disable-cap-chown disable-cap-dac-override disable-cap-dac-read-search
disable-cap-fowner disable-cap-fsetid disable-cap-kill disable-cap-setgid
disable-cap-setuid disable-cap-setpcap disable-cap-linux-immutable
disable-cap-net-bind-service disable-cap-net-broadcast disable-cap-net-admin
disable-cap-net-raw disable-cap-ipc-lock disable-cap-ipc-owner
disable-cap-sys-module disable-cap-sys-rawio disable-cap-sys-chroot
disable-cap-sys-ptrace disable-cap-sys-pacct disable-cap-sys-admin
disable-cap-sys-boot disable-cap-sys-nice disable-cap-sys-resource
disable-cap-sys-time disable-cap-sys-tty-config disable-cap-mknod
disable-cap-lease disable-cap-audit-write disable-cap-audit-control
disable-cap-setfcap disable-cap-mac-override disable-cap-mac-admin
disable-cap-syslog disable-cap-wake-alarm disable-cap-block-suspend
disable-cap-audit-read disable-cap-perfmon disable-cap-bpf
disable-cap-checkpoint-restore block-access-to-aws-metadata-service
block-access-to-volc-metadata-service block-access-to-alibaba-metadata-service
block-access-to-oci-metadata-service"
echo $EMBEDDED | tr ' ' '\n' | sort > "$tmp/want"
if [ -r "$RULES_MD" ] && [ -r "$CAP_H" ]; then
	derive | sort > "$tmp/derived"
	cmp -s "$tmp/want" "$tmp/derived" ||
		{ bad "embedded name list differs from RULES.md:"; diff "$tmp/want" "$tmp/derived"; }
fi
n_want=$(wc -l < "$tmp/want")
[ "$n_want" -ge 90 ] || bad "only $n_want names derived from RULES.md"

# ---- the catalogue ----
"$POLC" rules > "$tmp/list" 2> "$tmp/err"; rc=$?
[ $rc = 0 ] || { bad "polc rules exited $rc"; cat "$tmp/err"; }
# A rule's name is an unindented line; summary and support are indented.
grep -v '^ ' "$tmp/list" | grep -v ' rules$' | sort > "$tmp/listed"
missing=$(comm -23 "$tmp/want" "$tmp/listed")
[ -z "$missing" ] || bad "rules of RULES.md not listed:" $missing
grep -q "^$(wc -l < "$tmp/listed") rules\$" "$tmp/list" || bad "no 'N rules' footer matching the list"
# Every rule has a support line per linked backend, with a level word.
# A backend still being written may be missing, but not all of them: then
# the catalogue says nothing about support (e.g. a link that drops them).
linked=0
for b in seccomp apparmor bpf; do
	n=$(grep -c "^    $b  *\(exact\|partial\|none\)" "$tmp/list")
	[ "$n" = 0 ] && { echo "note: backend $b not linked"; continue; }
	linked=$((linked + 1))
	[ "$n" = "$(wc -l < "$tmp/listed")" ] || bad "$b: $n support lines for $(wc -l < "$tmp/listed") rules"
done
[ $linked -gt 0 ] || bad "no backend linked into $POLC: polc rules shows no support"
# Support comes from classify(): spot-check what LANGUAGE.md's table fixes.
support() { # rule backend -> level word, or "" if the backend is not linked
	awk -v r="$1" -v b="$2" '$0 == r { in_r = 1; next } /^[^ ]/ { in_r = 0 }
	    in_r && $1 == b { sub(/:$/, "", $2); print $2; exit }' "$tmp/list"
}
expect() { # rule backend level
	got=$(support "$1" "$2")
	[ -z "$got" ] || [ "$got" = "$3" ] || bad "$1 on $2: $got, want $3"
}
expect disable-cap-chown seccomp none          # capabilities: not seccomp
expect disallow-write-core-pattern seccomp none
expect dirty-pipe-mitigation seccomp exact     # a plain syscall
expect dirty-pipe-mitigation apparmor none
expect disallow-write-core-pattern apparmor partial  # a file deny; sys_admin not denied: detached mounts
expect disable-cap-chown apparmor exact
expect disallow-metadata-service apparmor none # addresses: bpf only
expect disallow-metadata-service bpf partial   # raw packets: net_raw not denied
expect always-allow seccomp exact              # vacuously
expect runtime-default apparmor partial        # files yes, syscalls no
n=$(support disallow-write-core-pattern seccomp)
[ -z "$n" ] || grep -A4 '^disallow-write-core-pattern$' "$tmp/list" | grep -q "seccomp *none: ." ||
	bad "a 'none' rule gives no reason"

# ---- one rule's source ----
"$POLC" rules disallow-umount > "$tmp/one" 2>&1 || bad "polc rules disallow-umount failed"
grep -q '^rule disallow-umount {$' "$tmp/one" || bad "no 'rule disallow-umount {' line"
grep -q '^  deny umount;$' "$tmp/one" || bad "no 'deny umount;' in its source"
grep -q '^# Unmounting an overmount' "$tmp/one" || bad "the comment above the rule is missing"
grep -q 'disallow-insmod\|disallow-mount {' "$tmp/one" && bad "source slice runs into a neighbouring rule"
grep -q '^}$' "$tmp/one" || bad "no closing brace"
# Braces inside strings (globs) must not end the slice early.
"$POLC" rules disallow-debug-disk-device > "$tmp/two" 2>&1 || bad "polc rules disallow-debug-disk-device failed"
grep -q '"/dev/{sd,vd,xvd,nvme,hd}\*" read, write, append;' "$tmp/two" || bad "glob line cut"
[ "$(grep -c '^}$' "$tmp/two")" = 1 ] || bad "disallow-debug-disk-device: want exactly one closing brace"
grep -q '^rule disallow-mount-disk-device' "$tmp/two" && bad "slice ran past the rule"

# ---- unknown name ----
"$POLC" rules disalow-umount > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] || bad "unknown rule: exit $rc, want 1"
grep -q "did you mean 'disallow-umount'" "$tmp/err" || { bad "no did-you-mean"; cat "$tmp/err"; }
"$POLC" rules --bogus > /dev/null 2>&1; [ $? = 2 ] || bad "bad option: want exit 2"

# ---- JSON ----
if command -v jq > /dev/null; then
	"$POLC" rules --json > "$tmp/json" || bad "polc rules --json failed"
	jq -r '.[].name' "$tmp/json" | sort > "$tmp/jnames" || bad "--json is not valid JSON"
	cmp -s "$tmp/jnames" "$tmp/listed" || bad "--json names differ from the text list"
	jq -e 'all(.[]; (.summary | type) == "string" and (.support | type) == "object")' \
		"$tmp/json" > /dev/null || bad "--json: a rule lacks summary or support"
	"$POLC" rules --json disallow-umount | jq -e '.source | test("deny umount;")' > /dev/null ||
		bad "--json NAME: no source"
else
	bad "jq missing (tools/deps.d/rules lists it)"
fi
exit $fail
