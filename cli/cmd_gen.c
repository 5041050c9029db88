/* cmd_gen.c - `polc gen`: merge traces and write a policy (tracer/gen.h).
 *
 *   polc gen [--name NAME] [--base RULE] [--include-failed]
 *            [--deny-default DOMAINS] [--dir-threshold N] [--no-families]
 *            [--literal-cwd]
 *            [--strict] [-o FILE] TRACE...
 *   polc gen --families
 *
 * A trace showing the workload failing (gen_failures) is warned about;
 * with --strict it is an error and nothing is written.
 * Exit: 0 written; 1 a trace is malformed, shows a failed run under
 * --strict, or the base rule cannot be used; 2 usage; 3 I/O errors.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "base/util.h"
#include "import/source.h"
#include "tracer/gen.h"

/* The one usage text: cli/dispatch.c's, as `polc help gen` prints it. */
static int usage_to(FILE *f, int rc)
{
	cli_usage("gen", f);
	return rc;
}

static int list_families(void)
{
	size_t n;
	const gen_family *f = gen_families(&n);
	for (size_t i = 0; i < n; i++) {
		printf("%-13s", f[i].name);
		for (const char *const *m = f[i].members; *m; m++)
			printf("%s%s", m == f[i].members ? " " : ", ", *m);
		printf("\n              %s\n", f[i].reason);
	}
	return EXIT_OK;
}

/* Read one trace into t, first alone to say whether it shows the workload
 * failing. Returns an exit code; *failed counts failing traces. */
static int read_trace(trace *t, const char *path, bool strict, int *failed)
{
	trace one;
	trace_init(&one);
	char *err = NULL;
	int r = trace_read(&one, path, &err);
	if (r == 0) {
		buf msg;
		buf_init(&msg);
		if (gen_failures(&one, &msg)) {
			(*failed)++;
			fprintf(stderr, "polc gen: %s: %s: the recorded workload failed; a profile "
				"from this run may lack what a working run needs:\n",
				path, strict ? "error" : "warning");
			char *l = buf_cstr(&msg);
			for (char *p = l, *e; (e = strchr(p, '\n')); p = e + 1)
				fprintf(stderr, "  %.*s\n", (int)(e - p), p);
			free(l);
		} else {
			buf_free(&msg);
		}
		r = trace_read(t, path, &err);
	}
	trace_free(&one);
	if (r < 0) {
		fprintf(stderr, "polc gen: %s\n", err);
		free(err);
		return r == TRACE_EIO ? EXIT_SYSTEM : EXIT_POLICY;
	}
	return EXIT_OK;
}

static int usage(void)
{
	return usage_to(stderr, EXIT_USAGE);
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

/* What runc 1.1 does itself between installing the container's filter and
 * exec'ing the workload (seen with SCMP_ACT_LOG as the default action in
 * tests/t_oci_runtime.sh: close, futex, openat, epoll_ctl, fstatfs,
 * getdents64 (runc closes the descriptors it leaves open), rt_sigreturn
 * (the Go runtime preempts with signals: 4 of 15 runs returned from one;
 * denied, runc:[2:INIT] dies of SIGSEGV), then
 * execve). A recorded workload never shows these: they are runc's. */
static void add_runtime(buf *b)
{
	static const char block[] =
		"\n\t# --runtime runc: what runc does itself after installing the filter\n"
		"\tallow syscall close, epoll_ctl, execve, fstatfs, futex, getdents64, openat,\n"
		"\t    rt_sigreturn;\n";
	const char *text = buf_cstr(b);
	const char *end = strrchr(text, '}');
	if (!end)
		return;
	size_t at = (size_t)(end - text);
	buf t;
	buf_init(&t);
	buf_put(&t, text, at);
	buf_puts(&t, block + (at && text[at - 1] == '\n' && at > 1 && text[at - 2] == '\n'));
	buf_puts(&t, text + at);
	buf_free(b);
	*b = t;
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
		{ "no-families", no_argument, 0, 'N' },
		{ "literal-cwd", no_argument, 0, 'C' },
		{ "families", no_argument, 0, 'L' },
		{ "strict", no_argument, 0, 'S' },
		{ "runtime", required_argument, 0, 'R' },
		{ "update", required_argument, 0, 'U' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	static const char dflt_name[] = "generated";
	gen_opts o = { .name = dflt_name };
	const char *out = "-", *update = NULL;
	char *deny = NULL;
	bool strict = false;
	const char *runtime = NULL;
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
		case 'N': o.no_families = true; break;
		case 'C': o.literal_cwd = true; break;
		case 'L': free(deny); return list_families();
		case 'S': strict = true; break;
		case 'R':
			if (strcmp(optarg, "runc")) {
				fprintf(stderr, "polc gen: --runtime '%s': polc knows what runc needs "
					"(runc)\n", optarg);
				free(deny);
				return EXIT_USAGE;
			}
			runtime = optarg;
			break;
		case 'U': update = optarg; break;
		case 'h': free(deny); return usage_to(stdout, EXIT_OK);
		default:
			fprintf(stderr, "polc gen: unknown option or missing argument: '%s'\n",
				argv[optind - 1]);
			free(deny);
			return usage();
		}
	}
	const char *bad = !src_valid_name(o.name) ? o.name : o.base && !src_valid_name(o.base) ? o.base : NULL;
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
	int rc = EXIT_OK, failed = 0;
	for (int i = optind; i < argc && rc == EXIT_OK; i++)
		rc = read_trace(&t, argv[i], strict, &failed);
	if (rc == EXIT_OK && failed && strict)
		rc = EXIT_POLICY;
	buf b;
	buf_init(&b);
	char *err = NULL;
	if (rc == EXIT_OK && update) {
		/* --name selects the profile's policy; -o another file to write */
		rc = gen_update(update, o.name == dflt_name ? NULL : o.name, &t, &o,
				strcmp(out, "-") ? out : NULL);
		buf_free(&b);
		trace_free(&t);
		free(deny);
		return rc;
	}
	if (rc == EXIT_OK && gen_policy(&t, &o, &b, &err) < 0) {
		fprintf(stderr, "polc gen: %s\n", err);
		free(err);
		rc = EXIT_POLICY;
	}
	if (rc == EXIT_OK && runtime)
		add_runtime(&b);
	if (rc == EXIT_OK && write_file_atomic(out, b.data, b.len) < 0) {
		fprintf(stderr, "polc gen: cannot write '%s': %s\n", out, strerror(errno));
		rc = EXIT_SYSTEM;
	}
	buf_free(&b);
	trace_free(&t);
	free(deny);
	return rc;
}
