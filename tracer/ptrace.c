/* ptrace.c - the ptrace tracer (see tracer.h).
 *
 * The child installs a seccomp filter returning SECCOMP_RET_TRACE for every
 * syscall, so each syscall costs one ptrace stop (PTRACE_EVENT_SECCOMP) where
 * it is counted and its arguments read. Syscalls whose result or new fd we
 * need (opens, execs, network, mounts) are restarted with PTRACE_SYSCALL to
 * get one more stop at their exit; the rest continue with PTRACE_CONT.
 */
#include "tracer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include "gen/sysnr.h"     /* the numbers decoded by (tools/gen-sysnr.c) */
#include "backends/bpf/bpf_layout.h"   /* polc_addr_family: as the enforcer reads */
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PTRACE_GET_SYSCALL_INFO
#define PTRACE_GET_SYSCALL_INFO 0x420e
#endif

enum { MAXNR = 1024, NARCH = 3 };

/* What to finish at the syscall's exit stop. */
typedef enum { P_NONE, P_OPEN, P_PATHS, P_EXEC, P_NET, P_MOUNT, P_FD } pend_kind;

typedef struct {
	pend_kind kind;
	int npath;
	char *path[2];
	const char *perm[2][3];  /* NULL-terminated perms per path */
	int nr;
	uint64_t args[6];
	const char *netop;
	/* The sockaddr as read at entry (what the kernel was given), decoded
	 * at exit once the socket's family is known: polc_addr_family. */
	struct sockaddr_storage sa;
	socklen_t salen;         /* 0: none */
	char *addr;              /* formatted address, or NULL */
	int port, family;        /* port -1: none; family: the traffic's */
	char *mnt[3];            /* source, fstype, target */
	const char *mntop;
	const char *cap;         /* implied capability, or NULL */
} pending;

typedef struct {
	pid_t tid, tgid;         /* tgid 0: not yet known */
	bool seen;               /* reported its first stop */
	pending p;
} thread;

typedef struct {
	trace *t;
	thread *th;
	size_t nth, capth;
	pid_t root;
	int root_status;
	bool root_done, killing;
	uint64_t counts[NARCH][MAXNR];
	uint64_t events;
	unsigned procs, distinct;
	status_line st;
} tracer;

/* ---- threads ---- */

static thread *th_find(tracer *tr, pid_t tid)
{
	for (size_t i = 0; i < tr->nth; i++)
		if (tr->th[i].tid == tid)
			return &tr->th[i];
	return NULL;
}

static thread *th_add(tracer *tr, pid_t tid)
{
	thread *t = th_find(tr, tid);
	if (t)
		return t;
	xgrow(&tr->th, &tr->capth, tr->nth + 1, sizeof *tr->th);
	t = &tr->th[tr->nth++];
	memset(t, 0, sizeof *t);
	t->tid = tid;
	if (tr->killing)
		kill(tid, SIGKILL);
	return t;
}

static void pend_clear(pending *p)
{
	for (int i = 0; i < 2; i++)
		free(p->path[i]);
	for (int i = 0; i < 3; i++)
		free(p->mnt[i]);
	free(p->addr);
	memset(p, 0, sizeof *p);
}

static void th_del(tracer *tr, pid_t tid)
{
	thread *t = th_find(tr, tid);
	if (!t)
		return;
	pend_clear(&t->p);
	*t = tr->th[--tr->nth];
}

static pid_t th_tgid(thread *t)
{
	if (t->tgid)
		return t->tgid;
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", t->tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return t->tid;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Tgid: %d", &t->tgid) == 1)
			break;
	fclose(f);
	return t->tgid ? t->tgid : t->tid;
}

/* ---- tracee memory and paths ---- */

