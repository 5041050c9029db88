/* ebpf.c - the eBPF tracer (see tracer.h; kernel half: polc_trace.bpf.c).
 *
 * The workload runs in a fresh child cgroup (cgroup v2); the kernel program
 * counts and aggregates only that cgroup's subtree. Paths are captured at
 * syscall entry as passed, with the dirfd's or cwd's path rebuilt from
 * dentries in the kernel, and are canonicalised here at the end (directory
 * symlinks resolved, the last component followed for reads/execs only).
 */
#include "tracer.h"

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace_bpf.h"
#include "tracer/polc_trace.skel.h"

static const char *cgroup2_root(void)
{
	static char root[512];
	FILE *f = fopen("/proc/self/mounts", "r");
	char dev[256], dir[512], type[64];
	root[0] = 0;
	if (!f)
		return NULL;
	while (fscanf(f, "%255s %511s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			snprintf(root, sizeof root, "%s", dir);
			break;
		}
	fclose(f);
	return root[0] ? root : NULL;
}

bool ebpf_available(const char **why)
{
	if (geteuid() != 0)
		*why = "it needs root (CAP_BPF and CAP_PERFMON)";
	else if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		*why = "the kernel has no BTF (/sys/kernel/btf/vmlinux)";
	else if (!cgroup2_root())
		*why = "no cgroup v2 hierarchy is mounted";
	else
		return true;
	return false;
}

static bool cgroup_empty(const char *cg)
{
	char p[700], b[64];
	snprintf(p, sizeof p, "%s/cgroup.procs", cg);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	ssize_t n = read(fd, b, sizeof b);
	close(fd);
	return n <= 0;
}

/* ---- reading the maps into the trace ---- */

static void read_counts(struct polc_trace *sk, trace *t, uint64_t *total,
			unsigned *distinct)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v = xcalloc((size_t)ncpu, sizeof *v);
	*total = 0;
	*distinct = 0;
	for (uint32_t i = 0; i < TB_NCOUNT; i++) {
		if (bpf_map_lookup_elem(bpf_map__fd(sk->maps.counts), &i, v) < 0)
			continue;
		uint64_t sum = 0;
		for (int c = 0; c < ncpu; c++)
			sum += v[c];
		if (!sum)
			continue;
		*total += sum;
		(*distinct)++;
		if (t) {
			unsigned nr = i < 512 ? i : (0x40000000u | (i - 512));
			const char *an, *name = tracer_syscall_name(AUDIT_ARCH_X86_64, nr, &an);
			trace_syscall(t, an, name, sum);
		}
	}
	free(v);
}

static uint64_t read_lost(struct polc_trace *sk, trace *t)
{
	static const char *const why[TBL_N] = { "events_map_full", "inflight_map_full",
		"path_too_long", "path_too_deep", "read_fault", "syscall_out_of_range" };
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v = xcalloc((size_t)ncpu, sizeof *v), all = 0;
	for (uint32_t i = 0; i < TBL_N; i++) {
		if (bpf_map_lookup_elem(bpf_map__fd(sk->maps.lost), &i, v) < 0)
			continue;
		uint64_t sum = 0;
		for (int c = 0; c < ncpu; c++)
			sum += v[c];
		if (sum && t)
			trace_meta(t, "lost_reason", why[i], sum);
		all += sum;
	}
	free(v);
	return all;
}

static uint64_t read_procs(struct polc_trace *sk)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v = xcalloc((size_t)ncpu, sizeof *v), sum = 0;
	uint32_t zero = 0;
	if (bpf_map_lookup_elem(bpf_map__fd(sk->maps.procs), &zero, v) == 0)
		for (int c = 0; c < ncpu; c++)
			sum += v[c];
	free(v);
	return sum;
}

static char *key_fullpath(const struct tb_key *k, bool follow)
{
	char *full = k->base[0] ? xasprintf("%s/%.*s", k->base, TB_PATH, k->path)
				: xstrndup(k->path, TB_PATH);
	if (full[0] != '/') {
		free(full);
		return NULL;
	}
	char *c = tracer_canon(full, follow);
	free(full);
	return c;
}

static void key_file(trace *t, const struct tb_key *k, uint64_t n, int err)
{
	static const char *const perms[] = { "read", "write", "append", "exec", "mmap",
		"link", "lock", "stat" };
	bool follow = k->perm & TBP_FOLLOW;
	char *p = key_fullpath(k, follow);
	if (!p)
		return;
	for (int b = 0; b < 8; b++)
		if (k->perm & (1u << b))
			trace_add(t, TR_FILE, n, 3, p, perms[b], tr_result_name(err));
	free(p);
}

