#!/usr/bin/env python3
"""summary.py OUT... - floor.sh's lines as cost ratios to no enforcer:
per configuration and test, the median of the rounds' ratios (each round's
configuration against the same round's "none") and their range, over the
rounds of every OUT given (each a lab boot). Time per operation (micro) is
a ratio as it is; requests per second (redis) are inverted, so that above
1 is always slower. With two or more OUTs, a last column gives the largest
difference between the boots' own medians in that row. A second table
sets the floor and polc's enforcer against AppArmor round by round (each
against the same round's AppArmor), in bold where every round agrees: a
cell whose floor is dearer than AppArmor in every round no BPF LSM
enforcer with those hooks can make cheaper."""
import statistics
import sys
from collections import defaultdict

val = defaultdict(dict)   # (kind, test, config) -> {round: value}
hooks = set()
for path in sys.argv[1:]:
    for line in open(path):
        f = line.split()
        if f and f[0] == "hooks":
            hooks.add(f[1])
        if len(f) == 5 and f[0] in ("micro", "redis"):
            kind, rnd, cfg, test, v = f
            val[(kind, test, cfg)][(path, rnd)] = float(v)

CFGS = ("floor", "bpf", "apparmor")


def ratios(kind, test, cfg, only=None, against="none"):
    base, v = val[(kind, test, against)], val.get((kind, test, cfg), {})
    return [(v[k] / base[k]) if kind == "micro" else (base[k] / v[k])
            for k in v if k in base and (only is None or k[0] == only)]


def spread(kind, test):
    """The largest difference between two boots' medians in this row."""
    worst = 0.0
    for cfg in CFGS:
        meds = [statistics.median(r) for r in (ratios(kind, test, cfg, p) for p in sys.argv[1:]) if r]
        if len(meds) > 1:
            worst = max(worst, max(meds) - min(meds))
    return "%.1f %%" % (100 * worst)


runs = len(sys.argv) - 1
print("hooks:", " | ".join(sorted(hooks)))
print("| test | " + " | ".join(CFGS) + (" | boots differ by" if runs > 1 else "") + " |")
print("|---" * (len(CFGS) + 1 + (runs > 1)) + "|")
tests = sorted({(k, t) for (k, t, c) in val}, key=lambda kt: (kt[0], kt[1]))
for kind, test in tests:
    cells = []
    for cfg in CFGS:
        rs = ratios(kind, test, cfg)
        if not rs:
            cells.append("–")
            continue
        cells.append("%.3f [%.3f–%.3f] (%d)" % (statistics.median(rs), min(rs), max(rs), len(rs)))
    if runs > 1:
        cells.append(spread(kind, test))
    print("| %s %s | %s |" % (kind, test, " | ".join(cells)))


def paired(kind, test, cfg):
    """cfg against AppArmor round by round: median [range], in bold when
    every round is on the same side of 1."""
    rs = ratios(kind, test, cfg, against="apparmor")
    if not rs:
        return "–"
    cell = "%.4f [%.4f–%.4f] (%d)" % (statistics.median(rs), min(rs), max(rs), len(rs))
    return "**%s**" % cell if min(rs) > 1 or max(rs) < 1 else cell


print()
print("| test | floor / apparmor | bpf / apparmor |")
print("|---|---|---|")
for kind, test in tests:
    print("| %s %s | %s | %s |" % (kind, test, paired(kind, test, "floor"), paired(kind, test, "bpf")))