/* Read a NUL-terminated string of at most PATH_MAX bytes. */
static char *read_string(pid_t tid, uint64_t addr)
{
	if (!addr)
		return NULL;
	char *s = xmalloc(PATH_MAX + 1);
	size_t got = 0;
	while (got < PATH_MAX) {
		/* Never cross a page in one read: the next page may be unmapped. */
		size_t chunk = 4096 - ((addr + got) & 4095);
		if (chunk > PATH_MAX - got)
			chunk = PATH_MAX - got;
		struct iovec l = { s + got, chunk }, r = { (void *)(uintptr_t)(addr + got), chunk };
		ssize_t n = process_vm_readv(tid, &l, 1, &r, 1, 0);
		if (n <= 0) {
			/* Fallback: one word at a time. */
			errno = 0;
			long w = ptrace(PTRACE_PEEKDATA, tid, (void *)(uintptr_t)(addr + got), 0);
			if (errno) {
				free(s);
				return NULL;
			}
			n = (ssize_t)(sizeof w < chunk ? sizeof w : chunk);
			memcpy(s + got, &w, (size_t)n);
		}
		void *z = memchr(s + got, 0, (size_t)n);
		if (z)
			return s;
		got += (size_t)n;
	}
	s[PATH_MAX] = 0;
	return s;
}

