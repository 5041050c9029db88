#!/bin/sh
# A policy beyond the BPF enforcer's old fixed limits is enforced whole by
# the BPF LSM in the kernel lab (Debian 6.1): 70,003 statements (decision
# words once named 65,535 at most) and a file DFA of more than 32,767
# distinct decisions (the old accept-entry limit). The statements with ids
# 69,999 (a file write denied with errno 4095, the widest errno), 70,000 (an
# exec) and 70,001 (a connect to one port) decide their events in the
# kernel, and its per-statement counters, read back by `polc status`, name
# those statements by file:line:col (a 16-bit field would name statement
# 4,465 for 70,001). A file of a low-numbered statement is still denied, a
# file no statement names is written, and a path longer than POLC_PATH_MAX
# is decided fail closed by the DFA's worst entry (statement 0: EPERM).
# The bundle is built on the host and loaded in one boot, in a network
# namespace of its own (115 s at host load 15, most of it the boot and the
# enforcer's verification under TCG).
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
POLC=${POLC:-$SRC/${BUILD:-build}/polc}
T=/tmp/bpfscale                     # the lab's files, in the guest
if [ "${1:-}" != --inside ]; then
	# built here: the guest (TCG) would take 20 s more for the same bytes
	H=$SRC/${BUILD:-build}/bpf-scale-lab; rm -rf "$H"; mkdir -p "$H"
	# statement i (0..69,998) on line i + 2
	awk -v T=$T 'BEGIN { print "policy scale {"
		for (i = 0; i < 69999; i++) printf "  deny file \"%s/s/%d\" write;\n", T, i
		printf "  deny errno 4095 file \"%s/lab/last\" write;\n", T
		printf "  deny exec \"%s/lab/bin\";\n", T
		print "  deny network tcp connect port 30000;"
		print "  deny capability net_raw;"; print "}" }' >"$H/p.pol"
	"$POLC" build --target bpf "$H/p.pol" -o "$H/p.bpfpol" || { echo "FAIL build"; exit 1; }
	. "$SRC/tests/vm/lab.sh"
	in_lab --timeout 240 --env POLC="$POLC" --env SRC="$SRC" --env H="$H" \
		-- unshare -n sh "$SRC/tests/vm/t_bpf_scale.sh" --inside
fi

# ---- inside the VM, in a fresh network namespace ----
set -u
PY=/usr/bin/python3
rm -rf $T; mkdir -p $T/lab $T/s
ip link set lo up
bad=0
. "$SRC/tests/vm/lab.sh"   # check
got() { sed -n "s/^$1 //p" "$2"; }

cp /usr/bin/true $T/lab/bin; cp /usr/bin/true $T/lab/true
$PY -c 'import os, sys
os.makedirs(sys.argv[1]); os.chdir(sys.argv[1])
for i in range(22): os.mkdir("d" * 200); os.chdir("d" * 200)' $T/lab/deep

# The premise, from the bundle's header (bpf_layout.h: struct polc_hdr after
# the 88-byte file header): more statements than 16 bits name, more file DFA
# entries than 32,767.
$PY - $H/p.bpfpol <<'EOF' >$T/hdr
import struct, sys
d = open(sys.argv[1], "rb").read()
w = lambda i: struct.unpack_from("<I", d, 88 + 4 * i)[0]
print("nstmts", w(4)); print("file-entries", w(5 + 8 + 64 + 2 + 1 + 2 + 3))
EOF
cat $T/hdr
check "statements" 70003 "$(got nstmts $T/hdr)"
[ "$(got file-entries $T/hdr)" -gt 32767 ] && echo "ok   more than 32,767 file DFA entries" ||
	{ echo "FAIL file DFA entries: $(got file-entries $T/hdr)"; bad=1; }

cat >$T/probe.py <<'EOF'
import errno, os, socket, subprocess, sys
L = sys.argv[1]
def res(f):
    try:
        f(); return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
def write(p):
    os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o644))
def connect(port):
    s = socket.socket(); s.settimeout(2)
    try:
        s.connect(("127.0.0.1", port))
    finally:
        s.close()
print("last", res(lambda: write(L + "/last")))
print("s68000", res(lambda: write(L + "/../s/68000")))
print("s5", res(lambda: write(L + "/../s/5")))
print("other", res(lambda: write(L + "/other")))
print("exec", res(lambda: subprocess.run([L + "/bin"], check=True)))
print("exec-other", res(lambda: subprocess.run([L + "/true"], check=True)))
print("port30000", res(lambda: connect(30000)))
print("port30001", res(lambda: connect(30001)))
os.chdir(L + "/deep")
for i in range(22):
    os.chdir("d" * 200)
print("deep", res(lambda: write("x")))
EOF

expect_probe() { # output
	check "stmt 69,999, errno 4095" 4095 "$(got last "$1")"
	check "stmt 68,000" EPERM "$(got s68000 "$1")"
	check "stmt 5" EPERM "$(got s5 "$1")"
	check "no statement" ok "$(got other "$1")"
	check "stmt 70,000 exec" EPERM "$(got exec "$1")"
	check "another exec" ok "$(got exec-other "$1")"
	check "stmt 70,001 connect" EPERM "$(got port30000 "$1")"
	check "unnamed port: the peer refuses" ECONNREFUSED "$(got port30001 "$1")"
	check "deeper than POLC_PATH_MAX: fail closed" EPERM "$(got deep "$1")"
}

# 1. loaded for a cgroup; the kernel's counters name the statements
mkdir -p /sys/fs/cgroup/polc-scale
start=$(date +%s)
$POLC load $H/p.bpfpol --cgroup /sys/fs/cgroup/polc-scale || { echo "FAIL load"; exit 1; }
echo "loaded in $(( $(date +%s) - start ))s"
sh -c "echo \$\$ > /sys/fs/cgroup/polc-scale/cgroup.procs; exec $PY $T/probe.py $T/lab" >$T/in.out 2>&1
cat $T/in.out
expect_probe $T/in.out
$POLC status >$T/status.out; cat $T/status.out
for at in p.pol:70001:3 p.pol:70002:3 p.pol:70003:3 p.pol:68002:3 p.pol:7:3 p.pol:2:3; do
	grep -q "^  1  stmt .*$at " $T/status.out && echo "ok   the kernel counted $at once" ||
		{ echo "FAIL no count for $at"; bad=1; }
done
$POLC unload

[ $bad = 0 ] && echo ALL-OK
