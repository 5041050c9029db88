/* test_seccomp_enforce.c - the kernel enforces the filter as ir_decide says.
 * For each policy, a forked child per call installs the filter (no_new_privs
 * + seccomp(2)), makes one syscall via syscall(2) and reports the result
 * through a pipe; the parent compares success / errno / SIGSYS death with
 * ir_decide(). Only harmless calls (getppid, dup, uname, personality query,
 * unshare(0) or a refused unshare(CLONE_NEWUSER), unknown numbers).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compiler/compile.h"
#include "backends/seccomp/seccomp.h"

typedef struct { long nr; uint64_t a[3]; } call;

static struct utsname uts;

static const call calls[] = {
	{ SYS_getppid, { 0 } }, { SYS_getpid, { 0 } },
	{ SYS_dup, { 0 } }, { SYS_dup, { 1 } }, { SYS_dup, { 2 } },
	{ SYS_dup, { 0xdeadbeef00000001ull } },      /* kernel sees fd 1 */
	{ SYS_uname, { 0 } },                          /* arg filled in below */
	{ SYS_personality, { 0xffffffffull } },        /* query */
	{ SYS_personality, { 0xdeadbeefffffffffull } },
	{ SYS_unshare, { 0 } }, { SYS_unshare, { CLONE_NEWUSER } },
	{ 1000, { 0 } }, { 500, { 0 } },               /* unknown numbers */
};
#define NCALLS (sizeof calls / sizeof calls[0])

static const char *const policies[] = {
	"policy e { deny errno EACCES syscall getppid; allow syscall dup if arg0 == 1; "
	"kill syscall dup if arg0 == 2; deny syscall dup if arg0 == 0; audit syscall uname; }",
	"policy e { default deny syscall; allow syscall write, exit_group, exit, getpid; "
	"allow syscall dup if arg0 < 2; }",
	"policy e { deny errno EACCES syscall dup if arg0 == 1; kill syscall personality if arg0 & 0xff == 0x11; "
	"deny errno ENOTTY syscall personality if arg0 == 0xffffffff; }",
	"policy e { deny syscall unshare if arg0 & CLONE_NEWUSER == CLONE_NEWUSER; deny errno EXDEV syscall getpid; }",
	"policy e { default deny errno EACCES syscall; allow syscall write, exit_group, dup, uname, unshare; "
	"kill syscall unshare if arg0 != 0; }",
	"policy e { mode audit; default deny syscall; kill syscall getppid; }",
};
#define NPOL (sizeof policies / sizeof policies[0])

/* 0: returned >= 0; >0: errno; -SIGNAL: killed. */
static int run_child(const buf *bpf, const call *c)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		struct sock_fprog prog = { (unsigned short)(bpf->len / sizeof(struct sock_filter)),
					   (struct sock_filter *)bpf->data };
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
			_exit(99);
		uint64_t a0 = c->nr == SYS_uname ? (uint64_t)(uintptr_t)&uts : c->a[0];
		long r = syscall(c->nr, a0, c->a[1], c->a[2], 0, 0, 0);
		int res = r >= 0 ? 0 : errno;
		if (write(fds[1], &res, sizeof res) != sizeof res)
			_exit(98);
		_exit(0);
	}
	close(fds[1]);
	int res = -1000, st;
	ssize_t n = read(fds[0], &res, sizeof res);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		return -WTERMSIG(st);
	assert_true(WIFEXITED(st));
	assert_int_not_equal(WEXITSTATUS(st), 99);   /* filter not installed */
	assert_int_equal(n, (ssize_t)sizeof res);
	return res;
}

static void test_enforce(void **state)
{
	(void)state;
	unsigned checked = 0, bad = 0;
	for (size_t i = 0; i < NPOL; i++) {
		diag_ctx d;
		diag_init(&d);
		ir_program prog;
		compile_opts o = { .no_library = true };
		if (polc_compile_text("e.pol", policies[i], &o, &d, &prog)) {
			diag_print(&d, stderr, false);
			fail();
		}
		const ir_policy *p = ir_program_select(&prog, NULL, &d);
		buf b;
		buf_init(&b);
		assert_int_equal(sc_build_bpf(p, false, &d, &b), 0);
		for (size_t k = 0; k < NCALLS; k++) {
			ir_event ev = { .domain = IR_SYSCALL };
			ev.u.sys.audit_arch = AUDIT_ARCH_X86_64;
			ev.u.sys.nr = (uint32_t)calls[k].nr;
			memcpy(ev.u.sys.args, calls[k].a, sizeof calls[k].a);
			ir_decision dec = ir_decide(p, &ev);
			int want = dec.verdict == IR_KILL ? -SIGSYS :
				   dec.verdict == IR_DENY ? dec.err : 0;
			/* an allowed unknown number fails with the kernel's ENOSYS */
			if (want == 0 && (calls[k].nr == 1000 || calls[k].nr == 500))
				want = ENOSYS;
			int got = run_child(&b, &calls[k]);
			checked++;
			if (got != want) {
				bad++;
				fprintf(stderr, "policy %zu call %ld(%#llx): got %d want %d\n", i,
					calls[k].nr, (unsigned long long)calls[k].a[0], got, want);
			}
		}
		buf_free(&b);
		ir_program_free(&prog);
		diag_free(&d);
	}
	printf("seccomp enforce: %u calls in forked children, %u differ from ir_decide\n",
	       checked, bad);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_enforce) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
