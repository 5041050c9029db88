/* compiler/ - stage 2: syntax trees to the IR (compile.h), the IR and its
 * one meaning ir_decide (this header), and what every later stage derives
 * from the IR alone (events.h, glob.h, syscalls.h, irdiff.h). Includes
 * base/ and grammar/ only; everything after it sees only the IR.
 *
 * ir.h - the backend-neutral intermediate representation of one policy.
 *
 * Takes: nothing (plain data). Built by compiler/compile.c from the AST.
 * Gives: per domain, an array of normalized statements (one subject item
 *        each: one syscall, one glob, one network tuple ...), each with its
 *        action and source location; the per-domain defaults; the mode; the
 *        architectures. And ir_decide(), the one definition of what a policy
 *        means for one event (LANGUAGE.md "Meaning").
 * Locations point into the source files (src_file) of the diag_ctx the
 * policy was compiled with; a compiled policy holds every file read for it
 * until ir_free, so it may outlive that diag_ctx.
 * Promises: backends and the verifier only read an ir_policy; nothing in it
 *        changes after ir_build() returns. Statement order inside a domain is
 *        source order (after `use` expansion), which breaks ties between
 *        equally restrictive statements: the first one wins.
 */
#ifndef POLC_IR_H
#define POLC_IR_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "../base/diag.h"

/* Ordered by restrictiveness: a larger value wins. */
typedef enum { IR_ALLOW = 0, IR_AUDIT = 1, IR_DENY = 2, IR_KILL = 3 } ir_verdict;

typedef struct {
	ir_verdict verdict;
	int err;               /* errno for IR_DENY (EPERM unless named) */
} ir_action;

typedef enum {
	IR_SYSCALL, IR_FILE, IR_EXEC, IR_CAPABILITY, IR_MOUNT,
	IR_NETWORK, IR_PTRACE, IR_SIGNAL, IR_NDOMAIN
} ir_domain;

typedef enum { IR_ARCH_X86_64 = 0, IR_ARCH_I386 = 1, IR_ARCH_X32 = 2, IR_NARCH } ir_arch;
#define IR_ARCH_BIT(a) (1u << (a))
#define IR_X32_SYSCALL_BIT 0x40000000u

/* ---- syscall ---- */
typedef enum { IR_CMP_EQ, IR_CMP_NE, IR_CMP_LT, IR_CMP_LE, IR_CMP_GT, IR_CMP_GE,
	       IR_CMP_MASKED_EQ } ir_cmp;

typedef struct {
	int arg;               /* 0..5 */
	ir_cmp op;
	uint64_t mask;         /* IR_CMP_MASKED_EQ only */
	uint64_t value;
} ir_arg_cond;

typedef struct {
	const char *name;      /* syscall name as written */
	int nr[IR_NARCH];      /* resolved number per arch; -1: not on that arch
	                          or arch not in policy. x32 numbers carry the
	                          0x40000000 bit. */
	uint8_t arg32;         /* bit i set: arg i has a C type of at most 32
	                          bits; the kernel ignores its upper half on
	                          64-bit ABIs, so comparisons use the lower 32
	                          bits only (on i386 every arg is 32 bits) */
	ir_arg_cond *conds;    /* conjunction; ncond == 0: unconditional */
	size_t ncond;
} ir_syscall;

/* ---- file / exec ---- */
enum {
	IR_PERM_READ = 1 << 0, IR_PERM_WRITE = 1 << 1, IR_PERM_APPEND = 1 << 2,
	IR_PERM_EXEC = 1 << 3, IR_PERM_MMAP = 1 << 4, IR_PERM_LINK = 1 << 5,
	IR_PERM_LOCK = 1 << 6, IR_PERM_ALL = (1 << 7) - 1
};

typedef struct {
	const char *glob;      /* validated absolute glob (glob.h) */
	unsigned perms;        /* IR_PERM_* (exec statements: IR_PERM_EXEC) */
} ir_file;

/* ---- capability ---- */
typedef struct {
	uint64_t caps;         /* bit n = CAP number n */
} ir_capability;

/* ---- mount ---- */
typedef enum { IR_MOUNT_MOUNT, IR_MOUNT_UMOUNT, IR_MOUNT_PIVOT_ROOT } ir_mount_op;

