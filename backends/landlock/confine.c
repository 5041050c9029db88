/* confine.c - restrict the calling process with the policy's Landlock
 * ruleset (landlock.h): no privilege needed, inherited across fork and
 * exec, never lifted. Best effort: the running ABI decides which rights
 * are handled; each statement an older ABI leaves unenforced is named. */
#include "landlock.h"
#include "../../compiler/ir.h"

#include <elf.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The UAPI structures (linux/landlock.h, Linux 6.18); they only grow. */
struct ll_attr {
	uint64_t handled_access_fs, handled_access_net, scoped;
};
struct ll_path_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));
struct ll_port_attr {
	uint64_t allowed_access, port;
};
enum { LL_RULE_PATH_BENEATH = 1, LL_RULE_NET_PORT = 2 };
#define LL_CREATE_RULESET_VERSION 1u

int ll_abi_running(char *why, size_t n)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	const char *cap = getenv("POLC_LANDLOCK_ABI");
	if (abi > 0 && cap && *cap && atol(cap) >= 0 && atol(cap) < abi)
		abi = atol(cap);
	if (abi > 0)
		return (int)abi;
	if (cap && *cap && atol(cap) == 0) {
		snprintf(why, n, "POLC_LANDLOCK_ABI=0");
		return 0;
	}
	snprintf(why, n, "%s", errno == EOPNOTSUPP ? "Landlock is disabled at boot (lsm=)" :
		 errno == ENOSYS ? "this kernel has no Landlock (before 5.13)" : strerror(errno));
	return 0;
}

/* Per default or statement the running ABI leaves unenforced: said. */
typedef struct {
	const char *who;
	bool refused;
	int abi;
} lost_ctx;

static void say_lost(src_loc at, const char *what, void *ctx)
{
	const lost_ctx *l = ctx;
	if (!l->who)
		return;
	if (at.file)
		fprintf(stderr, "%s:%d:%d: ", at.file->path, at.line, at.col);
	fprintf(stderr, "%s: landlock: %s: this statement relies on %s, which Landlock ABI %d "
		"lacks\n", l->who, l->refused ? "error" : "partial", what, l->abi);
}

/* What the running ABI drops: refused unless allow_partial. */
static int check_lost(const ir_policy *p, const ll_ruleset *r, int abi, const char *who,
		      bool allow_partial, char *err, size_t n)
{
	lost_ctx l = { who, !allow_partial, abi };
	size_t k = ll_lost(p, r, abi, say_lost, &l);
	if (!k || allow_partial)
		return 0;
	snprintf(err, n, "landlock: the running ABI %d cannot enforce %zu statement%s named above "
		 "(use --allow-partial to run anyway)", abi, k, k == 1 ? "" : "s");
	return -1;
}

/* Per bind deny that this machine's ephemeral range makes partial: said. */
static void say_autobind(src_loc at, const char *why, void *ctx)
{
	const lost_ctx *l = ctx;
	if (!l->who)
		return;
	if (at.file)
		fprintf(stderr, "%s:%d:%d: ", at.file->path, at.line, at.col);
	fprintf(stderr, "%s: landlock: %s: here %s\n", l->who, l->refused ? "error" : "partial",
		why);
}

/* A bind deny meeting net.ipv4.ip_local_port_range as this machine has it
 * (classify() judged it by Linux's default): refused unless allow_partial. */
static int check_autobind(const ir_policy *p, const ll_ruleset *r, const char *who,
			  bool allow_partial, char *err, size_t n)
{
	unsigned lo, hi;
	if (!(r->net_handled & LL_NET_BIND_TCP))
		return 0;
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");
	bool got = f && fscanf(f, "%u %u", &lo, &hi) == 2;
	if (f)
		fclose(f);
	if (!got) {
		lo = 1;                /* unknown: every port may be autobound */
		hi = 65535;
	}
	lost_ctx l = { who, !allow_partial, 0 };
	size_t k = ll_autobind_here(p, lo, hi, say_autobind, &l);
	if (!k || allow_partial)
		return 0;
	snprintf(err, n, "landlock: %zu bind deny statement%s named above meet%s this machine's "
		 "net.ipv4.ip_local_port_range %u-%u (use --allow-partial to run anyway)", k,
		 k == 1 ? "" : "s", k == 1 ? "s" : "", lo, hi);
	return -1;
}

/* The interpreter a program asks the kernel to open for execution: ELF
 * PT_INTERP, or a script's "#!" line. Into out; false if none. */
