/* name_via MODE PATH WORKDIR - give the file PATH a new name in WORKDIR by
 * one route other than rename(2)/link(2) (new_name.py does those), read it
 * under that name, print "ok" or the errno name of the step that failed,
 * and put everything back. Each MODE reaches the kernel's rename or link
 * by another door (tests/vm/t_bypass.sh says which must hold):
 *   exchange      renameat2(PATH, WORKDIR/n, RENAME_EXCHANGE) with a file
 *                 already at WORKDIR/n: each name takes the other's file
 *   whiteout      renameat2(PATH, WORKDIR/n, RENAME_WHITEOUT): a whiteout
 *                 device is left at PATH
 *   link-empty    linkat(open(PATH, O_PATH), "", WORKDIR/n, AT_EMPTY_PATH)
 *   link-procfd   linkat("/proc/self/fd/N" of an O_PATH fd, WORKDIR/n,
 *                 AT_SYMLINK_FOLLOW): the magic link names the file
 *   uring-rename  IORING_OP_RENAMEAT(PATH, WORKDIR/n)
 *   uring-link    IORING_OP_LINKAT(PATH, WORKDIR/n)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "uring.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif

static int fail(const char *step)
{
	printf("%s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
	fprintf(stderr, "name_via: %s: %s\n", step, strerror(errno));
	return 1;
}

static int read_name(const char *p)
{
	char b[64];
	int fd = open(p, O_RDONLY);
	if (fd < 0)
		return fail("open the new name");
	if (read(fd, b, sizeof b) < 0)
		return fail("read");
	close(fd);
	printf("ok\n");
	return 0;
}

/* One io_uring rename or link of old to new; -1 with errno on failure. */
static int uring_name(__u8 op, const char *old, const char *new)
{
	struct io_uring_sqe sqe;
	memset(&sqe, 0, sizeof sqe);
	sqe.opcode = op;
	sqe.fd = AT_FDCWD;                          /* olddirfd */
	sqe.addr = (__u64)(unsigned long)old;
	sqe.len = (__u32)AT_FDCWD;                  /* newdirfd */
	sqe.addr2 = (__u64)(unsigned long)new;
	int res = 0, r = uring_once(&sqe, &res);
	if (r < 0 || res < 0) {
		errno = r < 0 ? -r : -res;
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: name_via MODE PATH WORKDIR\n");
		return 2;
	}
	const char *m = argv[1], *p = argv[2];
	char n[4096], fdp[64];
	snprintf(n, sizeof n, "%s/n", argv[3]);
	unlink(n);
	int renamed = 1, r;
	if (!strcmp(m, "exchange")) {
		int f = open(n, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (f < 0 || write(f, "swap\n", 5) != 5)
			return fail("make WORKDIR/n");
		close(f);
		r = renameat2(AT_FDCWD, p, AT_FDCWD, n, RENAME_EXCHANGE);
	} else if (!strcmp(m, "whiteout")) {
		r = renameat2(AT_FDCWD, p, AT_FDCWD, n, RENAME_WHITEOUT);
	} else if (!strcmp(m, "uring-rename")) {
		r = uring_name(IORING_OP_RENAMEAT, p, n);
	} else {
		renamed = 0;
		int f = open(p, O_PATH);
		if (f < 0)
			return fail("open O_PATH");
		snprintf(fdp, sizeof fdp, "/proc/self/fd/%d", f);
		if (!strcmp(m, "link-empty"))
			r = linkat(f, "", AT_FDCWD, n, AT_EMPTY_PATH);
		else if (!strcmp(m, "link-procfd"))
			r = linkat(AT_FDCWD, fdp, AT_FDCWD, n, AT_SYMLINK_FOLLOW);
		else if (!strcmp(m, "uring-link"))
			r = uring_name(IORING_OP_LINKAT, p, n);
		else {
			fprintf(stderr, "name_via: unknown mode %s\n", m);
			return 2;
		}
	}
	if (r < 0) {
		int rc = fail(m);
		unlink(n);
		return rc;
	}
	int rc = read_name(n);
	if (!renamed) {
		unlink(n);
	} else if (!strcmp(m, "exchange")) {
		renameat2(AT_FDCWD, p, AT_FDCWD, n, RENAME_EXCHANGE);
		unlink(n);
	} else {
		unlink(p);          /* the whiteout, if any */
		rename(n, p);
	}
	return rc;
}
