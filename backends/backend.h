/* backends/ - what a backend is, the registry, and the one support table.
 *
 * Takes: an ir_policy (read only) and output options.
 * Gives: struct backend, everything the CLI, verify and bench may know of
 *        a target: the artifact (emit) and per statement whether it is
 *        enforced exactly, partially (why), or not at all (why); whether
 *        it can enforce on this kernel (available, needs_lab); how `polc
 *        run` confines with it (confine, audit); load/unload/status of a
 *        policy that outlives polc; how `polc verify` proves it (probes);
 *        its title in bench tables. backends_all is the registry: adding a
 *        backend is its folder plus one line of backends/registry.def.
 *        Nothing outside backends/ compares a backend's name: it loops over
 *        backends_all and reads these fields.
 * Promises: `polc rules`, the --allow-partial refusals and the artifact
 *        headers all read backend_classify(): support judged by effect (a
 *        statement that cannot change any decision, an allow in a domain
 *        whose default is allow, is exact on every target), then the
 *        backend's classify(). Domains the artifact does not cover (see
 *        backend_set_domains) are left to the other enforcers: reported
 *        once per artifact, not refused. A backend that cannot enforce a
 *        statement exactly never drops it silently: backend_check() refuses
 *        it with its location, or (allow_partial) warns and lists it in the
 *        header. Backends include only base/, compiler/ and backends/
 *        headers.
 */
#ifndef POLC_BACKEND_H
#define POLC_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include "../compiler/ir.h"
#include "../compiler/syscalls.h"
#include "../base/util.h"

typedef enum { SUPPORT_EXACT, SUPPORT_PARTIAL, SUPPORT_NONE } support_level;

typedef struct {
	support_level level;
	const char *why;       /* static text; NULL when exact */
} support;

/* What a backend's classify() and classify_default() read of the whole
 * policy rather than of one statement (the BPF backend's raw-packet route,
 * seven decisions against every statement), worked out by its prepare()
 * once per policy before the policy's statements are classified. Bits of
 * the backend's own meaning; zero for a backend without prepare(). By
 * value: nothing to free, and a policy changed after (a copy reduced to
 * some statements) is prepared anew. */
typedef struct {
	unsigned bits;
} backend_facts;

typedef struct {
	const char *format;    /* NULL: the backend's first format */
	bool allow_partial;
	const char *profile_trace;  /* seccomp --profile-from (may be NULL) */
	const char *polc_version;
} backend_opts;

/* How a probe child of `polc verify` enters the confinement probe_load
 * put in force (verify/lsm_probe.c runs each probe in a fresh child with
 * private namespaces and a throwaway root). open() runs in the child
 * before its world hides /proc and /sys and returns a descriptor (or 0);
 * enter() runs once the world is built, just before the operation. Each
 * returns -1 with why filled when it cannot (the probe is then an error).
 * `where` names the kernel object a backend set up in probe_load (the
 * profile name, the cgroup); `fd` is the backend's own (a ruleset). */
typedef struct backend_confine {
	const struct backend *b;
	char tag[300];        /* set by verify: a name unique to this run */
	char where[700];      /* the backend's: profile name, cgroup path */
	int fd;               /* the backend's; -1 when unused */
} backend_confine;

/* How `polc verify` proves the statements a backend enforces exactly. */
typedef enum {
	/* A per-syscall filter: each probe is the syscall it stands for,
	 * judged by the emitted artifact (format probe_format) in a child
	 * that never executes the call (verify/seccomp_probe.c). */
	PROBES_FILTER,
	/* A kernel LSM: one domain at a time the policy reduced to it is put
	 * in force (probe_load), then every probe is done for real by every
	 * route in a child that enters the confinement (probe_open/enter). */
	PROBES_LSM,
} backend_probes;

/* How `polc run --mode audit` runs a target in complain mode. */
typedef enum {
	AUDIT_NONE,           /* no audit mode */
	AUDIT_NOTIFY,         /* audit_filter's refusals become seccomp user
			       * notifications; polc supervises (tracer/notify.c) */
	AUDIT_COMPLAIN_LOG,   /* confine() with the policy in mode audit; the
			       * kernel log's complain records are the trace
			       * (tracer/aalog.c) */
	AUDIT_CGROUP_EVENTS,  /* confine() with the policy in mode audit on the
			       * command's cgroup; the BPF enforcer's ring-buffer
			       * records of that cgroup are the trace */
} backend_audit;

