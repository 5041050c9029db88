/* constants.c - lookups over the generated constant table; see consts.h. */
#include "consts.h"
#include "../base/util.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, ((const polc_const *)elem)->name);
}

bool consts_lookup(const char *name, long long *value)
{
	const polc_const *c = bsearch(name, polc_consts, polc_nconsts,
				      sizeof *polc_consts, cmp_name);
	if (c && value)
		*value = c->value;
	return c != NULL;
}

/* Derived tables, built once. */
#define MAX_CAPS 64
#define MAX_ERRNO 4096
static char *caps[MAX_CAPS + 1];
static const char *errnos[MAX_ERRNO];
static const char **all_names;
static int last_cap = -1;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static bool is_errno_name(const char *n)
{
	if (n[0] != 'E' || !n[1])
		return false;
	for (const char *p = n + 1; *p; p++)
		if (!isupper((unsigned char)*p) && !isdigit((unsigned char)*p))
			return false;
	return true;
}

static void build_tables(void)
{
	long long lc = -1;
	consts_lookup("CAP_LAST_CAP", &lc);
	last_cap = (int)lc;
	all_names = xcalloc(polc_nconsts + 1, sizeof *all_names);
	for (size_t i = 0; i < polc_nconsts; i++) {
		const polc_const *c = &polc_consts[i];
		all_names[i] = c->name;
		if (!strncmp(c->name, "CAP_", 4) && strcmp(c->name, "CAP_LAST_CAP") &&
		    c->value >= 0 && c->value <= last_cap && c->value < MAX_CAPS &&
		    !caps[c->value]) {
			char *n = xstrdup(c->name + 4);
			for (char *p = n; *p; p++)
				*p = (char)tolower((unsigned char)*p);
			caps[c->value] = n;
		}
		/* first name in sorted order wins (EAGAIN before EWOULDBLOCK) */
		if (is_errno_name(c->name) && c->value > 0 && c->value < MAX_ERRNO &&
		    !errnos[c->value])
			errnos[c->value] = c->name;
	}
}

static void init(void)
{
	pthread_once(&once, build_tables);
}

int cap_last(void)
{
	init();
	return last_cap;
}

int cap_from_name(const char *name)
{
	init();
	if (!strncasecmp(name, "cap_", 4))
		name += 4;
	for (int i = 0; i <= last_cap && i < MAX_CAPS; i++)
		if (caps[i] && !strcasecmp(caps[i], name))
			return i;
	return -1;
}

const char *cap_name(int cap)
{
	init();
	return cap >= 0 && cap < MAX_CAPS ? caps[cap] : NULL;
}

const char *const *cap_names(size_t *n)
{
	init();
	*n = (size_t)last_cap + 1;
	return (const char *const *)caps;
}

const char *const *const_names(size_t *n)
{
	init();
	*n = polc_nconsts;
	return all_names;
}

int errno_from_name(const char *name)
{
	long long v;
	if (!is_errno_name(name) || !consts_lookup(name, &v) || v <= 0 || v >= MAX_ERRNO)
		return -1;
	return (int)v;
}

const char *errno_name(int err)
{
	init();
	return err > 0 && err < MAX_ERRNO ? errnos[err] : NULL;
}
