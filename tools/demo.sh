#!/bin/sh
# demo.sh POLC - compile every policy of examples/*.pol to every target and
# format that exists, into build/demo/, and say what was written.
set -u
POLC=${1:-build/polc}
out=build/demo; mkdir -p "$out"
status=0
for f in examples/*.pol; do
	for p in $(sed -n 's/^policy \([A-Za-z0-9_-]*\).*/\1/p' "$f"); do
		for tf in seccomp:pfc seccomp:oci seccomp:spo seccomp:k8s seccomp:bpf apparmor:profile \
			  apparmor:spo apparmor:k8s bpf:bundle bpf:json; do
			t=${tf%%:*}; fmt=${tf#*:}
			o="$out/$p.$t.$fmt"
			if "$POLC" build "$f" --policy "$p" --target "$t" --format "$fmt" --allow-partial -o "$o" 2>"$o.log"; then
				printf '  %-40s %8s bytes\n' "$o" "$(wc -c < "$o")"
			else
				printf '  %-40s FAILED: %s\n' "$o" "$(head -n 1 "$o.log")"; status=1
			fi
		done
	done
done
exit $status
