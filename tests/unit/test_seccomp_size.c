/* test_seccomp_size.c - what the deny-default lowering costs, measured;
 * and (test_golden) the golden length / mean / worst path of polc's own
 * generator on issue #14's policies, so a regression fails make test.
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
#include "import/import_oci.h"
#include "tracer/sysmix.h"

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

/* ---- golden figures of polc's own generator (issue #14's table) ---- */

typedef struct {
	const char *label, *text, *file, *trace;
	bool oci;
	size_t len;            /* golden: length, mean on the mix, worst path */
	double mean;
	unsigned worst;
	size_t max_len;        /* the targets */
	double max_mean;
	unsigned max_worst;
} golden;

/* Golden = measured with the generator (optimal search tree whose leaves
 * may carry jeq exceptions) at 00:10 on 4 Dec (polc bench --only filter);
 * a regression beyond a little headroom (other engineers' lowerings and
 * regenerated profiles add statements) fails. Targets from the issue:
 * Docker's default <= libseccomp optimize 2 (1,246 on all three ABIs),
 * mean <= 6.5, worst <= 24; presets <= 600, 6.5, 30; profiles: worst <= 20,
 * mean <= 5.5 on the Redis mix. On its own trace the PostgreSQL profile
 * cannot reach 5.5: every allowed path runs ld arch, jeq, ld nr and ret,
 * and one test on the number can send at most recvfrom (25.3 % of that
 * trace) to a return, so the mean is at least 4 + 1 + 0.747 = 5.747
 * (docs/seccomp-cost.md). */
static const golden rows[] = {
	{ "Docker default", NULL, "tests/fuzz/corpus/import/docker-default-seccomp.json",
	  "profiles/traces/redis.trace", true, 298, 5.30, 20, 1246, 6.5, 24 },
	{ "runtime-default", "policy a { use runtime-default; }", NULL,
	  "profiles/traces/redis.trace", false, 100, 5.31, 18, 600, 6.5, 30 },
	{ "enhance-protect", "policy a { use enhance-protect; }", NULL,
	  "profiles/traces/redis.trace", false, 100, 5.31, 18, 600, 6.5, 30 },
	{ "redis profile", NULL, "profiles/redis.pol", "profiles/traces/redis.trace", false,
	  82, 5.22, 14, 129, 5.5, 20 },
	{ "postgresql profile", NULL, "profiles/postgresql.pol",
	  "profiles/traces/postgresql.trace", false, 93, 7.32, 15, 167, 99, 20 },
	{ "postgresql, Redis mix", NULL, "profiles/postgresql.pol",
	  "profiles/traces/redis.trace", false, 93, 5.32, 15, 167, 5.5, 20 },
};

static void test_golden(void **state)
{
	(void)state;
	const char *src = getenv("SRC") ? getenv("SRC") : ".";
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const golden *g = &rows[i];
		diag_ctx d;
		diag_init(&d);
		ir_program prog;
		compile_opts co = { 0 };
		int rc;
		if (g->oci) {
			char *path = xasprintf("%s/%s", src, g->file);
			import_opts io = { .name = "docker", .host = IR_ARCH_X86_64,
					   .kmajor = 6, .kminor = 1 };
			buf t;
			buf_init(&t);
			rc = import_oci_file(path, &io, &d, &t);
			buf_put(&t, "", 1);
			if (!rc)
				rc = polc_compile_text("docker.pol", t.data, &co, &d, &prog);
			buf_free(&t);
			free(path);
		} else if (g->text) {
			rc = polc_compile_text("g.pol", g->text, &co, &d, &prog);
		} else {
			char *path = xasprintf("%s/%s", src, g->file);
			const char *files[] = { path };
			rc = polc_compile_files(files, 1, &co, &d, &prog);
			free(path);
		}
		if (rc)
			diag_print(&d, stderr, false);
		assert_int_equal(rc, 0);
		const ir_policy *p = ir_program_select(&prog, NULL, &d);
		assert_non_null(p);
		buf b;
		buf_init(&b);
		assert_int_equal(sc_build_bpf(p, true, &d, &b), 0);
		const struct sock_filter *f = (const struct sock_filter *)b.data;
		size_t len = b.len / sizeof *f;
		char *tp = xasprintf("%s/%s", src, g->trace), *err = NULL;
		sys_freq *mix;
		size_t nmix;
		assert_true(trace_sysmix_read(tp, &mix, &nmix, &err) >= 0);
		double mean = sc_mix_mean(f, len, mix, nmix);
		unsigned worst = sc_longest_path(f, len);
		printf("%-20s %4zu insns (golden %zu), mean %.2f (%.2f), worst %u (%u)\n",
		       g->label, len, g->len, mean, g->mean, worst, g->worst);
		assert_true(len <= g->len + g->len / 20 + 2 && len <= g->max_len);
		assert_true(mean <= g->mean + 0.25 && mean <= g->max_mean);
		assert_true(worst <= g->worst + 2 && worst <= g->max_worst);
		free(mix);
		free(tp);
		buf_free(&b);
		ir_program_free(&prog);
		diag_free(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_size),
					    cmocka_unit_test(test_golden) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
