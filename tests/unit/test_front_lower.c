/* test_front_lower.c - compiler/compile.c, AST to IR: normalisation (one
 * statement per syscall, glob, address and port range), defaults per
 * domain, rule defaults yielding to the policy's, `use` dedup, arch
 * resolution (x32 numbers carry 0x40000000), arg32 bits from
 * compiler/syscall-args.tsv, and the values every subject lowers to. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "front_util.h"

static front_compiled *ok(const char *text)
{
	front_compiled *c = front_compile(text, true);
	assert_int_equal(c->rc, 0);
	assert_int_equal(c->d.nerrors, 0);
	assert_non_null(c->p);
	return c;
}

static void one_stmt_per_syscall(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  deny syscall read, write;\n  kill syscall openat;\n}\n");
	const ir_stmt_list *l = front_dom(c, IR_SYSCALL);
	assert_int_equal(l->n, 3);
	assert_string_equal(l->v[0].u.sys.name, "read");
	assert_string_equal(l->v[1].u.sys.name, "write");
	assert_string_equal(l->v[2].u.sys.name, "openat");
	assert_int_equal(l->v[0].u.sys.nr[IR_ARCH_X86_64], __NR_read);
	assert_int_equal(l->v[1].u.sys.nr[IR_ARCH_X86_64], __NR_write);
	assert_int_equal(l->v[0].u.sys.nr[IR_ARCH_I386], -1);   /* arch not in policy */
	assert_int_equal(l->v[0].u.sys.nr[IR_ARCH_X32], -1);
	assert_int_equal(l->v[0].action.verdict, IR_DENY);
	assert_int_equal(l->v[0].action.err, EPERM);
	assert_int_equal(l->v[2].action.verdict, IR_KILL);
	assert_int_equal(l->v[0].loc.line, 2);
	assert_int_equal(l->v[0].loc.col, 3);
	assert_int_equal(l->v[2].loc.line, 3);
	assert_null(l->v[0].rule);
	assert_int_equal(c->p->arches, IR_ARCH_BIT(IR_ARCH_X86_64));
	for (int d = IR_FILE; d < IR_NDOMAIN; d++)
		assert_int_equal(c->p->dom[d].n, 0);
	front_release(c);
}

static void conditions_and_arg32(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n"
			       "  deny syscall clone if arg0 & CLONE_NEWUSER|CLONE_NEWNS == CLONE_NEWUSER && arg2 > 0x10;\n"
			       "  deny syscall openat if arg2 == O_WRONLY;\n"
			       "  deny syscall kill;\n}\n");
	const ir_stmt_list *l = front_dom(c, IR_SYSCALL);
	assert_int_equal(l->n, 3);
	const ir_syscall *s = &l->v[0].u.sys;
	assert_int_equal(s->ncond, 2);
	assert_int_equal(s->conds[0].arg, 0);
	assert_int_equal(s->conds[0].op, IR_CMP_MASKED_EQ);
	assert_true(s->conds[0].mask == (uint64_t)(CLONE_NEWUSER | CLONE_NEWNS));
	assert_true(s->conds[0].value == (uint64_t)CLONE_NEWUSER);
	assert_int_equal(s->conds[1].arg, 2);
	assert_int_equal(s->conds[1].op, IR_CMP_GT);
	assert_true(s->conds[1].value == 0x10);
	assert_int_equal(s->arg32, 0);                  /* clone: unsigned long flags */
	assert_int_equal(l->v[1].u.sys.arg32, 13);      /* openat: int dfd, int flags, umode_t */
	assert_int_equal(l->v[1].u.sys.conds[0].value, 1);
	assert_int_equal(l->v[2].u.sys.arg32, 3);       /* kill: pid_t, int */
	assert_int_equal(l->v[2].u.sys.ncond, 0);
	front_release(c);
}

