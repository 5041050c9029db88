/* fuzz_bundle.c - the BPF bundle reader and validator on arbitrary bytes;
 * a bundle that validates is also evaluated and printed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "backends/bpf/bundle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bpf_bundle b;
	memset(&b, 0, sizeof b);
	if (!bpfb_parse(data, size, &b)) {
		buf out;
		buf_init(&out);
		bpfb_json(&b, &out);
		buf_free(&out);
		bpfb_free(&b);
	}
	/* The checksum stops random bytes early: also feed the words to the
	 * validator directly, and evaluate what it accepts. */
	size_t nw = size / 4;
	uint32_t *w = malloc(nw * 4 + 4);
	memcpy(w, data, nw * 4);
	if (!bpfb_validate(w, nw)) {
		static const char *const paths[] = { "/", "/etc/passwd", "/proc/1/root/x", "/a/b/c/d" };
		for (int i = 0; i < 4; i++) {
			ir_event ev;
			memset(&ev, 0, sizeof ev);
			ev.domain = IR_FILE;
			ev.u.file.path = paths[i];
			ev.u.file.perm = IR_PERM_READ;
			bpfb_eval(w, nw, &ev);
			ev.domain = IR_CAPABILITY;
			ev.u.cap.cap = i * 7;
			bpfb_eval(w, nw, &ev);
		}
	}
	free(w);
	return 0;
}
