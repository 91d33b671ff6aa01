UNIT_TESTS += test_strace
test_strace_SRCS := tests/strace/test_strace.c recorders/tr-rec-strace/filter.c
CFLAGS_tests/strace := -Irecorders/tr-rec-strace
CLI_TEST_DIRS += tests/strace/cases
