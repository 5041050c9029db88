/* report.c - the bench results as markdown and JSON. Both read only the
 * result table; ratios are computed here (results.c: per-round pairs). */
#include "bench.h"

#include "../compiler/syscalls.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const envs[] = { "native", "lab" };
static const char *const micro_tests[] = { "getppid", "openat", "stat", "read4k", "pipe",
					   "fork", "execl", "spawn" };
/* ebpf-floor: the eBPF recorder's programs returning at once (bench/run.c). */
static const char *const tracers[] = { "ebpf", "ptrace", "strace", "ebpf-floor" };
#define NMICRO_T (sizeof micro_tests / sizeof micro_tests[0])
#define NTRACERS (sizeof tracers / sizeof tracers[0])

/* The table header cells of every backend: " seccomp | AppArmor |..." */
static void title_cells(buf *out, const char *sep)
{
	for (size_t b = 0; bench_backend(b); b++)
		buf_printf(out, " %s |", sep ? sep : bench_title(bench_backend(b)));
}

static const char *env_title(const char *e)
{
	return !strcmp(e, "lab") ? "lab (qemu TCG)" : e;
}

/* A cell's cost ratio to its section's baseline; false for the baseline
 * itself (br_base_of), which no table has a cell for: the ratios are to it. */
static bool ratio(const bresults *r, const char *env, const char *section, const char *backend,
		  const char *scenario, const char *metric, double *m, double *lo, double *hi)
{
	const bseries *s = br_find(r, env, section, backend, scenario, metric);
	return s && br_ratio(s, br_base_of(r, s), m, lo, hi);
}

/* A cell counts when its per-round ratios all lie within ±2 % of their
 * median (issue #16's rule); else it is marked †. */
static bool disagrees(double m, double lo, double hi)
{
	return hi > m * 1.02 || lo < m * 0.98;
}

static void cell_ratio(buf *out, const bresults *r, const char *env, const char *section,
		       const char *backend, const char *scenario, const char *metric)
{
	double m, lo, hi;
	if (ratio(r, env, section, backend, scenario, metric, &m, &lo, &hi))
		buf_printf(out, " %.3f [%.3f–%.3f]%s |", m, lo, hi, disagrees(m, lo, hi) ? " †" : "");
	else
		buf_puts(out, " n/a |");
}

static bool has(const bresults *r, const char *env, const char *section, const char *backend)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->s[i].env, env) && !strcmp(r->s[i].section, section) &&
		    !strcmp(r->s[i].backend, backend) && r->s[i].n)
			return true;
	return false;
}

static double med(const bresults *r, const char *env, const char *section, const char *backend,
		  const char *scenario, const char *metric)
{
	const bseries *s = br_find(r, env, section, backend, scenario, metric);
	return s ? br_median(s->v, s->n) : NAN;
}

static const char *note(const bresults *r, const char *env, const char *key)
{
	const char *v = br_get(r, env, key);
	return v ? v : "?";
}

static size_t rounds_of(const bresults *r, const char *env, const char *section)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->s[i].env, env) && !strcmp(r->s[i].section, section) &&
		    r->s[i].n > n)
			n = r->s[i].n;
	return n;
}

/* ---- markdown sections ---- */

static double soak_bpf(const bresults *r, const char *metric);

static void md_head(const bench_opts *o, const bresults *r, buf *out)
{
	(void)o;
	if (!br_get(r, "run", "merged.1")) {
		buf_printf(out, "# polc bench\n\n`%s` — polc %s, mode %s; started %s, finished %s "
			   "(%s s on the host).\n\n", note(r, "run", "command"), POLC_VERSION,
			   note(r, "run", "mode"), note(r, "native", "started"),
			   note(r, "native", "finished"), note(r, "native", "wall_seconds"));
	} else {
		buf_printf(out, "# polc bench\n\npolc %s, mode %s. This report merges several raw "
			   "tables (`polc bench --report-from`); a series measured in more than one "
			   "is the concatenation of their rounds, each round still paired within "
			   "itself. The tables, in merge order (a later table's notes win):\n\n",
			   POLC_VERSION, note(r, "run", "mode"));
		for (int i = 1; i <= BENCH_REPORT_FROM_MAX; i++) {
			char k[32];
			snprintf(k, sizeof k, "merged.%d", i);
			const char *v = br_get(r, "run", k);
			if (v)
				buf_printf(out, "%d. %s\n", i, v);
		}
		buf_puts(out, "\n");
	}
	buf_puts(out, "**How to read it.** Every timed figure is a *cost ratio* against "
		 "NoProtect (no enforcer) in the same environment: 1.00 = no cost, 1.10 = 10 % "
		 "slower. For throughput (req/s, tps) the ratio is inverted (NoProtect ÷ "
		 "scenario) so that higher always means slower. Rounds are interleaved (each "
		 "round runs every configuration once, starting at a different one), each "
		 "configuration is paired with NoProtect of the same round, and the table shows "
		 "the median of those per-round ratios with [min–max]. Absolute times are not "
		 "compared: the host is a shared 2-core VM whose syscalls are slow, and in the "
		 "lab qemu emulates the CPU in software (TCG), which inflates absolute times "
		 "many-fold and differently per operation; only ratios within one environment "
		 "mean anything. The JSON output keeps the raw per-round values.\n\n"
		 "**†** marks a cell whose rounds do not agree: some round's ratio is more than "
		 "±2 % from the median. Such a cell is not a measured cost, only a range.\n\n");
	const char *clock = br_get(r, "lab", "clock");
	if (clock)
		buf_printf(out, "**The lab's clock.** %s. A guest that waits (for 9p I/O from the "
			   "host) has its clock jump to the next timer, so the lab's workloads read "
			   "nothing from the host while timed: the micro program is static and runs "
			   "from the guest's tmpfs. Host load then moves only how long the lab takes, "
			   "not what it measures; the native rows are wall-clock time on the shared "
			   "host and move with its load.\n\n", clock);
	const char *layout = br_get(r, "lab", "layout");
	if (layout)
		buf_printf(out, "**The lab's layouts.** In the lab %s. What a fork, an exec or a spawn "
			   "costs depends on where exec put the process's mappings, which moved a "
			   "round by up to 2 %% with randomisation on (bench/raw/aslr-icount.txt)."
			   "\n\n",
			   layout);
}

