/* gen.c - a policy from traces (see gen.h). */
#include "gen.h"
#include "../import/source.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "../compiler/compile.h"
#include "../compiler/consts.h"
#include "../compiler/syscalls.h"
#include "../base/strset.h"

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- path generalisation ---- */

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static void put_escaped(buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (strchr("*?[]{}\\", s[i]))
			buf_puts(b, "\\");
		buf_put(b, s + i, 1);
	}
}

/* Where a temp name's random part starts, or -1: the trailing run of >= 6
 * alphanumerics (after a "tmp" prefix), mixed (digit and letter, or upper
 * and lower case) so that plain words are left alone. mkstemp gives six,
 * mktemp(1) ten. */
static long random_tail(const char *s, size_t n)
{
	size_t st = n;
	while (st > 0 && isalnum((unsigned char)s[st - 1]))
		st--;
	if (n - st > 3 && !strncmp(s + st, "tmp", 3))
		st += 3;
	if (n - st < 6)
		return -1;
	bool dig = false, up = false, lo = false;
	for (size_t i = st; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		dig |= isdigit(c) != 0, up |= isupper(c) != 0, lo |= islower(c) != 0;
	}
	return ((dig && (up || lo)) || (up && lo)) ? (long)st : -1;
}

/* A component with runs of >= 3 digits (pids, sequence numbers) as '*'. */
static void put_digits_star(buf *b, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		while (j < n && isdigit((unsigned char)s[j]))
			j++;
		if (j - i >= 3) {
			buf_puts(b, "*");
			i = j;
		} else if (j > i) {
			put_escaped(b, s + i, j - i);
			i = j;
		} else {
			put_escaped(b, s + i, 1);
			i++;
		}
	}
}

static bool under_tmp(const char *p)
{
	static const char *const roots[] = { "/tmp/", "/var/tmp/", "/dev/shm/", NULL };
	for (int i = 0; roots[i]; i++)
		if (strncmp(p, roots[i], strlen(roots[i])) == 0)
			return true;
	return false;
}

/* A device instance name: the class's letters, then its unit number
 * ("loop3", "zram0", "virtio2", "ttyS1", "nvme0n1"): the length of the
 * class part, or 0. */
