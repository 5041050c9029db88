/* k8s.c - Kubernetes objects as YAML (k8s.h). */
#include "k8s.h"

#include <ctype.h>
#include <string.h>

void k8s_doc_init(k8s_doc *d, const char *comment)
{
	memset(d, 0, sizeof *d);
	d->comment = comment;
	/* implicit start and end: "---" is written between documents here */
	if (!yaml_document_initialize(&d->doc, NULL, NULL, NULL, 1, 1))
		abort();
}

void k8s_doc_free(k8s_doc *d)
{
	yaml_document_delete(&d->doc);
}

static int checked(int id)
{
	if (!id)
		abort();       /* libyaml could not allocate: as xmalloc does */
	return id;
}

int k8s_map(k8s_doc *d)
{
	return checked(yaml_document_add_mapping(&d->doc, NULL, YAML_BLOCK_MAPPING_STYLE));
}

int k8s_seq(k8s_doc *d)
{
	/* the style is settled when the document is written (scalars: flow) */
	return checked(yaml_document_add_sequence(&d->doc, NULL, YAML_BLOCK_SEQUENCE_STYLE));
}

static bool reserved_word(const char *s)
{
	/* YAML 1.1 and 1.2 booleans and nulls: plain, they are not strings */
	static const char *const w[] = { "y", "yes", "n", "no", "true", "false", "on", "off",
					 "null", NULL };
	for (size_t i = 0; w[i]; i++)
		if (!strcasecmp(s, w[i]))
			return true;
	return false;
}

/* Can s stand plain everywhere (flow sequences included) and still read as
 * this string? A conservative test: an identifier-like or path-like word. */