typedef struct {
	ir_mount_op op;
	const char **fstypes;  /* NULL/0: any fstype (mount only) */
	size_t nfstype;
	const char *target;    /* glob; NULL: any target */
} ir_mount;

/* ---- network ---- */
/* IR_NET_CREATE (socket(2)) is an event only: a statement without an
 * operation (IR_NET_ANYOP) matches it and every other operation. */
typedef enum {
	IR_NET_ANYOP = 0, IR_NET_CONNECT, IR_NET_BIND, IR_NET_LISTEN,
	IR_NET_ACCEPT, IR_NET_SEND, IR_NET_CREATE
} ir_net_op;

typedef enum { IR_PROTO_ANY = 0, IR_PROTO_TCP, IR_PROTO_UDP, IR_PROTO_RAW,
	       IR_PROTO_ICMP } ir_net_proto;

typedef struct {
	int family;            /* AF_*; 6 bytes or 16 bytes for addr */
	uint8_t addr[16];      /* network byte order */
	int prefix;            /* bits */
} ir_cidr;

typedef struct {
	ir_net_op op;          /* IR_NET_ANYOP: any operation */
	int family;            /* AF_*; 0: any. Set to AF_INET/AF_INET6 from `to`
	                          addresses when not written. */
	ir_net_proto proto;
	bool has_addr;
	ir_cidr addr;          /* one CIDR per statement (normalized) */
	bool has_port;
	uint16_t port_lo, port_hi;   /* one range per statement (normalized) */
} ir_network;

/* ---- ptrace / signal ---- */
enum { IR_PTRACE_READ = 1, IR_PTRACE_TRACE = 2 };
typedef struct { unsigned modes; } ir_ptrace;
typedef struct { const char *peer; /* glob on the target's label; NULL: any */ } ir_signal;

typedef struct ir_stmt {
	ir_domain domain;
	ir_action action;      /* as written; ir_effective() applies the mode */
	src_loc loc;           /* the statement in its source file */
	const char *rule;      /* rule that brought it in via `use`; NULL: the policy */
	union {
		ir_syscall sys;
		ir_file file;      /* IR_FILE and IR_EXEC */
		ir_capability cap;
		ir_mount mount;
		ir_network net;
		ir_ptrace ptrace;
		ir_signal signal;
	} u;
} ir_stmt;

typedef struct {
	ir_stmt *v;
	size_t n;
} ir_stmt_list;

typedef enum { IR_MODE_ENFORCE, IR_MODE_AUDIT } ir_mode;

typedef struct ir_policy {
	const char *name;
	src_loc loc;
	ir_mode mode;
	unsigned arches;                   /* IR_ARCH_BIT set; default x86_64 */
	ir_action defaults[IR_NDOMAIN];    /* default allow where none written */
	bool default_set[IR_NDOMAIN];      /* written (in policy or a used rule) */
	src_loc default_loc[IR_NDOMAIN];   /* where (set ones): refusals name it */
	ir_stmt_list dom[IR_NDOMAIN];
	const char **rules_used;           /* every rule brought in, sorted */
	size_t nrules_used;
	/* every file read to compile it, in order, held (src_file_hold) until
	 * ir_free, which frees this array (not the arena's): what
	 * ir_source_hash hashes */
	src_file **sources;
	size_t nsources;
	struct ir_arena *arena;            /* owns every string and array above */
} ir_policy;

/* ---- events and the oracle ---- */
typedef struct {
	ir_domain domain;
	union {
		struct { uint32_t audit_arch; /* AUDIT_ARCH_X86_64 or _I386 */
			 uint32_t nr; uint64_t args[6]; } sys;
		struct { const char *path; unsigned perm; /* one IR_PERM_* bit */
			 bool dir; /* a directory: the kernel names it "path/" (AppArmor's
			              meaning), so a glob matching path or path/ matches */ } file;
		struct { const char *path; } exec;
		struct { int cap; } cap;
		struct { ir_mount_op op; const char *fstype; const char *target; } mount;
		struct { ir_net_op op; int family; int type; /* SOCK_* */ int protocol;
			 bool has_addr; uint8_t addr[16]; uint16_t port; } net;
		struct { unsigned mode; /* IR_PTRACE_READ or _TRACE */ } ptrace;
		struct { const char *peer; } signal;
	} u;
} ir_event;