typedef struct backend {
	const char *name;                  /* "seccomp", "apparmor", "bpf", ... */
	const char *title;                 /* in bench tables: "AppArmor", "BPF LSM" */
	const char *const *formats;        /* NULL-terminated; first = default */
	/* The facts of p its classify() and classify_default() read (see
	 * backend_facts). NULL: none. Callers use backend_prepare(). */
	backend_facts (*prepare)(const ir_policy *p);
	/* How this target enforces statement s of p; f: prepare(p). */
	support (*classify)(const ir_policy *p, backend_facts f, const ir_stmt *s);
	/* How this target enforces the policy's default for domain dom when
	 * it is not allow (`default deny file;` is a promise about every file
	 * event no statement decides). NULL: every default exactly. */
	support (*classify_default)(const ir_policy *p, backend_facts f, ir_domain dom);
	/* Append the artifact to out. Returns 0, or -1 with diagnostics. */
	int (*emit)(const ir_policy *p, const backend_opts *o, buf *out, diag_ctx *d);

	/* ---- on this kernel ---- */
	/* Can it enforce here now (kernel, LSM list, privileges)? true, or
	 * false with why filled. NULL: always. */
	bool (*available)(char *why, size_t n);
	/* Its enforcement cannot be observed on a development host like
	 * this one (the LSM is not active): verify and bench run it in the
	 * kernel lab (tests/vm, docs/lab.md). */
	bool needs_lab;
	/* It enforces without privilege (Landlock): verify's probes and
	 * `polc run` need no root. false: verify refuses to probe as non-root. */
	bool unprivileged;
	/* The workload's exec is decided by path (an LSM sees the file the
	 * command runs): `polc run` refuses a policy that forbids it up
	 * front. false: only the execve/execveat syscall counts. */
	bool decides_exec_path;

	/* ---- polc build ---- */
	const char *const *binary_formats; /* the formats that are binary (never
					    * written onto a terminal); NULL: none */
	/* --profile-from: the artifact laid out for a recorded syscall mix
	 * (mix[0..n), most frequent first), format profile_format. NULL: the
	 * target takes no --profile-from. */
	const char *profile_format;
	int (*emit_profiled)(const ir_policy *p, const backend_opts *o, const sys_freq *mix,
			     size_t n, buf *out, diag_ctx *d);

	/* ---- --allow-split (polc build, polc run) ---- */
	/* An artifact the kernel would refuse for its size may instead be
	 * several pieces, all put in force in order. split_format: the one
	 * format that can be split (NULL: the target never splits);
	 * no_split: why its other formats cannot (static text, for the
	 * refusal). emit_split: emit() of split_format allowed to split, the
	 * pieces into *out[0..*n) (allocated here; each initialised). */
	const char *split_format;
	const char *no_split;
	int (*emit_split)(const ir_policy *p, const backend_opts *o, buf **out, size_t *n,
			  diag_ctx *d);
	/* confine() allowed to split (polc run --allow-split). */
	int (*confine_split)(const ir_policy *p, bool allow_partial);

	/* ---- polc run ---- */
	/* Confine the calling process, which then execs the command
	 * (no_new_privs is set; backend_check has run). Returns an exit code
	 * (base/base.h) after saying why; never returns 0 unconfined. NULL:
	 * the target cannot run a command. */
	int (*confine)(const ir_policy *p, bool allow_partial);
	/* `polc run --mode audit` (cli/run_audit.c): how the command runs in
	 * complain mode, what the policy would have refused becoming a trace. */
	backend_audit audit;
	/* AUDIT_NOTIFY: the filter whose refusals are user notifications. */
	int (*audit_filter)(const ir_policy *p, bool allow_partial, diag_ctx *d, buf *out);

	/* ---- polc load / unload / status (a policy that outlives polc) ----
	 * NULL where the target has none: each takes its subcommand's argv
	 * (argv[0] the subcommand) and returns an exit code. */
	int (*load)(int argc, char **argv);
	int (*unload)(int argc, char **argv);
	int (*status)(int argc, char **argv);

	/* ---- polc verify ---- */
	backend_probes probes;
	const char *probe_format;          /* PROBES_FILTER: the artifact judged */
	/* PROBES_LSM: put p (one domain's statements) in force for probe
	 * children, replacing what the last call loaded. Returns 0, or -1
	 * with err filled. probe_unload removes it all (every call's). */
	int (*probe_load)(const ir_policy *p, backend_confine *c, char *err, size_t n);
	void (*probe_unload)(backend_confine *c);
	int (*probe_open)(const backend_confine *c, char *why, size_t n);
	/* Runs in the child once its world and the probe's objects exist,
	 * before the probe takes its route (a chroot, a detached clone); its
	 * descriptor replaces probe_open's. A confinement whose rules name
	 * objects rather than paths (Landlock's ruleset) is built here: built
	 * before the world, it would name the real root's files; after a
	 * chroot, it would not find them. NULL: none. */
	int (*probe_ready)(const backend_confine *c, char *why, size_t n);
	int (*probe_enter)(const backend_confine *c, int fd, char *why, size_t n);
	/* Does a denial with errno `got` agree with the policy's `want`?
	 * NULL: only the same errno (or an unobservable 0) agrees. */
	bool (*errno_agrees)(int want, int got);
	/* The detached-clone probe route is not meaningful for this target:
	 * why (static text). NULL: probed. */
	const char *no_tree_clone;
} backend;

