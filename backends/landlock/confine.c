/* confine.c - restrict the calling process with the policy's Landlock
 * ruleset (landlock.h): no privilege needed, inherited across fork and
 * exec, never lifted. Best effort: the running ABI decides which rights
 * are handled; each statement an older ABI leaves unenforced is named. */
#include "landlock.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
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
	if (abi > 0)
		return (int)abi;
	snprintf(why, n, "%s", errno == EOPNOTSUPP ? "Landlock is disabled at boot (lsm=)" :
		 errno == ENOSYS ? "this kernel has no Landlock (before 5.13)" : strerror(errno));
	return 0;
}

static void warn_at(const char *who, src_loc at, const char *fmt, const char *arg, int abi)
{
	if (!who)
		return;
	if (at.file)
		fprintf(stderr, "%s:%d:%d: ", at.file->path, at.line, at.col);
	fprintf(stderr, "%s: landlock: ", who);
	fprintf(stderr, fmt, arg, abi);
	fputc('\n', stderr);
}

static const char *fs_names(uint64_t r, char *out, size_t n)
{
	size_t k = 0;
	out[0] = 0;
	for (int b = 0; b < 16 && k < n; b++)
		if (r >> b & 1)
			k += (size_t)snprintf(out + k, n - k, "%s%s", k ? "," : "", ll_right_name('f', b));
	return out;
}

/* What the running ABI drops, named at each statement or default that
 * relied on it (its denials come from handled rights). */
static void say_dropped(const ir_policy *p, const ll_ruleset *r, int abi, const char *who)
{
	uint64_t fs_lost = r->fs_handled & ~ll_fs_rights(abi);
	uint64_t net_lost = abi >= 4 ? 0 : r->net_handled;
	uint64_t scope_lost = abi >= 6 ? 0 : r->scoped;
	char names[200];
	if (fs_lost && p->default_set[IR_FILE])
		warn_at(who, p->default_loc[IR_FILE], "%s not restricted on ABI %d",
			fs_names(fs_lost, names, sizeof names), abi);
	if (net_lost)
		warn_at(who, p->default_set[IR_NETWORK] ? p->default_loc[IR_NETWORK] : p->loc,
			"%sTCP bind/connect not restricted on ABI %d", "", abi);
	if (scope_lost & LL_SCOPE_SIGNAL)
		warn_at(who, p->default_set[IR_SIGNAL] ? p->default_loc[IR_SIGNAL] : p->loc,
			"%ssignals not scoped on ABI %d", "", abi);
	if (scope_lost & LL_SCOPE_ABSTRACT_UNIX)
		warn_at(who, p->default_set[IR_NETWORK] ? p->default_loc[IR_NETWORK] : p->loc,
			"%sabstract unix sockets not scoped on ABI %d", "", abi);
	for (size_t i = 0; i < p->dom[IR_FILE].n && fs_lost; i++) {
		const ir_stmt *s = &p->dom[IR_FILE].v[i];
		if (s->action.verdict >= IR_DENY && (s->u.file.perms & IR_PERM_WRITE) &&
		    (fs_lost & LL_FS_TRUNCATE))
			warn_at(who, s->loc, "%struncate not refused on ABI %d", "", abi);
	}
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

static int add_path(int rs, const char *path, uint64_t access, bool beneath, bool exec_lit,
		    uint64_t handled, const char *who, int depth);

/* The kernel opens an allowed program's interpreter with execute and
 * read: grant both there, or the program could not start. */
static int add_interp(int rs, int fd, uint64_t handled, const char *who, int depth)
{
	char interp[512];
	if (depth > 2 || !interpreter_of(fd, interp, sizeof interp))
		return 0;
	return add_path(rs, interp, LL_FS_EXECUTE | LL_FS_READ_FILE, false, true, handled, who,
			depth + 1);
}

static int add_path(int rs, const char *path, uint64_t access, bool beneath, bool exec_lit,
		    uint64_t handled, const char *who, int depth)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return 0;          /* nothing there to grant */
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) < 0)
		goto out;
	bool dir = S_ISDIR(st.st_mode);
	if (beneath && !dir)
		goto out;          /* a hierarchy under a file is empty */
	if (!beneath && dir) {
		if (access & LL_FS_READ_DIR && who)
			fprintf(stderr, "%s: landlock: %s is a directory: its subdirectories "
				"can be listed too\n", who, path);
		access &= LL_FS_READ_DIR;
	} else if (!dir) {
		access &= LL_FS_FILE_RIGHTS;
	}
	access &= handled;
	struct ll_path_attr a = { access, fd };
	if (access && syscall(SYS_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &a, 0) < 0) {
		rc = -1;
		goto out;
	}
	if (exec_lit && S_ISREG(st.st_mode)) {
		int rfd = open(path, O_RDONLY | O_CLOEXEC);
		if (rfd >= 0) {
			rc = add_interp(rs, rfd, handled, who, depth);
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

int ll_ruleset_fd(const ir_policy *p, const char *who, int *fd, char *err, size_t n)
{
	*fd = -1;
	int abi = ll_abi_running(err, n);
	if (!abi)
		return -1;
	ll_ruleset r;
	ll_ruleset_build(p, &r);
	say_dropped(p, &r, abi, who);
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
	for (size_t i = 0; i < r.npaths; i++)
		if (add_path(rs, r.paths[i].path, r.paths[i].access, r.paths[i].beneath,
			     r.paths[i].exec_literal, attr.handled_access_fs, who, 0) < 0) {
			snprintf(err, n, "landlock_add_rule %s: %s", r.paths[i].path, strerror(errno));
			goto out;
		}
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

int ll_restrict(int fd, char *err, size_t n)
{
	if (fd < 0)
		return 0;
	/* no_new_privs: required unprivileged, and no setuid exec sheds it */
	int rc = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		 syscall(SYS_landlock_restrict_self, fd, 0) < 0 ? -1 : 0;
	if (rc < 0)
		snprintf(err, n, "landlock_restrict_self: %s", strerror(errno));
	close(fd);
	return rc;
}

int ll_confine(const ir_policy *p, const char *who, char *err, size_t n)
{
	int fd;
	if (ll_ruleset_fd(p, who, &fd, err, n) < 0)
		return -1;
	return ll_restrict(fd, err, n);
}
