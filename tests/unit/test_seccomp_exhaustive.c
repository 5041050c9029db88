/* test_seccomp_exhaustive.c - the seccomp filter decides every syscall as
 * ir_decide() does. For each policy (hand-written, then random from a fixed
 * seed): compile, build the BPF, and for every syscall number 0..1023 on
 * x86_64, i386 and x32, with argument values at and around every constant
 * (plus 0, 2^31, 2^32-1, 2^63 and garbage upper halves), compare the
 * interpreter's verdict with the oracle. Also: a syscall allowed without
 * conditions must not load argument words (kernel action cache). Each
 * policy's profiled layout (--profile-from, on a skewed syscall mix) is
 * checked the same way: it must decide identically.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "bpf_interp.h"
#include "compiler/compile.h"
#include "backends/seccomp/seccomp.h"
#include "compiler/syscalls.h"
#include "compiler/sysevents.h"
#include "import/import_oci.h"

static const char *const hand[] = {
	/* 1 plain allow-list under deny */
	"policy p { default deny syscall; allow syscall read, write, exit_group, getppid; }",
	/* 2 deny list under allow */
	"policy p { deny syscall keyctl, add_key, bpf, userfaultfd; }",
	/* 3-8 every operator, 32-bit arg (dup: unsigned int) */
	"policy p { deny syscall dup if arg0 == 5; }",
	"policy p { deny syscall dup if arg0 != 5; }",
	"policy p { deny syscall dup if arg0 < 7; }",
	"policy p { deny syscall dup if arg0 <= 7; }",
	"policy p { deny syscall dup if arg0 > 0x80000000; }",
	"policy p { deny syscall dup if arg0 >= 0xfffffffe; }",
	/* 9-14 every operator, 64-bit arg (unshare: unsigned long) */
	"policy p { deny syscall unshare if arg0 == 0x100000000; }",
	"policy p { deny syscall unshare if arg0 != 3; }",
	"policy p { deny syscall unshare if arg0 < 0x10000000; }",
	"policy p { deny syscall unshare if arg0 <= 9; }",
	"policy p { deny syscall unshare if arg0 > 0x7fffffffffffffff; }",
	"policy p { deny syscall unshare if arg0 >= 0x40000000; }",
	/* 15-16 masked eq on both widths */
	"policy p { deny syscall unshare if arg0 & CLONE_NEWUSER == CLONE_NEWUSER; }",
	"policy p { kill syscall personality if arg0 & 0xff == 0x11; allow syscall personality if arg0 & 0xff00 == 0; }",
	/* 17 && chain, mixed widths (lseek: uint fd, off_t, uint whence) */
	"policy p { deny errno EACCES syscall lseek if arg0 > 2 && arg1 < 100 && arg2 == 1; }",
	/* 18 overlapping statements, different actions and errnos */
	"policy p { default deny syscall; allow syscall dup if arg0 < 10; deny errno EACCES syscall dup if arg0 == 3; deny errno EBADF syscall dup if arg0 >= 2 && arg0 <= 4; allow syscall exit_group, getppid; }",
	/* 19 kill > deny > audit > allow on one syscall */
	"policy p { allow syscall dup2; audit syscall dup2 if arg1 > 5; deny syscall dup2 if arg1 > 10; kill syscall dup2 if arg1 == 20; }",
	/* 20 ties: first in source order */
	"policy p { deny errno EACCES syscall dup if arg0 < 8; deny errno EBADF syscall dup if arg0 > 4; }",
	/* 21 mode audit */
	"policy p { mode audit; default deny syscall; allow syscall read; kill syscall dup if arg0 == 1; }",
	/* 22 default allow, audit some */
	"policy p { audit syscall getppid, uname; deny syscall dup if arg0 != 1 && arg0 != 2; }",
	/* 23-26 arch combinations */
	"policy p { arch x86_64, i386; default deny syscall; allow syscall read, write, dup if arg0 < 4; }",
	"policy p { arch x86_64, x32; deny syscall dup if arg0 == 9; allow syscall getppid; }",
	"policy p { arch i386; default deny syscall; allow syscall getppid, dup; deny syscall dup if arg0 > 100; }",
	"policy p { arch x86_64, i386, x32; deny errno EACCES syscall uname; kill syscall personality if arg0 & 0x10000000 == 0x10000000; }",
	/* 27 deny default with a named errno */
	"policy p { default deny errno EACCES syscall; allow syscall getppid; allow syscall mmap if arg2 & 4 == 0; }",
	/* 28 kill default */
	"policy p { default kill syscall; allow syscall getppid, exit_group; deny syscall dup; }",
	/* 29 many conditions on one arg (64-bit): split intervals */
	"policy p { deny syscall madvise if arg0 > 100 && arg0 < 200 && arg0 != 150; }",
	/* 30 masked-eq negation fan-out under a higher-priority statement */
	"policy p { allow syscall clone; audit syscall clone if arg0 & 0x7e020000 == 0x7e020000; kill syscall clone if arg0 & 0x10000000 == 0x10000000; deny syscall clone if arg0 & 0x20000 == 0; }",
	/* 31 mount and network at syscall level */
	"policy p { deny mount; deny umount; deny network inet6; deny errno EACCES network netlink; }",
	/* 32 network default deny with allows */
	"policy p { default deny network; allow network unix; allow network inet; deny network packet; }",
	"policy p { deny errno EACCES network tcp; }",
	"policy p { deny network inet6; deny errno EACCES network udp; kill network raw; audit network icmp; }",
	"policy p { default deny network; allow network unix; allow network inet tcp; deny errno EACCES network inet6 udp; }",
	/* 33 masked eq whose value has bits outside the mask (never matches) */
	"policy p { deny syscall personality if arg0 & 0xf == 0x10; deny syscall unshare if arg0 & 0xf == 0x30; }",
	/* 34 ioctl: 32-bit cmd, 64-bit arg */
	"policy p { default deny syscall; allow syscall ioctl if arg1 == 0x5401; allow syscall ioctl if arg1 == 0x5413 && arg2 > 0x1000; }",
	/* 35 x32: 64-bit arguments whose comparison the lower half decides
	 * (masked-eq with a 32-bit mask, always-true comparisons) */
	"policy p { arch x86_64, x32; allow syscall clone; deny syscall clone if arg0 & 0x7e020000 == 0; deny errno EACCES syscall unshare if arg0 & 0x10000000 == 0x10000000 && arg0 >= 0; kill syscall madvise if arg1 & 0xffffffff == 4; }",
	/* 36-37 i386: the direct socket and IPC numbers (socket 359, bind 361,
	 * recvmmsg 337, shmget 395), socketcall and ipc decided on their own */
	"policy p { arch x86_64, i386; default deny syscall; allow syscall socketcall, ipc, read; allow syscall socket if arg0 < 38; allow syscall socket if arg0 == 39; deny errno EACCES syscall bind; allow syscall shmget, recvmmsg; }",
	"policy p { arch i386; deny syscall socketcall, ipc; allow syscall socket if arg0 == 1; deny errno EACCES syscall socket if arg0 == 2; kill syscall msgget; audit syscall sendmmsg if arg2 > 3; }",
	/* 38-42 implied actions (ir_implied): clone3 ENOSYS after a clone-flag
	 * statement, io_uring closed after a deny io_uring can bypass; they
	 * beat defaults and allows, lose to written denies and kills */
	"policy p { deny syscall splice; deny errno EACCES syscall clone if arg0 & CLONE_NEWUSER == CLONE_NEWUSER; }",
	"policy p { arch x86_64, i386, x32; default deny syscall; allow syscall clone3, io_uring_setup, getppid; deny network netlink; allow syscall unshare if arg0 & 0x10000000 == 0; }",
	"policy p { kill syscall clone3; deny syscall unshare if arg0 & 0x10000000 == 0x10000000; audit syscall io_uring_enter; deny errno EACCES syscall io_uring_register; deny syscall openat if arg2 & 3 == 1; }",
	"policy p { mode audit; deny syscall setsockopt if arg1 == 1 && arg2 == 26; deny syscall clone if arg0 & 0x10000000 == 0x10000000; }",
	/* 43 open_tree is a mount only with OPEN_TREE_CLONE */
	"policy p { default deny mount; allow syscall open_tree; deny errno EACCES syscall open_tree if arg0 == 7; }",
	"policy p { deny mount; audit syscall open_tree; }",
	/* 45-47 search-tree leaves with single-number exceptions (codegen.c
	 * HOLES): one leaf on both sides of up to three numbers that decide
	 * otherwise, a constant verdict or an argument block, on each ABI */
	"policy p { arch x86_64, i386, x32; deny syscall dup2, uname; deny errno EACCES syscall getppid; kill syscall dup if arg0 == 7; }",
	"policy p { arch x86_64, i386; default deny syscall; allow syscall read, write, open, close, stat, fstat, lstat, poll, lseek, mmap, pread64, pwrite64, readv, writev, access, pipe; allow syscall mprotect if arg2 & 4 == 0; }",
	"policy p { arch x86_64, x32; default deny errno EACCES syscall; allow syscall socket, connect, accept, sendto, recvfrom, shutdown, bind, listen; deny syscall sendmsg if arg2 == 1; }",
};
#define NHAND (sizeof hand / sizeof hand[0])