/* Every backend, NULL-terminated, in the order of `polc rules` columns,
 * verify's matrix and bench's tables: backends/backend.c, one
 * registration line each. */
#define BACKEND(n) extern const backend backend_##n;
#include "registry.def"
#undef BACKEND
extern const backend *const backends_all[];
const backend *backend_find(const char *name);
/* The names of all backends, comma-separated ("seccomp,apparmor,bpf"),
 * for usage text and `--target all`. Static storage. */
const char *backend_names(void);

/* b's prepare(p), or no facts where it has none: once per policy, for
 * each classify() of its statements and defaults. */
backend_facts backend_prepare(const backend *b, const ir_policy *p);

/* Support by effect, then by the backend's classify() (f: backend_prepare
 * of b and p). */
support backend_classify(const backend *b, const ir_policy *p, backend_facts f,
			 const ir_stmt *s);

/* The domains the next artifacts cover (`--domains LIST`: comma-separated
 * domain names, or "all"). Without it (NULL) a target covers every domain
 * the user's own statements and defaults speak of, and of what a library
 * rule brings in (`use`) what it enforces exactly: a library statement it
 * enforces only in part or not at all, or such a library default, is left
 * to the other enforcers (the rule's columns in `polc rules` name them; a
 * partial one is still enforced here as far as the target can). Given, it covers exactly those
 * domains: every statement and default in them must be exact (or
 * --allow-partial), the others are left. Returns -1 for an unknown name.
 * Process-wide, as the command line is. */
int backend_set_domains(const char *list);

/* Is this statement / domain default left to the other enforcers? (f:
 * backend_prepare of b and p) */
bool backend_left_stmt(const backend *b, const ir_policy *p, backend_facts f, const ir_stmt *s);
bool backend_left_default(const backend *b, const ir_policy *p, backend_facts f, int dom);

/* Refuse (error) or, with allow_partial, warn about every statement and
 * every non-allow default the backend does not enforce exactly, except
 * those left to the other enforcers, which one note summarizes. Returns
 * the number refused. */
int backend_check(const backend *b, const ir_policy *p, bool allow_partial,
		  diag_ctx *d);

/* The artifact header lines, each prefixed by `comment` ("# ", "// "):
 * polc version, policy name, source hash, target, the statements and
 * defaults not enforced exactly (file:line:col, why), one line naming
 * what is left to the other enforcers, and what the policy implies beyond
 * its statements (backend_implied_list). */
void backend_header(const backend *b, const ir_policy *p, const backend_opts *o,
		    const char *comment, buf *out);

const char *support_name(support_level l);

/* What the policy implies beyond its statements (ir_implied) that this
 * backend enforces: only a backend that decides syscalls enforces the
 * implied syscall decisions. Fills at most 2 lines of text (static
 * storage in *what, the implying statement in *by); returns the count. */
typedef struct {
	const char *what;      /* "io_uring closed: ..." */
	const ir_stmt *by;
} backend_implied;
size_t backend_implied_list(const backend *b, const ir_policy *p, backend_implied out[2]);

#endif
