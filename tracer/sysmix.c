/* sysmix.c - see sysmix.h. */
#include "sysmix.h"

#include <stdlib.h>
#include <string.h>

static int arch_of(const char *s)
{
	for (int a = 0; a < IR_NARCH; a++)
		if (!strcmp(ir_arch_name((ir_arch)a), s))
			return a;
	return -1;
}

size_t trace_sysmix(const trace *t, sys_freq **out, uint64_t *skipped)
{
	size_t n = 0, cap = 0, nrec;
	sys_freq *v = NULL;
	tr_rec **recs = trace_sorted(t, &nrec);
	uint64_t skip = 0;
	for (size_t i = 0; i < nrec; i++) {
		const tr_rec *r = recs[i];
		if (r->kind != TR_SYSCALL || r->nf < 2)
			continue;
		int a = arch_of(r->f[0]);
		int nr = a < 0 ? -1 : sys_resolve((ir_arch)a, r->f[1]);
		if (nr < 0) {
			skip += r->count;
			continue;
		}
		size_t j = 0;
		while (j < n && !(v[j].arch == (ir_arch)a && v[j].nr == (uint32_t)nr))
			j++;
		if (j == n) {
			xgrow(&v, &cap, n + 1, sizeof *v);
			v[n].arch = (ir_arch)a;
			v[n].nr = (uint32_t)nr;
			v[n++].count = 0;
		}
		v[j].count += r->count;
	}
	free(recs);
	if (skipped)
		*skipped = skip;
	*out = v;
	return n;
}

int trace_sysmix_read(const char *path, sys_freq **out, size_t *n, char **err)
{
	trace t;
	trace_init(&t);
	int r = trace_read(&t, path, err);
	if (r < 0) {
		trace_free(&t);
		return r;   /* TRACE_EIO: the caller exits 3, not 1 */
	}
	*n = trace_sysmix(&t, out, NULL);
	trace_free(&t);
	if (!*n) {
		*err = xasprintf("%s: no syscall records", path);
		return -1;
	}
	return 0;
}
