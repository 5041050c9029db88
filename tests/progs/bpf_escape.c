/* bpf_escape.c - a confined root process trying to get out from under the
 * BPF LSM enforcer (tests/vm/t_bpf_escape.sh runs it under
 * `polc run --target bpf`, one attempt per run):
 *
 *   bpf_escape ATTEMPT SECRET
 *
 * ATTEMPT is one of
 *   obj-get-map     BPF_OBJ_GET the pinned cgroup map, then delete its entries
 *   map-by-id       every map by id (BPF_MAP_GET_FD_BY_ID); delete the
 *                   entries of polc_cgroups
 *   obj-get-link    BPF_OBJ_GET a pinned link, then BPF_LINK_DETACH it
 *   link-by-id      every link by id, BPF_LINK_DETACH each
 *   prog-by-id      every program by id (an fd to the enforcer's programs)
 *   unlink-pins     unlink every pin under /sys/fs/bpf/polc (a link whose
 *                   last reference goes is detached)
 *   umount-bpffs    umount /sys/fs/bpf (the pins go with the last mount)
 *   umount-sys      umount -l /sys: the BPF filesystem below goes with it
 *   leave-cgroup    write our pid to the root cgroup's cgroup.procs
 *   clone-cgroup    clone3(CLONE_INTO_CGROUP) a child into the root cgroup
 *
 * It prints "ATTEMPT STEP RESULT" lines (RESULT "ok", "errno NAME", or a
 * count), then, after the attempt, whether it (or, for clone-cgroup, the
 * child) can still not read SECRET: "after read-secret errno EPERM" means
 * the policy still holds; "after read-secret ok" is an escape.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PIN_DIR "/sys/fs/bpf/polc"

static const char *ename(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EBUSY: return "EBUSY";
	case EBADF: return "EBADF";
	default: return strerror(e);
	}
}

static void say(const char *att, const char *step, long r)
{
	if (r < 0)
		printf("%s %s errno %s\n", att, step, ename(errno));
	else
		printf("%s %s ok\n", att, step);
	fflush(stdout);
}

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(SYS_bpf, cmd, a, sizeof *a);
}

static int obj_get(const char *path)
{
	union bpf_attr a;
	memset(&a, 0, sizeof a);
	a.pathname = (uint64_t)(uintptr_t)path;
	return (int)sys_bpf(BPF_OBJ_GET, &a);
}

/* Delete every entry of a map fd; returns how many went, -1 (errno) if the
 * first delete failed. */
static int delete_all(int fd)
{
	unsigned char key[64], next[64];
	union bpf_attr a;
	int n = 0;
	for (;;) {
		memset(&a, 0, sizeof a);
		a.map_fd = (uint32_t)fd;
		a.key = 0;
		a.next_key = (uint64_t)(uintptr_t)next;
		if (sys_bpf(BPF_MAP_GET_NEXT_KEY, &a) < 0)
			return n ? n : (errno == ENOENT ? 0 : -1);
		memcpy(key, next, sizeof key);
		memset(&a, 0, sizeof a);
		a.map_fd = (uint32_t)fd;
		a.key = (uint64_t)(uintptr_t)key;
		if (sys_bpf(BPF_MAP_DELETE_ELEM, &a) < 0)
			return n ? n : -1;
		n++;
	}
}

static int info_name(int fd, char *name, size_t n, int is_prog)
{
	union bpf_attr a;
	struct bpf_map_info mi;
	struct bpf_prog_info pi;
	memset(&a, 0, sizeof a);
	memset(&mi, 0, sizeof mi);
	memset(&pi, 0, sizeof pi);
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = is_prog ? sizeof pi : sizeof mi;
	a.info.info = is_prog ? (uint64_t)(uintptr_t)&pi : (uint64_t)(uintptr_t)&mi;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) < 0)
		return -1;
	snprintf(name, n, "%s", is_prog ? pi.name : mi.name);
	return 0;
}

/* Walk ids of one kind; open each; call f on the fd. Prints how many
 * opened and the first errno. */
static void by_id(const char *att, int next_cmd, int get_cmd, void (*f)(const char *, int))
{
	union bpf_attr a;
	uint32_t id = 0;
	int opened = 0, failed = 0, first = 0;
	for (;;) {
		memset(&a, 0, sizeof a);
		a.start_id = id;
		if (sys_bpf(next_cmd, &a) < 0) {
			if (errno != ENOENT && !failed++)
				first = errno;
			break;
		}
		id = a.next_id;
		memset(&a, 0, sizeof a);
		if (get_cmd == BPF_MAP_GET_FD_BY_ID)
			a.map_id = id;
		else if (get_cmd == BPF_PROG_GET_FD_BY_ID)
			a.prog_id = id;
		else
			a.link_id = id;
		int fd = (int)sys_bpf(get_cmd, &a);
		if (fd < 0) {
			if (!failed++)
				first = errno;
			continue;
		}
		opened++;
		if (f)
			f(att, fd);
		close(fd);
	}
	printf("%s opened %d, refused %d%s%s\n", att, opened, failed, failed ? " first errno " : "",
	       failed ? ename(first) : "");
	fflush(stdout);
}

