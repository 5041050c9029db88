/* wpc_doors.c - opens a file through doors other than a plain openat, for
 * tests/vm/t_bpf_wpc_doors.sh, which runs it confined and pinned to one CPU
 * (so every open meets that CPU's whole-path cache), and unconfined to
 * set mounts up or to exchange files:
 *
 *   wpc_doors STEP...
 *
 * Steps run in order, in one process (one cache); each result is printed
 * on the current line, "ok" or the errno's name:
 *   say LABEL       start a new output line with LABEL
 *   open P          openat(AT_FDCWD, P, O_RDONLY), closed again
 *   write P         openat(AT_FDCWD, P, O_WRONLY) (an overlayfs copy-up)
 *   uring P         "open" by io_uring IORING_OP_OPENAT, issued inline
 *                   (the submitting task, LOOKUP_CACHED)
 *   uring-async P   the same with IOSQE_ASYNC: an io-wq worker thread
 *                   (pinned to CPU 0 by IORING_REGISTER_IOWQ_AFF)
 *   uring-sqpoll P  the same taken by the ring's SQPOLL kernel thread
 *                   (on CPU 0: IORING_SETUP_SQ_AFF)
 *   dir P           keep P (O_PATH|O_DIRECTORY) as the directory of "at"
 *   at NAME         openat(that directory, NAME, O_RDONLY)
 *   opath P         keep P opened O_PATH (no file_open) for "proc"
 *   proc            open /proc/self/fd/N of that O_PATH descriptor
 *   chroot D        chroot(D) and chdir("/")
 *   unshare         unshare(CLONE_NEWNS)
 *   setns N         setns() into the mount namespace of descriptor N (an
 *                   inherited /proc/PID/ns/mnt): no mount is made, unlike
 *                   unshare
 *   tree P          open_tree(P, OPEN_TREE_CLONE): a detached copy, kept
 *                   as the directory of "at"
 *   ask CMD         write CMD to ./go, wait for a line on ./done (another,
 *                   unconfined process acts meanwhile)
 *   in-root D P     openat2(D, P, RESOLVE_IN_ROOT): P looked up with D as
 *                   its root, as chroot(D) would (D kept open, O_PATH)
 *   xchg A B        renameat2(A, B, RENAME_EXCHANGE)
 *   clone S D       open_tree(S, OPEN_TREE_CLONE) + move_mount onto D
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int dirfd_ = AT_FDCWD, opathfd = -1;

/* "ok", or the errno's symbolic name (the test compares names) */
static const char *ename(int e)
{
	switch (e) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case EXDEV: return "EXDEV";
	case EINVAL: return "EINVAL";
	case ENOSYS: return "ENOSYS";
	case EAGAIN: return "EAGAIN";
	case EBADF: return "EBADF";
	default: return "E?";
	}
}

