/* compat_abi.c - try the same syscalls through the three x86 entry points
 * of a 64-bit process: the native `syscall` instruction, `int 0x80` (the
 * i386 ABI, i386 numbers) and the x32 ABI (x86_64 numbers | 0x40000000),
 * and say what each did. tests/vm/t_compat_abi.sh runs it unconfined and
 * under `polc run --target seccomp` to show that an x86_64 policy cannot
 * be bypassed through the other two.
 *
 *   compat_abi DIR    prints "ABI SYSCALL RESULT" lines, RESULT being "ok",
 *                     "errno NAME" or "signal NAME"; mkdir makes DIR/ABI,
 *                     so a bypass leaves a directory behind.
 *
 * Each attempt runs in a child of its own, so that a policy that kills
 * (SIGSYS), or a kernel without IA32 emulation (int 0x80 faults), reports
 * that attempt and the rest still run. Pointers passed through int 0x80
 * must fit in 32 bits: strings and buffers live in a MAP_32BIT mapping.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define X32_BIT 0x40000000L

typedef enum { NATIVE, I386, X32 } abi;
static const char *const abi_names[] = { "x86_64", "i386", "x32" };

/* One syscall: its number on each ABI, and what it needs. */
typedef struct {
	const char *name;
	long nr[3];            /* x86_64, i386, x32 (without the bit) */
	enum { NOARG, PATH, BUF } arg;
} call;

static const call calls[] = {
	{ "getpid", { SYS_getpid, 20, 39 }, NOARG },     /* the policy leaves it alone */
	{ "getppid", { SYS_getppid, 64, 110 }, NOARG },
	{ "uname", { SYS_uname, 122, 63 }, BUF },
	{ "mkdir", { SYS_mkdir, 39, 83 }, PATH },
};

static long int80(long nr, long a, long b)
{
	long ret;
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b)
			 : "memory", "r8", "r9", "r10", "r11");
	return (int)ret;   /* the i386 ABI returns 32 bits */
}

/* The raw result: >= 0, or -errno. */
static long attempt(abi w, const call *c, char *low, const char *dir)
{
	long arg0 = 0, arg1 = 0;
	if (c->arg == PATH) {
		snprintf(low, 256, "%s/%s", dir, abi_names[w]);
		arg0 = (long)low;
		arg1 = 0755;
	} else if (c->arg == BUF) {
		arg0 = (long)low;
	}
	if (w == I386)
		return int80(c->nr[I386], arg0, arg1);
	long r = syscall(w == X32 ? c->nr[X32] | X32_BIT : c->nr[NATIVE], arg0, arg1);
	return r < 0 ? -errno : r;
}

static void report(abi w, const call *c, int status)
{
	printf("%s %s ", abi_names[w], c->name);
	if (WIFSIGNALED(status)) {
		int s = WTERMSIG(status);
		printf("signal %s\n", s == SIGSYS ? "SIGSYS" : s == SIGSEGV ? "SIGSEGV" : strsignal(s));
	} else if (WEXITSTATUS(status) == 0) {
		printf("ok\n");
	} else {
		int e = WEXITSTATUS(status);
		const char *n = e == EPERM ? "EPERM" : e == EACCES ? "EACCES" : e == ENOSYS ? "ENOSYS" :
				e == EEXIST ? "EEXIST" : NULL;
		if (n)
			printf("errno %s\n", n);
		else
			printf("errno %d\n", e);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: compat_abi DIR\n");
		return 2;
	}
	char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
			 -1, 0);
	if (low == MAP_FAILED) {
		perror("mmap MAP_32BIT");
		return 2;
	}
	for (int w = NATIVE; w <= X32; w++)
		for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
			fflush(stdout);
			pid_t pid = fork();
			if (pid < 0) {
				perror("fork");
				return 2;
			}
			if (pid == 0) {
				long r = attempt((abi)w, &calls[i], low, argv[1]);
				_exit(r < 0 ? (int)(-r > 255 ? 255 : -r) : 0);
			}
			int st;
			if (waitpid(pid, &st, 0) < 0) {
				perror("waitpid");
				return 2;
			}
			report((abi)w, &calls[i], st);
		}
	return 0;
}