static void md_where(const bresults *r, buf *out)
{
	buf_puts(out, "## Where the figures come from\n\n| environment | machine | kernel | LSMs "
		 "| rounds (mode) | runs taken (UTC, 1-min load average at start) |\n|---|---|---|---|---|---|\n");
	static const char *const sections[] = { "micro", "redis", "pgbench", "tracers", "soak",
						"compile", "lab" };
	for (size_t e = 0; e < 2; e++) {
		if (!br_get(r, envs[e], "kernel"))
			continue;
		buf_printf(out, "| %s | %s | %s | %s | %s |", env_title(envs[e]),
			   note(r, envs[e], "machine"), note(r, envs[e], "kernel"),
			   note(r, envs[e], "lsm"), note(r, envs[e], "rounds"));
		for (size_t s = 0; s < sizeof sections / sizeof *sections; s++) {
			char k[64];
			snprintf(k, sizeof k, "%s.start", sections[s]);
			const char *v = br_get(r, envs[e], k);
			size_t n = s < 4 ? rounds_of(r, envs[e], sections[s]) : 0;
			const char *end = NULL;
			if (!strcmp(sections[s], "lab")) {
				snprintf(k, sizeof k, "%s.end", sections[s]);
				end = br_get(r, envs[e], k);
			}
			if (end)
				buf_printf(out, " %s (host) from %s to %s;", sections[s], v ? v : "?", end);
			else if (v && n)
				buf_printf(out, " %s (%zu rounds) from %s;", sections[s], n, v);
			else if (v)
				buf_printf(out, " %s from %s;", sections[s], v);
		}
		buf_puts(out, " |\n");
	}
	const char *q = br_get(r, "lab", "other_qemus");
	if (q && strcmp(q, "0"))
		buf_printf(out, "\nWhen the lab started, %s other qemu process%s (other users of the lab) "
			   "shared the host's CPUs with it: lab figures are noisier for it.\n", q,
			   strcmp(q, "1") ? "es" : "");
	if (br_get(r, "lab", "kernel"))
		buf_puts(out, "\nIn the lab row, a section's load average is the guest's (its two "
			 "emulated CPUs); the host's, which other work on the host raises, is the "
			 "*lab (host)* entry, at the lab run's start and end.\n");
	buf_puts(out, "\nThe filter cost model counts BPF instructions in an interpreter, so it "
		 "depends on no machine. The lab boots Debian's kernel in qemu with AppArmor and "
		 "BPF LSM (docs/lab.md) on the host's userland; its micro and macro figures are "
		 "ratios within the lab.\n\n");
}

static void md_summary(const bresults *r, buf *out)
{
	buf_puts(out, "## Summary\n\n");
	double m, lo, hi;
	buf_puts(out, "- **EnhanceProtect on redis-benchmark** (cost ratio GET / SET):");
	bool any = false;
	for (size_t e = 0; e < 2; e++)
		for (size_t b = 0; bench_backend(b); b++) {
			if (!has(r, envs[e], "redis", bench_backend(b)))
				continue;
			buf_printf(out, "%s %s %s ", any ? ";" : "", bench_title(bench_backend(b)),
				   envs[e]);
			for (int k = 0; k < 2; k++) {
				const char *met = k ? "SET" : "GET";
				if (ratio(r, envs[e], "redis", bench_backend(b), "EnhanceProtect", met, &m, &lo, &hi))
					buf_printf(out, "%s%.3f%s", k ? " / " : "", m,
						   disagrees(m, lo, hi) ? " †" : "");
				else
					buf_printf(out, "%sn/a", k ? " / " : "");
			}
			any = true;
		}
	buf_puts(out, any ? ".\n" : " not measured.\n");
	if (has(r, "native", "tracers", "-")) {
		buf_puts(out, "- **Recorders on redis-benchmark** (cost ratio to untraced, GET / SET):");
		for (size_t t = 0; t < NTRACERS; t++) {
			buf_printf(out, "%s %s ", t ? ";" : "", tracers[t]);
			for (int k = 0; k < 2; k++) {
				const char *met = k ? "SET" : "GET";
				if (ratio(r, "native", "tracers", "-", tracers[t], met, &m, &lo, &hi))
					buf_printf(out, "%s%.2f", k ? " / " : "", m);
				else
					buf_printf(out, "%sn/a", k ? " / " : "");
			}
		}
		buf_puts(out, ".\n");
	}
	double polc = med(r, "model", "filter", "polc", "EnhanceProtect", "mean");
	if (!isnan(polc))
		buf_printf(out, "- **seccomp instructions per syscall**, EnhanceProtect on the recorded "
			   "Redis mix: polc %.2f (its own generator), polc --profile-from %.2f; the "
			   "statements as written into libseccomp: O1 %.2f, O2 %.2f; polc's plan "
			   "through libseccomp: O1 %.2f, O2 %.2f.\n", polc,
			   med(r, "model", "filter", "polc profiled", "EnhanceProtect", "mean"),
			   med(r, "model", "filter", "direct O1", "EnhanceProtect", "mean"),
			   med(r, "model", "filter", "direct O2", "EnhanceProtect", "mean"),
			   med(r, "model", "filter", "plan O1", "EnhanceProtect", "mean"),
			   med(r, "model", "filter", "plan O2", "EnhanceProtect", "mean"));
	double share = med(r, "model", "filter", "polc", "EnhanceProtect", "cached_share");
	if (!isnan(share))
		buf_printf(out, "  %.3f %% of that mix's calls are allowed without an argument check, "
			   "so on Linux 5.11+ the kernel's action cache skips the filter for them (mean "
			   "with the cache: %.4f instructions per syscall): the instruction count matters "
			   "on older kernels and for argument-checked or denied calls, and what remains "
			   "on this kernel is the cost of seccomp's syscall entry path itself (the micro "
			   "table's getppid).\n", share * 100,
			   med(r, "model", "filter", "polc", "EnhanceProtect", "mean_cached"));
	double c100 = med(r, "native", "compile", "front end", "generated 100", "time");
	double c10k = med(r, "native", "compile", "front end", "generated 10000", "time");
	if (!isnan(c10k))
		buf_printf(out, "- **Compiler**: a 10,000-statement policy parses and checks in "
			   "%.0f ms (100 statements: %.1f ms); see the table for each backend.\n",
			   c10k, c100);
	const bseries *lost = br_find(r, "native", "soak", "-", "ebpf", "lost");
	if (lost && lost->n)
		buf_printf(out, "- **Endurance**: %s minutes of redis-benchmark under `polc record`: "
			   "%.0f events lost, recorder RSS %.0f kB at 1 minute, %.0f kB at the end.\n",
			   note(r, "native", "soak.minutes"), lost->v[0],
			   med(r, "native", "soak", "-", "ebpf", "rss_kb_1m"),
			   med(r, "native", "soak", "-", "ebpf", "rss_kb_end"));
	if (br_find(r, "lab", "soak", "bpf", "redis profile", "counter_end"))
		buf_printf(out, "- **Enforcer endurance** (lab, emulated): %s minutes of "
			   "redis-benchmark against redis-server under BPF LSM (profiles/redis.pol + "
			   "a deny statement): %.0f denied opens, deny counter %.0f, other counters "
			   "%.0f, ring buffer drops %.0f, %.0f requests, %.0f error replies.\n",
			   note(r, "lab", "soak.minutes"), soak_bpf(r, "denied_end"),
			   soak_bpf(r, "counter_end"), soak_bpf(r, "other_end"),
			   soak_bpf(r, "drops_end"), soak_bpf(r, "requests"),
			   soak_bpf(r, "error_replies"));
	buf_puts(out, "\n");
}

