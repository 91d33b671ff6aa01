UNIT_TESTS += test_format
test_format_SRCS := tests/format/test_format.c tests/format/synth.c
TEST_PROGS += tr-synth
tr-synth_SRCS := tests/format/tr-synth.c tests/format/synth.c tests/format/dump.c
CLI_TEST_DIRS += tests/format/cases
UNIT_TESTS += test_fuzz_replay
test_fuzz_replay_SRCS := tests/format/fuzz_replay.c tests/format/fuzz_reader.c

# make fuzz [FUZZ_SECONDS=60]: libFuzzer with ASan+UBSan on the reader; new
# inputs that grow coverage are kept in tests/format/fuzz-corpus (commit the
# crashes there, renamed crash-*, once fixed: test_fuzz_replay runs them).
FUZZ_SECONDS ?= 60
fuzz:
	@mkdir -p build/fuzz /tmp/tr-fuzz-corpus
	clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -Iformat \
	  tests/format/fuzz_reader.c format/*.c -o build/fuzz/fuzz_reader $(ZSTD_LIBS)
	cp -n spec/vectors/pass/*.tr spec/vectors/fail/*.tr tests/format/fuzz-corpus/* /tmp/tr-fuzz-corpus/ 2>/dev/null || true
	build/fuzz/fuzz_reader -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -artifact_prefix=build/fuzz/ \
	  /tmp/tr-fuzz-corpus
