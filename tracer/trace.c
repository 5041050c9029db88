/* trace.c - the trace aggregate and its text form (see trace.h). */
#include "trace.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[TR_NKIND] = {
	"meta", "syscall", "file", "exec", "net", "mount", "cap"
};
/* Fields per kind (meta: 1 or 2). */
static const int kind_nf[TR_NKIND] = { 2, 2, 3, 2, 6, 5, 2 };

const char *tr_kind_name(tr_kind k) { return k < TR_NKIND ? kind_names[k] : "?"; }

void trace_init(trace *t) { memset(t, 0, sizeof *t); }

void trace_free(trace *t)
{
	for (size_t i = 0; i < t->cap; i++) {
		tr_rec *r = t->v[i];
		if (!r)
			continue;
		for (int j = 0; j < r->nf; j++)
			free(r->f[j]);
		free(r);
	}
	free(t->v);
	memset(t, 0, sizeof *t);
}

static uint64_t rec_hash(tr_kind k, int nf, const char *const *f)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)k;
	for (int i = 0; i < nf; i++) {
		for (const unsigned char *p = (const unsigned char *)f[i]; *p; p++)
			h = (h ^ *p) * 1099511628211ull;
		h = (h ^ 0x1f) * 1099511628211ull;   /* field separator */
	}
	return h;
}

static bool rec_equal(const tr_rec *r, tr_kind k, int nf, const char *const *f)
{
	if (r->kind != k || r->nf != nf)
		return false;
	for (int i = 0; i < nf; i++)
		if (strcmp(r->f[i], f[i]) != 0)
			return false;
	return true;
}

static void grow(trace *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 64;
	tr_rec **nv = xcalloc(ncap, sizeof *nv);
	for (size_t i = 0; i < t->cap; i++) {
		tr_rec *r = t->v[i];
		if (!r)
			continue;
		size_t j = rec_hash(r->kind, r->nf, (const char *const *)r->f) & (ncap - 1);
		while (nv[j])
			j = (j + 1) & (ncap - 1);
		nv[j] = r;
	}
	free(t->v);
	t->v = nv;
	t->cap = ncap;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void trace_addv(trace *t, tr_kind k, uint64_t count, int nf, const char *const *f)
{
	if ((t->n + 1) * 2 > t->cap)
		grow(t);
	size_t j = rec_hash(k, nf, f) & (t->cap - 1);
	for (; t->v[j]; j = (j + 1) & (t->cap - 1)) {
		if (rec_equal(t->v[j], k, nf, f)) {
			t->v[j]->count = sat_add(t->v[j]->count, count);
			return;
		}
	}
	tr_rec *r = xcalloc(1, sizeof *r);
	r->kind = k;
	r->nf = nf;
	for (int i = 0; i < nf; i++)
		r->f[i] = xstrdup(f[i]);
	r->count = count;
	t->v[j] = r;
	t->n++;
}

void trace_add(trace *t, tr_kind k, uint64_t count, int nf, ...)
{
	const char *f[TR_MAXF];
	va_list ap;
	va_start(ap, nf);
	for (int i = 0; i < nf && i < TR_MAXF; i++)
		f[i] = va_arg(ap, const char *);
	va_end(ap);
	trace_addv(t, k, count, nf, f);
}

void trace_syscall(trace *t, const char *arch, const char *name, uint64_t n)
{
	trace_add(t, TR_SYSCALL, n, 2, arch, name);
}

void trace_file(trace *t, const char *path, const char *perm, int result)
{
	trace_add(t, TR_FILE, 1, 3, path, perm, tr_result_name(result));
}

void trace_exec(trace *t, const char *path, int result)
{
	trace_add(t, TR_EXEC, 1, 2, path, tr_result_name(result));
}

void trace_meta(trace *t, const char *name, const char *value, uint64_t n)
{
	if (value)
		trace_add(t, TR_META, n, 2, name, value);
	else
		trace_add(t, TR_META, n, 1, name);
}

uint64_t trace_total(const trace *t, tr_kind k, const char *f0)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < t->cap; i++) {
		const tr_rec *r = t->v[i];
		if (r && r->kind == k && (!f0 || strcmp(r->f[0], f0) == 0))
			sum = sat_add(sum, r->count);
	}
	return sum;
}

