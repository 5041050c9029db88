#!/usr/bin/env python3
# diff.py [-n N] [--only SUBSTR,...] SHORT LONG [BASE_SHORT BASE_LONG]
# Guest instructions one operation costs, by kernel symbol: two runs of the
# same workload (prof-run.sh) that differ only in how many operations they
# ran; each DIR holds tbprof.txt, kallsyms.txt and out (micro's "TEST NS
# OPS" line). What the boot, the enforcer's install and the run's start
# cost is the same in both and cancels: (LONG - SHORT) / (OPS_LONG -
# OPS_SHORT). With a base pair (e.g. the same test with no enforcer), what
# one operation costs over the base's. JIT'd BPF functions are named
# without their tag (bpf_prog_NAME), so runs of different boots compare.
# Prints the N (default 40) symbols that differ most, then the total.
# Symbols such as clear_page_erms move by thousands between any two runs
# (page allocation); read the enforcer's own (--only bpf,tramp,migrate,
# apparmor) rather than the total.
import argparse, bisect, collections, re, sys

def ops(d):
    for l in open(d + '/out'):
        p = l.split()
        if len(p) == 3 and p[2].isdigit():
            return int(p[2])
    sys.exit('diff.py: no micro result in %s/out' % d)

def by_symbol(d):
    syms = []
    for l in open(d + '/kallsyms.txt'):
        p = l.split()
        if len(p) >= 3 and int(p[0], 16):
            syms.append((int(p[0], 16), re.sub(r'^bpf_prog_[0-9a-f]{16}_', 'bpf_prog_', p[2])))
    syms.sort()
    addrs = [a for a, _ in syms]
    tot = collections.Counter()
    for l in open(d + '/tbprof.txt'):
        va, n, c = l.split()
        i = bisect.bisect_right(addrs, int(va, 16)) - 1
        tot[syms[i][1] if i >= 0 else '?'] += int(n) * int(c)
    return tot

def per_op(short, long_):
    n = ops(long_) - ops(short)
    if n <= 0:
        sys.exit('diff.py: %s did not run more operations than %s' % (long_, short))
    a, b = by_symbol(short), by_symbol(long_)
    return {k: (b[k] - a[k]) / n for k in set(a) | set(b)}

ap = argparse.ArgumentParser()
ap.add_argument('-n', type=int, default=40)
ap.add_argument('--only', default='')
ap.add_argument('dirs', nargs='+')
o = ap.parse_args()
if len(o.dirs) not in (2, 4):
    sys.exit('usage: diff.py [-n N] [--only SUBSTR,...] SHORT LONG [BASE_SHORT BASE_LONG]')
per = per_op(o.dirs[0], o.dirs[1])
if len(o.dirs) == 4:
    base = per_op(o.dirs[2], o.dirs[3])
    per = {k: per.get(k, 0) - base.get(k, 0) for k in set(per) | set(base)}
only = [s for s in o.only.split(',') if s]
if only:
    per = {k: v for k, v in per.items() if any(s in k for s in only)}
for k, v in sorted(per.items(), key=lambda kv: (-abs(kv[1]), kv[0]))[:o.n]:
    if abs(v) >= 0.05:
        print('%-56s %10.1f' % (k, v))
print('%-56s %10.1f' % ('total' + (' (of those)' if only else ''), sum(per.values())))