typedef struct {
	ir_verdict verdict;    /* after the mode is applied */
	int err;               /* errno when verdict is IR_DENY (or IR_KILL
	                          lowered to deny outside seccomp) */
	const ir_stmt *by;     /* deciding statement (for an implied action,
	                          the statement implying it); NULL: the default */
} ir_decision;

ir_decision ir_decide(const ir_policy *p, const ir_event *ev);

/* What the policy's statements imply for syscall `sysname` beyond the
 * statements that name it (LANGUAGE.md "A statement covers every kernel
 * path"): clone3 fails with ENOSYS when a statement conditions clone(2) or
 * unshare(2) flags (clone3's flags sit in memory: libc falls back to
 * clone); io_uring_setup, io_uring_enter and io_uring_register fail with
 * EPERM when a deny or kill names a syscall an io_uring opcode also
 * performs (ir_uring_performs) or a socket(2) family/protocol. It acts as a
 * deny statement after all written ones: it beats the default and allow or
 * audit statements, never a written deny or kill. `by`: the first statement
 * that implies it. */
typedef struct {
	ir_action act;
	const ir_stmt *by;
} ir_implied_action;
bool ir_implied(const ir_policy *p, const char *sysname, ir_implied_action *out);
/* ir_implied in two steps, for a caller asking about many names: the kind
 * of implication sysname can carry (IR_IMPLIES_NONE for most), then the
 * policy's answer for that kind (the same for every name of it). */
typedef enum { IR_IMPLIES_NONE, IR_IMPLIES_CLONE3, IR_IMPLIES_URING, IR_NIMPLIES } ir_implies;
ir_implies ir_implied_kind(const char *sysname);
bool ir_implied_of(const ir_policy *p, ir_implies kind, ir_implied_action *out);
/* Can an io_uring opcode do what syscall `sysname` does (Linux 6.1/6.18)? */
bool ir_uring_performs(const char *sysname);

/* Is every network event of operation op and family family that carries
 * no address (a send on a connected socket, a listen) allowed, whatever
 * the socket's type and protocol? ir_decide's answer for one socket of
 * each kind it tells apart. A backend may then skip deciding such events. */
bool ir_net_unaddressed_allowed(const ir_policy *p, ir_net_op op, int family);
/* Each kind of socket (type, protocol) ir_decide tells apart, one of each:
 * fn's answer for the first that gets true, else false. */
bool ir_any_socket_kind(bool (*fn)(int type, int protocol, void *ctx), void *ctx);
/* The network event of operation op on a socket of this kind, no address. */
ir_event ir_net_kind_event(ir_net_op op, int family, int type, int protocol);

/* Does every event of the domains in `domains` (bit d: ir_domain d) come
 * out allowed, none audited: every default and every statement allow?
 * A backend may then mediate nothing there. */
bool ir_decides_nothing(const ir_policy *p, unsigned domains);

/* The action after `mode audit` (deny/kill become audit). */
ir_action ir_effective(const ir_policy *p, ir_action a);

/* Does one statement match one event? (The building block of ir_decide,
 * exported so backends' tests can check single statements.) */
bool ir_stmt_matches(const ir_stmt *s, const ir_event *ev);
/* Does the mount statement list this filesystem type? (NULL: no.) */
bool ir_mount_names_fstype(const ir_mount *m, const char *fstype);

/* Arch of a syscall event: the ABI its number belongs to. */
ir_arch ir_event_arch(const ir_event *ev);

const char *ir_domain_name(ir_domain d);
const char *ir_verdict_name(ir_verdict v);
const char *ir_arch_name(ir_arch a);
uint32_t ir_arch_audit(ir_arch a);     /* AUDIT_ARCH_* */

void ir_free(ir_policy *p);
/* The sha256 hex of every source byte read to compile p ("" for a policy
 * not compiled from sources), hashed now into out, which it returns: only
 * the outputs that carry it (headers, SPO/k8s annotations, BPF bundles) pay
 * for it, once each; a raw seccomp filter, a check or a verify never does. */
#define IR_SOURCE_HASH_SIZE 65
const char *ir_source_hash(const ir_policy *p, char out[IR_SOURCE_HASH_SIZE]);

#endif
