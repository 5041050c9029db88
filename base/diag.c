/* diag.c - see diag.h. */
#include "diag.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void diag_init(diag_ctx *d)
{
	memset(d, 0, sizeof *d);
}

void diag_free(diag_ctx *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].msg);
	free(d->v);
	for (size_t i = 0; i < d->nfiles; i++)
		src_file_release(d->files[i]);
	free(d->files);
	free(d->at);
	memset(d, 0, sizeof *d);
}

src_file *src_file_hold(src_file *f)
{
	f->refs++;
	return f;
}

void src_file_release(src_file *f)
{
	if (--f->refs)
		return;
	free(f->path);
	free(f->text);
	free(f->line_at);
	free(f);
}

src_file *diag_add_text(diag_ctx *d, const char *name, const char *text,
			size_t len, bool builtin)
{
	src_file *f = xcalloc(1, sizeof *f);
	f->refs = 1;   /* the context's */
	f->path = xstrdup(name);
	f->text = xstrndup(text, len);
	f->len = len;
	f->builtin = builtin;
	/* a line starts at 0 and after each '\n' (one at len too) */
	size_t cap = 0;
	for (const char *p = f->text, *e = f->text + len;;) {
		if (f->nlines == cap)
			xgrow(&f->line_at, &cap, f->nlines + 1, sizeof *f->line_at);
		f->line_at[f->nlines++] = (size_t)(p - f->text);
		p = p < e ? memchr(p, '\n', (size_t)(e - p)) : NULL;
		if (!p)
			break;
		p++;
	}
	xgrow(&d->files, &d->capfiles, d->nfiles + 1, sizeof *d->files);
	d->files[d->nfiles++] = f;
	return f;
}

static src_file *read_fail(diag_ctx *d, src_loc from, int fd, const char *fmt,
			   const char *path, const char *why)
{
	if (fd >= 0)
		close(fd);
	d->nio++;
	diag_error(d, from, fmt, path, why);
	return NULL;
}

static const char *node_kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ?
	       "a character device" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ?
	       "a socket" : "not a regular file";
}

/* Opened non-blocking (a FIFO must not hang the compiler before its kind is
 * known), then read in full up to DIAG_SOURCE_MAX bytes. */
static src_file *read_source(diag_ctx *d, const char *path, src_loc from, bool regular_only)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return read_fail(d, from, -1, "cannot open '%s': %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0)
		return read_fail(d, from, fd, "cannot read '%s': %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return read_fail(d, from, fd, "cannot read '%s': is %s", path, "a directory");
	if (regular_only && !S_ISREG(st.st_mode))
		return read_fail(d, from, fd, "cannot include '%s': it is %s; only regular "
				 "files can be included", path, node_kind(st.st_mode));
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > DIAG_SOURCE_MAX)
		return read_fail(d, from, fd, "cannot read '%s': %s", path,
				 "larger than " DIAG_SOURCE_MAX_TEXT);
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	buf b;
	buf_init(&b);
	if (S_ISREG(st.st_mode))   /* the room it needs at once (it may still grow) */
		xgrow(&b.data, &b.cap, (size_t)st.st_size + 1, 1);
	char chunk[65536];
	ssize_t n;
	while ((n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			buf_free(&b);
			return read_fail(d, from, fd, "cannot read '%s': %s", path, strerror(errno));
		}
		buf_put(&b, chunk, (size_t)n);
		if (b.len > DIAG_SOURCE_MAX) {
			buf_free(&b);
			return read_fail(d, from, fd, "cannot read '%s': %s", path,
					 "larger than " DIAG_SOURCE_MAX_TEXT);
		}
	}
	close(fd);
	buf_cstr(&b);
	src_file *f = diag_add_text(d, path, b.data, b.len, false);
	buf_free(&b);
	return f;
}

src_file *diag_read_file(diag_ctx *d, const char *path, src_loc from)
{
	return read_source(d, path, from, false);
}

src_file *diag_read_include(diag_ctx *d, const char *path, src_loc from)
{
	return read_source(d, path, from, true);
}

static bool same_loc(src_loc a, src_loc b)
{
	return a.file == b.file && a.line == b.line && a.col == b.col;
}

/* A diagnostic said before: an error at a location that already has one
 * (a cascade such as a bad number then its zero value, or a rule lowered
 * once per policy that uses it), or the same warning again. Notes follow
 * the fate of the diagnostic they belong to. */
