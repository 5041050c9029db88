/* arena.c - see arena.h. */
#include "arena.h"
#include "util.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ALIGN 16
#define FIRST_CHUNK ((size_t)4 << 10)
#define HUGE_CHUNK ((size_t)2 << 20)     /* a transparent huge page */
#define MAX_CHUNK ((size_t)4 << 20)

typedef struct chunk {
	struct chunk *next;
	size_t size;           /* bytes, this header included */
	bool mapped;           /* mmap (else malloc) */
	_Alignas(ALIGN) char data[];
} chunk;

struct ir_arena {
	chunk *head;
	char *at;              /* free space of the current chunk */
	size_t left;
	size_t next;           /* size of the next chunk */
};

struct ir_arena *arena_new(void)
{
	struct ir_arena *a = xcalloc(1, sizeof *a);
	a->next = FIRST_CHUNK;
	return a;
}

/* A chunk of size bytes (header included) at the list's head;
 * mapped with the huge-page hint when map and it is that large. */
static chunk *chunk_new(struct ir_arena *a, size_t size, bool map)
{
	chunk *c = NULL;
	if (map && size >= HUGE_CHUNK) {
		void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
			(void)madvise(p, size, MADV_HUGEPAGE);   /* a hint: THP may be off */
			c = p;
			c->mapped = true;
		}
	}
	if (!c) {
		c = xmalloc(size);
		c->mapped = false;
	}
	c->size = size;
	c->next = a->head;
	a->head = c;
	return c;
}

void *arena_alloc(struct ir_arena *a, size_t n)
{
#ifdef POLC_ASAN
	return memset(chunk_new(a, sizeof(chunk) + n, false)->data, 0, n);
#else
	n = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (n > a->left) {
		/* a large object gets a chunk of its own; the current one
		 * keeps its free space */
		if (n > MAX_CHUNK / 8)
			return memset(chunk_new(a, sizeof(chunk) + n, true)->data, 0, n);
		chunk *c = chunk_new(a, a->next, true);
		a->at = c->data;
		a->left = c->size - sizeof(chunk);
		if (a->next < MAX_CHUNK)
			a->next *= 2;
	}
	void *p = a->at;
	a->at += n;
	a->left -= n;
	return memset(p, 0, n);   /* only what is used is touched */
#endif
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
	for (chunk *c = a->head, *next; c; c = next) {
		next = c->next;
		if (c->mapped)
			munmap(c, c->size);
		else
			free(c);
	}
	free(a);
}
