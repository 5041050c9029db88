/* trace.h - the polc trace (docs/trace-format.md): an aggregate of what
 * recorded runs did, and its "polc-trace 1" text form.
 *
 * Takes: records from a tracer (trace_add) or trace files (trace_read).
 * Gives: one record per distinct (kind, fields) with a count; text output
 *        sorted by kind then fields (trace_write); lookup of fields by kind.
 * Promises: a merge is the sum of counts of equal records (trace_merge), so
 *        merging is associative and commutative and writing is
 *        deterministic. trace_read rejects newer versions and malformed
 *        lines with "file:line: message" and leaves the trace unchanged
 *        on error.
 */
#ifndef POLC_TRACE_H
#define POLC_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "../base/util.h"

#define TRACE_VERSION 1

typedef enum {
	TR_META, TR_SYSCALL, TR_FILE, TR_EXEC, TR_NET, TR_MOUNT, TR_CAP, TR_NKIND
} tr_kind;

#define TR_MAXF 6

typedef struct {
	tr_kind kind;
	int nf;
	char *f[TR_MAXF];      /* owned by the trace */
	uint64_t count;
} tr_rec;

typedef struct {
	tr_rec **v;            /* hash slots (NULL: empty) */
	size_t cap, n;
} trace;

void trace_init(trace *t);
void trace_free(trace *t);

/* Add count to the record (kind, fields); creates it if new. Fields are
 * copied. nf must be the kind's field count (meta: 1 or 2). */
void trace_addv(trace *t, tr_kind k, uint64_t count, int nf, const char *const *f);
void trace_add(trace *t, tr_kind k, uint64_t count, int nf, ...);

/* Shortcuts used by the tracers. result: 0 (ok) or an errno. */
void trace_syscall(trace *t, const char *arch, const char *name, uint64_t n);
void trace_file(trace *t, const char *path, const char *perm, int result);
void trace_exec(trace *t, const char *path, int result);
void trace_meta(trace *t, const char *name, const char *value, uint64_t n);

/* Sum of the counts of records of kind k (and first field f0 if not NULL). */
uint64_t trace_total(const trace *t, tr_kind k, const char *f0);

void trace_merge(trace *dst, const trace *src);

/* Records sorted by kind then fields; caller frees the array (not records). */
tr_rec **trace_sorted(const trace *t, size_t *n);

void trace_write(const trace *t, buf *out);
/* Parse text into t (merging). name: for messages. On error returns -1 and
 * sets *err to an allocated "name:line: message". */
int trace_parse(trace *t, const char *name, const char *text, size_t len, char **err);
/* trace_parse of a file ("-": stdin). A file that cannot be opened or read
 * (missing, a directory) returns TRACE_EIO with *err "path: reason", so
 * that callers exit 3 (I/O), not 1 (a malformed trace). */
#define TRACE_EIO (-2)
int trace_read(trace *t, const char *path, char **err);

const char *tr_kind_name(tr_kind k);
/* "ok" or the errno name; unknown: "E<num>". Static or interned string. */
const char *tr_result_name(int err);
/* errno for a result name; 0 for "ok"; -1 if unknown. */
int tr_result_parse(const char *s);

#endif
