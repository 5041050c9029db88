/* cli/ - the command line: parses arguments and drives the stages. Thin:
 * per-target behaviour comes from struct backend (backends/backend.h),
 * looked up in the registry; cli/ never compares a backend's name.
 *
 * commands.h - the subcommands of polc. Each takes argv with argv[0] the
 * subcommand's name and returns the process exit code:
 *   0 ok, 1 policy errors (or a difference/mismatch found), 2 usage,
 *   3 I/O or system errors.
 */
#ifndef POLC_COMMANDS_H
#define POLC_COMMANDS_H

#include <stdbool.h>
#include "../base/base.h"   /* the exit codes */

int cmd_check(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_import(int argc, char **argv);

/* `polc run --mode audit`: run the command (resolved prog, argv) in
 * complain mode and write what the policy would have refused to log as a
 * trace. Returns the command's exit status, or an exit code after saying
 * why (cli/run_audit.c). */
struct ir_policy;
struct backend;
int run_audit(const struct ir_policy *p, const struct backend *b, bool allow_partial,
	      const char *prog, char *const *argv, const char *log);

/* `polc gen --update PROFILE LOG...` (cli/gen_update.c): add to policy
 * (NULL: the only one) of PROFILE what t shows it refusing, generalised as
 * gen_policy does; shows the diff on stdout and writes PROFILE (or out)
 * atomically if the result compiles. Returns an exit code. */
#include "../tracer/gen.h"
int gen_update(const char *profile, const char *policy, const trace *t, gen_opts *o,
	       const char *out);

#endif