static void arch_resolution(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  deny syscall read, socketcall, kexec_file_load;\n  arch x86_64, i386, x32;\n}\n");
	assert_int_equal(c->p->arches, IR_ARCH_BIT(IR_ARCH_X86_64) | IR_ARCH_BIT(IR_ARCH_I386) |
				       IR_ARCH_BIT(IR_ARCH_X32));
	const ir_stmt_list *l = front_dom(c, IR_SYSCALL);
	assert_int_equal(l->n, 3);
	assert_int_equal(l->v[0].u.sys.nr[IR_ARCH_X86_64], 0);
	assert_int_equal(l->v[0].u.sys.nr[IR_ARCH_I386], 3);
	assert_int_equal(l->v[0].u.sys.nr[IR_ARCH_X32], (int)(IR_X32_SYSCALL_BIT | 0));
	assert_int_equal(l->v[1].u.sys.nr[IR_ARCH_X86_64], -1);  /* i386 only */
	assert_int_equal(l->v[1].u.sys.nr[IR_ARCH_I386], 102);
	assert_int_equal(l->v[1].u.sys.nr[IR_ARCH_X32], -1);
	assert_int_equal(l->v[2].u.sys.nr[IR_ARCH_X86_64], 320);
	assert_int_equal(l->v[2].u.sys.nr[IR_ARCH_I386], -1);
	assert_int_equal(l->v[2].u.sys.nr[IR_ARCH_X32], (int)(IR_X32_SYSCALL_BIT | 320));
	/* two notes: socketcall missing on x86_64 and x32, kexec_file_load on i386 */
	size_t notes = 0;
	for (size_t i = 0; i < c->d.n; i++)
		notes += c->d.v[i].sev == DIAG_NOTE;
	assert_int_equal(notes, 3);
	front_release(c);
	/* a name on no arch of the policy: skipped with a note, no error */
	c = ok("policy p {\n  deny syscall socketcall;\n}\n");
	assert_int_equal(front_dom(c, IR_SYSCALL)->n, 0);
	char *s = front_diag_text(c, 0);
	assert_string_equal(s, "test.pol:2:16: note: syscall 'socketcall' does not exist on the policy's architectures; statement skipped\n");
	free(s);
	front_release(c);
}

static void files_one_per_glob(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  allow file \"/a/**\", \"/b\" read, write, append;\n"
			       "  deny errno EACCES file \"/c\" exec, mmap, link, lock;\n  deny exec \"/bin/sh\", \"/bin/bash\";\n}\n");
	const ir_stmt_list *f = front_dom(c, IR_FILE), *e = front_dom(c, IR_EXEC);
	assert_int_equal(f->n, 3);
	assert_string_equal(f->v[0].u.file.glob, "/a/**");
	assert_string_equal(f->v[1].u.file.glob, "/b");
	assert_int_equal(f->v[0].u.file.perms, IR_PERM_READ | IR_PERM_WRITE | IR_PERM_APPEND);
	assert_int_equal(f->v[1].u.file.perms, IR_PERM_READ | IR_PERM_WRITE | IR_PERM_APPEND);
	assert_int_equal(f->v[2].u.file.perms, IR_PERM_EXEC | IR_PERM_MMAP | IR_PERM_LINK | IR_PERM_LOCK);
	assert_int_equal(f->v[2].action.verdict, IR_DENY);
	assert_int_equal(f->v[2].action.err, EACCES);
	assert_int_equal(e->n, 2);
	assert_string_equal(e->v[1].u.file.glob, "/bin/bash");
	assert_int_equal(e->v[1].u.file.perms, IR_PERM_EXEC);
	front_release(c);
}