static void map_by_id_f(const char *att, int fd)
{
	char name[32];
	if (info_name(fd, name, sizeof name, 0) == 0 && !strcmp(name, "polc_cgroups")) {
		int n = delete_all(fd);
		if (n < 0)
			say(att, "delete-polc_cgroups", -1);
		else
			printf("%s delete-polc_cgroups %d entries\n", att, n);
	}
}

static void prog_by_id_f(const char *att, int fd)
{
	char name[32];
	if (info_name(fd, name, sizeof name, 1) == 0 && !strncmp(name, "polc_", 5))
		printf("%s opened-enforcer-prog %s\n", att, name);
}

static void link_detach_f(const char *att, int fd)
{
	union bpf_attr a;
	memset(&a, 0, sizeof a);
	a.link_detach.link_fd = (uint32_t)fd;
	if (sys_bpf(BPF_LINK_DETACH, &a) == 0)
		printf("%s detached a link\n", att);
}

static void unlink_pins(const char *att)
{
	DIR *d = opendir(PIN_DIR);
	int ok = 0, bad = 0, first = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char p[512];
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", PIN_DIR, e->d_name);
		if (unlink(p) == 0)
			ok++;
		else if (!bad++)
			first = errno;
	}
	if (d)
		closedir(d);
	printf("%s unlinked %d, refused %d%s%s\n", att, ok, bad, bad ? " first errno " : "",
	       bad ? ename(first) : "");
}

static int read_secret(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static void after(const char *path)
{
	usleep(200000);   /* a released link is freed from a work queue */
	int e = read_secret(path);
	printf("after read-secret %s%s\n", e ? "errno " : "ok", e ? ename(e) : "");
}

static int clone_into_root(const char *att, const char *secret)
{
	int cg = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY);
	if (cg < 0) {
		say(att, "open-root-cgroup", -1);
		return 1;
	}
	struct clone_args ca;
	memset(&ca, 0, sizeof ca);
	ca.flags = CLONE_INTO_CGROUP;
	ca.exit_signal = SIGCHLD;
	ca.cgroup = (uint64_t)cg;
	long pid = syscall(SYS_clone3, &ca, sizeof ca);
	if (pid < 0) {
		say(att, "clone3", -1);
		close(cg);
		after(secret);
		return 0;
	}
	if (pid == 0)
		_exit(read_secret(secret));
	int st;
	waitpid((pid_t)pid, &st, 0);
	say(att, "clone3", 0);
	int e = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	printf("after read-secret %s%s (the child in the root cgroup)\n", e ? "errno " : "ok",
	       e > 0 ? ename(e) : "");
	close(cg);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: bpf_escape ATTEMPT SECRET\n");
		return 2;
	}
	const char *att = argv[1], *secret = argv[2];
	if (!strcmp(att, "obj-get-map")) {
		int fd = obj_get(PIN_DIR "/polc_cgroups");
		say(att, "obj-get", fd);
		if (fd >= 0) {
			int n = delete_all(fd);
			if (n < 0)
				say(att, "delete", -1);
			else
				printf("%s delete %d entries\n", att, n);
		}
	} else if (!strcmp(att, "map-by-id")) {
		by_id(att, BPF_MAP_GET_NEXT_ID, BPF_MAP_GET_FD_BY_ID, map_by_id_f);
	} else if (!strcmp(att, "obj-get-link")) {
		int fd = obj_get(PIN_DIR "/link_polc_file_open");
		say(att, "obj-get", fd);
		if (fd >= 0) {
			union bpf_attr a;
			memset(&a, 0, sizeof a);
			a.link_detach.link_fd = (uint32_t)fd;
			say(att, "detach", sys_bpf(BPF_LINK_DETACH, &a));
		}
	} else if (!strcmp(att, "link-by-id")) {
		by_id(att, BPF_LINK_GET_NEXT_ID, BPF_LINK_GET_FD_BY_ID, link_detach_f);
	} else if (!strcmp(att, "prog-by-id")) {
		by_id(att, BPF_PROG_GET_NEXT_ID, BPF_PROG_GET_FD_BY_ID, prog_by_id_f);
	} else if (!strcmp(att, "unlink-pins")) {
		unlink_pins(att);
	} else if (!strcmp(att, "umount-bpffs")) {
		say(att, "umount", umount2("/sys/fs/bpf", MNT_DETACH));
	} else if (!strcmp(att, "umount-sys")) {
		say(att, "umount", umount2("/sys", MNT_DETACH));
	} else if (!strcmp(att, "leave-cgroup")) {
		int fd = open("/sys/fs/cgroup/cgroup.procs", O_WRONLY);
		say(att, "open", fd);
		if (fd >= 0) {
			say(att, "write", write(fd, "0\n", 2));
			close(fd);
		}
	} else if (!strcmp(att, "clone-cgroup")) {
		return clone_into_root(att, secret);
	} else {
		fprintf(stderr, "bpf_escape: unknown attempt '%s'\n", att);
		return 2;
	}
	after(secret);
	return 0;
}
