UNIT_TESTS += test_symbolize
test_symbolize_SRCS := tests/symbolize/test_symbolize.c tests/symbolize/selfsample.c $(SYM_SRCS)
test_symbolize_LIBS := $(SYM_LIBS)
CLI_TEST_DIRS += tests/symbolize/cases
TEST_PROGS += sym-dump
sym-dump_SRCS := tests/symbolize/sym-dump.c
UNIT_TESTS += test_sym_fuzz_replay
test_sym_fuzz_replay_SRCS := tests/symbolize/fuzz_replay_sym.c tests/symbolize/fuzz_unwind.c tests/symbolize/fuzz_session.c \
  tests/symbolize/selfsample.c $(SYM_SRCS)
test_sym_fuzz_replay_LIBS := $(SYM_LIBS)

# make fuzz-symbolize [FUZZ_SECONDS=60]: libFuzzer with ASan+UBSan on the
# stack-copy path (DWARF unwinding of corrupt registers and stacks), then on
# sessions fed arbitrary record sequences (fuzz_session.c), each FUZZ_SECONDS.  New
# inputs that grow coverage go to /tmp/tr-sym-fuzz-corpus; keep crashes in
# tests/symbolize/fuzz-corpus (renamed crash-*) once fixed.
.PHONY: fuzz-symbolize
fuzz-symbolize: $(B)/gen/model/syscalls_x86_64.h
	@mkdir -p build/fuzz /tmp/tr-sym-fuzz-corpus
	$(FUZZ_CC) tests/symbolize/fuzz_unwind.c tests/symbolize/selfsample.c $(SYM_SRCS) format/*.c model/*.c \
	  -o build/fuzz/fuzz_unwind $(SYM_LIBS) $(ZSTD_LIBS) $(MODEL_LIBS)
	cp -n tests/symbolize/fuzz-corpus/* /tmp/tr-sym-fuzz-corpus/ 2>/dev/null || true
	build/fuzz/fuzz_unwind -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 \
	  -artifact_prefix=build/fuzz/sym- /tmp/tr-sym-fuzz-corpus
	$(FUZZ_CC) -DFUZZ_SESSION_MAIN tests/symbolize/fuzz_session.c $(SYM_SRCS) format/*.c model/*.c \
	  -o build/fuzz/fuzz_session $(SYM_LIBS) $(ZSTD_LIBS) $(MODEL_LIBS)
	@mkdir -p /tmp/tr-sym-session-corpus
	cp -n tests/symbolize/fuzz-session-corpus/* /tmp/tr-sym-session-corpus/ 2>/dev/null || true
	build/fuzz/fuzz_session -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	  -artifact_prefix=build/fuzz/sym-session- /tmp/tr-sym-session-corpus
