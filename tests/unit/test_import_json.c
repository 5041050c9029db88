/* test_import_json.c - import/json.c against libyaml, the parser it stands
 * in for: for every JSON file of the repository, for generated JSON (random
 * nesting, strings with every escape, numbers, blanks and line breaks in
 * every place) and for byte mutations of both, whenever json_load_yaml()
 * takes a text, yaml_parser_load() must give the same document node for
 * node (values, styles, tags, marks); and the fast path must really take
 * the OCI profiles (else the import is slow again, silently). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <glob.h>

#include "base/diag.h"
#include "base/util.h"
#include "import/json.h"

static int taken, refused;

/* Returns whether the fast path took text. */
static bool check(const char *text, size_t len)
{
	import_doc a;
	yaml_document_t b;
	if (!json_load_yaml(text, len, &a)) {
		refused++;
		return false;
	}
	taken++;
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	int ok = yaml_parser_load(&p, &b);
	yaml_parser_delete(&p);
	if (!ok)
		fprintf(stderr, "libyaml refuses what json.c took:\n%.*s\n", (int)len, text);
	assert_true(ok);
	bool same = json_yaml_docs_equal(&a.doc, &b);
	if (!same)
		fprintf(stderr, "documents differ for:\n%.*s\n", (int)len, text);
	assert_true(same);
	import_doc_free(&a);
	yaml_document_delete(&b);
	return true;
}

static unsigned rnd(void)
{
	static unsigned x = 2463534242u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

static void blank(buf *b)
{
	static const char *const w[] = { "", "", " ", "\n", "  \n  ", "\n\n", "\t", "\n\t\t" };
	buf_puts(b, w[rnd() % 8]);
}

static void gen_string(buf *b)
{
	static const char *const part[] = { "a", "Z9", " ", "\\\"", "\\\\", "\\/", "\\b", "\\f",
		"\\n", "\\r", "\\t", "\\u0041", "\\u00e9", "\\u20ac", "\\uFFFD", "\\u001f",
		"SCMP_ACT_ALLOW", ":", ",", "{", "]", "#", "-", "---", "&x", "*y", "!t", "%" };
	buf_puts(b, "\"");
	for (unsigned i = 0, n = rnd() % 5; i < n; i++)
		buf_puts(b, part[rnd() % (sizeof part / sizeof *part)]);
	buf_puts(b, "\"");
}

static void gen_value(buf *b, int depth)
{
	static const char *const atom[] = { "0", "-1", "12", "3.25", "-0.5e+3", "1E9", "true",
		"false", "null", "18446744073709551615" };
	unsigned k = depth > 4 ? rnd() % 2 : rnd() % 4;
	if (k == 0)
		buf_puts(b, atom[rnd() % (sizeof atom / sizeof *atom)]);
	else if (k == 1)
		gen_string(b);
	else {
		bool map = k == 2;
		buf_puts(b, map ? "{" : "[");
		for (unsigned i = 0, n = rnd() % 4; i < n; i++) {
			if (i)
				buf_puts(b, ",");
			blank(b);
			if (map) {
				gen_string(b);
				if (rnd() % 8 == 0)
					blank(b);
				buf_puts(b, rnd() % 2 ? ": " : ":");
			}
			gen_value(b, depth + 1);
			blank(b);
		}
		buf_puts(b, map ? "}" : "]");
	}
}

static void mutate_and_check(const char *text, size_t len, int rounds)
{
	char *m = xmalloc(len + 1);
	static const char bytes[] = "{}[],:\" \n\t\r\\u0-e.\x85\xe2";
	for (int i = 0; i < rounds; i++) {
		memcpy(m, text, len);
		size_t at = rnd() % len;
		m[at] = bytes[rnd() % (sizeof bytes - 1)];
		check(m, len);
		check(m, at);                 /* a prefix */
	}
	free(m);
}

static void repository_json(void **state)
{
	(void)state;
	const char *src = getenv("SRC");
	char *pat = xasprintf("%s/tests/*/*/*.json", src ? src : ".");
	char *pat2 = xasprintf("%s/tests/fuzz/corpus/import/*", src ? src : ".");
	glob_t g = { 0 };
	glob(pat, 0, NULL, &g);
	glob(pat2, GLOB_APPEND, NULL, &g);
	free(pat);
	free(pat2);
	int files = 0, docker = 0;
	diag_ctx d;
	diag_init(&d);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		src_file *f = diag_read_file(&d, g.gl_pathv[i], src_loc_none());
		assert_non_null(f);
		files++;
		bool took = check(f->text, f->len);
		if (strstr(g.gl_pathv[i], "docker-default-seccomp.json")) {
			assert_true(took);    /* the profile the fast path is for */
			docker++;
		}
		if (took)
			mutate_and_check(f->text, f->len, 300);
	}
	diag_free(&d);
	globfree(&g);
	print_message("%d files; fast path took %d texts, left %d to libyaml\n", files, taken,
		      refused);
	assert_true(docker >= 1);
}

static void generated(void **state)
{
	(void)state;
	taken = refused = 0;
	for (int i = 0; i < 3000; i++) {
		buf b;
		buf_init(&b);
		blank(&b);
		gen_value(&b, 0);
		blank(&b);
		check(b.data, b.len);
		mutate_and_check(b.data, b.len, 5);
		buf_free(&b);
	}
	print_message("generated: fast path took %d texts, left %d to libyaml\n", taken, refused);
	assert_true(taken > 1000);   /* scalar roots and outer tabs are left to libyaml */
}

static void escapes(void **state)
{
	(void)state;
	static const char *const ok[] = { "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]", "[\"\\u00e9\\u20ac\"]",
		"{\"a\":1}", "{ \"a\" : [ ] , \"b\" : { } }", "[-0, 0.5, 1e3, true, false, null]" };
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
		assert_true(check(ok[i], strlen(ok[i])));
	/* outside the subset: left to libyaml */
	static const char *const no[] = { "[\"\\ud83d\"]", "[\"\\u0000\"]", "[\"\\x41\"]",
		"{\"a\"\n: 1}", "[1,]", "[01]", "[\"caf\xc3\xa9\"]", "\t[1]", "[1]\n\t", "[1]\r\n", "a: 1",
		"[1] [2]", "" };
	for (size_t i = 0; i < sizeof no / sizeof *no; i++)
		assert_false(check(no[i], strlen(no[i])));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(repository_json),
		cmocka_unit_test(generated),
		cmocka_unit_test(escapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
