/* jited.c ID FILE - a loaded BPF program's JIT image (all its functions,
 * concatenated) into FILE, and one "func I ksym ADDR len N" line per
 * function on stdout (bpftool's jited dump needs libbfd, which the host's
 * bpftool lacks). Disassemble with objdump -D -b binary -mi386:x86-64. */
#include <bpf/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: jited PROG_ID FILE\n");
		return 2;
	}
	int fd = bpf_prog_get_fd_by_id(atoi(argv[1]));
	struct bpf_prog_info info;
	__u32 len = sizeof info;
	memset(&info, 0, sizeof info);
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		perror("jited");
		return 1;
	}
	__u32 n = info.jited_prog_len, nf = info.nr_jited_ksyms, nl = info.nr_jited_func_lens;
	unsigned char *buf = malloc(n ? n : 1);
	__u64 *ks = calloc(nf + 1, 8);
	__u32 *fl = calloc(nl + 1, 4);
	memset(&info, 0, sizeof info);
	info.jited_prog_len = n;
	info.jited_prog_insns = (unsigned long)buf;
	info.nr_jited_ksyms = nf;
	info.jited_ksyms = (unsigned long)ks;
	info.nr_jited_func_lens = nl;
	info.jited_func_lens = (unsigned long)fl;
	len = sizeof info;
	FILE *f;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || !(f = fopen(argv[2], "wb"))) {
		perror("jited");
		return 1;
	}
	fwrite(buf, 1, n, f);
	fclose(f);
	for (__u32 i = 0; i < nf; i++)
		printf("func %u ksym %llx len %u\n", i, (unsigned long long)ks[i], i < nl ? fl[i] : 0);
	return 0;
}