/* ---- random policies ---- */
static uint64_t rng = 0x5eed1234abcdULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return rng;
}

static const char *const rsys[] = { "dup", "dup2", "personality", "lseek", "unshare",
				    "madvise", "getppid", "uname", "ioctl", "kill" };
static const char *const rops[] = { "==", "!=", "<", "<=", ">", ">=" };
static const uint64_t rvals[] = { 0, 1, 2, 3, 7, 8, 0xff, 0x100, 0x7fffffff, 0x80000000,
				  0xffffffff, 0x100000000ULL, 0x8000000000000000ULL,
				  0x7ffffffe, 0x80000001, 0xfffffffe, 0x100000001ULL,
				  0x7fffffffffffffffULL, 0x8000000000000001ULL,
				  0xfffffffffffffffeULL, 0xffffffffffffffffULL };
#define NRVALS (sizeof rvals / sizeof rvals[0])

/* nst statements; one_sys: all on one syscall (many conditions meet). */
static char *random_policy_n(int nst, const char *one_sys)
{
	char *s = malloc(64 + (size_t)nst * 200);
	size_t n = 0;
	/* one rnd() per statement (see below) */
	unsigned arch = (unsigned)(rnd() % 4);
	bool deny_default = rnd() % 2;
	bool audit = rnd() % 5 == 0;
	n += (size_t)sprintf(s + n, "policy r { %s%s%s",
			      arch == 1 ? "arch x86_64, i386; " : arch == 2 ? "arch x86_64, x32; " : "",
			      deny_default ? "default deny syscall; " : "",
			      audit ? "mode audit; " : "");
	for (int i = 0; i < nst; i++) {
		static const char *const acts[] = { "allow", "audit", "deny", "deny errno EACCES", "kill" };
		const char *sys = one_sys ? one_sys : rsys[rnd() % 10];
		n += (size_t)sprintf(s + n, "%s syscall %s", acts[rnd() % 5], sys);
		int nc = (int)(rnd() % 3);
		for (int c = 0; c < nc; c++) {
			int arg = (int)(rnd() % 3);
			/* one rnd() per statement: argument evaluation order is
			 * unspecified, and the policies must not depend on the compiler */
			bool masked = rnd() % 4 == 0;
			unsigned long long m = rvals[rnd() % NRVALS] | 1, bit = rnd() % 2;
			const char *op = rops[rnd() % 6];
			unsigned long long val = rvals[rnd() % NRVALS];
			if (masked)
				n += (size_t)sprintf(s + n, "%s arg%d & 0x%llx == 0x%llx", c ? " &&" : " if", arg, m, bit);
			else
				n += (size_t)sprintf(s + n, "%s arg%d %s 0x%llx", c ? " &&" : " if", arg, op, val);
		}
		n += (size_t)sprintf(s + n, "; ");
	}
	sprintf(s + n, "}");
	return s;
}

static char *random_policy(void)
{
	return random_policy_n(2 + (int)(rnd() % 6), NULL);
}

/* ---- the oracle ---- */
static ir_decision oracle(const ir_policy *p, const ir_event *ev)
{
	ir_decision d = ir_decide(p, ev);
	ir_arch a = ir_event_arch(ev);
	if (!(p->arches & IR_ARCH_BIT(a)))
		return d;
	const char *name = seccomp_syscall_resolve_num_arch(sc_arch_token(a), (int)ev->u.sys.nr);
	if (!name)
		return d;
	ir_event dev;
	if (sysevent_of(name, ev->u.sys.args, &dev) &&
	    (dev.domain == IR_MOUNT || dev.domain == IR_NETWORK)) {
		ir_decision e = ir_decide(p, &dev);
		if (e.verdict > d.verdict)
			d = e;
	}
	free((void *)name);
	return d;
}

