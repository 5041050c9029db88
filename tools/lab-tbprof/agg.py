#!/usr/bin/env python3
# agg.py TBPROF KALLSYMS OPS [SUBSTR,...] - guest instructions per operation
# by kernel symbol (JIT'd BPF functions are in kallsyms as bpf_prog_TAG_NAME):
# TBPROF from tbprof.c, KALLSYMS a copy of the guest's /proc/kallsyms, OPS
# the operations the workload ran (the total is divided by it). With
# SUBSTR, only symbols containing one of them. The whole boot is counted
# too: compare two runs (e.g. AlwaysAllow against RuntimeDefault) rather
# than read one symbol's figure alone.
import bisect, collections, sys
prof, ksyms, ops = sys.argv[1], sys.argv[2], int(sys.argv[3])
pat = sys.argv[4].split(',') if len(sys.argv) > 4 else None
syms = []
for l in open(ksyms):
    p = l.split()
    if len(p) >= 3 and int(p[0], 16):
        syms.append((int(p[0], 16), p[2]))
syms.sort()
addrs = [a for a, _ in syms]
tot = collections.Counter()
for l in open(prof):
    va, n, c = l.split()
    i = bisect.bisect_right(addrs, int(va, 16)) - 1
    tot[syms[i][1] if i >= 0 else '?'] += int(n) * int(c)
for name, v in tot.most_common():
    if pat is None or any(p in name for p in pat):
        print("%-56s %10.1f" % (name, v / ops))