static void network_cross_product(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  deny network connect tcp to 10.0.0.0/8, ::1 port 80, 8000-8080;\n"
			       "  allow network bind inet udp;\n}\n");
	const ir_stmt_list *l = front_dom(c, IR_NETWORK);
	assert_int_equal(l->n, 5);
	/* address-major, then ports, in source order */
	static const struct { int family, prefix; uint16_t lo, hi; } want[] = {
		{ AF_INET, 8, 80, 80 }, { AF_INET, 8, 8000, 8080 },
		{ AF_INET6, 128, 80, 80 }, { AF_INET6, 128, 8000, 8080 },
	};
	for (int i = 0; i < 4; i++) {
		const ir_network *n = &l->v[i].u.net;
		assert_int_equal(n->op, IR_NET_CONNECT);
		assert_int_equal(n->proto, IR_PROTO_TCP);
		assert_int_equal(n->family, want[i].family);
		assert_true(n->has_addr);
		assert_int_equal(n->addr.family, want[i].family);
		assert_int_equal(n->addr.prefix, want[i].prefix);
		assert_true(n->has_port);
		assert_int_equal(n->port_lo, want[i].lo);
		assert_int_equal(n->port_hi, want[i].hi);
	}
	assert_int_equal(l->v[0].u.net.addr.addr[0], 10);
	assert_int_equal(l->v[2].u.net.addr.addr[15], 1);
	const ir_network *b = &l->v[4].u.net;
	assert_int_equal(b->op, IR_NET_BIND);
	assert_int_equal(b->family, AF_INET);
	assert_int_equal(b->proto, IR_PROTO_UDP);
	assert_false(b->has_addr);
	assert_false(b->has_port);
	front_release(c);
}

static void other_subjects(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  deny capability sys_admin, net_raw;\n  audit capability all;\n"
			       "  deny mount fstype proc, sysfs on \"/a\", \"/b\";\n  deny umount;\n  deny pivot_root;\n"
			       "  deny ptrace read;\n  deny ptrace;\n  deny signal;\n  allow signal to \"x-*\", \"y\";\n}\n");
	const ir_stmt_list *cap = front_dom(c, IR_CAPABILITY);
	assert_int_equal(cap->n, 2);
	assert_true(cap->v[0].u.cap.caps == ((1ull << CAP_SYS_ADMIN) | (1ull << CAP_NET_RAW)));
	assert_true(cap->v[1].u.cap.caps == (CAP_LAST_CAP == 63 ? ~0ull : (1ull << (CAP_LAST_CAP + 1)) - 1));
	assert_int_equal(cap->v[1].action.verdict, IR_AUDIT);
	const ir_stmt_list *m = front_dom(c, IR_MOUNT);
	assert_int_equal(m->n, 4);
	assert_int_equal(m->v[0].u.mount.op, IR_MOUNT_MOUNT);
	assert_int_equal(m->v[0].u.mount.nfstype, 2);
	assert_string_equal(m->v[0].u.mount.fstypes[1], "sysfs");
	assert_string_equal(m->v[0].u.mount.target, "/a");
	assert_string_equal(m->v[1].u.mount.target, "/b");
	assert_int_equal(m->v[2].u.mount.op, IR_MOUNT_UMOUNT);
	assert_null(m->v[2].u.mount.target);
	assert_int_equal(m->v[3].u.mount.op, IR_MOUNT_PIVOT_ROOT);
	const ir_stmt_list *pt = front_dom(c, IR_PTRACE);
	assert_int_equal(pt->n, 2);
	assert_int_equal(pt->v[0].u.ptrace.modes, IR_PTRACE_READ);
	assert_int_equal(pt->v[1].u.ptrace.modes, IR_PTRACE_READ | IR_PTRACE_TRACE);
	const ir_stmt_list *sg = front_dom(c, IR_SIGNAL);
	assert_int_equal(sg->n, 3);
	assert_null(sg->v[0].u.signal.peer);
	assert_string_equal(sg->v[1].u.signal.peer, "x-*");
	assert_string_equal(sg->v[2].u.signal.peer, "y");
	front_release(c);
}

static void defaults_per_domain(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  default deny errno EACCES file, exec;\n  default kill syscall;\n}\n");
	const ir_policy *p = c->p;
	assert_int_equal(p->defaults[IR_FILE].verdict, IR_DENY);
	assert_int_equal(p->defaults[IR_FILE].err, EACCES);
	assert_int_equal(p->defaults[IR_EXEC].verdict, IR_DENY);
	assert_int_equal(p->defaults[IR_SYSCALL].verdict, IR_KILL);
	assert_int_equal(p->defaults[IR_NETWORK].verdict, IR_ALLOW);
	assert_true(p->default_set[IR_FILE] && p->default_set[IR_EXEC] && p->default_set[IR_SYSCALL]);
	assert_false(p->default_set[IR_NETWORK]);
	assert_false(p->default_set[IR_CAPABILITY]);
	assert_int_equal(p->mode, IR_MODE_ENFORCE);
	front_release(c);
	c = ok("policy p {\n  default deny;\n  mode audit;\n}\n");
	for (int d = 0; d < IR_NDOMAIN; d++) {
		assert_int_equal(c->p->defaults[d].verdict, IR_DENY);
		assert_int_equal(c->p->defaults[d].err, EPERM);
		assert_true(c->p->default_set[d]);
	}
	assert_int_equal(c->p->mode, IR_MODE_AUDIT);
	front_release(c);
}

