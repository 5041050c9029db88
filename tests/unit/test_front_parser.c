/* test_front_parser.c - grammar/parser.y: the AST shape of every statement
 * form of LANGUAGE.md's grammar, with locations, and error recovery (every
 * syntax error reported, the well-formed parts kept). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "grammar/ast.h"

typedef struct {
	diag_ctx d;
	ast_file *f;
} parsed;

static parsed *parse(const char *text)
{
	parsed *P = test_calloc(1, sizeof *P);
	diag_init(&P->d);
	const src_file *src = diag_add_text(&P->d, "p.pol", text, strlen(text), false);
	P->f = parse_source(&P->d, src);
	return P;
}

static void done(parsed *P)
{
	ast_file_free(P->f);
	diag_free(&P->d);
	test_free(P);
}

/* Parse "policy p {\n BODY }" and return its only statement. */
static parsed *parse_one(const char *body, const ast_stmt **st)
{
	char text[1024];
	snprintf(text, sizeof text, "policy p {\n%s\n}\n", body);
	parsed *P = parse(text);
	assert_int_equal(P->d.n, 0);
	assert_int_equal(P->f->n, 1);
	assert_int_equal(P->f->blocks[0]->n, 1);
	*st = P->f->blocks[0]->stmts[0];
	return P;
}

static void assert_loc(src_loc l, int line, int col)
{
	assert_int_equal(l.line, line);
	assert_int_equal(l.col, col);
}

static void top_level_blocks(void **state)
{
	(void)state;
	parsed *P = parse("include \"a.pol\";\nrule r-1 {\n  summary \"S\";\n  deny syscall bpf;\n}\npolicy p { use r-1; }\n");
	assert_int_equal(P->d.n, 0);
	assert_int_equal(P->f->n, 3);
	ast_block *inc = P->f->blocks[0], *r = P->f->blocks[1], *p = P->f->blocks[2];
	assert_int_equal(inc->kind, BLOCK_INCLUDE);
	assert_string_equal(inc->name.s, "a.pol");
	assert_loc(inc->loc, 1, 1);
	assert_loc(inc->name.loc, 1, 9);
	assert_int_equal(r->kind, BLOCK_RULE);
	assert_string_equal(r->name.s, "r-1");
	assert_loc(r->loc, 2, 1);
	assert_loc(r->name.loc, 2, 6);
	assert_int_equal(r->n, 2);
	assert_int_equal(r->stmts[0]->kind, ST_SUMMARY);
	assert_string_equal(r->stmts[0]->word.s, "S");
	assert_int_equal(r->stmts[1]->kind, ST_STATEMENT);
	assert_int_equal(p->kind, BLOCK_POLICY);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->stmts[0]->kind, ST_USE);
	assert_int_equal(p->stmts[0]->names.n, 1);
	assert_string_equal(p->stmts[0]->names.v[0].s, "r-1");
	done(P);
}

static void settings(void **state)
{
	(void)state;
	parsed *P = parse("policy p {\n default deny;\n default deny errno EACCES file, exec;\n mode audit;\n arch x86_64, i386;\n use a, b;\n}");
	assert_int_equal(P->d.n, 0);
	ast_block *b = P->f->blocks[0];
	assert_int_equal(b->n, 5);
	assert_int_equal(b->stmts[0]->kind, ST_DEFAULT);
	assert_int_equal(b->stmts[0]->action.verdict, AST_DENY);
	assert_int_equal(b->stmts[0]->names.n, 0);
	assert_int_equal(b->stmts[1]->action.verdict, AST_DENY);
	assert_true(b->stmts[1]->action.has_errno);
	assert_true(b->stmts[1]->action.err.is_name);
	assert_string_equal(b->stmts[1]->action.err.name, "EACCES");
	assert_int_equal(b->stmts[1]->names.n, 2);
	assert_string_equal(b->stmts[1]->names.v[0].s, "file");
	assert_string_equal(b->stmts[1]->names.v[1].s, "exec");
	assert_int_equal(b->stmts[2]->kind, ST_MODE);
	assert_string_equal(b->stmts[2]->word.s, "audit");
	assert_loc(b->stmts[2]->word.loc, 4, 7);
	assert_int_equal(b->stmts[3]->kind, ST_ARCH);
	assert_int_equal(b->stmts[3]->names.n, 2);
	assert_string_equal(b->stmts[3]->names.v[1].s, "i386");
	assert_int_equal(b->stmts[4]->kind, ST_USE);
	assert_int_equal(b->stmts[4]->names.n, 2);
	done(P);
}

