#!/bin/sh
# BPF LSM enforcement in the kernel lab: `polc run --target bpf` confines a
# probe (file read denied / sibling allowed, exec denied, capability
# denied, connect to an address denied inside `unshare -n` / sibling
# address allowed), a process outside the cgroup is unaffected while the
# policy is loaded, `mode audit` denies nothing but counts, status names
# the statements, `polc run` cleans up its cgroup and unloads, and the
# enforcer's programs are attached only when a loaded policy needs them,
# and installing it says nothing but the load (the verifier tripwire read
# every program's image and found every callback reference).
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
POLC=${POLC:-$SRC/${BUILD:-build}/polc}
if [ "${1:-}" != --inside ]; then
	. "$SRC/tests/vm/lab.sh"
	in_lab --timeout 900 --env POLC="$POLC" --env SRC="$SRC" \
		-- unshare -n sh "$SRC/tests/vm/t_bpf_enforce.sh" --inside
fi

# ---- inside the VM, in a fresh network namespace ----
set -u
PY=/usr/bin/python3
T=/tmp/bpflab; mkdir -p $T/lab
echo secret >$T/lab/secret; echo sibling >$T/lab/sibling; echo x >$T/lab/owned
ip link set lo up
ip addr add 10.9.9.9/32 dev lo; ip addr add 10.9.9.8/32 dev lo
bad=0
. "$SRC/tests/vm/lab.sh"   # check

cat >$T/probe.py <<'EOF'
import errno, os, socket, subprocess, sys
def res(f):
    try:
        f(); return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
def conn(a):
    s = socket.socket(); s.settimeout(2)
    try: s.connect((a, 80))
    finally: s.close()
def run(p):
    r = subprocess.run([p], stdout=subprocess.DEVNULL)
d = sys.argv[1]
print("read-secret", res(lambda: open(d + "/secret").read()))
print("read-sibling", res(lambda: open(d + "/sibling").read()))
print("exec-id", res(lambda: run("/usr/bin/id")))
print("exec-true", res(lambda: run("/usr/bin/true")))
print("chown", res(lambda: os.chown(d + "/owned", 65534, 65534)))
print("connect-denied", res(lambda: conn("10.9.9.9")))
print("connect-sibling", res(lambda: conn("10.9.9.8")))
EOF

cat >$T/p.pol <<EOF
policy lab {
  deny file "$T/lab/secret" read;
  deny exec "/usr/bin/id";
  deny capability chown;
  deny network connect to 10.9.9.9/32;
  deny capability net_raw;   # else the connect deny is partial (raw packets)
}
EOF
sed -e 's/policy lab {/policy watch {\n  mode audit;/' $T/p.pol >$T/a.pol
got() { sed -n "s/^$1 //p" "$2"; }

# 1. confined by polc run
$POLC run --target bpf $T/p.pol -- $PY $T/probe.py $T/lab >$T/run.out 2>$T/run.err
echo "polc run exit $?"; cat $T/run.err
check read-secret EPERM "$(got read-secret $T/run.out)"
check read-sibling ok "$(got read-sibling $T/run.out)"
check exec-id EPERM "$(got exec-id $T/run.out)"
check exec-true ok "$(got exec-true $T/run.out)"
check chown EPERM "$(got chown $T/run.out)"
check connect-denied EPERM "$(got connect-denied $T/run.out)"
check connect-sibling ECONNREFUSED "$(got connect-sibling $T/run.out)"

# 2. loaded for another cgroup: this process is outside it, unaffected
$POLC build --target bpf -o $T/p.bpfpol $T/p.pol 2>/dev/null
mkdir -p /sys/fs/cgroup/polc-other
$POLC load $T/p.bpfpol --cgroup /sys/fs/cgroup/polc-other
$PY $T/probe.py $T/lab >$T/out.out 2>&1
for k in read-secret exec-id chown; do check "outside $k" ok "$(got $k $T/out.out)"; done
check "outside connect-denied" ECONNREFUSED "$(got connect-denied $T/out.out)"
# a process inside that cgroup is confined
sh -c "echo \$\$ > /sys/fs/cgroup/polc-other/cgroup.procs; exec $PY $T/probe.py $T/lab" >$T/in.out 2>&1
check "load+cgroup read-secret" EPERM "$(got read-secret $T/in.out)"
$POLC status >$T/status.out; cat $T/status.out
grep -q "policy lab (id [0-9]*) on /sys/fs/cgroup/polc-other" $T/status.out && echo "ok   status names the policy" || { echo "FAIL status"; bad=1; }
grep -q "p.pol:2:3" $T/status.out && echo "ok   status counts the read denial" || { echo "FAIL status counter"; bad=1; }

