/* test_strset.c - base/strset.c against a plain list: 20,000 random adds
 * over a small alphabet (many duplicates, so the probe chains wrap and
 * the table grows) keep the same distinct strings in first-added order,
 * strset_find giving each one's index; take frees duplicates (ASan sees a
 * leak or double free); after sorting, lookups and adds still work; after
 * a removal, the rest keep their order and indexes follow them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/strset.h"
#include "base/util.h"

static unsigned rnd(void)
{
	static unsigned x = 12345;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

static void like_a_list(void **state)
{
	(void)state;
	strset s = { 0 };
	char **list = NULL;
	size_t n = 0, cap = 0;
	for (int i = 0; i < 20000; i++) {
		char word[8];
		snprintf(word, sizeof word, "/%u", rnd() % 3000);
		bool seen = false;
		size_t at = 0;
		for (size_t k = 0; k < n && !seen; k++)
			if ((seen = !strcmp(list[k], word)))
				at = k;
		assert_int_equal(strset_has(&s, word), seen);
		assert_int_equal(strset_find(&s, word), seen ? (long)at : -1);
		assert_int_equal(i % 2 ? strset_add(&s, word) : strset_take(&s, xstrdup(word)), !seen);
		if (!seen) {
			xgrow(&list, &cap, n + 1, sizeof *list);
			list[n++] = xstrdup(word);
		}
	}
	assert_int_equal(s.n, n);
	for (size_t k = 0; k < n; k++) {
		assert_string_equal(s.v[k], list[k]);
		free(list[k]);
	}
	free(list);
	strset_free(&s);
	assert_int_equal(s.n, 0);
	assert_false(strset_has(&s, "/1"));
}

static void sorted_stays_a_set(void **state)
{
	(void)state;
	strset s = { 0 };
	const char *in[] = { "/c", "/a", "/b", "/a", "" };
	for (size_t i = 0; i < 5; i++)
		strset_add(&s, in[i]);
	strset_sort(&s);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.v[0], "");
	assert_string_equal(s.v[1], "/a");
	assert_string_equal(s.v[3], "/c");
	assert_true(strset_has(&s, "/b"));
	assert_false(strset_add(&s, "/c"));
	assert_true(strset_add(&s, "/d"));
	assert_string_equal(s.v[4], "/d");
	strset_free(&s);
}

static bool odd_or_c(const char *x, void *ctx)
{
	(void)ctx;
	return !strcmp(x, "/c") || (x[1] >= '0' && x[1] <= '9' && (x[1] - '0') % 2);
}

static void remove_keeps_order(void **state)
{
	(void)state;
	strset s = { 0 };
	const char *in[] = { "/c", "/1", "/a", "/2", "/3", "/b", "/4" };
	for (size_t i = 0; i < 7; i++)
		strset_add(&s, in[i]);
	assert_int_equal(strset_remove_if(&s, odd_or_c, NULL), 3);   /* /c, /1, /3 */
	const char *want[] = { "/a", "/2", "/b", "/4" };
	assert_int_equal(s.n, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(s.v[i], want[i]);
		assert_int_equal(strset_find(&s, want[i]), (long)i);
	}
	assert_false(strset_has(&s, "/c"));
	assert_false(strset_has(&s, "/3"));
	assert_true(strset_add(&s, "/c"));   /* gone, so new again */
	assert_int_equal(strset_find(&s, "/c"), 4);
	assert_int_equal(strset_remove_if(&s, odd_or_c, NULL), 1);
	assert_int_equal(strset_remove_if(&s, odd_or_c, NULL), 0);
	strset_free(&s);
	strset e = { 0 };
	assert_int_equal(strset_remove_if(&e, odd_or_c, NULL), 0);   /* never added to */
	strset_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(like_a_list),
		cmocka_unit_test(sorted_stays_a_set),
		cmocka_unit_test(remove_keeps_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
