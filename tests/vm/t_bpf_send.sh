#!/bin/sh
# A send without an address (send/write on a connected socket) is decided
# by the BPF LSM exactly when the policy can decide it: the bundle's
# send_open says which families' such sends every statement and the
# default allow, and socket_sendmsg returns at once for those. Each policy
# here decides some such sends (EPERM) and leaves others alone (ok): a udp
# send deny, a unix send deny, a closed network default (alone, and with
# unix allowed), `mode audit` (allowed, counted), and an address-only deny
# (its family's unaddressed sends pass at once; a send to the denied
# address is still refused); and two policies loaded at once, the second
# deciding no such send: polc_sends, the machine-wide families some loaded
# policy decides, keeps the first's. A send_open that said "allowed" for a
# family some statement or the default decides lets the denied sends through.
# Runs in a network namespace of its own.
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
POLC=${POLC:-$SRC/${BUILD:-build}/polc}
if [ "${1:-}" != --inside ]; then
	. "$SRC/tests/vm/lab.sh"
	in_lab --timeout 400 --env POLC="$POLC" --env SRC="$SRC" \
		-- unshare -n sh "$SRC/tests/vm/t_bpf_send.sh" --inside
fi

# ---- inside the VM, in a fresh network namespace ----
set -u
T=/tmp/bpfsend; mkdir -p $T
ip link set lo up
ip addr add 10.9.9.9/32 dev lo; ip addr add 10.9.9.8/32 dev lo
bad=0
. "$SRC/tests/vm/lab.sh"   # check
got() { sed -n "s/^$1 //p" "$2"; }

# The peers (a listening TCP socket, a bound UDP one), outside any policy.
cat >$T/peers.py <<'PY'
import socket, sys, time
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("0.0.0.0", 7000)); l.listen(64)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("0.0.0.0", 7001))
open(sys.argv[1], "w").close()
time.sleep(3600)
PY
# mk.py makes the sockets outside the policy's cgroup (a closed network
# default refuses creating them inside) and execs its arguments with them
# open, their numbers appended: a TCP and a UDP socket connected to
# 10.9.9.8, one end of a unix socketpair.
cat >$T/mk.py <<'PY'
import os, socket, sys
t = socket.create_connection(("10.9.9.8", 7000), timeout=2)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.connect(("10.9.9.8", 7001))
x, y = socket.socketpair()
fds = [t.detach(), u.detach(), x.detach()]
for fd in fds + [y.detach()]:   # y: the pair's other end stays open (no EPIPE)
    os.set_inheritable(fd, True)
os.execvp(sys.argv[1], sys.argv[1:] + [",".join(map(str, fds))])
PY
cat >$T/probe.py <<'PY'
import errno, socket, sys
def res(f):
    try:
        f(); return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
fds = [int(v) for v in sys.argv[1].split(",")]
for name, fd in zip(("tcp", "udp", "unix"), fds):
    s = socket.socket(fileno=fd)
    print("send-" + name, res(lambda: s.send(b"x")))
if len(sys.argv) > 2:   # "nosendto": the sends without an address only
    sys.exit(0)
# an address with the data: also a connect to it (decided, never skipped)
def udp_to(addr):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"x", (addr, 7001))
print("sendto-denied", res(lambda: udp_to("10.9.9.9")))
print("sendto-sibling", res(lambda: udp_to("10.9.9.8")))
PY