static void md_scenarios(const bresults *r, buf *out)
{
	buf_puts(out, "## Scenarios\n\nEach scenario is one policy `use`-ing a preset of the "
		 "rule library (`polc rules`, rules/presets.pol), run with `polc run --target T "
		 "--allow-partial`. Where a target cannot enforce a statement exactly, it is built "
		 "without it (or with its enforceable part): the table says how many statements "
		 "each target leaves out, so a cheap cell may also be a less protective one.\n\n"
		 "| scenario | preset |");
	title_cells(out, NULL);
	buf_puts(out, "\n|---|---|");
	title_cells(out, "---");
	buf_puts(out, "\n| NoProtect | none (plain exec) |");
	title_cells(out, "–");
	buf_puts(out, "\n");
	for (int s = 1; s < BENCH_NSCEN; s++) {
		buf_printf(out, "| %s | `%s` |", bench_scenarios[s], bench_scenario_rule[s]);
		for (size_t b = 0; bench_backend(b); b++) {
			char k[96];
			snprintf(k, sizeof k, "partial.%s.%s", bench_scenarios[s], bench_backend(b));
			const char *v = br_get(r, "model", k);
			if (!v)
				buf_puts(out, " ? |");
			else if (!strcmp(v, "0"))
				buf_puts(out, " exact |");
			else
				buf_printf(out, " partial: %s statements not enforced exactly |", v);
		}
		buf_puts(out, "\n");
	}
	buf_puts(out, "\nWhere each backend ran:\n\n");
	for (size_t e = 0; e < 2; e++) {
		if (!br_get(r, envs[e], "kernel"))
			continue;
		for (size_t b = 0; bench_backend(b); b++) {
			char k[64];
			snprintf(k, sizeof k, "runs.%s", bench_backend(b));
			if (br_get(r, envs[e], k)) {
				buf_printf(out, "- %s, %s: measured.\n", env_title(envs[e]),
					   bench_title(bench_backend(b)));
				continue;
			}
			snprintf(k, sizeof k, "na.%s", bench_backend(b));
			const char *why = br_get(r, envs[e], k);
			if (why)
				buf_printf(out, "- %s, %s: n/a here (%s)%s.\n", env_title(envs[e]),
					   bench_title(bench_backend(b)), why,
					   strcmp(envs[e], "lab") ? "; use --vm" : "");
		}
	}
	const char *lab = br_get(r, "lab", "na.lab");
	const char *part = br_get(r, "lab", "partial.lab");
	if (lab)
		buf_printf(out, "- lab: %s\n", lab);
	else if (part)
		buf_printf(out, "- lab: %s (a section with fewer rounds than the mode's was cut "
			   "short, by the lab's time limit or an interrupt; its rounds so far "
			   "are reported).\n", part);
	else if (!br_get(r, "lab", "kernel"))
		buf_puts(out, "- lab: not run (polc bench --vm runs AppArmor and BPF LSM there).\n");
	buf_puts(out, "\n");
}

/* Whether any scenario of backend has the metric. */
static bool measured(const bresults *r, const char *env, const char *section, const char *backend,
		     const char *metric)
{
	for (int s = 1; s < BENCH_NSCEN; s++)
		if (br_find(r, env, section, backend, bench_scenarios[s], metric))
			return true;
	return false;
}

static void md_scen_table(const bresults *r, buf *out, const char *section,
			  const char *const *metrics, size_t nmet)
{
	buf_puts(out, "| environment | backend | benchmark | AlwaysAllow | RuntimeDefault | "
		 "EnhanceProtect |\n|---|---|---|---|---|---|\n");
	for (size_t e = 0; e < 2; e++)
		for (size_t b = 0; bench_backend(b); b++) {
			if (!has(r, envs[e], section, bench_backend(b)))
				continue;
			for (size_t k = 0; k < nmet; k++) {
				if (!measured(r, envs[e], section, bench_backend(b), metrics[k]))
					continue;   /* a test a table's run did not have */
				buf_printf(out, "| %s | %s | %s |", env_title(envs[e]),
					   bench_title(bench_backend(b)), metrics[k]);
				for (int s = 1; s < BENCH_NSCEN; s++)
					cell_ratio(out, r, envs[e], section, bench_backend(b),
						   bench_scenarios[s], metrics[k]);
				buf_puts(out, "\n");
			}
		}
	buf_puts(out, "\n");
}

static void md_failures(const bresults *r, buf *out, const char *prefix)
{
	for (size_t i = 0; i < r->nn; i++)
		if (!strncmp(r->notes[i].key, prefix, strlen(prefix)))
			buf_printf(out, "- %s, %s: %s\n", env_title(r->notes[i].env),
				   r->notes[i].key + strlen(prefix), r->notes[i].value);
}

/* The method's baseline (run.c: every configuration in a fresh cgroup one
 * level below the root) and what that cgroup alone costs: NoProtect in
 * its fresh cgroup against NoProtect in polc bench's own (RootCgroup),
 * paired by round. */
static void md_cgroup(const bresults *r, buf *out)
{
	for (size_t e = 0; e < 2; e++) {
		const char *how = br_get(r, envs[e], "cgroup");
		if (!how)
			continue;
		buf_printf(out, "**Cgroup placement (%s).** %s. A container always runs in a cgroup "
			   "of its own, and outside the root cgroup the kernel charges kernel memory "
			   "to it (memcg), so the fair baseline runs NoProtect there too; until "
			   "2026-12-04 only the BPF LSM's workload had its own cgroup (polc run "
			   "--target bpf makes one) and its ratios carried that cost. What the fresh "
			   "cgroup alone costs, NoProtect in it against NoProtect in polc bench's own "
			   "cgroup, paired by round:\n\n", env_title(envs[e]), how);
		if (!has(r, envs[e], "micro", "-") ||
		    !br_find(r, envs[e], "micro", "-", BENCH_ROOT_CGROUP, micro_tests[0])) {
			buf_puts(out, "not measured.\n\n");
			continue;
		}
		buf_puts(out, "|");
		for (size_t k = 0; k < NMICRO_T; k++)
			buf_printf(out, " %s |", micro_tests[k]);
		buf_puts(out, "\n|");
		for (size_t k = 0; k < NMICRO_T; k++)
			buf_puts(out, "---|");
		buf_puts(out, "\n|");
		for (size_t k = 0; k < NMICRO_T; k++) {
			double m, lo, hi;
			const bseries *c = br_find(r, envs[e], "micro", "-", "NoProtect", micro_tests[k]);
			const bseries *b = br_find(r, envs[e], "micro", "-", BENCH_ROOT_CGROUP,
						   micro_tests[k]);
			if (br_ratio(c, b, &m, &lo, &hi))
				buf_printf(out, " %.3f [%.3f–%.3f]%s |", m, lo, hi,
					   disagrees(m, lo, hi) ? " †" : "");
			else
				buf_puts(out, " n/a |");
		}
		buf_puts(out, "\n\n");
	}
}

