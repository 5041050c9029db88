/* syscalls.c - see syscalls.h. */
#include "syscalls.h"
#include "../base/strset.h"
#include "../base/util.h"

#include <pthread.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

static uint32_t scmp_arch(ir_arch a)
{
	return a == IR_ARCH_I386 ? SCMP_ARCH_X86 : a == IR_ARCH_X32 ? SCMP_ARCH_X32 : SCMP_ARCH_X86_64;
}

static void build(void);
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Is the generated table libseccomp's own, the library this process runs
 * with? (Read once; every thread computes the same answer.) */
static bool table_ok(void)
{
	static int ok = -1;
	if (ok < 0) {
		const struct scmp_version *v = seccomp_version();
		ok = v && v->major == polc_systab_version[0] && v->minor == polc_systab_version[1] &&
		     v->micro == polc_systab_version[2];
	}
	return ok;
}

/* polc_systab_byname's names, hashed: v[i] is byname[i]'s name */
static strset byname;
static pthread_once_t byname_once = PTHREAD_ONCE_INIT;

static void index_byname(void)
{
	for (size_t i = 0; i < polc_systab_nbyname; i++)
		strset_add(&byname, polc_systab_byname[i].name);
}

/* name's entry in polc_systab_byname, or -1 (absent, or not libseccomp's table) */
static long byname_index(const char *name)
{
	if (!table_ok())
		return -1;
	pthread_once(&byname_once, index_byname);
	return strset_find(&byname, name);
}

/* seccomp_syscall_resolve_name_arch(), from the table when it holds the
 * name (its entry i, from byname_index) */
static int lib_resolve_at(ir_arch a, const char *name, long i)
{
	if (i >= 0)
		return polc_systab_byname[i].nr[a];
	return seccomp_syscall_resolve_name_arch(scmp_arch(a), name);
}

static int lib_resolve_name(ir_arch a, const char *name)
{
	return lib_resolve_at(a, name, byname_index(name));
}

/* i386 names that libseccomp resolves to a pseudo number (the socket and
 * SysV IPC calls, multiplexed through socketcall(2)/ipc(2)) but that also
 * have a direct number (socket 359, recvmmsg 337, shmget 395, ...; Linux
 * 4.3+): the name means the direct syscall, as libseccomp's rules apply to it. */
typedef struct { const char *name; uint32_t nr; } direct_nr;
static direct_nr i386_direct[64];
static size_t ni386_direct;

/* sys_resolve's answer given libseccomp's (nr) */
static int resolved(ir_arch a, const char *name, int nr)
{
	if (nr < 0 && a == IR_ARCH_I386) {
		pthread_once(&once, build);
		for (size_t i = 0; i < ni386_direct; i++)
			if (!strcmp(i386_direct[i].name, name))
				return (int)i386_direct[i].nr;
	}
	return nr < 0 ? -1 : nr;
}

int sys_resolve(ir_arch a, const char *name)
{
	return resolved(a, name, lib_resolve_name(a, name));
}

void sys_resolve_abis(const char *name, int nr[IR_NARCH])
{
	long i = byname_index(name);
	for (int a = 0; a < IR_NARCH; a++)
		nr[a] = resolved((ir_arch)a, name, lib_resolve_at((ir_arch)a, name, i));
}

int sys_multiplexed(ir_arch a, uint32_t nr)
{
	if (a != IR_ARCH_I386)
		return -1;
	pthread_once(&once, build);
	for (size_t i = 0; i < ni386_direct; i++)
		if (i386_direct[i].nr == nr)
			return lib_resolve_name(IR_ARCH_I386, i386_direct[i].name) <= -200 ? 117 : 102;
	return -1;
}

/* Known numbers per ABI, cached: the oracle asks for every event. */
#define KNOWN_MAX 1024
static uint8_t known[IR_NARCH][KNOWN_MAX];
static const char *known_name[IR_NARCH][KNOWN_MAX];   /* libseccomp's name of each */
static const char **names;
static size_t nnames;

/* The cached name of (a, nr), or NULL when the cache does not cover nr. */
static const char *cached_name(ir_arch a, uint32_t nr, bool *covered)
{
	uint32_t i = nr;
	*covered = false;
	if (a == IR_ARCH_X32) {
		if (!(nr & IR_X32_SYSCALL_BIT))
			return NULL;
		i = nr & ~(uint32_t)IR_X32_SYSCALL_BIT;
	}
	if (i >= KNOWN_MAX || (unsigned)a >= IR_NARCH)
		return NULL;
	pthread_once(&once, build);
	*covered = true;
	return known_name[a][i];
}

bool sys_name(ir_arch a, uint32_t nr, char *out, size_t n)
{
	bool covered;
	const char *c = cached_name(a, nr, &covered);
	if (covered) {
		if (c && out && n) {
			strncpy(out, c, n - 1);
			out[n - 1] = 0;
		}
		return c != NULL;
	}
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

static void build(void)
{
	_Static_assert(KNOWN_MAX == SYS_TAB_MAX, "the generated table covers the cache");
	names = xcalloc(KNOWN_MAX + 1, sizeof *names);
	for (int a = 0; a < IR_NARCH; a++)
		for (uint32_t i = 0; i < KNOWN_MAX; i++) {
			uint32_t nr = a == IR_ARCH_X32 ? i | IR_X32_SYSCALL_BIT : i;
			/* libseccomp's answer (kept for the process's life) */
			const char *s = table_ok() ? polc_systab_name[a][i]
				       : seccomp_syscall_resolve_num_arch(scmp_arch(a), (int)nr);
			known[a][i] = s != NULL;
			known_name[a][i] = s;
			if (s && a == IR_ARCH_I386 && lib_resolve_name(IR_ARCH_I386, s) < 0 &&
			    ni386_direct < sizeof i386_direct / sizeof *i386_direct) {
				i386_direct[ni386_direct].name = s;
				i386_direct[ni386_direct++].nr = i;
			} else if (s && a == IR_ARCH_X86_64)
				names[nnames++] = s;
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

const uint8_t *sys_known_table(ir_arch a)
{
	pthread_once(&once, build);
	return known[a];
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