static void rule_defaults_yield_to_policy(void **state)
{
	(void)state;
	front_compiled *c = ok("rule r {\n  default deny syscall, file;\n  deny syscall bpf;\n}\n"
			       "policy p {\n  use r;\n  default allow syscall;\n}\n");
	assert_int_equal(c->p->defaults[IR_SYSCALL].verdict, IR_ALLOW);   /* the policy's */
	assert_int_equal(c->p->defaults[IR_FILE].verdict, IR_DENY);       /* the rule's */
	assert_true(c->p->default_set[IR_FILE]);
	const ir_stmt_list *l = front_dom(c, IR_SYSCALL);
	assert_int_equal(l->n, 1);
	assert_string_equal(l->v[0].rule, "r");
	front_release(c);
	/* policy default first, then the rule: the policy still wins */
	c = ok("rule r {\n  default deny syscall;\n}\npolicy p {\n  default allow syscall;\n  use r;\n}\n");
	assert_int_equal(c->p->defaults[IR_SYSCALL].verdict, IR_ALLOW);
	front_release(c);
	/* two rules agreeing: fine */
	c = ok("rule a {\n  default deny syscall;\n}\nrule b {\n  default deny syscall;\n}\npolicy p {\n  use a, b;\n}\n");
	assert_int_equal(c->p->defaults[IR_SYSCALL].verdict, IR_DENY);
	front_release(c);
}

static void use_dedup_and_order(void **state)
{
	(void)state;
	front_compiled *c = ok("rule zed {\n  use alpha;\n  deny syscall write;\n}\nrule alpha {\n  deny syscall read;\n}\n"
			       "policy p {\n  use zed;\n  use alpha, zed;\n  deny syscall bpf;\n}\n");
	const ir_stmt_list *l = front_dom(c, IR_SYSCALL);
	assert_int_equal(l->n, 3);
	assert_string_equal(l->v[0].u.sys.name, "read");    /* zed expands alpha first */
	assert_string_equal(l->v[0].rule, "alpha");
	assert_string_equal(l->v[1].u.sys.name, "write");
	assert_string_equal(l->v[1].rule, "zed");
	assert_string_equal(l->v[2].u.sys.name, "bpf");
	assert_null(l->v[2].rule);
	assert_int_equal(c->p->nrules_used, 2);
	assert_string_equal(c->p->rules_used[0], "alpha");
	assert_string_equal(c->p->rules_used[1], "zed");
	assert_int_equal(c->prog.nrules, 2);
	assert_string_equal(c->prog.rules[0]->name, "alpha");
	front_release(c);
}

static void library_rules_and_shadowing(void **state)
{
	(void)state;
	front_compiled *c = front_compile("policy p {\n  use disallow-umount;\n}\n", false);
	assert_int_equal(c->rc, 0);
	const ir_stmt_list *m = front_dom(c, IR_MOUNT);
	assert_true(m->n >= 1);
	assert_int_equal(m->v[0].u.mount.op, IR_MOUNT_UMOUNT);
	assert_string_equal(m->v[0].rule, "disallow-umount");
	const ir_rule *r = ir_program_rule(&c->prog, "disallow-umount");
	assert_non_null(r);
	assert_true(r->builtin);
	front_release(c);
	/* a user rule of the same name shadows the library's */
	c = front_compile("rule disallow-umount {\n  deny syscall bpf;\n}\npolicy p {\n  use disallow-umount;\n}\n", false);
	assert_int_equal(c->rc, 0);
	assert_int_equal(front_dom(c, IR_MOUNT)->n, 0);
	assert_int_equal(front_dom(c, IR_SYSCALL)->n, 1);
	assert_false(ir_program_rule(&c->prog, "disallow-umount")->builtin);
	front_release(c);
	/* without the library the name is unknown */
	c = front_compile("policy p {\n  use disallow-umount;\n}\n", true);
	assert_int_equal(c->rc, -1);
	char *s = front_diag_text(c, 0);
	assert_string_equal(s, "test.pol:2:7: error: unknown rule 'disallow-umount'\n");
	free(s);
	front_release(c);
}

