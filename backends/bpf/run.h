/* run.h - backend_bpf's hooks that put a policy in the kernel (run.c):
 * polc load/unload/status (argv: the subcommand's), `polc run` confinement
 * in a cgroup of its own, and verify's probe confinement. Each returns an
 * exit code of base/base.h (probe hooks: 0 or -1 with why). */
#ifndef POLC_BPF_RUN_H
#define POLC_BPF_RUN_H

#include "../backend.h"

int bpf_load_cmd(int argc, char **argv);
int bpf_unload_cmd(int argc, char **argv);
int bpf_status_cmd(int argc, char **argv);
/* The cgroup bpf_confine puts process pid in: 0, or -1 without a cgroup
 * v2 hierarchy (`polc run --mode audit` reads its records). */
int bpf_run_cgroup(int pid, char *dir, size_t n);
int bpf_confine(const ir_policy *p, bool allow_partial);
bool bpf_available(char *why, size_t n);
int bpf_probe_load(const ir_policy *p, backend_confine *c, char *err, size_t n);
void bpf_probe_unload(backend_confine *c);
int bpf_probe_open(const backend_confine *c, char *why, size_t n);
int bpf_probe_enter(const backend_confine *c, int fd, char *why, size_t n);

#endif
