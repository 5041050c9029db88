/* run.c - the timed workloads of polc bench: micro benchmarks, redis,
 * pgbench under each scenario x backend; redis under each recorder; the
 * recorder's endurance; and the lab (qemu) run of our own lab half.
 *
 * Every measurement is one child process (the micro program, or a script
 * under bench/ that starts a server on a loopback port, drives it and
 * stops it on every exit path) whose stdout is "key value" lines. Rounds
 * are interleaved: round i runs every configuration once, starting at a
 * different one each round, so a slow minute on the shared machine hits
 * all of them alike; ratios are then taken within a round (results.c).
 * A configuration that fails once is reported and left out from then on.
 */
#include "bench.h"
#include "../base/diag.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- parameters per mode and environment ---- */

typedef struct {
	int reps;
	double micro_secs;
	int redis_n;
	int pg_secs;
	int tracer_n;
} params;

static params params_for(const bench_opts *o)
{
	/* The lab runs under TCG: every syscall costs tens of times more, so
	 * fewer requests give a run of similar length. Its clock is qemu's
	 * instruction counter (bench_lab: VM_ICOUNT), so a round is not moved by
	 * the host's load and three rounds show whether a cell repeats.
	 * redis-benchmark times a run in whole milliseconds: 2,000 requests
	 * (~100 ms in the lab) gave req/s in steps of 1 %; 10,000 in 0.2 %. */
	static const params native[] = {
		[MODE_FULL] = { 7, 0.3, 100000, 10, 100000 },
		[MODE_QUICK] = { 5, 0.1, 30000, 3, 30000 },
		[MODE_SMOKE] = { 1, 0.01, 1000, 1, 1000 },
	};
	static const params lab[] = {
		[MODE_FULL] = { 3, 0.2, 20000, 5, 10000 },
		[MODE_QUICK] = { 3, 0.1, 10000, 2, 3000 },
		[MODE_SMOKE] = { 1, 0.01, 500, 1, 500 },
	};
	params p = o->in_lab ? lab[o->mode] : native[o->mode];
	if (o->reps > 0)
		p.reps = o->reps;
	return p;
}

/* ---- child processes ---- */

typedef struct { const char **v; size_t n, cap; } argv_t;

