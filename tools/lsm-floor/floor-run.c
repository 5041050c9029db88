/* floor-run - attach floor.bpf.o's allow-at-once programs in place of the
 * polc enforcer programs named, run a command, detach: the kernel's BPF LSM
 * dispatch cost for those hooks, with no enforcer's work in it (README.md).
 *   floor-run OBJ NAME[,NAME...] -- CMD [ARG...]
 * NAME is a polc program's name less "polc_" (file_open, task_alloc,
 * bprm_check...), as the links the loader pins are named
 * (/sys/fs/bpf/polc/link_polc_NAME). Exits with CMD's status; 125 when the
 * programs cannot be attached (a kernel without BPF LSM: lsm=...,bpf).
 * Build: see README.md. */
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_LINKS 64

/* The polc program a floor program stands for: "floor_file_open" ->
 * "file_open". */
static const char *name_of(const struct bpf_program *p)
{
	const char *n = bpf_program__name(p);
	return strncmp(n, "floor_", 6) ? n : n + 6;
}

static int listed(const char *names, const char *name)
{
	size_t n = strlen(name);
	for (const char *h = names; *h;) {
		size_t len = strcspn(h, ",");
		if (len == n && !strncmp(h, name, n))
			return 1;
		h += len + (h[len] == ',');
	}
	return 0;
}

static int names_in(const char *names)
{
	int n = 1;
	for (const char *h = names; *h; h++)
		n += *h == ',';
	return n;
}

static int run(char **cmd)
{
	pid_t pid = fork();
	if (pid < 0)
		return 126;
	if (!pid) {
		execvp(cmd[0], cmd);
		perror(cmd[0]);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) < 0)
		return 126;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	if (argc < 5 || strcmp(argv[3], "--")) {
		fprintf(stderr, "usage: floor-run OBJ NAME[,NAME...] -- CMD [ARG...]\n");
		return 2;
	}
	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "floor-run: cannot open %s\n", argv[1]);
		return 125;
	}
	struct bpf_program *p;
	int want = 0;
	bpf_object__for_each_program(p, obj) {
		int on = listed(argv[2], name_of(p));
		bpf_program__set_autoload(p, on);
		want += on;
	}
	struct bpf_link *links[MAX_LINKS];
	int n = 0, rc = 125;
	/* a name without a floor program (an enforcer hook floor.bpf.c lacks)
	 * would leave its dispatch out of the floor unseen */
	if (want != names_in(argv[2])) {
		fprintf(stderr, "floor-run: %s names %d programs, %s has %d of them\n", argv[2],
			names_in(argv[2]), argv[1], want);
		goto out;
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "floor-run: cannot load %s\n", argv[1]);
		goto out;
	}
	bpf_object__for_each_program(p, obj) {
		if (!bpf_program__autoload(p) || n == MAX_LINKS)
			continue;
		links[n] = bpf_program__attach_lsm(p);
		if (!links[n]) {
			fprintf(stderr, "floor-run: cannot attach %s\n", name_of(p));
			goto out;
		}
		n++;
	}
	if (n != want) {
		fprintf(stderr, "floor-run: %d of the programs named attached (%s)\n", n, argv[2]);
		goto out;
	}
	rc = run(argv + 4);
out:
	while (n > 0)
		bpf_link__destroy(links[--n]);
	bpf_object__close(obj);
	return rc;
}
