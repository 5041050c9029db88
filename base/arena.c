/* arena.c - see arena.h. A list of malloc'd blocks. */
#include "arena.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct ir_arena {
	void **blocks;
	size_t n, cap;
};

struct ir_arena *arena_new(void)
{
	return xcalloc(1, sizeof(struct ir_arena));
}

void *arena_alloc(struct ir_arena *a, size_t n)
{
	void *p = xcalloc(1, n);
	xgrow(&a->blocks, &a->cap, a->n + 1, sizeof *a->blocks);
	a->blocks[a->n++] = p;
	return p;
}

char *arena_strdup(struct ir_arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(a, n);
	memcpy(p, s, n);
	return p;
}

void arena_free(struct ir_arena *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		free(a->blocks[i]);
	free(a->blocks);
	free(a);
}