static void av_push(argv_t *a, const char *s)
{
	xgrow(&a->v, &a->cap, a->n + 2, sizeof *a->v);
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static void av_cat(argv_t *a, const argv_t *b)
{
	for (size_t i = 0; i < b->n; i++)
		av_push(a, b->v[i]);
}

static void av_free(argv_t *a)
{
	free(a->v);
	memset(a, 0, sizeof *a);
}

static volatile sig_atomic_t interrupted;
static off_t log_mark;      /* the log's size when the last child started */
static const char *child_cwd;  /* where children start (NULL: ours) */
static const char *child_cg;   /* the cgroup the next child starts in (NULL: ours) */

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* SIGINT and SIGTERM end a run at its next step rather than at once: the
 * child running (a server, the lab's runner and its qemu) is stopped by
 * run_capture, and what was measured is still written. Killed outright,
 * polc left the lab's qemu running until its own timeout. */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void release_signals(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

/* ---- cgroup placement: the same for every configuration ---- */

/* A container always runs in a cgroup of its own, and `polc run --target
 * bpf` makes one for its workload (CGROUP2/polc-run-PID) while the other
 * backends confine a process where it is. Outside the root cgroup the
 * kernel charges kernel memory to the cgroup (memcg), which measured
 * (bench/raw/cgroup-micro-icount.txt, no enforcer) openat +4.6 %, fork
 * +9-12 %, pipe +22 %: the BPF LSM's ratios carried that and the others'
 * did not. So every configuration's workload, NoProtect's included, starts
 * in a fresh cgroup one level below the root (polc-bench-PID-N), the
 * depth polc run --target bpf moves its workload to: the micro tests,
 * redis (client and server, each in a cgroup of its own: redis_once) and
 * pgbench (a lab redis run without it: BPF AlwaysAllow 3 % slower than
 * NoProtect, AppArmor 0 %); the configuration
 * "RootCgroup" (NoProtect in the bench's own cgroup, micro only) shows
 * what the cgroup alone costs. NULL: no cgroup v2 or no right to make one
 * (the report says so; every configuration then runs where polc bench
 * does). */
static char *cg_base;             /* CGROUP2/polc-bench-PID */
static unsigned cg_seq;
static char *cg_left[64];         /* not removable yet (polc run's watcher) */
static size_t cg_nleft;

static int cgroup_enter(const char *dir)
{
	char *procs = xasprintf("%s/cgroup.procs", dir);
	int rc = write_control_file(procs, "0\n");
	free(procs);
	return rc;
}

static void cg_setup(const bench_opts *o, bresults *r)
{
	char root[512], *probe;
	if (cgroup2_mount(root, sizeof root) < 0) {
		br_note(r, NATIVE_ENV(o), "cgroup", "no cgroup v2 mounted: every configuration runs "
			"in polc bench's own cgroup");
		return;
	}
	cg_base = xasprintf("%s/polc-bench-%d", root, (int)getpid());
	probe = xasprintf("%s-0", cg_base);
	if (mkdir(probe, 0755) < 0) {
		br_note(r, NATIVE_ENV(o), "cgroup", "cannot make a cgroup (%s): every configuration "
			"runs in polc bench's own cgroup", strerror(errno));
		free(cg_base);
		cg_base = NULL;
	} else {
		rmdir(probe);
		br_note(r, NATIVE_ENV(o), "cgroup", "Every configuration's workload (NoProtect's "
			"included) runs in a fresh cgroup one level below the root, as polc run "
			"--target bpf's does");
	}
	free(probe);
}

/* In the lab the guest's address-space randomisation is off while the
 * workloads run (kernel.randomize_va_space 0; restored after). What a
 * fork, an exec or a spawn costs depends on where exec put the process's
 * mappings (a mapping across a 2 MiB boundary is one more page-table page
 * to copy), so under ASLR one round could read fork 2 % off its cell's
 * median with no enforcer's doing. With it off every round has the same
 * layout: in the icount lab, ten runs of fork, execl and spawn spread
 * 0.5 %, 0.2 %, 0.1 % against 1.4 %, 0.3 %, 1.1 % with it on
 * (bench/raw/aslr-icount.txt). The host is shared: natively it stays. */
static char aslr_saved[16];

static void aslr_off(const bench_opts *o, bresults *r)
{
	const char *path = "/proc/sys/kernel/randomize_va_space";
	if (!o->in_lab)
		return;
	FILE *f = fopen(path, "r");
	int ok = f && fgets(aslr_saved, sizeof aslr_saved, f);
	if (f)
		fclose(f);
	f = ok ? fopen(path, "w") : NULL;
	ok = f && fputs("0\n", f) >= 0;
	if (f && fclose(f))
		ok = 0;
	if (!ok)
		aslr_saved[0] = 0;
	br_note(r, "lab", "layout", ok ? "the guest's address-space randomisation is off while "
		"the workloads run (kernel.randomize_va_space 0): every process of a test has "
		"the same layout in every round" : "the guest's address-space randomisation could "
		"not be turned off: layouts vary from round to round");
}

static void aslr_restore(void)
{
	if (!aslr_saved[0])
		return;
	FILE *f = fopen("/proc/sys/kernel/randomize_va_space", "w");
	if (f) {
		fputs(aslr_saved, f);
		fclose(f);
	}
	aslr_saved[0] = 0;
}

/* A fresh cgroup for the next child (NULL when placement is off). */
static char *cg_new(void)
{
	if (!cg_base)
		return NULL;
	char *dir = xasprintf("%s-%u", cg_base, ++cg_seq);
	if (mkdir(dir, 0755) < 0) {
		free(dir);
		return NULL;
	}
	return dir;
}

static void cg_done(char *dir)
{
	if (!dir)
		return;
	if (rmdir(dir) < 0 && cg_nleft < sizeof cg_left / sizeof *cg_left) {
		cg_left[cg_nleft++] = dir;
		return;
	}
	free(dir);
}

/* The cgroups a late-exiting process kept busy: removed once empty (a
 * watcher of polc run exits within seconds of its workload). */
static void cg_cleanup(void)
{
	for (int tries = 0; cg_nleft && tries < 50; tries++) {
		size_t k = 0;
		for (size_t i = 0; i < cg_nleft; i++)
			if (rmdir(cg_left[i]) < 0 && errno == EBUSY)
				cg_left[k++] = cg_left[i];
			else
				free(cg_left[i]);
		cg_nleft = k;
		if (k)
			usleep(200000);
	}
	for (size_t i = 0; i < cg_nleft; i++)
		free(cg_left[i]);
	cg_nleft = 0;
	free(cg_base);
	cg_base = NULL;
}

/* Run argv with stdout into out and stderr into the log; SIGTERM after
 * timeout seconds (the scripts stop their servers on it). Returns the
 * exit status, 128+signal, or -1 when it could not start. */
static int run_capture(const bench_opts *o, const argv_t *a, buf *out, double timeout)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	char *log = xasprintf("%s/bench.log", o->workdir);
	struct stat st;
	log_mark = stat(log, &st) ? 0 : st.st_size;
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		dup2(p[1], 1);
		if (fd >= 0)
			dup2(fd, 2);
		if (child_cwd && chdir(child_cwd) < 0)
			_exit(126);
		if (child_cg && cgroup_enter(child_cg) < 0) {
			fprintf(stderr, "polc bench: cannot enter cgroup %s: %s\n", child_cg,
				strerror(errno));
			_exit(126);
		}
		execvp(a->v[0], (char *const *)a->v);
		fprintf(stderr, "polc bench: cannot run %s: %s\n", a->v[0], strerror(errno));
		_exit(127);
	}
	free(log);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	/* In the lab under icount an idle guest's clock jumps to its next timer
	 * while it waits for the host (9p reads: apparmor_parser, exec from
	 * the host root), so at host load ~12 a 120 s guest timeout ran out
	 * for `polc run --target apparmor true` in one of two identical runs
	 * (AppArmor then left out of that run). A hung child is still stopped. */
	if (o->in_lab)
		timeout *= 10;
	double end = bench_now() + timeout;
	bool termed = false;
	for (;;) {
		struct pollfd pf = { p[0], POLLIN, 0 };
		int left = (int)((end - bench_now()) * 1000);
		int rc = poll(&pf, 1, left > 0 ? (left < 500 ? left : 500) : 0);
		if ((interrupted || bench_now() > end) && !termed) {
			kill(pid, SIGTERM);
			termed = true;
			end = bench_now() + 10;
		} else if (termed && bench_now() > end) {
			kill(pid, SIGKILL);
		}
		if (rc > 0) {
			char tmp[4096];
			ssize_t n = read(p[0], tmp, sizeof tmp);
			if (n > 0)
				buf_put(out, tmp, (size_t)n);
			else if (n == 0 || errno != EINTR)
				break;
		}
	}
	close(p[0]);
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/* The value of "key value" in out, or NAN. */
static double kv(const buf *out, const char *key)
{
	size_t kl = strlen(key);
	for (const char *l = out->data; l && l < out->data + out->len;) {
		const char *nl = memchr(l, '\n', (size_t)(out->data + out->len - l));
		if (!strncmp(l, key, kl) && l[kl] == ' ')
			return strtod(l + kl + 1, NULL);
		l = nl ? nl + 1 : NULL;
	}
	return NAN;
}

/* The last lines the last child wrote to the log, for a failure note. */
static char *log_tail(const bench_opts *o)
{
	char *path = xasprintf("%s/bench.log", o->workdir);
	FILE *f = fopen(path, "r");
	free(path);
	if (f)
		fseek(f, log_mark, SEEK_SET);
	char line[512], last[2][512] = { "", "" };
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (*line) {
			memcpy(last[0], last[1], sizeof last[0]);
			snprintf(last[1], sizeof last[1], "%s", line);
		}
	}
	if (f)
		fclose(f);
	return xasprintf("%s%s%s", last[0], *last[0] ? " / " : "", last[1]);
}

/* A free loopback TCP port (the kernel's choice; the servers bind it
 * moments later). */
