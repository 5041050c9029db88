/* cmd_load.c - polc load / unload / status: a policy that outlives polc,
 * for the targets that have one (struct backend's load/unload/status).
 * `--target T` picks the target; without it, the one target that has the
 * subcommand. The rest of argv is the backend's. */
#include "commands.h"
#include "../backends/backend.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*subcmd)(int argc, char **argv);

static subcmd hook(const backend *b, const char *cmd)
{
	return !strcmp(cmd, "load") ? b->load : !strcmp(cmd, "unload") ? b->unload : b->status;
}

static int dispatch(int argc, char **argv)
{
	const char *cmd = argv[0], *target = NULL;
	char **rest = calloc((size_t)argc + 1, sizeof *rest);
	int n = 0;
	if (!rest)
		return EXIT_SYSTEM;
	for (int i = 0; i < argc; i++) {
		if (i && !strcmp(argv[i], "--target") && i + 1 < argc)
			target = argv[++i];
		else if (i && !strncmp(argv[i], "--target=", 9))
			target = argv[i] + 9;
		else
			rest[n++] = argv[i];
	}
	const backend *b = NULL;
	int found = 0;
	for (size_t i = 0; backends_all[i]; i++)
		if (hook(backends_all[i], cmd) && (!target || !strcmp(target, backends_all[i]->name))) {
			b = backends_all[i];
			found++;
		}
	int rc;
	if (found == 1) {
		rc = hook(b, cmd)(n, rest);
	} else {
		fprintf(stderr, "polc %s: %s\n", cmd, found ? "give --target (more than one target "
			"has it)" : target ? "this target has no such subcommand" :
			"no target has this subcommand");
		rc = EXIT_USAGE;
	}
	free(rest);
	return rc;
}

int cmd_load(int argc, char **argv) { return dispatch(argc, argv); }
int cmd_unload(int argc, char **argv) { return dispatch(argc, argv); }
int cmd_status(int argc, char **argv) { return dispatch(argc, argv); }
