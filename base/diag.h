/* diag.h - source files, locations and the diagnostics list.
 *
 * Takes: source text (read from disk or given in memory) and messages.
 * Gives: stable src_loc values that name a file, line and column; a list of
 *        diagnostics printed once, clang-style:
 *            file:line:col: error: message
 *              source line
 *                  ^
 * Promises: every src_loc stays valid until diag_free(); file names and the
 *        source text are owned here. Nothing prints until diag_print().
 *        One error per location: a later error at the same file:line:col,
 *        or the same warning twice, is dropped with its notes.
 */
#ifndef POLC_DIAG_H
#define POLC_DIAG_H

#include <stddef.h>
#include <stdio.h>
#include <stdbool.h>

typedef struct src_file {
	char *path;            /* as given or resolved */
	char *text;            /* NUL-terminated copy of the bytes */
	size_t len;
	bool builtin;          /* from the embedded rule library */
	size_t *line_at;       /* line_at[l - 1]: offset of line l (nlines of them),
	                          so a diagnostic finds its line without a scan */
	size_t nlines;
	size_t refs;           /* holders: the diag context that read it, and
	                          every compiled policy (src_file_hold) */
} src_file;

typedef struct {
	const src_file *file;  /* NULL: no location (command line) */
	int line, col;         /* 1-based; col counts characters (UTF-8) */
} src_loc;

typedef enum { DIAG_NOTE, DIAG_WARNING, DIAG_ERROR } diag_severity;

typedef struct {
	diag_severity sev;
	src_loc loc;
	char *msg;
} diag;

typedef struct diag_ctx {
	diag *v;
	size_t n, cap;
	size_t nerrors, nwarnings;
	size_t nio;            /* files that could not be read (exit 3, not 1) */
	src_file **files;      /* every file read, in order */
	size_t nfiles, capfiles;
	size_t max_errors;     /* stop recording errors past this (0: 100) */
	bool dropping;         /* last error/warning was a repeat: drop its notes */
	size_t *at;            /* open-addressing index of v by location (+1; 0
	                          empty): repeats are found in constant time */
	size_t atcap;
} diag_ctx;

void diag_init(diag_ctx *d);
void diag_free(diag_ctx *d);

/* Read a file into the context. Returns NULL, records an error (at `from`
 * if given) and counts it in nio when it cannot be opened or read, is a
 * directory or is larger than DIAG_SOURCE_MAX bytes (a device such as
 * /dev/zero is cut off there). (A NUL byte is the lexer's error, with its
 * location.) */
#define DIAG_SOURCE_MAX (64u << 20)
#define DIAG_SOURCE_MAX_TEXT "64 MiB"
src_file *diag_read_file(diag_ctx *d, const char *path, src_loc from);
/* The same for an `include`: only a regular file (a FIFO, device or
 * socket is refused before it is read, so nothing blocks). */
src_file *diag_read_include(diag_ctx *d, const char *path, src_loc from);
/* Register text held in memory (embedded rules, tests, fuzzers). */
src_file *diag_add_text(diag_ctx *d, const char *name, const char *text,
			size_t len, bool builtin);
/* A file outlives the diag context that read it while another holder has
 * it: hold returns f; the last release frees it (diag_free releases the
 * context's). */
src_file *src_file_hold(src_file *f);
void src_file_release(src_file *f);

void diag_add(diag_ctx *d, diag_severity sev, src_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define diag_error(d, ...) diag_add((d), DIAG_ERROR, __VA_ARGS__)
#define diag_warn(d, ...) diag_add((d), DIAG_WARNING, __VA_ARGS__)
#define diag_note(d, ...) diag_add((d), DIAG_NOTE, __VA_ARGS__)

/* Print all diagnostics in the order recorded. color: ANSI colors. */
void diag_print(const diag_ctx *d, FILE *out, bool color);
/* One diagnostic's text as printed, for tests. Caller frees. */
char *diag_format(const diag *dg, bool with_source);

/* "did you mean" helper: the closest of `cands` to `word` within a small
 * edit distance, or NULL. */
const char *diag_closest(const char *word, const char *const *cands, size_t n);

static inline src_loc src_loc_none(void) { src_loc l = { NULL, 0, 0 }; return l; }

#endif
