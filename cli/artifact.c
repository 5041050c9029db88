/* artifact.c - artifacts compared by meaning (artifact.h). */
#include "artifact.h"
#include "../backends/bpf/bundle.h"     /* its magic */
#include "../compiler/compile.h"
#include "../import/import_oci.h"
#include "../compiler/irdiff.h"

#include <stdlib.h>
#include <string.h>

art_kind artifact_kind(const char *text, size_t len)
{
	if (len >= 8 && !memcmp(text, BPFB_FILE_MAGIC, 8))
		return ART_BUNDLE;
	size_t i = 0;
	while (i < len && strchr(" \t\r\n", text[i]))
		i++;
	if (i < len && text[i] == '{' && memmem(text, len, "\"defaultAction\"", 15))
		return ART_OCI;
	/* polc's AppArmor output: a comment header, then the profile */
	if (len > 2 && text[0] == '#' && memmem(text, len, "\nprofile ", 9) &&
	    memmem(text, len, "target: apparmor", 16))
		return ART_APPARMOR;
	return ART_NONE;
}

const char *artifact_kind_name(art_kind k)
{
	switch (k) {
	case ART_OCI: return "OCI seccomp profile";
	case ART_APPARMOR: return "AppArmor profile";
	case ART_BUNDLE: return "BPF LSM bundle";
	default: return "policy";
	}
}

/* ---- OCI: import, compile, ir_diff ---- */

/* q: the importer's and compiler's context (its notes are not the user's);
 * it holds the sources the policy's locations point into. */
static const ir_policy *oci_ir(const src_file *f, ir_program *prog, bool *compiled, diag_ctx *q,
			       diag_ctx *d)
{
	import_opts io = { "artifact", NULL, 0, 0, IR_ARCH_X86_64, -1, 0 };
	buf src;
	buf_init(&src);
	const ir_policy *p = NULL;
	*compiled = false;
	if (import_oci_text(f->path, f->text, f->len, &io, q, &src) == 0) {
		compile_opts co = { NULL, 0, false, 0, false };
		/* locations in the diff are lines of this text, not of the JSON */
		char *name = xasprintf("%s (read back as polc)", f->path);
		*compiled = polc_compile_text(name, buf_cstr(&src), &co, q, prog) == 0;
		free(name);
		p = *compiled ? ir_program_select(prog, NULL, q) : NULL;
	}
	if (!p) {
		diag_error(d, src_loc_none(), "%s: cannot read it back as an OCI seccomp profile%s%s",
			   f->path, q->nerrors ? ": " : "", q->nerrors ? q->v[q->n - 1].msg : "");
	}
	buf_free(&src);
	return p;
}

static int diff_oci(const src_file *a, const src_file *b, bool json, buf *out, diag_ctx *d)
{
	ir_program pa, pb;
	bool ca, cb = false;
	diag_ctx q;
	diag_init(&q);
	const ir_policy *x = oci_ir(a, &pa, &ca, &q, d), *y = x ? oci_ir(b, &pb, &cb, &q, d) : NULL;
	int n = -1;
	if (x && y) {
		irdiff df = { 0 };
		n = (int)ir_diff(x, y, &df);
		irdiff_print(&df, json, out);
		irdiff_free(&df);
	}
	if (cb)
		ir_program_free(&pb);
	if (ca)
		ir_program_free(&pa);
	diag_free(&q);
	return n;
}

/* ---- AppArmor and bundles: sets of lines ---- */

typedef struct {
	char **v;
	size_t n;
} lines;

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Non-comment, non-blank lines, trimmed, sorted, without repeats; skip:
 * a line holding this text is provenance, not meaning (NULL: none). */
static lines line_set(const char *text, size_t len, const char *skip)
{
	lines l = { NULL, 0 };
	size_t cap = 0;
	for (size_t i = 0; i < len;) {
		size_t e = i;
		while (e < len && text[e] != '\n')
			e++;
		size_t s = i, t = e;
		while (s < t && strchr(" \t\r", text[s]))
			s++;
		/* polc's location comment after a rule ("  # a.pol:3:3") */
		for (size_t c = s; c + 2 < t; c++)
			if (text[c] == ' ' && text[c + 1] == ' ' && text[c + 2] == '#') {
				t = c;
				break;
			}
		while (t > s && strchr(" \t\r", text[t - 1]))
			t--;
		if (t > s && text[s] != '#') {
			char *x = xasprintf("%.*s", (int)(t - s), text + s);
			if (skip && strstr(x, skip)) {
				free(x);
			} else {
				xgrow(&l.v, &cap, l.n + 1, sizeof *l.v);
				l.v[l.n++] = x;
			}
		}
		i = e + 1;
	}
	if (l.n)
		xqsort(l.v, l.n, sizeof *l.v, cmp_line);
	size_t k = 0;
	for (size_t i = 0; i < l.n; i++) {
		if (k && !strcmp(l.v[k - 1], l.v[i]))
			free(l.v[i]);
		else
			l.v[k++] = l.v[i];
	}
	l.n = k;
	return l;
}

static void lines_free(lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static int diff_sets(lines *a, lines *b, buf *out)
{
	int n = 0;
	size_t i = 0, j = 0;
	while (i < a->n || j < b->n) {
		int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->v[i], b->v[j]);
		if (c < 0) {
			buf_printf(out, "- %s\n", a->v[i++]);
			n++;
		} else if (c > 0) {
			buf_printf(out, "+ %s\n", b->v[j++]);
			n++;
		} else {
			i++, j++;
		}
	}
	return n;
}

int artifact_diff(art_kind k, const src_file *a, const src_file *b, bool json, buf *out,
		  diag_ctx *d)
{
	if (k == ART_OCI)
		return diff_oci(a, b, json, out, d);
	if (k != ART_APPARMOR) {
		diag_error(d, src_loc_none(), "%s: a %s cannot be compared by meaning (a bundle's "
			   "decisions name its statements by their order): compare the policies "
			   "it was built from", a->path, artifact_kind_name(k));
		return -1;
	}
	lines x = line_set(a->text, a->len, NULL), y = line_set(b->text, b->len, NULL);
	int n = diff_sets(&x, &y, out);
	lines_free(&x);
	lines_free(&y);
	return n;
}
