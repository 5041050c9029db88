/* glob.h - path globs with AppArmor's meaning; the definition the oracle uses.
 *
 *   *      any run of characters except '/'
 *   **     any run of characters, '/' included
 *   ?      one character except '/'
 *   [abc] [a-z] [^abc]   one character of (not of) the class, never '/'
 *   {a,b}  alternatives (may nest, may be empty: {,/var})
 *   \c     the character c literally
 * As in AppArmor, a `*` or `**` whose match would start right after a '/'
 * of the path matches at least one character: "/dir/" followed by * or by **
 * does not match "/dir/" itself. Every alternative must be an absolute,
 * canonical path: no "//", no "." or ".." segment (glob_validate refuses
 * them, so every backend sees one spelling of each path; LANGUAGE.md).
 * Braces nest at most GLOB_MAX_NESTING deep.
 * Paths are compared byte for byte (no normalisation): callers give the
 * path the kernel would see (absolute, no "//", "/./" or "/../").
 *
 * Promises: glob_match() is total and terminates on every input: braces are
 * expanded first (at most GLOB_MAX_EXPANSIONS alternatives, a validation
 * error beyond), then each alternative is matched by memoised dynamic
 * programming in O(len(alternative) * len(path)).
 */
#ifndef POLC_GLOB_H
#define POLC_GLOB_H

#include <stdbool.h>
#include <stddef.h>

#define GLOB_MAX_EXPANSIONS 4096
#define GLOB_MAX_NESTING 32      /* braces inside braces */

/* NULL if valid, else a static message naming what is wrong; *errpos is the
 * byte offset in glob where the problem was found. */
const char *glob_validate(const char *glob, size_t *errpos);

bool glob_match(const char *glob, const char *path);

/* True if glob contains no special characters (a literal path). */
bool glob_is_literal(const char *glob);

/* Expand braces: calls fn once per alternative (a brace-free glob). Returns
 * the count, or -1 if the glob is invalid or expands past the limit. */
int glob_expand(const char *glob, void (*fn)(const char *alt, void *ctx), void *ctx);

#endif