void trace_merge(trace *dst, const trace *src)
{
	for (size_t i = 0; i < src->cap; i++) {
		const tr_rec *r = src->v[i];
		if (r)
			trace_addv(dst, r->kind, r->count, r->nf, (const char *const *)r->f);
	}
}

static int rec_cmp(const void *a, const void *b)
{
	const tr_rec *x = *(const tr_rec *const *)a, *y = *(const tr_rec *const *)b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	for (int i = 0; i < x->nf && i < y->nf; i++) {
		int c = strcmp(x->f[i], y->f[i]);
		if (c)
			return c;
	}
	return x->nf - y->nf;
}

tr_rec **trace_sorted(const trace *t, size_t *n)
{
	tr_rec **v = xmalloc((t->n + 1) * sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i])
			v[k++] = t->v[i];
	xqsort(v, k, sizeof *v, rec_cmp);
	*n = k;
	return v;
}

/* ---- errno names ---- */

const char *tr_result_name(int err)
{
	static __thread char tmp[16];
	if (err == 0)
		return "ok";
	const char *s = strerrorname_np(err);
	if (s)
		return s;
	snprintf(tmp, sizeof tmp, "E%d", err);
	return tmp;
}

int tr_result_parse(const char *s)
{
	if (strcmp(s, "ok") == 0)
		return 0;
	for (int e = 1; e < 4096; e++) {
		const char *n = strerrorname_np(e);
		if (n && strcmp(n, s) == 0)
			return e;
	}
	if (s[0] == 'E' && isdigit((unsigned char)s[1])) {
		char *end;
		long v = strtol(s + 1, &end, 10);
		if (!*end && v > 0 && v < 4096)
			return (int)v;
	}
	return -1;
}

/* ---- writing ---- */

static bool bare_ok(const char *s)
{
	if (!*s || *s == '#')
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p == '"' || *p == '\\' || *p == 0x7f)
			return false;
	return true;
}

static void put_field(buf *out, const char *s, bool quote)
{
	if (!quote && bare_ok(s)) {
		buf_puts(out, s);
		return;
	}
	buf_puts(out, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			buf_printf(out, "\\%c", *p);
		else if (*p == '\n')
			buf_puts(out, "\\n");
		else if (*p == '\t')
			buf_puts(out, "\\t");
		else if (*p < ' ' || *p == 0x7f)
			buf_printf(out, "\\x%02x", *p);
		else
			buf_put(out, p, 1);
	}
	buf_puts(out, "\"");
}

/* Paths and command lines are always quoted (docs/trace-format.md). */
static bool field_quoted(const tr_rec *r, int i)
{
	switch (r->kind) {
	case TR_META: return i == 1;
	case TR_FILE: case TR_EXEC: return i == 0;
	case TR_NET: return i == 3 && r->f[3][0] == '/';
	case TR_MOUNT: return i >= 1 && i <= 3 && strcmp(r->f[i], "-") != 0;
	default: return false;
	}
}

void trace_write(const trace *t, buf *out)
{
	size_t n;
	tr_rec **v = trace_sorted(t, &n);
	buf_printf(out, "polc-trace %d\n", TRACE_VERSION);
	for (size_t i = 0; i < n; i++) {
		buf_puts(out, kind_names[v[i]->kind]);
		for (int j = 0; j < v[i]->nf; j++) {
			buf_puts(out, " ");
			put_field(out, v[i]->f[j], field_quoted(v[i], j));
		}
		buf_printf(out, " %llu\n", (unsigned long long)v[i]->count);
	}
	free(v);
}

/* ---- reading ---- */

typedef struct {
	const char *name;
	int line;
	char **err;
} rd_ctx;

