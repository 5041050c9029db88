/* micro.c - polc bench's unixbench-like micro benchmarks, run under each
 * scenario's enforcer (`polc run --target T POLICY -- micro ...`).
 *
 *   micro [-t SECONDS] TEST...      TEST: getppid openat stat read4k pipe
 *                                         fork execl spawn, or all
 *   micro --exit                    (the child execl and spawn start)
 *   micro -t SECONDS --one TEST     (one process's figure: fork's layouts)
 *
 * Prints one line per test: "NAME NS_PER_OP ITERATIONS". Each test is timed
 * in SLICES (5) equal slices of about SECONDS/SLICES (SECONDS default 0.2;
 * the first slice finds the batch size by doubling, so a slow scenario does
 * fewer iterations, not a longer run) and reports the fastest slice: on a
 * shared machine other work only ever slows a slice down, so the minimum
 * is the figure least disturbed by it; fork takes the fastest of LAYOUTS
 * fresh processes (below). Times come from
 * clock_gettime(CLOCK_MONOTONIC) (vDSO: no syscall, so no filter cost of
 * its own). Built without sanitizers: it runs under filters that deny what
 * their runtimes need. The files it opens live in a fresh directory under
 * $TMPDIR (or /tmp), removed at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* What a fork costs depends on the forking process's address-space layout,
 * which exec randomises (ASLR): a stack or mapping that straddles a 2 MiB
 * boundary needs one more page-table page to copy. In the icount lab one
 * process in about ten forked 6,000 or 14,500 instructions (2 % or 5 %)
 * slower than the rest, in all five of its slices: a whole cell's round
 * off (bench/raw/lab-icount-fix-run*.raw). So fork is timed in LAYOUTS
 * fresh processes, each exec'd anew, and the fastest counts; each gets
 * a LAYOUTS-th of the time. */
#define LAYOUTS 4

static char dir[256], file[300], self[4096];
static int fd4k = -1;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A timeout's SIGTERM: leave no directory behind. */
static void on_term(int sig)
{
	(void)sig;
	if (file[0])
		unlink(file);
	if (dir[0])
		rmdir(dir);
	_exit(143);
}

static void die(const char *what)
{
	fprintf(stderr, "micro: %s: %s\n", what, strerror(errno));
	if (file[0])
		unlink(file);
	if (dir[0])
		rmdir(dir);
	exit(1);
}

static void op_getppid(void)
{
	syscall(SYS_getppid);   /* glibc caches nothing here, but be explicit */
}

static void op_openat(void)
{
	int fd = openat(AT_FDCWD, file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("openat");
	close(fd);
}

static void op_stat(void)
{
	struct stat st;
	if (stat(file, &st) < 0)
		die("stat");
}

static void op_read4k(void)
{
	char b[4096];
	if (pread(fd4k, b, sizeof b, 0) != (ssize_t)sizeof b)
		die("pread");
}

static void wait_child(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		die("child failed");
}

static void op_fork(void)
{
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid)
		_exit(0);
	wait_child(pid);
}

static void op_execl(void)
{
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		execl(self, self, "--exit", (char *)NULL);
		_exit(127);
	}
	wait_child(pid);
}

static void op_spawn(void)
{
	pid_t pid;
	char *argv[] = { self, "--exit", NULL };
	errno = posix_spawn(&pid, self, NULL, NULL, argv, environ);
	if (errno)
		die("posix_spawn");
	wait_child(pid);
}

/* Pipe ping-pong: a one-byte round trip to a child and back. */
static int ping[2], pong[2];
static pid_t ponger = -1;

