/* seccomp_probe.c - ask the running kernel how a seccomp filter decides one
 * syscall, without executing the syscall.
 *
 * In a forked child: install a sentinel filter that returns
 * ERRNO(SENTINEL) for exactly the probed (arch, nr), then the policy's
 * filter, then make the call. The kernel runs every filter and keeps the
 * most restrictive action; between two ERRNO actions the newest filter's
 * wins. So: the policy allows (or logs) → SENTINEL comes back; the policy
 * denies → its errno; kill → SIGSYS. The syscall itself never runs, so any
 * syscall (reboot, kexec_load, ...) can be probed safely.
 * The child reports through its exit status only, since the policy may
 * deny write(2); if it denies exit too, ud2 ends the child (SIGILL).
 */
#include "verify.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SENTINEL 4093
enum { CODE_ALLOWED = 0, CODE_RAN = 250, CODE_BIG_ERRNO = 251, CODE_SETUP = 252 };

/* Installs through whichever of seccomp(2) and prctl(2) is not the probed
 * syscall, which the sentinel would refuse. */
static int install(const struct sock_filter *f, size_t n, uint32_t probed)
{
	struct sock_fprog prog = { (unsigned short)n, (struct sock_filter *)f };
	if (probed == SYS_seccomp)
		return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static __attribute__((noreturn)) void report(int code)
{
	syscall(SYS_exit_group, code);
	syscall(SYS_exit, code);
	__builtin_trap();
}

static __attribute__((noreturn)) void child(const void *filter, size_t len, const ir_event *ev)
{
	struct sock_filter sentinel[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ev->u.sys.audit_arch, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ev->u.sys.nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | SENTINEL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    install(sentinel, sizeof sentinel / sizeof *sentinel, ev->u.sys.nr) ||
	    install(filter, len / sizeof(struct sock_filter), ev->u.sys.nr))
		report(CODE_SETUP);
	const uint64_t *a = ev->u.sys.args;
	long r = syscall((long)ev->u.sys.nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	int e = errno;
	if (r >= 0)
		report(CODE_RAN);
	if (e == SENTINEL)
		report(CODE_ALLOWED);
	report(e < CODE_RAN ? e : CODE_BIG_ERRNO);
}

outcome seccomp_probe_run(const void *filter, size_t len, const ir_event *ev)
{
	outcome o = { .kind = OUT_ERROR };
	if (ev->domain != IR_SYSCALL) {
		o.kind = OUT_SKIPPED;
		o.why = "not a syscall event";
		return o;
	}
	if (ev->u.sys.audit_arch == AUDIT_ARCH_I386) {
		/* int 0x80 may fault before seccomp runs; the exhaustive
		 * interpreter check covers i386 instead */
		o.kind = OUT_SKIPPED;
		o.why = "i386 entry not probed natively";
		return o;
	}
	pid_t pid = fork();
	if (pid < 0) {
		o.why = "fork failed";
		return o;
	}
	if (pid == 0)
		child(filter, len, ev);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st)) {
		if (WTERMSIG(st) == SIGSYS) {
			o.kind = OUT_KILLED;
		} else {
			o.why = WTERMSIG(st) == SIGILL ? "the policy denies exit; child could not report"
						      : "child died from a signal";
		}
		return o;
	}
	int code = WEXITSTATUS(st);
	if (code == CODE_ALLOWED) {
		o.kind = OUT_ALLOWED;
	} else if (code < CODE_RAN) {
		o.kind = OUT_DENIED;
		o.err = code;
	} else {
		o.why = code == CODE_SETUP ? "cannot install the filters" :
			code == CODE_RAN ? "the probed syscall ran (sentinel bypassed)" : "errno above 249";
	}
	return o;
}

bool outcome_matches(const outcome *o, const ir_decision *d)
{
	switch (d->verdict) {
	case IR_ALLOW:
	case IR_AUDIT: return o->kind == OUT_ALLOWED;
	case IR_DENY: return o->kind == OUT_DENIED && o->err == d->err;
	case IR_KILL: return o->kind == OUT_KILLED;
	}
	return false;
}
