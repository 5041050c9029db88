#!/bin/sh
# A policy of 3,000 network statements is enforced whole by the BPF LSM in
# the kernel lab: the 3,000th statement (a deny of one port) decides a
# connect (EPERM), a port no statement names is refused by the peer only
# (ECONNREFUSED). The enforcer once stopped after 1,024 rules: that connect
# was let through. Then the ranking among matching rules, as ir_decide ranks
# them: a deny wins over a broader allow after it or before it, and a match
# wins over a more restrictive default. (Debian 6.1's verifier checks a
# bpf_loop callback once, with its first call's context: a "no match yet"
# flag known to be 0 there made it drop the ranking, so the last matching
# rule won.) Runs in a network namespace of its own (about 40 s).
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
POLC=${POLC:-$SRC/${BUILD:-build}/polc}
if [ "${1:-}" != --inside ]; then
	. "$SRC/tests/vm/lab.sh"
	in_lab --timeout 240 --env POLC="$POLC" --env SRC="$SRC" \
		-- unshare -n sh "$SRC/tests/vm/t_bpf_net_many.sh" --inside
fi

# ---- inside the VM, in a fresh network namespace ----
set -u
T=/tmp/netmany; mkdir -p $T
ip link set lo up
{
	echo "policy many {"
	i=0
	while [ $i -lt 2999 ]; do echo "  deny network tcp connect port $((20000 + i));"; i=$((i + 1)); done
	echo "  deny network tcp connect port 30000;"
	echo "  deny capability net_raw;"   # else the port denies are partial (raw packets)
	echo "}"
} >$T/p.pol
cat >$T/probe.py <<'EOF'
import errno, socket, sys
for port in (30000, 30001):
    s = socket.socket(); s.settimeout(2)
    try:
        s.connect(("127.0.0.1", port)); r = "ok"
    except OSError as e:
        r = errno.errorcode.get(e.errno, str(e.errno))
    s.close()
    print("port", port, r)
EOF
bad=0
# each probe's polc run loads and unloads its policy; the enforcer is
# installed once for the four (lab.sh)
. "$SRC/tests/vm/lab.sh"
. "$SRC/tests/vm/lab.sh"
lab_keep_enforcer >/dev/null 2>&1 || { echo "FAIL: cannot keep the enforcer installed"; bad=1; }
# probe POLICY: port 30000 must be EPERM, port 30001 ECONNREFUSED
probe() {
	$POLC run --target bpf "$T/$1.pol" -- /usr/bin/python3 $T/probe.py >$T/out 2>$T/err
	rc=$?
	sed "s/^/$1: /" $T/out $T/err
	[ $rc = 0 ] || { echo "FAIL $1: polc run exit $rc"; bad=1; }
	grep -qx 'port 30000 EPERM' $T/out || { echo "FAIL $1: port 30000 was not denied"; bad=1; }
	grep -qx 'port 30001 ECONNREFUSED' $T/out || { echo "FAIL $1: port 30001 was not left to the peer"; bad=1; }
}
mv $T/p.pol $T/many.pol
probe many
printf 'policy first {\n  deny network tcp connect port 30000;\n  allow network tcp connect;\n  deny capability net_raw;\n}\n' >$T/first.pol
printf 'policy last {\n  allow network tcp connect;\n  deny network tcp connect port 30000;\n  deny capability net_raw;\n}\n' >$T/last.pol
printf 'policy dflt {\n  default deny network;\n  allow network tcp;\n  deny network tcp connect port 30000;\n}\n' >$T/dflt.pol
for p in first last dflt; do probe $p; done
lab_release_enforcer >/dev/null 2>&1
[ $bad = 0 ] && echo ALL-OK