static void pipe_start(void)
{
	if (pipe(ping) || pipe(pong))
		die("pipe");
	ponger = fork();
	if (ponger < 0)
		die("fork");
	if (!ponger) {
		char c;
		close(ping[1]);     /* else the read below never sees EOF */
		close(pong[0]);
		while (read(ping[0], &c, 1) == 1)
			if (write(pong[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
}

static void op_pipe(void)
{
	char c = 'x';
	if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
		die("pipe round trip");
}

static void pipe_stop(void)
{
	close(ping[1]);
	close(pong[0]);
	wait_child(ponger);
}

/* layouts: run in that many fresh processes (see run_layouts). */
typedef struct {
	const char *name;
	void (*op)(void);
	void (*start)(void), (*stop)(void);
	int layouts;
} test;

static const test tests[] = {
	{ "getppid", op_getppid, NULL, NULL, 1 },
	{ "openat", op_openat, NULL, NULL, 1 },
	{ "stat", op_stat, NULL, NULL, 1 },
	{ "read4k", op_read4k, NULL, NULL, 1 },
	{ "pipe", op_pipe, pipe_start, pipe_stop, 1 },
	{ "fork", op_fork, NULL, NULL, LAYOUTS },
	{ "execl", op_execl, NULL, NULL, 1 },
	{ "spawn", op_spawn, NULL, NULL, 1 },
};
#define NTESTS (sizeof tests / sizeof tests[0])

static const test *find(const char *name)
{
	for (size_t k = 0; k < NTESTS; k++)
		if (!strcmp(tests[k].name, name))
			return &tests[k];
	return NULL;
}

#define SLICES 5

/* Seconds n operations take. */
static double timed(const test *t, unsigned long long n)
{
	double t0 = now();
	for (unsigned long long i = 0; i < n; i++)
		t->op();
	return now() - t0;
}

static void run(const test *t, double secs)
{
	if (t->start)
		t->start();
	t->op();                        /* warm: page cache, dentries, libc */
	double slice = secs / SLICES, el;
	unsigned long long n = 1, iters = 0;
	while ((el = timed(t, n)) < slice && n < (1ull << 24)) {
		iters += n;
		n *= 2;
	}
	iters += n;
	double best = el / (double)n;
	for (int s = 1; s < SLICES; s++) {
		el = timed(t, n) / (double)n;
		iters += n;
		if (el < best)
			best = el;
	}
	if (t->stop)
		t->stop();
	printf("%s %.1f %llu\n", t->name, best * 1e9, iters);
	fflush(stdout);
}

/* One test of a fresh exec of this program ("micro -t SECS --one TEST"):
 * its ns per op, adding its iterations to *iters; -1 when it failed. */
static double run_fresh(const test *t, double secs, unsigned long long *iters)
{
	int p[2];
	if (pipe(p))
		die("pipe");
	char arg[32];
	snprintf(arg, sizeof arg, "%.6f", secs);
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execl(self, self, "-t", arg, "--one", t->name, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	char line[128] = "";
	FILE *f = fdopen(p[0], "r");
	if (!f || !fgets(line, sizeof line, f))
		line[0] = 0;
	if (f)
		fclose(f);
	wait_child(pid);
	char name[32];
	double ns;
	unsigned long long n;
	if (sscanf(line, "%31s %lf %llu", name, &ns, &n) != 3)
		return -1;
	*iters += n;
	return ns;
}

/* run, in t->layouts fresh processes: the fastest. */
static void run_layouts(const test *t, double secs)
{
	double best = -1;
	unsigned long long iters = 0;
	for (int l = 0; l < t->layouts; l++) {
		double ns = run_fresh(t, secs / t->layouts, &iters);
		if (ns < 0) {
			errno = EIO;
			die(t->name);
		}
		if (best < 0 || ns < best)
			best = ns;
	}
	printf("%s %.1f %llu\n", t->name, best, iters);
	fflush(stdout);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/polc-micro-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		die("mkdtemp");
	snprintf(file, sizeof file, "%s/f", dir);
	int fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	char b[4096];
	memset(b, 'p', sizeof b);
	if (fd < 0 || write(fd, b, sizeof b) != (ssize_t)sizeof b)
		die(file);
	fd4k = fd;
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		die("readlink /proc/self/exe");
	self[n] = 0;
}

static void measure(const test *t, double secs, bool one)
{
	if (t->layouts > 1 && !one)
		run_layouts(t, secs);
	else
		run(t, secs);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--exit"))
		return 0;
	double secs = 0.2;
	int i = 1;
	if (i + 1 < argc && !strcmp(argv[i], "-t")) {
		secs = atof(argv[i + 1]);
		i += 2;
	}
	if (i >= argc || secs <= 0) {
		fprintf(stderr, "usage: micro [-t SECONDS] TEST...|all\n");
		return 2;
	}
	bool one = i + 1 < argc && !strcmp(argv[i], "--one");   /* run_fresh's child */
	if (one)
		i++;
	for (int j = i; j < argc; j++)
		if (strcmp(argv[j], "all") && !find(argv[j])) {
			fprintf(stderr, "micro: no test '%s'\n", argv[j]);
			return 2;
		}
	setup();
	for (; i < argc; i++) {
		if (strcmp(argv[i], "all")) {
			measure(find(argv[i]), secs, one);
			continue;
		}
		for (size_t k = 0; k < NTESTS; k++)
			measure(&tests[k], secs, one);
	}
	close(fd4k);
	unlink(file);
	rmdir(dir);
	return 0;
}
