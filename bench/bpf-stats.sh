# bpf-stats.sh: sourced by hooks-bpf.sh and raw/redis-hooks-icount.sh.
# snapshot: the enforcer's attached lsm programs and their kernel
#   statistics (kernel.bpf_stats_enabled=1), one "ID NAME RUN_CNT
#   RUN_TIME_NS" line each, read with bpftool.
snapshot() {
	bpftool prog show 2>/dev/null | awk '
		/^[0-9]+: lsm / { id = $1; sub(":", "", id); name = $4; cnt = ns = 0
			for (i = 1; i <= NF; i++) { if ($i == "run_time_ns") ns = $(i + 1)
				if ($i == "run_cnt") cnt = $(i + 1) }
			if (name ~ /^polc_/) print id, name, cnt, ns }'
}
