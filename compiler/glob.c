/* glob.c - AppArmor-style path globs; see glob.h for the meaning. */
#include "glob.h"
#include "../base/util.h"

#include <stdlib.h>
#include <string.h>

/* ---- brace expansion ---- */

/* Find the '}' closing the '{' at g[i]; -1 if unbalanced. Skips escapes
 * and classes, where '{' is literal. */
static long brace_end(const char *g, long i)
{
	int depth = 0;
	for (; g[i]; i++) {
		if (g[i] == '\\') {
			if (!g[++i])
				return -1;
		} else if (g[i] == '[') {
			while (g[i] && g[i] != ']')
				i++;
			if (!g[i])
				return -1;
		} else if (g[i] == '{') {
			depth++;
		} else if (g[i] == '}') {
			if (--depth == 0)
				return i;
		}
	}
	return -1;
}

typedef struct {
	void (*fn)(const char *, void *);
	void *ctx;
	int count;
	bool fail;
} expand_state;

/* Expand `prefix` + g (from its start); recursion over the first brace. */
static void expand(expand_state *st, buf *prefix, const char *g)
{
	if (st->fail)
		return;
	long i = 0;
	for (; g[i]; i++) {
		if (g[i] == '\\' && g[i + 1]) {
			i++;
		} else if (g[i] == '[') {
			while (g[i] && g[i] != ']')
				i++;
			if (!g[i])
				break;
		} else if (g[i] == '{') {
			break;
		}
	}
	if (!g[i]) {
		size_t keep = prefix->len;
		buf_put(prefix, g, (size_t)i);
		if (++st->count > GLOB_MAX_EXPANSIONS)
			st->fail = true;
		else
			st->fn(buf_cstr(prefix), st->ctx);
		prefix->len = keep;
		return;
	}
	long end = brace_end(g, i);
	if (end < 0) {
		st->fail = true;
		return;
	}
	const char *rest = g + end + 1;
	/* split the group's body at top-level commas */
	long start = i + 1, depth = 0;
	for (long k = i + 1; k <= end; k++) {
		char c = g[k];
		if (c == '\\') {
			k++;
			continue;
		}
		if (c == '[') {
			while (g[k] != ']')
				k++;
			continue;
		}
		if (c == '{')
			depth++;
		else if (c == '}' && depth > 0)
			depth--;
		else if ((c == ',' && depth == 0) || k == end) {
			size_t keep = prefix->len;
			buf_put(prefix, g, (size_t)i);
			/* alternative + rest, expanded further */
			buf alt;
			buf_init(&alt);
			buf_put(&alt, g + start, (size_t)(k - start));
			buf_puts(&alt, rest);
			expand(st, prefix, buf_cstr(&alt));
			buf_free(&alt);
			prefix->len = keep;
			start = k + 1;
		}
	}
}

int glob_expand(const char *glob, void (*fn)(const char *alt, void *ctx), void *ctx)
{
	expand_state st = { fn, ctx, 0, false };
	buf prefix;
	buf_init(&prefix);
	expand(&st, &prefix, glob);
	buf_free(&prefix);
	return st.fail ? -1 : st.count;
}

/* ---- validation ---- */

typedef struct {
	const char *err;
} validate_state;

/* Paths are canonical (the kernel and AppArmor name an object one way
 * only): no empty segment ("//"), no "." or ".." segment, trailing ones
 * included. A trailing '/' (a directory) is fine. Braces end a segment
 * whose text is then unknown here: each alternative is checked again after
 * expansion. *pos: offset of the offending segment. */