static size_t device_class(const char *s, size_t n)
{
	size_t d = n;
	while (d > 0 && isdigit((unsigned char)s[d - 1]))
		d--;
	if (d == n || d == 0)
		return 0;
	for (size_t i = 0; i < d; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return 0;
	return d;
}

/* A bus address or device number: "0000:00:03.0", "pci0000:00", "7:0". */
static bool bus_address(const char *s, size_t n)
{
	if (n > 3 && !strncmp(s, "pci", 3))
		s += 3, n -= 3;
	bool colon = false;
	for (size_t i = 0; i < n; i++) {
		colon |= s[i] == ':';
		if (!isxdigit((unsigned char)s[i]) && s[i] != ':' && s[i] != '.')
			return false;
	}
	return colon;
}

/* A shared library with a version after .so ("libssl.so.3"). */
static bool versioned_lib(const char *s, size_t n)
{
	const char *so = n > 3 && !strncmp(s, "lib", 3) ? strstr(s, ".so.") : NULL;
	return so && (size_t)(so - s) + 4 < n && isdigit((unsigned char)so[4]);
}

/* One component under /sys or /dev, by device class rather than this
 * host's instances; false if it is not a device name. */
static bool put_device(buf *b, const char *s, size_t n)
{
	size_t d = device_class(s, n);
	/* disks named by letters: sda, vdb, hdc, xvda */
	size_t disk = n > 3 && !strncmp(s, "xvd", 3) ? 3 :
		      n > 2 && strchr("shv", s[0]) && s[1] == 'd' ? 2 : 0;
	if (disk && strspn(s + disk, "abcdefghijklmnopqrstuvwxyz") == n - disk) {
		put_escaped(b, s, disk);
		buf_puts(b, "[a-z]*");
	} else if (all_digits(s, n)) {
		buf_puts(b, "[0-9]*");
	} else if (bus_address(s, n)) {
		buf_puts(b, n > 3 && !strncmp(s, "pci", 3) ? "pci*" : "*:*");
	} else if (d) {
		put_escaped(b, s, d);
		buf_puts(b, "[0-9]*");
	} else {
		return false;
	}
	return true;
}

char *gen_generalize_path(const char *path, bool written)
{
	buf b;
	buf_init(&b);
	bool tmp = under_tmp(path);
	bool proc = strncmp(path, "/proc/", 6) == 0;
	bool dev = !tmp && (!strncmp(path, "/sys/", 5) || !strncmp(path, "/dev/", 5));
	int idx = 0;
	const char *s = path;
	while (*s == '/') {
		s++;
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		bool last = !e;
		idx++;
		buf_puts(&b, "/");
		if (proc && idx == 2 && (all_digits(s, n) || (n == 4 && !strncmp(s, "self", 4))))
			buf_puts(&b, "*");
		else if (proc && idx == 2 && n == 11 && !strncmp(s, "thread-self", 11))
			buf_puts(&b, "*/task/*");
		else if (proc && idx == 4 && all_digits(s, n) && strstr(path, "/task/"))
			buf_puts(&b, "*");
		else if (dev && idx >= 2 && put_device(&b, s, n))
			;
		else if (last && n > 1 && s[0] == '#' && all_digits(s + 1, n - 1))
			buf_puts(&b, "#[0-9]*");   /* O_TMPFILE: the kernel names it #<inode> */
		else if (last && !strncmp(s, "#sql", 4)) {
			/* MySQL/MariaDB temporary tables: #sql-<pid>-<thread>-<n>.EXT */
			const char *dot = memrchr(s, '.', n);
			buf_puts(&b, "#sql*");
			if (dot)
				put_escaped(&b, dot, n - (size_t)(dot - s));
		}
		else if (last && !written && versioned_lib(s, n))
			buf_puts(&b, "lib*.so*");
		else if (tmp && idx >= 2 && random_tail(s, n) >= 0) {
			put_escaped(&b, s, (size_t)random_tail(s, n));
			buf_puts(&b, "*");
		} else if ((written || tmp) && last)
			put_digits_star(&b, s, n);
		else
			put_escaped(&b, s, n);
		s += n;
	}
	if (!b.len)
		buf_puts(&b, "/");
	return buf_cstr(&b);
}

/* Collapse: a directory with >= T entries becomes dir/\*; a directory
 * (at least two levels deep) holding >= 2 collapsed subdirectories becomes
 * dir/\**. Entries covered by a new glob are dropped. */
static char *parent_of(const char *p)
{
	const char *sl = strrchr(p, '/');
	return xstrndup(p, sl ? (size_t)(sl - p) : 0);
}

static int depth(const char *p)
{
	int d = 0;
	for (; *p; p++)
		d += *p == '/';
	return d;
}

static bool covered(const char *path, const char *dir, bool deep)
{
	size_t n = strlen(dir);
	if (strncmp(path, dir, n) != 0 || path[n] != '/' || !path[n + 1])
		return false;
	return deep || !strchr(path + n + 1, '/');
}

/* The directory an entry counts towards: its parent; in deep mode only
 * collapsed "X/child/\*" entries count, towards X. NULL: counts nowhere. */
static char *group_of(const char *e, bool deep)
{
	size_t l = strlen(e);
	if (!deep)
		return parent_of(e);
	if (l < 2 || strcmp(e + l - 2, "/*") != 0)
		return NULL;
	char *par = xstrndup(e, l - 2);
	char *gp = parent_of(par);
	free(par);
	return gp;
}

/* Directories shared by every program, never collapsed to dir/\**: a
 * few libraries read there are not a licence for all of them (python's
 * /usr/lib/python3.11/\* and /usr/lib/python3/\* made /usr/lib/\**). */
static bool shared_root(const char *dir)
{
	static const char *const roots[] = { "/usr/lib/x86_64-linux-gnu", "/usr/local/lib",
		"/usr/local/share", "/usr/lib64", NULL };
	if (depth(dir) < 3)
		return true;
	for (int i = 0; roots[i]; i++)
		if (!strcmp(dir, roots[i]))
			return true;
	return false;
}

/* Whether dir (or, deep, anything under it) holds an entry recorded
 * without the permission being collapsed: such a directory is not
 * collapsed, so a glob never grants a file what it was not seen doing
 * (a read-only script beside written data files stays read-only). */
static bool blocked_dir(const strset *blocked, const char *dir, bool deep)
{
	size_t n = strlen(dir);
	for (size_t i = 0; blocked && i < blocked->n; i++)
		if (!strcmp(blocked->v[i], dir) ||
		    (deep && !strncmp(blocked->v[i], dir, n) && blocked->v[i][n] == '/'))
			return true;
	return false;
}

/* Whether a path in seen ("w\x01r" entries) lies under dir r: then r was
 * a directory (opened to list it), not a file never written. */
static bool is_parent(const strset *seen, const char *r)
{
	size_t n = strlen(r);
	for (size_t i = 0; i < seen->n; i++) {
		const char *q = strchr(seen->v[i], '\x01') + 1;
		if (!strncmp(q, r, n) && q[n] == '/')
			return true;
	}
	return false;
}

/* Whether a dir/\* or dir/\** glob in s covers path. */
static bool glob_covers(const strset *s, const char *path)
{
	for (size_t g = 0; g < s->n; g++) {
		size_t l = strlen(s->v[g]);
		bool deep = l > 3 && !strcmp(s->v[g] + l - 3, "/**");
		if (!deep && (l < 2 || strcmp(s->v[g] + l - 2, "/*")))
			continue;
		char *dir = xstrndup(s->v[g], l - (deep ? 3 : 2));
		bool c = covered(path, dir, deep);
		free(dir);
		if (c)
			return true;
	}
	return false;
}

/* A data directory: where a command keeps what it works on, not a system
 * directory (/usr, /etc, /proc, ...), a top-level one (/, /tmp, /srv) nor
 * one that holds every service's own (/var/lib, /var/log, ...).
 * Three generalisations need one:
 *   - the working directory a run started in (meta cwd): another run reads
 *     or writes other files there (a web root, a project), so paths reached
 *     under it become WD/\** unless (other than for writes: see gen_files)
 *     it holds an entry seen without the permission;
 *   - directory listings (see listing_rules);
 *   - trees the workload made (see owned_trees). */
static bool data_dir(const char *cwd)
{
	static const char *const sys[] = { "/usr", "/etc", "/proc", "/sys", "/dev", "/boot",
		"/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/run", "/var/run",
		"/var/lib/dpkg", "/var/cache", NULL };
	static const char *const shared[] = { "/var/lib", "/var/log", "/var/spool", "/var/tmp",
		"/var/mail", "/var/opt", "/var/local", "/var/backups", NULL };
	if (cwd[0] != '/' || depth(cwd) < 2)
		return false;
	for (int i = 0; sys[i]; i++) {
		size_t n = strlen(sys[i]);
		if (!strncmp(cwd, sys[i], n) && (!cwd[n] || cwd[n] == '/'))
			return false;
	}
	for (int i = 0; shared[i]; i++)
		if (!strcmp(cwd, shared[i]))
			return false;
	return true;
}

/* strset_remove_if's test: path in dir (deep: anywhere under it). */
struct under { const char *dir; bool deep; };

static bool is_under(const char *path, void *ctx)
{
	const struct under *u = ctx;
	return covered(path, u->dir, u->deep);
}

/* Replace the entries of s in dir (deep: anywhere under it) by dir/\*
 * (dir/\**); true if any was. */
static bool collapse_under(strset *s, const char *dir, bool deep)
{
	if (!strset_remove_if(s, is_under, &(struct under){ dir, deep }))
		return false;
	strset_take(s, xasprintf("%s/%s", dir, deep ? "**" : "*"));
	strset_sort(s);
	return true;
}

/* Replace the entries of s under cwd by cwd/\**; true if any was. */
static bool collapse_cwd(strset *s, const char *cwd, const strset *blocked)
{
	return !blocked_dir(blocked, cwd, true) && collapse_under(s, cwd, true);
}

/* strset_remove_if's test: a glob of g (dir/\* globs, or deep dir/\**)
 * covers path. */
struct globs { const strset *g; bool deep; };

static bool under_a_glob(const char *path, void *ctx)
{
	const struct globs *gs = ctx;
	bool drop = false;
	for (size_t g = 0; g < gs->g->n && !drop; g++) {
		size_t l = strlen(gs->g->v[g]);
		char *dir = xstrndup(gs->g->v[g], l - (gs->deep ? 3 : 2));
		drop = covered(path, dir, gs->deep);
		free(dir);
	}
	return drop;
}

static void collapse_level(strset *s, unsigned T, bool deep, const strset *blocked)
{
	strset groups = { 0 }, globs = { 0 };
	size_t *count = NULL, cap = 0;   /* entries of s in each of groups */
	for (size_t i = 0; i < s->n; i++) {
		char *g = group_of(s->v[i], deep);
		if (!g)
			continue;
		long k = strset_find(&groups, g);
		if (k < 0) {
			strset_take(&groups, g);
			xgrow(&count, &cap, groups.n, sizeof *count);
			count[k = (long)groups.n - 1] = 0;
		} else {
			free(g);
		}
		count[k]++;
	}
	for (size_t i = 0; i < groups.n; i++) {
		const char *dir = groups.v[i];
		bool ok = *dir && (deep ? count[i] >= 2 && !shared_root(dir) : count[i] >= T) &&
			  !blocked_dir(blocked, dir, deep);
		if (ok)
			strset_take(&globs, xasprintf("%s/%s", dir, deep ? "**" : "*"));
	}
	strset_free(&groups);
	free(count);
	if (!globs.n)
		return;
	strset_remove_if(s, under_a_glob, &(struct globs){ &globs, deep });
	for (size_t g = 0; g < globs.n; g++)
		strset_add(s, globs.v[g]);
	strset_free(&globs);
	strset_sort(s);
}

/* ---- the policy text ---- */

static bool result_ok(const gen_opts *o, const char *res, bool connect)
{
	/* A non-blocking connect in progress is a connect that was allowed. */
	return o->include_failed || !strcmp(res, "ok") ||
	       (connect && !strcmp(res, "EINPROGRESS"));
}

static const char *const file_perms[] = { "read", "write", "append", "exec", "mmap",
	"link", "lock" };
enum { NPERM = 7 };

static unsigned perm_bit(const char *p)
{
	for (int i = 0; i < NPERM; i++)
		if (!strcmp(p, file_perms[i]))
			return 1u << i;
	return 0;
}

typedef struct {
	const ir_policy *base;     /* NULL: no base */
} gen_ctx;

static bool base_allows(const gen_ctx *c, const ir_event *ev)
{
	return c->base && ir_decide(c->base, ev).verdict == IR_ALLOW;
}

static int arch_of(const char *a)
{
	return !strcmp(a, "i386") ? IR_ARCH_I386 : !strcmp(a, "x32") ? IR_ARCH_X32 : IR_ARCH_X86_64;
}

/* ---- syscall families ----
 *
 * A recorded syscall implies the other entry points to the same operation
 * on the same kind of object: libc, the language runtime or a code path
 * the soak run did not take picks one of them (fstat or newfstatat or
 * statx; getdents64 on a directory that getdents read before; nanosleep or
 * clock_nanosleep). A family never crosses into another risk class: each
 * acts only on the process itself, memory it already has, or descriptors
 * it already holds, and none mounts, traces, loads BPF or modules, touches
 * keys or namespaces, changes credentials or the clock (tests/t_gen_families.sh
 * checks every member against Docker's default allow-list and that list).
 * Writes are a family of their own: a recorded read never implies a write. */
static const char *const fam_stat[] = { "stat", "fstat", "lstat", "newfstatat", "statx", NULL };
static const char *const fam_access[] = { "access", "faccessat", "faccessat2", NULL };
static const char *const fam_readlink[] = { "readlink", "readlinkat", NULL };
static const char *const fam_getdents[] = { "getdents", "getdents64", NULL };
static const char *const fam_open[] = { "open", "openat", "openat2", NULL };
static const char *const fam_read[] = { "read", "readv", "pread64", "preadv", "preadv2", NULL };
static const char *const fam_write[] = { "write", "writev", "pwrite64", "pwritev", "pwritev2",
	"ftruncate", "fallocate", NULL };
static const char *const fam_sync[] = { "fsync", "fdatasync", "sync_file_range", NULL };
static const char *const fam_close[] = { "close", "close_range", "shutdown", NULL };
static const char *const fam_dup[] = { "dup", "dup2", "dup3", NULL };
static const char *const fam_pipe[] = { "pipe", "pipe2", NULL };
static const char *const fam_wait[] = { "poll", "ppoll", "select", "pselect6", "epoll_wait",
	"epoll_pwait", "epoll_pwait2", "nanosleep", "clock_nanosleep", NULL };
static const char *const fam_epoll_create[] = { "epoll_create", "epoll_create1", NULL };
static const char *const fam_accept[] = { "accept", "accept4", NULL };
static const char *const fam_sockname[] = { "getsockname", "getpeername", NULL };
static const char *const fam_clock[] = { "clock_gettime", "clock_getres", "gettimeofday", "time",
	NULL };
static const char *const fam_memory[] = { "mmap", "munmap", "mremap", "mprotect", "madvise",
	"brk", NULL };
static const char *const fam_self[] = { "getpid", "gettid", "getppid", "getrusage", "times",
	NULL };
static const char *const fam_ids[] = { "getuid", "geteuid", "getgid", "getegid", "getresuid",
	"getresgid", "getgroups", NULL };
static const char *const fam_signal[] = { "rt_sigaction", "rt_sigprocmask", "rt_sigreturn",
	"sigaltstack", NULL };
static const char *const fam_reap[] = { "wait4", "waitid", NULL };
static const char *const fam_exit[] = { "exit", "exit_group", NULL };
static const char *const fam_mkdir[] = { "mkdir", "mkdirat", NULL };
static const char *const fam_rename[] = { "rename", "renameat", "renameat2", NULL };
static const char *const fam_eventfd[] = { "eventfd", "eventfd2", NULL };

static const gen_family families[] = {
	{ "stat", "one read-only metadata query; libc picks the entry point by version and call", fam_stat, false },
	{ "access", "one permission query; libc picks the entry point by version", fam_access, false },
	{ "readlink", "reading a link, by path or relative to a directory descriptor", fam_readlink, false },
	{ "getdents", "listing a directory already opened; 64-bit and legacy records", fam_getdents, false },
	{ "open", "opening by path; what may be opened is the file rules' business", fam_open, false },
	{ "read", "reading from descriptors already held, at the offset or at one given", fam_read, false },
	{ "write", "writing to descriptors already open for writing (ftruncate and fallocate need one too)", fam_write, false },
	{ "sync", "flushing descriptors already held (not the system-wide sync/syncfs)", fam_sync, false },
	{ "close", "releasing descriptors already held (shutdown ends a connection the process has)", fam_close, false },
	{ "dup", "duplicating descriptors already held", fam_dup, false },
	{ "pipe", "a pipe with or without flags", fam_pipe, false },
	{ "wait", "blocking until descriptors already held are ready or a time has passed "
	  "(a poll on no descriptors is a sleep)", fam_wait, false },
	{ "epoll-create", "creating an epoll set, with or without flags", fam_epoll_create, false },
	{ "accept", "accepting on a socket already listening, with or without flags", fam_accept, false },
	{ "sockname", "the addresses of a socket already held", fam_sockname, false },
	{ "clock", "reading the clocks (never setting them): the vDSO answers these without a "
	  "syscall, so a trace rarely shows them and the syscall forms grant nothing new", fam_clock,
	  true },
	{ "memory", "mapping, remapping, protecting and releasing the process's own memory", fam_memory, false },
	{ "self", "reading facts about the process itself, its ids and its resource usage "
	  "(never another process's, never changing them)", fam_self, false },
	{ "ids", "reading the process's own credentials (never changing them)", fam_ids, false },
	{ "signal", "handling signals: a handler installed must be able to return (rt_sigreturn)", fam_signal, false },
	{ "reap", "reaping the process's own children", fam_reap, false },
	{ "exit", "ending a thread or the process", fam_exit, false },
	{ "mkdir", "making a directory, by path or relative to a directory descriptor", fam_mkdir, false },
	{ "rename", "renaming, by path or relative to directory descriptors", fam_rename, false },
	{ "eventfd", "an eventfd with or without flags", fam_eventfd, false },
};

const gen_family *gen_families(size_t *n)
{
	*n = sizeof families / sizeof *families;
	return families;
}

const gen_family *gen_family_of(const char *sys)
{
	for (size_t f = 0; f < sizeof families / sizeof *families; f++)
		for (const char *const *m = families[f].members; *m; m++)
			if (!strcmp(*m, sys))
				return &families[f];
	return NULL;
}

/* One syscall in the allow list: recorded (count) or added by a family. */
typedef struct {
	int arch;
	const char *name;
	uint64_t count;
	const gen_family *fam;     /* non-NULL: added by this family */
} sys_entry;

static int entry_cmp(const void *a, const void *b)
{
	const sys_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->arch - y->arch;
}

static bool sys_allowed_by_base(const gen_ctx *c, int a, int nr)
{
	ir_event ev = { .domain = IR_SYSCALL };
	ev.u.sys.audit_arch = ir_arch_audit((ir_arch)a);
	ev.u.sys.nr = (uint32_t)nr;
	return base_allows(c, &ev);
}

static bool entry_has(const sys_entry *e, size_t n, int arch, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (e[i].arch == arch && !strcmp(e[i].name, name))
			return true;
	return false;
}

/* The members a family adds on arch a, given the recorded syscalls rec
 * (which include those the base allows): appended to e, each said in a
 * comment at the top of the list. */
static size_t add_family(const gen_ctx *c, const gen_family *f, int a, const sys_entry *rec,
			 size_t nrec, sys_entry *e, size_t n, buf *note, bool implied)
{
	bool seen = implied;
	for (size_t i = 0; f->always && i < nrec && !seen; i++)
		seen = rec[i].arch == a;   /* any syscall on this ABI */
	for (const char *const *m = f->members; *m && !seen; m++)
		seen = entry_has(rec, nrec, a, *m);
	if (!seen)
		return n;
	size_t n0 = n;
	for (const char *const *m = f->members; *m; m++) {
		int nr = sys_resolve((ir_arch)a, *m);
		if (nr < 0 || entry_has(rec, nrec, a, *m) || sys_allowed_by_base(c, a, nr))
			continue;
		e[n++] = (sys_entry){ a, *m, 0, f };
	}
	if (n > n0) {
		buf_printf(note, "  # family %s%s%s: %s%s; adds", f->name, a ? " on " : "",
			   a == IR_ARCH_I386 ? "i386" : a == IR_ARCH_X32 ? "x32" : "", f->reason,
			   implied ? " (the directory listings the file rules allow)" : "");
		for (size_t i = n0; i < n; i++)
			buf_printf(note, " %s", e[i].name);
		buf_puts(note, "\n");
	}
	return n;
}

/* listed: the file rules allow directory listings (listing_rules), which
 * need the getdents family to be of use. */
static void gen_syscalls(const gen_ctx *c, const gen_opts *o, tr_rec **v, size_t n, bool listed,
			 buf *out)
{
	unsigned arches = 0;
	size_t nrec = 0, nsel = 0, nfam = sizeof families / sizeof *families, cap = n + 1;
	for (size_t f = 0; f < nfam; f++)
		for (const char *const *m = families[f].members; *m; m++)
			cap += 3;
	sys_entry *rec = xmalloc((n + 1) * sizeof *rec), *sel = xmalloc(cap * sizeof *sel);
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_SYSCALL)
			continue;
		int a = arch_of(v[i]->f[0]);
		int nr = sys_resolve((ir_arch)a, v[i]->f[1]);
		if (nr < 0) {
			buf_printf(out, "  # syscall %s on %s (%llu calls) is unknown to polc\n",
				   v[i]->f[1], v[i]->f[0], (unsigned long long)v[i]->count);
			continue;
		}
		rec[nrec++] = (sys_entry){ a, v[i]->f[1], v[i]->count, NULL };
		if (!sys_allowed_by_base(c, a, nr))
			sel[nsel++] = rec[nrec - 1];
	}
	buf note;
	buf_init(&note);
	if (!o->no_families)
		for (int a = IR_ARCH_X86_64; a <= IR_ARCH_X32; a++)
			for (size_t f = 0; f < nfam; f++)
				nsel = add_family(c, &families[f], a, rec, nrec, sel, nsel, &note,
						  listed && a == IR_ARCH_X86_64 &&
						  families[f].members == fam_getdents);
	for (size_t i = 0; i < nsel; i++)
		arches |= 1u << sel[i].arch;
	/* One list, sorted by name. */
	xqsort(sel, nsel, sizeof *sel, entry_cmp);
	if (arches & ~1u) {
		buf_puts(out, "  arch x86_64");
		if (arches & (1u << IR_ARCH_I386)) buf_puts(out, ", i386");
		if (arches & (1u << IR_ARCH_X32)) buf_puts(out, ", x32");
		buf_puts(out, ";\n");
	}
	if (note.len) {
		buf_puts(out, "  # Generalised by syscall families (polc gen --no-families: without);\n"
			      "  # each member is another entry point to an operation recorded:\n");
		buf_put(out, note.data, note.len);
	}
	buf_free(&note);
	if (nsel) {
		buf_puts(out, "  allow syscall\n");
		for (size_t i = 0; i < nsel; i++) {
			/* Same name on two arches: one entry with both counts. */
			uint64_t cnt = sel[i].count;
			const gen_family *fam = sel[i].fam;
			size_t j = i;
			while (j + 1 < nsel && !strcmp(sel[j + 1].name, sel[i].name)) {
				cnt += sel[++j].count;
				fam = fam && sel[j].fam ? fam : NULL;
			}
			bool lastone = j + 1 == nsel;
			char item[128];
			snprintf(item, sizeof item, "    %s%s", sel[i].name, lastone ? ";" : ",");
			if (fam)
				buf_printf(out, "%-32s # family %s\n", item, fam->name);
			else
				buf_printf(out, "%-32s # %llu\n", item, (unsigned long long)cnt);
			i = j;
		}
	}
	free(rec);
	free(sel);
}