static int free_port(void)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int port = 16379 + getpid() % 1000;
	if (s >= 0 && !bind(s, (struct sockaddr *)&a, sizeof a) &&
	    !getsockname(s, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (s >= 0)
		close(s);
	return port;
}

/* ---- configurations: NoProtect, then scenario x backend ---- */

typedef struct {
	const char *backend;   /* "-": NoProtect */
	const char *scen;      /* bench_scenarios[] or bench_rule_scenarios[] */
	bool dead;
	char *policy;          /* file */
	bool root;             /* in polc bench's own cgroup, not a fresh one (RootCgroup) */
} cfg;

typedef struct {
	cfg v[2 + 3 * (BENCH_NSCEN - 1) + 2 * BENCH_NRULES];
	size_t n;
} cfgset;

static char *policy_file(const bench_opts *o, int scen)
{
	char *path = xasprintf("%s/%s.pol", o->workdir, bench_scenario_rule[scen]);
	char *text = xasprintf("# polc bench scenario %s\npolicy polc_bench_%d { use %s; }\n",
			       bench_scenarios[scen], scen, bench_scenario_rule[scen]);
	if (write_file_atomic(path, text, strlen(text)) < 0)
		fprintf(stderr, "polc bench: cannot write %s: %s\n", path, strerror(errno));
	free(text);
	return path;
}

static void wrapper(const bench_opts *o, const cfg *c, argv_t *a)
{
	if (!strcmp(c->backend, "-"))
		return;
	av_push(a, o->polc);
	av_push(a, "run");
	av_push(a, "--target");
	av_push(a, c->backend);
	av_push(a, "--allow-partial");
	av_push(a, c->policy);
	av_push(a, "--");
}

static void unload_all(const bench_opts *o, const char *backend);

/* Can `polc run --target backend` confine a child here? The check's
 * enforcer is unloaded again (as after every configuration's run): the BPF
 * enforcer left attached with no policy cost every task on the machine its
 * early exit (~416 instructions a file_open), so the first round's
 * configurations before the first BPF one measured openat ~4 % slower than
 * the later ones (2026-12-04, two lab runs alike). */
static bool backend_runs(const bench_opts *o, bresults *r, const char *backend, const char *pol)
{
	argv_t a = { 0 };
	cfg c = { .backend = backend, .scen = bench_scenarios[1], .policy = (char *)pol };
	wrapper(o, &c, &a);
	av_push(&a, "true");
	buf out;
	buf_init(&out);
	int rc = run_capture(o, &a, &out, 120);
	buf_free(&out);
	av_free(&a);
	if (rc) {
		char *why = log_tail(o);
		char key[64];
		snprintf(key, sizeof key, "na.%s", backend);
		br_note(r, NATIVE_ENV(o), key, "%s", why);
		free(why);
	}
	if (bench_unloads(backend))
		unload_all(o, backend);
	return rc == 0;
}

static void configs(const bench_opts *o, bresults *r, cfgset *cs)
{
	char *pol[BENCH_NSCEN];
	for (int s = 0; s < BENCH_NSCEN; s++)
		pol[s] = s ? policy_file(o, s) : NULL;
	memset(cs, 0, sizeof *cs);
	cs->v[cs->n++] = (cfg){ .backend = "-", .scen = bench_scenarios[0] };
	if (cg_base)
		cs->v[cs->n++] = (cfg){ .backend = "-", .scen = BENCH_ROOT_CGROUP, .root = true };
	for (size_t b = 0; bench_backend(b); b++) {
		if (!backend_runs(o, r, bench_backend(b), pol[1]))
			continue;
		char key[64];
		snprintf(key, sizeof key, "runs.%s", bench_backend(b));
		br_note(r, NATIVE_ENV(o), key, "yes");
		for (int s = 1; s < BENCH_NSCEN; s++)
			cs->v[cs->n++] = (cfg){ .backend = bench_backend(b), .scen = bench_scenarios[s],
						.policy = xstrdup(pol[s]) };
	}
	for (int s = 1; s < BENCH_NSCEN; s++)
		free(pol[s]);
}

/* vArmor's rule-count series (its BPF enforcer benchmark: 1, 2, 4 and 8
 * rules of each access control type, unixbench): n deny statements of each
 * type both LSMs decide (file, exec, network, mount, capability), none of
 * which the micro tests touch, so the series measures what having them
 * costs an operation the policy allows. */
static char *rules_policy_file(const bench_opts *o, int k)
{
	static const char *const caps[] = { "sys_module", "sys_rawio", "sys_boot", "sys_time",
					    "syslog", "wake_alarm", "block_suspend", "audit_control" };
	int n = bench_rule_counts[k];
	buf t;
	buf_init(&t);
	buf_printf(&t, "# polc bench rule-count series: %d statements of each type\n"
		   "policy polc_bench_rules%d {\n", n, n);
	for (int i = 1; i <= n; i++)
		buf_printf(&t, "  deny file \"/polc-bench-rule-%d/**\" read, write, append;\n"
			   "  deny exec \"/polc-bench-rule-%d/bin\";\n"
			   "  deny network connect to 192.0.2.%d;\n"
			   "  deny mount on \"/polc-bench-rule-%d\";\n"
			   "  deny capability %s;\n", i, i, i, i, caps[(i - 1) % 8]);
	buf_puts(&t, "}\n");
	char *path = xasprintf("%s/%s.pol", o->workdir, bench_rule_scenarios[k]);
	if (write_file_atomic(path, t.data, t.len) < 0)
		fprintf(stderr, "polc bench: cannot write %s: %s\n", path, strerror(errno));
	buf_free(&t);
	return path;
}

/* NoProtect, then with each rule count each backend the kernel lab is for
 * (the LSMs this host cannot observe: vArmor's series compares those). */
static void rules_configs(const bench_opts *o, bresults *r, cfgset *cs)
{
	memset(cs, 0, sizeof *cs);
	cs->v[cs->n++] = (cfg){ .backend = "-", .scen = bench_scenarios[0] };
	for (size_t b = 0; bench_backend(b); b++) {
		const char *be = bench_backend(b);
		if (!bench_needs_lab(be))
			continue;
		char *pol = rules_policy_file(o, 0);
		bool runs = backend_runs(o, r, be, pol);
		free(pol);
		for (int k = 0; runs && k < BENCH_NRULES; k++)
			cs->v[cs->n++] = (cfg){ .backend = be, .scen = bench_rule_scenarios[k],
						.policy = rules_policy_file(o, k) };
	}
}

static void configs_free(cfgset *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		free(cs->v[i].policy);
}

static void fail_note(const bench_opts *o, bresults *r, const char *section, const cfg *c, int rc)
{
	char *why = log_tail(o), key[128];
	snprintf(key, sizeof key, "fail.%s.%s.%s", section, c->backend, c->scen);
	br_note(r, NATIVE_ENV(o), key, "exit %d: %s", rc, why);
	fprintf(stderr, "polc bench: %s %s/%s failed (exit %d), left out: %s\n", section,
		c->scen, c->backend, rc, why);
	free(why);
}

/* ---- one measurement per section ---- */

static const char *const micro_tests[] = { "getppid", "openat", "stat", "read4k", "pipe",
					   "fork", "execl", "spawn" };
#define NMICRO (sizeof micro_tests / sizeof micro_tests[0])

/* run_capture in a fresh cgroup one level below the root (cg_setup), as
 * every configuration's workload runs: rc 126 when placement is on and no
 * cgroup could be made. */
static int run_placed(const bench_opts *o, const argv_t *a, buf *out, double timeout)
{
	char *cg = cg_new();
	if (cg_base && !cg) {
		fprintf(stderr, "polc bench: cannot make a cgroup under %s: %s\n", cg_base,
			strerror(errno));
		return 126;
	}
	child_cg = cg;
	int rc = run_capture(o, a, out, timeout);
	child_cg = NULL;
	cg_done(cg);
	return rc;
}

/* The micro tests under configuration c, as series of `section`;
 * contained: in a root of their own (bench/container.sh). */
static int micro_into(const bench_opts *o, const params *p, const cfg *c, bresults *r,
		      const char *section, bool contained)
{
	argv_t a = { 0 };
	char secs[32], *ct = contained ? xasprintf("%s/bench/container.sh", o->srcdir) : NULL;
	snprintf(secs, sizeof secs, "%g", p->micro_secs);
	wrapper(o, c, &a);
	if (ct) {
		av_push(&a, "sh");
		av_push(&a, ct);
	}
	av_push(&a, o->micro);
	av_push(&a, "-t");
	av_push(&a, secs);
	av_push(&a, "all");
	buf out;
	buf_init(&out);
	double timeout = 60 + 40 * NMICRO * p->micro_secs;
	int rc = c->root ? run_capture(o, &a, &out, timeout) : run_placed(o, &a, &out, timeout);
	for (size_t i = 0; !rc && i < NMICRO; i++)
		if (isnan(kv(&out, micro_tests[i])))
			rc = 100;
	for (size_t i = 0; !rc && i < NMICRO; i++)
		br_add(r, NATIVE_ENV(o), section, c->backend, c->scen, micro_tests[i], "ns/op",
		       kv(&out, micro_tests[i]));
	buf_free(&out);
	av_free(&a);
	free(ct);
	return rc;
}

static int measure_micro(const bench_opts *o, const params *p, const cfg *c, bresults *r)
{
	return micro_into(o, p, c, r, "micro", false);
}

static int measure_rules(const bench_opts *o, const params *p, const cfg *c, bresults *r)
{
	/* set up under the enforcer: each rule policy allows mounts but on
	 * its own paths, which seccomp's and Landlock's presets would not */
	return micro_into(o, p, c, r, "rules", o->container);
}

/* placed: the client in a fresh cgroup (run_placed) and the server in
 * another (redis.sh's REDIS_SERVER_CGROUP), for every configuration: polc
 * run --target bpf moves its server out of the client's cgroup, and a lab
 * run with the server alone moved (no enforcer) measured 3 % fewer req/s
 * (GET 17,391 against 17,986, SET 16,978 against 17,544): BPF AlwaysAllow's
 * whole gap to AppArmor. The recorders' redis stays in polc bench's (polc
 * record watches its own). */
static int redis_once(const bench_opts *o, int n, const argv_t *wrap, const char *section,
		      const char *backend, const char *scenario, bool placed, bresults *r)
{
	argv_t a = { 0 };
	char port[16], num[16], *dir = xasprintf("%s/redis", o->workdir);
	char *script = xasprintf("%s/bench/redis.sh", o->srcdir);
	char *srv_cg = placed ? cg_new() : NULL, *srv_env = NULL;
	bool pipelined = !strcmp(section, "redis");
	mkdir(dir, 0755);
	snprintf(port, sizeof port, "%d", free_port());
	snprintf(num, sizeof num, "%d", n);
	av_push(&a, "env");
	if (srv_cg) {
		srv_env = xasprintf("REDIS_SERVER_CGROUP=%s", srv_cg);
		av_push(&a, srv_env);
	}
	if (pipelined)
		av_push(&a, "REDIS_PIPELINE=" BENCH_REDIS_DEPTH);
	av_push(&a, "sh");
	av_push(&a, script);
	av_push(&a, port);
	av_push(&a, num);
	av_push(&a, "50");
	av_push(&a, dir);
	av_cat(&a, wrap);
	buf out;
	buf_init(&out);
	int rc = placed ? run_placed(o, &a, &out, 300) : run_capture(o, &a, &out, 300);
	/* GET and SET, and with the pipelined passes their -P twins */
	size_t ntests = pipelined ? BENCH_NREDIS : 2;
	double rps[BENCH_NREDIS], ex = kv(&out, "exit");
	for (size_t k = 0; k < ntests; k++) {
		rps[k] = kv(&out, bench_redis_tests[k]);
		if (!rc && isnan(rps[k]))
			rc = 100;
	}
	if (!rc && ex != 0)
		rc = 101;          /* e.g. polc record lost events */
	for (size_t k = 0; !rc && k < ntests; k++)
		br_add(r, NATIVE_ENV(o), section, backend, scenario, bench_redis_tests[k], "req/s",
		       rps[k]);
	/* The recorders: also requests per CPU second of the server (the
	 * recorded cgroup) and of the client (outside it), which a loaded
	 * shared host moves much less than req/s. */
	double se = kv(&out, "SRVEFF"), ce = kv(&out, "CLIEFF");
	if (!rc && !strcmp(section, "tracers") && !isnan(se) && !isnan(ce)) {
		br_add(r, NATIVE_ENV(o), section, backend, scenario, "srv_req_per_cpu_s", "req/s", se);
		br_add(r, NATIVE_ENV(o), section, backend, scenario, "cli_req_per_cpu_s", "req/s", ce);
	}
	buf_free(&out);
	av_free(&a);
	cg_done(srv_cg);
	free(srv_env);
	free(dir);
	free(script);
	return rc;
}

static int measure_redis(const bench_opts *o, const params *p, const cfg *c, bresults *r)
{
	if (c->root)            /* the cgroup's own cost is the micro section's */
		return 0;
	argv_t w = { 0 };
	wrapper(o, c, &w);
	int rc = redis_once(o, p->redis_n, &w, "redis", c->backend, c->scen, true, r);
	av_free(&w);
	return rc;
}

static char *pg_dir(const bench_opts *o)
{
	return xasprintf("%s/pg", o->workdir);
}

static int pg_port;

static int measure_pg(const bench_opts *o, const params *p, const cfg *c, bresults *r)
{
	if (c->root)
		return 0;
	argv_t a = { 0 };
	char port[16], secs[16], *dir = pg_dir(o), *script = xasprintf("%s/bench/pgbench.sh", o->srcdir);
	snprintf(port, sizeof port, "%d", pg_port);
	snprintf(secs, sizeof secs, "%d", p->pg_secs);
	av_push(&a, "sh");
	av_push(&a, script);
	av_push(&a, "run");
	av_push(&a, dir);
	av_push(&a, port);
	av_push(&a, secs);
	wrapper(o, c, &a);
	buf out;
	buf_init(&out);
	int rc = run_placed(o, &a, &out, 120 + p->pg_secs);
	double tps = kv(&out, "tps");
	if (!rc && isnan(tps))
		rc = 100;
	if (!rc)
		br_add(r, NATIVE_ENV(o), "pgbench", c->backend, c->scen,
		       "select-only", "tps", tps);
	buf_free(&out);
	av_free(&a);
	free(dir);
	free(script);
	return rc;
}

/* The BPF enforcer stays attached after `polc run` (its programs run for
 * every task, confined or not): unloaded after each BPF configuration, so
 * that NoProtect and the other LSMs are measured without it. Its cost to
 * unconfined tasks is the hooks section's "unconfined" rows. */
/* A target whose policy outlives polc (struct backend's unload: the BPF
 * enforcer stays attached) is unloaded after its configuration, or it
 * would cost the unconfined rounds too. */
static void unload_all(const bench_opts *o, const char *backend)
{
	argv_t a = { 0 };
	av_push(&a, o->polc);
	av_push(&a, "unload");
	av_push(&a, "--target");
	av_push(&a, backend);
	buf out;
	buf_init(&out);
	run_capture(o, &a, &out, 120);
	buf_free(&out);
	av_free(&a);
}

/* The rounds: every live configuration once per round, rotating the start. */
static void rounds(const bench_opts *o, const params *p, cfgset *cs, bresults *r,
		   const char *section,
		   int (*measure)(const bench_opts *, const params *, const cfg *, bresults *))
{
	bench_stamp(r, NATIVE_ENV(o), section, "start");
	for (int round = 0; round < p->reps && !interrupted; round++) {
		fprintf(stderr, "polc bench: %s round %d/%d\n", section, round + 1, p->reps);
		for (size_t j = 0; j < cs->n && !interrupted; j++) {
			cfg *c = &cs->v[(j + (size_t)round) % cs->n];
			if (c->dead)
				continue;
			int rc = measure(o, p, c, r);
			if (bench_unloads(c->backend))
				unload_all(o, c->backend);
			if (rc) {
				c->dead = true;
				fail_note(o, r, section, c, rc);
			}
		}
		bench_checkpoint(o, r);
	}
	bench_stamp(r, NATIVE_ENV(o), section, "end");
	for (size_t j = 0; j < cs->n; j++)
		cs->v[j].dead = false;
}

static bool pg_init(const bench_opts *o, bresults *r)
{
	argv_t a = { 0 };
	char port[16], *dir = pg_dir(o), *script = xasprintf("%s/bench/pgbench.sh", o->srcdir);
	pg_port = free_port();
	snprintf(port, sizeof port, "%d", pg_port);
	av_push(&a, "sh");
	av_push(&a, script);
	av_push(&a, "init");
	av_push(&a, dir);
	av_push(&a, port);
	buf out;
	buf_init(&out);
	int rc = run_capture(o, &a, &out, 300);
	if (rc) {
		char *why = log_tail(o);
		br_note(r, NATIVE_ENV(o), "na.pgbench", "%s", why);
		free(why);
	}
	buf_free(&out);
	av_free(&a);
	free(dir);
	free(script);
	return rc == 0;
}

static void pg_clean(const bench_opts *o)
{
	argv_t a = { 0 };
	char *dir = pg_dir(o), *script = xasprintf("%s/bench/pgbench.sh", o->srcdir);
	av_push(&a, "sh");
	av_push(&a, script);
	av_push(&a, "clean");
	av_push(&a, dir);
	buf out;
	buf_init(&out);
	run_capture(o, &a, &out, 60);
	buf_free(&out);
	av_free(&a);
	free(dir);
	free(script);
}

/* ---- recorders ---- */

/* ebpf-floor: the eBPF recorder's programs attached and returning at once
 * (POLC_TRACE_FLOOR=1): the cost of enabling the syscall tracepoints alone,
 * below which no tracepoint recorder can go. */
static const char *const tracers[] = { "untraced", "ebpf", "ptrace", "strace", "ebpf-floor" };
#define NTRACERS (sizeof tracers / sizeof tracers[0])

static void tracer_wrap(const bench_opts *o, size_t t, argv_t *w, char **trace)
{
	*trace = xasprintf("%s/%s.trace", o->workdir, tracers[t]);
	if (t == 1 || t == 2 || t == 4) {
		if (t == 4) {
			av_push(w, "env");
			av_push(w, "POLC_TRACE_FLOOR=1");
		}
		av_push(w, o->polc);
		av_push(w, "record");
		av_push(w, "--tracer");
		av_push(w, t == 4 ? "ebpf" : tracers[t]);
		av_push(w, "--no-status");
		av_push(w, "-o");
		av_push(w, *trace);
		av_push(w, "--");
	} else if (t == 3) {
		av_push(w, "strace");
		av_push(w, "-f");
		av_push(w, "-qq");
		av_push(w, "-o");
		av_push(w, "/dev/null");
	}
}

static void bench_tracers(const bench_opts *o, const params *p, bresults *r)
{
	bool dead[NTRACERS] = { false };
	const char *env = NATIVE_ENV(o);
	bench_stamp(r, env, "tracers", "start");
	for (int round = 0; round < p->reps && !interrupted; round++) {
		fprintf(stderr, "polc bench: tracers round %d/%d\n", round + 1, p->reps);
		for (size_t j = 0; j < NTRACERS && !interrupted; j++) {
			size_t t = (j + (size_t)round) % NTRACERS;
			if (dead[t])
				continue;
			argv_t w = { 0 };
			char *trace;
			tracer_wrap(o, t, &w, &trace);
			int rc = redis_once(o, p->tracer_n, &w, "tracers", "-", tracers[t], false, r);
			if (rc) {
				dead[t] = true;
				char *why = log_tail(o), key[64];
				snprintf(key, sizeof key, "fail.tracers.%s", tracers[t]);
				br_note(r, env, key, "exit %d: %s", rc, why);
				fprintf(stderr, "polc bench: recorder %s failed (exit %d), left out: %s\n",
					tracers[t], rc, why);
				free(why);
			}
			unlink(trace);
			free(trace);
			av_free(&w);
		}
		bench_checkpoint(o, r);
	}
	bench_stamp(r, env, "tracers", "end");
}

static void bench_soak(const bench_opts *o, double minutes, bresults *r)
{
	argv_t a = { 0 };
	char mins[32], port[16], *dir = xasprintf("%s/soak", o->workdir);
	char *script = xasprintf("%s/bench/soak.sh", o->srcdir);
	mkdir(dir, 0755);
	snprintf(mins, sizeof mins, "%g", minutes);
	snprintf(port, sizeof port, "%d", free_port());
	av_push(&a, "sh");
	av_push(&a, script);
	av_push(&a, o->polc);
	av_push(&a, "ebpf");
	av_push(&a, mins);
	av_push(&a, port);
	av_push(&a, dir);
	buf out;
	buf_init(&out);
	fprintf(stderr, "polc bench: soak, %g minutes\n", minutes);
	br_note(r, NATIVE_ENV(o), "soak.minutes", "%g", minutes);
	bench_stamp(r, NATIVE_ENV(o), "soak", "start");
	int rc = run_capture(o, &a, &out, minutes * 60 + 180);
	bench_stamp(r, NATIVE_ENV(o), "soak", "end");
	static const char *const keys[] = { "rss_kb_1m", "hwm_kb_1m", "rss_kb_end", "hwm_kb_end",
					    "requests", "events", "lost", "exit", "seconds" };
	for (size_t i = 0; !rc && i < sizeof keys / sizeof *keys; i++) {
		double v = kv(&out, keys[i]);
		if (!isnan(v))
			br_add(r, NATIVE_ENV(o), "soak", "-", "ebpf", keys[i],
			       strstr(keys[i], "_kb") ? "kB" : "count", v);
	}
	if (rc) {
		char *why = log_tail(o);
		br_note(r, NATIVE_ENV(o), "fail.soak", "exit %d: %s", rc, why);
		free(why);
	}
	buf_free(&out);
	av_free(&a);
	free(dir);
	free(script);
}

/* The enforcer's endurance (the lab: BPF LSM runs only there): redis under
 * `polc run --target bpf` with profiles/redis.pol plus a deny statement,
 * redis-benchmark in a loop, a known number of denied and allowed opens from
 * inside the cgroup, the enforcer's counters read at 1 minute and at the end
 * (bench/soak-bpf.sh). */
static void bench_soak_bpf(const bench_opts *o, double minutes, bresults *r)
{
	argv_t a = { 0 };
	params p = params_for(o);
	char mins[32], num[16], *dir = xasprintf("%s/soak-bpf", o->workdir);
	char *script = xasprintf("%s/bench/soak-bpf.sh", o->srcdir);
	char *profile = xasprintf("%s/profiles/redis.pol", o->srcdir);
	mkdir(dir, 0755);
	snprintf(mins, sizeof mins, "%g", minutes);
	/* a fifth of a timed run's requests per redis-benchmark run */
	snprintf(num, sizeof num, "%d", p.redis_n / 5 > 100 ? p.redis_n / 5 : 100);
	av_push(&a, "sh");
	av_push(&a, script);
	av_push(&a, o->polc);
	av_push(&a, mins);
	av_push(&a, "6390");       /* the profile's port */
	av_push(&a, dir);
	av_push(&a, profile);
	av_push(&a, num);
	buf out;
	buf_init(&out);
	const char *env = NATIVE_ENV(o);
	fprintf(stderr, "polc bench: BPF enforcer soak, %g minutes\n", minutes);
	br_note(r, env, "soak.minutes", "%g", minutes);
	br_note(r, env, "soak.requests_per_run", "%s", num);
	bench_stamp(r, env, "soak", "start");
	int rc = run_capture(o, &a, &out, minutes * 60 + 300);
	bench_stamp(r, env, "soak", "end");
	static const char *const keys[] = {
		"denied_1m", "allowed_1m", "wrong_1m", "counter_1m", "other_1m", "drops_1m",
		"events_1m", "denied_end", "allowed_end", "wrong_end", "counter_end", "other_end",
		"drops_end", "events_end", "requests", "rb_runs", "rb_failed", "error_replies",
		"rejected_connections", "exit", "seconds" };
	for (size_t i = 0; !rc && i < sizeof keys / sizeof *keys; i++) {
		double v = kv(&out, keys[i]);
		if (!isnan(v))
			br_add(r, env, "soak", "bpf", "redis profile", keys[i], "count", v);
	}
	if (rc) {
		char *why = log_tail(o);
		br_note(r, env, "fail.soak", "exit %d: %s", rc, why);
		free(why);
	}
	buf_free(&out);
	av_free(&a);
	free(dir);
	free(script);
	free(profile);
}

/* ---- the BPF enforcer per hook (lab) ---- */

/* Each enforcer program's cost per invocation, from the kernel's bpf_stats
 * (bench/hooks-bpf.sh), for tasks inside and outside the policy's cgroup:
 * series "hooks" / PROGRAM / SCENARIO / "WHERE:TEST" in ns per call, and
 * "WHERE:TEST:calls". */
static void bench_hooks(const bench_opts *o, bresults *r)
{
	argv_t a = { 0 };
	char *dir = xasprintf("%s/hooks", o->workdir);
	char *script = xasprintf("%s/bench/hooks-bpf.sh", o->srcdir);
	char *spec[BENCH_NSCEN] = { 0 };
	mkdir(dir, 0755);
	av_push(&a, "sh");
	av_push(&a, script);
	av_push(&a, o->polc);
	av_push(&a, o->micro);
	av_push(&a, dir);
	for (int s = 1; s < BENCH_NSCEN; s++) {
		char *pol = policy_file(o, s);
		spec[s] = xasprintf("%s=%s", bench_scenarios[s], pol);
		free(pol);
		av_push(&a, spec[s]);
	}
	fprintf(stderr, "polc bench: hooks (bpf_stats)\n");
	bench_stamp(r, NATIVE_ENV(o), "hooks", "start");
	buf out;
	buf_init(&out);
	int rc = run_capture(o, &a, &out, 1800);
	bench_stamp(r, NATIVE_ENV(o), "hooks", "end");
	char *save = NULL, *text = xstrndup(out.data ? out.data : "", out.len);
	for (char *l = strtok_r(text, "\n", &save); !rc && l; l = strtok_r(NULL, "\n", &save)) {
		char scen[64], where[32], test[32], prog[64], m[160];
		double calls, ns;
		if (sscanf(l, "hook %63s %31s %31s %63s %lf %lf", scen, where, test, prog, &calls,
			   &ns) != 6)
			continue;
		snprintf(m, sizeof m, "%s:%s", where, test);
		br_add(r, NATIVE_ENV(o), "hooks", prog, scen, m, "ns/call", ns);
		snprintf(m, sizeof m, "%s:%s:calls", where, test);
		br_add(r, NATIVE_ENV(o), "hooks", prog, scen, m, "count", calls);
	}
	if (!rc && isnan(kv(&out, "exit")))
		rc = 100;
	if (rc) {
		char *why = log_tail(o);
		br_note(r, NATIVE_ENV(o), "fail.hooks", "exit %d: %s", rc, why);
		free(why);
	}
	free(text);
	buf_free(&out);
	av_free(&a);
	for (int s = 1; s < BENCH_NSCEN; s++)
		free(spec[s]);
	free(dir);
	free(script);
}

/* ---- the environment ---- */

static void describe_env(const bench_opts *o, bresults *r)
{
	const char *env = NATIVE_ENV(o);
	struct utsname u;
	uname(&u);
	br_note(r, env, "kernel", "%s %s", u.sysname, u.release);
	br_note(r, env, "hostname", "%s", u.nodename);
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512], model[256] = "unknown CPU";
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = 0;
			break;
		}
	if (f)
		fclose(f);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long mem = sysconf(_SC_PHYS_PAGES) / 1024 * (sysconf(_SC_PAGESIZE) / 1024);
	br_note(r, env, "machine", "%s, %ld CPU%s, %ld MiB", model, ncpu, ncpu == 1 ? "" : "s", mem);
	f = fopen("/sys/kernel/security/lsm", "r");
	if (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		br_note(r, env, "lsm", "%s", line);
	} else {
		br_note(r, env, "lsm", "not listed (securityfs not mounted)");
	}
	if (f)
		fclose(f);
}