static const char *noncanonical(const char *g, size_t *pos)
{
	size_t start = 0, dots = 0, lits = 0;
	bool known = true;
	for (size_t i = 0;; i++) {
		char c = g[i];
		if (c == '/' || !c) {
			if (known && i > 0 && c == '/' && lits == 0 && g[i - 1] == '/') {
				*pos = i;
				return "'//' in glob: paths are canonical, write one '/'";
			}
			if (known && start > 0 && lits == dots && (dots == 1 || dots == 2)) {
				*pos = start;
				return dots == 1 ? "'.' segment in glob: paths are canonical, drop it"
						 : "'..' segment in glob: paths are canonical, write the "
						   "path it names";
			}
			if (!c)
				return NULL;
			start = i + 1;
			dots = lits = 0;
			known = true;
		} else if (c == '{' || c == '}' || c == ',') {
			known = false;
		} else {
			if (c == '\\' && g[i + 1])
				c = g[++i];
			lits++;
			dots += c == '.';
		}
	}
}

static void validate_alt(const char *alt, void *ctx)
{
	validate_state *vs = ctx;
	size_t pos;
	if (!vs->err && alt[0] != '/')
		vs->err = "glob must be an absolute path (start with '/')";
	if (!vs->err)
		vs->err = noncanonical(alt, &pos);
}

const char *glob_validate(const char *g, size_t *errpos)
{
	size_t dummy;
	if (!errpos)
		errpos = &dummy;
	*errpos = 0;
	if (!g[0])
		return "empty glob";
	int depth = 0;
	for (size_t i = 0; g[i]; i++) {
		unsigned char c = (unsigned char)g[i];
		*errpos = i;
		if (c < 0x20 || c == 0x7f)
			return "control character in glob";
		if (c == '\\') {
			if (!g[i + 1])
				return "trailing '\\' in glob";
			i++;
		} else if (c == '[') {
			size_t j = i + 1;
			if (g[j] == '^')
				j++;
			if (g[j] == ']')
				return "empty character class '[]'";
			while (g[j] && g[j] != ']') {
				if (g[j] == '/')
					return "'/' cannot appear in a character class";
				if (g[j] == '\\' && g[j + 1])
					j++;
				else if (g[j] == '-' && g[j + 1] && g[j + 1] != ']' &&
					 (unsigned char)g[j - 1] > (unsigned char)g[j + 1] && j > i + 1)
					return "reversed range in character class";
				j++;
			}
			if (!g[j])
				return "unterminated character class '['";
			i = j;
		} else if (c == ']') {
			return "unmatched ']'";
		} else if (c == '{') {
			if (++depth > GLOB_MAX_NESTING)
				return "braces nested too deep";
		} else if (c == '}') {
			if (--depth < 0)
				return "unmatched '}'";
		} else if (c == '*') {
			size_t n = 0;
			while (g[i + n] == '*')
				n++;
			if (n > 2)
				return "more than two '*' in a row";
			i += n - 1;
		}
	}
	if (depth > 0) {
		*errpos = strchr(g, '{') - g;
		return "unterminated '{'";
	}
	const char *why = g[0] == '/' ? noncanonical(g, errpos) : NULL;
	if (why)
		return why;
	validate_state vs = { NULL };
	*errpos = 0;
	if (glob_expand(g, validate_alt, &vs) < 0)
		return "glob expands to too many alternatives";
	return vs.err;
}

bool glob_is_literal(const char *g)
{
	return !strpbrk(g, "*?[]{}\\");
}

/* ---- matching one brace-free alternative ---- */

static void tok_set(glob_tok *t, unsigned c) { t->set[c >> 3] |= (uint8_t)(1u << (c & 7)); }
static void tok_clear(glob_tok *t, unsigned c) { t->set[c >> 3] &= (uint8_t)~(1u << (c & 7)); }

static void tok_all_but_slash(glob_tok *t, bool many)
{
	memset(t->set, 0xff, sizeof t->set);
	tok_clear(t, '/');
	t->many = many;
}

