CLI_TEST_DIRS += tests/fold/cases
CFLAGS_tests/fold := -Ifilters/folded

# the perf script fuzz target's kept inputs (tests/flame/fuzz-regress, the quirk
# captures), replayed by make test through the replay driver of tests/flame
UNIT_TESTS += test_fuzz_perfscript_replay
test_fuzz_perfscript_replay_SRCS := tests/flame/fuzz_folded_replay.c tests/fold/fuzz_perfscript.c \
	filters/folded/perfscript.c
