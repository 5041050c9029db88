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
# the next one (xmemo_atk): on another CPU (three guest CPUs, xmemo_watch
# moving it between the exec open and bprm_check: the switch rule) or on
# the same CPU without a context switch (--spin: the exec open's drop).
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

# A failed execve's memo read by the next execve (docs/bpf-bundle.md):
# each try execs the allowed a/F while holding it open for writing
# (ETXTBSY), renames it to b/F (refused) and execs b/F (xmemo_atk.c).
# attack NAME DIR TRIES WAIT [--spin]: the policy allows a/F, xmemo_atk's
# summary in $L/NAME.sum ("step1 ETXTBSY E, step3: ERR xM") and the tries
# never switched out in $L/NAME.still.
attack() {
	name=$1 dir=$2 tries=$3 wait=$4 mode=${5:-}
	rm -rf $dir/a $dir/b $dir/sub; mkdir -p $dir/a $dir/b $dir/sub
	cp /usr/bin/echo $dir/a/F
	printf 'policy xmemo_%s {\n  default allow file;\n  default deny exec;\n  allow exec "/usr/**", "/bin/**", "%s", "%s";\n}\n' \
		$name "$VMB/xmemo_atk" "$dir/a/F" >$L/$name.pol
	"$POLC" run --target bpf $L/$name.pol -- "$VMB/xmemo_atk" $mode $dir $tries $wait >$L/$name.out 2>$L/$name.err
	cat $L/$name.out; tail -1 $L/$name.err
	sed -n "s/^atk: $tries tries, \(step1 ETXTBSY [0-9]*\), without a switch [0-9]*, /\1, /p" $L/$name.err >$L/$name.sum
	sed -n 's/.*without a switch \([0-9]*\).*/\1/p' $L/$name.err >$L/$name.still
}
at_least() { # MIN VALUE: yes, or why not
	if [ "${2:-0}" -ge "$1" ]; then echo yes; else echo "no: ${2:-none}"; fi
}

# Across CPUs: xmemo_watch moves the attacker to CPU 1 before the second
# exec open and back to CPU 0, where the failed execve's memo was kept,
# before its bprm_check (on 9p, where both points sleep).
check "three CPUs" 3 "$(nproc)"
rm -f /tmp/atk.pid
"$VMB/xmemo_watch" 2 2>$L/watch.err &
wp=$!
attack cpu "$XM_SHARE" 15 300000
kill $wp 2>/dev/null; wait $wp
cat $L/watch.err
check "stale memo: the refused program never ran" 0 "$(grep -c DENIED-EXEC-RAN $L/cpu.out)"
check "stale memo: each try's first exec failed (ETXTBSY), its second refused" \
	"step1 ETXTBSY 15, step3: Operation not permitted x15" "$(cat $L/cpu.sum)"
check "stale memo: tries moved between the exec open and bprm_check (5 or more)" yes \
	"$(at_least 5 "$(sed -n 's/.*back to 0: \([0-9]*\).*/\1/p' $L/watch.err)")"

# On one CPU with no switch at all (the attacker waits for RCU in a busy
# loop): only the second exec open's drop of the memo refuses b/F.
attack spin $L/spin 30 300 --spin
check "same CPU: the refused program never ran" 0 "$(grep -c DENIED-EXEC-RAN $L/spin.out)"
check "same CPU: each try's first exec failed (ETXTBSY), its second refused" \
	"step1 ETXTBSY 30, step3: Operation not permitted x30" "$(cat $L/spin.sum)"
check "same CPU: tries never switched out (5 or more)" yes "$(at_least 5 "$(cat $L/spin.still)")"
[ $bad = 0 ] && echo ALL-OK
exit $bad
