#!/bin/sh
# seam-metrics.sh [SRC] - the seam figures of issue #15, read-only on SRC:
#   1. places outside backends/ that compare or list backend names
#   2. source files over 800 lines
#   3. the 15 largest functions (lines from the column-0 '{' to its '}')
# Objects rebuilt after touching enforcer.bpf.c: see --rebuild (builds in SRC).
set -eu
SRC=${1:-.}
cd "$SRC"
NAMES='"(seccomp|apparmor|bpf|landlock)"'
echo "== backend-name comparisons/lists outside backends/ (cli verify bench tracer compiler base import)"
# A comparison (strcmp/streq) against, a lookup of, or a hard-coded list of
# backend names, or a reference to one backend's struct by name.
hits=$( { for d in cli verify bench tracer compiler base importers; do [ -d $d ] || continue
	grep -rnE --include='*.c' --include='*.h' \
	  "(strn?cmp|streq)[^;]*$NAMES|backend_find\\($NAMES\\)|$NAMES *, *$NAMES|&backend_(seccomp|apparmor|bpf|landlock)\\b|run_confine_(seccomp|apparmor|bpf)" $d || true
	done; } )
printf '%s\n' "$hits" | sed '/^$/d'
printf 'count: %s\n' "$(printf '%s\n' "$hits" | sed '/^$/d' | wc -l)"
echo "== files over 800 lines (*.c *.h *.y *.l, tests excluded)"
find . -path ./tests -prune -o -path './build*' -prune -o -path ./.git -prune -o \
     -type f \( -name '*.c' -o -name '*.h' -o -name '*.y' -o -name '*.l' \) -print |
	xargs wc -l | awk '$2 != "total" && $1 > 800' | sort -rn
echo "== 15 largest functions (lines, file:line name)"
find . -path ./tests -prune -o -path './build*' -prune -o -path ./.git -prune -o \
     -type f -name '*.c' -print | sort | xargs awk '
	FNR == 1 { prev = ""; start = 0 }
	/^\{/ && prev ~ /\(/ { start = FNR; name = prev; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name) }
	/^\}/ && start { printf "%5d %s:%d %s\n", FNR - start + 1, FILENAME, start, name; start = 0 }
	{ if ($0 !~ /^[ \t]*$/) prev = (prev ~ /,$/ ? prev : "") $0 }' | sort -rn | head -15
