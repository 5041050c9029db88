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
#include <stdint.h>

#define GLOB_MAX_EXPANSIONS 4096
#define GLOB_MAX_NESTING 32      /* braces inside braces */

/* NULL if valid, else a static message naming what is wrong; *errpos is the
 * byte offset in glob where the problem was found. */
const char *glob_validate(const char *glob, size_t *errpos);

bool glob_match(const char *glob, const char *path);

/* True if glob contains no special characters (a literal path). */
bool glob_is_literal(const char *glob);

/* One element of a brace-free glob: exactly one byte of set (many == 0:
 * a literal, '?', a class), or any run of bytes of set (many == 1: '*' is
 * every byte but '/', '**' every byte). With the rule above (a run right
 * after a '/' of the path takes at least one byte) this token list is the
 * whole meaning of an alternative: glob_match() and the BPF DFA builder
 * (backends/bpf/dfa.c) both read it, so they cannot drift apart. */
typedef struct {
	uint8_t many;
	uint8_t set[32];          /* bitmap of bytes */
} glob_tok;

/* Tokens of a valid brace-free alternative into out (room for strlen(alt)
 * tokens); returns their count. */
size_t glob_tokenize(const char *alt, glob_tok *out);

static inline bool glob_tok_has(const glob_tok *t, unsigned char c)
{
	return t->set[c >> 3] >> (c & 7) & 1;
}

/* Expand braces: calls fn once per alternative (a brace-free glob). Returns
 * the count, or -1 if the glob is invalid or expands past the limit. */
int glob_expand(const char *glob, void (*fn)(const char *alt, void *ctx), void *ctx);

#endif
