/* stubs.c - weak stand-ins for subcommands and confinement hooks that a
 * module has not built yet; each module's strong definition replaces its
 * stub at link time. They say plainly that the feature is missing. */
#include "commands.h"
#include <stdio.h>

#define STUB_CMD(name) \
	__attribute__((weak)) int cmd_##name(int argc, char **argv) \
	{ (void)argc; (void)argv; \
	  fprintf(stderr, "polc: '%s' is not available in this build\n", #name); \
	  return EXIT_SYSTEM; }

STUB_CMD(rules)
STUB_CMD(record)
STUB_CMD(gen)
STUB_CMD(load)
STUB_CMD(unload)
STUB_CMD(status)
STUB_CMD(verify)
STUB_CMD(bench)
STUB_CMD(diff)
STUB_CMD(import)

#define STUB_CONFINE(t) \
	__attribute__((weak)) int run_confine_##t(const struct ir_policy *p, int allow_partial) \
	{ (void)p; (void)allow_partial; \
	  fprintf(stderr, "polc: target '%s' cannot run policies in this build\n", #t); \
	  return EXIT_SYSTEM; }

STUB_CONFINE(seccomp)
STUB_CONFINE(apparmor)
STUB_CONFINE(bpf)