static int read_mem(pid_t tid, uint64_t addr, void *dst, size_t len)
{
	struct iovec l = { dst, len }, r = { (void *)(uintptr_t)addr, len };
	return process_vm_readv(tid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -1;
}

static char *read_link(const char *fmt, pid_t tid, long n)
{
	char lp[64], out[PATH_MAX + 1];
	snprintf(lp, sizeof lp, fmt, tid, n);
	ssize_t k = readlink(lp, out, PATH_MAX);
	if (k <= 0)
		return NULL;
	out[k] = 0;
	return xstrdup(out);
}

/* The absolute path the kernel acts on for (dirfd, path). follow: the
 * syscall follows a symlink in the last component. */
static char *resolve(pid_t tid, int dirfd, const char *path, bool follow)
{
	char *base = NULL;
	if (!path)
		return NULL;
	if (path[0] != '/') {
		base = dirfd == AT_FDCWD ? read_link("/proc/%d/cwd%.0ld", tid, 0)
					 : read_link("/proc/%d/fd/%ld", tid, dirfd);
		if (!base || base[0] != '/') {
			free(base);
			return NULL;
		}
	}
	char *full = base ? xasprintf("%s/%s", base, path) : xstrdup(path);
	free(base);
	char *res = tracer_canon(full, follow);
	free(full);
	return res;
}

static char *fd_path(pid_t tid, long fd)
{
	char *p = read_link("/proc/%d/fd/%ld", tid, fd);
	if (p && p[0] != '/') {      /* pipe:[..], socket:[..], anon_inode:... */
		free(p);
		return NULL;
	}
	size_t n = p ? strlen(p) : 0;
	if (n > 10 && strcmp(p + n - 10, " (deleted)") == 0)
		p[n - 10] = 0;
	return p;
}

/* ---- decoding at entry ---- */

static void add_path(pending *p, char *path, const char *p0, const char *p1)
{
	if (!path || p->npath == 2) {
		free(path);
		return;
	}
	p->path[p->npath] = path;
	p->perm[p->npath][0] = p0;
	p->perm[p->npath][1] = p1;
	p->npath++;
}

static void open_perms(pending *p, uint64_t flags)
{
	int acc = (int)(flags & O_ACCMODE);
	const char *w = (flags & O_APPEND) ? "append" : "write";
	const char **pp = p->perm[0];
	int k = 0;
	if (flags & O_PATH) {   /* a handle only: no access to the contents */
		pp[0] = "stat";
		return;
	}
	if (acc == O_RDONLY || acc == O_RDWR)
		pp[k++] = "read";
	if (acc == O_WRONLY || acc == O_RDWR || (flags & (O_CREAT | O_TRUNC)))
		pp[k++] = w;
	if ((flags & (O_CREAT | O_TRUNC)) && (flags & O_APPEND))
		pp[k++] = "write";
	if (k == 0)
		pp[k++] = "read";   /* O_PATH and friends: treat as read */
}

static void dec_open(pending *p, pid_t tid, int dirfd, uint64_t pathp, uint64_t flags)
{
	char *s = read_string(tid, pathp);
	p->kind = P_OPEN;
	add_path(p, resolve(tid, dirfd, s, !(flags & O_NOFOLLOW)), NULL, NULL);
	free(s);
	if (p->npath)
		open_perms(p, flags);
}

/* One or two paths with one permission each. */
static void dec_path(pending *p, pid_t tid, int dirfd, uint64_t pathp, bool follow,
		     const char *perm)
{
	char *s = read_string(tid, pathp);
	p->kind = P_PATHS;
	if (s && !*s)      /* AT_EMPTY_PATH: the file dirfd refers to */
		add_path(p, dirfd == AT_FDCWD ? NULL : fd_path(tid, dirfd), perm, NULL);
	else
		add_path(p, resolve(tid, dirfd, s, follow), perm, NULL);
	free(s);
}

static int sys_arg_int(uint64_t v) { return (int)(int32_t)v; }

/* The POLC_NET_* operation of a trace op name, for polc_addr_family (only
 * connect, bind and send carry an address). */
static uint32_t polc_op(const char *op)
{
	return !strcmp(op, "connect") ? POLC_NET_CONNECT : !strcmp(op, "bind") ? POLC_NET_BIND
	       : !strcmp(op, "send") ? POLC_NET_SEND : POLC_NET_ANYOP;
}

static void dec_unix(pending *p, pid_t tid, const struct sockaddr_un *un, size_t len)
{
	size_t n = len - offsetof(struct sockaddr_un, sun_path);
	if (un->sun_path[0] == 0)
		p->addr = xasprintf("@%.*s", (int)strnlen(un->sun_path + 1, n - 1), un->sun_path + 1);
	else {
		char *s = xstrndup(un->sun_path, strnlen(un->sun_path, n));
		p->addr = resolve(tid, AT_FDCWD, s, false);
		free(s);
	}
}

/* The address the entry saw, read as the kernel reads it on a socket of
 * family sock_fam (0: unknown), exactly as the BPF enforcer does
 * (polc_addr_family): an IPv4 socket's AF_UNSPEC send or bind is a
 * sockaddr_in, an IPv6 socket's sockaddr_in is IPv4 traffic, so the
 * event's family becomes the traffic's (polc_event_family). A recorder
 * that read sa_family alone would make allow-lists the enforcer then
 * refuses. */
static void dec_sockaddr(pending *p, pid_t tid, int sock_fam)
{
	const struct sockaddr_storage *ss = &p->sa;
	size_t len = p->salen;
	char tmp[INET6_ADDRSTRLEN];
	uint32_t fam = polc_addr_family((uint32_t)sock_fam, polc_op(p->netop), ss->ss_family);
	p->family = (int)polc_event_family((uint32_t)sock_fam, fam, ss->ss_family);
	if (fam == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
		p->addr = xstrdup(inet_ntop(AF_INET, &in->sin_addr, tmp, sizeof tmp));
		p->port = ntohs(in->sin_port);
	} else if (fam == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;
		p->addr = xstrdup(inet_ntop(AF_INET6, &in6->sin6_addr, tmp, sizeof tmp));
		p->port = ntohs(in6->sin6_port);
	} else if (ss->ss_family == AF_UNIX && len > sizeof(sa_family_t)) {
		dec_unix(p, tid, (const struct sockaddr_un *)ss, len);
	}
}

/* At entry: the op and the sockaddr's bytes, decoded at exit (dec_sockaddr). */
static void dec_net(pending *p, pid_t tid, const char *op, uint64_t addr, uint64_t len)
{
	p->kind = P_NET;
	p->netop = op;
	p->port = -1;
	if (!addr || len < sizeof(sa_family_t))
		return;
	if (len > sizeof p->sa)
		len = sizeof p->sa;
	if (read_mem(tid, addr, &p->sa, len) == 0)
		p->salen = (socklen_t)len;
}

static void dec_mount(pending *p, pid_t tid, const char *op, uint64_t src,
		      uint64_t fstype, uint64_t target)
{
	p->kind = P_MOUNT;
	p->mntop = op;
	p->cap = "sys_admin";
	char *s = read_string(tid, src);
	p->mnt[0] = s && (s[0] == '/' || s[0] == '.') ? resolve(tid, AT_FDCWD, s, true)
						      : (s ? xstrdup(s) : NULL);
	free(s);
	p->mnt[1] = read_string(tid, fstype);
	s = read_string(tid, target);
	p->mnt[2] = resolve(tid, AT_FDCWD, s, true);
	free(s);
}

/* A syscall of sysevents.def's SE_PATH kind. */
#define SEP_STAT "stat"
#define SEP_WRITE "write"
#define SEP_LINK "link"
static void se_path(pending *p, pid_t tid, const uint64_t *a, int dfd, int pa, bool follow,
		    int flagarg, const char *perm)
{
	if (!a[pa])
		return;        /* utimensat(fd, NULL, ...): the fd itself */
	if (flagarg >= 0 && (sys_arg_int(a[flagarg]) & AT_SYMLINK_NOFOLLOW))
		follow = false;
	dec_path(p, tid, dfd < 0 ? AT_FDCWD : sys_arg_int(a[dfd]), a[pa], follow, perm);
}

/* Fill t->p from the syscall's arguments. Returns true if the exit is needed. */
static bool decode(thread *t, int nr, const uint64_t *a)
{
	pending *p = &t->p;
	pid_t tid = t->tid;
	int at = AT_FDCWD;
	p->nr = nr;
	memcpy(p->args, a, sizeof p->args);
	switch (nr) {
	case POLC_NR_open: dec_open(p, tid, at, a[0], a[1]); break;
	case POLC_NR_creat: dec_open(p, tid, at, a[0], O_CREAT | O_WRONLY | O_TRUNC); break;
	case POLC_NR_openat: dec_open(p, tid, sys_arg_int(a[0]), a[1], a[2]); break;
	case POLC_NR_openat2: {
		uint64_t flags = 0;
		read_mem(tid, a[2], &flags, sizeof flags);
		dec_open(p, tid, sys_arg_int(a[0]), a[1], flags);
		break;
	}
	case POLC_NR_execve: case POLC_NR_execveat: {
		bool isat = nr == POLC_NR_execveat;
		char *s = read_string(tid, isat ? a[1] : a[0]);
		int dfd = isat ? sys_arg_int(a[0]) : at;
		char *r = (isat && s && !*s) ? fd_path(tid, dfd) : resolve(tid, dfd, s, true);
		free(s);
		p->kind = P_EXEC;
		add_path(p, r, NULL, NULL);
		break;
	}
#define SE_PATH(n, perm, dfd, pa, fol, fa) \
	case POLC_NR_##n: se_path(p, tid, a, dfd, pa, fol, fa, SEP_##perm); break;
#define SE_PATH2(n, d1, p1, d2, p2) \
	case POLC_NR_##n: se_path(p, tid, a, d1, p1, 0, -1, "write"); \
		       se_path(p, tid, a, d2, p2, 0, -1, "write"); break;
#include "../compiler/sysevents.def"
	case POLC_NR_mmap:
		if ((a[2] & PROT_EXEC) && sys_arg_int(a[4]) >= 0) {
			p->kind = P_FD;
			add_path(p, fd_path(tid, sys_arg_int(a[4])), "mmap", NULL);
		}
		break;
	case POLC_NR_fcntl:
		/* a record lock is the file's lock permission, as flock is (the
		 * kernel's file_lock hook sees both) */
		if (a[1] != F_SETLK && a[1] != F_SETLKW && a[1] != F_OFD_SETLK && a[1] != F_OFD_SETLKW)
			break;
		/* fall through */
	case POLC_NR_flock:
		p->kind = P_FD;
		add_path(p, fd_path(tid, sys_arg_int(a[0])), "lock", NULL);
		break;
	case POLC_NR_socket: dec_net(p, tid, "create", 0, 0); break;
	case POLC_NR_bind: dec_net(p, tid, "bind", a[1], a[2]); break;
	case POLC_NR_connect: dec_net(p, tid, "connect", a[1], a[2]); break;
	case POLC_NR_listen: dec_net(p, tid, "listen", 0, 0); break;
	case POLC_NR_accept: case POLC_NR_accept4: dec_net(p, tid, "accept", 0, 0); break;
	case POLC_NR_sendto:
		if (a[4])
			dec_net(p, tid, "send", a[4], a[5]);
		break;
	case POLC_NR_mount: dec_mount(p, tid, "mount", a[0], a[2], a[1]); break;
	case POLC_NR_umount2: dec_mount(p, tid, "umount", 0, 0, a[0]); break;
	case POLC_NR_pivot_root: dec_mount(p, tid, "pivot_root", a[0], 0, a[1]); break;
	default: break;
	}
	if (!p->cap)
		p->cap = tracer_implied_cap(nr);
	if (p->kind == P_NONE && p->cap)
		p->kind = P_PATHS;   /* only the cap's result is wanted */
	return p->kind != P_NONE;
}

/* ---- finishing at exit ---- */

/* Family/type/protocol (and local address if want_name) of a tracee's fd,
 * through a copy of it (pidfd_getfd). */
static int sock_info(thread *t, int fd, int *fam, int *type, int *proto, pending *p,
		     bool want_name)
{
	int pfd = pidfd_open(th_tgid(t), 0);
	if (pfd < 0)
		return -1;
	int s = pidfd_getfd(pfd, fd, 0);
	close(pfd);
	if (s < 0)
		return -1;
	socklen_t l = sizeof(int);
	int rc = getsockopt(s, SOL_SOCKET, SO_DOMAIN, fam, &l);
	l = sizeof(int);
	rc |= getsockopt(s, SOL_SOCKET, SO_TYPE, type, &l);
	l = sizeof(int);
	rc |= getsockopt(s, SOL_SOCKET, SO_PROTOCOL, proto, &l);
	if (want_name && !p->addr) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof ss;
		char tmp[INET6_ADDRSTRLEN];
		if (getsockname(s, (struct sockaddr *)&ss, &sl) == 0) {
			if (ss.ss_family == AF_INET) {
				struct sockaddr_in *in = (struct sockaddr_in *)&ss;
				p->addr = xstrdup(inet_ntop(AF_INET, &in->sin_addr, tmp, sizeof tmp));
				p->port = ntohs(in->sin_port);
			} else if (ss.ss_family == AF_INET6) {
				struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
				p->addr = xstrdup(inet_ntop(AF_INET6, &in6->sin6_addr, tmp, sizeof tmp));
				p->port = ntohs(in6->sin6_port);
			} else if (ss.ss_family == AF_UNIX && sl > sizeof(sa_family_t)) {
				struct sockaddr_un *un = (struct sockaddr_un *)&ss;
				p->addr = un->sun_path[0] ? xstrdup(un->sun_path)
							  : xasprintf("@%s", un->sun_path + 1);
			}
		}
	}
	close(s);
	return rc ? -1 : 0;
}

