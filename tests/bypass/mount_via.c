/* mount_via MODE DIR [TARGET] - one call of the new mount API on DIR and
 * print "ok" (the call succeeded) or its errno name. None of the first five
 * changes a mount anyone sees: a detached clone or a filesystem context is
 * only held and closed, and mount_setattr is asked to change nothing (the
 * kernel returns 0 before looking). `deny mount` must refuse every one that
 * can make or change a mount (tests/t_bypass_seccomp.sh). The last two
 * attach a tree at TARGET, the new API's way to mount (tests/vm/t_bypass.sh):
 *   tree-clone     open_tree(DIR, OPEN_TREE_CLONE): a detached copy
 *   tree-plain     open_tree(DIR, 0): an O_PATH descriptor, not a mount
 *   fsopen         fsopen("tmpfs")
 *   fspick         fspick(DIR)
 *   mount_setattr  mount_setattr(DIR) with an empty change
 *   tree-attach    open_tree(DIR, OPEN_TREE_CLONE), move_mount() of the
 *                  clone onto TARGET: a bind mount without mount(2)
 *   fsmount-attach fsopen("tmpfs"), fsconfig(CMD_CREATE), fsmount(),
 *                  move_mount() onto TARGET (DIR unused)
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
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_fsconfig
#define SYS_fsconfig 431
#endif
#ifndef SYS_fsmount
#define SYS_fsmount 432
#endif
#define MOVE_MOUNT_F_EMPTY_PATH_ 0x4   /* uapi linux/mount.h */
#define FSCONFIG_CMD_CREATE_ 6

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

/* Attach the detached tree fd at target; fd < 0: the step before failed. */
static int attach(long fd, const char *target)
{
	if (fd < 0)
		return result(fd);
	return result(syscall(SYS_move_mount, (int)fd, "", AT_FDCWD, target,
			      MOVE_MOUNT_F_EMPTY_PATH_));
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "tree-attach"))
		return attach(syscall(SYS_open_tree, AT_FDCWD, argv[2], 1 /* OPEN_TREE_CLONE */),
			      argv[3]);
	if (argc == 4 && !strcmp(argv[1], "fsmount-attach")) {
		long fs = syscall(SYS_fsopen, "tmpfs", 0);
		if (fs < 0 || syscall(SYS_fsconfig, (int)fs, FSCONFIG_CMD_CREATE_, NULL, NULL, 0) < 0)
			return result(-1);
		return attach(syscall(SYS_fsmount, (int)fs, 0, 0), argv[3]);
	}
	if (argc != 3) {
		fprintf(stderr, "usage: mount_via MODE DIR [TARGET]\n");
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
