/* commands.h - the subcommands of polc. Each takes argv with argv[0] the
 * subcommand's name and returns the process exit code:
 *   0 ok, 1 policy errors (or a difference/mismatch found), 2 usage,
 *   3 I/O or system errors.
 * Commands not built yet have weak stubs in cli/stubs.c; a module defines
 * the strong symbol in its own cli/cmd_*.c file.
 */
#ifndef POLC_COMMANDS_H
#define POLC_COMMANDS_H

#include "../base/base.h"   /* the exit codes */
#include <stddef.h>

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

/* `polc run --target T`: per-backend confinement of the current process,
 * called in the child just before exec. Returns 0 or an exit code after
 * printing why. Weak stubs say the target cannot run here. */
struct ir_policy;
int run_confine_seccomp(const struct ir_policy *p, int allow_partial);
int run_confine_apparmor(const struct ir_policy *p, int allow_partial);
int run_confine_bpf(const struct ir_policy *p, int allow_partial);
/* The cgroup run_confine_bpf puts process `pid` in: 0, or -1 without a
 * cgroup v2 hierarchy. */
int run_bpf_cgroup(int pid, char *dir, size_t n);
/* `polc run --mode audit`: run the command (resolved prog, argv) in
 * complain mode and write what the policy would have refused to log as a
 * trace. Returns the command's exit status, or an exit code after saying
 * why (cli/run_audit.c). */
int run_audit(const struct ir_policy *p, const char *target, int allow_partial,
	      const char *prog, char *const *argv, const char *log);

/* `polc gen --update PROFILE LOG...` (cli/gen_update.c): add to policy
 * (NULL: the only one) of PROFILE what t shows it refusing, generalised as
 * gen_policy does; shows the diff on stdout and writes PROFILE (or out)
 * atomically if the result compiles. Returns an exit code. */
#include "../tracer/gen.h"
int gen_update(const char *profile, const char *policy, const trace *t, gen_opts *o,
	       const char *out);

#endif
