/* test_front_lexer.c - grammar/lexer.l: token kinds, values and locations
 * (columns count UTF-8 characters), string escapes, numbers in every base,
 * addresses, comments, and the lexical error messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "grammar/parse_ctx.h"
#include "grammar/parser.h"
#include "grammar/lexer.h"
#include "base/util.h"

typedef struct {
	int kind;
	int line, col;
	uint64_t num;
	char str[128];
} tok;

typedef struct {
	diag_ctx d;
	tok t[64];
	int n;                     /* tokens before end of file */
} lexed;

static lexed *lex_all(const char *text, size_t len)
{
	lexed *L = test_calloc(1, sizeof *L);
	diag_init(&L->d);
	struct lex_ctx lx;
	memset(&lx, 0, sizeof lx);
	lx.d = &L->d;
	lx.src = diag_add_text(&L->d, "lex.pol", text, len, false);
	assert_int_equal(lex_init(&lx, lx.src->text, len), 0);
	for (;;) {
		POLC_YYSTYPE v;
		POLC_YYLTYPE l;
		memset(&v, 0, sizeof v);
		int k = polc_yylex(&v, &l, lx.scanner);
		if (k == 0)
			break;
		assert_true(L->n < 64);
		tok *t = &L->t[L->n++];
		t->kind = k;
		t->line = l.first_line;
		t->col = l.first_column;
		if (k == INT)
			t->num = v.num;
		if (k == NAME || k == STRING || k == ADDR) {
			snprintf(t->str, sizeof t->str, "%s", v.str);
			free(v.str);
		}
	}
	lex_destroy(&lx);
	return L;
}

static lexed *lex(const char *text)
{
	return lex_all(text, strlen(text));
}

static void done(lexed *L)
{
	diag_free(&L->d);
	test_free(L);
}

static void assert_tok(const tok *t, int kind, int line, int col)
{
	assert_int_equal(t->kind, kind);
	assert_int_equal(t->line, line);
	assert_int_equal(t->col, col);
}

static void keywords_and_names(void **state)
{
	(void)state;
	lexed *L = lex("policy deny denyx mitigate-sa-leak _x9 pivot_root errno");
	assert_int_equal(L->n, 7);
	assert_tok(&L->t[0], KW_POLICY, 1, 1);
	assert_tok(&L->t[1], KW_DENY, 1, 8);
	assert_tok(&L->t[2], NAME, 1, 13);
	assert_string_equal(L->t[2].str, "denyx");
	assert_tok(&L->t[3], NAME, 1, 19);
	assert_string_equal(L->t[3].str, "mitigate-sa-leak");
	assert_string_equal(L->t[4].str, "_x9");
	assert_int_equal(L->t[5].kind, KW_PIVOT_ROOT);
	assert_int_equal(L->t[6].kind, KW_ERRNO);
	assert_int_equal(L->d.n, 0);
	done(L);
}

static void punctuation_and_operators(void **state)
{
	(void)state;
	lexed *L = lex("{};,&|- && == != <= >= < >");
	static const int want[] = { '{', '}', ';', ',', '&', '|', '-', ANDAND, EQ, NE, LE, GE, LT, GT };
	assert_int_equal(L->n, 14);
	for (int i = 0; i < 14; i++)
		assert_int_equal(L->t[i].kind, want[i]);
	assert_int_equal(L->t[7].col, 9);
	done(L);
}

static void numbers_in_every_base(void **state)
{
	(void)state;
	lexed *L = lex("42 0x2A 0X2a 0o52 0O52 0 18446744073709551615 0xffffffffffffffff 0o1777777777777777777777");
	static const uint64_t want[] = { 42, 42, 42, 42, 42, 0, UINT64_MAX, UINT64_MAX, UINT64_MAX };
	assert_int_equal(L->n, 9);
	for (int i = 0; i < 9; i++) {
		assert_int_equal(L->t[i].kind, INT);
		assert_true(L->t[i].num == want[i]);
	}
	assert_int_equal(L->d.n, 0);
	done(L);
}