static int rd_fail(rd_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int rd_fail(rd_ctx *c, const char *fmt, ...)
{
	buf b;
	buf_init(&b);
	buf_printf(&b, "%s:%d: ", c->name, c->line);
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	*c->err = buf_cstr(&b);
	return -1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* Split one line into tokens (unescaped, allocated). Returns count or -1;
 * *pn counts the tokens allocated so far either way. */
static int tokenize(rd_ctx *c, const char *s, char **tok, int max, int *pn)
{
	int n = 0;
	for (;; *pn = n) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return n;
		if (n == max)
			return rd_fail(c, "too many fields");
		buf b;
		buf_init(&b);
		if (*s == '"') {
			for (s++; *s != '"'; s++) {
				if (!*s) {
					buf_free(&b);
					return rd_fail(c, "unterminated string");
				}
				if (*s != '\\') {
					if ((unsigned char)*s < ' ') {
						buf_free(&b);
						return rd_fail(c, "control character in string");
					}
					buf_put(&b, s, 1);
					continue;
				}
				char ch;
				s++;
				if (*s == '\\' || *s == '"') ch = *s;
				else if (*s == 'n') ch = '\n';
				else if (*s == 't') ch = '\t';
				else if (*s == 'x' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
					ch = (char)(hexval(s[1]) * 16 + hexval(s[2]));
					s += 2;
				} else {
					buf_free(&b);
					return rd_fail(c, "bad escape in string");
				}
				if (ch == 0) {
					buf_free(&b);
					return rd_fail(c, "NUL byte in string");
				}
				buf_put(&b, &ch, 1);
			}
			s++;
			if (*s && *s != ' ' && *s != '\t') {
				buf_free(&b);
				return rd_fail(c, "junk after string");
			}
		} else {
			const char *st = s;
			while (*s && *s != ' ' && *s != '\t') {
				if (*s == '"' || *s == '\\' || (unsigned char)*s < ' ') {
					buf_free(&b);
					return rd_fail(c, "bad character in field");
				}
				s++;
			}
			buf_put(&b, st, (size_t)(s - st));
		}
		tok[n++] = buf_cstr(&b);
	}
}

static bool is_word(const char *s, const char *extra)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && !strchr(extra, *s))
			return false;
	return true;
}

static bool one_of(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(s, *set) == 0)
			return true;
	return false;
}

static const char *check_result(const char *s)
{
	return tr_result_parse(s) < 0 ? "unknown result (ok or an errno name)" : NULL;
}

static const char *check_port(const char *s)
{
	if (strcmp(s, "-") == 0)
		return NULL;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	return (*end || errno || v < 0 || v > 65535 || !isdigit((unsigned char)*s))
		? "bad port" : NULL;
}

/* NULL if the fields are valid for the kind, else a message. */
static const char *check_fields(tr_kind k, int nf, char **f)
{
	static const char *const arches[] = { "x86_64", "i386", "x32", NULL };
	static const char *const perms[] = { "read", "write", "append", "exec", "mmap",
		"link", "lock", "stat", NULL };
	static const char *const netops[] = { "create", "bind", "connect", "listen",
		"accept", "send", NULL };
	static const char *const mntops[] = { "mount", "umount", "pivot_root", NULL };
	switch (k) {
	case TR_META:
		return is_word(f[0], "") ? NULL : "bad meta name";
	case TR_SYSCALL:
		if (!one_of(f[0], arches))
			return "unknown arch";
		return is_word(f[1], "") ? NULL : "bad syscall name";
	case TR_FILE:
		if (f[0][0] != '/')
			return "path is not absolute";
		if (!one_of(f[1], perms))
			return "unknown permission";
		return check_result(f[2]);
	case TR_EXEC:
		if (f[0][0] != '/')
			return "path is not absolute";
		return check_result(f[1]);
	case TR_NET:
		if (!one_of(f[0], netops))
			return "unknown network operation";
		if (!is_word(f[1], "") || !is_word(f[2], ""))
			return "bad family or type";
		if (!*f[3])
			return "empty address";
		if (check_port(f[4]))
			return check_port(f[4]);
		return check_result(f[5]);
	case TR_MOUNT:
		if (!one_of(f[0], mntops))
			return "unknown mount operation";
		return check_result(f[4]);
	case TR_CAP:
		if (!is_word(f[0], ""))
			return "bad capability name";
		return check_result(f[1]);
	default:
		return "unknown kind";
	}
}

