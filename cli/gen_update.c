/* gen_update.c - `polc gen --update PROFILE LOG...` (see commands.h,
 * gen_update): fold what a profile refused (a `polc run --mode audit` log,
 * or any trace) into the profile, as aa-logprof does for AppArmor. The new
 * statements are `polc gen`'s own (same generalisation: tracer/gen.c) for
 * the events the profile does not already allow (ir_decide), inserted at
 * the end of the policy's block; the rest of the file is kept byte for
 * byte. The diff is shown; the file is written atomically, and only if
 * the result compiles.
 */
#include "commands.h"
#include "../compiler/compile.h"
#include "../tracer/gen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Offset of the '}' closing the block that opens on or after line `line`
 * (the policy keyword's), skipping strings and comments; -1 if none. */
static long closing_brace(const char *s, int line)
{
	int ln = 1, depth = 0;
	bool opened = false;
	for (long i = 0; s[i]; i++) {
		char ch = s[i];
		if (ch == '\n') {
			ln++;
			continue;
		}
		if (ln < line)
			continue;
		if (ch == '#' || (ch == '/' && s[i + 1] == '/')) {
			while (s[i + 1] && s[i + 1] != '\n')
				i++;
		} else if (ch == '/' && s[i + 1] == '*') {
			for (i += 2; s[i] && !(s[i] == '*' && s[i + 1] == '/'); i++)
				ln += s[i] == '\n';
			if (!s[i])
				return -1;
			i++;
		} else if (ch == '"') {
			for (i++; s[i] && s[i] != '"'; i++)
				if (s[i] == '\\' && s[i + 1])
					i++;
			if (!s[i])
				return -1;
		} else if (ch == '{') {
			depth++;
			opened = true;
		} else if (ch == '}' && opened && --depth == 0) {
			return i;
		}
	}
	return -1;
}

/* The statements of gen's policy text: its block without the default line. */
static void body_of(const char *gen, buf *out)
{
	const char *p = strstr(gen, "\npolicy ");
	p = p ? strchr(p + 1, '\n') : NULL;
	while (p && *++p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 1 && *p == '}')
			break;
		if (strncmp(p, "  default ", 10))
			buf_printf(out, "%.*s\n", (int)n, p);
		if (!e)
			break;
		p = e;
	}
}

static bool has_statement(const buf *b)
{
	for (size_t i = 0; i < b->len; i++) {
		if (b->data[i] == ' ' || b->data[i] == '\n')
			continue;
		if (b->data[i] != '#')
			return true;
		while (i < b->len && b->data[i] != '\n')
			i++;
	}
	return false;
}

/* Unified diff of a pure insertion: common first and last lines. */
static void show_insertion(const char *path, const char *old, size_t at, const buf *ins)
{
	int line = 1;
	for (size_t i = 0; i < at; i++)
		line += old[i] == '\n';
	int nins = 0;
	for (size_t i = 0; i < ins->len; i++)
		nins += ins->data[i] == '\n';
	printf("--- %s\n+++ %s (updated)\n@@ -%d,0 +%d,%d @@\n", path, path, line - 1, line, nins);
	for (size_t i = 0; i < ins->len; ) {
		const char *e = memchr(ins->data + i, '\n', ins->len - i);
		size_t n = e ? (size_t)(e - (ins->data + i)) : ins->len - i;
		printf("+%.*s\n", (int)n, ins->data + i);
		i += n + 1;
	}
}

int gen_update(const char *profile, const char *policy, const trace *t, gen_opts *o,
	       const char *out)
{
	diag_ctx d;
	diag_init(&d);
	/* The compiler's own reader: the same limits and messages as for any
	 * policy source. */
	src_file *sf = diag_read_file(&d, profile, (src_loc){ 0 });
	if (!sf) {
		diag_print(&d, stderr, false);
		diag_free(&d);
		return EXIT_SYSTEM;
	}
	char *text = xstrdup(sf->text);
	size_t len = sf->len;
	ir_program prog;
	memset(&prog, 0, sizeof prog);
	compile_opts co = { 0 };
	const ir_policy *pol = NULL;
	int rc = EXIT_OK;
	if (polc_compile_text(profile, text, &co, &d, &prog) < 0 ||
	    !(pol = ir_program_select(&prog, policy, &d))) {
		diag_print(&d, stderr, false);
		rc = EXIT_POLICY;
	}
	long at = pol ? closing_brace(text, pol->loc.line) : -1;
	if (rc == EXIT_OK && at < 0) {
		fprintf(stderr, "polc gen: %s:%d: cannot find the end of policy %s\n", profile,
			pol->loc.line, pol->name);
		rc = EXIT_POLICY;
	}
	buf g, ins;
	buf_init(&g);
	buf_init(&ins);
	char *err = NULL;
	if (rc == EXIT_OK) {
		o->known = pol;
		o->name = pol->name;
		if (gen_policy(t, o, &g, &err) < 0) {
			fprintf(stderr, "polc gen: %s\n", err);
			free(err);
			rc = EXIT_POLICY;
		}
	}
	if (rc == EXIT_OK) {
		char *gs = buf_cstr(&g);
		buf body;
		buf_init(&body);
		body_of(gs, &body);
		if (!has_statement(&body)) {
			fprintf(stderr, "polc gen: %s already allows everything in the log(s); "
				"nothing to add\n", profile);
		} else {
			buf_printf(&ins, "  # Added by polc gen --update from %llu run(s) of what "
				   "the policy refused:\n",
				   (unsigned long long)trace_total(t, TR_META, "runs"));
			buf_put(&ins, body.data, body.len);
		}
		buf_free(&body);
	}
	if (rc == EXIT_OK && ins.len) {
		/* Insert at the start of the closing brace's line when it is
		 * alone there, else just before it. */
		size_t pos = (size_t)at;
		while (pos > 0 && (text[pos - 1] == ' ' || text[pos - 1] == '\t'))
			pos--;
		bool own_line = pos == 0 || text[pos - 1] == '\n';
		buf nt;
		buf_init(&nt);
		buf_put(&nt, text, own_line ? pos : (size_t)at);
		if (!own_line)
			buf_puts(&nt, "\n");
		buf_put(&nt, ins.data, ins.len);
		buf_put(&nt, text + (own_line ? pos : (size_t)at), len - (own_line ? pos : (size_t)at));
		char *nts = buf_cstr(&nt);
		diag_ctx d2;
		diag_init(&d2);
		ir_program p2;
		memset(&p2, 0, sizeof p2);
		if (polc_compile_text(profile, nts, &co, &d2, &p2) < 0) {
			fprintf(stderr, "polc gen: the updated profile does not compile; "
				"nothing written:\n");
			diag_print(&d2, stderr, false);
			rc = EXIT_POLICY;
		}
		ir_program_free(&p2);
		diag_free(&d2);
		if (rc == EXIT_OK) {
			show_insertion(profile, text, own_line ? pos : (size_t)at, &ins);
			if (write_file_atomic(out ? out : profile, nts, strlen(nts)) < 0) {
				fprintf(stderr, "polc gen: cannot write '%s': %s\n",
					out ? out : profile, strerror(errno));
				rc = EXIT_SYSTEM;
			}
		}
		free(nts);
	}
	buf_free(&g);
	buf_free(&ins);
	ir_program_free(&prog);
	diag_free(&d);
	free(text);
	return rc;
}
