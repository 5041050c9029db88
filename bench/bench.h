/* bench/ - `polc bench`: measurement only, never a test. One column or row
 * per registered backend (bench_backend), titled by struct backend.
 *
 * bench.h - `polc bench`: what the enforcers, the recorder and the compiler
 * cost on this machine, as ratios to running unprotected.
 *
 * Takes: options (mode, sections, outputs) and the paths of this polc, of
 *        the micro benchmark program and of the source tree's bench/
 *        scripts.
 * Gives: a result table (results.c) filled by the sections (run.c: micro,
 *        redis, pgbench, tracers, soak (the recorder natively, the BPF
 *        enforcer in the lab: bench/soak.sh, bench/soak-bpf.sh), lab;
 *        cost.c: the seccomp filter
 *        cost model; compile_cost.c: compile times), written as markdown,
 *        JSON, an SVG chart (report.c, svg.c), or the raw table the lab
 *        hands back to the host.
 * Promises: every figure carries the environment it came from (native or
 *        lab, with machine and kernel); timed series are interleaved round
 *        by round across scenarios and compared as per-round ratios, so
 *        drift on a shared machine cancels; a scenario that cannot run here
 *        is reported as n/a with the reason, never silently dropped.
 *        Servers started are on loopback ports and stopped on every exit
 *        path; seccomp filters and LSM policies only confine children.
 */
#ifndef POLC_BENCH_H
#define POLC_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include "../base/util.h"

/* The registry (backends/backend.h) as bench sees it: one column or row per
 * backend. The name of backend i, NULL past the last; a backend's title in
 * tables and figures (its name if not registered). bench_main.c. */
const char *bench_backend(size_t i);
const char *bench_title(const char *backend);
/* Is it an LSM this host cannot observe (struct backend's needs_lab)? */
bool bench_needs_lab(const char *backend);
/* Does the backend's policy outlive polc (it has `polc unload`)? */
bool bench_unloads(const char *backend);

enum {
	BS_MICRO = 1, BS_REDIS = 2, BS_PGBENCH = 4, BS_FILTER = 8,
	BS_COMPILE = 16, BS_TRACERS = 32, BS_SOAK = 64, BS_HOOKS = 128,
	BS_RULES = 256,
	BS_ALL = 511,
};

typedef enum { MODE_FULL, MODE_QUICK, MODE_SMOKE } bench_mode;

typedef struct {
	bench_mode mode;
	bool vm;                   /* AppArmor and BPF (and seccomp again) in the lab */
	bool in_lab;               /* we are the lab's half: write raw, native env "lab" */
	int reps;                  /* rounds; 0: the mode's */
	double soak_minutes;       /* <0: the mode's (full 10, else 0) */
	unsigned sections;         /* BS_* */
	const char *md, *json, *svg, *raw;
#define BENCH_REPORT_FROM_MAX 16     /* RESULTS.md merges ~10: micro, redis, native runs */
	const char *report_from[BENCH_REPORT_FROM_MAX];  /* re-render the outputs from these raw tables */
	size_t nreport_from;
	bool vm_only;              /* measure nothing natively; only the lab */
	bool container;            /* the rule-count series in a root of its
				      own (bench/container.sh) */
	const char *compare[2];    /* --compare A B: do two raw tables agree? */
	double within;             /* --within: how near (a fraction; 0: 1 %) */
	const char *cmdline;       /* for the report */
	/* filled by bench_main from the environment */
	const char *polc, *micro, *srcdir, *workdir;
} bench_opts;

/* ---- the result table (results.c) ---- */

typedef struct {
	char *env, *section, *backend, *scenario, *metric, *unit;
	double *v;                 /* one value per round, in round order */
	size_t n, cap;
} bseries;

typedef struct { char *env, *key, *value; } bnote;

typedef struct {
	bseries *s;
	size_t n, cap;
	bnote *notes;
	size_t nn, ncap;
} bresults;

void br_init(bresults *r);
void br_free(bresults *r);
/* Append v to the series (created on first use). */
void br_add(bresults *r, const char *env, const char *section, const char *backend,
	    const char *scenario, const char *metric, const char *unit, double v);
