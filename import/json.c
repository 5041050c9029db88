/* json.c - JSON into a libyaml document (json.h). A recursive descent over
 * the subset json.h names; every case where libyaml might read the text
 * differently (its line breaks, tabs, the 1,024-character limit of an
 * implicit key, a key and its ':' on different lines, a tab outside the
 * root's brackets) leaves the subset.
 *
 * The document is built in place of libyaml's builder: the nodes in one
 * array, every scalar's value in one copy of the text (at its own offset:
 * a plain scalar is NUL-terminated at the delimiter after it, a string at
 * its closing quote, an escaped string written over itself, shorter), the
 * default tags shared (static), a collection's children gathered on a
 * scratch stack and moved, when it closes, to the items or pairs block. */
#include "json.h"
#include "../base/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	size_t off, n;             /* a collection's children in items/pairs */
} span;

typedef struct {
	const char *s, *p, *e;     /* text, cursor, end */
	const char *ls;            /* start of the cursor's line */
	size_t line;
	char *values;              /* the copy of the text holding the scalars */
	yaml_node_t *nodes;        /* node id i is nodes[i - 1] */
	span *spans;               /* beside nodes */
	size_t nn, ncap;
	int *scratch;              /* the open collections' children (a pair: key, value) */
	size_t ns, scap;
	yaml_node_item_t *items;
	size_t ni, icap;
	yaml_node_pair_t *pairs;
	size_t np, pcap;
	int depth;
} jr;

static yaml_mark_t mark_at(const jr *r, const char *at)
{
	yaml_mark_t m = { (size_t)(at - r->s), r->line, (size_t)(at - r->ls) };
	return m;
}

/* Blanks between tokens: spaces, '\n', and tabs inside the root's brackets
 * (libyaml takes a tab for a blank only in a flow collection). */
static void ws(jr *r)
{
	const char *p = r->p, *e = r->e;
	for (;;) {
		while (p < e && *p == ' ')   /* indentation: most of them */
			p++;
		if (p < e && *p == '\n') {
			r->line++;
			r->ls = ++p;
		} else if (p < e && *p == '\t' && r->depth) {
			p++;
		} else {
			break;
		}
	}
	r->p = p;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A new node of type t; its id. */
static int new_node(jr *r, yaml_node_type_t t, const char *from)
{
	if (r->nn == r->ncap) {
		r->ncap = r->ncap ? 2 * r->ncap : 64;
		r->nodes = xrealloc(r->nodes, r->ncap * sizeof *r->nodes);
		r->spans = xrealloc(r->spans, r->ncap * sizeof *r->spans);
	}
	yaml_node_t *n = &r->nodes[r->nn++];
	memset(n, 0, sizeof *n);
	n->type = t;
	n->start_mark = mark_at(r, from);
	return (int)r->nn;
}

/* One escape after the backslash at r->p, written at *w; false outside the
 * subset. Every escape is longer than what it writes. */
static bool escape(jr *r, char **w)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	char c = *++r->p;
	const char *k = c ? strchr(from, c) : NULL;
	if (k) {
		r->p++;
		*(*w)++ = to[k - from];
		return true;
	}
	if (c != 'u' || r->e - r->p < 5)
		return false;
	unsigned v = 0;
	for (int i = 1; i <= 4; i++) {
		int h = hexval(r->p[i]);
		if (h < 0)
			return false;
		v = v << 4 | (unsigned)h;
	}
	if (!v || (v >= 0xd800 && v <= 0xdfff))
		return false;
	r->p += 5;
	char *u = *w;
	if (v < 0x80) {
		u[0] = (char)v;
		*w += 1;
	} else if (v < 0x800) {
		u[0] = (char)(0xc0 | v >> 6);
		u[1] = (char)(0x80 | (v & 0x3f));
		*w += 2;
	} else {
		u[0] = (char)(0xe0 | v >> 12);
		u[1] = (char)(0x80 | (v >> 6 & 0x3f));
		u[2] = (char)(0x80 | (v & 0x3f));
		*w += 3;
	}
	return true;
}

