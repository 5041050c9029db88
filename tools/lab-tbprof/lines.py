#!/usr/bin/env python3
# lines.py TBPROF JITED_TXT OPS [N] - guest instructions per operation of
# the JIT'd program of jited.c's JITED_TXT, by BPF source line: each block
# tbprof counted inside one of its functions goes to the line-info record
# at or before its start (a block spanning lines counts for its first).
# Prints the N (default 40) costliest lines and the program's total.
import bisect, collections, sys
prof, jt, ops = sys.argv[1], sys.argv[2], int(sys.argv[3])
top = int(sys.argv[4]) if len(sys.argv) > 4 else 40
funcs, lines = [], []
for l in open(jt):
    p = l.rstrip('\n').split(' ', 3)
    if p[0] == 'func':
        a, n = int(l.split()[3], 16), int(l.split()[5])
        funcs.append((a, a + n))
    elif p[0] == 'line':
        lines.append((int(p[1], 16), int(p[2]), p[3] if len(p) > 3 else ''))
lines.sort()
la = [a for a, _, _ in lines]
tot = collections.Counter()
src = {}
for l in open(prof):
    va, n, c = l.split()
    va = int(va, 16)
    if not any(lo <= va < hi for lo, hi in funcs):
        continue
    i = bisect.bisect_right(la, va) - 1
    key = lines[i][1] if i >= 0 else 0
    src[key] = lines[i][2].strip() if i >= 0 else '?'
    tot[key] += int(n) * int(c)
all_ = sum(tot.values())
for k, v in tot.most_common(top):
    print("%6d %8.1f  %s" % (k, v / ops, src[k][:90]))
print("total %.1f" % (all_ / ops))
