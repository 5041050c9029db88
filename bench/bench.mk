# bench.mk - polc bench's micro benchmark program and `make bench`.
# Included by the top Makefile. The micro program is built without
# sanitizers (it runs under seccomp filters and LSM policies that deny what
# their runtimes need) and beside polc, where `polc bench` looks for it.
# Static: in the lab its execl and spawn then read nothing over 9p, whose
# host-side latency would make the guest's deterministic (icount) time vary.
BENCH_MICRO := $(BUILD)/bench/micro
TEST_EXTRA += $(BENCH_MICRO)
LDLIBS += -lm
all: $(BENCH_MICRO)

$(BENCH_MICRO): bench/micro.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -static -o $@ $<

# The full benchmark, the lab included; writes the committed report.
# Not part of `make test` (benchmarks are measurements, not timed tests).
#   make bench                      full run (~1 h 45 min on a 2-core VM:
#                                   native ~35 min with the soak, lab ~65 min)
#   make bench BENCH_ARGS=--quick   under 10 minutes, no lab
BENCH_ARGS ?= --vm
BENCH_OUT ?= bench
bench: $(POLC) $(BENCH_MICRO)
	$(POLC) bench $(BENCH_ARGS) -o $(BENCH_OUT)/RESULTS.md --json $(BENCH_OUT)/results.json \
	  --chart $(BENCH_OUT)/results.svg --raw $(BENCH_OUT)/results.raw
