/* profile_from.c - see profile_from.h. */
#include "profile_from.h"
#include "../backends/seccomp/seccomp.h"
#include "../tracer/sysmix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int build_profiled(const ir_policy *p, const backend *b, const backend_opts *o,
		   buf *out, diag_ctx *d)
{
	if (strcmp(b->name, "seccomp") || (o->format && strcmp(o->format, "bpf"))) {
		diag_error(d, src_loc_none(), "--profile-from lays out raw seccomp BPF "
			   "(--target seccomp --format bpf); %s %s is laid out by %s",
			   b->name, o->format ? o->format : "",
			   strcmp(b->name, "seccomp") ? "its own backend" : "libseccomp or runc");
		return -1;
	}
	sys_freq *mix;
	size_t n;
	char *err = NULL;
	int r = trace_sysmix_read(o->profile_trace, &mix, &n, &err);
	if (r < 0) {
		if (r == TRACE_EIO)
			d->nio++;   /* unreadable: exit 3 (lower() in cmd_build.c) */
		diag_error(d, src_loc_none(), "--profile-from: %s", err);
		free(err);
		return -1;
	}
	sc_layout_info info;
	int rc = sc_build_bpf_profiled(p, o->allow_partial, mix, n, d, out, &info);
	if (!rc)
		fprintf(stderr, "polc: --profile-from %s: laid out for its mix of %zu syscalls "
			"(%zu tested first); %.2f -> %.2f instructions per syscall on its mix\n",
			o->profile_trace, info.eligible, info.hot, info.mean_before, info.mean_after);
	free(mix);
	return rc;
}