static int closed(int fd)
{
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* One IORING_OP_OPENAT of path, flags sqe_flags, by a ring made with
 * setup flags; returns 0 or an errno. */
static int uring_open(const char *path, unsigned sqe_flags, unsigned setup)
{
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	p.flags = setup;
	p.sq_thread_cpu = 0;
	p.sq_thread_idle = 1000;
	int fd = (int)syscall(__NR_io_uring_setup, 1, &p);
	if (fd < 0)
		return errno;
	/* the worker on the CPU whose cache the test filled */
	unsigned long cpu0 = 1;
	syscall(__NR_io_uring_register, fd, IORING_REGISTER_IOWQ_AFF, &cpu0, sizeof cpu0);
	size_t sl = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	size_t cl = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	char *sq = mmap(NULL, sl, PROT_READ | PROT_WRITE, MAP_SHARED, fd, IORING_OFF_SQ_RING);
	char *cq = mmap(NULL, cl, PROT_READ | PROT_WRITE, MAP_SHARED, fd, IORING_OFF_CQ_RING);
	struct io_uring_sqe *sqe = mmap(NULL, sizeof *sqe, PROT_READ | PROT_WRITE, MAP_SHARED,
					fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqe == MAP_FAILED) {
		close(fd);
		return ENOMEM;
	}
	memset(sqe, 0, sizeof *sqe);
	sqe->opcode = IORING_OP_OPENAT;
	sqe->flags = (unsigned char)sqe_flags;
	sqe->fd = AT_FDCWD;
	sqe->addr = (uint64_t)(uintptr_t)path;
	sqe->open_flags = O_RDONLY;
	unsigned *tail = (unsigned *)(sq + p.sq_off.tail);
	((unsigned *)(sq + p.sq_off.array))[0] = 0;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	int e = 0;
	/* with SQPOLL the kernel thread takes the entry: enter only waits */
	unsigned enter = IORING_ENTER_GETEVENTS | (setup ? IORING_ENTER_SQ_WAKEUP : 0);
	if (syscall(__NR_io_uring_enter, fd, setup ? 0 : 1, 1, enter, NULL, 0) < 0) {
		e = errno;
	} else {
		unsigned head = __atomic_load_n((unsigned *)(cq + p.cq_off.head), __ATOMIC_ACQUIRE);
		unsigned mask = *(unsigned *)(cq + p.cq_off.ring_mask);
		struct io_uring_cqe *c = (struct io_uring_cqe *)(cq + p.cq_off.cqes) + (head & mask);
		e = c->res < 0 ? -c->res : closed(c->res);
	}
	close(fd);
	return e;
}

/* ask: another process acts between two opens (fifos ./go and ./done) */
static int ask(const char *cmd)
{
	FILE *go = fopen("go", "w");
	if (!go)
		return errno;
	fprintf(go, "%s\n", cmd);
	fclose(go);
	char line[64];
	FILE *done = fopen("done", "r");
	if (!done)
		return errno;
	int e = fgets(line, sizeof line, done) ? 0 : EIO;
	fclose(done);
	return e;
}

static int tree(const char *p)
{
	int fd = (int)syscall(__NR_open_tree, AT_FDCWD, p, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (fd < 0)
		return errno;
	dirfd_ = fd;
	return 0;
}

/* The descriptor comes from outside: the enforcer refuses a confined
 * task's open of any nsfs file (its dentry's name is "/": a pseudo name
 * with a slash, fail closed). */
static int in_root(const char *d, const char *p)
{
	int dfd = open(d, O_PATH | O_DIRECTORY);
	if (dfd < 0)
		return errno;
	struct open_how how = { .flags = O_RDONLY, .resolve = RESOLVE_IN_ROOT };
	int e = closed((int)syscall(__NR_openat2, dfd, p, &how, sizeof how));
	close(dfd);
	return e;
}

static int enter_ns(const char *n)
{
	return setns(atoi(n), CLONE_NEWNS) ? errno : 0;
}

static int clone_to(const char *s, const char *d)
{
	int fd = (int)syscall(__NR_open_tree, AT_FDCWD, s, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (fd < 0)
		return errno;
	int e = syscall(__NR_move_mount, fd, "", AT_FDCWD, d, MOVE_MOUNT_F_EMPTY_PATH) < 0 ? errno : 0;
	close(fd);
	return e;
}

/* Runs the step at a (its arguments after it); returns how many words it
 * took, 0 for an unknown step. */
static int step(char **a, int n)
{
	const char *s = a[0];
	int e = -1;
	char proc[64];
	if (!strcmp(s, "say") && n > 1) {
		printf("\n%s", a[1]);
		return 2;
	}
	if (!strcmp(s, "unshare"))
		e = unshare(CLONE_NEWNS) ? errno : 0;
	else if (!strcmp(s, "proc")) {
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", opathfd);
		e = closed(open(proc, O_RDONLY));
	}
	if (e >= 0) {
		printf(" %s", ename(e));
		return 1;
	}
	if (n < 2)
		return 0;
	const char *p = a[1];
	if (!strcmp(s, "open"))
		e = closed(open(p, O_RDONLY));
	else if (!strcmp(s, "write"))
		e = closed(open(p, O_WRONLY));
	else if (!strcmp(s, "uring"))
		e = uring_open(p, 0, 0);
	else if (!strcmp(s, "uring-async"))
		e = uring_open(p, IOSQE_ASYNC, 0);
	else if (!strcmp(s, "uring-sqpoll"))
		e = uring_open(p, 0, IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF);
	else if (!strcmp(s, "dir"))
		e = (dirfd_ = open(p, O_PATH | O_DIRECTORY)) < 0 ? errno : 0;
	else if (!strcmp(s, "at"))
		e = closed(openat(dirfd_, p, O_RDONLY));
	else if (!strcmp(s, "opath"))
		e = (opathfd = open(p, O_PATH)) < 0 ? errno : 0;
	else if (!strcmp(s, "chroot"))
		e = chroot(p) || chdir("/") ? errno : 0;
	else if (!strcmp(s, "setns"))
		e = enter_ns(p);
	else if (!strcmp(s, "tree"))
		e = tree(p);
	else if (!strcmp(s, "ask"))
		e = ask(p);
	if (e >= 0) {
		printf(" %s", ename(e));
		return 2;
	}
	if (n < 3)
		return 0;
	if (!strcmp(s, "xchg"))
		e = syscall(__NR_renameat2, AT_FDCWD, p, AT_FDCWD, a[2], RENAME_EXCHANGE) ? errno : 0;
	else if (!strcmp(s, "clone"))
		e = clone_to(p, a[2]);
	else if (!strcmp(s, "in-root"))
		e = in_root(p, a[2]);
	if (e < 0)
		return 0;
	printf(" %s", ename(e));
	return 3;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc;) {
		int k = step(argv + i, argc - i);
		if (!k) {
			fprintf(stderr, "wpc_doors: bad step %s\n", argv[i]);
			return 2;
		}
		fflush(stdout);
		i += k;
	}
	printf("\n");
	return 0;
}