/* The ELF interpreter (PT_INTERP) of the program at path, resolved as the
 * kernel opens it, or NULL (not on this host, not ELF64, static). */
static char *elf_interp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *res = NULL;
	Elf64_Ehdr eh;
	if (fread(&eh, sizeof eh, 1, f) == 1 && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
		for (unsigned i = 0; i < eh.e_phnum && i < 256 && !res; i++) {
			Elf64_Phdr ph;
			if (fseek(f, (long)(eh.e_phoff + (Elf64_Off)i * sizeof ph), SEEK_SET) ||
			    fread(&ph, sizeof ph, 1, f) != 1)
				break;
			if (ph.p_type != PT_INTERP || ph.p_filesz < 2 || ph.p_filesz > PATH_MAX)
				continue;
			char name[PATH_MAX + 1] = "", real[PATH_MAX];
			if (fseek(f, (long)ph.p_offset, SEEK_SET) ||
			    fread(name, 1, ph.p_filesz, f) != ph.p_filesz)
				break;
			name[ph.p_filesz] = 0;
			if (name[0] == '/' && realpath(name, real))
				res = xstrdup(real);
			break;
		}
	}
	fclose(f);
	return res;
}

/* per[p]: the generalised paths seen with permission p. seen: every path
 * seen as "its generalisation for writing\x01for reading", to tell which
 * were never written (a written path generalises more: its numbers). */
