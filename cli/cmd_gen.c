/* cmd_gen.c - `polc gen`: merge traces and write a policy (tracer/gen.h).
 *
 *   polc gen [--name NAME] [--base RULE] [--include-failed]
 *            [--deny-default DOMAINS] [--dir-threshold N] [-o FILE] TRACE...
 *
 * Exit: 0 written; 1 a trace is malformed or the base rule cannot be used;
 * 2 usage; 3 I/O errors.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "compiler/util.h"
#include "tracer/gen.h"

static int usage_to(FILE *f, int rc)
{
	fputs("usage: polc gen [--name NAME] [--base RULE] [--include-failed] "
	      "[--deny-default file,exec,network] [--dir-threshold N] [-o FILE] TRACE...\n",
	      f);
	return rc;
}

static int usage(void)
{
	return usage_to(stderr, EXIT_USAGE);
}

static bool valid_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

/* "file,exec" -> "file, exec", each a domain name. */
static char *parse_domains(const char *s)
{
	static const char *const doms[] = { "file", "exec", "capability", "mount",
		"network", "ptrace", "signal", NULL };
	buf b;
	buf_init(&b);
	char *copy = xstrdup(s), *save = NULL;
	for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		int i;
		for (i = 0; doms[i] && strcmp(doms[i], tok); i++)
			;
		if (!doms[i]) {
			fprintf(stderr, "polc gen: unknown domain \"%s\"\n", tok);
			free(copy);
			buf_free(&b);
			return NULL;
		}
		buf_printf(&b, "%s%s", b.len ? ", " : "", tok);
	}
	free(copy);
	return buf_cstr(&b);
}

int cmd_gen(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "name", required_argument, 0, 'n' },
		{ "output", required_argument, 0, 'o' },
		{ "base", required_argument, 0, 'b' },
		{ "include-failed", no_argument, 0, 'F' },
		{ "deny-default", required_argument, 0, 'D' },
		{ "dir-threshold", required_argument, 0, 'T' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	gen_opts o = { .name = "generated" };
	const char *out = "-";
	char *deny = NULL;
	optind = 1;
	opterr = 0;   /* our message names the command: "polc gen: ..." */
	int c;
	while ((c = getopt_long(argc, argv, "n:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'n': o.name = optarg; break;
		case 'o': out = optarg; break;
		case 'b': o.base = optarg; break;
		case 'F': o.include_failed = true; break;
		case 'D':
			free(deny);
			if (!(deny = parse_domains(optarg)))
				return EXIT_USAGE;
			break;
		case 'T': o.dir_threshold = (unsigned)atoi(optarg); break;
		case 'h': free(deny); return usage_to(stdout, EXIT_OK);
		default:
			fprintf(stderr, "polc gen: unknown option or missing argument: '%s'\n",
				argv[optind - 1]);
			free(deny);
			return usage();
		}
	}
	const char *bad = !valid_name(o.name) ? o.name : o.base && !valid_name(o.base) ? o.base : NULL;
	if (bad)
		fprintf(stderr, "polc gen: '%s' is not a valid name (a letter or '_', then letters, "
			"digits, '_' or '-')\n", bad);
	else if (optind >= argc)
		fprintf(stderr, "polc gen: no trace given\n");
	if (bad || optind >= argc) {
		free(deny);
		return usage();
	}
	o.deny_defaults = deny && *deny ? deny : NULL;
	trace t;
	trace_init(&t);
	int rc = EXIT_OK;
	for (int i = optind; i < argc && rc == EXIT_OK; i++) {
		char *err = NULL;
		int r = trace_read(&t, argv[i], &err);
		if (r < 0) {
			fprintf(stderr, "polc gen: %s\n", err);
			free(err);
			rc = r == TRACE_EIO ? EXIT_SYSTEM : EXIT_POLICY;
		}
	}
	buf b;
	buf_init(&b);
	char *err = NULL;
	if (rc == EXIT_OK && gen_policy(&t, &o, &b, &err) < 0) {
		fprintf(stderr, "polc gen: %s\n", err);
		free(err);
		rc = EXIT_POLICY;
	}
	if (rc == EXIT_OK && write_file_atomic(out, b.data, b.len) < 0) {
		fprintf(stderr, "polc gen: cannot write '%s': %s\n", out, strerror(errno));
		rc = EXIT_SYSTEM;
	}
	buf_free(&b);
	trace_free(&t);
	free(deny);
	return rc;
}
