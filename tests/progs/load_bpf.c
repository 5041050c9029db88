/* load_bpf - install a raw seccomp BPF program (as `polc build --target
 * seccomp --format bpf` writes it) with plain prctl(2), then exit 0 or exec
 * a command under it.
 *   load_bpf FILE [CMD ARGS...]
 * Exit: 0 loaded (no CMD), 2 usage, 3 unreadable/bad size, 4 refused by the
 * kernel; with CMD, the command's status.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: load_bpf FILE [CMD ARGS...]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 3;
	}
	static struct sock_filter insns[BPF_MAXINSNS + 1];
	size_t n = fread(insns, 1, sizeof insns, f);
	fclose(f);
	if (n == 0 || n % sizeof insns[0] || n > BPF_MAXINSNS * sizeof insns[0]) {
		fprintf(stderr, "load_bpf: %s: %zu bytes is not a sock_filter array\n", argv[1], n);
		return 3;
	}
	struct sock_fprog prog = { (unsigned short)(n / sizeof insns[0]), insns };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		fprintf(stderr, "load_bpf: kernel refused the filter: %s\n", strerror(errno));
		return 4;
	}
	if (argc == 2)
		_exit(0);
	execvp(argv[2], argv + 2);
	_exit(127);
}
