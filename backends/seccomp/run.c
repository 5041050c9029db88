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

/* The filters in force. Never freed: the exec that follows replaces the
 * image, and a free() could trim the heap (brk, munmap), which the policy
 * may deny; held here so a failed exec does not leak them either. */
static sc_filters installed;

int sc_install(const sc_filters *f)
{
	for (size_t i = 0; i < f->n; i++) {
		struct sock_fprog prog = {
			.len = (unsigned short)(f->v[i].len / sizeof(struct sock_filter)),
			.filter = (struct sock_filter *)f->v[i].data,
		};
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
			return -1;
	}
	return 0;
}

/* Build (split when allowed) and install, in order. */
static int confine(const ir_policy *p, bool allow_partial, bool allow_split)
{
	/* The caller (cmd_run) has run backend_check() and printed its
	 * warnings; building lowers only what classify() allows. */
	diag_ctx d;
	diag_init(&d);
	sc_filters f = { 0 };
	int rc;
	if (allow_split) {
		rc = sc_build_bpf_split(p, allow_partial, &d, &f);
	} else {
		f.v = xcalloc(1, sizeof *f.v);
		f.n = 1;
		buf_init(&f.v[0]);
		rc = sc_build_bpf(p, allow_partial, &d, &f.v[0]);
	}
	if (rc) {
		diag_print(&d, stderr, false);
		diag_free(&d);
		sc_filters_free(&f);
		return EXIT_POLICY;
	}
	diag_free(&d);
	/* no_new_privs: required for an unprivileged filter, and keeps a
	 * setuid exec from shedding it. A failure part-way leaves the earlier
	 * filters in force: the caller never execs then. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || sc_install(&f)) {
		fprintf(stderr, "polc run: installing the seccomp filter%s: %s\n",
			f.n > 1 ? "s" : "", strerror(errno));
		sc_filters_free(&f);
		return EXIT_SYSTEM;
	}
	installed = f;   /* nothing but the exec may run under the filters */
	return 0;
}

int sc_confine(const ir_policy *p, bool allow_partial)
{
	return confine(p, allow_partial, false);
}

int sc_confine_split(const ir_policy *p, bool allow_partial)
{
	return confine(p, allow_partial, true);
}