static void finish_net(tracer *tr, thread *t, long ret, int err)
{
	pending *p = &t->p;
	int fam = 0, type = 0, proto = 0;
	bool want_name = !strcmp(p->netop, "listen") || !strcmp(p->netop, "accept");
	if (!strcmp(p->netop, "create")) {
		fam = (int)p->args[0];
		type = (int)p->args[1] & 0xf;
		proto = (int)p->args[2];
	} else if (sock_info(t, (int)p->args[0], &fam, &type, &proto, p, want_name && !err) < 0) {
		fam = 0;   /* unknown: the address's own family (dec_sockaddr) */
		type = -1;
	}
	p->family = fam;
	if (p->salen)
		dec_sockaddr(p, t->tid, fam);
	tracer_net_record(tr->t, 1, p->netop, p->family, type, proto, p->addr, p->port, err);
	(void)ret;
}

static void finish(tracer *tr, thread *t, long ret, bool is_error)
{
	pending *p = &t->p;
	int err = is_error ? (int)-ret : 0;
	switch (p->kind) {
	case P_OPEN:
		if (!err) {   /* the kernel's own name for what it opened */
			char *real = fd_path(t->tid, ret);
			if (real) {
				free(p->path[0]);
				p->path[0] = real;
			}
		}
		/* fall through */
	case P_PATHS: case P_FD:
		for (int i = 0; i < p->npath; i++)
			for (int j = 0; j < 3 && p->perm[i][j]; j++)
				trace_file(tr->t, p->path[i], p->perm[i][j], err);
		break;
	case P_EXEC:
		if (p->npath)
			trace_exec(tr->t, p->path[0], err);
		break;
	case P_NET:
		finish_net(tr, t, ret, err);
		break;
	case P_MOUNT:
		trace_add(tr->t, TR_MOUNT, 1, 5, p->mntop, p->mnt[0] ? p->mnt[0] : "-",
			  p->mnt[1] && *p->mnt[1] ? p->mnt[1] : "-",
			  p->mnt[2] ? p->mnt[2] : "-", tr_result_name(err));
		break;
	default:
		break;
	}
	if (p->cap)
		trace_add(tr->t, TR_CAP, 1, 2, p->cap, tr_result_name(err));
	pend_clear(p);
}

