/* cmd_rules.c - `polc rules [--json] [NAME]`: the built-in rule catalogue.
 *
 * Takes: the embedded rule library, lowered by polc_compile_library().
 * Gives: without NAME, every rule with its summary and, per backend of
 *        backends_all, whether it is enforced exactly, partially (why) or
 *        not at all (why), and what it implies there beyond its
 *        statements ("+ io_uring closed: ..."); with NAME, that rule's source text (the comment
 *        block above it and the rule up to its closing brace) and its
 *        support. --json prints the same as JSON.
 * Promises: support is never typed by hand: it is computed from each
 *        backend's classify() over the rule's IR statements. A rule is exact
 *        if all its statements are exact (vacuously so with none), none if
 *        all are none, else partial. Unknown NAME: exit 1 with "did you
 *        mean". The output depends only on the library and the backends.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "compiler/compile.h"
#include "base/util.h"
#include "backends/backend.h"

#define MAX_WHY 16

/* One backend's verdict on one rule. */
typedef struct {
	support_level level;
	size_t nstmt, nexact, npartial, nnone;
	const char *why[MAX_WHY];   /* distinct reasons, first seen first */
	size_t nwhy;
} rule_support;

/* Every registered backend, in column order. */
#define FOR_EACH_BACKEND(i, b) \
	for (size_t i = 0; ((b) = backends_all[i]) != NULL; i++)

static void add_why(rule_support *rs, const char *why)
{
	if (!why)
		why = "no reason given";
	for (size_t i = 0; i < rs->nwhy; i++)
		if (strcmp(rs->why[i], why) == 0)
			return;
	if (rs->nwhy < MAX_WHY)
		rs->why[rs->nwhy++] = why;
}

static rule_support classify_rule(const backend *b, const ir_rule *r)
{
	rule_support rs;
	memset(&rs, 0, sizeof rs);
	const ir_policy *p = &r->body;
	backend_facts f = backend_prepare(b, p);
	for (int d = 0; d < IR_NDOMAIN; d++) {
		for (size_t i = 0; i < p->dom[d].n; i++) {
			support su = b->classify(p, f, &p->dom[d].v[i]);
			rs.nstmt++;
			if (su.level == SUPPORT_EXACT) {
				rs.nexact++;
				continue;
			}
			if (su.level == SUPPORT_NONE)
				rs.nnone++;
			else
				rs.npartial++;
			add_why(&rs, su.why);
		}
	}
	rs.level = rs.nexact == rs.nstmt ? SUPPORT_EXACT
		 : rs.nnone == rs.nstmt ? SUPPORT_NONE : SUPPORT_PARTIAL;
	return rs;
}

static const char *level_word(support_level l)
{
	return l == SUPPORT_EXACT ? "exact" : l == SUPPORT_PARTIAL ? "partial" : "none";
}

static size_t rule_nstmt(const ir_rule *r)
{
	size_t n = 0;
	for (int d = 0; d < IR_NDOMAIN; d++)
		n += r->body.dom[d].n;
	return n;
}

/* ---- source slices ---- */

/* Byte offset of line:col in text (1-based), or len if past the end. */
static size_t offset_of(const char *text, size_t len, int line, int col)
{
	size_t off = 0;
	for (int l = 1; l < line && off < len; off++)
		if (text[off] == '\n')
			l++;
	off += col > 0 ? (size_t)col - 1 : 0;
	return off < len ? off : len;
}

/* Offset just past the brace that closes the first '{' at or after start,
 * skipping strings and comments (globs hold braces too). len if unclosed. */
static size_t closing_brace(const char *t, size_t len, size_t start)
{
	int depth = 0;
	for (size_t i = start; i < len; i++) {
		char c = t[i];
		if (c == '#') {
			while (i < len && t[i] != '\n')
				i++;
		} else if (c == '"') {
			for (i++; i < len && t[i] != '"'; i++)
				if (t[i] == '\\' && i + 1 < len)
					i++;
		} else if (c == '{') {
			depth++;
		} else if (c == '}' && --depth == 0) {
			return i + 1;
		}
	}
	return len;
}