static bool same(uint32_t ret, ir_decision d)
{
	switch (d.verdict) {
	case IR_ALLOW: return ret == SECCOMP_RET_ALLOW;
	case IR_AUDIT: return ret == SECCOMP_RET_LOG;
	case IR_DENY: return ret == (SECCOMP_RET_ERRNO | (uint32_t)d.err);
	case IR_KILL: return ret == SECCOMP_RET_KILL_PROCESS;
	}
	return false;
}

typedef struct { uint64_t v[2048]; size_t n, cap; } vals;

static void vadd(vals *s, uint64_t x)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == x)
			return;
	if (s->n < (s->cap ? s->cap : 256))
		s->v[s->n++] = x;
}

static void consts(const ir_policy *p, vals *s)
{
	static const uint64_t base[] = { 0, 1ull << 31, 0xffffffffull, 1ull << 63,
					 0xdeadbeef00000000ull, UINT64_MAX };
	for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
		vadd(s, base[i]);
	for (size_t i = 0; i < p->dom[IR_SYSCALL].n; i++) {
		const ir_syscall *sy = &p->dom[IR_SYSCALL].v[i].u.sys;
		for (size_t j = 0; j < sy->ncond; j++) {
			uint64_t c = sy->conds[j].value;
			vadd(s, c - 1); vadd(s, c); vadd(s, c + 1);
			vadd(s, 0xdeadbeef00000000ull | (c & 0xffffffff));
			if (sy->conds[j].op == IR_CMP_MASKED_EQ) {
				vadd(s, sy->conds[j].mask);
				vadd(s, sy->conds[j].mask ^ c);
			}
		}
	}
	/* open_tree flags: OPEN_TREE_CLONE, with AT_RECURSIVE, neither */
	if (p->dom[IR_MOUNT].n || p->default_set[IR_MOUNT]) {
		vadd(s, 1); vadd(s, 0x8001); vadd(s, 0x8000); vadd(s, 0xdeadbeef00000001ull);
	}
	/* socket(2) values for network statements */
	static const uint64_t net[] = { 1, 2, 3, 6, 10, 16, 17, 58, 261, 262, 263, 0x801, 0x80002 };
	if (p->dom[IR_NETWORK].n || p->default_set[IR_NETWORK])
		for (size_t i = 0; i < sizeof net / sizeof net[0]; i++)
			vadd(s, net[i]);
}

/* Arguments the policy's statements look at for (arch, nr). */
static unsigned used_args(const ir_policy *p, ir_arch a, uint32_t nr, bool *conditional)
{
	unsigned m = 0;
	*conditional = false;
	for (size_t i = 0; i < p->dom[IR_SYSCALL].n; i++) {
		const ir_syscall *sy = &p->dom[IR_SYSCALL].v[i].u.sys;
		if (sy->nr[a] < 0 || (uint32_t)sy->nr[a] != nr)
			continue;
		for (size_t j = 0; j < sy->ncond; j++) {
			m |= 1u << sy->conds[j].arg;
			*conditional = true;
		}
		m |= 1u << 6;   /* mentioned */
	}
	const char *name = seccomp_syscall_resolve_num_arch(sc_arch_token(a), (int)nr);
	if (name && (!strcmp(name, "socket") || !strcmp(name, "socketpair")) &&
	    (p->dom[IR_NETWORK].n || p->default_set[IR_NETWORK])) {
		m |= 7 | (1u << 6);
		*conditional = true;
	}
	if (name && !strcmp(name, "open_tree") && (p->dom[IR_MOUNT].n || p->default_set[IR_MOUNT])) {
		m |= 4 | (1u << 6);
		*conditional = true;
	}
	free((void *)name);
	return m;
}

typedef struct { unsigned long long checked, mismatches, cache_bad, loaded; } tally;

/* The filters of one build, installed in order (one, or a --allow-split set). */
typedef struct { bpf_prog_ref v[32]; size_t n; } fset;

static fset one_filter(const struct sock_filter *f, size_t len)
{
	fset s = { .n = 1 };
	s.v[0] = (bpf_prog_ref){ f, len };
	return s;
}


/* The kernel's own checker: a forked child installs the filter (and only
 * the child). The filter may deny exit_group itself, so the child reports
 * through shared memory, then exits however it still can (a trap ends it
 * without a syscall). */
static void kernel_loads_set(const fset *set, const char *text, tally *t);
static void kernel_loads(const struct sock_filter *f, size_t len, const char *text, tally *t)
{
	fset one = one_filter(f, len);
	kernel_loads_set(&one, text, t);
}

/* Every filter of the set installed in order by one child: the kernel
 * accepts each, and the whole set within its per-process budget. */
static volatile int *flag;   /* per process: a worker maps its own (check_share) */
static void kernel_loads_set(const fset *set, const char *text, tally *t)
{
	if (!flag) {
		flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		assert_true(flag != MAP_FAILED);
	}
	*flag = 0;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* the trap below must end the child, not reach cmocka's handler */
		signal(SIGILL, SIG_DFL);
		signal(SIGSEGV, SIG_DFL);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			_exit(4);
		for (size_t i = 0; i < set->n; i++) {
			struct sock_fprog prog = { (unsigned short)set->v[i].len,
						   (struct sock_filter *)set->v[i].f };
			if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
				_exit(4);
		}
		*flag = 1;
		syscall(SYS_exit_group, 0);
		syscall(SYS_exit, 0);
		__builtin_trap();
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (*flag != 1)
		fail_msg("the kernel refused the filter (%zu of them, the first %zu "
			 "instructions): %s", set->n, set->v[0].len, text);
	t->loaded += set->n;
}

static void check_one(const ir_policy *p, const fset *set,
		      uint32_t audit_arch, uint32_t nr, const uint64_t args[6],
		      bool conditional, const char *text, tally *t)
{
	struct seccomp_data sd = { .nr = (int)nr, .arch = audit_arch };
	memcpy(sd.args, args, sizeof sd.args);
	bpf_run_info info;
	/* as the kernel combines them (one filter: that filter's answer) */
	uint32_t ret = bpf_interp_set(set->v, set->n, &sd, &info);
	ir_event ev = { .domain = IR_SYSCALL };
	ev.u.sys.audit_arch = audit_arch;
	ev.u.sys.nr = nr;
	memcpy(ev.u.sys.args, args, sizeof ev.u.sys.args);
	ir_decision d = oracle(p, &ev);
	t->checked++;
	if (!same(ret, d)) {
		if (t->mismatches++ < 10)
			fprintf(stderr, "MISMATCH %s\n  arch %#x nr %#x args %#llx %#llx %#llx: "
				"filter %#x, ir_decide %s/%d\n", text, audit_arch, nr,
				(unsigned long long)args[0], (unsigned long long)args[1],
				(unsigned long long)args[2], ret, ir_verdict_name(d.verdict), d.err);
	}
	if (!conditional && ret == SECCOMP_RET_ALLOW && info.loaded_args) {
		if (t->cache_bad++ < 10)
			fprintf(stderr, "ARG LOAD on unconditional allow: %s nr %#x\n", text, nr);
	}
}

