#!/bin/sh
# Replay every fuzz corpus input (regression inputs included) through the
# fuzz targets' code, built normally (and under ASan+UBSan by make asan).
set -u
cd "$SRC"
fail=0
for t in compile trace bundle import; do
	set -- tests/fuzz/corpus/$t/*
	[ -e "$1" ] || { echo "no corpus for $t"; fail=1; continue; }
	"$SRC/$BUILD/tests/replay_$t" "$@" || fail=1
done
exit $fail