/* Start of the run of '#' comment lines directly above the line holding
 * off (no blank line between), so the attack note comes with the rule. */
static size_t comment_start(const char *t, size_t off)
{
	size_t line = off;
	while (line > 0 && t[line - 1] != '\n')
		line--;
	while (line > 0) {
		size_t prev = line - 1;   /* the '\n' ending the previous line */
		while (prev > 0 && t[prev - 1] != '\n')
			prev--;
		size_t k = prev;
		while (t[k] == ' ' || t[k] == '\t')
			k++;
		if (t[k] != '#')
			break;
		line = prev;
	}
	return line;
}

/* The rule's text: its comment block and the rule itself. */
static char *rule_source(const ir_rule *r)
{
	const src_file *f = r->loc.file;
	if (!f || !f->text)
		return NULL;
	size_t at = offset_of(f->text, f->len, r->loc.line, r->loc.col);
	size_t from = comment_start(f->text, at);
	size_t to = closing_brace(f->text, f->len, at);
	return xstrndup(f->text + from, to - from);
}

/* ---- JSON ---- */


static void json_support(buf *b, const ir_rule *r)
{
	const backend *be;
	bool first = true;
	buf_puts(b, "{");
	FOR_EACH_BACKEND(i, be) {
		rule_support rs = classify_rule(be, r);
		buf_printf(b, "%s", first ? "" : ", ");
		first = false;
		buf_json_str(b, be->name);
		buf_printf(b, ": {\"level\": \"%s\", \"statements\": %zu, \"exact\": %zu, "
			   "\"partial\": %zu, \"none\": %zu, \"why\": [", level_word(rs.level),
			   rs.nstmt, rs.nexact, rs.npartial, rs.nnone);
		for (size_t w = 0; w < rs.nwhy; w++) {
			buf_puts(b, w ? ", " : "");
			buf_json_str(b, rs.why[w]);
		}
		buf_puts(b, "], \"implies\": [");
		backend_implied imp[2];
		size_t nimp = backend_implied_list(be, &r->body, imp);
		for (size_t k = 0; k < nimp; k++) {
			buf_puts(b, k ? ", " : "");
			buf_json_str(b, imp[k].what);
		}
		buf_puts(b, "]}");
	}
	buf_puts(b, "}");
}

static void json_rule(buf *b, const ir_rule *r, bool with_source)
{
	buf_puts(b, "{\"name\": ");
	buf_json_str(b, r->name);
	buf_puts(b, ", \"summary\": ");
	if (r->summary)
		buf_json_str(b, r->summary);
	else
		buf_puts(b, "null");
	buf_puts(b, ", \"file\": ");
	buf_json_str(b, r->loc.file ? r->loc.file->path : "");
	buf_printf(b, ", \"line\": %d, \"statements\": %zu, \"support\": ",
		   r->loc.line, rule_nstmt(r));
	json_support(b, r);
	if (with_source) {
		char *src = rule_source(r);
		buf_puts(b, ", \"source\": ");
		buf_json_str(b, src ? src : "");
		free(src);
	}
	buf_puts(b, "}");
}

/* ---- text ---- */

static void text_support(buf *b, const ir_rule *r)
{
	const backend *be;
	FOR_EACH_BACKEND(i, be) {
		rule_support rs = classify_rule(be, r);
		buf_printf(b, "    %-9s %s", be->name, level_word(rs.level));
		if (rs.level == SUPPORT_PARTIAL)
			buf_printf(b, " (statements: %zu exact, %zu partial, %zu none)",
				   rs.nexact, rs.npartial, rs.nnone);
		/* Reasons may hold ';' themselves: several go one per line. */
		if (rs.nwhy == 1)
			buf_printf(b, ": %s", rs.why[0]);
		buf_puts(b, "\n");
		for (size_t w = 0; rs.nwhy > 1 && w < rs.nwhy; w++)
			buf_printf(b, "      - %s\n", rs.why[w]);
		backend_implied imp[2];
		size_t nimp = backend_implied_list(be, &r->body, imp);
		for (size_t k = 0; k < nimp; k++)
			buf_printf(b, "      + %s\n", imp[k].what);
	}
}