/* Check text's filter against text's oracle, or (wrong != NULL) wrong's
 * filter against text's oracle: the self-check that mismatches are seen. */
static void check_policy2(const char *text, const char *wrong, tally *t);
static const ir_policy *compile1(const char *text, diag_ctx *d, ir_program *prog);
static int refused_merge;   /* policies the backend refused (see check_policy2) */
static void check_policy(const char *text, tally *t)
{
	check_policy2(text, NULL, t);
}

static const ir_policy *compile1(const char *text, diag_ctx *d, ir_program *prog)
{
	compile_opts o = { .no_library = true };
	if (polc_compile_text("t.pol", text, &o, d, prog)) {
		diag_print(d, stderr, false);
		fail_msg("does not compile: %s", text);
	}
	return ir_program_select(prog, NULL, d);
}

/* Every syscall number of every ABI, with argument values at and around
 * the policy's constants: filter f against the oracle. */
static void check_filter_set(const ir_policy *p, const fset *set, const char *text, tally *t);
static void check_filter(const ir_policy *p, const struct sock_filter *f, size_t len,
			 const char *text, tally *t)
{
	fset one = one_filter(f, len);
	check_filter_set(p, &one, text, t);
}

/* Values for argument j of syscall nr on a: the usual boundaries, and
 * at and around the constants of that syscall's own conditions on j. */
static void arg_consts(const ir_policy *p, ir_arch a, uint32_t nr, int j, vals *s)
{
	static const uint64_t base[] = { 0, 1ull << 31, 0xffffffffull, 1ull << 63,
					 0xdeadbeef00000000ull, UINT64_MAX };
	s->n = 0;
	s->cap = 2048;
	for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
		vadd(s, base[i]);
	for (size_t i = 0; i < p->dom[IR_SYSCALL].n; i++) {
		const ir_syscall *sy = &p->dom[IR_SYSCALL].v[i].u.sys;
		if (sy->nr[a] < 0 || (uint32_t)sy->nr[a] != nr)
			continue;
		for (size_t k = 0; k < sy->ncond; k++) {
			uint64_t c = sy->conds[k].value;
			if (sy->conds[k].arg != j)
				continue;
			vadd(s, c - 1); vadd(s, c); vadd(s, c + 1);
			vadd(s, 0xdeadbeef00000000ull | (c & 0xffffffff));
			if (sy->conds[k].op == IR_CMP_MASKED_EQ) {
				vadd(s, sy->conds[k].mask);
				vadd(s, sy->conds[k].mask ^ c);
			}
		}
	}
}

/* For policies with more constants than one list holds (split sizes):
 * each syscall's arguments take the values of its own conditions on
 * them; every pair of the first two arguments it compares, the others
 * at 0. */
static void check_filter_per_arg(const ir_policy *p, const fset *set, const char *text, tally *t)
{
	static const struct { ir_arch a; uint32_t audit, base; } abi[] = {
		{ IR_ARCH_X86_64, AUDIT_ARCH_X86_64, 0 },
		{ IR_ARCH_I386, AUDIT_ARCH_I386, 0 },
		{ IR_ARCH_X32, AUDIT_ARCH_X86_64, 0x40000000u },
	};
	static vals v1, v2;
	for (size_t k = 0; k < 3; k++) {
		for (uint32_t i = 0; i < 1024; i++) {
			uint32_t nr = abi[k].base | i;
			bool cond;
			unsigned m = used_args(p, abi[k].a, nr, &cond);
			uint64_t args[6] = { 0 };
			check_one(p, set, abi[k].audit, nr, args, cond, text, t);
			for (int j = 0; j < 6; j++)
				args[j] = 0xdeadbeef00000005ull;
			check_one(p, set, abi[k].audit, nr, args, cond, text, t);
			int a1 = -1, a2 = -1;
			for (int j = 0; j < 6; j++)
				if (m & (1u << j)) {
					if (a1 < 0) a1 = j; else if (a2 < 0) a2 = j;
				}
			if (a1 < 0)
				continue;
			arg_consts(p, abi[k].a, nr, a1, &v1);
			v2.n = 1;
			v2.v[0] = 0;
			if (a2 >= 0)
				arg_consts(p, abi[k].a, nr, a2, &v2);
			for (size_t x = 0; x < v1.n; x++)
				for (size_t y = 0; y < v2.n; y++) {
					memset(args, 0, sizeof args);
					args[a1] = v1.v[x];
					if (a2 >= 0)
						args[a2] = v2.v[y];
					check_one(p, set, abi[k].audit, nr, args, cond, text, t);
				}
		}
	}
}

static void check_filter_set(const ir_policy *p, const fset *set, const char *text, tally *t)
{
	vals v = { .n = 0 };
	consts(p, &v);
	static const struct { ir_arch a; uint32_t audit, base; } abi[] = {
		{ IR_ARCH_X86_64, AUDIT_ARCH_X86_64, 0 },
		{ IR_ARCH_I386, AUDIT_ARCH_I386, 0 },
		{ IR_ARCH_X32, AUDIT_ARCH_X86_64, 0x40000000u },
	};
	for (size_t k = 0; k < 3; k++) {
		for (uint32_t i = 0; i < 1024; i++) {
			uint32_t nr = abi[k].base | i;
			bool cond;
			unsigned m = used_args(p, abi[k].a, nr, &cond);
			uint64_t args[6] = { 0 };
			check_one(p, set, abi[k].audit, nr, args, cond, text, t);
			for (int j = 0; j < 6; j++)
				args[j] = 0xdeadbeef00000005ull;
			check_one(p, set, abi[k].audit, nr, args, cond, text, t);
			if (!(m & 0x3f))
				continue;
			int a1 = -1, a2 = -1;
			for (int j = 0; j < 6; j++)
				if (m & (1u << j)) {
					if (a1 < 0) a1 = j; else if (a2 < 0) a2 = j;
				}
			for (size_t x = 0; x < v.n; x++) {
				for (size_t y = 0; y < (a2 >= 0 ? v.n : 1); y++) {
					memset(args, 0, sizeof args);
					for (int j = 0; j < 6; j++)
						if (m & (1u << j))
							args[j] = v.v[(x + y + (size_t)j) % v.n];
					args[a1] = v.v[x];
					if (a2 >= 0)
						args[a2] = v.v[y];
					check_one(p, set, abi[k].audit, nr, args, cond, text, t);
				}
			}
		}
	}
}

