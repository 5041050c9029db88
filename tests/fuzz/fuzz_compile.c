/* fuzz_compile.c - policy text → parser → compiler → every backend and
 * format, all in memory. Nothing may crash, leak or hang. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/compile.h"
#include "backends/backend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 16)
		return 0;
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	diag_ctx d;
	diag_init(&d);
	compile_opts o = { NULL, 0, false, 8, false };
	ir_program prog;
	if (polc_compile_text("fuzz.pol", text, &o, &d, &prog) == 0) {
		for (size_t i = 0; i < prog.npolicies && i < 1; i++)
			for (size_t k = 0; backends_all[k]; k++) {
				const backend *b = backends_all[k];
				for (size_t f = 0; b->formats[f]; f++) {
					backend_opts bo = { b->formats[f], true, NULL, "fuzz" };
					buf out;
					buf_init(&out);
					diag_ctx bd;
					diag_init(&bd);
					b->emit(prog.policies[i], &bo, &out, &bd);
					diag_free(&bd);
					buf_free(&out);
				}
			}
		ir_program_free(&prog);
	}
	diag_free(&d);
	free(text);
	return 0;
}