/* ---- the stop loop ---- */

static void count(tracer *tr, uint32_t arch, uint64_t nr)
{
	int a = arch == AUDIT_ARCH_I386 ? 1 : (nr & 0x40000000u) ? 2 : 0;
	uint64_t n = nr & ~0x40000000ull;
	tr->events++;
	if (n < MAXNR) {
		if (tr->counts[a][n]++ == 0)
			tr->distinct++;
	} else {
		const char *an, *name = tracer_syscall_name(arch, (unsigned)nr, &an);
		trace_syscall(tr->t, an, name, 1);
	}
}

static void resume(thread *t, int sig)
{
	/* A pending decode needs the exit stop. */
	ptrace(t->p.kind != P_NONE ? PTRACE_SYSCALL : PTRACE_CONT, t->tid, 0,
	       (void *)(long)sig);
}

static void on_seccomp(tracer *tr, thread *t)
{
	struct __ptrace_syscall_info si;
	memset(&si, 0, sizeof si);
	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, (void *)sizeof si, &si) <= 0 ||
	    si.op != PTRACE_SYSCALL_INFO_SECCOMP) {
		resume(t, 0);
		return;
	}
	count(tr, si.arch, si.seccomp.nr);
	pend_clear(&t->p);
	if (si.arch == AUDIT_ARCH_X86_64 && !(si.seccomp.nr & 0x40000000u))
		decode(t, (int)si.seccomp.nr, (const uint64_t *)si.seccomp.args);
	resume(t, 0);
}