static void md_workloads(const bresults *r, buf *out)
{
	buf_printf(out, "## Micro benchmarks\n\nbench/micro.c (unixbench-like; one process per "
		   "round and configuration; each test timed in 5 equal slices and the fastest "
		   "slice kept, since other work on a shared machine only slows a slice down): getppid, "
		   "openat+close of a 4 KiB file, stat of it, pread of 4 KiB, a one-byte pipe "
		   "round trip to a child, fork+exit+wait, fork+execl of itself+wait, "
		   "posix_spawn of itself+wait. Rounds: native %zu, lab %zu.\n\n",
		   rounds_of(r, "native", "micro"), rounds_of(r, "lab", "micro"));
	md_scen_table(r, out, "micro", micro_tests, 8);
	md_cgroup(r, out);
	buf_printf(out, "## Macro: redis-benchmark\n\nredis-server on 127.0.0.1 started under "
		   "each scenario; redis-benchmark -c 50 -t get,set (unconfined client), then the "
		   "same pipelined (-P %s, as the Phoronix redis test runs it; 16 times the "
		   "requests), two passes per server start, the better one per test. Rounds: "
		   "native %zu, lab %zu.\n\n", BENCH_REDIS_DEPTH, rounds_of(r, "native", "redis"),
		   rounds_of(r, "lab", "redis"));
	md_scen_table(r, out, "redis", bench_redis_tests, BENCH_NREDIS);
	static const char *const pm[] = { "select-only" };
	buf_puts(out, "## Macro: pgbench\n\nA throw-away PostgreSQL cluster (scale 2, fsync off) "
		 "on 127.0.0.1 started under each scenario; pgbench -S -c 4 -j 2 (read-only).\n\n");
	for (size_t e = 0; e < 2; e++) {
		const char *na = br_get(r, envs[e], "na.pgbench");
		if (na)
			buf_printf(out, "Skipped in %s: %s\n\n", env_title(envs[e]), na);
	}
	bool any = false;
	for (size_t b = 0; bench_backend(b); b++)
		any |= has(r, "native", "pgbench", bench_backend(b)) || has(r, "lab", "pgbench", bench_backend(b));
	if (any)
		md_scen_table(r, out, "pgbench", pm, 1);
	buf_puts(out, "Configurations that failed (left out from then on):\n\n");
	size_t before = out->len;
	md_failures(r, out, "fail.");
	if (out->len == before)
		buf_puts(out, "- none\n");
	buf_puts(out, "\n");
}

static void md_filter(const bresults *r, buf *out)
{
	static const char *const pols[] = { "Docker default", "AlwaysAllow", "RuntimeDefault",
					    "EnhanceProtect", "redis profile", "postgresql profile",
					    "postgresql profile, Redis mix" };
	static const char *const vars[] = { "polc", "polc profiled", "direct O1", "direct O2",
					    "plan O1", "plan O2", "plan O1+prio" };
	if (!br_find(r, "model", "filter", "polc", "AlwaysAllow", "mean"))
		return;
	buf_puts(out, "## seccomp filter cost model\n\nBPF instructions executed per syscall, "
		 "counted by polc's cBPF interpreter on the filters themselves (no timing). *mean*: "
		 "weighted by the workload's recorded syscall mix (profiles/traces/: the Redis "
		 "trace for the presets and the Redis profile, the PostgreSQL trace for its "
		 "profile and the Redis trace again in its second row; arguments 0, a trace has "
		 "no values). *cached*: the same, with the syscalls the kernel's action cache (Linux 5.11+) skips counted as 0: those "
		 "allowed without reading an argument. *worst*: the longest path through the "
		 "program (a bound for any syscall with any arguments; the syscall named is the "
		 "x86_64 number with the longest interpreted path, arguments 0 or all ones). "
		 "*cache path*: of the syscalls the policy allows "
		 "unconditionally, how many the filter decides without an argument load.\n\n"
		 "Variants: **polc** is what `polc build --target seccomp` writes: polc's own cBPF "
		 "generator over its plan of disjoint regions (backends/seccomp/codegen.c; an "
		 "optimal search tree over syscall ranges, with jeq exceptions inside ranges, "
		 "weighted by a built-in typical server mix, not the trace); **polc profiled** adds `--profile-from` the "
		 "workload's trace; **direct O1/O2** add the policy's syscall statements to "
		 "libseccomp as written, at optimize 1 and 2 (as a hand-written program or runc "
		 "would from the same JSON: libseccomp's default action and merging; mount/"
		 "network/ptrace/signal statements are left out; Docker default is "
		 "tests/fuzz/corpus/import/docker-default-seccomp.json imported for x86_64, "
		 "Linux 6.1, Docker's capabilities); **plan O1/O2** hand polc's plan to "
		 "libseccomp (O2 is what polc wrote before its own generator), **+prio** with "
		 "seccomp_syscall_priority() from the mix, libseccomp's own hint.\n\n"
		 "| policy | variant | length | mean | cached | worst | cache path |\n"
		 "|---|---|---|---|---|---|---|\n");
	for (size_t p = 0; p < sizeof pols / sizeof *pols; p++)
		for (size_t v = 0; v < sizeof vars / sizeof *vars; v++) {
			double len = med(r, "model", "filter", vars[v], pols[p], "length");
			if (isnan(len))
				continue;
			char wn[64] = "?";
			double nr = med(r, "model", "filter", vars[v], pols[p], "worst_nr");
			if (!isnan(nr) && !sys_name(IR_ARCH_X86_64, (uint32_t)nr, wn, sizeof wn))
				snprintf(wn, sizeof wn, "nr %.0f, no x86_64 syscall", nr);
			buf_printf(out, "| %s | %s | %.0f | %.2f | %.2f | %.0f (%s) | %.0f/%.0f |", pols[p],
				   vars[v], len, med(r, "model", "filter", vars[v], pols[p], "mean"),
				   med(r, "model", "filter", vars[v], pols[p], "mean_cached"),
				   med(r, "model", "filter", vars[v], pols[p], "worst"), wn,
				   med(r, "model", "filter", vars[v], pols[p], "cache_allows"),
				   med(r, "model", "filter", vars[v], pols[p], "uncond_allows"));
			double ref = med(r, "model", "filter", vars[v], pols[p], "refused_rules");
			if (ref > 0)
				buf_printf(out, " (libseccomp refused %.0f rules)", ref);
			buf_puts(out, "\n");
		}
	buf_puts(out, "\n");
}

