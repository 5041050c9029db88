#!/bin/sh
# smoke-guest.sh LSM_PROBE - runs inside the kernel lab (tests/t_vm_smoke.sh).
# Prints "ok NAME" or "not ok NAME (detail)" per check; exits 1 if any failed.
# Checks: the LSM list; an AppArmor profile denies one file and allows its
# sibling; the BPF LSM probe denies one file only inside one cgroup.
PROBE=$1
bad=0
ok() { echo "ok $1"; }
no() { echo "not ok $1 ($2)"; bad=1; }
check() { # name expected-rc command...
	n=$1 want=$2; shift 2
	"$@" >/tmp/smoke.out 2>&1; got=$?
	if [ "$got" = "$want" ]; then ok "$n"; else no "$n" "exit $got, want $want: $(tr '\n' ' ' </tmp/smoke.out)"; fi
}
# A denial must be the kernel's: the command fails with this error text.
denied() { # name message command...
	n=$1 msg=$2; shift 2
	"$@" >/tmp/smoke.out 2>&1; got=$?
	if [ "$got" != 0 ] && grep -q "$msg" /tmp/smoke.out; then ok "$n"
	else no "$n" "exit $got, want '$msg': $(tr '\n' ' ' </tmp/smoke.out)"; fi
}

lsms=$(cat /sys/kernel/security/lsm)
for l in apparmor bpf; do
	case ",$lsms," in *",$l,"*) ok "lsm-$l" ;; *) no "lsm-$l" "lsm list: $lsms" ;; esac
done

# AppArmor: everything allowed but one file.
d=/tmp/smoke-aa; mkdir -p $d
echo secret >$d/secret; echo open >$d/open
cat >$d/profile <<'P'
abi <abi/3.0>,
profile polc_vm_smoke {
  file,
  capability,
  deny /tmp/smoke-aa/secret r,
}
P
check aa-load 0 apparmor_parser -r $d/profile
denied aa-deny 'Permission denied' aa-exec -p polc_vm_smoke -- cat $d/secret
check aa-allow-sibling 0 aa-exec -p polc_vm_smoke -- cat $d/open
check aa-unconfined-reads 0 cat $d/secret
# The raw interface the backends may use instead of aa-exec.
denied aa-attr-exec 'Permission denied' sh -c "echo 'exec polc_vm_smoke' >/proc/self/attr/apparmor/exec && exec cat $d/secret"

# BPF LSM: file_open of $b/target denied only in the cgroup polc_smoke.
b=/tmp/smoke-bpf; mkdir -p $b
echo target >$b/target; echo other >$b/other
cg=/sys/fs/cgroup/unified/polc_smoke
mkdir -p $cg
# Run CMD... in the cgroup: a child moves itself, then execs.
incg() { sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" "$@"; }
export cg b
# The probe runs this script; its children pick their cgroup themselves.
"$PROBE" "$cg" $b/target sh -c '
	# exit status, and "EPERM" when the error was "Operation not permitted"
	r() { e=$("$@" 2>&1 >/dev/null); rc=$?; case "$e" in *"not permitted"*) rc=$rc-EPERM ;; esac; echo $rc; }
	incg() { sh -c "echo \$\$ >$cg/cgroup.procs && exec \"\$@\"" sh "$@"; }
	echo "outside=$(r cat $b/target) inside=$(r incg cat $b/target) sibling=$(r incg cat $b/other)"
' >/tmp/smoke.bpf 2>/tmp/smoke.bpf.err
prc=$?
res=$(cat /tmp/smoke.bpf)
[ $prc = 0 ] && ok bpf-load || no bpf-load "exit $prc: $(tr '\n' ' ' </tmp/smoke.bpf.err)"
case "$res" in *outside=0*) ok bpf-allow-outside-cgroup ;; *) no bpf-allow-outside-cgroup "$res" ;; esac
case "$res" in *inside=1-EPERM*) ok bpf-deny-in-cgroup ;; *) no bpf-deny-in-cgroup "$res" ;; esac
case "$res" in *sibling=0*) ok bpf-allow-sibling ;; *) no bpf-allow-sibling "$res" ;; esac
grep -q 'denials=1$' /tmp/smoke.bpf.err && ok bpf-count || no bpf-count "$(tr '\n' ' ' </tmp/smoke.bpf.err)"
check bpf-detached 0 incg cat $b/target
exit $bad
