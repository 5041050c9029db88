/* cost.c - the seccomp filter cost model: BPF instructions the kernel's
 * interpreter executes per syscall, counted by backends/seccomp/bpf_interp
 * on the filters themselves (no timing, so no noise).
 *
 * Policies: the three preset scenarios and the two database profiles, each
 * weighed by its workload's recorded syscall mix (profiles/traces/: the
 * Redis trace for the presets and the Redis profile). Variants of each:
 *   polc            what `polc build --target seccomp` writes (polc's
 *                   own generator over the plan, backends/seccomp/codegen.c)
 *   polc profiled   the same with --profile-from the workload's trace
 *   plan O1, O2     the same plan handed to libseccomp, optimize 1 (linear
 *                   scan) and 2 (binary tree: what polc wrote before)
 *   plan O1+prio    optimize 1 with seccomp_syscall_priority() from the mix
 *                   (libseccomp's own frequency hint)
 *   direct O1/O2    the policy's syscall statements added to libseccomp as
 *                   written, as a hand-written libseccomp program or runc
 *                   would (libseccomp's own merging; refused rules counted)
 * Figures: program length; mean instructions per syscall over the mix;
 * the worst case over every x86_64 syscall number (arguments 0 and all
 * ones); how many of the syscalls the policy allows unconditionally are
 * decided without an argument load (the kernel's action cache then skips
 * the filter for them); and the mix mean when those cached ones cost 0.
 */
#include "bench.h"
#include "../backends/seccomp/seccomp.h"
#include "../backends/seccomp/bpf_interp.h"
#include "../compiler/compile.h"
#include "../import/import_oci.h"
#include "../tracer/sysmix.h"

#include <errno.h>
#include <linux/audit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { V_POLC, V_PROFILED, V_O1, V_O2, V_O1PRIO, V_DIRECT1, V_DIRECT2, NVARIANT };
static const char *const vname[NVARIANT] = { "polc", "polc profiled", "plan O1", "plan O2",
					     "plan O1+prio", "direct O1", "direct O2" };

typedef struct {
	const char *label;
	const char *text;      /* policy source, or NULL: file */
	const char *file;      /* under srcdir */
	const char *trace;     /* its mix, under srcdir */
	bool oci;              /* file is an OCI/Docker profile: imported */
} cpol;

static const cpol policies[] = {
	{ "Docker default", NULL, "tests/fuzz/corpus/import/docker-default-seccomp.json",
	  "profiles/traces/redis.trace", true },
	{ "AlwaysAllow", "policy a { use always-allow; }", NULL, "profiles/traces/redis.trace", false },
	{ "RuntimeDefault", "policy a { use runtime-default; }", NULL, "profiles/traces/redis.trace", false },
	{ "EnhanceProtect", "policy a { use enhance-protect; }", NULL, "profiles/traces/redis.trace", false },
	{ "redis profile", NULL, "profiles/redis.pol", "profiles/traces/redis.trace", false },
	{ "postgresql profile", NULL, "profiles/postgresql.pol", "profiles/traces/postgresql.trace", false },
	/* the table weighs every row by the Redis mix */
	{ "postgresql profile, Redis mix", NULL, "profiles/postgresql.pol", "profiles/traces/redis.trace",
	  false },
};

/* The syscalls (x86_64 numbers) the plan allows without conditions. */
static size_t uncond_allows(const sc_plan *pl, bool *u)
{
	size_t n = 0;
	memset(u, 0, 1024 * sizeof *u);
	const sc_archplan *ap = &pl->arch[IR_ARCH_X86_64];
	for (uint32_t nr = 0; nr < 1024; nr++) {
		if (!sys_known(IR_ARCH_X86_64, nr))
			continue;
		const sc_sysplan *s = NULL;
		for (size_t i = 0; i < ap->n && !s; i++)
			if (ap->v[i].nr == nr)
				s = &ap->v[i];
		bool allow = s ? s->n == 1 && s->v[0].act.verdict == IR_ALLOW &&
				 s->v[0].dnf.n == 1 && s->v[0].dnf.v[0].n == 0
			       : pl->def.verdict == IR_ALLOW;
		u[nr] = allow;
		n += allow;
	}
	return n;
}

