# Fuzzing (libFuzzer, clang -fsanitize=fuzzer,address,undefined).
#   make fuzz FUZZ_SECONDS=N   build and run every target for N seconds each
#                              (FUZZ_SEED=0 for a random seed; default 1)
# The corpus (tests/fuzz/corpus/TARGET/) is also replayed by `make test`
# through tests/fuzz/replay.c, so every input kept there is a regression test.
FUZZ_TARGETS := compile trace bundle import
FUZZ_SECONDS ?= 60
FUZZ_SEED    ?= 1
FUZZ_BUILD   := build-fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all

# Replay binaries for the normal test run.
TEST_EXTRA += $(FUZZ_TARGETS:%=$(BUILD)/tests/replay_%)
$(BUILD)/tests/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< tests/fuzz/replay.c $(LIB) $(LDFLAGS) $(LDLIBS)

fuzz: check-deps
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=clang \
	  SAN="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" CFLAGS="-O1 -g" fuzz-bins
	@FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_SEED=$(FUZZ_SEED) sh tests/fuzz/run-fuzz.sh $(FUZZ_TARGETS)

fuzz-bins: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(LIB)
	@mkdir -p $(dir $@)
	clang $(CFLAGS) -I. -I$(BUILD) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $< $(LIB) $(LDLIBS)