static bool plain_safe(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_' || *s == '/'))
		return false;
	for (const char *c = s; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_./-*?+@", *c))
			return false;
	return !reserved_word(s);
}

static int scalar(k8s_doc *d, const char *s, yaml_scalar_style_t st)
{
	return checked(yaml_document_add_scalar(&d->doc, NULL, (yaml_char_t *)s, (int)strlen(s), st));
}

int k8s_str(k8s_doc *d, const char *s)
{
	return scalar(d, s, plain_safe(s) ? YAML_PLAIN_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

int k8s_plain(k8s_doc *d, const char *text)
{
	return scalar(d, text, YAML_PLAIN_SCALAR_STYLE);
}

int k8s_int(k8s_doc *d, long long v)
{
	char t[32];
	snprintf(t, sizeof t, "%lld", v);
	return k8s_plain(d, t);
}

int k8s_bool(k8s_doc *d, bool v)
{
	return k8s_plain(d, v ? "true" : "false");
}

void k8s_put(k8s_doc *d, int map, const char *key, int value)
{
	if (!yaml_document_append_mapping_pair(&d->doc, map, k8s_str(d, key), value))
		abort();
}

void k8s_push(k8s_doc *d, int seq, int item)
{
	if (!yaml_document_append_sequence_item(&d->doc, seq, item))
		abort();
}

/* ---- names ---- */

/* RFC 1123 label (namespaces): [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63. */
static bool dns_label(const char *s, size_t n)
{
	if (!n || n > 63 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-'))
			return false;
	return true;
}

/* RFC 1123 subdomain (object names): labels joined by '.', at most 253. */
static bool dns_subdomain(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 253)
		return false;
	for (const char *a = s;;) {
		const char *dot = strchr(a, '.');
		size_t len = dot ? (size_t)(dot - a) : strlen(a);
		if (!dns_label(a, len))
			return false;
		if (!dot)
			return true;
		a = dot + 1;
	}
}

static const char *given_ns, *given_name;

void k8s_set_names(const char *ns, const char *name)
{
	given_ns = ns;
	given_name = name;
}

static k8s_spo_version spo_version = K8S_SPO_V1;

int k8s_set_spo_version(const char *v)
{
	static const struct { const char *s; k8s_spo_version v; } known[] = {
		{ "1", K8S_SPO_V1 }, { "1.0", K8S_SPO_V1 }, { "v1", K8S_SPO_V1 },
		{ "0.8", K8S_SPO_V0_8 }, { "0.8.4", K8S_SPO_V0_8 }, { "v0.8", K8S_SPO_V0_8 },
	};
	spo_version = K8S_SPO_V1;
	if (!v)
		return 0;
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (!strcmp(v, known[i].s)) {
			spo_version = known[i].v;
			return 0;
		}
	return -1;
}

k8s_spo_version k8s_spo_version_in_use(void)
{
	return spo_version;
}

int k8s_names(const ir_policy *p, bool namespaced, const char **name, const char **ns,
	      diag_ctx *d)
{
	*name = given_name ? given_name : p->name;
	*ns = given_ns ? given_ns : "default";
	int rc = 0;
	if (!namespaced) {
		*ns = NULL;
		if (given_ns) {
			diag_error(d, src_loc_none(), "--namespace: the object is cluster-scoped "
				   "in SPO v1 (only the SeccompProfile of --spo-version 0.8 has "
				   "a namespace)");
			rc = -1;
		}
	}
	if (!dns_subdomain(*name)) {
		diag_error(d, given_name ? src_loc_none() : p->loc,
			   "'%s' is not a Kubernetes object name (lower-case letters, digits, '-' "
			   "and '.', at most 253); give one with --name", *name);
		rc = -1;
	}
	if (*ns && !dns_label(*ns, strlen(*ns))) {
		diag_error(d, src_loc_none(), "--namespace '%s' is not a Kubernetes namespace "
			   "(lower-case letters, digits and '-', at most 63)", *ns);
		rc = -1;
	}
	return rc;
}

int k8s_object(k8s_doc *d, const char *api, const char *kind, const char *name,
	       const char *ns, const ir_policy *p, const backend_opts *o, int *spec)
{
	int root = k8s_map(d), meta = k8s_map(d), ann = k8s_map(d);
	k8s_put(d, root, "apiVersion", k8s_str(d, api));
	k8s_put(d, root, "kind", k8s_str(d, kind));
	k8s_put(d, meta, "name", k8s_str(d, name));
	if (ns)
		k8s_put(d, meta, "namespace", k8s_str(d, ns));
	/* provenance where the cluster keeps it; the header comments are lost
	 * once the object is applied */
	char gen[64];
	snprintf(gen, sizeof gen, "polc %s", o && o->polc_version ? o->polc_version : "?");
	k8s_put(d, ann, "polc/generated-by", k8s_str(d, gen));
	k8s_put(d, ann, "polc/policy", k8s_str(d, p->name ? p->name : "?"));
	char hash[IR_SOURCE_HASH_SIZE];
	k8s_put(d, ann, "polc/source-sha256", k8s_str(d, ir_source_hash(p, hash)));
	k8s_put(d, meta, "annotations", ann);
	k8s_put(d, root, "metadata", meta);
	*spec = k8s_map(d);
	k8s_put(d, root, "spec", *spec);
	return root;
}

void k8s_security_context(k8s_doc *d, const char *seccomp_localhost,
			  const char *apparmor_profile)
{
	int root = k8s_map(d), sc = k8s_map(d);
	if (seccomp_localhost) {
		int s = k8s_map(d);
		k8s_put(d, s, "type", k8s_str(d, "Localhost"));
		k8s_put(d, s, "localhostProfile", k8s_str(d, seccomp_localhost));
		k8s_put(d, sc, "seccompProfile", s);
	}
	if (apparmor_profile) {
		int a = k8s_map(d);
		k8s_put(d, a, "type", k8s_str(d, "Localhost"));
		k8s_put(d, a, "localhostProfile", k8s_str(d, apparmor_profile));
		k8s_put(d, sc, "appArmorProfile", a);
	}
	k8s_put(d, root, "securityContext", sc);
}

bool k8s_format_wants_snippet(const backend_opts *o)
{
	return o && o->format && !strcmp(o->format, "k8s");
}

/* ---- writing ---- */

static int to_buf(void *data, unsigned char *bytes, size_t n)
{
	buf_put(data, bytes, n);
	return 1;
}

/* Scalar sequences in flow style: `names: [read, write]`. */
static void settle_styles(yaml_document_t *doc)
{
	for (yaml_node_t *n = doc->nodes.start; n < doc->nodes.top; n++) {
		if (n->type != YAML_SEQUENCE_NODE)
			continue;
		bool scalars = n->data.sequence.items.start < n->data.sequence.items.top;
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     i < n->data.sequence.items.top; i++)
			if (yaml_document_get_node(doc, *i)->type != YAML_SCALAR_NODE)
				scalars = false;
		n->data.sequence.style = scalars ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE;
	}
}

static int dump(k8s_doc *k, buf *out)
{
	yaml_emitter_t e;
	if (!yaml_emitter_initialize(&e))
		return -1;
	yaml_emitter_set_output(&e, to_buf, out);
	yaml_emitter_set_unicode(&e, 1);
	yaml_emitter_set_indent(&e, 2);
	yaml_emitter_set_width(&e, 100);
	settle_styles(&k->doc);
	int ok = yaml_emitter_open(&e) && yaml_emitter_dump(&e, &k->doc) && yaml_emitter_close(&e) &&
		 yaml_emitter_flush(&e);
	/* yaml_emitter_dump() empties the document it writes */
	yaml_emitter_delete(&e);
	return ok ? 0 : -1;
}

int k8s_write(const backend *b, const ir_policy *p, const backend_opts *o,
	      const char *notes, k8s_doc *docs, size_t n, buf *out, diag_ctx *dg)
{
	backend_header(b, p, o, "# ", out);
	if (notes)
		buf_puts(out, notes);
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_puts(out, "---\n");
		if (docs[i].comment)
			buf_printf(out, "# %s\n", docs[i].comment);
		if (dump(&docs[i], out) < 0) {
			diag_error(dg, src_loc_none(), "writing YAML failed");
			return -1;
		}
	}
	return 0;
}