/* A skewed syscall mix for the profiled layout: the syscalls the policy
 * names (conditional ones included, which must stay out of the prefix)
 * are hot, the rest get small counts, on every ABI the policy has. */
static size_t test_mix(const ir_policy *p, sys_freq *mix)
{
	static const uint32_t base[IR_NARCH] = { 0, 0, 0x40000000u };
	size_t n = 0;
	for (int a = 0; a < IR_NARCH; a++) {
		if (!(p->arches & IR_ARCH_BIT(a)))
			continue;
		for (uint32_t i = 0; i < 1024; i++) {
			if (!sys_known((ir_arch)a, base[a] | i))
				continue;
			uint64_t c = i % 97 == 0 ? 100000 + i : 1 + i % 13;
			for (size_t k = 0; k < p->dom[IR_SYSCALL].n; k++)
				if (p->dom[IR_SYSCALL].v[k].u.sys.nr[a] == (int)(base[a] | i))
					c = 1000000 + k;
			mix[n++] = (sys_freq){ (ir_arch)a, base[a] | i, c };
		}
	}
	return n;
}

static size_t profiled_hot;    /* syscalls the prefixes decided, all policies */
static size_t profiled_pols;   /* policies whose layout has a prefix */

/* The profiled layout of the policy decides exactly as the oracle too. */
static void check_profiled(const ir_policy *p, const char *text, tally *t)
{
	static sys_freq mix[3 * 1024];
	size_t n = test_mix(p, mix);
	diag_ctx d;
	diag_init(&d);
	buf b;
	buf_init(&b);
	sc_layout_info info;
	if (sc_build_bpf_profiled(p, false, mix, n, &d, &b, &info)) {
		diag_print(&d, stderr, false);
		fail_msg("profiled seccomp build failed: %s", text);
	}
	assert_true(info.mean_after <= info.mean_before);
	profiled_hot += info.hot;
	profiled_pols += info.mean_after < info.mean_before;
	check_filter(p, (const struct sock_filter *)b.data, b.len / sizeof(struct sock_filter),
		     text, t);
	kernel_loads((const struct sock_filter *)b.data, b.len / sizeof(struct sock_filter), text, t);
	buf_free(&b);
	diag_free(&d);
}

static void check_policy2(const char *text, const char *wrong, tally *t)
{
	diag_ctx d;
	diag_init(&d);
	ir_program prog;
	compile_opts o = { .no_library = true };
	if (polc_compile_text("t.pol", text, &o, &d, &prog)) {
		diag_print(&d, stderr, false);
		fail_msg("does not compile: %s", text);
	}
	const ir_policy *p = ir_program_select(&prog, NULL, &d);
	assert_non_null(p);
	buf b;
	buf_init(&b);
	ir_program wprog;
	const ir_policy *fp = wrong ? compile1(wrong, &d, &wprog) : p;
	if (sc_build_bpf(fp, false, &d, &b)) {
		/* The one refusal a valid policy may meet (plan.c,
		 * same_action_ranges): the backend declines rather than emit a
		 * filter libseccomp would get wrong. Counted, printed, and the
		 * test demands it stays rare. */
		bool merge = false;
		for (size_t i = 0; i < d.n; i++)
			merge |= strstr(d.v[i].msg, "cannot merge") != NULL;
		if (merge && !wrong) {
			refused_merge++;
			printf("refused (libseccomp merge limit): %s\n", text);
			buf_free(&b);
			ir_program_free(&prog);
			diag_free(&d);
			return;
		}
		diag_print(&d, stderr, false);
		fail_msg("seccomp build failed: %s", text);
	}
	const struct sock_filter *f = (const struct sock_filter *)b.data;
	size_t len = b.len / sizeof *f;
	check_filter(p, f, len, text, t);
	if (!wrong) {
		kernel_loads(f, len, text, t);
		check_profiled(p, text, t);
	}
	buf_free(&b);
	if (wrong)
		ir_program_free(&wprog);
	ir_program_free(&prog);
	diag_free(&d);
}

/* n conditional statements, spread over the first 64 x86_64 syscalls. */
static char *limit_policy(size_t n)
{
	size_t nn;
	const char *const *names = sys_names(&nn);
	char *s = malloc(64 + n * 96);
	size_t k = (size_t)sprintf(s, "policy big { ");
	for (size_t i = 0; i < n; i++)
		k += (size_t)sprintf(s + k, "deny syscall %s if arg0 == 0x%zx00000001 && arg1 > 7; ",
				     names[i % (nn < 64 ? nn : 64)], i + 1);
	sprintf(s + k, "}");
	return s;
}

/* Length polc gives the n-statement policy (0: refused for size). */
static size_t limit_len(size_t n, bool *refused, char **text)
{
	*text = limit_policy(n);
	diag_ctx d;
	diag_init(&d);
	ir_program prog;
	const ir_policy *p = compile1(*text, &d, &prog);
	buf b;
	buf_init(&b);
	sc_codegen_info *ci = calloc(1, sizeof *ci);
	int rc = sc_build_bpf_mix(p, false, NULL, 0, &d, &b, ci);
	*refused = rc != 0;
	if (rc) {
		bool said = false;
		for (size_t i = 0; i < d.n; i++)
			said |= strstr(d.v[i].msg, "at most 4096") != NULL;
		assert_true(said);
		assert_int_equal(b.len, 0);     /* nothing written */
	}
	size_t len = ci->len;
	free(ci);
	buf_free(&b);
	ir_program_free(&prog);
	diag_free(&d);
	return len;
}

/* The statement counts of the largest limit policy that fits and of the
 * smallest refused. */
static void size_limit_bounds(size_t *plo, size_t *phi)
{
	size_t lo = 1, hi = 2;
	bool ref;
	char *txt;
	for (;; hi *= 2) {
		assert_true(hi < 100000);
		limit_len(hi, &ref, &txt);
		free(txt);
		if (ref)
			break;
		lo = hi;
	}
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		limit_len(mid, &ref, &txt);
		free(txt);
		if (ref)
			hi = mid;
		else
			lo = mid;
	}
	*plo = lo;
	*phi = hi;
}

