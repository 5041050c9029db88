/* dispatch.c - the subcommand table, usage texts and polc_main(): argument
 * dispatch only; each subcommand is a thin call into the modules
 * (cli/commands.h). In the library so that tests can call it in-process. */
#include "cli.h"
#include "commands.h"
#include "../backends/backend.h"

#include <stdio.h>
#include <string.h>

typedef struct {
	const char *name;
	int (*run)(int, char **);
	const char *usage;
	const char *summary;
} command;

static const command commands[] = {
	{ "check", cmd_check, "polc check [-I DIR] [--policy NAME] [--werror] [--json] FILE...",
	  "parse and check policy files; report every error" },
	{ "build", cmd_build, "polc build FILE... --target TARGET [--policy NAME]\n"
	  "           [--format FMT] [-o OUT] [--allow-partial] [--domains LIST] [-I DIR] [--check FILE]\n"
	  "           [--name K8S-NAME] [--namespace NS] [--spo-version 1|0.8]   (formats spo, k8s)\n"
	  "           [--allow-split -o OUT]   (seccomp bpf)\n"
	  "           spo: Security Profiles Operator object; k8s: it plus the pod\n"
	  "           securityContext selecting it\n"
	  "           --allow-split: a seccomp filter over the kernel's 4,096 instructions as\n"
	  "           several, OUT.1 ... OUT.n, to install all in that order (each decides its\n"
	  "           own syscalls and allows the rest; the first keeps the arch check and the\n"
	  "           default); not for oci/spo/k8s/pfc: the container runtime builds one\n"
	  "           filter from those",
	  "compile a policy for one enforcer (stdout without -o)" },
	{ "run", cmd_run, "polc run --target TARGET [--policy NAME] [--allow-partial] [--domains LIST]\n"
	  "           [--allow-split] [--mode enforce|audit -o LOG] FILE -- CMD [ARGS...]",
	  "run CMD confined by the policy" },
	{ "rules", cmd_rules, "polc rules [--json] [NAME]",
	  "list the built-in rules with their per-backend support, or print rule NAME's source" },
	{ "record", cmd_record, "polc record [--tracer ebpf|ptrace] [--duration SECONDS] "
	  "[--allow-loss] [--no-status] -o FILE -- CMD [ARG...]\n"
	  "       polc record --tracer ebpf --cgroup PATH [--duration SECONDS] -o FILE",
	  "record what a workload does" },
	{ "gen", cmd_gen, "polc gen [OPTIONS] [-o FILE] TRACE...\n"
	  "       polc gen --update PROFILE [OPTIONS] LOG...\n"
	  "       polc gen --families\n"
	  "Merge traces from polc record and write an allow-list policy.\n"
	  "  -n, --name NAME          the policy's name (default: generated)\n"
	  "  -o, --output FILE        write there (default: stdout), atomically\n"
	  "  --base RULE              `use RULE;` and only what it does not allow already\n"
	  "  --deny-default DOMAINS   also `default deny` these (comma-separated: file, exec,\n"
	  "                           capability, mount, network, ptrace, signal)\n"
	  "  --dir-threshold N        a directory with N or more entries becomes dir/* (default 8)\n"
	  "  --include-failed         also events that failed (default: successful ones only)\n"
	  "  --no-families            syscalls exactly as recorded, without their families\n"
	  "  --literal-cwd            paths under the recorded working directory as recorded\n"
	  "                           (default: DIR/** with the permissions seen on all of them)\n"
	  "  --families               list the syscall families and why each is one, then exit\n"
	  "  --update PROFILE         add to PROFILE what the traces (polc run --mode audit\n"
	  "                           logs) show it refusing; prints the diff, writes atomically\n"
	  "  --runtime runc           also allow what runc does itself after installing the\n"
	  "                           filter, before it execs the workload (container profiles)\n"
	  "  --strict                 a trace showing the workload failing (bind/listen/exec\n"
	  "                           error, exit status != 0, signal) is an error, not a warning",
	  "generate a minimal policy from traces" },
	{ "load", cmd_load, "polc load BUNDLE --cgroup PATH", "load a BPF LSM bundle for a cgroup" },
	{ "unload", cmd_unload, "polc unload [--cgroup PATH]", "unload BPF LSM policies" },
	{ "status", cmd_status, "polc status", "show loaded BPF LSM policies and denial counters" },
	{ "verify", cmd_verify, "polc verify FILE [--policy NAME] [--target LIST|all] [--vm] [--json] [--probes]",
	  "prove each output has the policy's effect" },
	{ "bench", cmd_bench, "polc bench [--quick|--smoke] [--vm] [-o REPORT.md] [--json F] [--chart F.svg]\n"
	  "           [--only micro,redis,pgbench,filter,compile,tracers,soak,hooks,rules] [--reps N] [--soak MINUTES]\n"
	  "           [--container]   (the rule-count series in a root of its own, as in a container)\n"
	  "           ratios to NoProtect per scenario x backend; --quick < 10 min; --vm: AppArmor and BPF LSM\n"
	  "           in the kernel lab; full run: soak 10 min; markdown on stdout without -o/--json/--chart\n"
	  "       polc bench --vm-only ... --raw F   (the lab alone)\n"
	  "       polc bench --report-from RAW... [-o REPORT.md] [--json F] [--chart F.svg]   (--raw tables, merged)\n"
	  "       polc bench --compare A.raw B.raw [--within PCT] [-o F]   (do two runs agree? exit 1 if not)",
	  "measure the enforcers' cost" },
	{ "diff", cmd_diff, "polc diff OLD NEW [--policy NAME] [--json] [-I DIR]\n"
	  "       polc diff --against COMMITTED NEW   (fails only when NEW allows more)",
	  "compare two policies by meaning" },
	{ "import", cmd_import, "polc import FILE.json [-o FILE.pol] [--name N] [--caps LIST]\n"
	  "           [--arch x86_64[,i386,x32]] [--kernel X.Y]\n"
	  "       polc import --from varmor FILE.yaml [-o FILE.pol] [--name N] [--allow-partial]\n"
	  "           (a VarmorPolicy's enhanceProtect rules; --caps, --arch, --kernel evaluate\n"
	  "           its syscallRawRules)",
	  "import an OCI/Docker seccomp profile or a vArmor policy as polc source" },
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

static const command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* The registry's targets and their formats (the first is the default), so
 * that a new backend appears here without an edit. */
static void print_targets(FILE *f)
{
	fprintf(f, "  targets (formats, the first the default):\n");
	for (const backend *const *b = backends_all; *b; b++) {
		fprintf(f, "    %-9s", (*b)->name);
		for (const char *const *fmt = (*b)->formats; fmt && *fmt; fmt++)
			fprintf(f, "%s%s", fmt == (*b)->formats ? " " : ", ", *fmt);
		fprintf(f, "\n");
	}
}

void cli_usage(const char *cmd, FILE *f)
{
	const command *c = cmd ? find(cmd) : NULL;
	if (c) {
		fprintf(f, "usage: %s\n  %s\n", c->usage, c->summary);
		if (strstr(c->usage, "--target"))
			print_targets(f);
		return;
	}
	fprintf(f, "usage: polc COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n  polc help COMMAND   usage of one command\n  polc --version\n"
		   "\nexit codes: 0 ok, 1 policy errors or differences, 2 usage, 3 I/O or system errors\n"
		   "see polc(1)\n");
}

int polc_main(int argc, char **argv)
{
	if (argc < 2) {
		cli_usage(NULL, stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("polc %s\n", POLC_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		cli_usage(NULL, stdout);
		return EXIT_OK;
	}
	if (!strcmp(name, "help")) {
		if (argc > 2 && !find(argv[2])) {
			fprintf(stderr, "polc: no command '%s'\n", argv[2]);
			return EXIT_USAGE;
		}
		cli_usage(argc > 2 ? argv[2] : NULL, stdout);
		return EXIT_OK;
	}
	const command *c = find(name);
	if (!c) {
		fprintf(stderr, "polc: unknown command '%s' (see 'polc --help')\n", name);
		return EXIT_USAGE;
	}
	/* `polc X --help` is `polc help X`, for every command (not in the
	 * command line after "--", which is the workload's) */
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			cli_usage(name, stdout);
			return EXIT_OK;
		}
	return c->run(argc - 1, argv + 1);
}