static void md_tracers_env(const bresults *r, const char *env, buf *out)
{
	bool lab = !strcmp(env, "lab");
	if (!has(r, env, "tracers", "-"))
		return;
	buf_printf(out, "%s redis-benchmark (-c 50, GET and SET) against "
		   "redis-server run untraced, under `polc record --tracer ebpf`, `--tracer "
		   "ptrace`, and `strace -f -qq -o /dev/null` (reference), and the floor of any "
		   "tracepoint recorder: `ebpf-floor`, the eBPF recorder's programs attached to the "
		   "syscall tracepoints but returning at once (POLC_TRACE_FLOOR=1); cost ratio to untraced, "
		   "median of %zu interleaved rounds [min–max]. A run counts only if the recorder "
		   "exited 0 (`polc record` fails on lost events).",
		   lab ? "**In the lab** (qemu -icount, one vCPU: guest time is instructions "
			 "executed, so these ratios are instruction ratios that the host's load "
			 "does not move; Debian's kernel):" : "**Natively**:",
		   rounds_of(r, env, "tracers"));
	if (!lab)
		buf_puts(out, " ptrace and strace stop the server at "
			 "every syscall until the tracer has been scheduled, so on a busy host their cost "
			 "grows with the load (the start stamps above give the load of each run; the "
			 "JSON has every round); the eBPF recorder does not wait.");
	buf_puts(out, " Requests per CPU second "
		 "of the server (inside the recorded cgroup: its INFO cpu) and of redis-benchmark "
		 "(outside it: every task's syscalls pass the recorder's tracepoints) are the "
		 "same ratio measured on CPU time rather than wall time.\n\n| recorder | GET | SET | "
		 "server req/CPU-s | client req/CPU-s |\n|---|---|---|---|---|\n");
	for (size_t t = 0; t < NTRACERS; t++) {
		buf_printf(out, "| %s |", tracers[t]);
		cell_ratio(out, r, env, "tracers", "-", tracers[t], "GET");
		cell_ratio(out, r, env, "tracers", "-", tracers[t], "SET");
		cell_ratio(out, r, env, "tracers", "-", tracers[t], "srv_req_per_cpu_s");
		cell_ratio(out, r, env, "tracers", "-", tracers[t], "cli_req_per_cpu_s");
		buf_puts(out, "\n");
	}
	buf_puts(out, "\n");
}

static void md_tracers(const bresults *r, buf *out)
{
	if (!has(r, "native", "tracers", "-") && !has(r, "lab", "tracers", "-"))
		return;
	buf_puts(out, "## Recorder cost\n\n");
	md_tracers_env(r, "native", out);
	md_tracers_env(r, "lab", out);
}

static void md_compile(const bresults *r, buf *out)
{
	static const char *const inputs[] = { "rule library", "profiles", "generated 100",
					      "generated 1000", "generated 10000",
					      "generated 100000" };
	/* columns: the front end, then every backend */
	const char *cols[20] = { "front end" };
	size_t ncol = 1;
	for (size_t b = 0; bench_backend(b) && ncol < 20; b++)
		cols[ncol++] = bench_backend(b);
	if (!br_find(r, "native", "compile", "front end", "rule library", "time"))
		return;
	buf_printf(out, "## Compiler cost\n\nIn process, milliseconds of the process's CPU time (user + "
		   "system, page faults included; not wall time, which the shared host's load "
		   "inflates), median of %zu: the front "
		   "end (parse, check, lower to IR) and each backend (check + emit, --allow-partial) "
		"for the whole input. Rule library: %s. Profiles: %s. Generated policies: per 10 "
		   "statements 7 file globs, 1 network port, 1 exec path and 1 syscall with an "
		   "argument condition, syscalls taken in turn from the x86_64 table.\n\n"
		   "| input | front end |", rounds_of(r, "native", "compile"),
		   note(r, "native", "compile.rule library"), note(r, "native", "compile.profiles"));
	title_cells(out, NULL);
	buf_puts(out, " total |\n|---|---|");
	title_cells(out, "---");
	buf_puts(out, "---|\n");
	double tot[6] = { 0 };
	for (size_t i = 0; i < 6; i++) {
		if (!br_find(r, "native", "compile", "front end", inputs[i], "time"))
			continue;
		buf_printf(out, "| %s |", inputs[i]);
		bool whole = true;
		for (size_t c = 0; c < ncol; c++) {
			double v = med(r, "native", "compile", cols[c], inputs[i], "time");
			char k[128];
			snprintf(k, sizeof k, "compile.refused.%s.%s", inputs[i], cols[c]);
			const char *why = br_get(r, "native", k);
			if (why || isnan(v)) {
				if (isnan(v))
					buf_printf(out, " refused: %s |", why ? why : "?");
				else
					buf_printf(out, " %.1f, refused: %s |", v, why);
				whole = false;
				continue;
			}
			tot[i] += v;
			buf_printf(out, " %.1f |", v);
		}
		buf_printf(out, whole ? " %.1f |\n" : " (%.1f without the refusal) |\n", tot[i]);
		if (!whole)
			tot[i] = NAN;
	}
	if (tot[2] > 0 && tot[4] > 0) {
		buf_printf(out, "\nGrowth from 100 to 10,000 statements (100×): total ×%.0f "
			   "(exponent %.2f; 1.00 is linear);", tot[4] / tot[2],
			   log(tot[4] / tot[2]) / log(100));
		for (size_t c = 0; c < ncol; c++)
			buf_printf(out, "%s %s ×%.0f", c ? "," : "",
				   c ? bench_title(cols[c]) : cols[c],
				   med(r, "native", "compile", cols[c], inputs[4], "time") /
				   med(r, "native", "compile", cols[c], inputs[2], "time"));
		buf_puts(out, ".\n");
	}
	if (br_find(r, "native", "compile", "front end", inputs[5], "time")) {
		buf_puts(out, "\nGrowth exponent from 1,000 to 100,000 statements (log of the time "
			 "ratio over log 100; 1.00 is linear):");
		for (size_t c = 0; c < ncol; c++) {
			double a = med(r, "native", "compile", cols[c], inputs[3], "time");
			double b = med(r, "native", "compile", cols[c], inputs[5], "time");
			char k[128];
			snprintf(k, sizeof k, "compile.refused.%s.%s", inputs[5], cols[c]);
			if (br_get(r, "native", k) && a > 0 && b > 0)
				buf_printf(out, "%s %s %.2f (100,000 timed up to its refusal)",
					   c ? "," : "", cols[c], log(b / a) / log(100));
			else if (a > 0 && b > 0)
				buf_printf(out, "%s %s %.2f", c ? "," : "", cols[c], log(b / a) / log(100));
			else
				buf_printf(out, "%s %s n/a", c ? "," : "", cols[c]);
		}
		buf_puts(out, ".\n");
	}
	double dp = med(r, "native", "compile", "polc", "Docker default", "time");
	double d1 = med(r, "native", "compile", "libseccomp O1", "Docker default", "time");
	double d2 = med(r, "native", "compile", "libseccomp O2", "Docker default", "time");
	double dg = med(r, "native", "compile", "polc generator", "Docker default", "time");
	double a1 = med(r, "native", "compile", "libseccomp O1 3 ABIs", "Docker default", "time");
	double a2 = med(r, "native", "compile", "libseccomp O2 3 ABIs", "Docker default", "time");
	if (dp > 0 && d1 > 0 && d2 > 0)
		buf_printf(out, "\nDocker's default seccomp profile (JSON) to a filter, same run, "
			   "rounds interleaved: polc %.2f ms (import, front end and generator, %.2f ms "
			   "of it the generator from the IR: %s instructions for x86_64, i386 and x32) against libseccomp "
			   "given polc's rules ready-made (its JSON parsing not counted) for x86_64 alone: "
			   "%.2f ms at optimize 1 (%s instructions) "
			   "and %.2f ms at optimize 2 (%s); polc takes %.2f× libseccomp O1's time "
			   "and %.2f× O2's; its generator alone %.2f× and %.2f×.\n", dp, dg, note(r, "native", "compile.docker_insns.polc"), d1,
			   note(r, "native", "compile.docker_insns.libseccomp O1"), d2,
			   note(r, "native", "compile.docker_insns.libseccomp O2"), dp / d1, dp / d2,
			   dg / d1, dg / d2);
	if (dp > 0 && a1 > 0 && a2 > 0)
		buf_printf(out, "As runc drives libseccomp for this JSON (its three ABIs, syscalls by "
			   "name; optimize 2 is what runc sets): %.2f ms at optimize 1 (%s instructions), "
			   "%.2f ms at optimize 2 (%s); polc takes %.2f× and %.2f× that time.\n",
			   a1, note(r, "native", "compile.docker_insns.libseccomp O1 3 ABIs"), a2,
			   note(r, "native", "compile.docker_insns.libseccomp O2 3 ABIs"), dp / a1, dp / a2);
	const char *len = br_get(r, "native", "compile.seccomp_insns.generated 10000");
	if (len)
		buf_printf(out, "\nThe 10,000-statement policy's seccomp filter is %s BPF instructions "
			   "(1,000 syscall statements; the kernel loads at most 4,096).\n", len);
	buf_puts(out, "\n");
}

