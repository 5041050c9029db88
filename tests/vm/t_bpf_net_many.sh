#!/bin/sh
# A policy of 3,000 network statements is enforced whole by the BPF LSM in
# the kernel lab: the 3,000th statement (a deny of one port) decides a
# connect (EPERM), a port no statement names is refused by the peer only
# (ECONNREFUSED). The enforcer once stopped after 1,024 rules: that connect
# was let through. Runs in a network namespace of its own (about 30 s).
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
$POLC run --target bpf $T/p.pol -- /usr/bin/python3 $T/probe.py >$T/out 2>$T/err
rc=$?
cat $T/out $T/err
bad=0
[ $rc = 0 ] || { echo "FAIL polc run exit $rc"; bad=1; }
grep -qx 'port 30000 EPERM' $T/out || { echo "FAIL the 3,000th statement did not deny"; bad=1; }
grep -qx 'port 30001 ECONNREFUSED' $T/out || { echo "FAIL an unnamed port was not left to the peer"; bad=1; }
[ $bad = 0 ] && echo ALL-OK
