/* strset.c - see strset.h. FNV-1a over the bytes, linear probing, the
 * table kept at most half full. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/strset.h"
#include "base/util.h"

static uint64_t hash(const char *x)
{
	uint64_t h = 1469598103934665603ull;
	for (; *x; x++)
		h = (h ^ (unsigned char)*x) * 1099511628211ull;
	return h;
}

/* The slot that holds x, or the empty slot where it would go. */
static size_t *find(const strset *s, const char *x)
{
	size_t mask = s->nslot - 1;
	for (size_t i = hash(x) & mask;; i = (i + 1) & mask)
		if (!s->slot[i] || !strcmp(s->v[s->slot[i] - 1], x))
			return &s->slot[i];
}

static void reindex(strset *s, size_t nslot)
{
	free(s->slot);
	s->nslot = nslot;
	s->slot = xcalloc(nslot, sizeof *s->slot);
	for (size_t i = 0; i < s->n; i++)
		*find(s, s->v[i]) = i + 1;
}

bool strset_has(const strset *s, const char *x)
{
	return s->nslot && *find(s, x);
}

long strset_find(const strset *s, const char *x)
{
	return s->nslot ? (long)*find(s, x) - 1 : -1;
}

bool strset_take(strset *s, char *x)
{
	if (2 * (s->n + 1) > s->nslot)
		reindex(s, s->nslot ? 2 * s->nslot : 16);
	size_t *at = find(s, x);
	if (*at) {
		free(x);
		return false;
	}
	xgrow(&s->v, &s->cap, s->n + 1, sizeof *s->v);
	s->v[s->n++] = x;
	*at = s->n;
	return true;
}

bool strset_add(strset *s, const char *x)
{
	return strset_has(s, x) ? false : strset_take(s, xstrdup(x));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strset_sort(strset *s)
{
	xqsort(s->v, s->n, sizeof *s->v, cmp_str);
	if (s->nslot)
		reindex(s, s->nslot);
}

size_t strset_remove_if(strset *s, bool (*drop)(const char *x, void *ctx), void *ctx)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (drop(s->v[i], ctx))
			free(s->v[i]);
		else
			s->v[k++] = s->v[i];
	}
	size_t gone = s->n - k;
	s->n = k;
	if (gone)
		reindex(s, s->nslot);
	return gone;
}

void strset_free(strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	free(s->slot);
	*s = (strset){ 0 };
}