/* Each bad number is one INT token and one error at its first column. */
static void bad_numbers(void **state)
{
	(void)state;
	static const struct { const char *text, *msg; } cases[] = {
		{ "0x", "lex.pol:1:3: error: invalid number '0x'\n" },
		{ "0o9", "lex.pol:1:3: error: invalid number '0o9'\n" },
		{ "12abc", "lex.pol:1:3: error: invalid number '12abc'\n" },
		{ "0xg1", "lex.pol:1:3: error: invalid number '0xg1'\n" },
		{ "18446744073709551616", "lex.pol:1:3: error: number '18446744073709551616' does not fit in 64 bits\n" },
		{ "0x10000000000000000", "lex.pol:1:3: error: number '0x10000000000000000' does not fit in 64 bits\n" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[64];
		snprintf(text, sizeof text, "  %s", cases[i].text);
		lexed *L = lex(text);
		assert_int_equal(L->n, 1);
		assert_int_equal(L->t[0].kind, INT);
		assert_true(L->t[0].num == 0);
		assert_int_equal(L->d.n, 1);
		char *s = diag_format(&L->d.v[0], false);
		assert_string_equal(s, cases[i].msg);
		free(s);
		done(L);
	}
}

static void strings_and_escapes(void **state)
{
	(void)state;
	lexed *L = lex("\"plain\" \"a\\\"b\" \"back\\\\slash\" \"/tmp/\\*\" \"\" \"été\"");
	assert_int_equal(L->n, 6);
	assert_string_equal(L->t[0].str, "plain");
	assert_string_equal(L->t[1].str, "a\"b");
	assert_string_equal(L->t[2].str, "back\\slash");
	assert_string_equal(L->t[3].str, "/tmp/\\*");   /* glob escapes reach the glob */
	assert_string_equal(L->t[4].str, "");
	assert_string_equal(L->t[5].str, "été");
	assert_int_equal(L->t[1].col, 9);
	assert_int_equal(L->d.n, 0);
	done(L);
}

static void addresses(void **state)
{
	(void)state;
	lexed *L = lex("10.0.0.0/8 169.254.169.254 ::1 fe80::1/64 2001:db8::");
	assert_int_equal(L->n, 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(L->t[i].kind, ADDR);
	assert_string_equal(L->t[0].str, "10.0.0.0/8");
	assert_string_equal(L->t[1].str, "169.254.169.254");
	assert_string_equal(L->t[2].str, "::1");
	assert_string_equal(L->t[3].str, "fe80::1/64");
	assert_string_equal(L->t[4].str, "2001:db8::");
	done(L);
}

static void locations_lines_tabs_utf8(void **state)
{
	(void)state;
	/* tab = one column; é and ☃ are one column each */
	lexed *L = lex("deny\n\tallow\n\"é☃\" kill\n\n  x");
	assert_int_equal(L->n, 5);
	assert_tok(&L->t[0], KW_DENY, 1, 1);
	assert_tok(&L->t[1], KW_ALLOW, 2, 2);
	assert_tok(&L->t[2], STRING, 3, 1);
	assert_tok(&L->t[3], KW_KILL, 3, 6);
	assert_tok(&L->t[4], NAME, 5, 3);
	done(L);
}

static void comments(void **state)
{
	(void)state;
	lexed *L = lex("# deny\nallow /* kill\n * audit */ deny # x\n/**/mode");
	assert_int_equal(L->n, 3);
	assert_tok(&L->t[0], KW_ALLOW, 2, 1);
	assert_tok(&L->t[1], KW_DENY, 3, 13);
	assert_tok(&L->t[2], KW_MODE, 4, 5);
	assert_int_equal(L->d.n, 0);
	done(L);
}

/* text and length, for texts that hold a NUL */
#define S(lit) lit, sizeof lit - 1

static void lexical_errors(void **state)
{
	(void)state;
	static const struct { const char *text; size_t len; const char *msg; int ntok; } cases[] = {
		{ S("x \"abc"), "lex.pol:1:3: error: unterminated string (missing '\"' before end of line)\n", 2 },
		{ S("x /* abc\n"), "lex.pol:1:3: error: unterminated comment (missing '*/')\n", 1 },
		{ S("x @"), "lex.pol:1:3: error: unexpected character '@'\n", 1 },
		{ S("x \0 y"), "lex.pol:1:3: error: NUL byte in source\n", 2 },
		{ S("x caf\xc3\xa9 y"), "lex.pol:1:3: error: unexpected non-ASCII text outside a string (names are ASCII; only strings may hold UTF-8)\n", 2 },
		{ S("x \"\xff\""), "lex.pol:1:3: error: string is not valid UTF-8\n", 2 },
		{ S("x \"\xc0\x80\""), "lex.pol:1:3: error: string is not valid UTF-8\n", 2 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		lexed *L = lex_all(cases[i].text, cases[i].len);
		assert_int_equal(L->d.n, 1);
		char *s = diag_format(&L->d.v[0], false);
		assert_string_equal(s, cases[i].msg);
		free(s);
		if (L->n != cases[i].ntok)
			fail_msg("case %zu: %d tokens", i, L->n);
		done(L);
	}
}

static void utf8_validation(void **state)
{
	(void)state;
	assert_true(utf8_valid("plain"));
	assert_true(utf8_valid("\xc3\xa9\xe2\x98\x83\xf0\x9f\x98\x80"));
	assert_false(utf8_valid("\xc3"));
	assert_false(utf8_valid("\xc1\xbf"));       /* overlong */
	assert_false(utf8_valid("\x80"));
	assert_false(utf8_valid("\xe2\x98"));
	assert_false(utf8_valid("\xf8\x88\x80\x80\x80"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keywords_and_names),
		cmocka_unit_test(punctuation_and_operators),
		cmocka_unit_test(numbers_in_every_base),
		cmocka_unit_test(bad_numbers),
		cmocka_unit_test(strings_and_escapes),
		cmocka_unit_test(addresses),
		cmocka_unit_test(locations_lines_tabs_utf8),
		cmocka_unit_test(comments),
		cmocka_unit_test(lexical_errors),
		cmocka_unit_test(utf8_validation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
