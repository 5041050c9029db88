/* run.c - `polc run --target seccomp`: confine the current process (the
 * child, just before exec) with the policy's filter. */
#include "seccomp.h"
#include "../../base/base.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The filter in force. Never freed: the exec that follows replaces the
 * image, and a free() could trim the heap (brk, munmap), which the policy
 * may deny; held here so a failed exec does not leak it either. */
static buf installed;

int sc_confine(const ir_policy *p, bool allow_partial)
{
	/* The caller (cmd_run) has run backend_check() and printed its
	 * warnings; building lowers only what classify() allows. */
	diag_ctx d;
	diag_init(&d);
	buf b;
	buf_init(&b);
	if (sc_build_bpf(p, allow_partial, &d, &b)) {
		diag_print(&d, stderr, false);
		diag_free(&d);
		buf_free(&b);
		return EXIT_POLICY;
	}
	diag_free(&d);
	struct sock_fprog prog = {
		.len = (unsigned short)(b.len / sizeof(struct sock_filter)),
		.filter = (struct sock_filter *)b.data,
	};
	/* no_new_privs: required for an unprivileged filter, and keeps a
	 * setuid exec from shedding it. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		fprintf(stderr, "polc run: installing the seccomp filter: %s\n",
			strerror(errno));
		buf_free(&b);
		return EXIT_SYSTEM;
	}
	installed = b;   /* nothing but the exec may run under the filter */
	return 0;
}
