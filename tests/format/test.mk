UNIT_TESTS += test_format
test_format_SRCS := tests/format/test_format.c tests/format/synth.c
TEST_PROGS += tr-synth
tr-synth_SRCS := tests/format/tr-synth.c tests/format/synth.c tests/format/dump.c
CLI_TEST_DIRS += tests/format/cases