/* The largest such policy that fits is built, checked and loaded; one
 * statement more is refused with the limit in the message. */
static size_t size_limit(tally *t)
{
	size_t lo, hi;
	bool ref;
	char *txt;
	size_limit_bounds(&lo, &hi);
	size_t len = limit_len(lo, &ref, &txt);
	assert_false(ref);
	assert_true(len <= BPF_MAXINSNS && len > BPF_MAXINSNS - 64);
	check_policy(txt, t);
	free(txt);
	size_t over = limit_len(hi, &ref, &txt);
	free(txt);
	assert_true(ref);
	assert_true(over > BPF_MAXINSNS);
	return len;
}

/* ---- --allow-split ---- */

static size_t split_checked, split_sets, split_filters;

static const ir_policy *compile_lib(const char *text, diag_ctx *d, ir_program *prog)
{
	compile_opts o = { 0 };
	if (polc_compile_text("t.pol", text, &o, d, prog)) {
		diag_print(d, stderr, false);
		fail_msg("does not compile: %.200s", text);
	}
	return ir_program_select(prog, NULL, d);
}

static size_t set_path(const fset *set)
{
	size_t n = 0;
	for (size_t i = 0; i < set->n; i++)
		n += set->v[i].len + (i ? SC_FILTER_PENALTY : 0);
	return n;
}

/* p built with --allow-split: every filter fits, the set fits the
 * kernel's budget for a process, one child loads them all in order, and
 * the set, as the kernel combines it, decides every call as the oracle.
 * One filter exactly when the unsplit build fits (then the same bytes).
 * Returns the filter count. */
static size_t check_split(const ir_policy *p, const char *what, tally *t)
{
	diag_ctx d;
	diag_init(&d);
	sc_filters f;
	if (sc_build_bpf_split(p, false, &d, &f)) {
		diag_print(&d, stderr, false);
		fail_msg("--allow-split build failed: %s", what);
	}
	assert_true(f.n >= 1 && f.n <= 32);
	fset set = { .n = f.n };
	for (size_t i = 0; i < f.n; i++) {
		set.v[i] = (bpf_prog_ref){ (const struct sock_filter *)f.v[i].data,
					   f.v[i].len / sizeof(struct sock_filter) };
		assert_true(set.v[i].len > 0 && set.v[i].len <= BPF_MAXINSNS);
	}
	assert_true(set_path(&set) <= SC_MAX_INSNS_PER_PATH);
	buf one;
	buf_init(&one);
	int rc = sc_build_bpf(p, false, &d, &one);
	if (f.n == 1) {
		assert_int_equal(rc, 0);
		assert_int_equal(one.len, f.v[0].len);
		assert_memory_equal(one.data, f.v[0].data, one.len);
	} else {
		assert_int_not_equal(rc, 0);     /* the refusal without --allow-split */
	}
	check_filter_per_arg(p, &set, what, t);
	kernel_loads_set(&set, what, t);
	printf("split: %s: %zu filter%s,", what, f.n, f.n == 1 ? "" : "s");
	for (size_t i = 0; i < f.n; i++)
		printf(" %zu", set.v[i].len);
	printf(" instructions (%zu on the path)\n", set_path(&set));
	split_checked++;
	split_sets += f.n > 1;
	split_filters += f.n;
	size_t n = f.n;
	buf_free(&one);
	sc_filters_free(&f);
	diag_free(&d);
	return n;
}

static size_t check_split_text(const char *text, const char *what, bool lib, tally *t)
{
	diag_ctx d;
	diag_init(&d);
	ir_program prog;
	const ir_policy *p = lib ? compile_lib(text, &d, &prog) : compile1(text, &d, &prog);
	assert_non_null(p);
	size_t n = check_split(p, what, t);
	ir_program_free(&prog);
	diag_free(&d);
	return n;
}

/* --allow-split refuses text with a message containing want. */
static void split_refused(const char *text, const char *want)
{
	diag_ctx d;
	diag_init(&d);
	ir_program prog;
	const ir_policy *p = compile1(text, &d, &prog);
	sc_filters f;
	assert_int_not_equal(sc_build_bpf_split(p, false, &d, &f), 0);
	assert_int_equal(f.n, 0);       /* nothing written */
	bool said = false;
	for (size_t i = 0; i < d.n; i++)
		said |= strstr(d.v[i].msg, want) != NULL;
	if (!said)
		diag_print(&d, stderr, false);
	assert_true(said);
	ir_program_free(&prog);
	diag_free(&d);
}

/* 40 statements each on personality arg0, ioctl arg1, setsockopt arg2
 * (issue #14's case) after `head`, n of each. */
static char *with_conditions(const char *head, size_t n)
{
	char *s = malloc(strlen(head) + n * 3 * 64 + 8);
	size_t k = (size_t)sprintf(s, "%s", head);
	for (size_t i = 0; i < n; i++)
		k += (size_t)sprintf(s + k, "deny syscall personality if arg0 == %zu;\n"
				     "deny syscall ioctl if arg1 == %zu;\n"
				     "deny syscall setsockopt if arg2 == %zu;\n",
				     0x1000 + i, 0x7000 + i, 300 + i);
	sprintf(s + k, "}\n");
	return s;
}

/* Docker's default profile imported as `polc import` does, without its
 * closing brace (NULL when the peer file is not here). */
static char *docker_head(void)
{
	const char *src = getenv("SRC");
	char path[4096];
	snprintf(path, sizeof path, "%s/../shared/peers/docker-default-seccomp.json", src ? src : ".");
	if (access(path, R_OK) && access(strcpy(path, "/work/shared/peers/docker-default-seccomp.json"), R_OK))
		return NULL;
	import_opts o = { "docker", NULL, 0, 0, IR_ARCH_X86_64, 6, 18 };
	diag_ctx d;
	diag_init(&d);
	buf b;
	buf_init(&b);
	assert_int_equal(import_oci_file(path, &o, &d, &b), 0);
	diag_free(&d);
	char *s = strdup(buf_cstr(&b));
	buf_free(&b);
	char *end = strrchr(s, '}');
	assert_non_null(end);
	*end = 0;
	return s;
}

/* n statements over syscalls whose arg0 is a 32-bit descriptor, every
 * verdict, distinct values: a generated policy of split size. */
