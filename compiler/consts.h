/* consts.h - symbolic constants (CLONE_*, O_*, AF_*, SOCK_*, E*, PER_*,
 * CAP_*, BPF_*, ...) read from the system headers at build time
 * (compiler/gen-consts.sh), and the capability and errno name tables
 * derived from them.
 * Promises: polc_consts is sorted by name (binary search); nothing here is
 * typed by hand.
 */
#ifndef POLC_CONSTS_H
#define POLC_CONSTS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
	const char *name;
	long long value;
} polc_const;

extern const polc_const polc_consts[];
extern const size_t polc_nconsts;

bool consts_lookup(const char *name, long long *value);

/* Capabilities: "sys_admin" (lowercase, without CAP_) <-> number. */
int cap_from_name(const char *name);           /* -1 if unknown */
const char *cap_name(int cap);                 /* NULL if unknown */
int cap_last(void);                            /* CAP_LAST_CAP */
/* errno: "EACCES" <-> 13. */
int errno_from_name(const char *name);         /* -1 if unknown */
const char *errno_name(int err);               /* NULL if unknown */

/* Candidate lists for "did you mean" (NULL-terminated, static). */
const char *const *cap_names(size_t *n);
const char *const *const_names(size_t *n);

#endif