static void on_syscall_exit(tracer *tr, thread *t)
{
	struct __ptrace_syscall_info si;
	memset(&si, 0, sizeof si);
	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, (void *)sizeof si, &si) > 0 &&
	    si.op == PTRACE_SYSCALL_INFO_EXIT && t->p.kind != P_NONE)
		finish(tr, t, (long)si.exit.rval, si.exit.is_error);
	pend_clear(&t->p);
	ptrace(PTRACE_CONT, t->tid, 0, 0);
}

static void on_exec(tracer *tr, thread *t)
{
	unsigned long former = 0;
	ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &former);
	if ((pid_t)former != t->tid) {
		/* A non-leader thread exec'd and took over the leader's tid. */
		thread *old = th_find(tr, (pid_t)former);
		if (old) {
			pend_clear(&t->p);
			t->p = old->p;
			memset(&old->p, 0, sizeof old->p);
			th_del(tr, (pid_t)former);
			t = th_find(tr, t->tid);
		}
	}
	t->tgid = t->tid;
	resume(t, 0);
}

static void on_stop(tracer *tr, pid_t pid, int status)
{
	thread *t = th_add(tr, pid);
	int sig = WSTOPSIG(status), ev = status >> 16;
	bool first = !t->seen;
	t->seen = true;
	if (sig == (SIGTRAP | 0x80)) {
		on_syscall_exit(tr, t);
	} else if (ev == PTRACE_EVENT_SECCOMP) {
		on_seccomp(tr, t);
	} else if (ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK ||
		   ev == PTRACE_EVENT_CLONE) {
		unsigned long child = 0;
		ptrace(PTRACE_GETEVENTMSG, pid, 0, &child);
		/* processes counts thread groups, as the eBPF recorder does
		 * (docs/trace-format.md): a clone is a process unless it
		 * shares its parent's thread group. */
		if (child) {
			thread *c = th_add(tr, (pid_t)child);
			if (ev != PTRACE_EVENT_CLONE || th_tgid(c) == c->tid)
				tr->procs++;
		}
		resume(th_find(tr, pid), 0);
	} else if (ev == PTRACE_EVENT_EXEC) {
		on_exec(tr, t);
	} else if (ev == PTRACE_EVENT_STOP) {
		/* First stop of a new tracee, or a group-stop. */
		if (first || sig == SIGTRAP)
			resume(t, 0);
		else
			ptrace(PTRACE_LISTEN, pid, 0, 0);
	} else if (ev) {
		resume(t, 0);
	} else {
		resume(t, sig);   /* signal-delivery stop: deliver it */
	}
}

static void on_exit_status(tracer *tr, pid_t pid, int status)
{
	if (pid == tr->root) {
		tr->root_status = status;
		tr->root_done = true;
	}
	th_del(tr, pid);
}

static void kill_all(tracer *tr)
{
	tr->killing = true;
	for (size_t i = 0; i < tr->nth; i++)
		kill(tr->th[i].tid, SIGKILL);
}

