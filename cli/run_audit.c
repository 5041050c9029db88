/* run_audit.c - `polc run --mode audit` (see commands.h): the command runs
 * with the policy in complain mode; what the policy would have refused is
 * written as a polc trace (docs/trace-format.md) for `polc gen --update`.
 * seccomp: the policy's filter with its refusals turned into user
 * notifications, polc the supervisor (backends/seccomp/audit.c,
 * tracer/notify.c). */
#include "commands.h"
#include "cli.h"
#include "../backends/seccomp/seccomp.h"
#include "../tracer/tracer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

int run_audit(const struct ir_policy *p, const char *target, int allow_partial,
	      const char *prog, char *const *argv, const char *log)
{
	if (strcmp(target, "seccomp")) {
		fprintf(stderr, "polc run: --mode audit is implemented for --target seccomp only "
			"(AppArmor complain mode and the BPF enforcer's log are not yet)\n");
		return EXIT_USAGE;
	}
	diag_ctx d;
	diag_init(&d);
	buf f;
	buf_init(&f);
	if (sc_build_audit_bpf(p, allow_partial, &d, &f)) {
		diag_print(&d, stderr, false);
		diag_free(&d);
		buf_free(&f);
		return EXIT_POLICY;
	}
	diag_free(&d);
	trace t;
	trace_init(&t);
	char *err = NULL;
	int st = 0;
	int r = record_notify(f.data, f.len / 8, prog, argv, &t, &st, &err);
	buf_free(&f);
	if (r < 0) {
		fprintf(stderr, "polc run: %s\n", err);
		free(err);
		trace_free(&t);
		return EXIT_SYSTEM;
	}
	uint64_t calls = trace_total(&t, TR_SYSCALL, NULL);
	buf out;
	buf_init(&out);
	trace_write(&t, &out);
	if (write_file_atomic(log, out.data, out.len) < 0) {
		fprintf(stderr, "polc run: cannot write %s\n", log);
		r = EXIT_SYSTEM;
	} else {
		fprintf(stderr, "polc run: audit: %llu call(s) the policy %s would have refused; "
			"written to %s (polc gen --update PROFILE %s)\n",
			(unsigned long long)calls, p->name, log, log);
		r = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	buf_free(&out);
	trace_free(&t);
	return r;
}