/* The class at g[*i] == '['; *i ends on its ']'. A class never holds '/'. */
static void tok_class(const char *g, size_t *i, glob_tok *t)
{
	size_t k = *i + 1;
	bool neg = g[k] == '^';
	k += neg;
	while (g[k] != ']') {
		unsigned char lo = (unsigned char)g[k];
		if (lo == '\\')
			lo = (unsigned char)g[++k];
		unsigned char hi = lo;
		if (g[k + 1] == '-' && g[k + 2] && g[k + 2] != ']') {
			hi = (unsigned char)g[k + 2];
			if (hi == '\\')
				hi = (unsigned char)g[++k + 2];
			k += 2;
		}
		for (unsigned c = lo; c <= hi; c++)
			tok_set(t, c);
		k++;
	}
	if (neg)
		for (size_t b = 0; b < sizeof t->set; b++)
			t->set[b] = (uint8_t)~t->set[b];
	tok_clear(t, '/');
	*i = k;
}

size_t glob_tokenize(const char *g, glob_tok *out)
{
	size_t n = 0;
	for (size_t i = 0; g[i]; i++) {
		glob_tok *t = &out[n++];
		memset(t, 0, sizeof *t);
		if (g[i] == '\\') {
			tok_set(t, (unsigned char)g[++i]);
		} else if (g[i] == '*' && g[i + 1] == '*') {
			memset(t->set, 0xff, sizeof t->set);
			t->many = 1;
			i++;
		} else if (g[i] == '*' || g[i] == '?') {
			tok_all_but_slash(t, g[i] == '*');
		} else if (g[i] == '[') {
			tok_class(g, &i, t);
		} else {
			tok_set(t, (unsigned char)g[i]);
		}
	}
	return n;
}

typedef struct {
	const glob_tok *t;
	size_t nt;
	const unsigned char *p;
	size_t np;
	signed char *memo;        /* (nt+1) x (np+1): -1 unknown, 0/1 */
} matcher;

static bool m_at(matcher *m, size_t i, size_t j)
{
	signed char *slot = &m->memo[i * (m->np + 1) + j];
	if (*slot >= 0)
		return *slot;
	bool r = false;
	if (i == m->nt) {
		r = j == m->np;
	} else {
		const glob_tok *k = &m->t[i];
		if (!k->many) {
			r = j < m->np && glob_tok_has(k, m->p[j]) && m_at(m, i + 1, j + 1);
		} else {
			size_t min = (j > 0 && m->p[j - 1] == '/') ? 1 : 0;
			for (size_t len = 0; j + len <= m->np; len++) {
				if (len > 0 && !glob_tok_has(k, m->p[j + len - 1]))
					break;
				if (len >= min && m_at(m, i + 1, j + len)) {
					r = true;
					break;
				}
			}
		}
	}
	*slot = r;
	return r;
}

typedef struct {
	const char *path;
	bool matched;
} match_state;

/* Does path differ from the literal characters alt starts with? Most
 * statements of a large policy are told apart there, before tokenising. */
static bool literal_prefix_differs(const char *alt, const char *path)
{
	for (; *alt && !strchr("*?[\\", *alt); alt++, path++)
		if (*alt != *path)
			return true;
	return false;
}

static bool match_alt(const char *alt, const char *path)
{
	if (literal_prefix_differs(alt, path))
		return false;
	size_t len = strlen(alt);
	glob_tok *t = xmalloc((len + 1) * sizeof *t);
	matcher m = { t, glob_tokenize(alt, t), (const unsigned char *)path, strlen(path), NULL };
	size_t cells = (m.nt + 1) * (m.np + 1);
	m.memo = xmalloc(cells);
	memset(m.memo, -1, cells);
	bool r = m_at(&m, 0, 0);
	free(m.memo);
	free(t);
	return r;
}

static void match_cb(const char *alt, void *ctx)
{
	match_state *ms = ctx;
	if (!ms->matched && match_alt(alt, ms->path))
		ms->matched = true;
}

bool glob_match(const char *glob, const char *path)
{
	if (!strchr(glob, '{'))
		return match_alt(glob, path);
	match_state ms = { path, false };
	glob_expand(glob, match_cb, &ms);
	return ms.matched;
}
