/* test_front_glob.c - compiler/glob.c: every glob_validate message with its
 * byte offset, and the matching semantics of glob.h as a table (*, **, ?,
 * classes, negated classes, braces with empty alternatives and nesting,
 * escapes, "/dir/" followed by a star vs "/dir/"), brace expansion, and a
 * 4096-byte path. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compiler/glob.h"

static void validate_messages(void **state)
{
	(void)state;
	static const struct { const char *glob, *msg; size_t pos; } cases[] = {
		{ "", "empty glob", 0 },
		{ "/a\tb", "control character in glob", 2 },
		{ "/a\x7f", "control character in glob", 2 },
		{ "/tmp/\\", "trailing '\\' in glob", 5 },
		{ "/tmp/[]", "empty character class '[]'", 5 },
		{ "/tmp/[^]", "empty character class '[]'", 5 },
		{ "/tmp/[a/b]", "'/' cannot appear in a character class", 5 },
		{ "/tmp/[z-a]", "reversed range in character class", 5 },
		{ "/tmp/[abc", "unterminated character class '['", 5 },
		{ "/tmp/a]", "unmatched ']'", 6 },
		{ "/tmp/a}", "unmatched '}'", 6 },
		{ "/tmp/***", "more than two '*' in a row", 5 },
		{ "/x/{a,b", "unterminated '{'", 3 },
		{ "tmp/**", "glob must be an absolute path (start with '/')", 0 },
		{ "{/bin/sh,usr/bin/sh}", "glob must be an absolute path (start with '/')", 0 },
		{ "/{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b,c,d}",
		  "glob expands to too many alternatives", 0 },
		/* canonical paths only (LANGUAGE.md), every spelling refused */
		{ "/srv//a", "'//' in glob: paths are canonical, write one '/'", 5 },
		{ "//", "'//' in glob: paths are canonical, write one '/'", 1 },
		{ "/srv/./a", "'.' segment in glob: paths are canonical, drop it", 5 },
		{ "/srv/a/.", "'.' segment in glob: paths are canonical, drop it", 7 },
		{ "/srv/\\./a", "'.' segment in glob: paths are canonical, drop it", 5 },
		{ "/srv/../a", "'..' segment in glob: paths are canonical, write the path it names", 5 },
		{ "/srv/a/..", "'..' segment in glob: paths are canonical, write the path it names", 7 },
		{ "/srv/{a,/b}", "'//' in glob: paths are canonical, write one '/'", 0 },
		{ "/srv/{a,.}/x", "'.' segment in glob: paths are canonical, drop it", 0 },
		{ "/{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{a}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}", "braces nested too deep", 33 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t pos = 999;
		const char *msg = glob_validate(cases[i].glob, &pos);
		if (!msg || strcmp(msg, cases[i].msg) || pos != cases[i].pos)
			fail_msg("glob_validate(\"%s\") = \"%s\" at %zu, want \"%s\" at %zu", cases[i].glob,
				 msg ? msg : "(valid)", pos, cases[i].msg, cases[i].pos);
	}
	static const char *const valid[] = {
		"/", "/etc/passwd", "/proc/*/mem", "/**", "/a/**/b", "/dev/{sd,vd}[a-z]*", "/x/[^.]*",
		"/a\\*b", "/{,var/}lib", "/srv/", "/srv/**/", "/srv/.x", "/srv/..x/...", "/a/{b,c/}d",
		"/{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{a}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}", "/{a,{b,c}}/d", "/a/[\\]]", "/tmp/[a-]",
		/* 4^6 = 4096 alternatives: the limit itself is allowed */
		"/{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b,c,d}",
	};
	for (size_t i = 0; i < sizeof valid / sizeof *valid; i++) {
		const char *msg = glob_validate(valid[i], NULL);
		if (msg)
			fail_msg("glob_validate(\"%s\") = \"%s\", want valid", valid[i], msg);
	}
}