python3 $T/peers.py $T/ready & peers=$!
i=0; while [ ! -e $T/ready ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

pol() { # name body: net_raw denied, else the send and default denies are partial
	printf 'policy %s {\n%s\n  deny capability net_raw;\n}\n' "$1" "$2" >$T/$1.pol
}
pol udpsend '  deny network udp send;'
pol unixsend '  deny network unix send;'
pol closed '  default deny network;'
pol closedunix '  default deny network;
  allow network unix;'
pol aud '  mode audit;
  deny network udp send;'
pol addr '  deny network connect to 10.9.9.9/32;'

run() { # name
	python3 $T/mk.py $POLC run --target bpf $T/$1.pol -- python3 $T/probe.py >$T/$1.out 2>$T/$1.err
	echo "polc run $1: exit $?"; cat $T/$1.err
}
run udpsend
check "udpsend send-udp" EPERM "$(got send-udp $T/udpsend.out)"
check "udpsend send-tcp" ok "$(got send-tcp $T/udpsend.out)"
check "udpsend send-unix" ok "$(got send-unix $T/udpsend.out)"
check "udpsend sendto-sibling" EPERM "$(got sendto-sibling $T/udpsend.out)"
run unixsend
check "unixsend send-unix" EPERM "$(got send-unix $T/unixsend.out)"
check "unixsend send-udp" ok "$(got send-udp $T/unixsend.out)"
check "unixsend send-tcp" ok "$(got send-tcp $T/unixsend.out)"
run closed
check "closed send-tcp" EPERM "$(got send-tcp $T/closed.out)"
check "closed send-udp" EPERM "$(got send-udp $T/closed.out)"
check "closed send-unix" EPERM "$(got send-unix $T/closed.out)"
check "closed sendto-sibling" EPERM "$(got sendto-sibling $T/closed.out)"
run closedunix
check "closedunix send-unix" ok "$(got send-unix $T/closedunix.out)"
check "closedunix send-tcp" EPERM "$(got send-tcp $T/closedunix.out)"
check "closedunix send-udp" EPERM "$(got send-udp $T/closedunix.out)"
run aud
check "aud send-udp" ok "$(got send-udp $T/aud.out)"
run addr
check "addr send-tcp" ok "$(got send-tcp $T/addr.out)"
check "addr send-udp" ok "$(got send-udp $T/addr.out)"
check "addr send-unix" ok "$(got send-unix $T/addr.out)"
check "addr sendto-denied" EPERM "$(got sendto-denied $T/addr.out)"
check "addr sendto-sibling" ok "$(got sendto-sibling $T/addr.out)"

# mode audit: the udp send without an address is decided (an audit), not
# skipped: counted (the probe sends nothing with an address here)
CG=/sys/fs/cgroup/polc-send-audit
mkdir -p $CG
$POLC build --target bpf -o $T/aud.bpfpol $T/aud.pol 2>/dev/null
$POLC load $T/aud.bpfpol --cgroup $CG
python3 $T/mk.py sh -c 'echo $$ >"$1/cgroup.procs"; exec python3 "$2" "$3" nosendto' sh $CG \
	$T/probe.py >$T/aud2.out 2>&1
check "loaded aud send-udp" ok "$(got send-udp $T/aud2.out)"
$POLC status >$T/status.out
grep -q "aud.pol:3:3" $T/status.out && echo "ok   the audited send is counted" ||
	{ echo "FAIL the audited send is not counted:"; cat $T/status.out; bad=1; }
$POLC unload --cgroup $CG
rmdir $CG
# polc_sends (every loaded policy's decidable families) only widens: a
# policy that decides no such send, loaded after one that decides udp
# sends, leaves those decided; a task outside both is not confined
A=/sys/fs/cgroup/polc-send-a B=/sys/fs/cgroup/polc-send-b
mkdir -p $A $B
$POLC build --target bpf -o $T/udpsend.bpfpol $T/udpsend.pol 2>/dev/null
$POLC build --target bpf -o $T/addr.bpfpol $T/addr.pol 2>/dev/null
$POLC load $T/udpsend.bpfpol --cgroup $A
$POLC load $T/addr.bpfpol --cgroup $B
in_cg() { # cgroup out: the probe's sends without an address, in cgroup
	python3 $T/mk.py sh -c 'echo $$ >"$1/cgroup.procs"; exec python3 "$2" "$3" nosendto' sh \
		"$1" $T/probe.py >"$2" 2>&1
}
in_cg $A $T/a.out
check "two loaded, a: send-udp" EPERM "$(got send-udp $T/a.out)"
check "two loaded, a: send-tcp" ok "$(got send-tcp $T/a.out)"
in_cg $B $T/b.out
check "two loaded, b: send-udp" ok "$(got send-udp $T/b.out)"
in_cg /sys/fs/cgroup $T/root.out
check "two loaded, outside: send-udp" ok "$(got send-udp $T/root.out)"
$POLC unload --cgroup $A; $POLC unload --cgroup $B
rmdir $A $B
kill $peers
[ $bad = 0 ] && echo ALL-OK
