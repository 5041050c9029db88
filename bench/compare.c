/* compare.c - `polc bench --compare A.raw B.raw`: do two runs agree?
 *
 * Every cost-ratio cell both raw tables hold (a series against its
 * section's baseline in the same environment: micro, rules, redis, pgbench,
 * tracers) is taken as the median of its per-round ratios in each run, and
 * the two medians are compared. Per environment and section: the number of
 * cells, the largest relative difference and where; then each cell further
 * apart than `within`. Exit 0 when every cell is within it, 1 when one is
 * not, 3 when a table cannot be read: a repeatability gate for CI or for a
 * results file regenerated from two runs (issue #16: two runs agree).
 */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One section's tally. */
typedef struct {
	const char *env, *section;
	size_t cells;
	double worst;              /* the largest relative difference */
	const bseries *at;         /* where (A's series) */
	double wa, wb;             /* its medians in A and B */
} tally;

static tally *tally_of(tally **t, size_t *n, const bseries *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*t)[i].env, s->env) && !strcmp((*t)[i].section, s->section))
			return &(*t)[i];
	*t = xrealloc(*t, (*n + 1) * sizeof **t);
	(*t)[*n] = (tally){ .env = s->env, .section = s->section };
	return &(*t)[(*n)++];
}

/* A cell as the report names it: backend, scenario, metric. */
static void cell_name(buf *out, const bseries *s)
{
	buf_printf(out, "%s %s %s", strcmp(s->backend, "-") ? bench_title(s->backend) : "-",
		   s->scenario, s->metric);
}

/* Medians of s's cost ratio in A and in B, false when B lacks the cell. */
static bool both(const bresults *a, const bresults *b, const bseries *s, double *ma, double *mb)
{
	const bseries *base_a = br_base_of(a, s);
	const bseries *sb = br_find(b, s->env, s->section, s->backend, s->scenario, s->metric);
	const bseries *base_b = sb ? br_base_of(b, sb) : NULL;
	double lo, hi;
	return base_a && base_b && br_ratio(s, base_a, ma, &lo, &hi) &&
	       br_ratio(sb, base_b, mb, &lo, &hi);
}

int bench_compare(const char *path_a, const char *path_b, double within, buf *out)
{
	bresults a, b;
	br_init(&a);
	br_init(&b);
	int rc = 3;
	if (br_load(path_a, &a) < 0 || br_load(path_b, &b) < 0)
		goto done;
	tally *t = NULL;
	size_t nt = 0, apart = 0;
	buf far;
	buf_init(&far);
	for (size_t i = 0; i < a.n; i++) {
		const bseries *s = &a.s[i];
		double ma, mb;
		if (!both(&a, &b, s, &ma, &mb))
			continue;
		double d = fabs(mb - ma) / ma;
		tally *x = tally_of(&t, &nt, s);
		x->cells++;
		if (!x->at || d > x->worst) {
			x->worst = d;
			x->at = s;
			x->wa = ma;
			x->wb = mb;
		}
		if (d > within) {
			apart++;
			buf_printf(&far, "  %s %s: ", s->env, s->section);
			cell_name(&far, s);
			buf_printf(&far, ": %.4f against %.4f (%.2f %%)\n", ma, mb, d * 100);
		}
	}
	buf_printf(out, "polc bench --compare: %s against %s, cells more than %.2f %% apart: %zu\n",
		   path_a, path_b, within * 100, apart);
	for (size_t i = 0; i < nt; i++) {
		buf_printf(out, "%s %s: %zu cells, largest difference %.2f %% (", t[i].env,
			   t[i].section, t[i].cells, t[i].worst * 100);
		cell_name(out, t[i].at);
		buf_printf(out, ": %.4f against %.4f)\n", t[i].wa, t[i].wb);
	}
	if (!nt)
		buf_puts(out, "no cost-ratio cell is in both tables\n");
	if (apart)
		buf_printf(out, "apart:\n%s", buf_cstr(&far));
	rc = apart || !nt ? 1 : 0;
	buf_free(&far);
	free(t);
done:
	br_free(&a);
	br_free(&b);
	return rc;
}