static size_t loc_hash(src_loc loc)
{
	uint64_t h = (uint64_t)(uintptr_t)loc.file * 0x9e3779b97f4a7c15ull;
	h ^= (uint64_t)(unsigned)loc.line * 0xc2b2ae3d27d4eb4full;
	h ^= (uint64_t)(unsigned)loc.col * 0x165667b19e3779f9ull;
	return (size_t)(h ^ (h >> 29));
}

static void index_put(diag_ctx *d, size_t i)
{
	size_t m = d->atcap - 1, k = loc_hash(d->v[i].loc) & m;
	while (d->at[k])
		k = (k + 1) & m;
	d->at[k] = i + 1;
}

/* Index diagnostic d->n - 1 (the one just added) by its location. */
static void index_add(diag_ctx *d)
{
	if (!d->v[d->n - 1].loc.file)
		return;
	if (2 * d->n >= d->atcap) {
		free(d->at);
		d->atcap = d->atcap ? 2 * d->atcap : 64;
		while (2 * d->n >= d->atcap)
			d->atcap *= 2;
		d->at = xcalloc(d->atcap, sizeof *d->at);
		for (size_t i = 0; i < d->n; i++)
			if (d->v[i].loc.file)
				index_put(d, i);
		return;
	}
	index_put(d, d->n - 1);
}

/* Is there a diagnostic at loc with severity sev (and message msg, unless
 * any message will do)? */
static bool said_at(const diag_ctx *d, diag_severity sev, src_loc loc, const char *msg)
{
	if (!loc.file || !d->atcap)
		return false;
	size_t m = d->atcap - 1;
	for (size_t k = loc_hash(loc) & m; d->at[k]; k = (k + 1) & m) {
		size_t i = d->at[k] - 1;
		if (i < d->n && d->v[i].sev == sev && same_loc(d->v[i].loc, loc) &&
		    (!msg || !strcmp(d->v[i].msg, msg)))
			return true;
	}
	return false;
}

static bool repeated(diag_ctx *d, diag_severity sev, src_loc loc, const char *msg)
{
	if (sev == DIAG_NOTE) {
		if (d->dropping)
			return true;
		/* a note of its own (not right after its error or warning),
		 * said before: a rule lowered again for another policy */
		if (d->n && d->v[d->n - 1].sev != DIAG_NOTE)
			return false;
		return said_at(d, DIAG_NOTE, loc, msg);
	}
	d->dropping = said_at(d, sev, loc, sev == DIAG_ERROR ? NULL : msg);
	return d->dropping;
}

void diag_add(diag_ctx *d, diag_severity sev, src_loc loc, const char *fmt, ...)
{
	/* formatted once on the stack (the usual message is short), not
	 * measured into an empty buf and formatted again */
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	buf b;
	buf_init(&b);
	if (n < 0 || (size_t)n >= sizeof tmp) {
		va_start(ap, fmt);
		buf_vprintf(&b, fmt, ap);
		va_end(ap);
	}
	const char *msg = b.data ? b.data : n < 0 ? "" : tmp;
	if (repeated(d, sev, loc, msg)) {
		buf_free(&b);
		return;
	}
	size_t max = d->max_errors ? d->max_errors : 100;
	if (sev == DIAG_ERROR) {
		d->nerrors++;
		if (d->nerrors > max) {
			buf_free(&b);
			return;
		}
	} else if (sev == DIAG_WARNING) {
		d->nwarnings++;
	}
	xgrow(&d->v, &d->cap, d->n + 1, sizeof *d->v);
	d->v[d->n].sev = sev;
	d->v[d->n].loc = loc;
	d->v[d->n].msg = b.data ? buf_cstr(&b) : xstrdup(msg);
	d->n++;
	index_add(d);
}

static const char *sev_name(diag_severity s)
{
	return s == DIAG_ERROR ? "error" : s == DIAG_WARNING ? "warning" : "note";
}