static void add_file(const gen_ctx *c, strset *per, strset *seen, const char *path, unsigned bit,
		     const strset *dirs, strset *anchors)
{
	ir_event ev = { .domain = IR_FILE };
	ev.u.file.path = path;
	ev.u.file.perm = bit;
	ev.u.file.dir = dirs && dirs->n && bsearch(&path, dirs->v, dirs->n, sizeof *dirs->v, str_cmp);
	if (base_allows(c, &ev))
		return;
	bool written = bit & (IR_PERM_WRITE | IR_PERM_APPEND | IR_PERM_LINK | IR_PERM_LOCK);
	char *w = gen_generalize_path(path, true), *r = gen_generalize_path(path, false);
	if (anchors && bit == IR_PERM_READ) {
		/* a file: the directory it is in; a directory: itself */
		char *d = ev.u.file.dir ? xstrdup(r) : parent_of(r);
		if (data_dir(d))
			strset_take(anchors, d);
		else
			free(d);
	}
	strset_take(seen, xasprintf("%s\x01%s", w, r));
	strset_take(&per[__builtin_ctz(bit)], written ? w : r);
	free(written ? r : w);
}

/* The directories a trace shows: every proper ancestor of a path recorded
 * (a lookup that went through it, other than one refused with ENOTDIR).
 * The trace names a directory opened to list it as a file ("D/list read");
 * this is how gen knows it is one, to decide it as the kernel names it,
 * "D/list/" (ir_event.dir), against a base or the profile being updated. */
static void trace_dirs(const gen_opts *o, tr_rec **v, size_t n, strset *dirs)
{
	for (size_t i = 0; i < n; i++) {
		bool file = v[i]->kind == TR_FILE && strcmp(v[i]->f[2], "ENOTDIR");
		bool exec = v[i]->kind == TR_EXEC && result_ok(o, v[i]->f[1], false);
		if (!file && !exec)
			continue;
		const char *p = v[i]->f[0];
		for (const char *sl = strchr(p + 1, '/'); sl; sl = strchr(sl + 1, '/'))
			strset_take(dirs, xstrndup(p, (size_t)(sl - p)));
	}
	strset_sort(dirs);
}

