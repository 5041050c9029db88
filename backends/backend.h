/* backend.h - what every backend gives the CLI, and the one support table.
 *
 * Takes: an ir_policy (read only) and output options.
 * Gives: the artifact bytes in a buffer, and per statement whether this
 *        target enforces it exactly, partially (why), or not at all (why).
 * Promises: `polc rules`, the --allow-partial refusals and the artifact
 *        headers all read backend_classify(): support judged by effect (a
 *        statement that cannot change any decision, an allow in a domain
 *        whose default is allow, is exact on every target), then the
 *        backend's classify(). Domains the artifact does not cover (see
 *        backend_set_domains) are left to the other enforcers: reported
 *        once per artifact, not refused. A backend that cannot enforce a
 *        statement exactly never drops it silently: backend_check() refuses
 *        it with its location, or (allow_partial) warns and lists it in the
 *        header. Backends include only compiler/ headers and this one.
 */
#ifndef POLC_BACKEND_H
#define POLC_BACKEND_H

#include <stdbool.h>
#include "../compiler/ir.h"
#include "../base/util.h"

typedef enum { SUPPORT_EXACT, SUPPORT_PARTIAL, SUPPORT_NONE } support_level;

typedef struct {
	support_level level;
	const char *why;       /* static text; NULL when exact */
} support;

typedef struct {
	const char *format;    /* NULL: the backend's first format */
	bool allow_partial;
	const char *profile_trace;  /* seccomp --profile-from (may be NULL) */
	const char *polc_version;
} backend_opts;

typedef struct backend {
	const char *name;                  /* "seccomp", "apparmor", "bpf" */
	const char *const *formats;        /* NULL-terminated; first = default */
	support (*classify)(const ir_policy *p, const ir_stmt *s);
	/* How this target enforces the policy's default for domain dom when
	 * it is not allow (`default deny file;` is a promise about every file
	 * event no statement decides). NULL: every default exactly. */
	support (*classify_default)(const ir_policy *p, ir_domain dom);
	/* Append the artifact to out. Returns 0, or -1 with diagnostics. */
	int (*emit)(const ir_policy *p, const backend_opts *o, buf *out, diag_ctx *d);
} backend;

extern const backend backend_seccomp, backend_apparmor, backend_bpf;

/* All backends that exist, NULL-terminated, and lookup by name. */
extern const backend *const backends_all[];
const backend *backend_find(const char *name);

/* Support by effect, then by the backend's classify(). */
support backend_classify(const backend *b, const ir_policy *p, const ir_stmt *s);

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

/* Is this statement / domain default left to the other enforcers? */
bool backend_left_stmt(const backend *b, const ir_policy *p, const ir_stmt *s);
bool backend_left_default(const backend *b, const ir_policy *p, int dom);

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