$POLC status --follow=1 >$T/follow.out; cat $T/follow.out
grep -q "deny file by stmt 0: $T/lab/secret" $T/follow.out && echo "ok   ring buffer logs the denial" || { echo "FAIL ring buffer"; bad=1; }
# the exec open refuses /usr/bin/id by the exec statement: its record is the
# exec domain's, not the file domain's the open's hook is
grep -q "deny exec by stmt [0-9]*: /usr/bin/id" $T/follow.out && ! grep -q "deny file.*/usr/bin/id" $T/follow.out &&
	echo "ok   ring buffer logs the exec denial as an exec" || { echo "FAIL exec denial's record"; bad=1; }

# 3. mode audit: nothing denied, still counted
$POLC build --target bpf -o $T/a.bpfpol $T/a.pol 2>/dev/null
mkdir -p /sys/fs/cgroup/polc-audit
$POLC load $T/a.bpfpol --cgroup /sys/fs/cgroup/polc-audit
sh -c "echo \$\$ > /sys/fs/cgroup/polc-audit/cgroup.procs; exec $PY $T/probe.py $T/lab" >$T/aud.out 2>&1
check "audit read-secret" ok "$(got read-secret $T/aud.out)"
check "audit exec-id" ok "$(got exec-id $T/aud.out)"
$POLC status | grep -A3 'policy watch' | grep -q 'p.pol\|a.pol' && echo "ok   audit counted" || { echo "FAIL audit counter"; bad=1; }

# 4. unload one, then all; polc run cleaned up after itself
$POLC unload --cgroup /sys/fs/cgroup/polc-audit; check "unload one" 0 $?
$POLC status | grep -c '^policy ' >$T/n; check "left loaded" 1 "$(cat $T/n)"
$POLC unload; check "unload all" 0 $?
[ -e /sys/fs/bpf/polc ] && { echo "FAIL pins left after unload"; bad=1; } || echo "ok   nothing pinned"
ls -d /sys/fs/cgroup/polc-run-* 2>/dev/null && { echo "FAIL polc run left its cgroup"; bad=1; } || echo "ok   polc run cgroup removed"

# 5. an enforcer pinned by a polc of another bundle layout is never fed this
# polc's bundles (it would misread them and allow): with a policy in force
# in its pinned map, load refuses; with none, the enforcer is replaced and
# the deny holds
$POLC load $T/p.bpfpol --cgroup /sys/fs/cgroup/polc-other
v=$(sed -n 's/^#define POLC_BLOB_VERSION \([0-9]*\)u.*/\1/p' $SRC/backends/bpf/bpf_layout.h)
abi=$(sed -n 's/^#define BPFL_ENFORCER_ABI (POLC_BLOB_VERSION \* 16u + \([0-9]*\)u).*/\1/p' \
	$SRC/backends/bpf/loader.h)
