/* cmd_import.c - polc import: an OCI/Docker seccomp profile (--from oci,
 * import/import_oci.h) or a vArmor policy (--from varmor,
 * import/import_varmor.h) to polc source; this parses the options. */
#include "cli.h"
#include "commands.h"
#include "../import/import_oci.h"
#include "../import/import_varmor.h"
#include "../base/util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse_arches(const char *s, import_opts *o)
{
	char *copy = xstrdup(s), *save = NULL;
	int n = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save), n++) {
		int a = !strcmp(t, "x86_64") || !strcmp(t, "amd64") ? IR_ARCH_X86_64
		      : !strcmp(t, "i386") || !strcmp(t, "x86") ? IR_ARCH_I386
		      : !strcmp(t, "x32") ? IR_ARCH_X32 : -1;
		if (a < 0) {
			fprintf(stderr, "polc import: unknown arch '%s' (expected x86_64, i386, x32)\n", t);
			free(copy);
			return -1;
		}
		if (!n)
			o->host = (ir_arch)a;
		o->arches |= IR_ARCH_BIT(a);
	}
	free(copy);
	return n ? 0 : -1;
}

/* "default" stands for Docker's default set, so --caps default,SYS_ADMIN adds one. */
static void parse_caps(char *s, const char ***v, size_t *n)
{
	char *save = NULL;
	for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "default")) {
			for (size_t i = 0; import_docker_caps[i]; i++) {
				*v = xrealloc(*v, (*n + 1) * sizeof **v);
				(*v)[(*n)++] = import_docker_caps[i];
			}
			continue;
		}
		*v = xrealloc(*v, (*n + 1) * sizeof **v);
		(*v)[(*n)++] = t;
	}
}

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, 0, 'o' }, { "name", required_argument, 0, 'n' },
		{ "caps", required_argument, 0, 'c' }, { "arch", required_argument, 0, 'a' },
		{ "kernel", required_argument, 0, 'k' }, { "help", no_argument, 0, 'h' },
		{ "from", required_argument, 0, 'f' }, { "allow-partial", no_argument, 0, 'P' },
		{ 0, 0, 0, 0 }
	};
	import_opts o = { NULL, NULL, 0, 0, IR_ARCH_X86_64, -1, 0 };
	const char *output = "-";
	const char **caps = NULL;
	size_t ncaps = 0;
	bool caps_given = false, varmor = false, partial = false;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 'n': o.name = optarg; break;
		case 'P': partial = true; break;
		case 'f':
			if (strcmp(optarg, "oci") && strcmp(optarg, "varmor")) {
				fprintf(stderr, "polc import: --from wants oci or varmor, not '%s'\n", optarg);
				goto usage;
			}
			varmor = !strcmp(optarg, "varmor");
			break;
		case 'c': caps_given = true; parse_caps(optarg, &caps, &ncaps); break;
		case 'a':
			if (parse_arches(optarg, &o) < 0)
				goto usage;
			break;
		case 'k':
			if (sscanf(optarg, "%d.%d", &o.kmajor, &o.kminor) != 2 || o.kmajor < 0) {
				fprintf(stderr, "polc import: --kernel wants X.Y, not '%s'\n", optarg);
				goto usage;
			}
			break;
		case 'h': cli_usage("import", stdout); free(caps); return EXIT_OK;
		default:
			fprintf(stderr, "polc import: unknown option or missing argument: '%s'\n",
				argv[optind - 1]);
			goto usage;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "polc import: give exactly one profile file\n");
		goto usage;
	}
	static const char *const no_caps[] = { NULL };
	if (caps_given) {
		o.caps = caps ? caps : no_caps;
		o.ncaps = ncaps;
	}
	diag_ctx d;
	diag_init(&d);
	buf out;
	buf_init(&out);
	varmor_opts vo = { o.name, partial, &o };
	int r = varmor ? import_varmor_file(argv[optind], &vo, &d, &out)
		       : import_oci_file(argv[optind], &o, &d, &out);
	diag_print(&d, stderr, isatty(STDERR_FILENO));
	int rc = r < 0 ? (d.nfiles == 0 ? EXIT_SYSTEM : EXIT_POLICY) : EXIT_OK;
	if (rc == EXIT_OK && write_file_atomic(output, out.data, out.len) < 0) {
		perror(output);
		rc = EXIT_SYSTEM;
	}
	buf_free(&out);
	diag_free(&d);
	free(caps);
	return rc;
usage:
	free(caps);
	cli_usage("import", stderr);
	return EXIT_USAGE;
}
