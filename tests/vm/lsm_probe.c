/* lsm_probe - load the lab's BPF LSM probe, run a command, unload.
 *
 * usage: lsm_probe CGROUP_DIR FILE CMD [ARGS...]
 * Attaches lsm/file_open (lsm_probe.bpf.c, embedded as a skeleton) so that
 * opening FILE fails with EPERM for tasks in the cgroup CGROUP_DIR (a
 * cgroup2 directory) and nowhere else, runs CMD (not moved into the
 * cgroup: CMD decides which of its children go there), detaches, prints
 * "lsm_probe: denials=N" on stderr and exits with CMD's status.
 * Exit 125 if the probe cannot be set up.  Only useful where BPF LSM is
 * active (the kernel lab); it refuses to load on this host (EPERM).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "lsm_probe.skel.h"

/* The cgroup id the kernel's bpf_get_current_cgroup_id() returns is the
 * cgroup2 directory's file handle (a 64-bit kernfs id). */
static int cgroup_id(const char *dir, __u64 *id)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h = { .fh.handle_bytes = sizeof(__u64) };
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, dir, &h.fh, &mount_id, 0) < 0)
		return -1;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

static int run(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "lsm_probe: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int setup(struct lsm_probe_bpf **out, const char *cg, const char *file)
{
	struct lsm_probe_bpf *skel;
	struct stat st;
	__u64 cgid;

	if (cgroup_id(cg, &cgid) < 0) {
		fprintf(stderr, "lsm_probe: %s: %s\n", cg, strerror(errno));
		return -1;
	}
	if (stat(file, &st) < 0) {
		fprintf(stderr, "lsm_probe: %s: %s\n", file, strerror(errno));
		return -1;
	}
	skel = lsm_probe_bpf__open();
	if (!skel)
		return -1;
	skel->rodata->target_cgid = cgid;
	skel->rodata->target_ino = st.st_ino;
	/* The kernel's dev_t encoding, not glibc's. */
	skel->rodata->target_dev = (major(st.st_dev) << 20) | minor(st.st_dev);
	if (lsm_probe_bpf__load(skel) || lsm_probe_bpf__attach(skel)) {
		fprintf(stderr, "lsm_probe: load/attach: %s\n", strerror(errno));
		lsm_probe_bpf__destroy(skel);
		return -1;
	}
	*out = skel;
	return 0;
}

int main(int argc, char **argv)
{
	struct lsm_probe_bpf *skel;
	int rc;

	if (argc < 4) {
		fprintf(stderr, "usage: lsm_probe CGROUP_DIR FILE CMD [ARGS...]\n");
		return 125;
	}
	if (setup(&skel, argv[1], argv[2]) < 0)
		return 125;
	rc = run(argv + 3);
	fprintf(stderr, "lsm_probe: denials=%llu\n", (unsigned long long)skel->bss->denials);
	lsm_probe_bpf__destroy(skel);
	return rc < 0 ? 125 : rc;
}