static void child_exec(int syncfd, char *const *argv)
{
	char c;
	/* Wait until the parent has seized us. */
	if (read(syncfd, &c, 1) != 1)
		_exit(127);
	close(syncfd);
	struct sock_filter f[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE) };
	struct sock_fprog prog = { 1, f };
	/* Root may install a filter without no_new_privs (which would change how
	 * setuid programs run under the tracer); others need it. */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
			perror("polc record: seccomp");
			_exit(127);
		}
	}
	execvp(argv[0], argv);
	fprintf(stderr, "polc record: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static void flush_counts(tracer *tr)
{
	static const uint32_t audit[NARCH] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, AUDIT_ARCH_X86_64 };
	for (int a = 0; a < NARCH; a++)
		for (unsigned n = 0; n < MAXNR; n++) {
			if (!tr->counts[a][n])
				continue;
			const char *an, *name = tracer_syscall_name(audit[a],
				n | (a == 2 ? 0x40000000u : 0), &an);
			trace_syscall(tr->t, an, name, tr->counts[a][n]);
		}
}

static void loop(tracer *tr, double deadline)
{
	for (;;) {
		int status;
		pid_t pid = waitpid(-1, &status, __WALL);
		if ((tracer_stop_requested || (deadline && tracer_now() >= deadline)) &&
		    !tr->killing)
			kill_all(tr);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;   /* ECHILD: the tree is gone */
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			on_exit_status(tr, pid, status);
		else if (WIFSTOPPED(status))
			on_stop(tr, pid, status);
		if ((tr->events & 1023) == 0 || pid < 0)
			status_update(&tr->st, tr->procs, tr->distinct, tr->events, 0);
	}
}

static void on_alarm(int sig) { (void)sig; }

int record_ptrace(const record_opts *o, trace *out, char **err)
{
	int sp[2];
	if (!o->argv || !o->argv[0]) {
		*err = xstrdup("the ptrace tracer needs a command");
		return -1;
	}
	if (pipe2(sp, O_CLOEXEC) < 0) {
		*err = xasprintf("pipe: %s", strerror(errno));
		return -1;
	}
	tracer *tr = xcalloc(1, sizeof *tr);
	tr->t = out;
	double start = tracer_now();
	/* Orphans of the tree (daemons, killed parents) come to us to be reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	pid_t child = fork();
	if (child < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		free(tr);
		return -1;
	}
	if (child == 0) {
		close(sp[1]);
		child_exec(sp[0], o->argv);
	}
	close(sp[0]);
	long opts = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
		    PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL |
		    PTRACE_O_TRACESECCOMP;
	if (ptrace(PTRACE_SEIZE, child, 0, (void *)opts) < 0) {
		*err = xasprintf("ptrace(PTRACE_SEIZE): %s", strerror(errno));
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		close(sp[1]);
		free(tr);
		return -1;
	}
	tr->root = child;
	thread *t = th_add(tr, child);
	t->seen = true;
	tr->procs = 1;
	t->tgid = child;
	tracer_signals_install();
	/* A periodic SIGALRM wakes waitpid for the deadline and status line. */
	struct sigaction sa = { 0 };
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 200000 }, { 0, 200000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	status_init(&tr->st, o->status);
	/* --duration counts from here, the command released under the seized
	 * tracer, as record_ebpf's does: the fork and the seize before it are
	 * not the command's time (with the fork held 2 s, a deadline counted
	 * from before it ended a 1 s run before the command's exec). */
	double deadline = o->duration > 0 ? tracer_now() + o->duration : 0;
	if (write(sp[1], "g", 1) != 1) { /* the child fails and exits: recorded */ }
	close(sp[1]);
	loop(tr, deadline);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	status_done(&tr->st);
	bool killed = tr->killing;
	tracer_signals_restore();
	flush_counts(tr);
	char *cmd = tracer_cmdline(o->argv);
	tracer_meta_run(out, cmd, "ptrace", true);
	tracer_meta_exit(out, tr->root_status, killed);
	uint64_t ms = (uint64_t)((tracer_now() - start) * 1000);
	trace_meta(out, "duration_ms", NULL, ms ? ms : 1);
	trace_meta(out, "processes", NULL, tr->procs);
	free(cmd);
	for (size_t i = 0; i < tr->nth; i++)
		pend_clear(&tr->th[i].p);
	free(tr->th);
	free(tr);
	return 0;
}
