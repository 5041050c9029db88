#!/bin/sh
# aslr.sh MICRO N: micro fork/execl/spawn N times with ASLR on, then off
W=$(mktemp -d /tmp/aslr.XXXXXX); cp "$1" $W/micro
for mode in 2 0 2 0; do
	sysctl -qw kernel.randomize_va_space=$mode
	for i in $(seq 1 "$2"); do
		$W/micro -t 0.1 fork execl spawn | awk -v m=$mode '{print "aslr" m, $1, $2}'
	done
done
sysctl -qw kernel.randomize_va_space=2