/* Set (replace) a note: a fact about an environment or section. */
void br_note(bresults *r, const char *env, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
const char *br_get(const bresults *r, const char *env, const char *key);
const bseries *br_find(const bresults *r, const char *env, const char *section,
		       const char *backend, const char *scenario, const char *metric);
/* The raw table: tab-separated lines, for the lab to hand back. */
void br_write_raw(const bresults *r, buf *out);
int br_read_raw(bresults *r, const char *text);
/* Read the raw table at path into r: 0, or -1 once stderr says why. */
int br_load(const char *path, bresults *r);

double br_median(const double *v, size_t n);
/* Is a higher value better (throughput) for this unit? */
bool br_higher_better(const char *unit);
/* The baseline scenario of a section's timed cells (NoProtect, or the
 * untraced server), and the baseline series s is measured against: NULL
 * for the baseline itself and in sections without one. */
const char *br_base_scenario(const char *section);
const bseries *br_base_of(const bresults *r, const bseries *s);
/* Cost ratio of s against base (> 1: s is slower): the median of the
 * per-round ratios (round i of s against round i of base), with their
 * min and max. false when either has no values. */
bool br_ratio(const bseries *s, const bseries *base, double *med, double *lo, double *hi);

/* ---- sections ---- */

/* run.c: the timed workloads, natively or (in_lab) inside the lab. */
int bench_workloads(const bench_opts *o, bresults *r);
/* run.c: the lab: run our lab half in qemu and merge its table. */
int bench_lab(const bench_opts *o, bresults *r);
/* cost.c: the seccomp filter cost model. */
int bench_filter_cost(const bench_opts *o, bresults *r);
/* compile_cost.c: compile times. */
int bench_compile_cost(const bench_opts *o, bresults *r);
/* Docker's default seccomp profile to a filter, by polc and by libseccomp,
 * rounds interleaved (cost.c); recorded under native/compile. */
int bench_docker_compile(const bench_opts *o, bresults *r, int reps);

/* report.c, svg.c */
void bench_markdown(const bench_opts *o, const bresults *r, buf *out);
void bench_json(const bench_opts *o, const bresults *r, buf *out);
void bench_svg(const bresults *r, buf *out);

/* bench_main.c: write the raw table now (--raw), so that a run cut short
 * keeps what it measured. */
void bench_checkpoint(const bench_opts *o, const bresults *r);

/* compare.c: every cost-ratio cell of raw tables a and b, their medians
 * compared: a summary per section and the cells more than `within` (a
 * fraction) apart, into out. 0: all within; 1: some apart (or none in
 * both); 3: a table unreadable (said on stderr). */
int bench_compare(const char *a, const char *b, double within, buf *out);

/* bench_main.c: the whole command (after option parsing). */
int bench_main(bench_opts *o);

/* The scenarios, in report order; scenario_rule: the preset it uses. */
#define BENCH_NSCEN 4
extern const char *const bench_scenarios[BENCH_NSCEN];
extern const char *const bench_scenario_rule[BENCH_NSCEN];
/* NoProtect in polc bench's own cgroup (micro only): every other
 * configuration runs in a fresh cgroup one level below the root (run.c). */
#define BENCH_ROOT_CGROUP "RootCgroup"
/* vArmor's rule-count series (section "rules", AppArmor and BPF LSM): the
 * scenario Rules<N> is a policy of N statements of each type. */
#define BENCH_NRULES 4
extern const int bench_rule_counts[BENCH_NRULES];
extern const char *const bench_rule_scenarios[BENCH_NRULES];

/* The redis section's tests (bench/redis.sh): GET and SET from 50
 * connections, then both pipelined BENCH_REDIS_DEPTH deep (redis-benchmark
 * -P, as the Phoronix redis test behind vArmor's tables runs it). The
 * recorders' section runs the first two only. */
#define BENCH_REDIS_DEPTH "16"
#define BENCH_NREDIS 4
extern const char *const bench_redis_tests[BENCH_NREDIS];

/* Shared helpers (bench_main.c). */
double bench_now(void);                  /* monotonic seconds */
double bench_cpu_now(void);              /* this process's CPU seconds (user + system) */
/* Note "<section>.<what>" = wall-clock time and load average, now. */
void bench_stamp(bresults *r, const char *env, const char *section, const char *what);
#define NATIVE_ENV(o) ((o)->in_lab ? "lab" : "native")

#endif
