/* inproc.c - the CPU cost per syscall of each recording mechanism, measured
 * in one process so that the host's other load falls on every mechanism
 * alike: rounds of batches of getppid, one batch per mechanism in an order
 * that rotates each round, each batch timed by CLOCK_THREAD_CPUTIME_ID with
 * its mechanism attached just before it and detached after it. Prints per
 * mechanism the median over rounds of (batch CPU / the same round's
 * untraced batch) [min-max], and the median ns per call.
 *   recorder-floor-inproc FLOOR_OBJ POLC_TRACE_OBJ ROUNDS BATCH [outside]
 * outside: the process stays outside the tested cgroup (what every other
 * task on the machine pays); otherwise it moves into it first. */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "floor_common.h"

/* a mechanism: programs (by name) of one object, attached together */
typedef struct { const char *name; struct bpf_object *obj; const char *progs; } mech;

static struct bpf_object *open_load(const char *path, const char *progs, int cgfd,
				    unsigned long long cgid, int floor_only)
{
	struct bpf_object *o = bpf_object__open_file(path, NULL);
	if (!o) {
		perror(path);
		exit(1);
	}
	struct bpf_map *m;
	bpf_object__for_each_map(m, o) {
		if (!strstr(bpf_map__name(m), ".rodata"))
			continue;
		size_t sz;
		void *v = (void *)bpf_map__initial_value(m, &sz);
		/* floor.bpf.c: cgid (u64); polc_trace.bpf.c: floor_only (u32) */
		if (v && progs && sz >= 8)
			memcpy(v, &cgid, 8);
		else if (v && !progs && sz >= 4)
			memcpy(v, &floor_only, 4);
	}
	struct bpf_program *p;
	if (progs) {
		char want[256];
		snprintf(want, sizeof want, ",%s,", progs);
		bpf_object__for_each_program(p, o) {
			char key[80];
			snprintf(key, sizeof key, ",%s,", bpf_program__name(p));
			bpf_program__set_autoload(p, strstr(want, key) != NULL);
		}
	}
	if (bpf_object__load(o)) {
		fprintf(stderr, "%s: load: %s\n", path, strerror(errno));
		exit(1);
	}
	int zero = 0, fd = bpf_object__find_map_fd_by_name(o, "cgrp");
	if (fd >= 0)
		bpf_map_update_elem(fd, &zero, &cgfd, BPF_ANY);
	return o;
}

static double cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static double batch(mech *m, long n)
{
	struct bpf_link *l[8];
	int nl = 0;
	struct bpf_program *p;
	if (m->obj)
		bpf_object__for_each_program(p, m->obj)
			if (bpf_program__autoload(p) && nl < 8 && (l[nl] = bpf_program__attach(p)))
				nl++;
	for (long i = 0; i < 2000; i++)   /* warm */
		syscall(SYS_getppid);
	double t0 = cpu_ns();
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	double t = cpu_ns() - t0;
	while (nl)
		bpf_link__destroy(l[--nl]);
	return t / n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 5)
		return 2;
	int rounds = atoi(argv[3]), outside = argc > 5 && !strcmp(argv[5], "outside");
	long n = atol(argv[4]);
	libbpf_set_print(floor_libbpf_print);
	char cg[300];
	snprintf(cg, sizeof cg, "%s/polc-floor-inproc.%d", cgroup2_root(), (int)getpid());
	if (mkdir(cg, 0755) < 0) {
		perror(cg);
		return 1;
	}
	int cgfd = open(cg, O_RDONLY | O_DIRECTORY);
	struct stat st;
	fstat(cgfd, &st);
	if (!outside) {
		char p[340];
		snprintf(p, sizeof p, "%s/cgroup.procs", cg);
		FILE *f = fopen(p, "w");
		if (!f || fprintf(f, "0\n") < 0 || fclose(f)) {
			perror(p);
			return 1;
		}
	}
	static const char *const fl[][2] = {
		{ "btf_enter", "btf_enter" }, { "btf_enter+exit", "btf_enter,btf_exit" },
		{ "raw_enter", "raw_enter" }, { "raw_enter+exit", "raw_enter,raw_exit" },
		{ "tp_enter", "tp_enter" }, { "tp_enter+exit", "tp_enter,tp_exit" },
		{ "cnt_enter", "cnt_enter" }, { "cntid_enter", "cntid_enter" },
	};
	enum { NFL = sizeof fl / sizeof fl[0], NM = NFL + 3 };
	mech m[NM] = { { "untraced", NULL, NULL } };
	for (int i = 0; i < NFL; i++)
		m[1 + i] = (mech){ fl[i][0], open_load(argv[1], fl[i][1], cgfd, st.st_ino, 0), fl[i][1] };
	m[NFL + 1] = (mech){ "polc-floor", open_load(argv[2], NULL, cgfd, 0, 1), NULL };
	m[NFL + 2] = (mech){ "polc-recorder", open_load(argv[2], NULL, cgfd, 0, 0), NULL };
	double *ns = calloc((size_t)rounds * NM, sizeof *ns);
	for (int r = 0; r < rounds; r++)
		for (int j = 0; j < NM; j++) {
			int k = (j + r) % NM;
			ns[r * NM + k] = batch(&m[k], n);
		}
	printf("%s the tested cgroup, %d rounds of %ld getppid per mechanism\n",
	       outside ? "outside" : "inside", rounds, n);
	double *v = calloc((size_t)rounds, sizeof *v), *w = calloc((size_t)rounds, sizeof *w);
	for (int k = 0; k < NM; k++) {
		for (int r = 0; r < rounds; r++) {
			v[r] = ns[r * NM + k] / ns[r * NM];
			w[r] = ns[r * NM + k];
		}
		qsort(v, rounds, sizeof *v, cmp);
		qsort(w, rounds, sizeof *w, cmp);
		printf("%-16s %.3f [%.3f-%.3f]  %.0f ns/call (min %.0f)\n", m[k].name, v[rounds / 2],
		       v[0], v[rounds - 1], w[rounds / 2], w[0]);
	}
	for (int k = 1; k < NM; k++)
		bpf_object__close(m[k].obj);
	if (!outside) {   /* back to the parent's cgroup, then remove ours */
		char p[340];
		snprintf(p, sizeof p, "%s/cgroup.procs", cgroup2_root());
		FILE *f = fopen(p, "w");
		if (f) {
			fprintf(f, "0\n");
			fclose(f);
		}
	}
	rmdir(cg);
	return 0;
}
