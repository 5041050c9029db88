/* open_via MODE PATH [WORKDIR] - read the first bytes of PATH by one route
 * and print "ok" (bytes came back) or the errno name of the step that
 * failed. Each MODE is one way a confined process might reach a file whose
 * read a policy denies (tests/vm/t_bypass.sh says which must hold):
 *   direct      open(PATH)
 *   symlink     a symlink to PATH made in WORKDIR, opened
 *   relative    chdir(dirname), open(basename)
 *   dirfd       openat(O_PATH dir fd, basename)
 *   openat2     openat2(PATH) with RESOLVE_NO_MAGICLINKS
 *   procfd      open(PATH, O_PATH), then open("/proc/self/fd/N") for read
 *   opath       open(PATH, O_PATH), then read() on that fd
 *   tree-dir    open_tree(dirname, OPEN_TREE_CLONE): read basename in the
 *               detached copy
 *   tree-file   open_tree(PATH, OPEN_TREE_CLONE): re-open the detached file
 *               through /proc/self/fd
 *   chroot      chroot(dirname), open("/basename")
 *   iouring     IORING_OP_OPENAT of PATH, then read() on the result
 *   handle      name_to_handle_at(PATH), then open_by_handle_at() with a
 *               descriptor of PATH's directory as the mount: no path is
 *               looked up by the open (CAP_DAC_READ_SEARCH)
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/io_uring.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif

static int fail(const char *step)
{
	printf("%s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
	fprintf(stderr, "open_via: %s: %s\n", step, strerror(errno));
	return 1;
}

static int read_fd(int fd)
{
	char b[64];
	if (fd < 0)
		return fail("open");
	ssize_t n = read(fd, b, sizeof b);
	if (n < 0)
		return fail("read");
	printf("ok\n");
	return 0;
}

static char *dir_of(const char *p) { return dirname(strdup(p)); }
static char *base_of(const char *p) { return basename(strdup(p)); }

static int via_iouring(const char *path)
{
	struct io_uring_params pa = { 0 };
	int r = (int)syscall(SYS_io_uring_setup, 1, &pa);
	if (r < 0)
		return fail("io_uring_setup");
	size_t sqsz = pa.sq_off.array + pa.sq_entries * sizeof(unsigned);
	size_t cqsz = pa.cq_off.cqes + pa.cq_entries * sizeof(struct io_uring_cqe);
	char *sq = mmap(0, sqsz, PROT_READ | PROT_WRITE, MAP_SHARED, r, IORING_OFF_SQ_RING);
	char *cq = mmap(0, cqsz, PROT_READ | PROT_WRITE, MAP_SHARED, r, IORING_OFF_CQ_RING);
	struct io_uring_sqe *sqe = mmap(0, pa.sq_entries * sizeof *sqe, PROT_READ | PROT_WRITE,
					MAP_SHARED, r, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqe == MAP_FAILED)
		return fail("mmap ring");
	memset(sqe, 0, sizeof *sqe);
	sqe->opcode = IORING_OP_OPENAT;
	sqe->fd = AT_FDCWD;
	sqe->addr = (unsigned long)path;
	sqe->open_flags = O_RDONLY;
	((unsigned *)(sq + pa.sq_off.array))[0] = 0;
	__atomic_store_n((unsigned *)(sq + pa.sq_off.tail), 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, r, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return fail("io_uring_enter");
	struct io_uring_cqe *cqe = (struct io_uring_cqe *)(cq + pa.cq_off.cqes);
	if (cqe->res < 0) {
		errno = -cqe->res;
		return fail("IORING_OP_OPENAT");
	}
	return read_fd(cqe->res);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: open_via MODE PATH [WORKDIR]\n");
		return 2;
	}
	const char *m = argv[1], *p = argv[2], *w = argc > 3 ? argv[3] : "/tmp";
	char buf[4096];
	if (!strcmp(m, "direct"))
		return read_fd(open(p, O_RDONLY));
	if (!strcmp(m, "symlink")) {
		snprintf(buf, sizeof buf, "%s/link-%d", w, (int)getpid());
		if (symlink(p, buf) < 0)
			return fail("symlink");
		int r = read_fd(open(buf, O_RDONLY));
		unlink(buf);
		return r;
	}
	if (!strcmp(m, "relative")) {
		if (chdir(dir_of(p)) < 0)
			return fail("chdir");
		return read_fd(open(base_of(p), O_RDONLY));
	}
	if (!strcmp(m, "dirfd")) {
		int d = open(dir_of(p), O_PATH | O_DIRECTORY);
		if (d < 0)
			return fail("open dir");
		return read_fd(openat(d, base_of(p), O_RDONLY));
	}
	if (!strcmp(m, "openat2")) {
		struct open_how h = { .flags = O_RDONLY, .resolve = RESOLVE_NO_MAGICLINKS };
		return read_fd((int)syscall(SYS_openat2, AT_FDCWD, p, &h, sizeof h));
	}
	if (!strcmp(m, "procfd") || !strcmp(m, "opath")) {
		int f = open(p, O_PATH);
		if (f < 0)
			return fail("open O_PATH");
		if (!strcmp(m, "opath"))
			return read_fd(f);
		snprintf(buf, sizeof buf, "/proc/self/fd/%d", f);
		return read_fd(open(buf, O_RDONLY));
	}
	if (!strcmp(m, "tree-dir")) {
		int t = (int)syscall(SYS_open_tree, AT_FDCWD, dir_of(p), OPEN_TREE_CLONE);
		if (t < 0)
			return fail("open_tree");
		return read_fd(openat(t, base_of(p), O_RDONLY));
	}
	if (!strcmp(m, "tree-file")) {
		int t = (int)syscall(SYS_open_tree, AT_FDCWD, p, OPEN_TREE_CLONE);
		if (t < 0)
			return fail("open_tree");
		snprintf(buf, sizeof buf, "/proc/self/fd/%d", t);
		return read_fd(open(buf, O_RDONLY));
	}
	if (!strcmp(m, "chroot")) {
		if (chroot(dir_of(p)) < 0 || chdir("/") < 0)
			return fail("chroot");
		snprintf(buf, sizeof buf, "/%s", base_of(p));
		return read_fd(open(buf, O_RDONLY));
	}
	if (!strcmp(m, "iouring"))
		return via_iouring(p);
	if (!strcmp(m, "handle")) {
		struct file_handle *h = malloc(sizeof *h + MAX_HANDLE_SZ);
		int mnt_id, d = open(dir_of(p), O_RDONLY | O_DIRECTORY);
		h->handle_bytes = MAX_HANDLE_SZ;
		if (d < 0 || name_to_handle_at(AT_FDCWD, p, h, &mnt_id, 0) < 0)
			return fail("name_to_handle_at");
		return read_fd(open_by_handle_at(d, h, O_RDONLY));
	}
	fprintf(stderr, "open_via: unknown mode %s\n", m);
	return 2;
}
