/* test_diff_semantics.c - ir_diff() judges by meaning: pairs of policies
 * that are written differently but decide alike compare equal, and each kind
 * of change yields the right item (kind, event, both locations). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compile.h"
#include "compiler/irdiff.h"

typedef struct {
	diag_ctx d;
	ir_program a, b;
	irdiff df;
} pair;

static void load(diag_ctx *d, const char *name, const char *text, ir_program *p)
{
	compile_opts o = { 0 };
	if (polc_compile_text(name, text, &o, d, p) != 0) {
		diag_print(d, stderr, false);
		fail_msg("%s does not compile", name);
	}
}

static size_t diff(pair *p, const char *old, const char *new_)
{
	memset(p, 0, sizeof *p);
	diag_init(&p->d);
	load(&p->d, "old.pol", old, &p->a);
	load(&p->d, "new.pol", new_, &p->b);
	return ir_diff(p->a.policies[0], p->b.policies[0], &p->df);
}

static void done(pair *p)
{
	irdiff_free(&p->df);
	ir_program_free(&p->a);
	ir_program_free(&p->b);
	diag_free(&p->d);
}

static const irdiff_item *only(pair *p)
{
	if (p->df.n != 1) {
		buf b;
		buf_init(&b);
		irdiff_print(&p->df, false, &b);
		fail_msg("%zu items:\n%s", p->df.n, buf_cstr(&b));
	}
	return &p->df.v[0];
}

static void equal_in_effect(void **state)
{
	(void)state;
	static const char *const pairs[][2] = {
		/* reordered and regrouped */
		{ "policy p { default deny syscall; allow syscall read, write; allow file \"/a/*\" read, write; }",
		  "policy p { allow file \"/a/*\" write; allow syscall write; allow file \"/a/*\" read; allow syscall read; default deny syscall; }" },
		/* a statement a stronger one shadows */
		{ "policy p { deny file \"/etc/**\" write; }",
		  "policy p { deny file \"/etc/**\" write; allow file \"/etc/passwd\" write; }" },
		/* an allow under an allow default */
		{ "policy p { allow syscall read; }", "policy p { }" },
		/* the same condition written with a symbol and a number */
		{ "policy p { default deny syscall; allow syscall clone if arg0 & CLONE_NEWUSER == 0; }",
		  "policy p { default deny syscall; allow syscall clone if arg0 & 0x10000000 == 0; }" },
		/* a range split in two */
		{ "policy p { default deny network; allow network bind tcp port 8000-8010; }",
		  "policy p { default deny network; allow network bind tcp port 8000-8004, 8005-8010; }" },
	};
	for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
		pair p;
		size_t n = diff(&p, pairs[i][0], pairs[i][1]);
		if (n) {
			buf b;
			buf_init(&b);
			irdiff_print(&p.df, false, &b);
			fail_msg("pair %zu differs:\n%s", i, buf_cstr(&b));
		}
		done(&p);
	}
}

static void kinds_and_locations(void **state)
{
	(void)state;
	pair p;
	diff(&p, "policy p {\n default deny syscall;\n allow syscall read;\n}\n",
	     "policy p {\n default deny syscall;\n deny errno EACCES syscall read;\n}\n");
	const irdiff_item *it = only(&p);
	assert_int_equal(it->kind, IRD_NARROWED);
	assert_string_equal(it->subject, "syscall read (x86_64)");
	assert_int_equal(it->old.at.line, 3);
	assert_false(it->old.is_default);
	assert_true(it->new_.verdict == IR_DENY && it->new_.err == 13 && it->new_.at.line == 3);
	done(&p);

	/* errno only: changed, not narrowed */
	diff(&p, "policy p { deny syscall read; }", "policy p { deny errno EACCES syscall read; }");
	assert_int_equal(only(&p)->kind, IRD_CHANGED);
	done(&p);

	/* kill vs deny: changed */
	diff(&p, "policy p { deny syscall ptrace; }", "policy p { kill syscall ptrace; }");
	assert_int_equal(only(&p)->kind, IRD_CHANGED);
	done(&p);

	/* a threshold moved: the boundary value shows */
	diff(&p, "policy p { deny syscall socket if arg0 > 40; }", "policy p { deny syscall socket if arg0 > 41; }");
	assert_string_equal(only(&p)->subject, "syscall socket arg0=0x29 (x86_64)");
	assert_int_equal(only(&p)->kind, IRD_WIDENED);
	done(&p);

	/* capability, ptrace, mount, exec */
	diff(&p, "policy p { deny capability sys_admin; }", "policy p { deny capability sys_admin, net_raw; }");
	assert_string_equal(only(&p)->subject, "capability net_raw");
	done(&p);
	diff(&p, "policy p { deny ptrace; }", "policy p { deny ptrace trace; }");
	assert_string_equal(only(&p)->subject, "ptrace read");
	done(&p);
	diff(&p, "policy p { deny mount; }", "policy p { deny mount fstype tmpfs; }");
	assert_true(p.df.n >= 1);
	for (size_t i = 0; i < p.df.n; i++)
		assert_int_equal(p.df.v[i].kind, IRD_WIDENED);
	done(&p);
	diff(&p, "policy p { default deny exec; allow exec \"/usr/bin/*\"; }",
	     "policy p { default deny exec; allow exec \"/usr/bin/*\", \"/bin/sh\"; }");
	assert_string_equal(only(&p)->subject, "exec \"/bin/sh\"");
	done(&p);
	/* a new address */
	diff(&p, "policy p { deny network connect to 169.254.169.254/32; }",
	     "policy p { deny network connect to 169.254.0.0/16; }");
	assert_true(p.df.n >= 1);
	assert_int_equal(p.df.v[0].kind, IRD_NARROWED);
	assert_non_null(strstr(p.df.v[0].subject, "to 169.254."));
	done(&p);
}

static void settings(void **state)
{
	(void)state;
	pair p;
	/* one item for the mode; every deny it turns into audit is that item */
	diff(&p, "policy p { deny syscall read; }", "policy p { mode audit; deny syscall read; }");
	assert_true(p.df.n >= 1);
	assert_int_equal(p.df.v[0].kind, IRD_WIDENED);
	assert_non_null(strstr(p.df.v[0].subject, "mode"));
	done(&p);
	/* an arch named by one side only is one item */
	diff(&p, "policy p { default deny syscall; allow syscall read; }",
	     "policy p { arch x86_64, i386; default deny syscall; allow syscall read; }");
	const irdiff_item *it = only(&p);
	assert_int_equal(it->kind, IRD_WIDENED);
	assert_non_null(strstr(it->subject, "arch i386"));
	done(&p);
	/* the --against gate looks for widened items */
	diff(&p, "policy p { default deny syscall; allow syscall read, write; }",
	     "policy p { default deny syscall; allow syscall read; }");
	assert_false(irdiff_has(&p.df, IRD_WIDENED));
	assert_true(irdiff_has(&p.df, IRD_NARROWED));
	buf b;
	buf_init(&b);
	irdiff_print(&p.df, true, &b);
	assert_non_null(strstr(buf_cstr(&b), "\"kind\":\"narrowed\",\"domain\":\"syscall\",\"subject\":\"syscall write (x86_64)\""));
	buf_free(&b);
	done(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(equal_in_effect),
		cmocka_unit_test(kinds_and_locations),
		cmocka_unit_test(settings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
