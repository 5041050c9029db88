/* landlock.h - the Landlock backend: IR in, a Landlock ruleset out.
 *
 * Takes: an ir_policy (read only).
 * Gives: backend_landlock (backend.h; format "json": the ruleset as a
 *        deterministic JSON description), and ll_confine(), which builds
 *        the same ruleset from the policy and restricts the calling
 *        process (no privilege needed), for `polc run` and verify probes.
 * Promises: Landlock only grants. A domain whose default is deny becomes
 *        handled access rights plus path-beneath (or port) rules for its
 *        allows; a deny can be enforced only where no grant covers it.
 *        - file/exec: rights by path hierarchy. A literal path is a rule on
 *          that object; "/dir/" + "**" a rule on /dir (which Landlock also
 *          grants for /dir itself); any other pattern is granted for the
 *          hierarchy of its literal prefix (partial). A literal that is a
 *          directory when confined gets only read_dir, with which Landlock
 *          lets its subdirectories be listed too: partial (a literal
 *          ending in "/" in classify(), any other when confined).
 *        - network: TCP bind and connect by port (ABI 4); other operations
 *          and protocols are not mediated, addresses cannot be matched.
 *        - signal and abstract unix sockets: scoping (ABI 6) refuses them
 *          towards processes outside the Landlock domain only.
 *        classify() says per statement exact / partial / none and why;
 *        ll_confine() applies what the running ABI supports (best effort)
 *        and names, per statement, what an older ABI leaves unenforced.
 *        Denials fail with EACCES (signals: EPERM).
 */
#ifndef POLC_LANDLOCK_H
#define POLC_LANDLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include "../backend.h"

/* Landlock's access rights (linux/landlock.h; this build host's headers
 * stop at ABI 2, the kernel's UAPI only grows, so they are spelled here). */
enum {
	LL_FS_EXECUTE = 1 << 0, LL_FS_WRITE_FILE = 1 << 1, LL_FS_READ_FILE = 1 << 2,
	LL_FS_READ_DIR = 1 << 3, LL_FS_REMOVE_DIR = 1 << 4, LL_FS_REMOVE_FILE = 1 << 5,
	LL_FS_MAKE_CHAR = 1 << 6, LL_FS_MAKE_DIR = 1 << 7, LL_FS_MAKE_REG = 1 << 8,
	LL_FS_MAKE_SOCK = 1 << 9, LL_FS_MAKE_FIFO = 1 << 10, LL_FS_MAKE_BLOCK = 1 << 11,
	LL_FS_MAKE_SYM = 1 << 12, LL_FS_REFER = 1 << 13, LL_FS_TRUNCATE = 1 << 14,
	LL_FS_IOCTL_DEV = 1 << 15,
	LL_NET_BIND_TCP = 1 << 0, LL_NET_CONNECT_TCP = 1 << 1,
	LL_SCOPE_ABSTRACT_UNIX = 1 << 0, LL_SCOPE_SIGNAL = 1 << 1,
};
/* Rights that apply to a non-directory (the kernel refuses others there). */
#define LL_FS_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | \
			   LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)
#define LL_ABI_MAX 7

/* One path rule: `path` and, when beneath, everything below it. */
typedef struct {
	char *path;
	uint64_t access;
	bool beneath;              /* from "/dir/" + "**", or a broadened pattern */
	bool exec_literal;         /* a literal program: its ELF interpreter is
	                              granted read_file+execute when confined */
	src_loc at;                /* the first statement granting it */
} ll_path_rule;

typedef struct {
	uint16_t first, last;      /* inclusive */
	uint64_t access;           /* LL_NET_* */
} ll_port_range;

typedef struct {
	uint64_t fs_handled, net_handled, scoped;
	ll_path_rule *paths;       /* sorted by path, one per (path, beneath) */
	size_t npaths, pathcap;
	ll_port_range *ports;      /* the bind ranges, then the connect ones,
	                              each sorted by first port */
	size_t nports;
} ll_ruleset;

/* The ruleset the policy means for Landlock (deterministic). */
void ll_ruleset_build(const ir_policy *p, ll_ruleset *out);
void ll_ruleset_free(ll_ruleset *r);

/* The first deny statement of a closed file or exec domain that a grant
 * of `access` on `path` (and, beneath, its hierarchy) would defeat; NULL. */
const ir_stmt *ll_deny_within(const ir_policy *p, const char *path, bool beneath,
			     uint64_t access);