/* Append the source line of loc and a caret under its column. */
static void put_source_line(buf *b, src_loc loc)
{
	const src_file *f = loc.file;
	if (!f || loc.line <= 0)
		return;
	const char *end = f->text + f->len;
	const char *p = (size_t)loc.line <= f->nlines ? f->text + f->line_at[loc.line - 1] : end;
	const char *e = p;
	while (e < end && *e != '\n')
		e++;
	/* A line longer than DIAG_WINDOW columns (a minified JSON profile read
	 * as policy text): a window around the column, "..." where cut. */
	enum { DIAG_WINDOW = 200, DIAG_BEFORE = 80, DIAG_SHOWN = 160 };
	bool cut_left = false, cut_right = false;
	if (e - p > DIAG_WINDOW) {
		const char *at = p;    /* the column's byte: columns count characters */
		for (int c = 1; at < e && c < loc.col; at++)
			if (((unsigned char)at[1] & 0xC0) != 0x80)
				c++;
		const char *s0 = at - p > DIAG_BEFORE ? at - DIAG_BEFORE : p;
		while (s0 > p && ((unsigned char)*s0 & 0xC0) == 0x80)
			s0--;
		const char *e0 = e - s0 > DIAG_SHOWN ? s0 + DIAG_SHOWN : e;
		while (e0 < e && ((unsigned char)*e0 & 0xC0) == 0x80)
			e0++;
		cut_left = s0 > p;
		cut_right = e0 < e;
		int col = 1;
		for (const char *q = s0; q < at; q++)
			if (((unsigned char)*q & 0xC0) != 0x80)
				col++;
		loc.col = col + (cut_left ? 3 : 0);
		p = s0;
		e = e0;
	}
	buf_puts(b, cut_left ? "  ..." : "  ");
	/* a NUL would end the text; other control bytes (ESC, ...) of a
	 * binary or hostile file must not reach the terminal raw */
	for (const char *q = p; q < e; q++) {
		unsigned char c = (unsigned char)*q;
		buf_put(b, c == '\t' || c == '\0' ? " " : c < 0x20 || c == 0x7f ? "?" : q, 1);
	}
	buf_puts(b, cut_right ? "...\n  " : "\n  ");
	for (int c = 1; c < loc.col && c <= (e - p) + (cut_left ? 3 : 0); c++)
		buf_puts(b, " ");
	buf_puts(b, "^\n");
}

char *diag_format(const diag *dg, bool with_source)
{
	buf b;
	buf_init(&b);
	if (dg->loc.file)
		buf_printf(&b, "%s:%d:%d: ", dg->loc.file->path, dg->loc.line, dg->loc.col);
	else
		buf_puts(&b, "polc: ");
	buf_printf(&b, "%s: %s\n", sev_name(dg->sev), dg->msg);
	if (with_source)
		put_source_line(&b, dg->loc);
	return buf_cstr(&b);
}

/* Diagnostics print in source order (file as read, then line, column), so
 * that parse and semantic errors interleave as a reader expects. A note
 * stays with the diagnostic before it. */
typedef struct { size_t first, n, file; int line, col; } diag_group;

static size_t file_index(const diag_ctx *d, const src_file *f)
{
	for (size_t i = 0; f && i < d->nfiles; i++)
		if (d->files[i] == f)
			return i + 1;
	return 0;
}

static int cmp_group(const void *a, const void *b)
{
	const diag_group *x = a, *y = b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->first < y->first ? -1 : 1;
}

void diag_print(const diag_ctx *d, FILE *out, bool color)
{
	const char *nc = getenv("NO_COLOR");       /* no-color.org */
	if (nc && *nc)
		color = false;
	diag_group *g = xcalloc(d->n + 1, sizeof *g);
	size_t ng = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (d->v[i].sev == DIAG_NOTE && ng) {
			g[ng - 1].n++;
			continue;
		}
		diag_group x = { i, 1, file_index(d, d->v[i].loc.file), d->v[i].loc.line, d->v[i].loc.col };
		g[ng++] = x;
	}
	xqsort(g, ng, sizeof *g, cmp_group);
	for (size_t k = 0; k < ng; k++)
	for (size_t i = g[k].first; i < g[k].first + g[k].n; i++) {
		char *s = diag_format(&d->v[i], true);
		if (color) {
			const char *c = d->v[i].sev == DIAG_ERROR ? "\033[1;31m" :
					d->v[i].sev == DIAG_WARNING ? "\033[1;35m" : "\033[1;36m";
			char *colon = strstr(s, sev_name(d->v[i].sev));
			if (colon) {
				fwrite(s, 1, (size_t)(colon - s), out);
				fprintf(out, "%s%s\033[0m", c, sev_name(d->v[i].sev));
				fputs(colon + strlen(sev_name(d->v[i].sev)), out);
			} else {
				fputs(s, out);
			}
		} else {
			fputs(s, out);
		}
		free(s);
	}
	free(g);
	size_t max = d->max_errors ? d->max_errors : 100;
	if (d->nerrors > max)
		fprintf(out, "polc: note: %zu more errors not shown\n", d->nerrors - max);
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 99;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t best = prev + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

const char *diag_closest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t bestd = 99, len = strlen(word);
	size_t limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;
	for (size_t i = 0; i < n; i++) {
		if (!cands[i])
			continue;
		size_t dist = edit_distance(word, cands[i]);
		if (dist < bestd) {
			bestd = dist;
			best = cands[i];
		}
	}
	return bestd <= limit ? best : NULL;
}
