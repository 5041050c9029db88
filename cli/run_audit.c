/* run_audit.c - `polc run --mode audit` (see commands.h): the command runs
 * with the policy in complain mode; what the policy would have refused is
 * written as a polc trace (docs/trace-format.md) for `polc gen --update`.
 * How is the target's (struct backend's audit): AUDIT_NOTIFY, its filter
 * with the refusals turned into user notifications, polc the supervisor
 * (tracer/notify.c); AUDIT_COMPLAIN_LOG, its confinement in complain mode
 * and the kernel log's records (tracer/aalog.c); AUDIT_CGROUP_EVENTS, its
 * confinement in audit mode on the command's cgroup, the BPF enforcer's
 * ring-buffer records of that cgroup read while the command runs. */
#include "commands.h"
#include "cli.h"
#include "../backends/backend.h"
#include "../tracer/tracer.h"
#include "../backends/bpf/bpf_layout.h"
#include "../backends/bpf/loader.h"
#include "../backends/bpf/run.h"
#include "../compiler/consts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The meta records of an audit log: the run, its exit and duration. */
static void log_meta(trace *t, char *const *argv, const char *tracer, int st, double start)
{
	char *cmd = tracer_cmdline(argv);
	tracer_meta_run(t, cmd, tracer, true);
	tracer_meta_exit(t, st, false);
	uint64_t ms = (uint64_t)((tracer_now() - start) * 1000);
	trace_meta(t, "duration_ms", NULL, ms ? ms : 1);
	free(cmd);
}

/* The confinement in complain mode (the policy with `mode audit`), its
 * ALLOWED records collected from the kernel log after the run. */
static int audit_complain(const backend *b, const struct ir_policy *p, bool allow_partial,
			  const char *prog, char *const *argv, trace *t, int *st)
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
		    b->confine(&complain, allow_partial) != EXIT_OK)
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
	log_meta(t, argv, "apparmor-complain", *st, start);
	return EXIT_OK;
}

/* What one enforcer record asked for, as trace records; false if the
 * record cannot be learnt from (a mount, or a path the enforcer could not
 * name). The enforcer's channels are the IR_PERM_* bits in order. */
struct bpf_audit { trace *t; unsigned long long cgid, seen, unlearnt; };

static int bpf_event(void *ctx, const struct polc_event *e)
{
	static const char *const perm[] = { "read", "write", "append", "exec", "mmap",
					    "link", "lock" };
	static const char *const op[] = { "any", "connect", "bind", "listen", "accept",
					  "send", "create" };
	struct bpf_audit *a = ctx;
	if (e->cgroup != a->cgid)
		return 0;
	a->seen++;
	char path[sizeof e->detail + 1];
	snprintf(path, sizeof path, "%.*s", (int)sizeof e->detail, e->detail);
	bool named = path[0] == '/' && strlen(path) < sizeof e->detail - 1;
	bool learnt = false;
	if (e->domain == POLC_D_FILE && named) {
		for (unsigned c = 0; c < sizeof perm / sizeof *perm; c++)
			if (e->what & 1u << c)
				trace_file(a->t, path, perm[c], 0);
		learnt = true;
	} else if (e->domain == POLC_D_EXEC && named) {
		trace_exec(a->t, path, 0);
		learnt = true;
	} else if (e->domain == POLC_D_CAP && cap_name((int)e->what)) {
		trace_add(a->t, TR_CAP, 1, 2, cap_name((int)e->what), "ok");
		learnt = true;
	} else if (e->domain == POLC_D_NET && (e->what & 7) < sizeof op / sizeof *op) {
		int port = e->arg & POLC_EV_PORT ? (int)(e->arg & 0xffff) : -1;
		tracer_net_record(a->t, 1, op[e->what & 7], (int)(e->what >> 7 & 63),
				  (int)(e->what >> 3 & 15), 0, NULL, port, 0);
		learnt = true;
	}
	a->unlearnt += !learnt;
	return 0;
}

/* BPF LSM: the child loads the policy in audit mode on its cgroup (as
 * `polc run --target bpf` does), then waits until the parent reads the
 * enforcer's ring buffer, then execs. The parent drains the records of
 * that cgroup until the command has ended. */