check "layout recorded" $((v * 16 + abi)) "$(cat /run/polc/enforcer.layout)"
# a polc of this bundle layout that attached every program at install
# (it recorded the bare layout) would load policies under programs never
# attached: another layout too
echo $v >/run/polc/enforcer.layout
mkdir -p /sys/fs/cgroup/polc-audit
$POLC load $T/a.bpfpol --cgroup /sys/fs/cgroup/polc-audit 2>$T/layout.err
check "other layout with a policy: refused" 3 $?
grep -q "another bundle layout" $T/layout.err && echo "ok   says why" || { echo "FAIL: $(cat $T/layout.err)"; bad=1; }
# the other polc keeps its state elsewhere: the pinned map still says a
# policy is in force, and that alone refuses
rm -f /run/polc/*.bpfpol
$POLC load $T/a.bpfpol --cgroup /sys/fs/cgroup/polc-audit 2>$T/layout.err
check "other layout, policy in force, no state files: refused" 3 $?
# the other polc unloads its policy and leaves its enforcer pinned
CG_MAP=/sys/fs/bpf/polc/polc_cgroups
bpftool -j map dump pinned $CG_MAP | $PY -c 'import json,sys
for e in json.load(sys.stdin): print(" ".join(b[2:] for b in e["key"]))' | while read -r k; do
	bpftool map delete pinned $CG_MAP key hex $k
done
check "other layout's policies unloaded" 0 "$(bpftool -j map dump pinned $CG_MAP | $PY -c 'import json,sys; print(len(json.load(sys.stdin)))')"
$POLC run --target bpf $T/p.pol -- $PY $T/probe.py $T/lab >$T/re.out 2>$T/re.err
check "replaced enforcer read-secret" EPERM "$(got read-secret $T/re.out)"
$POLC unload 2>/dev/null

# 6. programs are attached on demand: a policy denying one file read has
# the enforcer's own protection and the file-read programs attached, no
# exec, mmap, capability or network program; loading a policy that decides
# those attaches them before it is in force
linked() { [ -e /sys/fs/bpf/polc/link_$1 ] && echo attached || echo absent; }
printf 'policy fo {\n  deny file "%s/lab/secret" read;\n}\n' $T >$T/fo.pol
$POLC build --target bpf -o $T/fo.bpfpol $T/fo.pol 2>/dev/null
mkdir -p /sys/fs/cgroup/polc-fo
# everything unloaded: this load installs the enforcer, and the install
# checks every program's image against what was loaded (tripwire.c):
# nothing removed, every image read, nothing said but the load
[ -e /sys/fs/bpf/polc ] && { echo "FAIL enforcer still pinned after unload"; bad=1; }
$POLC load $T/fo.bpfpol --cgroup /sys/fs/cgroup/polc-fo 2>$T/install.err
check "install: the verifier tripwire passes, silently" \
	"polc: loaded $T/fo.bpfpol on /sys/fs/cgroup/polc-fo" "$(cat $T/install.err)"
for p in polc_bpf polc_bpf_map polc_task_alloc polc_file_open polc_sb_umount polc_path_rename; do
	check "file-read policy: $p" attached "$(linked $p)"
done
for p in polc_bprm_check polc_mmap_file polc_capable polc_socket_connect polc_socket_sendmsg \
	 polc_sb_mount polc_path_unlink; do
	check "file-read policy: $p" absent "$(linked $p)"
done
sh -c "echo \$\$ > /sys/fs/cgroup/polc-fo/cgroup.procs; exec $PY $T/probe.py $T/lab" >$T/fo.out 2>&1
check "file-read policy read-secret" EPERM "$(got read-secret $T/fo.out)"
check "file-read policy exec-id" ok "$(got exec-id $T/fo.out)"
$POLC run --target bpf $T/p.pol -- $PY $T/probe.py $T/lab >$T/od.out 2>$T/od.err
for k in read-secret exec-id chown connect-denied; do
	check "then the full policy: $k" EPERM "$(got $k $T/od.out)"
done
for p in polc_capable polc_socket_connect polc_socket_sendmsg; do
	check "after the full policy: $p" attached "$(linked $p)"
done
# its one exec statement is a deny, which the exec open decides (exec-id
# refused above): bprm_check stays detached until a policy decides an exec
# the open does not (an audit: mode audit's a.pol)
check "after the full policy: polc_bprm_check" absent "$(linked polc_bprm_check)"
mkdir -p /sys/fs/cgroup/polc-audit
$POLC load $T/a.bpfpol --cgroup /sys/fs/cgroup/polc-audit || { echo "FAIL load a.pol"; bad=1; }
check "after an audit policy: polc_bprm_check" attached "$(linked polc_bprm_check)"
sh -c "echo \$\$ > /sys/fs/cgroup/polc-audit/cgroup.procs; exec $PY $T/probe.py $T/lab" >$T/aud2.out 2>&1
check "audit policy exec-id" ok "$(got exec-id $T/aud2.out)"
$POLC status --follow=1 >$T/follow2.out
grep -q "audit exec by stmt [0-9]*: /usr/bin/id" $T/follow2.out && echo "ok   bprm_check logs the exec's audit" ||
	{ echo "FAIL no audit record of the exec: $(cat $T/follow2.out)"; bad=1; }
$POLC unload 2>/dev/null
# a policy that decides nothing (always-allow) installs the enforcer with
# no program attached, its own protection included: its tasks pay no
# trampoline (enforcer.bpf.c, restricted_current); the next policy that
# decides something attaches that protection before it is in force
printf 'policy aa {\n  use always-allow;\n}\n' >$T/aa.pol
$POLC build --target bpf -o $T/aa.bpfpol $T/aa.pol 2>/dev/null
mkdir -p /sys/fs/cgroup/polc-aa
$POLC load $T/aa.bpfpol --cgroup /sys/fs/cgroup/polc-aa || { echo "FAIL load always-allow"; bad=1; }
check "always-allow alone: programs attached" 0 "$(ls /sys/fs/bpf/polc | grep -c '^link_')"
check "always-allow alone: programs pinned" yes \
	"$([ -e /sys/fs/bpf/polc/prog_polc_file_open ] && echo yes || echo no)"
# ... and one whose mmap deny is of files whose read and exec it denies
# too (RuntimeDefault's /sys/firmware/**): no descriptor to map can be had
# by opening them, so mmap_file and file_mprotect stay detached
printf 'policy rm {\n  deny file "%s/lab/**" read, exec, mmap;\n}\n' $T >$T/rm.pol
$POLC build --target bpf -o $T/rm.bpfpol $T/rm.pol 2>/dev/null
$POLC load $T/rm.bpfpol --cgroup /sys/fs/cgroup/polc-fo || { echo "FAIL load rm"; bad=1; }
for p in polc_bpf polc_bpf_map polc_task_alloc polc_file_open polc_sb_umount; do
	check "then a read-exec-mmap policy: $p" attached "$(linked $p)"
done
for p in polc_mmap_file polc_file_mprotect; do
	check "then a read-exec-mmap policy: $p" absent "$(linked $p)"
done
sh -c "echo \$\$ > /sys/fs/cgroup/polc-fo/cgroup.procs; exec $PY $T/probe.py $T/lab" >$T/rm.out 2>&1
check "read-exec-mmap policy read-secret" EPERM "$(got read-secret $T/rm.out)"
$POLC unload 2>/dev/null

# 7. tools/lsm-floor's runner: an allow-at-once program on the hook of
# every program of the enforcer's object (the kernel refuses one marked
# sleepable on a hook that is not) is loaded and attached while the
# command runs, and none is left after; the command's status is floor-run's
F=$(dirname "$POLC")/tools/lsm-floor/floor-run
O=$(dirname "$POLC")/backends/bpf/enforcer.bpf.o
cat >$T/floor_links.py <<'PY'
import json, subprocess
def show(what):
    return json.loads(subprocess.check_output(["bpftool", "-j", what, "show"]))
ids = {p["id"] for p in show("prog") if p.get("name") == "polc_floor"}
print(sum(1 for l in show("link") if l.get("prog_id") in ids))
PY
$F $O --list >$T/floor.list
all=$(paste -sd, $T/floor.list)
nall=$(wc -l <$T/floor.list)
$F $O "$all" -- sh -c "cat /etc/hostname >/dev/null && $PY $T/floor_links.py >$T/floor.n" \
	>$T/floor.err 2>&1
check "floor: every hook, exit" 0 "$?"
cat $T/floor.err
check "floor: every hook attached while the command ran" "$nall" "$(cat $T/floor.n)"
check "floor: two named, two attached" 2 "$($F $O file_open,socket_sendmsg -- $PY $T/floor_links.py)"
check "floor: none left" 0 "$($PY $T/floor_links.py)"
$F $O file_open -- sh -c 'exit 3'
check "floor: the command's status" 3 "$?"
$F $O file_open,nosuch -- touch $T/floor.ran 2>/dev/null
check "floor: a name the enforcer lacks" "125 no" "$? $([ -e $T/floor.ran ] && echo ran || echo no)"

[ $bad = 0 ] && echo ALL-OK
exit $bad
