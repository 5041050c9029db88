#!/bin/sh
# Both recorders record an address as the kernel reads it (polc_addr_family,
# backends/bpf/bpf_layout.h), as the BPF enforcer decides it, not by
# sa_family alone: tests/progs/trace_addr's UDP IPv4 sendto with sin_family
# AF_UNSPEC is the inet send to 127.0.0.2 port 7000, its AF_INET6 socket's
# sendto of a sockaddr_in the inet send to 127.0.0.3 port 7001, its AF_UNSPEC
# INADDR_ANY bind the inet bind of port 7002. A recorder that read
# sa_family alone records no address, or inet6, and polc gen's allow-list
# would not allow what the enforcer then decides. Each run in a network
# namespace of its own, loopback only.
set -u
P=$SRC/$BUILD/tests/progs
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a network namespace)"; exit 0; }
. "$SRC/tests/recorders.sh"
bad=0
for tr in $tracers; do
	netns "$POLC" record --tracer $tr --no-status -o "$T/$tr.trace" -- "$P/trace_addr" ||
		fail "$tr: record"
	grep -qx 'meta exit "status 0" 1' "$T/$tr.trace" ||
		fail "$tr: trace_addr failed: $(grep '^meta exit' "$T/$tr.trace")"
	for want in 'net send inet udp 127.0.0.2 7000 ok 1' 'net send inet udp 127.0.0.3 7001 ok 1' \
		'net bind inet udp 0.0.0.0 7002 ok 1'; do
		if ! grep -qxF "$want" "$T/$tr.trace"; then
			echo "FAIL: $tr: no '$want' in: $(grep '^net ' "$T/$tr.trace" | tr '\n' ';')"
			bad=1
		fi
	done
	[ $bad = 0 ] && echo "ok   $tr: $(grep -c '^net ' "$T/$tr.trace") net events, each address as the kernel reads it"
	# what the allow-list is made of: the inet statements the enforcer decides by
	"$POLC" gen -o "$T/$tr.pol" "$T/$tr.trace" 2>"$T/err" || fail "$tr: gen: $(cat "$T/err")"
	for want in 'allow network send inet udp to 127.0.0.2 port 7000;' \
		'allow network send inet udp to 127.0.0.3 port 7001;' 'allow network bind inet udp port 7002;'; do
		grep -qF "$want" "$T/$tr.pol" || { echo "FAIL: $tr: gen: no '$want'"; bad=1; }
	done
done
[ $bad = 0 ] || exit 1
# And the two recorders' net lines agree, line for line.
if [ "$tracers" != ptrace ]; then
	grep '^net ' "$T/ptrace.trace" >"$T/p.net"
	grep '^net ' "$T/ebpf.trace" >"$T/e.net"
	diff -u "$T/p.net" "$T/e.net" || fail "the recorders' net events disagree (- ptrace, + ebpf)"
	echo "ok   ptrace and eBPF net events agree ($(wc -l <"$T/e.net") lines)"
fi
