UNIT_TESTS += test_format
test_format_SRCS := tests/format/test_format.c tests/format/synth.c
TEST_PROGS += tr-synth
tr-synth_SRCS := tests/format/tr-synth.c tests/format/synth.c tests/format/dump.c
CLI_TEST_DIRS += tests/format/cases
# sniffing, frames, and readers on bytes already read plus an fd or a callback
UNIT_TESTS += test_input
test_input_SRCS := tests/format/test_input.c tests/format/synth.c tests/format/dump.c
# two threads writing and reading two traces at once, first thing in the process
UNIT_TESTS += test_threads
test_threads_SRCS := tests/format/test_threads.c tests/format/synth.c
test_threads_LIBS := -pthread
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

# tr-cat's renderers on hostile traces: the same corpus, replayed by make test
UNIT_TESTS += test_fuzz_cat_replay
test_fuzz_cat_replay_SRCS := tests/format/fuzz_replay.c tests/format/fuzz_cat.c \
	$(filter-out renderers/tr-cat/main.c,$(wildcard renderers/tr-cat/*.c))

fuzz-cat: $(B)/libcli.a
	@mkdir -p build/fuzz /tmp/tr-fuzz-cat-corpus
	clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -Iformat -Imodel -Icli \
	  $(call pc,--cflags,libtraceevent) tests/format/fuzz_cat.c format/*.c model/*.c cli/*.c \
	  $(filter-out renderers/tr-cat/main.c,$(wildcard renderers/tr-cat/*.c)) \
	  -o build/fuzz/fuzz_cat $(ZSTD_LIBS) $(call pc,--libs,libtraceevent)
	cp -n spec/vectors/pass/*.tr tests/format/fuzz-corpus/* /tmp/tr-fuzz-cat-corpus/ 2>/dev/null || true
	build/fuzz/fuzz_cat -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -close_fd_mask=3 \
	  -artifact_prefix=build/fuzz/cat- /tmp/tr-fuzz-cat-corpus
