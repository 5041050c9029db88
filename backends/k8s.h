/* k8s.h - Kubernetes objects as YAML, for the "spo" and "k8s" formats of
 * the seccomp and AppArmor backends (Security Profiles Operator objects and
 * the pod securityContext that selects them).
 *
 * Takes: nodes built with the helpers below into libyaml documents.
 * Gives: the documents as one YAML stream in a buf: the artifact header as
 *        comments, then each document (a comment line before it, "---"
 *        between them), written by libyaml's emitter.
 * Promises: byte-identical output for the same documents; every string
 *        scalar that YAML could read as something else (a number, a
 *        boolean, null, a flow indicator) is double-quoted; sequences of
 *        scalars are written in flow style, everything else in block style.
 *        Object names are checked against Kubernetes' rules before use.
 */
#ifndef POLC_K8S_H
#define POLC_K8S_H

#include <yaml.h>
#include "backend.h"

/* SPO's API versions (security-profiles-operator.x-k8s.io): the storage
 * versions of its released CRDs (../shared/peers/spo/). SPO v1 (and every
 * release since v0.9): SeccompProfile v1 and AppArmorProfile v1, both
 * cluster-scoped; the pod selects a SeccompProfile as operator/NAME.json.
 * SPO v0.8 (`--spo-version 0.8`): SeccompProfile v1beta1, namespaced,
 * selected as operator/NAMESPACE/NAME.json; polc writes no AppArmorProfile
 * for it (its form before v1 is not the abstract one polc knows). */
#define K8S_SPO_GROUP "security-profiles-operator.x-k8s.io"
#define K8S_SPO_SECCOMP_API_V1 K8S_SPO_GROUP "/v1"
#define K8S_SPO_SECCOMP_API_V0_8 K8S_SPO_GROUP "/v1beta1"
#define K8S_SPO_APPARMOR_API K8S_SPO_GROUP "/v1"

typedef enum { K8S_SPO_V1, K8S_SPO_V0_8 } k8s_spo_version;

/* `polc build --spo-version V`: "1" (the default; "1.0" and "v1" too) or
 * "0.8" ("0.8.4", "v0.8"). Returns -1 for any other version. Process-wide,
 * as k8s_set_names(). */
int k8s_set_spo_version(const char *v);
k8s_spo_version k8s_spo_version_in_use(void);

typedef struct {
	yaml_document_t doc;
	const char *comment;       /* one comment line before it (may be NULL) */
} k8s_doc;

void k8s_doc_init(k8s_doc *d, const char *comment);
void k8s_doc_free(k8s_doc *d);

/* Node constructors; each returns the node id. */
int k8s_map(k8s_doc *d);
int k8s_seq(k8s_doc *d);
int k8s_str(k8s_doc *d, const char *s);
int k8s_int(k8s_doc *d, long long v);
int k8s_bool(k8s_doc *d, bool v);
/* The number as written (JSON numbers copied through), plain. */
int k8s_plain(k8s_doc *d, const char *text);
void k8s_put(k8s_doc *d, int map, const char *key, int value);
void k8s_push(k8s_doc *d, int seq, int item);

/* The objects' name and namespace for the next builds (`polc build --name
 * --namespace`); NULL: the policy's name, namespace "default". The strings
 * must outlive the builds. Process-wide, as the command line is: backend_opts
 * is initialized positionally in places this format does not own. */
void k8s_set_names(const char *ns, const char *name);

/* The name and namespace of the objects, checked: an error (returns -1)
 * names the rule a bad one breaks. For a cluster-scoped object (namespaced
 * false) *ns is NULL and a given --namespace is an error. */
int k8s_names(const ir_policy *p, bool namespaced, const char **name, const char **ns,
	      diag_ctx *d);

/* A new object: apiVersion, kind and metadata (name, namespace unless ns
 * is NULL, annotations with the policy's provenance). Returns the root
 * mapping; *spec gets the empty "spec" mapping. */
int k8s_object(k8s_doc *d, const char *api, const char *kind, const char *name,
	       const char *ns, const ir_policy *p, const backend_opts *o, int *spec);

/* The pod securityContext document selecting a profile: seccomp
 * (localhost path, as SPO installs it) or AppArmor (profile name). */
void k8s_security_context(k8s_doc *d, const char *seccomp_localhost,
			  const char *apparmor_profile);

/* Is this a "k8s" format (objects plus the securityContext snippet)? */
bool k8s_format_wants_snippet(const backend_opts *o);

/* Append the stream: header (backend_header as "# " comments, then the
 * extra comment lines in notes, may be NULL), then the documents. */
int k8s_write(const backend *b, const ir_policy *p, const backend_opts *o,
	      const char *notes, k8s_doc *docs, size_t n, buf *out, diag_ctx *dg);

#endif
