/* xmemo_spin D N SPIN_MS: vm/t_bpf_exec_memo's same-CPU attacker: the stale
 * exec memo of a failed execve, with no CPU move and no context switch.
 * Pinned to CPU 0 for the whole run; D (a tmpfs directory) holds a/F (an
 * allowed program) and b/ (F's refused home). Each try: hold a/F open for
 * writing and execve it (ETXTBSY: its exec open keeps a memo of its struct
 * file P); close; wait in user mode (a busy loop: no syscall, no sleep)
 * until RCU frees P; open /dev/null (it takes the writer's slot); rename
 * a/F -> b/F (the same dentry); execve b/F (its exec open gets P again).
 * A try in which the task was never switched out (getrusage RUSAGE_THREAD)
 * leaves the old memo live by the switch rule: only the new exec open's
 * drop of it stops the refused program, which prints DENIED-EXEC-RAN.
 * Exit 1 after N refused tries, with counts on stderr. */
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

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	const char *D = argv[1];
	int n = atoi(argv[2]);
	long ms = atol(argv[3]);
	char a[512], b[512];
	snprintf(a, sizeof a, "%s/a/F", D);
	snprintf(b, sizeof b, "%s/b/F", D);
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(0, &s);
	if (sched_setaffinity(0, sizeof s, &s))
		perror("setaffinity");
	char *av[] = { "F", "DENIED-EXEC-RAN", 0 };
	char *ev[] = { 0 };
	int e1 = 0, still = 0, e3[200] = { 0 };
	for (int i = 0; i < n; i++) {
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
		spin_ms(ms);
		int d = open("/dev/null", O_RDONLY);
		if (rename(a, b)) {
			perror("rename");
			return 2;
		}
		execve(b, av, ev);
		int e = errno;
		if (e < 200)
			e3[e]++;
		if (switches() == s0)
			still++;
		rename(b, a);
		close(d);
	}
	fprintf(stderr, "spin: %d tries, step1 ETXTBSY %d, without a switch %d, step3:", n, e1, still);
	for (int k = 0; k < 200; k++)
		if (e3[k])
			fprintf(stderr, " %s x%d", strerror(k), e3[k]);
	fprintf(stderr, "\n");
	return 1;
}