static bool interpreter_of(int fd, char *out, size_t n)
{
	char head[256];
	ssize_t got = pread(fd, head, sizeof head - 1, 0);
	if (got >= 2 && head[0] == '#' && head[1] == '!') {
		head[got] = 0;
		char *s = head + 2 + strspn(head + 2, " \t");
		size_t len = strcspn(s, " \t\n");
		if (!len || len >= n || s[0] != '/')
			return false;
		memcpy(out, s, len);
		out[len] = 0;
		return true;
	}
	Elf64_Ehdr e;
	if (pread(fd, &e, sizeof e, 0) != (ssize_t)sizeof e || memcmp(e.e_ident, ELFMAG, SELFMAG) ||
	    e.e_ident[EI_CLASS] != ELFCLASS64 || e.e_phentsize != sizeof(Elf64_Phdr))
		return false;
	for (int i = 0; i < e.e_phnum && i < 64; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof ph, (off_t)(e.e_phoff + (Elf64_Off)i * sizeof ph)) != (ssize_t)sizeof ph)
			return false;
		if (ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz < 2 || ph.p_filesz >= n ||
		    pread(fd, out, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz)
			return false;
		out[ph.p_filesz - 1] = 0;
		return out[0] == '/';
	}
	return false;
}

/* One confinement being built: what add_path needs besides the rule. */
typedef struct {
	const ir_policy *p;
	const ll_ruleset *r;
	int rs;
	uint64_t handled;
	const char *who;
	bool allow_partial;
	bool loaders;              /* the dynamic loaders are granted */
	char *err;
	size_t n;
} confine_ctx;

static int rule_add(confine_ctx *c, const ll_path_rule *g, const char *path, uint64_t access,
		    int depth);

/* A loc as "file:line:col" (or the policy's name when it has none). */
static const char *loc_str(const confine_ctx *c, src_loc at, char *out, size_t n)
{
	if (at.file)
		snprintf(out, n, "%s:%d:%d", at.file->path, at.line, at.col);
	else
		snprintf(out, n, "policy %s", c->p->name ? c->p->name : "?");
	return out;
}

/* Something only this machine's paths show, which classify() could not
 * see: a grant reaching further than written (to `path`, beneath: its
 * hierarchy, with `access`). Refused when it defeats a deny statement
 * (naming both), else partial: refused unless allow_partial, then said.
 * -1 when refused. */
static int partial_here(confine_ctx *c, src_loc at, const char *what, const char *path,
			bool beneath, uint64_t access)
{
	char where[300], w2[300];
	loc_str(c, at, where, sizeof where);
	const ir_stmt *d = ll_deny_within(c->p, path, beneath, access);
	if (d) {
		snprintf(c->err, c->n, "%s: landlock: %s, where %s denies: refusing to confine",
			 where, what, loc_str(c, d->loc, w2, sizeof w2));
		return -1;
	}
	if (!c->allow_partial) {
		snprintf(c->err, c->n, "%s: landlock cannot enforce this statement exactly: %s "
			 "(use --allow-partial to accept)", where, what);
		return -1;
	}
	if (c->who)
		fprintf(stderr, "%s: %s: landlock: partial: %s\n", where, c->who, what);
	return 0;
}

/* The statement that denies executing or reading `path`, or NULL (the
 * default, or allowed): an interpreter granted behind it would defeat it. */
static const ir_stmt *denied_by(const ir_policy *p, const char *path)
{
	ir_event ev = { .domain = IR_EXEC };
	ev.u.exec.path = path;
	ir_decision d = ir_decide(p, &ev);
	if (d.verdict >= IR_DENY && d.by)
		return d.by;
	static const unsigned perms[] = { IR_PERM_READ, IR_PERM_EXEC };
	for (size_t i = 0; i < 2; i++) {
		ir_event fe = { .domain = IR_FILE };
		fe.u.file.path = path;
		fe.u.file.perm = perms[i];
		d = ir_decide(p, &fe);
		if (d.verdict >= IR_DENY && d.by)
			return d.by;
	}
	return NULL;
}

/* The kernel opens an allowed program's interpreter with execute and
 * read: grant both there (where it resolves: the kernel follows links),
 * or the program could not start; unless a statement denies it. */
