/* fuzz_import.c - the JSON/YAML importers on arbitrary bytes: an OCI/Docker
 * seccomp profile, or a VarmorPolicy when the text mentions "VarmorPolicy"
 * (the kind the importer looks for). What an import writes is compiled too,
 * so the source it makes is read back through the front end. Whatever the
 * JSON fast path (import/json.c) takes, libyaml must read as the same
 * document: a difference aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/compile.h"
#include "import/import_oci.h"
#include "import/import_varmor.h"
#include "import/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 16)
		return 0;
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	import_doc a;
	yaml_document_t b;
	if (json_load_yaml(text, size, &a)) {
		yaml_parser_t p;
		yaml_parser_initialize(&p);
		yaml_parser_set_input_string(&p, data, size);
		if (!yaml_parser_load(&p, &b) || !json_yaml_docs_equal(&a.doc, &b))
			abort();
		yaml_parser_delete(&p);
		import_doc_free(&a);
		yaml_document_delete(&b);
	}
	/* a fixed target: the result must not depend on the machine */
	import_opts oo = { "fuzz", NULL, 0, 0, IR_ARCH_X86_64, 6, 1 };
	varmor_opts vo = { "fuzz", true, &oo };
	diag_ctx d;
	diag_init(&d);
	buf out;
	buf_init(&out);
	int r = strstr(text, "VarmorPolicy")
		? import_varmor_text("fuzz.yaml", text, size, &vo, &d, &out)
		: import_oci_text("fuzz.json", text, size, &oo, &d, &out);
	if (r == 0) {
		diag_ctx cd;
		diag_init(&cd);
		compile_opts co = { NULL, 0, false, 8, false };
		ir_program prog;
		if (polc_compile_text("imported.pol", buf_cstr(&out), &co, &cd, &prog) == 0)
			ir_program_free(&prog);
		diag_free(&cd);
	}
	buf_free(&out);
	diag_free(&d);
	free(text);
	return 0;
}
