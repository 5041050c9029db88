#!/bin/sh
# bprm_check takes an exec open's plain allow from the exec memo
# (file_open walked the same file's path for the exec channel in the same
# execve) and decides everything else itself: in a closed exec domain a
# program no statement allows is refused (the default: file_open's exec
# open counts only deny statements), an audited program is allowed and
# logged once, a #! script whose interpreter the domain refuses is refused
# at the interpreter, and a program renamed from an allowed path to a
# refused one after an allowed exec is refused on its next exec (no memo
# outlives its execve's open). And a failed execve's memo is not read by
# the next one: on another CPU (xmemo_atk, on three guest CPUs, with
# xmemo_watch moving it between the exec open and bprm_check: the switch
# rule) or on the same CPU without a context switch (xmemo_spin: the exec
# open's drop).
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
POLC=${POLC:-$SRC/${BUILD:-build}/polc}
if [ "${1:-}" != --inside ]; then
	. "$SRC/tests/vm/lab.sh"
	# the attack's files: on 9p, where a lookup and an open sleep (the
	# helper's moves need the attacker asleep at both points)
	S=$(mktemp -d "${TMPDIR:-/tmp}/xmemo.XXXXXX") || exit 1
	trap 'rm -rf "$S"' EXIT
	export VM_SMP=3
	in_lab --timeout 600 --share "$S" --env POLC="$POLC" --env SRC="$SRC" \
		--env XM_SHARE="$S" --env VMB="$SRC/${BUILD:-build}/tests/vm" \
		-- sh "$SRC/tests/vm/t_bpf_exec_memo.sh" --inside
fi

# ---- inside the VM ----
set -u
L=/tmp/xmemo; mkdir -p $L/bin
bad=0
. "$SRC/tests/vm/lab.sh"   # check
for b in ok other aud interp; do cp /usr/bin/true $L/bin/$b; done
printf '#!%s/bin/interp\n' $L >$L/bin/script; chmod +x $L/bin/script
printf '#!%s/bin/ok\n' $L >$L/bin/script-ok; chmod +x $L/bin/script-ok
cat >$L/p.pol <<POL
policy xmemo {
  default allow file;
  default deny exec;
  allow exec "/usr/**", "/bin/**", "$L/bin/ok", "$L/bin/script", "$L/bin/script-ok", "$L/bin/mv-me";
  audit exec "$L/bin/aud";
}
POL
cat >$L/probe.sh <<SH
cp /usr/bin/true $L/bin/mv-me; rm -f $L/bin/moved
try() { if "\$@" 2>/dev/null; then echo "\$1 ok"; else echo "\$1 refused"; fi; }
try $L/bin/ok
try $L/bin/other
try $L/bin/aud
try $L/bin/script
try $L/bin/script-ok
try $L/bin/mv-me
mv $L/bin/mv-me $L/bin/moved
try $L/bin/moved
SH
got() { sed -n "s|^$L/bin/$1 ||p" $L/out; }
"$POLC" run --target bpf $L/p.pol -- /usr/bin/sh $L/probe.sh >$L/out 2>$L/err
cat $L/out $L/err
check "allowed program" ok "$(got ok)"
check "closed domain's default" refused "$(got other)"
check "audited program runs" ok "$(got aud)"
check "script, interpreter refused" refused "$(got script)"
check "script, interpreter allowed" ok "$(got script-ok)"
check "allowed before the rename" ok "$(got mv-me)"
check "refused after it" refused "$(got moved)"
# complain mode: what enforce refused runs and is logged, once each; a
# plain allow is not logged
"$POLC" run --target bpf --mode audit -o $L/trace $L/p.pol -- /usr/bin/sh $L/probe.sh >$L/out 2>$L/err
cat $L/trace
n() { grep -c "^exec \"$L/bin/$1\"" $L/trace; }
check "audit mode: all ran" "ok ok ok ok ok ok ok" "$(got ok) $(got other) $(got aud) $(got script) $(got script-ok) $(got mv-me) $(got moved)"
check "audit mode: logged (other aud interp moved / ok mv-me script)" "1 1 1 1 / 0 0 0" \
	"$(n other) $(n aud) $(n interp) $(n moved) / $(n ok) $(n mv-me) $(n script)"

# A failed execve's memo read on another CPU (docs/bpf-bundle.md): each of
# 15 tries execs the allowed a/F while holding it open for writing
# (ETXTBSY), renames it to b/F (refused), and execs b/F; the helper moves
# the attacker to CPU 1 before that exec open and back to CPU 0 before its
# bprm_check, where the failed execve's memo was kept.
S=$XM_SHARE
rm -rf $S/a $S/b $S/sub; mkdir -p $S/a $S/b $S/sub
cp /usr/bin/echo $S/a/F
cat >$L/cpu.pol <<POL
policy xmemo_cpu {
  default allow file;
  default deny exec;
  allow exec "/usr/**", "/bin/**", "$VMB/xmemo_atk", "$S/a/F";
}
POL
check "three CPUs" 3 "$(nproc)"
rm -f /tmp/atk.pid
"$VMB/xmemo_watch" 2 2>$L/watch.err &
wp=$!
"$POLC" run --target bpf $L/cpu.pol -- "$VMB/xmemo_atk" "$S" 15 300000 >$L/atk.out 2>$L/atk.err
kill $wp; wait $wp
tail -1 $L/atk.err; cat $L/atk.out $L/watch.err
check "stale memo: the refused program never ran" 0 "$(grep -c DENIED-EXEC-RAN $L/atk.out)"
check "stale memo: each try's first exec failed (ETXTBSY), its second refused" \
	"step1 ETXTBSY 15, step3: Operation not permitted x15" "$(sed -n 's/^atk: 15 tries, //p' $L/atk.err)"
moved=$(sed -n 's/.*back to 0: \([0-9]*\).*/\1/p' $L/watch.err)
check "stale memo: tries moved between the exec open and bprm_check (5 or more)" yes \
	"$([ "${moved:-0}" -ge 5 ] && echo yes || echo "no: ${moved:-none}")"

# The same on one CPU with no switch at all (the attacker waits for RCU in
# a busy loop): only the second exec open's drop of the memo refuses b/F.
D=$L/spin
rm -rf $D; mkdir -p $D/a $D/b
cp /usr/bin/echo $D/a/F
cat >$L/spin.pol <<POL
policy xmemo_spin {
  default allow file;
  default deny exec;
  allow exec "/usr/**", "/bin/**", "$VMB/xmemo_spin", "$D/a/F";
}
POL
"$POLC" run --target bpf $L/spin.pol -- "$VMB/xmemo_spin" $D 30 300 >$L/spin.out 2>$L/spin.err
cat $L/spin.out $L/spin.err
check "same CPU: the refused program never ran" 0 "$(grep -c DENIED-EXEC-RAN $L/spin.out)"
check "same CPU: each try's first exec failed (ETXTBSY), its second refused" \
	"step1 ETXTBSY 30, step3: Operation not permitted x30" \
	"$(sed -n 's/^spin: 30 tries, \(step1 ETXTBSY [0-9]*\), without a switch [0-9]*, /\1, /p' $L/spin.err)"
still=$(sed -n 's/.*without a switch \([0-9]*\).*/\1/p' $L/spin.err)
check "same CPU: tries never switched out (5 or more)" yes \
	"$([ "${still:-0}" -ge 5 ] && echo yes || echo "no: ${still:-none}")"
[ $bad = 0 ] && echo ALL-OK
exit $bad