/* ---- trees the workload made ----
 *
 * A data directory (data_dir) in which the run made a subdirectory and
 * wrote files inside it holds what the workload makes for itself: a
 * database's data directory, one subdirectory per database with its tables
 * as files. Another run makes other subdirectories and other files there
 * (mariadb's load a made and dropped the database mysqlslap; another load
 * makes its own, with other table engines and other file names), so the
 * directory becomes DIR/\** read, write, and lock if the run locked a file
 * in it: files and subdirectories anywhere beneath, made, read, written,
 * removed. A subdirectory made is a write recorded on a path the trace shows
 * to be a directory (mkdir, rmdir or a rename of it), in a run that called
 * mkdir or mkdirat. Never exec, mmap, link or append there (those stay as
 * recorded); never above the directory the subdirectory was made in; never
 * a system, top-level or shared directory (data_dir: not /var/lib itself);
 * files seen only read there stay read-only (gen_files' deny). Trees inside
 * another fold into the outermost. */
typedef struct {
	char *dir;         /* as recorded */
	char *made;        /* the first subdirectory made there, for the comment */
	unsigned perms;
	unsigned used;     /* the permissions the policy needed it for */
} owned_tree;

static bool ran_syscall(tr_rec **v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (v[i]->kind == TR_SYSCALL && !strcmp(v[i]->f[1], name))
			return true;
	return false;
}

static bool ok_file(const gen_opts *o, const tr_rec *r, unsigned perms)
{
	return r->kind == TR_FILE && (perm_bit(r->f[1]) & perms) && result_ok(o, r->f[2], false);
}

static bool in_set(const strset *s, const char *p)
{
	return s->n && bsearch(&p, s->v, s->n, sizeof *s->v, str_cmp);
}