static double soak_bpf(const bresults *r, const char *metric)
{
	return med(r, "lab", "soak", "bpf", "redis profile", metric);
}

static void md_soak_bpf(const bresults *r, buf *out)
{
	const char *fail = br_get(r, "lab", "fail.soak");
	if (!fail && !br_find(r, "lab", "soak", "bpf", "redis profile", "counter_end"))
		return;
	buf_printf(out, "### BPF LSM enforcer (lab)\n\nIn the lab (qemu TCG, Debian's kernel: "
		   "redis throughput is emulated, far below the host's): redis-server on port "
		   "6390 confined by `polc run --target bpf --allow-partial` with "
		   "profiles/redis.pol plus `deny file \"DIR/denied/*\" read` as its last "
		   "statement; an unconfined redis-benchmark (-c 50, GET and SET, %s requests a "
		   "run) in a loop for %s minutes; in the same cgroup as the server, a shell "
		   "loop opens DIR/denied/secret (must fail with EPERM) and DIR/allowed/file "
		   "(must open) ten times each a second; `polc status --follow` drains the "
		   "enforcer's log ring buffer. At 1 minute and at the end the loop is paused, "
		   "its tally and `polc status` read at the same instant (bench/soak-bpf.sh). "
		   "Consistent means: the deny statement's counter = denied opens = log "
		   "records drained, no other statement or default counted anything, no ring "
		   "buffer drops, no open decided wrongly.\n\n",
		   note(r, "lab", "soak.requests_per_run"), note(r, "lab", "soak.minutes"));
	if (fail) {
		buf_printf(out, "Failed: %s\n\n", fail);
		return;
	}
	buf_puts(out, "| when | denied opens (K) | allowed opens | deny counter | other counters "
		 "| ring buffer drops | log records drained | wrong decisions | consistent |\n"
		 "|---|---|---|---|---|---|---|---|---|\n");
	static const char *const when[] = { "1m", "end" };
	for (size_t w = 0; w < 2; w++) {
		char k[8][32];
		static const char *const m[] = { "denied", "allowed", "counter", "other", "drops",
						  "events", "wrong" };
		double v[7];
		for (size_t i = 0; i < 7; i++) {
			snprintf(k[i], sizeof k[i], "%s_%s", m[i], when[w]);
			v[i] = soak_bpf(r, k[i]);
		}
		bool ok = v[0] > 0 && v[2] == v[0] && v[5] == v[0] && v[3] == 0 && v[4] == 0 &&
			  v[6] == 0;
		buf_printf(out, "| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %s |\n",
			   w ? "end" : "1 minute", v[0], v[1], v[2], v[3], v[4], v[5], v[6],
			   ok ? "yes" : "**NO**");
	}
	buf_printf(out, "\nredis-benchmark: %.0f runs, %.0f requests completed in %.0f s "
		   "(emulated: %.0f requests/s), %.0f runs failed; the server counted %.0f error "
		   "replies and %.0f rejected connections; `polc run` exited %.0f.\n\n",
		   soak_bpf(r, "rb_runs"), soak_bpf(r, "requests"), soak_bpf(r, "seconds"),
		   soak_bpf(r, "requests") / soak_bpf(r, "seconds"), soak_bpf(r, "rb_failed"),
		   soak_bpf(r, "error_replies"), soak_bpf(r, "rejected_connections"),
		   soak_bpf(r, "exit"));
}

static void md_soak(const bresults *r, buf *out)
{
	const char *fail = br_get(r, "native", "fail.soak");
	bool native = fail || br_find(r, "native", "soak", "-", "ebpf", "lost");
	bool lab = br_get(r, "lab", "fail.soak") ||
		   br_find(r, "lab", "soak", "bpf", "redis profile", "counter_end");
	if (!native && !lab)
		return;
	buf_puts(out, "## Endurance\n\n");
	if (native) {
		buf_puts(out, "### Recorder (native)\n\n`polc record --tracer ebpf` on "
			 "redis-server while redis-benchmark (-c 50, GET and SET, 20,000 requests a "
			 "run) runs in a loop; the recorder's resident set (VmRSS) and peak (VmHWM) "
			 "sampled at 1 minute and at the end.\n\n");
		if (fail)
			buf_printf(out, "Failed: %s\n\n", fail);
		else
			buf_printf(out, "| minutes | seconds | requests | syscall events | lost | RSS 1 min "
				   "| RSS end | peak 1 min | peak end |\n"
				   "|---|---|---|---|---|---|---|---|---|\n"
				   "| %s | %.0f | %.0f | %.0f | %.0f | %.0f kB | %.0f kB | %.0f kB "
				   "| %.0f kB |\n\n", note(r, "native", "soak.minutes"),
				   med(r, "native", "soak", "-", "ebpf", "seconds"),
				   med(r, "native", "soak", "-", "ebpf", "requests"),
				   med(r, "native", "soak", "-", "ebpf", "events"),
				   med(r, "native", "soak", "-", "ebpf", "lost"),
				   med(r, "native", "soak", "-", "ebpf", "rss_kb_1m"),
				   med(r, "native", "soak", "-", "ebpf", "rss_kb_end"),
				   med(r, "native", "soak", "-", "ebpf", "hwm_kb_1m"),
				   med(r, "native", "soak", "-", "ebpf", "hwm_kb_end"));
	}
	md_soak_bpf(r, out);
}