/* Each statement as written, straight into libseccomp. */
/* abis false: x86_64 alone, the numbers polc resolved. abis true: as runc
 * drives libseccomp from the same JSON -- the profile's ABIs (x86_64 with
 * x86 and x32, as archMap gives them), each syscall by name
 * (seccomp_syscall_resolve_name, then seccomp_rule_add for every ABI): a
 * filter covering what polc's covers. */
static scmp_filter_ctx direct(const ir_policy *p, size_t *refused, bool abis)
{
	ir_action bad = { IR_DENY, EPERM };
	scmp_filter_ctx ctx = seccomp_init(sc_action(ir_effective(p, p->defaults[IR_SYSCALL])));
	if (!ctx)
		return NULL;
	seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, sc_action(ir_effective(p, bad)));
	if (abis) {
		seccomp_arch_add(ctx, SCMP_ARCH_X86);
		seccomp_arch_add(ctx, SCMP_ARCH_X32);
	}
	*refused = 0;
	const ir_stmt_list *sl = &p->dom[IR_SYSCALL];
	for (size_t i = 0; i < sl->n; i++) {
		const ir_syscall *sy = &sl->v[i].u.sys;
		int nr = abis ? seccomp_syscall_resolve_name(sy->name) : sy->nr[IR_ARCH_X86_64];
		if (abis ? nr == __NR_SCMP_ERROR : nr < 0)
			continue;
		sc_dnf f = { 0 };
		sc_dnf_true(&f);
		bool big = false;
		for (size_t j = 0; j < sy->ncond && !big; j++)
			big = sc_dnf_and_cond(&f, &sy->conds[j], (sy->arg32 >> sy->conds[j].arg) & 1,
					      false) != 0;
		uint32_t act = sc_action(ir_effective(p, sl->v[i].action));
		for (size_t j = 0; j < f.n && !big; j++)
			if ((abis ? seccomp_rule_add_array : seccomp_rule_add_exact_array)(
				    ctx, act, nr, (unsigned)f.v[j].n, f.v[j].v))
				++*refused;
		*refused += big;
		sc_dnf_free(&f);
	}
	return ctx;
}

static int by_count_desc(const void *a, const void *b)
{
	const sys_freq *x = a, *y = b;
	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static void prioritize(scmp_filter_ctx ctx, const sys_freq *mix, size_t n)
{
	sys_freq *v = xmalloc((n ? n : 1) * sizeof *v);
	memcpy(v, mix, n * sizeof *v);
	qsort(v, n, sizeof *v, by_count_desc);
	for (size_t i = 0; i < n; i++)
		if (v[i].arch == IR_ARCH_X86_64)
			seccomp_syscall_priority(ctx, (int)v[i].nr, (uint8_t)(i < 254 ? 255 - i : 1));
	free(v);
}

static int variant(const ir_policy *p, const sc_plan *pl, int k, const sys_freq *mix, size_t n,
		   buf *out, size_t *refused, diag_ctx *d)
{
	*refused = 0;
	if (k == V_POLC)
		return sc_build_bpf(p, true, d, out);
	if (k == V_PROFILED)
		return sc_build_bpf_profiled(p, true, mix, n, d, out, NULL);
	scmp_filter_ctx ctx = k == V_DIRECT1 || k == V_DIRECT2 ? direct(p, refused, false)
							       : sc_filter_new(pl, d);
	if (!ctx)
		return -1;
	seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, k == V_DIRECT2 || k == V_O2 ? 2 : 1);
	if (k == V_O1PRIO)
		prioritize(ctx, mix, n);
	int rc = sc_export(ctx, false, out, d);
	seccomp_release(ctx);
	return rc;
}

typedef struct {
	double mean, mean_cached;
	double cached_share;   /* of the mix's calls, those the cache skips */
	unsigned worst;
	uint32_t worst_nr;     /* the syscall taking the longest path */
	size_t cached;
} figures;

