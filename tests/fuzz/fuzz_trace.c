/* fuzz_trace.c - the trace reader on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>
#include "tracer/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	trace t;
	trace_init(&t);
	char *err = NULL;
	if (trace_parse(&t, "fuzz.trace", (const char *)data, size, &err) == 0) {
		buf out;
		buf_init(&out);
		trace_write(&t, &out);
		buf_free(&out);
	}
	free(err);
	trace_free(&t);
	return 0;
}
