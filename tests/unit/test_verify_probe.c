/* test_verify_probe.c - the native seccomp prober asks the kernel and
 * reports what the filter decided, never running the syscall; and probe
 * derivation covers each statement's boundaries. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <string.h>
#include <sys/syscall.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/lsm_world.h"
#include "compiler/compile.h"

static ir_event sys_event(uint32_t arch, uint32_t nr)
{
	ir_event ev;
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_SYSCALL;
	ev.u.sys.audit_arch = arch;
	ev.u.sys.nr = nr;
	return ev;
}

/* if nr == N return RET else ALLOW */
static outcome run_one(uint32_t n, uint32_t ret, const ir_event *ev)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, n, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, ret),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	return seccomp_probe_run(f, sizeof f, ev);
}

static void test_allowed_denied_killed(void **state)
{
	(void)state;
	ir_event ev = sys_event(AUDIT_ARCH_X86_64, SYS_getppid);
	outcome o = run_one(SYS_getpid, SECCOMP_RET_ERRNO | EACCES, &ev);
	assert_int_equal(o.kind, OUT_ALLOWED);
	o = run_one(SYS_getppid, SECCOMP_RET_ERRNO | EACCES, &ev);
	assert_int_equal(o.kind, OUT_DENIED);
	assert_int_equal(o.err, EACCES);
	o = run_one(SYS_getppid, SECCOMP_RET_KILL_PROCESS, &ev);
	assert_int_equal(o.kind, OUT_KILLED);
	o = run_one(SYS_getppid, SECCOMP_RET_LOG, &ev);
	assert_int_equal(o.kind, OUT_ALLOWED);
}

/* reboot(0,...) would fail with EINVAL if it ran: ALLOWED proves it did not. */
static void test_probed_syscall_never_runs(void **state)
{
	(void)state;
	ir_event ev = sys_event(AUDIT_ARCH_X86_64, SYS_reboot);
	outcome o = run_one(SYS_getpid, SECCOMP_RET_ERRNO | 1, &ev);
	assert_int_equal(o.kind, OUT_ALLOWED);
	ev = sys_event(AUDIT_ARCH_X86_64, SYS_seccomp);
	o = run_one(SYS_seccomp, SECCOMP_RET_ERRNO | 5, &ev);
	assert_int_equal(o.kind, OUT_DENIED);
	assert_int_equal(o.err, 5);
}

static void test_x32_numbers_reach_the_filter(void **state)
{
	(void)state;
	ir_event ev = sys_event(AUDIT_ARCH_X86_64, SYS_getppid | 0x40000000u);
	outcome o = run_one(SYS_getppid | 0x40000000u, SECCOMP_RET_ERRNO | 7, &ev);
	assert_int_equal(o.kind, OUT_DENIED);
	assert_int_equal(o.err, 7);
}

static void test_matches(void **state)
{
	(void)state;
	outcome den = { .kind = OUT_DENIED, .err = 13 }, al = { .kind = OUT_ALLOWED };
	ir_decision d_deny = { IR_DENY, 13, NULL }, d_eperm = { IR_DENY, 1, NULL };
	ir_decision d_audit = { IR_AUDIT, 0, NULL };
	assert_true(outcome_matches(&den, &d_deny));
	assert_false(outcome_matches(&den, &d_eperm));
	assert_true(outcome_matches(&al, &d_audit));
	assert_false(outcome_matches(&al, &d_deny));
	/* LSMs: an unobservable errno (capable(), ptrace_may_access()) agrees
	 * with any deny; AppArmor's EACCES stands for the default EPERM only */
	outcome den0 = { .kind = OUT_DENIED }, eacces = { .kind = OUT_DENIED, .err = 13 };
	ir_decision d_enoent = { IR_DENY, 2, NULL };
	assert_true(outcome_matches_lsm(&den0, &d_enoent, NULL));
	assert_true(outcome_matches_lsm(&eacces, &d_eperm, backend_apparmor.errno_agrees));
	assert_false(outcome_matches_lsm(&eacces, &d_eperm, NULL));
	assert_false(outcome_matches_lsm(&eacces, &d_enoent, backend_apparmor.errno_agrees));
	assert_false(outcome_matches_lsm(&al, &d_eperm, backend_apparmor.errno_agrees));
	assert_false(outcome_matches_lsm(&den0, &d_audit, NULL));
	assert_true(outcome_matches_lsm(&al, &d_audit, backend_apparmor.errno_agrees));
}

