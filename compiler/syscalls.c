/* syscalls.c - see syscalls.h. */
#include "syscalls.h"
#include "util.h"

#include <pthread.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

static uint32_t scmp_arch(ir_arch a)
{
	return a == IR_ARCH_I386 ? SCMP_ARCH_X86 : a == IR_ARCH_X32 ? SCMP_ARCH_X32 : SCMP_ARCH_X86_64;
}

int sys_resolve(ir_arch a, const char *name)
{
	int nr = seccomp_syscall_resolve_name_arch(scmp_arch(a), name);
	return nr < 0 ? -1 : nr;
}

bool sys_name(ir_arch a, uint32_t nr, char *out, size_t n)
{
	char *s = seccomp_syscall_resolve_num_arch(scmp_arch(a), (int)nr);
	if (!s)
		return false;
	if (out && n) {
		strncpy(out, s, n - 1);
		out[n - 1] = 0;
	}
	free(s);
	return true;
}

/* Known numbers per ABI, cached: the oracle asks for every event. */
#define KNOWN_MAX 1024
static uint8_t known[IR_NARCH][KNOWN_MAX];
static const char **names;
static size_t nnames;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void build(void)
{
	names = xcalloc(KNOWN_MAX + 1, sizeof *names);
	for (int a = 0; a < IR_NARCH; a++)
		for (uint32_t i = 0; i < KNOWN_MAX; i++) {
			uint32_t nr = a == IR_ARCH_X32 ? i | IR_X32_SYSCALL_BIT : i;
			char *s = seccomp_syscall_resolve_num_arch(scmp_arch(a), (int)nr);
			known[a][i] = s != NULL;
			if (s && a == IR_ARCH_X86_64)
				names[nnames++] = s;
			else
				free(s);
		}
}

bool sys_known(ir_arch a, uint32_t nr)
{
	pthread_once(&once, build);
	if (a == IR_ARCH_X32) {
		if (!(nr & IR_X32_SYSCALL_BIT))
			return false;
		nr &= ~IR_X32_SYSCALL_BIT;
	}
	if (nr < KNOWN_MAX)
		return known[a][nr];
	return sys_name(a, a == IR_ARCH_X32 ? nr | IR_X32_SYSCALL_BIT : nr, NULL, 0);
}

const char *const *sys_names(size_t *n)
{
	pthread_once(&once, build);
	*n = nnames;
	return names;
}

static int cmp_argw(const void *k, const void *e)
{
	return strcmp(k, ((const sys_argwidth *)e)->name);
}

uint8_t sys_arg32(const char *name)
{
	const sys_argwidth *w = bsearch(name, polc_sys_argwidths, polc_sys_nargwidths,
					sizeof *w, cmp_argw);
	return w ? w->arg32 : 0;
}
