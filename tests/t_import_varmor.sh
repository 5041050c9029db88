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
# usage and I/O
"$POLC" import --from bogus $F/web-enhance.yaml 2>/dev/null; [ $? = 2 ] || bad "--from bogus is not exit 2"
"$POLC" import --from varmor "$T/nope.yaml" 2>/dev/null; [ $? = 3 ] || bad "a missing file is not exit 3"
[ $fail = 0 ] && echo ok
exit $fail
