/* cli.h - what the subcommands share: the common options (files, -I,
 * --policy, --target, --format, -o, --allow-partial), compiling them to IR
 * with diagnostics printed once, and usage texts.
 * Promises: cli_compile() prints every diagnostic and returns the exit code
 * (EXIT_OK, EXIT_POLICY, EXIT_SYSTEM); on success prog/policy are valid
 * until cli_done().
 */
#ifndef POLC_CLI_H
#define POLC_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include "../compiler/compile.h"

typedef struct {
	const char **files;
	size_t nfiles;
	const char **include_dirs;
	size_t ninclude;
	const char *policy;
	const char *target;
	const char *format;
	const char *output;
	const char *mode;             /* run --mode enforce|audit */
	const char *check;            /* build --check FILE */
	const char *profile_from;     /* seccomp --profile-from TRACE */
	const char *k8s_namespace;    /* --namespace (formats spo, k8s) */
	const char *k8s_name;         /* --name (formats spo, k8s) */
	bool allow_partial;
	bool allow_split;             /* --allow-split: several pieces when one is too big */
	bool no_library;
	bool werror;
	bool lint;             /* polc check's extra warnings */
	bool json;                    /* --json */
	bool vm;                      /* --vm */
	bool probes;                  /* verify --probes: one line per probe */
	bool quiet;                   /* cli_compile prints no diagnostics (check --json) */
	char **cmd;                   /* run: after "--" */
	/* results */
	diag_ctx diag;
	ir_program prog;
	const ir_policy *pol;
	bool compiled;
} cli_args;

/* Parse argv[1..]; returns -1 and prints usage problems (exit 2) on error.
 * allow_cmd: accept "-- CMD ARGS" (polc run). */
int cli_parse(cli_args *a, int argc, char **argv, bool allow_cmd);
/* Compile a->files; select a->policy when select is true. */
int cli_compile(cli_args *a, bool select);
void cli_done(cli_args *a);

/* Print the usage of one subcommand (or of polc) to f. */
void cli_usage(const char *cmd, FILE *f);

/* The whole CLI: argv as main() gets it; returns the exit code. */
int polc_main(int argc, char **argv);

#endif
