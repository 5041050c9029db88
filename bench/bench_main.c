/* bench_main.c - polc bench as a whole: where things are, the scratch
 * directory, the sections in order, the outputs. */
#include "bench.h"
#include "../backends/backend.h"
#include "../compiler/compile.h"
#include "../base/diag.h"

#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *const bench_scenarios[BENCH_NSCEN] = { "NoProtect", "AlwaysAllow", "RuntimeDefault",
						   "EnhanceProtect" };
const char *const bench_scenario_rule[BENCH_NSCEN] = { "", "always-allow", "runtime-default",
						       "enhance-protect" };
const int bench_rule_counts[BENCH_NRULES] = { 1, 2, 4, 8 };
const char *const bench_rule_scenarios[BENCH_NRULES] = { "Rules1", "Rules2", "Rules4", "Rules8" };
const char *const bench_redis_tests[BENCH_NREDIS] = { "GET", "SET", "GET-P" BENCH_REDIS_DEPTH,
							"SET-P" BENCH_REDIS_DEPTH };

/* CPU time, not wall time, for compile costs: the host is shared, and a
 * compiler waiting for a CPU costs nothing. Page faults count (system). */
double bench_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void utc(char *out, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, n, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

void bench_stamp(bresults *r, const char *env, const char *section, const char *what)
{
	char when[64], load[64] = "?", key[96];
	utc(when, sizeof when);
	FILE *f = fopen("/proc/loadavg", "r");
	if (f && fscanf(f, "%63s", load) != 1)
		snprintf(load, sizeof load, "?");
	if (f)
		fclose(f);
	snprintf(key, sizeof key, "%s.%s", section, what);
	br_note(r, env, key, "%s load %s", when, load);
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* This binary, the data tree (bench/ scripts, profiles, the lab:
 * polc_data_dir) and the micro program: $POLC_BENCH_MICRO, else beside the
 * binary (BUILD/bench/micro), else in the data tree (installed). */
static int locate(bench_opts *o)
{
	static char self[4096], src[4096], micro[4200];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) {
		fprintf(stderr, "polc bench: cannot find this binary: %s\n", strerror(errno));
		return -1;
	}
	self[n] = 0;
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", self);
	const char *bindir = dirname(dir);
	const char *data = polc_data_dir("bench/redis.sh");
	bool ok = data != NULL;
	if (ok)
		snprintf(src, sizeof src, "%s", data);
	else if (!getenv("POLC_SRC") && getcwd(src, sizeof src))
		ok = exists("bench/redis.sh");
	if (!ok) {
		fprintf(stderr, "polc bench: cannot find the bench/ scripts (installed under "
			"BINDIR/../share/polc by make install, or set POLC_SRC to the polc "
			"source directory)\n");
		return -1;
	}
	const char *env = getenv("POLC_BENCH_MICRO");
	snprintf(micro, sizeof micro, "%s", env && *env ? env : "");
	if (!*micro)
		snprintf(micro, sizeof micro, "%s/bench/micro", bindir);
	if (!exists(micro))   /* installed: beside the scripts */
		snprintf(micro, sizeof micro, "%s/bench/micro", src);
	o->polc = self;
	o->srcdir = src;
	o->micro = micro;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st; (void)flag; (void)f;
	remove(path);
	return 0;
}

const char *bench_backend(size_t i)
{
	size_t n = 0;
	while (backends_all[n])
		n++;
	return i < n ? backends_all[i]->name : NULL;
}

const char *bench_title(const char *name)
{
	const backend *b = backend_find(name);
	return b && b->title ? b->title : name;
}

bool bench_needs_lab(const char *name)
{
	const backend *b = backend_find(name);
	return b && b->needs_lab;
}

bool bench_unloads(const char *name)
{
	const backend *b = backend_find(name);
	return b && b->unload;
}

/* What each scenario leaves unenforced per target (--allow-partial). */
static void scenario_support(bresults *r)
{
	for (int s = 1; s < BENCH_NSCEN; s++) {
		char *text = xasprintf("policy p { use %s; }", bench_scenario_rule[s]);
		diag_ctx d;
		diag_init(&d);
		ir_program prog;
		compile_opts co = { 0 };
		if (!polc_compile_text("scenario.pol", text, &co, &d, &prog)) {
			const ir_policy *p = ir_program_select(&prog, NULL, &d);
			for (size_t t = 0; p && backends_all[t]; t++) {
				diag_ctx e;
				diag_init(&e);
				backend_check(backends_all[t], p, true, &e);
				char key[96];
				snprintf(key, sizeof key, "partial.%s.%s", bench_scenarios[s], backends_all[t]->name);
				br_note(r, "model", key, "%zu", e.nwarnings);
				diag_free(&e);
			}
			ir_program_free(&prog);
		}
		diag_free(&d);
		free(text);
	}
}

static int write_out(const char *path, buf *b, const char *what)
{
	if (write_file_atomic(path, b->data ? b->data : "", b->len) < 0) {
		fprintf(stderr, "polc bench: cannot write %s '%s': %s\n", what, path, strerror(errno));
		return -1;
	}
	if (strcmp(path, "-"))
		fprintf(stderr, "polc bench: wrote %s (%s)\n", path, what);
	return 0;
}

static int outputs(const bench_opts *o, const bresults *r)
{
	int rc = 0;
	buf b;
	if (o->raw) {
		buf_init(&b);
		br_write_raw(r, &b);
		rc |= write_out(o->raw, &b, "raw results");
		buf_free(&b);
	}
	if (o->in_lab)
		return rc;
	if (o->md || (!o->json && !o->svg && !o->raw)) {
		buf_init(&b);
		bench_markdown(o, r, &b);
		rc |= write_out(o->md ? o->md : "-", &b, "report");
		buf_free(&b);
	}
	if (o->json) {
		buf_init(&b);
		bench_json(o, r, &b);
		rc |= write_out(o->json, &b, "JSON");
		buf_free(&b);
	}
	if (o->svg) {
		buf_init(&b);
		bench_svg(r, &b);
		rc |= write_out(o->svg, &b, "chart");
		buf_free(&b);
	}
	return rc;
}

/* Servers and tools write to /dev/null; if something replaced it with a
 * file (a rename onto it), they misbehave and the figures are wrong. */
static bool null_ok(void)
{
	struct stat st;
	if (!stat("/dev/null", &st) && S_ISCHR(st.st_mode))
		return true;
	fprintf(stderr, "polc bench: /dev/null is not the null device (replaced by a file?); "
		"restore it first: mknod -m 666 /dev/null.new c 1 3 && mv /dev/null.new /dev/null\n");
	return false;
}

void bench_checkpoint(const bench_opts *o, const bresults *r)
{
	if (!o->raw)
		return;
	buf b;
	buf_init(&b);
	br_write_raw(r, &b);
	if (write_file_atomic(o->raw, b.data, b.len) < 0)
		fprintf(stderr, "polc bench: cannot write %s: %s\n", o->raw, strerror(errno));
	buf_free(&b);
}

/* What one of several merged tables holds, for the report's head: when
 * it ran and which sections it measured where. */
static void merged_note(bresults *r, size_t i, const char *path, const bresults *t)
{
	buf b;
	buf_init(&b);
	const char *base = strrchr(path, '/');
	buf_printf(&b, "%s:", base ? base + 1 : path);
	for (size_t k = 0; k < t->n; k++) {
		bool seen = false;
		for (size_t j = 0; j < k && !seen; j++)
			seen = !strcmp(t->s[j].env, t->s[k].env) &&
			       !strcmp(t->s[j].section, t->s[k].section);
		if (!seen)
			buf_printf(&b, " %s %s,", t->s[k].env, t->s[k].section);
	}
	if (b.len && b.data[b.len - 1] == ',')
		b.len--;
	static const char *const envs[] = { "native", "lab-host" };
	for (size_t e = 0; e < 2; e++) {
		const char *st = br_get(t, envs[e], "started");
		const char *fin = br_get(t, envs[e], "finished");
		const char *w = br_get(t, envs[e], "wall_seconds");
		if (st)
			buf_printf(&b, "; %s started %s, %s%s", envs[e], st,
				   fin ? "finished " : "cut short (no finish recorded)", fin ? fin : "");
		if (w)
			buf_printf(&b, " (%s s)", w);
	}
	const char *cmd = br_get(t, "run", "command");
	if (cmd)
		buf_printf(&b, "; `%s`", cmd);
	char key[32];
	snprintf(key, sizeof key, "merged.%zu", i + 1);
	br_note(r, "run", key, "%s", buf_cstr(&b));
	buf_free(&b);
}

/* Add t to r as reading t's raw text into r would: notes replaced or
 * appended, values appended to their series. */
static void merge(bresults *r, const bresults *t)
{
	for (size_t i = 0; i < t->nn; i++)
		br_note(r, t->notes[i].env, t->notes[i].key, "%s", t->notes[i].value);
	for (size_t i = 0; i < t->n; i++) {
		const bseries *s = &t->s[i];
		for (size_t j = 0; j < s->n; j++)
			br_add(r, s->env, s->section, s->backend, s->scenario, s->metric, s->unit,
			       s->v[j]);
	}
}

/* Merge one table into r; a section's start or end stamp that both have
 * keeps both ("A and B"): its rounds came from each run. */
static void keep_starts(bresults *r, const bresults *t)
{
	size_t n = r->nn;
	char **old = xcalloc(n + 1, sizeof *old);
	for (size_t i = 0; i < n; i++)
		old[i] = xstrdup(r->notes[i].value);
	merge(r, t);
	for (size_t i = 0; i < n; i++) {
		const char *k = r->notes[i].key;
		size_t kl = strlen(k);
		bool stamp = (kl > 6 && !strcmp(k + kl - 6, ".start")) ||
			     (kl > 4 && !strcmp(k + kl - 4, ".end"));
		if (stamp && strcmp(old[i], r->notes[i].value) &&
		    !strstr(old[i], r->notes[i].value)) {
			char *env = xstrdup(r->notes[i].env), *key = xstrdup(k);
			br_note(r, env, key, "%s and %s", old[i], r->notes[i].value);
			free(env);
			free(key);
		}
		free(old[i]);
	}
	free(old);
}

/* --report-from RAW...: the outputs again from saved tables (merged: e.g. a
 * native run and a --vm-only run), measuring nothing. */
static int rerender(const bench_opts *o)
{
	bresults r;
	br_init(&r);
	int rc = 0;
	for (size_t i = 0; i < o->nreport_from && !rc; i++) {
		bresults t;
		br_init(&t);
		if (br_load(o->report_from[i], &t) < 0) {
			rc = 3;
		} else {
			keep_starts(&r, &t);
			if (o->nreport_from > 1)
				merged_note(&r, i, o->report_from[i], &t);
		}
		br_free(&t);
	}
	if (!rc)
		rc = outputs(o, &r) ? 3 : 0;
	br_free(&r);
	return rc;
}

/* --compare A B: the verdict on stdout, or in -o's file. */
static int compare(const bench_opts *o)
{
	buf out;
	buf_init(&out);
	int rc = bench_compare(o->compare[0], o->compare[1], o->within > 0 ? o->within : 0.01, &out);
	if (rc != 3 && write_out(o->md ? o->md : "-", &out, "comparison") < 0)
		rc = 3;
	buf_free(&out);
	return rc;
}

int bench_main(bench_opts *o)
{
	if (o->compare[0])
		return compare(o);
	if (o->nreport_from)
		return rerender(o);
	if (locate(o) < 0 || !null_ok())
		return 3;
	const char *tmp = getenv("TMPDIR");
	char *work = xasprintf("%s/polc-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(work) || chmod(work, 0755) < 0) {   /* postgres must reach DIR/pg */
		fprintf(stderr, "polc bench: cannot make a scratch directory: %s\n", strerror(errno));
		free(work);
		return 3;
	}
	o->workdir = work;
	bresults r;
	br_init(&r);
	/* a --vm-only run keeps its own times apart from a native run's,
	 * with which its table may be merged (--report-from) */
	const char *env = o->vm_only ? "lab-host" : NATIVE_ENV(o);
	char when[64];
	utc(when, sizeof when);
	br_note(&r, env, "started", "%s", when);
	double t0 = bench_now();
	if (!exists(o->micro) && (o->sections & (BS_MICRO | BS_RULES))) {
		br_note(&r, env, "na.micro", "no micro program at %s (make bench builds it)", o->micro);
		o->sections &= ~(unsigned)(BS_MICRO | BS_RULES);
	}
	int rc = 0;
	if (!o->in_lab && !o->vm_only) {
		br_note(&r, "run", "command", "%s", o->cmdline ? o->cmdline : "polc bench");
		br_note(&r, "run", "mode", "%s", o->mode == MODE_FULL ? "full" :
			o->mode == MODE_QUICK ? "quick" : "smoke");
		scenario_support(&r);
		if (o->sections & BS_FILTER)
			rc |= bench_filter_cost(o, &r);
		if (o->sections & BS_COMPILE)
			rc |= bench_compile_cost(o, &r);
	}
	bench_checkpoint(o, &r);
	if (!o->vm_only && bench_workloads(o, &r) < 0)
		rc = -1;
	bench_checkpoint(o, &r);
	if ((o->vm || o->vm_only) && !o->in_lab && rc >= 0 &&
	    (o->sections & (BS_MICRO | BS_REDIS | BS_PGBENCH | BS_SOAK | BS_HOOKS | BS_RULES | BS_TRACERS)) &&
	    bench_lab(o, &r) < 0)
		rc = -1;   /* the report still says what the lab measured */
	utc(when, sizeof when);
	br_note(&r, env, "finished", "%s", when);
	br_note(&r, env, "wall_seconds", "%.0f", bench_now() - t0);
	fprintf(stderr, "polc bench: %s took %.0f s\n", env, bench_now() - t0);
	int out = outputs(o, &r);
	br_free(&r);
	nftw(work, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(work);
	if (out)
		return 3;
	return rc < 0 ? 3 : 0;
}
