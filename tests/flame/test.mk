CLI_TEST_DIRS += tests/flame/cases
UNIT_TESTS += test_folded
test_folded_SRCS := tests/flame/test_folded.c
CFLAGS_tests/flame := -Imodel/flame

# the fuzz target's kept inputs, replayed by make test (and under SAN=1)
UNIT_TESTS += test_fuzz_folded_replay
test_fuzz_folded_replay_SRCS := tests/flame/fuzz_folded_replay.c tests/flame/fuzz_folded.c $(FLAME_SRCS)

# make fuzz-folded [FUZZ_SECONDS=60]: libFuzzer (clang, ASan+UBSan) on the folded-text
# parser, tr-flame's model and SVG writer, then on the perf script folding
# (tests/fold/fuzz_perfscript.c); crashes land in tests/flame/fuzz-regress/ (keep them:
# test_fuzz_folded_replay and test_fuzz_perfscript_replay replay them)
fuzz-folded:
	bash tests/flame/fuzz.sh $(or $(FUZZ_SECONDS),60)