static int grant_interp(confine_ctx *c, const ll_path_rule *g, const char *interp, int depth)
{
	char real[PATH_MAX];
	if (!realpath(interp, real))
		return 0;          /* nothing there: the exec fails anyway */
	const ir_stmt *d = denied_by(c->p, interp);
	if (!d)
		d = denied_by(c->p, real);
	if (d) {
		char w1[300], w2[300];
		snprintf(c->err, c->n, "%s: landlock: a program this statement allows needs the "
			 "interpreter %s (%s), which %s denies: Landlock would grant it; refusing "
			 "to confine", loc_str(c, g->at, w1, sizeof w1), interp, real,
			 loc_str(c, d->loc, w2, sizeof w2));
		return -1;
	}
	return rule_add(c, g, real, LL_FS_EXECUTE | LL_FS_READ_FILE, depth + 1);
}

static int add_interp(confine_ctx *c, const ll_path_rule *g, int fd, int depth)
{
	char interp[512];
	if (depth > 2 || !interpreter_of(fd, interp, sizeof interp))
		return 0;
	return grant_interp(c, g, interp, depth);
}

/* A hierarchy exec grant cannot name its programs' interpreters: the
 * system's dynamic loaders (polc's own and the x86 ABIs' usual ones,
 * where present) are granted for it, unless a statement denies them. */
static int add_loaders(confine_ctx *c, const ll_path_rule *g)
{
	static const char *const known[] = { "/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux.so.2",
		"/libx32/ld-linux-x32.so.2", "/lib/ld-musl-x86_64.so.1" };
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	int rc = fd >= 0 ? add_interp(c, g, fd, 1) : 0;
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < sizeof known / sizeof *known && rc == 0; i++)
		rc = grant_interp(c, g, known[i], 1);
	return rc;
}

/* Does realpath's answer name the same path as `path` (a canonical glob
 * literal, perhaps with a trailing "/")? Then no component is a link. */
static bool same_path(const char *real, const char *path)
{
	size_t n = strlen(path);
	if (n > 1 && path[n - 1] == '/')
		n--;
	return strlen(real) == n && !strncmp(real, path, n);
}

/* Open a granted path without following symbolic links (openat2
 * RESOLVE_NO_SYMLINKS): Landlock grants the object a path resolves to,
 * and a link would carry the grant somewhere the policy does not name.
 * Where openat2 fails with ENOSYS (a seccomp filter around polc, as some
 * container runtimes' defaults, says so for syscalls they do not know),
 * realpath tells whether a link is on the way: the same check, not none.
 * -2: no such path; -3: refused (c->err). */
static int open_grant(confine_ctx *c, const ll_path_rule *g, const char *path)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS };
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
	if (fd >= 0)
		return fd;
	if (errno != ELOOP && errno != ENOSYS)
		return -2;
	char real[PATH_MAX], what[2 * PATH_MAX + 200];
	struct stat st;
	if (!realpath(path, real) || stat(real, &st) < 0)
		return -2;
	if (!same_path(real, path)) {
		snprintf(what, sizeof what, "the grant of %s goes through a symbolic link: "
			 "Landlock would grant %s, which the policy does not name", path, real);
		if (partial_here(c, g->at, what, real, g->beneath || S_ISDIR(st.st_mode),
				 g->access & c->handled) < 0)
			return -3;
	}
	/* the object realpath named (a link swapped in since is not followed) */
	fd = open(real, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? -2 : fd;
}

/* A literal directory: Landlock's read_dir on it lets every directory
 * below be listed, unless the hierarchy is granted as well. */
static int literal_dir(confine_ctx *c, const ll_path_rule *g, const char *path)
{
	size_t n = strlen(path);
	for (size_t i = 0; i < c->r->npaths; i++) {
		const ll_path_rule *h = &c->r->paths[i];
		size_t hn = strlen(h->path);
		if (h->beneath && (h->access & LL_FS_READ_DIR) && (hn == n || hn + 1 == n) &&
		    !strncmp(h->path, path, hn) && (hn == n || path[hn] == '/'))
			return 0;
	}
	char what[PATH_MAX + 200], *dir = xstrndup(path, n > 1 && path[n - 1] == '/' ? n - 1 : n);
	snprintf(what, sizeof what, "%s is a directory: Landlock lets every directory below it "
		 "be listed too", path);
	int rc = partial_here(c, g->at, what, dir, true, LL_FS_READ_DIR);
	free(dir);
	return rc;
}