/* In the lab, the micro program runs from the guest's tmpfs: its execl and
 * spawn then read nothing over 9p, whose host-side latency moves even the
 * guest's instruction-counted clock (an idle guest's clock jumps ahead). */
static char *micro_to_tmpfs(const bench_opts *o)
{
	char *copy = xasprintf("%s/micro", o->workdir);
	argv_t a = { 0 };
	av_push(&a, "cp");
	av_push(&a, o->micro);
	av_push(&a, copy);
	buf out;
	buf_init(&out);
	int rc = run_capture(o, &a, &out, 60);
	buf_free(&out);
	av_free(&a);
	if (rc) {
		free(copy);
		return NULL;
	}
	return copy;
}

int bench_workloads(const bench_opts *oo, bresults *r)
{
	bench_opts lo = *oo;
	const bench_opts *o = &lo;
	char *micro_copy = oo->in_lab ? micro_to_tmpfs(oo) : NULL;
	if (micro_copy)
		lo.micro = micro_copy;
	catch_signals();
	params p = params_for(o);
	describe_env(o, r);
	br_note(r, NATIVE_ENV(o), "rounds", "%d", p.reps);
	if (o->sections & (BS_MICRO | BS_RULES | BS_REDIS | BS_PGBENCH))
		cg_setup(o, r);
	aslr_off(o, r);
	if (o->container && (o->sections & BS_RULES))
		br_note(r, NATIVE_ENV(o), "rules.layout", "in a mount namespace of its own, on a "
			"tmpfs root put in place by pivot_root, as a container runs (polc bench "
			"--container, bench/container.sh)");
	cfgset cs;
	if (o->sections & (BS_MICRO | BS_REDIS | BS_PGBENCH))
		configs(o, r, &cs);
	else
		cs.n = 0;
	if ((o->sections & BS_MICRO) && !interrupted)
		rounds(o, &p, &cs, r, "micro", measure_micro);
	if ((o->sections & BS_REDIS) && !interrupted)
		rounds(o, &p, &cs, r, "redis", measure_redis);
	if ((o->sections & BS_PGBENCH) && !interrupted && pg_init(o, r)) {
		rounds(o, &p, &cs, r, "pgbench", measure_pg);
		pg_clean(o);
	}
	if ((o->sections & BS_RULES) && !interrupted) {
		cfgset rs;
		rules_configs(o, r, &rs);
		if (rs.n > 1)
			rounds(o, &p, &rs, r, "rules", measure_rules);
		configs_free(&rs);
	}
	if ((o->sections & BS_TRACERS) && !interrupted)
		bench_tracers(o, &p, r);
	if ((o->sections & BS_HOOKS) && o->in_lab && !interrupted)
		bench_hooks(o, r);
	double soak = o->soak_minutes >= 0 ? o->soak_minutes : o->mode == MODE_FULL ? 10 : 0;
	if ((o->sections & BS_SOAK) && soak > 0 && !interrupted && o->in_lab)
		bench_soak_bpf(o, soak, r);
	else if ((o->sections & BS_SOAK) && soak > 0 && !interrupted)
		bench_soak(o, soak, r);
	configs_free(&cs);
	aslr_restore();
	cg_cleanup();
	free(micro_copy);
	release_signals();
	return interrupted ? -1 : 0;
}

