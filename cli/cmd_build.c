/* cmd_build.c - polc check, polc build, polc run: compile, lower with one
 * backend, write the artifact atomically or confine and exec. */
#include "cli.h"
#include "commands.h"
#include "../backends/backend.h"
#include "../backends/k8s.h"
#include "artifact.h"
#include "profile_from.h"
#include "../base/util.h"
#include "../compiler/syscalls.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { OPT_ALLOW_PARTIAL = 256, OPT_NO_LIBRARY, OPT_CHECK, OPT_PROFILE_FROM, OPT_WERROR, OPT_JSON, OPT_VM,
       OPT_NAMESPACE, OPT_NAME, OPT_PROBES, OPT_SPO_VERSION, OPT_MODE, OPT_DOMAINS,
       OPT_ALLOW_SPLIT };

static void push(const char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = s;
}

int cli_parse(cli_args *a, int argc, char **argv, bool allow_cmd)
{
	static const struct option opts[] = {
		{ "policy", required_argument, 0, 'p' },
		{ "target", required_argument, 0, 't' },
		{ "format", required_argument, 0, 'f' },
		{ "output", required_argument, 0, 'o' },
		{ "include", required_argument, 0, 'I' },
		{ "allow-partial", no_argument, 0, OPT_ALLOW_PARTIAL },
		{ "allow-split", no_argument, 0, OPT_ALLOW_SPLIT },
		{ "no-library", no_argument, 0, OPT_NO_LIBRARY },
		{ "check", required_argument, 0, OPT_CHECK },
		{ "profile-from", required_argument, 0, OPT_PROFILE_FROM },
		{ "werror", no_argument, 0, OPT_WERROR },
		{ "json", no_argument, 0, OPT_JSON },
		{ "vm", no_argument, 0, OPT_VM },
		{ "namespace", required_argument, 0, OPT_NAMESPACE },
		{ "name", required_argument, 0, OPT_NAME },
		{ "spo-version", required_argument, 0, OPT_SPO_VERSION },
		{ "domains", required_argument, 0, OPT_DOMAINS },
		{ "probes", no_argument, 0, OPT_PROBES },
		{ "mode", required_argument, 0, OPT_MODE },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	memset(a, 0, sizeof *a);
	diag_init(&a->diag);
	backend_set_domains(NULL);
	k8s_set_spo_version(NULL);
	/* Everything after the first "--" is the command (polc run). */
	int n = 0;
	while (n < argc && strcmp(argv[n], "--"))
		n++;
	if (n < argc) {
		if (!allow_cmd) {
			fprintf(stderr, "polc %s: unexpected '--'\n", argv[0]);
			return -1;
		}
		a->cmd = argv + n + 1;
	}
	int c;
	optind = 0;        /* full reset of GNU getopt */
	opterr = 0;
	while ((c = getopt_long(n, argv, "p:t:f:o:I:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': a->policy = optarg; break;
		case 't': a->target = optarg; break;
		case 'f': a->format = optarg; break;
		case 'o': a->output = optarg; break;
		case 'I': push(&a->include_dirs, &a->ninclude, optarg); break;
		case OPT_ALLOW_PARTIAL: a->allow_partial = true; break;
		case OPT_ALLOW_SPLIT: a->allow_split = true; break;
		case OPT_NO_LIBRARY: a->no_library = true; break;
		case OPT_CHECK: a->check = optarg; break;
		case OPT_PROFILE_FROM: a->profile_from = optarg; break;
		case OPT_WERROR: a->werror = true; break;
		case OPT_JSON: a->json = true; break;
		case OPT_VM: a->vm = true; break;
		case OPT_NAMESPACE: a->k8s_namespace = optarg; break;
		case OPT_NAME: a->k8s_name = optarg; break;
		case OPT_DOMAINS:
			if (backend_set_domains(optarg) < 0) {
				fprintf(stderr, "polc %s: --domains '%s': expected 'all' or domain names "
					"separated by commas (syscall, file, exec, network, capability, "
					"mount, ptrace, signal)\n", argv[0], optarg);
				return -1;
			}
			break;
		case OPT_SPO_VERSION:
			if (k8s_set_spo_version(optarg) < 0) {
				fprintf(stderr, "polc %s: --spo-version '%s': expected 1 (SPO v0.9 and "
					"later, the default) or 0.8\n", argv[0], optarg);
				return -1;
			}
			break;
		case OPT_PROBES: a->probes = true; break;
		case OPT_MODE: a->mode = optarg; break;
		case 'h': cli_usage(argv[0], stdout); exit(EXIT_OK);
		case ':':
		default:
			fprintf(stderr, "polc %s: unknown option or missing argument: '%s'\n", argv[0],
				argv[optind - 1]);
			cli_usage(argv[0], stderr);
			return -1;
		}
	}
	for (int i = optind; i < n; i++)
		push(&a->files, &a->nfiles, argv[i]);
	return 0;
}

int cli_compile(cli_args *a, bool select)
{
	compile_opts o = { a->include_dirs, a->ninclude, a->no_library, 0, a->lint };
	int r = polc_compile_files(a->files, a->nfiles, &o, &a->diag, &a->prog);
	if (r == 0)
		a->compiled = true;
	if (r == 0 && select)
		a->pol = ir_program_select(&a->prog, a->policy, &a->diag);
	if (!a->quiet)
		diag_print(&a->diag, stderr, isatty(STDERR_FILENO));
	if (a->diag.nio)
		return EXIT_SYSTEM;   /* a file could not be read: I/O, not the policy */
	if (r < 0 || (select && !a->pol))
		return EXIT_POLICY;
	if (a->werror && a->diag.nwarnings)
		return EXIT_POLICY;
	return EXIT_OK;
}

void cli_done(cli_args *a)
{
	if (a->compiled)
		ir_program_free(&a->prog);
	diag_free(&a->diag);
	free(a->files);
	free(a->include_dirs);
}

static int need_files(cli_args *a, const char *cmd)
{
	if (a->nfiles)
		return 0;
	fprintf(stderr, "polc %s: no policy file given\n", cmd);
	cli_usage(cmd, stderr);
	return -1;
}

/* `polc check --json`: {"ok", "policies", "rules", "statements",
 * "diagnostics": [{"file", "line", "col", "severity", "message"}]} on
 * standard output, in source order. */
static void check_json(cli_args *a, int r)
{
	static const char *const sev[] = { "note", "warning", "error" };
	size_t npol = a->compiled ? a->prog.npolicies : 0, nstmt = 0;
	for (size_t i = 0; i < npol; i++)
		for (int d = 0; d < IR_NDOMAIN; d++)
			nstmt += a->prog.policies[i]->dom[d].n;
	buf o;
	buf_init(&o);
	buf_printf(&o, "{\"ok\":%s,\"policies\":%zu,\"rules\":%zu,\"statements\":%zu,"
		   "\"diagnostics\":[", r == EXIT_OK ? "true" : "false", npol,
		   a->compiled ? a->prog.nrules : 0, nstmt);
	for (size_t i = 0; i < a->diag.n; i++) {
		const diag *dg = &a->diag.v[i];
		buf_puts(&o, i ? ",\n {\"file\":" : "\n {\"file\":");
		if (dg->loc.file)
			buf_json_str(&o, dg->loc.file->path);
		else
			buf_puts(&o, "null");
		buf_printf(&o, ",\"line\":%d,\"col\":%d,\"severity\":\"%s\",\"message\":",
			   dg->loc.line, dg->loc.col, sev[dg->sev]);
		buf_json_str(&o, dg->msg);
		buf_puts(&o, "}");
	}
	buf_puts(&o, a->diag.n ? "\n]}\n" : "]}\n");
	fwrite(o.data, 1, o.len, stdout);
	buf_free(&o);
}

int cmd_check(int argc, char **argv)
{
	cli_args a;
	if (cli_parse(&a, argc, argv, false) < 0 || need_files(&a, "check") < 0)
		return EXIT_USAGE;
	a.quiet = a.json;              /* the diagnostics go into the JSON */
	a.lint = true;
	int r = cli_compile(&a, a.policy != NULL);
	if (a.json) {
		check_json(&a, r);
	} else if (r == EXIT_OK) {
		size_t nstmt = 0;
		for (size_t i = 0; i < a.prog.npolicies; i++)
			for (int d = 0; d < IR_NDOMAIN; d++)
				nstmt += a.prog.policies[i]->dom[d].n;
		fprintf(stderr, "polc: ok: %zu polic%s, %zu rule%s, %zu statement%s\n",
			a.prog.npolicies, a.prog.npolicies == 1 ? "y" : "ies",
			a.prog.nrules, a.prog.nrules == 1 ? "" : "s", nstmt, nstmt == 1 ? "" : "s");
	}
	cli_done(&a);
	return r;
}

static const backend *pick_target(const cli_args *a, const char *cmd)
{
	if (!a->target) {
		fprintf(stderr, "polc %s: --target is required (%s)\n", cmd, backend_names());
		return NULL;
	}
	const backend *b = backend_find(a->target);
	if (!b)
		fprintf(stderr, "polc %s: unknown target '%s' (expected one of %s)\n",
			cmd, a->target, backend_names());
	return b;
}

static bool format_ok(const backend *b, const char *fmt)
{
	for (size_t i = 0; b->formats[i]; i++)
		if (!strcmp(b->formats[i], fmt))
			return true;
	buf list;
	buf_init(&list);
	for (size_t i = 0; b->formats[i]; i++)
		buf_printf(&list, "%s%s", i ? ", " : "", b->formats[i]);
	fprintf(stderr, "polc build: target %s has no format '%s' (formats: %s)\n", b->name, fmt,
		buf_cstr(&list));
	buf_free(&list);
	return false;
}

/* Lower with the backend into out; prints diagnostics. */
static int lower(cli_args *a, const backend *b, buf *out)
{
	backend_opts o = { a->format, a->allow_partial, a->profile_from, POLC_VERSION };
	k8s_set_names(a->k8s_namespace, a->k8s_name);
	diag_ctx d;
	diag_init(&d);
	int refused = backend_check(b, a->pol, a->allow_partial, &d);
	int r = refused ? -1 : a->profile_from ? build_profiled(a->pol, b, &o, out, &d)
			     : b->emit(a->pol, &o, out, &d);
	diag_print(&d, stderr, isatty(STDERR_FILENO));
	bool io = d.nio;   /* --profile-from's trace unreadable: I/O */
	diag_free(&d);
	return r < 0 ? (io ? EXIT_SYSTEM : EXIT_POLICY) : EXIT_OK;
}

/* --allow-split: can this build split? Says why not (usage). */
static bool split_ok(const cli_args *a, const backend *b, const char *fmt)
{
	if (!b->split_format) {
		fprintf(stderr, "polc build: --allow-split: target %s never splits its artifact\n",
			b->name);
		return false;
	}
	if (strcmp(fmt, b->split_format)) {
		fprintf(stderr, "polc build: --allow-split: only --format %s of target %s can be "
			"split into pieces installed in order; not %s (%s)\n", b->split_format,
			b->name, fmt, b->no_split);
		return false;
	}
	if (!a->output || !strcmp(a->output, "-")) {
		fprintf(stderr, "polc build: --allow-split writes OUT.1, OUT.2, ... (one file a "
			"piece): give -o OUT\n");
		return false;
	}
	if (a->check || a->profile_from) {
		fprintf(stderr, "polc build: --allow-split does not go with %s\n",
			a->check ? "--check" : "--profile-from");
		return false;
	}
	return true;
}

/* Remove OUT.k for every k > n in OUT's directory: pieces of an earlier
 * split build that this one does not have (whoever installs OUT.* would
 * take them too). */
static void remove_stale_pieces(const char *out, size_t n)
{
	const char *slash = strrchr(out, '/');
	char *dir = slash ? xasprintf("%.*s", (int)(slash - out + 1), out) : xstrdup(".");
	const char *base = slash ? slash + 1 : out;
	size_t nb = strlen(base);
	DIR *dp = opendir(dir);
	for (struct dirent *e; dp && (e = readdir(dp));) {
		const char *k = e->d_name + nb + 1;
		char *end;
		if (strncmp(e->d_name, base, nb) || e->d_name[nb] != '.' || *k < '1' || *k > '9')
			continue;
		unsigned long v = strtoul(k, &end, 10);
		if (*end || v <= n)
			continue;
		char *path = xasprintf("%s%s", slash ? dir : "", e->d_name);
		if (unlink(path))
			fprintf(stderr, "polc build: cannot remove the stale piece '%s': %s\n", path,
				strerror(errno));
		free(path);
	}
	if (dp)
		closedir(dp);
	free(dir);
}

/* Lower with the backend allowed to split: OUT.1 ... OUT.n, each
 * atomically, then any OUT.k beyond them from an earlier build removed
 * (a stale piece would be installed with the others). */
static int lower_split(cli_args *a, const backend *b)
{
	backend_opts o = { a->format, a->allow_partial, NULL, POLC_VERSION };
	diag_ctx d;
	diag_init(&d);
	buf *piece = NULL;
	size_t n = 0;
	int r = backend_check(b, a->pol, a->allow_partial, &d) ? -1
		: b->emit_split(a->pol, &o, &piece, &n, &d);
	diag_print(&d, stderr, isatty(STDERR_FILENO));
	diag_free(&d);
	if (r < 0)
		return EXIT_POLICY;
	int rc = EXIT_OK;
	for (size_t i = 0; i < n && rc == EXIT_OK; i++) {
		char *path = xasprintf("%s.%zu", a->output, i + 1);
		if (write_file_atomic(path, piece[i].data ? piece[i].data : "", piece[i].len) < 0) {
			fprintf(stderr, "polc build: cannot write '%s': %s\n", path, strerror(errno));
			rc = EXIT_SYSTEM;
		}
		free(path);
	}
	if (rc == EXIT_OK)
		remove_stale_pieces(a->output, n);
	if (rc == EXIT_OK) {
		size_t bytes = 0;
		for (size_t i = 0; i < n; i++)
			bytes += piece[i].len;
		fprintf(stderr, "polc: wrote %s.1", a->output);
		if (n > 1)
			fprintf(stderr, " ... %s.%zu", a->output, n);
		fprintf(stderr, " (%s, %zu piece%s, %zu bytes; install %s)\n",
			b->name, n, n == 1 ? "" : "s", bytes, n == 1 ? "it" : "them all, in this order");
	}
	for (size_t i = 0; i < n; i++)
		buf_free(&piece[i]);
	free(piece);
	return rc;
}

/* The drift gate: the committed artifact f against what the policy builds
 * to now (out), by meaning where polc can read the format back (OCI,
 * AppArmor: cli/artifact.h), else byte for byte. Exit 0 when
 * equal in effect, 1 with the differences (polc diff's lines) on stdout. */
static int check_drift(const src_file *f, const buf *out, diag_ctx *d)
{
	art_kind k = artifact_kind(f->text, f->len);
	src_file *built = diag_add_text(d, "(built now)", out->data ? out->data : "", out->len, false);
	if (k == ART_NONE || k == ART_BUNDLE || artifact_kind(built->text, built->len) != k) {
		fprintf(stderr, "polc build: %s differs from what the policy builds to (compared "
			"byte for byte: polc compares OCI and AppArmor profiles by meaning)\n",
			f->path);
		return EXIT_POLICY;
	}
	buf lines;
	buf_init(&lines);
	int n = artifact_diff(k, f, built, false, &lines, d);
	int r = EXIT_OK;
	if (n < 0) {
		diag_print(d, stderr, isatty(STDERR_FILENO));
		r = EXIT_POLICY;
	} else if (n > 0) {
		fwrite(lines.data, 1, lines.len, stdout);
		fprintf(stderr, "polc build: %s differs in effect from what the policy builds to: "
			"%d difference%s (old: %s, new: the build)\n", f->path, n, n == 1 ? "" : "s",
			f->path);
		r = EXIT_POLICY;
	} else {
		fprintf(stderr, "polc build: %s is equal in effect to what the policy builds to "
			"(its bytes differ: order, grouping or provenance)\n", f->path);
	}
	buf_free(&lines);
	return r;
}

int cmd_build(int argc, char **argv)
{
	cli_args a;
	if (cli_parse(&a, argc, argv, false) < 0 || need_files(&a, "build") < 0)
		return EXIT_USAGE;
	const backend *b = pick_target(&a, "build");
	if (!b || (a.format && !format_ok(b, a.format))) {
		cli_done(&a);
		return EXIT_USAGE;
	}
	/* a binary format (a raw filter, a bundle): never onto a terminal */
	const char *fmt = a.format ? a.format : b->formats[0];
	bool binary = false;
	for (size_t i = 0; b->binary_formats && b->binary_formats[i]; i++)
		binary |= !strcmp(b->binary_formats[i], fmt);
	if (binary && !a.check &&
	    (!a.output || !strcmp(a.output, "-")) && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "polc build: --target %s --format %s is binary: not writing it to a "
			"terminal (give -o FILE, or redirect standard output)\n", b->name, fmt);
		cli_done(&a);
		return EXIT_USAGE;
	}
	if (a.allow_split && !split_ok(&a, b, fmt)) {
		cli_done(&a);
		return EXIT_USAGE;
	}
	int r = cli_compile(&a, true);
	if (a.allow_split) {
		if (r == EXIT_OK)
			r = lower_split(&a, b);
		cli_done(&a);
		return r;
	}
	buf out;
	buf_init(&out);
	if (r == EXIT_OK)
		r = lower(&a, b, &out);
	if (r == EXIT_OK && a.check) {
		/* the drift gate: compare with the committed artifact */
		diag_ctx d;
		diag_init(&d);
		src_file *f = diag_read_file(&d, a.check, src_loc_none());
		if (!f) {
			diag_print(&d, stderr, false);
			r = EXIT_SYSTEM;
		} else if (f->len != out.len || memcmp(f->text, out.data, out.len)) {
			r = check_drift(f, &out, &d);
		}
		diag_free(&d);
	} else if (r == EXIT_OK) {
		const char *path = a.output ? a.output : "-";
		if (write_file_atomic(path, out.data ? out.data : "", out.len) < 0) {
			fprintf(stderr, "polc build: cannot write '%s': %s\n", path, strerror(errno));
			r = EXIT_SYSTEM;
		} else if (a.output) {
			fprintf(stderr, "polc: wrote %s (%s, %zu bytes)\n", a.output, b->name, out.len);
		}
	}
	buf_free(&out);
	cli_done(&a);
	return r;
}

/* The program execvp would run for name, resolved before confinement so
 * that no PATH search (and no fallback to /bin/sh) happens under the
 * policy. NULL (errno set) when there is none. */
static char *resolve_cmd(const char *name)
{
	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int e = ENOENT;
	for (const char *p = path;; p++) {
		const char *q = strchr(p, ':');
		size_t n = q ? (size_t)(q - p) : strlen(p);
		char *f = xasprintf("%.*s%s%s", (int)n, p, n ? "/" : "", name);
		if (access(f, X_OK) == 0)
			return f;
		if (errno != ENOENT)
			e = errno;
		free(f);
		if (!q)
			break;
		p = q;
	}
	errno = e;
	return NULL;
}

static bool decided_allow(const ir_policy *p, ir_event *ev)
{
	return ir_decide(p, ev).verdict == IR_ALLOW;
}

/* The syscall polc run execs the command with (execve, else execveat), or
 * -1 when the policy allows neither. */
static int exec_syscall(const ir_policy *p)
{
	static const char *const names[] = { "execve", "execveat" };
	for (int i = 0; i < 2; i++) {
		ir_event ev = { .domain = IR_SYSCALL };
		ev.u.sys.audit_arch = ir_arch_audit(IR_ARCH_X86_64);
		ev.u.sys.nr = (uint32_t)sys_resolve(IR_ARCH_X86_64, names[i]);
		if (decided_allow(p, &ev))
			return i;
	}
	return -1;
}

/* Whether the policy lets the command itself be executed: the LSMs see
 * the exec of the resolved file and its open for execute. Refused up
 * front rather than failing (or being reported as a denial) after
 * confinement. seccomp cannot see paths, so only the syscall counts. */
static bool exec_allowed(const cli_args *a, const backend *b, const char *prog, int *sc)
{
	*sc = exec_syscall(a->pol);
	if (*sc < 0) {
		fprintf(stderr, "polc run: policy %s allows neither execve nor execveat; polc run "
			"starts the command with one of them after confinement (add `allow "
			"syscall execve;`)\n", a->pol->name);
		return false;
	}
	if (!b->decides_exec_path)
		return true;
	char real[PATH_MAX];
	const char *f = realpath(prog, real) ? real : prog;
	ir_event ex = { .domain = IR_EXEC }, fe = { .domain = IR_FILE };
	ex.u.exec.path = f;
	fe.u.file.path = f;
	fe.u.file.perm = IR_PERM_EXEC;
	if (decided_allow(a->pol, &ex) && decided_allow(a->pol, &fe))
		return true;
	fprintf(stderr, "polc run: policy %s does not allow executing %s itself (allow exec "
		"\"%s\" and file \"%s\" exec)\n", a->pol->name, f, f, f);
	return false;
}

/* Everything polc does after the policy is in force is the exec: so
 * no_new_privs is set and the program resolved before confinement, and
 * the exec itself was checked against the policy above. */
static int run_confined(cli_args *a, const backend *b, const char *prog)
{
	int sc;
	if (!exec_allowed(a, b, prog, &sc))
		return EXIT_POLICY;
	/* no_new_privs for every target: a setuid or file-capability program
	 * the command runs must not gain privileges beyond the ones the policy
	 * was written for. From unconfined, AppArmor still makes the
	 * change_onexec transition. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		fprintf(stderr, "polc run: cannot set no_new_privs: %s\n", strerror(errno));
		return EXIT_SYSTEM;
	}
	int r = a->allow_split ? b->confine_split(a->pol, a->allow_partial)
			       : b->confine(a->pol, a->allow_partial);
	if (r != EXIT_OK)
		return r;   /* never run the command unconfined */
	extern char **environ;
	if (sc == 0)
		execve(prog, a->cmd, environ);
	else
		syscall(SYS_execveat, AT_FDCWD, prog, a->cmd, environ, 0);
	int e = errno;
	fprintf(stderr, "polc run: cannot execute '%s': %s\n", prog, strerror(e));
	return e == ENOENT ? 127 : 126;
}

int cmd_run(int argc, char **argv)
{
	cli_args a;
	if (cli_parse(&a, argc, argv, true) < 0 || need_files(&a, "run") < 0)
		return EXIT_USAGE;
	if (!a.cmd || !a.cmd[0]) {
		fprintf(stderr, "polc run: no command given (polc run --target T FILE -- CMD ARGS...)\n");
		cli_done(&a);
		return EXIT_USAGE;
	}
	const backend *b = pick_target(&a, "run");
	bool audit = a.mode && !strcmp(a.mode, "audit");
	if (b && a.mode && !audit && strcmp(a.mode, "enforce")) {
		fprintf(stderr, "polc run: --mode '%s': expected enforce or audit\n", a.mode);
		b = NULL;
	} else if (b && audit && !a.output) {
		fprintf(stderr, "polc run: --mode audit needs -o LOG (the trace of what the "
			"policy would have refused)\n");
		b = NULL;
	}
	if (b && !b->confine) {
		fprintf(stderr, "polc run: target %s cannot run a command\n", b->name);
		b = NULL;
	} else if (b && a.allow_split && !b->confine_split) {
		fprintf(stderr, "polc run: --allow-split: target %s never splits its artifact\n",
			b->name);
		b = NULL;
	} else if (b && a.allow_split && audit) {
		/* the kernel gives a process one notification listener
		 * (SECCOMP_FILTER_FLAG_NEW_LISTENER: EBUSY for a second) */
		fprintf(stderr, "polc run: --allow-split does not go with --mode audit: the "
			"refusals become notifications of one listener, on one filter\n");
		b = NULL;
	}
	if (!b) {
		cli_done(&a);
		return EXIT_USAGE;
	}
	int r = cli_compile(&a, true);
	if (r == EXIT_OK) {
		diag_ctx d;
		diag_init(&d);
		if (backend_check(b, a.pol, a.allow_partial, &d))
			r = EXIT_POLICY;
		diag_print(&d, stderr, isatty(STDERR_FILENO));
		diag_free(&d);
	}
	char *prog = NULL;
	if (r == EXIT_OK && !(prog = resolve_cmd(a.cmd[0]))) {
		int e = errno;
		fprintf(stderr, "polc run: cannot execute '%s': %s\n", a.cmd[0], strerror(e));
		r = e == ENOENT ? 127 : 126;
	}
	if (r == EXIT_OK && audit)
		r = run_audit(a.pol, b, a.allow_partial, prog, a.cmd, a.output);
	else if (r == EXIT_OK)
		r = run_confined(&a, b, prog);
	free(prog);
	cli_done(&a);
	return r;
}