static void source_hash(void **state)
{
	(void)state;
	front_compiled *a = ok("policy p {\n  deny syscall bpf;\n}\n");
	front_compiled *b = ok("policy p {\n  deny syscall bpf;\n}\n");
	front_compiled *x = ok("policy p {\n  deny syscall bpf; \n}\n");
	char ha[IR_SOURCE_HASH_SIZE], hb[IR_SOURCE_HASH_SIZE], hx[IR_SOURCE_HASH_SIZE];
	assert_int_equal(strlen(ir_source_hash(a->p, ha)), 64);
	assert_string_equal(ha, ir_source_hash(b->p, hb));
	assert_string_not_equal(ha, ir_source_hash(x->p, hx));
	assert_string_equal(a->p->name, "p");
	assert_int_equal(a->p->loc.line, 1);
	assert_int_equal(a->p->loc.col, 8);
	front_release(a);
	front_release(b);
	front_release(x);
}

/* A policy holds the files it was compiled from: hashed (first) after its
 * diag context is freed and the freed memory reused, it has the hash of
 * the same text compiled beside it, and its location still names its file.
 * (The hash once read the freed context.) */
static void source_hash_outlives_diag(void **state)
{
	(void)state;
	static const char text[] = "policy p {\n  deny syscall bpf;\n}\n";
	front_compiled *a = ok(text), *b = ok(text);
	diag_free(&a->d);
	void *reuse[64];
	for (size_t i = 0; i < 64; i++)
		memset(reuse[i] = malloc(8 + i * 8), 0x5a, 8 + i * 8);
	char ha[IR_SOURCE_HASH_SIZE], hb[IR_SOURCE_HASH_SIZE];
	assert_string_equal(ir_source_hash(a->p, ha), ir_source_hash(b->p, hb));
	assert_string_equal(a->p->loc.file->path, "test.pol");
	for (size_t i = 0; i < 64; i++)
		free(reuse[i]);
	front_release(a);
	front_release(b);
}

/* Semantic errors: all reported, exact text, and the compile fails. */
static void semantic_errors(void **state)
{
	(void)state;
	front_compiled *c = front_compile("policy p {\n  deny syscall keyctll;\n  deny errno 5000 syscall read;\n"
					  "  allow network bind port 90-80;\n  deny syscall read if arg7 == 1;\n}\n", true);
	assert_int_equal(c->rc, -1);
	assert_int_equal(c->d.nerrors, 4);
	static const char *const want[] = {
		"test.pol:2:16: error: unknown syscall 'keyctll'; did you mean 'keyctl'?\n",
		"test.pol:3:14: error: errno 5000 is out of range (1..4095)\n",
		"test.pol:4:27: error: reversed port range 90-80 (write the lower port first)\n",
		"test.pol:5:24: error: bad argument index 'arg7': syscalls have arg0 to arg5\n",
	};
	for (size_t i = 0; i < 4; i++) {
		char *s = front_diag_text(c, i);
		assert_string_equal(s, want[i]);
		free(s);
	}
	front_release(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_stmt_per_syscall),
		cmocka_unit_test(conditions_and_arg32),
		cmocka_unit_test(arch_resolution),
		cmocka_unit_test(files_one_per_glob),
		cmocka_unit_test(network_cross_product),
		cmocka_unit_test(other_subjects),
		cmocka_unit_test(defaults_per_domain),
		cmocka_unit_test(rule_defaults_yield_to_policy),
		cmocka_unit_test(use_dedup_and_order),
		cmocka_unit_test(library_rules_and_shadowing),
		cmocka_unit_test(source_hash),
		cmocka_unit_test(source_hash_outlives_diag),
		cmocka_unit_test(semantic_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
