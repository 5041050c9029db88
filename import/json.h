/* json.h - JSON text straight into a libyaml document, without the YAML
 * scanner and without libyaml's document builder: OCI/Docker profiles are
 * JSON, and libyaml's general scanner and parser were most of what
 * importing one cost (Docker's default: 2.6 M of 4.3 M instructions,
 * callgrind), then its builder's allocations (a tag, a value and a child
 * stack per node: 1.4 M of 2.8 M). json_load_yaml's document is a few
 * blocks (nodes, one copy of the text holding every scalar, the children),
 * so it is freed by import_doc_free, never by yaml_document_delete.
 *
 * Takes: a whole input text (JSON or YAML; nothing is known yet).
 * Gives: when the text is one JSON value of the subset below, the document
 *        yaml_parser_load() gives for it: the same nodes in the same order
 *        (so the same ids), values, lengths, styles (strings double-quoted,
 *        numbers/true/false/null plain, flow sequences and mappings), default
 *        tags and start/end marks (line, column, index).
 * Promises: anything outside the subset -- not ASCII, a carriage
 *        return, an escape other than \" \\ \/ \b \f \n \r \t or a \u of a
 *        non-surrogate, non-NUL code point, a tab before or after the root
 *        value, a syntax error, nesting deeper than
 *        JSON_MAX_DEPTH, more than one value -- returns false with doc
 *        untouched: the caller loads the text with libyaml, which then
 *        reports its own errors as before. tests/unit/test_import_json.c
 *        compares both documents node by node.
 */
#ifndef POLC_IMPORT_JSON_H
#define POLC_IMPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#define JSON_MAX_DEPTH 256

/* A loaded document and the blocks it lives in (json_load_yaml's), or a
 * libyaml document (json is false, the blocks NULL). Read d.doc; free with
 * import_doc_free. */
typedef struct {
	yaml_document_t doc;
	bool json;                 /* built by json_load_yaml */
	char *values;              /* every scalar's bytes, NUL-terminated */
	yaml_node_item_t *items;   /* every sequence's items */
	yaml_node_pair_t *pairs;   /* every mapping's pairs */
} import_doc;

/* true: *d is loaded (free it with import_doc_free). */
bool json_load_yaml(const char *text, size_t len, import_doc *d);

/* The one way an importer loads its single document: json_load_yaml, else
 * libyaml. false: *problem (libyaml's, never NULL), *context (may be NULL)
 * and *mark say why, d untouched. */
bool json_or_yaml_load(const char *text, size_t len, import_doc *d,
		       const char **problem, const char **context, yaml_mark_t *mark);

/* Frees what json_or_yaml_load or json_load_yaml loaded. */
void import_doc_free(import_doc *d);

/* Are a and b the same document: node for node, type, tag, style, value
 * bytes, children and start/end marks? (The check of json_load_yaml()
 * against yaml_parser_load() in the unit test and the import fuzz target.) */
bool json_yaml_docs_equal(const yaml_document_t *a, const yaml_document_t *b);

#endif