static char *generated(size_t n)
{
	static const char *const fd[] = {
		"read", "write", "close", "fstat", "lseek", "ioctl", "fsync", "fdatasync",
		"ftruncate", "getdents", "fchdir", "fchmod", "fchown", "flock", "dup", "dup2",
		"fcntl", "readv", "writev", "pread64", "pwrite64", "shutdown", "listen",
		"accept", "bind", "connect", "getsockname", "getpeername", "setsockopt",
		"getsockopt", "sendto", "recvfrom", "sendmsg", "recvmsg", "accept4",
		"fstatfs", "fchmodat", "fadvise64", "syncfs", "inotify_add_watch",
	};
	static const char *const acts[] = { "deny errno EACCES", "kill", "audit", "deny",
					    "allow", "deny errno EBADF" };
	size_t nsys = sizeof fd / sizeof *fd;
	char *s = malloc(64 + n * 80);
	size_t k = (size_t)sprintf(s, "policy gen { ");
	for (size_t i = 0; i < n; i++)
		k += (size_t)sprintf(s + k, "%s syscall %s if arg0 == %zu; ", acts[i % 6],
				     fd[i % nsys], 1000 + i);
	sprintf(s + k, "}");
	return s;
}

static void test_split(void **state)
{
	(void)state;
	tally t = { 0 };
	/* self-check: a set missing a filter disagrees with the oracle */
	{
		char *txt = generated(6000);
		diag_ctx d;
		diag_init(&d);
		ir_program prog;
		const ir_policy *p = compile1(txt, &d, &prog);
		sc_filters f;
		assert_int_equal(sc_build_bpf_split(p, false, &d, &f), 0);
		assert_true(f.n >= 2);
		fset set = { .n = f.n - 1 };
		for (size_t i = 0; i + 1 < f.n; i++)
			set.v[i] = (bpf_prog_ref){ (const struct sock_filter *)f.v[i].data,
						   f.v[i].len / sizeof(struct sock_filter) };
		tally w = { 0 };
		check_filter_per_arg(p, &set, "without its last filter", &w);
		printf("split self-check: a set without its last filter gives %llu mismatches\n",
		       w.mismatches);
		assert_true(w.mismatches > 0);
		sc_filters_free(&f);
		ir_program_free(&prog);
		diag_free(&d);
		free(txt);
	}
	/* issue #14's case: runtime-default and 120 conditions */
	char *txt = with_conditions("policy rd { use runtime-default;\n", 40);
	size_t n = check_split_text(txt, "runtime-default + 120 conditions", true, &t);
	free(txt);
	assert_int_equal(n, 1);     /* under the limit with polc's own generator */
	/* Docker's default and 3 x N conditions: under, just over, well over */
	char *dk = docker_head();
	if (dk) {
		static const size_t ns[] = { 300, 400, 700 };
		static const size_t want[] = { 1, 2, 3 };
		for (size_t i = 0; i < 3; i++) {
			char what[64];
			snprintf(what, sizeof what, "docker-default + %zu conditions", 3 * ns[i]);
			txt = with_conditions(dk, ns[i]);
			n = check_split_text(txt, what, true, &t);
			free(txt);
			assert_true(n >= want[i] && (want[i] > 1 || n == 1));
		}
		free(dk);
	} else {
		printf("split: docker-default-seccomp.json not found: its cases skipped\n");
	}
	/* the limit policy: the largest that fits, one statement more */
	size_t lo = 0, hi = 0;
	size_limit_bounds(&lo, &hi);
	txt = limit_policy(lo);
	assert_int_equal(check_split_text(txt, "limit policy, largest that fits", false, &t), 1);
	free(txt);
	txt = limit_policy(hi);
	assert_true(check_split_text(txt, "limit policy, one statement more", false, &t) >= 2);
	free(txt);
	/* 10,000 generated statements */
	txt = generated(10000);
	assert_true(check_split_text(txt, "10,000 generated statements", false, &t) >= 3);
	free(txt);
	/* refusals: over the per-process budget; one syscall alone too big */
	txt = generated(30000);
	split_refused(txt, "MAX_INSNS_PER_PATH");
	free(txt);
	char *one = malloc(64 + 4000 * 48);
	size_t k = (size_t)sprintf(one, "policy one { ");
	for (size_t i = 0; i < 4000; i++)
		k += (size_t)sprintf(one + k, "deny syscall dup if arg0 == %zu; ", 7 + i);
	sprintf(one + k, "}");
	split_refused(one, "cannot split it");
	free(one);
	printf("seccomp --allow-split: %zu policies, %zu split (%zu filters in all), %llu decisions "
	       "checked, %llu mismatches, %llu argument loads on unconditional allows, %llu "
	       "filters loaded by the kernel\n", split_checked, split_sets, split_filters,
	       t.checked, t.mismatches, t.cache_bad, t.loaded);
	assert_true(split_sets >= 3);
	assert_int_equal(t.mismatches, 0);
	assert_int_equal(t.cache_bad, 0);
}

/* A split set in force for real: a child installs every filter in order
 * and makes calls that different filters decide; each gets its own
 * filter's errno, and the calls no statement matches run (EBADF: the
 * descriptor does not exist). */
