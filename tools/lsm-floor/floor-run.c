/* floor-run - the kernel's BPF LSM dispatch alone, on the hooks of the polc
 * enforcer programs named (README.md). For each name, the hook and the
 * sleepability are read off the enforcer's own object (the program's
 * section: lsm/HOOK, or lsm.s/HOOK for a sleepable one), and a program of
 * two instructions that allows at once is loaded and attached there. Then
 * CMD runs, and every program is detached.
 *   floor-run ENFORCER_OBJ NAME[,NAME...] -- CMD [ARG...]
 *   floor-run ENFORCER_OBJ NAME[,NAME...] --check   (resolve only, print)
 *   floor-run ENFORCER_OBJ --list                   (every program's NAME)
 * NAME is a polc program's name less "polc_" (file_open, task_alloc...),
 * as the links the loader pins are named (/sys/fs/bpf/polc/link_polc_NAME).
 * The hooks come from the object polc's loader embeds, so no list of hooks
 * is kept twice. Exits with CMD's status; 125 when a name is not an LSM
 * program of the object or its hook is not in the running kernel's BTF
 * (nothing is loaded then), or when the kernel refuses the programs (no
 * BPF LSM: lsm=...,bpf); 2 on bad usage. */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_HOOKS 64

struct hook {
	char name[64];   /* the polc program's, less "polc_" */
	char hook[64];   /* the LSM hook: bpf_lsm_<hook> in the kernel's BTF */
	int sleepable;
	int btf_id;
};

/* The hook a section names (lsm/HOOK, or lsm.s/HOOK for a sleepable
 * program), or NULL when it names none. */
static const char *lsm_hook(const char *sec, int *sleepable)
{
	if (!strncmp(sec, "lsm.s/", 6)) {
		*sleepable = 1;
		return sec + 6;
	}
	if (!strncmp(sec, "lsm/", 4)) {
		*sleepable = 0;
		return sec + 4;
	}
	return NULL;
}

/* NAME's hook in the object: 0 when found, -1 when NAME is no LSM program. */
static int hook_of(struct bpf_object *obj, const char *name, struct hook *h)
{
	char prog[80];
	snprintf(prog, sizeof prog, "polc_%s", name);
	struct bpf_program *p = bpf_object__find_program_by_name(obj, prog);
	if (!p)
		return -1;
	const char *hook = lsm_hook(bpf_program__section_name(p), &h->sleepable);
	if (!hook)
		return -1;
	snprintf(h->name, sizeof h->name, "%s", name);
	snprintf(h->hook, sizeof h->hook, "%s", hook);
	return 0;
}

/* The hooks of the comma-separated names, each resolved in the kernel's
 * BTF; their count, or -1 after saying which name failed. */
static int resolve(struct bpf_object *obj, const char *names, const struct btf *vmlinux,
		   struct hook *hs)
{
	int n = 0;
	for (const char *s = names; *s;) {
		size_t len = strcspn(s, ",");
		char name[64];
		if (n == MAX_HOOKS || len == 0 || len >= sizeof name) {
			fprintf(stderr, "floor-run: bad name list '%s'\n", names);
			return -1;
		}
		memcpy(name, s, len);
		name[len] = 0;
		if (hook_of(obj, name, &hs[n])) {
			fprintf(stderr, "floor-run: %s has no LSM program polc_%s\n",
				bpf_object__name(obj), name);
			return -1;
		}
		char fn[96];
		snprintf(fn, sizeof fn, "bpf_lsm_%s", hs[n].hook);
		hs[n].btf_id = btf__find_by_name_kind(vmlinux, fn, BTF_KIND_FUNC);
		if (hs[n].btf_id < 0) {
			fprintf(stderr, "floor-run: the kernel's BTF has no %s (polc_%s)\n", fn, name);
			return -1;
		}
		n++;
		s += len + (s[len] == ',');
	}
	return n;
}

/* An allow-at-once program on hook h, attached: the link's fd, or -1. */
static int attach_floor(const struct hook *h, int *prog_fd)
{
	const struct bpf_insn allow[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_LSM_MAC,
		    .attach_btf_id = h->btf_id, .prog_flags = h->sleepable ? BPF_F_SLEEPABLE : 0);
	*prog_fd = bpf_prog_load(BPF_PROG_TYPE_LSM, "polc_floor", "GPL", allow, 2, &o);
	if (*prog_fd < 0) {
		fprintf(stderr, "floor-run: cannot load a program for %s: %s\n", h->hook,
			strerror(-*prog_fd));
		return -1;
	}
	int link = bpf_raw_tracepoint_open(NULL, *prog_fd);
	if (link < 0)
		fprintf(stderr, "floor-run: cannot attach on %s: %s\n", h->hook, strerror(-link));
	return link;
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

static void list(struct bpf_object *obj)
{
	struct bpf_program *p;
	bpf_object__for_each_program(p, obj) {
		const char *n = bpf_program__name(p);
		int sleepable;
		if (lsm_hook(bpf_program__section_name(p), &sleepable) && !strncmp(n, "polc_", 5))
			printf("%s\n", n + 5);
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: floor-run ENFORCER_OBJ NAME[,NAME...] -- CMD [ARG...]\n"
			"       floor-run ENFORCER_OBJ NAME[,NAME...] --check\n"
			"       floor-run ENFORCER_OBJ --list\n");
	return 2;
}

int main(int argc, char **argv)
{
	int listing = argc == 3 && !strcmp(argv[2], "--list");
	int checking = argc == 4 && !strcmp(argv[3], "--check");
	if (!listing && !checking && (argc < 5 || strcmp(argv[3], "--")))
		return usage();
	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "floor-run: cannot open %s\n", argv[1]);
		return 125;
	}
	if (listing) {
		list(obj);
		bpf_object__close(obj);
		return 0;
	}
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct hook hs[MAX_HOOKS];
	int links[MAX_HOOKS], progs[MAX_HOOKS], n = 0, rc = 125;
	int want = vmlinux ? resolve(obj, argv[2], vmlinux, hs) : -1;
	if (!vmlinux)
		fprintf(stderr, "floor-run: cannot read the kernel's BTF\n");
	if (want < 0)
		goto out;
	if (checking) {
		for (int i = 0; i < want; i++)
			printf("%s %s%s\n", hs[i].name, hs[i].hook, hs[i].sleepable ? " sleepable" : "");
		rc = 0;
		goto out;
	}
	for (; n < want; n++) {
		links[n] = attach_floor(&hs[n], &progs[n]);
		if (links[n] < 0) {
			if (progs[n] >= 0)
				close(progs[n]);
			goto out;
		}
	}
	rc = run(argv + 4);
out:
	while (n > 0) {
		n--;
		close(links[n]);
		close(progs[n]);
	}
	btf__free(vmlinux);
	bpf_object__close(obj);
	return rc;
}