/* The BPF enforcer per program (lab, bpf_stats) and what each LSM adds per
 * operation in the micro table (guest ns: instructions under icount). */
static void md_hooks(const bresults *r, buf *out)
{
	static const char *const ops[] = { "getppid", "openat", "stat", "read4k", "fork", "execl", "spawn" };
	bool lab = false;
	for (size_t b = 0; bench_backend(b); b++)
		lab |= has(r, "lab", "micro", bench_backend(b));
	if (lab) {
		buf_puts(out, "## What each enforcer adds per operation (lab)\n\nMedian guest ns per "
			 "operation in the micro table less NoProtect's (under the lab's icount clock "
			 "one guest ns is one emulated instruction).\n\n| backend | scenario |");
		for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
			buf_printf(out, " %s |", ops[k]);
		buf_puts(out, "\n|---|---|");
		for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
			buf_puts(out, "---|");
		buf_puts(out, "\n");
		for (size_t b = 0; bench_backend(b); b++)
			for (int s = 1; s < BENCH_NSCEN && has(r, "lab", "micro", bench_backend(b)); s++) {
				buf_printf(out, "| %s | %s |", bench_title(bench_backend(b)), bench_scenarios[s]);
				for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
					double d = med(r, "lab", "micro", bench_backend(b), bench_scenarios[s], ops[k]) -
						   med(r, "lab", "micro", "-", "NoProtect", ops[k]);
					if (isnan(d))
						buf_puts(out, " n/a |");
					else
						buf_printf(out, " %+.0f |", d);
				}
				buf_puts(out, "\n");
			}
		buf_puts(out, "\n");
	}
	bool any = false;
	for (size_t i = 0; i < r->n && !any; i++)
		any = !strcmp(r->s[i].env, "lab") && !strcmp(r->s[i].section, "hooks");
	if (!any)
		return;
	buf_puts(out, "## BPF enforcer per program (lab)\n\nbench/hooks-bpf.sh: each scenario's "
		 "bundle loaded for one cgroup, each micro test run once inside it (confined) and "
		 "once outside it (unconfined: the enforcer's early exit, which every task on the "
		 "machine pays while any policy is loaded); the kernel's per-program statistics "
		 "(kernel.bpf_stats_enabled: run_cnt, run_time_ns, read with bpftool from outside "
		 "the cgroup, bpftool's own calls subtracted) give guest ns per invocation. Programs "
		 "invoked at least 50 times by a test.\n\n"
		 "| scenario | task | test | program | calls | ns per call |\n|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->n; i++) {
		const bseries *s = &r->s[i];
		if (strcmp(s->env, "lab") || strcmp(s->section, "hooks") || strcmp(s->unit, "ns/call"))
			continue;
		char cm[200];
		snprintf(cm, sizeof cm, "%s:calls", s->metric);
		const bseries *c = br_find(r, "lab", "hooks", s->backend, s->scenario, cm);
		double calls = c ? br_median(c->v, c->n) : NAN;
		if (!(calls >= 50))
			continue;
		char where[32] = "", *colon;
		snprintf(where, sizeof where, "%s", s->metric);
		colon = strchr(where, ':');
		if (colon)
			*colon = 0;
		buf_printf(out, "| %s | %s | %s | %s | %.0f | %.0f |\n", s->scenario, where,
			   colon ? colon + 1 : "?", s->backend, calls, br_median(s->v, s->n));
	}
	buf_puts(out, "\n");
}

/* vArmor's rule-count series: each LSM's ratio to NoProtect (measured in
 * the same rounds) with 1, 2, 4 and 8 statements of each type. */
static void md_rules(const bresults *r, buf *out)
{
	bool any = false;
	for (size_t b = 0; bench_backend(b); b++)
		any |= has(r, "lab", "rules", bench_backend(b));
	if (!any)
		return;
	buf_printf(out, "## Rule-count series (lab)\n\nvArmor's BPF enforcer benchmark: 1, 2, 4 and 8 "
		   "rules of each access type. Here a policy of N deny statements of each type "
		   "both LSMs decide (file, exec, network connect, mount, capability), none of which "
		   "the micro tests touch; ratio to NoProtect measured in the same rounds (%zu), "
		   "median [min–max], † when a round is more than 2 %% off the median. AppArmor 3 "
		   "cannot match network addresses: its profile leaves those statements out.\n\n",
		   rounds_of(r, "lab", "rules"));
	const char *layout = br_get(r, "lab", "rules.layout");
	buf_printf(out, "**Layout.** The series ran %s.\n\n| backend | rules |",
		   layout ? layout : "from the guest's /tmp, a tmpfs mounted below its root");
	for (size_t k = 0; k < 8; k++)
		buf_printf(out, " %s |", micro_tests[k]);
	buf_puts(out, "\n|---|---|");
	for (size_t k = 0; k < 8; k++)
		buf_puts(out, "---|");
	buf_puts(out, "\n");
	for (size_t b = 0; bench_backend(b); b++)
		for (int n = 0; n < BENCH_NRULES && has(r, "lab", "rules", bench_backend(b)); n++) {
			buf_printf(out, "| %s | %d |", bench_title(bench_backend(b)), bench_rule_counts[n]);
			for (size_t k = 0; k < 8; k++)
				cell_ratio(out, r, "lab", "rules", bench_backend(b),
					   bench_rule_scenarios[n], micro_tests[k]);
			buf_puts(out, "\n");
		}
	buf_puts(out, "\n");
}

/* One cell of the side-by-side table: backend a's cost over backend b's,
 * round by round (both ran in every round, so each round's ratio is free
 * of what moves between rounds). Counts the cells in which every round
 * found a dearer (*more) or cheaper (*less); the others overlap. */
static void cell_pair(buf *out, const bresults *r, const char *section, const char *a,
		      const char *b, const char *scenario, const char *metric, int *more, int *less,
		      buf *dearer)
{
	double m, lo, hi;
	const bseries *sa = br_find(r, "lab", section, a, scenario, metric);
	const bseries *sb = br_find(r, "lab", section, b, scenario, metric);
	if (!br_ratio(sa, sb, &m, &lo, &hi)) {
		buf_puts(out, " n/a |");
		return;
	}
	bool up = lo > 1.0, down = hi < 1.0;
	buf_printf(out, " %s%.4f [%.4f–%.4f]%s |", up || down ? "**" : "", m, lo, hi,
		   up || down ? "**" : "");
	*more += up;
	*less += down;
	if (up)
		buf_printf(dearer, "%s %s %s", dearer->len ? "," : "", metric, scenario);
}

