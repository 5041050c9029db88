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

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* AppArmor: the profile in complain mode (the policy with `mode audit`),
 * its ALLOWED records collected from the kernel log after the run. */
static int audit_apparmor(const struct ir_policy *p, int allow_partial, const char *prog,
			  char *const *argv, trace *t, int *st)
{
	int kfd = aalog_open();
	if (kfd < 0) {
		fprintf(stderr, "polc run: /dev/kmsg: %s (the kernel log carries AppArmor's "
			"complain-mode records)\n", strerror(errno));
		return EXIT_SYSTEM;
	}
	ir_policy complain = *p;
	complain.mode = IR_MODE_AUDIT;
	double start = tracer_now();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		extern char **environ;
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    run_confine_apparmor(&complain, allow_partial) != EXIT_OK)
			_exit(EXIT_SYSTEM);
		execve(prog, argv, environ);
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (pid < 0 || waitpid(pid, st, 0) != pid) {
		close(kfd);
		return EXIT_SYSTEM;
	}
	usleep(200000);   /* the last records reach the log */
	aalog_collect(kfd, p->name, t);
	close(kfd);
	char *cmd = tracer_cmdline(argv);
	trace_meta(t, "runs", NULL, 1);
	trace_meta(t, "command", cmd, 1);
	trace_meta(t, "tracer", "apparmor-complain", 1);
	tracer_meta_exit(t, *st, false);
	uint64_t ms = (uint64_t)((tracer_now() - start) * 1000);
	trace_meta(t, "duration_ms", NULL, ms ? ms : 1);
	free(cmd);
	return EXIT_OK;
}

/* Write the log; the command's exit status, or EXIT_SYSTEM. */
static int write_log(const trace *t, const struct ir_policy *p, const char *log, int st)
{
	uint64_t n = 0;
	for (int k = TR_SYSCALL; k < TR_NKIND; k++)
		n += trace_total(t, (tr_kind)k, NULL);
	buf out;
	buf_init(&out);
	trace_write(t, &out);
	int r;
	if (write_file_atomic(log, out.data, out.len) < 0) {
		fprintf(stderr, "polc run: cannot write %s: %s\n", log, strerror(errno));
		r = EXIT_SYSTEM;
	} else {
		fprintf(stderr, "polc run: audit: %llu event(s) the policy %s would have refused; "
			"written to %s (polc gen --update PROFILE %s)\n",
			(unsigned long long)n, p->name, log, log);
		r = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	buf_free(&out);
	return r;
}

int run_audit(const struct ir_policy *p, const char *target, int allow_partial,
	      const char *prog, char *const *argv, const char *log)
{
	if (!strcmp(target, "apparmor")) {
		trace t;
		trace_init(&t);
		int st = 0, r = audit_apparmor(p, allow_partial, prog, argv, &t, &st);
		if (r == EXIT_OK)
			r = write_log(&t, p, log, st);
		trace_free(&t);
		return r;
	}
	if (strcmp(target, "seccomp")) {
		fprintf(stderr, "polc run: --mode audit is implemented for --target seccomp and "
			"apparmor (the BPF enforcer's log is not yet)\n");
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
	r = write_log(&t, p, log, st);
	trace_free(&t);
	return r;
}
