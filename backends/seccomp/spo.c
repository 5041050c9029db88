/* spo.c - the plan as a Security Profiles Operator SeccompProfile
 * (security-profiles-operator.x-k8s.io/v1, cluster-scoped; v1beta1 and
 * namespaced with --spo-version 0.8: see k8s.h), formats "spo" and "k8s".
 *
 * The spec is the OCI profile of oci.c, read back with libyaml and copied
 * into the object, so the two formats cannot drift apart. Two keys stay
 * behind, because SPO's spec has no field for them and the API server
 * refuses (strict validation) or drops unknown fields: "x-polc" (its lines
 * become metadata annotations and header comments) and "defaultErrnoRet"
 * (the operator writes profiles without it, so the default action's errno
 * is runc's EPERM: this only touches syscalls polc's table does not know,
 * and the header says so). SPO stores argument values as int64: a value
 * above 2^63-1 is refused with the policy's location.
 * "k8s" adds the pod securityContext selecting the profile where the
 * operator installs it under the kubelet's seccomp root: operator/NAME.json
 * (SPO v1), operator/NAMESPACE/NAME.json (SPO v0.8).
 */
#include "seccomp.h"
#include "../k8s.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	yaml_document_t *src;
	k8s_doc *dst;
	const ir_policy *p;
	diag_ctx *d;
	int nerr;
} copier;

static yaml_node_t *src_node(copier *c, int id)
{
	return yaml_document_get_node(c->src, id);
}

/* Integers SPO keeps as int64 (value, valueTwo); JSON numbers are plain. */
static void check_int64(copier *c, const char *key, const yaml_node_t *n)
{
	if (strcmp(key, "value") && strcmp(key, "valueTwo"))
		return;
	const char *s = (const char *)n->data.scalar.value;
	errno = 0;
	unsigned long long v = strtoull(s, NULL, 10);
	if (errno || v > (unsigned long long)INT64_MAX) {
		diag_error(c->d, c->p->loc, "seccomp spo: argument value %s does not fit SPO's "
			   "SeccompProfile, which stores %s as a signed 64-bit integer", s, key);
		c->nerr++;
	}
}

static int copy_node(copier *c, int id, const char *key);

static int copy_scalar(copier *c, yaml_node_t *n, const char *key)
{
	const char *s = (const char *)n->data.scalar.value;
	if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		if (key)
			check_int64(c, key, n);
		return k8s_plain(c->dst, s);      /* a JSON number */
	}
	return k8s_str(c->dst, s);
}

static bool dropped(const char *key)
{
	return !strcmp(key, "x-polc") || !strcmp(key, "defaultErrnoRet");
}

static int copy_node(copier *c, int id, const char *key)
{
	yaml_node_t *n = src_node(c, id);
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return copy_scalar(c, n, key);
	case YAML_SEQUENCE_NODE: {
		int s = k8s_seq(c->dst);
		for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++)
			k8s_push(c->dst, s, copy_node(c, *i, key));
		return s;
	}
	case YAML_MAPPING_NODE: {
		int m = k8s_map(c->dst);
		for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
			const char *k = (const char *)src_node(c, pr->key)->data.scalar.value;
			if (!dropped(k))
				k8s_put(c->dst, m, k, copy_node(c, pr->value, k));
		}
		return m;
	}
	default:
		break;
	}
	return k8s_plain(c->dst, "null");
}

/* Copy the OCI profile's members into spec. */
static int fill_spec(const ir_policy *p, const char *json, size_t len, k8s_doc *doc, int spec,
		     diag_ctx *d)
{
	yaml_parser_t ps;
	yaml_document_t src;
	yaml_parser_initialize(&ps);
	yaml_parser_set_input_string(&ps, (const unsigned char *)json, len);
	int ok = yaml_parser_load(&ps, &src);
	yaml_parser_delete(&ps);
	if (!ok) {
		diag_error(d, src_loc_none(), "seccomp spo: cannot read back the OCI profile");
		return -1;
	}
	copier c = { &src, doc, p, d, 0 };
	yaml_node_t *root = yaml_document_get_root_node(&src);
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
		const char *k = (const char *)src_node(&c, pr->key)->data.scalar.value;
		if (!dropped(k))
			k8s_put(doc, spec, k, copy_node(&c, pr->value, k));
	}
	yaml_document_delete(&src);
	return c.nerr ? -1 : 0;
}

static const char *const default_errno_note =
	"# SPO's SeccompProfile has no defaultErrnoRet: syscalls unknown to polc's table\n"
	"# fail with the runtime's default errno (EPERM) instead of ENOSYS, except those\n"
	"# newer than every listed syscall, which runc's ENOSYS stub answers.\n";

int sc_emit_spo(const ir_policy *p, const sc_plan *pl, const backend_opts *o, buf *out,
		diag_ctx *d)
{
	const char *name, *ns;
	bool v1 = k8s_spo_version_in_use() == K8S_SPO_V1;
	if (k8s_names(p, !v1, &name, &ns, d) < 0)
		return -1;
	buf json;
	buf_init(&json);
	int rc = sc_emit_oci(p, pl, o, &json, d);
	if (rc == 0)
		rc = sc_oci_check_size(p, json.data, json.len, true, d);
	k8s_doc docs[2];
	size_t n = 0;
	if (rc == 0) {
		int spec;
		k8s_doc_init(&docs[n], "SeccompProfile: the operator installs it on every node");
		k8s_object(&docs[n], v1 ? K8S_SPO_SECCOMP_API_V1 : K8S_SPO_SECCOMP_API_V0_8,
			   "SeccompProfile", name, ns, p, o, &spec);
		rc = fill_spec(p, json.data, json.len, &docs[n++], spec, d);
	}
	if (rc == 0 && k8s_format_wants_snippet(o)) {
		/* where the operator writes it, relative to the kubelet's seccomp root */
		size_t nl = strlen(name);
		bool has_ext = nl > 5 && !strcmp(name + nl - 5, ".json");
		char *path = v1 ? xasprintf("operator/%s%s", name, has_ext ? "" : ".json")
				: xasprintf("operator/%s/%s%s", ns, name, has_ext ? "" : ".json");
		k8s_doc_init(&docs[n], "Pod securityContext selecting it: merge into the pod spec or a "
			     "workload's pod template (not an object to apply)");
		k8s_security_context(&docs[n++], path, NULL);
		free(path);
	}
	if (rc == 0)
		rc = k8s_write(&backend_seccomp, p, o,
			       pl->def.verdict == IR_DENY ? default_errno_note : NULL, docs, n, out, d);
	for (size_t i = 0; i < n; i++)
		k8s_doc_free(&docs[i]);
	buf_free(&json);
	return rc;
}