/* The value at values[from..to) (to is a byte the value does not need). */
static int add_scalar(jr *r, const char *from, size_t off, size_t n, yaml_scalar_style_t st)
{
	int id = new_node(r, YAML_SCALAR_NODE, from);
	yaml_node_t *node = &r->nodes[id - 1];
	node->tag = (yaml_char_t *)YAML_DEFAULT_SCALAR_TAG;
	node->data.scalar.value = (yaml_char_t *)r->values + off;
	node->data.scalar.length = n;
	node->data.scalar.style = st;
	node->end_mark = mark_at(r, r->p);
	r->values[off + n] = 0;
	return id;
}

/* Bytes a string holds as they are: printable ASCII but '"' and '\\'. */
static const bool as_is[256] = {   /* 0x80..0xff: 0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   /* 0x00 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   /* 0x10 */
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,   /* 0x20 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,   /* 0x30 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,   /* 0x40 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,   /* 0x50 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,   /* 0x60 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,   /* 0x70 */
};

/* A string at r->p ('"'): its node id, 0 outside the subset. */
static int string(jr *r)
{
	const char *from = r->p++;
	size_t off = (size_t)(r->p - r->s);
	char *w = NULL;            /* after an escape: where the value goes on */
	for (;;) {
		const char *run = r->p, *p = r->p;
		while (p < r->e && as_is[(unsigned char)*p])
			p++;
		r->p = p;
		if (w) {
			memcpy(w, run, (size_t)(r->p - run));
			w += r->p - run;
		}
		if (r->p >= r->e || *r->p != '\\')
			break;
		if (!w)
			w = r->values + (r->p - r->s);
		if (!escape(r, &w))
			return 0;
	}
	if (r->p >= r->e || *r->p != '"')
		return 0;
	size_t n = w ? (size_t)(w - (r->values + off)) : (size_t)(r->p - r->s) - off;
	r->p++;
	return add_scalar(r, from, off, n, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

static bool digits(jr *r)
{
	const char *b = r->p;
	while (r->p < r->e && *r->p >= '0' && *r->p <= '9')
		r->p++;
	return r->p > b;
}

/* A number, true, false or null: a plain scalar, as written. */
static int plain(jr *r)
{
	const char *from = r->p;
	static const char *const words[] = { "true", "false", "null" };
	for (size_t i = 0; i < 3; i++) {
		size_t k = strlen(words[i]);
		if ((size_t)(r->e - r->p) >= k && !memcmp(r->p, words[i], k)) {
			r->p += k;
			goto end;
		}
	}
	if (r->p < r->e && *r->p == '-')
		r->p++;
	if (r->p < r->e && *r->p == '0')
		r->p++;
	else if (!digits(r))
		return 0;
	if (r->p < r->e && *r->p == '.') {
		r->p++;
		if (!digits(r))
			return 0;
	}
	if (r->p < r->e && (*r->p == 'e' || *r->p == 'E')) {
		r->p++;
		if (r->p < r->e && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (!digits(r))
			return 0;
	}
end:
	/* the scalar must end where libyaml's plain scalar ends */
	if (r->p < r->e && (!*r->p || !strchr(" \n,]}", *r->p)))
		return 0;
	return add_scalar(r, from, (size_t)(from - r->s), (size_t)(r->p - from),
			  YAML_PLAIN_SCALAR_STYLE);
}

static int value(jr *r);

static void push(jr *r, int id)
{
	if (r->ns == r->scap)
		xgrow(&r->scratch, &r->scap, r->ns + 1, sizeof *r->scratch);
	r->scratch[r->ns++] = id;
}

/* The collection id's children, scratch[base..], to items or pairs. */
static void close_collection(jr *r, int id, size_t base)
{
	yaml_node_t *node = &r->nodes[id - 1];
	span *sp = &r->spans[id - 1];
	const int *kid = r->scratch + base;
	if (node->type == YAML_SEQUENCE_NODE) {
		sp->n = r->ns - base;
		sp->off = r->ni;
		xgrow(&r->items, &r->icap, r->ni + sp->n + 1, sizeof *r->items);
		memcpy(r->items + r->ni, kid, sp->n * sizeof *kid);
		r->ni += sp->n;
	} else {
		sp->n = (r->ns - base) / 2;
		sp->off = r->np;
		xgrow(&r->pairs, &r->pcap, r->np + sp->n + 1, sizeof *r->pairs);
		for (size_t i = 0; i < sp->n; i++) {
			r->pairs[r->np + i].key = kid[2 * i];
			r->pairs[r->np + i].value = kid[2 * i + 1];
		}
		r->np += sp->n;
	}
	r->ns = base;
}

/* A mapping's key and its ':' (libyaml's implicit key: the ':' on the key's
 * line, within 1,024 characters); the key's node id, 0 outside the subset. */
static int key(jr *r)
{
	if (r->p >= r->e || *r->p != '"')
		return 0;
	const char *from = r->p;
	size_t line = r->line;
	int k = string(r);
	ws(r);
	if (!k || r->p >= r->e || *r->p != ':' || r->line != line || r->p - from >= 1000)
		return 0;
	r->p++;
	ws(r);
	return k;
}

/* A sequence or a mapping at r->p ('[' or '{'). */
static int collection(jr *r)
{
	bool map = *r->p == '{';
	char close = map ? '}' : ']';
	int id = new_node(r, map ? YAML_MAPPING_NODE : YAML_SEQUENCE_NODE, r->p++);
	size_t base = r->ns;
	ws(r);
	while (r->p < r->e && *r->p != close) {
		int k = map ? key(r) : 0;
		if (map && !k)
			return 0;
		int v = value(r);
		if (!v)
			return 0;
		if (map)
			push(r, k);
		push(r, v);
		ws(r);
		if (r->p < r->e && *r->p == ',') {
			r->p++;
			ws(r);
			if (r->p < r->e && *r->p == close)
				return 0;             /* a trailing comma */
		} else if (r->p >= r->e || *r->p != close)
			return 0;
	}
	if (r->p >= r->e)
		return 0;
	r->p++;
	yaml_node_t *node = &r->nodes[id - 1];
	node->end_mark = mark_at(r, r->p);
	if (map) {
		node->tag = (yaml_char_t *)YAML_DEFAULT_MAPPING_TAG;
		node->data.mapping.style = YAML_FLOW_MAPPING_STYLE;
	} else {
		node->tag = (yaml_char_t *)YAML_DEFAULT_SEQUENCE_TAG;
		node->data.sequence.style = YAML_FLOW_SEQUENCE_STYLE;
	}
	close_collection(r, id, base);
	return id;
}

static int value(jr *r)
{
	if (r->p >= r->e || ++r->depth > JSON_MAX_DEPTH)
		return 0;
	int id = *r->p == '{' || *r->p == '[' ? collection(r) : *r->p == '"' ? string(r) : plain(r);
	r->depth--;
	return id;
}

/* Every collection's children where they ended up (the blocks no longer move). */
static void point_children(jr *r)
{
	for (size_t i = 0; i < r->nn; i++) {
		yaml_node_t *n = &r->nodes[i];
		const span *sp = &r->spans[i];
		if (n->type == YAML_SEQUENCE_NODE) {
			n->data.sequence.items.start = r->items + sp->off;
			n->data.sequence.items.top = n->data.sequence.items.end = r->items + sp->off + sp->n;
		} else if (n->type == YAML_MAPPING_NODE) {
			n->data.mapping.pairs.start = r->pairs + sp->off;
			n->data.mapping.pairs.top = n->data.mapping.pairs.end = r->pairs + sp->off + sp->n;
		}
	}
}

bool json_load_yaml(const char *text, size_t len, import_doc *d)
{
	jr r = { .s = text, .p = text, .e = text + len, .ls = text };
	ws(&r);
	if (r.p >= r.e || (*r.p != '{' && *r.p != '['))
		return false;
	r.values = xmalloc(len + 1);
	memcpy(r.values, text, len);
	/* never NULL: an empty collection's children are items + off */
	xgrow(&r.scratch, &r.scap, 256, sizeof *r.scratch);
	/* room for a pretty-printed document's nodes at once (about one in 16
	 * bytes; they still grow past it) */
	r.ncap = len / 16 + 64;
	r.nodes = xmalloc(r.ncap * sizeof *r.nodes);
	r.spans = xmalloc(r.ncap * sizeof *r.spans);
	xgrow(&r.items, &r.icap, 16, sizeof *r.items);
	xgrow(&r.pairs, &r.pcap, 16, sizeof *r.pairs);
	bool ok = value(&r) != 0;
	ws(&r);
	ok = ok && r.p == r.e;
	free(r.scratch);
	if (!ok) {
		free(r.values);
		free(r.nodes);
		free(r.spans);
		free(r.items);
		free(r.pairs);
		return false;
	}
	point_children(&r);
	free(r.spans);
	memset(d, 0, sizeof *d);
	d->json = true;
	d->values = r.values;
	d->items = r.items;
	d->pairs = r.pairs;
	d->doc.nodes.start = r.nodes;
	d->doc.nodes.top = d->doc.nodes.end = r.nodes + r.nn;
	d->doc.start_implicit = d->doc.end_implicit = 1;
	d->doc.end_mark = mark_at(&r, r.p);
	return true;
}

bool json_or_yaml_load(const char *text, size_t len, import_doc *d,
		       const char **problem, const char **context, yaml_mark_t *mark)
{
	if (json_load_yaml(text, len, d))
		return true;
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	yaml_document_t doc;
	bool ok = yaml_parser_load(&p, &doc);
	if (!ok) {
		*problem = p.problem ? p.problem : "syntax error";
		*context = p.context;
		*mark = p.problem_mark;
	} else {
		memset(d, 0, sizeof *d);
		d->doc = doc;
	}
	yaml_parser_delete(&p);
	return ok;
}

void import_doc_free(import_doc *d)
{
	if (!d->json) {
		yaml_document_delete(&d->doc);
		return;
	}
	free(d->doc.nodes.start);
	free(d->values);
	free(d->items);
	free(d->pairs);
	memset(d, 0, sizeof *d);
}

static bool marks_equal(yaml_mark_t a, yaml_mark_t b)
{
	return a.index == b.index && a.line == b.line && a.column == b.column;
}

static bool nodes_equal(const yaml_node_t *x, const yaml_node_t *y)
{
	if (x->type != y->type || strcmp((const char *)x->tag, (const char *)y->tag) ||
	    !marks_equal(x->start_mark, y->start_mark) || !marks_equal(x->end_mark, y->end_mark))
		return false;
	switch (x->type) {
	case YAML_SCALAR_NODE:
		return x->data.scalar.style == y->data.scalar.style &&
		       x->data.scalar.length == y->data.scalar.length &&
		       !memcmp(x->data.scalar.value, y->data.scalar.value, x->data.scalar.length);
	case YAML_SEQUENCE_NODE: {
		size_t n = (size_t)(x->data.sequence.items.top - x->data.sequence.items.start);
		return x->data.sequence.style == y->data.sequence.style &&
		       n == (size_t)(y->data.sequence.items.top - y->data.sequence.items.start) &&
		       !memcmp(x->data.sequence.items.start, y->data.sequence.items.start,
			       n * sizeof *x->data.sequence.items.start);
	}
	case YAML_MAPPING_NODE: {
		size_t n = (size_t)(x->data.mapping.pairs.top - x->data.mapping.pairs.start);
		if (x->data.mapping.style != y->data.mapping.style ||
		    n != (size_t)(y->data.mapping.pairs.top - y->data.mapping.pairs.start))
			return false;
		for (size_t i = 0; i < n; i++)
			if (x->data.mapping.pairs.start[i].key != y->data.mapping.pairs.start[i].key ||
			    x->data.mapping.pairs.start[i].value != y->data.mapping.pairs.start[i].value)
				return false;
		return true;
	}
	default:
		return false;
	}
}

bool json_yaml_docs_equal(const yaml_document_t *a, const yaml_document_t *b)
{
	size_t n = (size_t)(a->nodes.top - a->nodes.start);
	if (n != (size_t)(b->nodes.top - b->nodes.start))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!nodes_equal(&a->nodes.start[i], &b->nodes.start[i]))
			return false;
	return true;
}