static void test_split_native(void **state)
{
	(void)state;
	static const struct { const char *name; long nr; const char *err; int errv; long base; } probe[] = {
		{ "dup", SYS_dup, "EACCES", EACCES, 5000 },
		{ "fchdir", SYS_fchdir, "EXDEV", EXDEV, 6000 },
		{ "fsync", SYS_fsync, "ENOLINK", ENOLINK, 7000 },
	};
	enum { PER = 1500, NPROBE = 3 };
	char *txt = malloc(64 + NPROBE * PER * 64);
	size_t k = (size_t)sprintf(txt, "policy probe { ");
	for (size_t j = 0; j < NPROBE; j++)
		for (long i = 0; i < PER; i++)
			k += (size_t)sprintf(txt + k, "deny errno %s syscall %s if arg0 == %ld; ",
					     probe[j].err, probe[j].name, probe[j].base + i);
	sprintf(txt + k, "}");
	diag_ctx d;
	diag_init(&d);
	ir_program prog;
	const ir_policy *p = compile1(txt, &d, &prog);
	sc_filters f;
	assert_int_equal(sc_build_bpf_split(p, false, &d, &f), 0);
	assert_true(f.n >= 2);
	/* which filter decides each probe: they must not all be one */
	size_t decider[NPROBE], distinct = 0;
	for (size_t j = 0; j < NPROBE; j++) {
		struct seccomp_data sd = { .nr = (int)probe[j].nr, .arch = AUDIT_ARCH_X86_64 };
		sd.args[0] = (uint64_t)probe[j].base + 3;
		decider[j] = SIZE_MAX;
		for (size_t i = 0; i < f.n; i++)
			if (bpf_interp((const struct sock_filter *)f.v[i].data,
				       f.v[i].len / sizeof(struct sock_filter), &sd, NULL) != SECCOMP_RET_ALLOW)
				decider[j] = i;
		assert_true(decider[j] != SIZE_MAX);
		bool seen = false;
		for (size_t i = 0; i < j; i++)
			seen |= decider[i] == decider[j];
		distinct += !seen;
	}
	assert_true(distinct >= 2);
	/* the child's results: errno of the matching call, of the other one */
	volatile int *res = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(res != MAP_FAILED);
	memset((void *)res, 0, 4096);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || sc_install(&f))
			_exit(4);
		res[0] = 1;
		for (size_t j = 0; j < NPROBE; j++) {
			errno = 0;
			long r = syscall(probe[j].nr, probe[j].base + 3);
			res[1 + 2 * j] = r < 0 ? errno : 0;
			errno = 0;
			r = syscall(probe[j].nr, probe[j].base + PER + 3);
			res[2 + 2 * j] = r < 0 ? errno : 0;
		}
		res[1 + 2 * NPROBE] = syscall(SYS_getppid) == getppid() ? 1 : 2;
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(res[0], 1);
	for (size_t j = 0; j < NPROBE; j++) {
		printf("split native: %s(%ld) -> %s (filter %zu of %zu), %s(%ld) -> errno %d (ran)\n",
		       probe[j].name, probe[j].base + 3, strerror(res[1 + 2 * j]), decider[j] + 1,
		       f.n, probe[j].name, probe[j].base + PER + 3, res[2 + 2 * j]);
		assert_int_equal(res[1 + 2 * j], probe[j].errv);
		assert_int_equal(res[2 + 2 * j], EBADF);
	}
	assert_int_equal(res[1 + 2 * NPROBE], 1);
	munmap((void *)res, 4096);
	sc_filters_free(&f);
	ir_program_free(&prog);
	diag_free(&d);
	free(txt);
}

/* What one worker of test_exhaustive found, in memory its parent reads. */
typedef struct {
	tally t;
	int refused_merge;
	size_t profiled_hot, profiled_pols;
	int done;
} worker_out;

/* check_share: the policies i = w, w + nw, ... checked by worker w, a
 * child process; its counts go to out. The checks are CPU-bound and
 * independent, so nw workers (one per CPU) take 1/nw of the wall time with
 * every policy and decision still checked (CI runs this test natively and
 * under ASan+UBSan, where it was the run's longest). A failed assertion in
 * a worker ends it with a non-zero status (its own cmocka report first). */
static void check_share(char **texts, size_t n, size_t w, size_t nw, worker_out *out)
{
	flag = NULL;   /* kernel_loads_set's flag page: this worker's own */
	refused_merge = 0;
	profiled_hot = profiled_pols = 0;
	tally t = { 0 };
	for (size_t i = w; i < n; i += nw)
		check_policy(texts[i], &t);
	*out = (worker_out){ t, refused_merge, profiled_hot, profiled_pols, 1 };
}

static void test_exhaustive(void **state)
{
	(void)state;
	/* self-check: a filter one constant off is caught */
	tally w = { 0 };
	check_policy2("policy p { deny syscall dup if arg0 == 5; }",
		      "policy p { deny syscall dup if arg0 == 6; }", &w);
	printf("self-check: wrong filter gives %llu mismatches\n", w.mismatches);
	assert_true(w.mismatches > 0);
	/* The policies first (rnd()'s sequence, as before), then the checks. */
	enum { NRAND = 150, NMANY = 30 };
	char *texts[NHAND + NRAND + NMANY];
	size_t npol = 0;
	for (size_t i = 0; i < NHAND; i++)
		texts[npol++] = xstrdup(hand[i]);
	for (int i = 0; i < NRAND; i++)
		texts[npol++] = random_policy();
	/* many conditions on one syscall: every pair of them meets */
	for (int i = 0; i < NMANY; i++)
		texts[npol++] = random_policy_n(8 + (int)(rnd() % 10), rsys[rnd() % 10]);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nw = ncpu < 1 ? 1 : ncpu > 8 ? 8 : (size_t)ncpu;
	worker_out *out = mmap(NULL, nw * sizeof *out, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(out != MAP_FAILED);
	memset(out, 0, nw * sizeof *out);
	pid_t pids[8];
	fflush(NULL);   /* or each worker repeats what is buffered (the self-check line) */
	for (size_t k = 0; k < nw; k++) {
		pids[k] = fork();
		assert_true(pids[k] >= 0);
		if (pids[k] == 0) {
			check_share(texts, npol, k, nw, &out[k]);
			fflush(NULL);
			_exit(0);
		}
	}
	tally t = { 0 };
	int refused = 0;
	size_t hot = 0, pols = 0;
	for (size_t k = 0; k < nw; k++) {
		int st;
		assert_int_equal(waitpid(pids[k], &st, 0), pids[k]);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !out[k].done)
			fail_msg("exhaustive worker %zu of %zu failed (status 0x%x): see its report above",
				 k + 1, nw, st);
		t.checked += out[k].t.checked;
		t.mismatches += out[k].t.mismatches;
		t.cache_bad += out[k].t.cache_bad;
		t.loaded += out[k].t.loaded;
		refused += out[k].refused_merge;
		hot += out[k].profiled_hot;
		pols += out[k].profiled_pols;
	}
	munmap(out, nw * sizeof *out);
	for (size_t i = 0; i < npol; i++)
		free(texts[i]);
	refused_merge += refused;   /* plus the self-check's, as before */
	profiled_hot += hot;
	profiled_pols += pols;
	size_t under = size_limit(&t);
	npol++;
	printf("seccomp exhaustive: %zu policies (%d refused by the merge check), %llu decisions "
	       "checked (plain and profiled layouts; %zu policies laid out better for their mix, "
	       "%zu syscalls in jeq chains), %llu mismatches, %llu argument loads on unconditional "
	       "allows, %llu filters loaded by the kernel; size limit: %zu instructions built, "
	       "one statement more refused; %zu workers\n", npol, refused_merge, t.checked,
	       profiled_pols, profiled_hot, t.mismatches, t.cache_bad, t.loaded, under, nw);
	assert_true(npol >= 200);
	assert_int_equal(refused_merge, 0);
	assert_int_equal(t.mismatches, 0);
	assert_int_equal(t.cache_bad, 0);
	assert_true(profiled_pols >= 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_exhaustive),
					    cmocka_unit_test(test_split),
					    cmocka_unit_test(test_split_native) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