/* The table's row for one workload metric: the scenarios, then the rule
 * series where the section has one. */
static void pair_row(buf *out, const bresults *r, const char *section, const char *metric,
		     const char *a, const char *b, int *more, int *less, buf *dearer)
{
	buf_printf(out, "| %s %s |", !strcmp(section, "redis") ? "redis" : "micro", metric);
	for (int s = 1; s < BENCH_NSCEN; s++)
		cell_pair(out, r, section, a, b, bench_scenarios[s], metric, more, less, dearer);
	for (int n = 0; n < BENCH_NRULES; n++)
		if (strcmp(section, "redis"))
			cell_pair(out, r, "rules", a, b, bench_rule_scenarios[n], metric, more, less,
				  dearer);
		else
			buf_puts(out, " |");
	buf_puts(out, "\n");
}

/* The enforcers the rule series measured (the LSMs), two by two: what one
 * costs against the other on every lab cell, so that "no dearer than" is
 * read off the rounds, not off two medians. */
static void md_pairs(const bresults *r, buf *out)
{
	for (size_t i = 0; bench_backend(i); i++)
		for (size_t j = i + 1; bench_backend(j); j++) {
			const char *a = bench_backend(j), *b = bench_backend(i);
			if (!has(r, "lab", "rules", a) || !has(r, "lab", "rules", b))
				continue;
			const char *ta = bench_title(a), *tb = bench_title(b);
			buf_printf(out, "## %s against %s (lab)\n\nWhat %s costs over %s, round by "
				   "round (each round ran both; %zu rounds, redis %zu), median "
				   "[min–max] of the rounds' ratios; **bold** where every round "
				   "agrees: above 1, %s dearer; below 1, cheaper. Micro rows: the "
				   "micro table, then the rule-count series.\n\n| test | AlwaysAllow "
				   "| RuntimeDefault | EnhanceProtect | 1 rule | 2 rules | 4 rules | 8 "
				   "rules |\n|---|---|---|---|---|---|---|---|\n", ta, tb, ta, tb,
				   rounds_of(r, "lab", "micro"), rounds_of(r, "lab", "redis"), ta);
			int more = 0, less = 0;
			buf dearer;
			buf_init(&dearer);
			for (size_t k = 0; k < sizeof micro_tests / sizeof *micro_tests; k++)
				pair_row(out, r, "micro", micro_tests[k], a, b, &more, &less, &dearer);
			for (size_t k = 0; k < BENCH_NREDIS; k++)
				if (measured(r, "lab", "redis", a, bench_redis_tests[k]))
					pair_row(out, r, "redis", bench_redis_tests[k], a, b, &more,
						 &less, &dearer);
			buf_printf(out, "\n%s is dearer than %s in every round in %d cells%s%s; cheaper "
				   "in every round in %d; in the others the rounds overlap.\n\n",
				   bench_title(a), bench_title(b), more, more ? ":" : "",
				   more ? dearer.data : "", less);
			buf_free(&dearer);
		}
}

void bench_markdown(const bench_opts *o, const bresults *r, buf *out)
{
	md_head(o, r, out);
	md_where(r, out);
	md_summary(r, out);
	md_scenarios(r, out);
	md_workloads(r, out);
	md_hooks(r, out);
	md_rules(r, out);
	md_pairs(r, out);
	md_filter(r, out);
	md_tracers(r, out);
	md_compile(r, out);
	md_soak(r, out);
}

/* ---- JSON ---- */


static void json_num(buf *out, double v)
{
	if (isfinite(v))
		buf_printf(out, "%.6g", v);
	else
		buf_puts(out, "null");
}

static void json_env(buf *out, const bresults *r, const char *env, bool *first)
{
	bool any = false;
	for (size_t i = 0; i < r->nn; i++) {
		if (strcmp(r->notes[i].env, env))
			continue;
		buf_puts(out, any ? ",\n      " : (*first ? "\n    " : ",\n    "));
		if (!any) {
			buf_json_str(out, env);
			buf_puts(out, ": {\n      ");
		}
		any = true;
		*first = false;
		buf_json_str(out, r->notes[i].key);
		buf_puts(out, ": ");
		buf_json_str(out, r->notes[i].value);
	}
	if (any)
		buf_puts(out, "\n    }");
}

static void json_series(buf *out, const bresults *r, const bseries *s)
{
	buf_puts(out, "    {\"env\": ");
	buf_json_str(out, s->env);
	buf_puts(out, ", \"section\": ");
	buf_json_str(out, s->section);
	buf_puts(out, ", \"backend\": ");
	buf_json_str(out, s->backend);
	buf_puts(out, ", \"scenario\": ");
	buf_json_str(out, s->scenario);
	buf_puts(out, ", \"metric\": ");
	buf_json_str(out, s->metric);
	buf_puts(out, ", \"unit\": ");
	buf_json_str(out, s->unit);
	buf_puts(out, ", \"values\": [");
	for (size_t j = 0; j < s->n; j++) {
		buf_puts(out, j ? ", " : "");
		json_num(out, s->v[j]);
	}
	buf_puts(out, "], \"median\": ");
	json_num(out, br_median(s->v, s->n));
	double m, lo, hi;
	bool timed = !strcmp(s->section, "micro") || !strcmp(s->section, "redis") ||
		     !strcmp(s->section, "pgbench") || !strcmp(s->section, "tracers");
	/* Any backend's base-scenario series is left without a ratio, not only
	 * the baseline's own (br_base_of). */
	if (timed && strcmp(s->scenario, br_base_scenario(s->section)) &&
	    br_ratio(s, br_base_of(r, s), &m, &lo, &hi)) {
		buf_puts(out, ", \"cost_ratio\": {\"median\": ");
		json_num(out, m);
		buf_puts(out, ", \"min\": ");
		json_num(out, lo);
		buf_puts(out, ", \"max\": ");
		json_num(out, hi);
		buf_puts(out, "}");
	}
	buf_puts(out, "}");
}

void bench_json(const bench_opts *o, const bresults *r, buf *out)
{
	(void)o;
	buf_puts(out, "{\n  \"polc_version\": ");
	buf_json_str(out, POLC_VERSION);
	buf_puts(out, ",\n  \"cost_ratio\": \"scenario / baseline of the same round for times, "
		 "baseline / scenario for throughput: > 1 is slower\",\n  \"environments\": {");
	static const char *const all[] = { "run", "native", "lab", "model" };
	bool first = true;
	for (size_t e = 0; e < 4; e++)
		json_env(out, r, all[e], &first);
	buf_puts(out, "\n  },\n  \"series\": [\n");
	for (size_t i = 0; i < r->n; i++) {
		json_series(out, r, &r->s[i]);
		buf_puts(out, i + 1 < r->n ? ",\n" : "\n");
	}
	buf_puts(out, "  ]\n}\n");
}
