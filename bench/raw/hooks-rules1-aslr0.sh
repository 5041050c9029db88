#!/bin/sh
# hooks-rules1-aslr0.sh BUILD SRC - inside the icount lab: bench/hooks-bpf.sh
# for the rule-count series' 1-rule policy (as bench/run.c writes it) and
# RuntimeDefault, with the guest's ASLR off; output in hooks-rules1-aslr0.txt
B=$1 SRC=$2
echo 0 >/proc/sys/kernel/randomize_va_space
W=$(mktemp -d /tmp/hk.XXXXXX); cp "$B/bench/micro" "$W/micro"
printf 'policy rd {\n  use runtime-default;\n}\n' >"$W/rd.pol"
cat >"$W/rules1.pol" <<'P'
policy rules1 {
  deny file "/polc-bench-rule-1/**" read, write, append;
  deny exec "/polc-bench-rule-1/bin";
  deny network connect to 192.0.2.1;
  deny mount on "/polc-bench-rule-1";
  deny capability sys_module;
}
P
sh "$SRC/bench/hooks-bpf.sh" "$B/polc" "$W/micro" "$W" Rules1="$W/rules1.pol" RuntimeDefault="$W/rd.pol"