/* ---- the lab ---- */

/* qemu processes already running (other users of the lab): they compete
 * with ours for the host's CPUs, which the report says. */
static int count_qemus(void)
{
	int n = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char path[300], comm[64] = "";
		snprintf(path, sizeof path, "/proc/%s/comm", e->d_name);
		FILE *f = fopen(path, "r");
		if (f && fgets(comm, sizeof comm, f) && !strncmp(comm, "qemu-system", 11))
			n++;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

int bench_lab(const bench_opts *o, bresults *r)
{
	char *share = xasprintf("%s/lab", o->workdir), *raw = xasprintf("%s/lab.raw", share);
	char *runner = xasprintf("%s/tests/vm/run-in-vm.sh", o->srcdir);
	/* pgbench in the lab (initdb and a server start per run under TCG)
	 * only in a full run: --quick stays short */
	bool pg = (o->sections & BS_PGBENCH) && o->mode == MODE_FULL;
	if ((o->sections & BS_PGBENCH) && !pg)
		br_note(r, "lab", "na.pgbench", "pgbench runs in the lab only in a full run");
	/* the soak in the lab is the BPF enforcer's (the recorder's is native) */
	double soak = o->soak_minutes >= 0 ? o->soak_minutes : o->mode == MODE_FULL ? 10 : 0;
	if (!(o->sections & BS_SOAK))
		soak = 0;
	bool timed = o->sections & (BS_MICRO | BS_REDIS | BS_PGBENCH | BS_HOOKS | BS_RULES | BS_TRACERS);
	if (!timed && soak <= 0) {
		free(share);
		free(raw);
		free(runner);
		return 0;
	}
	/* the recorders under icount: their cost in instructions, which the
	 * shared host's load cannot move (natively it drowns in it) */
	char *sections = xasprintf("%s%s%s%s%s%s%s",
				   o->sections & BS_MICRO ? "micro," : "",
				   o->sections & BS_RULES ? "rules," : "",
				   o->sections & BS_REDIS ? "redis," : "",
				   o->sections & BS_HOOKS ? "hooks," : "",
				   o->sections & BS_TRACERS ? "tracers," : "",
				   pg ? "pgbench," : "", soak > 0 ? "soak" : "");
	char reps[16], timeout[16], mins[32];
	params p = params_for(&(bench_opts){ .mode = o->mode, .in_lab = true, .reps = o->reps });
	/* boot + per round and configuration: micro ~8 tests, redis and
	 * pgbench (measured at host load 6-8 with other qemus: micro 13 s,
	 * redis 30 s, pgbench 21 s); the soak and its start and stop */
	int t = 600 + (timed ? p.reps * 10 * (int)(NMICRO * p.micro_secs * 20 + 120 + p.pg_secs * 5) : 0) +
		/* redis's pipelined passes (16x the requests at ~7x the rate):
		 * ~150 s more a configuration under load */
		(o->sections & BS_REDIS ? p.reps * 10 * 150 : 0) +
		(soak > 0 ? (int)(soak * 60) + 300 : 0) +
		/* 5 recorders a round; ptrace and strace under TCG ~1 ms a request */
		(o->sections & BS_TRACERS ? p.reps * 5 * (60 + p.tracer_n / 100) : 0);
	snprintf(reps, sizeof reps, "%d", p.reps);
	snprintf(timeout, sizeof timeout, "%d", t);
	snprintf(mins, sizeof mins, "%g", soak);
	mkdir(share, 0755);
	argv_t a = { 0 };
	av_push(&a, "sh");
	av_push(&a, runner);
	av_push(&a, "--timeout");
	av_push(&a, timeout);
	av_push(&a, "--mem");
	av_push(&a, "2048");
	av_push(&a, "--share");
	av_push(&a, share);
	av_push(&a, "--");
	av_push(&a, o->polc);
	av_push(&a, "bench");
	av_push(&a, "--in-lab");
	av_push(&a, o->mode == MODE_QUICK ? "--quick" : o->mode == MODE_SMOKE ? "--smoke" : "--full");
	av_push(&a, "--reps");
	av_push(&a, reps);
	av_push(&a, "--only");
	av_push(&a, *sections ? sections : "micro");
	av_push(&a, "--soak");
	av_push(&a, mins);
	av_push(&a, "--raw");
	av_push(&a, raw);
	if (o->container)
		av_push(&a, "--container");
	/* guest time from qemu's instruction counter (docs/lab.md): the
	 * lab's figures then do not follow the shared host's load */
	const char *ic = getenv("VM_ICOUNT");
	if (!ic)
		setenv("VM_ICOUNT", "0", 1);
	ic = getenv("VM_ICOUNT");
	if (*ic)
		br_note(r, "lab", "clock", "qemu -icount shift=%s,sleep=off, one vCPU: guest time is "
			"instructions executed (%s ns each), whatever the host's load", ic,
			!strcmp(ic, "0") ? "1" : ic);
	else
		br_note(r, "lab", "clock", "host clock (VM_ICOUNT empty): figures follow the host's load");
	fprintf(stderr, "polc bench: the lab (qemu, up to %d s)\n", t);
	catch_signals();
	br_note(r, "lab", "other_qemus", "%d", count_qemus());
	bench_stamp(r, "lab", "lab", "start");
	buf out;
	buf_init(&out);
	child_cwd = o->srcdir;       /* the lab needs a cwd the guest sees */
	int rc = run_capture(o, &a, &out, t + 60);
	child_cwd = NULL;
	release_signals();
	if (interrupted) {
		fprintf(stderr, "polc bench: interrupted; the lab was stopped\n");
		rc = rc ? rc : 130;
	}
	bench_stamp(r, "lab", "lab", "end");
	buf_free(&out);
	av_free(&a);
	/* Read quietly, not by br_load: a missing or torn table is the lab's
	 * failure, told by its exit and its log's tail. */
	diag_ctx d;
	diag_init(&d);
	src_file *f = diag_read_file(&d, raw, src_loc_none());
	if (!f || br_read_raw(r, f->text) < 0) {
		char *why = log_tail(o);
		br_note(r, "lab", "na.lab", "the lab run failed (exit %d): %s", rc, why);
		fprintf(stderr, "polc bench: the lab run failed (exit %d): %s\n", rc, why);
		free(why);
		rc = rc ? rc : 3;
	} else if (rc) {
		br_note(r, "lab", "partial.lab", interrupted ?
			"the run was interrupted (SIGINT or SIGTERM); the lab's figures so far are kept" :
			"the lab exited %d; its figures so far are kept", rc);
	}
	diag_free(&d);
	free(share);
	free(raw);
	free(runner);
	free(sections);
	return rc ? -1 : 0;
}
