#!/bin/sh
# hooks-chan-open.sh SRC BUILD... - inside the icount lab: bench/hooks-bpf.sh
# for the 1-rule policy and RuntimeDefault with each BUILD's polc (confined
# rows only), the guest's ASLR off; output in hooks-chan-open.txt
SRC=$1
shift
echo 0 >/proc/sys/kernel/randomize_va_space
W=$(mktemp -d /tmp/hk.XXXXXX); cp "$1/bench/micro" "$W/micro"
cp "$SRC/tools/lsm-floor/rules1.pol" "$W/rules1.pol"
printf 'policy rd {\n  use runtime-default;\n}\n' >"$W/rd.pol"
for b in "$@"; do
	echo "build $b"
	sh "$SRC/bench/hooks-bpf.sh" "$b/polc" "$W/micro" "$W" Rules1="$W/rules1.pol" \
		RuntimeDefault="$W/rd.pol" | grep -v " unconfined "
done
