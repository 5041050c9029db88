/* cmd_record.c - `polc record`: run a command (or watch a cgroup) under a
 * tracer and write a trace (docs/trace-format.md).
 *
 *   polc record [--tracer ebpf|ptrace] [--duration SECONDS] [--allow-loss]
 *               [--status|--no-status] -o FILE -- CMD [ARG...]
 *   polc record --tracer ebpf --cgroup PATH --duration SECONDS -o FILE
 *
 * The default tracer is ebpf where the kernel allows it, else ptrace. Exit:
 * 0 trace written; 2 usage; 3 the tracer could not run, or events were lost
 * without --allow-loss (the trace is still written, for inspection).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "base/util.h"
#include "tracer/tracer.h"

/* The one usage text: cli/dispatch.c's, as `polc help record` prints it. */
static int usage_to(FILE *f, int rc)
{
	cli_usage("record", f);
	return rc;
}

static int usage(void)
{
	return usage_to(stderr, EXIT_USAGE);
}

static int write_trace(const trace *t, const char *path)
{
	buf b;
	buf_init(&b);
	trace_write(t, &b);
	int rc = write_file_atomic(path, b.data, b.len);
	buf_free(&b);
	if (rc < 0) {
		fprintf(stderr, "polc record: cannot write '%s': %s\n", path, strerror(errno));
		return EXIT_SYSTEM;
	}
	return EXIT_OK;
}

/* Whether the trace could be written to path: checked before the workload
 * runs, so that a typo in -o does not cost a (possibly long) recording. The
 * atomic write at the end can still fail (disk full); this catches a
 * missing or unwritable directory and a directory given as the file. */
static int output_writable(const char *path)
{
	struct stat st;
	if (!strcmp(path, "-"))
		return 0;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	int r = stat(dir, &st) < 0 ? -1 : !S_ISDIR(st.st_mode) ? (errno = ENOTDIR, -1) :
		access(dir, W_OK);
	free(dir);
	return r;
}

int cmd_record(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "tracer", required_argument, 0, 't' },
		{ "duration", required_argument, 0, 'd' },
		{ "output", required_argument, 0, 'o' },
		{ "cgroup", required_argument, 0, 'c' },
		{ "allow-loss", no_argument, 0, 'L' },
		{ "status", no_argument, 0, 'S' },
		{ "no-status", no_argument, 0, 'N' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	record_opts o = { 0 };
	const char *tracer = NULL, *out = NULL;
	o.status = isatty(2);
	optind = 1;
	opterr = 0;   /* our message names the command: "polc record: ..." */
	int c;
	while ((c = getopt_long(argc, argv, "+t:d:o:c:h", lo, NULL)) != -1) {
		switch (c) {
		case 't': tracer = optarg; break;
		case 'd': {
			char *end;
			o.duration = strtod(optarg, &end);
			if (*end || o.duration <= 0) {
				fprintf(stderr, "polc record: bad duration \"%s\"\n", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'o': out = optarg; break;
		case 'c': o.cgroup = optarg; break;
		case 'L': o.allow_loss = true; break;
		case 'S': o.status = true; break;
		case 'N': o.status = false; break;
		case 'h': return usage_to(stdout, EXIT_OK);
		default:
			fprintf(stderr, "polc record: unknown option or missing argument: '%s'\n",
				argv[optind - 1]);
			return usage();
		}
	}
	if (optind < argc)
		o.argv = argv + optind;
	if (!out || (!o.argv && !o.cgroup) || (o.argv && o.cgroup))
		return usage();
	if (tracer && strcmp(tracer, "ptrace") && strcmp(tracer, "ebpf")) {
		fprintf(stderr, "polc record: unknown tracer \"%s\" (ebpf, ptrace)\n", tracer);
		return EXIT_USAGE;
	}
	const char *why = NULL;
	if (!tracer)
		tracer = (ebpf_available(&why) || o.cgroup) ? "ebpf" : "ptrace";
	else if (!strcmp(tracer, "ebpf") && !ebpf_available(&why)) {
		fprintf(stderr, "polc record: the ebpf tracer cannot run here: %s\n", why);
		return EXIT_SYSTEM;
	}
	if (o.cgroup && strcmp(tracer, "ebpf")) {
		fputs("polc record: --cgroup needs the ebpf tracer\n", stderr);
		return EXIT_USAGE;
	}
	if (output_writable(out) < 0) {
		fprintf(stderr, "polc record: cannot write '%s': %s\n", out, strerror(errno));
		return EXIT_SYSTEM;
	}
	trace t;
	trace_init(&t);
	char *err = NULL;
	int rc = !strcmp(tracer, "ebpf") ? record_ebpf(&o, &t, &err) : record_ptrace(&o, &t, &err);
	if (rc < 0) {
		fprintf(stderr, "polc record: %s\n", err);
		free(err);
		trace_free(&t);
		return EXIT_SYSTEM;
	}
	rc = write_trace(&t, out);
	uint64_t lost = trace_total(&t, TR_META, "lost");
	if (rc == EXIT_OK && lost && !o.allow_loss) {
		fprintf(stderr, "polc record: %llu events lost; %s is incomplete "
			"(--allow-loss accepts that)\n", (unsigned long long)lost, out);
		rc = EXIT_SYSTEM;
	}
	trace_free(&t);
	return rc;
}
