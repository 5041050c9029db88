/* cmd_diff.c - polc diff OLD NEW: compare two policies by meaning
 * (compiler/irdiff.h). --against COMMITTED NEW is the drift gate: it fails
 * only when NEW permits something COMMITTED does not. */
#include "cli.h"
#include "commands.h"
#include "artifact.h"
#include "../compiler/irdiff.h"
#include "../base/util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	const char *policy;
	const char **incs;
	size_t ninc;
	bool json, gate;
} diff_opts;

static const ir_policy *load(const char *file, const diff_opts *o, diag_ctx *d, ir_program *prog,
			     bool *compiled)
{
	compile_opts co = { o->incs, o->ninc, false, 0, false };
	const char *files[] = { file };
	*compiled = polc_compile_files(files, 1, &co, d, prog) == 0;
	return *compiled ? ir_program_select(prog, o->policy, d) : NULL;
}

static int report(const irdiff *df, const diff_opts *o, const char *a, const char *b)
{
	buf out;
	buf_init(&out);
	irdiff_print(df, o->json, &out);
	fwrite(out.data, 1, out.len, stdout);
	buf_free(&out);
	size_t nk[3] = { 0 };
	for (size_t i = 0; i < df->n; i++)
		nk[df->v[i].kind]++;
	if (!df->n) {
		fprintf(stderr, "polc diff: %s and %s are equal in effect\n", a, b);
		return EXIT_OK;
	}
	fprintf(stderr, "polc diff: %zu difference%s (%zu widened, %zu narrowed, %zu changed)\n", df->n,
		df->n == 1 ? "" : "s", nk[IRD_WIDENED], nk[IRD_NARROWED], nk[IRD_CHANGED]);
	if (!o->gate)
		return EXIT_POLICY;
	if (nk[IRD_WIDENED]) {
		fprintf(stderr, "polc diff: %s permits %zu thing%s that %s does not (the 'widened' lines): "
			"update the committed profile or fix the workload\n", b, nk[IRD_WIDENED],
			nk[IRD_WIDENED] == 1 ? "" : "s", a);
		return EXIT_POLICY;
	}
	fprintf(stderr, "polc diff: %s permits nothing beyond %s\n", b, a);
	return EXIT_OK;
}

/* Two built artifacts (OCI profiles, AppArmor profiles, BPF bundles):
 * by meaning (cli/artifact.h). -1: not artifacts, compare as policies. */
static int diff_artifacts(const char *files[2], const diff_opts *o)
{
	diag_ctx d;
	diag_init(&d);
	src_file *f[2];
	art_kind k[2];
	for (int i = 0; i < 2; i++) {
		f[i] = diag_read_file(&d, files[i], src_loc_none());
		k[i] = f[i] ? artifact_kind(f[i]->text, f[i]->len) : ART_NONE;
	}
	int rc = -1;
	if (k[0] == ART_NONE && k[1] == ART_NONE) {
		rc = -1;               /* policies (or unreadable: said there) */
	} else if (k[0] != k[1]) {
		fprintf(stderr, "polc diff: cannot compare %s with %s\n", files[0], files[1]);
		fprintf(stderr, "polc diff: %s is a%s %s, %s a%s %s\n", files[0],
			k[0] == ART_BUNDLE ? "" : "n", artifact_kind_name(k[0]), files[1],
			k[1] == ART_BUNDLE ? "" : "n", artifact_kind_name(k[1]));
		rc = EXIT_USAGE;
	} else if (o->gate) {
		fprintf(stderr, "polc diff: --against compares policies, not %ss (polc diff OLD NEW "
			"compares them)\n", artifact_kind_name(k[0]));
		rc = EXIT_USAGE;
	} else {
		buf out;
		buf_init(&out);
		int n = artifact_diff(k[0], f[0], f[1], o->json, &out, &d);
		if (n < 0) {
			diag_print(&d, stderr, isatty(STDERR_FILENO));
			rc = EXIT_POLICY + 1;
		} else if (k[0] == ART_OCI) {
			/* the same lines as for policies: irdiff's */
			fwrite(out.data, 1, out.len, stdout);
			if (!n)
				fprintf(stderr, "polc diff: %s and %s are equal in effect\n", files[0], files[1]);
			else
				fprintf(stderr, "polc diff: %d difference%s between the two %ss\n", n,
					n == 1 ? "" : "s", artifact_kind_name(k[0]));
			rc = n ? EXIT_POLICY : EXIT_OK;
		} else {
			fwrite(out.data, 1, out.len, stdout);
			if (!n)
				fprintf(stderr, "polc diff: %s and %s are equal in effect (the same rules)\n",
					files[0], files[1]);
			else
				fprintf(stderr, "polc diff: %d rule%s between the two %ss (compared "
					"as sets of rules: order and grouping do not matter)\n", n,
					n == 1 ? " differs" : "s differ", artifact_kind_name(k[0]));
			rc = n ? EXIT_POLICY : EXIT_OK;
		}
		buf_free(&out);
	}
	diag_free(&d);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, 0, 'p' }, { "json", no_argument, 0, 'j' },
		{ "against", required_argument, 0, 'a' }, { "include", required_argument, 0, 'I' },
		{ "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 }
	};
	diff_opts o = { 0 };
	const char *files[2];
	int nfiles = 0, c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:I:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': o.policy = optarg; break;
		case 'j': o.json = true; break;
		case 'a': o.gate = true; files[nfiles++] = optarg; break;
		case 'I':
			o.incs = xrealloc(o.incs, (o.ninc + 1) * sizeof *o.incs);
			o.incs[o.ninc++] = optarg;
			break;
		case 'h': cli_usage("diff", stdout); free(o.incs); return EXIT_OK;
		default:
			fprintf(stderr, "polc diff: unknown option or missing argument: '%s'\n", argv[optind - 1]);
			free(o.incs);
			cli_usage("diff", stderr);
			return EXIT_USAGE;
		}
	}
	for (int i = optind; i < argc && nfiles <= 2; i++)
		if (nfiles < 2)
			files[nfiles++] = argv[i];
		else
			nfiles = 3;
	if (nfiles != 2) {
		fprintf(stderr, "polc diff: give two policy files: OLD NEW (or --against COMMITTED NEW)\n");
		free(o.incs);
		cli_usage("diff", stderr);
		return EXIT_USAGE;
	}
	int ar = diff_artifacts(files, &o);
	if (ar >= 0) {
		free(o.incs);
		return ar;
	}
	diag_ctx d;
	diag_init(&d);
	ir_program pa, pb;
	bool ca, cb;
	const ir_policy *a = load(files[0], &o, &d, &pa, &ca);
	const ir_policy *b = load(files[1], &o, &d, &pb, &cb);
	diag_print(&d, stderr, isatty(STDERR_FILENO));
	int rc = EXIT_POLICY + 1;     /* 2: the policies could not be compared */
	if (a && b) {
		irdiff df = { 0 };
		ir_diff(a, b, &df);
		rc = report(&df, &o, files[0], files[1]);
		irdiff_free(&df);
	} else {
		fprintf(stderr, "polc diff: cannot compare: %s does not compile to one policy\n",
			a ? files[1] : files[0]);
		if (d.nio)
			rc = EXIT_SYSTEM;   /* unreadable (a directory is R_OK too) */
	}
	if (ca)
		ir_program_free(&pa);
	if (cb)
		ir_program_free(&pb);
	diag_free(&d);
	free(o.incs);
	return rc;
}