/* One rule (or, depth > 0, an interpreter it needs) into the ruleset. */
static int rule_add(confine_ctx *c, const ll_path_rule *g, const char *path, uint64_t access,
		    int depth)
{
	int fd = depth ? open(path, O_PATH | O_CLOEXEC) : open_grant(c, g, path);
	if (fd < 0)
		return fd == -3 ? -1 : 0;   /* nothing there to grant */
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) < 0)
		goto out;
	bool dir = S_ISDIR(st.st_mode);
	if (g->beneath && !depth && !dir)
		goto out;          /* a hierarchy under a file is empty */
	if ((depth || !g->beneath) && dir) {
		if ((access & c->handled & LL_FS_READ_DIR) && literal_dir(c, g, path) < 0) {
			rc = -1;
			goto out;
		}
		access &= LL_FS_READ_DIR;
	} else if (!dir) {
		access &= LL_FS_FILE_RIGHTS;
	}
	access &= c->handled;
	struct ll_path_attr a = { access, fd };
	if (access && syscall(SYS_landlock_add_rule, c->rs, LL_RULE_PATH_BENEATH, &a, 0) < 0) {
		snprintf(c->err, c->n, "landlock_add_rule %s: %s", path, strerror(errno));
		rc = -1;
		goto out;
	}
	if (!depth && g->beneath && (access & LL_FS_EXECUTE) && !c->loaders) {
		c->loaders = true;
		rc = add_loaders(c, g);
	}
	if (g->exec_literal && (access & LL_FS_EXECUTE) && S_ISREG(st.st_mode)) {
		int rfd = open(path, O_RDONLY | O_CLOEXEC);
		if (rfd >= 0) {
			rc = add_interp(c, g, rfd, depth);
			close(rfd);
		}
	}
out:
	close(fd);
	return rc;
}

static int add_ports(int rs, const ll_ruleset *r, uint64_t net)
{
	for (size_t i = 0; i < r->nports; i++) {
		uint64_t acc = r->ports[i].access & net;
		for (unsigned port = r->ports[i].first; acc && port <= r->ports[i].last; port++) {
			struct ll_port_attr a = { acc, port };
			if (syscall(SYS_landlock_add_rule, rs, LL_RULE_NET_PORT, &a, 0) < 0)
				return -1;
		}
	}
	return 0;
}

int ll_ruleset_fd(const ir_policy *p, const char *who, bool allow_partial, int *fd,
		  char *err, size_t n)
{
	*fd = -1;
	int abi = ll_abi_running(err, n);
	if (!abi)
		return -1;
	ll_ruleset r;
	ll_ruleset_build(p, &r);
	if (check_lost(p, &r, abi, who, allow_partial, err, n) < 0 ||
	    check_autobind(p, &r, who, allow_partial, err, n) < 0) {
		ll_ruleset_free(&r);
		return -1;
	}
	struct ll_attr attr = { r.fs_handled & ll_fs_rights(abi),
				abi >= 4 ? r.net_handled : 0, abi >= 6 ? r.scoped : 0 };
	size_t size = abi >= 6 ? sizeof attr : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
	int rc = -1, rs = -1;
	if (!attr.handled_access_fs && !attr.handled_access_net && !attr.scoped) {
		rc = 0;            /* nothing to restrict */
		goto out;
	}
	rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (rs < 0) {
		snprintf(err, n, "landlock_create_ruleset: %s", strerror(errno));
		goto out;
	}
	confine_ctx c = { p, &r, rs, attr.handled_access_fs, who, allow_partial, false, err, n };
	for (size_t i = 0; i < r.npaths; i++)
		if (rule_add(&c, &r.paths[i], r.paths[i].path, r.paths[i].access, 0) < 0)
			goto out;
	if (add_ports(rs, &r, attr.handled_access_net) < 0) {
		snprintf(err, n, "landlock_add_rule (port): %s", strerror(errno));
		goto out;
	}
	*fd = rs;
	rs = -1;
	rc = 0;
out:
	if (rs >= 0)
		close(rs);
	ll_ruleset_free(&r);
	return rc;
}

bool ll_closes_mptcp(const ir_policy *p)
{
	char why[128];
	return ll_handles_tcp(p) && ll_abi_running(why, sizeof why) >= 4;
}

/* Syscall numbers as each ABI has them (x32: the x86_64 number with bit
 * 30), and socketcall(2)'s call number for socket(2). */
enum {
	NR64_SOCKET = 41, NR64_URING_SETUP = 425, X32_BIT = 0x40000000,
	NR32_SOCKETCALL = 102, NR32_SOCKET = 359, NR32_URING_SETUP = 425, SYS_SOCKET_CALL = 1,
	/* SMC (net/smc): an AF_SMC socket, or since 6.11 an AF_INET/AF_INET6
	 * one of protocol IPPROTO_SMC, falls back to TCP through an internal
	 * TCP socket the kernel connects itself (kernel_connect: no LSM hook),
	 * and Landlock mediates sockets whose protocol is TCP only */
	LL_AF_SMC = 43, LL_IPPROTO_SMC = 256,
};
#define LD_W(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JEQ(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define ERRNO(e) RET(SECCOMP_RET_ERRNO | (e))
/* the low half of an int argument, on these little-endian ABIs */
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))

