/* import/ - a front stage beside grammar/: other tools' profiles (OCI /
 * Docker seccomp JSON, vArmor) to polc source text, which then compiles
 * like any policy. Includes base/ and compiler/ only.
 *
 * source.h - the one writer of polc source text for every producer of it:
 * the importers (import/), polc gen and gen --update (tracer/gen.c).
 *
 * Takes: text to put into a string literal or a comment, and importers'
 *        entry points (src_import).
 * Gives: source text that grammar/lexer.l reads back as written.
 * Promises: src_string(s) lexes back to exactly s ('"' and '\\' escaped;
 *        the caller gives UTF-8 without control characters, as strings
 *        must be); src_comment never ends or leaves the comment it is in:
 *        every byte outside printable ASCII becomes '?' (a newline in a
 *        file name or a YAML value cannot inject a statement);
 *        src_import leaves out untouched when the importer fails.
 */
#ifndef POLC_IMPORT_SOURCE_H
#define POLC_IMPORT_SOURCE_H

#include <stdbool.h>
#include "../base/util.h"
#include "../base/diag.h"

/* s as a polc string literal, with its quotes. */
void src_string(buf *b, const char *s);
/* Is s a polc name ([A-Za-z_][A-Za-z0-9_-]*), as a policy or rule name? */
bool src_valid_name(const char *s);
/* s as text inside a '#' comment (no '#', no newline added). */
void src_comment(buf *b, const char *s);
/* "# Imported by polc import[ how] from BASENAME (sha256 HASH).\n" */
void src_import_header(buf *b, const char *how, const src_file *f);

/* Run an importer over f (NULL: reading it failed, errors are in d).
 * Returns its result; on failure (< 0) out is as it was. */
typedef int (*src_importer)(src_file *f, const void *opts, diag_ctx *d, buf *out);
int src_import(src_file *f, src_importer fn, const void *opts, diag_ctx *d, buf *out);

#endif