static int parse_count(const char *s, uint64_t *out)
{
	if (!isdigit((unsigned char)*s))
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || errno || v == 0)
		return -1;
	*out = v;
	return 0;
}

static int parse_header(rd_ctx *c, const char *line)
{
	if (strncmp(line, "polc-trace ", 11) != 0)
		return rd_fail(c, "not a polc trace (expected \"polc-trace %d\")", TRACE_VERSION);
	char *end;
	long v = strtol(line + 11, &end, 10);
	if (*end || v < 1 || !isdigit((unsigned char)line[11]))
		return rd_fail(c, "bad trace version \"%s\"", line + 11);
	if (v > TRACE_VERSION)
		return rd_fail(c, "trace version %ld is newer than this polc reads (%d)",
			       v, TRACE_VERSION);
	return 0;
}

static int parse_record(rd_ctx *c, trace *t, const char *line)
{
	char *tok[TR_MAXF + 2];
	int got = 0;
	int n = tokenize(c, line, tok, TR_MAXF + 2, &got);
	if (n < 0) {
		for (int i = 0; i < got; i++)
			free(tok[i]);
		return -1;
	}
	if (n == 0)		/* blank but for spaces and tabs */
		return 0;
	int rc = -1, k;
	for (k = 0; k < TR_NKIND; k++)
		if (strcmp(tok[0], kind_names[k]) == 0)
			break;
	uint64_t count;
	const char *why;
	int nf = n - 2;
	if (k == TR_NKIND)
		rd_fail(c, "unknown record kind \"%s\"", tok[0]);
	else if (nf != kind_nf[k] && !(k == TR_META && nf == 1))
		rd_fail(c, "%s record needs %d fields and a count, has %d fields",
			tok[0], kind_nf[k], n - 1);
	else if (parse_count(tok[n - 1], &count) < 0)
		rd_fail(c, "bad count \"%s\"", tok[n - 1]);
	else if ((why = check_fields((tr_kind)k, nf, tok + 1)))
		rd_fail(c, "%s record: %s", tok[0], why);
	else {
		trace_addv(t, (tr_kind)k, count, nf, (const char *const *)tok + 1);
		rc = 0;
	}
	for (int i = 0; i < n; i++)
		free(tok[i]);
	return rc;
}

int trace_parse(trace *t, const char *name, const char *text, size_t len, char **err)
{
	rd_ctx c = { name, 0, err };
	trace tmp;
	trace_init(&tmp);
	const char *p = text, *end = text + len;
	int rc = 0;
	while (rc == 0 && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = xstrndup(p, n);
		c.line++;
		if (strlen(line) != n)
			rc = rd_fail(&c, "NUL byte");
		else if (c.line == 1)
			rc = parse_header(&c, line);
		else if (line[0] && line[0] != '#')
			rc = parse_record(&c, &tmp, line);
		free(line);
		p += n + 1;
	}
	if (rc == 0 && c.line == 0) {
		c.line = 1;
		rc = rd_fail(&c, "empty file (expected \"polc-trace %d\")", TRACE_VERSION);
	}
	if (rc == 0)
		trace_merge(t, &tmp);
	trace_free(&tmp);
	return rc;
}

int trace_read(trace *t, const char *path, char **err)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	if (!f) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		return TRACE_EIO;
	}
	buf b;
	buf_init(&b);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_put(&b, chunk, n);
	int bad = ferror(f) ? errno : 0;
	if (f != stdin)
		fclose(f);
	if (bad) {
		buf_free(&b);
		*err = xasprintf("%s: cannot read: %s", path, strerror(bad));
		return TRACE_EIO;
	}
	int rc = trace_parse(t, path, b.data ? b.data : "", b.len, err);
	buf_free(&b);
	return rc;
}
