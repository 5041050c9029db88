/* audit.c - the seccomp filter of `polc run --mode audit` (see seccomp.h):
 * the policy's own filter with every decision other than allow and log
 * turned into SECCOMP_RET_USER_NOTIF, so that a supervisor hears of each
 * call the policy would have refused and lets it run. */
#include "seccomp.h"

#include <linux/filter.h>
#include <linux/seccomp.h>

int sc_build_audit_bpf(const ir_policy *p, bool allow_partial, diag_ctx *d, buf *out)
{
	size_t start = out->len;
	if (sc_build_bpf(p, allow_partial, d, out))
		return -1;
	/* Rewriting the returns keeps every test and jump of the enforcing
	 * filter: the calls notified are exactly the ones it refuses. */
	struct sock_filter *f = (struct sock_filter *)(out->data + start);
	size_t n = (out->len - start) / sizeof *f;
	for (size_t i = 0; i < n; i++) {
		if (f[i].code != (BPF_RET | BPF_K))
			continue;
		unsigned act = f[i].k & SECCOMP_RET_ACTION_FULL;
		if (act != SECCOMP_RET_ALLOW && act != SECCOMP_RET_LOG)
			f[i].k = SECCOMP_RET_USER_NOTIF;
	}
	return 0;
}
