/* replay.c - run a fuzz target over files (the committed corpus), without
 * libFuzzer: `make test` replays every corpus input as a regression test,
 * under ASan+UBSan in `make asan`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 1;
		}
		fseek(f, 0, SEEK_END);
		long n = ftell(f);
		rewind(f);
		uint8_t *data = malloc(n > 0 ? (size_t)n : 1);
		size_t got = fread(data, 1, (size_t)n, f);
		fclose(f);
		LLVMFuzzerTestOneInput(data, got);
		free(data);
	}
	printf("replayed %d inputs\n", argc - 1);
	return 0;
}