static figures measure(const struct sock_filter *f, size_t len, const sys_freq *mix, size_t n,
		       const bool *u)
{
	figures g = { 0, 0, 0, 0, 0, 0 };
	for (uint32_t nr = 0; nr < 1024; nr++)
		for (int v = 0; v < 2; v++) {
			struct seccomp_data sd = { .nr = (int)nr, .arch = AUDIT_ARCH_X86_64 };
			if (v)
				memset(sd.args, 0xff, sizeof sd.args);
			bpf_run_info info;
			uint32_t ret = bpf_interp(f, len, &sd, &info);
			if (info.steps > g.worst) {
				g.worst = info.steps;
				g.worst_nr = nr;
			}
			if (!v && u[nr] && ret == SECCOMP_RET_ALLOW && !info.loaded_args)
				g.cached++;
		}
	double w = 0;
	for (size_t i = 0; i < n; i++) {
		struct seccomp_data sd = { .nr = (int)mix[i].nr,
			.arch = mix[i].arch == IR_ARCH_I386 ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64 };
		bpf_run_info info;
		uint32_t ret = bpf_interp(f, len, &sd, &info);
		bool cached = mix[i].arch == IR_ARCH_X86_64 && mix[i].nr < 1024 && u[mix[i].nr] &&
			      ret == SECCOMP_RET_ALLOW && !info.loaded_args;
		g.mean += (double)mix[i].count * info.steps;
		g.mean_cached += cached ? 0 : (double)mix[i].count * info.steps;
		g.cached_share += cached ? (double)mix[i].count : 0;
		w += (double)mix[i].count;
	}
	/* any arguments: the longest path through the program bounds them all */
	unsigned st = sc_longest_path(f, len);
	if (st > g.worst)
		g.worst = st;
	if (w > 0) {
		g.mean /= w;
		g.mean_cached /= w;
		g.cached_share /= w;
	}
	return g;
}

/* NULL on errors; *compiled: prog holds a program to free. */
static const ir_policy *compile_one(const bench_opts *o, const cpol *c, ir_program *prog,
				    diag_ctx *d, bool *compiled)
{
	compile_opts co = { 0 };
	int rc;
	if (c->oci) {
		/* the same JSON runc hands libseccomp: imported as it is
		 * evaluated on x86_64 under Linux 6.1 with Docker's caps */
		char *path = xasprintf("%s/%s", o->srcdir, c->file);
		import_opts io = { .name = "docker", .host = IR_ARCH_X86_64, .kmajor = 6, .kminor = 1 };
		buf src;
		buf_init(&src);
		rc = import_oci_file(path, &io, d, &src);
		if (!rc) {
			buf_put(&src, "", 1);
			rc = polc_compile_text(c->label, src.data, &co, d, prog);
		}
		buf_free(&src);
		free(path);
	} else if (c->text) {
		rc = polc_compile_text(c->label, c->text, &co, d, prog);
	} else {
		char *path = xasprintf("%s/%s", o->srcdir, c->file);
		const char *files[] = { path };
		rc = polc_compile_files(files, 1, &co, d, prog);
		free(path);
	}
	*compiled = rc == 0;
	return rc ? NULL : ir_program_select(prog, NULL, d);
}

static void add(bresults *r, const char *variant_name, const char *pol, const char *metric,
		const char *unit, double v)
{
	br_add(r, "model", "filter", variant_name, pol, metric, unit, v);
}

static int one_policy(const bench_opts *o, const cpol *c, bresults *r)
{
	diag_ctx d;
	diag_init(&d);
	ir_program prog;
	bool compiled;
	const ir_policy *p = compile_one(o, c, &prog, &d, &compiled);
	char *tpath = xasprintf("%s/%s", o->srcdir, c->trace), *err = NULL;
	sys_freq *mix = NULL;
	size_t n = 0;
	int rc = -1;
	sc_plan pl;
	if (!p || sc_plan_build(p, true, &d, &pl)) {
		diag_print(&d, stderr, false);
		goto out;
	}
	if (trace_sysmix_read(tpath, &mix, &n, &err) < 0) {
		fprintf(stderr, "polc bench: %s\n", err);
		br_note(r, "model", "na.filter", "%s", err);
		free(err);
		sc_plan_free(&pl);
		goto out;
	}
	static bool u[1024];
	size_t nu = uncond_allows(&pl, u);
	for (int k = 0; k < NVARIANT; k++) {
		buf b;
		buf_init(&b);
		size_t refused;
		if (variant(p, &pl, k, mix, n, &b, &refused, &d)) {
			diag_print(&d, stderr, false);
			buf_free(&b);
			continue;
		}
		const struct sock_filter *f = (const struct sock_filter *)b.data;
		size_t len = b.len / sizeof *f;
		figures g = measure(f, len, mix, n, u);
		add(r, vname[k], c->label, "length", "insns", (double)len);
		add(r, vname[k], c->label, "mean", "insns", g.mean);
		add(r, vname[k], c->label, "worst", "insns", g.worst);
		add(r, vname[k], c->label, "worst_nr", "nr", g.worst_nr);
		add(r, vname[k], c->label, "mean_cached", "insns", g.mean_cached);
		add(r, vname[k], c->label, "cached_share", "fraction", g.cached_share);
		add(r, vname[k], c->label, "cache_allows", "count", (double)g.cached);
		add(r, vname[k], c->label, "uncond_allows", "count", (double)nu);
		add(r, vname[k], c->label, "refused_rules", "count", (double)refused);
		buf_free(&b);
	}
	br_note(r, "model", c->label, "mix %s", c->trace);
	sc_plan_free(&pl);
	rc = 0;
out:
	free(mix);
	free(tpath);
	if (compiled)
		ir_program_free(&prog);
	diag_free(&d);
	return rc;
}

