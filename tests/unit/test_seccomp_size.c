/* test_seccomp_size.c - what the deny-default lowering costs, measured.
 * polc's way (default ENOSYS + one EPERM rule per known syscall nobody
 * allows, so unknown numbers get ENOSYS as ir_decide says) against the
 * naive filter (default EPERM, unknown numbers wrong), each with libseccomp's
 * linear and binary-tree dispatch: program length, and instructions executed
 * per syscall (max and mean over the known x86_64 numbers), counted by the
 * interpreter. Fails if the chosen form is over the kernel's 4096 limit or
 * its worst path is not shorter than the linear form's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/audit.h>

#include "bpf_interp.h"
#include "compiler/compile.h"
#include "backends/seccomp/seccomp.h"

static const char *pol =
	"policy s { default deny syscall;"
	" allow syscall read, write, pread64, pwrite64, readv, writev, openat, close, fstat,"
	" newfstatat, lseek, mmap, munmap, mprotect, brk, rt_sigaction, rt_sigprocmask,"
	" rt_sigreturn, futex, epoll_wait, epoll_ctl, epoll_create1, accept4, recvfrom,"
	" sendto, getpid, getppid, gettid, clock_gettime, nanosleep, exit_group, exit,"
	" fcntl, getrandom, madvise, sched_yield, clone3;"
	" allow syscall clone if arg0 & 0x10000000 == 0; }";

static size_t export(scmp_filter_ctx ctx, int opt, struct sock_filter **out)
{
	assert_int_equal(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, (uint32_t)opt), 0);
	int fd = memfd_create("t", 0);
	assert_true(fd >= 0);
	assert_int_equal(seccomp_export_bpf(ctx, fd), 0);
	off_t len = lseek(fd, 0, SEEK_END);
	*out = malloc((size_t)len);
	assert_int_equal(pread(fd, *out, (size_t)len, 0), len);
	close(fd);
	return (size_t)len / sizeof **out;
}

typedef struct { size_t len; unsigned max; double mean; } cost;

static cost measure(const struct sock_filter *f, size_t len)
{
	cost c = { len, 0, 0 };
	unsigned n = 0;
	for (int nr = 0; nr < 1024; nr++) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
		if (!name)
			continue;
		free(name);
		struct seccomp_data sd = { .nr = nr, .arch = AUDIT_ARCH_X86_64 };
		bpf_run_info info;
		bpf_interp(f, len, &sd, &info);
		if (info.steps > c.max)
			c.max = info.steps;
		c.mean += info.steps;
		n++;
	}
	c.mean /= n;
	return c;
}

static void test_size(void **state)
{
	(void)state;
	diag_ctx d;
	diag_init(&d);
	ir_program prog;
	compile_opts o = { .no_library = true };
	assert_int_equal(polc_compile_text("s.pol", pol, &o, &d, &prog), 0);
	const ir_policy *p = ir_program_select(&prog, NULL, &d);
	sc_plan pl;
	assert_int_equal(sc_plan_build(p, false, &d, &pl), 0);
	scmp_filter_ctx ctx = sc_filter_new(&pl, &d);
	assert_non_null(ctx);
	struct sock_filter *f;
	size_t n;
	n = export(ctx, 2, &f);
	cost tree = measure(f, n);
	free(f);
	n = export(ctx, 1, &f);
	cost lin = measure(f, n);
	free(f);
	seccomp_release(ctx);

	/* naive: default EPERM, only the allows as rules */
	scmp_filter_ctx nv = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	for (size_t i = 0; i < pl.arch[IR_ARCH_X86_64].n; i++) {
		const sc_sysplan *s = &pl.arch[IR_ARCH_X86_64].v[i];
		for (size_t r = 0; r < s->n; r++)
			if (s->v[r].act.verdict == IR_ALLOW)
				for (size_t j = 0; j < s->v[r].dnf.n; j++)
					assert_int_equal(seccomp_rule_add_exact_array(nv, SCMP_ACT_ALLOW,
						seccomp_syscall_resolve_name(s->name),
						(unsigned)s->v[r].dnf.v[j].n, s->v[r].dnf.v[j].v), 0);
	}
	n = export(nv, 2, &f);
	cost ntree = measure(f, n);
	free(f);
	n = export(nv, 1, &f);
	cost nlin = measure(f, n);
	free(f);
	seccomp_release(nv);

	printf("deny default, %zu syscalls with rules:\n", pl.arch[IR_ARCH_X86_64].n);
	printf("  polc (ENOSYS default + EPERM rules), tree:   %4zu insns, path max %3u mean %.1f\n", tree.len, tree.max, tree.mean);
	printf("  polc (ENOSYS default + EPERM rules), linear: %4zu insns, path max %3u mean %.1f\n", lin.len, lin.max, lin.mean);
	printf("  naive (EPERM default, unknown wrong), tree:  %4zu insns, path max %3u mean %.1f\n", ntree.len, ntree.max, ntree.mean);
	printf("  naive (EPERM default, unknown wrong), linear:%4zu insns, path max %3u mean %.1f\n", nlin.len, nlin.max, nlin.mean);
	assert_true(tree.len < 4096);
	assert_true(tree.max < lin.max);
	sc_plan_free(&pl);
	ir_program_free(&prog);
	diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_size) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
