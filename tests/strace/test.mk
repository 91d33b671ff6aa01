UNIT_TESTS += test_strace
test_strace_SRCS := tests/strace/test_strace.c recorders/tr-rec-strace/filter.c \
    recorders/tr-rec-strace/systab.c renderers/tr-cat/cat-syscall-desc.c renderers/tr-cat/cat-syscall-decode.c
CFLAGS_tests/strace := -Irecorders/tr-rec-strace -Irenderers/tr-cat -I$(B)/gen/tr-rec-strace
CLI_TEST_DIRS += tests/strace/cases