int bench_filter_cost(const bench_opts *o, bresults *r)
{
	int rc = 0;
	fprintf(stderr, "polc bench: filter cost model\n");
	for (size_t i = 0; i < sizeof policies / sizeof *policies; i++)
		rc |= one_policy(o, &policies[i], r);
	return rc;
}

static double ms_since(double t0)
{
	return (bench_cpu_now() - t0) * 1e3;
}

/* Docker's default profile to a loadable filter. polc: the JSON imported,
 * compiled and generated (all of `polc build` but the file writes).
 * polc's filter covers x86_64, i386 and x32, as the profile's archMap asks.
 * libseccomp: the same syscall rules (polc's IR of the JSON) exported at
 * optimize 1 and 2, in two forms: x86_64 alone with the numbers given
 * ("libseccomp O1/O2", less work than polc's filter needs), and as runc
 * drives it ("... 3 ABIs": the three ABIs, names resolved by libseccomp).
 * Its JSON parsing, which runc does in Go, is never counted, so both favour
 * libseccomp. One process, all interleaved each round, CPU time (the
 * process's first build -- tables, libraries' first use -- is in round 0
 * only, so the medians are warm figures). */
int bench_docker_compile(const bench_opts *o, bresults *r, int reps)
{
	static const char *const who[] = { "polc", "libseccomp O1", "libseccomp O2",
					   "libseccomp O1 3 ABIs", "libseccomp O2 3 ABIs" };
	enum { NWHO = sizeof who / sizeof *who };
	for (int round = 0; round < reps; round++) {
		for (int k0 = 0; k0 < NWHO; k0++) {
			int k = (k0 + round) % NWHO;
			diag_ctx d;
			diag_init(&d);
			ir_program prog;
			bool compiled;
			buf out;
			buf_init(&out);
			double t0 = bench_cpu_now();
			const ir_policy *p = compile_one(o, &policies[0], &prog, &d, &compiled);
			int rc = -1;
			size_t refused = 0;
			if (p && k == 0) {
				double t1 = bench_cpu_now();
				rc = sc_build_bpf(p, true, &d, &out);
				if (!rc)
					br_add(r, "native", "compile", "polc generator", "Docker default",
					       "time", "ms", ms_since(t1));
			} else if (p) {
				t0 = bench_cpu_now();     /* its input is given, not parsed */
				scmp_filter_ctx ctx = direct(p, &refused, k >= 3);
				if (ctx) {
					seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, (uint32_t)(k < 3 ? k : k - 2));
					rc = sc_export(ctx, false, &out, &d);
					seccomp_release(ctx);
				}
			}
			double ms = ms_since(t0);
			if (rc || refused) {
				diag_print(&d, stderr, false);
				fprintf(stderr, "polc bench: Docker's default profile: %s failed\n", who[k]);
			} else {
				br_add(r, "native", "compile", who[k], "Docker default", "time", "ms", ms);
				char key[96];
				snprintf(key, sizeof key, "compile.docker_insns.%s", who[k]);
				br_note(r, "native", key, "%zu", out.len / sizeof(struct sock_filter));
			}
			buf_free(&out);
			if (compiled)
				ir_program_free(&prog);
			diag_free(&d);
			if (rc || refused)
				return -1;
		}
	}
	return 0;
}