static void match_table(void **state)
{
	(void)state;
	static const struct { const char *glob, *path; bool m; } cases[] = {
		/* literal */
		{ "/etc/passwd", "/etc/passwd", true }, { "/etc/passwd", "/etc/passwd2", false },
		{ "/etc/passwd", "/etc/passw", false }, { "/etc", "/etc/", false },
		/* * stays within a segment */
		{ "/a/*", "/a/b", true }, { "/a/*", "/a/b/c", false }, { "/a/*", "/a/.hidden", true },
		{ "/a/*.conf", "/a/x.conf", true }, { "/a/*.conf", "/a/.conf", false },   /* * after / takes >= 1 char */
		{ "/a/*.conf", "/a/d/x.conf", false }, { "/a*", "/a", true }, { "/a*", "/abc", true },
		{ "/a*/c", "/ab/c", true }, { "/a*/c", "/a/b/c", false },
		/* ** crosses segments */
		{ "/a/**", "/a/b", true }, { "/a/**", "/a/b/c/d", true }, { "/a/**", "/a", false },
		{ "/a/**/z", "/a/b/c/z", true }, { "/a/**/z", "/a/z", false }, { "/a**", "/a/b", true },
		{ "/**", "/", false }, { "/**", "/x", true },
		/* "/dir/" then * or ** needs at least one character */
		{ "/dir/*", "/dir/", false }, { "/dir/**", "/dir/", false }, { "/dir/", "/dir/", true },
		{ "/dir/*", "/dir/x", true }, { "/dir{,/**}", "/dir", true }, { "/dir{,/**}", "/dir/x/y", true },
		{ "/dir{,/**}", "/dir/", false },
		/* ? */
		{ "/a?c", "/abc", true }, { "/a?c", "/a/c", false }, { "/a?c", "/ac", false },
		{ "/a?", "/a", false },
		/* classes */
		{ "/[abc]", "/b", true }, { "/[abc]", "/d", false }, { "/[a-c]x", "/cx", true },
		{ "/[a-c]x", "/dx", false }, { "/[^a]", "/b", true }, { "/[^a]", "/a", false },
		{ "/x[^a]y", "/x/y", false }, { "/x[!]", "/x!", true }, { "/[a-]", "/-", true },
		{ "/[\\]]", "/]", true }, { "/[0-9][0-9]", "/42", true }, { "/[0-9][0-9]", "/4a", false },
		/* braces */
		{ "/{a,b}", "/a", true }, { "/{a,b}", "/b", true }, { "/{a,b}", "/c", false },
		{ "/{a,b}", "/ab", false }, { "/x{,y}", "/x", true }, { "/x{,y}", "/xy", true },
		{ "/{a,b{c,d}}", "/bc", true }, { "/{a,b{c,d}}", "/bd", true }, { "/{a,b{c,d}}", "/b", false },
		{ "/{a,b{c,d}}", "/a", true }, { "/{a,b}/{c,d}", "/b/c", true }, { "{/a,/b/**}", "/b/x", true },
		{ "/{,var/}lib/x", "/lib/x", true }, { "/{,var/}lib/x", "/var/lib/x", true },
		/* escapes */
		{ "/a\\*", "/a*", true }, { "/a\\*", "/ab", false }, { "/a\\?", "/a?", true },
		{ "/\\{a\\}", "/{a}", true }, { "/a\\\\b", "/a\\b", true }, { "/\\[x\\]", "/[x]", true },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *err = glob_validate(cases[i].glob, NULL);
		if (err)
			fail_msg("glob_validate(\"%s\") = \"%s\"", cases[i].glob, err);
		if (glob_match(cases[i].glob, cases[i].path) != cases[i].m)
			fail_msg("glob_match(\"%s\", \"%s\") should be %s", cases[i].glob, cases[i].path,
				 cases[i].m ? "true" : "false");
	}
}

static void collect(const char *alt, void *ctx)
{
	char *out = ctx;
	strcat(out, alt);
	strcat(out, " ");
}

static void expansion(void **state)
{
	(void)state;
	char out[256] = "";
	assert_int_equal(glob_expand("/{a,b{c,d}}/{,x}", collect, out), 6);
	assert_string_equal(out, "/a/ /a/x /bc/ /bc/x /bd/ /bd/x ");
	out[0] = 0;
	assert_int_equal(glob_expand("/plain/[{]", collect, out), 1);
	assert_string_equal(out, "/plain/[{] ");
	out[0] = 0;
	assert_int_equal(glob_expand("/\\{a,b\\}", collect, out), 1);
	assert_int_equal(glob_expand("/{a", collect, out), -1);
	assert_true(glob_is_literal("/etc/passwd"));
	assert_false(glob_is_literal("/etc/*"));
	assert_false(glob_is_literal("/etc/{a,b}"));
	assert_false(glob_is_literal("/a\\b"));
}

/* PATH_MAX-sized paths match in both directions without trouble. */
static void long_path(void **state)
{
	(void)state;
	char *path = malloc(4097), *glob = malloc(4097);
	path[0] = '/';
	memset(path + 1, 'a', 4095);
	path[4096] = 0;
	assert_true(glob_match("/**", path));
	assert_true(glob_match("/*", path));
	assert_true(glob_match("/a*a", path));
	assert_false(glob_match("/*b", path));
	assert_false(glob_match("/*/**", path));
	memcpy(glob, path, 4097);
	assert_true(glob_match(glob, path));
	glob[4095] = '?';
	assert_true(glob_match(glob, path));
	glob[4095] = 'b';
	assert_false(glob_match(glob, path));
	/* a deep path: 2048 segments "/a" */
	for (int i = 0; i < 2048; i++)
		memcpy(path + 2 * i, "/a", 2);
	path[4096] = 0;
	assert_true(glob_match("/**/a", path));
	assert_false(glob_match("/*/a", path));
	assert_true(glob_match("/a/**", path));
	free(path);
	free(glob);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(validate_messages),
		cmocka_unit_test(match_table),
		cmocka_unit_test(expansion),
		cmocka_unit_test(long_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
