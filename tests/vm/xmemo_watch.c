/* xmemo_watch [CPU [v]]: vm/t_bpf_exec_memo's unconfined root helper, on
 * CPU (default 2). Reads xmemo_atk's pid from /tmp/atk.pid and its kernel
 * stack (/proc/PID/stack), and moves it: to CPU 1 while its execve sleeps
 * in a path lookup (before the exec open's hook), back to CPU 0 while it
 * sleeps after the open's hook (do_dentry_open's 9p open, prepare_binprm's
 * read). On SIGTERM prints the moves made ("moved to 1: N, back to 0: N"). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* sched_setaffinity, CPU_SET */
#endif
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <signal.h>

static int cpu_mask(pid_t p, int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(p, sizeof s, &s);
}

static volatile int stop;
static void onterm(int s) { (void)s; stop = 1; }

int main(int argc, char **argv)
{
	int mycpu = argc > 1 ? atoi(argv[1]) : 2, verbose = argc > 2;
	cpu_mask(0, mycpu);
	signal(SIGTERM, onterm);
	pid_t pid = 0;
	while (!pid && !stop) {
		FILE *f = fopen("/tmp/atk.pid", "r");
		if (f) {
			if (fscanf(f, "%d", &pid) != 1)
				pid = 0;
			fclose(f);
		}
		usleep(1000);
	}
	char path[64], buf[8192];
	snprintf(path, sizeof path, "/proc/%d/stack", pid);
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	int phase = 0, nlog = 0;
	static char last[8192];
	long n0 = 0, n1 = 0, polls = 0;
	while (!stop) {
		ssize_t r = pread(fd, buf, sizeof buf - 1, 0);
		if (r < 0)
			break;   /* the task is gone */
		buf[r] = 0;
		polls++;
		int inexec = strstr(buf, "bprm_execve") != 0;
		int lookup = strstr(buf, "lookup_slow") != 0;
		int after = strstr(buf, "do_dentry_open") || strstr(buf, "kernel_read") ||
			    strstr(buf, "search_binary_handler") || strstr(buf, "exec_binprm");
		int inhook = strstr(buf, "security_file_open") || strstr(buf, "bpf") != 0;
		if (inexec && !lookup && verbose && nlog < 40 && strcmp(buf, last)) {
			fprintf(stderr, "--- phase %d stack:\n%s", phase, buf);
			strcpy(last, buf);
			nlog++;
		}
		if (phase == 0 && inexec && lookup) {
			cpu_mask(pid, 1);
			phase = 1;
			n0++;
		} else if (phase == 1 && inexec && after && !lookup && !inhook) {
			cpu_mask(pid, 0);
			phase = 2;
			n1++;
		} else if (phase >= 1 && strstr(buf, "nanosleep")) {
			phase = 0;
		}
	}
	fprintf(stderr, "watch: %ld polls, moved to 1: %ld, back to 0: %ld\n", polls, n0, n1);
	return 0;
}