static void key_net(trace *t, const struct tb_key *k, uint64_t n, int err)
{
	static const char *const ops[] = { "?", "create", "bind", "connect", "listen",
		"accept", "send" };
	char addr[INET6_ADDRSTRLEN + 2] = "";
	const char *op = k->perm < 7 ? ops[k->perm] : "?";
	bool inet = k->family == AF_INET || k->family == AF_INET6;
	bool has_addr = k->perm != TBN_CREATE;
	if (inet && has_addr)
		inet_ntop(k->family, k->addr, addr, sizeof addr);
	const char *a = addr;
	char *upath = NULL;
	if (k->family == AF_UNIX && k->path[0]) {
		upath = k->path[0] == '/' ? tracer_canon(k->path, false) : xstrndup(k->path, TB_PATH);
		a = upath;
	}
	tracer_net_record(t, n, op, k->family, k->type, k->proto, *a ? a : NULL,
			  inet && has_addr ? k->port : -1, err);
	free(upath);
}

static void key_record(trace *t, const struct tb_key *k, uint64_t n)
{
	int err = k->result < 0 ? -k->result : 0;
	switch (k->kind) {
	case TB_FILE:
		key_file(t, k, n, err);
		break;
	case TB_EXEC: {
		char *p = key_fullpath(k, true);
		if (p)
			trace_add(t, TR_EXEC, n, 2, p, tr_result_name(err));
		free(p);
		break;
	}
	case TB_NET:
		key_net(t, k, n, err);
		break;
	case TB_CAP:
		if (tracer_implied_cap(k->perm))
			trace_add(t, TR_CAP, n, 2, tracer_implied_cap(k->perm),
				  tr_result_name(err));
		break;
	case TB_MOUNT: {
		static const char *const ops[] = { "?", "mount", "umount", "pivot_root" };
		char *p = key_fullpath(k, true);
		char *fs = xstrndup(k->fstype, sizeof k->fstype);
		trace_add(t, TR_MOUNT, n, 5, ops[k->perm & 3], "-", *fs ? fs : "-",
			  p ? p : "-", tr_result_name(err));
		trace_add(t, TR_CAP, n, 2, "sys_admin", tr_result_name(err));
		free(fs);
		free(p);
		break;
	}
	default:
		break;
	}
}

static void read_events(struct polc_trace *sk, trace *t)
{
	int fd = bpf_map__fd(sk->maps.events);
	struct tb_key *k = xcalloc(1, sizeof *k), *next = xcalloc(1, sizeof *next);
	bool first = true;
	while (bpf_map_get_next_key(fd, first ? NULL : k, next) == 0) {
		uint64_t n = 0;
		if (bpf_map_lookup_elem(fd, next, &n) == 0 && n)
			key_record(t, next, n);
		memcpy(k, next, sizeof *k);
		first = false;
	}
	free(k);
	free(next);
}

/* ---- the run ---- */

static void on_alarm(int sig) { (void)sig; }

typedef struct {
	struct polc_trace *sk;
	char cg[600];
	bool own_cg;           /* we created it (command mode) */
	int cgfd;
} ebpf_run;

static int setup_cgroup(ebpf_run *r, const record_opts *o, char **err)
{
	const char *root = cgroup2_root();
	if (o->cgroup) {
		if (o->cgroup[0] == '/' && strncmp(o->cgroup, root, strlen(root)) == 0)
			snprintf(r->cg, sizeof r->cg, "%s", o->cgroup);
		else
			snprintf(r->cg, sizeof r->cg, "%s/%s", root,
				 o->cgroup + (o->cgroup[0] == '/'));
	} else {
		snprintf(r->cg, sizeof r->cg, "%s/polc-record.%d", root, (int)getpid());
		if (mkdir(r->cg, 0755) < 0) {
			*err = xasprintf("mkdir %s: %s", r->cg, strerror(errno));
			return -1;
		}
		r->own_cg = true;
	}
	r->cgfd = open(r->cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->cgfd < 0) {
		*err = xasprintf("%s: %s", r->cg, strerror(errno));
		return -1;
	}
	return 0;
}

