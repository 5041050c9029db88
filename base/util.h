/* util.h - allocation that cannot fail silently, a growable byte buffer,
 * and atomic file output.
 *
 * Promises: x* functions abort with a message on out-of-memory (a policy
 * compiler has no useful recovery from it); a block of 2 MiB or more is
 *        2 MiB-aligned and advised for transparent huge pages before it is
 *        touched (fresh memory in 4 KiB pages is a large policy's main
 *        cost: one fault per page); buf_* never truncate;
 * write_file_atomic() leaves either the old file or the complete new one
 *        (regular files; other nodes are written through, never replaced).
 */
#ifndef POLC_UTIL_H
#define POLC_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* qsort that accepts an empty array with a NULL base (qsort itself may
 * not be passed NULL, even for zero elements). */
void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* Built with AddressSanitizer (gcc or clang): allocation shortcuts that
 * would hide overflows from it are off. */
#if defined(__SANITIZE_ADDRESS__)
#define POLC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POLC_ASAN 1
#endif
#endif

/* Grow an array *v of *cap elements of `size` bytes to hold `need`
 * (capacity doubling from 8). */
void xgrow(void *v, size_t *cap, size_t need, size_t size);
/* xgrow() doubling from `first`: for the many short lists of one syntax
 * tree (most hold one element; 8 each made the front end's memory, and so
 * its page faults, several times larger). */
void xgrow_from(void *v, size_t *cap, size_t need, size_t size, size_t first);

typedef struct {
	char *data;
	size_t len, cap;
} buf;

void buf_init(buf *b);
void buf_free(buf *b);
void buf_put(buf *b, const void *p, size_t n);
void buf_puts(buf *b, const char *s);
/* v in decimal, as "%lld" writes it, without the formatter (a line per
 * statement of a large policy: file:line:col, statement numbers). */
void buf_put_dec(buf *b, long long v);
void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(buf *b, const char *fmt, va_list ap);
/* s (n bytes; buf_json_str: up to its NUL) as a JSON string with its quotes:
 * '"' and '\\' escaped, \n and \t as such, other control bytes as \u00XX,
 * well-formed UTF-8 as it is, every byte that is not part of well-formed
 * UTF-8 as \ufffd (JSON text is UTF-8: the output always parses).
 * The one JSON string escaper of polc: every JSON string goes through it. */
void buf_json_strn(buf *b, const char *s, size_t n);
void buf_json_str(buf *b, const char *s);
/* NUL-terminate without counting it in len; returns data. */
char *buf_cstr(buf *b);
/* Append the whole file at path to b. 0, or -1 with errno (b may then hold
 * part of it). */
int buf_read_file(buf *b, const char *path);

/* The one way every command writes an output file. A regular file (or a
 * new one) is replaced via a temp file in the same directory + rename; "-"
 * is stdout; a character or block device, FIFO or socket is opened and
 * written through, never replaced; a symlink is resolved and its target
 * written by these rules (a dangling one fails, ENOENT); a directory fails
 * with EISDIR. Returns 0, or -1 with errno set. */
int write_file_atomic(const char *path, const void *data, size_t len);

/* SHA-256 of data as 64 lowercase hex digits + NUL. */
void sha256_hex(const void *data, size_t len, char out[65]);
/* The same of the concatenation of n parts, none of them copied. */
void sha256_hex_parts(const void *const *data, const size_t *len, size_t n, char out[65]);

/* Where polc's data lives (the lab scripts tests/vm/, bench/ scripts,
 * profiles/, the rule library rules/): the first of $POLC_SRC, the
 * installed tree beside this binary (BINDIR/../share/polc, `make install`),
 * and the source tree it was built from, that holds the relative path
 * `probe`. NULL if none does. Static storage. */
const char *polc_data_dir(const char *probe);

/* The first cgroup v2 mount point (/proc/self/mounts) into out: 0, or -1
 * when none is mounted. Where polc run --target bpf and polc bench make
 * the cgroups they confine or measure in. */
int cgroup2_mount(char *out, size_t n);

/* Write the string s whole to an existing kernel control file
 * (cgroup.procs, cgroup.kill, ...), in one write(2): such a file takes
 * each write as one command. 0, or -1 with errno. */
int write_control_file(const char *path, const char *s);

#endif
