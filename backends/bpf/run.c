/* run.c - backend_bpf's hooks that put a policy in the kernel: polc
 * load / unload / status, confine for `polc run --target bpf`, and the
 * probes' confinement for `polc verify` (backend.h). Thin: the work is in
 * loader.c. */
#include "../backend.h"
#include "../../base/base.h"
#include "bundle.h"
#include "loader.h"
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *cmd, int code, const char *msg)
{
	fprintf(stderr, "polc %s: %s\n", cmd, msg);
	return code;
}

/* --cgroup PATH / --cgroup=PATH; returns the index of the next argument. */
static const char *opt_cgroup(int argc, char **argv, int *i)
{
	if (!strcmp(argv[*i], "--cgroup") && *i + 1 < argc)
		return argv[++*i];
	if (!strncmp(argv[*i], "--cgroup=", 9))
		return argv[*i] + 9;
	return NULL;
}

int bpf_load_cmd(int argc, char **argv)
{
	const char *file = NULL, *cg = NULL;
	for (int i = 1; i < argc; i++) {
		const char *c = opt_cgroup(argc, argv, &i);
		if (c)
			cg = c;
		else if (argv[i][0] != '-' && !file)
			file = argv[i];
		else
			return fail("load", EXIT_USAGE, "usage: polc load BUNDLE --cgroup PATH");
	}
	if (!file || !cg)
		return fail("load", EXIT_USAGE, "usage: polc load BUNDLE --cgroup PATH");
	buf raw;
	buf_init(&raw);
	if (buf_read_file(&raw, file) < 0) {
		fprintf(stderr, "polc load: cannot read '%s': %s\n", file, strerror(errno));
		buf_free(&raw);
		return EXIT_SYSTEM;
	}
	bpf_bundle b;
	const char *e = bpfb_parse(raw.data, raw.len, &b);
	buf_free(&raw);
	if (e) {
		fprintf(stderr, "polc load: %s: %s\n", file, e);
		return EXIT_POLICY;
	}
	char err[512] = "";
	int r = bpfl_load(&b, cg, err, sizeof err);
	bpfb_free(&b);
	if (r != EXIT_OK)
		return fail("load", r, err);
	fprintf(stderr, "polc: loaded %s on %s\n", file, cg);
	return EXIT_OK;
}

int bpf_unload_cmd(int argc, char **argv)
{
	const char *cg = NULL;
	for (int i = 1; i < argc; i++) {
		const char *c = opt_cgroup(argc, argv, &i);
		if (!c)
			return fail("unload", EXIT_USAGE, "usage: polc unload [--cgroup PATH]");
		cg = c;
	}
	char err[512] = "";
	int r = bpfl_unload(cg, err, sizeof err);
	if (r != EXIT_OK)
		return fail("unload", r, err);
	if (err[0])
		fprintf(stderr, "polc unload: %s\n", err);
	return EXIT_OK;
}

int bpf_status_cmd(int argc, char **argv)
{
	int follow = -1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--follow"))
			follow = 0;
		else if (!strncmp(argv[i], "--follow=", 9))
			follow = atoi(argv[i] + 9);
		else
			return fail("status", EXIT_USAGE, "usage: polc status [--follow[=SECONDS]]");
	}
	char err[512] = "";
	int r = bpfl_status(stdout, err, sizeof err);
	if (r == EXIT_OK && follow >= 0) {
		fflush(stdout);
		r = bpfl_follow(stdout, follow, err, sizeof err);
	}
	if (r != EXIT_OK)
		return fail("status", r, err);
	return EXIT_OK;
}

/* ------------------------------------------------------------ polc run */


static bool cgroup_populated(const char *dir)
{
	char p[800], line[128];
	snprintf(p, sizeof p, "%s/cgroup.events", dir);
	FILE *f = fopen(p, "r");
	bool pop = false;
	if (!f)
		return false;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "populated ", 10))
			pop = line[10] == '1';
	fclose(f);
	return pop;
}

/* The watcher: once the workload (pid) and everything it left in the
 * cgroup are gone, unload the policy and remove the cgroup. It runs
 * outside the cgroup, detached from the workload (double fork). */
static void watch_and_clean(pid_t pid, const char *dir)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd >= 0) {
		struct pollfd p = { .fd = pfd, .events = POLLIN };
		while (poll(&p, 1, -1) < 0 && errno == EINTR)
			;
	} else {
		while (kill(pid, 0) == 0)
			usleep(100000);
	}
	for (int i = 0; i < 600 && cgroup_populated(dir); i++)   /* up to a minute */
		usleep(100000);
	char err[256];
	bpfl_unload(dir, err, sizeof err);
	rmdir(dir);
}

static int spawn_watcher(pid_t pid, const char *dir)
{
	pid_t c = fork();
	if (c < 0)
		return -1;
	if (c == 0) {
		if (fork() == 0) {
			setsid();
			int nul = open("/dev/null", O_RDWR);
			if (nul >= 0) {
				dup2(nul, 0);
				dup2(nul, 1);
				dup2(nul, 2);
			}
			watch_and_clean(pid, dir);
		}
		_exit(0);
	}
	int st;
	waitpid(c, &st, 0);
	return 0;
}

