/* json.c - JSON into a libyaml document (json.h). A recursive descent over
 * the subset json.h names; every case where libyaml might read the text
 * differently (its line breaks, tabs, the 1,024-character limit of an
 * implicit key, a key and its ':' on different lines, a tab outside the
 * root's brackets) leaves the subset. */
#include "json.h"
#include "../base/util.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *s, *p, *e;     /* text, cursor, end */
	const char *ls;            /* start of the cursor's line */
	size_t line;
	yaml_document_t *doc;
	char *tmp;                 /* an unescaped string */
	size_t tmpcap;
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
	for (; r->p < r->e; r->p++) {
		if (*r->p == '\n') {
			r->line++;
			r->ls = r->p + 1;
		} else if (*r->p != ' ' && (*r->p != '\t' || !r->depth))
			return;
	}
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static bool tmp_put(jr *r, size_t *n, const char *b, size_t k)
{
	if (!k)
		return true;
	if (*n + k > r->tmpcap) {
		size_t cap = r->tmpcap ? r->tmpcap : 256;
		while (cap < *n + k)
			cap *= 2;
		r->tmp = xrealloc(r->tmp, cap);
		r->tmpcap = cap;
	}
	memcpy(r->tmp + *n, b, k);
	*n += k;
	return true;
}

/* One escape after the backslash at r->p into tmp; false outside the subset. */
static bool escape(jr *r, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	char c = *++r->p;
	const char *k = c ? strchr(from, c) : NULL;
	if (k) {
		r->p++;
		return tmp_put(r, n, &to[k - from], 1);
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
	char u[3];
	size_t k2 = v < 0x80 ? 1 : v < 0x800 ? 2 : 3;
	if (k2 == 1)
		u[0] = (char)v;
	else if (k2 == 2) {
		u[0] = (char)(0xc0 | v >> 6);
		u[1] = (char)(0x80 | (v & 0x3f));
	} else {
		u[0] = (char)(0xe0 | v >> 12);
		u[1] = (char)(0x80 | (v >> 6 & 0x3f));
		u[2] = (char)(0x80 | (v & 0x3f));
	}
	return tmp_put(r, n, u, k2);
}

static int add_scalar(jr *r, const char *v, size_t n, yaml_scalar_style_t st, const char *from)
{
	int id = yaml_document_add_scalar(r->doc, NULL, (const yaml_char_t *)v, (int)n, st);
	if (id) {
		yaml_node_t *node = yaml_document_get_node(r->doc, id);
		node->start_mark = mark_at(r, from);
		node->end_mark = mark_at(r, r->p);
	}
	return id;
}

/* A string at r->p ('"'): its node id, 0 outside the subset. */
static int string(jr *r)
{
	const char *from = r->p++, *run = r->p;
	size_t n = 0;
	bool escaped = false;
	for (;;) {
		if (r->p >= r->e)
			return 0;
		unsigned char c = (unsigned char)*r->p;
		if (c == '"')
			break;
		if (c < 0x20 || c >= 0x7f)
			return 0;
		if (c != '\\') {
			r->p++;
			continue;
		}
		if (!tmp_put(r, &n, run, (size_t)(r->p - run)) || !escape(r, &n))
			return 0;
		escaped = true;
		run = r->p;
	}
	if (escaped && !tmp_put(r, &n, run, (size_t)(r->p - run)))
		return 0;
	r->p++;
	return escaped ? add_scalar(r, r->tmp ? r->tmp : "", n, YAML_DOUBLE_QUOTED_SCALAR_STYLE, from)
		       : add_scalar(r, run, (size_t)(r->p - 1 - run), YAML_DOUBLE_QUOTED_SCALAR_STYLE,
				    from);
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
	if (r->p < r->e && !strchr(" \n,]}", *r->p))
		return 0;
	return add_scalar(r, from, (size_t)(r->p - from), YAML_PLAIN_SCALAR_STYLE, from);
}

static int value(jr *r);

static void set_marks(jr *r, int id, yaml_mark_t start)
{
	yaml_node_t *node = yaml_document_get_node(r->doc, id);
	node->start_mark = start;
	node->end_mark = mark_at(r, r->p);
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
	yaml_mark_t from = mark_at(r, r->p++);
	int id = map ? yaml_document_add_mapping(r->doc, NULL, YAML_FLOW_MAPPING_STYLE)
		     : yaml_document_add_sequence(r->doc, NULL, YAML_FLOW_SEQUENCE_STYLE);
	if (!id)
		return 0;
	ws(r);
	while (r->p < r->e && *r->p != close) {
		int k = map ? key(r) : 0;
		if (map && !k)
			return 0;
		int v = value(r);
		if (!v || !(map ? yaml_document_append_mapping_pair(r->doc, id, k, v)
				: yaml_document_append_sequence_item(r->doc, id, v)))
			return 0;
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
	set_marks(r, id, from);
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

bool json_load_yaml(const char *text, size_t len, yaml_document_t *doc)
{
	jr r = { .s = text, .p = text, .e = text + len, .ls = text, .doc = doc };
	ws(&r);
	if (r.p >= r.e || (*r.p != '{' && *r.p != '['))
		return false;
	yaml_mark_t m0 = { 0, 0, 0 };
	if (!yaml_document_initialize(doc, NULL, NULL, NULL, 1, 1))
		return false;
	doc->start_mark = m0;
	bool ok = value(&r) != 0;
	ws(&r);
	ok = ok && r.p == r.e;
	free(r.tmp);
	if (!ok) {
		yaml_document_delete(doc);
		return false;
	}
	doc->end_mark = mark_at(&r, r.p);
	return true;
}

bool json_or_yaml_load(const char *text, size_t len, yaml_document_t *doc,
		       const char **problem, const char **context, yaml_mark_t *mark)
{
	if (json_load_yaml(text, len, doc))
		return true;
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	bool ok = yaml_parser_load(&p, doc);
	if (!ok) {
		*problem = p.problem ? p.problem : "syntax error";
		*context = p.context;
		*mark = p.problem_mark;
	}
	yaml_parser_delete(&p);
	return ok;
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
