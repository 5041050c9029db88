#!/bin/sh
# Host, from the repository's root (after make):
#   R=tests/repro/exec-memo-cpu
#   cc -O2 -o $R/atk $R/atk.c; cc -O2 -o $R/watch $R/watch.c; mkdir -p $R/share
#   VM_SMP=3 sh tests/vm/run-in-vm.sh --timeout 900 \
#     --share $PWD/$R/share -- sh $PWD/$R/xmemo.sh 15 300000 5
# Result seen: control (no CPU moves) refused 15/15; with the watcher the
# refused program ran in 5 of 5 runs, after 2,1,1,1,5 tries.
# In the lab: sh xmemo.sh TRIES [RCU_US]. See atk.c.
set -u
D=$(cd "$(dirname "$0")" && pwd)
POLC=${POLC:-$D/../../../build/polc}
S=$D/share
N=${1:-20}
RCU=${2:-300000}
rm -rf "$S"/a "$S"/b "$S"/sub; mkdir -p "$S"/a "$S"/b "$S"/sub
cp /usr/bin/echo "$S"/a/F
L=/tmp/x; mkdir -p $L
cat >$L/p.pol <<POL
policy xmemo {
  default allow file;
  default deny exec;
  allow exec "/usr/**", "/bin/**", "$D/atk", "$S/a/F";
}
POL
echo "nproc $(nproc); kernel $(uname -r); $(cat /proc/cmdline)"
# controls: the policy allows a/F and refuses b/F
cat >$L/ctl.sh <<SH
"$S/a/F" control-a-ran || echo "control a/F refused"
mv "$S/a/F" "$S/b/F"
"$S/b/F" control-b-ran || echo "control b/F refused"
"$S/sub/../b/F" control-b-via-ran || echo "control sub/../b/F refused"
mv "$S/b/F" "$S/a/F"
SH
"$POLC" run --target bpf $L/p.pol -- /bin/sh $L/ctl.sh 2>&1
RUNS=${3:-5}
attack() { # $1: with the watcher (1) or without (0)
	rm -f /tmp/atk.pid
	[ "$1" = 1 ] && { "$D/watch" 2 2>$L/watch.err & wp=$!; }
	"$POLC" run --target bpf $L/p.pol -- "$D/atk" "$S" "$N" "$RCU" >$L/atk.out 2>$L/atk.err
	rc=$?
	[ "$1" = 1 ] && { kill $wp; wait $wp; }
	[ -e "$S/b/F" ] && mv "$S/b/F" "$S/a/F"
	tries=$(grep -c '^atk: try' $L/atk.err)
	if grep -q DENIED-EXEC-RAN $L/atk.out; then r="REFUSED PROGRAM RAN"; else r="refused every time"; fi
	echo "watcher=$1: $r after $tries step-3 execs (atk exit $rc; $(tail -1 $L/atk.err); $(cat $L/watch.err 2>/dev/null))"
	rm -f $L/watch.err
}
echo "control, no CPU moves:"; attack 0
k=0; while [ $k -lt $RUNS ]; do attack 1; k=$((k + 1)); done
