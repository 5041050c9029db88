/* floor.c - attach the named programs of floor.bpf.o, run a command in a
 * fresh cgroup (the one the programs test), detach, print what attached.
 *   recorder-floor OBJ PROG[,PROG...]|none|nocg [--outside] -- CMD...
 * none: the fresh cgroup only; nocg: no cgroup, no program (untraced);
 * --outside: the command runs in the caller's cgroup, not the tested one
 * (what a task outside the workload pays). Prints "attach PROG ok" or
 * "attach PROG failed: ERR" on stderr; exits with the command's status,
 * or 125 when a program could not be attached. */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "floor_common.h"

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: recorder-floor OBJ PROGS|none|nocg [--outside] -- CMD...\n");
		return 2;
	}
	const char *obj_path = argv[1], *progs = argv[2];
	int i = 3, outside = 0;
	if (!strcmp(argv[i], "--outside")) {
		outside = 1;
		i++;
	}
	if (strcmp(argv[i], "--"))
		return 2;
	char **cmd = argv + i + 1;
	int nocg = !strcmp(progs, "nocg");
	char cg[300] = "";
	int cgfd = -1;
	if (!nocg) {
		snprintf(cg, sizeof cg, "%s/polc-floor.%d", cgroup2_root(), (int)getpid());
		if (mkdir(cg, 0755) < 0 || (cgfd = open(cg, O_RDONLY | O_DIRECTORY)) < 0) {
			perror(cg);
			return 125;
		}
	}
	struct bpf_object *obj = NULL;
	struct bpf_link *links[16];
	int nlinks = 0, rc = 0;
	if (!nocg && strcmp(progs, "none")) {
		libbpf_set_print(floor_libbpf_print);
		obj = bpf_object__open_file(obj_path, NULL);
		if (!obj) {
			perror(obj_path);
			return 125;
		}
		struct stat st;
		fstat(cgfd, &st);    /* cgroup id = the directory's inode */
		struct bpf_map *ro = bpf_object__find_map_by_name(obj, ".rodata");
		if (ro) {
			size_t sz;
			unsigned long long *v = (unsigned long long *)bpf_map__initial_value(ro, &sz);
			if (v && sz >= 8)
				*v = st.st_ino;
		}
		struct bpf_program *p;
		char want[512];
		snprintf(want, sizeof want, ",%s,", progs);
		bpf_object__for_each_program(p, obj) {
			char key[80];
			snprintf(key, sizeof key, ",%s,", bpf_program__name(p));
			bpf_program__set_autoload(p, strstr(want, key) != NULL);
		}
		if (bpf_object__load(obj)) {
			fprintf(stderr, "load failed: %s\n", strerror(errno));
			return 125;
		}
		int zero = 0;
		bpf_map_update_elem(bpf_object__find_map_fd_by_name(obj, "cgrp"), &zero, &cgfd, BPF_ANY);
		bpf_object__for_each_program(p, obj) {
			if (!bpf_program__autoload(p))
				continue;
			struct bpf_link *l = bpf_program__attach(p);
			int e = errno;
			if (!l) {
				fprintf(stderr, "attach %s failed: %s\n", bpf_program__name(p), strerror(e));
				rc = 125;
			} else {
				fprintf(stderr, "attach %s ok\n", bpf_program__name(p));
				links[nlinks++] = l;
			}
		}
	}
	int status = 0;
	if (!rc) {
		pid_t pid = fork();
		if (pid == 0) {
			char p[300];
			snprintf(p, sizeof p, "%s/cgroup.procs", cg);
			if (!nocg && !outside && write_control_file(p, "0") < 0) {
				perror(p);
				_exit(127);
			}
			execvp(cmd[0], cmd);
			perror(cmd[0]);
			_exit(127);
		}
		waitpid(pid, &status, 0);
	}
	for (int k = 0; k < nlinks; k++)
		bpf_link__destroy(links[k]);
	bpf_object__close(obj);
	if (!nocg) {
		char p[300];
		snprintf(p, sizeof p, "%s/cgroup.kill", cg);
		for (int k = 0; k < 100 && rmdir(cg) < 0 && errno == EBUSY; k++) {
			write_control_file(p, "1");
			usleep(10000);
		}
	}
	if (rc)
		return rc;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
