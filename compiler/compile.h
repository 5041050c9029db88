/* compile.h - source files in, IR out: the compiler's entry points.
 *
 * Takes: policy files (or text), include directories, and whether to offer
 *        the embedded rule library (rules/NAME.pol) to `use`.
 * Gives: an ir_program: every policy of the given files lowered to an
 *        ir_policy, and every rule (given or library) lowered to its
 *        statements, for `polc rules` and the verifier.
 * Promises: all errors of all files are reported in one pass into the
 *        diag_ctx, each with file:line:col; on any error the return is -1
 *        and *out holds nothing a backend should use.
 */
#ifndef POLC_COMPILE_H
#define POLC_COMPILE_H

#include "ir.h"

typedef struct {
	const char *const *include_dirs;   /* -I, searched after the including file's dir */
	size_t ninclude;
	bool no_library;                   /* do not offer the embedded rule library */
	int max_include_depth;             /* 0: 64 */
	bool lint_helpers;                 /* warn (polc check) when a policy that
	                                      denies files leaves a usermode-helper
	                                      setting writable */
} compile_opts;

typedef struct ir_rule {
	const char *name;
	const char *summary;               /* may be NULL */
	src_loc loc;
	bool builtin;                      /* from the embedded library */
	ir_policy body;                    /* its statements (and defaults, if
	                                      it sets any) as if it were a policy
	                                      using only this rule */
} ir_rule;

typedef struct ir_program {
	ir_policy **policies;              /* policies of the given files, source order */
	size_t npolicies;
	ir_rule **rules;                   /* rules referenced or given, sorted by name */
	size_t nrules;
} ir_program;

int polc_compile_files(const char *const *files, size_t nfiles,
		       const compile_opts *o, diag_ctx *d, ir_program *out);
int polc_compile_text(const char *name, const char *text, const compile_opts *o,
		      diag_ctx *d, ir_program *out);
/* Lower every rule of the embedded library (for `polc rules`). */
int polc_compile_library(diag_ctx *d, ir_program *out);

/* Select the policy to build: by name, or the only one. Records an error
 * listing the candidates when name is NULL and there are several, or none. */
const ir_policy *ir_program_select(const ir_program *prog, const char *name,
				   diag_ctx *d);
const ir_rule *ir_program_rule(const ir_program *prog, const char *name);

void ir_program_free(ir_program *prog);

/* The embedded rule library (generated from rules/NAME.pol at build time). */
typedef struct { const char *path; const char *text; size_t len; } embedded_file;
extern const embedded_file polc_rule_library[];
extern const size_t polc_rule_library_n;

#endif
