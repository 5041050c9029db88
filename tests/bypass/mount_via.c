/* mount_via MODE DIR - one call of the new mount API on DIR and print "ok"
 * (the call succeeded) or its errno name. None of them changes a mount
 * anyone sees: a detached clone or a filesystem context is only held and
 * closed, and mount_setattr is asked to change nothing (the kernel returns
 * 0 before looking). `deny mount` must refuse every one that can make or
 * change a mount (tests/t_bypass_seccomp.sh):
 *   tree-clone     open_tree(DIR, OPEN_TREE_CLONE): a detached copy
 *   tree-plain     open_tree(DIR, 0): an O_PATH descriptor, not a mount
 *   fsopen         fsopen("tmpfs")
 *   fspick         fspick(DIR)
 *   mount_setattr  mount_setattr(DIR) with an empty change
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_fspick
#define SYS_fspick 433
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif

struct attr {                  /* struct mount_attr */
	unsigned long long set, clr, propagation, userns_fd;
};

static int result(long r)
{
	if (r < 0) {
		printf("%s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
		return 1;
	}
	printf("ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: mount_via MODE DIR\n");
		return 2;
	}
	const char *m = argv[1], *d = argv[2];
	if (!strcmp(m, "tree-clone"))
		return result(syscall(SYS_open_tree, AT_FDCWD, d, 1 /* OPEN_TREE_CLONE */));
	if (!strcmp(m, "tree-plain"))
		return result(syscall(SYS_open_tree, AT_FDCWD, d, 0));
	if (!strcmp(m, "fsopen"))
		return result(syscall(SYS_fsopen, "tmpfs", 0));
	if (!strcmp(m, "fspick"))
		return result(syscall(SYS_fspick, AT_FDCWD, d, 0));
	if (!strcmp(m, "mount_setattr")) {
		struct attr a = { 0 };
		return result(syscall(SYS_mount_setattr, AT_FDCWD, d, 0, &a, sizeof a));
	}
	fprintf(stderr, "mount_via: unknown mode %s\n", m);
	return 2;
}