int bpf_run_cgroup(int pid, char *dir, size_t n)
{
	char root[512];
	if (bpfl_cgroup_root(root, sizeof root) < 0)
		return -1;
	snprintf(dir, n, "%s/polc-run-%d", root, pid);
	return 0;
}

int bpf_confine(const ir_policy *p, bool allow_partial)
{
	/* cmd_run has applied backend_check already */
	diag_ctx d;
	diag_init(&d);
	buf hdr;
	buf_init(&hdr);
	backend_opts o = { .format = "bundle", .allow_partial = allow_partial,
			   .polc_version = POLC_VERSION };
	backend_header(&backend_bpf, p, &o, "# ", &hdr);
	bpf_bundle b;
	int r = bpfb_lower(p, buf_cstr(&hdr), &b, NULL, &d);
	buf_free(&hdr);
	if (r < 0) {
		diag_print(&d, stderr, false);
		diag_free(&d);
		return EXIT_POLICY;
	}
	diag_free(&d);
	char dir[700], err[512] = "";
	if (bpf_run_cgroup(getpid(), dir, sizeof dir) < 0) {
		bpfb_free(&b);
		return fail("run", EXIT_SYSTEM, "no cgroup v2 hierarchy is mounted");
	}
	if (mkdir(dir, 0755) < 0) {
		fprintf(stderr, "polc run: cannot create cgroup %s: %s\n", dir, strerror(errno));
		bpfb_free(&b);
		return EXIT_SYSTEM;
	}
	r = bpfl_load(&b, dir, err, sizeof err);
	bpfb_free(&b);
	if (r != EXIT_OK) {
		rmdir(dir);
		return fail("run", r, err);
	}
	char procs[760];
	snprintf(procs, sizeof procs, "%s/cgroup.procs", dir);
	int fd = open(procs, O_WRONLY);
	if (spawn_watcher(getpid(), dir) < 0 || fd < 0 || write(fd, "0\n", 2) != 2) {
		fprintf(stderr, "polc run: cannot enter cgroup %s: %s\n", dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		bpfl_unload(dir, err, sizeof err);
		rmdir(dir);
		return EXIT_SYSTEM;
	}
	close(fd);
	return EXIT_OK;
}

/* Is the BPF LSM active, with a cgroup v2 hierarchy to scope it? */
bool bpf_available(char *why, size_t n)
{
	char lsm[256], root[512];
	/* without securityfs the list is unknown: loading will tell */
	if (bpfl_lsm_active(lsm, sizeof lsm) == 0) {
		snprintf(why, n, "the BPF LSM is not active (active LSMs: %s)", lsm);
		return false;
	}
	if (bpfl_cgroup_root(root, sizeof root) < 0) {
		snprintf(why, n, "no cgroup v2 hierarchy is mounted");
		return false;
	}
	return true;
}

/* ---- polc verify: the probes' confinement (backend.h) ---- */

/* The first call makes the probes' cgroup; each loads p's bundle on it,
 * replacing the last one. */
int bpf_probe_load(const ir_policy *p, backend_confine *c, char *err, size_t n)
{
	if (!c->where[0]) {
		char root[512];
		if (bpfl_cgroup_root(root, sizeof root) < 0) {
			snprintf(err, n, "no cgroup v2 hierarchy is mounted");
			return -1;
		}
		snprintf(c->where, sizeof c->where, "%s/polc-verify-%d", root, (int)getpid());
		if (mkdir(c->where, 0755) < 0 && errno != EEXIST) {
			snprintf(err, n, "cannot create a cgroup for the probes: %s", strerror(errno));
			c->where[0] = 0;
			return -1;
		}
	}
	diag_ctx d;
	diag_init(&d);
	buf hdr;
	buf_init(&hdr);
	backend_opts o = { "bundle", false, NULL, POLC_VERSION };
	backend_header(&backend_bpf, p, &o, "# ", &hdr);
	bpf_bundle bb;
	int rc = -1;
	if (bpfb_lower(p, buf_cstr(&hdr), &bb, NULL, &d) < 0) {
		diag_print(&d, stderr, false);
		snprintf(err, n, "the bpf backend failed to build the bundle");
	} else {
		rc = bpfl_load(&bb, c->where, err, n) == EXIT_OK ? 0 : -1;
		bpfb_free(&bb);
	}
	buf_free(&hdr);
	diag_free(&d);
	return rc;
}

void bpf_probe_unload(backend_confine *c)
{
	if (!c->where[0])
		return;
	char err[256];
	bpfl_unload(c->where, err, sizeof err);
	rmdir(c->where);
	c->where[0] = 0;
}

int bpf_probe_open(const backend_confine *c, char *why, size_t n)
{
	char p[800];
	snprintf(p, sizeof p, "%s/cgroup.procs", c->where);
	int fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		snprintf(why, n, "open cgroup.procs: %s", strerror(errno));
	return fd;
}

int bpf_probe_enter(const backend_confine *c, int fd, char *why, size_t n)
{
	(void)c;
	if (write(fd, "0\n", 2) != 2) {
		snprintf(why, n, "cannot enter the confinement: %s", strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}