/* Whether a path in the sorted set s lies beneath dir. */
static bool any_beneath(const strset *s, const char *dir)
{
	size_t n = strlen(dir), lo = 0, hi = s->n;
	while (lo < hi) {   /* the first entry >= "dir/" */
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(s->v[mid], dir, n);
		if (c < 0 || (c == 0 && (unsigned char)s->v[mid][n] < '/'))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && !strncmp(s->v[lo], dir, n) && s->v[lo][n] == '/';
}

/* The trees, outermost only; *nt of them. dirs: trace_dirs'. */
static owned_tree *owned_trees(const gen_opts *o, tr_rec **v, size_t n, const strset *dirs,
			       size_t *nt)
{
	owned_tree *t = NULL;
	size_t cap = 0;
	*nt = 0;
	if (!ran_syscall(v, n, "mkdir") && !ran_syscall(v, n, "mkdirat"))
		return NULL;
	strset made = { 0 };   /* "DIR\x01SUBDIR", sorted: outer trees first */
	strset files = { 0 };  /* written, other than directories (or empty ones) */
	for (size_t i = 0; i < n; i++)
		if (ok_file(o, v[i], IR_PERM_WRITE | IR_PERM_APPEND) && !in_set(dirs, v[i]->f[0]))
			strset_add(&files, v[i]->f[0]);
	strset_sort(&files);
	for (size_t i = 0; i < n; i++) {
		if (!ok_file(o, v[i], IR_PERM_WRITE) || !in_set(dirs, v[i]->f[0]))
			continue;
		char *d = parent_of(v[i]->f[0]);
		if (data_dir(d) && any_beneath(&files, v[i]->f[0]))
			strset_take(&made, xasprintf("%s\x01%s", d, v[i]->f[0]));
		free(d);
	}
	strset_free(&files);
	strset_sort(&made);
	for (size_t i = 0; i < made.n; i++) {
		char *sep = strchr(made.v[i], '\x01');
		*sep = 0;
		bool inner = false;
		for (size_t k = 0; k < *nt && !inner; k++)
			inner = !strcmp(t[k].dir, made.v[i]) || covered(made.v[i], t[k].dir, true);
		if (!inner) {
			xgrow(&t, &cap, *nt + 1, sizeof *t);
			unsigned perms = IR_PERM_READ | IR_PERM_WRITE;
			for (size_t k = 0; k < n; k++)
				if (ok_file(o, v[k], IR_PERM_LOCK) && covered(v[k]->f[0], made.v[i], true))
					perms |= IR_PERM_LOCK;
			t[(*nt)++] = (owned_tree){ xstrdup(made.v[i]), xstrdup(sep + 1), perms, 0 };
		}
		*sep = '\x01';
	}
	strset_free(&made);
	return t;
}

/* The tree's directory as the paths beneath it were generalised. */
static char *tree_glob_dir(const char *dir, bool written)
{
	char *x = xasprintf("%s/x", dir), *g = gen_generalize_path(x, written);
	size_t l = strlen(g);
	if (l >= 2 && !strcmp(g + l - 2, "/x"))   /* always, dir being absolute */
		g[l - 2] = 0;
	free(x);
	return g;
}

/* ---- scratch directories ----
 *
 * A temp directory (under /tmp, /var/tmp or /dev/shm) the run made unnamed
 * files in (O_TMPFILE: the kernel names them #<inode>, generalised to
 * #[0-9]*) is the workload's scratch directory, where it also makes named
 * files whose names no recorded run shows: tmpfile(3) and InnoDB fall back
 * to mkstemp names where O_TMPFILE is not supported, and a database puts
 * its on-disk temporary tables there. So the files directly in it get what
 * the O_TMPFILE files were seen with, per permission: DIR/\* read and/or
 * write. Never a subdirectory's files, never lock, exec, mmap or link; a
 * file seen only read there stays read-only (gen_files' deny). */
static bool scratch_dir(const char *entry, char **dir)
{
	static const char tmpfile_glob[] = "/#[0-9]*";
	size_t l = strlen(entry), k = sizeof tmpfile_glob - 1;
	if (l <= k || strcmp(entry + l - k, tmpfile_glob) || !under_tmp(entry))
		return false;
	*dir = xstrndup(entry, l - k);
	return true;
}

/* Say in the policy what owned_trees and scratch_dir generalised, and why;
 * frees both. */
static void owned_notes(owned_tree *t, size_t nt, strset *scratch, buf *out)
{
	for (size_t i = 0; i < nt; i++) {
		if (t[i].used) {
			char *g = tree_glob_dir(t[i].dir, true);
			buf_puts(out, "  # Made by the workload: ");
			src_comment(out, t[i].dir);
			buf_puts(out, " (it made the subdirectory ");
			src_comment(out, t[i].made + strlen(t[i].dir) + 1);
			buf_puts(out, " there and wrote files in it): another run makes other "
				      "subdirectories and files, so ");
			src_comment(out, g);
			buf_puts(out, "/**");
			for (int p = 0, k = 0; p < NPERM; p++)
				if (t[i].used & (1u << p))
					buf_printf(out, "%s%s", k++ ? ", " : " ", file_perms[p]);
			buf_puts(out, ": files and directories anywhere beneath it (never exec, mmap, "
				      "link; what was seen only read stays so).\n");
			free(g);
		}
		free(t[i].dir), free(t[i].made);
	}
	free(t);
	strset dirs = { 0 };
	for (int p = 0; p < NPERM; p++)
		for (size_t i = 0; i < scratch[p].n; i++)
			strset_add(&dirs, scratch[p].v[i]);
	strset_sort(&dirs);
	for (size_t i = 0; i < dirs.n; i++) {
		buf_puts(out, "  # Scratch directory ");
		src_comment(out, dirs.v[i]);
		buf_puts(out, ": the run made unnamed files there (O_TMPFILE), so the named ones it "
			      "makes there too (mkstemp fallbacks, temporary tables) may be ");
		const char *sep = "";
		for (int p = 0; p < NPERM; p++)
			if (in_set(&scratch[p], dirs.v[i])) {
				buf_printf(out, "%s%s", sep, file_perms[p]);
				sep = ", ";
			}
		buf_puts(out, " as DIR/* (files directly in it, as the O_TMPFILE ones were).\n");
	}
	strset_free(&dirs);
	for (int p = 0; p < NPERM; p++)
		strset_free(&scratch[p]);
}

/* ---- directory listings ----
 *
 * Reading a directory is listing it: the names of its entries, never their
 * contents (AppArmor and the BPF enforcer decide the open of a directory as
 * "DIR/", and getdents64 on it needs nothing more; what a file holds is
 * decided by the file's own rule when it is opened). A server reading files
 * from a data directory lists it, or a directory beneath it, in a run the
 * recording never saw: nginx's autoindex of www/list/ after a soak that
 * only fetched www's files. So a data directory (data_dir: not a system,
 * top-level or shared one) that a file was read from, or that was itself
 * listed, may be listed, and so may every directory beneath it: "DIR/" and
 * "DIR/\**\/" read, directory forms only, so no file there becomes readable
 * and nothing writable, and never above the directory the reads were in.
 * Nested ones fold into the outermost; a DIR/\** read glob already covers
 * the directories beneath DIR. True if any rule was written (the getdents
 * family comes with it: gen_syscalls). */
static bool listing_rules(const gen_ctx *c, strset *anchors, const strset *reads, buf *out)
{
	strset_sort(anchors);
	bool said = false;
	for (size_t i = 0; i < anchors->n; i++) {
		const char *d = anchors->v[i];
		bool inner = false;
		for (size_t k = 0; k < i && !inner; k++)   /* sorted: an ancestor comes first */
			inner = covered(d, anchors->v[k], true);
		for (size_t g = 0; g < reads->n && !inner; g++) {
			size_t l = strlen(reads->v[g]);
			if (l > 3 && !strcmp(reads->v[g] + l - 3, "/**")) {
				char *x = xstrndup(reads->v[g], l - 3);
				inner = covered(d, x, true);
				free(x);
			}
		}
		if (inner)
			continue;
		char *self = xasprintf("%s/", d), *deep = xasprintf("%s/**/", d);
		char *deep_glob = xasprintf("%s/**", d), *sub = xasprintf("%s/x", d);
		ir_event ev = { .domain = IR_FILE };
		ev.u.file.perm = IR_PERM_READ;
		ev.u.file.dir = true;
		ev.u.file.path = d;
		bool need_self = !base_allows(c, &ev);
		ev.u.file.path = sub;   /* a directory beneath it */
		bool need_deep = !base_allows(c, &ev) &&
				 !(reads->n && bsearch(&deep_glob, reads->v, reads->n, sizeof *reads->v,
						       str_cmp));
		if ((need_self || need_deep) && !said) {
			buf_puts(out, "  # Directory listings: a data directory files were read from, and the "
				      "directories beneath it, may be listed (DIR/ and DIR/**/ read: names, never "
				      "contents, which each file's rule decides; never a write).\n");
			said = true;
		}
		if (need_self) {
			buf_puts(out, "  allow file ");
			src_string(out, self);
			buf_puts(out, " read;\n");
		}
		if (need_deep) {
			buf_puts(out, "  allow file ");
			src_string(out, deep);
			buf_puts(out, " read;\n");
		}
		free(self), free(deep), free(deep_glob), free(sub);
	}
	return said;
}

/* strset_remove_if's test: path is dir or beneath it. */
static bool at_or_under(const char *path, void *dir)
{
	return !strcmp(path, dir) || covered(path, dir, true);
}

/* The file rules; true if they allow directory listings. */
static bool gen_files(const gen_ctx *c, const gen_opts *o, tr_rec **v, size_t n, buf *out)
{
	strset per[NPERM] = { { 0 } }, seen = { 0 }, dirs = { 0 }, anchors = { 0 };
	buf listings;
	buf_init(&listings);
	bool listed = false;
	trace_dirs(o, v, n, &dirs);
	/* An exec is also a file access that only an LSM sees (no syscall
	 * opens the file): the kernel opens the program and its ELF interpreter
	 * for execute, reads them and maps them executable. polc allows an exec
	 * only where the file domain allows it too, so under `default deny
	 * file` a profile without these would refuse its own entry point. The
	 * interpreter is read from the program on this host. */
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_EXEC || !result_ok(o, v[i]->f[1], false))
			continue;
		char *interp = elf_interp(v[i]->f[0]);
		for (int k = 0; k < 2; k++) {
			const char *f = k ? interp : v[i]->f[0];
			if (f)
				for (unsigned bit = IR_PERM_READ; bit <= IR_PERM_MMAP; bit <<= 1)
					if (bit & (IR_PERM_READ | IR_PERM_EXEC | IR_PERM_MMAP))
						add_file(c, per, &seen, f, bit, NULL, NULL);
		}
		free(interp);
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_FILE || !result_ok(o, v[i]->f[2], false))
			continue;
		unsigned bit = perm_bit(v[i]->f[1]);
		if (!bit)
			continue;   /* stat: no permission in the language */
		add_file(c, per, &seen, v[i]->f[0], bit, &dirs, &anchors);
	}
	size_t ntree;
	owned_tree *tree = owned_trees(o, v, n, &dirs, &ntree);
	strset_free(&dirs);
	unsigned T = o->dir_threshold ? o->dir_threshold : 8;
	const char *cwd[8];
	bool cwd_used[8] = { false };
	size_t ncwd = 0;
	for (size_t i = 0; i < n && ncwd < 8; i++)
		if (v[i]->kind == TR_META && v[i]->nf == 2 && !strcmp(v[i]->f[0], "cwd"))
			cwd[ncwd++] = v[i]->f[1];
	for (size_t i = 0; o->literal_cwd && i < ncwd; i++) {
		/* --literal-cwd: no listing glob there either */
		char *g = gen_generalize_path(cwd[i], false);
		strset_remove_if(&anchors, at_or_under, g);
		free(g);
	}
	for (size_t i = 0; i < ncwd; i++) {
		bool sys = !data_dir(cwd[i]);
		if (!sys && !o->literal_cwd)
			continue;
		buf_puts(out, "  # Working directory ");
		src_string(out, cwd[i]);
		buf_printf(out, ": paths under it kept as recorded (%s).\n",
			   sys ? "a system directory, or too shallow, for its contents to be the "
				 "command's data" : "--literal-cwd");
	}
	/* glob -> perms, via one sorted list of "glob\x01permindex". */
	strset all = { 0 };
	for (int p = 0; p < NPERM; p++)
		strset_sort(&per[p]);
	/* without[p]: entries recorded with another permission but not p.
	 * Writes generalise over a directory with the files seen only read
	 * kept read-only by a deny (new files there are the data a server
	 * makes; the config or script it read is not); other permissions do
	 * not collapse over such a directory at all. */
	strset without[NPERM] = { { 0 } }, denies = { 0 }, scratch[NPERM] = { { 0 } };
	strset_sort(&seen);
	for (int p = 0; p < NPERM; p++) {
		char *d;
		for (size_t i = 0; (1u << p) & (IR_PERM_READ | IR_PERM_WRITE) && i < per[p].n; i++)
			if (scratch_dir(per[p].v[i], &d))
				strset_take(&scratch[p], d);
		strset_sort(&scratch[p]);
	}
	for (int p = 1; p < NPERM; p++) {   /* read (0) is the least there is */
		bool writes = (1u << p) & (IR_PERM_WRITE | IR_PERM_APPEND);
		for (size_t i = 0; i < seen.n; i++) {
			char *sep = strchr(seen.v[i], '\x01'), *key = writes ? seen.v[i] : sep + 1;
			*sep = 0;
			bool has = per[p].n && bsearch(&key, per[p].v, per[p].n, sizeof *per[p].v,
						       str_cmp);   /* NULL base: UB */
			*sep = '\x01';
			if (!has && !is_parent(&seen, sep + 1))
				strset_add(&without[p], sep + 1);
		}
	}
	strset_free(&seen);
	for (int p = 0; p < NPERM; p++) {
		strset_sort(&without[p]);
		bool writes = (1u << p) & (IR_PERM_WRITE | IR_PERM_APPEND);
		strset blocked = { 0 };
		for (size_t i = 0; !writes && i < without[p].n; i++)
			strset_take(&blocked, parent_of(without[p].v[i]));
		strset_sort(&blocked);
		for (size_t i = 0; i < ntree; i++) {
			/* not blocked: the workload made what is there */
			char *g = tree_glob_dir(tree[i].dir, writes);
			if ((tree[i].perms & (1u << p)) && collapse_under(&per[p], g, true))
				tree[i].used |= 1u << p;
			free(g);
		}
		for (size_t i = 0; i < scratch[p].n; i++)
			collapse_under(&per[p], scratch[p].v[i], false);
		for (size_t i = 0; i < ncwd; i++) {
			/* the directory as its files' paths were generalised */
			char *g = gen_generalize_path(cwd[i], writes);
			if (data_dir(cwd[i]) && !o->literal_cwd &&
			    collapse_cwd(&per[p], g, &blocked))
				cwd_used[i] = true;
			free(g);
		}
		collapse_level(&per[p], T, false, &blocked);
		collapse_level(&per[p], T, true, &blocked);
		for (size_t i = 0; i < ntree; i++)
			if (tree[i].used & (1u << p)) {
				/* folded into a wider glob: nothing of its own to say */
				char *g = tree_glob_dir(tree[i].dir, writes), *gg = xasprintf("%s/**", g);
				if (!in_set(&per[p], gg))
					tree[i].used &= ~(1u << p);
				free(g), free(gg);
			}
		strset_free(&blocked);
		for (size_t i = 0; writes && i < without[p].n; i++)
			if (glob_covers(&per[p], without[p].v[i])) {
				buf d;
				buf_init(&d);
				buf_puts(&d, "  deny file ");
				src_string(&d, without[p].v[i]);
				buf_printf(&d, " %s;\n", file_perms[p]);
				strset_take(&denies, buf_cstr(&d));
			}
		strset_free(&without[p]);
		if (p == 0)
			listed = listing_rules(c, &anchors, &per[p], &listings);
		for (size_t i = 0; i < per[p].n; i++)
			strset_take(&all, xasprintf("%s\x01%d", per[p].v[i], p));
		strset_free(&per[p]);
	}
	strset_sort(&all);
	owned_notes(tree, ntree, scratch, out);
	for (size_t i = 0; i < ncwd; i++) {
		if (!cwd_used[i])
			continue;
		buf_puts(out, "  # Working directory ");
		src_string(out, cwd[i]);
		buf_puts(out, ": the command's data; what it reached there is allowed as DIR/** "
			 "with the permissions every file there was seen with (another run works "
			 "on other files; --literal-cwd keeps the paths).\n");
	}
	for (size_t i = 0; i < all.n;) {
		char *sep = strchr(all.v[i], '\x01');
		size_t gl = (size_t)(sep - all.v[i]);
		unsigned perms = 0;
		size_t j = i;
		for (; j < all.n && !strncmp(all.v[j], all.v[i], gl) && all.v[j][gl] == '\x01'; j++)
			perms |= 1u << atoi(all.v[j] + gl + 1);
		*sep = 0;
		buf_puts(out, "  allow file ");
		src_string(out, all.v[i]);
		const char *comma = " ";
		for (int p = 0; p < NPERM; p++)
			if (perms & (1u << p)) {
				buf_printf(out, "%s%s", comma, file_perms[p]);
				comma = ", ";
			}
		buf_puts(out, ";\n");
		i = j;
	}
	strset_free(&all);
	strset_free(&anchors);
	if (listings.len)
		buf_put(out, listings.data, listings.len);
	buf_free(&listings);
	if (denies.n) {
		strset_sort(&denies);
		buf_puts(out, "  # Seen only read inside a directory generalised for writing: kept so.\n");
		for (size_t i = 0; i < denies.n; i++)
			buf_puts(out, denies.v[i]);
	}
	strset_free(&denies);
	return listed;
}

