#!/bin/sh
# hooks-rd-ep-memo.sh BUILD SRC - inside the icount lab: bench/hooks-bpf.sh for
# RuntimeDefault and EnhanceProtect with the guest's ASLR off, every program
# that ran listed (polc bench's hooks table keeps those run 50 times or more);
# output in hooks-rd-ep-memo.txt
B=$1 SRC=$2
echo 0 >/proc/sys/kernel/randomize_va_space
W=$(mktemp -d /tmp/hk.XXXXXX); cp "$B/bench/micro" "$W/micro"
printf 'policy rd {\n  use runtime-default;\n}\n' >"$W/rd.pol"
printf 'policy ep {\n  use enhance-protect;\n}\n' >"$W/ep.pol"
sh "$SRC/bench/hooks-bpf.sh" "$B/polc" "$W/micro" "$W" RuntimeDefault="$W/rd.pol" EnhanceProtect="$W/ep.pol"