static int audit_events(const backend *b, const struct ir_policy *p, bool allow_partial,
			const char *prog, char *const *argv, trace *t, int *st)
{
	ir_policy complain = *p;
	complain.mode = IR_MODE_AUDIT;
	int up[2], go[2];
	if (pipe2(up, O_CLOEXEC) || pipe2(go, O_CLOEXEC))
		return EXIT_SYSTEM;
	double start = tracer_now();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		extern char **environ;
		char r = (char)EXIT_SYSTEM, ok;
		if (!prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			r = (char)b->confine(&complain, allow_partial);
		if (write(up[1], &r, 1) != 1 || r != EXIT_OK || read(go[0], &ok, 1) != 1)
			_exit(EXIT_SYSTEM);
		execve(prog, argv, environ);
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(up[1]);
	close(go[0]);
	char r = (char)EXIT_SYSTEM, dir[700], err[512] = "";
	struct bpf_audit a = { .t = t };
	bpfl_events *ev = NULL;
	if (pid > 0 && read(up[0], &r, 1) == 1 && r == EXIT_OK &&
	    bpf_run_cgroup(pid, dir, sizeof dir) == 0 &&
	    (a.cgid = bpfl_cgroup_id(dir, err, sizeof err)) != 0)
		ev = bpfl_events_open(bpf_event, &a, err, sizeof err);
	unsigned long long lost0 = ev ? bpfl_events_dropped(ev) : 0;
	if (ev && write(go[1], "g", 1) == 1) {
		int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
		struct pollfd pf = { .fd = pfd, .events = POLLIN };
		while (bpfl_events_poll(ev, 50) == 0 && (pfd < 0 ? waitpid(pid, NULL, WNOHANG |
			WNOWAIT) == 0 : poll(&pf, 1, 0) == 0))
			;
		if (pfd >= 0)
			close(pfd);
	}
	close(up[0]);
	close(go[1]);
	if (pid < 0 || waitpid(pid, st, 0) != pid) {
		bpfl_events_close(ev);
		return EXIT_SYSTEM;
	}
	if (!ev) {
		bpfl_events_close(ev);
		if (err[0])
			fprintf(stderr, "polc run: %s\n", err);
		return r == EXIT_OK ? EXIT_SYSTEM : r;
	}
	bpfl_events_poll(ev, 200);   /* the records of the last moments */
	unsigned long long lost = bpfl_events_dropped(ev) - lost0;
	bpfl_events_close(ev);
	if (lost) {
		/* the counter is the enforcer's, for every cgroup: an upper bound */
		trace_meta(t, "lost", NULL, lost);
		trace_meta(t, "lost_reason", "bpf_ringbuf_full", lost);
	}
	if (a.unlearnt)
		fprintf(stderr, "polc run: audit: %llu of %llu refusal(s) cannot be learnt from "
			"(mount operations, or paths the enforcer could not name)\n",
			a.unlearnt, a.seen);
	log_meta(t, argv, "bpf-audit", *st, start);
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

int run_audit(const struct ir_policy *p, const backend *b, bool allow_partial,
	      const char *prog, char *const *argv, const char *log)
{
	if (b->audit == AUDIT_COMPLAIN_LOG || b->audit == AUDIT_CGROUP_EVENTS) {
		trace t;
		trace_init(&t);
		int st = 0, r = (b->audit == AUDIT_CGROUP_EVENTS ? audit_events : audit_complain)(
			b, p, allow_partial, prog, argv, &t, &st);
		if (r == EXIT_OK)
			r = write_log(&t, p, log, st);
		trace_free(&t);
		return r;
	}
	if (b->audit != AUDIT_NOTIFY) {
		buf which;
		buf_init(&which);
		for (size_t i = 0; backends_all[i]; i++)
			if (backends_all[i]->audit != AUDIT_NONE)
				buf_printf(&which, "%s%s", which.len ? ", " : "", backends_all[i]->name);
		fprintf(stderr, "polc run: --mode audit is implemented for --target %s, not %s\n",
			buf_cstr(&which), b->name);
		buf_free(&which);
		return EXIT_USAGE;
	}
	diag_ctx d;
	diag_init(&d);
	buf f;
	buf_init(&f);
	if (b->audit_filter(p, allow_partial, &d, &f)) {
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