static void gen_execs(const gen_ctx *c, const gen_opts *o, tr_rec **v, size_t n, buf *out)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_EXEC || !result_ok(o, v[i]->f[1], false))
			continue;
		ir_event ev = { .domain = IR_EXEC };
		ev.u.exec.path = v[i]->f[0];
		if (base_allows(c, &ev))
			continue;
		char *g = gen_generalize_path(v[i]->f[0], false);
		buf_puts(out, "  allow exec ");
		src_string(out, g);
		buf_puts(out, ";\n");
		free(g);
	}
}

static int fam_num(const char *f)
{
	return !strcmp(f, "inet") ? AF_INET : !strcmp(f, "inet6") ? AF_INET6 :
	       !strcmp(f, "unix") ? AF_UNIX : !strcmp(f, "netlink") ? AF_NETLINK :
	       !strcmp(f, "packet") ? AF_PACKET : -1;
}

static ir_net_op netop_num(const char *op)
{
	return !strcmp(op, "bind") ? IR_NET_BIND : !strcmp(op, "connect") ? IR_NET_CONNECT :
	       !strcmp(op, "listen") ? IR_NET_LISTEN : !strcmp(op, "accept") ? IR_NET_ACCEPT :
	       !strcmp(op, "send") ? IR_NET_SEND : IR_NET_CREATE;
}

/* One network record as a statement, or NULL to skip it. */
static char *net_stmt(const gen_ctx *c, tr_rec *r)
{
	const char *op = r->f[0], *fam = r->f[1], *type = r->f[2], *addr = r->f[3],
		   *port = r->f[4];
	int af = fam_num(fam);
	if (!strcmp(op, "create") || af < 0)
		return NULL;
	bool inet = af == AF_INET || af == AF_INET6;
	const char *proto = inet && strcmp(type, "unknown") ? type : NULL;
	ir_event ev = { .domain = IR_NETWORK };
	ev.u.net.op = netop_num(op);
	ev.u.net.family = af;
	ev.u.net.type = proto && !strcmp(proto, "tcp") ? SOCK_STREAM :
			proto && !strcmp(proto, "raw") ? SOCK_RAW : SOCK_DGRAM;
	bool with_addr = inet && (!strcmp(op, "connect") || !strcmp(op, "send")) &&
			 strcmp(addr, "-") != 0;
	if (with_addr)
		ev.u.net.has_addr = inet_pton(af, addr, ev.u.net.addr) == 1;
	ev.u.net.port = strcmp(port, "-") ? (uint16_t)atoi(port) : 0;
	if (base_allows(c, &ev))
		return NULL;
	buf b;
	buf_init(&b);
	buf_printf(&b, "  allow network %s %s", op, fam);
	if (proto)
		buf_printf(&b, " %s", proto);
	if (with_addr && ev.u.net.has_addr)
		buf_printf(&b, " to %s", addr);
	/* Port 0 asks the kernel for any port: no port to name. */
	if (inet && strcmp(port, "-") && strcmp(port, "0"))
		buf_printf(&b, " port %s", port);
	buf_puts(&b, ";\n");
	return buf_cstr(&b);
}

static void gen_net(const gen_ctx *c, const gen_opts *o, tr_rec **v, size_t n, buf *out)
{
	strset s = { 0 };
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_NET || !result_ok(o, v[i]->f[5], !strcmp(v[i]->f[0], "connect")))
			continue;
		char *st = net_stmt(c, v[i]);
		if (st)
			strset_take(&s, st);
	}
	strset_sort(&s);
	for (size_t i = 0; i < s.n; i++)
		buf_puts(out, s.v[i]);
	strset_free(&s);
}

