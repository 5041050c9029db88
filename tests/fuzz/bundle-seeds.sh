#!/bin/sh
# bundle-seeds.sh POLC - rewrite the bundle fuzzer's seeds from the current
# bundle format: for each policy, its bundle file (NAME.bpfpol, what
# bpfb_parse reads) and the blob's bare words (NAME.words, what the fuzzer
# also hands bpfb_validate: mutations there are not stopped by the file's
# checksum). Run after a change of POLC_BLOB_VERSION or the file format;
# test_bpf_eval fails while a seed no longer parses.
set -eu
P=$1
D=tests/fuzz/corpus/bundle
seed() {   # NAME POLICY
	"$P" build --target bpf --allow-partial "$2" -o "$D/$1.bpfpol" 2>/dev/null
	# the blob follows the text header: its magic "PLCB" starts the words,
	# its third word counts them
	python3 -c 'import struct, sys; d = open(sys.argv[1], "rb").read(); i = d.index(b"BCLP")
n = struct.unpack_from("<I", d, i + 8)[0]; open(sys.argv[2], "wb").write(d[i:i + 4 * n])' \
		"$D/$1.bpfpol" "$D/$1.words"
}
# each under the fuzzer's -max_len (64 KiB): a longer seed is cut short
seed small tools/lsm-floor/rules1.pol
seed webapp examples/webapp.pol
seed memcached profiles/memcached.pol
