/* artifact.h - built artifacts compared by meaning: `polc diff` on two
 * outputs and the drift gate `polc build --check FILE`.
 *
 * Takes: the bytes of two artifacts of one kind.
 * Gives: the differences as lines on out, and how many.
 *   OCI/Docker seccomp JSON: each read back with the OCI importer
 *     (import/import_oci.h) and compiled, then compared with ir_diff():
 *     the lines of `polc diff` (reordered or regrouped entries, other
 *     headers: equal).
 *   AppArmor profiles: the set of rule lines (comments, blank lines and
 *     order aside; the header is comments): "- RULE" / "+ RULE".
 *   BPF LSM bundles: recognized, not compared (their decisions name
 *     statements by source order): an error saying so.
 * Promises: -1 (with a diagnostic) when an artifact cannot be read as its
 *     kind; never a difference reported for order or provenance alone.
 */
#ifndef POLC_ARTIFACT_H
#define POLC_ARTIFACT_H

#include <stdbool.h>
#include "../base/diag.h"
#include "../base/util.h"

typedef enum { ART_NONE, ART_OCI, ART_APPARMOR, ART_BUNDLE } art_kind;

/* What the bytes are; ART_NONE: policy source or anything else. */
art_kind artifact_kind(const char *text, size_t len);
const char *artifact_kind_name(art_kind k);

/* Compare old and new (both of kind k); lines on out (json: irdiff's JSON
 * for OCI). Returns the number of differences, -1 when one cannot be read. */
int artifact_diff(art_kind k, const src_file *old_, const src_file *new_, bool json, buf *out,
		  diag_ctx *d);

#endif
