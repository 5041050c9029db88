#!/usr/bin/env python3
"""summary.py OUT... - floor.sh's lines as cost ratios to no enforcer:
per configuration and test, the median of the rounds' ratios (each round's
configuration against the same round's "none") and their range. Time per
operation (micro) is a ratio as it is; requests per second (redis) are
inverted, so that above 1 is always slower."""
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

print("hooks:", " | ".join(sorted(hooks)))
print("| test | " + " | ".join(["floor", "bpf", "apparmor"]) + " |")
print("|---|---|---|---|")
tests = sorted({(k, t) for (k, t, c) in val}, key=lambda kt: (kt[0], kt[1]))
for kind, test in tests:
    base = val[(kind, test, "none")]
    cells = []
    for cfg in ("floor", "bpf", "apparmor"):
        v = val.get((kind, test, cfg), {})
        rs = [(v[k] / base[k]) if kind == "micro" else (base[k] / v[k])
              for k in v if k in base]
        if not rs:
            cells.append("–")
            continue
        cells.append("%.3f [%.3f–%.3f] (%d)" % (statistics.median(rs), min(rs), max(rs), len(rs)))
    print("| %s %s | %s |" % (kind, test, " | ".join(cells)))