static void test_probes_cover_boundaries(void **state)
{
	(void)state;
	diag_ctx d;
	diag_init(&d);
	ir_program prog;
	assert_int_equal(polc_compile_text("t.pol",
		"policy p { deny syscall personality if arg0 == 8;\n"
		" deny file \"/etc/passwd\" read;\n"
		" deny network connect to 10.0.0.0/8 port 80-90; }", NULL, &d, &prog), 0);
	probe_set ps = { 0 };
	probes_derive(prog.policies[0], IR_NDOMAIN, &ps);
	bool seen7 = false, seen9 = false, garbage = false, longer = false, p91 = false, outside = false;
	for (size_t i = 0; i < ps.n; i++) {
		const ir_event *ev = &ps.v[i].ev;
		if (ev->domain == IR_SYSCALL && ev->u.sys.audit_arch == AUDIT_ARCH_X86_64) {
			seen7 |= ev->u.sys.args[0] == 7;
			seen9 |= ev->u.sys.args[0] == 9;
			garbage |= ev->u.sys.args[0] == 0xdeadbeef00000008ull;
		}
		if (ev->domain == IR_FILE)
			longer |= !strcmp(ev->u.file.path, "/etc/passwd-");
		if (ev->domain == IR_NETWORK) {
			p91 |= ev->u.net.port == 91;
			outside |= ev->u.net.addr[0] == 11;
		}
	}
	assert_true(seen7 && seen9 && garbage && longer && p91 && outside);
	/* the garbage-upper-half probe is decided like the plain value: arg0 is an int */
	for (size_t i = 0; i < ps.n; i++) {
		const ir_event *ev = &ps.v[i].ev;
		if (ev->domain == IR_SYSCALL && ev->u.sys.args[0] == 0xdeadbeef00000008ull)
			assert_int_equal(ir_decide(prog.policies[0], ev).verdict, IR_DENY);
	}
	probes_free(&ps);
	ir_program_free(&prog);
	diag_free(&d);
}

/* An IPv6 address world_add_addr put on lo is local when it returns: a TCP
 * connect to it is refused by this stack, never ENETUNREACH (the local
 * route comes from the kernel's DAD work, after the address; a UDP connect
 * was satisfied by the prefix route first: 3-4 of 300 fresh addresses
 * failed so on this host). In a child, inside the probes' own world
 * (world_enter: private namespaces, lo up). */
static int addrs_not_local(int n)
{
	int bad = 0;
	for (int i = 1; i <= n; i++) {
		struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(80) };
		char a[48];
		snprintf(a, sizeof a, "fd00:ec2::%x", i);
		inet_pton(AF_INET6, a, &sa.sin6_addr);
		op_result r;
		memset(&r, 0, sizeof r);
		if (world_add_addr(AF_INET6, sa.sin6_addr.s6_addr, &r) < 0)
			return -1;
		int t = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (connect(t, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != ECONNREFUSED)
			bad++;
		close(t);
	}
	return bad;
}

static void test_added_ipv6_address_is_local(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		op_result r;
		memset(&r, 0, sizeof r);
		if (world_enter(&r) < 0)
			_exit(77);
		int bad = addrs_not_local(300);
		_exit(bad < 0 ? 2 : bad > 0 ? 1 : 0);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allowed_denied_killed),
		cmocka_unit_test(test_probed_syscall_never_runs),
		cmocka_unit_test(test_x32_numbers_reach_the_filter),
		cmocka_unit_test(test_matches),
		cmocka_unit_test(test_probes_cover_boundaries),
		cmocka_unit_test(test_added_ipv6_address_is_local),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
