/* results.c - the bench result table: series of per-round values, notes,
 * medians and paired ratios, and the raw text form the lab hands back. */
#include "bench.h"
#include "../base/diag.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void br_init(bresults *r)
{
	memset(r, 0, sizeof *r);
}

void br_free(bresults *r)
{
	for (size_t i = 0; i < r->n; i++) {
		bseries *s = &r->s[i];
		free(s->env); free(s->section); free(s->backend);
		free(s->scenario); free(s->metric); free(s->unit); free(s->v);
	}
	for (size_t i = 0; i < r->nn; i++) {
		free(r->notes[i].env); free(r->notes[i].key); free(r->notes[i].value);
	}
	free(r->s);
	free(r->notes);
	memset(r, 0, sizeof *r);
}

static bool eq(const char *a, const char *b)
{
	return !strcmp(a, b);
}

const bseries *br_find(const bresults *r, const char *env, const char *section,
		       const char *backend, const char *scenario, const char *metric)
{
	for (size_t i = 0; i < r->n; i++) {
		const bseries *s = &r->s[i];
		if (eq(s->env, env) && eq(s->section, section) && eq(s->backend, backend) &&
		    eq(s->scenario, scenario) && eq(s->metric, metric))
			return s;
	}
	return NULL;
}

void br_add(bresults *r, const char *env, const char *section, const char *backend,
	    const char *scenario, const char *metric, const char *unit, double v)
{
	bseries *s = (bseries *)br_find(r, env, section, backend, scenario, metric);
	if (!s) {
		xgrow(&r->s, &r->cap, r->n + 1, sizeof *r->s);
		s = &r->s[r->n++];
		memset(s, 0, sizeof *s);
		s->env = xstrdup(env);
		s->section = xstrdup(section);
		s->backend = xstrdup(backend);
		s->scenario = xstrdup(scenario);
		s->metric = xstrdup(metric);
		s->unit = xstrdup(unit);
	}
	xgrow(&s->v, &s->cap, s->n + 1, sizeof *s->v);
	s->v[s->n++] = v;
}

/* Notes are single-line: tabs and newlines become spaces (raw form). */
static char *one_line(char *s)
{
	for (char *p = s; *p; p++)
		if (*p == '\t' || *p == '\n' || *p == '\r')
			*p = ' ';
	return s;
}

static void note_set(bresults *r, const char *env, const char *key, char *value)
{
	one_line(value);
	for (size_t i = 0; i < r->nn; i++)
		if (eq(r->notes[i].env, env) && eq(r->notes[i].key, key)) {
			free(r->notes[i].value);
			r->notes[i].value = value;
			return;
		}
	xgrow(&r->notes, &r->ncap, r->nn + 1, sizeof *r->notes);
	r->notes[r->nn].env = xstrdup(env);
	r->notes[r->nn].key = xstrdup(key);
	r->notes[r->nn++].value = value;
}

void br_note(bresults *r, const char *env, const char *key, const char *fmt, ...)
{
	va_list ap;
	buf b;
	buf_init(&b);
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	note_set(r, env, key, xstrdup(buf_cstr(&b)));
	buf_free(&b);
}

const char *br_get(const bresults *r, const char *env, const char *key)
{
	for (size_t i = 0; i < r->nn; i++)
		if (eq(r->notes[i].env, env) && eq(r->notes[i].key, key))
			return r->notes[i].value;
	return NULL;
}

void br_write_raw(const bresults *r, buf *out)
{
	buf_puts(out, "polc-bench-raw 1\n");
	for (size_t i = 0; i < r->nn; i++)
		buf_printf(out, "N\t%s\t%s\t%s\n", r->notes[i].env, r->notes[i].key,
			   r->notes[i].value);
	for (size_t i = 0; i < r->n; i++) {
		const bseries *s = &r->s[i];
		buf_printf(out, "S\t%s\t%s\t%s\t%s\t%s\t%s\t", s->env, s->section, s->backend,
			   s->scenario, s->metric, s->unit);
		for (size_t j = 0; j < s->n; j++)
			buf_printf(out, "%s%.17g", j ? "," : "", s->v[j]);
		buf_puts(out, "\n");
	}
}

/* Split line at tabs into at most n fields; returns how many. */
static size_t fields(char *line, char **f, size_t n)
{
	size_t k = 0;
	while (k < n) {
		f[k++] = line;
		char *t = strchr(line, '\t');
		if (!t)
			break;
		*t = 0;
		line = t + 1;
	}
	return k;
}

static void read_values(bresults *r, char **f)
{
	char *p = f[7];
	while (*p) {
		char *end;
		double v = strtod(p, &end);
		if (end == p)
			break;
		br_add(r, f[1], f[2], f[3], f[4], f[5], f[6], v);
		p = *end == ',' ? end + 1 : end;
	}
}

int br_read_raw(bresults *r, const char *text)
{
	char *copy = xstrdup(text), *save = NULL;
	int rc = -1;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[8];
		if (rc < 0) {
			if (strcmp(line, "polc-bench-raw 1"))
				break;
			rc = 0;
			continue;
		}
		size_t k = fields(line, f, 8);
		if (k == 4 && eq(f[0], "N"))
			note_set(r, f[1], f[2], xstrdup(f[3]));
		else if (k == 8 && eq(f[0], "S"))
			read_values(r, f);
	}
	free(copy);
	return rc;
}

int br_load(const char *path, bresults *r)
{
	diag_ctx d;
	diag_init(&d);
	src_file *f = diag_read_file(&d, path, src_loc_none());
	int rc = 0;
	if (!f) {
		diag_print(&d, stderr, false);
		rc = -1;
	} else if (br_read_raw(r, f->text) < 0) {
		fprintf(stderr, "polc bench: %s is not a polc bench raw table\n", path);
		rc = -1;
	}
	diag_free(&d);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double br_median(const double *v, size_t n)
{
	if (!n)
		return NAN;
	double *t = xmalloc(n * sizeof *t);
	memcpy(t, v, n * sizeof *t);
	qsort(t, n, sizeof *t, cmp_double);
	double m = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	free(t);
	return m;
}

bool br_higher_better(const char *unit)
{
	return eq(unit, "req/s") || eq(unit, "tps");
}

const char *br_base_scenario(const char *section)
{
	return eq(section, "tracers") ? "untraced" : "NoProtect";
}

const bseries *br_base_of(const bresults *r, const bseries *s)
{
	const char *base = br_base_scenario(s->section);
	if (eq(s->backend, "-") && eq(s->scenario, base))
		return NULL;
	return br_find(r, s->env, s->section, "-", base, s->metric);
}

bool br_ratio(const bseries *s, const bseries *base, double *med, double *lo, double *hi)
{
	if (!s || !base || !s->n || !base->n)
		return false;
	size_t n = s->n < base->n ? s->n : base->n;
	double *q = xmalloc(n * sizeof *q);
	size_t k = 0;
	bool up = br_higher_better(s->unit);
	for (size_t i = 0; i < n; i++) {
		double a = s->v[i], b = base->v[i];
		if (a > 0 && b > 0)
			q[k++] = up ? b / a : a / b;
	}
	if (k) {
		*med = br_median(q, k);
		qsort(q, k, sizeof *q, cmp_double);
		*lo = q[0];
		*hi = q[k - 1];
	}
	free(q);
	return k > 0;
}