/* Each default and statement whose enforcement relies on what ABI `abi`
 * lacks: fn(where, what it lacks, ctx). Returns how many. */
typedef void ll_lost_fn(src_loc at, const char *what, void *ctx);
size_t ll_lost(const ir_policy *p, const ll_ruleset *r, int abi, ll_lost_fn *fn, void *ctx);

/* net.ipv4.ip_local_port_range's default: listen(2) autobinds a socket
 * there without bind(2), so a bind deny meeting it is partial (classify).
 * ll_autobind_here() names, by fn(where, why, ctx), each bind deny that
 * meets [lo, hi], this machine's range, and not the default: partial only
 * here. Returns how many. */
#define LL_EPHEMERAL_LO 32768
#define LL_EPHEMERAL_HI 60999
size_t ll_autobind_here(const ir_policy *p, unsigned lo, unsigned hi, ll_lost_fn *fn, void *ctx);

/* The lowest ABI that has every right in `fs`, `net` and `scoped`. */
int ll_abi_needed(uint64_t fs, uint64_t net, uint64_t scoped);
/* The rights ABI `abi` knows. */
uint64_t ll_fs_rights(int abi);
/* Name of one right ("read_file"), by kind 'f' (fs), 'n' (net), 's' (scope). */
const char *ll_right_name(char kind, int bit);

/* The running kernel's Landlock ABI (0: none; *why says why), at most
 * POLC_LANDLOCK_ABI when that is set (to run as on an older kernel). */
int ll_abi_running(char *why, size_t n);

/* Restrict the calling process to the policy's ruleset (no_new_privs set).
 * A default or statement the running ABI cannot enforce is partial: each
 * is named, and confinement refused unless allow_partial.
 * What only the paths on this machine show is partial and refused unless
 * allow_partial (then a warning on stderr, prefixed by `who`): a grant
 * through a symbolic link (Landlock grants its target), a literal grant
 * that is a directory (its whole hierarchy can be listed). Always refused:
 * an allowed program's interpreter that a statement denies. Returns 0 or
 * -1 with *err. */
int ll_confine(const ir_policy *p, const char *who, bool allow_partial, char *err, size_t n);
/* ll_confine() in two steps: the ruleset with its rules, built from the
 * paths as the caller sees them now (*fd: -1 when nothing is restricted),
 * and later the restriction itself (closes fd). 0, or -1 with *err. */
int ll_ruleset_fd(const ir_policy *p, const char *who, bool allow_partial, int *fd,
		  char *err, size_t n);
int ll_restrict(int fd, bool close_mptcp, char *err, size_t n);

/* Landlock mediates TCP only where the socket's protocol is TCP
 * (sk_is_tcp): an MPTCP socket reaches the same TCP peers and ports
 * unseen, and io_uring makes sockets where seccomp cannot look
 * (IORING_OP_SOCKET). So a ruleset that handles TCP bind or connect comes
 * with a seccomp filter (ll_restrict's close_mptcp) that refuses on x86_64,
 * x32 and i386: socket(2) with IPPROTO_MPTCP or IPPROTO_SMC,
 * EPROTONOSUPPORT (a kernel without MPTCP says so: programs fall back to
 * TCP, which Landlock mediates), and of family AF_SMC, EAFNOSUPPORT (SMC
 * falls back to a TCP connection the kernel makes unseen);
 * io_uring_setup(2), EPERM (as container runtimes' defaults);
 * i386 socketcall(2)'s SYS_SOCKET, ENOSYS (it hides the protocol in
 * memory; the direct socket(2) is filtered). ll_mptcp_filter() writes it
 * (LL_MPTCP_FILTER_LEN instructions) for ll_restrict and the tests. */
bool ll_handles_tcp(const ir_policy *p);     /* TCP bind or connect handled */
bool ll_closes_mptcp(const ir_policy *p);    /* ... and the running ABI has them */
#define LL_MPTCP_FILTER_LEN 27
struct sock_filter;
void ll_mptcp_filter(struct sock_filter *out);

/* classify() and classify_default() of backend.h (ruleset.c). */
support ll_classify(const ir_policy *p, backend_facts f, const ir_stmt *s);
support ll_classify_default(const ir_policy *p, backend_facts f, ir_domain dom);

/* The JSON description (format "json"), backend_header's lines included. */
int ll_emit_json(const ir_policy *p, const backend_opts *o, buf *out, diag_ctx *d);

extern const backend backend_landlock;

#endif
