CLI_TEST_DIRS += tests/fold/cases


# the perf script fuzz target's kept inputs (tests/flame/fuzz-regress, the quirk
# captures), replayed by make test through the replay driver of tests/flame
UNIT_TESTS += test_fuzz_perfscript_replay
test_fuzz_perfscript_replay_SRCS := tests/flame/fuzz_folded_replay.c tests/fold/fuzz_perfscript.c \
	model/fold/perfscript.c

# tr-fold on hostile traces (the symbolize session, libtraceevent, the fold):
# the trace corpora replayed by make test; make fuzz-fold-trace [FUZZ_SECONDS=60]
# runs libFuzzer with the record mutator (tests/format/test.mk)
UNIT_TESTS += test_fuzz_fold_trace_replay
test_fuzz_fold_trace_replay_SRCS := tests/format/fuzz_replay.c tests/fold/fuzz_fold_trace.c \
	$(FOLD_SRCS) $(SYM_SRCS)
test_fuzz_fold_trace_replay_LIBS := $(SYM_LIBS) -lpthread
.PHONY: fuzz-fold-trace
fuzz-fold-trace: $(B)/gen/model/syscalls_x86_64.h
	@mkdir -p build/fuzz
	$(FUZZ_CC) -Imodel/fold tests/fold/fuzz_fold_trace.c $(FUZZ_MUTATOR) $(FOLD_SRCS) \
	  $(SYM_SRCS) format/*.c model/*.c cli/*.c -o build/fuzz/fuzz_fold_trace $(SYM_LIBS) $(ZSTD_LIBS) \
	  $(MODEL_LIBS) -lpthread -lm
	$(call fuzz_run,fuzz_fold_trace,$(FUZZ_SEEDS))
