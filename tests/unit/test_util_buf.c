/* test_util_buf.c - base/util.c's writers that stand in for the formatter
 * in lines written once per statement: buf_put_dec writes what "%lld"
 * writes (zero, each sign, every power of ten and its neighbours, the
 * extremes, and random values); buf_json_strn's runs of plain bytes keep
 * the escapes between them (quotes, backslashes, control bytes, UTF-8 and
 * a byte that is not). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <cmocka.h>

#include "base/util.h"

static void dec_is(long long v)
{
	char want[32];
	snprintf(want, sizeof want, "%lld", v);
	buf b;
	buf_init(&b);
	buf_puts(&b, "<");
	buf_put_dec(&b, v);
	buf_puts(&b, ">");
	char got[40];
	snprintf(got, sizeof got, "<%s>", want);
	assert_string_equal(buf_cstr(&b), got);
	buf_free(&b);
}

static void put_dec_is_printf(void **state)
{
	(void)state;
	dec_is(0);
	dec_is(LLONG_MAX);
	dec_is(LLONG_MIN);
	dec_is(LLONG_MIN + 1);
	for (long long p = 1; p <= LLONG_MAX / 10; p *= 10)
		for (long long d = -1; d <= 1; d++) {
			dec_is(p + d);
			dec_is(-(p + d));
		}
	unsigned long long x = 88172645463325252ull;
	for (int i = 0; i < 10000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		dec_is((long long)(x >> (i % 64)) * (i % 2 ? -1 : 1));
	}
}

static void json_runs(void **state)
{
	(void)state;
	static const struct { const char *in, *out; } cases[] = {
		{ "", "\"\"" },
		{ "plain text, 100% ~ASCII~", "\"plain text, 100% ~ASCII~\"" },
		{ "a\"b\\c", "\"a\\\"b\\\\c\"" },
		{ "\"\"", "\"\\\"\\\"\"" },
		{ "line\nnext\ttab\x01\x1f end", "\"line\\nnext\\ttab\\u0001\\u001f end\"" },
		{ "del\x7f ok", "\"del\x7f ok\"" },
		{ "caf\xc3\xa9 \xe2\x82\xac!", "\"caf\xc3\xa9 \xe2\x82\xac!\"" },
		{ "bad \xff byte \xc3", "\"bad \\ufffd byte \\ufffd\"" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		buf b;
		buf_init(&b);
		buf_json_str(&b, cases[i].in);
		assert_string_equal(buf_cstr(&b), cases[i].out);
		buf_free(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(put_dec_is_printf),
		cmocka_unit_test(json_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