static void actions(void **state)
{
	(void)state;
	static const struct { const char *text; ast_verdict v; bool has_errno; bool is_name; uint64_t num; } cases[] = {
		{ "allow syscall read;", AST_ALLOW, false, false, 0 },
		{ "audit syscall read;", AST_AUDIT, false, false, 0 },
		{ "deny syscall read;", AST_DENY, false, false, 0 },
		{ "deny errno 13 syscall read;", AST_DENY, true, false, 13 },
		{ "deny errno EROFS syscall read;", AST_DENY, true, true, 0 },
		{ "kill syscall read;", AST_KILL, false, false, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const ast_stmt *st;
		parsed *P = parse_one(cases[i].text, &st);
		assert_int_equal(st->kind, ST_STATEMENT);
		assert_int_equal(st->subject, SUBJ_SYSCALL);
		assert_int_equal(st->action.verdict, cases[i].v);
		assert_int_equal(st->action.has_errno, cases[i].has_errno);
		assert_int_equal(st->action.err.is_name, cases[i].is_name);
		assert_true(st->action.err.num == cases[i].num);
		assert_loc(st->loc, 2, 1);
		done(P);
	}
}

static void syscall_with_conditions(void **state)
{
	(void)state;
	const ast_stmt *st;
	parsed *P = parse_one("deny syscall clone, clone3 if arg0 & CLONE_NEWUSER|0x10 == CLONE_NEWUSER && arg1 >= 7 && arg2 != 0;", &st);
	assert_int_equal(st->subject, SUBJ_SYSCALL);
	assert_int_equal(st->names.n, 2);
	assert_string_equal(st->names.v[0].s, "clone");
	assert_string_equal(st->names.v[1].s, "clone3");
	assert_loc(st->names.v[1].loc, 2, 21);
	assert_int_equal(st->ncond, 3);
	const ast_term *t = &st->conds[0];
	assert_string_equal(t->arg.s, "arg0");
	assert_int_equal(t->op, AST_MASKED_EQ);
	assert_int_equal(t->mask.n, 2);
	assert_true(t->mask.v[0].is_name);
	assert_string_equal(t->mask.v[0].name, "CLONE_NEWUSER");
	assert_false(t->mask.v[1].is_name);
	assert_true(t->mask.v[1].num == 0x10);
	assert_int_equal(t->value.n, 1);
	assert_string_equal(t->value.v[0].name, "CLONE_NEWUSER");
	assert_int_equal(st->conds[1].op, AST_GE);
	assert_true(st->conds[1].value.v[0].num == 7);
	assert_int_equal(st->conds[2].op, AST_NE);
	assert_string_equal(st->conds[2].arg.s, "arg2");
	done(P);
	static const struct { const char *op; ast_cmp cmp; } ops[] = {
		{ "==", AST_EQ }, { "!=", AST_NE }, { "<", AST_LT }, { "<=", AST_LE }, { ">", AST_GT }, { ">=", AST_GE },
	};
	for (size_t i = 0; i < 6; i++) {
		char text[128];
		snprintf(text, sizeof text, "deny syscall read if arg2 %s 5;", ops[i].op);
		P = parse_one(text, &st);
		assert_int_equal(st->ncond, 1);
		assert_int_equal(st->conds[0].op, ops[i].cmp);
		done(P);
	}
}

static void keywords_as_syscall_names(void **state)
{
	(void)state;
	const ast_stmt *st;
	parsed *P = parse_one("deny syscall kill, mount, umount, pivot_root, ptrace, signal;", &st);
	assert_int_equal(st->names.n, 6);
	assert_string_equal(st->names.v[0].s, "kill");
	assert_string_equal(st->names.v[3].s, "pivot_root");
	assert_string_equal(st->names.v[5].s, "signal");
	done(P);
}

static void file_exec_capability(void **state)
{
	(void)state;
	const ast_stmt *st;
	parsed *P = parse_one("allow file \"/a/**\", \"/b\" read, write, exec;", &st);
	assert_int_equal(st->subject, SUBJ_FILE);
	assert_int_equal(st->strings.n, 2);
	assert_string_equal(st->strings.v[1].s, "/b");
	assert_loc(st->strings.v[1].loc, 2, 21);
	assert_int_equal(st->perms.n, 3);
	assert_string_equal(st->perms.v[2].s, "exec");
	done(P);
	P = parse_one("deny exec \"/bin/sh\", \"/bin/bash\";", &st);
	assert_int_equal(st->subject, SUBJ_EXEC);
	assert_int_equal(st->strings.n, 2);
	assert_int_equal(st->perms.n, 0);
	done(P);
	P = parse_one("deny capability all;", &st);
	assert_int_equal(st->subject, SUBJ_CAPABILITY);
	assert_true(st->cap_all);
	assert_int_equal(st->names.n, 0);
	done(P);
	P = parse_one("deny capability sys_admin, net_raw;", &st);
	assert_false(st->cap_all);
	assert_int_equal(st->names.n, 2);
	assert_string_equal(st->names.v[1].s, "net_raw");
	done(P);
}

static void mount_forms(void **state)
{
	(void)state;
	const ast_stmt *st;
	parsed *P = parse_one("deny mount;", &st);
	assert_int_equal(st->subject, SUBJ_MOUNT);
	assert_false(st->has_fstype);
	assert_false(st->has_on);
	done(P);
	P = parse_one("deny mount fstype proc, sysfs on \"/mnt/**\";", &st);
	assert_int_equal(st->subject, SUBJ_MOUNT);
	assert_true(st->has_fstype);
	assert_int_equal(st->fstypes.n, 2);
	assert_string_equal(st->fstypes.v[1].s, "sysfs");
	assert_true(st->has_on);
	assert_int_equal(st->strings.n, 1);
	assert_string_equal(st->strings.v[0].s, "/mnt/**");
	assert_loc(st->loc, 2, 1);
	done(P);
	P = parse_one("deny mount on \"/x\";", &st);
	assert_false(st->has_fstype);
	assert_true(st->has_on);
	done(P);
	P = parse_one("deny umount on \"/a\", \"/b\";", &st);
	assert_int_equal(st->subject, SUBJ_UMOUNT);
	assert_true(st->has_on);
	assert_int_equal(st->strings.n, 2);
	done(P);
	P = parse_one("deny umount;", &st);
	assert_int_equal(st->subject, SUBJ_UMOUNT);
	assert_false(st->has_on);
	done(P);
	P = parse_one("deny pivot_root;", &st);
	assert_int_equal(st->subject, SUBJ_PIVOT_ROOT);
	done(P);
}

static void network_forms(void **state)
{
	(void)state;
	const ast_stmt *st;
	parsed *P = parse_one("deny network;", &st);
	assert_int_equal(st->subject, SUBJ_NETWORK);
	assert_int_equal(st->names.n, 0);
	assert_int_equal(st->addrs.n, 0);
	assert_int_equal(st->nport, 0);
	done(P);
	P = parse_one("allow network connect inet6 tcp to ::1, fe80::/10 port 80, 8000-8080;", &st);
	assert_int_equal(st->names.n, 3);
	assert_string_equal(st->names.v[0].s, "connect");
	assert_string_equal(st->names.v[1].s, "inet6");
	assert_string_equal(st->names.v[2].s, "tcp");
	assert_int_equal(st->addrs.n, 2);
	assert_string_equal(st->addrs.v[1].s, "fe80::/10");
	assert_int_equal(st->nport, 2);
	assert_true(st->ports[0].lo == 80 && st->ports[0].hi == 80);
	assert_true(st->ports[1].lo == 8000 && st->ports[1].hi == 8080);
	assert_loc(st->ports[1].loc, 2, 60);
	assert_loc(st->loc, 2, 1);
	done(P);
	P = parse_one("allow network bind port 6379;", &st);
	assert_int_equal(st->names.n, 1);
	assert_int_equal(st->addrs.n, 0);
	assert_int_equal(st->nport, 1);
	done(P);
	P = parse_one("deny network to 169.254.169.254/32;", &st);
	assert_int_equal(st->names.n, 0);
	assert_int_equal(st->addrs.n, 1);
	assert_int_equal(st->nport, 0);
	done(P);
}

static void ptrace_signal(void **state)
{
	(void)state;
	const ast_stmt *st;
	parsed *P = parse_one("deny ptrace;", &st);
	assert_int_equal(st->subject, SUBJ_PTRACE);
	assert_int_equal(st->names.n, 0);
	done(P);
	P = parse_one("deny ptrace read;", &st);
	assert_int_equal(st->names.n, 1);
	assert_string_equal(st->names.v[0].s, "read");
	done(P);
	P = parse_one("deny signal;", &st);
	assert_int_equal(st->subject, SUBJ_SIGNAL);
	assert_int_equal(st->strings.n, 0);
	done(P);
	P = parse_one("allow signal to \"peer-*\";", &st);
	assert_int_equal(st->strings.n, 1);
	assert_string_equal(st->strings.v[0].s, "peer-*");
	done(P);
}

/* Errors in three statements and a missing ';' before '}': four errors,
 * and the good statements around them survive. */
static void recovery_reports_every_error(void **state)
{
	(void)state;
	parsed *P = parse("policy p {\n deny syscall read;\n deny bogus x;\n allow file \"/a\" read;\n"
			  " kill kill kill;\n deny syscall write\n}\npolicy q {\n deny 42;\n}\nrule r { deny pivot_root; }\n");
	assert_int_equal(P->d.nerrors, 4);
	static const char *const want[] = {
		"p.pol:3:7: error: unexpected name 'bogus', expected what the statement is about: syscall, file, exec, capability, mount, umount, pivot_root, network, ptrace or signal\n",
		"p.pol:5:7: error: unexpected 'kill', expected what the statement is about: syscall, file, exec, capability, mount, umount, pivot_root, network, ptrace or signal\n",
		"p.pol:6:20: error: missing ';' after 'write'\n",
		"p.pol:9:7: error: unexpected number '42', expected what the statement is about: syscall, file, exec, capability, mount, umount, pivot_root, network, ptrace or signal\n",
	};
	for (int i = 0; i < 4; i++) {
		char *s = diag_format(&P->d.v[i], false);
		assert_string_equal(s, want[i]);
		free(s);
	}
	assert_int_equal(P->f->n, 3);
	ast_block *p = P->f->blocks[0];
	assert_string_equal(p->name.s, "p");
	assert_int_equal(p->n, 2);     /* read, the file statement */
	assert_int_equal(p->stmts[0]->subject, SUBJ_SYSCALL);
	assert_int_equal(p->stmts[1]->subject, SUBJ_FILE);
	assert_string_equal(P->f->blocks[1]->name.s, "q");
	assert_int_equal(P->f->blocks[1]->n, 0);
	assert_int_equal(P->f->blocks[2]->kind, BLOCK_RULE);
	assert_int_equal(P->f->blocks[2]->n, 1);
	done(P);
}

static void empty_and_comment_files(void **state)
{
	(void)state;
	parsed *P = parse("");
	assert_int_equal(P->d.n, 0);
	assert_int_equal(P->f->n, 0);
	done(P);
	P = parse("# only\n/* comments */\n");
	assert_int_equal(P->d.n, 0);
	assert_int_equal(P->f->n, 0);
	done(P);
	P = parse("policy p { }");
	assert_int_equal(P->d.n, 0);
	assert_int_equal(P->f->n, 1);
	assert_int_equal(P->f->blocks[0]->n, 0);
	done(P);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(top_level_blocks),
		cmocka_unit_test(settings),
		cmocka_unit_test(actions),
		cmocka_unit_test(syscall_with_conditions),
		cmocka_unit_test(keywords_as_syscall_names),
		cmocka_unit_test(file_exec_capability),
		cmocka_unit_test(mount_forms),
		cmocka_unit_test(network_forms),
		cmocka_unit_test(ptrace_signal),
		cmocka_unit_test(recovery_reports_every_error),
		cmocka_unit_test(empty_and_comment_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