static void text_catalogue(buf *b, const ir_program *prog)
{
	for (size_t i = 0; i < prog->nrules; i++) {
		const ir_rule *r = prog->rules[i];
		buf_printf(b, "%s\n    %s\n", r->name, r->summary ? r->summary : "(no summary)");
		text_support(b, r);
	}
	buf_printf(b, "%zu rules\n", prog->nrules);
}

/* ---- the command ---- */

static int unknown_rule(const ir_program *prog, const char *name)
{
	const char **names = xcalloc(prog->nrules ? prog->nrules : 1, sizeof *names);
	for (size_t i = 0; i < prog->nrules; i++)
		names[i] = prog->rules[i]->name;
	const char *best = diag_closest(name, names, prog->nrules);
	fprintf(stderr, "polc rules: error: unknown rule '%s'", name);
	if (best)
		fprintf(stderr, "; did you mean '%s'?", best);
	fprintf(stderr, " ('polc rules' lists them all)\n");
	free(names);
	return EXIT_POLICY;
}

static int show_rule(const ir_program *prog, const char *name, bool json, buf *out)
{
	const ir_rule *r = ir_program_rule(prog, name);
	if (!r)
		return unknown_rule(prog, name);
	if (json) {
		json_rule(out, r, true);
		buf_puts(out, "\n");
		return EXIT_OK;
	}
	char *src = rule_source(r);
	if (!src) {
		fprintf(stderr, "polc rules: error: no source text for rule '%s'\n", name);
		return EXIT_SYSTEM;
	}
	buf_printf(out, "# %s:%d\n%s\n", r->loc.file->path, r->loc.line, src);
	free(src);
	buf_puts(out, "# support:\n");
	text_support(out, r);
	return EXIT_OK;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: polc rules [--json] [NAME]\n"
		   "  List the built-in rules with their per-backend support,\n"
		   "  or print rule NAME's source text.\n");
}

int cmd_rules(int argc, char **argv)
{
	bool json = false;
	const char *name = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return EXIT_OK;
		} else if (argv[i][0] == '-' || name) {
			if (argv[i][0] == '-')
				fprintf(stderr, "polc rules: unknown option '%s'\n", argv[i]);
			else
				fprintf(stderr, "polc rules: one rule name at most ('%s' and '%s')\n",
					name, argv[i]);
			usage(stderr);
			return EXIT_USAGE;
		} else {
			name = argv[i];
		}
	}

	diag_ctx d;
	diag_init(&d);
	ir_program prog;
	memset(&prog, 0, sizeof prog);
	int rc = EXIT_OK;
	if (polc_compile_library(&d, &prog) != 0) {
		diag_print(&d, stderr, false);
		fprintf(stderr, "polc rules: error: the built-in rule library does not compile\n");
		diag_free(&d);
		return EXIT_POLICY;
	}
	buf out;
	buf_init(&out);
	if (name) {
		rc = show_rule(&prog, name, json, &out);
	} else if (json) {
		buf_puts(&out, "[\n");
		for (size_t i = 0; i < prog.nrules; i++) {
			buf_puts(&out, "  ");
			json_rule(&out, prog.rules[i], false);
			buf_puts(&out, i + 1 < prog.nrules ? ",\n" : "\n");
		}
		buf_puts(&out, "]\n");
	} else {
		text_catalogue(&out, &prog);
	}
	if (fwrite(out.data ? out.data : "", 1, out.len, stdout) != out.len || fflush(stdout))
		rc = EXIT_SYSTEM;
	buf_free(&out);
	ir_program_free(&prog);
	diag_free(&d);
	return rc;
}
