/* jited.c ID FILE - a loaded BPF program's JIT image (all its functions,
 * concatenated) into FILE, and on stdout one "func I ksym ADDR len N" line
 * per function and one "line ADDR LINE SOURCE" line per line-info record
 * (where the JIT code of source line LINE starts; lines.py attributes
 * tbprof's blocks by them). bpftool's jited dump needs libbfd, which the
 * host's bpftool lacks. Disassemble with objdump -D -b binary -mi386:x86-64. */
#include <bpf/bpf.h>
#include <bpf/btf.h>
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
	__u32 nli = info.nr_line_info, njl = info.nr_jited_line_info, btf_id = info.btf_id;
	unsigned char *buf = malloc(n ? n : 1);
	__u64 *ks = calloc(nf + 1, 8);
	__u32 *fl = calloc(nl + 1, 4);
	struct bpf_line_info *li = calloc(nli + 1, sizeof *li);
	__u64 *jl = calloc(njl + 1, 8);
	memset(&info, 0, sizeof info);
	info.jited_prog_len = n;
	info.jited_prog_insns = (unsigned long)buf;
	info.nr_jited_ksyms = nf;
	info.jited_ksyms = (unsigned long)ks;
	info.nr_jited_func_lens = nl;
	info.jited_func_lens = (unsigned long)fl;
	info.nr_line_info = nli;
	info.line_info_rec_size = sizeof *li;
	info.line_info = (unsigned long)li;
	info.nr_jited_line_info = njl;
	info.jited_line_info_rec_size = 8;
	info.jited_line_info = (unsigned long)jl;
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
	struct btf *btf = btf_id ? btf__load_from_kernel_by_id(btf_id) : NULL;
	for (__u32 i = 0; btf && i < nli && i < njl; i++) {
		const char *src = btf__name_by_offset(btf, li[i].line_off);
		printf("line %llx %u %s\n", (unsigned long long)jl[i], li[i].line_col >> 10,
		       src ? src : "");
	}
	return 0;
}