static void gen_mounts(const gen_ctx *c, const gen_opts *o, tr_rec **v, size_t n, buf *out)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_MOUNT || !result_ok(o, v[i]->f[4], false))
			continue;
		const char *op = v[i]->f[0], *fst = v[i]->f[2], *tgt = v[i]->f[3];
		ir_event ev = { .domain = IR_MOUNT };
		ev.u.mount.op = !strcmp(op, "mount") ? IR_MOUNT_MOUNT :
				!strcmp(op, "umount") ? IR_MOUNT_UMOUNT : IR_MOUNT_PIVOT_ROOT;
		ev.u.mount.fstype = strcmp(fst, "-") ? fst : NULL;
		ev.u.mount.target = strcmp(tgt, "-") ? tgt : NULL;
		if (base_allows(c, &ev))
			continue;
		if (ev.u.mount.op == IR_MOUNT_PIVOT_ROOT) {
			buf_puts(out, "  allow pivot_root;\n");
			continue;
		}
		buf_printf(out, "  allow %s", op);
		if (ev.u.mount.op == IR_MOUNT_MOUNT && ev.u.mount.fstype &&
		    strspn(fst, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(fst))
			buf_printf(out, " fstype %s", fst);
		if (ev.u.mount.target) {
			char *g = gen_generalize_path(tgt, false);
			buf_puts(out, " on ");
			src_string(out, g);
			free(g);
		}
		buf_puts(out, ";\n");
	}
}

static void gen_caps(const gen_ctx *c, const gen_opts *o, tr_rec **v, size_t n, buf *out)
{
	strset s = { 0 };
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_CAP || !result_ok(o, v[i]->f[1], false))
			continue;
		ir_event ev = { .domain = IR_CAPABILITY };
		ev.u.cap.cap = cap_from_name(v[i]->f[0]);
		if (ev.u.cap.cap < 0 || base_allows(c, &ev))
			continue;
		strset_add(&s, v[i]->f[0]);
	}
	strset_sort(&s);
	for (size_t i = 0; i < s.n; i++)
		buf_printf(out, "%s%s%s", i ? ", " : "  allow capability ", s.v[i],
			   i + 1 == s.n ? ";\n" : "");
	strset_free(&s);
}

static void gen_header(const trace *t, tr_rec **v, size_t n, buf *out)
{
	buf_printf(out, "# Generated by polc gen from %llu recorded run(s); review before use.\n",
		   (unsigned long long)trace_total(t, TR_META, "runs"));
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_META || v[i]->nf != 2)
			continue;
		if (!strcmp(v[i]->f[0], "command") || !strcmp(v[i]->f[0], "tracer") ||
		    !strcmp(v[i]->f[0], "cwd") ||
		    !strcmp(v[i]->f[0], "exit")) {
			/* Keep the comment on one line whatever the command holds. */
			buf_printf(out, "# %s: ", v[i]->f[0]);
			src_comment(out, v[i]->f[1]);
			buf_printf(out, " (%llu)\n", (unsigned long long)v[i]->count);
		}
	}
	buf_printf(out, "# events lost while recording: %llu\n",
		   (unsigned long long)trace_total(t, TR_META, "lost"));
}

/* ---- a failed run ---- */

/* An exec that failed other than by a PATH search (execvp tries each
 * directory: ENOENT, ENOTDIR and EACCES there are how it looks). */
static bool exec_failed(const tr_rec *r)
{
	const char *e = r->f[1];
	return strcmp(e, "ok") && strcmp(e, "ENOENT") && strcmp(e, "ENOTDIR") && strcmp(e, "EACCES");
}

size_t gen_failures(const trace *t, buf *out)
{
	size_t n, nfail = 0;
	tr_rec **v = trace_sorted(t, &n);
	for (size_t i = 0; i < n; i++) {
		const tr_rec *r = v[i];
		unsigned long long cnt = (unsigned long long)r->count;
		if (r->kind == TR_NET && (!strcmp(r->f[0], "bind") || !strcmp(r->f[0], "listen")) &&
		    strcmp(r->f[5], "ok")) {
			buf_printf(out, "%s %s %s %s port %s failed with %s (%llu time%s)\n", r->f[0],
				   r->f[1], r->f[2], r->f[3], r->f[4], r->f[5], cnt, cnt == 1 ? "" : "s");
			nfail++;
		} else if (r->kind == TR_EXEC && exec_failed(r)) {
			buf_printf(out, "exec %s failed with %s (%llu time%s)\n", r->f[0], r->f[1], cnt,
				   cnt == 1 ? "" : "s");
			nfail++;
		} else if (r->kind == TR_META && r->nf == 2 && !strcmp(r->f[0], "exit") &&
			   (!strncmp(r->f[1], "signal ", 7) ||
			    (!strncmp(r->f[1], "status ", 7) && strcmp(r->f[1], "status 0")))) {
			buf_printf(out, "the recorded command ended with %s (%llu run%s)\n", r->f[1], cnt,
				   cnt == 1 ? "" : "s");
			nfail++;
		}
	}
	free(v);
	return nfail;
}

static ir_program base_prog;

static int load_base(const gen_opts *o, gen_ctx *c, char **err)
{
	char *text = xasprintf("policy gen-base {\n  default deny syscall%s%s;\n  use %s;\n}\n",
			       o->deny_defaults ? ", " : "",
			       o->deny_defaults ? o->deny_defaults : "", o->base);
	diag_ctx d;
	diag_init(&d);
	memset(&base_prog, 0, sizeof base_prog);
	compile_opts co = { 0 };
	int rc = polc_compile_text("<gen --base>", text, &co, &d, &base_prog);
	if (rc == 0)
		c->base = ir_program_select(&base_prog, "gen-base", &d);
	if (rc < 0 || !c->base) {
		buf b;
		buf_init(&b);
		buf_printf(&b, "cannot use base rule \"%s\"", o->base);
		for (size_t i = 0; i < d.n; i++)
			if (d.v[i].sev == DIAG_ERROR) {
				buf_printf(&b, ": %s", d.v[i].msg);
				break;
			}
		*err = buf_cstr(&b);
		ir_program_free(&base_prog);
		c->base = NULL;
		rc = -1;
	}
	diag_free(&d);
	free(text);
	return rc < 0 ? -1 : 0;
}

int gen_policy(const trace *t, const gen_opts *o, buf *out, char **err)
{
	gen_ctx c = { NULL };
	if (o->base && load_base(o, &c, err) < 0)
		return -1;
	if (o->known && !o->base)
		c.base = o->known;
	size_t n;
	tr_rec **v = trace_sorted(t, &n);
	gen_header(t, v, n, out);
	buf_printf(out, "policy %s {\n", o->name);
	buf_printf(out, "  default deny syscall%s%s;\n", o->deny_defaults ? ", " : "",
		   o->deny_defaults ? o->deny_defaults : "");
	if (o->base)
		buf_printf(out, "  use %s;\n", o->base);
	buf body;
	buf_init(&body);
	buf files;
	buf_init(&files);
	bool listed = gen_files(&c, o, v, n, &files);
	gen_syscalls(&c, o, v, n, listed, &body);
	if (files.len)
		buf_put(&body, files.data, files.len);
	buf_free(&files);
	gen_execs(&c, o, v, n, &body);
	gen_net(&c, o, v, n, &body);
	gen_mounts(&c, o, v, n, &body);
	gen_caps(&c, o, v, n, &body);
	if (body.len)
		buf_put(out, body.data, body.len);
	buf_puts(out, "}\n");
	buf_free(&body);
	free(v);
	if (o->base && c.base)
		ir_program_free(&base_prog);
	return 0;
}
