UNIT_TESTS += test_format
test_format_SRCS := tests/format/test_format.c tests/format/synth.c
TEST_PROGS += tr-synth
tr-synth_SRCS := tests/format/tr-synth.c tests/format/synth.c tests/format/dump.c
# edits a trace's records and writes it valid again: hostile traces for tests and fuzz seeds
TEST_PROGS += tr-mut
tr-mut_SRCS := tests/format/tr-mut.c tests/format/trmut.c
CLI_TEST_DIRS += tests/format/cases
# sniffing, frames, and readers on bytes already read plus an fd or a callback
UNIT_TESTS += test_input
test_input_SRCS := tests/format/test_input.c tests/format/synth.c tests/format/dump.c
# two threads writing and reading two traces at once, first thing in the process
UNIT_TESTS += test_threads
test_threads_SRCS := tests/format/test_threads.c tests/format/synth.c
test_threads_LIBS := -pthread
# readers that decompress ahead on a thread: the same records, errors and places
UNIT_TESTS += test_readahead
test_readahead_SRCS := tests/format/test_readahead.c tests/format/synth.c tests/format/dump.c
test_readahead_LIBS := -pthread
# a stack copy's longest run of words equal to its thread's image, against a plain scan
UNIT_TESTS += test_stack_image
test_stack_image_SRCS := tests/format/test_stack_image.c
UNIT_TESTS += test_fuzz_replay
test_fuzz_replay_SRCS := tests/format/fuzz_replay.c tests/format/fuzz_reader.c

# make fuzz [FUZZ_SECONDS=60]: libFuzzer with ASan+UBSan on the reader; new
# inputs that grow coverage are kept in tests/format/fuzz-corpus (commit the
# crashes there, renamed crash-*, once fixed: test_fuzz_replay runs them).
# Every trace fuzz target mutates with fuzz_mutator.c: records and blobs are
# edited inside the chunks, which are compressed and checksummed again, so
# mutations reach the record decoders and the blob parsers (one in eight
# stays a raw byte mutation, for the frame layer).  Seeds with every blob
# kind, the findings (crash-*) and the small inputs that grew fuzz_cat's
# coverage (libFuzzer -merge=1) are in tests/format/fuzz-blobs, replayed too.
FUZZ_SECONDS ?= 60
FUZZ_CC = clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -Iformat -Imodel -Icli $(CFLAGS_model)
FUZZ_MUTATOR := tests/format/fuzz_mutator.c tests/format/trmut.c
# fuzz_run NAME,CORPUS-DIRS: run build/fuzz/NAME over a scratch copy of the corpus
define fuzz_run
	@mkdir -p /tmp/tr-$(1)-corpus
	cp -n $(2) /tmp/tr-$(1)-corpus/ 2>/dev/null || true
	build/fuzz/$(1) -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -close_fd_mask=3 -timeout=20 \
	  -artifact_prefix=build/fuzz/$(1)- /tmp/tr-$(1)-corpus
endef
FUZZ_SEEDS := spec/vectors/pass/*.tr tests/format/fuzz-blobs/* tests/format/fuzz-corpus/*
fuzz:
	@mkdir -p build/fuzz
	$(FUZZ_CC) tests/format/fuzz_reader.c $(FUZZ_MUTATOR) format/*.c -o build/fuzz/fuzz_reader $(ZSTD_LIBS)
	$(call fuzz_run,fuzz_reader,$(FUZZ_SEEDS) spec/vectors/fail/*.tr)

# tr-cat's renderers on hostile traces: the same corpus, replayed by make test
UNIT_TESTS += test_fuzz_cat_replay
test_fuzz_cat_replay_SRCS := tests/format/fuzz_replay.c tests/format/fuzz_cat.c \
	$(filter-out renderers/tr-cat/main.c,$(wildcard renderers/tr-cat/*.c)) $(SYM_SRCS)
test_fuzz_cat_replay_LIBS := $(SYM_LIBS)

fuzz-cat: $(B)/gen/model/syscalls_x86_64.h
	@mkdir -p build/fuzz
	$(FUZZ_CC) tests/format/fuzz_cat.c $(FUZZ_MUTATOR) format/*.c model/*.c \
	  cli/*.c $(filter-out renderers/tr-cat/main.c,$(wildcard renderers/tr-cat/*.c)) $(SYM_SRCS) \
	  -o build/fuzz/fuzz_cat $(ZSTD_LIBS) $(SYM_LIBS) $(call pc,--libs,libtraceevent)
	$(call fuzz_run,fuzz_cat,$(FUZZ_SEEDS))
