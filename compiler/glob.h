/* glob.h - path globs with AppArmor's meaning; the definition the oracle uses.
 *
 *   *      any run of characters except '/'
 *   **     any run of characters, '/' included
 *   ?      one character except '/'
 *   [abc] [a-z] [^abc]   one character of (not of) the class, never '/'
 *   {a,b}  alternatives (may nest, may be empty: {,/var})
 *   \c     the character c literally
 * As in AppArmor, a `*` or `**` that directly follows a '/' matches at least
 * one character: "/dir/*" and "/dir/**" do not match "/dir/" itself.
 * Paths are compared byte for byte (no normalisation): callers give the
 * path the kernel would see (absolute, no "//", "/./" or "/../").
 *
 * Promises: glob_match() is total and terminates on every input (memoised,
 * O(len(glob) * len(path)) per alternative expansion).
 */
#ifndef POLC_GLOB_H
#define POLC_GLOB_H

#include <stdbool.h>
#include <stddef.h>

/* NULL if valid, else a static message naming what is wrong; *errpos is the
 * byte offset in glob where the problem was found. */
const char *glob_validate(const char *glob, size_t *errpos);

bool glob_match(const char *glob, const char *path);

/* True if glob contains no special characters (a literal path). */
bool glob_is_literal(const char *glob);

#endif
