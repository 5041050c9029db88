/* verins - the instructions the verifier processed (bpf_prog_info.verified_insns)
 * to load each loaded program named polc_*, and their total: the cost of
 * installing the enforcer, which the 6.1 lab verifier pays on every first
 * polc load (install-cost.sh). Build: cc -O1 -o tools/lab-tbprof/verins
 * tools/lab-tbprof/verins.c -lbpf */
#include <bpf/bpf.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	__u32 id = 0;
	unsigned long long tot = 0;
	while (!bpf_prog_get_next_id(id, &id)) {
		int fd = bpf_prog_get_fd_by_id(id);
		struct bpf_prog_info info;
		__u32 len = sizeof info;
		memset(&info, 0, sizeof info);
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		if (!strncmp(info.name, "polc_", 5)) {
			printf("  %-24s %u\n", info.name, info.verified_insns);
			tot += info.verified_insns;
		}
	}
	printf("  total %llu\n", tot);
	return 0;
}
