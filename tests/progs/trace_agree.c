/* trace_agree: a deterministic workload that both recorders must describe
 * identically (tests/t_tracer_agree.sh). In directory DIR (argv[1]), as
 * root: opens with every access mode, O_NOFOLLOW and O_PATH; stat/lstat
 * through a symlink and with AT_SYMLINK_NOFOLLOW; utime, utimes,
 * utimensat (also on an fd: no path), rename, link, symlink, unlink,
 * mkdir, rmdir, chmod, truncate; chown and setuid/setgid (capabilities);
 * a raw socket (net_raw) and a loopback bind below port 1024
 * (net_bind_service; may fail, the result is recorded); a unix socket bound
 * to a path; one thread (raw clone, joined by spinning on its cleared tid so
 * that no futex call depends on timing); a forked child that execs
 * /bin/true; a failing open (ENOENT). No call's count depends on timing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

static char bufs[2][4096];

/* DIR/name in one of two buffers, so that a call can take two names. */
static const char *at(const char *dir, const char *name)
{
	static int i;
	i = !i;
	snprintf(bufs[i], sizeof bufs[i], "%s/%s", dir, name);
	return bufs[i];
}

static int thread_fn(void *arg)
{
	int fd = openat(AT_FDCWD, (const char *)arg, O_CREAT | O_WRONLY | O_APPEND, 0600);
	if (fd >= 0)
		close(fd);
	syscall(SYS_exit, 0);
	return 0;
}

static void one_thread(const char *dir)
{
	static char path[4096];
	volatile pid_t tid = 1;
	size_t sz = 64 * 1024;
	char *stack = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED)
		exit(1);
	snprintf(path, sizeof path, "%s/thread.log", dir);
	int fl = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		 CLONE_SYSVSEM | CLONE_CHILD_CLEARTID;
	if (clone(thread_fn, stack + sz, fl, path, NULL, NULL, &tid) < 0)
		exit(1);
	while (__atomic_load_n(&tid, __ATOMIC_ACQUIRE) != 0)
		;                      /* the kernel clears it when the thread ends */
	munmap(stack, sz);
}

static void net(const char *dir)
{
	int r = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (r >= 0)
		close(r);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(1) };
	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s >= 0) {
		if (bind(s, (struct sockaddr *)&in, sizeof in) < 0) { /* recorded */ }
		close(s);
	}
	int u = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	snprintf(un.sun_path, sizeof un.sun_path, "%s/sock", dir);
	if (u >= 0) {
		if (bind(u, (struct sockaddr *)&un, sizeof un) < 0) { /* recorded */ }
		close(u);
	}
}

static void files(const char *dir)
{
	int d = open(dir, O_RDONLY | O_DIRECTORY);
	int fd = openat(d, "a.txt", O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (d < 0 || fd < 0)
		exit(1);
	if (write(fd, "x", 1) != 1)
		exit(1);
	close(fd);
	fd = open(at(dir, "a.txt"), O_WRONLY | O_APPEND);
	close(fd);
	if (symlink("a.txt", at(dir, "l")) < 0)
		exit(1);
	struct stat st;
	stat(at(dir, "l"), &st);
	lstat(at(dir, "l"), &st);
	fstatat(d, "l", &st, AT_SYMLINK_NOFOLLOW);
	fd = open(at(dir, "l"), O_RDONLY | O_NOFOLLOW);   /* ELOOP */
	if (fd >= 0)
		close(fd);
	fd = open(at(dir, "l"), O_PATH);
	if (fd >= 0) {
		fstatat(fd, "", &st, AT_EMPTY_PATH);
		close(fd);
	}
	/* The legacy calls themselves (libc turns utime/utimes/open into
	 * utimensat/openat). */
	struct utimbuf ub = { 0, 0 };
	syscall(SYS_utime, at(dir, "a.txt"), &ub);
	struct timeval tv[2] = { { 0, 0 }, { 0, 0 } };
	syscall(SYS_utimes, at(dir, "a.txt"), tv);
	fd = (int)syscall(SYS_open, at(dir, "a.txt"), O_RDONLY);
	if (fd >= 0)
		close(fd);
	utimensat(d, "a.txt", NULL, 0);
	fd = open(at(dir, "a.txt"), O_RDONLY);
	futimens(fd, NULL);                               /* no path: no record */
	/* a record lock (fcntl) is the file's lock permission, as flock's;
	 * F_GETLK tests and locks nothing: no record */
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	fcntl(fd, F_GETLK, &fl);
	fl.l_type = F_RDLCK;
	fcntl(fd, F_SETLK, &fl);
	fl.l_type = F_UNLCK;
	fcntl(fd, F_SETLK, &fl);
	close(fd);
	chmod(at(dir, "a.txt"), 0600);
	truncate(at(dir, "a.txt"), 0);
	if (chown(at(dir, "a.txt"), 0, 0) < 0) { /* recorded */ }
	link(at(dir, "a.txt"), at(dir, "b.txt"));
	renameat(d, "b.txt", d, "c.txt");
	unlink(at(dir, "c.txt"));
	mkdir(at(dir, "sub"), 0755);
	rmdir(at(dir, "sub"));
	/* O_TMPFILE: the file is named DIR/#INODE, as the kernel names it */
	fd = open(dir, O_TMPFILE | O_RDWR, 0600);
	if (fd >= 0)
		close(fd);
	fd = open(at(dir, "missing"), O_RDONLY);
	if (fd >= 0)
		close(fd);
	close(d);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	const char *dir = argv[1];
	files(dir);
	net(dir);
	if (setgid(getgid()) < 0 || setuid(getuid()) < 0) { /* recorded */ }
	one_thread(dir);
	pid_t pid = fork();
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
