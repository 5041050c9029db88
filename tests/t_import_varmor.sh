#!/bin/sh
# t_import_varmor.sh - polc import --from varmor: a realistic VarmorPolicy
# (tests/fixtures/varmor/) becomes the reviewed polc source
# (tests/golden/varmor/), which passes `polc check` and builds for bpf and
# seccomp; the older CRD layout; errors with the YAML's file:line:col
# (unknown built-in rule, not a VarmorPolicy, bad YAML, custom rules that do
# not map) and --allow-partial turning the unmappable into comments.
# After an intended change, regenerate and review the diff:
#   POLC=build/polc sh tests/t_import_varmor.sh --update
set -u
: "${POLC:?}"
SRC=${SRC:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$SRC" || exit 1
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
F=tests/fixtures/varmor G=tests/golden/varmor
fail=0
bad() { echo "FAIL: $*"; fail=1; }
has() { grep -qF -- "$1" "$2" || bad "$2 lacks: $1"; }

# the fixtures against the reviewed sources
for y in $F/*.yaml; do
	n=$(basename "$y" .yaml)
	"$POLC" import --from varmor "$y" -o "$T/$n.pol" 2>"$T/$n.err" || {
		bad "import $y: $(cat "$T/$n.err")"; continue; }
	if [ "${1:-}" = --update ]; then cp "$T/$n.pol" "$G/$n.pol"; echo "updated $G/$n.pol"; continue; fi
	diff -u "$G/$n.pol" "$T/$n.pol" || bad "$G/$n.pol differs (see the regeneration command at the top of $0)"
	"$POLC" check "$T/$n.pol" 2>"$T/err" || bad "$n: polc check: $(cat "$T/err")"
	"$POLC" build "$T/$n.pol" --target bpf --allow-partial -o "$T/$n.bpfpol" 2>"$T/err" ||
		bad "$n: build --target bpf: $(cat "$T/err")"
	"$POLC" build "$T/$n.pol" --target seccomp --allow-partial -o "$T/$n.bpf" 2>"$T/err" ||
		bad "$n: build --target seccomp: $(cat "$T/err")"
	"$POLC" import --from varmor "$y" -o "$T/again.pol" 2>/dev/null && cmp -s "$T/$n.pol" "$T/again.pol" ||
		bad "$n: two imports differ"
done
[ "${1:-}" = --update ] && exit 0

# what the fixtures say, in polc
w=$T/web-enhance.pol
has 'use runtime-default;' "$w"
has 'disallow-load-bpf-prog' "$w"             # vArmor's old id disallow-load-ebpf
has 'disable-cap-privilege' "$w"              # vArmor's disable-cap-privileged
has 'deny file "/etc/hosts" write, append;' "$w"
has '/environ" read;' "$w"                    # audit deny @{PROC}/@{pid}/environ r,
has 'deny mount fstype proc, sysfs;' "$w"
has 'deny exec "/usr/bin/nc*";' "$w"
has 'deny file "/var/lib/web/secret/**" read, write;' "$w"
has 'deny exec "/usr/bin/python3*";' "$w"
has 'deny network inet6 icmp;' "$w"
has 'deny network connect to 192.168.1.10 port 8000-8100;' "$w"
has 'deny errno EPERM syscall personality if arg0 == 0x400000;' "$w"
# the custom rules mean what vArmor's do: without the bpfRawRules file rule
# the policy allows more, exactly there (polc diff compares by meaning)
awk '/^        files:$/ { skip = 1; next } skip && /^        processes:$/ { skip = 0 } !skip' \
	$F/web-enhance.yaml >"$T/nofiles.yaml"
"$POLC" import --from varmor "$T/nofiles.yaml" --name web-enhance -o "$T/nofiles.pol" 2>/dev/null ||
	bad "import without bpfRawRules.files"
"$POLC" diff "$w" "$T/nofiles.pol" >"$T/diff" 2>&1; rc=$?
[ $rc = 1 ] || bad "polc diff: exit $rc: $(cat "$T/diff")"
grep -q '^widened  file "/var/lib/web/secret/' "$T/diff" || bad "diff: $(cat "$T/diff")"
grep -v '/var/lib/web/secret/' "$T/diff" | grep -q '^widened\|^narrowed\|^changed' &&
	bad "diff names more than the removed rule: $(cat "$T/diff")"
l=$T/legacy-privileged.pol
has 'use always-allow;' "$l"
has 'mode audit;' "$l"
has 'deny file "/var/run/docker.sock" read, write, append;' "$l"
has 'syscallRawRules: none, as in vArmor' "$l"
grep -q 'legacy-privileged.yaml:23:7: warning: syscallRawRules ignored' "$T/legacy-privileged.err" ||
	bad "no warning for a privileged policy's syscallRawRules: $(cat "$T/legacy-privileged.err")"

# errors: exit 1, file:line:col, nothing written
err() { # want-substring yaml-file [options]
	want=$1 y=$2; shift 2
	rm -f "$T/e.pol"
	"$POLC" import --from varmor "$@" "$y" -o "$T/e.pol" 2>"$T/err"; rc=$?
	[ "$rc" = 1 ] || bad "exit $rc for $y (want 1): $(cat "$T/err")"
	grep -qF -- "$want" "$T/err" || bad "no '$want' in: $(cat "$T/err")"
	[ -e "$T/e.pol" ] && bad "output written despite an error ($y)"
	return 0
}
sed 's/- disallow-umount$/- disallow-umonut/' $F/web-enhance.yaml >"$T/typo.yaml"
err "typo.yaml:22:9: error: unknown built-in rule 'disallow-umonut'; did you mean 'disallow-umount'?" "$T/typo.yaml"
sed 's/- dirty-pipe-mitigation$/- ingress-nightmare-mitigation/' $F/web-enhance.yaml >"$T/ingress.yaml"
err "ingress.yaml:35:9: error: vArmor's built-in rule 'ingress-nightmare-mitigation' has no polc equivalent" "$T/ingress.yaml"
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n' >"$T/pod.yaml"
err "pod.yaml:2:7: error: not a vArmor policy" "$T/pod.yaml"
printf 'apiVersion: crd.varmor.org/v1beta1\nkind: VarmorPolicy\nmetadata:\n  name: [x\n' >"$T/broken.yaml"
err "broken.yaml:5:1: error: cannot read the YAML" "$T/broken.yaml"
printf '' >"$T/empty.yaml"
err "empty.yaml:1:1: error: empty file" "$T/empty.yaml"
sed 's/mode: EnhanceProtect/mode: DefenseInDepth/' $F/web-enhance.yaml >"$T/did.yaml"
err "did.yaml:17:11: error: mode DefenseInDepth cannot be imported" "$T/did.yaml"
cat >"$T/raw.yaml" <<'Y'
apiVersion: crd.varmor.org/v1beta1
kind: VarmorPolicy
metadata:
  name: raw
spec:
  target: {kind: Pod, name: x}
  policy:
    enforcer: AppArmorBPF
    mode: EnhanceProtect
    enhanceProtect:
      attackProtectionRules:
      - rules: [disable-curl]
        targets: [/usr/bin/app]
      appArmorRawRules:
      - rules: |
          deny /tmp/ok r,
          deny owner /home/** w,
          dbus,
      bpfRawRules:
        network:
          egress:
            toPods:
            - podSelector: {matchLabels: {app: db}}
Y
err "raw.yaml:13:18: error: attackProtectionRules[0].targets: polc has no rules for single executables" "$T/raw.yaml"
err "raw.yaml:17:11: error: cannot import appArmorRawRules[0] rule 'deny owner /home/** w,': owner" "$T/raw.yaml"
err "raw.yaml:18:11: error: cannot import appArmorRawRules[0] rule 'dbus,'" "$T/raw.yaml"
err "raw.yaml:23:13: error: cannot import bpfRawRules.network.egress.toPods" "$T/raw.yaml"
# --allow-partial: comments in their place, the rest imported, and it checks
"$POLC" import --from varmor --allow-partial "$T/raw.yaml" -o "$T/raw.pol" 2>"$T/err" ||
	bad "--allow-partial: $(cat "$T/err")"
has 'deny file "/tmp/ok" read;' "$T/raw.pol"
has "# not imported (line 17): appArmorRawRules[0] rule 'deny owner /home/** w,': owner" "$T/raw.pol"
has "# not imported (line 23): bpfRawRules.network.egress.toPods" "$T/raw.pol"
has "# vArmor applies these only to /usr/bin/app; here the whole container" "$T/raw.pol"
has 'use disable-curl;' "$T/raw.pol"
grep -q 'raw.yaml:17:11: warning:' "$T/err" || bad "no warning for a comment: $(cat "$T/err")"
"$POLC" check "$T/raw.pol" 2>"$T/err" || bad "the partial import does not check: $(cat "$T/err")"

# Every vArmor upstream example (../shared/peers/varmor) imports, or is
# refused with the reason of its one feature polc cannot honour. Imports are
# checked and built; each reason is the expected message.
P=${VARMOR_PEERS:-$SRC/../shared/peers/varmor}
[ -d "$P" ] || P=/work/shared/peers/varmor
if [ ! -f "$P/2-bpf__vpol-bpf-enhance.yaml" ]; then
	bad "vArmor peer files not found in $P (set VARMOR_PEERS)"
else
	ok_n=0 ref_n=0
	while read -r f want; do
		[ -z "$f" ] && continue
		"$POLC" import --from varmor "$P/$f" -o "$T/peer.pol" 2>"$T/err"; rc=$?
		if [ "$want" = ok ]; then
			[ $rc = 0 ] || { bad "$f: exit $rc: $(head -3 "$T/err")"; continue; }
			"$POLC" check "$T/peer.pol" 2>"$T/err2" || bad "$f: import does not check: $(cat "$T/err2")"
			"$POLC" build "$T/peer.pol" --target bpf --allow-partial -o "$T/peer.bpfpol" 2>"$T/err2" ||
				bad "$f: build --target bpf: $(head -3 "$T/err2")"
			ok_n=$((ok_n + 1))
		else
			[ $rc = 1 ] && grep -q -- "error: $want" "$T/err" ||
				bad "$f: exit $rc, not refused with '$want': $(head -3 "$T/err")"
			[ -e "$T/peer.pol" ] && bad "$f: output written despite the refusal"
			ref_n=$((ref_n + 1))
		fi
		rm -f "$T/peer.pol"
	done <<'EOT'
1-apparmor__vpol-apparmor-alwaysallow.yaml ok
1-apparmor__vpol-apparmor-enhance.yaml attackProtectionRules\[1\].targets: polc has no rules for single executables
2-bpf__vpol-bpf-alwaysallow.yaml ok
2-bpf__vpol-bpf-enhance.yaml vArmor's built-in rule 'block-access-to-kube-apiserver' has no polc equivalent
3-cluster-scoped-policy__vcpol-bpf-enhance.yaml ok
4-seccomp__vpol-seccomp-alwaysallow.yaml ok
4-seccomp__vpol-seccomp-enhance.yaml ok
5-mutiple-enforcers__vpol-enhance.yaml ok
6-behavior-modeling-and-defense-in-depth__vcpol-defense-in-depth.yaml mode DefenseInDepth cannot be imported: its profile is the behaviour
6-behavior-modeling-and-defense-in-depth__vcpol-modeling.yaml mode BehaviorModeling cannot be imported: it enforces nothing
6-behavior-modeling-and-defense-in-depth__vpol-defense-in-depth.yaml mode DefenseInDepth cannot be imported: its profile is the behaviour
6-behavior-modeling-and-defense-in-depth__vpol-modeling.yaml mode BehaviorModeling cannot be imported: it enforces nothing
6-behavior-modeling-and-defense-in-depth__vpol-seccomp-modeling.yaml mode BehaviorModeling cannot be imported: it enforces nothing
7-networkproxy__mitm-audit-all.yaml enforcer NetworkProxy cannot be imported
7-networkproxy__mitm-audit.yaml enforcer NetworkProxy cannot be imported
7-networkproxy__mitm-cidr.yaml enforcer NetworkProxy cannot be imported
7-networkproxy__mitm-deny-http.yaml enforcer NetworkProxy cannot be imported
7-networkproxy__mitm-dns-literal.yaml enforcer NetworkProxy cannot be imported
7-networkproxy__mitm-dns-secret.yaml enforcer NetworkProxy cannot be imported
7-networkproxy__mitm-ip-literal.yaml enforcer NetworkProxy cannot be imported
7-networkproxy__mitm-mixed-ip-dns.yaml enforcer NetworkProxy cannot be imported
7-networkproxy__mitm-multi-domain.yaml enforcer NetworkProxy cannot be imported
7-networkproxy__mitm-wildcard.yaml enforcer NetworkProxy cannot be imported
7-networkproxy__mitm-with-l4.yaml enforcer NetworkProxy cannot be imported
EOT
	n=$(ls "$P"/*.yaml | wc -l)
	[ $((ok_n + ref_n)) = "$n" ] || bad "$n peer files, $((ok_n + ref_n)) in the table"
	echo "vArmor peers: $ok_n imported, $ref_n refused with a reason"
	# the hex value of 5-mutiple-enforcers and its port-only egress rule
	"$POLC" import --from varmor "$P/5-mutiple-enforcers__vpol-enhance.yaml" -o "$T/p5.pol" 2>/dev/null
	has 'deny errno EPERM syscall fchmodat if arg2 & 64 == 64;' "$T/p5.pol"
	has 'deny network connect to 0.0.0.0/0 port 443;' "$T/p5.pol"
	has 'deny network connect to ::/0 port 443;' "$T/p5.pol"
	# audit-only qualifiers are audit, never a deny (2-bpf's rules)
	grep -v 'block-access-to-kube-apiserver\|ingress-nightmare-mitigation' \
		"$P/2-bpf__vpol-bpf-enhance.yaml" >"$T/p2.yaml"
	"$POLC" import --from varmor --allow-partial "$T/p2.yaml" -o "$T/p2.pol" 2>"$T/err" ||
		bad "2-bpf without its two cluster rules, --allow-partial: $(head -3 "$T/err")"
	has 'deny exec "/**ping";' "$T/p2.pol"           # qualifiers [audit, deny]
	has 'audit network udp;' "$T/p2.pol"             # qualifiers [audit]
	has 'audit network connect to 10.12.34.56 port 9980;' "$T/p2.pol"
	grep -q '^	deny network udp\|^	deny network connect to 10.12.34.56' "$T/p2.pol" &&
		bad "an audit-only rule became a deny"
fi

# Multi-document files: every VarmorPolicy/VarmorClusterPolicy, other kinds
# skipped with a note
cat >"$T/multi.yaml" <<'Y'
apiVersion: v1
kind: Namespace
metadata: {name: demo}
---
apiVersion: crd.varmor.org/v1beta1
kind: VarmorPolicy
metadata: {name: one, namespace: demo}
spec:
  policy: {enforcer: BPF, mode: EnhanceProtect, enhanceProtect: {hardeningRules: [disallow-umount]}}
---
apiVersion: crd.varmor.org/v1beta1
kind: VarmorClusterPolicy
metadata: {name: two}
spec:
  policy: {enforcer: BPF, mode: AlwaysAllow}
Y
"$POLC" import --from varmor "$T/multi.yaml" -o "$T/multi.pol" 2>"$T/err" || bad "multi-document: $(cat "$T/err")"
grep -q 'multi.yaml:1:1: note: skipped: a Namespace' "$T/err" || bad "no note for the skipped Namespace: $(cat "$T/err")"
has 'policy one {' "$T/multi.pol"
has 'policy two {' "$T/multi.pol"
"$POLC" check "$T/multi.pol" 2>"$T/err" || bad "multi-document import does not check: $(cat "$T/err")"
"$POLC" import --from varmor --name x "$T/multi.yaml" -o "$T/x.pol" 2>"$T/err"; rc=$?
[ $rc = 1 ] && grep -q "each named after its metadata.name" "$T/err" || bad "--name with two policies: exit $rc"

# vArmor's current built-in catalogue (docs/guides/policies_and_rules/
# built_in_rules.md): each maps to a library rule or is refused by name
for r in disallow-write-core-pattern disallow-mount-securityfs disallow-mount-procfs \
	disallow-write-release-agent disallow-mount-cgroupfs disallow-debug-disk-device \
	disallow-mount-disk-device disallow-mount disallow-umount disallow-insmod \
	disallow-load-bpf-prog disallow-access-procfs-root disallow-access-kallsyms disable-cap-all \
	disable-cap-all-except-net-bind-service disable-cap-privileged disable-cap-net-raw \
	disable-cap-sys-admin disallow-abuse-user-ns disallow-create-user-ns \
	disallow-load-all-bpf-prog disallow-load-bpf-via-setsockopt disallow-userfaultfd-creation \
	mitigate-sa-leak mitigate-disk-device-number-leak mitigate-overlayfs-leak \
	mitigate-host-ip-leak block-access-to-metadata-service disable-write-etc disable-busybox \
	disable-shell disable-wget disable-curl disable-chmod disable-chmod-x-bit \
	disable-chmod-s-bit disable-su-sudo disable-network disable-inet disable-ipv4 \
	disable-inet6 disable-ipv6 disable-unix-domain-socket disable-icmp disable-tcp disable-udp \
	block-access-to-kube-apiserver block-access-to-container-runtime \
	cgroups-lxcfs-escape-mitigation runc-override-mitigation dirty-pipe-mitigation \
	ingress-nightmare-mitigation; do
	printf 'apiVersion: crd.varmor.org/v1beta1\nkind: VarmorPolicy\nmetadata: {name: t}\nspec:\n  policy:\n    enforcer: BPF\n    mode: EnhanceProtect\n    enhanceProtect:\n      hardeningRules: [%s]\n' "$r" >"$T/cat.yaml"
	if "$POLC" import --from varmor "$T/cat.yaml" -o "$T/cat.pol" 2>"$T/err"; then
		"$POLC" check "$T/cat.pol" 2>/dev/null || bad "built-in $r: the import does not check"
	else
		grep -q "built-in rule '$r' has no polc equivalent: ." "$T/err" ||
			bad "vArmor's built-in $r is neither mapped nor refused by name: $(head -1 "$T/err")"
	fi
done
# usage and I/O
"$POLC" import --from bogus $F/web-enhance.yaml 2>/dev/null; [ $? = 2 ] || bad "--from bogus is not exit 2"
"$POLC" import --from varmor "$T/nope.yaml" 2>/dev/null; [ $? = 3 ] || bad "a missing file is not exit 3"
[ $fail = 0 ] && echo ok
exit $fail