static int setup_bpf(ebpf_run *r, char **err)
{
	if (!getenv("POLC_BPF_DEBUG"))
		libbpf_set_print(NULL);
	r->sk = polc_trace__open();
	if (r->sk && getenv("POLC_TRACE_FLOOR"))
		r->sk->rodata->floor_only = 1;   /* polc bench's floor row: records nothing */
	if (r->sk && polc_trace__load(r->sk)) {
		polc_trace__destroy(r->sk);
		r->sk = NULL;
	}
	if (!r->sk) {
		*err = xasprintf("loading the eBPF tracer: %s", strerror(errno));
		return -1;
	}
	uint32_t zero = 0;
	if (bpf_map_update_elem(bpf_map__fd(r->sk->maps.cgrp), &zero, &r->cgfd, BPF_ANY) < 0 ||
	    polc_trace__attach(r->sk) < 0) {
		*err = xasprintf("attaching the eBPF tracer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void teardown(ebpf_run *r)
{
	if (r->sk)
		polc_trace__destroy(r->sk);
	if (r->cgfd > 0)
		close(r->cgfd);
	if (r->own_cg) {
		char p[700];
		snprintf(p, sizeof p, "%s/cgroup.kill", r->cg);
		for (int i = 0; i < 100 && rmdir(r->cg) < 0 && errno == EBUSY; i++) {
			write_control_file(p, "1");
			usleep(10000);
		}
	}
}

static pid_t spawn(ebpf_run *r, char *const *argv, int *syncw, char **err)
{
	int sp[2];
	if (pipe2(sp, O_CLOEXEC) < 0) {
		*err = xasprintf("pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char c, p[700];
		close(sp[1]);
		snprintf(p, sizeof p, "%s/cgroup.procs", r->cg);
		if (write_control_file(p, "0") < 0) {
			perror("polc record: joining the cgroup");
			_exit(127);
		}
		/* Exec only once the tracer is attached. */
		if (read(sp[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "polc record: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(sp[0]);
	*syncw = sp[1];
	return pid;
}

int record_ebpf(const record_opts *o, trace *out, char **err)
{
	ebpf_run r;
	memset(&r, 0, sizeof r);
	double start = tracer_now();
	int syncw = -1, root_status = 0;
	pid_t root = -1;
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	/* Before the (slow) load, so that a SIGINT during it still ends the
	 * run cleanly. */
	tracer_signals_install();
	if (setup_cgroup(&r, o, err) < 0) {
		tracer_signals_restore();
		teardown(&r);
		return -1;
	}
	if (o->argv && (root = spawn(&r, o->argv, &syncw, err)) < 0) {
		tracer_signals_restore();
		teardown(&r);
		return -1;
	}
	if (setup_bpf(&r, err) < 0) {
		if (root > 0) {
			kill(root, SIGKILL);
			waitpid(root, NULL, 0);
		}
		tracer_signals_restore();
		teardown(&r);
		return -1;
	}
	struct sigaction sa = { 0 };
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 200000 }, { 0, 200000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	status_line st;
	status_init(&st, o->status);
	if (syncw >= 0) {
		if (write(syncw, "g", 1) != 1) { /* child gone: recorded as its exit */ }
		close(syncw);
	}
	bool killed = false, root_done = false;
	/* --duration counts from here, the command released under the attached
	 * tracer: the programs' load before it took over a second at host
	 * load 12-14, and a deadline counted from the start then ended the run
	 * before the command's exec. */
	double deadline = o->duration > 0 ? tracer_now() + o->duration : 0;
	char killp[700];
	snprintf(killp, sizeof killp, "%s/cgroup.kill", r.cg);
	for (;;) {
		bool stop = tracer_stop_requested || (deadline && tracer_now() >= deadline);
		if (stop && !killed) {
			killed = true;
			if (!o->argv)
				break;          /* a service we only watch: leave it */
			write_control_file(killp, "1");
		}
		uint64_t total;
		unsigned distinct;
		if (st.on) {
			read_counts(r.sk, NULL, &total, &distinct);
			status_update(&st, (unsigned)read_procs(r.sk) + 1, distinct, total,
				      read_lost(r.sk, NULL));
		}
		if (!o->argv) {
			pause();
			continue;
		}
		int status;
		pid_t p = waitpid(-1, &status, 0);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			break;      /* ECHILD: every process of the tree is reaped */
		if (p == root) {
			root_status = status;
			root_done = true;
		}
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	status_done(&st);
	tracer_signals_restore();
	/* Let the last exits drain into the maps. */
	double drain_end = (deadline ? deadline : tracer_now()) + 5;
	while (o->argv && !cgroup_empty(r.cg) && tracer_now() < drain_end) {
		write_control_file(killp, "1");
		usleep(10000);
	}
	uint64_t total;
	unsigned distinct;
	read_counts(r.sk, out, &total, &distinct);
	read_events(r.sk, out);
	uint64_t lost = read_lost(r.sk, out);
	char *cmd = o->argv ? tracer_cmdline(o->argv) : xasprintf("cgroup %s", r.cg);
	tracer_meta_run(out, cmd, "ebpf", o->argv != NULL);
	if (!o->argv)
		trace_meta(out, "exit", "detached", 1);   /* the service runs on */
	else
		tracer_meta_exit(out, root_status, killed || !root_done);
	uint64_t ms = (uint64_t)((tracer_now() - start) * 1000);
	trace_meta(out, "duration_ms", NULL, ms ? ms : 1);
	/* Thread groups: the command and every process forked in the tree
	 * (the ptrace recorder counts the same). */
	uint64_t nproc = read_procs(r.sk) + (o->argv ? 1 : 0);
	if (nproc)
		trace_meta(out, "processes", NULL, nproc);
	if (lost)
		trace_meta(out, "lost", NULL, lost);
	free(cmd);
	teardown(&r);
	return 0;
}
