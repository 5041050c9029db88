/* profile_from.c - see profile_from.h. */
#include "profile_from.h"
#include "../tracer/sysmix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int build_profiled(const ir_policy *p, const backend *b, const backend_opts *o,
		   buf *out, diag_ctx *d)
{
	if (!b->emit_profiled || (o->format && strcmp(o->format, b->profile_format))) {
		buf which;
		buf_init(&which);
		for (size_t i = 0; backends_all[i]; i++)
			if (backends_all[i]->emit_profiled)
				buf_printf(&which, "%s--target %s --format %s", which.len ? ", " : "",
					   backends_all[i]->name, backends_all[i]->profile_format);
		diag_error(d, src_loc_none(), "--profile-from lays out a filter for a recorded "
			   "syscall mix: %s; not --target %s --format %s", buf_cstr(&which),
			   b->name, o->format ? o->format : b->formats[0]);
		buf_free(&which);
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
	int rc = b->emit_profiled(p, o, mix, n, out, d);
	free(mix);
	return rc;
}