void ll_mptcp_filter(struct sock_filter *out)
{
	/* jump offsets count from the next instruction: the labels' indexes
	 * are in the comments (L64 4, L32 10, SOCKETCALL 15, SOCKET 18,
	 * EPROTO 23, EAFNO 24, ALLOW 25, EPERM 26) */
	const struct sock_filter f[LL_MPTCP_FILTER_LEN] = {
		LD_W(offsetof(struct seccomp_data, arch)),      /* 0 */
		JEQ(AUDIT_ARCH_X86_64, 2, 0),                   /* 1 -> L64 */
		JEQ(AUDIT_ARCH_I386, 7, 0),                     /* 2 -> L32 */
		RET(SECCOMP_RET_ALLOW),                         /* 3: no such ABI here */
		LD_W(offsetof(struct seccomp_data, nr)),        /* 4: L64 (x86_64, x32) */
		JEQ(NR64_SOCKET, 12, 0),                        /* 5 -> SOCKET */
		JEQ(NR64_SOCKET | X32_BIT, 11, 0),              /* 6 -> SOCKET */
		JEQ(NR64_URING_SETUP, 18, 0),                   /* 7 -> EPERM */
		JEQ(NR64_URING_SETUP | X32_BIT, 17, 0),         /* 8 -> EPERM */
		RET(SECCOMP_RET_ALLOW),                         /* 9 */
		LD_W(offsetof(struct seccomp_data, nr)),        /* 10: L32 */
		JEQ(NR32_SOCKET, 6, 0),                         /* 11 -> SOCKET */
		JEQ(NR32_URING_SETUP, 13, 0),                   /* 12 -> EPERM */
		JEQ(NR32_SOCKETCALL, 1, 0),                     /* 13 -> SOCKETCALL */
		RET(SECCOMP_RET_ALLOW),                         /* 14 */
		LD_W(ARG_LO(0)),                                /* 15: SOCKETCALL */
		JEQ(SYS_SOCKET_CALL, 0, 8),                     /* 16 -> ALLOW */
		ERRNO(ENOSYS),                                  /* 17 */
		LD_W(ARG_LO(2)),                                /* 18: SOCKET */
		JEQ(IPPROTO_MPTCP, 3, 0),                       /* 19 -> EPROTO */
		JEQ(LL_IPPROTO_SMC, 2, 0),                      /* 20 -> EPROTO */
		LD_W(ARG_LO(0)),                                /* 21: the family */
		JEQ(LL_AF_SMC, 1, 2),                           /* 22 -> EAFNO, ALLOW */
		ERRNO(EPROTONOSUPPORT),                         /* 23: EPROTO */
		ERRNO(EAFNOSUPPORT),                            /* 24: EAFNO */
		RET(SECCOMP_RET_ALLOW),                         /* 25: ALLOW */
		ERRNO(EPERM),                                   /* 26: EPERM */
	};
	memcpy(out, f, sizeof f);
}

/* The MPTCP and io_uring filter, on this thread (landlock.h says why);
 * built only here, where it is installed. */
static int install_mptcp_filter(void)
{
	struct sock_filter f[LL_MPTCP_FILTER_LEN];
	struct sock_fprog prog = { LL_MPTCP_FILTER_LEN, f };
	ll_mptcp_filter(f);
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int ll_restrict(int fd, bool close_mptcp, char *err, size_t n)
{
	if (fd < 0)
		return 0;
	/* no_new_privs: required unprivileged, and no setuid exec sheds it */
	int rc = -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_landlock_restrict_self, fd, 0) < 0)
		snprintf(err, n, "landlock_restrict_self: %s", strerror(errno));
	else if (close_mptcp && install_mptcp_filter() < 0)
		snprintf(err, n, "seccomp (MPTCP and io_uring closed beside TCP rules): %s",
			 strerror(errno));
	else
		rc = 0;
	close(fd);
	return rc;
}

int ll_confine(const ir_policy *p, const char *who, bool allow_partial, char *err, size_t n)
{
	int fd;
	if (ll_ruleset_fd(p, who, allow_partial, &fd, err, n) < 0)
		return -1;
	return ll_restrict(fd, ll_closes_mptcp(p), err, n);
}
