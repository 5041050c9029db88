/* cmd_bench.c - `polc bench`: options only; the work is in bench/.
 *
 *   polc bench [--quick|--smoke] [--vm] [-o REPORT.md] [--json FILE]
 *              [--chart FILE.svg] [--raw FILE] [--only LIST] [--reps N]
 *              [--soak MINUTES] [--container]
 *   polc bench --vm-only ...        (the lab alone)
 *   polc bench --report-from RAW... [-o REPORT.md] [--json FILE] [--chart FILE]
 *   polc bench --compare A.raw B.raw [--within PCT] [-o FILE]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "bench/bench.h"

static const struct { const char *name; unsigned bit; } section_names[] = {
	{ "micro", BS_MICRO }, { "redis", BS_REDIS }, { "pgbench", BS_PGBENCH },
	{ "filter", BS_FILTER }, { "compile", BS_COMPILE }, { "tracers", BS_TRACERS },
	{ "soak", BS_SOAK }, { "hooks", BS_HOOKS }, { "rules", BS_RULES },
};
#define NSECTIONS (sizeof section_names / sizeof *section_names)

static int parse_only(const char *list, unsigned *out)
{
	char *copy = xstrdup(list), *save = NULL;
	*out = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t i = 0;
		while (i < NSECTIONS && strcmp(section_names[i].name, t))
			i++;
		if (i == NSECTIONS) {
			fprintf(stderr, "polc bench: no section '%s' (micro, redis, pgbench, filter, "
				"compile, tracers, soak)\n", t);
			free(copy);
			return -1;
		}
		*out |= section_names[i].bit;
	}
	free(copy);
	return *out ? 0 : -1;
}

static char *join(int argc, char **argv)
{
	buf b;
	buf_init(&b);
	buf_puts(&b, "polc");
	for (int i = 0; i < argc; i++)
		buf_printf(&b, " %s", argv[i]);
	char *s = xstrdup(buf_cstr(&b));
	buf_free(&b);
	return s;
}

static int usage(void)
{
	cli_usage("bench", stderr);
	return EXIT_USAGE;
}

int cmd_bench(int argc, char **argv)
{
	enum { O_QUICK = 256, O_FULL, O_SMOKE, O_VM, O_JSON, O_CHART, O_RAW, O_REPS, O_SOAK,
	       O_ONLY, O_IN_LAB, O_REPORT_FROM, O_VM_ONLY, O_COMPARE, O_WITHIN, O_CONTAINER };
	static const struct option lo[] = {
		{ "quick", no_argument, 0, O_QUICK }, { "full", no_argument, 0, O_FULL },
		{ "smoke", no_argument, 0, O_SMOKE }, { "vm", no_argument, 0, O_VM },
		{ "output", required_argument, 0, 'o' }, { "json", required_argument, 0, O_JSON },
		{ "chart", required_argument, 0, O_CHART }, { "raw", required_argument, 0, O_RAW },
		{ "reps", required_argument, 0, O_REPS }, { "soak", required_argument, 0, O_SOAK },
		{ "only", required_argument, 0, O_ONLY }, { "in-lab", no_argument, 0, O_IN_LAB },
		{ "report-from", required_argument, 0, O_REPORT_FROM },
		{ "vm-only", no_argument, 0, O_VM_ONLY }, { "container", no_argument, 0, O_CONTAINER },
		{ "compare", no_argument, 0, O_COMPARE }, { "within", required_argument, 0, O_WITHIN },
		{ "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 }
	};
	bench_opts o = { .mode = MODE_FULL, .soak_minutes = -1, .sections = BS_ALL };
	bool compare = false;
	char *end;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		switch (c) {
		case O_QUICK: o.mode = MODE_QUICK; break;
		case O_FULL: o.mode = MODE_FULL; break;
		case O_SMOKE: o.mode = MODE_SMOKE; break;
		case O_VM: o.vm = true; break;
		case 'o': o.md = optarg; break;
		case O_JSON: o.json = optarg; break;
		case O_CHART: o.svg = optarg; break;
		case O_RAW: o.raw = optarg; break;
		case O_IN_LAB: o.in_lab = true; break;
		case O_REPORT_FROM:
			if (o.nreport_from == sizeof o.report_from / sizeof *o.report_from) {
				fprintf(stderr, "polc bench: at most %d --report-from tables\n",
					BENCH_REPORT_FROM_MAX);
				return EXIT_USAGE;
			}
			o.report_from[o.nreport_from++] = optarg;
			break;
		case O_VM_ONLY: o.vm_only = true; break;
		case O_CONTAINER: o.container = true; break;
		case O_COMPARE: compare = true; break;
		case O_WITHIN:
			o.within = strtod(optarg, &end) / 100;
			if (*end || !(o.within > 0 && o.within <= 1)) {
				fprintf(stderr, "polc bench: --within wants a percentage (0..100], not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case O_REPS:
			o.reps = (int)strtol(optarg, &end, 10);
			if (*end || o.reps < 1 || o.reps > 1000) {
				fprintf(stderr, "polc bench: --reps wants 1..1000, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case O_SOAK:
			o.soak_minutes = strtod(optarg, &end);
			if (*end || o.soak_minutes < 0 || o.soak_minutes > 24 * 60) {
				fprintf(stderr, "polc bench: --soak wants minutes (0..1440), not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case O_ONLY:
			if (parse_only(optarg, &o.sections) < 0)
				return EXIT_USAGE;
			break;
		case 'h': cli_usage("bench", stdout); return EXIT_OK;
		default:
			fprintf(stderr, "polc bench: unknown option or missing argument: '%s'\n",
				argv[optind - 1]);
			return usage();
		}
	}
	if (compare) {
		if (argc - optind != 2) {
			fprintf(stderr, "polc bench: --compare wants two raw tables (A.raw B.raw)\n");
			return usage();
		}
		if (o.nreport_from || o.vm || o.vm_only || o.in_lab || o.json || o.svg || o.raw) {
			fprintf(stderr, "polc bench: --compare measures and renders nothing; it takes "
				"only --within and -o\n");
			return EXIT_USAGE;
		}
		o.compare[0] = argv[optind];
		o.compare[1] = argv[optind + 1];
	} else if (o.within > 0) {
		fprintf(stderr, "polc bench: --within goes with --compare\n");
		return EXIT_USAGE;
	} else if (optind < argc) {
		fprintf(stderr, "polc bench: unexpected argument '%s'\n", argv[optind]);
		return usage();
	}
	if (o.in_lab && (o.vm || o.vm_only)) {
		fprintf(stderr, "polc bench: --in-lab is the lab's own half; it takes no --vm\n");
		return EXIT_USAGE;
	}
	char *cmdline = join(argc, argv);
	o.cmdline = cmdline;
	int rc = bench_main(&o);
	free(cmdline);
	return rc;
}
